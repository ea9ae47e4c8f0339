#version 450
// Planted bug: a scratch image (uninitialized in the case) read where no invocation wrote it.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D scratch;
layout(set = 0, binding = 1) buffer Out { uint data[]; } outp;
void main()
{
    int i = int(gl_LocalInvocationIndex);
    if (i != 5)
        imageStore(scratch, ivec2(i, 0), uvec4(uint(i) * 2u));
    barrier();
    outp.data[i] = imageLoad(scratch, ivec2(i ^ 1, 0)).x; // BUG: texel 5 is never written
}
