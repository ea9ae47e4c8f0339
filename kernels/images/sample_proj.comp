// textureProjLod, textureProjLodOffset and a projective shadow sample: the coordinates are divided by q, the
// component after the image's dimensions (a vec4 on a 2D image: w, and z is not read), before sampling, and a
// depth reference too (SPIR-V OpImageSampleProjExplicitLod and OpImageSampleProjDrefExplicitLod; Vulkan,
// "Projection Operation").  q is a power of two, so every division is exact.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D near;          // nearest, clamp to edge, 2 mips
layout(set = 0, binding = 1) uniform sampler2DShadow depth;   // d32_sfloat, less_or_equal, nearest
layout(set = 0, binding = 2) buffer Texels { vec4 texel[192]; float shadow[64]; } t;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    vec2 p = vec2(float(i % 12u), float(i / 12u));
    float q = float(1u << (i % 4u)) * 0.25;                    // 0.25, 0.5, 1, 2
    vec2 uv0 = (p + 0.5) / vec2(16.0, 8.0), uv1 = (p + 0.5) / vec2(8.0, 4.0);
    t.texel[i] = textureProjLod(near, vec3(uv0 * q, q), 0.0);
    t.texel[64u + i] = textureProjLod(near, vec4(uv1 * q, 7.0, q), 1.0);
    t.texel[128u + i] = textureProjLodOffset(near, vec3(uv0 * q, q), 0.0, ivec2(2, -1));
    vec2 d = (vec2(float(i % 8u), float(i / 8u)) + 0.5) / 8.0;
    t.shadow[i] = textureProjLod(depth, vec4(d * q, 0.5 * q, q), 0.0);
}
