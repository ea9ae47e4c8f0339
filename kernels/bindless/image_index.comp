// Storage images picked at run time: each lane of an 8x8 workgroup loads and
// stores its texel of image (x + y) % 3 (nonuniformEXT), asks that image's size,
// and adds 1 atomically to one texel of the image a push constant picks (a
// texel outside the 8x8 the stores touch).
#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D img[3];
layout(set = 0, binding = 1) buffer Out { uint o[64]; };
layout(push_constant) uniform Pick { uint pick; };

void main()
{
    ivec2 p = ivec2(gl_LocalInvocationID.xy);
    uint k = uint(p.x + p.y) % 3u;
    uint before = imageLoad(img[nonuniformEXT(k)], p).x;
    imageStore(img[nonuniformEXT(k)], p, uvec4(before * 2u + k));
    imageAtomicAdd(img[pick], ivec2(9, 3), 1u);
    ivec2 size = imageSize(img[nonuniformEXT(k)]);
    o[gl_LocalInvocationIndex] = before + 1000u * uint(size.x * 100 + size.y);
}
