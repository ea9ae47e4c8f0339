// tools/cuda/gen_suite.cu — CUDA twins of the generalization suite (kernels/generalize/*.comp, issue 26):
// the same access patterns, workgroup shapes and sizes as the wavelab cases, so Nsight Compute can give the
// L1/L2 hit rates, DRAM bytes and kernel time the memory model is compared with (docs/hardware.md,
// "Generalization").  One binary, one kernel per name; each thread does what one invocation of the GLSL
// kernel does.
//
//   gen_suite NAME ARG time REPS  -> "name,arg,median_us,min_us,max_us" (cudaEvent, after 0.3 s of warm-up launches)
//   gen_suite NAME ARG ncu        -> two launches (ncu profiles the second: --launch-skip 1)
//   gen_suite list                -> the names
// ARG: the stride in words for "stride", else ignored (0).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>
#include <algorithm>
#include "ck.h"

#define TN 4096u          /* transposes and the stencil: TN x TN u32 (64 MiB) */
#define COPY_N (16u << 20) /* streaming copy/scale, reduction and histograms: 16 Mi u32 (64 MiB) */
#define STRIDE_N (1u << 19) /* stride sweep: 512 Ki threads, each reading one word at i * S */
#define GATHER_N (4u << 20) /* random gather: 4 Mi reads ... */
#define GATHER_TABLE (16u << 20) /* ... of a 16 Mi-word (64 MiB) table */
#define TILE_N 2048u      /* LDS tile blur: 2048 x 2048 u32 */

__device__ __forceinline__ unsigned hash32(unsigned x)  /* the same mix as hash32 in kernels/generalize */
{
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

__global__ void transpose_naive(const unsigned *in, unsigned *out)
{
    unsigned x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    out[x * TN + y] = in[y * TN + x];
}

__global__ void transpose_shared(const unsigned *in, unsigned *out)
{
    __shared__ unsigned tile[32][33];
    unsigned bx = blockIdx.x * 32, by = blockIdx.y * 32;
    for (unsigned r = threadIdx.y; r < 32; r += 8)
        tile[r][threadIdx.x] = in[(by + r) * TN + bx + threadIdx.x];
    __syncthreads();
    for (unsigned r = threadIdx.y; r < 32; r += 8)
        out[(bx + r) * TN + by + threadIdx.x] = tile[threadIdx.x][r];
}

__global__ void copy_scale(const unsigned *in, unsigned *out)
{
    unsigned i = blockIdx.x * 256 + threadIdx.x;
    out[i] = in[i] * 3u;
}

__global__ void stencil5(const unsigned *in, unsigned *out)
{
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y, n = TN;
    int xm = max(x - 1, 0), xp = min(x + 1, n - 1), ym = max(y - 1, 0), yp = min(y + 1, n - 1);
    out[y * n + x] = 4u * in[y * n + x] + in[y * n + xm] + in[y * n + xp] + in[ym * n + x] + in[yp * n + x];
}

__global__ void stride(const unsigned *in, unsigned *out, unsigned s)
{
    unsigned i = blockIdx.x * 256 + threadIdx.x;
    out[i] = in[i * s];
}

__global__ void reduce(const unsigned *in, unsigned *out)
{
    __shared__ unsigned part[256];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (unsigned h = 128; h > 0; h >>= 1) {
        if (t < h)
            part[t] += part[t + h];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = part[0];
}

__global__ void histogram_lds(const unsigned *in, unsigned *bins)
{
    __shared__ unsigned h[256];
    unsigned t = threadIdx.x;
    h[t] = 0;
    __syncthreads();
    for (unsigned k = 0; k < 16; k++)
        atomicAdd(&h[in[(blockIdx.x * 16 + k) * 256 + t] & 255u], 1u);
    __syncthreads();
    if (h[t])
        atomicAdd(&bins[t], h[t]);
}

__global__ void histogram_global(const unsigned *in, unsigned *bins)
{
    unsigned t = threadIdx.x;
    for (unsigned k = 0; k < 16; k++)
        atomicAdd(&bins[in[(blockIdx.x * 16 + k) * 256 + t] & 255u], 1u);
}

__global__ void lds_tile(const unsigned *in, unsigned *out)
{
    /* 5x5 box sum through a 20x20 shared tile (16x16 block + 2-pixel halo, clamped at the image's edges) */
    __shared__ unsigned tile[20][20];
    int n = TILE_N, bx = blockIdx.x * 16, by = blockIdx.y * 16;
    for (int k = threadIdx.y * 16 + threadIdx.x; k < 400; k += 256) {
        int tx = k % 20, ty = k / 20;
        int gx = min(max(bx + tx - 2, 0), n - 1), gy = min(max(by + ty - 2, 0), n - 1);
        tile[ty][tx] = in[gy * n + gx];
    }
    __syncthreads();
    unsigned acc = 0;
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 5; i++)
            acc += tile[threadIdx.y + j][threadIdx.x + i];
    out[(by + threadIdx.y) * n + bx + threadIdx.x] = acc;
}

__global__ void random_gather(const unsigned *in, unsigned *out)
{
    unsigned i = blockIdx.x * 256 + threadIdx.x;
    out[i] = in[hash32(i) & (GATHER_TABLE - 1)];
}

__global__ void fill(unsigned *p, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = hash32((unsigned)i) & 0xffffu;
}

struct buffers {
    unsigned *in, *out;
};

static void launch(const char *name, unsigned arg, buffers b)
{
    if (!strcmp(name, "transpose_naive"))
        transpose_naive<<<dim3(TN / 32, TN / 8), dim3(32, 8)>>>(b.in, b.out);
    else if (!strcmp(name, "transpose_shared"))
        transpose_shared<<<dim3(TN / 32, TN / 32), dim3(32, 8)>>>(b.in, b.out);
    else if (!strcmp(name, "copy_scale"))
        copy_scale<<<COPY_N / 256, 256>>>(b.in, b.out);
    else if (!strcmp(name, "stencil5"))
        stencil5<<<dim3(TN / 32, TN / 8), dim3(32, 8)>>>(b.in, b.out);
    else if (!strcmp(name, "stride"))
        stride<<<STRIDE_N / 256, 256>>>(b.in, b.out, arg);
    else if (!strcmp(name, "reduce"))
        reduce<<<COPY_N / 256, 256>>>(b.in, b.out);
    else if (!strcmp(name, "histogram_lds"))
        histogram_lds<<<COPY_N / 4096, 256>>>(b.in, b.out);
    else if (!strcmp(name, "histogram_global"))
        histogram_global<<<COPY_N / 4096, 256>>>(b.in, b.out);
    else if (!strcmp(name, "lds_tile"))
        lds_tile<<<dim3(TILE_N / 16, TILE_N / 16), dim3(16, 16)>>>(b.in, b.out);
    else if (!strcmp(name, "random_gather"))
        random_gather<<<GATHER_N / 256, 256>>>(b.in, b.out);
    else {
        fprintf(stderr, "gen_suite: unknown kernel '%s'\n", name);
        exit(2);
    }
    CK(cudaGetLastError());
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "list")) {
        puts("transpose_naive transpose_shared copy_scale stencil5 stride reduce histogram_lds histogram_global "
             "lds_tile random_gather");
        return 0;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: gen_suite NAME ARG time REPS | gen_suite NAME ARG ncu | gen_suite list\n");
        return 2;
    }
    const char *name = argv[1], *mode = argv[3];
    unsigned arg = (unsigned)atoi(argv[2]);
    /* every kernel's input fits in 256 MiB (the stride sweep at 64 words: 512 Ki x 64 words = 128 MiB) */
    size_t words = (size_t)64 << 20;
    buffers b;
    CK(cudaMalloc(&b.in, words * 4));
    CK(cudaMalloc(&b.out, words * 4));
    fill<<<1024, 256>>>(b.in, words);
    CK(cudaMemset(b.out, 0, words * 4));
    CK(cudaDeviceSynchronize());
    if (!strcmp(mode, "ncu")) {
        launch(name, arg, b);
        launch(name, arg, b);
        CK(cudaDeviceSynchronize());
        return 0;
    }
    int reps = argc > 4 ? atoi(argv[4]) : 50;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    /* the GPU idles at a low clock: keep it busy for 0.3 s (and at least 10 launches) before timing */
    float busy = 0;
    CK(cudaEventRecord(e0));
    for (int i = 0; i < 10 || busy < 300.0f; i++) {
        launch(name, arg, b);
        if (i % 10 == 9) {
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&busy, e0, e1));
        }
    }
    std::vector<float> t;
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(e0));
        launch(name, arg, b);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms * 1000.0f);
    }
    std::sort(t.begin(), t.end());
    printf("%s,%u,%.2f,%.2f,%.2f\n", name, arg, t[t.size() / 2], t.front(), t.back());
    return 0;
}
