// tools/cuda/gather004.cu — a CUDA twin of article 004's gather (kernels/004_swizzle):
// the same access pattern as swizzle_row_major.comp / swizzle_tiled.comp, so Nsight
// Compute can read the L1 and L2 hit rates that Vulkan does not expose on NVIDIA.
//
// Each 8x8 block plays one 8x8 workgroup; each thread one pixel.  Every pixel
// reads TAPS x TAPS u32 texels at offsets {-(TAPS/2)..TAPS/2} x S, clamped to the
// image, and writes the weighted sum.  Order "row" uses the block index as the
// group; order "tiled" remaps it with the article's thread-group tiling along X
// (N = 16 groups wide, the last tile narrower), exactly as the GLSL kernel does.
//
//   gather004 time  W H S TAPS ORDER REPS   -> median kernel time (cudaEvent), one CSV line
//   gather004 ncu   W H S TAPS ORDER        -> one warm-up launch, then the launch ncu profiles
//   gather004 check W H S TAPS ORDER SEED   -> the case file's splitmix64 fill, output printed
//                                             as u32 words (compared with the case's expectation)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>
#include <algorithm>

#define N_TILE 16u

__device__ uint2 tiling_x(uint2 grid, uint2 cta, unsigned max_w, uint2 tid, uint2 gid)
{
    unsigned per_full = max_w * grid.y;
    unsigned full_tiles = grid.x / max_w;
    unsigned in_full = full_tiles * per_full;
    unsigned flat = grid.x * gid.y + gid.x;
    unsigned tile = flat / per_full;
    unsigned in_tile = flat % per_full;
    unsigned w = max_w;
    if (flat >= in_full) w = grid.x % max_w;
    unsigned ly = in_tile / w, lx = in_tile % w;
    unsigned sw = tile * max_w + ly * grid.x + lx;
    return make_uint2(cta.x * (sw % grid.x) + tid.x, cta.y * (sw / grid.x) + tid.y);
}

__global__ void gather(const unsigned *__restrict__ in, unsigned *__restrict__ out, int W, int H, int S,
                       int taps, int tiled)
{
    uint2 grid = make_uint2(gridDim.x, gridDim.y);
    uint2 gid = make_uint2(blockIdx.x, blockIdx.y);
    uint2 tid = make_uint2(threadIdx.x, threadIdx.y);
    uint2 px = tiled ? tiling_x(grid, make_uint2(8, 8), N_TILE, tid, gid)
                     : make_uint2(gid.x * 8 + tid.x, gid.y * 8 + tid.y);
    unsigned acc = 0;
    for (int j = 0; j < taps; ++j)
        for (int i = 0; i < taps; ++i) {
            int x = min(max((int)px.x + (i - taps / 2) * S, 0), W - 1);
            int y = min(max((int)px.y + (j - taps / 2) * S, 0), H - 1);
            acc += in[y * W + x] * (unsigned)(1 + i + taps * j);
        }
    out[px.y * W + px.x] = acc;
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#include "ck.h"

int main(int argc, char **argv)
{
    if (argc < 7) { fprintf(stderr, "usage: gather004 time|ncu|check W H S TAPS row|tiled [REPS|SEED]\n"); return 2; }
    const char *mode = argv[1];
    int W = atoi(argv[2]), H = atoi(argv[3]), S = atoi(argv[4]), taps = atoi(argv[5]);
    int tiled = strcmp(argv[6], "tiled") == 0;
    if (W % 8 || H % 8) { fprintf(stderr, "W and H must be multiples of 8\n"); return 2; }
    size_t n = (size_t)W * H;
    std::vector<unsigned> host(n);
    uint64_t seed = argc > 7 && !strcmp(mode, "check") ? strtoull(argv[7], 0, 10) : 4021;
    for (size_t i = 0; i < n; ++i) host[i] = (unsigned)(splitmix64(&seed) % 65536);
    unsigned *din, *dout;
    CK(cudaMalloc(&din, n * 4)); CK(cudaMalloc(&dout, n * 4));
    CK(cudaMemcpy(din, host.data(), n * 4, cudaMemcpyHostToDevice));
    dim3 block(8, 8), grid(W / 8, H / 8);
    if (!strcmp(mode, "check")) {
        gather<<<grid, block>>>(din, dout, W, H, S, taps, tiled);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(host.data(), dout, n * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; ++i) printf("%u\n", host[i]);
        return 0;
    }
    if (!strcmp(mode, "ncu")) {
        gather<<<grid, block>>>(din, dout, W, H, S, taps, tiled);   // warm-up, not profiled (-c/-s in the script)
        gather<<<grid, block>>>(din, dout, W, H, S, taps, tiled);
        CK(cudaDeviceSynchronize());
        return 0;
    }
    int reps = argc > 7 ? atoi(argv[7]) : 50;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int k = 0; k < 20; ++k) gather<<<grid, block>>>(din, dout, W, H, S, taps, tiled);  // clocks up
    std::vector<float> t(reps);
    for (int k = 0; k < reps; ++k) {
        CK(cudaEventRecord(a));
        gather<<<grid, block>>>(din, dout, W, H, S, taps, tiled);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&t[k], a, b));
    }
    std::sort(t.begin(), t.end());
    printf("%d,%d,%d,%d,%s,%.2f,%.2f,%.2f\n", W, H, S, taps, tiled ? "tiled" : "row",
           t[reps / 2] * 1000.0, t[0] * 1000.0, t[reps - 1] * 1000.0);
    return 0;
}
