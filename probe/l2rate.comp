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

uint word_of(uint unit, uint lane, uint it)
{
    uint per = pc.mode == 1u ? 32u : 8u;   // invocations per line
    uint lines = 32u / per;                // lines per 32 invocations
    uint step = pc.mode == 2u ? it >> 2 : it;
    uint idx = (unit + step * pc.units) * lines + lane / per;
    // The step enters through the xor too: (unit + step * units) * lines can be a multiple of the line count
    // (16 MiB and 4096 x 256 invocations: 32768 x 4 = 131072 lines), which would read the same lines every
    // round, from the L1.  For a fixed step, xor then an odd multiplier is still a permutation.
    uint line = ((idx ^ (step * 0x27D4EB2Fu)) * 0x9E3779B1u) & pc.line_mask;
    uint first = pc.mode == 2u ? (it & 3u) : pc.mode == 1u ? 0u : (idx & 3u);   // first sector read
    return line * 32u + first * 8u + lane % per;
}

void main()
{
    uint unit = gl_GlobalInvocationID.x >> 5, lane = gl_GlobalInvocationID.x & 31u;
    uint acc = 0u;
    for (uint r = 0u; r < pc.rounds; r++) {
        uint it = r * 8u;
        uint a0 = words[word_of(unit, lane, it)], a1 = words[word_of(unit, lane, it + 1u)];
        uint a2 = words[word_of(unit, lane, it + 2u)], a3 = words[word_of(unit, lane, it + 3u)];
        uint a4 = words[word_of(unit, lane, it + 4u)], a5 = words[word_of(unit, lane, it + 5u)];
        uint a6 = words[word_of(unit, lane, it + 6u)], a7 = words[word_of(unit, lane, it + 7u)];
        acc += (a0 ^ a1) + (a2 ^ a3) + (a4 ^ a5) + (a6 ^ a7);
    }
    if (acc == 0x12345678u)   // keeps the loads; the buffer holds zeros, so it never stores
        sink[0] = acc;
}
