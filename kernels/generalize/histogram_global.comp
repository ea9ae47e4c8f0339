// 256-bin histogram of 16 Mi u32 keys (low byte) with one global atomic per key.  Twin: histogram_global
// in tools/cuda/gen_suite.cu.
#version 450
layout(set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1) buffer Out { uint dst[]; };
layout(local_size_x = 256) in;
void main()
{
    uint t = gl_LocalInvocationID.x;
    for (uint k = 0u; k < 16u; k++)
        atomicAdd(dst[src[(gl_WorkGroupID.x * 16u + k) * 256u + t] & 255u], 1u);
}
