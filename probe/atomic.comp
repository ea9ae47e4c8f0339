// probe/atomic.comp — atomic throughput for `wavelab probe` (cli/probe_sweeps.c): every invocation does one
// operation `rounds` times, in one of six shapes counted per 32 consecutive invocations (by invocation index,
// whatever the subgroup size):
//   mode 0  one line: all invocations of the dispatch add to the 32 words of line 0 (invocation i to word i % 32);
//   mode 1  one word: all invocations add to word 0;
//   mode 2  spread: the 32 invocations of unit u add to the 32 words of line u % lines (lines = push word 2, a
//           power of two: as many operations as mode 0 over many lines);
//   mode 3  shared memory, distinct words: invocation i adds to shared word i % 32 (one bank each);
//   mode 4  shared memory, one word: every invocation of the workgroup adds to shared word 0;
//   mode 5  shared memory, no atomic: invocation i adds to shared word i % 32 with a load and a store;
//   mode 6  one line, pairs: as mode 0, but invocations 2k and 2k + 1 add to the same word (16 words).
// Mode 0 against mode 2 shows whether atomics on one line are serialized (where the line's slice, not the request
// rate, bounds them), and mode 2 over 1, 2, 4, ... lines how many consecutive lines share what serializes them;
// mode 6 against mode 0 whether two lanes on one word take two passes; mode 1 whether a uniform address is
// combined (a compiler can add the whole subgroup's values in one operation); modes 3 to 5 the same
// for shared memory, and what an atomic costs beside a plain read-modify-write.  Global results are not read back
// (the adds cannot be dropped: their memory is a storage buffer); shared ones are kept by a store no run makes.
// Push: rounds, mode, lines.
#version 450
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) buffer Dst { uint words[]; };
layout(push_constant) uniform Push { uint rounds; uint mode; uint lines; } pc;
shared uint lds[256];

void main()
{
    uint unit = gl_GlobalInvocationID.x >> 5, lane = gl_GlobalInvocationID.x & 31u, me = gl_LocalInvocationIndex;
    if (pc.mode < 3u || pc.mode == 6u) {
        uint line = pc.mode == 2u ? unit & (pc.lines - 1u) : 0u;
        uint word = line * 32u + (pc.mode == 1u ? 0u : pc.mode == 6u ? lane >> 1 : lane);
        for (uint r = 0u; r < pc.rounds; r++)
            atomicAdd(words[word], 1u);
        return;
    }
    lds[me] = 0u;
    barrier();
    uint w = pc.mode == 4u ? 0u : (me & ~31u) + lane;
    if (pc.mode == 5u) {
        for (uint r = 0u; r < pc.rounds; r++)
            lds[w] += 1u;
    } else {
        for (uint r = 0u; r < pc.rounds; r++)
            atomicAdd(lds[w], 1u);
    }
    barrier();
    if (lds[me] == 0xFFFFFFFFu) // never: rounds x 256 adds do not reach it
        words[me] = lds[me];
}
