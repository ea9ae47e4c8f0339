/*
 * case/amber_case.c — an Amber script's objects (case/amber_internal.h, read
 * by case/amber.c) built into a wl_case: a copy pass for every EXPECT that
 * stands between RUNs, one named binding per buffer a run binds or an
 * expectation checks, one pass per RUN binding its pipeline's buffers by name
 * at the pipeline's slots, and the expectations.
 */
#include "case/amber_internal.h"

#include <math.h>
#include <stdio.h>

/* The copy kernel of a snapshot pass: word i of binding 0 into binding 1, for i below the push constant.  Floats
 * are copied as floats, everything else as 32-bit words (the bits either way: no arithmetic touches them). */
static const char snapshot_glsl[] =
    "layout(local_size_x = 64) in;\n"
    "layout(push_constant) uniform P { uint words; } p;\n"
    "layout(set = 0, binding = 0) readonly buffer S { T s[]; };\n"
    "layout(set = 0, binding = 1) writeonly buffer D { T d[]; };\n"
    "void main() { uint i = gl_GlobalInvocationID.x; if (i < p.words) d[i] = s[i]; }\n";

static case_status snapshot_shader(amber *a, int is_float, int *out)
{
    const char *name = is_float ? "wavelab_snapshot_float" : "wavelab_snapshot_uint";
    if ((*out = amber_find_shader(a, name)) >= 0)
        return CASE_OK;
    GROW(a, a->shaders, a->shader_count);
    a_shader *s = &a->shaders[a->shader_count];
    s->name = strdup(name);
    s->language = "glsl";
    s->text = malloc(sizeof snapshot_glsl + 32);
    if (!s->name || !s->text) {
        free(s->name);
        free(s->text);
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    }
    snprintf(s->text, sizeof snapshot_glsl + 32, "#version 450\n#define T %s\n%s", is_float ? "float" : "uint",
             snapshot_glsl);
    *out = a->shader_count++;
    return CASE_OK;
}

/* A copy of buffer `src` as it is after `at` RUNs, in a new buffer whose index goes to *dst: a copy pass inserted
 * there.  Returns CASE_ERR_UNSUPPORTED when the buffer is not whole 32-bit words. */
static case_status snapshot(amber *a, int src, int at, int line, int *dst)
{
    if (a->buffers[src].size % 4)
        return UNSUPPORTED(a, line, "EXPECT %.60s between RUNs that bind it: a buffer of %zu bytes (not whole words) "
                           "cannot be copied for the check", a->buffers[src].name, a->buffers[src].size);
    int is_float = a->buffers[src].lay.type == CASE_TYPE_F32, shader;
    TRY(snapshot_shader(a, is_float, &shader));
    size_t words = a->buffers[src].size / 4;
    /* the copy, and the push-constant buffer holding its word count */
    GROW(a, a->buffers, a->buffer_count);
    a_buffer *copy = &a->buffers[a->buffer_count];
    char name[200];
    snprintf(name, sizeof name, "%.120s@%d", a->buffers[src].name, line);
    copy->name = strdup(name);
    copy->lay = a->buffers[src].lay;
    copy->line = line;
    if (!copy->name)
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    a->buffer_count++;
    TRY(amber_buffer_alloc(a, copy, a->buffers[src].elements));
    *dst = a->buffer_count - 1;
    GROW(a, a->buffers, a->buffer_count);
    a_buffer *count = &a->buffers[a->buffer_count];
    snprintf(name, sizeof name, "%.120s@%d.words", a->buffers[src].name, line);
    count->name = strdup(name);
    count->lay = (layout){CASE_TYPE_U32, 1, 1, 4, 4};
    count->line = line;
    if (!count->name)
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    a->buffer_count++;
    TRY(amber_buffer_alloc(a, count, 1));
    uint32_t w = (uint32_t)words;
    memcpy(count->bytes, &w, 4);
    /* the pipeline */
    GROW(a, a->pipes, a->pipe_count);
    a_pipeline *p = &a->pipes[a->pipe_count];
    snprintf(name, sizeof name, "snapshot@%d", line);
    p->name = strdup(name);
    if (!p->name)
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    p->shader = shader;
    p->push_buffer = a->buffer_count - 1;
    p->binds[0] = (a_bind){src, 0, 0, 0, CASE_KIND_STORAGE_BUFFER, line, 0, 0};
    p->binds[1] = (a_bind){*dst, 0, 1, 0, CASE_KIND_STORAGE_BUFFER, line, 0, 0};
    p->bind_count = 2;
    p->line = line;
    a->pipe_count++;
    /* the pass, after `at` RUNs; later expectations count it */
    if (a->run_count == MAX_PASSES)
        return UNSUPPORTED(a, line, "more than %d RUNs with the copies for EXPECTs between RUNs", MAX_PASSES);
    GROW(a, a->runs, a->run_count);
    memmove(&a->runs[at + 1], &a->runs[at], (size_t)(a->run_count - at) * sizeof *a->runs);
    a->runs[at] = (a_run){a->pipe_count - 1, {(uint32_t)((words + 63) / 64), 1, 1}, line, 1};
    a->run_count++;
    for (int i = 0; i < a->expect_count; i++)
        if (a->expects[i].runs_before > at || (a->expects[i].runs_before == at && a->expects[i].line > line))
            a->expects[i].runs_before++;
    return CASE_OK;
}

/* An EXPECT sees the buffers after the last pass; one on a buffer that a later RUN binds checks a copy taken
 * where the EXPECT stands instead (a pass of its own, `snapshot`). */
static case_status check_checkpoints(amber *a)
{
    for (int i = 0; i < a->expect_count; i++) {
        for (int which = 0; which < 2; which++) {
            int b = which ? a->expects[i].reference : a->expects[i].buffer;
            if (b < 0)
                continue;
            int later = 0;
            for (int r = a->expects[i].runs_before; r < a->run_count && !later; r++) {
                const a_pipeline *p = &a->pipes[a->runs[r].pipeline];
                for (int k = 0; k < p->bind_count && !a->runs[r].snapshot; k++)
                    later |= p->binds[k].buffer == b;
            }
            if (!later)
                continue;
            int copy = -1;
            TRY(snapshot(a, b, a->expects[i].runs_before, a->expects[i].line, &copy));
            if (which)
                a->expects[i].reference = copy;
            else
                a->expects[i].buffer = copy;
        }
    }
    return CASE_OK;
}

/* The buffers and images that become the case's bindings, in script order: those a run binds and those an
 * expectation reads (each pass binds them at its pipeline's own slots). */
static case_status case_bindings(amber *a, wl_case *c)
{
    for (int r = 0; r < a->run_count; r++) {
        const a_pipeline *p = &a->pipes[a->runs[r].pipeline];
        for (int k = 0; k < p->bind_count; k++)
            a->buffers[p->binds[k].buffer].used = 1;
    }
    for (int i = 0; i < a->expect_count; i++) {
        a->buffers[a->expects[i].buffer].used = 1;
        if (a->expects[i].reference >= 0)
            a->buffers[a->expects[i].reference].used = 1;
    }
    int n = 0;
    for (int i = 0; i < a->buffer_count; i++)
        n += a->buffers[i].used;
    c->bindings = calloc((size_t)n + 1, sizeof *c->bindings);
    if (!c->bindings)
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    for (int i = 0; i < a->buffer_count; i++) {
        a_buffer *b = &a->buffers[i];
        if (!b->used)
            continue;
        b->binding = c->binding_count;
        case_binding *cb = &c->bindings[c->binding_count++];
        /* the buffer's identity: set 0 and its index (each pass binds it at its pipeline's own slot) */
        cb->set = 0;
        cb->binding = (uint32_t)b->binding;
        cb->name = strdup(b->name);
        cb->kind = b->is_image ? CASE_KIND_STORAGE_IMAGE : CASE_KIND_STORAGE_BUFFER;
        cb->untyped = !b->is_image;
        cb->type = b->lay.type;
        cb->size = b->size;
        cb->count = b->is_image ? b->size / img_format_get(b->image.format)->texel_bytes
                                : b->size / case_type_size(b->lay.type);
        cb->bytes = b->bytes;
        if (b->is_image) {
            cb->image = b->image;
            cb->image.bytes = cb->bytes;
            cb->image.size = cb->size;
        }
        b->bytes = NULL; /* the case owns them now */
        if (!cb->name)
            return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    }
    return CASE_OK;
}

case_status amber_build_case(amber *a, wl_case *c)
{
    if (a->run_count == 0)
        return UNSUPPORTED(a, 0, "no RUN: nothing to dispatch");
    TRY(check_checkpoints(a));
    TRY(case_bindings(a, c));
    /* one pass per RUN */
    c->dispatches = calloc((size_t)a->run_count, sizeof *c->dispatches);
    if (!c->dispatches)
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    for (int r = 0; r < a->run_count; r++) {
        const a_run *run = &a->runs[r];
        const a_pipeline *p = &a->pipes[run->pipeline];
        const a_shader *s = &a->shaders[p->shader];
        case_dispatch *d = &c->dispatches[r];
        c->dispatch_count = r + 1;
        char kernel[1024];
        snprintf(kernel, sizeof kernel, "%s#%s", c->path, s->name);
        d->name = strdup(p->name);
        d->kernel = strdup(kernel);
        d->language = strdup(s->language);
        d->entry = strdup(p->entry ? p->entry : "main");
        memcpy(d->groups, run->groups, sizeof d->groups);
        if (!d->name || !d->kernel || !d->language || !d->entry)
            return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
        if (s->text && !(d->kernel_text = strdup(s->text)))
            return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
        if (s->words) {
            if (!(d->kernel_words = malloc(s->word_count * sizeof *s->words)))
                return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
            memcpy(d->kernel_words, s->words, s->word_count * sizeof *s->words);
            d->kernel_word_count = s->word_count;
        }
        /* every pass names its target, so the top level's copy of the first pass's applies to no other */
        const char *target = s->target_env ? s->target_env : "vulkan1.1";
        if (!(d->target_env = strdup(target)))
            return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
        if (p->push_buffer >= 0) {
            /* push constants: the buffer's bytes, padded to whole words (a Vulkan rule) */
            const a_buffer *pb = &a->buffers[p->push_buffer];
            const uint8_t *bytes = pb->bytes ? pb->bytes : c->bindings[pb->binding].bytes;
            size_t size = (pb->size + 3) & ~(size_t)3;
            if (size > CASE_MAX_PUSH_BYTES)
                return UNSUPPORTED(a, run->line, "push constants of %zu bytes (at most %d)", size, CASE_MAX_PUSH_BYTES);
            if (!(d->push_constants = calloc(size, 1)))
                return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
            memcpy(d->push_constants, bytes, pb->size);
            d->push_size = size;
            d->push_type = CASE_TYPE_U32;
        }
        if (p->spec_count) {
            if (!(d->spec = calloc((size_t)p->spec_count, sizeof *d->spec)))
                return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
            for (int k = 0; k < p->spec_count; k++) {
                d->spec[k] = p->spec[k];
                d->spec[k].key = strdup(p->spec[k].key);
                d->spec_count = k + 1;
                if (!d->spec[k].key)
                    return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
            }
        }
        d->bindings = calloc((size_t)p->bind_count + 1, sizeof *d->bindings);
        d->binding_buffer = calloc((size_t)p->bind_count + 1, sizeof *d->binding_buffer);
        if (!d->bindings || !d->binding_buffer)
            return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
        for (int k = 0; k < p->bind_count; k++) {
            int b = a->buffers[p->binds[k].buffer].binding;
            d->bindings[k] = c->bindings[b];
            d->bindings[k].set = p->binds[k].set;
            d->bindings[k].binding = p->binds[k].binding;
            d->bindings[k].element = p->binds[k].element;
            d->bindings[k].kind = p->binds[k].kind;
            if (p->binds[k].size) { /* a window on the buffer */
                d->bindings[k].offset = p->binds[k].offset;
                d->bindings[k].size = p->binds[k].size;
                d->bindings[k].count = p->binds[k].size / case_type_size(d->bindings[k].type);
            }
            d->binding_buffer[k] = b;
            d->binding_count = k + 1;
        }
        if (p->subgroup_size) {
            if (c->subgroup_size && c->subgroup_size != p->subgroup_size)
                return UNSUPPORTED(a, p->line, "pipelines with different REQUIRED_SIZE (%u and %u)", c->subgroup_size,
                                   p->subgroup_size);
            c->subgroup_size = p->subgroup_size;
        }
    }
    /* the top level is a copy of the first pass's (case.h) */
    const case_dispatch *d0 = &c->dispatches[0];
    c->kernel = strdup(d0->kernel);
    c->language = strdup(d0->language);
    c->entry = strdup(d0->entry);
    c->target_env = strdup(d0->target_env);
    memcpy(c->groups, d0->groups, sizeof c->groups);
    if (!c->kernel || !c->language || !c->entry || !c->target_env)
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    if (d0->push_constants) {
        if (!(c->push_constants = malloc(d0->push_size)))
            return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
        memcpy(c->push_constants, d0->push_constants, d0->push_size);
        c->push_size = d0->push_size;
        c->push_type = d0->push_type;
    }
    c->kernel_text = d0->kernel_text;
    c->kernel_words = d0->kernel_words;
    c->kernel_word_count = d0->kernel_word_count;
    /* expectations */
    c->expects = calloc((size_t)a->expect_count + 1, sizeof *c->expects);
    if (!c->expects)
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    for (int i = 0; i < a->expect_count; i++) {
        a_expect *x = &a->expects[i];
        const case_binding *b = &c->bindings[a->buffers[x->buffer].binding];
        x->e.set = b->set;
        x->e.binding = b->binding;
        if (x->reference >= 0)
            x->e.reference = a->buffers[x->reference].binding;
        c->expects[c->expect_count++] = x->e;
        x->e.bytes = NULL; /* the case owns them now */
    }
    return CASE_OK;
}
