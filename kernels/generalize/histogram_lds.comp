// 256-bin histogram of 16 Mi u32 keys (low byte): each workgroup counts 4096 keys with shared-memory
// atomics, then adds its 256 counts to the global bins with global atomics.  Twin: histogram_lds in
// tools/cuda/gen_suite.cu.
#version 450
layout(set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1) buffer Out { uint dst[]; };
layout(local_size_x = 256) in;
shared uint h[256];
void main()
{
    uint t = gl_LocalInvocationID.x;
    h[t] = 0u;
    barrier();
    for (uint k = 0u; k < 16u; k++)
        atomicAdd(h[src[(gl_WorkGroupID.x * 16u + k) * 256u + t] & 255u], 1u);
    barrier();
    if (h[t] != 0u)
        atomicAdd(dst[t], h[t]);
}
