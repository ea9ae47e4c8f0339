#version 450
// Article 002, fp16: 16x16 radiance tile in shared memory, 9x9 weighted mean and
// variance per pixel (see neighborhood.hlsl for the full description).
// Arithmetic in float16_t (GL_EXT_shader_explicit_arithmetic_types_float16); each
// output packs 4 halves per pixel into a uvec2 with packFloat2x16 (no 16-bit
// storage needed: the case reads the bytes as f16).
// INTERLEAVED: one shared uvec2 array instead of two uint arrays.
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#ifndef WIDTH
#define WIDTH 24
#endif
#ifndef HEIGHT
#define HEIGHT 16
#endif
#define RADIUS 4

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, std430) readonly buffer In { uvec2 radianceIn[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Moments { uvec2 moments[]; };     // halves: mean.rgb, weight
layout(set = 0, binding = 2, std430) writeonly buffer Variance { uvec2 varianceOut[]; }; // halves: variance.rgb, 0

#ifdef INTERLEAVED
shared uvec2 g_shared[16][16];
void storeLds(ivec2 idx, uvec2 v) { g_shared[idx.y][idx.x] = v; }
uvec2 loadLds(ivec2 idx) { return g_shared[idx.y][idx.x]; }
#else
shared uint g_shared_0[16][16];
shared uint g_shared_1[16][16];
void storeLds(ivec2 idx, uvec2 v) { g_shared_0[idx.y][idx.x] = v.x; g_shared_1[idx.y][idx.x] = v.y; }
uvec2 loadLds(ivec2 idx) { return uvec2(g_shared_0[idx.y][idx.x], g_shared_1[idx.y][idx.x]); }
#endif

const float16_t kWeights[5] = float16_t[5](1.0hf, 0.875hf, 0.625hf, 0.375hf, 0.125hf);
float16_t kernelWeight(int i) { return kWeights[abs(i)]; }

f16vec3 loadRadiance(ivec2 idx)
{
    uvec2 packed = loadLds(idx);
    return f16vec3(unpackFloat2x16(packed.x), unpackFloat2x16(packed.y).x);   // bit casts, no conversion
}

void main()
{
    ivec2 origin = ivec2(gl_WorkGroupID.xy) * 8 - RADIUS;
    for (uint k = 0u; k < 4u; ++k) {
        uint idx = gl_LocalInvocationIndex + 64u * k;
        ivec2 t = ivec2(idx % 16u, idx / 16u);
        ivec2 p = clamp(origin + t, ivec2(0), ivec2(WIDTH - 1, HEIGHT - 1));
        storeLds(t, radianceIn[p.y * WIDTH + p.x]);
    }
    barrier();

    ivec2 center = ivec2(gl_LocalInvocationID.xy) + RADIUS;
    f16vec3 mean = f16vec3(0.0hf);
    f16vec3 variance = f16vec3(0.0hf);
    float16_t accumulatedWeight = 0.0hf;
    for (int j = -RADIUS; j <= RADIUS; ++j) {
        for (int i = -RADIUS; i <= RADIUS; ++i) {
            f16vec3 radiance = loadRadiance(center + ivec2(i, j));
            float16_t weight = kernelWeight(i) * kernelWeight(j);
            accumulatedWeight += weight;
            mean += radiance * weight;
            variance += radiance * radiance * weight;
        }
    }
    mean /= accumulatedWeight;
    variance /= accumulatedWeight;
    variance = abs(variance - mean * mean);

    uvec2 pixel = gl_GlobalInvocationID.xy;
    uint pix = pixel.y * uint(WIDTH) + pixel.x;
    moments[pix]     = uvec2(packFloat2x16(mean.xy), packFloat2x16(f16vec2(mean.z, accumulatedWeight)));
    varianceOut[pix] = uvec2(packFloat2x16(variance.xy), packFloat2x16(f16vec2(variance.z, 0.0hf)));
}
