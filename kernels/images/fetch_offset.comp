// texelFetchOffset: the constant offset moves the integer texel coordinate (Vulkan, "Texel Coordinate
// Operations"), at mip 0 and at mip 1, where the offset counts the mip's own texels.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) buffer Texels { vec4 texel[128]; } t;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    ivec2 p = ivec2(2 + int(i % 12u), 1 + int(i / 16u));
    t.texel[i] = texelFetchOffset(tex, p, 0, ivec2(-2, 3));
    t.texel[64u + i] = texelFetchOffset(tex, p / 2, 1, ivec2(1, 1));
}
