// probe/l2rate.comp — the L2's read throughput for `wavelab probe` (cli/probe_sweeps.c): every
// invocation makes 8 independent 4-byte loads per round (several in flight), from lines scattered
// over the buffer (an odd multiplier modulo a power of two: a permutation, no streaming), in one of
// three shapes counted per 32 consecutive invocations (by invocation index, whatever the subgroup
// size), 4 sectors of 32 bytes per load:
//   mode 0  scattered sectors: 4 lines, 8 consecutive invocations read one sector of each;
//   mode 1  whole lines: 1 line, its 4 sectors;
//   mode 2  adjacent: as mode 0, but 4 consecutive loads read sectors 0, 1, 2, 3 of the same 4 lines
//           (what an L1 can merge into the request already in flight).
// The buffer fits the L2 and not the L1, so mode 0's rate is the L2's request rate where requests
// bound it, mode 1's its byte rate.  Push: rounds (8 loads each), mode, line mask, invocations / 32.
#version 450
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint words[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Sink { uint sink[]; };
layout(push_constant) uniform Push { uint rounds; uint mode; uint line_mask; uint units; } pc;

// The word that load j (0..7) of a round reads.  The addresses are those of
//   step = mode 2 ? it / 4 : it (it = round * 8 + j), idx = (unit + step * units) * lines + lane / per,
//   line = ((idx ^ step * 0x27D4EB2F) * 0x9E3779B1) & line_mask (the xor mixes the step in: (unit + step * units)
//     * lines can be a multiple of the line count, 16 MiB and 4096 x 256 invocations, which would read the same
//     lines every round, from the L1; for a fixed step, xor then an odd multiplier is still a permutation),
//   sector: mode 0 idx & 3 (= lane / 8: units * 4 is a multiple of 4), mode 1 0, mode 2 it & 3 (= j & 3),
// with everything but the step's share worked out once per invocation and once per round, so that a load costs
// a few instructions: with the step's products done per load the kernel issued about 18 instructions per load,
// and on the H100 that, not the L2, bounded the whole-line mode (docs/probe.md, "The L2's rates on the H100").
uint per_load_step(uint j) { return pc.mode == 2u ? j >> 2 : j; }

// Load j of the round whose first step's share is rb (index) and k0 (xor key); j is a literal at every call.
uint load(uint rb, uint k0, uint stride, uint within, uint off01, uint j)
{
    uint d = per_load_step(j);
    uint line = (((rb + d * stride) ^ (k0 + d * 0x27D4EB2Fu)) * 0x9E3779B1u) & pc.line_mask;
    return words[line * 32u + (pc.mode == 2u ? (j & 3u) * 8u + within : off01)];
}

void main()
{
    uint unit = gl_GlobalInvocationID.x >> 5, lane = gl_GlobalInvocationID.x & 31u;
    uint per = pc.mode == 1u ? 32u : 8u;   // invocations per line
    uint lines = 32u / per;                // lines per 32 invocations
    uint li = lane / per, within = lane % per;
    uint base = unit * lines + li, stride = pc.units * lines;
    uint off01 = (pc.mode == 1u ? 0u : li * 8u) + within;
    uint steps_per_round = pc.mode == 2u ? 2u : 8u;
    uint acc = 0u;
    for (uint r = 0u; r < pc.rounds; r++) {
        uint s0 = r * steps_per_round;
        uint rb = base + s0 * stride, k0 = s0 * 0x27D4EB2Fu;
        uint a0 = load(rb, k0, stride, within, off01, 0u), a1 = load(rb, k0, stride, within, off01, 1u);
        uint a2 = load(rb, k0, stride, within, off01, 2u), a3 = load(rb, k0, stride, within, off01, 3u);
        uint a4 = load(rb, k0, stride, within, off01, 4u), a5 = load(rb, k0, stride, within, off01, 5u);
        uint a6 = load(rb, k0, stride, within, off01, 6u), a7 = load(rb, k0, stride, within, off01, 7u);
        acc += (a0 ^ a1) + (a2 ^ a3) + (a4 ^ a5) + (a6 ^ a7);
    }
    if (acc == 0x12345678u)   // keeps the loads; the buffer holds zeros, so it never stores
        sink[0] = acc;
}
