// Article 000 (sebbbi, "Fast uniform load with wave ops",
// https://gist.github.com/sebbbi/ba4415339b535d22fb18e2d824564ec4) in its own form:
// the tile's light list comes from Texture2D<uint2> lightStartCounts (one texel per
// 8x8 thread group, read at SV_GroupID) and the result goes to
// RWTexture2D<float4> output (one texel per pixel, written at SV_DispatchThreadID).
// The buffer version beside it (uniform_load.hlsl) moved both onto buffers while
// wavelab had no images; the light loops are the same.
//  * CSMainWave: the cooperative load is indexed by WaveGetLaneIndex() and lanes past
//    the end of the list load nothing, as in uniform_load.hlsl, so the result does
//    not depend on the wave size.
// Entry points: CSMain (naive), CSMainWave (wave broadcast).

[[vk::binding(0, 0)]] Buffer<float4> lightDatas;
[[vk::binding(1, 0)]] Texture2D<uint2> lightStartCounts;
[[vk::binding(2, 0)]] RWTexture2D<float4> output;

uint divRoundUp(uint a, uint b)
{
    return (a + b - 1) / b;
}

[numthreads(8, 8, 1)]
void CSMain(uint3 tid : SV_DispatchThreadID, uint3 gid : SV_GroupID)
{
    uint2 lightStartCount = lightStartCounts[gid.xy];

    float4 lightAccumulator = 0;
    for (uint i = 0; i < lightStartCount.y; ++i)
    {
        uint lightIndex = lightStartCount.x + i;

        // In real impl light data would be position, radius, color, etc.
        float4 lightData = lightDatas[lightIndex]; // 64-wide mem load. All lanes load from same address.
        lightAccumulator += lightData;
    }

    output[tid.xy] = lightAccumulator;
}

[numthreads(8, 8, 1)]
void CSMainWave(uint3 tid : SV_DispatchThreadID, uint3 gid : SV_GroupID)
{
    const uint WAVE_LANES = WaveGetLaneCount(); // Usually 64 or 32. Compile time constant.
    const uint lane = WaveGetLaneIndex();       // article: gix (SV_GroupIndex)

    uint2 lightStartCount = lightStartCounts[gid.xy];

    float4 lightAccumulator = 0;
    for (uint i = 0; i < divRoundUp(lightStartCount.y, WAVE_LANES); ++i)
    {
        // Load 32/64 unique items at once in outer loop. 32x/64x reduction in mem loads.
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

    output[tid.xy] = lightAccumulator;
}
