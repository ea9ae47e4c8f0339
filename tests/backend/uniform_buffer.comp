// A uniform buffer read by every invocation: o[i] = u.v[i / 4][i % 4] * 2 + 1.
#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform U { uvec4 v[4]; } u;
layout(set = 1, binding = 3) buffer Out { uint o[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    o[i] = u.v[i / 4u][i % 4u] * 2u + 1u;
}
