#version 450
// tests/test_backend_image.c: a multisampled storage image whose 4 samples each texel stores in reverse order,
// on every layer (FMT, IMG and VEC from the test: the format qualifier, image2DMSArray or uimage2DMSArray, its
// vector type).  Only loads and stores of whole samples: the bits the fill kernel wrote come back permuted.
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, FMT) uniform IMG img;
void main() {
    ivec3 p = ivec3(gl_GlobalInvocationID);
    VEC v[4];
    for (int s = 0; s < 4; s++)
        v[s] = imageLoad(img, p, s);
    for (int s = 0; s < 4; s++)
        imageStore(img, p, s, v[3 - s]);
}
