RWStructuredBuffer<uint> result : register(u0);

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint a = undeclared_name + 1;
    result[0] = a;
}
