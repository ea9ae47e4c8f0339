// probe/copy.comp — streaming copy for `wavelab probe`'s DRAM bandwidth: every invocation copies
// 16-byte elements src -> dst in a grid-stride loop (consecutive invocations, consecutive
// elements: fully coalesced).  Bytes moved = 2 x count x 16 (read and write).
#version 450
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Push { uint count; uint threads; } pc;

void main()
{
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += pc.threads)
        dst[i] = src[i];
}
