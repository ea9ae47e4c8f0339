#version 450
// A workgroup of 1024 invocations with a subgroup operation: on a device of one subgroup size (lavapipe's 8)
// check runs it at that size without requiring it, which would cap the workgroup at 32 subgroups.
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 1024) in;
layout(set = 0, binding = 0) buffer Sums { uint sums[]; };
layout(set = 0, binding = 1) buffer Triples { uint triples[]; };
void main()
{
    uint i = gl_LocalInvocationIndex;
    sums[i] = subgroupAdd(i);     // depends on the wave size: compared with the device's, not expected
    triples[i] = 3u * i;
}
