// HLSL texel buffers picked per lane with NonUniformResourceIndex, once
// through a local variable and once inline: the mark survives the variable
// (DXC's behaviour), so lanes may name different elements in both.
Buffer<uint> src[3] : register(t0);
RWStructuredBuffer<uint> dst : register(u3);

[numthreads(16, 1, 1)]
void main(uint3 id : SV_GroupThreadID)
{
    uint k = NonUniformResourceIndex(id.x % 3);
    dst[id.x] = src[k][id.x] + 100 * src[NonUniformResourceIndex((id.x + 1) % 3)][id.x];
}
