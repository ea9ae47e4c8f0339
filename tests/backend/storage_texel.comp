// A storage texel buffer updated in place: every component + 1.
// FMT (r32ui, rgba32f, ...), IMG (uimageBuffer, imageBuffer, iimageBuffer) and VEC (uvec4, vec4, ivec4) are defines.
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0, FMT) uniform IMG img;
void main()
{
    int i = int(gl_GlobalInvocationID.x);
    imageStore(img, i, imageLoad(img, i) + VEC(1));
}
