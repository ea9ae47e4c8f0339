#version 450
// Planted bug: a lookup texture the application never filled (uninitialized in the case), sampled through a
// linear filter.  Lanes 0-3 sample far outside it with clamp to border: their footprints are border texels only,
// which read no memory, so the first report is lane 4's first texel.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D lut;
layout(set = 0, binding = 1) buffer Out { vec4 data[]; } outp;
void main()
{
    int i = int(gl_LocalInvocationIndex);
    vec2 uv = i < 4 ? vec2(-5.0) : vec2(float(i % 8 + 1) / 8.0, 0.5);
    outp.data[i] = textureLod(lut, uv, 0.0); // BUG: nothing wrote lut
}
