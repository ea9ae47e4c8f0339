#version 450
#extension GL_KHR_shader_subgroup_shuffle : require
// Planted bug: even lanes shuffle from the odd lane above them, which is not active in the branch.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; } outp;
void main()
{
    uint i = gl_LocalInvocationIndex;
    uint v = i;
    if ((i & 1u) == 0u)
        v = subgroupShuffle(i * 10u, gl_SubgroupInvocationID + 1u); // BUG: lane + 1 is inactive here
    outp.data[i] = v;
}
