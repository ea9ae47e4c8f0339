#version 450
// SPIR-V 1.5 and 1.6 as glslangValidator writes them (build.sh): every global in
// the entry point's interface, LocalSizeId (1.6), OpSelect on a struct (1.4+),
// shared memory across a barrier and an atomic.
layout(local_size_x = 64) in;

struct Pair {
    uint a;
    float b;
};

layout(std430, set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint o[]; };
layout(std430, set = 0, binding = 2) buffer Sum { uint total; };

shared uint tile[64];

void main()
{
    uint l = gl_LocalInvocationID.x;
    uint i = gl_GlobalInvocationID.x;
    uint x = v[i];
    tile[l] = x;
    barrier();
    Pair p = Pair(x, 1.0);
    Pair q = Pair(tile[63u - l], 2.0);
    Pair r = (x & 1u) != 0u ? p : q;
    o[i] = r.a * uint(r.b);
    atomicAdd(total, x);
}
