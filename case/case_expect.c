/*
 * case/case_expect.c — elements as text (case_format_element: JSON that reads
 * back exactly) and the expectation comparisons (exact, ulp, epsilon, sorted)
 * with the message naming the first differing element.  Image expectations
 * decode their texels first (case/case_image.c) and come back here.
 */
#include "case/case_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Formatting and comparing elements                                          */
/* ------------------------------------------------------------------------- */

static int format_bits(case_type t, uint64_t bits, char *buf, size_t buf_size)
{
    uint8_t element[8];
    case_store_le(element, bits, 8);
    return case_format_element(t, element, buf, buf_size);
}

/* Like snprintf, returns the length of the whole text even when buf_size cuts
 * it short (so a NULL buffer of size 0 measures it). */
int case_format_element(case_type t, const uint8_t *element, char *buf, size_t buf_size)
{
    if ((unsigned)t >= CASE_TYPE_COUNT || !element)
        return snprintf(buf, buf_size, "?");
    uint64_t bits = case_load_le(element, case_type_size(t));
    if (case_type_is_float(t)) {
        if (case_bits_is_nan(t, bits))
            return snprintf(buf, buf_size, "\"nan\"");
        if (case_bits_is_inf(t, bits))
            return snprintf(buf, buf_size, (bits >> (8 * case_type_size(t) - 1)) ? "\"-inf\"" : "\"inf\"");
        double value = case_float_element_value(t, bits);
        const char *fmt = t == CASE_TYPE_F16 ? "%.5g" : t == CASE_TYPE_F32 ? "%.9g" : "%.17g";
        return snprintf(buf, buf_size, fmt, value);
    }
    if (case_type_is_signed(t))
        return snprintf(buf, buf_size, "%" PRId64, (int64_t)case_int_element_value(t, bits));
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
        case_i128 d = case_int_element_value(t, want) - case_int_element_value(t, got);
        return (double)(d < 0 ? -d : d) <= e->tolerance;
    }
    int want_nan = case_bits_is_nan(t, want), got_nan = case_bits_is_nan(t, got);
    if (want_nan || got_nan)
        return want_nan && got_nan;
    if (case_bits_is_inf(t, want) || case_bits_is_inf(t, got))
        return want == got;
    if (e->compare == CASE_COMPARE_ULP)
        return (double)ulp_distance(t, want, got) <= e->tolerance;
    return fabs(case_float_element_value(t, want) - case_float_element_value(t, got)) <= e->tolerance;
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
            want_sorted[i] = sort_entry_of(e->type, case_load_le(e->bytes + i * elem, elem));
            got_sorted[i] = sort_entry_of(e->type, case_load_le(actual + i * elem, elem));
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
            want = case_load_le(e->bytes + i * elem, elem);
            got = case_load_le(actual + i * elem, elem);
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
        case CASE_COMPARE_ULP: snprintf(mode, sizeof mode, "within %s ulp", case_shortest(e->tolerance).s); break;
        case CASE_COMPARE_EPSILON: snprintf(mode, sizeof mode, "within %s", case_shortest(e->tolerance).s); break;
        case CASE_COMPARE_SORTED: snprintf(mode, sizeof mode, "sorted"); break;
        default: snprintf(mode, sizeof mode, "exact"); break;
        }
        snprintf(msg, msg_size, "set %u binding %u (%s): %selement %zu: expected %s, actual %s; %zu of %zu elements differ",
                 e->set, e->binding, mode, e->compare == CASE_COMPARE_SORTED ? "after sorting, " : "", first,
                 want_text, got_text, bad, e->count);
    }
    return 0;
}
