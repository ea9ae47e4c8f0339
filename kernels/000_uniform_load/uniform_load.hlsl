// Article 000 (sebbbi, "Fast uniform load with wave ops"): tiled light loop.
// The article's HLSL, adapted only as far as a compute case needs:
//  * Texture2D<uint2> lightStartCounts  -> StructuredBuffer<uint2>, one entry per
//    thread group, indexed gid.y * GROUPS_X + gid.x
//  * RWTexture2D<float4> output         -> RWStructuredBuffer<float4>, indexed by
//    the linear pixel tid.y * (8 * GROUPS_X) + tid.x
//  * Buffer<float4> lightDatas stays a typed buffer (a uniform texel buffer,
//    rgba32f); with LIGHTS_STRUCTURED defined it becomes a read-only
//    StructuredBuffer<float4> (a storage buffer) instead.
//  * CSMainWave: the cooperative load is indexed by WaveGetLaneIndex(), not by
//    SV_GroupIndex, and lanes past the end of the light list load nothing, so the
//    result no longer depends on the wave size (see docs/lessons/000_uniform_load.md).
// Entry points: CSMain (naive), CSMainWave (wave broadcast).

#ifndef GROUPS_X
#define GROUPS_X 4
#endif

#ifdef LIGHTS_STRUCTURED
[[vk::binding(0, 0)]] StructuredBuffer<float4> lightDatas;
#else
[[vk::binding(0, 0)]] Buffer<float4> lightDatas;
#endif
[[vk::binding(1, 0)]] StructuredBuffer<uint2> lightStartCounts;
[[vk::binding(2, 0)]] RWStructuredBuffer<float4> output;

uint divRoundUp(uint a, uint b)
{
    return (a + b - 1) / b;
}

uint pixelIndex(uint2 p)
{
    return p.y * (8 * GROUPS_X) + p.x;
}

[numthreads(8, 8, 1)]
void CSMain(uint3 tid : SV_DispatchThreadID, uint3 gid : SV_GroupID)
{
    uint2 lightStartCount = lightStartCounts[gid.y * GROUPS_X + gid.x];

    float4 lightAccumulator = 0;
    for (uint i = 0; i < lightStartCount.y; ++i)
    {
        uint lightIndex = lightStartCount.x + i;

        // In real impl light data would be position, radius, color, etc.
        float4 lightData = lightDatas[lightIndex]; // 64-wide mem load. All lanes load from same address.
        lightAccumulator += lightData;
    }

    output[pixelIndex(tid.xy)] = lightAccumulator;
}

[numthreads(8, 8, 1)]
void CSMainWave(uint3 tid : SV_DispatchThreadID, uint3 gid : SV_GroupID)
{
    const uint WAVE_LANES = WaveGetLaneCount(); // Usually 64 or 32. Compile time constant.
    const uint lane = WaveGetLaneIndex();       // article: gix (SV_GroupIndex)

    uint2 lightStartCount = lightStartCounts[gid.y * GROUPS_X + gid.x];

    float4 lightAccumulator = 0;
    for (uint i = 0; i < divRoundUp(lightStartCount.y, WAVE_LANES); ++i)
    {
        // Load 32/64 unique items at once in outer loop. 32x/64x reduction in mem loads.
        // Lanes past the end of this tile's list load nothing (the article reads past it).
        uint item = lane + i * WAVE_LANES;
        float4 lightData64 = 0;
        if (item < lightStartCount.y)
            lightData64 = lightDatas[lightStartCount.x + item];

        uint loopIters = min(WAVE_LANES, lightStartCount.y - WAVE_LANES * i);
        for (uint i2 = 0; i2 < loopIters; ++i2)
        {
            // In real impl light data would be position, radius, color, etc.
            float4 lightData = WaveReadLaneAt(lightData64, i2); // Broadcast current light to all lanes
            lightAccumulator += lightData;
        }
    }

    output[pixelIndex(tid.xy)] = lightAccumulator;
}
