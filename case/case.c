/*
 * case/case.c — reads case files (docs/case-format.md) into wl_case, and the
 * element-level helpers every module shares: the type table, half-precision
 * conversion, the documented splitmix64 stream, element formatting and the
 * expectation comparisons.
 *
 * A case file is untrusted input: every problem becomes one returned message
 * "FILE: FIELD: problem" with FIELD a JSON path such as
 * `bindings[2].fill.random.seed`; nothing here asserts on what the file says.
 * The parser validates each field where it reads it, builds the case as it
 * goes and frees the partial case on the first error.
 *
 * Floating-point formulas (iota, random fill) keep each product in a volatile
 * so that a compiler allowed to contract a*b+c into an FMA cannot change the
 * documented bytes: a Python reimplementation rounds after every operation.
 */
#include "case/case.h"
#include "case/case_internal.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* case_load refuses files larger than this. */
#define CASE_MAX_FILE_BYTES ((size_t)64 << 20)
/* JSON numbers are doubles: integers above this may already have been rounded. */
#define CASE_EXACT_INT_LIMIT 9007199254740992.0 /* 2^53 */

typedef __int128 case_i128;
typedef unsigned __int128 case_u128;

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

/* Texel buffer formats the case file accepts, with the bytes of one texel. */
static const struct texel_format {
    const char *name;
    size_t texel_bytes;
} texel_formats[] = {
    {"r32ui", 4},    {"r32i", 4},     {"r32f", 4},    {"rg32ui", 8},  {"rg32i", 8},
    {"rg32f", 8},    {"rgba32ui", 16}, {"rgba32i", 16}, {"rgba32f", 16}, {"r16f", 2},
    {"rgba16f", 8},  {"r16ui", 2},    {"r8ui", 1},    {"rgba8ui", 4}, {"rgba8", 4},
};
#define TEXEL_FORMAT_COUNT (sizeof texel_formats / sizeof texel_formats[0])

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
    }
    return "unknown case status";
}

static int kind_is_texel(case_kind k)
{
    return k == CASE_KIND_STORAGE_TEXEL_BUFFER || k == CASE_KIND_UNIFORM_TEXEL_BUFFER;
}

/* Smallest and largest value of an integer type. */
static void int_type_range(case_type t, case_i128 *lo, case_i128 *hi)
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

static uint64_t load_le(const uint8_t *p, size_t size)
{
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void store_le(uint8_t *p, uint64_t v, size_t size)
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

static int bits_is_nan(case_type t, uint64_t bits)
{
    uint64_t e, m;
    float_masks(t, &e, &m);
    return (bits & e) == e && (bits & m) != 0;
}

static int bits_is_inf(case_type t, uint64_t bits)
{
    uint64_t e, m;
    float_masks(t, &e, &m);
    return (bits & e) == e && (bits & m) == 0;
}

/* ------------------------------------------------------------------------- */
/* Half precision                                                             */
/* ------------------------------------------------------------------------- */

/* One correctly rounded step from double to binary16 (round to nearest, ties
 * to even).  case_float_to_half goes through here too: float -> double is
 * exact, so a double value is never rounded twice on its way to f16. */
static uint16_t double_to_half(double d)
{
    uint64_t bits = double_bits(d);
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

uint16_t case_float_to_half(float f)
{
    return double_to_half((double)f);
}

float case_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp_field = (h >> 10) & 0x1Fu;
    uint32_t man = h & 0x3FFu;

    if (exp_field == 0x1F) /* inf or NaN, payload kept */
        return bits_float(sign | 0x7F800000u | (man << 13));
    if (exp_field == 0) { /* zero or subnormal: man * 2^-24, exact in float */
        float mag = (float)man * 0x1p-24f;
        return sign ? -mag : mag;
    }
    return bits_float(sign | ((exp_field - 15 + 127) << 23) | (man << 13));
}

/* The numeric value of one element of a float type, from its bits. */
static double float_element_value(case_type t, uint64_t bits)
{
    switch (t) {
    case CASE_TYPE_F16: return (double)case_half_to_float((uint16_t)bits);
    case CASE_TYPE_F32: return (double)bits_float((uint32_t)bits);
    default: return bits_double(bits);
    }
}

/* The value of one element of an integer type, from its bits. */
static case_i128 int_element_value(case_type t, uint64_t bits)
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
static int store_int(case_type t, case_i128 v, uint8_t *dst)
{
    case_i128 lo, hi;
    int_type_range(t, &lo, &hi);
    if (v < lo || v > hi)
        return 0;
    store_le(dst, (uint64_t)v, case_type_size(t));
    return 1;
}

/* Stores a double into an element of float type t, rounding to nearest even.
 * NaN becomes the type's canonical quiet NaN.  Returns 0 when a finite value
 * would round to infinity (out of range of the type). */
static int store_float(case_type t, double d, uint8_t *dst)
{
    switch (t) {
    case CASE_TYPE_F16: {
        uint16_t h = isnan(d) ? 0x7E00u : double_to_half(d);
        if (isfinite(d) && (h & 0x7FFFu) == 0x7C00u)
            return 0;
        store_le(dst, h, 2);
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
        store_le(dst, u, 4);
        return 1;
    }
    default:
        store_le(dst, isnan(d) ? 0x7FF8000000000000u : double_bits(d), 8);
        return 1;
    }
}

/* Decimal text of a 128-bit integer (for messages: printf has no %I128). */
static const char *i128_text(case_i128 v, char buf[48])
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
typedef struct number_text {
    char s[32];
} number_text;

static number_text shortest(double d)
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
static const char *type_range_text(case_type t, char buf[112])
{
    if (case_type_is_float(t)) {
        const char *max = t == CASE_TYPE_F16 ? "65504" : t == CASE_TYPE_F32 ? "3.40282347e+38"
                                                                            : "1.7976931348623157e+308";
        snprintf(buf, 112, "largest finite %s is %s", case_type_name(t), max);
        return buf;
    }
    case_i128 lo, hi;
    char a[48], b[48];
    int_type_range(t, &lo, &hi);
    snprintf(buf, 112, "%s holds %s..%s", case_type_name(t), i128_text(lo, a), i128_text(hi, b));
    return buf;
}

/* ------------------------------------------------------------------------- */
/* The parser: context, field paths, messages                                 */
/* ------------------------------------------------------------------------- */

/* parser and TRY: case/case_internal.h (case/case_image.c reads image bindings with them too). */

static void path_append(parser *p, const char *text)
{
    size_t room = sizeof p->path - p->path_len;
    if (room <= 1)
        return;
    int n = snprintf(p->path + p->path_len, room, "%s", text);
    if (n < 0)
        return;
    p->path_len += (size_t)n < room ? (size_t)n : room - 1;
}

/* Enters field `key` of the current object; returns what path_leave needs. */
static size_t path_enter_key(parser *p, const char *key)
{
    size_t saved = p->path_len;
    char clean[96];
    size_t n = 0;
    /* Keys come from the file: keep messages on one printable line. */
    for (const char *k = key; *k && n + 1 < sizeof clean; k++)
        clean[n++] = (*k >= 0x20 && *k < 0x7F) ? *k : '?';
    clean[n] = '\0';
    if (p->path_len)
        path_append(p, ".");
    path_append(p, clean);
    return saved;
}

static size_t path_enter_index(parser *p, size_t index)
{
    size_t saved = p->path_len;
    char text[32];
    snprintf(text, sizeof text, "[%zu]", index);
    path_append(p, text);
    return saved;
}

static void path_leave(parser *p, size_t saved)
{
    p->path_len = saved;
    p->path[saved] = '\0';
}

/* Writes "FILE: FIELD: problem" and returns CASE_ERR_FIELD. */
static case_status fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static case_status fail(parser *p, const char *fmt, ...)
{
    if (p->err && p->err_size) {
        int n = snprintf(p->err, p->err_size, "%s: %s: ", p->file, p->path_len ? p->path : "(top level)");
        if (n >= 0 && (size_t)n < p->err_size) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->err + n, p->err_size - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return CASE_ERR_FIELD;
}

static case_status fail_nomem(parser *p)
{
    if (p->err && p->err_size)
        snprintf(p->err, p->err_size, "%s: out of memory", p->file);
    return CASE_ERR_NOMEM;
}

/* Fails at field `key` (entered for the message only). */
static case_status fail_at(parser *p, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static case_status fail_at(parser *p, const char *key, const char *fmt, ...)
{
    char problem[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    size_t saved = path_enter_key(p, key);
    fail(p, "%s", problem);
    path_leave(p, saved);
    return CASE_ERR_FIELD;
}

static const char *json_kind(const cJSON *v)
{
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    return "an invalid value";
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Whether `typed` is within two edits (insert, delete, change, or swap of
 * neighbours, any letter case) of `known`: worth suggesting for a typo. */
static int looks_like(const char *typed, const char *known)
{
    enum { MAX_LEN = 40 };
    size_t a = strlen(typed), b = strlen(known);
    size_t dist[MAX_LEN + 1][MAX_LEN + 1];
    if (a > MAX_LEN || b > MAX_LEN)
        return 0;
    for (size_t i = 0; i <= a; i++)
        dist[i][0] = i;
    for (size_t j = 0; j <= b; j++)
        dist[0][j] = j;
    for (size_t i = 1; i <= a; i++) {
        for (size_t j = 1; j <= b; j++) {
            int ci = tolower((unsigned char)typed[i - 1]), cj = tolower((unsigned char)known[j - 1]);
            size_t best = dist[i - 1][j - 1] + (ci != cj);
            if (dist[i - 1][j] + 1 < best)
                best = dist[i - 1][j] + 1;
            if (dist[i][j - 1] + 1 < best)
                best = dist[i][j - 1] + 1;
            if (i > 1 && j > 1 && ci == tolower((unsigned char)known[j - 2]) &&
                tolower((unsigned char)typed[i - 2]) == cj && dist[i - 2][j - 2] + 1 < best)
                best = dist[i - 2][j - 2] + 1;
            dist[i][j] = best;
        }
    }
    return dist[a][b] <= 2;
}

/*
 * Refuses unknown and repeated keys in an object.  `allowed` is a NULL
 * terminated list; NULL means any key (only repeats are refused).  cJSON keeps
 * every duplicate and its lookups return the first, so a repeated key would
 * otherwise be silently ignored.
 */
static case_status check_keys(parser *p, const cJSON *obj, const char *const *allowed)
{
    for (const cJSON *child = obj->child; child; child = child->next) {
        const char *key = child->string ? child->string : "";
        int known = allowed == NULL;
        for (const char *const *a = allowed; a && *a; a++)
            if (strcmp(*a, key) == 0)
                known = 1;
        if (!known) {
            char list[256] = "", hint[96] = "";
            for (const char *const *a = allowed; *a; a++) {
                size_t len = strlen(list);
                snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", *a);
                if (!hint[0] && looks_like(key, *a))
                    snprintf(hint, sizeof hint, "; did you mean \"%s\"?", *a);
            }
            size_t saved = path_enter_key(p, key);
            fail(p, "unknown field (expected one of: %s)%s", list, hint);
            path_leave(p, saved);
            return CASE_ERR_FIELD;
        }
        for (const cJSON *before = obj->child; before != child; before = before->next) {
            if (before->string && strcmp(before->string, key) == 0) {
                size_t saved = path_enter_key(p, key);
                fail(p, "field given twice");
                path_leave(p, saved);
                return CASE_ERR_FIELD;
            }
        }
    }
    return CASE_OK;
}

static const cJSON *field(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* ------------------------------------------------------------------------- */
/* Reading scalars                                                            */
/* ------------------------------------------------------------------------- */

/* A non-negative integer in [min, max] (max <= 2^53).  The path must already
 * name the value. */
static case_status read_uint(parser *p, const cJSON *v, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!cJSON_IsNumber(v))
        return fail(p, "expected an integer, got %s", json_kind(v));
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d))
        return fail(p, "expected an integer, got %s", shortest(d).s);
    if (d < (double)min)
        return fail(p, "%s is too small (at least %" PRIu64 ")", shortest(d).s, min);
    if (d > (double)max)
        return fail(p, "%s is too large (at most %" PRIu64 ")", shortest(d).s, max);
    *out = (uint64_t)d;
    return CASE_OK;
}

/* Like read_uint for an optional field `key` of obj, with a default. */
static case_status read_uint_field(parser *p, const cJSON *obj, const char *key, int required,
                                   uint64_t min, uint64_t max, uint64_t fallback, uint64_t *out)
{
    const cJSON *v = field(obj, key);
    if (!v) {
        if (required)
            return fail_at(p, key, "missing (required)");
        *out = fallback;
        return CASE_OK;
    }
    size_t saved = path_enter_key(p, key);
    case_status s = read_uint(p, v, min, max, out);
    path_leave(p, saved);
    return s;
}

/* A string field; *out points into the JSON tree (NULL when absent and optional). */
static case_status read_string_field(parser *p, const cJSON *obj, const char *key, int required,
                                     const char **out)
{
    const cJSON *v = field(obj, key);
    *out = NULL;
    if (!v)
        return required ? fail_at(p, key, "missing (required)") : CASE_OK;
    if (!cJSON_IsString(v) || !v->valuestring)
        return fail_at(p, key, "expected a string, got %s", json_kind(v));
    if (!v->valuestring[0])
        return fail_at(p, key, "must not be empty");
    *out = v->valuestring;
    return CASE_OK;
}

/*
 * An integer value for an element of integer type t (or for a parameter such
 * as an iota step, with the range [lo, hi] given).  JSON numbers must be
 * integral and, being doubles, no larger than 2^53 in magnitude; 64-bit types
 * also take decimal strings ("-12", "18446744073709551615").
 */
static case_status read_integer(parser *p, const cJSON *v, case_type t, case_i128 lo, case_i128 hi,
                                case_i128 *out)
{
    char range[112], a[48], b[48];
    int takes_strings = case_type_size(t) == 8;
    case_i128 value;

    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (!isfinite(d) || d != floor(d))
            return fail(p, "expected an integer for %s, got %s", case_type_name(t), shortest(d).s);
        if (d < (double)lo || d > (double)hi)
            return fail(p, "%s is out of range (%s)", shortest(d).s, type_range_text(t, range));
        if (fabs(d) > CASE_EXACT_INT_LIMIT)
            return fail(p, "%.0f is above 2^53, where JSON numbers lose precision: write it as a "
                           "decimal string such as \"%.0f\"", d, d);
        value = (case_i128)d;
    } else if (cJSON_IsString(v) && v->valuestring && takes_strings) {
        const char *s = v->valuestring;
        int negative = *s == '-';
        if (negative)
            s++;
        if (!*s)
            return fail(p, "\"%s\" is not a decimal integer", v->valuestring);
        case_u128 mag = 0;
        for (; *s; s++) {
            if (*s < '0' || *s > '9')
                return fail(p, "\"%.40s\" is not a decimal integer (digits and an optional leading '-' only)",
                            v->valuestring);
            if (mag < ((case_u128)1 << 100))
                mag = mag * 10 + (case_u128)(*s - '0');
        }
        value = negative ? -(case_i128)mag : (case_i128)mag;
        if (value < lo || value > hi)
            return fail(p, "%.40s is out of range (%s)", v->valuestring, type_range_text(t, range));
    } else {
        return fail(p, "expected an integer%s for %s, got %s",
                    takes_strings ? " or a decimal string" : "", case_type_name(t), json_kind(v));
    }
    if (value < lo || value > hi)
        return fail(p, "%s is out of range (%s..%s)", i128_text(value, range), i128_text(lo, a), i128_text(hi, b));
    *out = value;
    return CASE_OK;
}

/* A float value: a JSON number or one of "nan", "inf", "-inf" (allow_special). */
static case_status read_double(parser *p, const cJSON *v, int allow_special, double *out)
{
    if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble))
            return fail(p, "number is beyond the range of a double; write \"inf\" or \"-inf\"");
        *out = v->valuedouble;
        return CASE_OK;
    }
    if (allow_special && cJSON_IsString(v) && v->valuestring) {
        if (strcmp(v->valuestring, "nan") == 0) { *out = NAN; return CASE_OK; }
        if (strcmp(v->valuestring, "inf") == 0) { *out = INFINITY; return CASE_OK; }
        if (strcmp(v->valuestring, "-inf") == 0) { *out = -INFINITY; return CASE_OK; }
        return fail(p, "\"%.40s\" is not a number (the only strings taken are \"nan\", \"inf\", \"-inf\")",
                    v->valuestring);
    }
    if (allow_special)
        return fail(p, "expected a number or \"nan\", \"inf\", \"-inf\", got %s%s", json_kind(v),
                    cJSON_IsArray(v) ? " (data is a flat list: flatten vectors and structs)" : "");
    return fail(p, "expected a finite number, got %s", json_kind(v));
}

/* One element value of type t from v, stored little-endian at dst. */
static case_status read_element(parser *p, const cJSON *v, case_type t, uint8_t *dst)
{
    char range[112];
    if (case_type_is_float(t)) {
        double d;
        TRY(read_double(p, v, 1, &d));
        if (!store_float(t, d, dst))
            return fail(p, "%s is out of range (%s); write \"inf\" for infinity", shortest(d).s, type_range_text(t, range));
        return CASE_OK;
    }
    if (cJSON_IsArray(v))
        return fail(p, "expected a number, got an array (data is a flat list: flatten vectors and structs)");
    case_i128 lo, hi, value;
    int_type_range(t, &lo, &hi);
    TRY(read_integer(p, v, t, lo, hi, &value));
    store_int(t, value, dst);
    return CASE_OK;
}

/* A flat JSON array of elements of type t into dst (room for at least its length). */
static case_status read_element_array(parser *p, const cJSON *array, case_type t, uint8_t *dst)
{
    size_t size = case_type_size(t), i = 0;
    for (const cJSON *v = array->child; v; v = v->next, i++) {
        size_t saved = path_enter_index(p, i);
        case_status s = read_element(p, v, t, dst + i * size);
        path_leave(p, saved);
        if (s != CASE_OK)
            return s;
    }
    return CASE_OK;
}

static case_status lookup_type(parser *p, const char *key, const char *name, case_type *out)
{
    for (int t = 0; t < CASE_TYPE_COUNT; t++) {
        if (strcmp(type_table[t].name, name) == 0) {
            *out = (case_type)t;
            return CASE_OK;
        }
    }
    return fail_at(p, key, "unknown type \"%.40s\" (expected one of u8 i8 u16 i16 u32 i32 u64 i64 f16 f32 f64)",
                   name);
}

/* ------------------------------------------------------------------------- */
/* Fills                                                                      */
/* ------------------------------------------------------------------------- */

static case_status fill_value(parser *p, const cJSON *v, case_binding *b)
{
    size_t size = case_type_size(b->type);
    size_t saved = path_enter_key(p, "value");
    case_status s = read_element(p, v, b->type, b->bytes);
    path_leave(p, saved);
    if (s != CASE_OK)
        return s;
    /* b->bytes is calloc'd: a zero fill (the usual output buffer) is already there, and leaving its
     * pages untouched keeps them out of memory until the kernel writes them.  Otherwise the filled
     * prefix is copied onto what follows it, doubling each time (a few large copies, not count small ones). */
    size_t k = 0;
    while (k < size && b->bytes[k] == 0)
        k++;
    if (k == size || b->count < 2)
        return CASE_OK;
    for (size_t done = size; done < b->size;) {
        size_t n = done < b->size - done ? done : b->size - done;
        memcpy(b->bytes + done, b->bytes, n);
        done += n;
    }
    return CASE_OK;
}

/* An integer fill parameter (iota start/step, random min/max/seed) at obj.key. */
static case_status read_int_param(parser *p, const cJSON *obj, const char *key, int required, case_type t,
                                  case_i128 lo, case_i128 hi, case_i128 fallback, case_i128 *out)
{
    const cJSON *v = field(obj, key);
    if (!v) {
        if (required)
            return fail_at(p, key, "missing (required)");
        *out = fallback;
        return CASE_OK;
    }
    size_t saved = path_enter_key(p, key);
    case_status s = read_integer(p, v, t, lo, hi, out);
    path_leave(p, saved);
    return s;
}

static case_status read_double_param(parser *p, const cJSON *obj, const char *key, int required,
                                     double fallback, double *out)
{
    const cJSON *v = field(obj, key);
    if (!v) {
        if (required)
            return fail_at(p, key, "missing (required)");
        *out = fallback;
        return CASE_OK;
    }
    size_t saved = path_enter_key(p, key);
    case_status s = read_double(p, v, 0, out);
    path_leave(p, saved);
    return s;
}

/* iota: element i = start + i * step (defaults 0 and 1), every element in range. */
static case_status fill_iota(parser *p, const cJSON *iota, case_binding *b)
{
    static const char *const keys[] = {"start", "step", NULL};
    size_t size = case_type_size(b->type);
    char range[112], text[48];

    if (!cJSON_IsObject(iota))
        return fail(p, "expected an object {\"start\": S, \"step\": D}, got %s", json_kind(iota));
    TRY(check_keys(p, iota, keys));
    if (case_type_is_float(b->type)) {
        double start, step;
        TRY(read_double_param(p, iota, "start", 0, 0.0, &start));
        TRY(read_double_param(p, iota, "step", 0, 1.0, &step));
        for (size_t i = 0; i < b->count; i++) {
            volatile double offset = (double)i * step;
            double value = start + offset;
            if (!isfinite(value) || !store_float(b->type, value, b->bytes + i * size))
                return fail(p, "element %zu would be %s, out of range (%s)", i, shortest(value).s,
                            type_range_text(b->type, range));
        }
        return CASE_OK;
    }
    case_i128 lo, hi, start, step;
    case_i128 step_limit = ((case_i128)1 << 64) - 1;
    int_type_range(b->type, &lo, &hi);
    TRY(read_int_param(p, iota, "start", 0, b->type, lo, hi, 0, &start));
    TRY(read_int_param(p, iota, "step", 0, b->type, -step_limit, step_limit, 1, &step));
    for (size_t i = 0; i < b->count; i++) {
        /* |i * step| < 2^30 * 2^64: no overflow in 128 bits */
        case_i128 value = start + (case_i128)i * step;
        if (!store_int(b->type, value, b->bytes + i * size))
            return fail(p, "element %zu would be %s, out of range (%s)", i, i128_text(value, text),
                        type_range_text(b->type, range));
    }
    return CASE_OK;
}

/* random: the documented splitmix64 stream, see case.h and docs/case-format.md. */
static case_status fill_random(parser *p, const cJSON *random, case_binding *b)
{
    static const char *const keys[] = {"seed", "min", "max", NULL};
    size_t size = case_type_size(b->type);
    case_i128 seed;
    char range[112];

    if (!cJSON_IsObject(random))
        return fail(p, "expected an object {\"seed\": S, \"min\": A, \"max\": B}, got %s", json_kind(random));
    TRY(check_keys(p, random, keys));
    /* The seed is a u64 whatever the element type: it may be a decimal string. */
    TRY(read_int_param(p, random, "seed", 1, CASE_TYPE_U64, 0, ((case_i128)1 << 64) - 1, 0, &seed));
    uint64_t state = (uint64_t)seed;

    if (case_type_is_float(b->type)) {
        double min, max;
        uint8_t probe[8];
        TRY(read_double_param(p, random, "min", 1, 0.0, &min));
        TRY(read_double_param(p, random, "max", 1, 0.0, &max));
        if (!store_float(b->type, min, probe))
            return fail_at(p, "min", "%s is out of range (%s)", shortest(min).s, type_range_text(b->type, range));
        if (!store_float(b->type, max, probe))
            return fail_at(p, "max", "%s is out of range (%s)", shortest(max).s, type_range_text(b->type, range));
        if (max < min)
            return fail_at(p, "max", "%s is less than min %s", shortest(max).s, shortest(min).s);
        double span = max - min;
        if (!isfinite(span))
            return fail_at(p, "max", "max - min overflows a double");
        for (size_t i = 0; i < b->count; i++) {
            uint64_t x = case_splitmix64(&state);
            double unit = (double)(x >> 11) * 0x1p-53; /* exact: a 53-bit integer scaled by 2^-53 */
            volatile double scaled = span * unit;
            store_float(b->type, min + scaled, b->bytes + i * size); /* within [min, max]: fits */
        }
        return CASE_OK;
    }
    case_i128 lo, hi, min, max;
    int_type_range(b->type, &lo, &hi);
    TRY(read_int_param(p, random, "min", 1, b->type, lo, hi, 0, &min));
    TRY(read_int_param(p, random, "max", 1, b->type, lo, hi, 0, &max));
    if (max < min) {
        char a[48], c[48];
        return fail_at(p, "max", "%s is less than min %s", i128_text(max, a), i128_text(min, c));
    }
    /* max - min + 1 is 1 .. 2^64; 2^64 wraps to 0 here, where x % 2^64 is x.  64-bit arithmetic and
     * min + r within [min, max] already: no 128-bit division or range check per element. */
    uint64_t span = (uint64_t)(max - min) + 1;
    uint64_t base = (uint64_t)min; /* two's complement: the low bytes of min + r are base + r */
    for (size_t i = 0; i < b->count; i++) {
        uint64_t x = case_splitmix64(&state);
        store_le(b->bytes + i * size, base + (span ? x % span : x), size);
    }
    return CASE_OK;
}

static case_status read_fill(parser *p, const cJSON *fill, case_binding *b)
{
    static const char *const keys[] = {"value", "iota", "random", NULL};
    if (!cJSON_IsObject(fill))
        return fail(p, "expected an object with one of \"value\", \"iota\", \"random\", got %s", json_kind(fill));
    TRY(check_keys(p, fill, keys));
    const cJSON *value = field(fill, "value"), *iota = field(fill, "iota"), *random = field(fill, "random");
    if ((value != NULL) + (iota != NULL) + (random != NULL) != 1)
        return fail(p, "give exactly one of \"value\", \"iota\", \"random\"");
    if (value)
        return fill_value(p, value, b);
    size_t saved = path_enter_key(p, iota ? "iota" : "random");
    case_status s = iota ? fill_iota(p, iota, b) : fill_random(p, random, b);
    path_leave(p, saved);
    return s;
}

/* ------------------------------------------------------------------------- */
/* Bindings                                                                   */
/* ------------------------------------------------------------------------- */

static case_status read_binding(parser *p, const cJSON *obj, case_binding *b)
{
    static const char *const keys[] = {"set", "binding", "kind", "type", "format", "count", "data", "fill",
                                       "uninitialized", NULL};
    uint64_t set, binding, count = 0;
    const char *type_name, *kind_name, *format_name;

    if (!cJSON_IsObject(obj))
        return fail(p, "expected an object, got %s", json_kind(obj));
    const cJSON *kind_v = field(obj, "kind");
    int image_kind = cJSON_IsString(kind_v) && kind_v->valuestring &&
                     (strstr(kind_v->valuestring, "image") || strcmp(kind_v->valuestring, "sampler") == 0);
    if (!image_kind) /* image bindings have their own fields: case/case_image.c checks them */
        TRY(check_keys(p, obj, keys));
    TRY(read_uint_field(p, obj, "set", 0, 0, UINT32_MAX, 0, &set));
    TRY(read_uint_field(p, obj, "binding", 1, 0, UINT32_MAX, 0, &binding));
    b->set = (uint32_t)set;
    b->binding = (uint32_t)binding;

    TRY(read_string_field(p, obj, "kind", 0, &kind_name));
    if (kind_name && (strcmp(kind_name, "storage_image") == 0 || strcmp(kind_name, "sampled_image") == 0 ||
                      strcmp(kind_name, "combined_image_sampler") == 0 || strcmp(kind_name, "sampler") == 0))
        type_name = NULL; /* images take their type from the format (case/case_image.c checks a given one) */
    else
        TRY(read_string_field(p, obj, "type", 1, &type_name));
    if (type_name)
        TRY(lookup_type(p, "type", type_name, &b->type));

    b->kind = CASE_KIND_STORAGE_BUFFER;
    if (kind_name) {
        int k = 0;
        while (k < CASE_KIND_COUNT && strcmp(kind_names[k], kind_name) != 0)
            k++;
        if (k == CASE_KIND_COUNT)
            return fail_at(p, "kind", "unknown kind \"%.40s\" (expected one of storage_buffer, uniform_buffer, "
                                      "storage_texel_buffer, uniform_texel_buffer, storage_image, sampled_image, "
                                      "combined_image_sampler, sampler)", kind_name);
        b->kind = (case_kind)k;
    }
    if (case_kind_is_image(b->kind) || case_kind_has_sampler(b->kind))
        return case_image_read_binding(p, obj, b);

    size_t texel_bytes = 0;
    TRY(read_string_field(p, obj, "format", 0, &format_name));
    if (kind_is_texel(b->kind)) {
        if (!format_name)
            return fail_at(p, "format", "missing (required for a %s)", kind_names[b->kind]);
        for (size_t f = 0; f < TEXEL_FORMAT_COUNT; f++)
            if (strcmp(texel_formats[f].name, format_name) == 0)
                texel_bytes = texel_formats[f].texel_bytes;
        if (!texel_bytes)
            return fail_at(p, "format", "unknown format \"%.40s\" (expected one of r32ui r32i r32f rg32ui rg32i "
                                        "rg32f rgba32ui rgba32i rgba32f r16f rgba16f r16ui r8ui rgba8ui rgba8)",
                           format_name);
        snprintf(b->format, sizeof b->format, "%s", format_name);
    } else if (format_name) {
        return fail_at(p, "format", "only texel buffers take a format (this binding is a %s)", kind_names[b->kind]);
    }

    size_t elem = case_type_size(b->type);
    const cJSON *count_v = field(obj, "count"), *data = field(obj, "data"), *fill = field(obj, "fill");
    if (count_v)
        TRY(read_uint_field(p, obj, "count", 1, 1, CASE_MAX_BINDING_BYTES / elem, 0, &count));
    if (data && !cJSON_IsArray(data))
        return fail_at(p, "data", "expected an array of numbers, got %s", json_kind(data));
    size_t data_len = data ? (size_t)cJSON_GetArraySize(data) : 0;
    if (data && fill)
        return fail_at(p, "fill", "give either \"data\" or \"fill\", not both");
    if (fill && !count_v)
        return fail_at(p, "count", "missing (required with \"fill\")");
    if (!data && !fill && !count_v)
        return fail(p, "needs \"data\", \"fill\" with \"count\", or \"count\" alone (zeros)");
    const cJSON *uninit = field(obj, "uninitialized");
    if (uninit) {
        if (!cJSON_IsBool(uninit))
            return fail_at(p, "uninitialized", "expected true or false, got %s", json_kind(uninit));
        b->uninitialized = cJSON_IsTrue(uninit);
        if (b->uninitialized && (data || fill))
            return fail_at(p, "uninitialized", "an uninitialized binding has no contents: give \"count\" alone, "
                                               "not \"%s\"", data ? "data" : "fill");
    }
    if (data && count_v && count < data_len)
        return fail_at(p, "count", "%" PRIu64 " is less than the %zu elements of \"data\"", count, data_len);
    if (data && !count_v) {
        if (data_len == 0)
            return fail_at(p, "data", "empty: give at least one element, or a \"count\"");
        if (data_len > CASE_MAX_BINDING_BYTES / elem)
            return fail_at(p, "data", "too many elements (a binding holds at most %zu bytes)", CASE_MAX_BINDING_BYTES);
        count = data_len;
    }
    b->count = (size_t)count;
    b->size = b->count * elem;
    if (texel_bytes && b->size % texel_bytes)
        return fail_at(p, count_v ? "count" : "data", "%zu bytes is not a whole number of %s texels (%zu bytes each)",
                       b->size, b->format, texel_bytes);

    b->bytes = calloc(b->size, 1);
    if (!b->bytes)
        return fail_nomem(p);
    if (data) {
        size_t saved = path_enter_key(p, "data");
        case_status s = read_element_array(p, data, b->type, b->bytes);
        path_leave(p, saved);
        return s;
    }
    if (fill) {
        size_t saved = path_enter_key(p, "fill");
        case_status s = read_fill(p, fill, b);
        path_leave(p, saved);
        return s;
    }
    return CASE_OK;
}

static case_status read_bindings(parser *p, const cJSON *root, wl_case *c)
{
    const cJSON *list = field(root, "bindings");
    if (!list)
        return fail_at(p, "bindings", "missing (required)");
    if (!cJSON_IsArray(list))
        return fail_at(p, "bindings", "expected an array of binding objects, got %s", json_kind(list));
    int n = cJSON_GetArraySize(list);
    if (n == 0)
        return fail_at(p, "bindings", "empty: a case needs at least one binding");
    c->bindings = calloc((size_t)n, sizeof *c->bindings);
    if (!c->bindings)
        return fail_nomem(p);
    c->binding_count = n;

    size_t saved_outer = path_enter_key(p, "bindings");
    int i = 0;
    for (const cJSON *obj = list->child; obj; obj = obj->next, i++) {
        size_t saved = path_enter_index(p, (size_t)i);
        case_status s = read_binding(p, obj, &c->bindings[i]);
        for (int j = 0; s == CASE_OK && j < i; j++) {
            if (c->bindings[j].set == c->bindings[i].set && c->bindings[j].binding == c->bindings[i].binding)
                s = fail_at(p, "binding", "set %u binding %u is already used by bindings[%d]",
                            c->bindings[i].set, c->bindings[i].binding, j);
        }
        path_leave(p, saved);
        if (s != CASE_OK) {
            path_leave(p, saved_outer);
            return s;
        }
    }
    path_leave(p, saved_outer);
    return CASE_OK;
}

/* ------------------------------------------------------------------------- */
/* Expectations                                                               */
/* ------------------------------------------------------------------------- */

static case_status read_compare(parser *p, const cJSON *v, case_expect *e)
{
    e->compare = CASE_COMPARE_EXACT;
    e->tolerance = 0.0;
    if (!v)
        return CASE_OK;
    size_t saved = path_enter_key(p, "compare");
    case_status s = CASE_OK;
    if (cJSON_IsString(v) && v->valuestring) {
        if (strcmp(v->valuestring, "exact") == 0)
            e->compare = CASE_COMPARE_EXACT;
        else if (strcmp(v->valuestring, "sorted") == 0)
            e->compare = CASE_COMPARE_SORTED;
        else if (strcmp(v->valuestring, "ulp") == 0 || strcmp(v->valuestring, "epsilon") == 0)
            s = fail(p, "\"%s\" needs a tolerance: write {\"%s\": N}", v->valuestring, v->valuestring);
        else
            s = fail(p, "unknown comparison \"%.40s\" (expected \"exact\", \"sorted\", {\"ulp\": N} or "
                        "{\"epsilon\": E})", v->valuestring);
    } else if (cJSON_IsObject(v)) {
        static const char *const keys[] = {"ulp", "epsilon", NULL};
        const cJSON *ulp = field(v, "ulp"), *eps = field(v, "epsilon");
        s = check_keys(p, v, keys);
        if (s == CASE_OK && (ulp != NULL) + (eps != NULL) != 1)
            s = fail(p, "give exactly one of \"ulp\" or \"epsilon\"");
        if (s == CASE_OK && !case_type_is_float(e->type))
            s = fail(p, "%s comparison needs a float type (f16, f32, f64), this data is %s", ulp ? "ulp" : "epsilon",
                     case_type_name(e->type));
        if (s == CASE_OK && ulp) {
            uint64_t n;
            e->compare = CASE_COMPARE_ULP;
            size_t inner = path_enter_key(p, "ulp");
            s = read_uint(p, ulp, 0, (uint64_t)CASE_EXACT_INT_LIMIT, &n);
            path_leave(p, inner);
            e->tolerance = (double)n;
        } else if (s == CASE_OK) {
            e->compare = CASE_COMPARE_EPSILON;
            size_t inner = path_enter_key(p, "epsilon");
            s = read_double(p, eps, 0, &e->tolerance);
            if (s == CASE_OK && !(e->tolerance >= 0.0))
                s = fail(p, "%s is negative (must be >= 0)", shortest(e->tolerance).s);
            path_leave(p, inner);
        }
    } else {
        s = fail(p, "expected \"exact\", \"sorted\", {\"ulp\": N} or {\"epsilon\": E}, got %s", json_kind(v));
    }
    path_leave(p, saved);
    return s;
}

static case_status read_expect(parser *p, const cJSON *obj, const wl_case *c, case_expect *e)
{
    static const char *const keys[] = {"set", "binding", "type", "data", "compare", NULL};
    static const char *const image_keys[] = {"set", "binding", "type", "data", "compare", "mip", "layer", NULL};
    uint64_t set, binding;
    const char *type_name;

    if (!cJSON_IsObject(obj))
        return fail(p, "expected an object, got %s", json_kind(obj));
    /* "mip" and "layer" are for image bindings: case_image_read_expect refuses them on buffers below */
    TRY(check_keys(p, obj, field(obj, "mip") || field(obj, "layer") ? image_keys : keys));
    TRY(read_uint_field(p, obj, "set", 0, 0, UINT32_MAX, 0, &set));
    TRY(read_uint_field(p, obj, "binding", 1, 0, UINT32_MAX, 0, &binding));
    e->set = (uint32_t)set;
    e->binding = (uint32_t)binding;
    const case_binding *b = case_find_binding(c, e->set, e->binding);
    if (!b)
        return fail_at(p, "binding", "no binding with set %u binding %u in \"bindings\"", e->set, e->binding);
    e->type = b->type;
    if (case_kind_is_image(b->kind) || b->kind == CASE_KIND_SAMPLER)
        return case_image_read_expect(p, obj, b, e);
    if (field(obj, "mip") || field(obj, "layer"))
        return fail_at(p, field(obj, "mip") ? "mip" : "layer", "only image bindings take a mip or layer (this "
                       "binding is a %s)", kind_names[b->kind]);

    TRY(read_string_field(p, obj, "type", 0, &type_name));
    if (type_name) {
        case_type t = CASE_TYPE_U32;
        TRY(lookup_type(p, "type", type_name, &t));
        if (t != b->type)
            return fail_at(p, "type", "\"%s\" does not match the binding's type \"%s\"", type_name,
                           case_type_name(b->type));
    }

    const cJSON *data = field(obj, "data");
    if (!data)
        return fail_at(p, "data", "missing (required)");
    if (!cJSON_IsArray(data))
        return fail_at(p, "data", "expected an array of numbers, got %s", json_kind(data));
    size_t n = (size_t)cJSON_GetArraySize(data);
    if (n == 0)
        return fail_at(p, "data", "empty: give at least one expected element");
    if (n > b->count)
        return fail_at(p, "data", "%zu elements, but the binding holds only %zu", n, b->count);

    TRY(read_compare(p, field(obj, "compare"), e));

    e->count = n;
    e->bytes = calloc(n, case_type_size(e->type));
    if (!e->bytes)
        return fail_nomem(p);
    size_t saved = path_enter_key(p, "data");
    case_status s = read_element_array(p, data, e->type, e->bytes);
    path_leave(p, saved);
    return s;
}

static case_status read_expects(parser *p, const cJSON *root, wl_case *c)
{
    const cJSON *list = field(root, "expect");
    if (!list)
        return CASE_OK;
    if (!cJSON_IsArray(list))
        return fail_at(p, "expect", "expected an array of expectation objects, got %s", json_kind(list));
    int n = cJSON_GetArraySize(list);
    if (n == 0)
        return CASE_OK;
    c->expects = calloc((size_t)n, sizeof *c->expects);
    if (!c->expects)
        return fail_nomem(p);
    c->expect_count = n;

    size_t saved_outer = path_enter_key(p, "expect");
    int i = 0;
    for (const cJSON *obj = list->child; obj; obj = obj->next, i++) {
        size_t saved = path_enter_index(p, (size_t)i);
        case_status s = read_expect(p, obj, c, &c->expects[i]);
        path_leave(p, saved);
        if (s != CASE_OK) {
            path_leave(p, saved_outer);
            return s;
        }
    }
    path_leave(p, saved_outer);
    return CASE_OK;
}

/* ------------------------------------------------------------------------- */
/* Top-level fields                                                           */
/* ------------------------------------------------------------------------- */

/* Integers below 1e17 in full, others in the shortest text that reads back the same. */
static void format_define_number(double d, char *buf, size_t size)
{
    snprintf(buf, size, "%s", shortest(d).s);
}

static case_status read_defines(parser *p, const cJSON *root, wl_case *c)
{
    const cJSON *defines = field(root, "defines");
    if (!defines)
        return CASE_OK;
    if (!cJSON_IsObject(defines))
        return fail_at(p, "defines", "expected an object {\"NAME\": \"value\"}, got %s", json_kind(defines));
    int n = cJSON_GetArraySize(defines);
    if (n == 0)
        return CASE_OK;
    size_t saved_outer = path_enter_key(p, "defines");
    case_status s = check_keys(p, defines, NULL);
    if (s != CASE_OK) {
        path_leave(p, saved_outer);
        return s;
    }
    c->defines = calloc((size_t)n, sizeof *c->defines);
    if (!c->defines) {
        path_leave(p, saved_outer);
        return fail_nomem(p);
    }
    for (const cJSON *v = defines->child; v && s == CASE_OK; v = v->next) {
        const char *name = v->string ? v->string : "";
        char number[40];
        const char *value = NULL;
        size_t saved = path_enter_key(p, name);
        int ok_name = (isalpha((unsigned char)name[0]) || name[0] == '_');
        for (const char *k = name; ok_name && *k; k++)
            ok_name = isalnum((unsigned char)*k) || *k == '_';
        if (!ok_name) {
            s = fail(p, "\"%.40s\" is not a macro name (letters, digits and '_', not starting with a digit)", name);
        } else if (cJSON_IsString(v) && v->valuestring) {
            value = v->valuestring;
            if (strpbrk(value, "\r\n"))
                s = fail(p, "the value must be a single line");
        } else if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
            format_define_number(v->valuedouble, number, sizeof number);
            value = number;
        } else {
            s = fail(p, "expected a string or a number, got %s", json_kind(v));
        }
        path_leave(p, saved);
        if (s == CASE_OK) {
            case_define *d = &c->defines[c->define_count];
            d->name = dup_string(name);
            d->value = dup_string(value);
            c->define_count++;
            if (!d->name || !d->value)
                s = fail_nomem(p);
        }
    }
    path_leave(p, saved_outer);
    return s;
}

static case_status read_groups(parser *p, const cJSON *root, wl_case *c)
{
    const cJSON *groups = field(root, "groups");
    c->groups[0] = c->groups[1] = c->groups[2] = 1;
    if (!groups)
        return CASE_OK;
    if (!cJSON_IsArray(groups))
        return fail_at(p, "groups", "expected an array of 1 to 3 positive integers such as [4, 1, 1], got %s",
                       json_kind(groups));
    int n = cJSON_GetArraySize(groups);
    if (n < 1 || n > 3)
        return fail_at(p, "groups", "has %d elements (expected 1 to 3)", n);
    size_t saved_outer = path_enter_key(p, "groups");
    int i = 0;
    for (const cJSON *v = groups->child; v; v = v->next, i++) {
        uint64_t count;
        size_t saved = path_enter_index(p, (size_t)i);
        case_status s = read_uint(p, v, 1, UINT32_MAX, &count);
        path_leave(p, saved);
        if (s != CASE_OK) {
            path_leave(p, saved_outer);
            return s;
        }
        c->groups[i] = (uint32_t)count;
    }
    path_leave(p, saved_outer);
    return CASE_OK;
}

static case_status read_push_constants(parser *p, const cJSON *root, wl_case *c)
{
    static const char *const keys[] = {"type", "data", NULL};
    const cJSON *push = field(root, "push_constants");
    const char *type_name;
    c->push_type = CASE_TYPE_U32;
    if (!push)
        return CASE_OK;
    if (!cJSON_IsObject(push))
        return fail_at(p, "push_constants", "expected an object {\"type\": T, \"data\": [...]}, got %s",
                       json_kind(push));
    size_t saved = path_enter_key(p, "push_constants");
    case_status s = check_keys(p, push, keys);
    if (s == CASE_OK)
        s = read_string_field(p, push, "type", 1, &type_name);
    if (s == CASE_OK)
        s = lookup_type(p, "type", type_name, &c->push_type);
    const cJSON *data = field(push, "data");
    size_t elem = case_type_size(c->push_type), n = 0;
    if (s == CASE_OK && !data)
        s = fail_at(p, "data", "missing (required)");
    if (s == CASE_OK && !cJSON_IsArray(data))
        s = fail_at(p, "data", "expected an array of numbers, got %s", json_kind(data));
    if (s == CASE_OK) {
        n = (size_t)cJSON_GetArraySize(data);
        if (n == 0)
            s = fail_at(p, "data", "empty: leave \"push_constants\" out instead");
        else if (n * elem % 4 != 0)
            s = fail_at(p, "data", "%zu bytes: push constants must be a multiple of 4 bytes (a Vulkan rule)",
                        n * elem);
        else if (n * elem > 4096)
            s = fail_at(p, "data", "%zu bytes is far more than any device's push constant space", n * elem);
    }
    if (s == CASE_OK) {
        c->push_size = n * elem;
        c->push_constants = calloc(c->push_size, 1);
        if (!c->push_constants)
            s = fail_nomem(p);
    }
    if (s == CASE_OK) {
        size_t inner = path_enter_key(p, "data");
        s = read_element_array(p, data, c->push_type, c->push_constants);
        path_leave(p, inner);
    }
    path_leave(p, saved);
    return s;
}

/* "cases/x.json" -> "cases", "x.json" -> ".", "/x.json" -> "/". */
static char *directory_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return dup_string(".");
    size_t len = (size_t)(slash - path);
    while (len > 0 && path[len - 1] == '/')
        len--;
    if (len == 0)
        return dup_string("/");
    char *dir = malloc(len + 1);
    if (dir) {
        memcpy(dir, path, len);
        dir[len] = '\0';
    }
    return dir;
}

static char *resolve_path(const char *dir, const char *relative)
{
    if (relative[0] == '/' || strcmp(dir, ".") == 0)
        return dup_string(relative);
    size_t dl = strlen(dir), rl = strlen(relative);
    int need_slash = dir[dl - 1] != '/';
    char *out = malloc(dl + (size_t)need_slash + rl + 1);
    if (out) {
        memcpy(out, dir, dl);
        if (need_slash)
            out[dl] = '/';
        memcpy(out + dl + (size_t)need_slash, relative, rl + 1);
    }
    return out;
}

/* "glsl", "hlsl" or NULL from a kernel file name's extension (any letter case). */
static const char *language_of(const char *kernel)
{
    const char *slash = strrchr(kernel, '/');
    const char *dot = strrchr(slash ? slash : kernel, '.');
    if (!dot)
        return NULL;
    char ext[8];
    size_t n = 0;
    for (const char *k = dot + 1; *k; k++) {
        if (n + 1 >= sizeof ext)
            return NULL;
        ext[n++] = (char)tolower((unsigned char)*k);
    }
    ext[n] = '\0';
    if (strcmp(ext, "comp") == 0 || strcmp(ext, "glsl") == 0)
        return "glsl";
    if (strcmp(ext, "hlsl") == 0)
        return "hlsl";
    if (strcmp(ext, "spv") == 0)
        return "spirv";
    return NULL;
}

static case_status read_kernel(parser *p, const cJSON *root, wl_case *c)
{
    const char *kernel, *language, *entry;
    TRY(read_string_field(p, root, "kernel", 1, &kernel));
    TRY(read_string_field(p, root, "language", 0, &language));
    TRY(read_string_field(p, root, "entry", 0, &entry));
    if (language && strcmp(language, "glsl") != 0 && strcmp(language, "hlsl") != 0 && strcmp(language, "spirv") != 0)
        return fail_at(p, "language", "unknown language \"%.40s\" (expected \"glsl\", \"hlsl\" or \"spirv\")",
                       language);
    if (!language) {
        language = language_of(kernel);
        if (!language)
            return fail_at(p, "kernel", "cannot tell the language of \"%.80s\" from its extension (use .comp, "
                                        ".glsl, .hlsl or .spv, or give \"language\")", kernel);
    }
    c->kernel = resolve_path(c->dir, kernel);
    c->language = dup_string(language);
    c->entry = dup_string(entry ? entry : "main");
    if (!c->kernel || !c->language || !c->entry)
        return fail_nomem(p);
    return CASE_OK;
}

static void dispatch_free(case_dispatch *d)
{
    free(d->name);
    free(d->kernel);
    free(d->language);
    free(d->entry);
    for (int i = 0; i < d->define_count; i++) {
        free(d->defines[i].name);
        free(d->defines[i].value);
    }
    free(d->defines);
    free(d->push_constants);
}

/* "a/b/cull.comp" -> "cull". */
static char *stem_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *out = malloc(n + 1);
    if (out) {
        memcpy(out, base, n);
        out[n] = '\0';
    }
    return out;
}

/* One entry of "dispatches": the per-pass fields, read by the same functions as the top level's (into a scratch
 * case, so the messages and rules are the same), then moved into *d. */
static case_status read_dispatch(parser *p, const cJSON *obj, const wl_case *c, case_dispatch *d)
{
    static const char *const keys[] = {"name", "kernel", "language", "entry", "defines", "groups", "push_constants",
                                       NULL};
    if (!cJSON_IsObject(obj))
        return fail(p, "expected an object {\"kernel\": ..., \"groups\": [...]}, got %s", json_kind(obj));
    TRY(check_keys(p, obj, keys));
    const char *name;
    TRY(read_string_field(p, obj, "name", 0, &name));
    wl_case tmp = {.dir = c->dir};
    case_status s = read_kernel(p, obj, &tmp);
    if (s == CASE_OK)
        s = read_defines(p, obj, &tmp);
    if (s == CASE_OK)
        s = read_groups(p, obj, &tmp);
    if (s == CASE_OK)
        s = read_push_constants(p, obj, &tmp);
    *d = (case_dispatch){
        .kernel = tmp.kernel, .language = tmp.language, .entry = tmp.entry, .defines = tmp.defines,
        .define_count = tmp.define_count, .groups = {tmp.groups[0], tmp.groups[1], tmp.groups[2]},
        .push_type = tmp.push_type, .push_constants = tmp.push_constants, .push_size = tmp.push_size,
    };
    if (s == CASE_OK) {
        d->name = name ? dup_string(name) : stem_of(d->kernel);
        if (!d->name)
            s = fail_nomem(p);
    }
    return s;
}

/*
 * "dispatches": passes run in order on the case's bindings.  The per-pass
 * fields then live only in the entries (a top-level "kernel" beside them would
 * be ambiguous), and the top level gets a copy of dispatch 0's for commands
 * that look at one kernel.
 */
static case_status read_dispatches(parser *p, const cJSON *root, wl_case *c)
{
    static const char *const per_pass[] = {"kernel", "language", "entry", "defines", "groups", "push_constants"};
    const cJSON *list = field(root, "dispatches");
    if (!list)
        return read_kernel(p, root, c);
    if (!cJSON_IsArray(list))
        return fail_at(p, "dispatches", "expected an array of passes [{\"kernel\": ...}, ...], got %s",
                       json_kind(list));
    int n = cJSON_GetArraySize(list);
    if (n < 1 || n > 64)
        return fail_at(p, "dispatches", "has %d entries (expected 1 to 64)", n);
    for (size_t k = 0; k < sizeof per_pass / sizeof *per_pass; k++)
        if (field(root, per_pass[k]))
            return fail_at(p, per_pass[k], "not allowed beside \"dispatches\": give it in each entry of "
                                           "\"dispatches\"");
    c->dispatches = calloc((size_t)n, sizeof *c->dispatches);
    if (!c->dispatches)
        return fail_nomem(p);
    size_t outer = path_enter_key(p, "dispatches");
    case_status s = CASE_OK;
    int i = 0;
    for (const cJSON *v = list->child; v && s == CASE_OK; v = v->next, i++) {
        size_t saved = path_enter_index(p, (size_t)i);
        s = read_dispatch(p, v, c, &c->dispatches[i]);
        c->dispatch_count = i + 1; /* case_destroy frees what the failed entry got */
        path_leave(p, saved);
    }
    if (s == CASE_OK) {
        /* dispatch 0 again, into the top-level fields: read twice rather than deep-copied */
        size_t saved = path_enter_index(p, 0);
        s = read_kernel(p, list->child, c);
        if (s == CASE_OK)
            s = read_defines(p, list->child, c);
        if (s == CASE_OK)
            s = read_groups(p, list->child, c);
        if (s == CASE_OK)
            s = read_push_constants(p, list->child, c);
        path_leave(p, saved);
    }
    path_leave(p, outer);
    return s;
}

static case_status read_case(parser *p, const cJSON *root, wl_case *c)
{
    static const char *const keys[] = {"description", "kernel", "language", "entry", "defines", "groups",
                                       "subgroup_size", "max_subgroup_size", "push_constants", "bindings", "expect",
                                       "known_failure", "optimize", "robust_access", "dispatches", NULL};
    const char *optimize;
    if (!cJSON_IsObject(root))
        return fail(p, "expected a JSON object at the top level, got %s", json_kind(root));
    TRY(check_keys(p, root, keys));
    const cJSON *description = field(root, "description");
    if (description && !cJSON_IsString(description))
        return fail_at(p, "description", "expected a string, got %s", json_kind(description));
    const cJSON *known = field(root, "known_failure");
    if (known) {
        if (!cJSON_IsString(known) || !known->valuestring[0])
            return fail_at(p, "known_failure", "expected a non-empty string (the reason), got %s", json_kind(known));
        c->known_failure = dup_string(known->valuestring);
        if (!c->known_failure)
            return fail_nomem(p);
    }
    TRY(read_dispatches(p, root, c));
    TRY(read_string_field(p, root, "optimize", 0, &optimize));
    if (optimize) {
        if (!optimize[0])
            return fail_at(p, "optimize", "expected \"performance\", \"size\" or spirv-opt flags, got \"\"");
        c->optimize = dup_string(optimize);
        if (!c->optimize)
            return fail_nomem(p);
    }
    const cJSON *robust = field(root, "robust_access");
    if (robust) {
        if (!cJSON_IsBool(robust))
            return fail_at(p, "robust_access", "expected true or false, got %s", json_kind(robust));
        c->robust_access = cJSON_IsTrue(robust);
    }
    if (!c->dispatches) {
        TRY(read_defines(p, root, c));
        TRY(read_groups(p, root, c));
    }
    static const char *const sizes[] = {"subgroup_size", "max_subgroup_size"};
    uint32_t *const size_fields[] = {&c->subgroup_size, &c->max_subgroup_size};
    for (int k = 0; k < 2; k++) {
        const cJSON *subgroup = field(root, sizes[k]);
        if (!subgroup)
            continue;
        uint64_t size;
        size_t saved = path_enter_key(p, sizes[k]);
        case_status s = read_uint(p, subgroup, 4, 128, &size);
        if (s == CASE_OK && (size & (size - 1)) != 0)
            s = fail(p, "%" PRIu64 " is not a power of two (4, 8, 16, 32, 64 or 128)", size);
        path_leave(p, saved);
        if (s != CASE_OK)
            return s;
        *size_fields[k] = (uint32_t)size;
    }
    if (!c->dispatches)
        TRY(read_push_constants(p, root, c));
    TRY(read_bindings(p, root, c));
    TRY(read_expects(p, root, c));
    return CASE_OK;
}

/* ------------------------------------------------------------------------- */
/* Public entry points                                                        */
/* ------------------------------------------------------------------------- */

/* "FILE: line L, column C: ..." for a JSON syntax error at `at`. */
static void json_error_message(const char *file, const char *text, size_t text_len, const char *at,
                               char *err, size_t err_size)
{
    if (!err || !err_size)
        return;
    if (!at || at < text || at > text + text_len)
        at = text + text_len;
    size_t line = 1, column = 1;
    for (const char *k = text; k < at; k++) {
        if (*k == '\n') {
            line++;
            column = 1;
        } else {
            column++;
        }
    }
    char near[24];
    size_t n = 0;
    for (const char *k = at; *k && *k != '\n' && n + 1 < sizeof near; k++)
        near[n++] = (*k >= 0x20 && *k < 0x7F) ? *k : '?';
    near[n] = '\0';
    if (n)
        snprintf(err, err_size, "%s: line %zu, column %zu: invalid JSON near \"%s\"", file, line, column, near);
    else
        snprintf(err, err_size, "%s: line %zu, column %zu: invalid JSON (unexpected end of input)", file, line,
                 column);
}

case_status case_parse(const char *json_text, const char *path, wl_case **out, char *err, size_t err_size)
{
    parser p = {.file = path ? path : "<memory>", .err = err, .err_size = err_size};
    if (err && err_size)
        err[0] = '\0';
    if (out)
        *out = NULL;
    if (!json_text || !out) {
        if (err && err_size)
            snprintf(err, err_size, "%s: no case text", p.file);
        return CASE_ERR_IO;
    }

    const char *parse_end = NULL;
    /* return_parse_end is the same position cJSON_GetErrorPtr() reports, without the global. */
    cJSON *root = cJSON_ParseWithOpts(json_text, &parse_end, 1);
    if (!root) {
        json_error_message(p.file, json_text, strlen(json_text), parse_end, err, err_size);
        return CASE_ERR_JSON;
    }

    wl_case *c = calloc(1, sizeof *c);
    case_status s = CASE_ERR_NOMEM;
    if (c) {
        c->path = dup_string(p.file);
        c->dir = path ? directory_of(path) : dup_string(".");
        p.dir = c->dir;
        s = (c->path && c->dir) ? read_case(&p, root, c) : fail_nomem(&p);
    } else {
        fail_nomem(&p);
    }
    cJSON_Delete(root);
    if (s != CASE_OK) {
        case_destroy(c);
        return s;
    }
    *out = c;
    return CASE_OK;
}

case_status case_load(const char *path, wl_case **out, char *err, size_t err_size)
{
    if (out)
        *out = NULL;
    if (err && err_size)
        err[0] = '\0';
    if (!path) {
        if (err && err_size)
            snprintf(err, err_size, "<none>: no case file named");
        return CASE_ERR_IO;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && err_size)
            snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return CASE_ERR_IO;
    }
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    case_status s = CASE_OK;
    while (text) {
        if (len + 1 == cap) {
            if (cap >= CASE_MAX_FILE_BYTES) {
                s = CASE_ERR_IO;
                if (err && err_size)
                    snprintf(err, err_size, "%s: larger than %zu MiB: not a case file", path,
                             CASE_MAX_FILE_BYTES >> 20);
                break;
            }
            char *bigger = realloc(text, cap * 2);
            if (!bigger) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
            cap *= 2;
        }
        size_t got = fread(text + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int read_error = ferror(f);
    int read_errno = errno;
    fclose(f);
    if (!text) {
        if (err && err_size)
            snprintf(err, err_size, "%s: out of memory", path);
        return CASE_ERR_NOMEM;
    }
    if (s == CASE_OK && read_error) {
        s = CASE_ERR_IO;
        if (err && err_size)
            snprintf(err, err_size, "%s: cannot read: %s", path, strerror(read_errno));
    }
    if (s == CASE_OK) {
        text[len] = '\0';
        if (strlen(text) != len) {
            /* cJSON would stop at the NUL and never see the rest */
            json_error_message(path, text, len, text + strlen(text), err, err_size);
            if (err && err_size)
                snprintf(err + strlen(err), err_size - strlen(err), " (a NUL byte in the file)");
            s = CASE_ERR_JSON;
        } else {
            s = case_parse(text, path, out, err, err_size);
        }
    }
    free(text);
    return s;
}

void case_destroy(wl_case *c)
{
    if (!c)
        return;
    free(c->path);
    free(c->dir);
    free(c->kernel);
    free(c->language);
    free(c->entry);
    free(c->known_failure);
    free(c->optimize);
    for (int i = 0; i < c->define_count; i++) {
        free(c->defines[i].name);
        free(c->defines[i].value);
    }
    free(c->defines);
    free(c->push_constants);
    for (int i = 0; c->bindings && i < c->binding_count; i++)
        free(c->bindings[i].bytes);
    free(c->bindings);
    for (int i = 0; c->expects && i < c->expect_count; i++)
        free(c->expects[i].bytes);
    free(c->expects);
    for (int i = 0; c->dispatches && i < c->dispatch_count; i++)
        dispatch_free(&c->dispatches[i]);
    free(c->dispatches);
    free(c);
}

int case_dispatch_total(const wl_case *c)
{
    return c->dispatches ? c->dispatch_count : 1;
}

void case_dispatch_view(const wl_case *c, int i, wl_case *view)
{
    *view = *c;
    view->dispatches = NULL;
    view->dispatch_count = 0;
    if (!c->dispatches)
        return;
    const case_dispatch *d = &c->dispatches[i];
    view->kernel = d->kernel;
    view->language = d->language;
    view->entry = d->entry;
    view->defines = d->defines;
    view->define_count = d->define_count;
    memcpy(view->groups, d->groups, sizeof view->groups);
    view->push_type = d->push_type;
    view->push_constants = d->push_constants;
    view->push_size = d->push_size;
}

const char *case_dispatch_name(const wl_case *c, int i)
{
    return c->dispatches ? c->dispatches[i].name : "";
}

const case_binding *case_find_binding(const wl_case *c, uint32_t set, uint32_t binding)
{
    if (!c || !c->bindings)
        return NULL;
    for (int i = 0; i < c->binding_count; i++)
        if (c->bindings[i].set == set && c->bindings[i].binding == binding)
            return &c->bindings[i];
    return NULL;
}

/* ------------------------------------------------------------------------- */
/* Formatting and comparing elements                                          */
/* ------------------------------------------------------------------------- */

static int format_bits(case_type t, uint64_t bits, char *buf, size_t buf_size)
{
    uint8_t element[8];
    store_le(element, bits, 8);
    return case_format_element(t, element, buf, buf_size);
}

/* Like snprintf, returns the length of the whole text even when buf_size cuts
 * it short (so a NULL buffer of size 0 measures it). */
int case_format_element(case_type t, const uint8_t *element, char *buf, size_t buf_size)
{
    if ((unsigned)t >= CASE_TYPE_COUNT || !element)
        return snprintf(buf, buf_size, "?");
    uint64_t bits = load_le(element, case_type_size(t));
    if (case_type_is_float(t)) {
        if (bits_is_nan(t, bits))
            return snprintf(buf, buf_size, "\"nan\"");
        if (bits_is_inf(t, bits))
            return snprintf(buf, buf_size, (bits >> (8 * case_type_size(t) - 1)) ? "\"-inf\"" : "\"inf\"");
        double value = float_element_value(t, bits);
        const char *fmt = t == CASE_TYPE_F16 ? "%.5g" : t == CASE_TYPE_F32 ? "%.9g" : "%.17g";
        return snprintf(buf, buf_size, fmt, value);
    }
    if (case_type_is_signed(t))
        return snprintf(buf, buf_size, "%" PRId64, (int64_t)int_element_value(t, bits));
    return snprintf(buf, buf_size, "%" PRIu64, bits);
}

/* Units in the last place between two non-NaN floats of one type, counting
 * along the representable values: +0 and -0 are 0 apart, the smallest
 * subnormals of either sign 2 apart. */
static uint64_t ulp_distance(case_type t, uint64_t a, uint64_t b)
{
    unsigned sign_shift = (unsigned)(8 * case_type_size(t) - 1);
    uint64_t magnitude_mask = ((uint64_t)1 << sign_shift) - 1;
    uint64_t ma = a & magnitude_mask, mb = b & magnitude_mask;
    if (((a >> sign_shift) & 1) == ((b >> sign_shift) & 1))
        return ma > mb ? ma - mb : mb - ma;
    return ma + mb;
}

/* Whether one actual element satisfies one expected element under compare. */
static int element_matches(const case_expect *e, uint64_t want, uint64_t got)
{
    case_type t = e->type;
    if (e->compare == CASE_COMPARE_EXACT || e->compare == CASE_COMPARE_SORTED)
        return want == got;
    if (!case_type_is_float(t)) {
        /* The parser refuses ulp/epsilon for integers; a hand-made expectation
         * gets the absolute difference. */
        case_i128 d = int_element_value(t, want) - int_element_value(t, got);
        return (double)(d < 0 ? -d : d) <= e->tolerance;
    }
    int want_nan = bits_is_nan(t, want), got_nan = bits_is_nan(t, got);
    if (want_nan || got_nan)
        return want_nan && got_nan;
    if (bits_is_inf(t, want) || bits_is_inf(t, got))
        return want == got;
    if (e->compare == CASE_COMPARE_ULP)
        return (double)ulp_distance(t, want, got) <= e->tolerance;
    return fabs(float_element_value(t, want) - float_element_value(t, got)) <= e->tolerance;
}

/* Sorting key: orders by value, NaNs last; ties only between equal bit patterns
 * (-0 sorts before +0), so "sorted" is an exact multiset comparison. */
typedef struct sort_entry {
    int is_nan;
    uint64_t key;
    uint64_t bits;
} sort_entry;

static sort_entry sort_entry_of(case_type t, uint64_t bits)
{
    sort_entry s = {0, 0, bits};
    unsigned width = (unsigned)(8 * case_type_size(t));
    uint64_t sign = (uint64_t)1 << (width - 1);
    if (case_type_is_float(t)) {
        s.is_nan = bits_is_nan(t, bits);
        /* the usual total-order trick: flip all bits of negatives, the sign of positives */
        s.key = s.is_nan ? bits : (bits & sign) ? ~bits & (sign | (sign - 1)) : bits | sign;
    } else if (case_type_is_signed(t)) {
        s.key = (uint64_t)(int64_t)int_element_value(t, bits) ^ ((uint64_t)1 << 63);
    } else {
        s.key = bits;
    }
    return s;
}

static int sort_entry_cmp(const void *pa, const void *pb)
{
    const sort_entry *a = pa, *b = pb;
    if (a->is_nan != b->is_nan)
        return a->is_nan - b->is_nan;
    return (a->key > b->key) - (a->key < b->key);
}

int case_expect_check(const case_expect *e, const uint8_t *actual, size_t actual_size,
                      char *msg, size_t msg_size, size_t *first_bad)
{
    if (e && e->is_image)
        return case_image_expect_check(e, actual, actual_size, msg, msg_size, first_bad);
    if (msg && msg_size)
        msg[0] = '\0';
    if (!e || (unsigned)e->type >= CASE_TYPE_COUNT || (e->count && !e->bytes)) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "invalid expectation");
        if (first_bad)
            *first_bad = 0;
        return 0;
    }
    size_t elem = case_type_size(e->type);
    if (!actual)
        actual_size = 0;
    if (actual_size / elem < e->count) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "set %u binding %u: %zu bytes, expected at least %zu (%zu %s elements)", e->set,
                     e->binding, actual_size, e->count * elem, e->count, case_type_name(e->type));
        if (first_bad)
            *first_bad = actual_size / elem;
        return 0;
    }

    sort_entry *want_sorted = NULL, *got_sorted = NULL;
    if (e->compare == CASE_COMPARE_SORTED && e->count) {
        want_sorted = malloc(e->count * sizeof *want_sorted);
        got_sorted = malloc(e->count * sizeof *got_sorted);
        if (!want_sorted || !got_sorted) {
            free(want_sorted);
            free(got_sorted);
            if (msg && msg_size)
                snprintf(msg, msg_size, "set %u binding %u: out of memory sorting %zu elements", e->set, e->binding,
                         e->count);
            if (first_bad)
                *first_bad = 0;
            return 0;
        }
        for (size_t i = 0; i < e->count; i++) {
            want_sorted[i] = sort_entry_of(e->type, load_le(e->bytes + i * elem, elem));
            got_sorted[i] = sort_entry_of(e->type, load_le(actual + i * elem, elem));
        }
        qsort(want_sorted, e->count, sizeof *want_sorted, sort_entry_cmp);
        qsort(got_sorted, e->count, sizeof *got_sorted, sort_entry_cmp);
    }

    size_t bad = 0, first = 0;
    uint64_t first_want = 0, first_got = 0;
    for (size_t i = 0; i < e->count; i++) {
        uint64_t want, got;
        if (want_sorted) {
            want = want_sorted[i].bits;
            got = got_sorted[i].bits;
        } else {
            want = load_le(e->bytes + i * elem, elem);
            got = load_le(actual + i * elem, elem);
        }
        if (!element_matches(e, want, got)) {
            if (bad++ == 0) {
                first = i;
                first_want = want;
                first_got = got;
            }
        }
    }
    free(want_sorted);
    free(got_sorted);
    if (bad == 0)
        return 1;

    if (first_bad)
        *first_bad = first;
    if (msg && msg_size) {
        char want_text[40], got_text[40], mode[64];
        format_bits(e->type, first_want, want_text, sizeof want_text);
        format_bits(e->type, first_got, got_text, sizeof got_text);
        switch (e->compare) {
        case CASE_COMPARE_ULP: snprintf(mode, sizeof mode, "within %s ulp", shortest(e->tolerance).s); break;
        case CASE_COMPARE_EPSILON: snprintf(mode, sizeof mode, "within %s", shortest(e->tolerance).s); break;
        case CASE_COMPARE_SORTED: snprintf(mode, sizeof mode, "sorted"); break;
        default: snprintf(mode, sizeof mode, "exact"); break;
        }
        snprintf(msg, msg_size, "set %u binding %u (%s): %selement %zu: expected %s, actual %s; %zu of %zu elements differ",
                 e->set, e->binding, mode, e->compare == CASE_COMPARE_SORTED ? "after sorting, " : "", first,
                 want_text, got_text, bad, e->count);
    }
    return 0;
}

/* The field readers case/case_image.c shares (case/case_internal.h), under module-prefixed names: aliases
 * rather than renames, so the parser above keeps its short names. */
#define CASE_ALIAS(name) __attribute__((alias(#name)))
case_status case_fail(parser *p, const char *fmt, ...) CASE_ALIAS(fail);
case_status case_fail_at(parser *p, const char *key, const char *fmt, ...) CASE_ALIAS(fail_at);
case_status case_fail_nomem(parser *p) CASE_ALIAS(fail_nomem);
size_t case_path_enter_key(parser *p, const char *key) CASE_ALIAS(path_enter_key);
size_t case_path_enter_index(parser *p, size_t index) CASE_ALIAS(path_enter_index);
void case_path_leave(parser *p, size_t saved) CASE_ALIAS(path_leave);
const char *case_json_kind(const cJSON *v) CASE_ALIAS(json_kind);
case_status case_check_keys(parser *p, const cJSON *obj, const char *const *allowed) CASE_ALIAS(check_keys);
case_status case_read_uint_field(parser *p, const cJSON *obj, const char *key, int required, uint64_t min,
                                 uint64_t max, uint64_t fallback, uint64_t *out) CASE_ALIAS(read_uint_field);
case_status case_read_string_field(parser *p, const cJSON *obj, const char *key, int required, const char **out)
    CASE_ALIAS(read_string_field);
case_status case_read_double(parser *p, const cJSON *v, int allow_special, double *out) CASE_ALIAS(read_double);
case_status case_read_element_array(parser *p, const cJSON *array, case_type t, uint8_t *dst)
    CASE_ALIAS(read_element_array);
case_status case_read_fill(parser *p, const cJSON *fill, case_binding *b) CASE_ALIAS(read_fill);
case_status case_read_compare(parser *p, const cJSON *v, case_expect *e) CASE_ALIAS(read_compare);
char *case_resolve_path(const char *dir, const char *relative) CASE_ALIAS(resolve_path);
