// Random gather: 4 Mi invocations each read one word of a 16 Mi-word (64 MiB) table at a hashed index.
// Twin: random_gather in tools/cuda/gen_suite.cu (the same hash).
#version 450
layout(set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1) buffer Out { uint dst[]; };
layout(local_size_x = 256) in;
uint hash32(uint x)
{
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
void main()
{
    uint i = gl_GlobalInvocationID.x;
    dst[i] = src[hash32(i) & ((16u << 20) - 1u)];
}
