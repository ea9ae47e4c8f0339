#version 450
// Article 001, wave-size-agnostic compaction: one shared-memory atomicAdd per
// wave, each visible lane placed with the ballot's exclusive bit count; one
// global atomicAdd per workgroup (see compaction.hlsl).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#ifndef NUM_ELEMENTS
#define NUM_ELEMENTS 600u
#endif
#define THRESHOLD 400u

layout(local_size_x = 128) in;
layout(set = 0, binding = 0, std430) readonly buffer Vals { uint values[]; };
layout(set = 0, binding = 1, std430) buffer CountBuf { uint count; };
layout(set = 0, binding = 2, std430) writeonly buffer Compacted { uint compactedIds[]; };
layout(set = 0, binding = 3, std430) writeonly buffer GroupCountBuf { uint groupCounts[]; };

shared uint sharedCount;
shared uint sharedIndices[128];
shared uint sharedBase;

// Writes the group's list out (the stand-in for DispatchMesh).
void emitGroup()
{
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        sharedBase = atomicAdd(count, sharedCount);
        groupCounts[gl_WorkGroupID.x] = sharedCount;
    }
    barrier();
    if (gl_LocalInvocationIndex < sharedCount)
        compactedIds[sharedBase + gl_LocalInvocationIndex] = sharedIndices[gl_LocalInvocationIndex];
}

bool isVisible(uint id) { return id < NUM_ELEMENTS && values[id] < THRESHOLD; }

void main()
{
    uint id = gl_GlobalInvocationID.x;
    bool visible = isVisible(id);
    if (gl_LocalInvocationIndex == 0u)
        sharedCount = 0u;
    barrier();

    uvec4 ballot = subgroupBallot(visible);
    uint waveVisibleCount = subgroupBallotBitCount(ballot);      // WaveActiveCountBits
    if (waveVisibleCount > 0u) {
        uint waveOffset = 0u;
        if (subgroupElect())                                      // WaveIsFirstLane
            waveOffset = atomicAdd(sharedCount, waveVisibleCount);
        waveOffset = subgroupBroadcastFirst(waveOffset);          // WaveReadLaneFirst
        if (visible)
            sharedIndices[waveOffset + subgroupBallotExclusiveBitCount(ballot)] = id;
    }
    emitGroup();
}
