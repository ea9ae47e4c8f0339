// textureLod of a layered texture at coordinates read from a buffer: with
// DIM1, a sampler1DArray read at (s, layer); otherwise a sampler2DArray at
// (s, t, layer).  The layer coordinate is unnormalized and rounds to the
// nearest layer (ties to even), clamped to the layers.
#version 450
layout(local_size_x = 32) in;
#ifdef DIM1
layout(set = 0, binding = 0) uniform sampler1DArray tex;
#else
layout(set = 0, binding = 0) uniform sampler2DArray tex;
#endif
layout(set = 0, binding = 1) readonly buffer Coords { vec4 c[]; } coords;
layout(set = 0, binding = 2) buffer Out { vec4 v[]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x;
#ifdef DIM1
    o.v[i] = textureLod(tex, coords.c[i].xz, 0.0);
#else
    o.v[i] = textureLod(tex, coords.c[i].xyz, 0.0);
#endif
}
