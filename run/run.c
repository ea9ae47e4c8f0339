/*
 * run/run.c — a case from file to results on the simulator (see run.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "isa/spvcache.h"
#include "run/run.h"
#include "sim/memmodel.h"
#include "text/text.h"

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The kernel as written: compiled (glslang, legalized) or read (.spv, then legalized), and validated. */
isa_status run_compile_case(const wl_case *c, uint32_t **words, size_t *word_count, char *err, size_t err_size,
                            char *warnings, size_t warnings_size)
{
    isa_status st;
    char verr[1024];
    if (strcmp(c->language, "spirv") == 0) {
        if (c->kernel_words) { /* assembled in memory (an Amber script's SPIRV-ASM shader) */
            *words = malloc(c->kernel_word_count * sizeof **words);
            if (!*words)
                return ISA_ERR_NOMEM;
            memcpy(*words, c->kernel_words, c->kernel_word_count * sizeof **words);
            *word_count = c->kernel_word_count;
            st = ISA_OK;
        } else {
            st = isa_read_spirv(c->kernel, words, word_count, err, err_size);
        }
        if (st != ISA_OK)
            return st;
        /* validate what the producer wrote before any pass touches it */
        st = isa_validate(*words, *word_count, verr, sizeof verr);
        if (st == ISA_OK)
            st = isa_spirv_legalize(words, word_count, verr, sizeof verr);
        if (st != ISA_OK) {
            snprintf(err, err_size, "%s: %s", c->kernel, verr);
            goto fail;
        }
    } else {
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
            .source = c->kernel_text,
            .language = c->language,
            .entry = c->entry,
            .defines = defs,
            .define_count = c->define_count,
            .target_env = c->target_env,
        };
        /* compile once: isa/spvcache.h; the legalization passes are part of the key */
        st = isa_spvcache_compile(&o, isa_spirv_legalization_passes(), NULL, words, word_count, err, err_size,
                                  warnings, warnings_size, NULL);
        free(defs);
        return st; /* validated */
    }
    st = isa_validate(*words, *word_count, verr, sizeof verr);
    if (st == ISA_OK)
        return st;
    snprintf(err, err_size, "%s: %s", c->kernel, verr);
fail:
    free(*words);
    *words = NULL;
    *word_count = 0;
    return st;
}

isa_status run_optimize_spirv(const wl_case *c, const char *passes, const uint32_t *words, size_t word_count,
                              uint32_t **out, size_t *out_count, char *err, size_t err_size)
{
    *out = malloc(word_count * sizeof *words);
    if (!*out)
        return ISA_ERR_NOMEM;
    memcpy(*out, words, word_count * sizeof *words);
    *out_count = word_count;
    char oerr[1024];
    isa_status st = isa_spirv_optimize(out, out_count, passes, oerr, sizeof oerr);
    if (st == ISA_OK)
        st = isa_validate(*out, *out_count, oerr, sizeof oerr);
    if (st != ISA_OK) {
        snprintf(err, err_size, "%s: optimize \"%s\": %s", c->kernel, passes, oerr);
        free(*out);
        *out = NULL;
        *out_count = 0;
    }
    return st;
}

isa_status run_compile_case_optimized(const wl_case *c, const char *optimize, uint32_t **words, size_t *word_count,
                                      char *err, size_t err_size, char *warnings, size_t warnings_size)
{
    isa_status st = run_compile_case(c, words, word_count, err, err_size, warnings, warnings_size);
    const char *passes = optimize ? optimize : c->optimize;
    if (st != ISA_OK || !passes)
        return st;
    uint32_t *optimized = NULL;
    st = run_optimize_spirv(c, passes, *words, *word_count, &optimized, word_count, err, err_size);
    free(*words);
    *words = optimized;
    return st;
}

int run_case_file_has_expect(const char *path)
{
    size_t n = 0;
    char *text = text_read_file(path, CASE_MAX_FILE_BYTES, &n, NULL, 0);
    if (!text)
        return 1;
    /* the JSON text only: no binding is filled or converted */
    cJSON *root = cJSON_ParseWithLength(text, n);
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
    free(out->pass_stats);
    free(out->pass_microseconds);
    memset(out, 0, sizeof *out);
}

/* The one element type every load, store and atomic of buffer slot s uses, or ISA_TYPE_NONE when they mix types
 * (a struct of several) or there are none. */
static isa_type slot_access_type(const isa_program *p, uint32_t s)
{
    isa_type t = ISA_TYPE_NONE;
    for (uint32_t pc = 0; pc < p->code_count; pc++) {
        const isa_inst *in = &p->code[pc];
        if ((in->op != ISA_OP_LOAD && in->op != ISA_OP_STORE && in->op != ISA_OP_ATOMIC) || in->slot != s)
            continue;
        if (t != ISA_TYPE_NONE && in->type != t)
            return ISA_TYPE_NONE;
        t = (isa_type)in->type;
    }
    return t;
}

/* Whether a slot comes from a (set, binding) of the case: not push constants, shared or private, nor a variable
 * pointer's second name for another slot (isa_slot.alias_of). */
static int slot_has_binding(const isa_slot *sl)
{
    return (sl->space <= ISA_SPACE_UNIFORM_TEXEL || sl->space >= ISA_SPACE_STORAGE_IMAGE) && !sl->alias_of;
}

/* Sets used[i] for every binding i of c that program p declares. */
static void mark_used_bindings(const wl_case *c, const isa_program *p, uint8_t *used)
{
    for (uint32_t s = 0; p && s < p->slot_count; s++) {
        const case_binding *b = case_find_binding(c, p->slots[s].set, p->slots[s].binding, p->slots[s].element);
        if (b && slot_has_binding(&p->slots[s]))
            used[b - c->bindings] = 1;
    }
}

/* Appends a warning line for every binding of c that no kernel declares: the data goes nowhere, and a typo in set
 * or binding would otherwise pass silently (the kernel's own binding then is an error, but a spare one is not). */
static void warn_unused_bindings(const wl_case *c, const uint8_t *used, char *warnings, size_t size)
{
    for (int i = 0; i < c->binding_count; i++) {
        size_t len = strlen(warnings);
        const case_binding *b = &c->bindings[i];
        char where[CASE_DESCRIPTOR_TEXT_MAX];
        if (!used[i] && !b->name && len < size) /* a named buffer is bound by name: no slot to mistype */
            snprintf(warnings + len, size - len, "%s: warning: bindings (%s): the kernel does not use this binding\n",
                     c->path, case_descriptor_text(b->set, b->binding, b->element, where, sizeof where));
    }
}

/* Checks that the case provides what the kernel declares, with the right kind (run.h). */
int run_bindings_fit(const wl_case *c, isa_program *p, char *err, size_t err_size)
{
    for (uint32_t s = 0; s < p->slot_count; s++) {
        const isa_slot *sl = &p->slots[s];
        if (sl->space == ISA_SPACE_PUSH && c->push_size < sl->static_size) {
            /* input the case did not give, not a fault of the kernel */
            snprintf(err, err_size, "%s: push_constants: the kernel's push-constant block '%s' is %u bytes but the case "
                     "gives %zu", c->path, sl->name, sl->static_size, (size_t)c->push_size);
            return 0;
        }
        if (!slot_has_binding(sl))
            continue;
        const case_binding *b = case_find_binding(c, sl->set, sl->binding, sl->element);
        char where[CASE_DESCRIPTOR_TEXT_MAX];
        case_descriptor_text(sl->set, sl->binding, sl->element, where, sizeof where);
        if (!b) {
            snprintf(err, err_size, "%s: bindings: the kernel uses %s ('%s', a %s) but the case has no such binding",
                     c->path, where, sl->name, isa_space_name(sl->space));
            return 0;
        }
        static const isa_space kind_space[CASE_KIND_COUNT] = {
            [CASE_KIND_STORAGE_BUFFER] = ISA_SPACE_STORAGE, [CASE_KIND_UNIFORM_BUFFER] = ISA_SPACE_UNIFORM,
            [CASE_KIND_STORAGE_TEXEL_BUFFER] = ISA_SPACE_STORAGE_TEXEL,
            [CASE_KIND_UNIFORM_TEXEL_BUFFER] = ISA_SPACE_UNIFORM_TEXEL,
            [CASE_KIND_STORAGE_IMAGE] = ISA_SPACE_STORAGE_IMAGE, [CASE_KIND_SAMPLED_IMAGE] = ISA_SPACE_SAMPLED_IMAGE,
            [CASE_KIND_COMBINED_IMAGE_SAMPLER] = ISA_SPACE_SAMPLED_IMAGE, [CASE_KIND_SAMPLER] = ISA_SPACE_SAMPLER};
        /* a sampled image is a separate one or a combined image sampler (sampler2D), as the kernel declares it */
        int combined_mismatch = sl->space == ISA_SPACE_SAMPLED_IMAGE &&
                                (b->kind == CASE_KIND_COMBINED_IMAGE_SAMPLER) != (sl->image_combined != 0);
        if (kind_space[b->kind] != sl->space || combined_mismatch) {
            snprintf(err, err_size, "%s: bindings (%s): the case says kind \"%s\" but the kernel declares "
                     "'%s' as a %s", c->path, where, case_kind_name(b->kind), sl->name,
                     isa_space_name(sl->space));
            return 0;
        }
        if (sl->space == ISA_SPACE_STORAGE_TEXEL || sl->space == ISA_SPACE_UNIFORM_TEXEL) {
            isa_format f = isa_format_from_name(b->format);
            if (sl->format != ISA_FORMAT_UNKNOWN && f != sl->format) {
                snprintf(err, err_size, "%s: bindings (%s).format: the case says \"%s\" but the kernel "
                         "declares %s", c->path, where, b->format, isa_format_name(sl->format));
                return 0;
            }
            if (f == ISA_FORMAT_UNKNOWN) {
                snprintf(err, err_size, "%s: bindings (%s).format: \"%s\" is not a texel format the "
                         "simulator converts", c->path, where, b->format);
                return 0;
            }
            /* a sampled texel buffer declares no format in SPIR-V: the buffer view's (the case's) applies */
            p->slots[s].format = f;
        }
        /* elements of the same size but another class are reinterpreted bits (an f32 binding read as uint);
         * signedness is only a view of the same bits, and another size is a packing (f16 pairs read as uint words) */
        isa_type t = slot_access_type(p, s);
        if ((sl->space == ISA_SPACE_STORAGE || sl->space == ISA_SPACE_UNIFORM) && t != ISA_TYPE_NONE && !b->untyped &&
            t != ISA_TYPE_BOOL && isa_type_size(t) == case_type_size(b->type) &&
            isa_type_is_float(t) != case_type_is_float(b->type)) {
            snprintf(err, err_size, "%s: bindings (%s).type: the case says \"%s\" but the kernel "
                     "reads and writes '%s' as %s", c->path, where, case_type_name(b->type), sl->name,
                     isa_type_name(t));
            return 0;
        }
        if (b->size < sl->static_size) {
            snprintf(err, err_size, "%s: bindings (%s): %zu bytes, but the kernel's layout of '%s' needs "
                     "at least %u", c->path, where, b->size, sl->name, sl->static_size);
            return 0;
        }
    }
    return 1;
}

int run_image_bindings(const wl_case *c, uint8_t *const *data, sim_image **images, int *count)
{
    int n = 0;
    for (int i = 0; i < c->binding_count; i++)
        if (case_kind_is_image(c->bindings[i].kind) || case_kind_has_sampler(c->bindings[i].kind))
            n += (int)case_binding_descriptors(&c->bindings[i]);
    /* one block: the sim_image entries, then the img_image each points at (its bytes are data[i]) */
    sim_image *si = calloc((size_t)n + 1, sizeof *si + sizeof(img_image));
    if (!si)
        return 0;
    img_image *im = (img_image *)(void *)(si + n + 1);
    int k = 0;
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        if (!case_kind_is_image(b->kind) && !case_kind_has_sampler(b->kind))
            continue;
        for (uint32_t v = 0; v < case_binding_descriptors(b); v++, k++) {
            si[k].set = b->set;
            si[k].binding = b->binding;
            si[k].element = b->element + v;
            if (case_kind_is_image(b->kind)) {
                im[k] = b->image;
                im[k].bytes = data[i];
                im[k].size = b->size;
                if (b->views == CASE_VIEWS_MIPS)
                    img_mip_view(&im[k], v);
                else if (b->views == CASE_VIEWS_LAYERS)
                    img_layer_view(&im[k], v);
                si[k].image = &im[k];
            }
            si[k].sampler = b->has_sampler ? &b->sampler : NULL;
        }
    }
    *images = si;
    *count = n;
    return 1;
}

int run_buffer_bindings(const wl_case *c, uint8_t *const *data, sim_buffer *bufs)
{
    int aliased = 0;
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        bufs[i] = (sim_buffer){.set = b->set, .binding = b->binding, .element = b->element, .data = data[i],
                               .size = b->size};
        if (b->alias) {
            const case_binding *base = &c->bindings[b->alias - 1];
            bufs[i].data = data[b->alias - 1] + (b->offset - base->offset);
            aliased = 1;
        }
    }
    return aliased;
}

void run_alias_sync(const wl_case *c, uint8_t *const *data)
{
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        if (b->alias)
            memcpy(data[i], data[b->alias - 1] + (b->offset - c->bindings[b->alias - 1].offset), b->size);
    }
}

/* Lowers out->spirv into out->prog with what the case fixes (its specialization, its runtime descriptor arrays'
 * lengths); 0 or RUN_EXIT_BAD_INPUT with the message in err. */
static int lower_case_kernel(const wl_case *c, run_output *out, char *err, size_t err_size)
{
    char lerr[1024];
    double t0 = seconds_now();
    isa_array_length *lengths = calloc((size_t)c->binding_count + 1, sizeof *lengths);
    if (!lengths) {
        snprintf(err, err_size, "out of memory");
        return RUN_EXIT_BAD_INPUT;
    }
    isa_spec spec;
    case_isa_spec(c, lengths, &spec);
    uint32_t *specialised = NULL;
    isa_status st = isa_specialize(out->spirv, out->spirv_words, &spec, &specialised, NULL, lerr, sizeof lerr);
    if (st != ISA_OK) { /* the case's fault, not the module's: no "invalid SPIR-V" */
        free(lengths);
        snprintf(err, err_size, "%s: %s", c->kernel, lerr);
        return RUN_EXIT_BAD_INPUT;
    }
    spec.count = 0; /* the values are in the words now: the lowering takes the array lengths */
    st = isa_lower_spec(specialised, out->spirv_words, c->entry, &spec, &out->prog, lerr, sizeof lerr);
    free(lengths);
    free(specialised);
    out->lower_seconds = seconds_now() - t0;
    if (st != ISA_OK) {
        snprintf(err, err_size, "%s: %s: %s", c->kernel, isa_status_str(st), lerr);
        return RUN_EXIT_BAD_INPUT;
    }
    return 0;
}

/* Lowers out->spirv and runs it on the simulator (the body of run_case_sim). */
static int run_program(const wl_case *c, const run_options *opt, uint32_t wave, run_output *out, char *err,
                       size_t err_size)
{
    int rc = lower_case_kernel(c, out, err, err_size);
    if (rc)
        return rc;
    if (!run_bindings_fit(c, out->prog, err, err_size))
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
        initial[i] = b->bytes; /* the case keeps them: no snapshot copy in a multi-threaded dispatch */
    }
    int aliased = run_buffer_bindings(c, out->data, bufs);
    sim_image *images = NULL;
    int image_count = 0;
    if (!run_image_bindings(c, out->data, &images, &image_count)) {
        free(bufs);
        free(initial);
        snprintf(err, err_size, "out of memory");
        return RUN_EXIT_BAD_INPUT;
    }
    sim_config cfg = {
        .images = images,
        .image_count = image_count,
        .wave_size = wave,
        .groups = {c->groups[0], c->groups[1], c->groups[2]},
        .instruction_budget = opt ? opt->instruction_budget : 0,
        .threads = opt && !aliased ? opt->threads : 1,
        .push = c->push_constants,
        .push_size = c->push_size,
        .buffers = bufs,
        .buffer_count = c->binding_count,
        .robust_access = c->robust_access || (opt && opt->robust_access),
        .step = opt ? opt->step : NULL,
        .progress = opt ? opt->progress : NULL,
        .buffer_initial = initial,
    };
    uint8_t *uninit = NULL;
    if (opt && opt->sanitize) {
        cfg.sanitize = 1;
        uninit = calloc((size_t)c->binding_count + 1, 1);
        if (!uninit) {
            free(bufs);
            free(images);
            free(initial);
            snprintf(err, err_size, "out of memory");
            return RUN_EXIT_BAD_INPUT;
        }
        for (int i = 0; i < c->binding_count; i++)
            uninit[i] = (uint8_t)c->bindings[i].uninitialized;
        cfg.uninitialized = uninit;
    }
    if (opt && opt->memory) {
        if (mem_model_begin(opt->memory, out->prog, cfg.groups, wave, err, err_size) != MEM_OK) {
            free(bufs);
            free(images);
            free(uninit);
            free(initial);
            return RUN_EXIT_BAD_INPUT;
        }
        cfg.mem_trace = mem_model_trace(opt->memory);
        cfg.image_layout = (int)mem_model_machine(opt->memory)->image_layout;
    }
    /* Warm-up: the first dispatch of a process pays for faulting in the executor's code and heap pages and for
     * cold caches (about 0.1 ms on the development container, five times a small warm dispatch: see
     * docs/performance.md), which is not the dispatch's own cost; lavapipe's figure is taken after one too. */
    for (uint32_t k = 0; opt && k < opt->warmup; k++) {
        sim_config plain = cfg;
        plain.step = NULL;
        plain.progress = NULL;
        plain.mem_trace = NULL;
        plain.sanitize = 0;
        plain.uninitialized = NULL;
        sim_result discard;
        sim_run(out->prog, &plain, &discard);
        sim_result_free(&discard);
        for (int i = 0; i < c->binding_count; i++)
            memcpy(out->data[i], c->bindings[i].bytes, c->bindings[i].size);
    }
    double t0 = seconds_now();
    out->status = sim_run(out->prog, &cfg, &out->result);
    out->dispatch_seconds = seconds_now() - t0;
    if (opt && opt->memory) {
        mem_model_end(opt->memory, &out->result.stats);
        out->memory = opt->memory;
    }
    run_alias_sync(c, out->data);
    int schedule_failed = cfg.sanitize && out->status == SIM_OK && run_schedule_check(c, &cfg, out) != 0;
    free(bufs);
    free(images);
    free(uninit);
    free(initial);
    if (schedule_failed) {
        snprintf(err, err_size, "out of memory");
        return RUN_EXIT_BAD_INPUT;
    }
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

void run_fault_text(const run_output *out, char *buf, size_t size)
{
    char where[512];
    sim_location_format(out->prog, &out->result.fault_event.where, where, sizeof where);
    snprintf(buf, size, "%s: %s at %s", sim_fault_kind_name(out->result.fault), out->result.fault_event.message,
             where);
}

/* Per source line, the wave operations (XLANE) that ran: executions and active lanes summed. */
typedef struct wave_op_line {
    uint32_t line;
    uint64_t executions, lanes;
} wave_op_line;

static int wave_op_profile(const run_output *o, wave_op_line *lines, int max)
{
    int n = 0;
    const sim_stats *s = &o->result.stats;
    for (uint32_t pc = 0; pc < o->prog->code_count && pc < s->inst_count && s->inst_executions; pc++) {
        const isa_inst *in = &o->prog->code[pc];
        if (in->cls != ISA_CLASS_XLANE || !s->inst_executions[pc])
            continue;
        int k = 0;
        while (k < n && lines[k].line != in->line)
            k++;
        if (k == n) {
            if (n == max)
                continue;
            lines[n++] = (wave_op_line){in->line, 0, 0};
        }
        /* several ISA instructions per source wave operation (one per component): count the first only */
        if (lines[k].executions && pc > 0 && o->prog->code[pc - 1].cls == ISA_CLASS_XLANE &&
            o->prog->code[pc - 1].line == in->line)
            continue;
        lines[k].executions += s->inst_executions[pc];
        lines[k].lanes += s->inst_lanes[pc];
    }
    return n;
}

/*
 * The kernel as written against the optimized one: the first differing
 * output element, and the source line of the first wave operation whose
 * executions or active lanes changed — the optimizer moved it across
 * control flow.
 */
static void compare_optimized(const wl_case *c, const run_output *written, const run_output *opt, char *note,
                              size_t size)
{
    note[0] = 0;
    if (written->status != opt->status || written->result.fault != opt->result.fault) {
        snprintf(note, size, "the optimizer changed this kernel's behaviour: as written it %s, optimized it %s",
                 written->status == SIM_OK ? "ran to the end" : sim_fault_kind_name(written->result.fault),
                 opt->status == SIM_OK ? "ran to the end" : sim_fault_kind_name(opt->result.fault));
        return;
    }
    size_t len = 0;
    for (int i = 0; i < c->binding_count && !len; i++) {
        const case_binding *b = &c->bindings[i];
        size_t es = case_type_size(b->type), differ = 0, first = 0;
        for (size_t e = 0; e < b->count; e++)
            if (memcmp(written->data[i] + e * es, opt->data[i] + e * es, es) != 0 && differ++ == 0)
                first = e;
        if (!differ)
            continue;
        char a[64], o[64];
        case_format_element(b->type, written->data[i] + first * es, a, sizeof a);
        case_format_element(b->type, opt->data[i] + first * es, o, sizeof o);
        len = (size_t)snprintf(note, size, "this kernel's wave results depend on the optimizer: set %u binding %u "
                               "element %zu is %s as written, %s optimized (%zu of %zu elements differ)",
                               b->set, b->binding, first, a, o, differ, b->count);
    }
    if (!len)
        return;
    wave_op_line wl[256], ol[256];
    int nw = wave_op_profile(written, wl, 256), no = wave_op_profile(opt, ol, 256);
    for (int i = 0; i < nw; i++) {
        for (int k = 0; k < no; k++) {
            if (ol[k].line != wl[i].line || (ol[k].executions == wl[i].executions && ol[k].lanes == wl[i].lanes))
                continue;
            snprintf(note + len, size - len, "; the wave operation at line %u ran %" PRIu64 " times with %.1f active "
                     "lanes on average as written, %" PRIu64 " times with %.1f optimized", wl[i].line,
                     wl[i].executions, (double)wl[i].lanes / (double)wl[i].executions, ol[k].executions,
                     ol[k].executions ? (double)ol[k].lanes / (double)ol[k].executions : 0.0);
            return;
        }
    }
}

void run_stats_add(sim_stats *a, const sim_stats *b)
{
#define X(name, meaning) a->name += b->name;
#include "sim/counters.def"
#undef X
    for (int k = 0; k < ISA_CLASS_COUNT; k++)
        a->by_class[k] += b->by_class[k];
    for (int k = 0; k < ISA_OP_COUNT; k++)
        a->by_op[k] += b->by_op[k];
}

static int run_one(const wl_case *c, const run_options *opt, run_output *out, char *err, size_t err_size);

/*
 * A case with "dispatches": each pass is a one-dispatch view of the case
 * (case_dispatch_view) whose bindings start from the buffers' current
 * contents, so nothing below knows about passes.  A pass that binds buffers by
 * name sees them at its own slots (case_dispatch_buffer maps its bindings back
 * to the case's); `state` holds every buffer's contents between passes and
 * becomes out->data, one array per case binding, at the end.
 */
/*
 * Two bindings of one buffer in pass i share its memory: each of the pass's bindings `cur` (their windows on
 * the case's buffers) aliases the outermost window that holds it (of equal ones the first), which holds no
 * alias itself.  Windows that overlap without either holding the other are bad input.
 */
static int pass_aliases(const wl_case *c, int i, case_binding *cur, int n, char *err, size_t err_size)
{
    for (int k = 0; k < n; k++) {
        const case_binding *bk = &cur[k];
        int best = -1;
        for (int j = 0; j < n; j++) {
            const case_binding *bj = &cur[j];
            if (j == k || case_dispatch_buffer(c, i, j) != case_dispatch_buffer(c, i, k) ||
                bk->offset >= bj->offset + bj->size || bj->offset >= bk->offset + bk->size)
                continue;
            int holds = bj->offset <= bk->offset && bk->offset + bk->size <= bj->offset + bj->size;
            int held = bk->offset <= bj->offset && bj->offset + bj->size <= bk->offset + bk->size;
            if (!holds && !held) {
                snprintf(err, err_size, "dispatches[%d] (%.40s): bindings %d and %d see overlapping windows of "
                         "buffer \"%.60s\", neither holding the other", i, case_dispatch_name(c, i), j, k,
                         c->bindings[case_dispatch_buffer(c, i, k)].name);
                return RUN_EXIT_BAD_INPUT;
            }
            if (holds && (best < 0 || bj->size > cur[best].size || (bj->size == cur[best].size && j < best)))
                best = j;
        }
        if (best >= 0 && (cur[best].size > bk->size || best < k))
            cur[k].alias = best + 1;
    }
    return RUN_EXIT_OK;
}

static int run_passes(const wl_case *c, const run_options *opt, run_output *out, char *err, size_t err_size)
{
    int n = c->dispatch_count;
    sim_stats *per = calloc((size_t)n, sizeof *per);
    double *per_us = opt && opt->memory ? calloc((size_t)n, sizeof *per_us) : NULL;
    sim_stats total;
    memset(&total, 0, sizeof total);
    uint8_t **state = calloc((size_t)c->binding_count + 1, sizeof *state);
    uint8_t *used = calloc((size_t)c->binding_count + 1, 1);
    int ok = per && state && used && (per_us || !(opt && opt->memory));
    for (int b = 0; ok && b < c->binding_count; b++) {
        state[b] = malloc(c->bindings[b].size ? c->bindings[b].size : 1);
        ok = state[b] != NULL;
        if (ok)
            memcpy(state[b], c->bindings[b].bytes, c->bindings[b].size);
    }
    if (state)
        state[c->binding_count] = (uint8_t *)-1; /* end marker for run_output_free */
    if (!ok) {
        for (int b = 0; state && b < c->binding_count && state[b] != (uint8_t *)-1; b++)
            free(state[b]);
        free(state);
        free(per);
        free(per_us);
        free(used);
        snprintf(err, err_size, "out of memory");
        return RUN_EXIT_BAD_INPUT;
    }
    int rc = RUN_EXIT_OK, i;
    char warnings[sizeof out->warnings] = "", note[sizeof out->optimizer_note] = "";
    double compile = 0, lower = 0, dispatch = 0;
    for (i = 0; i < n; i++) {
        wl_case view;
        case_dispatch_view(c, i, &view);
        case_binding *cur = malloc(((size_t)view.binding_count + 1) * sizeof *cur);
        if (!cur) {
            snprintf(err, err_size, "out of memory");
            rc = RUN_EXIT_BAD_INPUT;
            break;
        }
        for (int k = 0; k < view.binding_count; k++) {
            cur[k] = view.bindings[k];
            cur[k].bytes = state[case_dispatch_buffer(c, i, k)] + view.bindings[k].offset; /* its window */
            cur[k].alias = 0;
        }
        rc = pass_aliases(c, i, cur, view.binding_count, err, err_size);
        if (rc != RUN_EXIT_OK) {
            free(cur);
            break;
        }
        view.bindings = cur;
        if (i > 0)
            run_output_free(out);
        rc = run_one(&view, opt, out, err, err_size);
        if (per_us && rc == RUN_EXIT_OK) /* the model begins again with the next pass */
            per_us[i] = mem_model_estimate(opt->memory)->microseconds;
        for (uint32_t s = 0; out->prog && s < out->prog->slot_count; s++) {
            const case_binding *b = case_find_binding(&view, out->prog->slots[s].set, out->prog->slots[s].binding,
                                                       out->prog->slots[s].element);
            if (b && slot_has_binding(&out->prog->slots[s]))
                used[case_dispatch_buffer(c, i, (int)(b - view.bindings))] = 1;
        }
        free(cur);
        compile += out->compile_seconds;
        lower += out->lower_seconds;
        dispatch += out->dispatch_seconds;
        if (out->warnings[0])
            snprintf(warnings + strlen(warnings), sizeof warnings - strlen(warnings), "%s", out->warnings);
        if (out->optimizer_note[0] && !note[0])
            snprintf(note, sizeof note, "pass %d (%.40s): %.900s", i, case_dispatch_name(c, i), out->optimizer_note);
        if (rc == RUN_EXIT_BAD_INPUT && err[0]) {
            /* say which pass the message is about */
            char inner[1024];
            snprintf(inner, sizeof inner, "%s", err);
            snprintf(err, err_size, "dispatches[%d] (%.40s): %.900s", i, case_dispatch_name(c, i), inner);
        }
        if (out->data) {
            per[i] = out->result.stats;
            per[i].inst_executions = per[i].inst_lanes = NULL;
            per[i].inst_count = 0;
            run_stats_add(&total, &out->result.stats);
            /* the pass's results are the buffers' contents from now on (a faulted pass's too: what it wrote),
             * each binding's through its window */
            case_dispatch_view(c, i, &view);
            for (int k = 0; k < view.binding_count; k++) {
                int b = case_dispatch_buffer(c, i, k);
                memcpy(state[b] + view.bindings[k].offset, out->data[k], view.bindings[k].size);
            }
            /* the schedule check names bindings by their index in the case, not in the pass */
            for (int d = 0; d < out->schedule_diff_count; d++)
                out->schedule_diffs[d].binding = case_dispatch_buffer(c, i, out->schedule_diffs[d].binding);
        }
        if (rc != RUN_EXIT_OK || run_finding_count(out) != 0)
            break;
    }
    int last = i < n ? i : n - 1;
    if (i == n) /* every pass ran: a binding none of them declares is unused */
        warn_unused_bindings(c, used, warnings, sizeof warnings);
    free(used);
    /* out->data: every buffer's final contents, in the case's order (none when the last pass did not run) */
    uint8_t **pass_data = out->data;
    out->data = pass_data ? state : NULL;
    if (!pass_data)
        pass_data = state;
    for (uint32_t k = 0; pass_data[k] != (uint8_t *)-1; k++)
        free(pass_data[k]);
    free(pass_data);
    snprintf(out->warnings, sizeof out->warnings, "%s", warnings);
    snprintf(out->optimizer_note, sizeof out->optimizer_note, "%s", note);
    out->compile_seconds = compile;
    out->lower_seconds = lower;
    out->dispatch_seconds = dispatch;
    total.inst_executions = out->result.stats.inst_executions;
    total.inst_lanes = out->result.stats.inst_lanes;
    total.inst_count = out->result.stats.inst_count;
    out->result.stats = total;
    out->pass = last;
    out->pass_count = last + 1;
    out->pass_stats = per;
    out->pass_microseconds = per_us;
    return rc;
}

int run_case_sim(const wl_case *c, const run_options *opt, run_output *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    err[0] = 0;
    run_options per_pass; /* a case of several passes compiles each pass's kernel: a given one is the first's */
    if (c->dispatches && opt && opt->spirv) {
        per_pass = *opt;
        per_pass.spirv = NULL;
        per_pass.spirv_words = 0;
        opt = &per_pass;
    }
    /* a step hook follows one wave of one program: `trace` looks at the first pass alone (the top-level fields) */
    if (c->dispatches && !(opt && opt->step))
        return run_passes(c, opt, out, err, err_size);
    int rc = run_one(c, opt, out, err, err_size);
    uint8_t *used = calloc((size_t)c->binding_count + 1, 1);
    if (used && out->prog && !c->dispatches) {
        mark_used_bindings(c, out->prog, used);
        warn_unused_bindings(c, used, out->warnings, sizeof out->warnings);
    }
    free(used);
    return rc;
}

/* A copy of the caller's compiled kernel (run_options.spirv) as out->spirv. */
static isa_status given_spirv(const run_options *opt, run_output *out, char *err, size_t err_size)
{
    out->spirv = malloc(opt->spirv_words * sizeof *opt->spirv + 1);
    if (!out->spirv) {
        snprintf(err, err_size, "out of memory");
        return ISA_ERR_NOMEM;
    }
    memcpy(out->spirv, opt->spirv, opt->spirv_words * sizeof *opt->spirv);
    out->spirv_words = opt->spirv_words;
    return ISA_OK;
}

/* One dispatch of the case (or of one pass's view of it). */
static int run_one(const wl_case *c, const run_options *opt, run_output *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    err[0] = 0;
    out->pass_count = 1;
    uint32_t wave = run_wave_size(c, opt ? opt->wave_size : 0);
    out->wave_size = wave;
    if (!sim_wave_size_valid(wave)) {
        snprintf(err, err_size, "wave size %u: the simulator models powers of two from %d to %d", wave, SIM_MIN_WAVE,
                 SIM_MAX_WAVE);
        return RUN_EXIT_BAD_INPUT;
    }
    double t0 = seconds_now();
    isa_status st = opt && opt->spirv ? given_spirv(opt, out, err, err_size)
                                      : run_compile_case(c, &out->spirv, &out->spirv_words, err, err_size,
                                                         out->warnings, sizeof out->warnings);
    out->compile_seconds = seconds_now() - t0;
    if (st != ISA_OK)
        return RUN_EXIT_BAD_INPUT;
    const char *passes = opt && opt->optimize ? opt->optimize : c->optimize;
    if (!passes)
        return run_program(c, opt, wave, out, err, err_size);

    /* asked to optimize: run the kernel as written too, and say when the results differ */
    uint32_t *optimized = NULL;
    size_t optimized_words = 0;
    if (run_optimize_spirv(c, passes, out->spirv, out->spirv_words, &optimized, &optimized_words, err, err_size) !=
        ISA_OK)
        return RUN_EXIT_BAD_INPUT;
    run_output written = {.wave_size = wave, .spirv = out->spirv, .spirv_words = out->spirv_words};
    run_options plain = opt ? *opt : (run_options){0};
    plain.memory = NULL;
    plain.step = NULL; /* the hook follows the program whose output is returned: the optimized one (trace) */
    int rc = run_program(c, &plain, wave, &written, err, err_size);
    out->spirv = optimized;
    out->spirv_words = optimized_words;
    if (rc != RUN_EXIT_BAD_INPUT)
        rc = run_program(c, opt, wave, out, err, err_size);
    if (rc != RUN_EXIT_BAD_INPUT)
        compare_optimized(c, &written, out, out->optimizer_note, sizeof out->optimizer_note);
    run_output_free(&written);
    return rc;
}

uint32_t run_wave_size(const wl_case *c, uint32_t asked)
{
    return asked ? asked : c->subgroup_size ? c->subgroup_size : 32;
}

int run_check_expects(const wl_case *c, uint8_t *const *data, FILE *log)
{
    int failures = 0;
    for (int i = 0; i < c->expect_count; i++) {
        const case_expect *e = &c->expects[i];
        const case_binding *b = case_find_binding(c, e->set, e->binding, e->element);
        char msg[1024] = "", what[160];
        int ok = case_expect_check_data(c, e, data, msg, sizeof msg);
        if (!ok)
            failures++;
        if (b && b->name) /* a named buffer (an Amber script's) is known by its name */
            snprintf(what, sizeof what, "%.100s", b->name);
        else
            case_descriptor_text(e->set, e->binding, e->element, what, sizeof what);
        if (log) {
            if (ok)
                fprintf(log, "  PASS  expect %s (%zu elements)\n", what, e->count);
            else
                fprintf(log, "  FAIL  expect %s: %s\n", what, msg);
        }
    }
    return failures;
}
