// Storage buffers picked from descriptor arrays by values known only when the
// kernel runs: by a push constant (dynamically uniform: one element for the
// whole dispatch) and per lane with nonuniformEXT (a wave runs the access once
// per distinct element among its lanes, as AMD's compiler does with a
// "waterfall" loop).  Also the length of an element picked at run time, and
// stores into an array of output buffers picked per lane.
#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Src { uint v[]; } src[4];
layout(set = 0, binding = 1) writeonly buffer Dst { uint o[]; } dst[2];
layout(push_constant) uniform Pick { uint pick; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    uint k = (i * 7u / 3u) % 4u; // runs of two and three lanes on the same element
    uint a = src[pick].v[i];
    uint b = src[nonuniformEXT(k)].v[i];
    uint n = uint(src[pick].v.length());
    dst[nonuniformEXT(i & 1u)].o[i >> 1] = a + 1000u * b + 1000000u * n;
}
