#version 450
// Matrices in buffers, both packings: each invocation reads one column of a
// column-major and of a row-major mat4 (a column of a row-major matrix is
// strided in memory), one element of a row-major mat3x4 through a dynamic
// index, and writes a whole row-major matrix back.  Expected values come from
// the layouts written out by tools/gen_kernel_cases.py.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0, std430) readonly buffer In {
    layout(column_major) mat4 cm;
    layout(row_major) mat4 rm;
    layout(row_major) mat3x4 rm34;   // 3 columns of 4 rows
};
layout(set = 0, binding = 1, std430) writeonly buffer Out {
    vec4 cols_cm[4];
    vec4 cols_rm[4];
    float elems[4];
    layout(row_major) mat4 copy_rm;  // written whole: rm + cm
};
layout(set = 0, binding = 2, std140) uniform U {
    layout(row_major) mat4 um;
};
layout(set = 0, binding = 3, std430) writeonly buffer Out2 { vec4 cols_um[4]; };
void main()
{
    uint i = gl_LocalInvocationIndex;
    cols_cm[i] = cm[i];
    cols_rm[i] = rm[i];
    elems[i] = rm34[i % 3u][i];
    cols_um[i] = um[i];
    if (i == 0u)
        copy_rm = rm + cm;
}
