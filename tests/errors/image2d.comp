#version 450
// a multisampled storage image: images are modelled, multisampling is not
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32f) uniform writeonly image2DMS target;
void main() {
    imageStore(target, ivec2(gl_GlobalInvocationID.xy), 0, vec4(1.0));
}
