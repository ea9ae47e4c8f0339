#version 450
// Reads every texel of every mip level and layer of a sampled r32ui 2D array
// image with texelFetch and writes them out in the order the case format packs
// them (mip 0: layer 0 row by row, layer 1 ...; then mip 1 ...): the backend's
// upload must put each byte of the packed contents at its texel.  One invocation
// per output element; SIZE is the level-0 width and height, LAYERS and MIPS the counts.
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform utexture2DArray tex;
layout(set = 0, binding = 1, std430) writeonly buffer Out { uint values[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    uint base = 0u;
    for (int m = 0; m < MIPS; m++) {
        uint s = max(1u, uint(SIZE) >> m);
        uint level = s * s * uint(LAYERS);
        if (i < base + level) {
            uint k = i - base;
            uint layer = k / (s * s), y = (k % (s * s)) / s, x = k % s;
            values[i] = texelFetch(tex, ivec3(x, y, layer), m).x;
            return;
        }
        base += level;
    }
}
