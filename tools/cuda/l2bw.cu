// tools/cuda/l2bw.cu — read throughput of the L1 and the L2 for the access shape of
// article 004's gather (docs/hardware.md, "What bounds the gather").
//
// Every warp load reads 32 u32 words = 4 sectors, spread over 4/K lines with K
// consecutive sectors in each (K = 1: four lines, one sector each — the gather's
// shape, an 8x4-pixel tap; K = 4: one whole line).  Lines are visited in a
// scattered order (an odd multiplier modulo a power of two: a permutation), so
// neither the L1 nor the L2 sees streaming.  PATH "cg" loads with ld.global.cg
// (L2 only: the L2's throughput), "ca" with the default ld (L1 allocates: the
// L1's miss path, or its hit path when the footprint fits it).  8 loads per
// thread are independent, so each warp keeps several in flight.  SMS < the SM count
// launches that many blocks of WARPS_PER_SM warps (the scheduler spreads them one per
// SM): whether the limit is each SM's or the L2's.  ADJ 1 (K = 1 only) makes four
// consecutive loads of a warp read the four sectors of the same four lines, as the
// gather's horizontal taps at S = 8 do: whether the L1 merges their misses.
//
//   l2bw PATH K FOOTPRINT_BYTES WARPS_PER_SM REPS [SMS [ADJ]] -> one CSV line:
//   path,k,footprint,warps_per_sm,sms,adj,sectors,median_us,gsectors_per_s
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include "ck.h"

template <bool CG>
__global__ void rd(const unsigned *__restrict__ buf, unsigned *out, unsigned line_mask, int k, int iters, int adj)
{
    unsigned lane = threadIdx.x & 31u;
    unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned nwarps = (gridDim.x * blockDim.x) >> 5;
    unsigned per = 8u * (unsigned)k;            // lanes per line
    unsigned li = lane / per, within = lane % per;
    unsigned nl = 4u / (unsigned)k;             // lines per instruction
    unsigned acc = 0;
#pragma unroll 8
    for (int it = 0; it < iters; ++it) {
        unsigned step = adj ? (unsigned)it >> 2 : (unsigned)it;
        unsigned idx = (warp + step * nwarps) * nl + li;
        unsigned line = (idx * 0x9E3779B1u) & line_mask;
        unsigned first = adj ? ((unsigned)it & 3u)                                 // the line's sectors in turn
                       : k == 4 ? 0u : (idx & (3u / (unsigned)k)) * (unsigned)k;   // first sector read in the line
        const unsigned *p = buf + (size_t)line * 32u + first * 8u + within;
        acc += CG ? __ldcg(p) : *p;
    }
    if (acc == 0x12345678u) out[0] = acc;       // keeps the loads; practically never stores
}

int main(int argc, char **argv)
{
    if (argc < 6) { fprintf(stderr, "usage: l2bw cg|ca K FOOTPRINT WARPS_PER_SM REPS [SMS [ADJ]]\n"); return 2; }
    int cg = !strcmp(argv[1], "cg"), k = atoi(argv[2]);
    size_t fp = strtoull(argv[3], 0, 10);
    int wps = atoi(argv[4]), reps = atoi(argv[5]), use = argc > 6 ? atoi(argv[6]) : 0, adj = argc > 7 ? atoi(argv[7]) : 0;
    if ((k != 1 && k != 2 && k != 4) || (fp & (fp - 1)) || fp < 4096 || wps < 1 || wps > 64) {
        fprintf(stderr, "K 1, 2 or 4; FOOTPRINT a power of two >= 4096; WARPS_PER_SM 1..64\n"); return 2;
    }
    if (adj && k != 1) { fprintf(stderr, "ADJ needs K 1\n"); return 2; }
    int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    if (use > 0 && use < sms) sms = use;
    unsigned *buf, *out;
    CK(cudaMalloc(&buf, fp)); CK(cudaMalloc(&out, 4));
    CK(cudaMemset(buf, 1, fp));
    int threads = 32 * std::min(wps, 32), blocks = sms * (wps * 32 / threads);
    unsigned line_mask = (unsigned)(fp / 128 - 1);
    long long warps = (long long)blocks * threads / 32;
    int iters = (int)std::max(8LL, ((64LL << 20) / 4) / warps / 8 * 8);   // about 64 M sectors per launch
    if (iters > 4096) iters = 4096;                                         // few SMs: keep a launch short
    for (int i = 0; i < 5; ++i)
        cg ? rd<true><<<blocks, threads>>>(buf, out, line_mask, k, iters, adj) : rd<false><<<blocks, threads>>>(buf, out, line_mask, k, iters, adj);
    CK(cudaDeviceSynchronize());
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    std::vector<float> t(reps);
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(a));
        cg ? rd<true><<<blocks, threads>>>(buf, out, line_mask, k, iters, adj) : rd<false><<<blocks, threads>>>(buf, out, line_mask, k, iters, adj);
        CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&t[r], a, b));
    }
    std::sort(t.begin(), t.end());
    double us = t[reps / 2] * 1000.0, sectors = (double)warps * iters * 4;
    printf("%s,%d,%zu,%d,%d,%d,%.0f,%.2f,%.2f\n", argv[1], k, fp, wps, sms, adj, sectors, us, sectors / us / 1000.0);
    return 0;
}
