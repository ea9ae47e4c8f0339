#version 450
// Planted bug: a barrier inside a branch that only even invocations take.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; } outp;
void main()
{
    uint i = gl_LocalInvocationIndex;
    outp.data[i] = i;
    if ((i & 1u) == 0u)
        barrier();                // BUG: not uniform across the workgroup
}
