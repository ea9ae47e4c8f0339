#version 450
// Article 001, naive compaction: one global atomicAdd per visible element
// (see compaction.hlsl).
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
    if (isVisible(id))
        compactedIds[atomicAdd(count, 1u)] = id;
}
