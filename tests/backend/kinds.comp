// Every binding kind in one kernel (tests/backend/cases/kinds.json).
#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 8) in;
layout(push_constant) uniform P { uint scale; uint bias; } p;
layout(set = 0, binding = 0) uniform U { uvec4 v; } u;
layout(set = 0, binding = 1) uniform samplerBuffer src;
layout(set = 1, binding = 0, rgba32ui) uniform writeonly uimageBuffer dst;
layout(set = 1, binding = 2) buffer Out { float o[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    imageStore(dst, int(i), uvec4(i * p.scale + p.bias, u.v[i % 4u], gl_SubgroupInvocationID, gl_WorkGroupID.x));
    o[i] = texelFetch(src, int(i)).x * 2.0 + float(p.bias);
}
