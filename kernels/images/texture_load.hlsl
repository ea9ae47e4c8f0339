// The HLSL forms: Texture2D.Load, SamplerState with SampleLevel, and a
// RWTexture2D read and written in place (its size from GetDimensions).
[[vk::binding(0, 0)]] Texture2D<float4> src;
[[vk::binding(1, 0)]] SamplerState smp;
[[vk::binding(2, 0)]] RWTexture2D<float4> dst;

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint w, h;
    dst.GetDimensions(w, h);
    float2 uv = (float2(id.xy) + 0.5) / float2(w, h);
    dst[id.xy] = src.Load(int3(id.xy, 0)) + src.SampleLevel(smp, uv, 0) * float4(1, 0, 0, 0) + dst[id.xy];
}
