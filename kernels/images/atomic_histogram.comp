// A histogram in an r32ui storage image: imageAtomicAdd on bin (v % 16, v / 16 % 2).
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Values { uint v[]; } values;
layout(set = 0, binding = 1, r32ui) uniform uimage2D bins;

void main()
{
    uint v = values.v[gl_GlobalInvocationID.x];
    imageAtomicAdd(bins, ivec2(int(v % 16u), int(v / 16u % 2u)), 1u);
}
