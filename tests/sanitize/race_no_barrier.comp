#version 450
// Planted bug: no barrier between writing the tile and reading another wave's element.
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; } outp;
shared uint tile[128];
void main()
{
    uint i = gl_LocalInvocationIndex;
    tile[i] = 0u;
    barrier();
    tile[i] = i + 1u;             // BUG-STORE: a wave overwrites what another read
    uint v = tile[i ^ 64u];       // BUG-LOAD: reads another wave's element, no barrier between
    outp.data[i] = v == 0xffffffffu ? 7u : 1u;
}
