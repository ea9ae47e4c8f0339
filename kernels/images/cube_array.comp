// A cube map array sampled by direction and cube index: textureLod(
// samplerCubeArray, vec4(dir, cube), 0), one (dir, cube) per invocation read
// from a buffer; the cube coordinate rounds to the nearest cube (ties to even),
// clamped to the cubes.
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) uniform samplerCubeArray env;
layout(set = 0, binding = 1) readonly buffer Dirs { vec4 d[]; } dirs;
layout(set = 0, binding = 2) buffer Out { vec4 v[]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    o.v[i] = textureLod(env, dirs.d[i], 0.0);
}
