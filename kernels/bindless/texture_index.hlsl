// HLSL: textures picked by indices from a constant buffer, known only when the
// kernel runs and uniform for the dispatch.  (glslang 12's HLSL has no
// NonUniformResourceIndex: docs/quirks.md.)
Texture2D<float> tex[3] : register(t0);
RWStructuredBuffer<float> dst : register(u3);
cbuffer Pick : register(b4) { uint pick; };

[numthreads(16, 1, 1)]
void main(uint3 id : SV_GroupThreadID)
{
    int3 p = int3(id.x % 4, id.x / 4, 0);
    dst[id.x] = tex[pick].Load(p) + 1000.0 * tex[(pick + 1) % 3].Load(p);
}
