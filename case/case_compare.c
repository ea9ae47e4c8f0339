/*
 * case/case_compare.c — the one rule for comparing two elements (docs/case-format.md, "Compare modes"): case
 * expectations, `wavelab check`'s buffers and decoded image texels, and "sorted" multisets all call it, so a
 * pair of elements gets the same verdict wherever it is compared.
 *
 * Floats (f16, f32, f64): any NaN equals any NaN in every mode (SPIR-V and Vulkan leave payloads open, and the
 * simulator and a device produce different ones); an infinity equals only the same infinity (never the largest
 * finite value, whatever the tolerance); otherwise exact and sorted need identical bits (+0 and -0 differ), ulp N
 * counts representable values between the two (+0 and -0 are 0 apart), epsilon E compares |a - b| in double,
 * relative R compares |want - got| with R * |want| in double (Amber's EQ and percent tolerances).
 * Integers: identical bits in every mode (the case parser refuses ulp and epsilon for them).
 */
#include "case/case_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The compare modes: the case format's name of each, and whether it takes a tolerance. */
static const struct {
    const char *name;
    int tolerance;
    const char *within; /* the failure message's words around the tolerance */
} modes[] = {
    [CASE_COMPARE_EXACT] = {"exact", 0, NULL},
    [CASE_COMPARE_ULP] = {"ulp", 1, " ulp"},
    [CASE_COMPARE_EPSILON] = {"epsilon", 1, ""},
    [CASE_COMPARE_SORTED] = {"sorted", 0, NULL},
    [CASE_COMPARE_RELATIVE] = {"relative", 1, " relative"},
};
#define MODE_COUNT (sizeof modes / sizeof modes[0])

const char *case_compare_name(case_compare m) { return (unsigned)m < MODE_COUNT ? modes[m].name : "?"; }
int case_compare_takes_tolerance(case_compare m) { return (unsigned)m < MODE_COUNT && modes[m].tolerance; }

int case_compare_by_name(const char *name, case_compare *out)
{
    for (unsigned m = 0; m < MODE_COUNT; m++)
        if (strcmp(modes[m].name, name) == 0) {
            *out = (case_compare)m;
            return 1;
        }
    return 0;
}

void case_compare_describe(case_compare m, double tolerance, char *buf, size_t size)
{
    if (case_compare_takes_tolerance(m))
        snprintf(buf, size, "within %s%s", case_shortest(tolerance).s, modes[m].within);
    else
        snprintf(buf, size, "%s", case_compare_name(m));
}

/* Units in the last place between two floats of one type, counting along the
 * representable values: +0 and -0 are 0 apart, the smallest subnormals of
 * either sign 2 apart.  Meaningful for non-NaN, non-infinite values only. */
static uint64_t ulp_distance_bits(case_type t, uint64_t a, uint64_t b)
{
    unsigned sign_shift = (unsigned)(8 * case_type_size(t) - 1);
    uint64_t magnitude_mask = ((uint64_t)1 << sign_shift) - 1;
    uint64_t ma = a & magnitude_mask, mb = b & magnitude_mask;
    if (((a >> sign_shift) & 1) == ((b >> sign_shift) & 1))
        return ma > mb ? ma - mb : mb - ma;
    return ma + mb;
}

static int is_finite_bits(case_type t, uint64_t bits)
{
    return !case_bits_is_nan(t, bits) && !case_bits_is_inf(t, bits);
}

int case_ulp_distance(case_type t, const uint8_t *a, const uint8_t *b, uint64_t *out)
{
    if ((unsigned)t >= CASE_TYPE_COUNT || !case_type_is_float(t))
        return 0;
    size_t es = case_type_size(t);
    uint64_t x = case_load_le(a, es), y = case_load_le(b, es);
    if (!is_finite_bits(t, x) || !is_finite_bits(t, y))
        return 0;
    *out = ulp_distance_bits(t, x, y);
    return 1;
}

static int bits_match(case_type t, uint64_t want, uint64_t got, case_compare mode, double tolerance)
{
    if (!case_type_is_float(t))
        return want == got;
    int want_nan = case_bits_is_nan(t, want), got_nan = case_bits_is_nan(t, got);
    if (want_nan || got_nan)
        return want_nan && got_nan;
    if (case_bits_is_inf(t, want) || case_bits_is_inf(t, got))
        return want == got;
    switch (mode) {
    case CASE_COMPARE_EXACT:
    case CASE_COMPARE_SORTED: return want == got;
    case CASE_COMPARE_ULP: return (double)ulp_distance_bits(t, want, got) <= tolerance;
    case CASE_COMPARE_EPSILON:
        return fabs(case_float_element_value(t, want) - case_float_element_value(t, got)) <= tolerance;
    case CASE_COMPARE_RELATIVE: {
        double w = case_float_element_value(t, want);
        return fabs(w - case_float_element_value(t, got)) <= tolerance * fabs(w);
    }
    }
    return 0; /* not a case_compare */
}

int case_element_match(case_type t, const uint8_t *want, const uint8_t *got, case_compare mode, double tolerance)
{
    if ((unsigned)t >= CASE_TYPE_COUNT)
        return 0;
    size_t es = case_type_size(t);
    return bits_match(t, case_load_le(want, es), case_load_le(got, es), mode, tolerance);
}

size_t case_next_mismatch(case_type t, const uint8_t *want, const uint8_t *got, size_t from, size_t count,
                          case_compare mode, double tolerance)
{
    if ((unsigned)t >= CASE_TYPE_COUNT)
        return from < count ? from : count;
    const size_t es = case_type_size(t), run = 1024; /* elements compared as bytes at once */
    size_t i = from;
    while (i < count) {
        size_t n = count - i < run ? count - i : run;
        if (tolerance >= 0 && memcmp(want + i * es, got + i * es, n * es) == 0) {
            i += n;
            continue;
        }
        for (size_t end = i + n; i < end; i++)
            if (!case_element_match(t, want + i * es, got + i * es, mode, tolerance))
                return i;
    }
    return count;
}

/* Sorting key: orders by value, NaNs last (among themselves by bits, so the
 * order never depends on qsort); -0 sorts before +0. */
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
        s.is_nan = case_bits_is_nan(t, bits);
        /* the usual total-order trick: flip all bits of negatives, the sign of positives */
        s.key = s.is_nan ? bits : (bits & sign) ? ~bits & (sign | (sign - 1)) : bits | sign;
    } else if (case_type_is_signed(t)) {
        s.key = (uint64_t)(int64_t)case_int_element_value(t, bits) ^ ((uint64_t)1 << 63);
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

int case_sort_elements(case_type t, uint8_t *elements, size_t count)
{
    if ((unsigned)t >= CASE_TYPE_COUNT)
        return 0;
    if (count == 0)
        return 1;
    sort_entry *s = malloc(count * sizeof *s);
    if (!s)
        return 0;
    size_t es = case_type_size(t);
    for (size_t i = 0; i < count; i++)
        s[i] = sort_entry_of(t, case_load_le(elements + i * es, es));
    qsort(s, count, sizeof *s, sort_entry_cmp);
    for (size_t i = 0; i < count; i++)
        case_store_le(elements + i * es, s[i].bits, es);
    free(s);
    return 1;
}
