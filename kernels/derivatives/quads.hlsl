// quads.comp in HLSL (Shader Model 6.6 derivatives in compute): numthreads
// (8, 4, 1) has X and Y even, so DXC (and wavelab, for glslang 12, which adds
// no mode) takes DerivativeGroupQuads: each 2x2 block of SV_GroupThreadID is
// one derivative quad.
RWStructuredBuffer<float> o : register(u0);

[numthreads(8, 4, 1)]
void main(uint3 g : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint width = 16;
    uint i = (g.y * width + g.x) * 8;
    float x = float(g.x), y = float(g.y);
    float q = x * x + 3.0 * y * y, p = q + x * y;
    o[i + 0] = ddx_fine(p);
    o[i + 1] = ddy_fine(p);
    o[i + 2] = ddx_coarse(q);
    o[i + 3] = ddy_coarse(q);
    o[i + 4] = abs(ddx_fine(p)) + abs(ddy_fine(p));
    o[i + 5] = fwidth(q);
    o[i + 6] = ddx(x + 2.0 * y) + 10.0 * ddy(x + 2.0 * y);
    o[i + 7] = float(QuadReadLaneAt(gi, 0));
}
