// A descriptor array indexed by a specialization constant and by a
// specialization-constant expression of it (WHICH ^ 1): constants once the
// case's "specialization" is applied.
#version 450
layout(local_size_x = 4) in;
layout(constant_id = 0) const uint WHICH = 0u;
layout(set = 0, binding = 0) readonly buffer In { uint v[4]; } src[2];
layout(set = 0, binding = 1) buffer Out { uint o[4]; };
void main()
{
    uint i = gl_LocalInvocationIndex;
    o[i] = src[WHICH].v[i] + src[WHICH ^ 1u].v[i] * 10u;
}
