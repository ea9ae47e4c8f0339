/*
 * tests/test_options.c — the command line as one table (cli/options.def): every command parses its arguments
 * the same way, refuses a bad value or an unknown option with one line (exit 2), takes every simulator option
 * when it runs the simulator and honours it, and prints its own --help.
 *
 * The expected lines are written here from the rules (docs/cli.md), not copied from wavelab's output.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/tsup.h"

/* Every command of `wavelab`, and whether it takes --wave (the ones that lower or run a kernel). */
static const struct {
    const char *name;
    const char *args; /* enough positional arguments to get past them */
    int takes_wave;
    int runs_simulator; /* on a case: takes --robust, --budget, --machine (and --threads but trace) */
} commands[] = {
    {"run", "C", 1, 1},        {"test", "C", 1, 1},     {"check", "C", 1, 1},   {"compile", "C", 0, 0},
    {"disasm", "C", 1, 0},     {"explain", "C", 1, 1},  {"trace", "C", 1, 1},   {"timeline", "C", 1, 1},
    {"profile", "C", 1, 1},    {"report", "C", 1, 1},   {"bench", "", 1, 0},    {"compare", "C C", 1, 1},
    {"probe", "", 0, 0},       {"devices", "", 0, 0},   {"isa", "", 0, 0},      {"machines", "", 0, 0},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static char *case_path(void)
{
    static char path[4200];
    snprintf(path, sizeof path, "'%s/tests/errors/oob_read.json'", tsup_root());
    return path;
}

/* Runs `wavelab CMD ARGS... extra` with C replaced by the fault case; returns the exit code and the output. */
static int run_cmd(size_t k, const char *extra, char **out)
{
    char args[8192] = "", *p = args;
    p += snprintf(p, sizeof args, "%s", commands[k].name);
    for (const char *a = commands[k].args; *a; a++)
        if (*a == 'C')
            p += snprintf(p, sizeof args - (size_t)(p - args), " %s", case_path());
    snprintf(p, sizeof args - (size_t)(p - args), " %s", extra);
    return tsup_run_cli(args, out);
}

static int one_line(const char *s) { return s && strchr(s, '\n') == s + strlen(s) - 1; }

/* --wave abc, 12 (not a power of two), -8, 0, 256 (above 128) and 2 (below 4): the same line from every command
 * that takes --wave; disasm and explain used to take them silently. */
START_TEST(test_options_bad_wave_is_one_line_from_every_command)
{
    static const char *const bad[] = {"abc", "12", "-8", "0", "256", "2", "32x", ""};
    for (size_t k = 0; k < NCOMMANDS; k++)
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            char extra[64], want[256], *out = NULL;
            snprintf(extra, sizeof extra, "--wave '%s'", bad[b]);
            int rc = run_cmd(k, extra, &out);
            if (commands[k].takes_wave)
                snprintf(want, sizeof want, "wavelab %s: --wave %s: not a wave size (a power of two from 4 to 128)\n",
                         commands[k].name, bad[b]);
            else
                snprintf(want, sizeof want, "wavelab %s: unknown option --wave (", commands[k].name);
            ck_assert_msg(rc == 2 && out && strncmp(out, want, strlen(want)) == 0 && one_line(out),
                          "%s --wave '%s': exit %d:\n%s", commands[k].name, bad[b], rc, out ? out : "");
            free(out);
        }
}
END_TEST

/* --wave=N is the same option as --wave N; 4 and 128 are wave sizes. */
START_TEST(test_options_wave_bounds_and_equals_form)
{
    static const struct {
        const char *option, *line;
    } forms[] = {{"--wave 4", "  wave size    4: "}, {"--wave=4", "  wave size    4: "},
                 {"--wave 128", "  wave size    128: "}, {"--wave=128", "  wave size    128: "}};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        char args[4400], *out = NULL;
        snprintf(args, sizeof args, "run %s --robust %s", case_path(), forms[f].option);
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == 0 && out && strstr(out, forms[f].line), "%s: exit %d:\n%s", forms[f].option, rc,
                      out ? out : "");
        free(out);
    }
}
END_TEST

/* An option the command does not take: one line naming it and the command's options, exit 2. */
START_TEST(test_options_unknown_option_names_the_valid_ones)
{
    for (size_t k = 0; k < NCOMMANDS; k++) {
        char *out = NULL, want[128];
        int rc = run_cmd(k, "--frobnicate", &out);
        snprintf(want, sizeof want, "wavelab %s: unknown option --frobnicate (", commands[k].name);
        ck_assert_msg(rc == 2 && out && strncmp(out, want, strlen(want)) == 0 && one_line(out), "%s: exit %d:\n%s",
                      commands[k].name, rc, out ? out : "");
        free(out);
    }
    char *out = NULL;
    char args[4400];
    snprintf(args, sizeof args, "trace %s --frobnicate", case_path());
    ck_assert_int_eq(tsup_run_cli(args, &out), 2);
    /* trace's own options, --robust among them now, and not the options of other commands */
    ck_assert_msg(strstr(out, "(valid: --wave, ") && strstr(out, "--robust") && strstr(out, "--workgroup") &&
                      !strstr(out, "--dump") && !strstr(out, "--threads"), "%s", out);
    free(out);
    /* a value missing at the end of the line */
    snprintf(args, sizeof args, "explain %s --launch-order --budget", case_path());
    ck_assert_int_eq(tsup_run_cli(args, &out), 2);
    ck_assert_str_eq(out, "wavelab explain: --budget needs a value (N)\n");
    free(out);
}
END_TEST

/* The simulator's options are taken by every command that runs the simulator on a case, and honoured:
 * oob_read.json reads past its buffer (a fault, exit 1) unless --robust, and --budget 1 stops it. */
START_TEST(test_options_simulator_options_are_honoured_everywhere)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    for (size_t k = 0; k < NCOMMANDS; k++) {
        if (!commands[k].runs_simulator || strcmp(commands[k].name, "check") == 0 ||
            strcmp(commands[k].name, "test") == 0) /* check needs a device; test: below */
            continue;
        char mode[4400] = "";
        if (strcmp(commands[k].name, "explain") == 0)
            snprintf(mode, sizeof mode, "--launch-order");
        else if (strcmp(commands[k].name, "profile") == 0)
            snprintf(mode, sizeof mode, "--backend sim");
        else if (strcmp(commands[k].name, "report") == 0)
            snprintf(mode, sizeof mode, "-o '%s/r.html'", dir);
        static const struct {
            const char *options;
            int rc;
        } runs[] = {{"", 1}, {"--robust", 0}, {"--robust --budget 1", 1}, {"--robust --machine gcn_vega64", 0},
                    {"--robust --wave 8", 0}};
        for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
            char extra[4600], *out = NULL;
            snprintf(extra, sizeof extra, "%s %s", mode, runs[r].options);
            int rc = run_cmd(k, extra, &out);
            ck_assert_msg(rc == runs[r].rc, "%s %s: exit %d, expected %d:\n%s", commands[k].name, extra, rc,
                          runs[r].rc, out ? out : "");
            if (strstr(runs[r].options, "--budget") && strcmp(commands[k].name, "report") != 0)
                ck_assert_msg(strstr(out, "budget of 1 wave instruction"), "%s %s:\n%s", commands[k].name, extra,
                              out);
            free(out);
        }
    }
    /* test: the case's expectations hold at wave 64, the default of the gcn_vega64 preset; --budget 1 fails it */
    char args[4400], *out = NULL;
    snprintf(args, sizeof args, "test '%s/kernels/robust/robust_oob.json' --machine gcn_vega64", tsup_root());
    ck_assert_int_eq(tsup_run_cli(args, &out), 0);
    ck_assert_msg(strstr(out, "PASS  ") && strstr(out, "(wave 64)"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "test '%s/kernels/robust/robust_oob.json' --budget 1", tsup_root());
    ck_assert_int_eq(tsup_run_cli(args, &out), 1);
    ck_assert_msg(strstr(out, "FAIL  ") && strstr(out, "budget of 1 wave instruction"), "%s", out);
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* trace --optimize follows the optimized program: the kernel as written runs beside it without the step hook (it
 * was called from both runs, and the second run's steps read the first program's state: a crash, also for a case
 * with "optimize") */
START_TEST(test_options_trace_optimize_follows_one_program)
{
    char args[4400], *out = NULL;
    snprintf(args, sizeof args, "trace '%s/kernels/robust/robust_oob.json' --optimize", tsup_root());
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0 && out && strstr(out, " instructions executed by this wave, "), "exit %d:\n%s", rc,
                  out ? out : "");
    free(out);
}
END_TEST

/* `wavelab CMD --help` and `wavelab help CMD`: the command's synopsis, its options each on a line of its own
 * with what it does, the exit codes; the simulator's options on every command that runs it. */
START_TEST(test_options_help_is_per_command)
{
    for (size_t k = 0; k < NCOMMANDS; k++) {
        for (int form = 0; form < 2; form++) {
            char args[128], want[128], *out = NULL;
            snprintf(args, sizeof args, form ? "help %s" : "%s --help", commands[k].name);
            ck_assert_int_eq(tsup_run_cli(args, &out), 0);
            snprintf(want, sizeof want, "usage: wavelab %s", commands[k].name);
            ck_assert_msg(strncmp(out, want, strlen(want)) == 0 && strstr(out, "\nexit codes: 0 ok"), "%s:\n%s",
                          args, out);
            ck_assert_msg(!!strstr(out, "\n  --wave N ") == commands[k].takes_wave, "%s:\n%s", args, out);
            if (commands[k].runs_simulator) {
                static const char *const sim[] = {"\n  --robust ", "\n  --budget N ", "\n  --machine NAME|FILE "};
                for (size_t s = 0; s < sizeof sim / sizeof sim[0]; s++)
                    ck_assert_msg(strstr(out, sim[s]), "%s lacks %s:\n%s", args, sim[s] + 1, out);
                ck_assert_msg(!!strstr(out, "\n  --threads N ") == (strcmp(commands[k].name, "trace") != 0),
                              "%s:\n%s", args, out);
            }
            free(out);
        }
    }
}
END_TEST

/* check (on the device) and report --backend vulkan: the simulator's side honours --robust and --budget too; lavapipe
 * runs wave 8 (a device run at another size is skipped, exit 3, before anything is compared). */
START_TEST(test_options_check_and_report_honour_simulator_options)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    static const struct {
        const char *command, *options;
        int rc;
        const char *has;
    } runs[] = {
        {"check", "--wave 8 --robust", 0, "AGREE: "},
        {"check", "--wave 8 --robust --budget 1", 1, "budget of 1 wave instruction"},
        {"report", "--wave 8 --robust --backend vulkan -o", 0, NULL},
        {"report", "--wave 8 --backend vulkan -o", 1, NULL},
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        char args[8800], *out = NULL;
        int report = strcmp(runs[r].command, "report") == 0;
        snprintf(args, sizeof args, "%s %s %s%s%s%s", runs[r].command, case_path(), runs[r].options,
                 report ? " '" : "", report ? dir : "", report ? "/r.html'" : "");
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == runs[r].rc && (!runs[r].has || strstr(out, runs[r].has)), "%s: exit %d:\n%s", args, rc,
                      out ? out : "");
        free(out);
        if (report) { /* the device section: check ran with the report's --robust */
            char path[4200];
            snprintf(path, sizeof path, "%s/r.html", dir);
            char *html = tsup_read_file(path, NULL);
            ck_assert_ptr_nonnull(html);
            const char *want = runs[r].rc == 0 ? "wavelab check: exit 0 (the device agrees)" : "wavelab check: exit 1";
            ck_assert_msg(strstr(html, want), "%s: no \"%s\" in the report", args, want);
            free(html);
        }
    }
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

static Suite *options_suite(void)
{
    Suite *s = suite_create("options");
    TCase *t = tcase_create("parse");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_options_bad_wave_is_one_line_from_every_command);
    tcase_add_test(t, test_options_wave_bounds_and_equals_form);
    tcase_add_test(t, test_options_unknown_option_names_the_valid_ones);
    tcase_add_test(t, test_options_simulator_options_are_honoured_everywhere);
    tcase_add_test(t, test_options_help_is_per_command);
    tcase_add_test(t, test_options_trace_optimize_follows_one_program);
    suite_add_tcase(s, t);
    TCase *dev = tsup_device_tcase("device");
    tcase_set_timeout(dev, 300);
    tcase_add_test(dev, test_options_check_and_report_honour_simulator_options);
    suite_add_tcase(s, dev);
    return s;
}

int main(void) { return tsup_run_suite(options_suite(), "test_options"); }
