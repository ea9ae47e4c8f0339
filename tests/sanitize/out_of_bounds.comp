#version 450
// Planted bug: an off-by-one index; the last invocation writes one element past the buffer.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; } outp;
void main()
{
    uint i = gl_LocalInvocationIndex;
    outp.data[i + 1u] = i;        // BUG: data[64] does not exist
}
