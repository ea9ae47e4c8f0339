#version 450
#extension GL_KHR_shader_subgroup_arithmetic : enable
// Radix sort, step 2: exclusive prefix sum of the 16 * TILES counts, in place, by one
// workgroup: each wave scans its values with subgroupExclusiveAdd, and the waves'
// totals are carried through shared memory, one chunk of 64 values at a time.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint TILES = 1;
layout(set = 0, binding = 0) buffer Hist { uint hist[]; };

shared uint wave_total[64];
shared uint carry;

void main()
{
    uint lid = gl_LocalInvocationID.x;
    if (lid == 0)
        carry = 0;
    barrier();
    for (uint base = 0; base < 16u * TILES; base += 64u) {
        uint i = base + lid;
        uint v = i < 16u * TILES ? hist[i] : 0u;
        uint within = subgroupExclusiveAdd(v);
        if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u)
            wave_total[gl_SubgroupID] = within + v;
        barrier();
        uint before = carry;
        for (uint w = 0; w < gl_SubgroupID; w++)
            before += wave_total[w];
        if (i < 16u * TILES)
            hist[i] = before + within;
        barrier();
        if (lid == 63u)
            carry = before + within + v;
        barrier();
    }
}
