// 5 x 5 box sum of a 2048 x 2048 u32 image through a 20 x 20 shared tile (16 x 16 workgroup plus a
// 2-pixel halo, clamped at the edges): 25 shared reads per pixel.  Twin: lds_tile in tools/cuda/gen_suite.cu.
#version 450
layout(set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1) buffer Out { uint dst[]; };
layout(local_size_x = 16, local_size_y = 16) in;
const int N = 2048;
shared uint tile[20 * 20];
void main()
{
    int bx = int(gl_WorkGroupID.x) * 16, by = int(gl_WorkGroupID.y) * 16;
    int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
    for (int k = ly * 16 + lx; k < 400; k += 256) {
        int tx = k % 20, ty = k / 20;
        int gx = min(max(bx + tx - 2, 0), N - 1), gy = min(max(by + ty - 2, 0), N - 1);
        tile[ty * 20 + tx] = src[gy * N + gx];
    }
    barrier();
    uint acc = 0u;
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 5; i++)
            acc += tile[(ly + j) * 20 + lx + i];
    dst[(by + ly) * N + bx + lx] = acc;
}
