// Subgroup size and a subgroup sum: o[i] = gl_SubgroupSize * 1000 + subgroupAdd(lane id).
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer Out { uint o[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    o[i] = gl_SubgroupSize * 1000u + subgroupAdd(gl_SubgroupInvocationID);
}
