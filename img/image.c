/*
 * img/image.c — the packed texel layout every module exchanges images in (mip-major,
 * then layer, then [z][y][x], as vkCmdCopyBufferToImage reads a tightly packed buffer),
 * the names of dimensions and sampler fields as the case format spells them, and
 * integer texel fetch and store with bounds checks.
 */
#include "img/img.h"

#include <string.h>

static const char *const dim_names[] = {"1d", "2d", "3d", "cube"};

const char *img_dim_name(img_dim d)
{
    return (unsigned)d < 4 ? dim_names[d] : "?";
}

int img_dim_by_name(const char *name, img_dim *out)
{
    for (int d = 0; d < 4; d++)
        if (strcmp(dim_names[d], name) == 0) {
            *out = (img_dim)d;
            return 1;
        }
    return 0;
}

const char *img_samples_problem(const img_image *im)
{
    const uint32_t n = img_samples(im);
    if (n > 64 || (n & (n - 1)))
        return "not a Vulkan sample count (1, 2, 4, 8, 16, 32 or 64)";
    if (n > 1 && (im->dim != IMG_DIM_2D || im->mip_levels != 1))
        return "a multisampled image is 2d with one mip level (Vulkan)";
    return NULL;
}

uint32_t img_mip_size(uint32_t base, uint32_t mip)
{
    if (mip >= 32)
        return 1;
    uint32_t s = base >> mip;
    return s ? s : 1;
}

size_t img_subresource_bytes(const img_image *im, uint32_t mip)
{
    const img_format_info *fi = img_format_get(im->format);
    return (size_t)img_mip_size(im->width, mip) * img_mip_size(im->height, mip) * img_mip_size(im->depth, mip) *
           (fi ? fi->texel_bytes : 0);
}

size_t img_subresource_offset(const img_image *im, uint32_t mip, uint32_t layer)
{
    size_t offset = 0;
    for (uint32_t m = 0; m < mip; m++)
        offset += img_subresource_bytes(im, m) * img_planes(im);
    return offset + img_subresource_bytes(im, mip) * layer;
}

void img_mip_view(img_image *im, uint32_t mip)
{
    im->bytes += img_subresource_offset(im, mip, 0);
    im->size = img_subresource_bytes(im, mip) * img_planes(im);
    im->width = img_mip_size(im->width, mip);
    im->height = img_mip_size(im->height, mip);
    im->depth = img_mip_size(im->depth, mip);
    im->mip_levels = 1;
}

void img_layer_view(img_image *im, uint32_t layer)
{
    im->bytes += img_subresource_offset(im, 0, layer * img_samples(im));
    im->size = img_subresource_bytes(im, 0) * img_samples(im);
    im->layers = 1;
    if (im->dim == IMG_DIM_CUBE)
        im->dim = IMG_DIM_2D;
}

size_t img_image_bytes(const img_image *im)
{
    return img_subresource_offset(im, im->mip_levels, 0);
}

size_t img_image_texels(const img_image *im)
{
    const img_format_info *fi = img_format_get(im->format);
    return fi ? img_image_bytes(im) / fi->texel_bytes : 0;
}

size_t img_texel_offset(const img_image *im, uint32_t x, uint32_t y, uint32_t z, uint32_t layer, uint32_t mip)
{
    const img_format_info *fi = img_format_get(im->format);
    size_t w = img_mip_size(im->width, mip), h = img_mip_size(im->height, mip);
    return img_subresource_offset(im, mip, layer) + (((size_t)z * h + y) * w + x) * fi->texel_bytes;
}

/* In bounds of mip/layer; for 1D images y and z must be 0, for 2D and cube z must be 0. */
static int texel_in_bounds(const img_image *im, const int32_t coord[3], uint32_t layer, uint32_t mip)
{
    if (mip >= im->mip_levels || layer >= img_planes(im))
        return 0;
    int32_t limit[3] = {(int32_t)img_mip_size(im->width, mip), (int32_t)img_mip_size(im->height, mip),
                        (int32_t)img_mip_size(im->depth, mip)};
    for (int a = 0; a < 3; a++)
        if (coord[a] < 0 || coord[a] >= limit[a])
            return 0;
    return 1;
}

int img_fetch(const img_image *im, const int32_t coord[3], uint32_t layer, uint32_t mip, img_texel *out)
{
    if (!texel_in_bounds(im, coord, layer, mip)) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    size_t offset = img_texel_offset(im, (uint32_t)coord[0], (uint32_t)coord[1], (uint32_t)coord[2], layer, mip);
    img_decode(im->format, im->bytes + offset, out);
    return 1;
}

int img_store(img_image *im, const int32_t coord[3], uint32_t layer, uint32_t mip, const img_texel *in)
{
    if (!texel_in_bounds(im, coord, layer, mip))
        return 0;
    size_t offset = img_texel_offset(im, (uint32_t)coord[0], (uint32_t)coord[1], (uint32_t)coord[2], layer, mip);
    img_encode(im->format, in, im->bytes + offset);
    return 1;
}

/* ---- views -------------------------------------------------------------------------------------------- */

void img_view_init(img_view *v, const img_image *im)
{
    v->im = im;
    v->fi = img_format_get(im->format);
    v->decode = img_format_decoder(im->format);
    v->texel_bytes = v->fi ? v->fi->texel_bytes : 0;
    v->raw_words = 0;
    if (v->fi && (v->fi->encoding == IMG_ENC_UINT || v->fi->encoding == IMG_ENC_SINT ||
                  v->fi->encoding == IMG_ENC_SFLOAT))
        v->raw_words = v->fi->bits[0] == 32; /* clamp_uint, clamp_sint at 32 bits and float_bits copy the word */
    v->levels = v->fi && im->mip_levels <= IMG_VIEW_MAX_LEVELS ? im->mip_levels : 0;
    size_t offset = 0; /* img_subresource_offset, summed level by level */
    for (uint32_t m = 0; m < v->levels; m++) {
        img_view_level *L = &v->level[m];
        const uint32_t ext[3] = {img_mip_size(im->width, m), img_mip_size(im->height, m), img_mip_size(im->depth, m)};
        for (int a = 0; a < 3; a++) {
            L->size[a] = (int32_t)ext[a];
            L->size_f[a] = (float)ext[a];
        }
        L->row_bytes = (size_t)ext[0] * v->texel_bytes;
        L->slice_bytes = L->row_bytes * ext[1];
        L->layer_bytes = L->slice_bytes * ext[2];
        L->offset = offset;
        offset += L->layer_bytes * img_planes(im);
    }
}

/* texel_in_bounds through the view (v->levels > 0). */
static int view_in_bounds(const img_view *v, const int32_t coord[3], uint32_t layer, uint32_t mip)
{
    if (mip >= v->levels || layer >= img_planes(v->im))
        return 0;
    const img_view_level *L = &v->level[mip];
    return coord[0] >= 0 && coord[0] < L->size[0] && coord[1] >= 0 && coord[1] < L->size[1] && coord[2] >= 0 &&
           coord[2] < L->size[2];
}

int img_view_fetch(const img_view *v, const int32_t coord[3], uint32_t layer, uint32_t mip, img_texel *out)
{
    if (!v->levels)
        return img_fetch(v->im, coord, layer, mip, out);
    if (!view_in_bounds(v, coord, layer, mip)) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    const uint8_t *p =
        v->im->bytes + img_view_texel_offset(v, (uint32_t)coord[0], (uint32_t)coord[1], (uint32_t)coord[2], layer, mip);
    if (v->decode)
        v->decode(p, out);
    else
        img_decode(v->im->format, p, out);
    return 1;
}

int img_view_store(const img_view *v, const int32_t coord[3], uint32_t layer, uint32_t mip, const img_texel *in)
{
    const img_image *im = v->im;
    size_t offset;
    if (!v->levels) {
        if (!texel_in_bounds(im, coord, layer, mip))
            return 0;
        offset = img_texel_offset(im, (uint32_t)coord[0], (uint32_t)coord[1], (uint32_t)coord[2], layer, mip);
    } else {
        if (!view_in_bounds(v, coord, layer, mip))
            return 0;
        offset = img_view_texel_offset(v, (uint32_t)coord[0], (uint32_t)coord[1], (uint32_t)coord[2], layer, mip);
    }
    if (v->raw_words)
        memcpy(im->bytes + offset, in->u, v->texel_bytes);
    else
        img_encode(im->format, in, im->bytes + offset);
    return 1;
}

/* ---- sampler field names ------------------------------------------------------------------------------ */

static const char *const filter_names[] = {"nearest", "linear"};
static const char *const address_names[] = {"repeat", "mirrored_repeat", "clamp_to_edge", "clamp_to_border",
                                            "mirror_clamp_to_edge"};
static const char *const border_names[] = {"float_transparent_black", "int_transparent_black",
                                           "float_opaque_black",      "int_opaque_black",
                                           "float_opaque_white",      "int_opaque_white"};
/* IMG_COMPARE_NEVER.. (VkCompareOp order); IMG_COMPARE_NONE has no name: the field is absent */
static const char *const compare_names[] = {"never", "less", "equal", "less_or_equal", "greater", "not_equal",
                                            "greater_or_equal", "always"};

static int find_name(const char *const *names, int count, const char *name, int *out)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0) {
            *out = i;
            return 1;
        }
    return 0;
}

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

const char *img_filter_name(int filter)
{
    return filter >= 0 && filter < COUNT_OF(filter_names) ? filter_names[filter] : "?";
}
int img_filter_by_name(const char *name, int *out)
{
    return find_name(filter_names, COUNT_OF(filter_names), name, out);
}
/* The mipmap modes share the filters' names ("nearest", "linear"), as VkSamplerMipmapMode does. */
int img_mipmap_by_name(const char *name, int *out)
{
    return find_name(filter_names, COUNT_OF(filter_names), name, out);
}
const char *img_address_name(int mode)
{
    return mode >= 0 && mode < COUNT_OF(address_names) ? address_names[mode] : "?";
}
int img_address_by_name(const char *name, int *out)
{
    return find_name(address_names, COUNT_OF(address_names), name, out);
}
int img_border_by_name(const char *name, int *out)
{
    return find_name(border_names, COUNT_OF(border_names), name, out);
}

int img_compare_by_name(const char *name, int *out)
{
    int k;
    if (!find_name(compare_names, COUNT_OF(compare_names), name, &k))
        return 0;
    *out = k + 1;
    return 1;
}

int img_format_is_depth(img_format f)
{
    return f == IMG_FMT_D16_UNORM || f == IMG_FMT_D32_SFLOAT;
}

void img_sampler_default(img_sampler *s)
{
    memset(s, 0, sizeof *s);
    s->mag_filter = s->min_filter = IMG_FILTER_NEAREST;
    s->mipmap_mode = IMG_MIPMAP_NEAREST;
    s->address[0] = s->address[1] = s->address[2] = IMG_ADDRESS_REPEAT;
    s->border = IMG_BORDER_FLOAT_TRANSPARENT_BLACK;
    s->min_lod = 0.0f;
    s->max_lod = 1000.0f;
}
