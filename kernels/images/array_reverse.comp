// Storage image arrays: layer l of `src` (imageLoad) goes to layer
// layers - 1 - l of `dst` (imageStore), doubled and offset by (x, y, l, 1).
#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba32f) uniform readonly image2DArray src;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image2DArray dst;

void main()
{
    ivec3 p = ivec3(gl_GlobalInvocationID);
    int layers = imageSize(src).z;
    imageStore(dst, ivec3(p.xy, layers - 1 - p.z), imageLoad(src, p) * 2.0 + vec4(p, 1.0));
}
