// textureLod of a 3D texture at coordinates read from a buffer (one vec4 per
// invocation: s, t, r, unused); the sampler is the case's.
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) uniform sampler3D vol;
layout(set = 0, binding = 1) readonly buffer Coords { vec4 c[]; } coords;
layout(set = 0, binding = 2) buffer Out { vec4 v[]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    o.v[i] = textureLod(vol, coords.c[i].xyz, 0.0);
}
