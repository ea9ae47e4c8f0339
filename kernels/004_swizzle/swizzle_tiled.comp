#version 450
// Article 004, groups remapped by thread-group tiling along X, N = 16.
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

// Thread-group tiling along X (see swizzle.hlsl): tiles of [maxTileWidth,
// dispatchGridDim.y] groups, the last one narrower when dispatchGridDim.x is not a
// multiple of maxTileWidth (the corrected snippet the article links).
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
    uvec2 pixel = threadGroupTilingX(params.dispatchGridDim, uvec2(8u, 8u), TILE_WIDTH_N,
                                     gl_LocalInvocationID.xy, gl_WorkGroupID.xy);
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
