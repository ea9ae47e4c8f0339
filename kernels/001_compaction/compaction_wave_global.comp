#version 450
// Article 001, wave compaction straight into the global list: one global
// atomicAdd per wave, no shared memory (see compaction.hlsl).
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

bool isVisible(uint id) { return id < NUM_ELEMENTS && values[id] < THRESHOLD; }

void main()
{
    uint id = gl_GlobalInvocationID.x;
    bool visible = isVisible(id);
    uvec4 ballot = subgroupBallot(visible);
    uint waveVisibleCount = subgroupBallotBitCount(ballot);
    if (waveVisibleCount > 0u) {
        uint waveOffset = 0u;
        if (subgroupElect())
            waveOffset = atomicAdd(count, waveVisibleCount);
        waveOffset = subgroupBroadcastFirst(waveOffset);
        if (visible)
            compactedIds[waveOffset + subgroupBallotExclusiveBitCount(ballot)] = id;
    }
}
