// textureLod through a separate texture and a linear, clamp-to-edge sampler at
// texel centres and half-way points (weights 0, 1/2, 1: exact in any precision).
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform texture2D img;
layout(set = 0, binding = 1) uniform sampler lin;
layout(set = 0, binding = 2) buffer Out { vec4 v[]; } o;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    vec2 uv = (vec2(float(i % 17u), float(i / 17u)) * 0.5 + 0.5) / vec2(8.0, 8.0);
    o.v[i] = textureLod(sampler2D(img, lin), uv, 0.0);
}
