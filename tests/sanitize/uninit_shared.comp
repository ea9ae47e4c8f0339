#version 450
// Planted bug: the last invocation reads the element past the ones the workgroup wrote.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; } outp;
shared uint tile[65];
void main()
{
    uint i = gl_LocalInvocationIndex;
    tile[i] = i;
    barrier();
    outp.data[i] = tile[i + 1u];  // BUG: tile[64] is never written
}
