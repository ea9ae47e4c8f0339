// implicit_lod.comp in HLSL: Texture2D.Sample and SampleBias in a compute
// kernel.  numthreads(64, 1, 1) has X a multiple of 4 and Y = Z = 1, so DXC
// (and wavelab, for glslang 12) takes DerivativeGroupLinear: four consecutive
// threads form a quad (0 1 / 2 3).
[[vk::binding(0)]] Texture2D<float4> tex;
[[vk::binding(1)]] SamplerState smp;
[[vk::binding(2)]] RWStructuredBuffer<float4> o;

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint i = id.x, n = i >> 2;
    uint2 g = uint2(2 * (n % 8) + (i & 1), 2 * (n / 8) + ((i >> 1) & 1));
    uint k = ((g.x >> 1) + (g.y >> 1)) % 4;
    float s = float(1u << k);
    float2 uv = (float2(g) * s + 0.5) / 16.0;
    o[2 * i] = tex.Sample(smp, uv);
    o[2 * i + 1] = tex.SampleBias(smp, uv, 1.0);
}
