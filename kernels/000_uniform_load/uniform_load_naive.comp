#version 450
// Article 000, naive: every lane of the 8x8 tile loads every light of the tile's
// list itself (all lanes load from the same address).
// Bindings as in uniform_load.hlsl: 0 = lights (uniform texel buffer rgba32f, or a
// read-only storage buffer with LIGHTS_STRUCTURED), 1 = per-tile (start, count),
// 2 = output, one vec4 per pixel, row-major.

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
    uvec2 gid = gl_WorkGroupID.xy;
    uvec2 tid = gl_GlobalInvocationID.xy;
    uvec2 lightStartCount = lightStartCounts[gid.y * GROUPS_X + gid.x];

    vec4 lightAccumulator = vec4(0.0);
    for (uint i = 0u; i < lightStartCount.y; ++i) {
        lightAccumulator += loadLight(lightStartCount.x + i); // same address in every lane
    }
    outputPixels[tid.y * (8u * GROUPS_X) + tid.x] = lightAccumulator;
}
