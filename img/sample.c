/*
 * img/sample.c — the sampler, following the Vulkan specification's "Texel Filtering"
 * chapter step by step: cube face selection (the major-axis table), level-of-detail
 * (bias, min/max clamp, mag/min filter choice, nearest or linear between mips),
 * unnormalization (u = s * width), the wrapping operation per address mode, border
 * texels, nearest and linear filtering, and gather.
 *
 * Precision: Vulkan leaves the sub-texel precision of linear filtering open
 * (subTexelPrecisionBits, lavapipe: 8).  wavelab filters in float32 with the exact
 * weights alpha = frac(u - 0.5) and sums the weighted texels in one fixed order
 * (i0j0, i1j0, i0j1, i1j1, then the k1 slice), so results are the same bits on every
 * host; docs/quirks.md gives the tolerance against a device.  Integer formats are
 * never filtered (Vulkan forbids linear filtering of them): they always read the
 * nearest texel.
 */
#include "img/img.h"

#include <math.h>
#include <string.h>

/* Floor of a float coordinate as an integer; NaN reads as 0 and huge values saturate, so no
 * conversion overflows (the specification leaves such coordinates undefined). */
static int32_t floor_to_int(float x)
{
    if (isnan(x))
        return 0;
    if (x >= 1073741824.0f)
        return 1073741824;
    if (x <= -1073741824.0f)
        return -1073741824;
    return (int32_t)floorf(x);
}

/* floor_to_int without floorf, which baseline x86-64 (no SSE4.1 roundss) expands into a dozen instructions:
 * truncate, then step down where truncation went up.  The same value for every input: below 2^23 in
 * magnitude the truncated integer converts back exactly, and from 2^23 on every float is an integer. */
static inline int32_t floor_to_int_fast(float x)
{
    if (isnan(x))
        return 0;
    if (x >= 1073741824.0f)
        return 1073741824;
    if (x <= -1073741824.0f)
        return -1073741824;
    int32_t t = (int32_t)x;
    return t - ((float)t > x);
}

static int32_t floor_mod(int32_t a, int32_t n)
{
    int32_t r = a % n;
    return r < 0 ? r + n : r;
}

static int32_t mirror(int32_t n)
{
    return n >= 0 ? n : -(1 + n);
}

/* The wrapping operation: the texel index after the address mode, or -1 for a border texel. */
static inline int32_t wrap(int mode, int32_t i, int32_t size)
{
    switch (mode) {
    case IMG_ADDRESS_REPEAT: return floor_mod(i, size);
    case IMG_ADDRESS_MIRRORED_REPEAT: return (size - 1) - mirror(floor_mod(i, 2 * size) - size);
    case IMG_ADDRESS_CLAMP_TO_EDGE: return i < 0 ? 0 : i >= size ? size - 1 : i;
    case IMG_ADDRESS_CLAMP_TO_BORDER: return i < 0 || i >= size ? -1 : i;
    case IMG_ADDRESS_MIRROR_CLAMP_TO_EDGE: {
        int32_t m = mirror(i);
        return m >= size ? size - 1 : m;
    }
    default: return i < 0 ? 0 : i >= size ? size - 1 : i;
    }
}

static void border_texel(const img_image *im, int border, img_texel *out)
{
    const img_format_info *fi = img_format_get(im->format);
    int opaque = border >= IMG_BORDER_FLOAT_OPAQUE_BLACK, white = border >= IMG_BORDER_FLOAT_OPAQUE_WHITE;
    for (int c = 0; c < 4; c++) {
        int one = c == 3 ? opaque : white;
        if (fi->numeric == IMG_NUM_FLOAT)
            out->f[c] = one ? 1.0f : 0.0f;
        else
            out->u[c] = one ? 1u : 0u;
    }
}

static int axes_of(img_dim dim)
{
    return dim == IMG_DIM_1D ? 1 : dim == IMG_DIM_3D ? 3 : 2;
}

/* Cube face selection (Vulkan "Cube Map Face Selection"): the face, and s, t on it in [0, 1].
 * Ties between equal magnitudes go to z, then y, then x. */
static int cube_face(const float dir[3], float *s, float *t)
{
    float ax = fabsf(dir[0]), ay = fabsf(dir[1]), az = fabsf(dir[2]);
    float sc, tc, ma;
    int face;
    if (az >= ax && az >= ay) {
        face = dir[2] >= 0 ? 4 : 5;
        sc = dir[2] >= 0 ? dir[0] : -dir[0];
        tc = -dir[1];
        ma = az;
    } else if (ay >= ax) {
        face = dir[1] >= 0 ? 2 : 3;
        sc = dir[0];
        tc = dir[1] >= 0 ? dir[2] : -dir[2];
        ma = ay;
    } else {
        face = dir[0] >= 0 ? 0 : 1;
        sc = dir[0] >= 0 ? -dir[2] : dir[2];
        tc = -dir[1];
        ma = ax;
    }
    if (ma == 0.0f) { /* the zero vector: undefined in Vulkan; wavelab reads the middle of face +z */
        *s = *t = 0.5f;
        return 4;
    }
    *s = 0.5f * (sc / ma) + 0.5f;
    *t = 0.5f * (tc / ma) + 0.5f;
    return face;
}

/* The array layer of coord[3]: round to nearest even, clamped to the layers (cube arrays: per cube). */
static uint32_t array_layer(float a, uint32_t count)
{
    if (isnan(a) || a <= 0.0f || count <= 1)
        return 0;
    float r = nearbyintf(a); /* default rounding: ties to even, as the specification's RNE */
    return r >= (float)(count - 1) ? count - 1 : (uint32_t)r;
}

/* The texel at integer coordinates after wrapping; a border texel when any axis falls outside. */
static void wrapped_texel(const img_image *im, const img_sampler *s, const int32_t idx[3], uint32_t layer,
                          uint32_t mip, int cube, img_texel *out)
{
    int32_t size[3] = {(int32_t)img_mip_size(im->width, mip), (int32_t)img_mip_size(im->height, mip),
                       (int32_t)img_mip_size(im->depth, mip)};
    int32_t at[3] = {0, 0, 0};
    int axes = axes_of(im->dim);
    for (int a = 0; a < axes; a++) {
        /* Cube faces are sampled as clamp to edge (wavelab does not filter across faces). */
        at[a] = wrap(cube ? IMG_ADDRESS_CLAMP_TO_EDGE : s->address[a], idx[a], size[a]);
        if (at[a] < 0) {
            border_texel(im, s->border, out);
            return;
        }
    }
    img_fetch(im, at, layer, mip, out);
}

typedef struct footprint {
    int32_t i0[3];
    float alpha[3]; /* weight of i0 + 1 on each axis */
} footprint;

/* Unnormalized coordinates of level mip and the linear footprint's corner and weights. */
static void linear_footprint(const img_image *im, const img_sampler *s, const float st[3], uint32_t mip, footprint *fp)
{
    uint32_t size[3] = {img_mip_size(im->width, mip), img_mip_size(im->height, mip), img_mip_size(im->depth, mip)};
    memset(fp, 0, sizeof *fp);
    for (int a = 0; a < axes_of(im->dim); a++) {
        float u = s->unnormalized ? st[a] : st[a] * (float)size[a];
        float shifted = u - 0.5f;
        fp->i0[a] = floor_to_int(shifted);
        float frac = isnan(shifted) ? 0.0f : shifted - floorf(shifted);
        fp->alpha[a] = frac >= 0.0f && frac < 1.0f ? frac : 0.0f; /* huge coordinates: 0 */
    }
}

/* One level's filtered value (nearest or linear). */
static void filter_level(const img_image *im, const img_sampler *s, const float st[3], uint32_t layer, uint32_t mip,
                         int linear, int cube, img_texel *out)
{
    const img_format_info *fi = img_format_get(im->format);
    int axes = axes_of(im->dim);
    if (!linear || fi->numeric != IMG_NUM_FLOAT) {
        uint32_t size[3] = {img_mip_size(im->width, mip), img_mip_size(im->height, mip), img_mip_size(im->depth, mip)};
        int32_t idx[3] = {0, 0, 0};
        for (int a = 0; a < axes; a++)
            idx[a] = floor_to_int(s->unnormalized ? st[a] : st[a] * (float)size[a]);
        wrapped_texel(im, s, idx, layer, mip, cube, out);
        return;
    }
    footprint fp;
    linear_footprint(im, s, st, mip, &fp);
    float sum[4] = {0, 0, 0, 0};
    int corners = 1 << axes;
    for (int corner = 0; corner < corners; corner++) {
        int32_t idx[3] = {0, 0, 0};
        float weight = 1.0f;
        for (int a = 0; a < axes; a++) {
            int high = corner >> a & 1;
            idx[a] = fp.i0[a] + high;
            weight *= high ? fp.alpha[a] : 1.0f - fp.alpha[a];
        }
        img_texel t;
        wrapped_texel(im, s, idx, layer, mip, cube, &t);
        for (int c = 0; c < 4; c++)
            sum[c] += weight * t.f[c];
    }
    memcpy(out->f, sum, sizeof sum);
}

/* Sampling coordinates on one 2D/3D image: s,t,r in st[], the layer, and whether it is a cube face. */
static void surface_coords(const img_image *im, const float coord[4], float st[3], uint32_t *layer, int *cube)
{
    *cube = im->dim == IMG_DIM_CUBE;
    if (*cube) {
        int face = cube_face(coord, &st[0], &st[1]);
        st[2] = 0.0f;
        *layer = array_layer(coord[3], im->layers / 6) * 6 + (uint32_t)face;
    } else {
        st[0] = coord[0];
        st[1] = coord[1];
        st[2] = coord[2];
        *layer = array_layer(coord[3], im->layers);
    }
}

void img_sample(const img_image *im, const img_sampler *s, const float coord[4], float lod, img_texel *out)
{
    float st[3];
    uint32_t layer;
    int cube;
    surface_coords(im, coord, st, &layer, &cube);

    /* Level of detail: the shader's lod plus the sampler's bias, clamped to [min_lod, max_lod]. */
    float lambda = (isnan(lod) ? 0.0f : lod) + s->mip_lod_bias;
    if (lambda > s->max_lod)
        lambda = s->max_lod;
    if (lambda < s->min_lod)
        lambda = s->min_lod;
    int linear = lambda <= 0.0f ? s->mag_filter == IMG_FILTER_LINEAR : s->min_filter == IMG_FILTER_LINEAR;
    uint32_t q = im->mip_levels ? im->mip_levels - 1 : 0;
    if (s->unnormalized) { /* unnormalized coordinates read level 0 only */
        filter_level(im, s, st, layer, 0, linear, cube, out);
        return;
    }
    float d = lambda < 0.0f ? 0.0f : lambda > (float)q ? (float)q : lambda;
    if (s->mipmap_mode == IMG_MIPMAP_NEAREST || lambda <= 0.0f) {
        /* nearest level: ceil(d + 0.5) - 1, so d = 0.5 rounds down */
        uint32_t level = (uint32_t)(ceilf(d + 0.5f) - 1.0f);
        filter_level(im, s, st, layer, level > q ? q : level, linear, cube, out);
        return;
    }
    uint32_t hi = (uint32_t)floorf(d), lo = hi + 1 > q ? q : hi + 1;
    float delta = d - floorf(d);
    img_texel a, b;
    filter_level(im, s, st, layer, hi, linear, cube, &a);
    filter_level(im, s, st, layer, lo, linear, cube, &b);
    const img_format_info *fi = img_format_get(im->format);
    if (fi->numeric != IMG_NUM_FLOAT || delta == 0.0f) {
        *out = a;
        return;
    }
    for (int c = 0; c < 4; c++)
        out->f[c] = (1.0f - delta) * a.f[c] + delta * b.f[c];
}

void img_gather(const img_image *im, const img_sampler *s, const float coord[4], int component, img_texel *out)
{
    float st[3];
    uint32_t layer;
    int cube;
    surface_coords(im, coord, st, &layer, &cube);
    footprint fp;
    linear_footprint(im, s, st, 0, &fp);
    /* The four texels of the 2x2 footprint in the order the specification gives: i0j1, i1j1, i1j0, i0j0. */
    static const int order[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    int c = component < 0 || component > 3 ? 0 : component;
    for (int k = 0; k < 4; k++) {
        int32_t idx[3] = {fp.i0[0] + order[k][0], fp.i0[1] + order[k][1], fp.i0[2]};
        img_texel t;
        wrapped_texel(im, s, idx, layer, 0, cube, &t);
        out->u[k] = t.u[c];
    }
}

/* ---- through a view ------------------------------------------------------------------------------------
 * The same steps as above, in the same order and with the same float expressions, but with each level's
 * extent and offsets read from the view (resolved once per instruction) and the texel decoded by the
 * format's own decoder: the per-sample calls to img_mip_size, img_format_get, img_subresource_offset and
 * img_fetch's bounds check were most of a sample's cost.  tests/test_image.c checks the bits against the
 * functions above. */

static void view_decode(const img_view *v, const uint8_t *p, img_texel *out)
{
    if (v->decode)
        v->decode(p, out);
    else
        img_decode(v->im->format, p, out);
}

/* wrapped_texel through the view. */
static void view_wrapped_texel(const img_view *v, const img_sampler *s, const int32_t idx[3], uint32_t layer,
                               uint32_t mip, int cube, img_texel *out)
{
    const img_view_level *L = &v->level[mip];
    int32_t at[3] = {0, 0, 0};
    const int axes = axes_of(v->im->dim);
    for (int a = 0; a < axes; a++) {
        at[a] = wrap(cube ? IMG_ADDRESS_CLAMP_TO_EDGE : s->address[a], idx[a], L->size[a]);
        if (at[a] < 0) {
            border_texel(v->im, s->border, out);
            return;
        }
    }
    /* img_fetch's bounds check (wrap keeps the indices inside; the layer is clamped already) */
    if (at[0] >= L->size[0] || at[1] >= L->size[1] || at[2] >= L->size[2] || layer >= v->im->layers) {
        memset(out, 0, sizeof *out);
        return;
    }
    view_decode(v, v->im->bytes + img_view_texel_offset(v, (uint32_t)at[0], (uint32_t)at[1], (uint32_t)at[2], layer, mip),
                out);
}

/* linear_footprint through the view. */
static void view_footprint(const img_view *v, const img_sampler *s, const float st[3], uint32_t mip, footprint *fp)
{
    const img_view_level *L = &v->level[mip];
    memset(fp, 0, sizeof *fp);
    for (int a = 0; a < axes_of(v->im->dim); a++) {
        float u = s->unnormalized ? st[a] : st[a] * L->size_f[a];
        float shifted = u - 0.5f;
        fp->i0[a] = floor_to_int_fast(shifted);
        /* shifted - floorf(shifted): i0 is that floor unless saturated, where the general path's frac is 0 or
         * NaN and its alpha 0 */
        float frac = fabsf(shifted) < 1073741824.0f ? shifted - (float)fp->i0[a] : 0.0f;
        fp->alpha[a] = frac >= 0.0f && frac < 1.0f ? frac : 0.0f;
    }
}

/* filter_level through the view. */
static void view_filter_level(const img_view *v, const img_sampler *s, const float st[3], uint32_t layer,
                              uint32_t mip, int linear, int cube, img_texel *out)
{
    const int axes = axes_of(v->im->dim);
    if (!linear || v->fi->numeric != IMG_NUM_FLOAT) {
        const img_view_level *L = &v->level[mip];
        int32_t idx[3] = {0, 0, 0};
        for (int a = 0; a < axes; a++)
            idx[a] = floor_to_int_fast(s->unnormalized ? st[a] : st[a] * L->size_f[a]);
        view_wrapped_texel(v, s, idx, layer, mip, cube, out);
        return;
    }
    footprint fp;
    view_footprint(v, s, st, mip, &fp);
    float sum[4] = {0, 0, 0, 0};
    const int corners = 1 << axes;
    for (int corner = 0; corner < corners; corner++) {
        int32_t idx[3] = {0, 0, 0};
        float weight = 1.0f;
        for (int a = 0; a < axes; a++) {
            int high = corner >> a & 1;
            idx[a] = fp.i0[a] + high;
            weight *= high ? fp.alpha[a] : 1.0f - fp.alpha[a];
        }
        img_texel t;
        view_wrapped_texel(v, s, idx, layer, mip, cube, &t);
        for (int c = 0; c < 4; c++)
            sum[c] += weight * t.f[c];
    }
    memcpy(out->f, sum, sizeof sum);
}

/* One level of a 2D image at normalized coordinates: view_filter_level with the axis loops unrolled, the
 * common case of SampleLevel (nearest: a texel; linear: the bilinear footprint, its weights and sums formed
 * in the same order as the loop's, so the same bits). */
static void view_filter_2d(const img_view *v, const img_sampler *s, const float st[3], uint32_t layer,
                           uint32_t mip, int linear, img_texel *out)
{
    const img_image *im = v->im;
    const img_view_level *L = &v->level[mip];
    const int no_layer = layer >= im->layers; /* img_fetch's check, after the border's (as wrapped_texel) */
    const uint8_t *base = im->bytes + L->offset + layer * L->layer_bytes;
    if (!linear || v->fi->numeric != IMG_NUM_FLOAT) {
        int32_t x = wrap(s->address[0], floor_to_int_fast(st[0] * L->size_f[0]), L->size[0]);
        int32_t y = wrap(s->address[1], floor_to_int_fast(st[1] * L->size_f[1]), L->size[1]);
        if (x < 0 || y < 0) {
            border_texel(im, s->border, out);
            return;
        }
        if (x >= L->size[0] || y >= L->size[1] || no_layer) { /* img_fetch's bounds check; wrap keeps x, y inside */
            memset(out, 0, sizeof *out);
            return;
        }
        view_decode(v, base + (size_t)y * L->row_bytes + (size_t)x * v->texel_bytes, out);
        return;
    }
    int32_t i0[2];
    float alpha[2];
    for (int a = 0; a < 2; a++) { /* view_footprint */
        float shifted = st[a] * L->size_f[a] - 0.5f;
        i0[a] = floor_to_int_fast(shifted);
        /* shifted - floorf(shifted): i0 is that floor unless saturated, where the general path's frac is 0 or
         * NaN and its alpha 0 */
        float frac = fabsf(shifted) < 1073741824.0f ? shifted - (float)i0[a] : 0.0f;
        alpha[a] = frac >= 0.0f && frac < 1.0f ? frac : 0.0f;
    }
    int32_t xs[2], ys[2];
    for (int k = 0; k < 2; k++) {
        xs[k] = wrap(s->address[0], i0[0] + k, L->size[0]);
        ys[k] = wrap(s->address[1], i0[1] + k, L->size[1]);
    }
    float sum[4] = {0, 0, 0, 0};
    for (int corner = 0; corner < 4; corner++) {
        const int hx = corner & 1, hy = corner >> 1;
        float weight = 1.0f;
        weight *= hx ? alpha[0] : 1.0f - alpha[0];
        weight *= hy ? alpha[1] : 1.0f - alpha[1];
        const int32_t x = xs[hx], y = ys[hy];
        img_texel t;
        if (x < 0 || y < 0)
            border_texel(im, s->border, &t);
        else if (x >= L->size[0] || y >= L->size[1] || no_layer)
            memset(&t, 0, sizeof t);
        else
            view_decode(v, base + (size_t)y * L->row_bytes + (size_t)x * v->texel_bytes, &t);
        for (int c = 0; c < 4; c++)
            sum[c] += weight * t.f[c];
    }
    memcpy(out->f, sum, sizeof sum);
}

void img_view_lod(const img_view *v, const img_sampler *s, float lod, img_lod *plan)
{
    float lambda = (isnan(lod) ? 0.0f : lod) + s->mip_lod_bias;
    if (lambda > s->max_lod)
        lambda = s->max_lod;
    if (lambda < s->min_lod)
        lambda = s->min_lod;
    plan->linear = lambda <= 0.0f ? s->mag_filter == IMG_FILTER_LINEAR : s->min_filter == IMG_FILTER_LINEAR;
    plan->level[0] = plan->level[1] = 0;
    plan->delta = 0.0f;
    plan->blend = 0;
    const uint32_t q = v->levels ? v->levels - 1 : 0;
    if (s->unnormalized) /* unnormalized coordinates read level 0 only */
        return;
    float d = lambda < 0.0f ? 0.0f : lambda > (float)q ? (float)q : lambda;
    if (s->mipmap_mode == IMG_MIPMAP_NEAREST || lambda <= 0.0f) {
        uint32_t level = (uint32_t)(ceilf(d + 0.5f) - 1.0f);
        plan->level[0] = level > q ? q : level;
        return;
    }
    uint32_t hi = (uint32_t)floorf(d), lo = hi + 1 > q ? q : hi + 1;
    float delta = d - floorf(d);
    plan->level[0] = hi;
    plan->level[1] = lo;
    plan->delta = delta;
    /* img_sample reads the second level only to blend it: integers, or a whole d, take the first's value */
    plan->blend = v->fi && v->fi->numeric == IMG_NUM_FLOAT && delta != 0.0f;
}

void img_view_sample_lod(const img_view *v, const img_sampler *s, const float coord[4], const img_lod *plan,
                         img_texel *out)
{
    const img_image *im = v->im;
    const int fast_2d = im->dim == IMG_DIM_2D && !s->unnormalized;
    float st[3];
    uint32_t layer;
    int cube;
    if (fast_2d) { /* surface_coords of a 2D image */
        st[0] = coord[0], st[1] = coord[1], st[2] = coord[2];
        layer = array_layer(coord[3], im->layers);
        cube = 0;
    } else {
        surface_coords(im, coord, st, &layer, &cube);
    }
    img_texel a, b;
    if (fast_2d)
        view_filter_2d(v, s, st, layer, plan->level[0], plan->linear, plan->blend ? &a : out);
    else
        view_filter_level(v, s, st, layer, plan->level[0], plan->linear, cube, plan->blend ? &a : out);
    if (!plan->blend)
        return;
    if (fast_2d)
        view_filter_2d(v, s, st, layer, plan->level[1], plan->linear, &b);
    else
        view_filter_level(v, s, st, layer, plan->level[1], plan->linear, cube, &b);
    const float delta = plan->delta;
    for (int c = 0; c < 4; c++)
        out->f[c] = (1.0f - delta) * a.f[c] + delta * b.f[c];
}

void img_view_sample(const img_view *v, const img_sampler *s, const float coord[4], float lod, img_texel *out)
{
    if (!v->levels) {
        img_sample(v->im, s, coord, lod, out);
        return;
    }
    img_lod plan;
    img_view_lod(v, s, lod, &plan);
    img_view_sample_lod(v, s, coord, &plan, out);
}

void img_view_gather(const img_view *v, const img_sampler *s, const float coord[4], int component, img_texel *out)
{
    if (!v->levels) {
        img_gather(v->im, s, coord, component, out);
        return;
    }
    float st[3];
    uint32_t layer;
    int cube;
    surface_coords(v->im, coord, st, &layer, &cube);
    footprint fp;
    view_footprint(v, s, st, 0, &fp);
    static const int order[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    int c = component < 0 || component > 3 ? 0 : component;
    for (int k = 0; k < 4; k++) {
        int32_t idx[3] = {fp.i0[0] + order[k][0], fp.i0[1] + order[k][1], fp.i0[2]};
        img_texel t;
        view_wrapped_texel(v, s, idx, layer, 0, cube, &t);
        out->u[k] = t.u[c];
    }
}
