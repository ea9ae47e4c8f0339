// A 3D box filter over a volume with storage images: each voxel of `dst` gets
// the sum of the voxels of `src` in its 3x3x3 neighbourhood that lie inside the
// volume (imageLoad), how many there were, and its own voxel's alpha
// (imageStore).  Texels hold small integers, so every sum is exact in any order.
#version 450
layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;
layout(set = 0, binding = 0, rgba32f) uniform readonly image3D src;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image3D dst;

void main()
{
    ivec3 p = ivec3(gl_GlobalInvocationID);
    ivec3 size = imageSize(src);
    vec2 sum = vec2(0.0);
    float count = 0.0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                ivec3 q = p + ivec3(dx, dy, dz);
                if (all(greaterThanEqual(q, ivec3(0))) && all(lessThan(q, size))) {
                    sum += imageLoad(src, q).xy;
                    count += 1.0;
                }
            }
    imageStore(dst, p, vec4(sum, count, imageLoad(src, p).w));
}
