#version 450
// Planted bug: a local array with its last element never written, read at a per-lane index.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; } outp;
void main()
{
    uint i = gl_LocalInvocationIndex;
    uint vals[4];
    for (uint k = 0u; k < 3u; k++)
        vals[k] = k * 5u;
    outp.data[i] = vals[i & 3u];  // BUG: vals[3] is never written
}
