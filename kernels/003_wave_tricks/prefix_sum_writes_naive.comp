#version 450
// Article 003, trick 3, naive: one atomicAdd per lane (see prefix_sum_writes.hlsl).

layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer Counts { uint numItemsIn[]; };
layout(set = 0, binding = 1, std430) buffer Counter { uint itemCounter; };
layout(set = 0, binding = 2, std430) writeonly buffer Items { uint items[]; };

void main()
{
    uint t = gl_GlobalInvocationID.x;
    uint numItems = numItemsIn[t];
    uint base = atomicAdd(itemCounter, numItems);
    for (uint i = 0u; i < numItems; i++)
        items[base + i] = (t << 4) | i;
}
