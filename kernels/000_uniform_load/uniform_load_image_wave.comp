#version 450
// Article 000, wave version, in the article's own form (see uniform_load_image.hlsl):
// lightStartCounts is a utexture2D (rg32ui, one texel per tile, read at
// gl_WorkGroupID.xy), the output an rgba32f storage image written at the pixel.
// The light loop is uniform_load_wave.comp's: each lane loads a different light,
// then the lights are broadcast one lane at a time (subgroupShuffle, as glslang
// compiles HLSL's WaveReadLaneAt); lanes past the end of the list load nothing.
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

layout(set = 0, binding = 0) uniform samplerBuffer lightDatas;
layout(set = 0, binding = 1) uniform utexture2D lightStartCounts;
layout(set = 0, binding = 2, rgba32f) uniform writeonly image2D outputImage;

void main()
{
    const uint WAVE_LANES = gl_SubgroupSize;
    const uint lane = gl_SubgroupInvocationID;
    uvec2 lightStartCount = texelFetch(lightStartCounts, ivec2(gl_WorkGroupID.xy), 0).xy;

    vec4 lightAccumulator = vec4(0.0);
    uint chunks = (lightStartCount.y + WAVE_LANES - 1u) / WAVE_LANES;
    for (uint i = 0u; i < chunks; ++i) {
        uint item = lane + i * WAVE_LANES;
        vec4 lightData64 = vec4(0.0);
        if (item < lightStartCount.y)
            lightData64 = texelFetch(lightDatas, int(lightStartCount.x + item));

        uint loopIters = min(WAVE_LANES, lightStartCount.y - WAVE_LANES * i);
        for (uint i2 = 0u; i2 < loopIters; ++i2) {
            lightAccumulator += subgroupShuffle(lightData64, i2); // broadcast lane i2
        }
    }
    imageStore(outputImage, ivec2(gl_GlobalInvocationID.xy), lightAccumulator);
}
