// probe/chase.comp — pointer chase for `wavelab probe` (cli/probe.c): one invocation follows
// next[] `loads` times from state.pos and stores where it stopped.  Every load's address is the
// previous load's value, so the loads cannot overlap: time per load is the latency of the level
// that holds the chain.  The host times loads = 0 and loads = N and divides the difference by N.
#version 450
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer Chain { uint next[]; };
layout(std430, set = 0, binding = 1) buffer State { uint pos; uint sink; };
layout(push_constant) uniform Push { uint loads; } pc;

void main()
{
    uint j = pos;
    for (uint i = 0u; i < pc.loads; i++)
        j = next[j];
    pos = j;
}
