// One storage-buffer kernel for every element type: T is a define
// (uint8_t ... double).  b[i] = a[i] + T(i).
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) readonly buffer In { T a[]; };
layout(set = 0, binding = 1) buffer Out { T b[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    b[i] = a[i] + T(i);
}
