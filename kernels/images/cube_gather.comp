// textureGather of a cube map by direction: the alpha component of the 2x2
// footprint a linear filter would read, in the order (i0, j1), (i1, j1),
// (i1, j0), (i0, j0); at a face edge part of it lies on the adjacent face.
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) uniform samplerCube env;
layout(set = 0, binding = 1) readonly buffer Dirs { vec4 d[]; } dirs;
layout(set = 0, binding = 2) buffer Out { vec4 v[]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    o.v[i] = textureGather(env, dirs.d[i].xyz, 3);
}
