#version 450
// A storage image declared without a format (shaderStorageImageWriteWithoutFormat):
// the case's format decides, so a case can name one the device cannot store to.
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform writeonly image2D img;

void main()
{
    imageStore(img, ivec2(gl_GlobalInvocationID.xy), vec4(0.5));
}
