// tools/cuda/l2rate_twin.cu — a CUDA twin of `wavelab probe`'s L2 rate sweep (probe/l2rate.comp), to find
// why the Vulkan sweep reads scattered one-sector lines at half the rate of tools/cuda/l2bw.cu on the H100
// (docs/probe.md, "The L2's rates on the H100").  Same word addresses, the same 8 independent loads per
// round, the same dispatch (GROUPS workgroups of 256 invocations, ROUNDS rounds) and the same arithmetic as
// cli/probe_sweeps.c: (invocations x rounds) / (time of the loaded launch - time of an empty launch of as
// many groups) sectors per ns (the address arithmetic as the kernel has it since 2026-11-25: the step's
// products once per round, a few instructions per load).  Each difference from l2bw.cu can be switched off:
//   XOR 0        drops the step's xor from the line permutation (l2bw.cu has none);
//   FILL 1       fills the buffer with ones instead of zeros (the probe's buffer holds zeros);
//   GROUPS 264 / 1024 threads is l2bw.cu's geometry: every warp resident for the whole launch.
//
//   l2rate_twin MODE FOOTPRINT_BYTES GROUPS THREADS ROUNDS XOR FILL REPS -> one CSV line:
//   mode,footprint,groups,threads,rounds,xor,fill,median_us,empty_us,gsectors_per_s
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "ck.h"

// probe/l2rate.comp's load j of a round: the first step's share (rb, k0) per round, the step's share per load
__device__ __forceinline__ unsigned load(const unsigned *words, unsigned mode, unsigned line_mask, int use_xor,
                                         unsigned rb, unsigned k0, unsigned stride, unsigned within, unsigned off01,
                                         unsigned j)
{
    unsigned d = mode == 2u ? j >> 2 : j;
    unsigned idx = rb + d * stride;
    unsigned line = ((use_xor ? idx ^ (k0 + d * 0x27D4EB2Fu) : idx) * 0x9E3779B1u) & line_mask;
    return words[line * 32u + (mode == 2u ? (j & 3u) * 8u + within : off01)];
}

__global__ void l2rate(const unsigned *words, unsigned *sink, unsigned rounds, unsigned mode, unsigned line_mask,
                       unsigned units, int use_xor)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned unit = gid >> 5, lane = gid & 31u, acc = 0;
    unsigned per = mode == 1u ? 32u : 8u, lines = 32u / per, li = lane / per, within = lane % per;
    unsigned base = unit * lines + li, stride = units * lines, off01 = (mode == 1u ? 0u : li * 8u) + within;
    unsigned steps_per_round = mode == 2u ? 2u : 8u;
    for (unsigned r = 0; r < rounds; r++) {
        unsigned s0 = r * steps_per_round, rb = base + s0 * stride, k0 = s0 * 0x27D4EB2Fu;
        unsigned a[8];
#pragma unroll
        for (unsigned j = 0; j < 8u; j++)
            a[j] = load(words, mode, line_mask, use_xor, rb, k0, stride, within, off01, j);
        acc += (a[0] ^ a[1]) + (a[2] ^ a[3]) + (a[4] ^ a[5]) + (a[6] ^ a[7]);
    }
    if (acc == 0x12345678u)
        sink[0] = acc;
}

static float time_launch(int groups, int threads, const unsigned *buf, unsigned *sink, unsigned rounds,
                         unsigned mode, unsigned line_mask, unsigned units, int use_xor, int reps)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t(reps);
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(a));
        l2rate<<<groups, threads>>>(buf, sink, rounds, mode, line_mask, units, use_xor);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&t[r], a, b));
    }
    std::sort(t.begin(), t.end());
    return t[reps / 2] * 1000.0f;
}

int main(int argc, char **argv)
{
    if (argc < 9) {
        fprintf(stderr, "usage: l2rate_twin MODE FOOTPRINT GROUPS THREADS ROUNDS XOR FILL REPS\n");
        return 2;
    }
    unsigned mode = (unsigned)atoi(argv[1]);
    size_t fp = strtoull(argv[2], 0, 10);
    int groups = atoi(argv[3]), threads = atoi(argv[4]), use_xor = atoi(argv[6]), fill = atoi(argv[7]);
    unsigned rounds = (unsigned)atoi(argv[5]);
    int reps = atoi(argv[8]);
    if (mode > 2 || (fp & (fp - 1)) || fp < 4096 || threads % 32 || threads < 32 || threads > 1024 || groups < 1 ||
        reps < 1) {
        fprintf(stderr, "MODE 0..2; FOOTPRINT a power of two >= 4096; THREADS a multiple of 32 up to 1024\n");
        return 2;
    }
    unsigned *buf, *sink;
    CK(cudaMalloc(&buf, fp));
    CK(cudaMalloc(&sink, 16));
    CK(cudaMemset(buf, fill ? 1 : 0, fp));
    unsigned line_mask = (unsigned)(fp / 128 - 1), invocations = (unsigned)groups * (unsigned)threads;
    unsigned units = invocations / 32;
    for (int i = 0; i < 3; ++i) // warm-up: clocks up, the buffer in the L2
        l2rate<<<groups, threads>>>(buf, sink, rounds, mode, line_mask, units, use_xor);
    CK(cudaDeviceSynchronize());
    float full = time_launch(groups, threads, buf, sink, rounds, mode, line_mask, units, use_xor, reps);
    float empty = time_launch(groups, threads, buf, sink, 0, mode, line_mask, units, use_xor, reps);
    double sectors = (double)invocations * rounds; // 8 loads of 4 bytes per invocation and round = 1 sector
    printf("%u,%zu,%d,%d,%u,%d,%d,%.2f,%.2f,%.2f\n", mode, fp, groups, threads, rounds, use_xor, fill, full, empty,
           sectors / (full - empty) / 1000.0);
    return 0;
}
