// Two textures as one descriptor array in HLSL, each read by a constant index
// (Texture2D.Load).  glslang 12 reads arrays of textures and samplers; arrays
// of StructuredBuffer it does not parse (docs/quirks.md).
Texture2D<float> tex[2] : register(t0);
RWStructuredBuffer<float> dst : register(u2);

[numthreads(16, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int3 p = int3(id.x % 4, id.x / 4, 0);
    dst[id.x] = tex[0].Load(p) + 1000.0 * tex[1].Load(p);
}
