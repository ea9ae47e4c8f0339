// Article 004 (NVIDIA, "Optimizing Compute Shaders for L2 Locality using
// Thread-Group ID Swizzling"): a full-screen gather pass with 8x8 groups whose
// threads read a wide, sparse neighbourhood (TAPS x TAPS texels SPACING pixels
// apart, clamped at the border) — the access pattern of a denoiser.
//  CSRowMajor: pixel = SV_DispatchThreadID (groups launched in row-major order).
//  CSTiled:    pixel = ThreadGroupTilingX(...) with N = 16: the group IDs are
//              remapped so that consecutive groups cover columns of tiles
//              N groups wide, including the corrected handling of a last tile
//              narrower than N when the grid width is not a multiple of N.
// The remap is a bijection on the groups, so both entries write the same image;
// only the order in which the image is covered changes (and with it the L2 hit
// rate, which is what the *_1440p cases are for).
// Images are row-major buffers (Texture2D / RWTexture2D in a real renderer).
// The dispatch grid comes from push constants, as the article recommends
// ("typically from a ConstantBuffer"): a constant grid would let a compiler fold it.

#ifndef TAPS
#define TAPS 5           // TAPS x TAPS samples per pixel
#endif
#ifndef SPACING
#define SPACING 8        // pixels between samples
#endif
#define TILE_WIDTH_N 16  // maxTileWidth

[[vk::push_constant]] cbuffer Params
{
    uint2 dispatchGridDim;   // groups in x and y
    uint2 imageSize;         // pixels: 8 * dispatchGridDim
};

[[vk::binding(0, 0)]] StructuredBuffer<uint> Input;
[[vk::binding(1, 0)]] RWStructuredBuffer<uint> Output;

// Thread-group tiling along X: the dispatch grid is cut into tiles of
// [maxTileWidth, dispatchGridDim.y] groups (the last one narrower when
// dispatchGridDim.x is not a multiple of maxTileWidth); the flattened group ID
// walks each tile row by row, tile after tile.  Written after the corrected
// snippet the article links (Aditya Ukarande's ThreadGroupTilingX,
// https://github.com/LouisBavoil/ThreadGroupIDSwizzling).
uint2 ThreadGroupTilingX(uint2 dispatchGridDim, uint2 ctaDim, uint maxTileWidth,
                         uint2 groupThreadID, uint2 groupId)
{
    uint groupsPerFullTile = maxTileWidth * dispatchGridDim.y;
    uint fullTiles = dispatchGridDim.x / maxTileWidth;
    uint groupsInFullTiles = fullTiles * groupsPerFullTile;
    uint flatGroup = dispatchGridDim.x * groupId.y + groupId.x;

    uint tile = flatGroup / groupsPerFullTile;
    uint inTile = flatGroup % groupsPerFullTile;
    uint tileWidth = maxTileWidth;
    if (flatGroup >= groupsInFullTiles)
    {
        // the last, narrower tile (only when dispatchGridDim.x % maxTileWidth != 0)
        tileWidth = dispatchGridDim.x % maxTileWidth;
    }
    uint localY = inTile / tileWidth;
    uint localX = inTile % tileWidth;

    uint swizzledFlat = tile * maxTileWidth + localY * dispatchGridDim.x + localX;
    uint2 swizzledGroup = uint2(swizzledFlat % dispatchGridDim.x, swizzledFlat / dispatchGridDim.x);
    return ctaDim * swizzledGroup + groupThreadID;
}

void Gather(uint2 pixel)
{
    int2 last = int2(imageSize) - 1;
    uint acc = 0;
    for (int j = 0; j < TAPS; ++j)
    {
        for (int i = 0; i < TAPS; ++i)
        {
            int2 offset = int2(i - TAPS / 2, j - TAPS / 2) * SPACING;
            int2 p = clamp(int2(pixel) + offset, int2(0, 0), last);
            acc += Input[p.y * imageSize.x + p.x] * uint(1 + i + TAPS * j);
        }
    }
    Output[pixel.y * imageSize.x + pixel.x] = acc;
}

[numthreads(8, 8, 1)]
void CSRowMajor(uint3 dispatchThreadID : SV_DispatchThreadID)
{
    Gather(dispatchThreadID.xy);
}

[numthreads(8, 8, 1)]
void CSTiled(uint3 groupThreadID : SV_GroupThreadID, uint3 groupID : SV_GroupID)
{
    Gather(ThreadGroupTilingX(dispatchGridDim, uint2(8, 8), TILE_WIDTH_N,
                              groupThreadID.xy, groupID.xy));
}
