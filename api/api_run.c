/*
 * api/api_run.c — the public API's runs (api/wavelab.h): one case at one
 * wave size on the simulator or a Vulkan device, its final bindings, its
 * statistics and the check of its expectations.  Both runs are run/'s
 * (run_case_sim, run_case_device), the ones `wavelab run` and `wavelab check`
 * make, so a case gives the same bytes through the API as on the command
 * line; this file only turns options in and results out.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "cli/options.h"
#include "backend/backend.h"
#include "isa/isa.h"
#include "run/device.h"
#include "run/run.h"
#include "sim/memmodel.h"
#include "sim/sim.h"

struct wavelab_run {
    const wavelab_case *owner;
    wavelab_status status;      /* of the run itself (wavelab_run_check does not change it) */
    uint32_t wave_size;
    int from_simulator;         /* a simulator dispatch started: statistics exist */
    uint8_t **data;             /* final bytes, one array per case binding (owner->c->bindings order); NULL when
                                 * the dispatch never started */
    sim_stats stats;
    char warnings[4096];
    char message[8192];
};

/* The statistics table, from the simulator's one list of counters. */
static const struct {
    const char *name;
    const char *meaning;
    size_t offset;
} stat_table[] = {
#define X(name, meaning) {#name, meaning, offsetof(sim_stats, name)},
#include "sim/counters.def"
#undef X
};

#define STAT_COUNT ((int)(sizeof stat_table / sizeof stat_table[0]))

int wavelab_stat_count(void)
{
    return STAT_COUNT;
}

const char *wavelab_stat_name(int index)
{
    return index >= 0 && index < STAT_COUNT ? stat_table[index].name : NULL;
}

const char *wavelab_stat_meaning(int index)
{
    return index >= 0 && index < STAT_COUNT ? stat_table[index].meaning : NULL;
}

static wavelab_status fail(wavelab_run *r, wavelab_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
    r->status = st;
    return st;
}

/* A new run of case k with its buffers holding the case's initial contents. */
static wavelab_status run_new(const wavelab_case *k, wavelab_run **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return WAVELAB_ERR_NOMEM;
    (*out)->owner = k;
    return WAVELAB_OK;
}

/* Copies the case's initial contents into fresh per-binding arrays (r->data). */
static wavelab_status initial_contents(wavelab_run *r, const wl_case *c)
{
    r->data = calloc((size_t)c->binding_count + 1, sizeof *r->data);
    if (!r->data)
        return fail(r, WAVELAB_ERR_NOMEM, "out of memory");
    for (int i = 0; i < c->binding_count; i++) {
        r->data[i] = malloc(c->bindings[i].size ? c->bindings[i].size : 1);
        if (!r->data[i])
            return fail(r, WAVELAB_ERR_NOMEM, "out of memory");
        memcpy(r->data[i], c->bindings[i].bytes, c->bindings[i].size);
    }
    return WAVELAB_OK;
}

/* The steps every run starts with: a loaded case and, for a case of one dispatch, its validated SPIR-V (compiled
 * once per case; a case of several passes compiles each pass as `wavelab run` does, and *words stays NULL). */
static wavelab_status prepare(const wavelab_case *k, wavelab_run *r, const uint32_t **words, size_t *word_count)
{
    *words = NULL;
    *word_count = 0;
    if (!k->c)
        return fail(r, WAVELAB_ERR_CASE, "the case did not load: %s", k->message);
    if (k->c->dispatches)
        return WAVELAB_OK;
    const char *message, *warnings;
    /* the case's compile cache is the one thing a run changes in it: it is filled once, under its lock */
    wavelab_status st = api_case_words((wavelab_case *)k, words, word_count, &message, &warnings);
    snprintf(r->warnings, sizeof r->warnings, "%s", warnings);
    if (st != WAVELAB_OK)
        return fail(r, st, "%s", message);
    return WAVELAB_OK;
}

static void add_warnings(wavelab_run *r, const char *text)
{
    size_t len = strlen(r->warnings);
    snprintf(r->warnings + len, sizeof r->warnings - len, "%s", text);
}

/* The public status of a run that run_case_sim refused (RUN_EXIT_BAD_INPUT), from how far it got. */
static wavelab_status refused_status(const run_output *o, const char *err)
{
    if (!sim_wave_size_valid(o->wave_size))
        return WAVELAB_ERR_INPUT;
    if (strstr(err, "out of memory"))
        return WAVELAB_ERR_NOMEM;
    /* no program: the kernel did not compile, optimize, specialize or lower; else the case does not fit it */
    return o->prog ? WAVELAB_ERR_INPUT : WAVELAB_ERR_COMPILE;
}

wavelab_status wavelab_run_sim(const wavelab_case *k, uint32_t wave_size, wavelab_run **out)
{
    wavelab_run_options o = WAVELAB_RUN_OPTIONS_INIT;
    o.wave_size = wave_size;
    return wavelab_run_sim_with(k, &o, out);
}

/* wavelab_run_options 0.2's size: every field before args */
#define V02_OPTIONS_SIZE offsetof(wavelab_run_options, args)

/* A NULL-terminated list of `wavelab run`'s words read by its own parser into opt (and *machine): 1, or 0 with
 * the parser's line in err. */
static int apply_args(const char *const *args, run_options *opt, const char **machine, char *err, size_t err_size)
{
    int argc = 1;
    while (args[argc - 1])
        argc++;
    char **argv = calloc((size_t)argc + 1, sizeof *argv); /* the parser moves words within it */
    if (!argv) {
        snprintf(err, err_size, "out of memory");
        return 0;
    }
    argv[0] = (char *)"wavelab";
    for (int i = 1; i < argc; i++)
        argv[i] = (char *)args[i - 1];
    cli_opts parsed;
    int ok = cli_parse_to(CLI_CMD_run, argc, argv, &parsed, err, err_size);
    if (ok && parsed.nargs) {
        snprintf(err, err_size, "\"%s\" is not an option (a case is the API's, not an argument)", parsed.args[0]);
        ok = 0;
    }
    if (ok)
        ok = cli_apply_run_options(&parsed, opt, err, err_size);
    if (ok && parsed.given[CLI_OPT_machine])
        *machine = parsed.machine;
    free(argv);
    return ok;
}

/* --sanitize's findings (wavelab run prints them): the run fails with each in its message. */
static wavelab_status sanitizer_findings(wavelab_run *r, const wl_case *c, const run_output *ro)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return fail(r, WAVELAB_ERR_NOMEM, "out of memory");
    uint64_t n = run_print_findings(c, ro, f);
    fclose(f);
    wavelab_status st = fail(r, WAVELAB_ERR_FAULT, "%" PRIu64 " sanitizer finding%s:\n%s", n, n == 1 ? "" : "s",
                             text ? text : "");
    free(text);
    return st;
}

wavelab_status wavelab_run_sim_with(const wavelab_case *k, const wavelab_run_options *options, wavelab_run **out)
{
    if (!out)
        return WAVELAB_ERR_ARGUMENT;
    *out = NULL;
    if (!k)
        return WAVELAB_ERR_ARGUMENT;
    wavelab_status st = run_new(k, out);
    if (st != WAVELAB_OK)
        return st;
    wavelab_run *r = *out;
    wavelab_run_options o = WAVELAB_RUN_OPTIONS_INIT;
    if (options) {
        if (options->size < V02_OPTIONS_SIZE)
            return fail(r, WAVELAB_ERR_ARGUMENT, "wavelab_run_options.size is %zu: start from "
                        "WAVELAB_RUN_OPTIONS_INIT (%zu)", options->size, sizeof o);
        memcpy(&o, options, options->size < sizeof o ? options->size : sizeof o); /* a 0.2 struct: no args */
    }
    /* the struct's fields, each into the run_options field `wavelab run` sets (cli/options.def's RUN rows), then
     * what its args give */
    run_options opt = {.wave_size = o.wave_size, .robust_access = o.robust_access,
                       .instruction_budget = o.instruction_budget, .threads = o.threads};
    const char *machine = o.machine;
    char err[8192] = "", warning[512] = "";
    if (o.args && !apply_args(o.args, &opt, &machine, err, sizeof err))
        return fail(r, WAVELAB_ERR_ARGUMENT, "wavelab_run_options.args: %s", err);
    const uint32_t *words;
    size_t word_count;
    if ((st = prepare(k, r, &words, &word_count)) != WAVELAB_OK)
        return st;
    const wl_case *c = k->c;
    opt.spirv = words;
    opt.spirv_words = word_count;
    if (machine && run_memory_open(machine, -1, 1, c, &opt, warning, sizeof warning, err, sizeof err) != 0)
        return fail(r, WAVELAB_ERR_INPUT, "%s", err);
    add_warnings(r, warning);
    run_output ro;
    int rc = run_case_sim(c, &opt, &ro, err, sizeof err);
    mem_model_destroy(opt.memory);
    /* every pass's compile warnings for a case of several passes; for one, the case's came with its words, and
     * run_case_sim adds the bindings the kernel does not use */
    add_warnings(r, ro.warnings);
    if (ro.optimizer_note[0]) {
        add_warnings(r, ro.optimizer_note);
        add_warnings(r, "\n");
    }
    r->wave_size = ro.wave_size;
    r->stats = ro.result.stats; /* the counters: the per-instruction arrays go with ro */
    r->stats.inst_executions = r->stats.inst_lanes = NULL;
    r->stats.inst_count = 0;
    r->from_simulator = ro.data && (ro.status == SIM_OK || ro.status == SIM_FAULT); /* its statistics exist */
    r->data = ro.data; /* the final bindings (at the fault, after one), one array per case binding */
    ro.data = NULL;
    if (rc == RUN_EXIT_OK && opt.sanitize && run_finding_count(&ro))
        st = sanitizer_findings(r, c, &ro);
    else if (rc == RUN_EXIT_OK)
        st = WAVELAB_OK;
    else if (rc == RUN_EXIT_FAIL) {
        char where[512];
        wl_case view;
        case_dispatch_view(c, ro.pass, &view);
        sim_location_format(ro.prog, &ro.result.fault_event.where, where, sizeof where);
        st = fail(r, WAVELAB_ERR_FAULT, "%s (wave %u): %s: %s at %s", view.kernel, ro.wave_size,
                  sim_fault_kind_name(ro.result.fault), ro.result.fault_event.message, where);
    } else
        st = fail(r, refused_status(&ro, err), "%s", err);
    run_output_free(&ro);
    return st;
}

/* The public status for a device run that stopped: "cannot run here" (exit 3) against "failed while running"
 * (exit 1). */
static wavelab_status device_status(const run_device_result *res)
{
    if (res->step == RUN_DEVICE_COMPILE && res->status == VKB_ERR_INPUT)
        return WAVELAB_ERR_COMPILE;
    switch (res->status) {
    case VKB_OK: return WAVELAB_OK;
    case VKB_ERR_NO_LOADER:
    case VKB_ERR_NO_DEVICE:
    case VKB_ERR_WAVE_SIZE:
    case VKB_ERR_UNSUPPORTED: return WAVELAB_ERR_DEVICE;
    case VKB_ERR_INPUT: return WAVELAB_ERR_INPUT;
    case VKB_ERR_NOMEM: return WAVELAB_ERR_NOMEM;
    default: return WAVELAB_ERR_DEVICE_FAILED;
    }
}

wavelab_status wavelab_run_vulkan(const wavelab_case *k, uint32_t wave_size, const char *device, wavelab_run **out)
{
    if (!out)
        return WAVELAB_ERR_ARGUMENT;
    *out = NULL;
    if (!k)
        return WAVELAB_ERR_ARGUMENT;
    wavelab_status st = run_new(k, out);
    if (st != WAVELAB_OK)
        return st;
    wavelab_run *r = *out;
    const uint32_t *words;
    size_t word_count;
    if ((st = prepare(k, r, &words, &word_count)) != WAVELAB_OK)
        return st;
    const wl_case *c = k->c;
    run_device_options opt = {.device = device, .run = {.wave_size = wave_size}, .spirv = words,
                              .spirv_words = word_count};
    run_device_result res;
    run_case_device(c, &opt, &res);
    if (c->dispatches)
        add_warnings(r, res.warnings);
    if (res.step == RUN_DEVICE_DONE) {
        r->wave_size = res.out.wave_size;
        st = initial_contents(r, c);
        for (int i = 0; st == WAVELAB_OK && i < c->binding_count && i < res.out.binding_count; i++)
            memcpy(r->data[i], res.out.data[i], c->bindings[i].size);
    } else {
        st = fail(r, device_status(&res), "%s: %s", vkb_status_str(res.status), res.message);
    }
    run_device_result_free(&res);
    return st;
}

void wavelab_run_destroy(wavelab_run *r)
{
    if (!r)
        return;
    if (r->data)
        for (int i = 0; r->owner->c && i < r->owner->c->binding_count; i++)
            free(r->data[i]);
    free(r->data);
    free(r);
}

const char *wavelab_run_message(const wavelab_run *r)
{
    return r ? r->message : "no run (NULL)";
}

const char *wavelab_run_warnings(const wavelab_run *r)
{
    return r ? r->warnings : "";
}

uint32_t wavelab_run_wave_size(const wavelab_run *r)
{
    return r ? r->wave_size : 0;
}

static wavelab_status read_binding(const wavelab_run *r, uint32_t set, uint32_t binding, uint32_t element, void *dst,
                                   size_t dst_size, size_t *size)
{
    if (!r)
        return WAVELAB_ERR_ARGUMENT;
    const wl_case *c = r->owner->c;
    /* the binding that fills the descriptor: a loaded case's image of mip or layer views fills several */
    const case_binding *b = r->data && c ? case_find_binding(c, set, binding, element) : NULL;
    if (!b)
        return WAVELAB_ERR_NOT_FOUND;
    if (size)
        *size = b->size;
    if (!dst)
        return WAVELAB_OK;
    if (dst_size < b->size)
        return WAVELAB_ERR_ARGUMENT;
    memcpy(dst, r->data[b - c->bindings], b->size);
    return WAVELAB_OK;
}

wavelab_status wavelab_run_read_binding(const wavelab_run *r, uint32_t set, uint32_t binding, void *dst,
                                        size_t dst_size, size_t *size)
{
    return read_binding(r, set, binding, 0, dst, dst_size, size);
}

wavelab_status wavelab_run_read_binding_element(const wavelab_run *r, uint32_t set, uint32_t binding,
                                                uint32_t element, void *dst, size_t dst_size, size_t *size)
{
    return read_binding(r, set, binding, element, dst, dst_size, size);
}

wavelab_status wavelab_run_check(wavelab_run *r)
{
    if (!r)
        return WAVELAB_ERR_ARGUMENT;
    if (r->status != WAVELAB_OK)
        return r->status;
    const wl_case *c = r->owner->c;
    size_t used = 0;
    int failures = 0;
    r->message[0] = 0;
    for (int i = 0; i < c->expect_count; i++) {
        char msg[1024] = "";
        /* the check `wavelab run` makes: the expectation's own descriptor (set, binding, element) */
        if (case_expect_check_data(c, &c->expects[i], r->data, msg, sizeof msg))
            continue;
        failures++;
        int n = snprintf(r->message + used, sizeof r->message - used, "%s%s", used ? "\n" : "", msg);
        if (n > 0)
            used = used + (size_t)n < sizeof r->message ? used + (size_t)n : sizeof r->message - 1;
    }
    return failures ? WAVELAB_ERR_EXPECT : WAVELAB_OK;
}

wavelab_status wavelab_run_stat(const wavelab_run *r, const char *name, uint64_t *value)
{
    if (!r || !name || !value)
        return WAVELAB_ERR_ARGUMENT;
    if (!r->from_simulator)
        return WAVELAB_ERR_NOT_FOUND;
    for (int i = 0; i < STAT_COUNT; i++)
        if (strcmp(stat_table[i].name, name) == 0) {
            memcpy(value, (const char *)&r->stats + stat_table[i].offset, sizeof *value);
            return WAVELAB_OK;
        }
    return WAVELAB_ERR_NOT_FOUND;
}
