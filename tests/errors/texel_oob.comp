#version 450
// a texel buffer of 16 texels read at texel 16 + 4 by invocation 4
layout(local_size_x = 16) in;
layout(set = 0, binding = 0, r32ui) uniform readonly uimageBuffer texels;
layout(set = 0, binding = 1) buffer Out { uint result[]; };
void main() {
    int i = int(gl_LocalInvocationIndex);
    int j = i == 4 ? 20 : i;
    result[i] = imageLoad(texels, j).x;
}
