#version 450
// Radix sort, step 3: every key goes to its digit's first index for its tile (the scanned
// counts) plus the number of keys before it in the tile with the same digit, so equal
// digits keep their order (a stable pass, as LSD radix sort needs).
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint shift; } pc;
layout(set = 0, binding = 0) readonly buffer Keys { uint keys[]; };
layout(set = 0, binding = 1) readonly buffer Offsets { uint offsets[]; };
layout(set = 0, binding = 2) writeonly buffer Out { uint sorted[]; };

shared uint digits[64];

void main()
{
    uint lid = gl_LocalInvocationID.x;
    uint key = keys[gl_GlobalInvocationID.x];
    uint digit = (key >> pc.shift) & 15u;
    digits[lid] = digit;
    barrier();
    uint rank = 0;
    for (uint j = 0; j < lid; j++)
        rank += digits[j] == digit ? 1u : 0u;
    sorted[offsets[digit * gl_NumWorkGroups.x + gl_WorkGroupID.x] + rank] = key;
}
