// Push constants: o[i] = i * p.scale + p.bias.
#version 450
layout(local_size_x = 8) in;
layout(push_constant) uniform P { uint scale; uint bias; } p;
layout(set = 0, binding = 0) buffer Out { uint o[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    o[i] = i * p.scale + p.bias;
}
