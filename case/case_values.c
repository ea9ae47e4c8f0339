/*
 * case/case_values.c — the element-level helpers every module shares: the type
 * and kind tables, little-endian elements and float bit classes, half
 * precision, the documented splitmix64 stream, and storing a parsed value into
 * an element with its range checked (case/case_internal.h declares the shared
 * ones).
 *
 * Floating-point stores keep each rounding step explicit so that the bytes are
 * the ones docs/case-format.md documents on every compiler.
 */
#include "case/case.h"
#include "case/case_internal.h"
#include "img/img.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Type and kind tables                                                       */
/* ------------------------------------------------------------------------- */

static const struct type_info {
    const char *name;
    size_t size;
    int is_signed, is_float;
} type_table[CASE_TYPE_COUNT] = {
#define X(id, name, size, is_signed, is_float) {name, size, is_signed, is_float},
    CASE_TYPE_LIST(X)
#undef X
};

static const char *const kind_names[CASE_KIND_COUNT] = {
    "storage_buffer", "uniform_buffer", "storage_texel_buffer", "uniform_texel_buffer",
    "storage_image", "sampled_image", "combined_image_sampler", "sampler",
};


const char *case_type_name(case_type t)
{
    return (unsigned)t < CASE_TYPE_COUNT ? type_table[t].name : "?";
}

size_t case_type_size(case_type t)
{
    return (unsigned)t < CASE_TYPE_COUNT ? type_table[t].size : 0;
}

int case_type_is_float(case_type t)
{
    return (unsigned)t < CASE_TYPE_COUNT ? type_table[t].is_float : 0;
}

int case_type_is_signed(case_type t)
{
    return (unsigned)t < CASE_TYPE_COUNT ? type_table[t].is_signed : 0;
}

case_type case_type_of(unsigned bits, int is_float, int is_signed)
{
    for (int t = 0; t < CASE_TYPE_COUNT; t++)
        if (type_table[t].size * 8 == bits && type_table[t].is_float == !!is_float &&
            (is_float || type_table[t].is_signed == !!is_signed))
            return (case_type)t;
    return CASE_TYPE_COUNT;
}

const char *case_kind_name(case_kind k)
{
    return (unsigned)k < CASE_KIND_COUNT ? kind_names[k] : "?";
}

const char *case_status_str(case_status s)
{
    switch (s) {
    case CASE_OK: return "ok";
    case CASE_ERR_IO: return "cannot read the case file";
    case CASE_ERR_JSON: return "the case file is not valid JSON";
    case CASE_ERR_FIELD: return "a field of the case file is missing, of the wrong type or out of range";
    case CASE_ERR_NOMEM: return "out of memory";
    case CASE_ERR_UNSUPPORTED: return "the script asks for what wavelab cannot run";
    }
    return "unknown case status";
}

int case_kind_is_texel(case_kind k)
{
    return k == CASE_KIND_STORAGE_TEXEL_BUFFER || k == CASE_KIND_UNIFORM_TEXEL_BUFFER;
}

/* Smallest and largest value of an integer type. */
void case_int_type_range(case_type t, case_i128 *lo, case_i128 *hi)
{
    unsigned bits = (unsigned)(8 * case_type_size(t));
    if (case_type_is_signed(t)) {
        *hi = ((case_i128)1 << (bits - 1)) - 1;
        *lo = -*hi - 1;
    } else {
        *lo = 0;
        *hi = ((case_i128)1 << bits) - 1;
    }
}

/* ------------------------------------------------------------------------- */
/* Little-endian elements and float bit patterns                              */
/* ------------------------------------------------------------------------- */

uint64_t case_load_le(const uint8_t *p, size_t size)
{
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void case_store_le(uint8_t *p, uint64_t v, size_t size)
{
    for (size_t i = 0; i < size; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bits_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Exponent and mantissa masks of a float type's bit pattern. */
static void float_masks(case_type t, uint64_t *exp_mask, uint64_t *man_mask)
{
    switch (t) {
    case CASE_TYPE_F16: *exp_mask = 0x7C00u; *man_mask = 0x03FFu; break;
    case CASE_TYPE_F32: *exp_mask = 0x7F800000u; *man_mask = 0x007FFFFFu; break;
    default: *exp_mask = 0x7FF0000000000000u; *man_mask = 0x000FFFFFFFFFFFFFu; break;
    }
}

int case_bits_is_nan(case_type t, uint64_t bits)
{
    uint64_t e, m;
    float_masks(t, &e, &m);
    return (bits & e) == e && (bits & m) != 0;
}

int case_bits_is_inf(case_type t, uint64_t bits)
{
    uint64_t e, m;
    float_masks(t, &e, &m);
    return (bits & e) == e && (bits & m) == 0;
}

/* ------------------------------------------------------------------------- */
/* Half precision                                                             */
/* ------------------------------------------------------------------------- */

/* The numeric value of one element of a float type, from its bits. */
double case_float_element_value(case_type t, uint64_t bits)
{
    switch (t) {
    case CASE_TYPE_F16: return (double)img_half_to_float((uint16_t)bits);
    case CASE_TYPE_F32: return (double)bits_float((uint32_t)bits);
    default: return bits_double(bits);
    }
}

/* The value of one element of an integer type, from its bits. */
case_i128 case_int_element_value(case_type t, uint64_t bits)
{
    size_t size = case_type_size(t);
    if (!case_type_is_signed(t))
        return (case_i128)bits;
    unsigned shift = (unsigned)(64 - 8 * size);
    return (case_i128)((int64_t)(bits << shift) >> shift);
}

/* ------------------------------------------------------------------------- */
/* splitmix64                                                                 */
/* ------------------------------------------------------------------------- */

uint64_t case_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* ------------------------------------------------------------------------- */
/* Storing values into elements                                               */
/* ------------------------------------------------------------------------- */

/* Stores an integer into an element of integer type t.  Returns 0 when the
 * value does not fit the type (nothing is stored then). */
int case_store_int(case_type t, case_i128 v, uint8_t *dst)
{
    case_i128 lo, hi;
    case_int_type_range(t, &lo, &hi);
    if (v < lo || v > hi)
        return 0;
    case_store_le(dst, (uint64_t)v, case_type_size(t));
    return 1;
}

/* Stores a double into an element of float type t, rounding to nearest even.
 * NaN becomes the type's canonical quiet NaN.  Returns 0 when a finite value
 * would round to infinity (out of range of the type). */
int case_store_float(case_type t, double d, uint8_t *dst)
{
    switch (t) {
    case CASE_TYPE_F16: {
        uint16_t h = isnan(d) ? 0x7E00u : img_double_to_half(d);
        if (isfinite(d) && (h & 0x7FFFu) == 0x7C00u)
            return 0;
        case_store_le(dst, h, 2);
        return 1;
    }
    case CASE_TYPE_F32: {
        uint32_t u;
        if (isnan(d)) {
            u = 0x7FC00000u;
        } else {
            /* FLT_MAX plus half an ulp rounds (to even) to inf: refuse it before the
             * conversion, which C leaves undefined out of range. */
            if (isfinite(d) && fabs(d) >= 0x1.ffffffp+127)
                return 0;
            u = float_bits((float)d);
        }
        case_store_le(dst, u, 4);
        return 1;
    }
    default:
        case_store_le(dst, isnan(d) ? 0x7FF8000000000000u : double_bits(d), 8);
        return 1;
    }
}

/* Decimal text of a 128-bit integer (for messages: printf has no %I128). */
const char *case_i128_text(case_i128 v, char buf[48])
{
    char tmp[48];
    int n = 0;
    int negative = v < 0;
    case_u128 u = negative ? (case_u128)0 - (case_u128)v : (case_u128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u != 0 && n < 46);
    int k = 0;
    if (negative)
        buf[k++] = '-';
    while (n > 0)
        buf[k++] = tmp[--n];
    buf[k] = '\0';
    return buf;
}

/* The shortest "%.Ng" text that reads back as the same double: messages
 * say 0.1, not 0.10000000000000001.  Returned by value so that it can sit in
 * a printf argument list (C11 keeps the temporary to the end of the call). */
/* number_text: case/case_internal.h */
number_text case_shortest(double d)
{
    number_text t;
    if (d == floor(d) && fabs(d) < 1e17) { /* integers in full: 70000, not 7e+04 */
        snprintf(t.s, sizeof t.s, "%.0f", d);
        return t;
    }
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(t.s, sizeof t.s, "%.*g", precision, d);
        if (strtod(t.s, NULL) == d || isnan(d))
            break;
    }
    return t;
}

/* "0..255", "-128..127", "65504" etc.: the range of a type, for messages. */
const char *case_type_range_text(case_type t, char buf[112])
{
    if (case_type_is_float(t)) {
        const char *max = t == CASE_TYPE_F16 ? "65504" : t == CASE_TYPE_F32 ? "3.40282347e+38"
                                                                            : "1.7976931348623157e+308";
        snprintf(buf, 112, "largest finite %s is %s", case_type_name(t), max);
        return buf;
    }
    case_i128 lo, hi;
    char a[48], b[48];
    case_int_type_range(t, &lo, &hi);
    snprintf(buf, 112, "%s holds %s..%s", case_type_name(t), case_i128_text(lo, a), case_i128_text(hi, b));
    return buf;
}
