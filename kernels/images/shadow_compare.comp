// Depth-comparison (shadow) sampling: each texel's depth is compared with the reference first, then the
// results (1.0 where the comparison holds) are filtered (Vulkan, "Depth Compare Operation"): nearest reads one
// result, linear blends four (percentage-closer filtering), a gather returns four; on a UNORM depth format the
// reference is clamped to [0, 1] before the comparison.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2DShadow near_le;  // d32_sfloat, nearest, less_or_equal
layout(set = 0, binding = 1) uniform sampler2DShadow lin_less; // d32_sfloat, linear, less
layout(set = 0, binding = 2) uniform sampler2DShadow d16_eq;   // d16_unorm, nearest, equal
layout(set = 0, binding = 3) buffer Out { float a[64]; float b[64]; vec4 c[64]; float d[64]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    vec2 p = vec2(float(i % 8u), float(i / 8u));
    vec2 centre = (p + 0.5) / 8.0, corner = (p + 1.0) / 8.0;
    o.a[i] = textureLod(near_le, vec3(centre, 0.5), 0.0);
    o.b[i] = textureLod(lin_less, vec3(corner, 0.4), 0.0);
    o.c[i] = textureGather(lin_less, corner, 0.5);
    o.d[i] = textureLod(d16_eq, vec3(centre, 1.5), 0.0);  // 1.5 clamps to 1.0
}
