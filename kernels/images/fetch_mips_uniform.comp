// texelFetch with a wave-uniform mip (the workgroup's), textureSize of that mip
// and textureQueryLevels: the form lavapipe can check (it takes the Lod of a
// fetch from one lane per subgroup).
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) buffer Texels { vec4 texel[]; } t;
layout(set = 0, binding = 2) buffer Sizes { uvec4 size[]; } q;

void main()
{
    uint i = gl_GlobalInvocationID.x, l = gl_LocalInvocationID.x;
    int mip = int(gl_WorkGroupID.x % 3u);
    ivec2 sz = textureSize(tex, mip);
    ivec2 p = ivec2(int(l) % sz.x, int(l / 8u) % sz.y);
    t.texel[i] = texelFetch(tex, p, mip);
    q.size[i] = uvec4(sz, textureQueryLevels(tex), 0u);
}
