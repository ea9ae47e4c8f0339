#version 450
// Article 000, wave version: each lane loads a different light (one vector load
// for up to gl_SubgroupSize lights), then the lights are broadcast one lane at a
// time.  HLSL's WaveReadLaneAt(x, i2) becomes subgroupShuffle(x, i2): GLSL's
// subgroupBroadcast needs a compile-time constant lane before SPIR-V 1.5, and i2
// is only dynamically uniform.  (glslang compiles HLSL WaveReadLaneAt to the same
// OpGroupNonUniformShuffle.)  The cooperative load is indexed by
// gl_SubgroupInvocationID, so the result does not depend on the subgroup size.

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require

#ifndef GROUPS_X
#define GROUPS_X 4
#endif

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

#ifdef LIGHTS_STRUCTURED
layout(set = 0, binding = 0, std430) readonly buffer Lights { vec4 lightDatas[]; };
vec4 loadLight(uint i) { return lightDatas[i]; }
#else
layout(set = 0, binding = 0) uniform samplerBuffer lightDatas;
vec4 loadLight(uint i) { return texelFetch(lightDatas, int(i)); }
#endif
layout(set = 0, binding = 1, std430) readonly buffer StartCounts { uvec2 lightStartCounts[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Output { vec4 outputPixels[]; };

void main()
{
    const uint WAVE_LANES = gl_SubgroupSize;
    const uint lane = gl_SubgroupInvocationID;
    uvec2 gid = gl_WorkGroupID.xy;
    uvec2 tid = gl_GlobalInvocationID.xy;
    uvec2 lightStartCount = lightStartCounts[gid.y * GROUPS_X + gid.x];

    vec4 lightAccumulator = vec4(0.0);
    uint chunks = (lightStartCount.y + WAVE_LANES - 1u) / WAVE_LANES;
    for (uint i = 0u; i < chunks; ++i) {
        // One load per lane: up to WAVE_LANES different lights at once.
        uint item = lane + i * WAVE_LANES;
        vec4 lightData64 = vec4(0.0);
        if (item < lightStartCount.y)
            lightData64 = loadLight(lightStartCount.x + item);

        uint loopIters = min(WAVE_LANES, lightStartCount.y - WAVE_LANES * i);
        for (uint i2 = 0u; i2 < loopIters; ++i2) {
            lightAccumulator += subgroupShuffle(lightData64, i2); // broadcast lane i2
        }
    }
    outputPixels[tid.y * (8u * GROUPS_X) + tid.x] = lightAccumulator;
}
