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
 *
 * Cube maps ignore the address modes: nearest filtering clamps to the edge of the face, linear filtering
 * and gather read a tap that falls off the face from the adjacent face (Vulkan's "Cube Map Edge
 * Handling"); a linear tap off two edges at once (a corner) is the mean of the three texels that meet
 * there (gather of an integer format: the face's corner texel).
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

/* Integer texel coordinate i on axis a moved by a sampling offset (Vulkan, "Texel Coordinate Offset": ConstOffset
 * is added to the integer texel coordinates of the level read, after the floor); off NULL: none. */
static inline int32_t offset_texel(int32_t i, const int32_t *off, int a)
{
    return off ? i + off[a] : i;
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

/* Vulkan's "Depth Compare Operation" on a texel (already replaced by the border where it falls outside): R
 * becomes 1.0 where s->dref compares true against it and 0.0 where not; G, B 0, A 1.  Nothing without a
 * compare_op. */
static void depth_compare(const img_image *im, const img_sampler *s, img_texel *t)
{
    if (s->compare_op == IMG_COMPARE_NONE)
        return;
    float ref = s->dref, d = t->f[0];
    if (img_format_get(im->format)->encoding == IMG_ENC_UNORM) /* Dref clamped for a fixed-point format */
        ref = ref < 0.0f ? 0.0f : ref > 1.0f ? 1.0f : ref;
    int pass;
    switch (s->compare_op) {
    case IMG_COMPARE_LESS: pass = ref < d; break;
    case IMG_COMPARE_EQUAL: pass = ref == d; break;
    case IMG_COMPARE_LESS_OR_EQUAL: pass = ref <= d; break;
    case IMG_COMPARE_GREATER: pass = ref > d; break;
    case IMG_COMPARE_NOT_EQUAL: pass = ref != d; break;
    case IMG_COMPARE_GREATER_OR_EQUAL: pass = ref >= d; break;
    case IMG_COMPARE_ALWAYS: pass = 1; break;
    default: pass = 0; break; /* never */
    }
    t->f[0] = pass ? 1.0f : 0.0f;
    t->f[1] = t->f[2] = 0.0f;
    t->f[3] = 1.0f;
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

/* How a sample treats the edges of a cube face: not a cube, clamp to the edge (nearest), take the texel
 * from the adjacent face (gather of an integer format: a corner tap clamps), or that and a corner tap as
 * the mean of the three texels that meet at the cube's corner (linear filtering and gather of a float
 * format, as lavapipe does). */
enum { CUBE_NONE, CUBE_CLAMP, CUBE_SEAMLESS, CUBE_FILTER };

/* Each face's normal N and the directions U, V in which its s and t grow, in Vulkan's layer order
 * +x, -x, +y, -y, +z, -z: the "Cube Map Face Selection" table read as vectors (on +x, sc = -rz: U = -z). */
static const int8_t cube_basis[6][3][3] = {
    {{1, 0, 0}, {0, 0, -1}, {0, -1, 0}}, {{-1, 0, 0}, {0, 0, 1}, {0, -1, 0}},
    {{0, 1, 0}, {1, 0, 0}, {0, 0, 1}},   {{0, -1, 0}, {1, 0, 0}, {0, 0, -1}},
    {{0, 0, 1}, {1, 0, 0}, {0, -1, 0}},  {{0, 0, -1}, {-1, 0, 0}, {0, -1, 0}},
};

/* Cube map derivatives (Vulkan, "Cube Map Derivative Computation"): on the face the direction selects, with sc, tc
 * and the major axis rm read through cube_basis (U, V, N), s = sc / 2rm + 1/2 gives
 * ds = (rm dsc - sc drm) / 2rm^2 for a direction gradient d (dsc = U.d, drm = N.d), and t likewise. */
void img_cube_gradients(const float dir[3], const float ddx[3], const float ddy[3], float dx[2], float dy[2])
{
    float s, t;
    const int8_t(*b)[3] = cube_basis[cube_face(dir, &s, &t)];
    const float *g[2] = {ddx, ddy};
    float *out[2] = {dx, dy};
    float rm = 0, sc = 0, tc = 0;
    for (int k = 0; k < 3; k++)
        rm += (float)b[0][k] * dir[k], sc += (float)b[1][k] * dir[k], tc += (float)b[2][k] * dir[k];
    for (int j = 0; j < 2; j++) {
        float drm = 0, dsc = 0, dtc = 0;
        for (int k = 0; k < 3; k++)
            drm += (float)b[0][k] * g[j][k], dsc += (float)b[1][k] * g[j][k], dtc += (float)b[2][k] * g[j][k];
        const float denom = 2.0f * rm * rm;
        out[j][0] = denom > 0 ? (rm * dsc - sc * drm) / denom : 0.0f; /* the zero vector: no gradient */
        out[j][1] = denom > 0 ? (rm * dtc - tc * drm) / denom : 0.0f;
    }
}

/* Cube map edge handling: a linear tap one texel off an edge of face (*layer % 6) moves to the texel one
 * step inside the adjacent face (the cube unfolded about the shared edge), changing idx and *layer.  Exact
 * integer arithmetic in half-texel units, where a face spans [-size, size] and texel i's centre is at
 * 2i + 1 - size.  A tap off two edges (a corner) is left as it is: the caller clamps it. */
static void cube_edge(int32_t size, int32_t idx[3], uint32_t *layer)
{
    const int off_u = idx[0] < 0 ? -1 : idx[0] >= size ? 1 : 0, off_v = idx[1] < 0 ? -1 : idx[1] >= size ? 1 : 0;
    if ((off_u != 0) == (off_v != 0))
        return; /* on the face (both 0), or a corner */
    if (idx[0] < -1 || idx[0] > size || idx[1] < -1 || idx[1] > size)
        return; /* further out than a footprint reaches (saturated, non-finite coordinates): clamped */
    const uint32_t face = *layer % 6;
    const int8_t(*b)[3] = cube_basis[face];
    int32_t sc = 2 * idx[0] + 1 - size, tc = 2 * idx[1] + 1 - size;
    /* the off axis: how far past the edge (d), which way (the new face's normal) */
    int32_t d = off_u ? (sc < 0 ? -sc : sc) - size : (tc < 0 ? -tc : tc) - size;
    int32_t p[3], normal[3];
    for (int k = 0; k < 3; k++) {
        normal[k] = off_u ? off_u * b[1][k] : off_v * b[2][k];
        p[k] = b[0][k] * (size - d) + normal[k] * size + (off_u ? tc * b[2][k] : sc * b[1][k]);
    }
    uint32_t to = face;
    for (uint32_t f = 0; f < 6; f++)
        if (cube_basis[f][0][0] == normal[0] && cube_basis[f][0][1] == normal[1] && cube_basis[f][0][2] == normal[2])
            to = f;
    const int8_t(*nb)[3] = cube_basis[to];
    int32_t sc2 = p[0] * nb[1][0] + p[1] * nb[1][1] + p[2] * nb[1][2];
    int32_t tc2 = p[0] * nb[2][0] + p[1] * nb[2][1] + p[2] * nb[2][2];
    idx[0] = (sc2 + size - 1) / 2;
    idx[1] = (tc2 + size - 1) / 2;
    *layer = *layer - face + to;
}

/* The three texels that meet at the cube corner a tap off two edges points at: the face's corner texel
 * and its neighbours across the two edges.  Returns 0 unless idx is off both edges. */
static int cube_corner(int32_t size, const int32_t idx[3], uint32_t layer, int32_t at[3][3], uint32_t layers[3])
{
    int off_u = idx[0] == -1 || idx[0] == size, off_v = idx[1] == -1 || idx[1] == size;
    if (!off_u || !off_v)
        return 0; /* on the face, off one edge, or further out than a footprint reaches (clamped) */
    int32_t ci = idx[0] < 0 ? 0 : size - 1, cj = idx[1] < 0 ? 0 : size - 1;
    const int32_t taps[3][2] = {{ci, cj}, {idx[0], cj}, {ci, idx[1]}};
    for (int k = 0; k < 3; k++) {
        at[k][0] = taps[k][0], at[k][1] = taps[k][1], at[k][2] = 0;
        layers[k] = layer;
        cube_edge(size, at[k], &layers[k]);
    }
    return 1;
}

/* The corner tap of linear filtering: the three texels' mean, summed in cube_corner's order. */
static void corner_mean(const img_texel t[3], img_texel *out)
{
    for (int c = 0; c < 4; c++)
        out->f[c] = (t[0].f[c] + t[1].f[c] + t[2].f[c]) / 3.0f;
}

/* The array layer of coord[3]: round to nearest even, clamped to the layers (cube arrays: per cube). */
static uint32_t array_layer(float a, uint32_t count)
{
    if (isnan(a) || a <= 0.0f || count <= 1)
        return 0;
    float r = nearbyintf(a); /* default rounding: ties to even, as the specification's RNE */
    return r >= (float)(count - 1) ? count - 1 : (uint32_t)r;
}

/* img_fetch, telling the sampler's texel_read (img.h) when the texel is in the image and so read from memory. */
static void fetch_texel(const img_image *im, const img_sampler *s, const int32_t at[3], uint32_t layer, uint32_t mip,
                        img_texel *out)
{
    if (img_fetch(im, at, layer, mip, out) && s->texel_read)
        s->texel_read(s->texel_read_user, at, layer, mip);
}

/* The texel at integer coordinates after wrapping; a border texel when any axis falls outside. */
static void wrapped_texel(const img_image *im, const img_sampler *s, const int32_t idx[3], uint32_t layer,
                          uint32_t mip, int cube, img_texel *out)
{
    int32_t size[3] = {(int32_t)img_mip_size(im->width, mip), (int32_t)img_mip_size(im->height, mip),
                       (int32_t)img_mip_size(im->depth, mip)};
    int32_t at[3] = {0, 0, 0}, id[3] = {idx[0], idx[1], idx[2]};
    int32_t corner[3][3];
    uint32_t corner_layer[3];
    if (cube == CUBE_FILTER && cube_corner(size[0], idx, layer, corner, corner_layer)) {
        img_texel t[3];
        for (int k = 0; k < 3; k++) {
            fetch_texel(im, s, corner[k], corner_layer[k], mip, &t[k]);
            depth_compare(im, s, &t[k]);
        }
        corner_mean(t, out);
        return;
    }
    if (cube >= CUBE_SEAMLESS)
        cube_edge(size[0], id, &layer);
    int axes = axes_of(im->dim);
    for (int a = 0; a < axes; a++) {
        /* Cube faces ignore the address modes: clamp to the edge (what is left after cube_edge) */
        at[a] = wrap(cube ? IMG_ADDRESS_CLAMP_TO_EDGE : s->address[a], id[a], size[a]);
        if (at[a] < 0) {
            border_texel(im, s->border, out);
            depth_compare(im, s, out);
            return;
        }
    }
    fetch_texel(im, s, at, layer, mip, out);
    depth_compare(im, s, out);
}

typedef struct footprint {
    int32_t i0[3];
    float alpha[3]; /* weight of i0 + 1 on each axis */
} footprint;

/* Corner `corner` of a footprint (bit a: the high texel on axis a): its texel in idx (unused axes 0) and weight. */
static inline float footprint_corner(const footprint *fp, int axes, int corner, int32_t idx[3])
{
    float weight = 1.0f;
    idx[0] = idx[1] = idx[2] = 0;
    for (int a = 0; a < axes; a++) {
        int high = corner >> a & 1;
        idx[a] = fp->i0[a] + high;
        weight *= high ? fp->alpha[a] : 1.0f - fp->alpha[a];
    }
    return weight;
}

/* Unnormalized coordinates of level mip and the linear footprint's corner and weights. */
static void linear_footprint(const img_image *im, const img_sampler *s, const float st[3], uint32_t mip,
                             const int32_t *off, footprint *fp)
{
    uint32_t size[3] = {img_mip_size(im->width, mip), img_mip_size(im->height, mip), img_mip_size(im->depth, mip)};
    memset(fp, 0, sizeof *fp);
    for (int a = 0; a < axes_of(im->dim); a++) {
        float u = s->unnormalized ? st[a] : st[a] * (float)size[a];
        float shifted = u - 0.5f;
        fp->i0[a] = offset_texel(floor_to_int(shifted), off, a);
        float frac = isnan(shifted) ? 0.0f : shifted - floorf(shifted);
        fp->alpha[a] = frac >= 0.0f && frac < 1.0f ? frac : 0.0f; /* huge coordinates: 0 */
    }
}

/* One level's filtered value (nearest or linear). */
static void filter_level(const img_image *im, const img_sampler *s, const float st[3], uint32_t layer, uint32_t mip,
                         int linear, int cube, const int32_t *off, img_texel *out)
{
    const img_format_info *fi = img_format_get(im->format);
    int axes = axes_of(im->dim);
    if (!linear || fi->numeric != IMG_NUM_FLOAT) {
        uint32_t size[3] = {img_mip_size(im->width, mip), img_mip_size(im->height, mip), img_mip_size(im->depth, mip)};
        int32_t idx[3] = {0, 0, 0};
        for (int a = 0; a < axes; a++)
            idx[a] = offset_texel(floor_to_int(s->unnormalized ? st[a] : st[a] * (float)size[a]), off, a);
        wrapped_texel(im, s, idx, layer, mip, cube, out);
        return;
    }
    footprint fp;
    linear_footprint(im, s, st, mip, off, &fp);
    float sum[4] = {0, 0, 0, 0};
    int corners = 1 << axes;
    for (int corner = 0; corner < corners; corner++) {
        int32_t idx[3];
        const float weight = footprint_corner(&fp, axes, corner, idx);
        img_texel t;
        wrapped_texel(im, s, idx, layer, mip, cube ? CUBE_FILTER : CUBE_NONE, &t);
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

void img_sample(const img_image *im, const img_sampler *s, const float coord[4], float lod, const int32_t *off,
                img_texel *out)
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
        filter_level(im, s, st, layer, 0, linear, cube, off, out);
        return;
    }
    float d = lambda < 0.0f ? 0.0f : lambda > (float)q ? (float)q : lambda;
    if (s->mipmap_mode == IMG_MIPMAP_NEAREST || lambda <= 0.0f) {
        /* nearest level: ceil(d + 0.5) - 1, so d = 0.5 rounds down */
        uint32_t level = (uint32_t)(ceilf(d + 0.5f) - 1.0f);
        filter_level(im, s, st, layer, level > q ? q : level, linear, cube, off, out);
        return;
    }
    uint32_t hi = (uint32_t)floorf(d), lo = hi + 1 > q ? q : hi + 1;
    float delta = d - floorf(d);
    img_texel a, b;
    filter_level(im, s, st, layer, hi, linear, cube, off, &a);
    filter_level(im, s, st, layer, lo, linear, cube, off, &b);
    const img_format_info *fi = img_format_get(im->format);
    if (fi->numeric != IMG_NUM_FLOAT || delta == 0.0f) {
        *out = a;
        return;
    }
    for (int c = 0; c < 4; c++)
        out->f[c] = (1.0f - delta) * a.f[c] + delta * b.f[c];
}

void img_gather(const img_image *im, const img_sampler *s, const float coord[4], int component, const int32_t *off,
                img_texel *out)
{
    float st[3];
    uint32_t layer;
    int cube;
    surface_coords(im, coord, st, &layer, &cube);
    footprint fp;
    linear_footprint(im, s, st, 0, off, &fp);
    /* The four texels of the 2x2 footprint in the order the specification gives: i0j1, i1j1, i1j0, i0j0. */
    static const int order[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    int c = component < 0 || component > 3 ? 0 : component;
    const int float_texels = img_format_get(im->format)->numeric == IMG_NUM_FLOAT;
    const int edges = !cube ? CUBE_NONE : float_texels ? CUBE_FILTER : CUBE_SEAMLESS;
    for (int k = 0; k < 4; k++) {
        int32_t idx[3] = {fp.i0[0] + order[k][0], fp.i0[1] + order[k][1], fp.i0[2]};
        img_texel t;
        wrapped_texel(im, s, idx, layer, 0, edges, &t);
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
    int32_t at[3] = {0, 0, 0}, id[3] = {idx[0], idx[1], idx[2]};
    int32_t corner[3][3];
    uint32_t corner_layer[3];
    if (cube == CUBE_FILTER && cube_corner(L->size[0], idx, layer, corner, corner_layer)) {
        img_texel t[3];
        for (int k = 0; k < 3; k++)
            view_wrapped_texel(v, s, corner[k], corner_layer[k], mip, CUBE_CLAMP, &t[k]);
        corner_mean(t, out);
        return;
    }
    if (cube >= CUBE_SEAMLESS)
        cube_edge(L->size[0], id, &layer);
    const int axes = axes_of(v->im->dim);
    for (int a = 0; a < axes; a++) {
        at[a] = wrap(cube ? IMG_ADDRESS_CLAMP_TO_EDGE : s->address[a], id[a], L->size[a]);
        if (at[a] < 0) {
            border_texel(v->im, s->border, out);
            depth_compare(v->im, s, out);
            return;
        }
    }
    /* img_fetch's bounds check (wrap keeps the indices inside; the layer is clamped already) */
    if (at[0] >= L->size[0] || at[1] >= L->size[1] || at[2] >= L->size[2] || layer >= v->im->layers) {
        memset(out, 0, sizeof *out);
    } else {
        if (s->texel_read)
            s->texel_read(s->texel_read_user, at, layer, mip);
        view_decode(v, v->im->bytes + img_view_texel_offset(v, (uint32_t)at[0], (uint32_t)at[1], (uint32_t)at[2], layer,
                                                            mip),
                    out);
    }
    depth_compare(v->im, s, out);
}

/* linear_footprint through the view. */
static void view_footprint(const img_view *v, const img_sampler *s, const float st[3], uint32_t mip, const int32_t *off,
                           footprint *fp)
{
    const img_view_level *L = &v->level[mip];
    memset(fp, 0, sizeof *fp);
    for (int a = 0; a < axes_of(v->im->dim); a++) {
        float u = s->unnormalized ? st[a] : st[a] * L->size_f[a];
        float shifted = u - 0.5f;
        const int32_t i0 = floor_to_int_fast(shifted);
        /* shifted - floorf(shifted): i0 is that floor unless saturated, where the general path's frac is 0 or
         * NaN and its alpha 0 */
        float frac = fabsf(shifted) < 1073741824.0f ? shifted - (float)i0 : 0.0f;
        fp->alpha[a] = frac >= 0.0f && frac < 1.0f ? frac : 0.0f;
        fp->i0[a] = offset_texel(i0, off, a);
    }
}

/* filter_level through the view. */
static void view_filter_level(const img_view *v, const img_sampler *s, const float st[3], uint32_t layer,
                              uint32_t mip, int linear, int cube, const int32_t *off, img_texel *out)
{
    const int axes = axes_of(v->im->dim);
    if (!linear || v->fi->numeric != IMG_NUM_FLOAT) {
        const img_view_level *L = &v->level[mip];
        int32_t idx[3] = {0, 0, 0};
        for (int a = 0; a < axes; a++)
            idx[a] = offset_texel(floor_to_int_fast(s->unnormalized ? st[a] : st[a] * L->size_f[a]), off, a);
        view_wrapped_texel(v, s, idx, layer, mip, cube, out);
        return;
    }
    footprint fp;
    view_footprint(v, s, st, mip, off, &fp);
    float sum[4] = {0, 0, 0, 0};
    const int corners = 1 << axes;
    for (int corner = 0; corner < corners; corner++) {
        int32_t idx[3];
        const float weight = footprint_corner(&fp, axes, corner, idx);
        img_texel t;
        view_wrapped_texel(v, s, idx, layer, mip, cube ? CUBE_FILTER : CUBE_NONE, &t);
        for (int c = 0; c < 4; c++)
            sum[c] += weight * t.f[c];
    }
    memcpy(out->f, sum, sizeof sum);
}

/* Texel (x, y) of a 2D level whose layer starts at base, told to the sampler's texel_read first. */
static inline void view_read_2d(const img_view *v, const img_sampler *s, const uint8_t *base, const img_view_level *L,
                                int32_t x, int32_t y, uint32_t layer, uint32_t mip, img_texel *out)
{
    if (s->texel_read)
        s->texel_read(s->texel_read_user, (const int32_t[3]){x, y, 0}, layer, mip);
    view_decode(v, base + (size_t)y * L->row_bytes + (size_t)x * v->texel_bytes, out);
}

/* One level of a 2D image at normalized coordinates: view_filter_level with the axis loops unrolled, the
 * common case of SampleLevel (nearest: a texel; linear: the bilinear footprint, its weights and sums formed
 * in the same order as the loop's, so the same bits). */
static void view_filter_2d(const img_view *v, const img_sampler *s, const float st[3], uint32_t layer,
                           uint32_t mip, int linear, const int32_t *off, img_texel *out)
{
    const img_image *im = v->im;
    const img_view_level *L = &v->level[mip];
    const int no_layer = layer >= im->layers; /* img_fetch's check, after the border's (as wrapped_texel) */
    const uint8_t *base = im->bytes + L->offset + layer * L->layer_bytes;
    if (!linear || v->fi->numeric != IMG_NUM_FLOAT) {
        int32_t x = wrap(s->address[0], offset_texel(floor_to_int_fast(st[0] * L->size_f[0]), off, 0), L->size[0]);
        int32_t y = wrap(s->address[1], offset_texel(floor_to_int_fast(st[1] * L->size_f[1]), off, 1), L->size[1]);
        if (x < 0 || y < 0)
            border_texel(im, s->border, out);
        else if (x >= L->size[0] || y >= L->size[1] || no_layer) /* img_fetch's bounds check; wrap keeps x, y inside */
            memset(out, 0, sizeof *out);
        else
            view_read_2d(v, s, base, L, x, y, layer, mip, out);
        depth_compare(im, s, out);
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
        i0[a] = offset_texel(i0[a], off, a);
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
            view_read_2d(v, s, base, L, x, y, layer, mip, &t);
        depth_compare(im, s, &t);
        for (int c = 0; c < 4; c++)
            sum[c] += weight * t.f[c];
    }
    memcpy(out->f, sum, sizeof sum);
}

/* What img_view_lod works out for an image of `levels` mip levels whose format filters as a float (or not);
 * returns lambda' (the shader's lod plus the sampler's bias, before min_lod and max_lod). */
static float plan_lod(uint32_t levels, int float_format, const img_sampler *s, float lod, img_lod *plan)
{
    const float lambda_prime = (isnan(lod) ? 0.0f : lod) + s->mip_lod_bias;
    float lambda = lambda_prime;
    if (lambda > s->max_lod)
        lambda = s->max_lod;
    if (lambda < s->min_lod)
        lambda = s->min_lod;
    plan->linear = lambda <= 0.0f ? s->mag_filter == IMG_FILTER_LINEAR : s->min_filter == IMG_FILTER_LINEAR;
    plan->level[0] = plan->level[1] = 0;
    plan->delta = 0.0f;
    plan->blend = 0;
    const uint32_t q = levels ? levels - 1 : 0;
    if (s->unnormalized) /* unnormalized coordinates read level 0 only */
        return lambda_prime;
    float d = lambda < 0.0f ? 0.0f : lambda > (float)q ? (float)q : lambda;
    if (s->mipmap_mode == IMG_MIPMAP_NEAREST || lambda <= 0.0f) {
        uint32_t level = (uint32_t)(ceilf(d + 0.5f) - 1.0f);
        plan->level[0] = level > q ? q : level;
        return lambda_prime;
    }
    uint32_t hi = (uint32_t)floorf(d), lo = hi + 1 > q ? q : hi + 1;
    float delta = d - floorf(d);
    plan->level[0] = hi;
    plan->level[1] = lo;
    plan->delta = delta;
    /* img_sample reads the second level only to blend it: integers, or a whole d, take the first's value */
    plan->blend = float_format && delta != 0.0f;
    return lambda_prime;
}

void img_view_lod(const img_view *v, const img_sampler *s, float lod, img_lod *plan)
{
    plan_lod(v->levels, v->fi && v->fi->numeric == IMG_NUM_FLOAT, s, lod, plan);
}

void img_query_lod(const img_image *im, const img_sampler *s, float lod, float out[2])
{
    img_lod plan;
    out[1] = plan_lod(im->mip_levels, 0, s, lod, &plan);
    out[0] = (float)plan.level[0] + plan.delta;
}

void img_view_sample_lod(const img_view *v, const img_sampler *s, const float coord[4], const img_lod *plan,
                         const int32_t *off, img_texel *out)
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
        view_filter_2d(v, s, st, layer, plan->level[0], plan->linear, off, plan->blend ? &a : out);
    else
        view_filter_level(v, s, st, layer, plan->level[0], plan->linear, cube, off, plan->blend ? &a : out);
    if (!plan->blend)
        return;
    if (fast_2d)
        view_filter_2d(v, s, st, layer, plan->level[1], plan->linear, off, &b);
    else
        view_filter_level(v, s, st, layer, plan->level[1], plan->linear, cube, off, &b);
    const float delta = plan->delta;
    for (int c = 0; c < 4; c++)
        out->f[c] = (1.0f - delta) * a.f[c] + delta * b.f[c];
}

void img_view_sample(const img_view *v, const img_sampler *s, const float coord[4], float lod, const int32_t *off,
                     img_texel *out)
{
    if (!v->levels) {
        img_sample(v->im, s, coord, lod, off, out);
        return;
    }
    img_lod plan;
    img_view_lod(v, s, lod, &plan);
    img_view_sample_lod(v, s, coord, &plan, off, out);
}

void img_view_gather(const img_view *v, const img_sampler *s, const float coord[4], int component,
                     const int32_t *off, img_texel *out)
{
    if (!v->levels) {
        img_gather(v->im, s, coord, component, off, out);
        return;
    }
    float st[3];
    uint32_t layer;
    int cube;
    surface_coords(v->im, coord, st, &layer, &cube);
    footprint fp;
    view_footprint(v, s, st, 0, off, &fp);
    static const int order[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    int c = component < 0 || component > 3 ? 0 : component;
    const int edges = !cube ? CUBE_NONE : v->fi->numeric == IMG_NUM_FLOAT ? CUBE_FILTER : CUBE_SEAMLESS;
    for (int k = 0; k < 4; k++) {
        int32_t idx[3] = {fp.i0[0] + order[k][0], fp.i0[1] + order[k][1], fp.i0[2]};
        img_texel t;
        view_wrapped_texel(v, s, idx, layer, 0, edges, &t);
        out->u[k] = t.u[c];
    }
}
