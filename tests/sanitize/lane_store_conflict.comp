#version 450
// Planted bug: every lane of the one wave stores its own index to the same shared word.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; } outp;
shared uint tile[1];
void main()
{
    uint i = gl_LocalInvocationIndex;
    tile[0] = i;                  // BUG: four lanes, four values, one address
    barrier();
    outp.data[i] = tile[0];
}
