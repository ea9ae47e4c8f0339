// Storage images: each texel of `src` read with imageLoad, doubled, offset by its
// coordinate and written mirrored in x into `dst` with imageStore.
#version 450
layout(local_size_x = 8, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba32f) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image2D dst;

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec4 v = imageLoad(src, p);
    imageStore(dst, ivec2(imageSize(dst).x - 1 - p.x, p.y), v * 2.0 + vec4(p, 0.0, 1.0));
}
