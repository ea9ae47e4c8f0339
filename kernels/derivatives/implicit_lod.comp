// Implicit-LOD sampling in a compute kernel (texture() under
// derivative_group_linearNV): the level of detail comes from the derivatives
// of the coordinates across each quad of four consecutive invocations (0 1 /
// 2 3).  Quad n covers the 2x2 texel block (2 * (n % 8), 2 * (n / 8)) of a
// 16x16 grid and steps 2^k texels of mip 0 per invocation (k = 0..3 by
// quad), so the level is k, and k + 1 with a bias of 1; every mip level holds
// its own number, so the result names the level.
#version 450
#extension GL_NV_compute_shader_derivatives : require
layout(local_size_x = 64) in;
layout(derivative_group_linearNV) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) buffer Out { vec4 v[]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x, n = i >> 2u;
    uvec2 g = uvec2(2u * (n % 8u) + (i & 1u), 2u * (n / 8u) + ((i >> 1u) & 1u));
    uint k = ((g.x >> 1u) + (g.y >> 1u)) % 4u;
    float s = float(1u << k);
    vec2 uv = (vec2(g) * s + 0.5) / 16.0;
    o.v[2u * i] = texture(tex, uv);
    o.v[2u * i + 1u] = texture(tex, uv, 1.0);
}
