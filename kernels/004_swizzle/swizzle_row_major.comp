#version 450
// Article 004, pixel = gl_GlobalInvocationID (row-major launch order).
// A wide sparse gather per pixel (see swizzle.hlsl); both versions write the same image.

#ifndef TAPS
#define TAPS 5
#endif
#ifndef SPACING
#define SPACING 8
#endif
#define TILE_WIDTH_N 16u

layout(local_size_x = 8, local_size_y = 8) in;
layout(push_constant) uniform Params {
    uvec2 dispatchGridDim;   // groups in x and y
    uvec2 imageSize;         // pixels
} params;
layout(set = 0, binding = 0, std430) readonly buffer In { uint inputData[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { uint outputData[]; };


void main()
{
    uvec2 pixel = gl_GlobalInvocationID.xy;   // row-major launch order
    ivec2 last = ivec2(params.imageSize) - 1;
    uint acc = 0u;
    for (int j = 0; j < TAPS; ++j) {
        for (int i = 0; i < TAPS; ++i) {
            ivec2 offset = ivec2(i - TAPS / 2, j - TAPS / 2) * SPACING;
            ivec2 p = clamp(ivec2(pixel) + offset, ivec2(0), last);
            acc += inputData[p.y * int(params.imageSize.x) + p.x] * uint(1 + i + TAPS * j);
        }
    }
    outputData[pixel.y * params.imageSize.x + pixel.x] = acc;
}
