#version 450
// Article 003, trick 3: exclusive prefix sum inside the wave, one atomicAdd on
// the last lane, broadcast of its result (see prefix_sum_writes.hlsl).  The
// last lane's index is not a constant, so the broadcast is a subgroupShuffle.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require

layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer Counts { uint numItemsIn[]; };
layout(set = 0, binding = 1, std430) buffer Counter { uint itemCounter; };
layout(set = 0, binding = 2, std430) writeonly buffer Items { uint items[]; };

void main()
{
    uint t = gl_GlobalInvocationID.x;
    uint numItems = numItemsIn[t];
    uint localOffset = subgroupExclusiveAdd(numItems);          // WavePrefixSum
    uint lastLane = gl_SubgroupSize - 1u;
    uint base = 0u;
    if (gl_SubgroupInvocationID == lastLane)
        base = atomicAdd(itemCounter, localOffset + numItems);
    base = subgroupShuffle(base, lastLane);                     // WaveReadLaneAt
    for (uint i = 0u; i < numItems; i++)
        items[base + localOffset + i] = (t << 4) | i;
}
