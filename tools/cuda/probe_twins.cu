// tools/cuda/probe_twins.cu — CUDA twins of `wavelab probe`'s sweeps (cli/probe.c, probe/*.comp), for the
// NVIDIA machine: the same chains (one element per 256-byte block at a random offset, random cyclic order;
// sequential strides inside 1 KiB regions in random order), the same kernels (a one-thread pointer chase, a
// one-warp shared-memory stride sweep, a grid-stride 16-byte copy), timed with clock64() inside the kernel
// (SM cycles, no launch overhead), the copy with CUDA events.  Run by tools/h100_probe.sh:
//
//   probe_twins sweeps OUT.csv     every sweep, one CSV: sweep,x,cycles_per_load,ns_at_max_clock
//                                  (copy rows: repetition,0,GB/s)
//   probe_twins ncu                a short list of launches for Nsight Compute (each named on stderr as it
//                                  starts; stdout stays ncu's CSV)
//
// Built with nvcc -O2 -arch=sm_90.  The numbers are the hardware's answer to the same questions the Vulkan
// probe asks through the driver; docs/probe.md compares them.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#include "ck.h"

static uint64_t rng_state = 0x5eed;
static uint64_t next_random() // splitmix64, as cli/probe.c
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void shuffle(std::vector<uint32_t> &v)
{
    for (size_t i = v.size(); i > 1; i--) {
        size_t j = (size_t)(next_random() % i);
        std::swap(v[i - 1], v[j]);
    }
}

// n elements, one per `block` bytes at a random 4-byte offset, random cyclic order (cli/probe.c chain_blocks)
static std::vector<uint32_t> chain_blocks(size_t n, uint32_t block, uint32_t *start)
{
    std::vector<uint32_t> chain(n * block / 4, 0), order(n);
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)(i * (block / 4) + next_random() % (block / 4));
    shuffle(order);
    for (size_t i = 0; i < n; i++)
        chain[order[i]] = order[(i + 1) % n];
    *start = order[0];
    return chain;
}

// `footprint` bytes as 1 KiB regions in random order, each walked at `stride` bytes (chain_strided)
static std::vector<uint32_t> chain_strided(size_t footprint, uint32_t stride, uint32_t *start)
{
    size_t regions = footprint / 1024, per = 1024 / stride;
    std::vector<uint32_t> chain(footprint / 4, 0), order(regions);
    for (size_t i = 0; i < regions; i++)
        order[i] = (uint32_t)i;
    shuffle(order);
    uint32_t first = order[0] * 256, prev = first;
    for (size_t r = 0; r < regions; r++)
        for (size_t k = 0; k < per; k++) {
            uint32_t here = order[r] * 256 + (uint32_t)(k * stride / 4);
            if (r || k)
                chain[prev] = here;
            prev = here;
        }
    chain[prev] = first;
    *start = first;
    return chain;
}

// One thread: `warm` loads (fill the cache under test), then `loads` timed ones.
__global__ void chase(const uint32_t *next, uint32_t start, uint32_t warm, uint32_t loads, long long *out)
{
    uint32_t j = start;
    for (uint32_t i = 0; i < warm; i++)
        j = next[j];
    long long t0 = clock64();
    for (uint32_t i = 0; i < loads; i++)
        j = next[j];
    long long t1 = clock64();
    out[0] = t1 - t0;
    out[1] = j;
}

// One warp: lane reads lds[lane * stride], each address depending on the last value (zeros): probe/lds.comp
__global__ void lds_sweep(uint32_t stride, uint32_t loads, long long *out)
{
    const uint32_t WORDS = 4096;
    __shared__ uint32_t lds[WORDS];
    uint32_t lane = threadIdx.x;
    for (uint32_t i = lane; i < WORDS; i += blockDim.x)
        lds[i] = 0;
    __syncthreads();
    uint32_t idx = (lane * stride) % WORDS, acc = 0;
    long long t0 = clock64();
    for (uint32_t i = 0; i < loads; i++) {
        uint32_t v = lds[idx];
        idx = (idx + v) % WORDS;
        acc += v;
    }
    long long t1 = clock64();
    if (lane == 0)
        out[0] = t1 - t0;
    if (acc == 0x9e3779b9u)
        out[1] = idx;
}

__global__ void copy16(const uint4 *src, uint4 *dst, uint32_t count, uint32_t threads)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += threads)
        dst[i] = src[i];
}

static uint32_t *d_chain = nullptr;
static size_t d_chain_words = 0;
static long long *d_out = nullptr;

static void upload(const std::vector<uint32_t> &chain)
{
    if (chain.size() > d_chain_words) {
        if (d_chain)
            CK(cudaFree(d_chain));
        CK(cudaMalloc(&d_chain, chain.size() * 4));
        d_chain_words = chain.size();
    }
    CK(cudaMemcpy(d_chain, chain.data(), chain.size() * 4, cudaMemcpyHostToDevice));
}

// cycles per load: median of `reps` launches, each its own warm-up then the timed loads (clock64 brackets the
// timed loads alone); *ns = the same at the SM's maximum clock (cudaDeviceProp::clockRate)
static double sm_ghz = 1.0;
static double time_chase(uint32_t start, uint32_t warm, uint32_t loads, int reps, double *ns)
{
    std::vector<double> c;
    for (int r = 0; r < reps; r++) {
        long long h[2];
        chase<<<1, 1>>>(d_chain, start, warm, loads, d_out);
        CK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
        c.push_back((double)h[0] / loads);
    }
    std::sort(c.begin(), c.end());
    *ns = c[c.size() / 2] / sm_ghz;
    return c[c.size() / 2];
}

static size_t sizes_lines(std::vector<size_t> &v, size_t max_lines)
{
    for (size_t k = 0;; k++) {
        size_t n = k % 2 ? (size_t)24 << (k / 2) : (size_t)16 << (k / 2);
        if (n > max_lines)
            break;
        v.push_back(n);
    }
    return v.size();
}

static void copy_bw(FILE *f, size_t bytes, int reps)
{
    uint4 *src, *dst;
    CK(cudaMalloc(&src, bytes));
    CK(cudaMalloc(&dst, bytes));
    CK(cudaMemset(src, 1, bytes));
    uint32_t groups = 4096, threads = groups * 256;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int r = -2; r < reps; r++) {
        float ms;
        CK(cudaEventRecord(a));
        copy16<<<groups, 256>>>(src, dst, (uint32_t)(bytes / 16), threads);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 0 && f)
            fprintf(f, "copy,%d,0,%.3f\n", r, 2.0 * bytes / (ms * 1e6)); // GB/s in the last column
    }
    CK(cudaFree(src));
    CK(cudaFree(dst));
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "sweeps") && strcmp(argv[1], "ncu")) || (!strcmp(argv[1], "sweeps") && argc < 3)) {
        fprintf(stderr, "usage: probe_twins sweeps OUT.csv | probe_twins ncu\n");
        return 2;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    fprintf(stderr, "device %s, %d SMs, L2 %d bytes, warp %d\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize,
           prop.warpSize);
    CK(cudaMalloc(&d_out, 64));
    int clock_khz = 0;
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    if (clock_khz > 0)
        sm_ghz = clock_khz / 1e6;
    // the L1 as big as it gets: no shared memory carve-out for the chase
    CK(cudaFuncSetAttribute(chase, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
    uint32_t start;
    double ns;

    if (!strcmp(argv[1], "ncu")) {
        // a few launches whose counters tell the hit rates of each regime
        const size_t lines[] = {512, 2048, 16384, 65536, 131072, 196608, 262144, 524288, 2097152};
        for (size_t n : lines) {
            upload(chain_blocks(n, 256, &start));
            fprintf(stderr, "launch chase lines=%zu\n", n);
            chase<<<1, 1>>>(d_chain, start, (uint32_t)std::min<size_t>(2 * n, 1u << 20), 8192, d_out);
            CK(cudaDeviceSynchronize());
        }
        const size_t foot[] = {4u << 20, 256u << 20};
        const uint32_t strides[] = {4, 32, 128};
        for (size_t fp : foot)
            for (uint32_t s : strides) {
                upload(chain_strided(fp, s, &start));
                fprintf(stderr, "launch stride footprint=%zu stride=%u\n", fp, s);
                chase<<<1, 1>>>(d_chain, start, (uint32_t)std::min<size_t>(fp / s, 1u << 20), 8192, d_out);
                CK(cudaDeviceSynchronize());
            }
        fprintf(stderr, "launch copy bytes=%u (3 launches)\n", 1u << 30);
        copy_bw(nullptr, (size_t)1 << 30, 1);
        return 0;
    }

    FILE *f = fopen(argv[2], "w");
    if (!f) {
        perror(argv[2]);
        return 2;
    }
    fprintf(f, "sweep,x,cycles_per_load,ns_at_max_clock\n");
    copy_bw(f, (size_t)1 << 30, 7); // first: it also brings the clock up

    // LDS: one warp, strides in words
    const uint32_t lstrides[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 17, 24, 32, 33, 48, 64, 96, 128};
    for (uint32_t s : lstrides) {
        std::vector<double> c;
        for (int r = 0; r < 7; r++) {
            long long h;
            lds_sweep<<<1, 32>>>(s, 8192, d_out);
            CK(cudaMemcpy(&h, d_out, sizeof h, cudaMemcpyDeviceToHost));
            c.push_back((double)h / 8192);
        }
        std::sort(c.begin(), c.end());
        fprintf(f, "lds,%u,%.3f,0\n", s, c[3]);
    }

    // chase: latency vs lines (256-byte blocks)
    std::vector<size_t> ls;
    sizes_lines(ls, 2u << 20);
    std::vector<double> lat;
    for (size_t n : ls) {
        upload(chain_blocks(n, 256, &start));
        double c = time_chase(start, (uint32_t)std::min<size_t>(2 * n, 1u << 20), 8192, 3, &ns);
        lat.push_back(c);
        fprintf(f, "chase,%zu,%.3f,%.3f\n", n, c, ns);
        fflush(f);
    }
    // the L1's lines as cli/probe.c finds them: the last point before latency leaves 1.3 x the first three's
    double b3[3] = {lat[0], lat[1], lat[2]};
    std::sort(b3, b3 + 3);
    size_t l1_lines = ls[0];
    for (size_t i = 0; i < lat.size(); i++) {
        if (lat[i] > 1.3 * b3[1] && (i + 1 == lat.size() || lat[i + 1] > 1.3 * b3[1]))
            break;
        l1_lines = ls[i];
    }
    printf("L1 plateau ends at %zu lines\n", l1_lines);

    // line: 1.5 x the L1's lines, dense at block b
    for (uint32_t b = 8; b <= 512; b *= 2) {
        size_t n = l1_lines * 3 / 2;
        upload(chain_blocks(n, b, &start));
        double c = time_chase(start, (uint32_t)(4 * n), 8192, 3, &ns);
        fprintf(f, "line,%u,%.3f,%.3f\n", b, c, ns);
    }
    // strides: misses in L1 (4 MiB) and in L2 (256 MiB)
    const size_t foot[] = {4u << 20, 256u << 20};
    const char *names[] = {"l1_stride", "l2_stride"};
    for (int k = 0; k < 2; k++)
        for (uint32_t s = 4; s <= 512; s *= 2) {
            upload(chain_strided(foot[k], s, &start));
            double c = time_chase(start, (uint32_t)std::min<size_t>(foot[k] / s, 1u << 20), 8192, 3, &ns);
            fprintf(f, "%s,%u,%.3f,%.3f\n", names[k], s, c, ns);
        }
    // associativity hint: k lines one power-of-two L1 capacity apart
    size_t spacing = 1;
    while (spacing < l1_lines * 128)
        spacing *= 2;
    for (uint32_t k = 1; k <= 40; k++) {
        std::vector<uint32_t> chain(spacing / 4 * k, 0), order(k);
        for (uint32_t i = 0; i < k; i++)
            order[i] = (uint32_t)(i * (spacing / 4));
        shuffle(order);
        for (uint32_t i = 0; i < k; i++)
            chain[order[i]] = order[(i + 1) % k];
        upload(chain);
        double c = time_chase(order[0], 64 * k, 8192, 3, &ns);
        fprintf(f, "assoc,%u,%.3f,%.3f\n", k, c, ns);
    }
    fclose(f);
    printf("done\n");
    return 0;
}
