#version 450
// Article 003, tricks 2 and 3: count with a ballot, one atomicAdd on the elected
// lane, broadcast the old value, place each adding lane with an exclusive bit
// count of the ballot (see one_lane_atomic.hlsl).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require

layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer Vals { uint values[]; };
layout(set = 0, binding = 1, std430) buffer Counter { uint counter; };
layout(set = 0, binding = 2, std430) writeonly buffer SlotBuf { uint slots[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    bool shouldAdd = (values[i] % 3u) == 0u;
    uvec4 ballot = subgroupBallot(shouldAdd);
    uint addCount = subgroupBallotBitCount(ballot);            // WaveActiveCountBits
    uint base = 0u;
    if (subgroupElect())                                       // WaveIsFirstLane
        base = atomicAdd(counter, addCount);
    base = subgroupBroadcastFirst(base);                       // WaveReadLaneFirst
    if (shouldAdd)
        slots[base + subgroupBallotExclusiveBitCount(ballot)] = i;   // WavePrefixCountBits
}
