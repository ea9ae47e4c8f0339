/*
 * tests/test_profile.c — cases of several passes ("dispatches") on the
 * simulator, and `wavelab profile` (the per-pass GPU timestamps drawn as
 * article 001's row-stacked picture): its Chrome trace JSON on lavapipe.
 * Expected values come from the case generator (tools/gen_kernel_cases.py,
 * which computes them from the kernels' definitions) or by hand here.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case/case.h"
#include "run/run.h"

static wl_case *load(const char *path)
{
    char err[1024];
    wl_case *c = NULL;
    ck_assert_msg(case_load(path, &c, err, sizeof err) == CASE_OK, "%s", err);
    return c;
}

START_TEST(test_profile_pipeline_passes_run_in_order_and_meet_expectations)
{
    wl_case *c = load("kernels/001_compaction/pipeline.json");
    run_output out;
    char err[1024];
    run_options opt = {.wave_size = 32};
    ck_assert_int_eq(run_case_sim(c, &opt, &out, err, sizeof err), RUN_EXIT_OK);
    ck_assert_int_eq(out.pass_count, 3);
    ck_assert_int_eq(out.pass, 2);
    ck_assert_ptr_nonnull(out.pass_stats);
    /* workgroups per pass from the case's groups: 600 elements by 128, 128 and 64 */
    ck_assert_uint_eq(out.pass_stats[0].workgroups, 5);
    ck_assert_uint_eq(out.pass_stats[1].workgroups, 5);
    ck_assert_uint_eq(out.pass_stats[2].workgroups, 10);
    ck_assert_uint_eq(out.result.stats.workgroups, 20);
    /* waves: 128-wide groups of 32 lanes are 4 waves, 64-wide are 2 */
    ck_assert_uint_eq(out.result.stats.waves, 5 * 4 + 5 * 4 + 10 * 2);
    /* final contents after the three passes: the generator's expectations (count, ids, flags, consumed, sum) */
    ck_assert_int_eq(run_check_expects(c, out.data, NULL), 0);
    run_output_free(&out);
    case_destroy(c);
}
END_TEST

/* Two passes on one buffer, by hand: the first adds 1 to every element, the second doubles it, so the result
 * is 2 * (x + 1), which no single pass computes; swapping the passes would give 2x + 1. */
START_TEST(test_profile_second_pass_sees_first_pass_writes)
{
    char dir[] = "/tmp/wavelab-profile-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    static const struct {
        const char *name, *text;
    } files[] = {
        {"add.comp", "#version 450\nlayout(local_size_x = 4) in;\n"
                     "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
                     "void main() { v[gl_GlobalInvocationID.x] += 1u; }\n"},
        {"dbl.comp", "#version 450\nlayout(local_size_x = 4) in;\n"
                     "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
                     "void main() { v[gl_GlobalInvocationID.x] *= 2u; }\n"},
        {"two.json", "{\"dispatches\": [{\"kernel\": \"add.comp\", \"groups\": [2]}, {\"kernel\": \"dbl.comp\", "
                     "\"groups\": [2]}], \"bindings\": [{\"binding\": 0, \"type\": \"u32\", "
                     "\"data\": [0, 1, 2, 3, 10, 20, 30, 40]}],"
                     "\"expect\": [{\"binding\": 0, \"data\": [2, 4, 6, 8, 22, 42, 62, 82]}]}"},
    };
    char path[256];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(files[i].text, f);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/two.json", dir);
    wl_case *c = load(path);
    run_output out;
    char err[1024];
    ck_assert_int_eq(run_case_sim(c, NULL, &out, err, sizeof err), RUN_EXIT_OK);
    static const uint32_t want[8] = {2, 4, 6, 8, 22, 42, 62, 82};
    ck_assert_mem_eq(out.data[0], want, sizeof want);
    ck_assert_int_eq(run_check_expects(c, out.data, NULL), 0);
    /* the case itself is untouched: a second run starts again from the initial contents */
    run_output again;
    ck_assert_int_eq(run_case_sim(c, NULL, &again, err, sizeof err), RUN_EXIT_OK);
    ck_assert_mem_eq(again.data[0], want, sizeof want);
    run_output_free(&again);
    run_output_free(&out);
    case_destroy(c);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        unlink(path);
    }
    rmdir(dir);
}
END_TEST

static Suite *profile_suite(void)
{
    Suite *s = suite_create("profile");
    TCase *t = tcase_create("profile");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_profile_pipeline_passes_run_in_order_and_meet_expectations);
    tcase_add_test(t, test_profile_second_pass_sees_first_pass_writes);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(profile_suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
