// reduce.hlsl — the example project's own kernel: the sum of each workgroup's
// 256 inputs.  Each wave sums its lanes with WaveActiveSum, its first lane
// puts the total in groupshared memory, and after the barrier thread 0 adds
// the wave totals.  The number of waves depends on the wave size
// (WaveGetLaneCount), which is exactly what the unit test runs through.
StructuredBuffer<uint> input : register(t0);
RWStructuredBuffer<uint> sums : register(u1);

groupshared uint wave_totals[64];

[numthreads(256, 1, 1)]
void CSMain(uint3 group : SV_GroupID, uint index : SV_GroupIndex, uint3 id : SV_DispatchThreadID)
{
    uint total = WaveActiveSum(input[id.x]);
    if (WaveIsFirstLane())
        wave_totals[index / WaveGetLaneCount()] = total;
    GroupMemoryBarrierWithGroupSync();
    if (index == 0) {
        uint sum = 0;
        uint waves = 256 / WaveGetLaneCount();
        for (uint w = 0; w < waves; w++)
            sum += wave_totals[w];
        sums[group.x] = sum;
    }
}
