#version 450
// Article 001's pipeline, pass 1 of 3 (cull): one visibility flag per element.
// The three passes run in order on shared bindings (pipeline.json, "dispatches").
#ifndef NUM_ELEMENTS
#define NUM_ELEMENTS 600u
#endif
#define THRESHOLD 400u

layout(local_size_x = 128) in;
layout(set = 0, binding = 0, std430) readonly buffer Vals { uint values[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Flags { uint flags[]; };

void main()
{
    uint id = gl_GlobalInvocationID.x;
    if (id < NUM_ELEMENTS)
        flags[id] = values[id] < THRESHOLD ? 1u : 0u;
}
