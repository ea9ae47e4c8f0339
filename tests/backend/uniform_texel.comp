// A uniform texel buffer read with texelFetch: o[i] = texel(i).x * 5 + i.
// SAMPLER (usamplerBuffer, samplerBuffer, ...) and OUT_T (uint, float, ...) are defines.
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform SAMPLER src;
layout(set = 0, binding = 1) buffer Out { OUT_T o[]; };
void main()
{
    uint i = gl_GlobalInvocationID.x;
    o[i] = texelFetch(src, int(i)).x * OUT_T(5) + OUT_T(i);
}
