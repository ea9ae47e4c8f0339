#version 450
// The smallest program tools/reconverge.py found that wavelab's default compile
// path gets wrong (issue 8, item 1): a wave operation in the only break branch
// of a loop.  Each lane leaves the loop in iteration trips[lane]; under SPIR-V
// structured control flow (and SPV_KHR_maximal_reconvergence) the break branch
// of iteration k runs with exactly the lanes leaving in iteration k, so every
// lane there has the same trip count and the spread is 0.
//
// glslang's size optimizer (spirv-opt's merge-blocks pass, SPIRV-Tools 2023.1)
// melds the break block into the loop's merge block, where the lanes of every
// iteration have reconverged; aggressive dead-code elimination then removes
// the now empty loop.  The subgroup min and max then span the trip counts of
// the whole wave.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer Trips { uint trips[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Spread { uint spread[]; };

void main()
{
    uint lane = gl_GlobalInvocationID.x;
    uint t = trips[lane];
    for (uint k = 0u;; k++) {
        if (k >= t) {
            spread[lane] = subgroupMax(t) - subgroupMin(t);
            break;
        }
    }
}
