#version 450
// The sampling suite (kernels/images/sampling_*.json): invocation i samples the
// combined image sampler at coordinate coords[i] = (s, t, lod, unused) and writes
// the filtered texel to results[i].  The sampler state (filters, mipmap mode,
// address modes, border colour, unnormalized coordinates) is the case's; the
// expectations come from the Vulkan specification's "Texel Filtering" and
// "Texel Coordinate Systems" formulas (tools/gen_kernel_cases.py).
//  LOD0: sample at level of detail 0 whatever coords[i].z holds -- unnormalized
//        coordinates allow no other (VUID-VkSamplerCreateInfo-unnormalizedCoordinates).

layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1, std430) readonly buffer Coords { vec4 coords[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Results { vec4 results[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    vec4 c = coords[i];
#ifdef LOD0
    results[i] = textureLod(tex, c.xy, 0.0);
#else
    results[i] = textureLod(tex, c.xy, c.z);
#endif
}
