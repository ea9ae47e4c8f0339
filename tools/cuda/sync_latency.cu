// tools/cuda/sync_latency.cu — what a dependent step costs one warp on an NVIDIA GPU, for the latency term of
// wavelab's memory model (docs/memory.md, "The latency term"; docs/hardware.md, "Barrier and ALU latency"):
// one block, thread 0 times ITERS dependent steps with clock64() after a warm-up pass and prints the cycles
// per step as CSV: test,threads,cycles_per_step.
//   lds_load      v = s[v]: a shared-memory load whose address is the last load's value
//   lds_round     s[t] = v; __syncwarp(); v = s[neighbour] + 1: a store, then a load of another lane's store
//   barrier       the same with __syncthreads() in place of __syncwarp(), every thread of a block of `threads`
//   ffma, iadd    x = x * a + b (float), x = x + y (int): the dependent ALU instruction
#include <cstdio>
#include <cuda_runtime.h>

#define ITERS 4096

__global__ void lds_load(long long *cycles, unsigned *sink)
{
    __shared__ unsigned s[1024];
    unsigned t = threadIdx.x, n = blockDim.x;
    for (unsigned k = t; k < 1024; k += n)
        s[k] = (k + 1) & 1023;
    __syncthreads();
    unsigned v = t;
    long long t0 = 0;
    for (int pass = 0; pass < 2; pass++) {
        t0 = clock64();
        for (int i = 0; i < ITERS; i++)
            v = s[v];
    }
    long long t1 = clock64();
    if (t == 0)
        *cycles = (t1 - t0);
    sink[t] = v;
}

template <bool block_barrier> __global__ void lds_round(long long *cycles, unsigned *sink)
{
    __shared__ unsigned s[1024];
    unsigned t = threadIdx.x, n = blockDim.x;
    unsigned v = t;
    long long t0 = 0;
    for (int pass = 0; pass < 2; pass++) {
        t0 = clock64();
        for (int i = 0; i < ITERS; i++) {
            s[t] = v;
            if (block_barrier)
                __syncthreads();
            else
                __syncwarp();
            v = s[(t + 1) & (n - 1)] + 1;
            if (block_barrier)
                __syncthreads();
            else
                __syncwarp();
        }
    }
    long long t1 = clock64();
    if (t == 0)
        *cycles = (t1 - t0);
    sink[t] = v;
}

__global__ void ffma(long long *cycles, float *sink, float a, float b)
{
    float x = threadIdx.x;
    long long t0 = 0;
    for (int pass = 0; pass < 2; pass++) {
        t0 = clock64();
        for (int i = 0; i < ITERS; i++)
            x = x * a + b;
    }
    long long t1 = clock64();
    if (threadIdx.x == 0)
        *cycles = (t1 - t0);
    sink[threadIdx.x] = x;
}

__global__ void iadd(long long *cycles, unsigned *sink, unsigned y)
{
    unsigned x = threadIdx.x;
    long long t0 = 0;
    for (int pass = 0; pass < 2; pass++) {
        t0 = clock64();
        for (int i = 0; i < ITERS; i++)
            asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(y));
    }
    long long t1 = clock64();
    if (threadIdx.x == 0)
        *cycles = (t1 - t0);
    sink[threadIdx.x] = x;
}

static long long *d_cycles;
static unsigned *d_sink;
static float *d_fsink;

static void print(const char *test, int threads, int steps_per_iter)
{
    long long c = 0;
    cudaDeviceSynchronize();
    cudaMemcpy(&c, d_cycles, sizeof c, cudaMemcpyDeviceToHost);
    printf("%s,%d,%.2f\n", test, threads, (double)c / ITERS / steps_per_iter);
}

int main()
{
    cudaMalloc(&d_cycles, sizeof(long long));
    cudaMalloc(&d_sink, 1024 * sizeof(unsigned));
    cudaMalloc(&d_fsink, 1024 * sizeof(float));
    printf("test,threads,cycles_per_step\n");
    lds_load<<<1, 32>>>(d_cycles, d_sink);
    print("lds_load", 32, 1);
    lds_round<false><<<1, 32>>>(d_cycles, d_sink);
    print("lds_round", 32, 1);
    for (int n = 32; n <= 1024; n *= 2) {
        lds_round<true><<<1, n>>>(d_cycles, d_sink);
        print("barrier", n, 1);
    }
    ffma<<<1, 32>>>(d_cycles, d_fsink, 1.0000001f, 0.5f);
    print("ffma", 32, 1);
    iadd<<<1, 32>>>(d_cycles, d_sink, 3u);
    print("iadd", 32, 1);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        fprintf(stderr, "%s\n", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
