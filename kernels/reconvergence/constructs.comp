#version 450
// Which lanes meet at a wave operation, one control-flow construct at a time
// (CONSTRUCT 0..6, one case file each).  Each lane takes a ballot inside the
// construct and compares it with the set the source promises under structured
// reconvergence (SPV_KHR_maximal_reconvergence, docs/reconvergence.md): the lanes
// of its wave that reach the same point with the same KEY.  That set is worked
// out arithmetically here, before any branch, from the lane numbers alone, so
// the expectation is 1 per lane at every wave size.  A lane that never reaches
// the ballot keeps the fill value 7.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require

#ifndef CONSTRUCT
#define CONSTRUCT 0
#endif

layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) buffer Ok { uint ok[]; };

// The key of lane j: lanes of one wave with equal keys must take the ballot together.
//  0 switch, default reached by two selector values:  sel = j & 3; cases 1, 3 | default (0, 2)
//  1 switch with a fall-through from case 0 into case 1: {0, 1} | default {2, 3}
//  2 loop left by a break in iteration j & 3:          lanes leaving in the same iteration
//  3 after an if/else:                                  everyone
//  4 after a conditional early return in a function:   the even lanes (odd ones returned)
//  5 after an inner loop left in iteration j & 1:      everyone still in the outer iteration
//  6 a loop whose other iterations `continue`:         the lanes whose (j + k) & 3 == 0, k the iteration
uint key(uint j)
{
#if CONSTRUCT == 0
    return ((j & 3u) == 1u || (j & 3u) == 3u) ? 1u : 0u;
#elif CONSTRUCT == 1
    return (j & 3u) <= 1u ? 1u : 0u;
#elif CONSTRUCT == 2 || CONSTRUCT == 6
    return j & 3u;
#elif CONSTRUCT == 4
    return j & 1u;
#else
    return 0u;
#endif
}

uvec4 expected_ballot(uint lane)
{
    uint wave_first = gl_SubgroupID * gl_SubgroupSize;
    uvec4 m = uvec4(0u);
    for (uint i = 0u; i < gl_SubgroupSize; i++)
        if (wave_first + i < gl_WorkGroupSize.x && key(wave_first + i) == key(lane))
            m[i >> 5u] |= 1u << (i & 31u);
    return m;
}

uint record(uvec4 expected)
{
    return subgroupBallot(true) == expected ? 1u : 0u;
}

void early_return(uint lane, uvec4 e, inout uint r)
{
    if ((lane & 1u) != 0u)
        return;
    r = record(e);
}

void main()
{
    uint lane = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    uvec4 e = expected_ballot(lane);
    uint r = 7u;
#if CONSTRUCT == 0
    switch (lane & 3u) {
    case 1u: case 3u: r = record(e); break;
    default: r = record(e); break;
    }
#elif CONSTRUCT == 1
    uint x = 0u;
    switch (lane & 3u) {
    case 0u: x = 5u;      // falls through into case 1
    case 1u: r = record(e) + x * 0u; break;
    default: r = record(e); break;
    }
#elif CONSTRUCT == 2
    for (uint k = 0u;; k++) {
        if (k == (lane & 3u)) {
            r = record(e);
            break;
        }
    }
#elif CONSTRUCT == 3
    uint x;
    if ((lane & 1u) != 0u)
        x = lane * 3u;
    else
        x = lane + 9u;
    r = record(e) + x * 0u;
#elif CONSTRUCT == 4
    early_return(lane, e, r);
#elif CONSTRUCT == 5
    for (uint i = 0u; i < 2u; i++) {
        for (uint k = 0u;; k++)
            if (k == (lane & 1u))
                break;
        r = record(e);
    }
#elif CONSTRUCT == 6
    for (uint k = 0u; k < 4u; k++) {
        if (((lane + k) & 3u) != 0u)
            continue;
        r = record(e);
    }
#endif
    ok[gl_GlobalInvocationID.x] = r;
}
