// texelFetch from every mip of a combined image sampler, with the mip's size
// from textureSize and the level count from textureQueryLevels.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) buffer Texels { vec4 texel[64]; } t;
layout(set = 0, binding = 2) buffer Sizes { uvec4 size[64]; } q;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    int mip = int(i % 3u);
    ivec2 sz = textureSize(tex, mip);
    ivec2 p = ivec2(int(i / 3u) % sz.x, int(i / 7u) % sz.y);
    t.texel[i] = texelFetch(tex, p, mip);
    q.size[i] = uvec4(sz, textureQueryLevels(tex), 0u);
}
