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

#include <cjson/cJSON.h>

#include "case/case.h"
#include "run/run.h"
#include "tests/support/tsup.h"

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


/* A fault in the second of three passes stops the run there: the output names pass 1, two passes ran, and the
 * third (which would add 1 again) did not. */
START_TEST(test_profile_fault_in_a_pass_stops_and_names_it)
{
    char *dir = tsup_temp_dir();
    free(tsup_write_file(dir, "add.comp", "#version 450\nlayout(local_size_x = 4) in;\n"
                                          "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
                                          "void main() { v[gl_GlobalInvocationID.x] += 1u; }\n"));
    free(tsup_write_file(dir, "oob.comp", "#version 450\nlayout(local_size_x = 4) in;\n"
                                          "layout(set = 0, binding = 0) buffer B { uint v[4]; };\n"
                                          "void main() { v[gl_GlobalInvocationID.x * 1000u + 1000u] = 7u; }\n"));
    char *path = tsup_write_file(dir, "c.json", "{\"dispatches\": [{\"kernel\": \"add.comp\"}, {\"kernel\": "
                                 "\"oob.comp\"}, {\"kernel\": \"add.comp\"}], \"bindings\": [{\"binding\": 0, "
                                 "\"type\": \"u32\", \"data\": [5, 6, 7, 8]}]}");
    wl_case *c = load(path);
    run_output out;
    char err[1024];
    ck_assert_int_eq(run_case_sim(c, NULL, &out, err, sizeof err), RUN_EXIT_FAIL);
    ck_assert_int_eq(out.pass, 1);
    ck_assert_int_eq(out.pass_count, 2);
    run_output_free(&out);
    case_destroy(c);
    /* trace follows the first pass alone (a step hook follows one program) and does not reach the fault */
    char args[4096], *text = NULL;
    snprintf(args, sizeof args, "trace '%s' --wave 4", path);
    ck_assert_int_eq(tsup_run_cli(args, &text), 0);
    free(text);
    free(path);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* The profile of article 001's pipeline on the first Vulkan device (lavapipe in CI): 4 runs of 3 passes are 12
 * complete events named after the passes, in the case's order, never overlapping (the passes are ordered by
 * barriers and the runs by fences), all on one queue row with a thread name; the clock starts at the first pass. */
START_TEST(test_profile_vulkan_trace_has_one_event_per_pass_and_run_in_order)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char args[4096], *out = NULL, path[4096];
    snprintf(args, sizeof args, "profile '%s/kernels/001_compaction/pipeline.json' --repeat 4 --trace '%s/p.json' "
             "--svg '%s/p.svg'", tsup_root(), dir, dir);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "3 passes x 4 runs"));
    snprintf(path, sizeof path, "%s/p.json", dir);
    char *text = tsup_read_file(path, NULL);
    cJSON *root = cJSON_Parse(text);
    ck_assert_msg(root != NULL, "the trace is not JSON");
    cJSON *events = cJSON_GetObjectItem(root, "traceEvents");
    ck_assert(cJSON_IsArray(events));
    static const char *const names[3] = {"cull", "compact", "consume"};
    int x = 0, process_named = 0, thread_named[8] = {0};
    double last_end = -1;
    cJSON *e;
    cJSON_ArrayForEach(e, events) {
        const char *ph = cJSON_GetObjectItem(e, "ph")->valuestring;
        int tid = cJSON_GetObjectItem(e, "tid")->valueint;
        ck_assert_int_ge(tid, 0);
        ck_assert_int_lt(tid, 8);
        if (strcmp(ph, "M") == 0) {
            const char *name = cJSON_GetObjectItem(e, "name")->valuestring;
            cJSON *a = cJSON_GetObjectItem(e, "args");
            if (strcmp(name, "process_name") == 0)
                process_named = cJSON_IsString(cJSON_GetObjectItem(a, "name"));
            if (strcmp(name, "thread_name") == 0)
                thread_named[tid] = cJSON_IsString(cJSON_GetObjectItem(a, "name"));
            continue;
        }
        ck_assert_str_eq(ph, "X");
        ck_assert_str_eq(cJSON_GetObjectItem(e, "name")->valuestring, names[x % 3]);
        ck_assert_str_eq(cJSON_GetObjectItem(e, "cat")->valuestring, "pass");
        double ts = cJSON_GetObjectItem(e, "ts")->valuedouble, dur = cJSON_GetObjectItem(e, "dur")->valuedouble;
        if (x == 0)
            ck_assert(ts == 0.0);
        ck_assert_msg(dur > 0, "event %d lasts %g us", x, dur);
        ck_assert_msg(ts >= last_end, "event %d starts at %g us, before the previous one ended (%g)", x, ts,
                      last_end);
        last_end = ts + dur;
        ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "row")->valueint, 0);
        ck_assert_int_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "track")->valueint, 0);
        ck_assert(thread_named[tid]);
        x++;
    }
    ck_assert(process_named);
    ck_assert_int_eq(x, 12);
    cJSON_Delete(root);
    free(text);
    snprintf(path, sizeof path, "%s/p.svg", dir);
    char *svg = tsup_read_file(path, NULL);
    ck_assert_ptr_nonnull(strstr(svg, "<svg"));
    ck_assert_ptr_nonnull(strstr(svg, "durations: 12 intervals"));
    free(svg);
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* run --backend vulkan --dump of the pipeline: "timing"."passes" holds the three passes by name, each run's
 * begin before its end, and each pass beginning after the previous one ended (a barrier orders them). */
START_TEST(test_profile_vulkan_dump_has_each_pass_in_order)
{
    char *dir = tsup_temp_dir();
    char args[8192], *out = NULL, path[2048];
    snprintf(path, sizeof path, "%s/d.json", dir);
    snprintf(args, sizeof args, "run '%s/kernels/001_compaction/pipeline.json' --backend vulkan --repeat 3 --quiet "
             "--dump '%s'", tsup_root(), path);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "%s", out);
    char *text = tsup_read_file(path, NULL);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    cJSON *passes = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "timing"), "passes");
    ck_assert_int_eq(cJSON_GetArraySize(passes), 3);
    static const char *const names[3] = {"cull", "compact", "consume"};
    for (int k = 0; k < 3; k++) { /* run k */
        double prev_end = -1;
        for (int p = 0; p < 3; p++) {
            cJSON *pass = cJSON_GetArrayItem(passes, p);
            ck_assert_str_eq(cJSON_GetObjectItem(pass, "name")->valuestring, names[p]);
            ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(pass, "begin")), 3);
            double b = cJSON_GetArrayItem(cJSON_GetObjectItem(pass, "begin"), k)->valuedouble;
            double e = cJSON_GetArrayItem(cJSON_GetObjectItem(pass, "end"), k)->valuedouble;
            ck_assert_msg(b < e, "run %d pass %d: begins at %g, ends at %g", k, p, b, e);
            ck_assert_msg(b >= prev_end, "run %d pass %d begins at %g before the previous pass ended (%g)", k,
                          p, b, prev_end);
            prev_end = e;
        }
    }
    cJSON_Delete(root);
    free(text);
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

START_TEST(test_profile_bad_arguments_exit_2)
{
    static const char *const bad[] = {"profile", "profile x.json --backend gpu", "profile x.json --repeat 0",
                                      "profile x.json --repeat 3x", "profile x.json --bogus"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *out = NULL;
        ck_assert_msg(tsup_run_cli(bad[i], &out) == 2, "%s: %s", bad[i], out);
        free(out);
    }
    char args[4096], *out = NULL;
    snprintf(args, sizeof args, "profile '%s/kernels/001_compaction/nosuch.json' --backend sim", tsup_root());
    ck_assert_int_eq(tsup_run_cli(args, &out), 2);
    free(out);
}
END_TEST

/* The simulator's profile: the model's estimate per pass laid end to end, so 2 runs of 3 passes are 6 events
 * back to back, each run as long as the one before (the model is deterministic). */
START_TEST(test_profile_sim_passes_lie_end_to_end)
{
    char *dir = tsup_temp_dir();
    char args[4096], *out = NULL, path[4096];
    snprintf(args, sizeof args, "profile '%s/kernels/001_compaction/pipeline.json' --backend sim --repeat 2 "
             "--trace '%s/s.json'", tsup_root(), dir);
    ck_assert_int_eq(tsup_run_cli(args, &out), 0);
    snprintf(path, sizeof path, "%s/s.json", dir);
    char *text = tsup_read_file(path, NULL);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    double ts[6], dur[6];
    int x = 0;
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, "traceEvents")) {
        if (strcmp(cJSON_GetObjectItem(e, "ph")->valuestring, "X") != 0)
            continue;
        ck_assert_int_lt(x, 6);
        ts[x] = cJSON_GetObjectItem(e, "ts")->valuedouble;
        dur[x] = cJSON_GetObjectItem(e, "dur")->valuedouble;
        x++;
    }
    ck_assert_int_eq(x, 6);
    ck_assert(ts[0] == 0.0);
    for (int k = 1; k < 6; k++)
        ck_assert_double_eq_tol(ts[k], ts[k - 1] + dur[k - 1], 1e-5);
    for (int k = 0; k < 3; k++)
        ck_assert_double_eq_tol(dur[k], dur[k + 3], 1e-9);
    cJSON_Delete(root);
    free(text);
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* A case whose passes bind the case's buffers by name at bindings of their own (the radix sort: 12 passes over 4
 * buffers) is profiled on the simulator as `wavelab run` runs it (it crashed: the profile gave each pass the
 * case's bindings with the pass's count).  One event per pass, named as the case names its passes, end to end;
 * the four scans add up the same 256 counts and take one estimate. */
START_TEST(test_profile_sim_passes_with_their_own_bindings)
{
    char *dir = tsup_temp_dir();
    char args[8192], *out = NULL, path[4096];
    snprintf(path, sizeof path, "%s/kernels/radix_sort/radix_sort.json", tsup_root());
    char *case_text = tsup_read_file(path, NULL);
    cJSON *kase = cJSON_Parse(case_text);
    ck_assert_ptr_nonnull(kase);
    cJSON *passes = cJSON_GetObjectItem(kase, "dispatches");
    int n = cJSON_GetArraySize(passes);
    ck_assert_int_eq(n, 12);
    snprintf(args, sizeof args, "profile '%s' --backend sim --repeat 1 --trace '%s/s.json'", path, dir);
    ck_assert_int_eq(tsup_run_cli(args, &out), 0);
    char trace[8192];
    snprintf(trace, sizeof trace, "%s/s.json", dir);
    char *text = tsup_read_file(trace, NULL);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    double ts[12], dur[12];
    int x = 0;
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, "traceEvents")) {
        if (strcmp(cJSON_GetObjectItem(e, "ph")->valuestring, "X") != 0)
            continue;
        ck_assert_int_lt(x, n);
        ck_assert_str_eq(cJSON_GetObjectItem(e, "name")->valuestring,
                         cJSON_GetObjectItem(cJSON_GetArrayItem(passes, x), "name")->valuestring);
        ts[x] = cJSON_GetObjectItem(e, "ts")->valuedouble;
        dur[x] = cJSON_GetObjectItem(e, "dur")->valuedouble;
        ck_assert(dur[x] > 0);
        x++;
    }
    ck_assert_int_eq(x, n);
    for (int k = 1; k < n; k++)
        ck_assert_double_eq_tol(ts[k], ts[k - 1] + dur[k - 1], 1e-5);
    for (int k = 4; k < n; k += 3) /* scan0 .. scan3 */
        ck_assert_double_eq_tol(dur[k], dur[1], 1e-9);
    cJSON_Delete(root);
    cJSON_Delete(kase);
    free(text);
    free(case_text);
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

static Suite *profile_suite(void)
{
    Suite *s = suite_create("profile");
    TCase *t = tcase_create("profile");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_profile_pipeline_passes_run_in_order_and_meet_expectations);
    tcase_add_test(t, test_profile_second_pass_sees_first_pass_writes);
    tcase_add_test(t, test_profile_fault_in_a_pass_stops_and_names_it);
    tcase_add_test(t, test_profile_bad_arguments_exit_2);
    tcase_add_test(t, test_profile_sim_passes_lie_end_to_end);
    tcase_add_test(t, test_profile_sim_passes_with_their_own_bindings);
    suite_add_tcase(s, t);
    TCase *dev = tsup_device_tcase("device");
    tcase_set_timeout(dev, 300);
    tcase_add_test(dev, test_profile_vulkan_trace_has_one_event_per_pass_and_run_in_order);
    tcase_add_test(dev, test_profile_vulkan_dump_has_each_pass_in_order);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    return tsup_run_suite(profile_suite(), "profile");
}
