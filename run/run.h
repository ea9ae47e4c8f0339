/*
 * run/run.h — one case, start to finish: compile the kernel, validate and
 * lower it, make the buffers from the case, run the simulator, and compare
 * with the case's expectations.  The CLI, `wavelab test` and the tests all
 * run cases through here so they behave alike.
 *
 * Exit codes used by every command (docs/cli.md):
 *   0 success, 1 kernel fault / failed expectation / mismatch, 2 bad input.
 */
#ifndef WAVELAB_RUN_H
#define WAVELAB_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "case/case.h"
#include "isa/isa.h"
#include "sim/sim.h"

enum { RUN_EXIT_OK = 0, RUN_EXIT_FAIL = 1, RUN_EXIT_BAD_INPUT = 2 };

/* The kernel as written: compiles the case's kernel (language, entry, defines from the case) or reads its
 * .spv, legalizes it (isa_spirv_legalize: no optimizer) and validates the SPIR-V.
 * Returns ISA_OK and *words (caller frees), or an error with err set. */
isa_status run_compile_case(const wl_case *c, uint32_t **words, size_t *word_count,
                            char *err, size_t err_size, char *warnings, size_t warnings_size);

typedef struct run_options {
    uint32_t wave_size;          /* 0: the case's subgroup_size, else 32 */
    uint64_t instruction_budget; /* 0: default */
    uint32_t threads;            /* host threads for the dispatch (0/1: one); results never depend on it */
    struct mem_model *memory;    /* optional memory model fed by the run's trace (sim/memmodel.h); caller owns */
    const char *optimize;        /* NULL: the case's "optimize" (if any); else SPIR-V optimizer passes to run
                                  * ("performance", "size" or spirv-opt flags): see run_case_sim */
    int robust_access;           /* nonzero: out-of-bounds loads read 0, stores are dropped (also the case's field) */
    int sanitize;                /* racecheck, initcheck, inactive-lane reads, synccheck (sim_config.sanitize), and
                                  * the schedule check: the dispatch again under SIM_SCHEDULE_REVERSED (run_output) */
    const sim_step_hook *step;   /* optional: follows one wave instruction by instruction (sim.h); NULL = none */
    const sim_progress *progress;/* optional: told after each workgroup (sim.h) */
    uint32_t warmup;             /* untimed dispatches before the timed one (run_output.dispatch_seconds), each on
                                  * the pass's initial buffer contents and without hooks, model or sanitizer:
                                  * outputs and statistics are those of the timed one alone */
    const uint32_t *spirv;       /* optional: the case's kernel as written, already compiled and validated by the
                                  * caller (the C API compiles a case once, from a file, text or words): a copy
                                  * stands for run_compile_case's result.  Ignored for a case with "dispatches"
                                  * (each pass compiles its own kernel) */
    size_t spirv_words;
} run_options;

/* One output element that differs between the linear and the reversed schedule. */
typedef struct run_schedule_diff {
    int binding;                 /* index in the case's bindings */
    size_t element;
    char linear[48], reversed[48]; /* the element's value under each order, formatted */
} run_schedule_diff;

#define RUN_MAX_SCHEDULE_DIFFS 64

typedef struct run_output {
    uint32_t wave_size;          /* the wave size actually used */
    isa_program *prog;
    uint32_t *spirv;
    size_t spirv_words;
    uint8_t **data;              /* final contents of each case binding, same order as c->bindings */
    sim_status status;
    sim_result result;
    char warnings[4096];         /* compile-time warnings (HLSL quirks, ...) */
    struct mem_model *memory;    /* run_options.memory after mem_model_end, or NULL (not owned) */
    double compile_seconds;      /* host wall time: glslang + validation */
    double lower_seconds;        /* host wall time: lowering */
    double dispatch_seconds;     /* host wall time: sim_run (never part of any statistic) */
    char optimizer_note[1024];   /* with an optimizer: "" when the optimized kernel's results equal the kernel's as
                                  * written, else the first difference and the wave operation whose lanes changed */
    /* run_options.sanitize: the schedule check (sanitizer findings are in result.findings) */
    run_schedule_diff schedule_diffs[RUN_MAX_SCHEDULE_DIFFS];
    int schedule_diff_count;     /* stored */
    uint64_t schedule_diff_total; /* elements that differ, stored or not */
    char schedule_fault[512];    /* "" or how the reversed run stopped when the linear one did not */
    /* A case with "dispatches" (docs/case-format.md): the passes run in order on the same buffers; data holds the
     * contents after the last pass run, result.stats the counters summed over the passes (its per-instruction
     * arrays, prog and spirv are the last pass's, and so is run_options.memory's model: each pass begins it
     * again).  A pass that faults, or has sanitizer findings, stops the run: `pass` then says which one the
     * fault or findings belong to.  With run_options.step only the first pass runs (a step hook follows one
     * program). */
    int pass;                    /* index of the last pass run (0 for a one-dispatch case) */
    int pass_count;              /* passes run */
    sim_stats *pass_stats;       /* NULL for a one-dispatch case, else pass_count entries (counters only; the
                                  * per-instruction arrays are NULL) */
    double *pass_microseconds;   /* with run_options.memory, for a case of several passes: each pass's estimate
                                  * (mem_estimate.microseconds; pass_count entries, 0 for a pass that failed);
                                  * NULL otherwise (one pass: the model's own estimate) */
} run_output;

/* run_compile_case, then, when `optimize` or the case's "optimize" names passes, run_optimize_spirv on the result:
 * the SPIR-V a device should run for this case.  Same contract as run_compile_case. */
isa_status run_compile_case_optimized(const wl_case *c, const char *optimize, uint32_t **words, size_t *word_count,
                                      char *err, size_t err_size, char *warnings, size_t warnings_size);

/* A copy of `words` (the kernel as written) through the optimizer passes, validated.  err names the case's kernel. */
isa_status run_optimize_spirv(const wl_case *c, const char *passes, const uint32_t *words, size_t word_count,
                              uint32_t **out, size_t *out_count, char *err, size_t err_size);

/*
 * Runs a case on the simulator.  With optimizer passes (run_options.optimize
 * or the case's "optimize") it runs the optimized kernel, and the kernel as
 * written beside it: out->optimizer_note says where their results differ.  Returns RUN_EXIT_OK when the dispatch ran
 * (expectations are NOT checked here: see run_check_expects), RUN_EXIT_FAIL on
 * a kernel fault (out->result.fault_event says where), RUN_EXIT_BAD_INPUT when
 * the kernel cannot be compiled/lowered or the case does not fit it (err says why).
 * out must be released with run_output_free whatever the return value.
 */
int run_case_sim(const wl_case *c, const run_options *opt, run_output *out, char *err, size_t err_size);
/* After RUN_EXIT_FAIL: "KIND: message at location" of out's fault, into buf. */
void run_fault_text(const run_output *out, char *buf, size_t size);

/* The wave size run_case_sim runs c at when asked for `asked` (run_options.wave_size): asked, else the case's
 * subgroup_size, else 32. */
uint32_t run_wave_size(const wl_case *c, uint32_t asked);

void run_output_free(run_output *out);

/* run/memory.c: a memory model of machine preset `machine` (a name or a path: mem_machine_load) for a run of c, in
 * opt->memory (the caller destroys it with mem_model_destroy); image_layout -1 keeps the preset's.  When neither
 * opt->wave_size nor the case gives a wave size, the preset's default wave becomes opt->wave_size.  A wave size the
 * preset does not run is modelled anyway, with a warning line in `warning` ("" otherwise).  Returns 0, or
 * RUN_EXIT_BAD_INPUT with err set (an unknown preset, out of memory). */
int run_memory_open(const char *machine, int image_layout, int threads, const wl_case *c, run_options *opt,
                    char *warning, size_t warning_size, char *err, size_t err_size);

/* Adds b's counters, by_class and by_op into a (not the per-instruction arrays). */
void run_stats_add(sim_stats *a, const sim_stats *b);

/* Whether the case file at `path` has an "expect" member, from its JSON text alone (bindings are not
 * built, so a case with big fills costs a parse, not its buffers).  1 when it cannot tell (unreadable,
 * not JSON): case_load then reports why. */
int run_case_file_has_expect(const char *path);
/*
 * run/sanitize.c.  Runs the dispatch again under SIM_SCHEDULE_REVERSED from the case's initial contents and records
 * every element of every binding that ends differently from out->data (bindings whose expectation compares
 * "sorted" are compared as multisets).  Called by run_case_sim under run_options.sanitize after a run that did not
 * fault.  Returns 0, or -1 when out of memory.
 */
int run_schedule_check(const wl_case *c, const sim_config *linear, run_output *out);

/* Prints every finding of a sanitized run (sanitizer and schedule), one per line with its instruction, and a count
 * line; returns the number of findings (0: clean). */
uint64_t run_print_findings(const wl_case *c, const run_output *out, FILE *f);

/* Findings of a sanitized run: sanitizer sites plus schedule differences (and a reversed-run fault). */
uint64_t run_finding_count(const run_output *out);
/* Checks that the case provides every binding the lowered kernel declares, with the right kind, format and
 * size, and gives sampled texel buffers the case's format.  Returns 1, or 0 with err naming the binding. */
int run_bindings_fit(const wl_case *c, isa_program *p, char *err, size_t err_size);

/* The case's image and sampler bindings as sim_image entries whose images use `data` (one array per case
 * binding, as run_output.data) for their texels.  Returns 1 with *images (one block: free() it) and *count, or 0
 * when out of memory. */
int run_image_bindings(const wl_case *c, uint8_t *const *data, sim_image **images, int *count);

/* The sim_buffer of every binding of c over data (one array per case binding, as run_output.data); a binding with
 * an `alias` points into its base binding's array instead, so the two share memory as two descriptors of one
 * buffer do.  Returns 1 when one does (the dispatch must then run on one thread: no write check sees across slots). */
int run_buffer_bindings(const wl_case *c, uint8_t *const *data, sim_buffer *bufs);
/* After a run: every aliasing binding's own array takes its window of the shared memory. */
void run_alias_sync(const wl_case *c, uint8_t *const *data);

/* Checks every expectation of the case against `data` (one array per case binding).
 * Prints "PASS"/"FAIL" lines to `log` when not NULL; returns the number of failures. */
int run_check_expects(const wl_case *c, uint8_t *const *data, FILE *log);

/* Active lanes over the lanes of the executed wave instructions (0 when none ran): `run`'s "lanes active". */
double run_lane_utilisation(uint64_t lane_operations, uint64_t wave_instructions, uint32_t wave_size);

/* run/compare.c: what `wavelab compare` shows of one case at one wave size. */
#include "sim/memmodel.h"
typedef struct run_side {
    uint32_t wave_size;
#define X(name, meaning) uint64_t name;
#include "sim/counters.def"
#undef X
    uint64_t by_class[ISA_CLASS_COUNT];
    uint32_t vgprs, sgprs;       /* the allocation's peak live registers (as `run` and `disasm` print them) */
    int has_memory;              /* run_options.memory was given and the dispatch ran: the fields below are set */
    isa_occupancy occupancy;     /* mem_machine_occupancy on the model's machine */
    mem_stats memory;
    mem_estimate estimate;
    int faulted;                 /* the dispatch stopped on a fault (err says where) */
    int failures;                /* expectations that did not hold (each printed to `log` as a FAIL line) */
} run_side;

/* Runs c (run_case_sim with opt; opt->memory, when set, is the caller's and is begun again by the run) and fills
 * side.  Checks the case's expectations (PASS/FAIL lines to log when not NULL).  Returns RUN_EXIT_OK, RUN_EXIT_FAIL
 * (a fault, err says where, or failed expectations) or RUN_EXIT_BAD_INPUT (err says why). */
int run_compare_side(const wl_case *c, const run_options *opt, run_side *side, FILE *log, char *err,
                     size_t err_size);

#endif
