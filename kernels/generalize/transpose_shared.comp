// Transpose through a 32 x 33 shared tile (the padding column keeps the column reads conflict free): both
// the global reads and the global writes are whole rows.  Twin: transpose_shared in tools/cuda/gen_suite.cu.
#version 450
layout(set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1) buffer Out { uint dst[]; };
layout(local_size_x = 32, local_size_y = 8) in;
const uint N = 4096u;
shared uint tile[32 * 33];
void main()
{
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    uint bx = gl_WorkGroupID.x * 32u, by = gl_WorkGroupID.y * 32u;
    for (uint r = ty; r < 32u; r += 8u)
        tile[r * 33u + tx] = src[(by + r) * N + bx + tx];
    barrier();
    for (uint r = ty; r < 32u; r += 8u)
        dst[(bx + r) * N + by + tx] = tile[tx * 33u + r];
}
