// Two textures and two samplers, each a descriptor array, paired by constant
// indices: texture 0 with a clamping sampler, texture 1 with a repeating one,
// both nearest, at texel centres from -2 to 5 on a 4x4 texture.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform texture2D tex[2];
layout(set = 0, binding = 1) uniform sampler smp[2];
layout(set = 0, binding = 2) buffer Out { float o[]; };

void main()
{
    uint i = gl_LocalInvocationIndex;
    vec2 c = (vec2(int(i % 8u) - 2, int(i / 8u) - 2) + 0.5) / 4.0;
    o[i] = textureLod(sampler2D(tex[0], smp[0]), c, 0.0).x + 1000.0 * textureLod(sampler2D(tex[1], smp[1]), c, 0.0).x;
}
