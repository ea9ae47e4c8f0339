#version 450
// Planted bug: no barrier between writing a storage image and reading another wave's texel.
layout(local_size_x = 128) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
layout(set = 0, binding = 1) buffer Out { uint data[]; } outp;
void main()
{
    int i = int(gl_LocalInvocationIndex);
    imageStore(img, ivec2(i, 0), uvec4(i + 1));         // BUG-STORE: a wave overwrites what another read
    uint v = imageLoad(img, ivec2(i ^ 64, 0)).x;         // BUG-LOAD: another wave's texel, no barrier between
    outp.data[i] = v == 0xffffffffu ? 7u : 1u;
}
