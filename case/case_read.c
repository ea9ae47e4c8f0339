/*
 * case/case_read.c — the case parser's field readers: the parser context (the
 * JSON path of the field being read and the one error message), scalars and
 * element arrays with their ranges, and fills ("iota", "random", a value).
 * case/case.c reads bindings, expectations and the top-level fields with
 * them, and case/case_image.c image bindings, so every message has the same
 * "FILE: FIELD: problem" form.
 *
 * Floating-point formulas (iota, random fill) keep each product in a volatile
 * so that a compiler allowed to contract a*b+c into an FMA cannot change the
 * documented bytes: a Python reimplementation rounds after every operation.
 */
#include "case/case.h"
#include "case/case_internal.h"
#include "text/text.h"

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
size_t case_path_enter_key(parser *p, const char *key)
{
    size_t saved = p->path_len;
    char clean[96];
    if (p->path_len)
        path_append(p, ".");
    path_append(p, text_terminal(key, clean, sizeof clean)); /* keys come from the file */
    return saved;
}

size_t case_path_enter_index(parser *p, size_t index)
{
    size_t saved = p->path_len;
    char text[32];
    snprintf(text, sizeof text, "[%zu]", index);
    path_append(p, text);
    return saved;
}

void case_path_leave(parser *p, size_t saved)
{
    p->path_len = saved;
    p->path[saved] = '\0';
}

/* Writes "FILE: FIELD: problem" and returns CASE_ERR_FIELD. */
case_status case_fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
case_status case_fail(parser *p, const char *fmt, ...)
{
    if (p->err && p->err_size) {
        char message[1280];
        int n = snprintf(message, sizeof message, "%s: %s: ", p->file, p->path_len ? p->path : "(top level)");
        if (n >= 0 && (size_t)n < sizeof message) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(message + n, sizeof message - (size_t)n, fmt, ap);
            va_end(ap);
        }
        /* the path and the values quoted from the file: one printable line, no escape sequence reaches a terminal */
        text_terminal(message, p->err, p->err_size);
    }
    return CASE_ERR_FIELD;
}

case_status case_fail_nomem(parser *p)
{
    if (p->err && p->err_size)
        snprintf(p->err, p->err_size, "%s: out of memory", p->file);
    return CASE_ERR_NOMEM;
}

/* Fails at field `key` (entered for the message only). */
case_status case_fail_at(parser *p, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
case_status case_fail_at(parser *p, const char *key, const char *fmt, ...)
{
    char problem[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    size_t saved = case_path_enter_key(p, key);
    case_fail(p, "%s", problem);
    case_path_leave(p, saved);
    return CASE_ERR_FIELD;
}

const char *case_json_kind(const cJSON *v)
{
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    return "an invalid value";
}

char *case_dup_string(const char *s)
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
case_status case_check_keys(parser *p, const cJSON *obj, const char *const *allowed)
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
            size_t saved = case_path_enter_key(p, key);
            case_fail(p, "unknown field (expected one of: %s)%s", list, hint);
            case_path_leave(p, saved);
            return CASE_ERR_FIELD;
        }
        for (const cJSON *before = obj->child; before != child; before = before->next) {
            if (before->string && strcmp(before->string, key) == 0) {
                size_t saved = case_path_enter_key(p, key);
                case_fail(p, "field given twice");
                case_path_leave(p, saved);
                return CASE_ERR_FIELD;
            }
        }
    }
    return CASE_OK;
}

const cJSON *case_field(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* ------------------------------------------------------------------------- */
/* Reading scalars                                                            */
/* ------------------------------------------------------------------------- */

/* A non-negative integer in [min, max] (max <= 2^53).  The path must already
 * name the value. */
case_status case_read_uint(parser *p, const cJSON *v, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!cJSON_IsNumber(v))
        return case_fail(p, "expected an integer, got %s", case_json_kind(v));
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d))
        return case_fail(p, "expected an integer, got %s", case_shortest(d).s);
    if (d < (double)min)
        return case_fail(p, "%s is too small (at least %" PRIu64 ")", case_shortest(d).s, min);
    if (d > (double)max)
        return case_fail(p, "%s is too large (at most %" PRIu64 ")", case_shortest(d).s, max);
    *out = (uint64_t)d;
    return CASE_OK;
}

/* Like read_uint for an optional field `key` of obj, with a default. */
case_status case_read_uint_field(parser *p, const cJSON *obj, const char *key, int required,
                                   uint64_t min, uint64_t max, uint64_t fallback, uint64_t *out)
{
    const cJSON *v = case_field(obj, key);
    if (!v) {
        if (required)
            return case_fail_at(p, key, "missing (required)");
        *out = fallback;
        return CASE_OK;
    }
    size_t saved = case_path_enter_key(p, key);
    case_status s = case_read_uint(p, v, min, max, out);
    case_path_leave(p, saved);
    return s;
}

/* A string field; *out points into the JSON tree (NULL when absent and optional). */
case_status case_read_string_field(parser *p, const cJSON *obj, const char *key, int required,
                                     const char **out)
{
    const cJSON *v = case_field(obj, key);
    *out = NULL;
    if (!v)
        return required ? case_fail_at(p, key, "missing (required)") : CASE_OK;
    if (!cJSON_IsString(v) || !v->valuestring)
        return case_fail_at(p, key, "expected a string, got %s", case_json_kind(v));
    if (!v->valuestring[0])
        return case_fail_at(p, key, "must not be empty");
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
            return case_fail(p, "expected an integer for %s, got %s", case_type_name(t), case_shortest(d).s);
        if (d < (double)lo || d > (double)hi)
            return case_fail(p, "%s is out of range (%s)", case_shortest(d).s, case_type_range_text(t, range));
        if (fabs(d) > CASE_EXACT_INT_LIMIT)
            return case_fail(p, "%.0f is above 2^53, where JSON numbers lose precision: write it as a "
                           "decimal string such as \"%.0f\"", d, d);
        value = (case_i128)d;
    } else if (cJSON_IsString(v) && v->valuestring && takes_strings) {
        const char *s = v->valuestring;
        int negative = *s == '-';
        if (negative)
            s++;
        if (!*s)
            return case_fail(p, "\"%s\" is not a decimal integer", v->valuestring);
        case_u128 mag = 0;
        for (; *s; s++) {
            if (*s < '0' || *s > '9')
                return case_fail(p, "\"%.40s\" is not a decimal integer (digits and an optional leading '-' only)",
                            v->valuestring);
            if (mag < ((case_u128)1 << 100))
                mag = mag * 10 + (case_u128)(*s - '0');
        }
        value = negative ? -(case_i128)mag : (case_i128)mag;
        if (value < lo || value > hi)
            return case_fail(p, "%.40s is out of range (%s)", v->valuestring, case_type_range_text(t, range));
    } else {
        return case_fail(p, "expected an integer%s for %s, got %s",
                    takes_strings ? " or a decimal string" : "", case_type_name(t), case_json_kind(v));
    }
    if (value < lo || value > hi)
        return case_fail(p, "%s is out of range (%s..%s)", case_i128_text(value, range), case_i128_text(lo, a), case_i128_text(hi, b));
    *out = value;
    return CASE_OK;
}

/* A float value: a JSON number or one of "nan", "inf", "-inf" (allow_special). */
case_status case_read_double(parser *p, const cJSON *v, int allow_special, double *out)
{
    if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble))
            return case_fail(p, "number is beyond the range of a double; write \"inf\" or \"-inf\"");
        *out = v->valuedouble;
        return CASE_OK;
    }
    if (allow_special && cJSON_IsString(v) && v->valuestring) {
        if (strcmp(v->valuestring, "nan") == 0) { *out = NAN; return CASE_OK; }
        if (strcmp(v->valuestring, "inf") == 0) { *out = INFINITY; return CASE_OK; }
        if (strcmp(v->valuestring, "-inf") == 0) { *out = -INFINITY; return CASE_OK; }
        return case_fail(p, "\"%.40s\" is not a number (the only strings taken are \"nan\", \"inf\", \"-inf\")",
                    v->valuestring);
    }
    if (allow_special)
        return case_fail(p, "expected a number or \"nan\", \"inf\", \"-inf\", got %s%s", case_json_kind(v),
                    cJSON_IsArray(v) ? " (data is a flat list: flatten vectors and structs)" : "");
    return case_fail(p, "expected a finite number, got %s", case_json_kind(v));
}

/* One element value of type t from v, stored little-endian at dst. */
static case_status read_element(parser *p, const cJSON *v, case_type t, uint8_t *dst)
{
    char range[112];
    if (case_type_is_float(t)) {
        double d;
        TRY(case_read_double(p, v, 1, &d));
        if (!case_store_float(t, d, dst))
            return case_fail(p, "%s is out of range (%s); write \"inf\" for infinity", case_shortest(d).s, case_type_range_text(t, range));
        return CASE_OK;
    }
    if (cJSON_IsArray(v))
        return case_fail(p, "expected a number, got an array (data is a flat list: flatten vectors and structs)");
    case_i128 lo, hi, value;
    case_int_type_range(t, &lo, &hi);
    TRY(read_integer(p, v, t, lo, hi, &value));
    case_store_int(t, value, dst);
    return CASE_OK;
}

/* A flat JSON array of elements of type t into dst (room for at least its length). */
case_status case_read_element_array(parser *p, const cJSON *array, case_type t, uint8_t *dst)
{
    size_t size = case_type_size(t), i = 0;
    for (const cJSON *v = array->child; v; v = v->next, i++) {
        size_t saved = case_path_enter_index(p, i);
        case_status s = read_element(p, v, t, dst + i * size);
        case_path_leave(p, saved);
        if (s != CASE_OK)
            return s;
    }
    return CASE_OK;
}

case_status case_lookup_type(parser *p, const char *key, const char *name, case_type *out)
{
    for (int t = 0; t < CASE_TYPE_COUNT; t++) {
        if (strcmp(case_type_name(t), name) == 0) {
            *out = (case_type)t;
            return CASE_OK;
        }
    }
    return case_fail_at(p, key, "unknown type \"%.40s\" (expected one of u8 i8 u16 i16 u32 i32 u64 i64 f16 f32 f64)",
                   name);
}

/* ------------------------------------------------------------------------- */
/* Fills                                                                      */
/* ------------------------------------------------------------------------- */

static case_status fill_value(parser *p, const cJSON *v, case_binding *b)
{
    size_t size = case_type_size(b->type);
    size_t saved = case_path_enter_key(p, "value");
    case_status s = read_element(p, v, b->type, b->bytes);
    case_path_leave(p, saved);
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
    const cJSON *v = case_field(obj, key);
    if (!v) {
        if (required)
            return case_fail_at(p, key, "missing (required)");
        *out = fallback;
        return CASE_OK;
    }
    size_t saved = case_path_enter_key(p, key);
    case_status s = read_integer(p, v, t, lo, hi, out);
    case_path_leave(p, saved);
    return s;
}

static case_status read_double_param(parser *p, const cJSON *obj, const char *key, int required,
                                     double fallback, double *out)
{
    const cJSON *v = case_field(obj, key);
    if (!v) {
        if (required)
            return case_fail_at(p, key, "missing (required)");
        *out = fallback;
        return CASE_OK;
    }
    size_t saved = case_path_enter_key(p, key);
    case_status s = case_read_double(p, v, 0, out);
    case_path_leave(p, saved);
    return s;
}

/* iota: element i = start + i * step (defaults 0 and 1), every element in range. */
static case_status fill_iota(parser *p, const cJSON *iota, case_binding *b)
{
    static const char *const keys[] = {"start", "step", NULL};
    size_t size = case_type_size(b->type);
    char range[112], text[48];

    if (!cJSON_IsObject(iota))
        return case_fail(p, "expected an object {\"start\": S, \"step\": D}, got %s", case_json_kind(iota));
    TRY(case_check_keys(p, iota, keys));
    if (case_type_is_float(b->type)) {
        double start, step;
        TRY(read_double_param(p, iota, "start", 0, 0.0, &start));
        TRY(read_double_param(p, iota, "step", 0, 1.0, &step));
        for (size_t i = 0; i < b->count; i++) {
            volatile double offset = (double)i * step;
            double value = start + offset;
            if (!isfinite(value) || !case_store_float(b->type, value, b->bytes + i * size))
                return case_fail(p, "element %zu would be %s, out of range (%s)", i, case_shortest(value).s,
                            case_type_range_text(b->type, range));
        }
        return CASE_OK;
    }
    case_i128 lo, hi, start, step;
    case_i128 step_limit = ((case_i128)1 << 64) - 1;
    case_int_type_range(b->type, &lo, &hi);
    TRY(read_int_param(p, iota, "start", 0, b->type, lo, hi, 0, &start));
    TRY(read_int_param(p, iota, "step", 0, b->type, -step_limit, step_limit, 1, &step));
    for (size_t i = 0; i < b->count; i++) {
        /* |i * step| < 2^30 * 2^64: no overflow in 128 bits */
        case_i128 value = start + (case_i128)i * step;
        if (!case_store_int(b->type, value, b->bytes + i * size))
            return case_fail(p, "element %zu would be %s, out of range (%s)", i, case_i128_text(value, text),
                        case_type_range_text(b->type, range));
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
        return case_fail(p, "expected an object {\"seed\": S, \"min\": A, \"max\": B}, got %s", case_json_kind(random));
    TRY(case_check_keys(p, random, keys));
    /* The seed is a u64 whatever the element type: it may be a decimal string. */
    TRY(read_int_param(p, random, "seed", 1, CASE_TYPE_U64, 0, ((case_i128)1 << 64) - 1, 0, &seed));
    uint64_t state = (uint64_t)seed;

    if (case_type_is_float(b->type)) {
        double min, max;
        uint8_t probe[8];
        TRY(read_double_param(p, random, "min", 1, 0.0, &min));
        TRY(read_double_param(p, random, "max", 1, 0.0, &max));
        if (!case_store_float(b->type, min, probe))
            return case_fail_at(p, "min", "%s is out of range (%s)", case_shortest(min).s, case_type_range_text(b->type, range));
        if (!case_store_float(b->type, max, probe))
            return case_fail_at(p, "max", "%s is out of range (%s)", case_shortest(max).s, case_type_range_text(b->type, range));
        if (max < min)
            return case_fail_at(p, "max", "%s is less than min %s", case_shortest(max).s, case_shortest(min).s);
        double span = max - min;
        if (!isfinite(span))
            return case_fail_at(p, "max", "max - min overflows a double");
        for (size_t i = 0; i < b->count; i++) {
            uint64_t x = case_splitmix64(&state);
            double unit = (double)(x >> 11) * 0x1p-53; /* exact: a 53-bit integer scaled by 2^-53 */
            volatile double scaled = span * unit;
            case_store_float(b->type, min + scaled, b->bytes + i * size); /* within [min, max]: fits */
        }
        return CASE_OK;
    }
    case_i128 lo, hi, min, max;
    case_int_type_range(b->type, &lo, &hi);
    TRY(read_int_param(p, random, "min", 1, b->type, lo, hi, 0, &min));
    TRY(read_int_param(p, random, "max", 1, b->type, lo, hi, 0, &max));
    if (max < min) {
        char a[48], c[48];
        return case_fail_at(p, "max", "%s is less than min %s", case_i128_text(max, a), case_i128_text(min, c));
    }
    /* max - min + 1 is 1 .. 2^64; 2^64 wraps to 0 here, where x % 2^64 is x.  64-bit arithmetic and
     * min + r within [min, max] already: no 128-bit division or range check per element. */
    uint64_t span = (uint64_t)(max - min) + 1;
    uint64_t base = (uint64_t)min; /* two's complement: the low bytes of min + r are base + r */
    for (size_t i = 0; i < b->count; i++) {
        uint64_t x = case_splitmix64(&state);
        case_store_le(b->bytes + i * size, base + (span ? x % span : x), size);
    }
    return CASE_OK;
}

case_status case_read_fill(parser *p, const cJSON *fill, case_binding *b)
{
    static const char *const keys[] = {"value", "iota", "random", NULL};
    if (!cJSON_IsObject(fill))
        return case_fail(p, "expected an object with one of \"value\", \"iota\", \"random\", got %s", case_json_kind(fill));
    TRY(case_check_keys(p, fill, keys));
    const cJSON *value = case_field(fill, "value"), *iota = case_field(fill, "iota"), *random = case_field(fill, "random");
    if ((value != NULL) + (iota != NULL) + (random != NULL) != 1)
        return case_fail(p, "give exactly one of \"value\", \"iota\", \"random\"");
    if (value)
        return fill_value(p, value, b);
    size_t saved = case_path_enter_key(p, iota ? "iota" : "random");
    case_status s = iota ? fill_iota(p, iota, b) : fill_random(p, random, b);
    case_path_leave(p, saved);
    return s;
}
