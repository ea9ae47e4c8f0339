/*
 * tests/test_image.c — the img/ module: the format table, the texel codec against
 * the Vulkan specification's conversion formulas (written here again, independently
 * of img/format.c: brute-force nearest searches for the small floats, the fixed-point
 * formulas in double), the packed image layout, the sampler against hand-computed
 * values for tiny images, the tiled memory layouts (bijective, GOB-local), and the
 * per-instruction views (img_view_*) against the general functions, bit for bit.  The case format's images
 * are tests/test_case_image.c's.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "img/img.h"
#include "tests/support/tsup.h"

/* ---- references written from the specification's formulas ----------------------------------------- */

static uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* A float with E exponent bits (bias 2^(E-1)-1), M mantissa bits, optional sign: the IEEE-style value. */
static double ref_small_float(uint32_t bits, int exponent_bits, int mantissa_bits, int has_sign)
{
    uint32_t m = bits & ((1u << mantissa_bits) - 1);
    uint32_t e = (bits >> mantissa_bits) & ((1u << exponent_bits) - 1);
    int bias = (1 << (exponent_bits - 1)) - 1;
    double sign = has_sign && (bits >> (mantissa_bits + exponent_bits)) & 1 ? -1.0 : 1.0;
    if (e == (1u << exponent_bits) - 1)
        return m ? NAN : sign * INFINITY;
    if (e == 0)
        return sign * pow(2.0, 1 - bias) * ((double)m / (double)(1u << mantissa_bits));
    return sign * pow(2.0, (int)e - bias) * (1.0 + (double)m / (double)(1u << mantissa_bits));
}

/* Nearest finite encoding of a non-negative x among all encodings (brute force), ties to even mantissa. */
static uint32_t ref_nearest_small_float(double x, int exponent_bits, int mantissa_bits)
{
    uint32_t count = 1u << (exponent_bits + mantissa_bits), best = 0;
    double best_distance = INFINITY;
    for (uint32_t b = 0; b < count; b++) {
        double v = ref_small_float(b, exponent_bits, mantissa_bits, 0);
        if (!isfinite(v))
            continue;
        double d = fabs(v - x);
        if (d < best_distance || (d == best_distance && (b & 1) == 0)) {
            best_distance = d;
            best = b;
        }
    }
    return best;
}

static double ref_unorm(uint32_t c, int bits)
{
    return (double)c / (pow(2.0, bits) - 1.0);
}

static double ref_snorm(int32_t c, int bits)
{
    double v = (double)c / (pow(2.0, bits - 1) - 1.0);
    return v < -1.0 ? -1.0 : v;
}

/* Round half to even, written out (not rint) so the reference does not share the codec's call. */
static double ref_round_even(double x)
{
    double lo = floor(x), frac = x - lo;
    if (frac > 0.5)
        return lo + 1.0;
    if (frac < 0.5)
        return lo;
    return fmod(lo, 2.0) == 0.0 ? lo : lo + 1.0;
}

static uint32_t ref_float_to_unorm(double f, int bits)
{
    double max = pow(2.0, bits) - 1.0;
    if (isnan(f) || f <= 0.0)
        return 0;
    if (f >= 1.0)
        return (uint32_t)max;
    return (uint32_t)ref_round_even(f * max);
}

static int32_t ref_float_to_snorm(double f, int bits)
{
    double max = pow(2.0, bits - 1) - 1.0;
    if (isnan(f))
        return 0;
    if (f > 1.0)
        f = 1.0;
    if (f < -1.0)
        f = -1.0;
    double scaled = f * max;
    return scaled < 0 ? -(int32_t)ref_round_even(-scaled) : (int32_t)ref_round_even(scaled);
}

static double ref_srgb_eotf(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double ref_srgb_oetf(double l)
{
    if (isnan(l) || l <= 0.0)
        return 0.0;
    if (l >= 1.0)
        return 1.0;
    return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}

/* The bit position of each component's field inside a texel, and its width (the test's own table). */
typedef struct field_pos {
    int shift[4], width[4], count;
} field_pos;

static field_pos fields_of(const img_format_info *fi)
{
    field_pos fp = {{0}, {0}, 0};
    if (strstr(fi->name, "b10g11r11")) {
        fp = (field_pos){{0, 11, 22, 0}, {11, 11, 10, 0}, 3};
    } else if (strstr(fi->name, "a2b10g10r10")) {
        fp = (field_pos){{0, 10, 20, 30}, {10, 10, 10, 2}, 4};
    } else {
        /* rN, rNgN, rNgNbNaN: the width is the first number in the name */
        int width = atoi(fi->name + 1), count = 0;
        for (const char *ch = fi->name; *ch && *ch != '_'; ch++)
            count += *ch == 'r' || *ch == 'g' || *ch == 'b' || *ch == 'a' || *ch == 'd'; /* dN: one depth */
        fp.count = count;
        for (int c = 0; c < count; c++) {
            fp.shift[c] = c * width;
            fp.width[c] = width;
        }
    }
    return fp;
}

typedef enum { KIND_UNORM, KIND_SNORM, KIND_UINT, KIND_SINT, KIND_SFLOAT, KIND_SRGB, KIND_UFLOAT } ref_kind;

static ref_kind kind_of(const img_format_info *fi)
{
    const char *n = fi->name;
    if (strstr(n, "ufloat"))
        return KIND_UFLOAT;
    if (strstr(n, "sfloat"))
        return KIND_SFLOAT;
    if (strstr(n, "srgb"))
        return KIND_SRGB;
    if (strstr(n, "snorm"))
        return KIND_SNORM;
    if (strstr(n, "unorm"))
        return KIND_UNORM;
    if (strstr(n, "sint"))
        return KIND_SINT;
    return KIND_UINT;
}

/* Writes raw field values into a texel of up to 16 bytes, little-endian. */
static void pack_fields(const field_pos *fp, const uint64_t raw[4], int texel_bytes, uint8_t *dst)
{
    memset(dst, 0, 16);
    for (int c = 0; c < fp->count; c++)
        for (int b = 0; b < fp->width[c]; b++)
            if (raw[c] >> b & 1) {
                int bit = fp->shift[c] + b;
                dst[bit / 8] |= (uint8_t)(1u << (bit % 8));
            }
    (void)texel_bytes;
}

static uint64_t unpack_field(const field_pos *fp, int c, const uint8_t *src)
{
    uint64_t v = 0;
    for (int b = 0; b < fp->width[c]; b++) {
        int bit = fp->shift[c] + b;
        v |= (uint64_t)(src[bit / 8] >> (bit % 8) & 1) << b;
    }
    return v;
}

/* The value a shader reads for raw field `raw` of component c (floats as double, ints in *i). */
static double ref_decode_component(const img_format_info *fi, const field_pos *fp, int c, uint64_t raw, int64_t *i)
{
    int w = fp->width[c];
    switch (kind_of(fi)) {
    case KIND_UNORM: return ref_unorm((uint32_t)raw, w);
    case KIND_SNORM: return ref_snorm((int32_t)(raw >= (1ull << (w - 1)) ? (int64_t)raw - (1ll << w) : (int64_t)raw), w);
    case KIND_SRGB: return c < 3 ? ref_srgb_eotf(ref_unorm((uint32_t)raw, w)) : ref_unorm((uint32_t)raw, w);
    case KIND_SFLOAT: return w == 16 ? ref_small_float((uint32_t)raw, 5, 10, 1) : (double)u2f((uint32_t)raw);
    case KIND_UFLOAT: return ref_small_float((uint32_t)raw, 5, w - 5, 0);
    case KIND_UINT: *i = (int64_t)raw; return 0;
    case KIND_SINT: *i = raw >= (1ull << (w - 1)) ? (int64_t)raw - (1ll << w) : (int64_t)raw; return 0;
    }
    return 0;
}

/* Raw patterns that cover each kind's edges (masked to the field width). */
static int raw_patterns(ref_kind k, int w, uint64_t *out)
{
    uint64_t max = (w == 64) ? ~0ull : (1ull << w) - 1;
    int n = 0;
    out[n++] = 0;
    out[n++] = 1;
    out[n++] = max;
    out[n++] = max - 1;
    out[n++] = 1ull << (w - 1);       /* most negative for signed, midpoint for unsigned */
    out[n++] = (1ull << (w - 1)) + 1; /* snorm: -(2^(b-1)-1) -> exactly -1 */
    out[n++] = (1ull << (w - 1)) - 1; /* signed max */
    out[n++] = 0x5a5a5a5aull & max;
    out[n++] = 0x3333ull & max;
    if (k == KIND_SFLOAT && w == 16) {
        static const uint64_t half[] = {0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x0001, 0x03ff, 0x0400, 0x7c00, 0xfc00,
                                        0x7e00, 0x7c01, 0x8000, 0x3555};
        for (size_t i = 0; i < sizeof half / sizeof half[0]; i++)
            out[n++] = half[i];
    }
    if (k == KIND_SFLOAT && w == 32) {
        static const float f32[] = {1.0f, -2.5f, FLT_MIN, FLT_MAX, 1e-45f, -0.0f};
        for (size_t i = 0; i < sizeof f32 / sizeof f32[0]; i++)
            out[n++] = f2u(f32[i]);
        out[n++] = 0x7f800000u;
        out[n++] = 0xff800000u;
        out[n++] = 0x7fc00000u;
    }
    if (k == KIND_UFLOAT) {
        /* 11-bit (6 mantissa) / 10-bit (5): smallest denormal, largest denormal, 1.0, max finite, inf, NaN */
        int m = w - 5;
        uint64_t list[] = {1, (1u << m) - 1, 15ull << m, (30ull << m) | ((1u << m) - 1), 31ull << m, (31ull << m) | 1};
        for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
            out[n++] = list[i];
    }
    return n;
}

START_TEST(test_img_format_table_names_round_trip_and_sizes_add_up)
{
    for (int f = 0; f < IMG_FMT_COUNT; f++) {
        const img_format_info *fi = img_format_get((img_format)f);
        ck_assert_ptr_nonnull(fi);
        img_format got = IMG_FMT_COUNT;
        ck_assert_msg(img_format_by_name(fi->name, &got) && got == (img_format)f, "%s", fi->name);
        if (fi->spirv_name[0]) {
            ck_assert_msg(img_format_by_name(fi->spirv_name, &got) && got == (img_format)f, "%s", fi->spirv_name);
            ck_assert_msg(img_format_from_spirv(fi->spirv_format, &got) && got == (img_format)f, "%s", fi->name);
        }
        ck_assert_msg(img_format_from_vk(fi->vk_format, &got) && got == (img_format)f, "%s", fi->name);
        field_pos fp = fields_of(fi);
        int total = 0;
        for (int c = 0; c < fp.count; c++) {
            ck_assert_int_eq(fi->bits[c], fp.width[c]);
            total += fp.width[c];
        }
        ck_assert_int_eq(fp.count, (int)fi->components);
        ck_assert_msg(total == (int)fi->texel_bytes * 8, "%s: %d bits in %u bytes", fi->name, total, fi->texel_bytes);
        ck_assert_int_eq(fi->srgb, kind_of(fi) == KIND_SRGB);
        ref_kind k = kind_of(fi);
        img_numeric want = k == KIND_UINT ? IMG_NUM_UINT : k == KIND_SINT ? IMG_NUM_SINT : IMG_NUM_FLOAT;
        ck_assert_int_eq(fi->numeric, want);
    }
    img_format got;
    ck_assert(!img_format_by_name("rgba9", &got));
    ck_assert(!img_format_by_name("", &got));
    ck_assert(!img_format_from_spirv(0, &got));
    ck_assert(!img_format_from_spirv(42, &got)); /* R8ui is 39, R64ui 40, R64i 41; 42 is no format */
    /* 64-bit integer formats (SPIR-V R64ui 40, R64i 41; VkFormat R64_UINT 110, R64_SINT 111): one component kept
     * whole, little-endian */
    ck_assert(img_format_from_spirv(40, &got) && got == IMG_FMT_R64_UINT);
    ck_assert(img_format_from_spirv(41, &got) && got == IMG_FMT_R64_SINT);
    ck_assert_uint_eq(img_format_get(IMG_FMT_R64_UINT)->vk_format, 110);
    ck_assert_uint_eq(img_format_get(IMG_FMT_R64_SINT)->vk_format, 111);
    {
        const uint8_t le[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0xf8};
        uint8_t back[8];
        img_texel t;
        img_decode(IMG_FMT_R64_SINT, le, &t);
        ck_assert(t.u64[0] == 0xf807060504030201ull && t.i64[0] < 0);
        img_encode(IMG_FMT_R64_SINT, &t, back);
        ck_assert(memcmp(le, back, 8) == 0);
    }
    /* A few hand-checked rows: VkFormat numbers from the Vulkan registry, SPIR-V ImageFormat from its spec. */
    ck_assert(img_format_by_name("rgba8", &got) && got == IMG_FMT_R8G8B8A8_UNORM);
    ck_assert_uint_eq(img_format_get(IMG_FMT_R8G8B8A8_UNORM)->vk_format, 37);
    ck_assert_uint_eq(img_format_get(IMG_FMT_R32G32B32A32_SFLOAT)->vk_format, 109);
    ck_assert_uint_eq(img_format_get(IMG_FMT_R32G32B32A32_SFLOAT)->spirv_format, 1);
    ck_assert_uint_eq(img_format_get(IMG_FMT_B10G11R11_UFLOAT_PACK32)->spirv_format, 8);
    ck_assert_uint_eq(img_format_get(IMG_FMT_A2B10G10R10_UNORM_PACK32)->vk_format, 64);
}
END_TEST

START_TEST(test_img_decode_every_format_matches_spec_formulas)
{
    for (int f = 0; f < IMG_FMT_COUNT; f++) {
        const img_format_info *fi = img_format_get((img_format)f);
        field_pos fp = fields_of(fi);
        ref_kind k = kind_of(fi);
        uint64_t patterns[4][40];
        int np[4];
        for (int c = 0; c < fp.count; c++)
            np[c] = raw_patterns(k, fp.width[c], patterns[c]);
        for (int p = 0; p < np[0]; p++) {
            uint64_t raw[4] = {0, 0, 0, 0};
            for (int c = 0; c < fp.count; c++)
                raw[c] = patterns[c][(p + c) % np[c]]; /* vary the components against each other */
            uint8_t bytes[16];
            pack_fields(&fp, raw, (int)fi->texel_bytes, bytes);
            img_texel t;
            img_decode((img_format)f, bytes, &t);
            if (img_format_is_wide(fi)) { /* the one 64-bit component whole (the reader supplies the rest) */
                ck_assert_msg(t.u64[0] == raw[0], "%s raw %#llx: got %#llx", fi->name, (unsigned long long)raw[0],
                              (unsigned long long)t.u64[0]);
                continue;
            }
            for (int c = 0; c < 4; c++) {
                int64_t want_i = 0;
                double want = 0.0;
                if (c < fp.count)
                    want = ref_decode_component(fi, &fp, c, raw[c], &want_i);
                else if (c == 3)
                    want = 1.0, want_i = 1;
                if (fi->numeric == IMG_NUM_FLOAT) {
                    float want_f = (float)want;
                    if (isnan(want_f))
                        ck_assert_msg(isnan(t.f[c]), "%s raw %#llx comp %d: want NaN, got %.9g", fi->name,
                                      (unsigned long long)raw[c], c, t.f[c]);
                    else
                        ck_assert_msg(f2u(t.f[c]) == f2u(want_f), "%s raw %#llx comp %d: want %.9g got %.9g", fi->name,
                                      (unsigned long long)raw[c], c, want_f, t.f[c]);
                } else if (fi->numeric == IMG_NUM_UINT) {
                    ck_assert_msg(t.u[c] == (uint32_t)want_i, "%s comp %d: want %lld got %u", fi->name, c,
                                  (long long)want_i, t.u[c]);
                } else {
                    ck_assert_msg(t.i[c] == (int32_t)want_i, "%s comp %d: want %lld got %d", fi->name, c,
                                  (long long)want_i, t.i[c]);
                }
            }
        }
    }
}
END_TEST

/* Hand values: numbers worked out on paper from the specification, not from any formula above. */
START_TEST(test_img_decode_hand_values_match)
{
    img_texel t;
    uint8_t b[16];
    b[0] = 128;
    img_decode(IMG_FMT_R8_UNORM, b, &t);
    ck_assert_float_eq(t.f[0], 128.0f / 255.0f);
    ck_assert_float_eq(t.f[1], 0.0f);
    ck_assert_float_eq(t.f[3], 1.0f);
    b[0] = 0x80; /* -128: below -127 clamps to -1 */
    img_decode(IMG_FMT_R8_SNORM, b, &t);
    ck_assert_float_eq(t.f[0], -1.0f);
    b[0] = 0x81; /* -127 */
    img_decode(IMG_FMT_R8_SNORM, b, &t);
    ck_assert_float_eq(t.f[0], -1.0f);
    b[0] = 0xff; /* -1 */
    img_decode(IMG_FMT_R8_SNORM, b, &t);
    ck_assert_float_eq(t.f[0], -1.0f / 127.0f);
    b[0] = 0xfe;
    img_decode(IMG_FMT_R8_SINT, b, &t);
    ck_assert_int_eq(t.i[0], -2);
    ck_assert_int_eq(t.i[3], 1);
    b[0] = 0x00, b[1] = 0x3c; /* half 1.0 */
    img_decode(IMG_FMT_R16_SFLOAT, b, &t);
    ck_assert_float_eq(t.f[0], 1.0f);
    b[0] = 0x01, b[1] = 0x00; /* smallest half denormal: 2^-24 */
    img_decode(IMG_FMT_R16_SFLOAT, b, &t);
    ck_assert_float_eq(t.f[0], 5.9604644775390625e-08f);
    b[0] = 0xff, b[1] = 0x7b; /* largest half: 65504 */
    img_decode(IMG_FMT_R16_SFLOAT, b, &t);
    ck_assert_float_eq(t.f[0], 65504.0f);
    /* R11G11B10: R = 0x7bf (65024, the largest 11-bit), G = 0x001 (2^-14 / 64 = 2^-20), B = 0x3c0 (1.0 in 10 bits:
     * exponent 15, mantissa 0 -> 15 << 5 = 0x1e0) */
    uint32_t w = 0x7bfu | 0x001u << 11 | 0x1e0u << 22;
    memcpy(b, &w, 4);
    img_decode(IMG_FMT_B10G11R11_UFLOAT_PACK32, b, &t);
    ck_assert_float_eq(t.f[0], 65024.0f);
    ck_assert_float_eq(t.f[1], 9.5367431640625e-07f);
    ck_assert_float_eq(t.f[2], 1.0f);
    ck_assert_float_eq(t.f[3], 1.0f);
    /* A2B10G10R10: R = 1023 (1.0), G = 0, B = 511 (511/1023), A = 2 (2/3) */
    w = 1023u | 0u << 10 | 511u << 20 | 2u << 30;
    memcpy(b, &w, 4);
    img_decode(IMG_FMT_A2B10G10R10_UNORM_PACK32, b, &t);
    ck_assert_float_eq(t.f[0], 1.0f);
    ck_assert_float_eq(t.f[2], 511.0f / 1023.0f);
    ck_assert_float_eq(t.f[3], 2.0f / 3.0f);
    /* sRGB: 255 -> 1.0, 0 -> 0, 10 -> 10/255/12.92 (linear segment), alpha stays linear */
    b[0] = 255, b[1] = 0, b[2] = 10, b[3] = 51;
    img_decode(IMG_FMT_R8G8B8A8_SRGB, b, &t);
    ck_assert_float_eq(t.f[0], 1.0f);
    ck_assert_float_eq(t.f[1], 0.0f);
    ck_assert_float_eq(t.f[2], (float)(10.0 / 255.0 / 12.92));
    ck_assert_float_eq(t.f[3], 0.2f);
    b[0] = 128; /* ((128/255 + 0.055) / 1.055)^2.4 = 0.2158605 */
    img_decode(IMG_FMT_R8G8B8A8_SRGB, b, &t);
    ck_assert_float_eq_tol(t.f[0], 0.2158605f, 1e-6f);
}
END_TEST

/* Inputs for stores: edges of every conversion. */
static const float encode_floats[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 1.0f / 3.0f, 0.25f,
                                      127.5f / 255.0f, 0.00196078f, 1e-8f, 6.0e-8f, 3.0e-8f, 65504.0f, 65519.0f,
                                      65520.0f, 70000.0f, 64512.0f, 64600.0f, 65100.0f, 1e-5f, 0.0031308f, 0.04f,
                                      0.9999f, 123.456f, NAN, INFINITY, -INFINITY};
static const int64_t encode_ints[] = {0, 1, -1, 2, 127, 128, -128, -129, 255, 256, 511, 1023, 1024, 32767, 32768,
                                      -32768, -32769, 65535, 65536, INT32_MAX, INT32_MIN, 3, 4};

START_TEST(test_img_encode_every_format_matches_spec_formulas)
{
    size_t nf = sizeof encode_floats / sizeof encode_floats[0], ni = sizeof encode_ints / sizeof encode_ints[0];
    for (int f = 0; f < IMG_FMT_COUNT; f++) {
        const img_format_info *fi = img_format_get((img_format)f);
        field_pos fp = fields_of(fi);
        ref_kind k = kind_of(fi);
        size_t n = fi->numeric == IMG_NUM_FLOAT ? nf : ni;
        for (size_t v = 0; v < n; v++) {
            img_texel in;
            for (int c = 0; c < 4; c++) {
                size_t idx = (v + (size_t)c * 3) % n; /* different values per component */
                if (img_format_is_wide(fi) && c < 2)
                    in.u64[c] = (uint64_t)encode_ints[idx] * 0x100000001ull; /* bits in both halves */
                else if (img_format_is_wide(fi))
                    continue;
                else if (fi->numeric == IMG_NUM_FLOAT)
                    in.f[c] = encode_floats[idx];
                else if (fi->numeric == IMG_NUM_UINT)
                    in.u[c] = (uint32_t)encode_ints[idx];
                else
                    in.i[c] = (int32_t)encode_ints[idx];
            }
            uint8_t bytes[16];
            memset(bytes, 0xcd, sizeof bytes);
            img_encode((img_format)f, &in, bytes);
            for (int c = 0; c < fp.count; c++) {
                int width = fp.width[c];
                uint64_t got = unpack_field(&fp, c, bytes), want = 0;
                uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
                switch (k) {
                case KIND_UNORM: want = ref_float_to_unorm(in.f[c], width); break;
                case KIND_SNORM: want = (uint64_t)(int64_t)ref_float_to_snorm(in.f[c], width) & mask; break;
                case KIND_SRGB:
                    want = ref_float_to_unorm(c < 3 ? ref_srgb_oetf(in.f[c]) : in.f[c], width);
                    break;
                case KIND_UINT: case KIND_SINT:
                    if (width == 64) { /* a 64-bit component is stored whole */
                        want = in.u64[c];
                        break;
                    }
                    if (k == KIND_SINT) {
                        int64_t lo = -(1ll << (width - 1)), hi = (1ll << (width - 1)) - 1, s = in.i[c];
                        want = (uint64_t)(s < lo ? lo : s > hi ? hi : s) & mask;
                        break;
                    }
                    {
                    uint64_t u = in.u[c];
                    want = u > mask ? mask : u; /* out-of-range stores clamp (wavelab's choice) */
                    }
                    break;
                case KIND_SFLOAT:
                    if (width == 32) {
                        want = f2u(in.f[c]);
                    } else {
                        double x = in.f[c];
                        uint64_t sign = signbit(x) ? 0x8000 : 0;
                        if (isnan(x)) {
                            ck_assert_msg((got & 0x7c00) == 0x7c00 && (got & 0x3ff), "%s: NaN -> %#llx", fi->name,
                                          (unsigned long long)got);
                            continue;
                        }
                        /* IEEE: beyond 65504 + half an ulp (65520) is infinity */
                        want = fabs(x) >= 65520.0 ? 0x7c00 : ref_nearest_small_float(fabs(x), 5, 10);
                        want |= sign;
                    }
                    break;
                case KIND_UFLOAT: {
                    double x = in.f[c];
                    int m = width - 5;
                    if (isnan(x)) {
                        ck_assert_msg((got >> m) == 31 && (got & ((1u << m) - 1)), "%s: NaN -> %#llx", fi->name,
                                      (unsigned long long)got);
                        continue;
                    }
                    /* negative -> 0; +inf -> inf; finite too large -> the largest finite (wavelab's choice) */
                    want = x <= 0 ? 0 : isinf(x) ? 31ull << m : ref_nearest_small_float(x, 5, m);
                    break;
                }
                }
                ck_assert_msg(got == want, "%s comp %d input %.9g / %d: want %#llx got %#llx", fi->name, c,
                              (double)in.f[c], in.i[c], (unsigned long long)want, (unsigned long long)got);
            }
            /* bytes past the texel are untouched */
            for (size_t i = fi->texel_bytes; i < sizeof bytes; i++)
                ck_assert_uint_eq(bytes[i], 0xcd);
        }
    }
}
END_TEST

START_TEST(test_img_encode_hand_values_match)
{
    uint8_t b[16];
    img_texel t = {.f = {0.5f, 1.5f, -0.25f, NAN}};
    img_encode(IMG_FMT_R8G8B8A8_UNORM, &t, b);
    ck_assert_uint_eq(b[0], 128); /* 127.5 is a tie: to even (128) */
    ck_assert_uint_eq(b[1], 255);
    ck_assert_uint_eq(b[2], 0);
    ck_assert_uint_eq(b[3], 0); /* NaN -> 0 */
    t = (img_texel){.f = {-0.5f, -1.5f, 0.3f, NAN}};
    img_encode(IMG_FMT_R8G8B8A8_SNORM, &t, b);
    ck_assert_uint_eq(b[0], (uint8_t)-64); /* -63.5 is a tie: to even (-64) */
    ck_assert_uint_eq(b[1], (uint8_t)-127);
    ck_assert_uint_eq(b[2], 38); /* 38.1 */
    ck_assert_uint_eq(b[3], 0);
    t = (img_texel){.f = {0.5f, 0.0f, 0.0f, 0.5f}};
    img_encode(IMG_FMT_R8G8B8A8_SRGB, &t, b);
    ck_assert_uint_eq(b[0], 188); /* 1.055 * 0.5^(1/2.4) - 0.055 = 0.735357 -> 187.52 */
    ck_assert_uint_eq(b[3], 128);
    t = (img_texel){.f = {1.0f, 65024.0f, 1.0f, 0.0f}};
    img_encode(IMG_FMT_B10G11R11_UFLOAT_PACK32, &t, b);
    uint32_t w;
    memcpy(&w, b, 4);
    ck_assert_uint_eq(w, 0x3c0u | 0x7bfu << 11 | 0x1e0u << 22);
    t = (img_texel){.u = {1023, 2000, 5, 3}};
    img_encode(IMG_FMT_A2B10G10R10_UINT_PACK32, &t, b);
    memcpy(&w, b, 4);
    ck_assert_uint_eq(w, 1023u | 1023u << 10 | 5u << 20 | 3u << 30);
    t = (img_texel){.f = {65520.0f}};
    img_encode(IMG_FMT_R16_SFLOAT, &t, b);
    ck_assert_uint_eq(b[0] | b[1] << 8, 0x7c00);
    t = (img_texel){.f = {65519.0f}};
    img_encode(IMG_FMT_R16_SFLOAT, &t, b);
    ck_assert_uint_eq(b[0] | b[1] << 8, 0x7bff);
}
END_TEST

/* Every code of the 8- and 16-bit fixed-point formats decodes and re-encodes to itself. */
START_TEST(test_img_fixed_point_codes_round_trip_exactly)
{
    static const img_format formats[] = {IMG_FMT_R8_UNORM, IMG_FMT_R8_SNORM, IMG_FMT_R16_UNORM, IMG_FMT_R16_SNORM,
                                         IMG_FMT_R8G8B8A8_SRGB, IMG_FMT_R16_SFLOAT};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        const img_format_info *fi = img_format_get(formats[i]);
        uint32_t codes = fi->bits[0] == 8 ? 256 : 65536;
        for (uint32_t code = 0; code < codes; code++) {
            uint8_t in[16] = {0}, out[16] = {0};
            in[0] = (uint8_t)code, in[1] = (uint8_t)(code >> 8);
            if (formats[i] == IMG_FMT_R8G8B8A8_SRGB)
                in[1] = 0;
            if (formats[i] == IMG_FMT_R8_SNORM && code == 0x80)
                continue; /* -128 and -127 both read -1.0; -1.0 writes -127 */
            if (formats[i] == IMG_FMT_R16_SNORM && code == 0x8000)
                continue;
            if (formats[i] == IMG_FMT_R16_SFLOAT && (code & 0x7c00) == 0x7c00 && (code & 0x3ff))
                continue; /* NaN payloads need not survive */
            img_texel t;
            img_decode(formats[i], in, &t);
            img_encode(formats[i], &t, out);
            ck_assert_msg(memcmp(in, out, fi->texel_bytes) == 0, "%s code %#x", fi->name, code);
        }
    }
}
END_TEST

/* ---- the packed image layout --------------------------------------------------------------------------- */

START_TEST(test_img_packed_offsets_follow_mip_major_layer_order)
{
    /* 4x2 rgba8, 3 layers, 3 mips: mip 0 = 4*2*4 = 32 B per layer, mip 1 = 2*1*4 = 8, mip 2 = 1*1*4 = 4 */
    img_image im = {.dim = IMG_DIM_2D, .format = IMG_FMT_R8G8B8A8_UNORM, .width = 4, .height = 2, .depth = 1,
                    .layers = 3, .mip_levels = 3};
    ck_assert_uint_eq(img_mip_size(4, 0), 4);
    ck_assert_uint_eq(img_mip_size(4, 2), 1);
    ck_assert_uint_eq(img_mip_size(4, 5), 1);
    ck_assert_uint_eq(img_subresource_offset(&im, 0, 1), 32);
    ck_assert_uint_eq(img_subresource_offset(&im, 1, 0), 96);
    ck_assert_uint_eq(img_subresource_offset(&im, 1, 2), 96 + 16);
    ck_assert_uint_eq(img_subresource_offset(&im, 2, 0), 96 + 24);
    ck_assert_uint_eq(img_image_bytes(&im), 96 + 24 + 12);
    ck_assert_uint_eq(img_image_texels(&im), 33);
    ck_assert_uint_eq(img_texel_offset(&im, 3, 1, 0, 2, 0), 64 + (1 * 4 + 3) * 4);
    ck_assert_uint_eq(img_texel_offset(&im, 1, 0, 0, 1, 1), 96 + 8 + 4);
    /* 3D: 2x2x2 r32f, 2 mips: z-slices inside one layer */
    img_image vol = {.dim = IMG_DIM_3D, .format = IMG_FMT_R32_SFLOAT, .width = 2, .height = 2, .depth = 2,
                     .layers = 1, .mip_levels = 2};
    ck_assert_uint_eq(img_texel_offset(&vol, 1, 0, 1, 0, 0), (4 + 1) * 4);
    ck_assert_uint_eq(img_image_bytes(&vol), 32 + 4);
}
END_TEST

START_TEST(test_img_fetch_and_store_check_bounds)
{
    uint8_t bytes[2 * 2 * 2 * 4];
    memset(bytes, 0, sizeof bytes);
    img_image im = {.dim = IMG_DIM_2D, .format = IMG_FMT_R32_UINT, .width = 2, .height = 2, .depth = 1, .layers = 2,
                    .mip_levels = 1, .bytes = bytes, .size = sizeof bytes};
    img_texel in = {.u = {77, 1, 2, 3}}, out;
    int32_t at[3] = {1, 0, 0};
    ck_assert_int_eq(img_store(&im, at, 1, 0, &in), 1);
    uint32_t word;
    memcpy(&word, bytes + 16 + 4, 4);
    ck_assert_uint_eq(word, 77);
    ck_assert_int_eq(img_fetch(&im, at, 1, 0, &out), 1);
    ck_assert_uint_eq(out.u[0], 77);
    ck_assert_uint_eq(out.u[3], 1);
    int32_t bad[][3] = {{2, 0, 0}, {-1, 0, 0}, {0, 2, 0}, {0, 0, 1}};
    for (size_t i = 0; i < 4; i++) {
        out.u[0] = 99;
        ck_assert_int_eq(img_fetch(&im, bad[i], 0, 0, &out), 0);
        ck_assert_uint_eq(out.u[0], 0);
        ck_assert_int_eq(img_store(&im, bad[i], 0, 0, &in), 0);
    }
    ck_assert_int_eq(img_fetch(&im, at, 2, 0, &out), 0); /* layer */
    ck_assert_int_eq(img_fetch(&im, at, 0, 1, &out), 0); /* mip */
    for (size_t i = 0; i < sizeof bytes; i++)
        if (i < 20 || i >= 24)
            ck_assert_uint_eq(bytes[i], 0);
}
END_TEST


/* ---- the sampler: tiny images, values worked out by hand from the specification's formulas ------------ */

static img_sampler sampler_of(int filter, int address, int border)
{
    img_sampler s;
    img_sampler_default(&s);
    s.mag_filter = s.min_filter = (uint8_t)filter;
    s.address[0] = s.address[1] = s.address[2] = (uint8_t)address;
    s.border = (uint8_t)border;
    return s;
}

static img_image float_image(img_dim dim, uint32_t w, uint32_t h, uint32_t d, uint32_t layers, uint32_t mips,
                             const float *values, float *storage)
{
    img_image im = {.dim = dim, .format = IMG_FMT_R32_SFLOAT, .width = w, .height = h, .depth = d,
                    .layers = layers, .mip_levels = mips, .bytes = (uint8_t *)storage};
    im.size = img_image_bytes(&im);
    memcpy(storage, values, im.size);
    return im;
}

static float sample1(const img_image *im, const img_sampler *s, float u, float v, float w, float a, float lod)
{
    float coord[4] = {u, v, w, a};
    img_texel t;
    img_sample(im, s, coord, lod, NULL, &t);
    return t.f[0];
}

START_TEST(test_img_sample_nearest_each_address_mode_matches_hand_values)
{
    static const float row[4] = {10, 20, 30, 40};
    float storage[4];
    img_image im = float_image(IMG_DIM_2D, 4, 1, 1, 1, 1, row, storage);
    /* s -> u = 4s -> i = floor(u) -> wrapped; border: float opaque white (1.0) */
    static const struct {
        float s;
        float want[5]; /* repeat, mirrored_repeat, clamp_to_edge, clamp_to_border, mirror_clamp_to_edge */
    } rows[] = {
        {0.375f, {20, 20, 20, 20, 20}},  /* u 1.5: i 1 */
        {-0.1f, {40, 10, 10, 1, 10}},    /* u -0.4: i -1 */
        {1.1f, {10, 40, 40, 1, 40}},     /* u 4.4: i 4 */
        {1.3f, {20, 30, 40, 1, 40}},     /* u 5.2: i 5 */
        {-0.3f, {30, 20, 10, 1, 20}},    /* u -1.2: i -2 */
        {2.3f, {20, 20, 40, 1, 40}},     /* u 9.2: i 9 */
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        for (int mode = 0; mode < 5; mode++) {
            img_sampler s = sampler_of(IMG_FILTER_NEAREST, mode, IMG_BORDER_FLOAT_OPAQUE_WHITE);
            float got = sample1(&im, &s, rows[r].s, 0.5f, 0, 0, 0);
            ck_assert_msg(got == rows[r].want[mode], "s %g mode %s: want %g got %g", rows[r].s, img_address_name(mode),
                          rows[r].want[mode], got);
        }
}
END_TEST

START_TEST(test_img_sample_linear_each_address_mode_matches_hand_values)
{
    static const float row[4] = {10, 20, 30, 40};
    float storage[4];
    img_image im = float_image(IMG_DIM_2D, 4, 1, 1, 1, 1, row, storage);
    /* u = 4s; i0 = floor(u - 0.5), alpha = frac(u - 0.5); border: float transparent black (0) */
    static const struct {
        float s;
        float want[5];
    } rows[] = {
        {0.25f, {15, 15, 15, 15, 15}},     /* u 1: i0 0, alpha .5 */
        {0.3125f, {17.5f, 17.5f, 17.5f, 17.5f, 17.5f}}, /* u 1.25: alpha .75 */
        {0.0f, {25, 10, 10, 5, 10}},       /* u 0: i0 -1 (40|10|10|0|10), i1 0, alpha .5 */
        {1.0f, {25, 40, 40, 20, 40}},      /* u 4: i0 3, i1 4 (10|40|40|0|40) */
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        for (int mode = 0; mode < 5; mode++) {
            img_sampler s = sampler_of(IMG_FILTER_LINEAR, mode, IMG_BORDER_FLOAT_TRANSPARENT_BLACK);
            float got = sample1(&im, &s, rows[r].s, 0.5f, 0, 0, 0);
            ck_assert_msg(got == rows[r].want[mode], "s %g mode %s: want %g got %g", rows[r].s, img_address_name(mode),
                          rows[r].want[mode], got);
        }
    /* u = -0.75: u - 0.5 = -1.25, i0 = -2, alpha = .75: repeat 30*.25 + 40*.75 = 37.5; mirrored (i -2 -> 1, -1 -> 0)
     * 20*.25 + 10*.75 = 12.5; clamp 10; border 0; mirror clamp (-2 -> 1, -1 -> 0) 12.5 */
    static const float want_neg[5] = {37.5f, 12.5f, 10, 0, 12.5f};
    for (int mode = 0; mode < 5; mode++) {
        img_sampler s = sampler_of(IMG_FILTER_LINEAR, mode, IMG_BORDER_FLOAT_TRANSPARENT_BLACK);
        ck_assert_float_eq(sample1(&im, &s, -0.1875f, 0.5f, 0, 0, 0), want_neg[mode]);
    }
}
END_TEST

START_TEST(test_img_sample_bilinear_2x2_weights_match_hand_values)
{
    static const float quad[4] = {1, 2, 3, 4}; /* row 0: 1 2, row 1: 3 4 */
    float storage[4];
    img_image im = float_image(IMG_DIM_2D, 2, 2, 1, 1, 1, quad, storage);
    img_sampler s = sampler_of(IMG_FILTER_LINEAR, IMG_ADDRESS_CLAMP_TO_EDGE, 0);
    ck_assert_float_eq(sample1(&im, &s, 0.5f, 0.5f, 0, 0, 0), 2.5f);
    /* u .75 -> alpha .25; v 1.25 -> beta .75: .75*.25*1 + .25*.25*2 + .75*.75*3 + .25*.75*4 = 2.75 */
    ck_assert_float_eq(sample1(&im, &s, 0.375f, 0.625f, 0, 0, 0), 2.75f);
    ck_assert_float_eq(sample1(&im, &s, 0.25f, 0.25f, 0, 0, 0), 1.0f);  /* texel centre */
    ck_assert_float_eq(sample1(&im, &s, 0.75f, 0.25f, 0, 0, 0), 2.0f);
    s = sampler_of(IMG_FILTER_LINEAR, IMG_ADDRESS_REPEAT, 0);
    /* u 0 -> i0 -1 (wraps to 1), alpha .5; v 0 likewise: the mean of all four */
    ck_assert_float_eq(sample1(&im, &s, 0.0f, 0.0f, 0, 0, 0), 2.5f);
    /* nearest: texel (1, 1) */
    s = sampler_of(IMG_FILTER_NEAREST, IMG_ADDRESS_REPEAT, 0);
    ck_assert_float_eq(sample1(&im, &s, 0.6f, 0.9f, 0, 0, 0), 4.0f);
    /* 3D: 2x2x2 with value x + 2y + 4z; the centre is the mean, 3.5; (u .75, v .25, w .25) -> x .25 ... */
    static const float cube[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    float storage3[8];
    img_image vol = float_image(IMG_DIM_3D, 2, 2, 2, 1, 1, cube, storage3);
    s = sampler_of(IMG_FILTER_LINEAR, IMG_ADDRESS_CLAMP_TO_EDGE, 0);
    ck_assert_float_eq(sample1(&vol, &s, 0.5f, 0.5f, 0.5f, 0, 0), 3.5f);
    /* x weight of texel 1: u = 1.25 - .5 = .75; y: v = .75 - .5 = .25 -> .25; z: centre of slice 0 -> 0:
     * .75 + 2*.25 + 0 = 1.25 */
    ck_assert_float_eq(sample1(&vol, &s, 0.625f, 0.375f, 0.25f, 0, 0), 1.25f);
}
END_TEST

START_TEST(test_img_sample_mip_selection_bias_and_clamps_match_hand_values)
{
    /* 4x4, 3 levels: level 0 all 1, level 1 (2x2) all 2, level 2 (1x1) 4 */
    float values[16 + 4 + 1], storage[21];
    for (int i = 0; i < 21; i++)
        values[i] = i < 16 ? 1.0f : i < 20 ? 2.0f : 4.0f;
    img_image im = float_image(IMG_DIM_2D, 4, 4, 1, 1, 3, values, storage);
    img_sampler s = sampler_of(IMG_FILTER_NEAREST, IMG_ADDRESS_REPEAT, 0);
    ck_assert_float_eq(sample1(&im, &s, 0.3f, 0.3f, 0, 0, 0.0f), 1.0f);
    ck_assert_float_eq(sample1(&im, &s, 0.3f, 0.3f, 0, 0, 1.0f), 2.0f);
    ck_assert_float_eq(sample1(&im, &s, 0.3f, 0.3f, 0, 0, 0.5f), 1.0f); /* ceil(.5 + .5) - 1 = 0 */
    ck_assert_float_eq(sample1(&im, &s, 0.3f, 0.3f, 0, 0, 0.625f), 2.0f);
    ck_assert_float_eq(sample1(&im, &s, 0.3f, 0.3f, 0, 0, 9.0f), 4.0f); /* clamped to q = 2 */
    ck_assert_float_eq(sample1(&im, &s, 0.3f, 0.3f, 0, 0, -3.0f), 1.0f);
    s.mipmap_mode = IMG_MIPMAP_LINEAR;
    ck_assert_float_eq(sample1(&im, &s, 0.3f, 0.3f, 0, 0, 0.25f), 1.25f);
    ck_assert_float_eq(sample1(&im, &s, 0.3f, 0.3f, 0, 0, 1.5f), 3.0f);
    ck_assert_float_eq(sample1(&im, &s, 0.3f, 0.3f, 0, 0, 2.5f), 4.0f);
    s.mip_lod_bias = 1.0f;
    ck_assert_float_eq(sample1(&im, &s, 0.3f, 0.3f, 0, 0, 0.0f), 2.0f);
    s.mip_lod_bias = 0.0f;
    s.max_lod = 0.5f;
    ck_assert_float_eq(sample1(&im, &s, 0.3f, 0.3f, 0, 0, 3.0f), 1.5f);
    s.max_lod = 1000.0f;
    s.min_lod = 2.0f;
    ck_assert_float_eq(sample1(&im, &s, 0.3f, 0.3f, 0, 0, 0.0f), 4.0f);

    /* mag vs min filter: lambda <= 0 magnifies */
    static const float quad[4] = {1, 2, 3, 4};
    float storage2[4];
    img_image q = float_image(IMG_DIM_2D, 2, 2, 1, 1, 1, quad, storage2);
    s = sampler_of(IMG_FILTER_NEAREST, IMG_ADDRESS_CLAMP_TO_EDGE, 0);
    s.min_filter = IMG_FILTER_LINEAR;
    ck_assert_float_eq(sample1(&q, &s, 0.5f, 0.5f, 0, 0, -1.0f), 4.0f);
    ck_assert_float_eq(sample1(&q, &s, 0.5f, 0.5f, 0, 0, 0.0f), 4.0f);
    ck_assert_float_eq(sample1(&q, &s, 0.5f, 0.5f, 0, 0, 1.0f), 2.5f);
}
END_TEST

START_TEST(test_img_sample_unnormalized_layers_and_integer_formats)
{
    static const float row[4] = {10, 20, 30, 40};
    float storage[4];
    img_image im = float_image(IMG_DIM_2D, 4, 1, 1, 1, 1, row, storage);
    img_sampler s = sampler_of(IMG_FILTER_NEAREST, IMG_ADDRESS_CLAMP_TO_EDGE, 0);
    s.unnormalized = 1;
    ck_assert_float_eq(sample1(&im, &s, 2.5f, 0.5f, 0, 0, 0), 30.0f);
    s.mag_filter = s.min_filter = IMG_FILTER_LINEAR;
    ck_assert_float_eq(sample1(&im, &s, 2.0f, 0.5f, 0, 0, 0), 25.0f);

    /* array layers: 1x1, 3 layers 5 6 7; the layer is RNE(a) clamped */
    static const float layers[3] = {5, 6, 7};
    float storage_l[3];
    img_image arr = float_image(IMG_DIM_2D, 1, 1, 1, 3, 1, layers, storage_l);
    s = sampler_of(IMG_FILTER_NEAREST, IMG_ADDRESS_REPEAT, 0);
    ck_assert_float_eq(sample1(&arr, &s, 0.5f, 0.5f, 0, 1.5f, 0), 7.0f);
    ck_assert_float_eq(sample1(&arr, &s, 0.5f, 0.5f, 0, 0.5f, 0), 5.0f);
    ck_assert_float_eq(sample1(&arr, &s, 0.5f, 0.5f, 0, 1.4f, 0), 6.0f);
    ck_assert_float_eq(sample1(&arr, &s, 0.5f, 0.5f, 0, 9.0f, 0), 7.0f);
    ck_assert_float_eq(sample1(&arr, &s, 0.5f, 0.5f, 0, -3.0f, 0), 5.0f);

    /* integer formats read the nearest texel even with a linear sampler */
    uint32_t words[4] = {10, 20, 30, 40};
    img_image ui = {.dim = IMG_DIM_2D, .format = IMG_FMT_R32_UINT, .width = 4, .height = 1, .depth = 1, .layers = 1,
                    .mip_levels = 1, .bytes = (uint8_t *)words, .size = sizeof words};
    s = sampler_of(IMG_FILTER_LINEAR, IMG_ADDRESS_REPEAT, 0);
    float coord[4] = {0.3125f, 0.5f, 0, 0};
    img_texel t;
    img_sample(&ui, &s, coord, 0, NULL, &t);
    ck_assert_uint_eq(t.u[0], 20);
    ck_assert_uint_eq(t.u[3], 1);
}
END_TEST

START_TEST(test_img_sample_border_colours_match_the_table)
{
    uint8_t texel[4] = {9, 9, 9, 9};
    img_image im = {.dim = IMG_DIM_2D, .format = IMG_FMT_R8G8B8A8_UNORM, .width = 1, .height = 1, .depth = 1,
                    .layers = 1, .mip_levels = 1, .bytes = texel, .size = 4};
    uint32_t word = 5;
    img_image ui = {.dim = IMG_DIM_2D, .format = IMG_FMT_R32_UINT, .width = 1, .height = 1, .depth = 1, .layers = 1,
                    .mip_levels = 1, .bytes = (uint8_t *)&word, .size = 4};
    static const float want[6][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 0, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    for (int border = 0; border < 6; border++) {
        img_sampler s = sampler_of(IMG_FILTER_NEAREST, IMG_ADDRESS_CLAMP_TO_BORDER, border);
        float coord[4] = {1.5f, 0.5f, 0, 0};
        img_texel t;
        img_sample(&im, &s, coord, 0, NULL, &t);
        for (int c = 0; c < 4; c++)
            ck_assert_float_eq(t.f[c], want[border][c]);
        img_sample(&ui, &s, coord, 0, NULL, &t);
        for (int c = 0; c < 4; c++)
            ck_assert_uint_eq(t.u[c], (uint32_t)want[border][c]);
    }
}
END_TEST

START_TEST(test_img_sample_cube_faces_follow_the_major_axis_table)
{
    /* 2x2 faces: value = face * 10 + y * 2 + x */
    float values[24], storage[24];
    for (int i = 0; i < 24; i++)
        values[i] = (float)(i / 4 * 10 + i % 4);
    img_image im = float_image(IMG_DIM_CUBE, 2, 2, 1, 6, 1, values, storage);
    img_sampler s = sampler_of(IMG_FILTER_NEAREST, IMG_ADDRESS_CLAMP_TO_EDGE, 0);
    /* +x: sc = -rz, tc = -ry.  (1, -.5, -.5): s = t = .75 -> texel (1,1) */
    ck_assert_float_eq(sample1(&im, &s, 1.0f, -0.5f, -0.5f, 0, 0), 3.0f);
    ck_assert_float_eq(sample1(&im, &s, 1.0f, 0.5f, 0.5f, 0, 0), 0.0f);
    /* -x: sc = +rz, tc = -ry.  (-1, .5, .5): s .75, t .25 -> (1,0) */
    ck_assert_float_eq(sample1(&im, &s, -1.0f, 0.5f, 0.5f, 0, 0), 11.0f);
    /* +y: sc = rx, tc = rz.  (.5, 1, .5): (1,1) */
    ck_assert_float_eq(sample1(&im, &s, 0.5f, 1.0f, 0.5f, 0, 0), 23.0f);
    /* -y: sc = rx, tc = -rz.  (.5, -1, .5): s .75, t .25 -> (1,0) */
    ck_assert_float_eq(sample1(&im, &s, 0.5f, -1.0f, 0.5f, 0, 0), 31.0f);
    /* +z: sc = rx, tc = -ry.  (-.5, -.5, 1): s .25, t .75 -> (0,1) */
    ck_assert_float_eq(sample1(&im, &s, -0.5f, -0.5f, 1.0f, 0, 0), 42.0f);
    /* -z: sc = -rx, tc = -ry.  (.5, -.5, -1): s .25, t .75 -> (0,1) */
    ck_assert_float_eq(sample1(&im, &s, 0.5f, -0.5f, -1.0f, 0, 0), 52.0f);
}
END_TEST

START_TEST(test_img_sample_cube_linear_at_edges_reads_adjacent_faces)
{
    /* 2x2 faces: value = face * 10 + y * 2 + x; faces +x, -x, +y, -y, +z, -z */
    float values[24], storage[24];
    for (int i = 0; i < 24; i++)
        values[i] = (float)(i / 4 * 10 + i % 4);
    img_image im = float_image(IMG_DIM_CUBE, 2, 2, 1, 6, 1, values, storage);
    img_sampler s = sampler_of(IMG_FILTER_LINEAR, IMG_ADDRESS_REPEAT, 0); /* cubes ignore the address mode */
    /* (1, 0, .75) on +x: sc = -rz = -.75, tc = -ry = 0 -> s .125, t .5 -> u .25, v 1: i0 -1 (alpha .75),
     * j0 0 (beta .5).  Column -1 of +x lies across its sc = -1 edge, where rz = 1: face +z, whose
     * sc = rx = 1 there, column 1, the same rows (tc = -ry on both).  Taps: (-1,0) -> +z (1,0) = 41,
     * (0,0) = 0, (-1,1) -> +z (1,1) = 43, (0,1) = 2; .125*41 + .375*0 + .125*43 + .375*2 = 11.25 */
    ck_assert_float_eq(sample1(&im, &s, 1.0f, 0.0f, 0.75f, 0, 0), 11.25f);
    /* (1, .75, .75) on +x: s = t = .125, i0 = j0 = -1, alpha = beta = .75.  (0,-1) crosses tc = -1
     * (ry = 1): face +y, sc = rx = 1 -> column 1, tc = rz = .5 -> row 1: 23.  (-1,0) -> +z (1,0) = 41.
     * (-1,-1) is off both edges: the mean of the three texels at that cube corner, +x (0,0) = 0,
     * +z (1,0) = 41 and +y (1,1) = 23: 64/3.  .0625*64/3 + .1875*23 + .1875*41 + .5625*0 = 13.333... */
    ck_assert_float_eq_tol(sample1(&im, &s, 1.0f, 0.75f, 0.75f, 0, 0), 0.0625 * 64.0 / 3.0 + 0.1875 * 64.0, 1e-5);
    /* gather there: (i0, j1) (i1, j1) (i1, j0) (i0, j0) = (-1,0) -> 41, (0,0) = 0, (0,-1) -> 23, the corner 64/3 */
    float coord[4] = {1.0f, 0.75f, 0.75f, 0};
    img_texel g;
    img_gather(&im, &s, coord, 0, NULL, &g);
    ck_assert_float_eq(g.f[0], 41.0f);
    ck_assert_float_eq(g.f[1], 0.0f);
    ck_assert_float_eq(g.f[2], 23.0f);
    ck_assert_float_eq_tol(g.f[3], 64.0 / 3.0, 1e-5);
    /* nearest filtering clamps to the face's edge instead: (1, 0, .75) reads +x (0,1) = 2 */
    s = sampler_of(IMG_FILTER_NEAREST, IMG_ADDRESS_REPEAT, 0);
    ck_assert_float_eq(sample1(&im, &s, 1.0f, 0.0f, 0.75f, 0, 0), 2.0f);
}
END_TEST

START_TEST(test_img_gather_returns_footprint_in_spec_order)
{
    static const float quad[4] = {1, 2, 3, 4};
    float storage[4];
    img_image im = float_image(IMG_DIM_2D, 2, 2, 1, 1, 1, quad, storage);
    img_sampler s = sampler_of(IMG_FILTER_LINEAR, IMG_ADDRESS_CLAMP_TO_EDGE, 0);
    float coord[4] = {0.5f, 0.5f, 0, 0};
    img_texel t;
    img_gather(&im, &s, coord, 0, NULL, &t);
    /* i0j1, i1j1, i1j0, i0j0 = (0,1) (1,1) (1,0) (0,0) = 3 4 2 1 */
    ck_assert_float_eq(t.f[0], 3.0f);
    ck_assert_float_eq(t.f[1], 4.0f);
    ck_assert_float_eq(t.f[2], 2.0f);
    ck_assert_float_eq(t.f[3], 1.0f);
    img_gather(&im, &s, coord, 3, NULL, &t); /* r32f has no alpha: reads 1 */
    for (int k = 0; k < 4; k++)
        ck_assert_float_eq(t.f[k], 1.0f);
    /* repeat at the corner: i0 = -1 wraps to 1 */
    s = sampler_of(IMG_FILTER_LINEAR, IMG_ADDRESS_REPEAT, 0);
    coord[0] = coord[1] = 0.0f;
    img_gather(&im, &s, coord, 0, NULL, &t);
    ck_assert_float_eq(t.f[0], 2.0f); /* (1, 0) */
    ck_assert_float_eq(t.f[1], 1.0f); /* (0, 0) */
    ck_assert_float_eq(t.f[2], 3.0f); /* (0, 1) */
    ck_assert_float_eq(t.f[3], 4.0f); /* (1, 1) */
}
END_TEST

/* ConstOffset moves the integer texel coordinates of the level read (Vulkan, "Texel Coordinate Offset"), after
 * the floor, so the filter weights do not change; in the chosen level's texels, not mip 0's. */
START_TEST(test_img_sample_offsets_move_the_chosen_levels_texels)
{
    /* an 8x1 row (value 10 * x) and its 4x1 mip 1 (value 100 + x) */
    float values[12], storage[12];
    for (int x = 0; x < 8; x++)
        values[x] = (float)(10 * x);
    for (int x = 0; x < 4; x++)
        values[8 + x] = (float)(100 + x);
    img_image im = float_image(IMG_DIM_1D, 8, 1, 1, 1, 2, values, storage);
    img_sampler s = sampler_of(IMG_FILTER_NEAREST, IMG_ADDRESS_CLAMP_TO_EDGE, 0);
    s.mipmap_mode = IMG_MIPMAP_NEAREST, s.max_lod = 1.0f;
    float coord[4] = {0.3125f, 0, 0, 0}; /* u = 2.5 on mip 0, 1.25 on mip 1 */
    const int32_t plus2[3] = {2, 0, 0}, minus3[3] = {-3, 0, 0};
    img_texel t;
    img_sample(&im, &s, coord, 0, plus2, &t); /* i = 2 + 2 = 4 */
    ck_assert_float_eq(t.f[0], 40.0f);
    img_sample(&im, &s, coord, 0, minus3, &t); /* i = -1: clamped to 0 */
    ck_assert_float_eq(t.f[0], 0.0f);
    img_sample(&im, &s, coord, 1, plus2, &t); /* mip 1: i = 1 + 2 = 3, not mip 0's texel 4 */
    ck_assert_float_eq(t.f[0], 103.0f);
    /* linear: u 2.5 -> i0 = 2, alpha .5; +2 -> texels 4 and 5 at .5 each: 45 */
    s = sampler_of(IMG_FILTER_LINEAR, IMG_ADDRESS_REPEAT, 0);
    coord[0] = 0.34375f; /* u 2.75: i0 2, alpha .25; -3 -> texels -1 (wraps to 7) and 0: .75 * 70 + .25 * 0 */
    img_sample(&im, &s, coord, 0, minus3, &t);
    ck_assert_float_eq(t.f[0], 52.5f);
    /* gather on a 4x2 image of value 10 * y + x: s .375, t .5 -> i0 1, j0 0; +(1, 1) -> i0 2, j0 1, and row 2
     * clamps to row 1 */
    float quad[8], qstore[8];
    for (int k = 0; k < 8; k++)
        quad[k] = (float)(10 * (k / 4) + k % 4);
    img_image im2 = float_image(IMG_DIM_2D, 4, 2, 1, 1, 1, quad, qstore);
    s = sampler_of(IMG_FILTER_LINEAR, IMG_ADDRESS_CLAMP_TO_EDGE, 0);
    float c2[4] = {0.375f, 0.5f, 0, 0};
    const int32_t one_one[3] = {1, 1, 0};
    img_gather(&im2, &s, c2, 0, one_one, &t);
    ck_assert_float_eq(t.f[0], 12.0f); /* (2, 2) -> row 1 */
    ck_assert_float_eq(t.f[1], 13.0f); /* (3, 2) -> row 1 */
    ck_assert_float_eq(t.f[2], 13.0f); /* (3, 1) */
    ck_assert_float_eq(t.f[3], 12.0f); /* (2, 1) */
}
END_TEST

/* Cube map derivatives by hand: s = sc / 2rm + 1/2, so ds = (rm dsc - sc drm) / 2rm^2 on the selected face. */
START_TEST(test_img_cube_gradients_project_onto_the_face)
{
    float dx[2], dy[2];
    /* +x face (rm = x, sc = -z, tc = -y) at (1, .5, 0): a step along x (the normal) moves t by -tc/2 * .5 = .125
     * and s not at all (sc = 0); a step of -1 along z moves s by 1/2 */
    img_cube_gradients((const float[3]){1.0f, 0.5f, 0.0f}, (const float[3]){0.5f, 0, 0}, (const float[3]){0, 0, -1.0f},
                       dx, dy);
    ck_assert_float_eq(dx[0], 0.0f);
    ck_assert_float_eq(dx[1], 0.125f);
    ck_assert_float_eq(dy[0], 0.5f);
    ck_assert_float_eq(dy[1], 0.0f);
    /* -z face (rm = -z = 2, sc = -x = -.2, tc = -y = 0) at (.2, 0, -2): dx = +x: dsc = -1 -> -2/8 = -.25; dy = -z:
     * drm = 1 -> (0 - (-.2)(1)) / 8 = .025 */
    img_cube_gradients((const float[3]){0.2f, 0.0f, -2.0f}, (const float[3]){1.0f, 0, 0}, (const float[3]){0, 0, -1.0f},
                       dx, dy);
    ck_assert_float_eq(dx[0], -0.25f);
    ck_assert_float_eq(dx[1], 0.0f);
    ck_assert_float_eq_tol(dy[0], 0.025f, 1e-7f);
    ck_assert_float_eq(dy[1], 0.0f);
    /* the zero vector: no face, no gradient */
    img_cube_gradients((const float[3]){0, 0, 0}, (const float[3]){1.0f, 1.0f, 1.0f}, (const float[3]){1.0f, 0, 0}, dx,
                       dy);
    ck_assert_float_eq(dx[0], 0.0f);
    ck_assert_float_eq(dy[1], 0.0f);
}
END_TEST

/* Depth comparison by hand: each texel compared with the reference (Dref op D) before the filter; a border texel
 * is compared too; a UNORM format clamps the reference to [0, 1]. */
START_TEST(test_img_depth_compare_filters_the_comparisons)
{
    /* a 4x1 d32_sfloat row of depths .1 .3 .6 .9 */
    static const float depths[4] = {0.1f, 0.3f, 0.6f, 0.9f};
    float storage[4];
    img_image im = float_image(IMG_DIM_2D, 4, 1, 1, 1, 1, depths, storage);
    im.format = IMG_FMT_D32_SFLOAT;
    img_sampler s = sampler_of(IMG_FILTER_NEAREST, IMG_ADDRESS_CLAMP_TO_BORDER, IMG_BORDER_FLOAT_OPAQUE_WHITE);
    s.compare_op = IMG_COMPARE_LESS; /* Dref < D */
    s.dref = 0.5f;
    ck_assert_float_eq(sample1(&im, &s, 0.375f, 0.5f, 0, 0, 0), 0.0f); /* texel 1: .5 < .3 no */
    ck_assert_float_eq(sample1(&im, &s, 0.625f, 0.5f, 0, 0, 0), 1.0f); /* texel 2: .5 < .6 */
    ck_assert_float_eq(sample1(&im, &s, 1.5f, 0.5f, 0, 0, 0), 1.0f);   /* the border's depth 1: .5 < 1 */
    s.compare_op = IMG_COMPARE_GREATER_OR_EQUAL;
    ck_assert_float_eq(sample1(&im, &s, 0.375f, 0.5f, 0, 0, 0), 1.0f);
    /* linear between texels 1 and 2 (u = 2.0: i0 1, alpha .5): the results 0 and 1 blend to .5; the depths' blend
     * (.45) would have compared false */
    s = sampler_of(IMG_FILTER_LINEAR, IMG_ADDRESS_CLAMP_TO_EDGE, 0);
    s.compare_op = IMG_COMPARE_LESS, s.dref = 0.5f;
    ck_assert_float_eq(sample1(&im, &s, 0.5f, 0.5f, 0, 0, 0), 0.5f);
    /* gather: i0j1 i1j1 i1j0 i0j0 of u 2.0 (texels 1, 2; both rows clamp to row 0): 0 1 1 0 */
    float coord[4] = {0.5f, 0.5f, 0, 0};
    img_texel t;
    img_gather(&im, &s, coord, 0, NULL, &t);
    ck_assert_float_eq(t.f[0], 0.0f);
    ck_assert_float_eq(t.f[1], 1.0f);
    ck_assert_float_eq(t.f[2], 1.0f);
    ck_assert_float_eq(t.f[3], 0.0f);
    /* d16_unorm: 65535 is depth 1.0; a reference of 1.5 clamps to 1.0, so EQUAL holds (unclamped it would not) */
    uint16_t d16[1] = {65535};
    img_image u16 = {.dim = IMG_DIM_2D, .format = IMG_FMT_D16_UNORM, .width = 1, .height = 1, .depth = 1,
                     .layers = 1, .mip_levels = 1, .bytes = (uint8_t *)d16, .size = sizeof d16};
    s = sampler_of(IMG_FILTER_NEAREST, IMG_ADDRESS_CLAMP_TO_EDGE, 0);
    s.compare_op = IMG_COMPARE_EQUAL, s.dref = 1.5f;
    ck_assert_float_eq(sample1(&u16, &s, 0.5f, 0.5f, 0, 0, 0), 1.0f);
    im.format = IMG_FMT_D32_SFLOAT; /* a float format does not clamp: 1.5 == .9 fails, as does 1.5 == 1 */
    ck_assert_float_eq(sample1(&im, &s, 0.875f, 0.5f, 0, 0, 0), 0.0f);
}
END_TEST

/* ---- memory layouts ----------------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every texel of every layer and mip gets its own texel-sized, texel-aligned slot inside the allocation. */
START_TEST(test_img_layouts_are_bijections_onto_their_range)
{
    static const struct {
        img_dim dim;
        img_format format;
        uint32_t w, h, d, layers, mips;
    } shapes[] = {
        {IMG_DIM_2D, IMG_FMT_R8G8B8A8_UNORM, 64, 32, 1, 1, 1},  {IMG_DIM_2D, IMG_FMT_R32_SFLOAT, 37, 19, 1, 2, 3},
        {IMG_DIM_2D, IMG_FMT_R8_UINT, 200, 3, 1, 1, 2},          {IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 130, 70, 1, 1, 8},
        {IMG_DIM_3D, IMG_FMT_R16G16_SFLOAT, 9, 17, 5, 1, 2},     {IMG_DIM_CUBE, IMG_FMT_R16_UINT, 8, 8, 1, 6, 4},
        {IMG_DIM_1D, IMG_FMT_R32G32_UINT, 300, 1, 1, 3, 1},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        img_image im = {.dim = shapes[i].dim, .format = shapes[i].format, .width = shapes[i].w, .height = shapes[i].h,
                        .depth = shapes[i].d, .layers = shapes[i].layers, .mip_levels = shapes[i].mips};
        uint32_t tb = img_format_get(im.format)->texel_bytes;
        size_t n = img_image_texels(&im);
        uint64_t *addresses = malloc(n * sizeof *addresses);
        ck_assert_ptr_nonnull(addresses);
        for (int layout = 0; layout < IMG_LAYOUT_COUNT; layout++) {
            uint64_t bytes = img_layout_bytes(&im, (img_layout)layout);
            size_t k = 0;
            for (uint32_t layer = 0; layer < im.layers; layer++)
                for (uint32_t mip = 0; mip < im.mip_levels; mip++)
                    for (uint32_t z = 0; z < img_mip_size(im.depth, mip); z++)
                        for (uint32_t y = 0; y < img_mip_size(im.height, mip); y++)
                            for (uint32_t x = 0; x < img_mip_size(im.width, mip); x++) {
                                uint64_t a = img_layout_address(&im, (img_layout)layout, x, y, z, layer, mip);
                                ck_assert_msg(a % tb == 0 && a + tb <= bytes, "%s shape %zu: (%u,%u,%u) layer %u mip %u at %llu of %llu",
                                              img_layout_name((img_layout)layout), i, x, y, z, layer, mip,
                                              (unsigned long long)a, (unsigned long long)bytes);
                                addresses[k++] = a;
                            }
            ck_assert_uint_eq(k, n);
            qsort(addresses, n, sizeof *addresses, cmp_u64);
            for (size_t j = 1; j < n; j++)
                ck_assert_msg(addresses[j] != addresses[j - 1], "%s shape %zu: two texels at %llu",
                              img_layout_name((img_layout)layout), i, (unsigned long long)addresses[j]);
            if (layout == IMG_LAYOUT_LINEAR)
                ck_assert_uint_eq(bytes, img_image_bytes(&im));
            else
                ck_assert_uint_ge(bytes, img_image_bytes(&im));
        }
        free(addresses);
    }
}
END_TEST

START_TEST(test_img_blocklinear_keeps_8_rows_of_64_bytes_in_one_gob)
{
    /* 64x64 rgba8: a row of 256 B is 4 GOBs wide; 8 GOB rows, block height 8 GOBs (next pow2 of 8) */
    img_image im = {.dim = IMG_DIM_2D, .format = IMG_FMT_R8G8B8A8_UNORM, .width = 64, .height = 64, .depth = 1,
                    .layers = 1, .mip_levels = 1};
    for (uint32_t y = 0; y < 64; y++)
        for (uint32_t x = 0; x < 64; x++) {
            uint64_t a = img_layout_address(&im, IMG_LAYOUT_NV_BLOCKLINEAR, x, y, 0, 0, 0);
            /* the same GOB as the GOB's first texel: 16 texels (64 B) by 8 rows */
            uint64_t first = img_layout_address(&im, IMG_LAYOUT_NV_BLOCKLINEAR, x / 16 * 16, y / 8 * 8, 0, 0, 0);
            ck_assert_uint_eq(a / 512, first / 512);
            ck_assert_uint_eq(first % 512, 0);
        }
    /* Hand value: texel (9, 3) is byte 36 of row 3 of GOB 0: (36/32)*256 + (3/2)*64 + ((36%32)/16)*32 + (3%2)*16 + 36%16
     * = 256 + 64 + 0 + 16 + 4 = 340 */
    ck_assert_uint_eq(img_layout_address(&im, IMG_LAYOUT_NV_BLOCKLINEAR, 9, 3, 0, 0, 0), 340);
    /* (0, 8): the second GOB of the first block (GOBs stack in y inside a block) */
    ck_assert_uint_eq(img_layout_address(&im, IMG_LAYOUT_NV_BLOCKLINEAR, 0, 8, 0, 0, 0), 512);
    /* (16, 0): the next block along x: a block is 8 GOBs = 4096 B */
    ck_assert_uint_eq(img_layout_address(&im, IMG_LAYOUT_NV_BLOCKLINEAR, 16, 0, 0, 0, 0), 4096);
    /* The linear layout puts (0, 1) a row (256 B) away; block-linear within the same GOB, 16 B away */
    ck_assert_uint_eq(img_layout_address(&im, IMG_LAYOUT_LINEAR, 0, 1, 0, 0, 0), 256);
    ck_assert_uint_eq(img_layout_address(&im, IMG_LAYOUT_NV_BLOCKLINEAR, 0, 1, 0, 0, 0), 16);
}
END_TEST

START_TEST(test_img_amd_swizzle_interleaves_x_and_y_in_a_tile)
{
    /* 32x32 r32f = 4 KiB: one 4 KiB tile of 32x32 texels, Morton order x first */
    img_image im = {.dim = IMG_DIM_2D, .format = IMG_FMT_R32_SFLOAT, .width = 32, .height = 32, .depth = 1,
                    .layers = 1, .mip_levels = 1};
    ck_assert_uint_eq(img_layout_address(&im, IMG_LAYOUT_AMD_SWIZZLE, 1, 0, 0, 0, 0), 4);
    ck_assert_uint_eq(img_layout_address(&im, IMG_LAYOUT_AMD_SWIZZLE, 0, 1, 0, 0, 0), 8);
    ck_assert_uint_eq(img_layout_address(&im, IMG_LAYOUT_AMD_SWIZZLE, 1, 1, 0, 0, 0), 12);
    ck_assert_uint_eq(img_layout_address(&im, IMG_LAYOUT_AMD_SWIZZLE, 2, 0, 0, 0, 0), 16);
    /* (5, 6) = x 101, y 110 -> bits y2 x2 y1 x1 y0 x0 = 1 1 1 0 0 1 = 57 -> 228 */
    ck_assert_uint_eq(img_layout_address(&im, IMG_LAYOUT_AMD_SWIZZLE, 5, 6, 0, 0, 0), 228);
    /* 256x256 r32f = 256 KiB: 64 KiB tiles of 128x128; (128, 0) starts the second tile */
    im.width = im.height = 256;
    ck_assert_uint_eq(img_layout_address(&im, IMG_LAYOUT_AMD_SWIZZLE, 128, 0, 0, 0, 0), 65536);
    ck_assert_uint_eq(img_layout_address(&im, IMG_LAYOUT_AMD_SWIZZLE, 0, 128, 0, 0, 0), 131072);
    img_layout l;
    ck_assert(img_layout_by_name("amd_swizzle", &l) && l == IMG_LAYOUT_AMD_SWIZZLE);
    ck_assert(img_layout_by_name("nv_blocklinear", &l) && l == IMG_LAYOUT_NV_BLOCKLINEAR);
    ck_assert(!img_layout_by_name("tiled", &l));
}
END_TEST

/* ---- views: the per-instruction fast paths against the general functions, bit for bit ---------------- */

static uint64_t view_rng(uint64_t *state) /* xorshift64*: a fixed sequence, the same on every host */
{
    uint64_t x = *state;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

static float view_rand_unit(uint64_t *r) /* [0, 1) */
{
    return (float)(view_rng(r) >> 40) / 16777216.0f;
}

/* A coordinate from the cases a sampler treats differently: texel centres and edges, the range around the
 * image, mirrored and repeated ranges, exact halves, signed zeros, huge values and NaN. */
static float view_rand_coord(uint64_t *r)
{
    switch (view_rng(r) % 8) {
    case 0: return (float)(int)(view_rng(r) % 97) / 16.0f - 2.0f; /* multiples of 1/16 in [-2, 4] */
    case 1: return view_rand_unit(r) * 2.0f - 0.5f;
    case 2: return ((float)(view_rng(r) % 9) + 0.5f) / 8.0f;
    case 3: /* large: 2^18 .. 2^33 either sign, across where floats stop having fractions and int32 ends */
        return ldexpf(1.0f + view_rand_unit(r), 18 + (int)(view_rng(r) % 16)) * (view_rng(r) & 1 ? 1.0f : -1.0f);
    case 4: return view_rng(r) & 1 ? NAN : INFINITY;
    case 5: return view_rng(r) & 1 ? 0.0f : -0.0f;
    case 6: return view_rand_unit(r) * 40.0f - 20.0f; /* unnormalized-sized */
    default: return view_rand_unit(r) * 5.0f - 2.0f;
    }
}

static float view_rand_lod(uint64_t *r)
{
    switch (view_rng(r) % 6) {
    case 0: case 1: return (float)(int)(view_rng(r) % 9) - 2.0f; /* integer LODs, the common case */
    case 2: return view_rng(r) & 1 ? NAN : -INFINITY;
    case 3: return (float)(int)(view_rng(r) % 33) / 4.0f - 2.0f;
    default: return view_rand_unit(r) * 8.0f - 2.0f;
    }
}

/* A random image: format, dimensionality, extent, layers and mips; bytes random (every bit pattern, so
 * float formats hold NaNs and infinities too).  *bytes is the caller's to free. */
static img_image view_rand_image(uint64_t *r, uint8_t **bytes)
{
    img_image im = {0};
    im.format = (img_format)(view_rng(r) % IMG_FMT_COUNT);
    im.dim = (img_dim)(view_rng(r) % 4);
    im.width = 1 + (uint32_t)(view_rng(r) % 9);
    im.height = im.dim == IMG_DIM_1D ? 1 : im.dim == IMG_DIM_CUBE ? im.width : 1 + (uint32_t)(view_rng(r) % 9);
    im.depth = im.dim == IMG_DIM_3D ? 1 + (uint32_t)(view_rng(r) % 5) : 1;
    im.layers = im.dim == IMG_DIM_3D ? 1 : (im.dim == IMG_DIM_CUBE ? 6 : 1) * (1 + (uint32_t)(view_rng(r) % 3));
    im.mip_levels = 1 + (uint32_t)(view_rng(r) % 4);
    im.size = img_image_bytes(&im);
    *bytes = malloc(im.size);
    ck_assert_ptr_nonnull(*bytes);
    for (size_t i = 0; i < im.size; i++)
        (*bytes)[i] = (uint8_t)view_rng(r);
    im.bytes = *bytes;
    return im;
}

static img_sampler view_rand_sampler(uint64_t *r)
{
    img_sampler s;
    img_sampler_default(&s);
    s.mag_filter = (uint8_t)(view_rng(r) % 2);
    s.min_filter = (uint8_t)(view_rng(r) % 2);
    s.mipmap_mode = (uint8_t)(view_rng(r) % 2);
    const int one_mode = view_rng(r) % 2; /* often one address mode on every axis, as samplers are set */
    for (int a = 0; a < 3; a++)
        s.address[a] = (uint8_t)(one_mode && a ? s.address[0] : view_rng(r) % 5);
    s.border = (uint8_t)(view_rng(r) % 6);
    s.unnormalized = view_rng(r) % 5 == 0;
    if (view_rng(r) % 4 == 0) { /* a depth comparison (on any format: both paths must compare alike) */
        s.compare_op = (uint8_t)(1 + view_rng(r) % 8);
        s.dref = (float)(int)(view_rng(r) % 9) * 0.125f;
    }
    if (view_rng(r) % 3 == 0) {
        s.mip_lod_bias = (float)(int)(view_rng(r) % 5) - 2.0f + (view_rng(r) % 2 ? 0.25f : 0.0f);
        s.min_lod = (float)(int)(view_rng(r) % 3) * 0.5f;
        s.max_lod = s.min_lod + (float)(int)(view_rng(r) % 4);
    }
    return s;
}

START_TEST(test_img_view_sample_and_gather_random_inputs_match_general_path_bits)
{
    uint64_t r = 0x5eed1234abcdull;
    long samples = 0, fast_2d = 0;
    for (int image = 0; image < 600; image++) {
        uint8_t *bytes;
        img_image im = view_rand_image(&r, &bytes);
        img_view v;
        img_view_init(&v, &im);
        ck_assert_uint_eq(v.levels, im.mip_levels);
        for (int k = 0; k < 24; k++) {
            img_sampler s = view_rand_sampler(&r);
            float coord[4], lod = view_rand_lod(&r);
            for (int c = 0; c < 3; c++)
                coord[c] = view_rand_coord(&r);
            coord[3] = view_rng(&r) % 2 ? view_rand_coord(&r) : (float)(int)(view_rng(&r) % 4);
            /* a sampling offset on a third of the samples (not on cubes, where SPIR-V has none) */
            int32_t offset[3] = {0, 0, 0};
            const int32_t *off = NULL;
            if (im.dim != IMG_DIM_CUBE && view_rng(&r) % 3 == 0) {
                for (int a = 0; a < 3; a++)
                    offset[a] = (int32_t)(view_rng(&r) % 17) - 8;
                off = offset;
            }
            img_texel want, got;
            memset(&want, 0xa5, sizeof want);
            memset(&got, 0x5a, sizeof got);
            img_sample(&im, &s, coord, lod, off, &want);
            img_view_sample(&v, &s, coord, lod, off, &got);
            if (memcmp(&want, &got, sizeof want) != 0)
                ck_abort_msg("sample differs: format %s dim %s %ux%ux%u layers %u mips %u, filters %d/%d/%d, "
                             "address %d %d %d, border %d, unnormalized %d, coord (%a, %a, %a, %a) lod %a: "
                             "general %08x %08x %08x %08x, view %08x %08x %08x %08x",
                             img_format_get(im.format)->name, img_dim_name(im.dim), im.width, im.height, im.depth,
                             im.layers, im.mip_levels, s.mag_filter, s.min_filter, s.mipmap_mode, s.address[0],
                             s.address[1], s.address[2], s.border, s.unnormalized, coord[0], coord[1], coord[2],
                             coord[3], lod, want.u[0], want.u[1], want.u[2], want.u[3], got.u[0], got.u[1],
                             got.u[2], got.u[3]);
            samples++;
            fast_2d += im.dim == IMG_DIM_2D && !s.unnormalized;
            const int component = (int)(view_rng(&r) % 5) - (view_rng(&r) % 7 == 0); /* -1 and 4 clamp to 0 */
            memset(&want, 0xa5, sizeof want);
            memset(&got, 0x5a, sizeof got);
            img_gather(&im, &s, coord, component, off, &want);
            img_view_gather(&v, &s, coord, component, off, &got);
            ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "gather differs: format %s dim %s coord (%a, %a)",
                          img_format_get(im.format)->name, img_dim_name(im.dim), coord[0], coord[1]);
        }
        free(bytes);
    }
    /* the fast 2D path really ran on a good share of the samples */
    ck_assert_int_eq(samples, 600 * 24);
    ck_assert_int_gt(fast_2d, samples / 8);
}
END_TEST

START_TEST(test_img_view_fetch_store_and_decoders_random_inputs_match_general_path_bits)
{
    uint64_t r = 0xfe7c4e5ull;
    int decoders = 0;
    for (int f = 0; f < IMG_FMT_COUNT; f++) {
        /* the specialised decoder, where the format has one, over random texels */
        img_decode_fn decode = img_format_decoder((img_format)f);
        decoders += decode != NULL;
        for (int k = 0; decode && k < 2000; k++) {
            uint8_t src[16];
            for (int i = 0; i < 16; i++)
                src[i] = (uint8_t)view_rng(&r);
            img_texel want, got;
            memset(&got, 0x5a, sizeof got);
            img_decode((img_format)f, src, &want);
            decode(src, &got);
            ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "decoder of %s differs",
                          img_format_get((img_format)f)->name);
        }
    }
    /* r32 sfloat/uint/sint x1, x2, x4; rgba8 unorm x1, x2, x4; r16f x1, x2, x4; d32 sfloat */
    ck_assert_int_eq(decoders, 16);
    for (int image = 0; image < 400; image++) {
        uint8_t *bytes;
        img_image im = view_rand_image(&r, &bytes);
        uint8_t *copy = malloc(im.size);
        ck_assert_ptr_nonnull(copy);
        memcpy(copy, bytes, im.size);
        img_image im2 = im;
        im2.bytes = copy;
        img_view v;
        img_view_init(&v, &im2);
        for (int k = 0; k < 32; k++) {
            int32_t c[3];
            for (int a = 0; a < 3; a++)
                c[a] = (int32_t)(view_rng(&r) % 12) - 2; /* some out of bounds on each side */
            const uint32_t layer = (uint32_t)(view_rng(&r) % (im.layers + 1)), mip = (uint32_t)(view_rng(&r) % 5);
            img_texel want, got, in;
            memset(&got, 0x5a, sizeof got);
            const int want_in = img_fetch(&im, c, layer, mip, &want);
            const int got_in = img_view_fetch(&v, c, layer, mip, &got);
            ck_assert_int_eq(want_in, got_in);
            ck_assert(memcmp(&want, &got, sizeof want) == 0);
            for (int i = 0; i < 4; i++)
                in.u[i] = (uint32_t)view_rng(&r);
            ck_assert_int_eq(img_store(&im, c, layer, mip, &in), img_view_store(&v, c, layer, mip, &in));
            ck_assert(memcmp(bytes, copy, im.size) == 0);
        }
        free(copy);
        free(bytes);
    }
}
END_TEST

START_TEST(test_img_view_offsets_match_img_texel_offset)
{
    /* a 3D image with mips and a 2D array: every texel of every level and layer */
    const img_image ims[2] = {
        {.dim = IMG_DIM_3D, .format = IMG_FMT_R16G16B16A16_SFLOAT, .width = 7, .height = 5, .depth = 3,
         .layers = 1, .mip_levels = 3},
        {.dim = IMG_DIM_2D, .format = IMG_FMT_R8G8_UNORM, .width = 6, .height = 9, .depth = 1, .layers = 4,
         .mip_levels = 4},
    };
    for (int i = 0; i < 2; i++) {
        img_view v;
        img_view_init(&v, &ims[i]);
        for (uint32_t m = 0; m < ims[i].mip_levels; m++)
            for (uint32_t layer = 0; layer < ims[i].layers; layer++)
                for (uint32_t z = 0; z < img_mip_size(ims[i].depth, m); z++)
                    for (uint32_t y = 0; y < img_mip_size(ims[i].height, m); y++)
                        for (uint32_t x = 0; x < img_mip_size(ims[i].width, m); x++)
                            ck_assert_uint_eq(img_view_texel_offset(&v, x, y, z, layer, m),
                                              img_texel_offset(&ims[i], x, y, z, layer, m));
    }
    /* more levels than a view resolves: it hands every call to the general functions */
    img_image many = {.dim = IMG_DIM_1D, .format = IMG_FMT_R8_UNORM, .width = 4, .height = 1, .depth = 1,
                      .layers = 1, .mip_levels = IMG_VIEW_MAX_LEVELS + 3};
    img_view v;
    img_view_init(&v, &many);
    ck_assert_uint_eq(v.levels, 0);
}
END_TEST

static Suite *img_suite(void)
{
    Suite *s = suite_create("img");
    TCase *tc = tcase_create("img");
    tcase_add_test(tc, test_img_format_table_names_round_trip_and_sizes_add_up);
    tcase_add_test(tc, test_img_decode_every_format_matches_spec_formulas);
    tcase_add_test(tc, test_img_decode_hand_values_match);
    tcase_add_test(tc, test_img_encode_every_format_matches_spec_formulas);
    tcase_add_test(tc, test_img_encode_hand_values_match);
    tcase_add_test(tc, test_img_fixed_point_codes_round_trip_exactly);
    tcase_add_test(tc, test_img_packed_offsets_follow_mip_major_layer_order);
    tcase_add_test(tc, test_img_fetch_and_store_check_bounds);
    tcase_add_test(tc, test_img_sample_nearest_each_address_mode_matches_hand_values);
    tcase_add_test(tc, test_img_sample_linear_each_address_mode_matches_hand_values);
    tcase_add_test(tc, test_img_sample_bilinear_2x2_weights_match_hand_values);
    tcase_add_test(tc, test_img_sample_mip_selection_bias_and_clamps_match_hand_values);
    tcase_add_test(tc, test_img_sample_unnormalized_layers_and_integer_formats);
    tcase_add_test(tc, test_img_sample_border_colours_match_the_table);
    tcase_add_test(tc, test_img_sample_cube_faces_follow_the_major_axis_table);
    tcase_add_test(tc, test_img_sample_cube_linear_at_edges_reads_adjacent_faces);
    tcase_add_test(tc, test_img_gather_returns_footprint_in_spec_order);
    tcase_add_test(tc, test_img_sample_offsets_move_the_chosen_levels_texels);
    tcase_add_test(tc, test_img_cube_gradients_project_onto_the_face);
    tcase_add_test(tc, test_img_depth_compare_filters_the_comparisons);
    tcase_add_test(tc, test_img_layouts_are_bijections_onto_their_range);
    tcase_add_test(tc, test_img_blocklinear_keeps_8_rows_of_64_bytes_in_one_gob);
    tcase_add_test(tc, test_img_amd_swizzle_interleaves_x_and_y_in_a_tile);
    tcase_add_test(tc, test_img_view_sample_and_gather_random_inputs_match_general_path_bits);
    tcase_add_test(tc, test_img_view_fetch_store_and_decoders_random_inputs_match_general_path_bits);
    tcase_add_test(tc, test_img_view_offsets_match_img_texel_offset);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tsup_run_suite(img_suite(), "test_image");
}
