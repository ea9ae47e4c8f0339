/*
 * run/run.c — a case from file to results on the simulator (see run.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "isa/spvcache.h"
#include "run/run.h"
#include "sim/memmodel.h"

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

isa_status run_compile_case(const wl_case *c, uint32_t **words, size_t *word_count, char *err, size_t err_size,
                            char *warnings, size_t warnings_size)
{
    isa_define *defs = NULL;
    if (c->define_count) {
        defs = calloc((size_t)c->define_count, sizeof *defs);
        if (!defs)
            return ISA_ERR_NOMEM;
        for (int i = 0; i < c->define_count; i++) {
            defs[i].name = c->defines[i].name;
            defs[i].value = c->defines[i].value;
        }
    }
    isa_compile_options o = {
        .path = c->kernel,
        .language = c->language,
        .entry = c->entry,
        .defines = defs,
        .define_count = c->define_count,
        .optimize = 1,
    };
    /* compile once: isa/spvcache.h (the settings text names whatever else decides the output) */
    isa_status st = isa_spvcache_compile(&o, "", NULL, words, word_count, err, err_size, warnings, warnings_size, NULL);
    free(defs);
    return st;
}

int run_case_file_has_expect(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 1;
    char *text = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (!text)
        return 1;
    /* the JSON text only: no binding is filled or converted */
    cJSON *root = cJSON_ParseWithLength(text, (size_t)n);
    free(text);
    int has = !cJSON_IsObject(root) || cJSON_GetObjectItemCaseSensitive(root, "expect") != NULL;
    cJSON_Delete(root);
    return has;
}

void run_output_free(run_output *out)
{
    if (!out)
        return;
    isa_program_destroy(out->prog);
    free(out->spirv);
    if (out->data) {
        for (uint32_t i = 0; out->data[i] != (uint8_t *)-1; i++)
            free(out->data[i]);
        free(out->data);
    }
    sim_result_free(&out->result);
    memset(out, 0, sizeof *out);
}

/* Checks that the case provides what the kernel declares, with the right kind. */
static int bindings_fit(const wl_case *c, isa_program *p, char *err, size_t err_size)
{
    for (uint32_t s = 0; s < p->slot_count; s++) {
        const isa_slot *sl = &p->slots[s];
        if (sl->space > ISA_SPACE_UNIFORM_TEXEL)
            continue;
        const case_binding *b = case_find_binding(c, sl->set, sl->binding);
        if (!b) {
            snprintf(err, err_size, "%s: bindings: the kernel uses set %u binding %u ('%s', a %s) but the case has no "
                     "such binding", c->path, sl->set, sl->binding, sl->name, isa_space_name(sl->space));
            return 0;
        }
        static const isa_space kind_space[CASE_KIND_COUNT] = {ISA_SPACE_STORAGE, ISA_SPACE_UNIFORM,
                                                               ISA_SPACE_STORAGE_TEXEL, ISA_SPACE_UNIFORM_TEXEL};
        if (kind_space[b->kind] != sl->space) {
            snprintf(err, err_size, "%s: bindings (set %u binding %u): the case says kind \"%s\" but the kernel declares "
                     "'%s' as a %s", c->path, sl->set, sl->binding, case_kind_name(b->kind), sl->name,
                     isa_space_name(sl->space));
            return 0;
        }
        if (sl->space == ISA_SPACE_STORAGE_TEXEL || sl->space == ISA_SPACE_UNIFORM_TEXEL) {
            isa_format f = isa_format_from_name(b->format);
            if (sl->format != ISA_FORMAT_UNKNOWN && f != sl->format) {
                snprintf(err, err_size, "%s: bindings (set %u binding %u).format: the case says \"%s\" but the kernel "
                         "declares %s", c->path, sl->set, sl->binding, b->format, isa_format_name(sl->format));
                return 0;
            }
            if (f == ISA_FORMAT_UNKNOWN) {
                snprintf(err, err_size, "%s: bindings (set %u binding %u).format: \"%s\" is not a texel format the "
                         "simulator converts", c->path, sl->set, sl->binding, b->format);
                return 0;
            }
            /* a sampled texel buffer declares no format in SPIR-V: the buffer view's (the case's) applies */
            p->slots[s].format = f;
        }
        if (b->size < sl->static_size) {
            snprintf(err, err_size, "%s: bindings (set %u binding %u): %zu bytes, but the kernel's layout of '%s' needs "
                     "at least %u", c->path, sl->set, sl->binding, b->size, sl->name, sl->static_size);
            return 0;
        }
    }
    return 1;
}

int run_case_sim(const wl_case *c, const run_options *opt, run_output *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    err[0] = 0;
    uint32_t wave = opt && opt->wave_size ? opt->wave_size : c->subgroup_size ? c->subgroup_size : 32;
    out->wave_size = wave;
    if (wave < SIM_MIN_WAVE || wave > SIM_MAX_WAVE || (wave & (wave - 1))) {
        snprintf(err, err_size, "wave size %u: the simulator models powers of two from %d to %d", wave, SIM_MIN_WAVE,
                 SIM_MAX_WAVE);
        return RUN_EXIT_BAD_INPUT;
    }
    double t0 = seconds_now();
    isa_status st = run_compile_case(c, &out->spirv, &out->spirv_words, err, err_size, out->warnings,
                                     sizeof out->warnings);
    out->compile_seconds = seconds_now() - t0;
    if (st != ISA_OK)
        return RUN_EXIT_BAD_INPUT;
    char lerr[1024];
    t0 = seconds_now();
    st = isa_lower(out->spirv, out->spirv_words, c->entry, &out->prog, lerr, sizeof lerr);
    out->lower_seconds = seconds_now() - t0;
    if (st != ISA_OK) {
        snprintf(err, err_size, "%s: %s: %s", c->kernel, isa_status_str(st), lerr);
        return RUN_EXIT_BAD_INPUT;
    }
    if (!bindings_fit(c, out->prog, err, err_size))
        return RUN_EXIT_BAD_INPUT;
    out->data = calloc((size_t)c->binding_count + 1, sizeof *out->data);
    sim_buffer *bufs = calloc((size_t)c->binding_count + 1, sizeof *bufs);
    const uint8_t **initial = calloc((size_t)c->binding_count + 1, sizeof *initial);
    if (!out->data || !bufs || !initial) {
        free(bufs);
        free(initial);
        snprintf(err, err_size, "out of memory");
        return RUN_EXIT_BAD_INPUT;
    }
    out->data[c->binding_count] = (uint8_t *)-1; /* end marker for run_output_free */
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        out->data[i] = malloc(b->size ? b->size : 1);
        if (!out->data[i]) {
            free(bufs);
            free(initial);
            snprintf(err, err_size, "out of memory");
            return RUN_EXIT_BAD_INPUT;
        }
        memcpy(out->data[i], b->bytes, b->size);
        bufs[i].set = b->set;
        bufs[i].binding = b->binding;
        bufs[i].data = out->data[i];
        bufs[i].size = b->size;
        initial[i] = b->bytes; /* the case keeps them: no snapshot copy in a multi-threaded dispatch */
    }
    sim_config cfg = {
        .wave_size = wave,
        .groups = {c->groups[0], c->groups[1], c->groups[2]},
        .instruction_budget = opt ? opt->instruction_budget : 0,
        .threads = opt ? opt->threads : 1,
        .push = c->push_constants,
        .push_size = c->push_size,
        .buffers = bufs,
        .buffer_count = c->binding_count,
        .buffer_initial = initial,
    };
    if (opt && opt->memory) {
        if (mem_model_begin(opt->memory, out->prog, cfg.groups, wave, err, err_size) != MEM_OK) {
            free(bufs);
            free(initial);
            return RUN_EXIT_BAD_INPUT;
        }
        cfg.mem_trace = mem_model_trace(opt->memory);
    }
    t0 = seconds_now();
    out->status = sim_run(out->prog, &cfg, &out->result);
    out->dispatch_seconds = seconds_now() - t0;
    if (opt && opt->memory) {
        mem_model_end(opt->memory, &out->result.stats);
        out->memory = opt->memory;
    }
    free(bufs);
    free(initial);
    switch (out->status) {
    case SIM_OK: return RUN_EXIT_OK;
    case SIM_FAULT: return RUN_EXIT_FAIL;
    case SIM_ERR_CONFIG:
        snprintf(err, err_size, "%s: %s", c->path, out->result.fault_event.message);
        return RUN_EXIT_BAD_INPUT;
    default:
        snprintf(err, err_size, "out of memory");
        return RUN_EXIT_BAD_INPUT;
    }
}

int run_check_expects(const wl_case *c, uint8_t *const *data, FILE *log)
{
    int failures = 0;
    for (int i = 0; i < c->expect_count; i++) {
        const case_expect *e = &c->expects[i];
        int bi = -1;
        for (int k = 0; k < c->binding_count; k++)
            if (c->bindings[k].set == e->set && c->bindings[k].binding == e->binding)
                bi = k;
        char msg[1024] = "";
        int ok = bi >= 0 && case_expect_check(e, data[bi], c->bindings[bi].size, msg, sizeof msg, NULL);
        if (bi < 0)
            snprintf(msg, sizeof msg, "no binding set %u binding %u", e->set, e->binding);
        if (!ok)
            failures++;
        if (log) {
            if (ok)
                fprintf(log, "  PASS  expect set %u binding %u (%zu elements)\n", e->set, e->binding, e->count);
            else
                fprintf(log, "  FAIL  expect set %u binding %u: %s\n", e->set, e->binding, msg);
        }
    }
    return failures;
}
