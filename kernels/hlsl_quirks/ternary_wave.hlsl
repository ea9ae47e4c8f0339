// A deliberate HLSL quirk case: a wave operation inside one arm of `?:`.
// In HLSL 2021 (and with DXC) `c ? a : b` short-circuits: the wave operation in
// the true arm runs only on the lanes where c holds, exactly as if it were
// written inside `if (c)`.  glslang 12 evaluates both arms on every lane and
// selects afterwards (older HLSL semantics), so the wave operation also sees the
// lanes where c is false.  wavelab warns about this (docs/quirks.md); the case's
// expectation follows HLSL 2021:
//   Flags[i]  = odd ? WaveActiveAllTrue(odd) : 2     -> 1 on odd lanes, 2 on even
//                (both arms evaluated: 0 on odd lanes of a wave with an even lane)
//   Counts[i] = odd ? WaveActiveCountBits(!odd) : 7  -> 0 on odd lanes, 7 on even
//                (both arms evaluated: the number of even lanes of the wave)
// Every 4 consecutive values hold an even one, so under the both-arms reading
// every odd lane gets a different result at every wave size from 4 to 64, while
// the short-circuit result does not depend on the wave size.
// Do not write wave operations under `?:` in kernels meant for glslang: use if/else.

[[vk::binding(0, 0)]] StructuredBuffer<uint> Values;
[[vk::binding(1, 0)]] RWStructuredBuffer<uint> Flags;
[[vk::binding(2, 0)]] RWStructuredBuffer<uint> Counts;

[numthreads(64, 1, 1)]
void CSMain(uint3 threadID : SV_DispatchThreadID)
{
    bool odd = (Values[threadID.x] & 1) != 0;
    Flags[threadID.x] = odd ? (WaveActiveAllTrue(odd) ? 1u : 0u) : 2u;
    Counts[threadID.x] = odd ? WaveActiveCountBits(!odd) : 7u;
}
