// A 1D lookup table sampled with a linear filter, as a colour-grading or
// transfer-curve kernel does: x = (i - 8) / 64 runs a little past [0, 1] on
// both sides.  Output 2i is the table at the texel-centre remap
// (x * (N - 1) + 0.5) / N, which puts x = 0 and x = 1 on the first and last
// texel centres; output 2i + 1 samples at x itself.
#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler1D lut;
layout(set = 0, binding = 1) buffer Out { vec4 v[]; } o;

const float N = 16.0; // the table's width: constant, so (N - 1) / N and 0.5 / N fold to exact values

void main()
{
    uint i = gl_GlobalInvocationID.x;
    float x = (float(i) - 8.0) * (1.0 / 64.0);
    o.v[2u * i] = textureLod(lut, x * ((N - 1.0) / N) + 0.5 / N, 0.0);
    o.v[2u * i + 1u] = textureLod(lut, x, 0.0);
}
