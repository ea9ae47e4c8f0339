// A cube map sampled by direction: textureLod(samplerCube, dir, 0) for one
// direction per invocation, read from a buffer; the sampler is the case's.
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) uniform samplerCube env;
layout(set = 0, binding = 1) readonly buffer Dirs { vec4 d[]; } dirs;
layout(set = 0, binding = 2) buffer Out { vec4 v[]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    o.v[i] = textureLod(env, dirs.d[i].xyz, 0.0);
}
