// 5-point 2D stencil on 4096 x 4096 u32, neighbours clamped at the edges.  Twin: stencil5 in
// tools/cuda/gen_suite.cu.
#version 450
layout(set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1) buffer Out { uint dst[]; };
layout(local_size_x = 32, local_size_y = 8) in;
const int N = 4096;
void main()
{
    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    int xm = max(x - 1, 0), xp = min(x + 1, N - 1), ym = max(y - 1, 0), yp = min(y + 1, N - 1);
    dst[y * N + x] = 4u * src[y * N + x] + src[y * N + xm] + src[y * N + xp] + src[ym * N + x] + src[yp * N + x];
}
