#version 450
// Article 000, naive, in the article's own form (see uniform_load_image.hlsl): the
// tile's (start, count) is texel gl_WorkGroupID.xy of a utexture2D read without a sampler
// (rg32ui), the result is written to an rgba32f storage image at the pixel.
// Bindings: 0 = lights (uniform texel buffer rgba32f), 1 = lightStartCounts
// (sampled image rg32ui, one texel per tile), 2 = output (storage image rgba32f).
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

layout(set = 0, binding = 0) uniform samplerBuffer lightDatas;
layout(set = 0, binding = 1) uniform utexture2D lightStartCounts;
layout(set = 0, binding = 2, rgba32f) uniform writeonly image2D outputImage;

void main()
{
    uvec2 lightStartCount = texelFetch(lightStartCounts, ivec2(gl_WorkGroupID.xy), 0).xy;

    vec4 lightAccumulator = vec4(0.0);
    for (uint i = 0u; i < lightStartCount.y; ++i) {
        lightAccumulator += texelFetch(lightDatas, int(lightStartCount.x + i)); // same address in every lane
    }
    imageStore(outputImage, ivec2(gl_GlobalInvocationID.xy), lightAccumulator);
}
