#version 450
// Robust buffer access (the case says "robust_access": true): lanes 16..63
// read past the 16-element source, which reads 0 as robustBufferAccess2
// defines, and write past the 96-element destination, which is dropped.
// Without robust access the same kernel faults at lane 16.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1, std430) buffer Out { uint dst[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    dst[i] = src[i] + 1u;
    dst[64u + 2u * i] = 7u;
}
