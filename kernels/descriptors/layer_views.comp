// One 3-layer image bound as three descriptors, each a view of one layer
// (the case's "views": "layers"): read through every view, and written
// through the last, which changes that layer of the one image.
#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D layer[3];
layout(set = 0, binding = 1) buffer Out { uint o[16]; };

void main()
{
    ivec2 p = ivec2(gl_LocalInvocationID.xy);
    uint v = imageLoad(layer[0], p).x + 10u * imageLoad(layer[1], p).x + 100u * imageLoad(layer[2], p).x;
    o[p.y * 4 + p.x] = v;
    imageStore(layer[2], p, uvec4(v));
}
