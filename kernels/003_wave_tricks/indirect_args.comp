#version 450
// Article 003, trick 7: see indirect_args.hlsl.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

#define TARGET_NUM_THREADS_LOG2 8u

layout(local_size_x = 128) in;
layout(set = 0, binding = 0, std430) readonly buffer Items { uint numberOfItems[]; };
layout(set = 0, binding = 1, std430) buffer Count { uint someCount; };
layout(set = 0, binding = 2, std430) buffer Args { uvec3 threadGroupCount; };

void main()
{
    uint n = numberOfItems[gl_GlobalInvocationID.x];
    uint totalItems = subgroupAdd(n);                 // WaveActiveSum
    if (subgroupElect()) {                            // WaveIsFirstLane
        uint baseIndex = atomicAdd(someCount, totalItems);
        if (baseIndex == 0u) {
            atomicAdd(threadGroupCount.x, 1u);
            atomicAdd(threadGroupCount.y, 1u);
            atomicAdd(threadGroupCount.z, 1u);
        }
        uint minGroupRequired = baseIndex >> TARGET_NUM_THREADS_LOG2;
        uint maxGroupRequired = (baseIndex + totalItems) >> TARGET_NUM_THREADS_LOG2;
        if (maxGroupRequired > minGroupRequired)
            atomicAdd(threadGroupCount.x, maxGroupRequired - minGroupRequired);
    }
}
