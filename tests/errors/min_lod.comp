#version 450
#extension GL_ARB_sparse_texture_clamp : require
// a level-of-detail clamp in the shader (the MinLod image operand of textureGradClampARB): sampling with
// gradients is modelled, the clamp is not
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D target;
void main() {
    vec4 v = textureGradClampARB(tex, vec2(0.5), vec2(0.1), vec2(0.1), 1.0);
    imageStore(target, ivec2(gl_GlobalInvocationID.xy), v);
}
