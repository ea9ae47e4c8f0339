// texelFetch from a 3D texture with two mip levels, written with imageStore into
// a 3D storage image: voxel (x, y, z) of `dst` is 2 * src(z, x, y) at mip 0 (the
// volume turned about its diagonal, a slice copy along each axis) plus
// src(x/2, y/2, z/2) at mip 1; textureSize of both levels goes to `sizes`.
#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;
layout(set = 0, binding = 0) uniform texture3D src;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image3D dst;
layout(set = 0, binding = 2) buffer Sizes { ivec4 size[]; } q;

void main()
{
    ivec3 p = ivec3(gl_GlobalInvocationID);
    vec4 a = texelFetch(src, p.zxy, 0);
    vec4 b = texelFetch(src, p >> 1, 1);
    imageStore(dst, p, a * 2.0 + b);
    // One level per textureSize call: lavapipe reads a per-lane Lod from the subgroup's first lane
    // (docs/quirks.md, "Images on a device"), so each level is asked for with a constant.
    if (gl_LocalInvocationIndex == 0u)
        q.size[0] = ivec4(textureSize(src, 0), 0);
    else if (gl_LocalInvocationIndex == 1u)
        q.size[1] = ivec4(textureSize(src, 1), 0);
}
