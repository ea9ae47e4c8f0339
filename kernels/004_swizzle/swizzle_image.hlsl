// Article 004 (NVIDIA, "Optimizing Compute Shaders for L2 Locality using
// Thread-Group ID Swizzling",
// https://developer.nvidia.com/blog/optimizing-compute-shaders-for-l2-locality-using-thread-group-id-swizzling/)
// in its own form: the full-screen gather of swizzle.hlsl reading a Texture2D and
// writing a RWTexture2D<uint> instead of row-major buffers.  Two ways to fetch:
//  *Load:        Input.Load(int3(p, 0)) at the texel, clamped to the image in code
//                (as swizzle.hlsl does);
//  *SampleLevel: InputF.SampleLevel(PointClamp, uv, 0) at the texel's centre with a
//                nearest, clamp-to-edge sampler: the sampler does the clamping, so
//                the taps are not clamped in code.  The texture holds the same
//                values as floats (r32f; integers below 2^24 are exact), and
//                nearest filtering returns a texel unchanged.
// Both write the same image as swizzle.hlsl's buffer version from the same input.
//  CSRowMajor*: pixel = SV_DispatchThreadID;  CSTiled*: ThreadGroupTilingX, N = 16.

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

[[vk::binding(0, 0)]] Texture2D<uint> Input;       // the Load entries
[[vk::binding(1, 0)]] RWTexture2D<uint> Output;
[[vk::binding(2, 0)]] Texture2D<float> InputF;     // the SampleLevel entries
[[vk::binding(3, 0)]] SamplerState PointClamp;     // nearest, clamp to edge

// Thread-group tiling along X, as in swizzle.hlsl (the corrected snippet the
// article links: https://github.com/LouisBavoil/ThreadGroupIDSwizzling).
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
        tileWidth = dispatchGridDim.x % maxTileWidth; // the last, narrower tile
    }
    uint localY = inTile / tileWidth;
    uint localX = inTile % tileWidth;

    uint swizzledFlat = tile * maxTileWidth + localY * dispatchGridDim.x + localX;
    uint2 swizzledGroup = uint2(swizzledFlat % dispatchGridDim.x, swizzledFlat / dispatchGridDim.x);
    return ctaDim * swizzledGroup + groupThreadID;
}

void GatherLoad(uint2 pixel)
{
    int2 last = int2(imageSize) - 1;
    uint acc = 0;
    for (int j = 0; j < TAPS; ++j)
    {
        for (int i = 0; i < TAPS; ++i)
        {
            int2 offset = int2(i - TAPS / 2, j - TAPS / 2) * SPACING;
            int2 p = clamp(int2(pixel) + offset, int2(0, 0), last);
            acc += Input.Load(int3(p, 0)) * uint(1 + i + TAPS * j);
        }
    }
    Output[pixel] = acc;
}

void GatherSampleLevel(uint2 pixel)
{
    float2 invSize = 1.0 / float2(imageSize);
    uint acc = 0;
    for (int j = 0; j < TAPS; ++j)
    {
        for (int i = 0; i < TAPS; ++i)
        {
            int2 offset = int2(i - TAPS / 2, j - TAPS / 2) * SPACING;
            float2 uv = (float2(int2(pixel) + offset) + 0.5) * invSize; // outside [0,1]: the sampler clamps
            acc += uint(InputF.SampleLevel(PointClamp, uv, 0)) * uint(1 + i + TAPS * j);
        }
    }
    Output[pixel] = acc;
}

[numthreads(8, 8, 1)]
void CSRowMajorLoad(uint3 dispatchThreadID : SV_DispatchThreadID)
{
    GatherLoad(dispatchThreadID.xy);
}

[numthreads(8, 8, 1)]
void CSTiledLoad(uint3 groupThreadID : SV_GroupThreadID, uint3 groupID : SV_GroupID)
{
    GatherLoad(ThreadGroupTilingX(dispatchGridDim, uint2(8, 8), TILE_WIDTH_N, groupThreadID.xy, groupID.xy));
}

[numthreads(8, 8, 1)]
void CSRowMajorSampleLevel(uint3 dispatchThreadID : SV_DispatchThreadID)
{
    GatherSampleLevel(dispatchThreadID.xy);
}

[numthreads(8, 8, 1)]
void CSTiledSampleLevel(uint3 groupThreadID : SV_GroupThreadID, uint3 groupID : SV_GroupID)
{
    GatherSampleLevel(ThreadGroupTilingX(dispatchGridDim, uint2(8, 8), TILE_WIDTH_N, groupThreadID.xy, groupID.xy));
}
