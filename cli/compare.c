/*
 * cli/compare.c — `wavelab compare A.json B.json`: two variants of a kernel
 * side by side at each wave size, A, B, B-A and B/A for every statistic
 * run_compare_side (run/compare.c) returns, and a verdict line.
 *
 * The verdict's rule (docs/guide.md, "Comparing two variants"): with a
 * machine, the faster side is the one with the smaller time estimate, and the
 * dominating difference is the estimate's unit (valu, salu, lds, memory, l2,
 * dram, latency) whose cycles changed most; without one, the side that
 * executes fewer wave instructions, and the instruction class whose count
 * changed most.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case/case.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "run/run.h"
#include "sim/memmodel.h"


/* One row: A, B, B-A and, when both are nonzero counts, B/A. */
static void row(FILE *f, const char *name, double a, double b, const char *fmt, int ratio)
{
    char ta[32], tb[32], td[32], tr[16] = "";
    snprintf(ta, sizeof ta, fmt, a);
    snprintf(tb, sizeof tb, fmt, b);
    char dfmt[16];
    snprintf(dfmt, sizeof dfmt, "%%+%s", fmt + 1);
    snprintf(td, sizeof td, dfmt, b - a);
    if (ratio && a != 0)
        snprintf(tr, sizeof tr, "%.2fx", b / a);
    fprintf(f, "  %-26s %14s %14s %14s", name, ta, tb, td);
    fprintf(f, tr[0] ? " %8s\n" : "\n", tr);
}

static double lane_utilisation(const run_side *s)
{
    return 100.0 * run_lane_utilisation(s->lane_operations, s->wave_instructions, s->wave_size);
}

static void print_table(FILE *f, const run_side *a, const run_side *b)
{
    fprintf(f, "  %-26s %14s %14s %14s %8s\n", "", "A", "B", "B-A", "B/A");
    row(f, "wave instructions", (double)a->wave_instructions, (double)b->wave_instructions, "%.0f", 1);
    for (int k = 0; k < ISA_CLASS_COUNT; k++)
        if (a->by_class[k] || b->by_class[k]) {
            char name[40];
            snprintf(name, sizeof name, "  %s", isa_class_name((isa_class)k));
            row(f, name, (double)a->by_class[k], (double)b->by_class[k], "%.0f", 1);
        }
    /* the other counters of sim/counters.def (workgroups, waves, lane operations, atomics, ...), where either
     * side has any */
#define X(name, meaning)                                                                                          \
    if (strcmp(#name, "wave_instructions") != 0 && (a->name || b->name))                                          \
        row(f, #name, (double)a->name, (double)b->name, "%.0f", 1);
#include "sim/counters.def"
#undef X
    row(f, "lanes active %", lane_utilisation(a), lane_utilisation(b), "%.1f", 0);
    row(f, "VGPRs", a->vgprs, b->vgprs, "%.0f", 0);
    row(f, "SGPRs", a->sgprs, b->sgprs, "%.0f", 0);
    if (!a->has_memory || !b->has_memory)
        return;
    row(f, "occupancy (waves/SIMD)", a->occupancy.waves_per_simd, b->occupancy.waves_per_simd, "%.0f", 0);
    row(f, "LDS bank conflict cycles", (double)a->memory.lds_bank_conflict_cycles,
        (double)b->memory.lds_bank_conflict_cycles, "%.0f", 1);
    row(f, "L1 read hit %", 100.0 * mem_stats_l1_read_hit_rate(&a->memory),
        100.0 * mem_stats_l1_read_hit_rate(&b->memory), "%.1f", 0);
    row(f, "L2 hit %", 100.0 * mem_stats_l2_hit_rate(&a->memory), 100.0 * mem_stats_l2_hit_rate(&b->memory),
        "%.1f", 0);
    row(f, "DRAM bytes read", (double)a->memory.dram_bytes_read, (double)b->memory.dram_bytes_read, "%.0f", 1);
    row(f, "DRAM bytes written", (double)a->memory.dram_bytes_written, (double)b->memory.dram_bytes_written, "%.0f",
        1);
    row(f, "estimate (us)", a->estimate.microseconds, b->estimate.microseconds, "%.3f", 1);
    fprintf(f, "  %-26s %14s %14s\n", "bound", mem_unit_name(a->estimate.bound_unit),
            mem_unit_name(b->estimate.bound_unit));
}

/* The verdict line (the rule is at the top of this file). */
static void print_verdict(FILE *f, uint32_t wave, const run_side *a, const run_side *b)
{
    double va, vb;
    const char *what, *dom = NULL;
    double dom_a = 0, dom_b = 0, best = 0;
    if (a->has_memory && b->has_memory) {
        va = a->estimate.microseconds, vb = b->estimate.microseconds;
        what = "is faster by the model's estimate";
        for (int u = 0; u < MEM_UNIT_COUNT; u++) {
            double d = fabs(b->estimate.unit_cycles[u] - a->estimate.unit_cycles[u]);
            if (d > best)
                best = d, dom = mem_unit_name((mem_unit)u), dom_a = a->estimate.unit_cycles[u],
                dom_b = b->estimate.unit_cycles[u];
        }
    } else {
        va = (double)a->wave_instructions, vb = (double)b->wave_instructions;
        what = "executes fewer wave instructions";
        for (int k = 0; k < ISA_CLASS_COUNT; k++) {
            double d = fabs((double)b->by_class[k] - (double)a->by_class[k]);
            if (d > best)
                best = d, dom = isa_class_name((isa_class)k), dom_a = (double)a->by_class[k],
                dom_b = (double)b->by_class[k];
        }
    }
    fprintf(f, "verdict (wave %u): ", wave);
    if (va == vb) {
        fprintf(f, "A and B tie");
    } else {
        const char *num = a->has_memory && b->has_memory ? "%s %s (%.3f vs %.3f us)" : "%s %s (%.0f vs %.0f)";
        fprintf(f, num, vb < va ? "B" : "A", what, vb < va ? vb : va, vb < va ? va : vb);
    }
    if (dom)
        fprintf(f, "\n  dominating difference: %s %s, A %.0f -> B %.0f\n", dom,
                a->has_memory && b->has_memory ? "cycles" : "instructions", dom_a, dom_b);
    else
        fprintf(f, "\n  dominating difference: none (no counter differs)\n");
}

/* Runs one side at one wave size; prints its FAIL lines and fault.  Returns its exit code. */
static int run_side_at(const char *label, const wl_case *c, uint32_t wave, const char *machine,
                       const run_options *base, run_side *side)
{
    char err[4096];
    run_options opt = *base;
    opt.wave_size = wave;
    if (machine && cli_memory_open(machine, -1, 1, c, &opt) != 0)
        return RUN_EXIT_BAD_INPUT;
    char *buf = NULL;
    size_t len = 0;
    FILE *log = open_memstream(&buf, &len);
    int rc = run_compare_side(c, &opt, side, log, err, sizeof err);
    fclose(log);
    if (rc == RUN_EXIT_BAD_INPUT)
        fprintf(stderr, "%s\n", err);
    else if (side->faulted)
        printf("FAIL  %s %s (wave %u): %s\n", label, c->path, side->wave_size, err);
    else if (side->failures)
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
            line += strspn(line, " "); /* run_check_expects indents its lines under `run`'s summary */
            if (strncmp(line, "FAIL  ", 6) == 0)
                printf("FAIL  %s %s (wave %u): %s\n", label, c->path, side->wave_size, line + 6);
        }
    free(buf);
    mem_model_destroy(opt.memory);
    return rc;
}

int cli_cmd_compare(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_compare, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    const char *paths[2] = {o.nargs > 0 ? o.args[0] : NULL, o.nargs > 1 ? o.args[1] : NULL}, *machine = o.machine;
    cli_waves waves = o.waves;
    if (o.wave && waves.count < CLI_MAX_WAVES)
        waves.size[waves.count++] = (uint32_t)o.wave;
    int nwaves = waves.count, npaths = o.nargs;
    run_options base = cli_run_options(&o);
    if (npaths != 2) {
        fprintf(stderr, "wavelab compare: expected two case files A.json B.json (wavelab compare --help)\n");
        return RUN_EXIT_BAD_INPUT;
    }
    wl_case *c[2] = {NULL, NULL};
    char err[4096];
    for (int k = 0; k < 2; k++)
        if (case_load(paths[k], &c[k], err, sizeof err) != CASE_OK) {
            fprintf(stderr, "%s\n", err);
            case_destroy(c[0]);
            return RUN_EXIT_BAD_INPUT;
        }
    mem_machine m; /* a preset that does not load is bad input before anything runs */
    if (machine && mem_machine_load(machine, &m, err, sizeof err) != MEM_OK) {
        fprintf(stderr, "%s\n", err);
        case_destroy(c[0]);
        case_destroy(c[1]);
        return RUN_EXIT_BAD_INPUT;
    }
    if (nwaves == 0) /* A's wave size (its subgroup_size, else 32), as `run` would take it */
        waves.size[nwaves++] = 0;
    printf("wavelab compare\n  A  %s\n  B  %s\n", paths[0], paths[1]);
    int rc = RUN_EXIT_OK, compared = 0;
    for (int w = 0; w < nwaves && rc != RUN_EXIT_BAD_INPUT; w++) {
        run_side side[2];
        int r[2] = {RUN_EXIT_OK, RUN_EXIT_OK}, skip = 0;
        uint32_t wave = waves.size[w] ? waves.size[w] : run_wave_size(c[0], 0);
        /* a side whose expectations do not hold at this wave size (subgroup_size, min/max_subgroup_size) is not
         * run at it: the same SKIP line `wavelab test` prints, and no table for this wave size */
        for (int k = 0; k < 2; k++)
            if (!case_wave_applies(c[k], wave, err, sizeof err)) {
                printf("\nSKIP  %s %s (wave %u): %s\n", k ? "B" : "A", c[k]->path, wave, err);
                skip = 1;
            }
        if (skip)
            continue;
        compared++;
        for (int k = 0; k < 2 && (k == 0 || r[0] != RUN_EXIT_BAD_INPUT); k++)
            r[k] = run_side_at(k ? "B" : "A", c[k], wave, machine, &base, &side[k]);
        if (r[0] == RUN_EXIT_BAD_INPUT || r[1] == RUN_EXIT_BAD_INPUT) { /* A's (kernel, bindings) is reported */
            rc = RUN_EXIT_BAD_INPUT;
            break;
        }
        if (r[0] || r[1])
            rc = RUN_EXIT_FAIL;
        printf("\nwave %u%s%s\n", side[0].wave_size, machine ? ", machine " : "", machine ? machine : "");
        print_table(stdout, &side[0], &side[1]);
        print_verdict(stdout, side[0].wave_size, &side[0], &side[1]);
    }
    case_destroy(c[0]);
    case_destroy(c[1]);
    /* every wave size skipped: nothing was compared, which is neither a pass nor a failure (exit 3, as `amber`
     * gives a case its wave size does not hold for) */
    return rc == RUN_EXIT_OK && !compared ? 3 : rc;
}
