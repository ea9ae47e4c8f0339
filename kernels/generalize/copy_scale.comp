// Streaming copy and scale of 16 Mi u32 (64 MiB in, 64 MiB out).  Twin: copy_scale in tools/cuda/gen_suite.cu.
#version 450
layout(set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1) buffer Out { uint dst[]; };
layout(local_size_x = 256) in;
void main()
{
    uint i = gl_GlobalInvocationID.x;
    dst[i] = src[i] * 3u;
}
