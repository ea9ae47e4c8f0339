#version 450
// Article 001's pipeline, pass 2 of 3 (compact): the flagged ids into one list,
// one global atomicAdd per wave (the wave_global variant, reading cull's flags).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#ifndef NUM_ELEMENTS
#define NUM_ELEMENTS 600u
#endif

layout(local_size_x = 128) in;
layout(set = 0, binding = 1, std430) buffer CountBuf { uint count; };
layout(set = 0, binding = 2, std430) writeonly buffer Compacted { uint compactedIds[]; };
layout(set = 0, binding = 3, std430) readonly buffer Flags { uint flags[]; };

void main()
{
    uint id = gl_GlobalInvocationID.x;
    bool visible = id < NUM_ELEMENTS && flags[id] != 0u;
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
