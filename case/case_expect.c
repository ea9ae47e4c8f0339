/*
 * case/case_expect.c — elements as text (case_format_element: JSON that reads
 * back exactly) and the expectation check: every element through
 * case_element_match (case/case_compare.c, the one rule), with the message
 * naming the first differing element.  Image expectations
 * decode their texels first (case/case_image.c) and come back here.
 */
#include "case/case_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Formatting and checking elements                                           */
/* ------------------------------------------------------------------------- */

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
    /* past 2^53 a JSON number loses bits: such an integer is written as a decimal string, as the case format
     * reads one back (case_read_element_array) */
    if (case_type_is_signed(t)) {
        int64_t v = (int64_t)case_int_element_value(t, bits);
        int quoted = v > (int64_t)CASE_EXACT_INT_LIMIT || v < -(int64_t)CASE_EXACT_INT_LIMIT;
        return snprintf(buf, buf_size, quoted ? "\"%" PRId64 "\"" : "%" PRId64, v);
    }
    return snprintf(buf, buf_size, bits > (uint64_t)CASE_EXACT_INT_LIMIT ? "\"%" PRIu64 "\"" : "%" PRIu64, bits);
}

int case_expect_check(const case_expect *e, const uint8_t *actual, size_t actual_size,
                      char *msg, size_t msg_size, size_t *first_bad)
{
    if (e && e->is_image)
        return case_image_expect_check(e, actual, actual_size, msg, msg_size, first_bad);
    if (msg && msg_size)
        msg[0] = '\0';
    char where[CASE_DESCRIPTOR_TEXT_MAX] = "";
    if (e)
        case_descriptor_text(e->set, e->binding, e->element, where, sizeof where);
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
    size_t base = e->first; /* the elements checked start there (an Amber script's IDX); messages count from 0 */
    if (base) {
        if (base > SIZE_MAX / elem || base * elem > actual_size) {
            if (msg && msg_size)
                snprintf(msg, msg_size, "%s: %zu bytes, expected at least %zu (elements from %zu)", where,
                         actual_size, (base + e->count) * elem, base);
            if (first_bad)
                *first_bad = base;
            return 0;
        }
        actual += base * elem;
        actual_size -= base * elem;
    }
    if (actual_size / elem < e->count) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "%s: %zu bytes, expected at least %zu (%zu %s elements)", where, actual_size,
                     e->count * elem, e->count, case_type_name(e->type));
        if (first_bad)
            *first_bad = base + actual_size / elem;
        return 0;
    }

    /* "sorted": both sides sorted (case_sort_elements), then compared element by element */
    const uint8_t *want = e->bytes, *got = actual;
    uint8_t *want_sorted = NULL, *got_sorted = NULL;
    if (e->compare == CASE_COMPARE_SORTED && e->count) {
        want_sorted = malloc(e->count * elem);
        got_sorted = malloc(e->count * elem);
        int ok = want_sorted && got_sorted;
        if (ok) {
            memcpy(want_sorted, e->bytes, e->count * elem);
            memcpy(got_sorted, actual, e->count * elem);
            ok = case_sort_elements(e->type, want_sorted, e->count) && case_sort_elements(e->type, got_sorted, e->count);
        }
        if (!ok) {
            free(want_sorted);
            free(got_sorted);
            if (msg && msg_size)
                snprintf(msg, msg_size, "%s: out of memory sorting %zu elements", where, e->count);
            if (first_bad)
                *first_bad = 0;
            return 0;
        }
        want = want_sorted;
        got = got_sorted;
    }

    size_t bad = 0, first = 0;
    char want_text[40] = "", got_text[40] = "";
    for (size_t i = 0; (i = case_next_mismatch(e->type, want, got, i, e->count, e->compare, e->tolerance)) < e->count;
         i++) {
        if (bad++ == 0) {
            first = i;
            case_format_element(e->type, want + i * elem, want_text, sizeof want_text);
            case_format_element(e->type, got + i * elem, got_text, sizeof got_text);
        }
    }
    free(want_sorted);
    free(got_sorted);
    if (bad == 0)
        return 1;

    if (first_bad)
        *first_bad = base + first;
    if (msg && msg_size) {
        char mode[64];
        case_compare_describe(e->compare, e->tolerance, mode, sizeof mode);
        snprintf(msg, msg_size, "%s (%s): %selement %zu: expected %s, actual %s; %zu of %zu elements differ",
                 where, mode, e->compare == CASE_COMPARE_SORTED ? "after sorting, " : "", base + first,
                 want_text, got_text, bad, e->count);
    }
    return 0;
}

int case_expect_check_data(const wl_case *c, const case_expect *e, uint8_t *const *data, char *msg, size_t msg_size)
{
    char where[CASE_DESCRIPTOR_TEXT_MAX];
    case_descriptor_text(e->set, e->binding, e->element, where, sizeof where);
    const case_binding *b = case_find_binding(c, e->set, e->binding, e->element);
    if (!b) {
        snprintf(msg, msg_size, "no binding %s", where);
        return 0;
    }
    const uint8_t *actual = data[b - c->bindings];
    if (!e->has_reference)
        return case_expect_check(e, actual, b->size, msg, msg_size, NULL);
    /* Amber's EQ_BUFFER: the other binding's final contents are the expected elements */
    const case_binding *r = &c->bindings[e->reference];
    if (r->size != b->size || r->type != b->type) {
        snprintf(msg, msg_size, "%s: %zu %s elements, but the reference %s holds %zu %s elements",
                 where, b->count, case_type_name(b->type), r->name ? r->name : "binding", r->count,
                 case_type_name(r->type));
        return 0;
    }
    case_expect against = *e;
    against.bytes = data[e->reference];
    against.has_reference = 0;
    return case_expect_check(&against, actual, b->size, msg, msg_size, NULL);
}
