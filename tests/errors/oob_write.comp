#version 450
// workgroup 1, invocation 5 of it, writes element 200 of a 128-element buffer
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint result[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint j = i == 69u ? 200u : i;
    result[j] = i;
}
