/*
 * case/case_image.c — the image side of the case file: image and sampler bindings
 * (format, dimension, extent, layers, mips, contents from data/fill/PNG file, sampler
 * state), expectations on one mip/layer of an image, and decoding an image binding's
 * texels into component values for comparisons and --dump.  The format is documented
 * in docs/case-format.md ("Images and samplers").
 */
#include "case/case.h"

#include <stdlib.h>
#include <string.h>

int case_kind_is_image(case_kind k)
{
    return k == CASE_KIND_STORAGE_IMAGE || k == CASE_KIND_SAMPLED_IMAGE || k == CASE_KIND_COMBINED_IMAGE_SAMPLER;
}

int case_kind_has_sampler(case_kind k)
{
    return k == CASE_KIND_SAMPLER || k == CASE_KIND_COMBINED_IMAGE_SAMPLER;
}

case_status case_image_components(const case_binding *b, uint32_t mip, uint32_t layer, uint8_t **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    if (!case_kind_is_image(b->kind))
        return CASE_ERR_FIELD;
    const img_image *im = &b->image;
    const img_format_info *fi = img_format_get(im->format);
    if (!fi || mip >= im->mip_levels || layer >= im->layers || !b->bytes)
        return CASE_ERR_FIELD;
    size_t texels = img_subresource_bytes(im, mip) / fi->texel_bytes;
    size_t values = texels * fi->components;
    uint8_t *dst = malloc(values ? values * 4 : 1);
    if (!dst)
        return CASE_ERR_NOMEM;
    const uint8_t *src = b->bytes + img_subresource_offset(im, mip, layer);
    for (size_t t = 0; t < texels; t++) {
        img_texel v;
        img_decode(im->format, src + t * fi->texel_bytes, &v);
        memcpy(dst + t * fi->components * 4, v.u, fi->components * 4);
    }
    *out = dst;
    *count = values;
    return CASE_OK;
}
