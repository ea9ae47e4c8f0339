#version 450
// Planted bug: every lane of the one wave stores its own index to the same texel.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
layout(set = 0, binding = 1) buffer Out { uint data[]; } outp;
void main()
{
    uint i = gl_LocalInvocationIndex;
    imageStore(img, ivec2(1, 2), uvec4(i));              // BUG: four lanes, four values, one texel
    barrier();
    outp.data[i] = imageLoad(img, ivec2(1, 2)).x;
}
