// Textures picked at run time.  tex[] are combined image samplers, each with
// its own address mode, indexed per lane with nonuniformEXT: a lane's element
// brings its own sampler.  plain[] are textures without samplers, picked by a
// push constant and sampled with one separate sampler.  Coordinates run from
// texel -2 to 5 of a 4x4 texture, so the address modes show.
#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D tex[3];
layout(set = 0, binding = 1) uniform texture2D plain[2];
layout(set = 0, binding = 2) uniform sampler nearest;
layout(set = 0, binding = 3) buffer Out { float o[]; };
layout(push_constant) uniform Pick { uint pick; };

void main()
{
    uint i = gl_LocalInvocationIndex;
    uint k = i % 3u;
    ivec2 p = ivec2(i % 4u, (i / 4u) % 4u);
    vec2 c = (vec2(int(i % 8u) - 2, int(i / 8u) - 2) + 0.5) / 4.0;
    float a = texelFetch(tex[nonuniformEXT(k)], p, 0).x;
    float b = textureLod(tex[nonuniformEXT(k)], c, 0.0).x;
    float d = textureLod(sampler2D(plain[pick], nearest), c, 0.0).x;
    o[i] = a + 10.0 * b + 100.0 * d;
}
