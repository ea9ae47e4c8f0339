/*
 * cli/profile.c — `wavelab profile`: article 001's profiler.  Every pass of a
 * case (its "dispatches", or its one kernel) runs N times; each pass is an
 * interval, from the GPU timestamps the Vulkan backend writes before and
 * after its dispatch (or, on the simulator, from the machine model's time
 * estimate of each pass laid end to end).  The intervals are stacked into
 * rows with the article's greedy rule and drawn with a histogram of their
 * durations (cli/timeline.c), and written as a Chrome/Perfetto trace.
 *
 * The device's run is run_case_device's (run/device.h); this file chooses the
 * options and draws the intervals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "case/case.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "run/device.h"
#include "run/run.h"
#include "sim/memmodel.h"
#include "text/text.h"

/* The simulator's intervals: each pass's machine-model estimate, end to end, `repeat` times (the model is
 * deterministic, so the repeats are equal: the picture shows the shape, not noise).  The passes run as `wavelab
 * run` runs them (run_case_sim: each pass's bindings, windows and aliases), each with the model begun again. */
static int sim_intervals(const wl_case *c, const char *machine, const run_options *base, uint32_t repeat,
                         cli_interval *iv, char *err, size_t err_size)
{
    int n = case_dispatch_total(c);
    run_options opt = *base;
    if (cli_memory_open(machine, -1, 1, c, &opt) != 0) {
        snprintf(err, err_size, "machine \"%s\"", machine);
        return RUN_EXIT_BAD_INPUT;
    }
    run_output out;
    int rc = run_case_sim(c, &opt, &out, err, err_size);
    if (rc == RUN_EXIT_FAIL)
        snprintf(err, err_size, "dispatches[%d]: fault: %s", out.pass, out.result.fault_event.message);
    /* one pass: the model's own estimate */
    const double *us = out.pass_microseconds ? out.pass_microseconds : &mem_model_estimate(opt.memory)->microseconds;
    double t = 0;
    for (uint32_t r = 0; rc == RUN_EXIT_OK && r < repeat; r++)
        for (int p = 0; p < n; p++) {
            cli_interval *x = &iv[(size_t)r * (size_t)n + (size_t)p];
            x->start = t;
            x->end = t += us[p];
        }
    run_output_free(&out);
    mem_model_destroy(opt.memory);
    return rc;
}

static int write_outputs(const char *svg_path, const char *trace_path, cli_interval *iv, size_t count,
                         const char *title, const char *process)
{
    FILE *f;
    if (svg_path && (!(f = fopen(svg_path, "w")) || cli_timeline_svg(f, iv, count, title, "us", "queue %u", 1) != 0 ||
                     fclose(f) != 0)) {
        fprintf(stderr, "wavelab profile: %s: cannot write: %s\n", svg_path, strerror(errno));
        return RUN_EXIT_BAD_INPUT;
    }
    if (trace_path && (!(f = fopen(trace_path, "w")) ||
                       cli_timeline_trace_json(f, iv, count, process, "queue %u", 1.0) != 0 || fclose(f) != 0)) {
        fprintf(stderr, "wavelab profile: %s: cannot write: %s\n", trace_path, strerror(errno));
        return RUN_EXIT_BAD_INPUT;
    }
    return RUN_EXIT_OK;
}

int cli_cmd_profile(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_profile, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    const char *case_path = o.nargs ? o.args[0] : NULL, *backend = o.backend ? o.backend : "vulkan";
    const char *svg_path = o.svg, *trace_path = o.trace, *device = o.device;
    const char *machine = o.machine ? o.machine : CLI_DEFAULT_MACHINE;
    unsigned long repeat = o.repeat ? (unsigned long)o.repeat : 10;
    if (!case_path) {
        fprintf(stderr, "wavelab profile: no case file given (wavelab profile --help)\n");
        return RUN_EXIT_BAD_INPUT;
    }
    int on_device = strcmp(backend, "vulkan") == 0;
    char err[4096];
    wl_case *c = NULL;
    if (case_load(case_path, &c, err, sizeof err) != CASE_OK) {
        fprintf(stderr, "%s\n", err);
        return RUN_EXIT_BAD_INPUT;
    }
    int n = case_dispatch_total(c), rc = RUN_EXIT_OK;
    size_t count = (size_t)repeat * (size_t)n;
    cli_interval *iv = calloc(count, sizeof *iv);
    char where[300] = "";
    if (!iv) {
        fprintf(stderr, "wavelab profile: out of memory\n");
        case_destroy(c);
        return RUN_EXIT_BAD_INPUT;
    }
    if (on_device) {
        run_device_options dopt = {
            .device = device, .optimize = o.optimize,
            .run = {.wave_size = (uint32_t)o.wave, .repeat = (uint32_t)repeat,
                    .warmup = o.given[CLI_OPT_warmup] ? (uint32_t)o.warmup : 1, .robust_access = o.robust}};
        run_device_result res;
        vkb_status st = run_case_device(c, &dopt, &res);
        const vkb_run_output *out = &res.out;
        snprintf(err, sizeof err, "%s", res.message);
        if (st == VKB_OK && !out->timing_available) {
            snprintf(err, sizeof err, "%s", out->timing_note);
            st = VKB_ERR_UNSUPPORTED;
        }
        if (st != VKB_OK) {
            rc = st == VKB_ERR_NO_LOADER || st == VKB_ERR_NO_DEVICE || st == VKB_ERR_WAVE_SIZE ||
                         st == VKB_ERR_UNSUPPORTED ? 3
                 : st == VKB_ERR_INPUT || st == VKB_ERR_NOMEM ? RUN_EXIT_BAD_INPUT : RUN_EXIT_FAIL;
            if (rc == 3)
                printf("SKIP: %s\n", err);
            else
                fprintf(stderr, "wavelab profile: %s\n", err);
        } else {
            for (size_t k = 0; k < count; k++) {
                iv[k].start = out->pass_begin_us[k];
                iv[k].end = out->pass_end_us[k];
            }
            snprintf(where, sizeof where, "%s, GPU timestamps", out->device_name);
            char *failures = cli_expect_failures(c, out->data);
            if (failures && failures[0]) {
                fprintf(stderr, "wavelab profile: the device's results do not meet the case's expectations:\n%s",
                        failures);
                rc = RUN_EXIT_FAIL;
            }
            free(failures);
        }
        run_device_result_free(&res);
    } else {
        run_options sim_opt = cli_run_options(&o);
        rc = sim_intervals(c, machine, &sim_opt, (uint32_t)repeat, iv, err, sizeof err);
        if (rc != RUN_EXIT_OK)
            fprintf(stderr, "wavelab profile: %s\n", err);
        snprintf(where, sizeof where, "simulator, %s machine model's estimate", machine);
    }
    if (rc == RUN_EXIT_OK) {
        for (size_t k = 0; k < count; k++) {
            iv[k].track = 0; /* one queue */
            snprintf(iv[k].name, sizeof iv[k].name, "%.47s", n > 1 ? case_dispatch_name(c, (int)(k % (size_t)n))
                                                                    : "dispatch");
            snprintf(iv[k].category, sizeof iv[k].category, "pass");
        }
        uint32_t rows = 0;
        if (cli_timeline_rows(iv, count, &rows) != 0) {
            fprintf(stderr, "wavelab profile: out of memory\n");
            rc = RUN_EXIT_BAD_INPUT;
        }
        char shown[1024];
        printf("wavelab profile %s (%s)\n", text_terminal(case_path, shown, sizeof shown), where);
        printf("  %d pass%s x %lu runs, at most %u overlapping\n", n, n > 1 ? "es" : "", repeat, rows);
        for (int p = 0; p < n; p++) {
            double lo = 0, hi = 0, sum = 0;
            for (unsigned long r = 0; r < repeat; r++) {
                double d = iv[r * (size_t)n + (size_t)p].end - iv[r * (size_t)n + (size_t)p].start;
                lo = r == 0 || d < lo ? d : lo;
                hi = r == 0 || d > hi ? d : hi;
                sum += d;
            }
            char name[256];
            printf("  pass %d %-12s mean %.3f us, min %.3f, max %.3f\n", p,
                   text_terminal(n > 1 ? case_dispatch_name(c, p) : "", name, sizeof name), sum / (double)repeat, lo, hi);
        }
        char title[400], process[400];
        const char *base = strrchr(case_path, '/');
        snprintf(title, sizeof title, "%s on %s", base ? base + 1 : case_path, where);
        snprintf(process, sizeof process, "wavelab profile: %s on %s", case_path, where);
        if (rc == RUN_EXIT_OK)
            rc = write_outputs(svg_path, trace_path, iv, count, title, process);
    }
    free(iv);
    case_destroy(c);
    return rc;
}
