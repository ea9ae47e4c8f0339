// Article 001 (wave-size-agnostic culling): stream compaction of visible
// elements.  Element id is visible when id < NUM_ELEMENTS and Values[id] <
// THRESHOLD (a stand-in for the meshlet culling test).  The visible ids end up
// in CompactedIds; Count[0] is their number.
//  CSNaive:      one global InterlockedAdd per visible element.
//  CSLds:        the article's LDS version: one groupshared InterlockedAdd per
//                visible element, then one global InterlockedAdd per group
//                (the stand-in for DispatchMesh(shared.meshletCount)).
//  CSWave:       the article's wave-size-agnostic version: one groupshared
//                InterlockedAdd per wave (WaveActiveCountBits, WaveIsFirstLane,
//                WaveReadLaneFirst, WavePrefixCountBits), then as CSLds.
//  CSWaveGlobal: one global InterlockedAdd per wave, no groupshared memory.
// numthreads(128): 2 to 32 waves per group for wave sizes 64 to 4.
// The order of CompactedIds depends on the schedule (the case compares it as a
// multiset); Count and GroupCounts (visible elements per group) are exact.

#ifndef NUM_ELEMENTS
#define NUM_ELEMENTS 600
#endif
#define THRESHOLD 400
#define GROUP_SIZE 128

[[vk::binding(0, 0)]] StructuredBuffer<uint> Values;
[[vk::binding(1, 0)]] RWStructuredBuffer<uint> Count;
[[vk::binding(2, 0)]] RWStructuredBuffer<uint> CompactedIds;
[[vk::binding(3, 0)]] RWStructuredBuffer<uint> GroupCounts;   // CSLds and CSWave only

groupshared uint sharedMeshletCount;
groupshared uint sharedMeshletIndices[GROUP_SIZE];
groupshared uint sharedBase;

bool IsVisible(uint id)
{
    // Not `id < NUM_ELEMENTS && Values[id] < THRESHOLD`: glslang 12 evaluates
    // both operands of && in HLSL (HLSL 2021 and DXC short-circuit scalar &&),
    // so the load would run past the end of Values.
    bool visible = false;
    if (id < NUM_ELEMENTS)
        visible = Values[id] < THRESHOLD;
    return visible;
}

// Writes the group's list out: the stand-in for DispatchMesh(shared.meshletCount, 1, 1, shared).
void EmitGroup(uint groupIndex, uint groupId)
{
    GroupMemoryBarrierWithGroupSync();
    if (groupIndex == 0)
    {
        uint base;
        InterlockedAdd(Count[0], sharedMeshletCount, base);
        sharedBase = base;
        GroupCounts[groupId] = sharedMeshletCount;
    }
    GroupMemoryBarrierWithGroupSync();
    if (groupIndex < sharedMeshletCount)
        CompactedIds[sharedBase + groupIndex] = sharedMeshletIndices[groupIndex];
}

[numthreads(GROUP_SIZE, 1, 1)]
void CSNaive(uint3 tid : SV_DispatchThreadID)
{
    uint meshletID = tid.x;
    if (IsVisible(meshletID))
    {
        uint index;
        InterlockedAdd(Count[0], 1u, index);
        CompactedIds[index] = meshletID;
    }
}

[numthreads(GROUP_SIZE, 1, 1)]
void CSLds(uint3 tid : SV_DispatchThreadID, uint groupIndex : SV_GroupIndex, uint3 gid : SV_GroupID)
{
    uint meshletID = tid.x;
    bool visible = IsVisible(meshletID);
    if (groupIndex == 0)
        sharedMeshletCount = 0;
    GroupMemoryBarrierWithGroupSync();

    if (visible) {
        uint sharedCount;
        InterlockedAdd(sharedMeshletCount, 1u, sharedCount);
        sharedMeshletIndices[sharedCount] = meshletID;
    }
    EmitGroup(groupIndex, gid.x);
}

[numthreads(GROUP_SIZE, 1, 1)]
void CSWave(uint3 tid : SV_DispatchThreadID, uint groupIndex : SV_GroupIndex, uint3 gid : SV_GroupID)
{
    uint meshletID = tid.x;
    bool visible = IsVisible(meshletID);
    if (groupIndex == 0)
        sharedMeshletCount = 0;
    GroupMemoryBarrierWithGroupSync();

    uint waveVisibleCount = WaveActiveCountBits(visible);
    if (waveVisibleCount > 0) {
        uint waveMeshletOffset = 0;
        if (WaveIsFirstLane())
            InterlockedAdd(sharedMeshletCount, waveVisibleCount, waveMeshletOffset);
        waveMeshletOffset = WaveReadLaneFirst(waveMeshletOffset);
        if (visible) {
            // Output the visible meshlet
            uint sum = WavePrefixCountBits(visible);
            sharedMeshletIndices[waveMeshletOffset + sum] = meshletID;
        }
    }
    EmitGroup(groupIndex, gid.x);
}

[numthreads(GROUP_SIZE, 1, 1)]
void CSWaveGlobal(uint3 tid : SV_DispatchThreadID)
{
    uint meshletID = tid.x;
    bool visible = IsVisible(meshletID);
    uint waveVisibleCount = WaveActiveCountBits(visible);
    if (waveVisibleCount > 0) {
        uint waveOffset = 0;
        if (WaveIsFirstLane())
            InterlockedAdd(Count[0], waveVisibleCount, waveOffset);
        waveOffset = WaveReadLaneFirst(waveOffset);
        if (visible)
            CompactedIds[waveOffset + WavePrefixCountBits(visible)] = meshletID;
    }
}
