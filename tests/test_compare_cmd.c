/*
 * tests/test_compare_cmd.c — `wavelab compare A.json B.json`: each side's
 * counts are those `wavelab run --dump` reports for it, the difference column
 * is B-A, the verdict names the side that executes fewer instructions on a
 * pair where that is known by hand, failed expectations are FAIL lines with
 * exit 1, bad input is one line with exit 2, and a wave size a case does not
 * allow is skipped with `wavelab test`'s note (exit 3 when none is left).
 */
#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/tsup.h"

#define HAS(out, s) ck_assert_msg(strstr(out, s) != NULL, "expected \"%s\" in:\n%s", s, out)

static const char *double_kernel =
    "#version 450\n"
    "layout(local_size_x = 4) in;\n"
    "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
    "void main() { v[gl_LocalInvocationIndex] *= 2u; }\n";

/* A: one workgroup doubles v once.  B: the same kernel over two workgroups doubles every element twice, so B
 * executes exactly twice A's wave instructions in every class (no control flow depends on the workgroup). */
static char *write_pair(void)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "double.comp", double_kernel));
    free(tsup_write_file(dir, "a.json",
                         "{\"kernel\": \"double.comp\", \"groups\": [1, 1, 1], \"bindings\": [{\"set\": 0, "
                         "\"binding\": 0, \"type\": \"u32\", \"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, "
                         "\"binding\": 0, \"data\": [2, 4, 6, 8]}]}"));
    free(tsup_write_file(dir, "b.json",
                         "{\"kernel\": \"double.comp\", \"groups\": [2, 1, 1], \"bindings\": [{\"set\": 0, "
                         "\"binding\": 0, \"type\": \"u32\", \"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, "
                         "\"binding\": 0, \"data\": [4, 8, 12, 16]}]}"));
    free(tsup_write_file(dir, "bad.json",
                         "{\"kernel\": \"double.comp\", \"groups\": [1, 1, 1], \"bindings\": [{\"set\": 0, "
                         "\"binding\": 0, \"type\": \"u32\", \"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, "
                         "\"binding\": 0, \"data\": [1, 2, 3, 4]}]}"));
    return dir;
}

/* stats.instructions.total of `wavelab run CASE --wave W --dump`. */
static double dumped_total(const char *dir, const char *name, int wave)
{
    char args[8192], *out = NULL, dump[4200];
    snprintf(dump, sizeof dump, "%s/%s.dump.json", dir, name);
    snprintf(args, sizeof args, "run '%s/%s' --wave %d --quiet --dump '%s'", dir, name, wave, dump);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out ? out : "");
    free(out);
    char *text = tsup_read_file(dump, NULL);
    ck_assert_ptr_nonnull(text);
    cJSON *j = cJSON_Parse(text);
    ck_assert_ptr_nonnull(j);
    cJSON *ins = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "stats"), "instructions");
    double total = cJSON_GetNumberValue(cJSON_GetObjectItem(ins, "total"));
    cJSON_Delete(j);
    free(text);
    return total;
}

/* The A, B and B-A columns of the row named `name` after the table of `wave N`. */
static void row_of(const char *out, int wave, const char *name, double *a, double *b, double *d)
{
    char head[64], key[96];
    snprintf(head, sizeof head, "\nwave %d", wave);
    const char *t = strstr(out, head);
    ck_assert_msg(t != NULL, "no table for wave %d in:\n%s", wave, out);
    snprintf(key, sizeof key, "\n  %s ", name);
    t = strstr(t, key);
    ck_assert_msg(t != NULL, "no row \"%s\" in:\n%s", name, out);
    ck_assert_int_eq(sscanf(t + strlen(key), "%lf %lf %lf", a, b, d), 3);
}

START_TEST(test_compare_counts_match_run_dump_and_difference_is_b_minus_a)
{
    char *dir = write_pair();
    char args[8192], *out = NULL;
    snprintf(args, sizeof args, "compare '%s/a.json' '%s/b.json' --waves 4,8", dir, dir);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out ? out : "");
    ck_assert_ptr_null(strstr(out, "FAIL"));
    int waves[2] = {4, 8};
    for (int k = 0; k < 2; k++) {
        double a, b, d;
        row_of(out, waves[k], "wave instructions", &a, &b, &d);
        ck_assert_double_eq(a, dumped_total(dir, "a.json", waves[k]));
        ck_assert_double_eq(b, dumped_total(dir, "b.json", waves[k]));
        ck_assert_double_eq(d, b - a);
        ck_assert_double_eq(b, 2 * a); /* two workgroups of the same straight-line kernel */
        char verdict[64];
        snprintf(verdict, sizeof verdict, "verdict (wave %d): A executes fewer wave instructions", waves[k]);
        HAS(out, verdict);
    }
    /* every line fits in 100 columns */
    for (const char *line = out; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        ck_assert_msg(len <= 100, "line of %zu columns: %.*s", len, (int)len, line);
        line = nl ? nl + 1 : line + len;
    }
    free(out);
    /* swapped, the verdict names B */
    snprintf(args, sizeof args, "compare '%s/b.json' '%s/a.json' --waves 4", dir, dir);
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out ? out : "");
    HAS(out, "verdict (wave 4): B executes fewer wave instructions");
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

START_TEST(test_compare_with_machine_shows_the_model_and_its_verdict)
{
    char *dir = write_pair();
    char args[8192], *out = NULL;
    snprintf(args, sizeof args, "compare '%s/a.json' '%s/b.json' --waves 32 --machine rdna2", dir, dir);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out ? out : "");
    HAS(out, "\n  occupancy (waves/SIMD) ");
    HAS(out, "\n  DRAM bytes read ");
    HAS(out, "\n  estimate (us) ");
    HAS(out, "\n  bound ");
    HAS(out, "verdict (wave 32): ");
    HAS(out, "  dominating difference: ");
    HAS(out, " cycles, A ");
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

START_TEST(test_compare_failed_expectation_is_a_fail_line_and_exit_1)
{
    char *dir = write_pair();
    char args[8192], *out = NULL;
    snprintf(args, sizeof args, "compare '%s/a.json' '%s/bad.json' --waves 4", dir, dir);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out ? out : "");
    HAS(out, "FAIL  B ");
    HAS(out, "bad.json (wave 4): expect set 0 binding 0");
    HAS(out, "verdict (wave 4): "); /* the table is still printed */
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

START_TEST(test_compare_bad_input_is_one_line_and_exit_2)
{
    char *dir = write_pair();
    char args[8192], *out = NULL;
    const char *bad[] = {"compare '%s/a.json'", "compare '%s/a.json' '%s/missing.json'",
                         "compare '%s/a.json' '%s/b.json' --waves 0", "compare '%s/a.json' '%s/b.json' --frob",
                         "compare '%s/a.json' '%s/b.json' --machine no_such_machine"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        snprintf(args, sizeof args, bad[k], dir, dir);
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == 2, "%s: exit %d:\n%s", args, rc, out ? out : "");
        ck_assert_msg(strlen(out) > 0 && strchr(out, '\n') == out + strlen(out) - 1, "%s: not one line:\n%s", args,
                      out);
        free(out);
    }
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* Each element gets gl_SubgroupSize: the expectation [16, 16, 16, 16] holds at wave 16 alone. */
static const char *wave_kernel =
    "#version 450\n"
    "#extension GL_KHR_shader_subgroup_basic : require\n"
    "layout(local_size_x = 4) in;\n"
    "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
    "void main() { v[gl_LocalInvocationIndex] = gl_SubgroupSize; }\n";

START_TEST(test_compare_skips_a_wave_size_a_case_does_not_allow)
{
    char *dir = write_pair();
    free(tsup_write_file(dir, "wave.comp", wave_kernel));
    free(tsup_write_file(dir, "only16.json",
                         "{\"kernel\": \"wave.comp\", \"subgroup_size\": 16, \"bindings\": [{\"set\": 0, "
                         "\"binding\": 0, \"type\": \"u32\", \"count\": 4}], \"expect\": [{\"set\": 0, "
                         "\"binding\": 0, \"data\": [16, 16, 16, 16]}]}"));
    free(tsup_write_file(dir, "upto8.json",
                         "{\"kernel\": \"double.comp\", \"max_subgroup_size\": 8, \"bindings\": [{\"set\": 0, "
                         "\"binding\": 0, \"type\": \"u32\", \"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, "
                         "\"binding\": 0, \"data\": [2, 4, 6, 8]}]}"));
    char args[8192], *out = NULL;
    /* wave 8 is not B's: skipped with `wavelab test`'s note (docs/case-format.md), never run there; wave 16 is
     * compared and B's expectation holds */
    snprintf(args, sizeof args, "compare '%s/a.json' '%s/only16.json' --waves 8,16", dir, dir);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out ? out : "");
    HAS(out, "SKIP  B ");
    HAS(out, "only16.json (wave 8): the case runs only at wave 16 (subgroup_size)");
    HAS(out, "verdict (wave 16): ");
    ck_assert_msg(!strstr(out, "\nwave 8") && !strstr(out, "verdict (wave 8)") && !strstr(out, "FAIL"),
                  "wave 8 was compared:\n%s", out);
    free(out);
    /* A's limit counts the same way; the default wave size is A's (32 here), which A does not allow */
    snprintf(args, sizeof args, "compare '%s/upto8.json' '%s/a.json' --waves 32,8", dir, dir);
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out ? out : "");
    HAS(out, "upto8.json (wave 32): the expectations hold up to wave 8 (max_subgroup_size)");
    HAS(out, "verdict (wave 8): ");
    ck_assert_msg(!strstr(out, "verdict (wave 32)"), "wave 32 was compared:\n%s", out);
    free(out);
    /* nothing compared at all: exit 3, no table */
    snprintf(args, sizeof args, "compare '%s/a.json' '%s/only16.json' --waves 8", dir, dir);
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 3, "exit %d:\n%s", rc, out ? out : "");
    HAS(out, "only16.json (wave 8): the case runs only at wave 16 (subgroup_size)");
    ck_assert_msg(!strstr(out, "verdict"), "a table without a comparison:\n%s", out);
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

static Suite *compare_cmd_suite(void)
{
    Suite *s = suite_create("compare_cmd");
    TCase *t = tcase_create("compare");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_compare_counts_match_run_dump_and_difference_is_b_minus_a);
    tcase_add_test(t, test_compare_with_machine_shows_the_model_and_its_verdict);
    tcase_add_test(t, test_compare_failed_expectation_is_a_fail_line_and_exit_1);
    tcase_add_test(t, test_compare_bad_input_is_one_line_and_exit_2);
    tcase_add_test(t, test_compare_skips_a_wave_size_a_case_does_not_allow);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return tsup_run_suite(compare_cmd_suite(), "test_compare_cmd"); }
