#version 450
// The workgroup size comes from specialization constant 0 (default 1);
// local_size_id.json sets it to 64.
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; };

void main()
{
    uint g = gl_GlobalInvocationID.x;
    v[2 * g] = gl_LocalInvocationIndex;
    v[2 * g + 1] = gl_WorkGroupSize.x;
}
