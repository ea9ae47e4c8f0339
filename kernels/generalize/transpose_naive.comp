// Naive transpose of a 4096 x 4096 u32 matrix: coalesced row reads, column writes (one word per row of
// the output per lane).  Twin: transpose_naive in tools/cuda/gen_suite.cu.
#version 450
layout(set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1) buffer Out { uint dst[]; };
layout(local_size_x = 32, local_size_y = 8) in;
const uint N = 4096u;
void main()
{
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    dst[x * N + y] = src[y * N + x];
}
