#version 450
// Article 003, trick 6 (wave): see multi_wave_groups.hlsl.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require

#ifndef NUM_GROUPS
#define NUM_GROUPS 2u
#endif
#ifndef NUM_INPUTS
#define NUM_INPUTS 20u
#endif
#define CACHE_SIZE 128u

layout(local_size_x = 128) in;

struct InputDesc { uint start; uint count; uint scale; uint unused; };
layout(set = 0, binding = 0, std430) readonly buffer Src { uint cacheSource[]; };
layout(set = 0, binding = 1, std430) readonly buffer Inputs { InputDesc inputData[]; };
layout(set = 0, binding = 2, std430) buffer Total { uint total; };
layout(set = 0, binding = 3, std430) buffer PerInput { uint perInput[]; };

shared uint groupCache[CACHE_SIZE];

uint doWorkForLane(InputDesc desc)
{
    uint acc = 0u;
    for (uint j = gl_SubgroupInvocationID; j < desc.count; j += gl_SubgroupSize)
        acc += groupCache[(desc.start + j) % CACHE_SIZE] * desc.scale;
    return acc;
}

void processInput(uint inputIndex)
{
    InputDesc desc = inputData[inputIndex];
    // WaveReadLaneFirst on a struct: member by member
    desc.start = subgroupBroadcastFirst(desc.start);
    desc.count = subgroupBroadcastFirst(desc.count);
    desc.scale = subgroupBroadcastFirst(desc.scale);
    uint result = doWorkForLane(desc);
    uint totalResult = subgroupAdd(result);                 // WaveActiveSum
    if (subgroupElect()) {                                   // WaveIsFirstLane
        atomicAdd(total, totalResult);
        perInput[inputIndex] = totalResult;
    }
}

void main()
{
    groupCache[gl_LocalInvocationIndex] = cacheSource[gl_LocalInvocationIndex] * 3u + 1u;
    barrier();   // GroupMemoryBarrierWithGroupSync

    uint waveCount = NUM_GROUPS * 128u / gl_SubgroupSize;
    for (uint inputIndex = gl_GlobalInvocationID.x / gl_SubgroupSize; inputIndex < NUM_INPUTS; inputIndex += waveCount)
        processInput(inputIndex);
}
