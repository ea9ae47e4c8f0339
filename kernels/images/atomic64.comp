#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_image_int64 : require
// 64-bit image atomics, as a compute rasterizer's visibility buffer uses
// them: each invocation is a fragment that keeps the nearest (depth, id)
// pair of its pixel with one imageAtomicMin on a packed key, depth in the
// high word, id in the low.  A signed r64i image takes the other operations
// on values past 32 bits: add, max, min, and, or, xor (several invocations
// on a texel: the result does not depend on their order), exchange and
// compare-exchange (one invocation per texel: their old values written
// out).  Expectations: tools/gen_image_ms_int64_cases.py.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r64ui) uniform u64image2D visibility;
layout(set = 0, binding = 1, r64i) uniform i64image2D acc;
layout(set = 0, binding = 2) buffer Out { int64_t old[128][3]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    ivec2 pixel = ivec2(i % 4u, (i / 4u) % 4u);
    uint depth = (i * 2654435761u) >> 8;                  // a pseudo-random 24-bit depth
    imageAtomicMin(visibility, pixel, (uint64_t(depth) << 32) | uint64_t(i));

    uint op = i % 7u;
    ivec2 shared_texel = ivec2(i % 8u, op), own = ivec2(i, op);
    int64_t big = (int64_t(i) << 36) - int64_t(0x0123456789l);
    switch (op) {
    case 0u: imageAtomicAdd(acc, shared_texel, big); break;
    case 1u: imageAtomicMax(acc, shared_texel, -big); break;
    case 2u: imageAtomicMin(acc, shared_texel, big); break;
    case 3u: imageAtomicAnd(acc, shared_texel, ~(int64_t(1) << (i % 64u))); break;
    case 4u: imageAtomicOr(acc, shared_texel, int64_t(1) << (32u + i % 31u)); break;
    case 5u: imageAtomicXor(acc, shared_texel, big); break;
    default:
        o.old[i][0] = imageAtomicExchange(acc, own, big);
        o.old[i][1] = imageAtomicCompSwap(acc, own, big, big + 1);          // equal: swaps
        o.old[i][2] = imageAtomicCompSwap(acc, ivec2(i, 7), int64_t(12345), big); // not equal: keeps
        break;
    }
}
