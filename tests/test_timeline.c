/*
 * tests/test_timeline.c — `wavelab timeline`: the Chrome/Perfetto trace of
 * the simulated schedule (which wave ran on which CU when) and its SVG.
 *
 * The trace must have the event structure Perfetto and chrome://tracing
 * load (metadata "M" events naming the process and every thread, complete
 * "X" events with ts/dur in microseconds), one X event per wave of the case,
 * the waves of a workgroup launched together, never two overlapping events
 * on one thread, and — article 001's greedy rule — as many rows on each CU as
 * the most waves that overlap there, computed here by a sweep over the
 * events themselves.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "tests/support/tsup.h"

typedef struct ev {
    double ts, dur;
    int tid, track, row;
} ev;

static int by_ts(const void *a, const void *b)
{
    const ev *x = a, *y = b;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Checks the trace's structure; returns the most rows any track used. */
static int check_trace(const char *path, int want_events)
{
    char *text = tsup_read_file(path, NULL);
    cJSON *root = cJSON_Parse(text);
    ck_assert_msg(root != NULL, "%s is not JSON", path);
    cJSON *events = cJSON_GetObjectItem(root, "traceEvents");
    ck_assert(cJSON_IsArray(events));
    int named[4096] = {0}, process_named = 0, n = 0;
    ev *xs = calloc((size_t)cJSON_GetArraySize(events), sizeof *xs);
    cJSON *e;
    cJSON_ArrayForEach(e, events) {
        const char *ph = cJSON_GetObjectItem(e, "ph")->valuestring;
        ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(e, "pid")));
        int tid = cJSON_GetObjectItem(e, "tid")->valueint;
        ck_assert_int_ge(tid, 0);
        ck_assert_int_lt(tid, 4096);
        if (strcmp(ph, "M") == 0) {
            const char *name = cJSON_GetObjectItem(e, "name")->valuestring;
            cJSON *args = cJSON_GetObjectItem(e, "args");
            if (strcmp(name, "process_name") == 0)
                process_named = cJSON_IsString(cJSON_GetObjectItem(args, "name"));
            if (strcmp(name, "thread_name") == 0)
                named[tid] = cJSON_IsString(cJSON_GetObjectItem(args, "name"));
            continue;
        }
        ck_assert_str_eq(ph, "X");
        ck_assert(cJSON_IsString(cJSON_GetObjectItem(e, "name")));
        ck_assert(cJSON_IsString(cJSON_GetObjectItem(e, "cat")));
        ev *x = &xs[n++];
        x->ts = cJSON_GetObjectItem(e, "ts")->valuedouble;
        x->dur = cJSON_GetObjectItem(e, "dur")->valuedouble;
        x->tid = tid;
        x->track = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "track")->valueint;
        x->row = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "row")->valueint;
        ck_assert(x->ts >= 0);
        ck_assert(x->dur > 0);
    }
    ck_assert(process_named);
    ck_assert_int_eq(n, want_events);
    qsort(xs, (size_t)n, sizeof *xs, by_ts);
    int most_rows = 0;
    for (int i = 0; i < n; i++) {
        ck_assert_msg(named[xs[i].tid], "thread %d has no thread_name", xs[i].tid);
        /* never two at once on one thread (row) */
        for (int j = i + 1; j < n && xs[j].ts < xs[i].ts + xs[i].dur - 1e-9; j++)
            ck_assert_msg(xs[j].tid != xs[i].tid, "events overlap on thread %d", xs[i].tid);
    }
    /* per track: rows used == the most events overlapping at one time (sweep over starts) */
    for (int t = 0; t < 4096; t++) {
        int rows = 0, overlap = 0, any = 0;
        for (int i = 0; i < n; i++) {
            if (xs[i].track != t)
                continue;
            any = 1;
            if (xs[i].row + 1 > rows)
                rows = xs[i].row + 1;
            int at = 0;
            for (int j = 0; j < n; j++)
                if (xs[j].track == t && xs[j].ts <= xs[i].ts + 1e-9 && xs[j].ts + xs[j].dur > xs[i].ts + 1e-9)
                    at++;
            if (at > overlap)
                overlap = at;
        }
        if (any)
            ck_assert_int_eq(rows, overlap);
        if (rows > most_rows)
            most_rows = rows;
    }
    free(xs);
    cJSON_Delete(root);
    free(text);
    return most_rows;
}

/* The waves of one workgroup launch together (one start), and each group has `waves` of them; with
 * `some_differ`, at least one group's waves end at different times. */
static void check_waves_of_groups(const char *path, int waves, int some_differ)
{
    char *text = tsup_read_file(path, NULL);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    cJSON *e, *events = cJSON_GetObjectItem(root, "traceEvents");
    int differ = 0, groups = 0;
    cJSON_ArrayForEach(e, events) {
        const char *name = cJSON_GetObjectItem(e, "name")->valuestring;
        if (strcmp(cJSON_GetObjectItem(e, "ph")->valuestring, "X") != 0 || !strstr(name, " wave 0"))
            continue;
        groups++;
        size_t prefix = (size_t)(strstr(name, " wave 0") - name);
        double ts = cJSON_GetObjectItem(e, "ts")->valuedouble, dur = cJSON_GetObjectItem(e, "dur")->valuedouble;
        int found = 0;
        cJSON *f;
        cJSON_ArrayForEach(f, events) {
            const char *other = cJSON_GetObjectItem(f, "name")->valuestring;
            if (strcmp(cJSON_GetObjectItem(f, "ph")->valuestring, "X") != 0 || strncmp(other, name, prefix) != 0 ||
                strncmp(other + prefix, " wave ", 6) != 0)
                continue;
            found++;
            ck_assert_double_eq_tol(cJSON_GetObjectItem(f, "ts")->valuedouble, ts, 1e-9);
            differ |= cJSON_GetObjectItem(f, "dur")->valuedouble != dur;
        }
        ck_assert_int_eq(found, waves);
    }
    ck_assert_int_gt(groups, 0);
    if (some_differ)
        ck_assert(differ);
    cJSON_Delete(root);
    free(text);
}

START_TEST(test_timeline_trace_has_one_event_per_wave_rows_fit_overlap)
{
    /* groups, and the two waves of 32 in each, do different amounts of memory work: several overlap on one CU
     * and they end at different times */
    static const char kernel[] =
        "#version 450\n"
        "layout(local_size_x = 64) in;\n"
        "layout(set = 0, binding = 0, std430) buffer Data { uint v[]; };\n"
        "void main() {\n"
        "    uint n = (gl_WorkGroupID.x + gl_LocalInvocationIndex / 32u) % 7u + 1u;\n"
        "    for (uint i = 0u; i < n; i++)\n"
        "        v[gl_GlobalInvocationID.x] += v[(gl_GlobalInvocationID.x + i * 64u) % 19200u];\n"
        "}\n";
    static const char case_json[] =
        "{\"kernel\": \"k.comp\", \"groups\": [300, 1, 1], \"bindings\": [\n"
        " {\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"count\": 19200, \"fill\": {\"iota\": {\"start\": 0, "
        "\"step\": 1}}}]}\n";
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "k.comp", kernel));
    char *case_path = tsup_write_file(dir, "c.json", case_json);
    char args[4096], *out = NULL;
    snprintf(args, sizeof args, "timeline '%s' --machine rdna2 --wave 32 --trace '%s/t.json' --svg '%s/t.svg'",
             case_path, dir, dir);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "%s", out);
    char path[4096];
    snprintf(path, sizeof path, "%s/t.json", dir);
    int rows = check_trace(path, 600); /* 300 workgroups of two waves */
    ck_assert_int_gt(rows, 2); /* 300 groups on 72 CUs: workgroups do share CUs */
    check_waves_of_groups(path, 2, 1);
    snprintf(path, sizeof path, "%s/t.svg", dir);
    char *svg = tsup_read_file(path, NULL);
    ck_assert_ptr_nonnull(strstr(svg, "<svg"));
    ck_assert_ptr_nonnull(strstr(svg, "durations: 600 intervals"));
    ck_assert_ptr_nonnull(strstr(svg, "</svg>"));
    free(svg);
    free(out);
    free(case_path);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

START_TEST(test_timeline_article_case_loads_on_lavapipe_preset)
{
    char *dir = tsup_temp_dir();
    char args[4096], *out = NULL;
    snprintf(args, sizeof args,
             "timeline '%s/kernels/004_swizzle/swizzle_row_major_168x24.json' --machine lavapipe --trace '%s/t.json'",
             tsup_root(), dir);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "%s", out);
    char path[4096];
    snprintf(path, sizeof path, "%s/t.json", dir);
    /* the case dispatches 21 x 3 workgroups of 8 x 8 invocations: 8 waves of 8 on lavapipe */
    check_trace(path, 21 * 3 * 8);
    check_waves_of_groups(path, 8, 0);
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

START_TEST(test_timeline_bad_arguments_exit_2)
{
    char *out = NULL;
    ck_assert_int_eq(tsup_run_cli("timeline", &out), 2);
    free(out);
    char args[4096];
    snprintf(args, sizeof args, "timeline '%s/kernels/004_swizzle/swizzle_row_major_168x24.json' --machine nosuch",
             tsup_root());
    ck_assert_int_eq(tsup_run_cli(args, &out), 2);
    free(out);
}
END_TEST

static Suite *timeline_suite(void)
{
    Suite *s = suite_create("timeline");
    TCase *t = tcase_create("timeline");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_timeline_trace_has_one_event_per_wave_rows_fit_overlap);
    tcase_add_test(t, test_timeline_article_case_loads_on_lavapipe_preset);
    tcase_add_test(t, test_timeline_bad_arguments_exit_2);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return tsup_run_suite(timeline_suite(), "test_timeline"); }
