#version 450
// Article 004 in its own form (see swizzle_image.hlsl): the gather reads a 2D
// texture and writes an r32ui storage image.  Defines:
//  TILED         groups remapped by thread-group tiling along X (N = 16), else row-major;
//  SAMPLE_LEVEL  taps through textureLod(sampler2D(InputF, PointClamp), uv, 0) at the
//                texel centres (nearest, clamp to edge: the sampler clamps), else
//                texelFetch(Input, p, 0) with the taps clamped in code.
#extension GL_EXT_samplerless_texture_functions : require

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
#ifdef SAMPLE_LEVEL
layout(set = 0, binding = 2) uniform texture2D InputF;
layout(set = 0, binding = 3) uniform sampler PointClamp;
#else
layout(set = 0, binding = 0) uniform utexture2D Input;
#endif
layout(set = 0, binding = 1, r32ui) uniform writeonly uimage2D Output;

// Thread-group tiling along X (swizzle_tiled.comp's, the corrected snippet the article links).
uvec2 threadGroupTilingX(uvec2 dispatchGridDim, uvec2 ctaDim, uint maxTileWidth,
                         uvec2 groupThreadID, uvec2 groupId)
{
    uint groupsPerFullTile = maxTileWidth * dispatchGridDim.y;
    uint fullTiles = dispatchGridDim.x / maxTileWidth;
    uint groupsInFullTiles = fullTiles * groupsPerFullTile;
    uint flatGroup = dispatchGridDim.x * groupId.y + groupId.x;

    uint tile = flatGroup / groupsPerFullTile;
    uint inTile = flatGroup % groupsPerFullTile;
    uint tileWidth = maxTileWidth;
    if (flatGroup >= groupsInFullTiles)
        tileWidth = dispatchGridDim.x % maxTileWidth;   // the last, narrower tile
    uint localY = inTile / tileWidth;
    uint localX = inTile % tileWidth;

    uint swizzledFlat = tile * maxTileWidth + localY * dispatchGridDim.x + localX;
    uvec2 swizzledGroup = uvec2(swizzledFlat % dispatchGridDim.x, swizzledFlat / dispatchGridDim.x);
    return ctaDim * swizzledGroup + groupThreadID;
}

void main()
{
#ifdef TILED
    uvec2 pixel = threadGroupTilingX(params.dispatchGridDim, uvec2(8u, 8u), TILE_WIDTH_N,
                                     gl_LocalInvocationID.xy, gl_WorkGroupID.xy);
#else
    uvec2 pixel = gl_GlobalInvocationID.xy;
#endif
    ivec2 last = ivec2(params.imageSize) - 1;
    vec2 invSize = 1.0 / vec2(params.imageSize);
    uint acc = 0u;
    for (int j = 0; j < TAPS; ++j) {
        for (int i = 0; i < TAPS; ++i) {
            ivec2 offset = ivec2(i - TAPS / 2, j - TAPS / 2) * SPACING;
#ifdef SAMPLE_LEVEL
            vec2 uv = (vec2(ivec2(pixel) + offset) + 0.5) * invSize; // outside [0,1]: the sampler clamps
            uint v = uint(textureLod(sampler2D(InputF, PointClamp), uv, 0.0).x);
#else
            ivec2 p = clamp(ivec2(pixel) + offset, ivec2(0), last);
            uint v = texelFetch(Input, p, 0).x;
#endif
            acc += v * uint(1 + i + TAPS * j);
        }
    }
    imageStore(Output, ivec2(pixel), uvec4(acc));
}
