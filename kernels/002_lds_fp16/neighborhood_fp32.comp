#version 450
// Article 002, fp32: 16x16 radiance tile in shared memory, 9x9 weighted mean and
// variance per pixel (see neighborhood.hlsl for the full description).
// Arithmetic in float; output a vec4 per pixel in each of two buffers.
// INTERLEAVED: one shared uvec2 array instead of two uint arrays.


#ifndef WIDTH
#define WIDTH 24
#endif
#ifndef HEIGHT
#define HEIGHT 16
#endif
#define RADIUS 4

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, std430) readonly buffer In { uvec2 radianceIn[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Moments { vec4 moments[]; };     // mean.rgb, weight
layout(set = 0, binding = 2, std430) writeonly buffer Variance { vec4 varianceOut[]; }; // variance.rgb, 0

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

const float kWeights[5] = float[5](1.0, 0.875, 0.625, 0.375, 0.125);
float kernelWeight(int i) { return kWeights[abs(i)]; }

vec3 loadRadiance(ivec2 idx)
{
    uvec2 packed = loadLds(idx);
    return vec3(unpackHalf2x16(packed.x), unpackHalf2x16(packed.y).x);
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
    vec3 mean = vec3(0.0);
    vec3 variance = vec3(0.0);
    float accumulatedWeight = 0.0;
    for (int j = -RADIUS; j <= RADIUS; ++j) {
        for (int i = -RADIUS; i <= RADIUS; ++i) {
            vec3 radiance = loadRadiance(center + ivec2(i, j));
            float weight = kernelWeight(i) * kernelWeight(j);
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
    moments[pix]     = vec4(mean, accumulatedWeight);
    varianceOut[pix] = vec4(variance, 0.0);
}
