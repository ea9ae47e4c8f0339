// A clustered subgroup reduction (lavapipe does not support clustered operations).
#version 450
#extension GL_KHR_shader_subgroup_clustered : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer Out { uint o[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    o[i] = subgroupClusteredAdd(i, 4u);
}
