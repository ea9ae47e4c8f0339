// Samplers picked at run time from an array of separate samplers, each with
// its own address mode: per lane (nonuniformEXT) beside one texture, per lane
// beside a texture picked per lane too (the waterfall runs once per distinct
// pair), and by a push constant beside a texture picked so.  Coordinates run
// from texel -2 to 5 of a 4x4 texture, so the address modes show.
// Expectations: tools/gen_bindless_cases.py.
#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform texture2D tex[2];
layout(set = 0, binding = 1) uniform sampler smp[3];
layout(set = 0, binding = 2) uniform texture2D single;
layout(set = 0, binding = 3) buffer Out { float o[]; };
layout(push_constant) uniform Pick { uint pick; };

void main()
{
    uint i = gl_LocalInvocationIndex;
    uint k = i % 3u;
    vec2 c = (vec2(int(i % 8u) - 2, int(i / 8u) - 2) + 0.5) / 4.0;
    float a = textureLod(sampler2D(single, smp[nonuniformEXT(k)]), c, 0.0).x;
    float b = textureLod(sampler2D(tex[nonuniformEXT(i & 1u)], smp[nonuniformEXT(k)]), c, 0.0).x;
    float d = textureLod(sampler2D(tex[pick], smp[pick + 1u]), c, 0.0).x;
    o[i] = a + 10.0 * b + 100.0 * d;
}
