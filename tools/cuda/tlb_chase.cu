// tools/cuda/tlb_chase.cu — address translation on an NVIDIA GPU, measured the way the GPU-dissection
// microbenchmark papers do: a one-thread pointer chase that touches ONE 8-byte word per page, over P pages
// spaced `stride` bytes apart, in a random order, timed with clock64() inside the kernel after a warm-up
// pass.  The words touched are few (P of them, spread over cache sets by a per-page offset), so after the
// warm-up they sit in the L1 or L2; what grows with P is the number of distinct pages, and each step in
// latency is a translation level running out (docs/hardware.md, "Address translation").
//
//   nvcc -O2 -arch=sm_90 -o tlb_chase tools/cuda/tlb_chase.cu && ./tlb_chase > tlb.csv
// CSV: stride_bytes,pages,cycles_per_load,ns_per_load (median of 3 launches of 4096 timed loads each).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "ck.h"

// each word holds the byte offset of the next word to read
__global__ void chase(const char *base, uint64_t start, uint32_t warm, uint32_t loads, long long *out)
{
    uint64_t p = start;
    for (uint32_t i = 0; i < warm; i++)
        p = *(const volatile uint64_t *)(base + p);
    long long t0 = clock64();
    for (uint32_t i = 0; i < loads; i++)
        p = *(const volatile uint64_t *)(base + p);
    long long t1 = clock64();
    out[0] = t1 - t0;
    out[1] = (long long)p; // keeps the chain live
}

int main()
{
    const size_t bytes = (size_t)16 << 30; // 16 GiB: 8192 pages of 2 MiB
    char *d_base = nullptr;
    long long *d_out = nullptr;
    CK(cudaMalloc(&d_base, bytes));
    CK(cudaMalloc(&d_out, 2 * sizeof(long long)));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    fprintf(stderr, "%s, SM clock %d kHz\n", prop.name, clock_khz);
    const size_t strides[] = {(size_t)64 << 10, (size_t)2 << 20, (size_t)32 << 20};
    const uint32_t pages[] = {1,   2,   4,   8,   12,  16,   24,   32,   48,   64,   96,   128,  192,
                              256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192};
    std::mt19937_64 rng(12345);
    printf("stride_bytes,pages,cycles_per_load,ns_per_load\n");
    for (size_t stride : strides) {
        for (uint32_t P : pages) {
            if ((size_t)P * stride > bytes)
                break;
            // node k: page k at a per-page offset that walks the cache sets (128-byte steps, 64 KiB period)
            std::vector<uint64_t> node(P);
            for (uint32_t k = 0; k < P; k++)
                node[k] = (uint64_t)k * stride + ((uint64_t)k * 128 * 37) % std::min<size_t>(stride, 65536);
            std::vector<uint32_t> order(P);
            for (uint32_t k = 0; k < P; k++)
                order[k] = k;
            std::shuffle(order.begin(), order.end(), rng);
            for (uint32_t k = 0; k < P; k++) {
                uint64_t next = node[order[(k + 1) % P]];
                CK(cudaMemcpy(d_base + node[order[k]], &next, sizeof next, cudaMemcpyHostToDevice));
            }
            std::vector<double> c;
            for (int rep = 0; rep < 3; rep++) {
                chase<<<1, 1>>>(d_base, node[order[0]], std::max<uint32_t>(2 * P, 256), 4096, d_out);
                CK(cudaGetLastError());
                long long h[2];
                CK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
                c.push_back((double)h[0] / 4096.0);
            }
            std::sort(c.begin(), c.end());
            printf("%zu,%u,%.2f,%.2f\n", stride, P, c[1], c[1] / (clock_khz / 1e6));
            fflush(stdout);
        }
    }
    return 0;
}
