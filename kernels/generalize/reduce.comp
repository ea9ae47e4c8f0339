// Sum of 16 Mi u32: a shared-memory tree per 256-invocation workgroup, one partial sum per workgroup.
// Twin: reduce in tools/cuda/gen_suite.cu.
#version 450
layout(set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1) buffer Out { uint dst[]; };
layout(local_size_x = 256) in;
shared uint part[256];
void main()
{
    uint t = gl_LocalInvocationID.x;
    part[t] = src[gl_WorkGroupID.x * 256u + t];
    barrier();
    for (uint h = 128u; h > 0u; h >>= 1) {
        if (t < h)
            part[t] += part[t + h];
        barrier();
    }
    if (t == 0u)
        dst[gl_WorkGroupID.x] = part[0];
}
