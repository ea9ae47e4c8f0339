// probe/lds.comp — shared-memory bank sweep for `wavelab probe`: one subgroup (LOCAL = the
// subgroup size, a define) reads lds[lane * stride] `loads` times, each address depending on the
// last value read (all zeros), so the reads are serial and the time per read is the latency of
// one shared-memory instruction, which grows with the passes a bank conflict needs.
#version 450
layout(local_size_x = LOCAL) in;
layout(std430, set = 0, binding = 1) buffer State { uint pos; uint sink; };
layout(push_constant) uniform Push { uint loads; uint stride; } pc;

#define WORDS 4096u
shared uint lds[WORDS];

void main()
{
    uint lane = gl_LocalInvocationID.x;
    for (uint i = lane; i < WORDS; i += uint(LOCAL))
        lds[i] = 0u;
    barrier();
    uint idx = (lane * pc.stride) % WORDS;
    uint acc = 0u;
    for (uint i = 0u; i < pc.loads; i++) {
        uint v = lds[idx];
        idx = (idx + v) % WORDS;
        acc += v;
    }
    if (acc == 0x9e3779b9u) // never true: keeps the loads alive
        sink = idx;
}
