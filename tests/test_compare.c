/*
 * tests/test_compare.c — the one comparison rule (case/case_compare.c, docs/case-format.md "Compare modes"): each
 * pair of elements below gets the verdict worked out by hand from the documented rule, and gets it through every
 * path that compares elements: case_element_match (what `wavelab check` calls for buffers and image texels), an
 * expectation (case_expect_check), an expectation parsed from a case's "expect", and "sorted" multisets.  A case
 * whose kernel makes the simulator and a device hold different NaNs (tests/compare/nan_payload.json) goes through
 * `wavelab test` and, on lavapipe, through `wavelab check` (skipped without a device).
 */
#include "case/case.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "tests/support/tsup.h"

typedef struct row {
    case_type type;
    case_compare mode;
    double tolerance;
    uint64_t want, got; /* bit patterns of the type */
    int verdict;        /* by hand, from the rule */
    const char *why;
} row;

#define F32_ONE 0x3F800000u
#define F32_MAX 0x7F7FFFFFu
#define F32_INF 0x7F800000u
#define F32_NINF 0xFF800000u
#define F32_QNAN 0x7FC00000u /* what a case's "nan" stores */
#define F32_XNAN 0xFFC00000u /* x86's default NaN: sign set */
#define F32_PNAN 0x7FC00123u /* a payload */
#define F32_SNAN 0x7FA00000u /* signalling */

static const row rows[] = {
    /* NaN: any NaN equals any NaN, in every mode; a NaN never equals a number or an infinity */
    {CASE_TYPE_F32, CASE_COMPARE_EXACT, 0, F32_QNAN, F32_QNAN, 1, "same NaN, exact"},
    {CASE_TYPE_F32, CASE_COMPARE_EXACT, 0, F32_QNAN, F32_XNAN, 1, "NaN of the other sign, exact"},
    {CASE_TYPE_F32, CASE_COMPARE_EXACT, 0, F32_QNAN, F32_PNAN, 1, "NaN with a payload, exact"},
    {CASE_TYPE_F32, CASE_COMPARE_EXACT, 0, F32_QNAN, F32_SNAN, 1, "signalling NaN, exact"},
    {CASE_TYPE_F32, CASE_COMPARE_SORTED, 0, F32_PNAN, F32_XNAN, 1, "two NaNs, sorted"},
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 0, F32_PNAN, F32_XNAN, 1, "two NaNs, ulp 0"},
    {CASE_TYPE_F32, CASE_COMPARE_EPSILON, 0, F32_PNAN, F32_XNAN, 1, "two NaNs, epsilon 0"},
    {CASE_TYPE_F32, CASE_COMPARE_EXACT, 0, F32_QNAN, F32_ONE, 0, "NaN against 1, exact"},
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 4294967295.0, F32_QNAN, F32_INF, 0, "NaN against inf, any ulp"},
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 4294967295.0, F32_INF, F32_QNAN, 0, "inf against NaN, any ulp"},
    {CASE_TYPE_F32, CASE_COMPARE_EPSILON, 1e300, F32_ONE, F32_QNAN, 0, "1 against NaN, huge epsilon"},
    /* infinity: only the same infinity */
    {CASE_TYPE_F32, CASE_COMPARE_EXACT, 0, F32_INF, F32_INF, 1, "inf, exact"},
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 1, F32_INF, F32_MAX, 0, "inf against FLT_MAX is not 1 ulp"},
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 1, F32_MAX, F32_INF, 0, "FLT_MAX against inf is not 1 ulp"},
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 4294967295.0, F32_INF, F32_MAX, 0, "inf against FLT_MAX, any ulp"},
    {CASE_TYPE_F32, CASE_COMPARE_EPSILON, 1e300, F32_INF, F32_MAX, 0, "inf against FLT_MAX, huge epsilon"},
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 4294967295.0, F32_INF, F32_NINF, 0, "inf against -inf"},
    {CASE_TYPE_F32, CASE_COMPARE_EPSILON, 0, F32_NINF, F32_NINF, 1, "-inf, epsilon 0"},
    /* zeros: exact and sorted tell the signs apart, ulp and epsilon do not */
    {CASE_TYPE_F32, CASE_COMPARE_EXACT, 0, 0x00000000u, 0x80000000u, 0, "+0 against -0, exact"},
    {CASE_TYPE_F32, CASE_COMPARE_SORTED, 0, 0x80000000u, 0x00000000u, 0, "-0 against +0, sorted"},
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 0, 0x00000000u, 0x80000000u, 1, "+0 against -0, ulp 0"},
    {CASE_TYPE_F32, CASE_COMPARE_EPSILON, 0, 0x80000000u, 0x00000000u, 1, "-0 against +0, epsilon 0"},
    /* ulp boundaries: 1 and the float two steps above it; the smallest subnormals of either sign */
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 1, F32_ONE, F32_ONE + 2, 0, "2 ulp apart, ulp 1"},
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 2, F32_ONE, F32_ONE + 2, 1, "2 ulp apart, ulp 2"},
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 1, 0x00000001u, 0x80000001u, 0, "+-min subnormal, ulp 1"},
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 2, 0x00000001u, 0x80000001u, 1, "+-min subnormal, ulp 2"},
    {CASE_TYPE_F32, CASE_COMPARE_ULP, 1, F32_MAX, F32_MAX - 1, 1, "FLT_MAX and the float below, ulp 1"},
    {CASE_TYPE_F32, CASE_COMPARE_EPSILON, 0.5, F32_ONE, 0x3FC00000u, 1, "1 against 1.5, epsilon 0.5"},
    {CASE_TYPE_F32, CASE_COMPARE_EPSILON, 0.25, F32_ONE, 0x3FC00000u, 0, "1 against 1.5, epsilon 0.25"},
    /* relative: |want - got| <= R * |want|, measured from the expected value; zeros of either sign match */
    {CASE_TYPE_F32, CASE_COMPARE_RELATIVE, 0.5, F32_ONE, 0x3FC00000u, 1, "1 against 1.5, relative 0.5"},
    {CASE_TYPE_F32, CASE_COMPARE_RELATIVE, 0.25, F32_ONE, 0x3FC00000u, 0, "1 against 1.5, relative 0.25"},
    {CASE_TYPE_F32, CASE_COMPARE_RELATIVE, 0.25, 0x3FC00000u, F32_ONE, 0, "1.5 against 1, relative 0.25 (1/3 of 1.5 is 0.5)"},
    {CASE_TYPE_F32, CASE_COMPARE_RELATIVE, 1e-8, 0x00000000u, 0x80000000u, 1, "+0 against -0, relative"},
    {CASE_TYPE_F32, CASE_COMPARE_RELATIVE, 1e300, 0x00000000u, 0x00000001u, 0, "0 against the min subnormal: no relative room"},
    {CASE_TYPE_F32, CASE_COMPARE_RELATIVE, 1e300, F32_INF, F32_MAX, 0, "inf against FLT_MAX, huge relative"},
    {CASE_TYPE_F32, CASE_COMPARE_RELATIVE, 0, F32_PNAN, F32_XNAN, 1, "two NaNs, relative 0"},
    /* half precision: the same rule on 16 bits */
    {CASE_TYPE_F16, CASE_COMPARE_EXACT, 0, 0x7E00, 0xFE01, 1, "f16 NaNs, exact"},
    {CASE_TYPE_F16, CASE_COMPARE_ULP, 1, 0x7C00, 0x7BFF, 0, "f16 inf against 65504, ulp 1"},
    {CASE_TYPE_F16, CASE_COMPARE_ULP, 1, 0x3C00, 0x3C01, 1, "f16 1 and next, ulp 1"},
    {CASE_TYPE_F16, CASE_COMPARE_EXACT, 0, 0x0000, 0x8000, 0, "f16 +0 against -0, exact"},
    {CASE_TYPE_F16, CASE_COMPARE_ULP, 0, 0x0000, 0x8000, 1, "f16 +0 against -0, ulp 0"},
    /* 64-bit floats */
    {CASE_TYPE_F64, CASE_COMPARE_EXACT, 0, 0x7FF8000000000000ull, 0xFFF8000000000001ull, 1, "f64 NaNs, exact"},
    {CASE_TYPE_F64, CASE_COMPARE_ULP, 1, 0x7FF0000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0, "f64 inf vs DBL_MAX"},
    {CASE_TYPE_F64, CASE_COMPARE_ULP, 1, 0x3FF0000000000000ull, 0x3FF0000000000001ull, 1, "f64 1 and next, ulp 1"},
    {CASE_TYPE_F64, CASE_COMPARE_EXACT, 0, 0x0000000000000000ull, 0x8000000000000000ull, 0, "f64 +0 vs -0, exact"},
    /* integers: identical bits in every mode (a tolerance does not apply to them) */
    {CASE_TYPE_U32, CASE_COMPARE_EXACT, 0, 5, 5, 1, "u32 same"},
    {CASE_TYPE_U32, CASE_COMPARE_EXACT, 0, 5, 6, 0, "u32 differ by 1"},
    {CASE_TYPE_U32, CASE_COMPARE_ULP, 10, 5, 6, 0, "u32 under a hand-made ulp: still bits"},
    {CASE_TYPE_I32, CASE_COMPARE_EPSILON, 10, 0xFFFFFFFFu, 0, 0, "i32 -1 against 0 under a hand-made epsilon"},
    {CASE_TYPE_I16, CASE_COMPARE_SORTED, 0, 0x8000, 0x8000, 1, "i16 minimum, sorted"},
    {CASE_TYPE_U32, CASE_COMPARE_EXACT, 0, F32_QNAN, F32_XNAN, 0, "u32 with NaN-like bits: integers are bits"},
};
#define ROW_COUNT (sizeof rows / sizeof rows[0])

static void store(uint8_t *dst, uint64_t bits, size_t size)
{
    for (size_t i = 0; i < size; i++)
        dst[i] = (uint8_t)(bits >> (8 * i));
}

/* case_element_match: what `wavelab check` calls for each buffer element and each decoded image component. */
START_TEST(test_compare_element_match_follows_the_rule)
{
    const row *r = &rows[_i];
    uint8_t want[8], got[8];
    size_t es = case_type_size(r->type);
    store(want, r->want, es);
    store(got, r->got, es);
    ck_assert_msg(case_element_match(r->type, want, got, r->mode, r->tolerance) == r->verdict, "%s: wanted %d",
                  r->why, r->verdict);
}
END_TEST

/* case_next_mismatch, which skips identical bytes, finds the pair of each row among 2100 equal elements exactly
 * when case_element_match rejects it, wherever it lies in a run of 1024. */
START_TEST(test_compare_next_mismatch_finds_what_element_match_rejects)
{
    const row *r = &rows[_i];
    enum { N = 2100 };
    size_t es = case_type_size(r->type);
    uint8_t *want = malloc(N * es), *got = malloc(N * es);
    uint32_t seed = 99;
    for (size_t k = 0; k < N * es; k++)
        want[k] = got[k] = (uint8_t)tsup_rand(&seed);
    static const size_t places[] = {0, 1023, 1024, 2099};
    for (size_t q = 0; q < sizeof places / sizeof places[0]; q++) {
        const size_t at = places[q];
        memcpy(got, want, N * es);
        store(want + at * es, r->want, es);
        store(got + at * es, r->got, es);
        size_t first = N; /* the reference: every element through the rule */
        for (size_t k = 0; k < N && first == N; k++)
            if (!case_element_match(r->type, want + k * es, got + k * es, r->mode, r->tolerance))
                first = k;
        ck_assert_uint_eq(first, r->verdict ? N : at); /* the random neighbours match themselves */
        ck_assert_msg(case_next_mismatch(r->type, want, got, 0, N, r->mode, r->tolerance) == first, "%s at %zu",
                      r->why, at);
        ck_assert_uint_eq(case_next_mismatch(r->type, want, got, at + 1, N, r->mode, r->tolerance), N);
    }
    /* a negative tolerance rejects even identical bits (case files refuse one; the function keeps the rule) */
    if (r->mode == CASE_COMPARE_EPSILON && case_type_is_float(r->type)) {
        memcpy(got, want, N * es);
        store(want, 0x3f800000, es), store(got, 0x3f800000, es);
        ck_assert_uint_eq(case_element_match(r->type, want, got, r->mode, -1.0), 0);
        ck_assert_uint_eq(case_next_mismatch(r->type, want, got, 0, N, r->mode, -1.0), 0);
    }
    free(want);
    free(got);
}
END_TEST

/* The same pair through an expectation gives the same verdict. */
START_TEST(test_compare_expectation_agrees_with_element_match)
{
    const row *r = &rows[_i];
    uint8_t want[8], got[8];
    size_t es = case_type_size(r->type);
    store(want, r->want, es);
    store(got, r->got, es);
    case_expect e = {.binding = 1, .type = r->type, .compare = r->mode, .tolerance = r->tolerance, .count = 1,
                     .bytes = want};
    char msg[256];
    ck_assert_msg(case_expect_check(&e, got, es, msg, sizeof msg, NULL) == r->verdict, "%s: wanted %d (%s)", r->why,
                  r->verdict, msg);
}
END_TEST

/* An expectation as a case file writes it: "nan" (0x7FC00000) accepts the NaNs a kernel or a device may produce,
 * "inf" accepts only inf, 0 is not -0 when exact, and ulp 0 accepts -0 for 0. */
START_TEST(test_compare_parsed_expectation_follows_the_rule)
{
    const char *json = "{\"kernel\": \"k.comp\", \"bindings\": [{\"binding\": 1, \"type\": \"f32\", \"count\": 4}],"
                       " \"expect\": [{\"binding\": 1, \"data\": [\"nan\", \"inf\", 0, 1]},"
                       "              {\"binding\": 1, \"data\": [\"nan\", \"inf\", 0, 1], \"compare\": {\"ulp\": 1}},"
                       "              {\"binding\": 1, \"data\": [1, 0, \"inf\", \"nan\"], \"compare\": \"sorted\"}]}";
    wl_case *c = NULL;
    char err[512], msg[512];
    ck_assert_int_eq(case_parse(json, "t.json", &c, err, sizeof err), CASE_OK);
    uint8_t actual[16];
    store(actual + 0, F32_PNAN, 4);
    store(actual + 4, F32_INF, 4);
    store(actual + 8, 0x00000000u, 4);
    store(actual + 12, F32_ONE, 4);
    for (int k = 0; k < 3; k++)
        ck_assert_msg(case_expect_check(&c->expects[k], actual, sizeof actual, msg, sizeof msg, NULL) == 1,
                      "expect[%d]: %s", k, msg);
    store(actual + 0, F32_XNAN, 4);
    store(actual + 8, 0x80000000u, 4);
    ck_assert_int_eq(case_expect_check(&c->expects[0], actual, sizeof actual, msg, sizeof msg, NULL), 0);
    ck_assert_msg(strstr(msg, "element 2: expected 0, actual -0; 1 of 4 elements differ"), "%s", msg);
    ck_assert_int_eq(case_expect_check(&c->expects[1], actual, sizeof actual, msg, sizeof msg, NULL), 1);
    store(actual + 4, F32_MAX, 4);
    ck_assert_int_eq(case_expect_check(&c->expects[1], actual, sizeof actual, msg, sizeof msg, NULL), 0);
    ck_assert_msg(strstr(msg, "element 1: expected \"inf\", actual 3.40282347e+38; 1 of 4"), "%s", msg);
    case_destroy(c);
}
END_TEST

/* "sorted": NaNs sort last and match any NaN, so two multisets with different NaN payloads agree; the count of
 * NaNs still matters, and -0 stays apart from +0. */
START_TEST(test_compare_sorted_multisets_follow_the_rule)
{
    uint32_t a[] = {F32_PNAN, F32_ONE, 0x80000000u, F32_NINF, F32_QNAN};
    uint32_t b[] = {F32_XNAN, F32_NINF, F32_SNAN, 0x80000000u, F32_ONE};
    case_expect e = {.binding = 1, .type = CASE_TYPE_F32, .compare = CASE_COMPARE_SORTED, .count = 5,
                     .bytes = (uint8_t *)a};
    char msg[256];
    ck_assert_msg(case_expect_check(&e, (const uint8_t *)b, sizeof b, msg, sizeof msg, NULL) == 1, "%s", msg);
    uint32_t c[] = {F32_XNAN, F32_NINF, F32_ONE, 0x80000000u, F32_ONE};
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)c, sizeof c, msg, sizeof msg, NULL), 0);
    uint32_t d[] = {F32_XNAN, F32_NINF, F32_SNAN, 0x00000000u, F32_ONE};
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)d, sizeof d, msg, sizeof msg, NULL), 0);
    ck_assert_msg(strstr(msg, "expected -0, actual 0"), "%s", msg);

    /* case_sort_elements: by value, -0 before +0, NaNs last (what `check` sorts both sides with) */
    uint32_t s[] = {F32_QNAN, F32_ONE, 0x00000000u, 0x80000000u, F32_NINF, 0xBF800000u};
    ck_assert_int_eq(case_sort_elements(CASE_TYPE_F32, (uint8_t *)s, 6), 1);
    uint32_t sorted[] = {F32_NINF, 0xBF800000u, 0x80000000u, 0x00000000u, F32_ONE, F32_QNAN};
    for (int i = 0; i < 6; i++)
        ck_assert_msg(s[i] == sorted[i], "position %d: %08x, wanted %08x", i, s[i], sorted[i]);
    int16_t n[] = {3, -2, 0, -32768};
    ck_assert_int_eq(case_sort_elements(CASE_TYPE_I16, (uint8_t *)n, 4), 1);
    ck_assert(n[0] == -32768 && n[1] == -2 && n[2] == 0 && n[3] == 3);
}
END_TEST

/* The ulp count `check` prints beside a mismatch: defined for two finite floats only. */
START_TEST(test_compare_ulp_distance_only_between_finite_floats)
{
    uint32_t one = F32_ONE, three_up = F32_ONE + 3, inf = F32_INF, max = F32_MAX, nan = F32_QNAN;
    uint32_t tiny = 0x00000001u, neg_tiny = 0x80000001u;
    uint64_t d = 99;
    ck_assert_int_eq(case_ulp_distance(CASE_TYPE_F32, (uint8_t *)&one, (uint8_t *)&three_up, &d), 1);
    ck_assert_uint_eq(d, 3);
    ck_assert_int_eq(case_ulp_distance(CASE_TYPE_F32, (uint8_t *)&tiny, (uint8_t *)&neg_tiny, &d), 1);
    ck_assert_uint_eq(d, 2);
    ck_assert_int_eq(case_ulp_distance(CASE_TYPE_F32, (uint8_t *)&inf, (uint8_t *)&max, &d), 0);
    ck_assert_int_eq(case_ulp_distance(CASE_TYPE_F32, (uint8_t *)&nan, (uint8_t *)&one, &d), 0);
    ck_assert_int_eq(case_ulp_distance(CASE_TYPE_U32, (uint8_t *)&one, (uint8_t *)&three_up, &d), 0);
}
END_TEST

/* The line of `output` that starts with `prefix` (after spaces), or NULL. */
static const char *line_of(const char *output, const char *prefix, char *line, size_t size)
{
    for (const char *p = output; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *q = p;
        while (*q == ' ' && q < p + n)
            q++;
        if (!strncmp(q, prefix, strlen(prefix))) {
            snprintf(line, size, "%.*s", (int)n, p);
            return line;
        }
        p = end ? end + 1 : NULL;
    }
    return NULL;
}

/* Through an expectation on the simulator: texel 0's quieted NaN and texel 7's negative NaN match the case's "nan"
 * (before the one rule, the expectation wanted 0x7FC00000 exactly and failed). */
START_TEST(test_compare_cli_test_accepts_any_nan)
{
    char *out = NULL, args[4096];
    snprintf(args, sizeof args, "test '%s/tests/compare/nan_payload.json' --waves 8,32", tsup_root());
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out ? out : "");
    free(out);
}
END_TEST

/* Through `wavelab check` on a device: the float copy agrees although the NaNs differ, the bit copy does not. */
START_TEST(test_compare_cli_check_accepts_any_nan)
{
    struct vkb_context *ctx = NULL;
    char skip[512] = "";
    int device = tsup_device_open(&ctx, skip, sizeof skip); /* the device part runs only when one opens */
    if (ctx)
        vkb_context_destroy(ctx);
    ck_assert_msg(device >= 0, "%s", skip);
    char *out = NULL, args[4096], line[512];
    snprintf(args, sizeof args, "check '%s/tests/compare/nan_payload.json' --device %d --wave 8", tsup_root(), device);
    int rc = tsup_run_cli(args, &out);
    if (rc == 3) {
        printf("%s: skipped: the device does not run the case at wave 8:\n%s", __func__, out ? out : "");
        free(out);
        return;
    }
    ck_assert_ptr_nonnull(out);
    ck_assert_msg(line_of(out, "set 0 binding 1 ", line, sizeof line) && strstr(line, " exact ") &&
                      strstr(line, "agree"), "binding 1 must agree:\n%s", out);
    ck_assert_msg(line_of(out, "set 0 binding 2 ", line, sizeof line), "no binding 2 line:\n%s", out);
    if (strstr(line, "DIFFER"))
        /* the device kept the signalling NaN the simulator quieted: the sides really held different NaNs */
        ck_assert_msg(strstr(out, "[0] simulator 2145386496, device 2141192192") && rc == 1, "exit %d:\n%s", rc, out);
    else
        printf("%s: this device quiets the signalling NaN as the simulator does; both sides held the same NaNs\n",
               __func__);
    free(out);
}
END_TEST

static Suite *compare_suite(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("rule");
    tcase_add_loop_test(tc, test_compare_element_match_follows_the_rule, 0, (int)ROW_COUNT);
    tcase_add_loop_test(tc, test_compare_expectation_agrees_with_element_match, 0, (int)ROW_COUNT);
    tcase_add_loop_test(tc, test_compare_next_mismatch_finds_what_element_match_rejects, 0, (int)ROW_COUNT);
    tcase_add_test(tc, test_compare_parsed_expectation_follows_the_rule);
    tcase_add_test(tc, test_compare_sorted_multisets_follow_the_rule);
    tcase_add_test(tc, test_compare_ulp_distance_only_between_finite_floats);
    suite_add_tcase(s, tc);
    TCase *cli = tcase_create("cli");
    tcase_set_timeout(cli, 120);
    tcase_add_test(cli, test_compare_cli_test_accepts_any_nan);
    suite_add_tcase(s, cli);
    TCase *dev = tsup_device_tcase("device");
    tcase_set_timeout(dev, 120);
    tcase_add_test(dev, test_compare_cli_check_accepts_any_nan);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    return tsup_run_suite(compare_suite(), "test_compare");
}
