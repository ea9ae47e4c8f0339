#version 450
// GLSL.std.450 Determinant and MatrixInverse on mat4, mat3 and mat2: lane i reads matrix i and writes, from
// element 40 * i: determinant(M), determinant(mat3(M)), determinant(mat2(M)), 0, then inverse(M), inverse(mat3(M))
// and inverse(mat2(M)), each column after column.  The matrices have small integer elements and power-of-two
// determinants, so every cofactor is an exact integer and every inverse element an exact binary fraction:
// any order of the arithmetic gives the same values, up to the sign of a zero (gen_determinant_inverse.py
// computes them with fractions).
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) readonly buffer In { mat4 m[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float o[]; };

void main()
{
    uint i = gl_LocalInvocationID.x, b = 40u * i;
    mat4 M = m[i];
    mat3 M3 = mat3(M);
    mat2 M2 = mat2(M);
    o[b] = determinant(M);
    o[b + 1u] = determinant(M3);
    o[b + 2u] = determinant(M2);
    mat4 I4 = inverse(M);
    mat3 I3 = inverse(M3);
    mat2 I2 = inverse(M2);
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            o[b + 4u + uint(4 * c + r)] = I4[c][r];
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            o[b + 20u + uint(3 * c + r)] = I3[c][r];
    for (int c = 0; c < 2; c++)
        for (int r = 0; r < 2; r++)
            o[b + 29u + uint(2 * c + r)] = I2[c][r];
}
