// Three storage buffers bound as the elements of one descriptor array
// (case bindings with "element": 0, 1, 2), each read by a constant index, and
// the run-time length of one element's array.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; } src[3];
layout(set = 0, binding = 1) buffer Out { uint o[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    o[i] = src[0].v[i] + 10u * src[1].v[i] + 100u * src[2].v[i] + 1000u * uint(src[2].v.length());
}
