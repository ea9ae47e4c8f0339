#version 450
// Copies a texel buffer's r32f texels to a float buffer and their bits to a uint buffer.  Texel 0 is the
// signalling NaN 0x7FA00000: the simulator reads it quieted (0x7FE00000, docs/quirks.md), a GPU as stored, so the
// two sides hold different NaNs.  The float copy agrees under every rule (any NaN matches any NaN); the bits do not
// (integers are compared as bits).
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform samplerBuffer src;
layout(std430, set = 0, binding = 1) buffer Values { float values[]; };
layout(std430, set = 0, binding = 2) buffer Bits { uint bits[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    float v = texelFetch(src, int(i)).x;
    values[i] = v;
    bits[i] = floatBitsToUint(v);
}
