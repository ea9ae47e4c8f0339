#version 450
// A workgroup of 64 invocations that keeps LDS_WORDS 32-bit words of shared memory: the one thing the two
// cases vary, so the driver's occupancy can only change through LDS (tests/test_radv.c).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint v[]; } data;
shared uint tile[LDS_WORDS];

void main()
{
    uint i = gl_LocalInvocationID.x;
    for (uint k = i; k < LDS_WORDS; k += 64)
        tile[k] = data.v[k % 64] + k;
    barrier();
    data.v[gl_GlobalInvocationID.x] = tile[(i * 97) % LDS_WORDS];
}
