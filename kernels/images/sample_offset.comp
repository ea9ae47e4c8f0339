// textureLodOffset, textureGatherOffset and textureGatherOffsets: the constant offset moves the integer
// texel coordinates of the level read (Vulkan, "Texel Coordinate Offset"), after the floor and before the
// address mode, so the filter's weights stay and at mip 1 the offset counts mip-1 texels.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D near;   // nearest, clamp to edge
layout(set = 0, binding = 1) uniform sampler2D lin;    // linear, clamp to edge
layout(set = 0, binding = 2) buffer Texels { vec4 texel[384]; } t;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    vec2 p = vec2(float(i % 12u), float(i / 12u));
    vec2 mip0 = vec2(16.0, 8.0), mip1 = vec2(8.0, 4.0);
    t.texel[i] = textureLodOffset(near, (p + 0.5) / mip0, 0.0, ivec2(3, -1));         // texel centres
    t.texel[64u + i] = textureLodOffset(near, (p + 0.5) / mip1, 1.0, ivec2(-2, 1));
    t.texel[128u + i] = textureGatherOffset(lin, (p + 1.0) / mip0, ivec2(2, 1), 1);   // texel corners
    t.texel[192u + i] = textureLodOffset(lin, (p + 1.0) / mip0, 0.0, ivec2(-1, 2));   // weights 1/2, 1/2
    t.texel[256u + i] = textureLodOffset(lin, (p + 1.0) / mip1, 1.0, ivec2(1, -1));
    // four offsets: texel k is the (i0, j0) texel of the footprint moved by offset k
    t.texel[320u + i] = textureGatherOffsets(lin, (p + 1.0) / mip0,
                                             ivec2[4](ivec2(0, 0), ivec2(1, -1), ivec2(-2, 1), ivec2(2, 2)), 1);
}
