#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Out { uint result[]; };
void main() {
    uint a = 1u;
    uint b = a +* 2u;
    result[0] = b;
}
