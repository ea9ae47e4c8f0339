// HLSL 2021 short-circuit `&&` and `||` (DXC's default): the right operand
// runs only on the lanes the left one does not decide, so a wave operation
// there sees only those lanes, and a guard on the left keeps a read on the
// right in bounds.  glslang 12 parses HLSL with the older rule (both operands
// on every lane); wavelab rewrites the syntax tree to HLSL 2021's
// (isa/glslang_shim.cpp).  Expected values (tools/gen_kernel_cases.py):
//   AndOut[i] = odd && WaveActiveAllTrue(odd)   -> 1 on odd lanes, 0 on even
//                (both operands on every lane: 0 everywhere, as every 4 lanes hold an even value)
//   OrOut[i]  = odd || WaveActiveAnyTrue(odd)   -> 1 on odd lanes, 0 on even
//                (both operands on every lane: 1 everywhere, as every 4 lanes hold an odd value)
//   Guarded[i] = i < Small.length && Small[i] > 50: reads Small only in bounds
//                (both operands on every lane: an out-of-bounds read)

[[vk::binding(0, 0)]] StructuredBuffer<uint> Values;
[[vk::binding(1, 0)]] StructuredBuffer<uint> Small;
[[vk::binding(2, 0)]] RWStructuredBuffer<uint> AndOut;
[[vk::binding(3, 0)]] RWStructuredBuffer<uint> OrOut;
[[vk::binding(4, 0)]] RWStructuredBuffer<uint> Guarded;

[numthreads(64, 1, 1)]
void CSMain(uint3 threadID : SV_DispatchThreadID)
{
    uint i = threadID.x;
    bool odd = (Values[i] & 1) != 0;
    AndOut[i] = (odd && WaveActiveAllTrue(odd)) ? 1u : 0u;
    OrOut[i] = (odd || WaveActiveAnyTrue(odd)) ? 1u : 0u;
    uint n, stride;
    Small.GetDimensions(n, stride);
    Guarded[i] = (i < n && Small[i] > 50u) ? 1u : 0u;
}
