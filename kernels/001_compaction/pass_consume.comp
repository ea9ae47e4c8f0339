#version 450
// Article 001's pipeline, pass 3 of 3 (consume): one invocation per compacted
// id, as many as compact counted (the stand-in for the indirect dispatch the
// article's mesh pass gets): out[k] = values[id] * scale + 1, and the sum.
#ifndef NUM_ELEMENTS
#define NUM_ELEMENTS 600u
#endif

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint scale; } pc;
layout(set = 0, binding = 0, std430) readonly buffer Vals { uint values[]; };
layout(set = 0, binding = 1, std430) readonly buffer CountBuf { uint count; };
layout(set = 0, binding = 2, std430) readonly buffer Compacted { uint compactedIds[]; };
layout(set = 0, binding = 4, std430) writeonly buffer Consumed { uint consumed[]; };
layout(set = 0, binding = 5, std430) buffer SumBuf { uint total; };

void main()
{
    uint k = gl_GlobalInvocationID.x;
    if (k < count) {
        uint v = values[compactedIds[k]];
        consumed[k] = v * pc.scale + 1u;
        atomicAdd(total, v);
    }
}
