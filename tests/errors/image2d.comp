#version 450
// a 2D storage image: not a texel buffer, which wavelab does not model
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32f) uniform writeonly image2D target;
void main() {
    imageStore(target, ivec2(gl_GlobalInvocationID.xy), vec4(1.0));
}
