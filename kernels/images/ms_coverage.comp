#version 450
// Per-sample atomics on a multisampled r32ui image, and per-sample texel
// fetches of a multisampled sampled image.  Each invocation (x, y) of the
// 8x8 workgroup adds x + 1 to sample (x + y) % n of texel (x / 2, y / 2) and
// keeps the largest y * 8 + x there in a second image; it also fetches
// sample i % n of texel (x, y) of `tex`.  Expectations:
// tools/gen_image_ms_int64_cases.py.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2DMS sums;
layout(set = 0, binding = 1, r32ui) uniform uimage2DMS largest;
layout(set = 0, binding = 2) uniform usampler2DMS tex;
layout(set = 0, binding = 3) buffer Out { uint fetched[64]; int samples[2]; } o;

void main()
{
    ivec2 p = ivec2(gl_LocalInvocationID.xy);
    uint i = gl_LocalInvocationIndex;
    int n = imageSamples(sums);
    imageAtomicAdd(sums, p / 2, (p.x + p.y) % n, uint(p.x + 1));
    imageAtomicMax(largest, p / 2, (p.x + p.y) % n, i);
    o.fetched[i] = texelFetch(tex, p, int(i) % textureSamples(tex)).x;
    if (i == 0u) {
        o.samples[0] = n;
        o.samples[1] = textureSamples(tex);
    }
}
