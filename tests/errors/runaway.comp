#version 450
// never ends: the loop condition is false for every value the buffer holds
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint result[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    uint n = 0u;
    while (result[i] != 7u) {
        n += 1u;
        result[i] = n & 3u;
    }
}
