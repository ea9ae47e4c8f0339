/*
 * cli/cli.h — the `wavelab` command's subcommands.  main.c parses the
 * subcommand name and hands argc/argv (argv[0] = the subcommand) to one of
 * these, which parses them with cli_parse (cli/options.h) against the table cli/options.def.  Each returns the process exit code: 0 ok, 1 fault/failure/mismatch,
 * 2 bad input or usage (run/run.h).
 */
#ifndef WAVELAB_CLI_H
#define WAVELAB_CLI_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/backend.h"
#include "sim/sim.h"

int cli_cmd_run(int argc, char **argv);      /* cli/main.c: run a case on the simulator (or --backend vulkan) */
int cli_cmd_test(int argc, char **argv);     /* cli/main.c: run every case with an expect */
int cli_cmd_compile(int argc, char **argv);  /* cli/main.c */
int cli_cmd_disasm(int argc, char **argv);   /* cli/main.c */
int cli_cmd_isa(int argc, char **argv);      /* cli/main.c: the instruction table of isa/ops.def */
int cli_cmd_bench(int argc, char **argv);    /* cli/bench.c */
int cli_cmd_machines(int argc, char **argv); /* cli/explain.c: list machine presets */
int cli_cmd_explain(int argc, char **argv);  /* cli/explain.c: LDS banks, L2 per workgroup, launch order */
int cli_cmd_trace(int argc, char **argv);    /* cli/trace.c: every instruction of one wave, lanes and values */
int cli_cmd_probe(int argc, char **argv);    /* cli/probe.c: microbenchmarks on a Vulkan device -> a machine preset */
int cli_cmd_compare(int argc, char **argv);  /* cli/compare.c: two cases side by side, with a verdict */
int cli_cmd_amber(int argc, char **argv);    /* cli/amber.c: an Amber script on the simulator */

/* cli/explain.c: loads machine preset `machine`, creates a memory model for
 * case c and puts it in opt->memory (and the machine's default wave size in
 * opt->wave_size when neither the option nor the case gives one).  Returns 0,
 * or prints the error and returns RUN_EXIT_BAD_INPUT.  Free with mem_model_destroy. */
struct run_options;
struct wl_case;
int cli_memory_open(const char *machine, int image_layout, int threads, const struct wl_case *c,
                    struct run_options *opt);
/* image_layout -1 in cli_memory_open keeps the preset's (--image-layout gives another). */
/* Loads the case and the machine preset (image_layout >= 0 replaces the preset's): 0, or RUN_EXIT_BAD_INPUT
 * after printing why (nothing is left to free then). */
struct mem_machine;
int cli_load_case_and_machine(const char *case_path, const char *machine, int image_layout, struct wl_case **c,
                              struct mem_machine *m);


/* cli/vulkan.c: the exit code of a backend status (3 when the device cannot run the case), and the report of a
 * failed backend call ("SKIP: why" on stdout for exit 3, prefix and error on stderr otherwise) returning it. */
int cli_vulkan_exit_code(vkb_status st);
int cli_vulkan_failure(vkb_status st, const char *prefix, const char *err);

/* cli/against.c: `wavelab disasm --against radv:FAMILY|device`: the kernel compiled by the device's compiler
 * (nothing runs), its registers, occupancy and instruction classes beside wavelab's, then both listings. */
struct isa_program;
int cli_disasm_against(const struct wl_case *c, const uint32_t *words, size_t word_count,
                       const struct isa_program *p, const char *against, const char *device, const char *machine,
                       uint32_t wave, FILE *out);

/* cli/check_image.c: image bindings in `check`.  The data of an image binding is its packed texels (img_image
 * order) on both sides.  cli_check_image_binding compares the decoded components of every texel with the relation
 * (exact, ulp or epsilon on float components; integers exactly), prints up to *budget mismatches at their texel
 * into report, and returns the number of differing texels. */
struct case_binding;
int cli_is_image_binding(const struct case_binding *b);
size_t cli_check_image_binding(const struct case_binding *b, const uint8_t *sim, const uint8_t *dev, int mode,
                               double tolerance, int *budget, char *report, size_t report_size);

/* cli/progress.c: the progress line of a long dispatch on stderr (a terminal only, after about a second;
 * quiet: never).  cli_progress_start returns the hook for run_options.progress, or NULL when no line can
 * show; call cli_progress_end after the dispatch whatever it returned. */
typedef struct cli_progress {
    sim_progress hook;
    pthread_mutex_t lock;
    double start, last, after;   /* start: when the first workgroup finished */
    uint64_t start_done;
    int started, active, drawn;
} cli_progress;
const sim_progress *cli_progress_start(cli_progress *p, int quiet);
void cli_progress_end(cli_progress *p);

/* cli/timeline.c: intervals on tracks (a CU, a device queue), stacked into rows with article 001's greedy
 * rule, drawn as SVG with a histogram of durations and written as a Chrome/Perfetto trace. */
typedef struct cli_interval {
    double start, end;          /* in the picture's unit (replay steps, microseconds) */
    uint32_t track;             /* CU or queue: rows are assigned within a track */
    uint32_t row;               /* set by cli_timeline_rows */
    char name[64];
    char category[24];
} cli_interval;
/* Sorts nothing in place: sets each interval's row (lowest row of its track whose last interval ended at or
 * before its start, taking intervals by start).  *max_rows = most rows of one track.  0, or -1 out of memory. */
int cli_timeline_rows(cli_interval *iv, size_t n, uint32_t *max_rows);
/* The timeline as SVG.  legend 0: intervals take the palette's colours in turn (neighbours differ); legend 1:
 * one colour per interval name (a profile's passes), named in a legend under the histogram. */
int cli_timeline_svg(FILE *f, const cli_interval *iv, size_t n, const char *title, const char *unit,
                     const char *track_label, int legend);
int cli_timeline_trace_json(FILE *f, const cli_interval *iv, size_t n, const char *process, const char *track_label,
                            double us_per_unit);
struct mem_model;
/* One interval per wave from a memory model after the run (its group's launch step .. the step of its last
 * memory instruction, track = CU);
 * *us_per_step scales steps to the model's time estimate.  Caller frees *out. */
int cli_timeline_from_memory(const struct mem_model *mm, cli_interval **out, size_t *count, double *us_per_step);
int cli_cmd_timeline(int argc, char **argv);
int cli_cmd_report(int argc, char **argv);    /* cli/report.c: one self-contained HTML page about a case */

/* cli/explain.c: the pictures of `wavelab explain` alone (no text), for the report.  LDS: the LDS
 * instruction with the most conflict cycles, as wave 0 of the model's capture saw it (the model must have
 * been created with capture_wave 0); 0, or nonzero when there is none.  Grid: l2 1 = L2 hit rate per
 * workgroup, 0 = launch order. */
struct run_output;
int cli_explain_lds_svg(const struct run_output *out, const struct mem_model *mm, FILE *svg);
int cli_explain_grid_svg(const struct mem_model *mm, int l2, FILE *svg);
/* cli/report_junit.c: `wavelab test --junit FILE` and `--tap`. */
typedef enum cli_test_outcome {
    CLI_TEST_PASS,
    CLI_TEST_FAIL,   /* a failed expectation, a kernel fault, or a known failure that passed */
    CLI_TEST_ERROR,  /* bad input: the case file, the kernel, the case against the kernel */
    CLI_TEST_XFAIL,  /* a known failure ("known_failure") that still fails */
    CLI_TEST_SKIP,   /* not run: the case has no "expect", or excludes the wave size */
    CLI_TEST_OUTCOMES
} cli_test_outcome;

typedef struct cli_test_record {
    const char *path;          /* the case file */
    uint32_t wave;             /* the wave size run (the requested one when the run never started) */
    cli_test_outcome outcome;
    const char *message;       /* why it did not pass: one line per failed expectation; "" when it passed */
    double seconds;            /* host wall time of the case (reported as JUnit's time, nowhere else) */
} cli_test_record;

/* How many records have each outcome: the one count the closing line, TAP and JUnit all report. */
typedef struct cli_test_counts {
    size_t of[CLI_TEST_OUTCOMES];
} cli_test_counts;
cli_test_counts cli_test_count(const cli_test_record *records, size_t count);
/* The closing line of `wavelab test`: "N passed, N failed, N skipped, N xfail" (failed counts bad input too;
 * other tools parse the "N passed, N failed" prefix), after `prefix` ("# " for TAP). */
void cli_test_summary(FILE *f, const char *prefix, const cli_test_record *records, size_t count);
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
/* `wavelab check CASE` with options parsed already (report's device section passes its own) */
struct cli_opts;
int cli_check_case(const struct cli_opts *o, const char *case_path);
/* The same, printing onto fout and ferr instead of stdout and stderr (report keeps check's text this way: the device's
 * child process prints nothing, it sends its result). */
int cli_check_case_to(const struct cli_opts *o, const char *case_path, FILE *fout, FILE *ferr);
/* `wavelab run CASE --backend vulkan ...`: the options cli_cmd_run parsed, and the case (NULL: none given). */
int cli_cmd_run_vulkan(const struct cli_opts *o, const char *case_path);

/* cli/profile.c: article 001's profiler on the passes of a case (GPU timestamps, or the model's estimate) */
int cli_cmd_profile(int argc, char **argv);

#endif
