/*
 * cli/cli.h — the `wavelab` command's subcommands.  main.c parses the
 * subcommand name and hands argc/argv (argv[0] = the subcommand) to one of
 * these.  Each returns the process exit code: 0 ok, 1 fault/failure/mismatch,
 * 2 bad input or usage (run/run.h).
 */
#ifndef WAVELAB_CLI_H
#define WAVELAB_CLI_H

#include <stdint.h>
#include <stdio.h>

int cli_cmd_run(int argc, char **argv);      /* cli/main.c: run a case on the simulator (or --backend vulkan) */
int cli_cmd_test(int argc, char **argv);     /* cli/main.c: run every case with an expect */
int cli_cmd_compile(int argc, char **argv);  /* cli/main.c */
int cli_cmd_disasm(int argc, char **argv);   /* cli/main.c */
int cli_cmd_bench(int argc, char **argv);    /* cli/bench.c */
int cli_cmd_machines(int argc, char **argv); /* cli/explain.c: list machine presets */
int cli_cmd_explain(int argc, char **argv);  /* cli/explain.c: LDS banks, L2 per workgroup, launch order */

/* cli/explain.c: loads machine preset `machine`, creates a memory model for
 * case c and puts it in opt->memory (and the machine's default wave size in
 * opt->wave_size when neither the option nor the case gives one).  Returns 0,
 * or prints the error and returns RUN_EXIT_BAD_INPUT.  Free with mem_model_destroy. */
struct run_options;
struct wl_case;
int cli_memory_open(const char *machine, int threads, const struct wl_case *c, struct run_options *opt);

/* cli/report_junit.c: `wavelab test --junit FILE` and `--tap`. */
typedef enum cli_test_outcome {
    CLI_TEST_PASS,
    CLI_TEST_FAIL,   /* a failed expectation, a kernel fault, or a known failure that passed */
    CLI_TEST_ERROR,  /* bad input: the case file, the kernel, the case against the kernel */
    CLI_TEST_XFAIL,  /* a known failure ("known_failure") that still fails */
    CLI_TEST_SKIP    /* the case has no "expect" */
} cli_test_outcome;

typedef struct cli_test_record {
    const char *path;          /* the case file */
    uint32_t wave;             /* the wave size run (the requested one when the run never started) */
    cli_test_outcome outcome;
    const char *message;       /* why it did not pass: one line per failed expectation; "" when it passed */
    double seconds;            /* host wall time of the case (reported as JUnit's time, nowhere else) */
} cli_test_record;

/* Writes JUnit XML for the records to f; returns 0, or -1 on a write error. */
int cli_report_junit(FILE *f, const cli_test_record *records, size_t count);
/* Writes TAP version 13 for the records to f, with a YAML message block after each failure. */
void cli_report_tap(FILE *f, const cli_test_record *records, size_t count);
/* One line per expectation of c that `data` (final bindings, c->bindings order) does not meet, "" when all
 * hold.  malloc'd (caller frees); NULL when out of memory. */
char *cli_expect_failures(const struct wl_case *c, uint8_t *const *data);

/* cli/vulkan.c (the Vulkan backend's commands) */
int cli_cmd_devices(int argc, char **argv);
int cli_cmd_check(int argc, char **argv);
/* `wavelab run CASE --backend vulkan ...`: argv as given to cli_cmd_run. */
int cli_cmd_run_vulkan(int argc, char **argv);

#endif
