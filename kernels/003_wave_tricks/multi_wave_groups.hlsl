// Article 003, trick 6: several waves per thread group.  numthreads(128): 32
// waves of 4 lanes ... 2 waves of 64 lanes.  The group first fills a groupshared
// cache (every lane one entry, then GroupMemoryBarrierWithGroupSync), then each
// wave processes whole inputs: the input descriptor is read once per wave
// (WaveReadLaneFirst: uniform, an SGPR), its items are spread over the lanes,
// WaveActiveSum adds the lanes' results and the first lane does one
// InterlockedAdd per input.
// Adaptations: the input struct is a uint4 (see below); results are uint (HLSL has no float InterlockedAdd); and so that
// every input is processed exactly once at any wave size, each wave loops over
// inputs threadID.x / WaveGetLaneCount() + k * (number of waves in the dispatch)
// instead of taking just one (the article's one-input-per-wave covers a number
// of inputs that depends on the wave size).
//  CSNaive: the same work with one InterlockedAdd per lane and no WaveActiveSum.
// Outputs: Total[0] = sum of all inputs' results; PerInput[k] = input k's result.
// Integer sums are associative mod 2^32, so both are exact at every wave size.

#ifndef NUM_GROUPS
#define NUM_GROUPS 2
#endif
#ifndef NUM_INPUTS
#define NUM_INPUTS 20
#endif
#define CacheSize 128

// SomeInputStruct as a uint4: x = first cache entry, y = number of items,
// z = multiplier, w unused.  (glslang's WaveReadLaneFirst takes scalars and
// vectors, not structs.)
typedef uint4 SomeInputStruct;

[[vk::binding(0, 0)]] StructuredBuffer<uint> CacheSource;
[[vk::binding(1, 0)]] StructuredBuffer<uint4> InputData;
[[vk::binding(2, 0)]] RWStructuredBuffer<uint> SomeOutputBuffer;   // [0]: total
[[vk::binding(3, 0)]] RWStructuredBuffer<uint> PerInput;

groupshared uint g_GroupCache[CacheSize];

void FetchCache(uint groupIndex)
{
    // There goes code for calculating cache: one entry per lane of the group
    g_GroupCache[groupIndex] = CacheSource[groupIndex] * 3u + 1u;

    // At the end we must call this so we stop faster waves of
    // starting work before everything is done
    GroupMemoryBarrierWithGroupSync();
}

uint DoWorkForLane(SomeInputStruct inputData)
{
    const uint laneIndex = WaveGetLaneIndex();
    uint acc = 0;
    for (uint j = laneIndex; j < inputData.y; j += WaveGetLaneCount())
        acc += g_GroupCache[(inputData.x + j) % CacheSize] * inputData.z;
    return acc;
}

void ProcessInput(uint inputIndex)
{
    // SGPR
    const SomeInputStruct input = WaveReadLaneFirst(InputData[inputIndex]);

    const uint result = DoWorkForLane(input);

    const uint totalResult = WaveActiveSum(result);
    if (WaveIsFirstLane())
    {
        InterlockedAdd(SomeOutputBuffer[0], totalResult);
        PerInput[inputIndex] = totalResult;   // one wave owns input k
    }
}

void ProcessInputNaive(uint inputIndex)
{
    const SomeInputStruct input = InputData[inputIndex];   // VGPRs
    const uint result = DoWorkForLane(input);
    InterlockedAdd(SomeOutputBuffer[0], result);
    InterlockedAdd(PerInput[inputIndex], result);
}

[numthreads(128, 1, 1)]
void CSWave(uint3 threadID : SV_DispatchThreadID, uint groupIndex : SV_GroupIndex)
{
    FetchCache(groupIndex);

    // Every wave processes inputs inputIndex, inputIndex + waveCount, ...
    // The value is the same for all lanes in a wave, not in the group.
    const uint waveCount = NUM_GROUPS * 128 / WaveGetLaneCount();
    for (uint inputIndex = threadID.x / WaveGetLaneCount(); inputIndex < NUM_INPUTS; inputIndex += waveCount)
        ProcessInput(inputIndex);
}

[numthreads(128, 1, 1)]
void CSNaive(uint3 threadID : SV_DispatchThreadID, uint groupIndex : SV_GroupIndex)
{
    FetchCache(groupIndex);
    const uint waveCount = NUM_GROUPS * 128 / WaveGetLaneCount();
    for (uint inputIndex = threadID.x / WaveGetLaneCount(); inputIndex < NUM_INPUTS; inputIndex += waveCount)
        ProcessInputNaive(inputIndex);
}
