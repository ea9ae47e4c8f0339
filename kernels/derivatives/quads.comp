// Derivatives in a compute kernel (GL_NV_compute_shader_derivatives), quads:
// each 2x2 block of gl_LocalInvocationID is one derivative quad.  P is not
// linear, so its fine derivatives differ within a quad; every value is a small
// integer.  Coarse ones are taken of Q, whose rows (and columns) differ alike,
// so the top-left lane's differences (what wavelab computes) equal each lane's
// own (what lavapipe computes; both are allowed).
#version 450
#extension GL_NV_compute_shader_derivatives : require
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 8, local_size_y = 4) in;
layout(derivative_group_quadsNV) in;
layout(set = 0, binding = 0) buffer Out { float v[]; } o;

void main()
{
    uvec3 g = gl_GlobalInvocationID;
    uint width = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint i = (g.y * width + g.x) * 8u;
    float x = float(g.x), y = float(g.y);
    float q = x * x + 3.0 * y * y, p = q + x * y;
    o.v[i + 0u] = dFdxFine(p);
    o.v[i + 1u] = dFdyFine(p);
    o.v[i + 2u] = dFdxCoarse(q);
    o.v[i + 3u] = dFdyCoarse(q);
    o.v[i + 4u] = fwidthFine(p);
    o.v[i + 5u] = fwidthCoarse(q);
    o.v[i + 6u] = dFdx(x + 2.0 * y) + 10.0 * dFdy(x + 2.0 * y);
    // the quad scope instance is the derivative quad: lane 0 of it is (2m, 2n)
    o.v[i + 7u] = float(subgroupQuadBroadcast(gl_LocalInvocationIndex, 0u));
}
