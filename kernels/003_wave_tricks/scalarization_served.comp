#version 450
// Article 003's scalarization loop, counting in the break branch how many
// lanes each iteration serves.  The count must be that iteration's lanes
// (the lanes of the wave holding this key), at every wave size.  spirv-opt's
// block merging moves the break block past the loop's merge, where every lane
// has reconverged, and counts the whole wave: wavelab runs the kernel as
// written (docs/quirks.md, "The optimizer and wave semantics").
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer Keys { uint keys[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { uint served[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    uint key = keys[i];
    uint n = 0u;
    for (;;) {
        if (key == subgroupBroadcastFirst(key)) {
            n = subgroupBallotBitCount(subgroupBallot(true));
            break;
        }
    }
    served[i] = n;
}
