// A multisampled texture as DXC reads one: Texture2DMS<float4, 4>.Load(p, s) of every sample and
// GetDimensions(width, height, samples); each thread writes the sum of its texel's samples and the
// dimensions.  Expectations: tools/gen_image_ms_int64_cases.py.
Texture2DMS<float4, 4> src : register(t0);
RWStructuredBuffer<float4> o : register(u1);

[numthreads(4, 2, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint w, h, n;
    src.GetDimensions(w, h, n);
    float4 sum = 0;
    for (uint s = 0; s < n; s++)
        sum += src.Load(int2(id.xy), s);
    o[id.y * 4 + id.x] = sum + float4(0, 0, 0, n * 100 + w * 10 + h);
}
