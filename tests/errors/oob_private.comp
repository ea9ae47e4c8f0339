#version 450
// a per-invocation array of 8 indexed with a value from memory: invocation 3 uses 11
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer Out { uint result[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    uint local_table[8];
    for (uint k = 0u; k < 8u; k++)
        local_table[k] = result[k] * 3u + i;
    result[i] = local_table[result[8u + i]];
}
