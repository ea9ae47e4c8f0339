// textureQueryLod in a compute kernel (derivative_group_linearNV): quad n of
// four consecutive invocations covers the 2x2 texel block (2 * (n % 8),
// 2 * (n / 8)) and steps 2^k texels of mip 0 per invocation (k = 0..5 by
// quad), so lambda' is k and the level read min(k, 4) of the 16x16 image's
// five (mipmap mode linear: d_l as is).
#version 450
#extension GL_NV_compute_shader_derivatives : require
layout(local_size_x = 64) in;
layout(derivative_group_linearNV) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) buffer Out { vec2 v[]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x, n = i >> 2u;
    uvec2 g = uvec2(2u * (n % 8u) + (i & 1u), 2u * (n / 8u) + ((i >> 1u) & 1u));
    uint k = ((g.x >> 1u) + (g.y >> 1u)) % 6u;
    float s = float(1u << k);
    vec2 uv = (vec2(g) * s + 0.5) / 16.0;
    o.v[i] = textureQueryLod(tex, uv);
}
