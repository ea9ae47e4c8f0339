// probe/ballot.comp — subgroup size as the hardware runs it, for `wavelab probe`: each invocation
// counts the invocations of its subgroup with a ballot and writes the count and gl_SubgroupSize.
// 128 invocations: a whole number of subgroups at every size a device can report (4..128).
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 2) buffer Out { uvec2 result[]; };

void main()
{
    uint n = subgroupBallotBitCount(subgroupBallot(true));
    result[gl_LocalInvocationIndex] = uvec2(n, gl_SubgroupSize);
}
