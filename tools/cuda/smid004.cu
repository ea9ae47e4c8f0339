// tools/cuda/smid004.cu — where article 004's gather blocks run on an NVIDIA GPU: for every
// block, the SM it ran on (%smid) and its start and end time (%globaltimer, ns).  The memory
// model's L1 hit rate depends on which workgroups share an SM at once (docs/hardware.md, "The
// gather": the model's round-robin dispatcher misses the H100's L1 reuse at S = 8); this
// records the hardware's block-to-SM assignment so a dispatcher model can be built from it.
//
// The gather is the same as the Nsight Compute twin's (7 x 7 taps at {-3..3} x S, 8 x 8 blocks,
// row-major or tiled N = 16); one warm-up launch, then the recorded one.
//
//   smid004 W H S row|tiled > blocks.csv      (columns: block,sm,start_ns,end_ns; block = linear id)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>

#define N_TILE 16u

__device__ uint2 tiling_x(uint2 grid, unsigned max_w, uint2 gid)
{
    unsigned per_full = max_w * grid.y, full_tiles = grid.x / max_w, in_full = full_tiles * per_full;
    unsigned flat = grid.x * gid.y + gid.x, tile = flat / per_full, in_tile = flat % per_full, w = max_w;
    if (flat >= in_full) w = grid.x % max_w;
    unsigned sw = tile * max_w + (in_tile / w) * grid.x + in_tile % w;
    return make_uint2(sw % grid.x, sw / grid.x);
}

__global__ void gather(const unsigned *__restrict__ in, unsigned *__restrict__ out, int W, int H, int S, int tiled,
                       unsigned long long *rec)
{
    unsigned long long t0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    uint2 g = tiled ? tiling_x(make_uint2(gridDim.x, gridDim.y), N_TILE, make_uint2(blockIdx.x, blockIdx.y))
                    : make_uint2(blockIdx.x, blockIdx.y);
    int px = g.x * 8 + threadIdx.x, py = g.y * 8 + threadIdx.y;
    unsigned acc = 0;
    for (int j = 0; j < 7; ++j)
        for (int i = 0; i < 7; ++i) {
            int x = min(max(px + (i - 3) * S, 0), W - 1), y = min(max(py + (j - 3) * S, 0), H - 1);
            acc += in[y * W + x] * (unsigned)(1 + i + 7 * j);
        }
    out[py * W + px] = acc;
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        unsigned long long t1;
        unsigned sm;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        size_t b = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
        rec[3 * b] = sm, rec[3 * b + 1] = t0, rec[3 * b + 2] = t1;
    }
}

#include "ck.h"

int main(int argc, char **argv)
{
    if (argc != 5) { fprintf(stderr, "usage: smid004 W H S row|tiled\n"); return 2; }
    int W = atoi(argv[1]), H = atoi(argv[2]), S = atoi(argv[3]), tiled = !strcmp(argv[4], "tiled");
    if (W % 8 || H % 8 || (tiled && (W / 8) % N_TILE)) { fprintf(stderr, "bad size\n"); return 2; }
    size_t n = (size_t)W * H, blocks = n / 64;
    unsigned *din, *dout;
    unsigned long long *drec;
    CK(cudaMalloc(&din, n * 4)); CK(cudaMalloc(&dout, n * 4)); CK(cudaMalloc(&drec, blocks * 24));
    CK(cudaMemset(din, 1, n * 4));
    dim3 grid(W / 8, H / 8), block(8, 8);
    for (int k = 0; k < 2; ++k)
        gather<<<grid, block>>>(din, dout, W, H, S, tiled, drec);
    CK(cudaDeviceSynchronize());
    std::vector<unsigned long long> rec(blocks * 3);
    CK(cudaMemcpy(rec.data(), drec, blocks * 24, cudaMemcpyDeviceToHost));
    unsigned long long t0 = ~0ull;
    for (size_t b = 0; b < blocks; ++b) t0 = rec[3 * b + 1] < t0 ? rec[3 * b + 1] : t0;
    printf("block,sm,start_ns,end_ns\n");
    for (size_t b = 0; b < blocks; ++b)
        printf("%zu,%llu,%llu,%llu\n", b, rec[3 * b], rec[3 * b + 1] - t0, rec[3 * b + 2] - t0);
    return 0;
}
