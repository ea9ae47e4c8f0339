/*
 * api/api_run.c — the public API's runs (api/wavelab.h): one case at one
 * wave size on the simulator or a Vulkan device, its final bindings, its
 * statistics and the check of its expectations.  The steps are the ones
 * `wavelab run` and `wavelab check` take (run/, backend/), so a case gives
 * the same bytes through the API as on the command line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "backend/backend.h"
#include "isa/isa.h"
#include "run/run.h"
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

/* The steps every run starts with: a loaded case and its validated SPIR-V. */
static wavelab_status prepare(const wavelab_case *k, wavelab_run *r, const uint32_t **words, size_t *word_count)
{
    if (!k->c)
        return fail(r, WAVELAB_ERR_CASE, "the case did not load: %s", k->message);
    const char *message, *warnings;
    /* the case's compile cache is the one thing a run changes in it: it is filled once, under its lock */
    wavelab_status st = api_case_words((wavelab_case *)k, words, word_count, &message, &warnings);
    snprintf(r->warnings, sizeof r->warnings, "%s", warnings);
    if (st != WAVELAB_OK)
        return fail(r, st, "%s", message);
    return WAVELAB_OK;
}

wavelab_status wavelab_run_sim(const wavelab_case *k, uint32_t wave_size, wavelab_run **out)
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
    uint32_t wave = run_wave_size(c, wave_size);
    if (wave < SIM_MIN_WAVE || wave > SIM_MAX_WAVE || (wave & (wave - 1)))
        return fail(r, WAVELAB_ERR_INPUT, "wave size %u: the simulator models powers of two from %d to %d", wave,
                    SIM_MIN_WAVE, SIM_MAX_WAVE);
    r->wave_size = wave;

    char err[2048];
    isa_program *prog = NULL;
    isa_spec spec = {c->spec, c->spec_count};
    isa_status ist = isa_lower_spec(words, word_count, c->entry, &spec, &prog, err, sizeof err);
    if (ist != ISA_OK) {
        isa_program_destroy(prog);
        return fail(r, ist == ISA_ERR_NOMEM ? WAVELAB_ERR_NOMEM : WAVELAB_ERR_COMPILE, "%s: %s: %s", c->kernel,
                    isa_status_str(ist), err);
    }
    if (!run_bindings_fit(c, prog, err, sizeof err)) {
        isa_program_destroy(prog);
        return fail(r, WAVELAB_ERR_INPUT, "%s", err);
    }
    sim_buffer *bufs = calloc((size_t)c->binding_count + 1, sizeof *bufs);
    if (!bufs || (st = initial_contents(r, c)) != WAVELAB_OK) {
        free(bufs);
        isa_program_destroy(prog);
        return fail(r, WAVELAB_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < c->binding_count; i++)
        bufs[i] = (sim_buffer){.set = c->bindings[i].set, .binding = c->bindings[i].binding, .data = r->data[i],
                               .size = c->bindings[i].size};
    sim_image *images = NULL; /* image and sampler bindings over r->data, as run_case_sim binds them */
    int image_count = 0;
    if (!run_image_bindings(c, r->data, &images, &image_count)) {
        free(bufs);
        isa_program_destroy(prog);
        return fail(r, WAVELAB_ERR_NOMEM, "out of memory");
    }
    sim_config cfg = {
        .images = images,
        .image_count = image_count,
        .wave_size = wave,
        .groups = {c->groups[0], c->groups[1], c->groups[2]},
        .threads = 1,
        .push = c->push_constants,
        .push_size = c->push_size,
        .buffers = bufs,
        .buffer_count = c->binding_count,
    };
    sim_result result;
    sim_status ss = sim_run(prog, &cfg, &result);
    free(bufs);
    free(images);
    r->stats = result.stats;
    r->from_simulator = ss == SIM_OK || ss == SIM_FAULT; /* the dispatch started: its statistics exist */
    switch (ss) {
    case SIM_OK: st = WAVELAB_OK; break;
    case SIM_FAULT: {
        char where[512];
        sim_location_format(prog, &result.fault_event.where, where, sizeof where);
        st = fail(r, WAVELAB_ERR_FAULT, "%s (wave %u): %s: %s at %s", c->kernel, wave,
                  sim_fault_kind_name(result.fault), result.fault_event.message, where);
        break;
    }
    case SIM_ERR_CONFIG: st = fail(r, WAVELAB_ERR_INPUT, "%s: %s", c->path, result.fault_event.message); break;
    default: st = fail(r, WAVELAB_ERR_NOMEM, "out of memory"); break;
    }
    sim_result_free(&result);
    isa_program_destroy(prog);
    return st;
}

/* The public status for a backend status: "cannot run here" (exit 3) against "failed while running" (exit 1). */
static wavelab_status device_status(vkb_status st)
{
    switch (st) {
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
    char err[2048] = "";
    vkb_context *ctx = NULL;
    int index = -1;
    vkb_kernel_info kernel;
    vkb_run_output dev = {0};
    uint32_t wave = wave_size ? wave_size : c->subgroup_size;
    vkb_status vs = vkb_context_create(&ctx, err, sizeof err);
    if (vs == VKB_OK)
        vs = vkb_device_find(ctx, device, &index, err, sizeof err);
    if (vs == VKB_OK)
        vs = vkb_kernel_scan(words, word_count, c->entry, &kernel, err, sizeof err);
    if (vs == VKB_OK)
        vs = vkb_check_support(ctx, index, &kernel, c, wave, err, sizeof err);
    if (vs == VKB_OK) {
        vkb_run_options opt = {.wave_size = wave};
        vs = vkb_run_case(ctx, index, c, words, word_count, &opt, &dev, err, sizeof err);
    }
    if (vs == VKB_OK) {
        r->wave_size = dev.wave_size;
        st = initial_contents(r, c);
        for (int i = 0; st == WAVELAB_OK && i < c->binding_count && i < dev.binding_count; i++)
            memcpy(r->data[i], dev.data[i], c->bindings[i].size);
    } else {
        st = fail(r, device_status(vs), "%s: %s", vkb_status_str(vs), err);
    }
    vkb_run_output_free(&dev);
    vkb_context_destroy(ctx);
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

/* Index of binding (set, binding) in the case, or -1. */
static int binding_index(const wl_case *c, uint32_t set, uint32_t binding)
{
    for (int i = 0; i < c->binding_count; i++)
        if (c->bindings[i].set == set && c->bindings[i].binding == binding)
            return i;
    return -1;
}

wavelab_status wavelab_run_read_binding(const wavelab_run *r, uint32_t set, uint32_t binding, void *dst,
                                        size_t dst_size, size_t *size)
{
    if (!r)
        return WAVELAB_ERR_ARGUMENT;
    const wl_case *c = r->owner->c;
    int i = r->data && c ? binding_index(c, set, binding) : -1;
    if (i < 0)
        return WAVELAB_ERR_NOT_FOUND;
    if (size)
        *size = c->bindings[i].size;
    if (!dst)
        return WAVELAB_OK;
    if (dst_size < c->bindings[i].size)
        return WAVELAB_ERR_ARGUMENT;
    memcpy(dst, r->data[i], c->bindings[i].size);
    return WAVELAB_OK;
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
        const case_expect *e = &c->expects[i];
        int bi = binding_index(c, e->set, e->binding);
        char msg[1024] = "";
        if (bi >= 0 && case_expect_check(e, r->data[bi], c->bindings[bi].size, msg, sizeof msg, NULL))
            continue;
        if (bi < 0)
            snprintf(msg, sizeof msg, "set %u binding %u: no such binding", e->set, e->binding);
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
