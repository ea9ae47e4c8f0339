/*
 * tests/test_trace.c — `wavelab trace`: the step trace of one wave, checked
 * against references the test computes itself from a case's input data.
 *
 * The centre piece is article 003's scalarization loop
 * (kernels/003_wave_tricks/scalarization_scalarized.comp): each iteration
 * broadcasts the light type of the first lane still waiting, and exactly the
 * lanes with that type are served and leave.  The reference walks the light
 * types of the traced wave's lanes the same way, in plain C, and the trace
 * must show the same keys, the same served lanes and the same waiting lanes,
 * iteration by iteration.
 *
 * Also the progress line of long dispatches (cli/progress.c): shown on a
 * terminal, never with --quiet or when stderr is captured.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "tests/support/tsup.h"

#define SCALAR_CASE "kernels/003_wave_tricks/scalarization_scalarized.json"
#define SCALAR_SOURCE "kernels/003_wave_tricks/scalarization_scalarized.comp"

static char *slurp(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", tsup_root(), rel);
    return tsup_read_file(path, NULL);
}

/* Runs `wavelab ARGS` from the repository root and checks the exit code. */
static char *cli(int want_rc, const char *args)
{
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == want_rc, "wavelab %s: exit %d, expected %d; output:\n%s", args, rc, want_rc,
                  out ? out : "");
    ck_assert_ptr_nonnull(out);
    return out;
}

/* The light type of every invocation: element 2*i of the case's binding 0 (struct { type, param }). */
static unsigned *light_types(size_t *count)
{
    char *text = slurp(SCALAR_CASE);
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    cJSON *b0 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "bindings"), 0);
    cJSON *data = cJSON_GetObjectItem(b0, "data");
    ck_assert_int_eq(cJSON_GetObjectItem(b0, "binding")->valueint, 0);
    int n = cJSON_GetArraySize(data) / 2;
    unsigned *t = malloc((size_t)n * sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = (unsigned)cJSON_GetArrayItem(data, 2 * i)->valuedouble;
    *count = (size_t)n;
    cJSON_Delete(root);
    free(text);
    return t;
}

static void picture(unsigned long long mask, unsigned w, char *buf)
{
    for (unsigned l = 0; l < w; l++)
        buf[l] = (mask >> l) & 1 ? '#' : '.';
    buf[w] = 0;
}

/* Traces wave `k` of workgroup `g` at wave size `w` and compares the loop with the reference;
 * returns the number of keys the reference served. */
static int check_scalarization(unsigned w, unsigned g, unsigned k)
{
    size_t n = 0;
    unsigned *types = light_types(&n);
    char *source = slurp(SCALAR_SOURCE);
    int key_line = tsup_line_of(source, "uint currentLightType = subgroupBroadcastFirst(lightType);");
    int serve_line = tsup_line_of(source, "if (lightType == currentLightType)");
    ck_assert_int_gt(key_line, 0);
    ck_assert_int_gt(serve_line, 0);

    /* reference: the keys in the order the loop serves them, and the lanes of each */
    unsigned keys[64];
    unsigned long long served[64], waiting[64];
    int iterations = 0;
    unsigned long long remaining = w == 64 ? ~0ull : (1ull << w) - 1;
    while (remaining) {
        int first = __builtin_ctzll(remaining);
        size_t inv = (size_t)g * 64 + (size_t)k * w + (size_t)first;
        ck_assert_uint_lt(inv, n);
        unsigned key = types[inv];
        unsigned long long s = 0;
        for (unsigned l = 0; l < w; l++)
            if ((remaining >> l) & 1 && types[(size_t)g * 64 + (size_t)k * w + l] == key)
                s |= 1ull << l;
        waiting[iterations] = remaining;
        keys[iterations] = key;
        served[iterations++] = s;
        remaining &= ~s;
    }

    char args[1024];
    snprintf(args, sizeof args, "trace '%s/%s' --wave %u --workgroup %u,0,0 --wave-index %u --json --limit 100000",
             tsup_root(), SCALAR_CASE, w, g, k);
    char *out = cli(0, args);
    cJSON *root = cJSON_Parse(out);
    ck_assert_msg(root != NULL, "trace output is not JSON:\n%.2000s", out);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(root, "truncated")));
    ck_assert_int_eq(cJSON_GetObjectItem(root, "wave_size")->valueint, (int)w);
    cJSON *steps = cJSON_GetObjectItem(root, "steps");
    ck_assert_int_eq(cJSON_GetArraySize(steps), cJSON_GetObjectItem(root, "executed")->valueint);

    int got_keys = 0, got_served = 0, loops_again = 0, loops_done = 0, last_iteration = 1;
    cJSON *st;
    cJSON_ArrayForEach(st, steps) {
        const char *op = cJSON_GetObjectItem(st, "op")->valuestring;
        int line = cJSON_GetObjectItem(st, "line")->valueint;
        const char *exec = cJSON_GetObjectItem(st, "exec")->valuestring;
        char want[65];
        if (line == key_line && strcmp(op, "bcast_first") == 0) {
            ck_assert_int_lt(got_keys, iterations);
            /* the lanes still waiting run the broadcast, and every one of them gets the first one's key */
            picture(waiting[got_keys], w, want);
            ck_assert_str_eq(exec, want);
            cJSON *vals = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "writes"), 0), "values");
            ck_assert_int_eq(cJSON_GetArraySize(vals), (int)w);
            for (unsigned l = 0; l < w; l++) {
                cJSON *v = cJSON_GetArrayItem(vals, (int)l);
                if ((waiting[got_keys] >> l) & 1)
                    ck_assert_uint_eq((unsigned)v->valuedouble, keys[got_keys]);
                else
                    ck_assert(cJSON_IsNull(v));
            }
            got_keys++;
        }
        if (line == serve_line && (strcmp(op, "branch") == 0 || strcmp(op, "branch_cmp") == 0 || strcmp(op, "branch_if") == 0)) {
            ck_assert_int_lt(got_served, iterations);
            cJSON *b = cJSON_GetObjectItem(st, "branch");
            picture(served[got_served], w, want);
            ck_assert_str_eq(cJSON_GetObjectItem(b, "taken")->valuestring, want);
            picture(waiting[got_served] & ~served[got_served], w, want);
            ck_assert_str_eq(cJSON_GetObjectItem(b, "not_taken")->valuestring, want);
            got_served++;
        }
        if (strcmp(op, "loop") == 0 || strcmp(op, "jump") == 0) { /* jump: a back edge (isa/lean.c) */
            cJSON *l = cJSON_GetObjectItem(st, "loop");
            if (cJSON_IsTrue(cJSON_GetObjectItem(l, "again"))) {
                loops_again++;
                ck_assert_int_eq(cJSON_GetObjectItem(l, "iteration")->valueint, last_iteration + 1);
                last_iteration++;
            } else {
                loops_done++;
            }
        }
    }
    ck_assert_int_eq(got_keys, iterations);
    ck_assert_int_eq(got_served, iterations);
    /* one iteration per key: the loop goes round again after every key but the last */
    ck_assert_int_eq(loops_again, iterations - 1);
    ck_assert_int_eq(loops_done, 1);
    cJSON_Delete(root);
    free(out);
    free(source);
    free(types);
    return iterations;
}

START_TEST(test_trace_scalarization_serves_one_key_per_iteration_wave16)
{
    int keys = 0;
    for (unsigned g = 0; g < 8; g++)
        keys += check_scalarization(16, g, g % 4);
    ck_assert_int_gt(keys, 8); /* some waves hold several light types: the loop really iterates */
}
END_TEST

START_TEST(test_trace_scalarization_serves_one_key_per_iteration_wave8_32_64)
{
    check_scalarization(8, 6, 7);
    check_scalarization(32, 7, 1);
    ck_assert_int_ge(check_scalarization(64, 5, 0), 2);
}
END_TEST

/* The text's loop separators count iterations as the JSON does: the k-th one says iteration k + 1, one per key
 * served but the last (the reference above says how many keys the wave holds). */
START_TEST(test_trace_text_loop_separators_count_iterations)
{
    unsigned g = 0;
    int iterations = 0;
    for (; g < 8 && iterations < 3; g++)
        iterations = check_scalarization(16, g, g % 4);
    ck_assert_int_ge(iterations, 3);
    g--;
    char args[1024];
    snprintf(args, sizeof args, "trace '%s/%s' --wave 16 --workgroup %u,0,0 --wave-index %u --limit 100000",
             tsup_root(), SCALAR_CASE, g, g % 4);
    char *out = cli(0, args);
    int seen = 0;
    for (const char *p = out; (p = strstr(p, "---- loop (pc ")) != NULL; seen++) {
        const char *it = strstr(p, ") iteration ");
        ck_assert_ptr_nonnull(it);
        ck_assert_msg(atoi(it + strlen(") iteration ")) == seen + 2, "separator %d: %.60s", seen, p);
        p = it;
    }
    ck_assert_int_eq(seen, iterations - 1);
    free(out);
}
END_TEST

START_TEST(test_trace_limit_bounds_output_with_note)
{
    char args[1024];
    snprintf(args, sizeof args, "trace '%s/%s' --wave 16 --workgroup 5,0,0 --json --limit 7", tsup_root(),
             SCALAR_CASE);
    char *out = cli(0, args);
    cJSON *root = cJSON_Parse(out);
    ck_assert_ptr_nonnull(root);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "steps")), 7);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(root, "truncated")));
    ck_assert_int_gt(cJSON_GetObjectItem(root, "executed")->valueint, 7);
    cJSON_Delete(root);
    free(out);
    snprintf(args, sizeof args, "trace '%s/%s' --wave 16 --limit 7", tsup_root(), SCALAR_CASE);
    out = cli(0, args);
    ck_assert_msg(strstr(out, "the trace stops here") != NULL, "%s", out);
    free(out);
}
END_TEST

START_TEST(test_trace_lines_range_shows_only_those_lines)
{
    char *source = slurp(SCALAR_SOURCE);
    int serve_line = tsup_line_of(source, "if (lightType == currentLightType)");
    char args[1024];
    snprintf(args, sizeof args, "trace '%s/%s' --wave 16 --workgroup 5,0,0 --json --lines %d-%d --limit 100000",
             tsup_root(), SCALAR_CASE, serve_line, serve_line);
    char *out = cli(0, args);
    cJSON *root = cJSON_Parse(out);
    ck_assert_ptr_nonnull(root);
    cJSON *st;
    int n = 0;
    cJSON_ArrayForEach(st, cJSON_GetObjectItem(root, "steps")) {
        ck_assert_int_eq(cJSON_GetObjectItem(st, "line")->valueint, serve_line);
        n++;
    }
    ck_assert_int_gt(n, 0);
    ck_assert_int_lt(n, cJSON_GetObjectItem(root, "executed")->valueint);
    cJSON_Delete(root);
    free(out);
    free(source);
}
END_TEST

START_TEST(test_trace_bad_wave_index_or_workgroup_exit_2)
{
    char args[1024];
    snprintf(args, sizeof args, "trace '%s/%s' --wave 16 --wave-index 4", tsup_root(), SCALAR_CASE);
    char *out = cli(2, args);
    ck_assert_msg(strstr(out, "has 4 waves of 16") != NULL, "%s", out);
    free(out);
    snprintf(args, sizeof args, "trace '%s/%s' --workgroup 8,0,0", tsup_root(), SCALAR_CASE);
    out = cli(2, args);
    ck_assert_msg(strstr(out, "8 x 1 x 1") != NULL, "%s", out);
    free(out);
    snprintf(args, sizeof args, "trace '%s/%s' --lines 9-3", tsup_root(), SCALAR_CASE);
    free(cli(2, args));
}
END_TEST

/* ------------------------------------------------------------ the progress line */

/* Runs `wavelab ARGS` on a pseudo-terminal (util-linux `script`, essential in Debian) with the progress
 * line's one-second wait turned off; returns everything the terminal got. */
static char *run_on_terminal(const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "WAVELAB_PROGRESS_AFTER=0 script -qfec \"'%s' %s\" /dev/null 2>&1", tsup_bin(), args);
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = 0;
    int status = pclose(f);
    ck_assert_msg(status == 0, "%s: status %d\n%s", cmd, status, buf);
    return buf;
}

START_TEST(test_progress_terminal_shows_workgroups_done_of_total)
{
    char args[4096];
    /* the case dispatches 8 x 1 x 1 workgroups */
    snprintf(args, sizeof args, "run '%s/%s' --threads 1", tsup_root(), SCALAR_CASE);
    char *out = run_on_terminal(args);
    ck_assert_msg(strstr(out, "workgroups 2 of 8 (25%)") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "per second") && strstr(out, "left"), "%s", out);
    free(out);
}
END_TEST

START_TEST(test_progress_quiet_or_not_a_terminal_shows_nothing)
{
    char args[4096];
    snprintf(args, sizeof args, "run '%s/%s' --threads 1 --quiet", tsup_root(), SCALAR_CASE);
    char *out = run_on_terminal(args);
    ck_assert_msg(strstr(out, " of 8 (") == NULL, "%s", out);
    free(out);
    /* captured output (a pipe) never gets the line, even with the wait turned off */
    setenv("WAVELAB_PROGRESS_AFTER", "0", 1);
    snprintf(args, sizeof args, "run '%s/%s' --threads 2", tsup_root(), SCALAR_CASE);
    out = cli(0, args);
    ck_assert_msg(strstr(out, " of 8 (") == NULL, "%s", out);
    free(out);
    unsetenv("WAVELAB_PROGRESS_AFTER");
}
END_TEST

static Suite *trace_suite(void)
{
    Suite *s = suite_create("trace");
    TCase *t = tcase_create("trace");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_trace_scalarization_serves_one_key_per_iteration_wave16);
    tcase_add_test(t, test_trace_scalarization_serves_one_key_per_iteration_wave8_32_64);
    tcase_add_test(t, test_trace_text_loop_separators_count_iterations);
    tcase_add_test(t, test_trace_limit_bounds_output_with_note);
    tcase_add_test(t, test_trace_lines_range_shows_only_those_lines);
    tcase_add_test(t, test_trace_bad_wave_index_or_workgroup_exit_2);
    suite_add_tcase(s, t);
    TCase *p = tcase_create("progress");
    tcase_set_timeout(p, 300);
    tcase_add_test(p, test_progress_terminal_shows_workgroups_done_of_total);
    tcase_add_test(p, test_progress_quiet_or_not_a_terminal_shows_nothing);
    suite_add_tcase(s, p);
    return s;
}

int main(void) { return tsup_run_suite(trace_suite(), "test_trace"); }
