RWStructuredBuffer<uint> result : register(u0);

[numthreads(1, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID)
{
    result[0] = 1;
}
