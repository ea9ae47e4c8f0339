#version 450
// Article 003, trick 2, naive: one atomicAdd per adding lane (see one_lane_atomic.hlsl).

layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer Vals { uint values[]; };
layout(set = 0, binding = 1, std430) buffer Counter { uint counter; };
layout(set = 0, binding = 2, std430) writeonly buffer SlotBuf { uint slots[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    bool shouldAdd = (values[i] % 3u) == 0u;
    if (shouldAdd) {
        uint slot = atomicAdd(counter, 1u);
        slots[slot] = i;
    }
}
