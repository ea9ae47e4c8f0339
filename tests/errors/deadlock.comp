#version 450
#extension GL_KHR_shader_subgroup_basic : require
// only the first wave of the workgroup reaches the barrier
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint result[]; };
shared uint s[64];
void main() {
    uint i = gl_LocalInvocationIndex;
    s[i] = i;
    if (gl_SubgroupID == 0u) {
        barrier();
        result[i] = s[63u - i];
    }
}
