#version 450
// Article 003, trick 1 (wave): see all_true_branch.hlsl.  f(x) = (x mod 1024)^2;
// the fast path is only valid for x < 1024.
#extension GL_KHR_shader_subgroup_vote : require

layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer In { uint inputData[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { uint outputData[]; };

uint optimalWay(uint x) { return x * x; }   // valid for x < 1024

uint nonOptimalWay(uint x)                   // valid for every x
{
    uint n = x & 1023u;
    uint acc = 0u;
    for (uint k = 0u; k < n; ++k)
        acc += 2u * k + 1u;
    return acc;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    uint x = inputData[i];
    bool canBeOptimized = x < 1024u;
    bool takeFast = subgroupAll(canBeOptimized);   // WaveActiveAllTrue
    uint r;
    if (takeFast)
        r = optimalWay(x);
    else
        r = nonOptimalWay(x);
    outputData[i] = r;
}
