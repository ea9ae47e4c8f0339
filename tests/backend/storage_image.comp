#version 450
// A storage image of format FMT (GLSL qualifier), type IMG (image2D, uimage2D,
// iimage2D; image2DArray ... with ARRAY), vector VEC: every texel of every layer
// gets +1 in each component, in place.  One invocation per texel (x, y), layers
// looped.  For the backend's upload, layout transitions and read-back.
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, FMT) uniform IMG img;
#ifndef LAYERS
#define LAYERS 1
#endif

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
#ifdef ARRAY
    for (int l = 0; l < LAYERS; l++)
        imageStore(img, ivec3(p, l), imageLoad(img, ivec3(p, l)) + VEC(1));
#else
    imageStore(img, p, imageLoad(img, p) + VEC(1));
#endif
}
