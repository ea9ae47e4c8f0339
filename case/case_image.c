/*
 * case/case_image.c — the image side of the case file: image and sampler bindings
 * (format, dimension, extent, layers, mips, contents from data/fill/PNG file, sampler
 * state), expectations on one mip/layer of an image, and decoding an image binding's
 * texels into component values for comparisons and --dump.  The format is documented
 * in docs/case-format.md ("Images and samplers").
 *
 * Contents are given in shader terms (floats for UNORM/SNORM/SFLOAT/sRGB formats,
 * integers for UINT/SINT) and encoded with img_encode, so a case says what a kernel
 * reads, not the bytes; a PNG file gives the bytes of an 8-bit format directly.
 */
#include "case/case_internal.h"

#include <png.h>

#include <inttypes.h>
#include <stdio.h>
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

case_type case_image_type(img_format f)
{
    img_numeric n = img_format_get(f)->numeric;
    if (img_format_is_wide(img_format_get(f)))
        return n == IMG_NUM_UINT ? CASE_TYPE_U64 : CASE_TYPE_I64;
    return n == IMG_NUM_UINT ? CASE_TYPE_U32 : n == IMG_NUM_SINT ? CASE_TYPE_I32 : CASE_TYPE_F32;
}

/* ---- sampler ------------------------------------------------------------------------------------------ */

typedef int (*name_lookup)(const char *name, int *out);

static case_status read_enum_field(parser *p, const cJSON *obj, const char *key, name_lookup lookup,
                                   const char *expected, uint8_t *out)
{
    const char *name;
    TRY(case_read_string_field(p, obj, key, 0, &name));
    if (!name)
        return CASE_OK;
    int v;
    if (!lookup(name, &v))
        return case_fail_at(p, key, "unknown value \"%.40s\" (expected one of %s)", name, expected);
    *out = (uint8_t)v;
    return CASE_OK;
}

static case_status read_float_field(parser *p, const cJSON *obj, const char *key, float *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return CASE_OK;
    double d;
    size_t saved = case_path_enter_key(p, key);
    case_status s = case_read_double(p, v, 0, &d);
    case_path_leave(p, saved);
    if (s != CASE_OK)
        return s;
    if (d > 3.4e38 || d < -3.4e38)
        return case_fail_at(p, key, "out of the float range");
    *out = (float)d;
    return CASE_OK;
}

static const char address_list[] = "repeat, mirrored_repeat, clamp_to_edge, clamp_to_border, mirror_clamp_to_edge";

static case_status read_sampler(parser *p, const cJSON *v, img_sampler *s)
{
    static const char *const keys[] = {"mag_filter", "min_filter", "mipmap_mode", "address_mode", "border_color",
                                       "unnormalized_coordinates", "mip_lod_bias", "min_lod", "max_lod",
                                       "compare_op", NULL};
    img_sampler_default(s);
    if (!cJSON_IsObject(v))
        return case_fail(p, "expected an object of sampler fields, got %s", case_json_kind(v));
    TRY(case_check_keys(p, v, keys));
    TRY(read_enum_field(p, v, "mag_filter", img_filter_by_name, "nearest, linear", &s->mag_filter));
    TRY(read_enum_field(p, v, "min_filter", img_filter_by_name, "nearest, linear", &s->min_filter));
    TRY(read_enum_field(p, v, "mipmap_mode", img_mipmap_by_name, "nearest, linear", &s->mipmap_mode));
    TRY(read_enum_field(p, v, "border_color", img_border_by_name,
                        "float_transparent_black, int_transparent_black, float_opaque_black, int_opaque_black, "
                        "float_opaque_white, int_opaque_white",
                        &s->border));
    TRY(read_enum_field(p, v, "compare_op", img_compare_by_name,
                        "never, less, equal, less_or_equal, greater, not_equal, greater_or_equal, always",
                        &s->compare_op));
    const cJSON *address = cJSON_GetObjectItemCaseSensitive(v, "address_mode");
    if (address) {
        size_t saved = case_path_enter_key(p, "address_mode");
        int n = cJSON_IsArray(address) ? cJSON_GetArraySize(address) : 1;
        if (!cJSON_IsString(address) && !(cJSON_IsArray(address) && n >= 1 && n <= 3)) {
            case_path_leave(p, saved);
            return case_fail_at(p, "address_mode", "expected a mode or an array of 1 to 3 modes (u, v, w), got %s",
                                case_json_kind(address));
        }
        for (int i = 0; i < n; i++) {
            const cJSON *item = cJSON_IsArray(address) ? cJSON_GetArrayItem(address, i) : address;
            size_t inner = cJSON_IsArray(address) ? case_path_enter_index(p, (size_t)i) : p->path_len;
            int mode;
            if (!cJSON_IsString(item) || !item->valuestring || !img_address_by_name(item->valuestring, &mode)) {
                case_status st = cJSON_IsString(item) && item->valuestring
                                     ? case_fail(p, "unknown address mode \"%.40s\" (expected one of %s)",
                                                 item->valuestring, address_list)
                                     : case_fail(p, "expected an address mode string, got %s", case_json_kind(item));
                case_path_leave(p, saved);
                return st;
            }
            case_path_leave(p, inner);
            /* One mode applies to every axis; an array gives u, v, w and repeats its last one. */
            for (int a = i; a < 3; a++)
                s->address[a] = (uint8_t)mode;
        }
        case_path_leave(p, saved);
    }
    const cJSON *unnorm = cJSON_GetObjectItemCaseSensitive(v, "unnormalized_coordinates");
    if (unnorm) {
        if (!cJSON_IsBool(unnorm))
            return case_fail_at(p, "unnormalized_coordinates", "expected true or false, got %s",
                                case_json_kind(unnorm));
        s->unnormalized = (uint8_t)cJSON_IsTrue(unnorm);
    }
    TRY(read_float_field(p, v, "mip_lod_bias", &s->mip_lod_bias));
    TRY(read_float_field(p, v, "min_lod", &s->min_lod));
    TRY(read_float_field(p, v, "max_lod", &s->max_lod));
    if (s->max_lod < s->min_lod)
        return case_fail_at(p, "max_lod", "%g is less than min_lod %g", (double)s->max_lod, (double)s->min_lod);
    return CASE_OK;
}

/* ---- image shape -------------------------------------------------------------------------------------- */

static case_status read_shape(parser *p, const cJSON *obj, img_image *im, int have_png, uint32_t png_w,
                              uint32_t png_h)
{
    const char *dim_name;
    TRY(case_read_string_field(p, obj, "dim", 0, &dim_name));
    im->dim = IMG_DIM_2D;
    if (dim_name && !img_dim_by_name(dim_name, &im->dim))
        return case_fail_at(p, "dim", "unknown dimension \"%.40s\" (expected one of 1d, 2d, 3d, cube)", dim_name);

    uint32_t want_axes = im->dim == IMG_DIM_1D ? 1 : im->dim == IMG_DIM_3D ? 3 : 2;
    uint32_t extent[3] = {1, 1, 1};
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(obj, "extent");
    if (!ext) {
        if (!have_png)
            return case_fail_at(p, "extent", "missing (required unless \"file\" gives the picture's size)");
        extent[0] = png_w;
        extent[1] = png_h;
    } else {
        if (!cJSON_IsArray(ext) || (uint32_t)cJSON_GetArraySize(ext) != want_axes)
            return case_fail_at(p, "extent", "expected an array of %u positive integers for a %s image ([%s]), got %s",
                                want_axes, img_dim_name(im->dim),
                                want_axes == 1 ? "width" : want_axes == 2 ? "width, height" : "width, height, depth",
                                cJSON_IsArray(ext) ? "another length" : case_json_kind(ext));
        size_t saved = case_path_enter_key(p, "extent");
        for (uint32_t a = 0; a < want_axes; a++) {
            size_t inner = case_path_enter_index(p, a);
            const cJSON *v = cJSON_GetArrayItem(ext, (int)a);
            double d = cJSON_IsNumber(v) ? v->valuedouble : 0;
            /* the range first: converting an infinite or huge double to an integer is undefined */
            if (!cJSON_IsNumber(v) || !(d >= 1 && d <= CASE_MAX_IMAGE_EXTENT) || d != (double)(uint32_t)d) {
                case_status s = case_fail(p, "expected an integer in 1..%u, got %s", CASE_MAX_IMAGE_EXTENT,
                                          cJSON_IsNumber(v) ? "a number out of range" : case_json_kind(v));
                case_path_leave(p, saved);
                return s;
            }
            extent[a] = (uint32_t)d;
            case_path_leave(p, inner);
        }
        case_path_leave(p, saved);
        if (have_png && (extent[0] != png_w || extent[1] != png_h))
            return case_fail_at(p, "extent", "[%u, %u] does not match the picture's %ux%u", extent[0], extent[1],
                                png_w, png_h);
    }
    if (im->dim == IMG_DIM_CUBE && extent[0] != extent[1])
        return case_fail_at(p, "extent", "a cube's faces are square: %ux%u", extent[0], extent[1]);
    im->width = extent[0];
    im->height = extent[1];
    im->depth = extent[2];

    uint64_t layers, mips;
    uint32_t largest = extent[0] > extent[1] ? extent[0] : extent[1];
    largest = largest > extent[2] ? largest : extent[2];
    uint32_t max_mips = 1;
    while ((largest >> max_mips) > 0)
        max_mips++;
    TRY(case_read_uint_field(p, obj, "layers", 0, 1, 2048, im->dim == IMG_DIM_CUBE ? 6 : 1, &layers));
    if (im->dim == IMG_DIM_3D && layers != 1)
        return case_fail_at(p, "layers", "a 3d image has one layer (got %" PRIu64 ")", layers);
    if (im->dim == IMG_DIM_CUBE && layers % 6)
        return case_fail_at(p, "layers", "a cube image has 6 layers per cube (got %" PRIu64 ")", layers);
    TRY(case_read_uint_field(p, obj, "mip_levels", 0, 1, max_mips, 1, &mips));
    im->layers = (uint32_t)layers;
    im->mip_levels = (uint32_t)mips;
    uint64_t samples;
    TRY(case_read_uint_field(p, obj, "samples", 0, 1, 64, 1, &samples));
    im->samples = (uint32_t)samples;
    const char *bad_samples = img_samples_problem(im);
    if (bad_samples)
        return case_fail_at(p, "samples", "%" PRIu64 ": %s", samples, bad_samples);
    if (img_image_bytes(im) > CASE_MAX_BINDING_BYTES)
        return case_fail_at(p, "extent", "%zu bytes: larger than a binding may be (%zu bytes)", img_image_bytes(im),
                            CASE_MAX_BINDING_BYTES);
    return CASE_OK;
}

/* ---- contents ----------------------------------------------------------------------------------------- */

/* The bit depth and colour type of the PNG at path: bytes 24 and 25 of the file, in the IHDR chunk, which the PNG
 * specification puts first.  0 when the file is shorter. */
static int png_header(const char *path, unsigned *depth, unsigned *colour_type)
{
    uint8_t head[26];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    if (n < sizeof head)
        return 0;
    *depth = head[24];
    *colour_type = head[25];
    return 1;
}

/* Reads a PNG into 8-bit texels of `components` channels (1: gray, 2: gray+alpha, 4: RGBA), as stored: a file of
 * another bit depth or colour type is refused, since libpng would convert it (16 bits to 8 through sRGB, RGB to
 * gray by luminance). */
static case_status read_png(parser *p, const char *path, const img_format_info *fi, uint8_t **out, uint32_t *w,
                            uint32_t *h)
{
    static const char *const colour_names[7] = {[0] = "gray", [2] = "RGB", [3] = "palette", [4] = "gray+alpha",
                                                [6] = "RGBA"};
    const uint32_t components = fi->components;
    const unsigned want_type = components == 1 ? 0 : components == 2 ? 4 : 6;
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&png, path))
        return case_fail_at(p, "file", "cannot read \"%.200s\" as PNG: %s", path, png.message);
    unsigned depth = 0, type = 0;
    if (!png_header(path, &depth, &type) || depth != 8 || type != want_type) {
        png_image_free(&png);
        return case_fail_at(p, "file", "\"%.200s\" holds %u-bit %s; format %s takes a PNG of 8-bit %s, as stored "
                            "(no conversion)", path, depth, type < 7 && colour_names[type] ? colour_names[type] : "?",
                            fi->name, colour_names[want_type]);
    }
    png.format = components == 1 ? PNG_FORMAT_GRAY : components == 2 ? PNG_FORMAT_GA : PNG_FORMAT_RGBA;
    if (png.width > CASE_MAX_IMAGE_EXTENT || png.height > CASE_MAX_IMAGE_EXTENT) {
        png_image_free(&png);
        return case_fail_at(p, "file", "\"%.200s\" is %ux%u: larger than %u on a side", path, png.width, png.height,
                            CASE_MAX_IMAGE_EXTENT);
    }
    size_t bytes = PNG_IMAGE_SIZE(png);
    uint8_t *pixels = malloc(bytes ? bytes : 1);
    if (!pixels) {
        png_image_free(&png);
        return case_fail_nomem(p);
    }
    if (!png_image_finish_read(&png, NULL, pixels, 0, NULL)) {
        free(pixels);
        return case_fail_at(p, "file", "cannot decode \"%.200s\": %s", path, png.message);
    }
    *out = pixels;
    *w = png.width;
    *h = png.height;
    return CASE_OK;
}

/* A PNG gives 8-bit formats whose bytes are the stored values: UNORM, sRGB and UINT of 1, 2 or 4 components. */
static int png_format_ok(const img_format_info *fi)
{
    return fi->bits[0] == 8 && (fi->encoding == IMG_ENC_UNORM || fi->encoding == IMG_ENC_SRGB ||
                                fi->encoding == IMG_ENC_UINT);
}

/* Encodes `count` component values (of b->type: 4 bytes each, 8 for a 64-bit format's, which land in
 * img_texel.u64) into the first texels of the image. */
static void encode_components(case_binding *b, const uint8_t *values, size_t count)
{
    const img_format_info *fi = img_format_get(b->image.format);
    const size_t texel = fi->components * case_type_size(b->type); /* a texel's values */
    size_t texels = count / fi->components;
    for (size_t t = 0; t < texels; t++) {
        img_texel v;
        memset(&v, 0, sizeof v);
        memcpy(v.u, values + t * texel, texel);
        img_encode(b->image.format, &v, b->bytes + t * fi->texel_bytes);
    }
}

static case_status read_contents(parser *p, const cJSON *obj, case_binding *b)
{
    const img_format_info *fi = img_format_get(b->image.format);
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(obj, "data");
    const cJSON *fill = cJSON_GetObjectItemCaseSensitive(obj, "fill");
    size_t components = b->count * fi->components, esize = case_type_size(b->type);
    if (!data && !fill)
        return CASE_OK; /* zeros (or a PNG, already in place) */
    uint8_t *values = calloc(components, esize);
    if (!values)
        return case_fail_nomem(p);
    case_status s = CASE_OK;
    size_t given = components;
    if (data) {
        size_t n = cJSON_IsArray(data) ? (size_t)cJSON_GetArraySize(data) : 0;
        if (!cJSON_IsArray(data))
            s = case_fail_at(p, "data", "expected an array of component values, got %s", case_json_kind(data));
        else if (n == 0 || n > components || n % fi->components)
            s = case_fail_at(p, "data", "%zu values: give whole texels (%u components each), at most the %zu the "
                                        "image holds", n, fi->components, components);
        if (s == CASE_OK) {
            size_t saved = case_path_enter_key(p, "data");
            s = case_read_element_array(p, data, b->type, values);
            case_path_leave(p, saved);
            given = n;
        }
    } else {
        const cJSON *value = cJSON_IsObject(fill) ? cJSON_GetObjectItemCaseSensitive(fill, "value") : NULL;
        if (cJSON_IsArray(value)) {
            /* "value": [r, g, b, a]: one texel repeated */
            size_t saved = case_path_enter_key(p, "fill");
            if ((size_t)cJSON_GetArraySize(value) != fi->components) {
                s = case_fail_at(p, "value", "%d values: a %s texel has %u components", cJSON_GetArraySize(value),
                                 fi->name, fi->components);
            } else if (cJSON_GetArraySize(fill) != 1) {
                s = case_fail(p, "give exactly one of \"value\", \"iota\", \"random\"");
            } else {
                size_t inner = case_path_enter_key(p, "value");
                s = case_read_element_array(p, value, b->type, values);
                case_path_leave(p, inner);
                for (size_t t = 1; s == CASE_OK && t < b->count; t++)
                    memcpy(values + t * fi->components * esize, values, fi->components * esize);
            }
            case_path_leave(p, saved);
        } else {
            case_binding tmp = {.type = b->type, .count = components, .size = components * esize, .bytes = values};
            size_t saved = case_path_enter_key(p, "fill");
            s = case_read_fill(p, fill, &tmp);
            case_path_leave(p, saved);
        }
    }
    if (s == CASE_OK)
        encode_components(b, values, given);
    free(values);
    return s;
}

case_status case_image_read_binding(parser *p, const cJSON *obj, case_binding *b)
{
    static const char *const image_keys[] = {"set", "binding", "element", "name", "kind", "type", "format", "dim",
                                             "extent", "layers", "mip_levels", "samples", "views", "data", "fill", "file",
                                             "uninitialized", "sampler", NULL};
    static const char *const sampler_keys[] = {"set", "binding", "element", "name", "kind", "sampler", NULL};
    TRY(case_check_keys(p, obj, b->kind == CASE_KIND_SAMPLER ? sampler_keys : image_keys));

    if (case_kind_has_sampler(b->kind)) {
        const cJSON *sv = cJSON_GetObjectItemCaseSensitive(obj, "sampler");
        if (!sv)
            return case_fail_at(p, "sampler", "missing (required for a %s; {} takes every default)",
                                case_kind_name(b->kind));
        size_t saved = case_path_enter_key(p, "sampler");
        case_status s = read_sampler(p, sv, &b->sampler);
        case_path_leave(p, saved);
        TRY(s);
        b->has_sampler = 1;
    } else if (cJSON_GetObjectItemCaseSensitive(obj, "sampler")) {
        return case_fail_at(p, "sampler", "only sampler and combined_image_sampler bindings take a sampler");
    }
    if (b->kind == CASE_KIND_SAMPLER) {
        b->type = CASE_TYPE_F32;
        b->bytes = calloc(1, 1); /* no contents; non-NULL like every binding's */
        return b->bytes ? CASE_OK : case_fail_nomem(p);
    }

    const char *format_name, *type_name, *file;
    TRY(case_read_string_field(p, obj, "format", 1, &format_name));
    img_format format;
    if (!img_format_by_name(format_name, &format))
        return case_fail_at(p, "format", "unknown image format \"%.40s\" (expected a Vulkan name such as "
                                         "r8g8b8a8_unorm or a GLSL qualifier such as rgba8; docs/case-format.md "
                                         "lists them)", format_name);
    const img_format_info *fi = img_format_get(format);
    if (img_format_is_depth(format) && b->kind == CASE_KIND_STORAGE_IMAGE)
        return case_fail_at(p, "format", "%s is a depth format: it binds as a sampled_image or "
                                         "combined_image_sampler, not a storage_image", fi->name);
    if (b->has_sampler && b->sampler.compare_op != IMG_COMPARE_NONE && !img_format_is_depth(format))
        return case_fail_at(p, "format", "the sampler has a compare_op, which samples a depth format (d16_unorm, "
                                         "d32_sfloat); this image is %s", fi->name);
    b->type = case_image_type(format);
    TRY(case_read_string_field(p, obj, "type", 0, &type_name));
    if (type_name && strcmp(type_name, case_type_name(b->type)) != 0)
        return case_fail_at(p, "type", "\"%.20s\" does not match the format: a %s image holds %s components",
                            type_name, fi->name, case_type_name(b->type));

    TRY(case_read_string_field(p, obj, "file", 0, &file));
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(obj, "data");
    const cJSON *fill = cJSON_GetObjectItemCaseSensitive(obj, "fill");
    const cJSON *uninit = cJSON_GetObjectItemCaseSensitive(obj, "uninitialized");
    if ((data != NULL) + (fill != NULL) + (file != NULL) > 1)
        return case_fail_at(p, file ? "file" : "fill", "give one of \"data\", \"fill\" or \"file\"");
    if (uninit) {
        if (!cJSON_IsBool(uninit))
            return case_fail_at(p, "uninitialized", "expected true or false, got %s", case_json_kind(uninit));
        b->uninitialized = cJSON_IsTrue(uninit);
        if (b->uninitialized && (data || fill || file))
            return case_fail_at(p, "uninitialized", "an uninitialized image has no contents: leave out \"%s\"",
                                data ? "data" : fill ? "fill" : "file");
    }

    uint8_t *pixels = NULL;
    uint32_t png_w = 0, png_h = 0;
    if (file) {
        if (!png_format_ok(fi))
            return case_fail_at(p, "file", "a PNG gives 8-bit unorm, srgb or uint formats; this image is %s",
                                fi->name);
        char *path = case_resolve_path(p->dir ? p->dir : ".", file);
        if (!path)
            return case_fail_nomem(p);
        case_status s = read_png(p, path, fi, &pixels, &png_w, &png_h);
        free(path);
        TRY(s);
    }

    b->image.format = format;
    case_status s = read_shape(p, obj, &b->image, file != NULL, png_w, png_h);
    if (s == CASE_OK && file && b->image.dim != IMG_DIM_2D && b->image.dim != IMG_DIM_1D)
        s = case_fail_at(p, "file", "a PNG fills a 2d image (this one is %s)", img_dim_name(b->image.dim));
    if (s == CASE_OK && file && b->image.dim == IMG_DIM_1D && png_h != 1)
        s = case_fail_at(p, "file", "a 1d image takes a PNG one row tall (this one is %u)", png_h);
    if (s != CASE_OK) {
        free(pixels);
        return s;
    }
    const char *views;
    s = case_read_string_field(p, obj, "views", 0, &views);
    if (s == CASE_OK && views) {
        b->views = CASE_VIEWS_NONE;
        for (int v = CASE_VIEWS_NONE + 1; case_views_name((case_views)v)[0]; v++)
            if (strcmp(views, case_views_name((case_views)v)) == 0)
                b->views = (case_views)v;
        if (b->views == CASE_VIEWS_NONE)
            s = case_fail_at(p, "views", "\"%.20s\": expected \"mips\" or \"layers\" (each level or layer a "
                             "descriptor of its own)", views);
        else if (img_samples(&b->image) > 1)
            s = case_fail_at(p, "views", "a multisampled image is bound as one view (views of its layers or samples "
                             "are not modelled)");
        else if (b->views == CASE_VIEWS_LAYERS && b->image.mip_levels > 1)
            s = case_fail_at(p, "views", "\"layers\" takes an image of one mip level (this one has %u): a layer's "
                             "levels do not lie together", b->image.mip_levels);
    }
    if (s != CASE_OK) {
        free(pixels);
        return s;
    }
    b->size = img_image_bytes(&b->image);
    b->count = b->size / fi->texel_bytes;
    b->bytes = calloc(b->size ? b->size : 1, 1);
    if (!b->bytes) {
        free(pixels);
        return case_fail_nomem(p);
    }
    b->image.bytes = b->bytes;
    b->image.size = b->size;
    if (pixels) { /* mip 0, layer 0: the PNG's bytes are the texels */
        memcpy(b->bytes, pixels, (size_t)png_w * png_h * fi->texel_bytes);
        free(pixels);
        return CASE_OK;
    }
    return read_contents(p, obj, b);
}

/* ---- expectations ------------------------------------------------------------------------------------- */

case_status case_image_read_expect(parser *p, const cJSON *obj, const case_binding *b, case_expect *e)
{
    if (b->kind == CASE_KIND_SAMPLER)
        return case_fail_at(p, "binding", "set %u binding %u is a sampler: it has no contents to expect", b->set,
                            b->binding);
    const img_format_info *fi = img_format_get(b->image.format);
    const char *type_name;
    TRY(case_read_string_field(p, obj, "type", 0, &type_name));
    if (type_name && strcmp(type_name, case_type_name(b->type)) != 0)
        return case_fail_at(p, "type", "\"%.20s\" does not match the image's component type \"%s\"", type_name,
                            case_type_name(b->type));
    uint64_t mip, layer, sample;
    TRY(case_read_uint_field(p, obj, "mip", 0, 0, b->image.mip_levels - 1, 0, &mip));
    TRY(case_read_uint_field(p, obj, "layer", 0, 0, b->image.layers - 1, 0, &layer));
    TRY(case_read_uint_field(p, obj, "sample", 0, 0, img_samples(&b->image) - 1, 0, &sample));
    e->is_image = 1;
    e->mip = (uint32_t)mip;
    e->layer = (uint32_t)layer;
    e->sample = (uint32_t)sample;
    e->format = b->image.format;
    e->extent[0] = img_mip_size(b->image.width, e->mip);
    e->extent[1] = img_mip_size(b->image.height, e->mip);
    e->extent[2] = img_mip_size(b->image.depth, e->mip);
    e->image_offset = img_subresource_offset(&b->image, e->mip, e->layer * img_samples(&b->image) + e->sample);

    const cJSON *data = cJSON_GetObjectItemCaseSensitive(obj, "data");
    if (!data)
        return case_fail_at(p, "data", "missing (required)");
    if (!cJSON_IsArray(data))
        return case_fail_at(p, "data", "expected an array of component values, got %s", case_json_kind(data));
    size_t n = (size_t)cJSON_GetArraySize(data);
    size_t components = (size_t)e->extent[0] * e->extent[1] * e->extent[2] * fi->components;
    if (n == 0)
        return case_fail_at(p, "data", "empty: give at least one expected texel");
    if (n > components || n % fi->components)
        return case_fail_at(p, "data", "%zu values: give whole texels (%u components each), at most the %zu of mip "
                                       "%u layer %u", n, fi->components, components, e->mip, e->layer);
    TRY(case_read_compare(p, cJSON_GetObjectItemCaseSensitive(obj, "compare"), e));
    e->count = n;
    e->bytes = calloc(n, case_type_size(e->type));
    if (!e->bytes)
        return case_fail_nomem(p);
    size_t saved = case_path_enter_key(p, "data");
    case_status s = case_read_element_array(p, data, e->type, e->bytes);
    case_path_leave(p, saved);
    return s;
}

int case_image_expect_check(const case_expect *e, const uint8_t *actual, size_t actual_size, char *msg,
                            size_t msg_size, size_t *first_bad)
{
    const img_format_info *fi = img_format_get(e->format);
    if (msg && msg_size)
        msg[0] = '\0';
    if (!fi || !e->bytes) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "invalid expectation");
        if (first_bad)
            *first_bad = 0;
        return 0;
    }
    size_t texels = e->count / fi->components;
    size_t need = e->image_offset + texels * fi->texel_bytes;
    if (!actual || actual_size < need) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "set %u binding %u: %zu bytes of image, expected at least %zu (mip %u layer %u)",
                     e->set, e->binding, actual ? actual_size : 0, need, e->mip, e->layer);
        if (first_bad)
            *first_bad = 0;
        return 0;
    }
    const size_t esize = case_type_size(e->type), texel = fi->components * esize;
    uint8_t *values = malloc(e->count * esize);
    if (!values) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "set %u binding %u: out of memory", e->set, e->binding);
        if (first_bad)
            *first_bad = 0;
        return 0;
    }
    for (size_t t = 0; t < texels; t++) {
        img_texel v;
        img_decode(e->format, actual + e->image_offset + t * fi->texel_bytes, &v);
        memcpy(values + t * texel, v.u, texel);
    }
    /* The component values compare as a buffer of F32/U32/I32 (U64/I64) elements would. */
    case_expect flat = *e;
    flat.is_image = 0;
    size_t bad = 0;
    char inner[400] = "";
    int ok = case_expect_check(&flat, values, e->count * esize, inner, sizeof inner, &bad);
    free(values);
    if (ok)
        return 1;
    if (first_bad)
        *first_bad = bad;
    if (msg && msg_size) {
        size_t texel = e->first_texel + bad / fi->components, w = e->extent[0], h = e->extent[1];
        char where[32];
        snprintf(where, sizeof where, e->sample ? "sample %u" : "mip %u", e->sample ? e->sample : e->mip);
        snprintf(msg, msg_size, "%s [%s layer %u, texel (%zu, %zu, %zu) component %zu of %s]", inner, where,
                 e->layer, texel % w, texel / w % h, texel / (w * h), bad % fi->components, fi->name);
    }
    return 0;
}

/* ---- components of an image binding ------------------------------------------------------------------- */

case_status case_image_components(const case_binding *b, uint32_t mip, uint32_t layer, uint8_t **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    if (!case_kind_is_image(b->kind))
        return CASE_ERR_FIELD;
    const img_image *im = &b->image;
    const img_format_info *fi = img_format_get(im->format);
    if (!fi || mip >= im->mip_levels || layer >= img_planes(im) || !b->bytes)
        return CASE_ERR_FIELD;
    size_t texels = img_subresource_bytes(im, mip) / fi->texel_bytes;
    size_t values = texels * fi->components;
    const size_t texel = fi->components * case_type_size(b->type);
    uint8_t *dst = malloc(values ? texels * texel : 1);
    if (!dst)
        return CASE_ERR_NOMEM;
    const uint8_t *src = b->bytes + img_subresource_offset(im, mip, layer);
    for (size_t t = 0; t < texels; t++) {
        img_texel v;
        img_decode(im->format, src + t * fi->texel_bytes, &v);
        memcpy(dst + t * texel, v.u, texel);
    }
    *out = dst;
    *count = values;
    return CASE_OK;
}

/* ---- --dump ------------------------------------------------------------------------------------------- */

/* dump.json -> dump.set0.binding2.png (the dump's name without its extension). */
static void png_path_of(const char *dump_path, const case_binding *b, char *out, size_t size)
{
    const char *slash = strrchr(dump_path, '/');
    const char *dot = strrchr(dump_path, '.');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - dump_path) : strlen(dump_path);
    snprintf(out, size, "%.*s.set%u.binding%u.png", (int)stem, dump_path, b->set, b->binding);
}

int case_image_write_png(const char *path, const case_binding *b, const uint8_t *bytes, char *err, size_t err_size)
{
    const img_format_info *fi = img_format_get(b->image.format);
    if (!fi || !png_format_ok(fi) || (b->image.dim != IMG_DIM_2D && b->image.dim != IMG_DIM_1D)) {
        snprintf(err, err_size, "%s: only 8-bit unorm, srgb or uint 1d/2d images are written as PNG", path);
        return 0;
    }
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    png.width = b->image.width;
    png.height = b->image.height;
    png.format = fi->components == 1 ? PNG_FORMAT_GRAY : fi->components == 2 ? PNG_FORMAT_GA : PNG_FORMAT_RGBA;
    if (!png_image_write_to_file(&png, path, 0, bytes, 0, NULL)) {
        snprintf(err, err_size, "%s: cannot write PNG: %s", path, png.message);
        return 0;
    }
    return 1;
}

int case_image_dump(FILE *f, const char *dump_path, const case_binding *b, const uint8_t *bytes, char *err,
                    size_t err_size)
{
    fputc('{', f);
    case_write_descriptor(f, b);
    fprintf(f, ", \"kind\": \"%s\"", case_kind_name(b->kind));
    if (!case_kind_is_image(b->kind)) {
        fputs("}", f);
        return 1;
    }
    const img_image *im = &b->image;
    const img_format_info *fi = img_format_get(im->format);
    fprintf(f, ", \"format\": \"%s\", \"dim\": \"%s\", \"extent\": [%u, %u, %u], \"layers\": %u, \"mip_levels\": %u",
            fi->name, img_dim_name(im->dim), im->width, im->height, im->depth, im->layers, im->mip_levels);
    if (img_samples(im) > 1)
        fprintf(f, ", \"samples\": %u", img_samples(im));
    if (b->views != CASE_VIEWS_NONE)
        fprintf(f, ", \"views\": \"%s\"", case_views_name(b->views));
    int ok = 1;
    if (dump_path && png_format_ok(fi) && (im->dim == IMG_DIM_2D || im->dim == IMG_DIM_1D)) {
        char png_path[4096];
        png_path_of(dump_path, b, png_path, sizeof png_path);
        ok = case_image_write_png(png_path, b, bytes, err, err_size);
        const char *name = strrchr(png_path, '/');
        fputs(", \"png\": ", f);
        cJSON *s = cJSON_CreateString(name ? name + 1 : png_path); /* beside the dump, mip 0 layer 0 (sample 0) */
        char *text = s ? cJSON_PrintUnformatted(s) : NULL;
        fputs(text ? text : "\"\"", f);
        free(text);
        cJSON_Delete(s);
    }
    /* Every mip, layer and sample in packed order, as component values a case's "data" takes back. */
    fprintf(f, ", \"type\": \"%s\", \"data\": [", case_type_name(b->type));
    size_t texels = b->size / fi->texel_bytes;
    char text[64];
    for (size_t t = 0; t < texels; t++) {
        img_texel v;
        img_decode(im->format, bytes + t * fi->texel_bytes, &v);
        for (uint32_t c = 0; c < fi->components; c++) {
            case_format_element(b->type, (const uint8_t *)v.u + c * case_type_size(b->type), text, sizeof text);
            fprintf(f, "%s%s", t || c ? ", " : "", text);
        }
    }
    fputs("]}", f);
    return ok;
}
