// HLSL's packings: column_major (the default) and row_major float4x4 in a
// StructuredBuffer element, read by row (m[i]) and by element (m[i][j]) with
// a dynamic index, a whole matrix written to a RWStructuredBuffer, and
// mul (matrix-vector, vector-matrix, matrix-matrix), transpose and scaling.  HLSL's
// m[i] is row i whatever the packing.  Expected values:
// tools/gen_kernel_cases.py.
struct Item { float4x4 cm; row_major float4x4 rm; };
[[vk::binding(0, 0)]] StructuredBuffer<Item> items;
[[vk::binding(1, 0)]] RWStructuredBuffer<float4> rows;
[[vk::binding(2, 0)]] RWStructuredBuffer<float> elems;
[[vk::binding(3, 0)]] RWStructuredBuffer<Item> copy;
[[vk::binding(4, 0)]] RWStructuredBuffer<float4> prods;
[numthreads(4, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID)
{
    uint i = id.x;
    rows[i] = items[0].cm[i];
    rows[4 + i] = items[0].rm[i];
    elems[i] = items[0].cm[i][3 - i] + 100.0 * items[0].rm[3 - i][i];
    float4x4 cm = items[0].cm, rm = items[0].rm;
    float4 v = float4(1.0, -1.0, 2.0, 0.5);
    if (i == 0) prods[0] = mul(cm, v);
    if (i == 1) prods[1] = mul(v, rm);
    if (i == 2) prods[2] = transpose(rm)[1];
    if (i == 3) prods[3] = (cm * 2.0)[2];
    prods[4 + i] = mul(cm, rm)[i];
    if (i == 0) {
        Item it = items[0];
        Item o;
        o.cm = it.rm;
        o.rm = it.cm;
        copy[0] = o;
    }
}
