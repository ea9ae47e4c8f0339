// One image of LAYERS layers (the case's "defines"; 3 when it gives none)
// bound as LAYERS descriptors, each a view of one layer (the case's "views":
// "layers"): read through every view, and written through the last, which
// changes that layer of the one image.  layer_views_40 binds more than the 32
// views the Vulkan backend once held in a fixed array (it wrote past it).
#version 450
#ifndef LAYERS
#define LAYERS 3
#endif
#if LAYERS < 1 || LAYERS > 63
#error LAYERS must be 1 to 63
#endif
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D layer[LAYERS];
layout(set = 0, binding = 1) buffer Out { uint o[16]; };

// v = v * 11 + layer l's texel, from the last layer down to layer 0: layer l weighs 11^l (mod 2^32; odd, so no
// layer's weight vanishes).  A descriptor index must be a constant, so the preprocessor writes the reads out:
// READ<n>(b) reads layers b + n - 1 down to b, and each set bit n of LAYERS, lowest first, is the block of n
// layers below those of the bits above it.
#define READ1(b) v = v * 11u + imageLoad(layer[b], p).x;
#define READ2(b) READ1((b) + 1) READ1(b)
#define READ4(b) READ2((b) + 2) READ2(b)
#define READ8(b) READ4((b) + 4) READ4(b)
#define READ16(b) READ8((b) + 8) READ8(b)
#define READ32(b) READ16((b) + 16) READ16(b)

void main()
{
    ivec2 p = ivec2(gl_LocalInvocationID.xy);
    uint v = 0u;
#if (LAYERS & 1) != 0
    READ1(LAYERS & ~1)
#endif
#if (LAYERS & 2) != 0
    READ2(LAYERS & ~3)
#endif
#if (LAYERS & 4) != 0
    READ4(LAYERS & ~7)
#endif
#if (LAYERS & 8) != 0
    READ8(LAYERS & ~15)
#endif
#if (LAYERS & 16) != 0
    READ16(LAYERS & ~31)
#endif
#if (LAYERS & 32) != 0
    READ32(LAYERS & ~63)
#endif
    o[p.y * 4 + p.x] = v;
    imageStore(layer[LAYERS - 1], p, uvec4(v));
}
