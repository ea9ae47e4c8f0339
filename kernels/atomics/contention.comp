// kernels/atomics/contention.comp — atomic contention in the L2, a model study (docs/hardware.md, "Atomics
// against the H100").  4096 workgroups of 256 invocations each make 16 atomic adds (RED: the old value is not
// read), 16 M in all, to addresses chosen by the push constants:
//   mode 0  a histogram: bin (value & mask) of the input's random values, bins `mul` words apart;
//   mode 1  whole subgroups: the 32 invocations of each unit of 32 add to the 32 words of one line, the units
//           spread over (mask + 1) lines `mul` words apart.
#version 450
layout(set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(set = 0, binding = 1) buffer Out { uint dst[]; };
layout(push_constant) uniform P { uint mask; uint mul; uint mode; } pc;
layout(local_size_x = 256) in;
void main()
{
    uint t = gl_LocalInvocationID.x;
    for (uint k = 0u; k < 16u; k++) {
        uint v = src[(gl_WorkGroupID.x * 16u + k) * 256u + t];
        uint unit = gl_WorkGroupID.x * 8u + (t >> 5);
        uint idx = pc.mode == 0u ? (v & pc.mask) * pc.mul : (t & 31u) + (unit & pc.mask) * pc.mul;
        atomicAdd(dst[idx], 1u);
    }
}
