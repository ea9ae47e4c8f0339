#version 450
// Planted bug: a scratch buffer (uninitialized in the case) read where no invocation wrote it.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Scratch { uint s[]; } scratch;
layout(set = 0, binding = 1) buffer Out { uint data[]; } outp;
void main()
{
    uint i = gl_LocalInvocationIndex;
    if (i != 5u)
        scratch.s[i] = i * 2u;
    barrier();
    outp.data[i] = scratch.s[i ^ 1u]; // BUG: scratch.s[5] is never written
}
