// HLSL: textures picked at run time, as DXC compiles them: per lane with
// NonUniformResourceIndex, and by an index from a constant buffer (uniform for
// the dispatch).
Texture2D<float> tex[3] : register(t0);
RWStructuredBuffer<float> dst : register(u3);
cbuffer Pick : register(b4) { uint pick; };

[numthreads(16, 1, 1)]
void main(uint3 id : SV_GroupThreadID)
{
    int3 p = int3(id.x % 4, id.x / 4, 0);
    uint k = id.x % 3;
    dst[id.x] = tex[NonUniformResourceIndex(k)].Load(p) + 1000.0 * tex[pick].Load(p);
}
