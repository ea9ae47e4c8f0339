// Article 002 (fp16 and LDS, FidelityFX SSSR's ResolveTemporal): the radiance
// of a 16x16 tile is staged in groupshared memory by an 8x8 group, then every
// thread reads the 9x9 neighbourhood around its pixel (radius 4) and computes
// the weighted mean and variance, as FFX_DNSR_Reflections_EstimateLocalNeighborhoodInGroup.
// Defines:
//   USE_FP16     the estimate is computed in half (with 16-bit types enabled,
//                as DXC -enable-16bit-types; glslang has no float16_t keyword in
//                HLSL, so the type is `half`); otherwise in float.
//   INTERLEAVED  one groupshared uint2 array instead of the two uint arrays
//                g_ffx_dnsr_shared_0/1 of the original.
//   WIDTH, HEIGHT the image size (a multiple of 8).
// Radiance is half3 packed in two uints (r | g << 16, b | a << 16; a unused),
// in the input buffer and in groupshared memory, as in the original.  The
// kernel weights are a constant table (the original computes a Gaussian with
// exp()); with the loops unrolled the compiler folds them either way.
// Output, per pixel: (mean.rgb, accumulated_weight) in Moments and
// (variance.rgb, 0) in Variance — a float4 each (fp32), or the same 4 values as
// halves packed in a uint2 (fp16).  Two buffers, because the variance
// (E[x^2] - mean^2) loses digits to cancellation and is checked more loosely.

#ifndef WIDTH
#define WIDTH 24
#endif
#ifndef HEIGHT
#define HEIGHT 16
#endif
#define FFX_DNSR_REFLECTIONS_LOCAL_NEIGHBORHOOD_RADIUS 4

#ifdef USE_FP16
typedef half  real;
typedef half3 real3;
#else
typedef float  real;
typedef float3 real3;
#endif

[[vk::binding(0, 0)]] StructuredBuffer<uint2> RadianceIn;
#ifdef USE_FP16
[[vk::binding(1, 0)]] RWStructuredBuffer<uint2> Moments;
[[vk::binding(2, 0)]] RWStructuredBuffer<uint2> Variance;
#else
[[vk::binding(1, 0)]] RWStructuredBuffer<float4> Moments;
[[vk::binding(2, 0)]] RWStructuredBuffer<float4> Variance;
#endif

#ifdef INTERLEAVED
groupshared uint2 g_ffx_dnsr_shared[16][16];
#else
groupshared uint g_ffx_dnsr_shared_0[16][16];
groupshared uint g_ffx_dnsr_shared_1[16][16];
#endif

struct FFX_DNSR_Reflections_NeighborhoodSample
{
    real3 radiance;
};

struct FFX_DNSR_Reflections_Moments
{
    real3 mean;
    real3 variance;
    real  weight;
};

void FFX_DNSR_Reflections_StoreInGroupSharedMemory(int2 idx, uint2 packed)
{
#ifdef INTERLEAVED
    g_ffx_dnsr_shared[idx.y][idx.x] = packed;
#else
    g_ffx_dnsr_shared_0[idx.y][idx.x] = packed.x;
    g_ffx_dnsr_shared_1[idx.y][idx.x] = packed.y;
#endif
}

FFX_DNSR_Reflections_NeighborhoodSample FFX_DNSR_Reflections_LoadFromGroupSharedMemory(int2 idx)
{
#ifdef INTERLEAVED
    uint2 packed = g_ffx_dnsr_shared[idx.y][idx.x];
#else
    uint2 packed = uint2(g_ffx_dnsr_shared_0[idx.y][idx.x], g_ffx_dnsr_shared_1[idx.y][idx.x]);
#endif
    FFX_DNSR_Reflections_NeighborhoodSample s;
    s.radiance = real3((real)f16tof32(packed.x), (real)f16tof32(packed.x >> 16), (real)f16tof32(packed.y));
    return s;
}

static const real kWeights[5] = { (real)1.0, (real)0.875, (real)0.625, (real)0.375, (real)0.125 };

real FFX_DNSR_Reflections_LocalNeighborhoodKernelWeight(int i)
{
    return kWeights[abs(i)];
}

FFX_DNSR_Reflections_Moments FFX_DNSR_Reflections_EstimateLocalNeighborhoodInGroup(int2 group_thread_id)
{
    FFX_DNSR_Reflections_Moments estimate;
    // (real)0.0, not 0: glslang 12 cannot convert an integer literal to half
    estimate.mean                 = (real)0.0;
    estimate.variance             = (real)0.0;
    real accumulated_weight       = (real)0.0;

    for (int j = -FFX_DNSR_REFLECTIONS_LOCAL_NEIGHBORHOOD_RADIUS; j <= FFX_DNSR_REFLECTIONS_LOCAL_NEIGHBORHOOD_RADIUS; ++j)
    {
        for (int i = -FFX_DNSR_REFLECTIONS_LOCAL_NEIGHBORHOOD_RADIUS; i <= FFX_DNSR_REFLECTIONS_LOCAL_NEIGHBORHOOD_RADIUS; ++i)
        {
            int2  new_idx  = group_thread_id + int2(i, j);
            real3 radiance = FFX_DNSR_Reflections_LoadFromGroupSharedMemory(new_idx).radiance;
            real  weight   = FFX_DNSR_Reflections_LocalNeighborhoodKernelWeight(i) * FFX_DNSR_Reflections_LocalNeighborhoodKernelWeight(j);
            accumulated_weight  += weight;
            estimate.mean       += radiance * weight;
            estimate.variance   += radiance * radiance * weight;
        }
    }
    estimate.mean     /= accumulated_weight;
    estimate.variance /= accumulated_weight;

    // (real3) cast: glslang 12 evaluates abs() of a half3 in float (exact for abs)
    estimate.variance = (real3)abs(estimate.variance - estimate.mean * estimate.mean);
    estimate.weight = accumulated_weight;
    return estimate;
}

uint PackHalf2(real a, real b)
{
    return f32tof16((float)a) | (f32tof16((float)b) << 16);
}

[numthreads(8, 8, 1)]
void CSMain(uint3 group_id : SV_GroupID, uint3 group_thread_id : SV_GroupThreadID, uint group_index : SV_GroupIndex)
{
    const int radius = FFX_DNSR_REFLECTIONS_LOCAL_NEIGHBORHOOD_RADIUS;
    int2 origin = int2(group_id.xy) * 8 - radius;
    // 16x16 texels, 4 per thread, clamped at the image border
    for (uint k = 0; k < 4; ++k)
    {
        uint idx = group_index + 64 * k;
        int2 t = int2(idx % 16, idx / 16);
        int2 p = clamp(origin + t, int2(0, 0), int2(WIDTH - 1, HEIGHT - 1));
        FFX_DNSR_Reflections_StoreInGroupSharedMemory(t, RadianceIn[p.y * WIDTH + p.x]);
    }
    GroupMemoryBarrierWithGroupSync();

    FFX_DNSR_Reflections_Moments m =
        FFX_DNSR_Reflections_EstimateLocalNeighborhoodInGroup(int2(group_thread_id.xy) + radius);

    uint2 pixel = group_id.xy * 8 + group_thread_id.xy;
    uint pix = pixel.y * WIDTH + pixel.x;
#ifdef USE_FP16
    Moments[pix]  = uint2(PackHalf2(m.mean.x, m.mean.y), PackHalf2(m.mean.z, m.weight));
    Variance[pix] = uint2(PackHalf2(m.variance.x, m.variance.y), PackHalf2(m.variance.z, (real)0.0));
#else
    Moments[pix]  = float4(m.mean, m.weight);
    Variance[pix] = float4(m.variance, 0);
#endif
}
