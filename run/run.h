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

/* Compiles the case's kernel (language, entry, defines from the case) and validates the SPIR-V.
 * Returns ISA_OK and *words (caller frees), or an error with err set. */
isa_status run_compile_case(const wl_case *c, uint32_t **words, size_t *word_count,
                            char *err, size_t err_size, char *warnings, size_t warnings_size);

typedef struct run_options {
    uint32_t wave_size;          /* 0: the case's subgroup_size, else 32 */
    uint64_t instruction_budget; /* 0: default */
    uint32_t threads;            /* host threads for the dispatch (0/1: one); results never depend on it */
    struct mem_model *memory;    /* optional memory model fed by the run's trace (sim/memmodel.h); caller owns */
} run_options;

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
} run_output;

/*
 * Runs a case on the simulator.  Returns RUN_EXIT_OK when the dispatch ran
 * (expectations are NOT checked here: see run_check_expects), RUN_EXIT_FAIL on
 * a kernel fault (out->result.fault_event says where), RUN_EXIT_BAD_INPUT when
 * the kernel cannot be compiled/lowered or the case does not fit it (err says why).
 * out must be released with run_output_free whatever the return value.
 */
int run_case_sim(const wl_case *c, const run_options *opt, run_output *out, char *err, size_t err_size);

void run_output_free(run_output *out);

/* Checks that the case provides every binding the lowered kernel declares, with the right kind, format and
 * size, and gives sampled texel buffers the case's format.  Returns 1, or 0 with err naming the binding. */
int run_bindings_fit(const wl_case *c, isa_program *p, char *err, size_t err_size);

/* Checks every expectation of the case against `data` (one array per case binding).
 * Prints "PASS"/"FAIL" lines to `log` when not NULL; returns the number of failures. */
int run_check_expects(const wl_case *c, uint8_t *const *data, FILE *log);

#endif
