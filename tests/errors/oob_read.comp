#version 450
// reads past the end of a 64-element buffer from invocation 37
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) buffer Out { uint result[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint j = i == 37u ? 300u : i;
    result[i] = data[j];
}
