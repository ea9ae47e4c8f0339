// Runtime arrays of descriptors, as bindless renderers declare them: no
// length in the kernel (`textures[]`, `src[]`), the case's bindings give it.
// Each lane reads the buffer and the texture its own index names
// (nonuniformEXT): the case binds 5 buffers and 3 textures.
#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer Src { uint v[]; } src[];
layout(set = 0, binding = 1) uniform texture2D textures[];
layout(set = 0, binding = 2) uniform sampler nearest;
layout(set = 0, binding = 3) buffer Out { float o[32]; };

void main()
{
    uint i = gl_LocalInvocationIndex;
    uint b = i % 5u, t = i % 3u;
    vec2 c = (vec2(i % 4u, (i / 4u) % 4u) + 0.5) / 4.0;
    o[i] = float(src[nonuniformEXT(b)].v[i]) + 1000.0 * textureLod(sampler2D(textures[nonuniformEXT(t)], nearest), c, 0.0).x;
}
