#version 450
// A compute resolve of a multisampled array image: each texel of each layer
// is the mean of its samples; the samples of layer 1 are also copied, in
// reverse order, into a second multisampled image.  Expectations:
// tools/gen_image_ms_int64_cases.py.
layout(local_size_x = 8, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba32f) uniform readonly image2DMSArray src;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image2DArray resolved;
layout(set = 0, binding = 2, rgba32f) uniform writeonly image2DMS reversed;

void main()
{
    ivec2 p = ivec2(gl_LocalInvocationID.xy);
    int n = imageSamples(src);
    for (int layer = 0; layer < imageSize(src).z; layer++) {
        vec4 sum = vec4(0.0);
        for (int s = 0; s < n; s++)
            sum += imageLoad(src, ivec3(p, layer), s);
        imageStore(resolved, ivec3(p, layer), sum / float(n));
    }
    for (int s = 0; s < n; s++)
        imageStore(reversed, p, n - 1 - s, imageLoad(src, ivec3(p, 1), s));
}
