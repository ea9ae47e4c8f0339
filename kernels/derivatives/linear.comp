// Derivatives in a compute kernel (GL_NV_compute_shader_derivatives), linear:
// gl_LocalInvocationIndex 4n..4n+3 form one derivative quad (0 1 / 2 3).
// P is not linear, so its fine derivatives differ within a quad; every value
// is a small integer.  Coarse ones are taken of Q, whose rows (and columns)
// differ alike, so the top-left lane's differences (what wavelab computes)
// equal each lane's own (what lavapipe computes; both are allowed).
#version 450
#extension GL_NV_compute_shader_derivatives : require
layout(local_size_x = 32) in;
layout(derivative_group_linearNV) in;
layout(set = 0, binding = 0) buffer Out { float v[]; } o;

void main()
{
    uint g = gl_GlobalInvocationID.x;
    float x = float(g & 1u) + float(g >> 2u), y = float((g >> 1u) & 1u) + float((g >> 2u) % 3u);
    float q = x * x + 3.0 * y * y, p = q + x * y;
    uint i = g * 6u;
    o.v[i + 0u] = dFdxFine(p);
    o.v[i + 1u] = dFdyFine(p);
    o.v[i + 2u] = dFdxCoarse(q);
    o.v[i + 3u] = dFdyCoarse(q);
    o.v[i + 4u] = fwidthFine(p);
    o.v[i + 5u] = fwidthCoarse(q);
}
