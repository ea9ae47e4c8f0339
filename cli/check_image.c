/*
 * cli/check_image.c — `wavelab check` on image bindings: the two sides' texels are decoded (img_decode, the Vulkan
 * "Format Conversion" rules) and compared component by component with the
 * case's relation for that binding, and mismatches are placed at their texel
 * (x, y, z, layer, mip) rather than at an invocation: an image is addressed by
 * coordinates, and kernels write their texels at coordinates.
 *
 * Both sides hold an image binding as img_image's packed texels (mip 0's layers,
 * then mip 1's ...), the layout the backend copies to and from the device.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "case/case.h"
#include "cli/cli.h"
#include "img/img.h"

int cli_is_image_binding(const case_binding *b)
{
    return b->kind == CASE_KIND_STORAGE_IMAGE || b->kind == CASE_KIND_SAMPLED_IMAGE ||
           b->kind == CASE_KIND_COMBINED_IMAGE_SAMPLER || b->kind == CASE_KIND_SAMPLER;
}

/* Calls fn for every texel in packed order with its coordinates. */
typedef void (*texel_fn)(void *ctx, uint32_t x, uint32_t y, uint32_t z, uint32_t layer, uint32_t mip, size_t offset);

static void for_each_texel(const img_image *im, texel_fn fn, void *ctx)
{
    /* every plane (img_planes: a layer, or a layer's sample of a multisampled image) of every level */
    uint32_t mips = im->mip_levels ? im->mip_levels : 1, layers = im->layers ? img_planes(im) : 1;
    for (uint32_t m = 0; m < mips; m++) {
        uint32_t w = img_mip_size(im->width, m);
        uint32_t h = im->dim == IMG_DIM_1D ? 1 : img_mip_size(im->height, m);
        uint32_t d = im->dim == IMG_DIM_3D ? img_mip_size(im->depth, m) : 1;
        for (uint32_t l = 0; l < layers; l++)
            for (uint32_t z = 0; z < d; z++)
                for (uint32_t y = 0; y < h; y++)
                    for (uint32_t x = 0; x < w; x++)
                        fn(ctx, x, y, z, l, m, img_texel_offset(im, x, y, z, l, m));
    }
}

typedef struct compare_ctx {
    const case_binding *b;
    const uint8_t *sim, *dev;
    size_t size;
    case_compare mode;
    double tolerance;
    int *budget;
    char *report;
    size_t report_size;
    size_t bad;   /* differing texels */
} compare_ctx;

static void compare_texel(void *p, uint32_t x, uint32_t y, uint32_t z, uint32_t layer, uint32_t mip, size_t offset)
{
    compare_ctx *c = p;
    const img_format_info *f = img_format_get(c->b->image.format);
    if (offset + f->texel_bytes > c->size)
        return;
    img_texel a, b;
    img_decode(c->b->image.format, c->sim + offset, &a);
    img_decode(c->b->image.format, c->dev + offset, &b);
    /* components are values of the binding's type (F32/U32/I32, U64/I64 for a 64-bit format: img_texel.u64),
     * compared by the one rule */
    const size_t esize = case_type_size(c->b->type);
    const uint8_t *av = (const uint8_t *)a.u, *bv = (const uint8_t *)b.u;
    int first = -1;
    for (uint32_t k = 0; k < f->components && k < 4; k++)
        if (!case_element_match(c->b->type, av + k * esize, bv + k * esize, c->mode, c->tolerance)) {
            first = (int)k;
            break;
        }
    if (first < 0)
        return;
    c->bad++;
    if (*c->budget <= 0)
        return;
    (*c->budget)--;
    char sv[4][40], dv[4][40], line[512];
    for (uint32_t k = 0; k < f->components && k < 4; k++) {
        case_format_element(c->b->type, av + k * esize, sv[k], sizeof sv[k]);
        case_format_element(c->b->type, bv + k * esize, dv[k], sizeof dv[k]);
    }
    int n = snprintf(line, sizeof line, "      texel (%u,%u", x, y);
    if (c->b->image.dim == IMG_DIM_3D)
        n += snprintf(line + n, sizeof line - (size_t)n, ",%u", z);
    n += snprintf(line + n, sizeof line - (size_t)n, ") layer %u mip %u: simulator (", layer, mip);
    for (uint32_t k = 0; k < f->components && k < 4; k++)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s%s", k ? ", " : "", sv[k]);
    n += snprintf(line + n, sizeof line - (size_t)n, "), device (");
    for (uint32_t k = 0; k < f->components && k < 4; k++)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s%s", k ? ", " : "", dv[k]);
    uint64_t d;
    if (case_ulp_distance(c->b->type, av + first * esize, bv + first * esize, &d))
        snprintf(line + n, sizeof line - (size_t)n, "), component %d %" PRIu64 " ulp apart\n", first, d);
    else
        snprintf(line + n, sizeof line - (size_t)n, "), component %d\n", first);
    size_t len = strlen(c->report);
    snprintf(c->report + len, c->report_size - len, "%s", line);
}

size_t cli_check_image_binding(const case_binding *b, const uint8_t *sim, const uint8_t *dev, int mode,
                               double tolerance, int *budget, char *report, size_t report_size)
{
    if (b->kind == CASE_KIND_SAMPLER || !img_format_get(b->image.format))
        return 0;
    compare_ctx c = {b, sim, dev, b->size, (case_compare)mode, tolerance, budget, report, report_size, 0};
    for_each_texel(&b->image, compare_texel, &c);
    return c.bad;
}
