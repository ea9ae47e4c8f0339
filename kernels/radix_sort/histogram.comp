#version 450
// Radix sort, step 1 of each digit: how many keys of each tile have each 4-bit digit.
// hist[digit * tiles + tile] = count (digit-major, so an exclusive scan of hist gives every
// tile's first output index for every digit, in a stable order).
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint shift; } pc;
layout(set = 0, binding = 0) readonly buffer Keys { uint keys[]; };
layout(set = 0, binding = 1) writeonly buffer Hist { uint hist[]; };

shared uint counts[16];

void main()
{
    uint lid = gl_LocalInvocationID.x;
    if (lid < 16)
        counts[lid] = 0;
    barrier();
    uint digit = (keys[gl_GlobalInvocationID.x] >> pc.shift) & 15u;
    atomicAdd(counts[digit], 1u);
    barrier();
    if (lid < 16)
        hist[lid * gl_NumWorkGroups.x + gl_WorkGroupID.x] = counts[lid];
}
