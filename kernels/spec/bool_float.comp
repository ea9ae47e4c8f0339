#version 450
// A bool, a float and a signed integer specialization constant.
layout(local_size_x = 16) in;
layout(constant_id = 0) const bool DOUBLE_IT = false;
layout(constant_id = 1) const float SCALE = 1.0;
layout(constant_id = 2) const int OFFSET = 0;
layout(set = 0, binding = 0) buffer Out { float v[]; };

void main()
{
    uint g = gl_GlobalInvocationID.x;
    v[g] = (DOUBLE_IT ? 2.0 : 1.0) * SCALE * float(g) + float(OFFSET);
}
