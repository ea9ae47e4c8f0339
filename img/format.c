/*
 * img/format.c — the format table (img/formats.def expanded) and the texel codec:
 * bytes <-> the values a shader reads and writes, by the Vulkan specification's
 * "Format Conversion" rules (Fixed-Point Data Conversions, 16-bit and unsigned
 * 11/10-bit floats, the sRGB EOTF).  Where the specification leaves a choice open
 * (rounding of float -> fixed-point and float -> small float, overflow of unsigned
 * small floats, out-of-range integer stores) the choice is written next to the code
 * and listed in docs/quirks.md.
 */
#include "img/img.h"

#include <math.h>
#include <string.h>

#include <spirv/unified1/spirv.h>
#include <vulkan/vulkan_core.h>

static const img_format_info format_table[IMG_FMT_COUNT] = {
#define X(id, name, spirv_name, vk, spv, bytes, comps, enc, b0, b1, b2, b3)                                  \
    [IMG_FMT_##id] = {name, spirv_name, (uint32_t)(vk), (uint32_t)(spv), bytes, comps,                      \
                      IMG_ENC_##enc == IMG_ENC_UINT || IMG_ENC_##enc == IMG_ENC_A2B10G10R10_UINT ? IMG_NUM_UINT \
                      : IMG_ENC_##enc == IMG_ENC_SINT                                          ? IMG_NUM_SINT \
                                                                                               : IMG_NUM_FLOAT, \
                      IMG_ENC_##enc == IMG_ENC_SRGB, IMG_ENC_##enc, {b0, b1, b2, b3}},
#include "img/formats.def"
#undef X
};

const img_format_info *img_format_get(img_format f)
{
    return (unsigned)f < IMG_FMT_COUNT ? &format_table[f] : NULL;
}

int img_format_by_name(const char *name, img_format *out)
{
    if (!name || !*name)
        return 0;
    for (int f = 0; f < IMG_FMT_COUNT; f++)
        if (strcmp(format_table[f].name, name) == 0 || strcmp(format_table[f].spirv_name, name) == 0) {
            *out = (img_format)f;
            return 1;
        }
    return 0;
}

int img_format_from_spirv(uint32_t spirv_image_format, img_format *out)
{
    if (spirv_image_format == SpvImageFormatUnknown)
        return 0;
    for (int f = 0; f < IMG_FMT_COUNT; f++)
        if (format_table[f].spirv_format == spirv_image_format) {
            *out = (img_format)f;
            return 1;
        }
    return 0;
}

int img_format_from_vk(uint32_t vk_format, img_format *out)
{
    for (int f = 0; f < IMG_FMT_COUNT; f++)
        if (format_table[f].vk_format == vk_format && vk_format != VK_FORMAT_UNDEFINED) {
            *out = (img_format)f;
            return 1;
        }
    return 0;
}

/* ---- scalar conversions ------------------------------------------------------------------------------- */

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float img_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    if (exponent == 0x1f)
        return bits_float(sign | 0x7f800000u | (mantissa << 13));
    float magnitude = exponent == 0 ? ldexpf((float)mantissa, -24) : ldexpf((float)(mantissa | 0x400), (int)exponent - 25);
    return bits_float(sign | float_bits(magnitude));
}

/* Rounds a non-negative finite magnitude to a float with `mantissa_bits` fraction bits and exponent bias
 * `bias` (5-bit exponent), to nearest even.  Returns the encoding without sign; values that round past the
 * largest finite become the all-ones exponent (infinity) -- the caller decides what overflow means. */
static uint32_t round_small_float(float magnitude, int mantissa_bits, int bias)
{
    int min_exponent = 1 - bias; /* of the smallest normal */
    if (magnitude == 0.0f)
        return 0;
    int e;
    frexpf(magnitude, &e); /* magnitude = m * 2^e, m in [0.5, 1): the leading bit is worth 2^(e-1) */
    int unbiased = e - 1 < min_exponent ? min_exponent : e - 1;
    /* Units of the last place at this exponent: value / 2^(unbiased - mantissa_bits), an exact scaling. */
    float scaled = ldexpf(magnitude, mantissa_bits - unbiased);
    uint32_t units = (uint32_t)nearbyintf(scaled); /* default rounding mode: to nearest even */
    /* units counts from 0 at the subnormal range, or includes the implicit bit (1 << mantissa_bits) above it;
     * a carry out of the mantissa moves to the next exponent naturally. */
    uint32_t encoding;
    if (e - 1 < min_exponent)
        encoding = units; /* subnormal, or carried to the smallest normal (units == 1 << mantissa_bits) */
    else
        encoding = ((uint32_t)(unbiased + bias) << mantissa_bits) + (units - (1u << mantissa_bits));
    uint32_t infinity = 0x1fu << mantissa_bits;
    return encoding > infinity ? infinity : encoding;
}

static uint64_t double_bits_of(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* One correctly rounded step from double to binary16 (round to nearest, ties to even): a value read from text
 * as a double is never rounded twice on its way to f16.  A NaN keeps the top bits of its payload, made quiet. */
uint16_t img_double_to_half(double d)
{
    uint64_t bits = double_bits_of(d);
    uint16_t sign = (uint16_t)((bits >> 48) & 0x8000u);
    int exp_field = (int)((bits >> 52) & 0x7FF);
    uint64_t frac = bits & 0x000FFFFFFFFFFFFFu;

    if (exp_field == 0x7FF) {
        if (frac == 0)
            return sign | 0x7C00u;
        /* NaN: keep the top payload bits, and make sure it stays quiet and a NaN. */
        return sign | 0x7E00u | (uint16_t)(frac >> 42);
    }
    if (exp_field == 0) /* zero or a double subnormal: far below half's smallest subnormal */
        return sign;

    int e = exp_field - 1023; /* value = 1.frac * 2^e */
    if (e >= 16)
        return sign | 0x7C00u;
    if (e >= -14) {
        uint16_t h = (uint16_t)(((unsigned)(e + 15) << 10) | (unsigned)(frac >> 42));
        uint64_t rest = frac & (((uint64_t)1 << 42) - 1);
        uint64_t halfway = (uint64_t)1 << 41;
        if (rest > halfway || (rest == halfway && (h & 1u)))
            h++; /* a carry out of the mantissa steps the exponent, up to inf: right */
        return sign | h;
    }
    /* Half subnormal: count units of 2^-24.  value = m * 2^(e-52) with m the
     * 53-bit significand, so units = m >> (28 - e). */
    uint64_t m = frac | ((uint64_t)1 << 52);
    int shift = 28 - e; /* >= 43 here */
    if (shift >= 64)
        return sign;
    uint64_t q = m >> shift;
    uint64_t rest = m & (((uint64_t)1 << shift) - 1);
    uint64_t halfway = (uint64_t)1 << (shift - 1);
    if (rest > halfway || (rest == halfway && (q & 1u)))
        q++; /* may become 0x400, the smallest normal: also right */
    return sign | (uint16_t)q;
}

uint16_t img_float_to_half(float f)
{
    uint32_t u = float_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    if (isnan(f))
        return sign | 0x7e00;
    if (isinf(f))
        return sign | 0x7c00;
    /* IEEE round to nearest even: finite values past the largest half become infinity. */
    return sign | (uint16_t)round_small_float(fabsf(f), 10, 15);
}

float img_ufloat_to_float(uint32_t bits, int mantissa_bits)
{
    uint32_t exponent = (bits >> mantissa_bits) & 0x1f, mantissa = bits & ((1u << mantissa_bits) - 1);
    if (exponent == 0x1f)
        return mantissa ? NAN : INFINITY;
    if (exponent == 0)
        return ldexpf((float)mantissa, -14 - mantissa_bits);
    return ldexpf((float)(mantissa | (1u << mantissa_bits)), (int)exponent - 15 - mantissa_bits);
}

uint32_t img_float_to_ufloat(float f, int mantissa_bits)
{
    uint32_t infinity = 0x1fu << mantissa_bits;
    if (isnan(f))
        return infinity | 1u << (mantissa_bits - 1);
    if (f <= 0.0f) /* negative values and -inf: zero (unsigned destination) */
        return 0;
    if (isinf(f))
        return infinity;
    uint32_t encoding = round_small_float(f, mantissa_bits, 15);
    /* The specification lets finite values too large for the format become the largest finite value or
     * infinity: wavelab takes the largest finite value (as Mesa's packing does, so lavapipe agrees). */
    return encoding >= infinity ? infinity - 1 : encoding;
}

/* Fixed-point conversions (Vulkan "Fixed-Point Data Conversions"). */
static float unorm_to_float(uint32_t c, int bits)
{
    return (float)((double)c / (double)((1ull << bits) - 1));
}

static float snorm_to_float(int32_t c, int bits)
{
    float f = (float)((double)c / (double)((1ll << (bits - 1)) - 1));
    return f < -1.0f ? -1.0f : f;
}

/* The EOTF of the exact normalized value c / (2^b - 1), rounded once. */
static float srgb_decode_exact(uint32_t c, int bits)
{
    double x = (double)c / (double)((1ull << bits) - 1);
    return (float)(x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4));
}

/* float -> UNORM: clamp to [0,1], scale by 2^b - 1, round to nearest (ties to even); NaN -> 0.  Takes a
 * double so the sRGB encoding rounds its formula's value once. */
static uint32_t float_to_unorm(double f, int bits)
{
    if (!(f > 0.0))
        return 0;
    if (f >= 1.0)
        return (uint32_t)((1ull << bits) - 1);
    return (uint32_t)nearbyint(f * (double)((1ull << bits) - 1));
}

static double linear_to_srgb_exact(float c)
{
    if (!(c > 0.0f))
        return 0.0;
    if (c >= 1.0f)
        return 1.0;
    double x = c;
    return x <= 0.0031308 ? x * 12.92 : 1.055 * pow(x, 1.0 / 2.4) - 0.055;
}

/* float -> SNORM: clamp to [-1,1], scale by 2^(b-1) - 1, round to nearest (ties to even); NaN -> 0. */
static int32_t float_to_snorm(float f, int bits)
{
    double max = (double)((1ll << (bits - 1)) - 1);
    if (isnan(f))
        return 0;
    if (f >= 1.0f)
        return (int32_t)max;
    if (f <= -1.0f)
        return (int32_t)-max;
    return (int32_t)nearbyint((double)f * max);
}

/* Out-of-range integer stores are undefined in Vulkan; wavelab clamps to the format's range (as Mesa's
 * packing, and so lavapipe, does). */
static uint32_t clamp_uint(uint32_t v, int bits)
{
    uint32_t max = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
    return v > max ? max : v;
}

static int32_t clamp_sint(int32_t v, int bits)
{
    if (bits >= 32)
        return v;
    int32_t max = (1 << (bits - 1)) - 1, min = -(1 << (bits - 1));
    return v > max ? max : v < min ? min : v;
}

static uint32_t load_le(const uint8_t *p, int bytes)
{
    uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void store_le(uint8_t *p, uint32_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int32_t sign_extend(uint32_t v, int bits)
{
    if (bits >= 32)
        return (int32_t)v;
    uint32_t m = 1u << (bits - 1);
    return (int32_t)((v ^ m) - m);
}

static void set_missing(const img_format_info *fi, img_texel *out)
{
    for (uint32_t c = fi->components; c < 4; c++) {
        if (fi->numeric == IMG_NUM_FLOAT)
            out->f[c] = c == 3 ? 1.0f : 0.0f;
        else
            out->u[c] = c == 3 ? 1u : 0u;
    }
}

void img_decode(img_format f, const uint8_t *src, img_texel *out)
{
    const img_format_info *fi = &format_table[f];
    memset(out, 0, sizeof *out);
    if (img_format_is_wide(fi)) { /* one 64-bit integer, little-endian, as stored */
        for (int i = 7; i >= 0; i--)
            out->u64[0] = out->u64[0] << 8 | src[i];
        return;
    }
    switch (fi->encoding) {
    case IMG_ENC_B10G11R11_UFLOAT: {
        uint32_t w = load_le(src, 4);
        out->f[0] = img_ufloat_to_float(w & 0x7ff, 6);
        out->f[1] = img_ufloat_to_float((w >> 11) & 0x7ff, 6);
        out->f[2] = img_ufloat_to_float(w >> 22, 5);
        break;
    }
    case IMG_ENC_A2B10G10R10_UNORM:
    case IMG_ENC_A2B10G10R10_UINT: {
        uint32_t w = load_le(src, 4);
        uint32_t field[4] = {w & 0x3ff, (w >> 10) & 0x3ff, (w >> 20) & 0x3ff, w >> 30};
        for (int c = 0; c < 4; c++) {
            if (fi->encoding == IMG_ENC_A2B10G10R10_UINT)
                out->u[c] = field[c];
            else
                out->f[c] = unorm_to_float(field[c], fi->bits[c]);
        }
        break;
    }
    default:
        for (uint32_t c = 0; c < fi->components; c++) {
            int bits = fi->bits[c], bytes = bits / 8;
            uint32_t raw = load_le(src + c * bytes, bytes);
            switch (fi->encoding) {
            case IMG_ENC_UNORM: out->f[c] = unorm_to_float(raw, bits); break;
            case IMG_ENC_SNORM: out->f[c] = snorm_to_float(sign_extend(raw, bits), bits); break;
            case IMG_ENC_UINT: out->u[c] = raw; break;
            case IMG_ENC_SINT: out->i[c] = sign_extend(raw, bits); break;
            case IMG_ENC_SFLOAT: out->f[c] = bits == 16 ? img_half_to_float((uint16_t)raw) : bits_float(raw); break;
            case IMG_ENC_SRGB:
                out->f[c] = c < 3 ? srgb_decode_exact(raw, bits) : unorm_to_float(raw, bits);
                break;
            default: break;
            }
        }
        break;
    }
    set_missing(fi, out);
}

void img_encode(img_format f, const img_texel *in, uint8_t *dst)
{
    const img_format_info *fi = &format_table[f];
    if (img_format_is_wide(fi)) {
        for (int i = 0; i < 8; i++)
            dst[i] = (uint8_t)(in->u64[0] >> (8 * i));
        return;
    }
    switch (fi->encoding) {
    case IMG_ENC_B10G11R11_UFLOAT:
        store_le(dst,
                 img_float_to_ufloat(in->f[0], 6) | img_float_to_ufloat(in->f[1], 6) << 11 |
                     img_float_to_ufloat(in->f[2], 5) << 22,
                 4);
        return;
    case IMG_ENC_A2B10G10R10_UNORM:
    case IMG_ENC_A2B10G10R10_UINT: {
        uint32_t w = 0, shift[4] = {0, 10, 20, 30};
        for (int c = 0; c < 4; c++) {
            uint32_t v = fi->encoding == IMG_ENC_A2B10G10R10_UINT ? clamp_uint(in->u[c], fi->bits[c])
                                                                   : float_to_unorm(in->f[c], fi->bits[c]);
            w |= v << shift[c];
        }
        store_le(dst, w, 4);
        return;
    }
    default:
        for (uint32_t c = 0; c < fi->components; c++) {
            int bits = fi->bits[c], bytes = bits / 8;
            uint32_t raw = 0;
            switch (fi->encoding) {
            case IMG_ENC_UNORM: raw = float_to_unorm(in->f[c], bits); break;
            case IMG_ENC_SNORM: raw = (uint32_t)float_to_snorm(in->f[c], bits); break;
            case IMG_ENC_UINT: raw = clamp_uint(in->u[c], bits); break;
            case IMG_ENC_SINT: raw = (uint32_t)clamp_sint(in->i[c], bits); break;
            case IMG_ENC_SFLOAT: raw = bits == 16 ? img_float_to_half(in->f[c]) : float_bits(in->f[c]); break;
            case IMG_ENC_SRGB:
                raw = float_to_unorm(c < 3 ? linear_to_srgb_exact(in->f[c]) : in->f[c], bits);
                break;
            default: break;
            }
            store_le(dst + c * bytes, raw, bytes);
        }
        return;
    }
}

/* ---- decoders specialised to a format ------------------------------------------------------------------
 * img_decode reads the format row, clears the texel and switches on the encoding for every component of
 * every texel; an image instruction decodes many texels of one format, so it takes one of these instead.
 * Each is img_decode's arithmetic for one row shape with the widths constant (the same bits: the
 * img_view tests of tests/test_image.c compare them over every format). */

#define FLOAT_ONE_BITS 0x3f800000u

/* N 32-bit words taken unchanged (32-bit UINT, SINT and SFLOAT); missing components 0 and alpha `one`. */
#define DECODE_WORDS(n, one_name, one)                                                                    \
    static void decode_words##n##_##one_name(const uint8_t *src, img_texel *out)                          \
    {                                                                                                     \
        uint32_t w[4] = {0, 0, 0, one};                                                                   \
        memcpy(w, src, 4 * (n));                                                                          \
        memcpy(out->u, w, sizeof w);                                                                      \
    }
DECODE_WORDS(1, float, FLOAT_ONE_BITS)
DECODE_WORDS(2, float, FLOAT_ONE_BITS)
DECODE_WORDS(4, float, FLOAT_ONE_BITS)
DECODE_WORDS(1, int, 1u)
DECODE_WORDS(2, int, 1u)
DECODE_WORDS(4, int, 1u)

/* N 8-bit UNORM components. */
#define DECODE_UNORM8(n)                                                                                  \
    static void decode_unorm8x##n(const uint8_t *src, img_texel *out)                                     \
    {                                                                                                     \
        float f[4] = {0.0f, 0.0f, 0.0f, 1.0f};                                                            \
        for (int c = 0; c < (n); c++)                                                                     \
            f[c] = unorm_to_float(src[c], 8);                                                             \
        memcpy(out->f, f, sizeof f);                                                                      \
    }
DECODE_UNORM8(1)
DECODE_UNORM8(2)
DECODE_UNORM8(4)

/* N 16-bit SFLOAT components. */
#define DECODE_HALF(n)                                                                                    \
    static void decode_half##n(const uint8_t *src, img_texel *out)                                        \
    {                                                                                                     \
        float f[4] = {0.0f, 0.0f, 0.0f, 1.0f};                                                            \
        for (int c = 0; c < (n); c++)                                                                     \
            f[c] = img_half_to_float((uint16_t)load_le(src + 2 * c, 2));                                 \
        memcpy(out->f, f, sizeof f);                                                                      \
    }
DECODE_HALF(1)
DECODE_HALF(2)
DECODE_HALF(4)

img_decode_fn img_format_decoder(img_format f)
{
    const img_format_info *fi = img_format_get(f);
    if (!fi)
        return NULL;
    const unsigned n = fi->components, bits = fi->bits[0];
    if (n != 1 && n != 2 && n != 4)
        return NULL;
    const int k = n == 1 ? 0 : n == 2 ? 1 : 2;
    static const img_decode_fn words_float[3] = {decode_words1_float, decode_words2_float, decode_words4_float};
    static const img_decode_fn words_int[3] = {decode_words1_int, decode_words2_int, decode_words4_int};
    static const img_decode_fn unorm8[3] = {decode_unorm8x1, decode_unorm8x2, decode_unorm8x4};
    static const img_decode_fn half[3] = {decode_half1, decode_half2, decode_half4};
    switch (fi->encoding) {
    case IMG_ENC_SFLOAT: return bits == 32 ? words_float[k] : bits == 16 ? half[k] : NULL;
    case IMG_ENC_UINT: case IMG_ENC_SINT: return bits == 32 ? words_int[k] : NULL;
    case IMG_ENC_UNORM: return bits == 8 ? unorm8[k] : NULL;
    default: return NULL;
    }
}
