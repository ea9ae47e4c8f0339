// Stride sweep: invocation i reads word i * S (S from the push constant) and writes word i.  512 Ki
// invocations.  Twin: stride in tools/cuda/gen_suite.cu.
#version 450
layout(set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1) buffer Out { uint dst[]; };
layout(push_constant) uniform P { uint S; };
layout(local_size_x = 256) in;
void main()
{
    uint i = gl_GlobalInvocationID.x;
    dst[i] = src[i * S];
}
