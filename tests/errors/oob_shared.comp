#version 450
// shared array of 64; lane 10 indexes element 64 + 10 through a value read from memory
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint result[]; };
shared uint tile[64];
void main() {
    uint i = gl_LocalInvocationIndex;
    uint k = result[i];
    tile[i + k] = i;
    barrier();
    result[i] = tile[i];
}
