// A single-pass mip-chain downsampler: one dispatch writes every level of a
// 2x2 box-filter chain into an array of storage views, one per mip of one
// image (the case binds it with "views": "mips").  Each workgroup reduces a
// 64x64 tile of the source to one texel of level 6 (levels 1-2 in registers,
// 3 through quad swaps, 4-6 through shared memory and quad swaps); the last
// workgroup to finish, told by an atomic counter, reduces level 6 on to the
// last level.  LEVELS (the case's "defines") is the number of levels written;
// the source is W x H texels, both multiples of 64.
//
// Every 2x2 average is ((a00 + a10) + (a01 + a11)) * 0.25 in that order, so
// the result does not depend on the wave size: a quad's four lanes hold a 2x2
// block (the lane index is a Morton code), and each lane adds the same pairs.
// `precise` keeps a compiler from rewriting the sums: without it lavapipe's
// level 2 is one ulp off on 260 of the 5461 texels of downsample_7_levels.
#version 450
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, r32f) uniform readonly image2D src;
layout(set = 0, binding = 1, r32f) uniform coherent image2D dst[LEVELS]; // dst[k]: level k + 1
layout(set = 0, binding = 2) coherent buffer Counter { uint finished; } counter;

shared float level3[64], level4[16], level5[4];
shared uint is_last;

float avg4(float a00, float a10, float a01, float a11)
{
    precise float r = ((a00 + a10) + (a01 + a11)) * 0.25;
    return r;
}

// The lanes of a quad hold a 2x2 block: lane ^ 1 is the horizontal neighbour, lane ^ 2 the vertical one.
float quad_avg(float v)
{
    float h = subgroupQuadSwapHorizontal(v), u = subgroupQuadSwapVertical(v), d = subgroupQuadSwapDiagonal(v);
    precise float r = ((v + h) + (u + d)) * 0.25;
    return r;
}

// Index bits 0, 2, 4, 6 are x; 1, 3, 5, 7 are y.
ivec2 morton(uint t)
{
    uint x = 0u, y = 0u;
    for (uint b = 0u; b < 4u; ++b) {
        x |= ((t >> (2u * b)) & 1u) << b;
        y |= ((t >> (2u * b + 1u)) & 1u) << b;
    }
    return ivec2(x, y);
}

// Level L from level L - 1 by the whole workgroup, a texel per invocation in turn; an odd edge repeats its last
// texel (a level of one row or column).
#define LEVEL(L) \
    { \
        ivec2 prev = imageSize(dst[L - 2]), size = imageSize(dst[L - 1]); \
        for (int i = int(t); i < size.x * size.y; i += 256) { \
            ivec2 p = ivec2(i % size.x, i / size.x) * 2, q = min(p + 1, prev - 1); \
            float v = avg4(imageLoad(dst[L - 2], p).x, imageLoad(dst[L - 2], ivec2(q.x, p.y)).x, \
                           imageLoad(dst[L - 2], ivec2(p.x, q.y)).x, imageLoad(dst[L - 2], q).x); \
            imageStore(dst[L - 1], p / 2, vec4(v)); \
        } \
        memoryBarrierImage(); \
        barrier(); \
    }

void main()
{
    uint t = gl_LocalInvocationIndex;
    ivec2 tile = ivec2(gl_WorkGroupID.xy) * 64;
    ivec2 s = tile + morton(t) * 4; // this invocation's 4x4 block of the source

    // levels 1 and 2 in registers
    float l1[4];
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
            ivec2 p = s + ivec2(i, j) * 2;
            float v = avg4(imageLoad(src, p).x, imageLoad(src, p + ivec2(1, 0)).x, imageLoad(src, p + ivec2(0, 1)).x,
                           imageLoad(src, p + ivec2(1, 1)).x);
            imageStore(dst[0], p / 2, vec4(v));
            l1[j * 2 + i] = v;
        }
    float v2 = avg4(l1[0], l1[1], l1[2], l1[3]);
    imageStore(dst[1], s / 4, vec4(v2));

    // level 3 across the quad; levels 4 to 6 through shared memory, each a quad of the one before
    float v3 = quad_avg(v2);
    if ((t & 3u) == 0u) {
        imageStore(dst[2], s / 8, vec4(v3));
        level3[t >> 2] = v3;
    }
    barrier();
    if (t < 64u) {
        float v4 = quad_avg(level3[t]);
        if ((t & 3u) == 0u) {
            imageStore(dst[3], tile / 16 + morton(t) / 2, vec4(v4));
            level4[t >> 2] = v4;
        }
    }
    barrier();
    if (t < 16u) {
        float v5 = quad_avg(level4[t]);
        if ((t & 3u) == 0u) {
            imageStore(dst[4], tile / 32 + morton(t) / 2, vec4(v5));
            level5[t >> 2] = v5;
        }
    }
    barrier();
    if (t < 4u) {
        float v6 = quad_avg(level5[t]);
        if (t == 0u) {
            imageStore(dst[5], ivec2(gl_WorkGroupID.xy), vec4(v6));
            memoryBarrierImage();
            uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
            is_last = atomicAdd(counter.finished, 1u) == groups - 1u ? 1u : 0u;
        }
    }
    barrier();
    if (is_last == 0u)
        return;
    memoryBarrierImage();
#if LEVELS >= 7
    LEVEL(7)
#endif
#if LEVELS >= 8
    LEVEL(8)
#endif
#if LEVELS >= 9
    LEVEL(9)
#endif
#if LEVELS >= 10
    LEVEL(10)
#endif
#if LEVELS >= 11
    LEVEL(11)
#endif
#if LEVELS >= 12
    LEVEL(12)
#endif
}
