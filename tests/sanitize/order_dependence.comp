#version 450
// Planted bug: each invocation appends its id at a slot taken by an atomic; the order of the
// output is the order in which waves and workgroups ran.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer Counter { uint n; } counter;
layout(set = 0, binding = 1) buffer Out { uint data[]; } outp;
void main()
{
    uint slot = atomicAdd(counter.n, 1u);
    outp.data[slot] = gl_GlobalInvocationID.x; // BUG: order-dependent output
}
