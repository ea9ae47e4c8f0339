// Texel buffers picked at run time: uniform texel buffers read per lane from
// element i % 3 (nonuniformEXT), and one of two storage texel buffers, picked
// by a push constant, written.
#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) uniform usamplerBuffer src[3];
layout(set = 0, binding = 1, r32ui) uniform writeonly uimageBuffer dst[2];
layout(push_constant) uniform Pick { uint pick; };

void main()
{
    int i = int(gl_LocalInvocationIndex);
    uint v = texelFetch(src[nonuniformEXT(i % 3)], i).x;
    imageStore(dst[pick], i, uvec4(v * 3u + uint(textureSize(src[nonuniformEXT(i % 3)]))));
}
