#version 450
// A private array whose length is a specialization-constant expression
// (glslang writes it as OpSpecConstantOp UDiv).
layout(local_size_x = 4) in;
layout(constant_id = 0) const uint BLOCK = 8;
layout(constant_id = 1) const uint SUB = 4;
layout(set = 0, binding = 0) buffer Out { float v[]; };

void main()
{
    float partial[BLOCK / SUB];
    uint g = gl_GlobalInvocationID.x;
    for (uint i = 0; i < BLOCK / SUB; i++)
        partial[i] = float(i) * 1.5 + float(g);
    float s = 0.0;
    for (uint i = 0; i < uint(partial.length()); i++)
        s += partial[(i + g) % (BLOCK / SUB)];
    v[2 * g] = float(partial.length());
    v[2 * g + 1] = s;
}
