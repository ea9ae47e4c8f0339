/*
 * run/sanitize.c — the case-level half of `--sanitize`: the schedule check
 * (the dispatch again under another legal order, every output element that
 * changes recorded) and the one report format every command prints.
 *
 * The sanitizer proper (races, uninitialized reads, inactive-lane reads,
 * divergent barriers) lives in sim/sanitize.c and reports into
 * sim_result.findings; this file adds what needs the case: initial contents
 * to run again from, element types to compare and print, and the
 * expectations that allow an order ("compare": "sorted").
 */
#define _GNU_SOURCE /* qsort_r: `wavelab test` runs cases on several threads, so no global for the element size */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"

static int cmp_elements(const void *a, const void *b, void *elem_size) { return memcmp(a, b, *(size_t *)elem_size); }

/* Whether two arrays of `count` elements of `es` bytes hold the same elements in some order. */
static int same_multiset(const uint8_t *x, const uint8_t *y, size_t count, size_t es, int *nomem)
{
    uint8_t *sx = malloc(count * es + 1), *sy = malloc(count * es + 1);
    int same = 0;
    if (!sx || !sy) {
        *nomem = 1;
    } else {
        memcpy(sx, x, count * es);
        memcpy(sy, y, count * es);
        /* byte order does not matter for equality of multisets: any total order on the bytes will do */
        qsort_r(sx, count, es, cmp_elements, &es);
        qsort_r(sy, count, es, cmp_elements, &es);
        same = memcmp(sx, sy, count * es) == 0;
    }
    free(sx);
    free(sy);
    return same;
}

int run_schedule_check(const wl_case *c, const sim_config *linear, run_output *out)
{
    sim_buffer *bufs = calloc((size_t)c->binding_count + 1, sizeof *bufs);
    uint8_t **data = calloc((size_t)c->binding_count + 1, sizeof *data);
    int nomem = !bufs || !data;
    for (int i = 0; !nomem && i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        data[i] = malloc(b->size ? b->size : 1);
        if (!data[i]) {
            nomem = 1;
            break;
        }
        memcpy(data[i], b->bytes, b->size);
    }
    if (!nomem)
        run_buffer_bindings(c, data, bufs);
    sim_image *images = NULL;
    int image_count = 0;
    if (!nomem && !run_image_bindings(c, data, &images, &image_count))
        nomem = 1;
    if (!nomem) {
        sim_config cfg = *linear;
        cfg.buffers = bufs;
        cfg.images = images;
        cfg.image_count = image_count;
        cfg.sanitize = 0;
        cfg.mem_trace = NULL;
        cfg.schedule = SIM_SCHEDULE_REVERSED;
        sim_result r;
        sim_status st = sim_run(out->prog, &cfg, &r);
        run_alias_sync(c, data);
        if (st == SIM_FAULT) {
            char where[512];
            sim_location_format(out->prog, &r.fault_event.where, where, sizeof where);
            snprintf(out->schedule_fault, sizeof out->schedule_fault, "%s: %.200s at %.240s",
                     sim_fault_kind_name(r.fault), r.fault_event.message, where);
        } else if (st != SIM_OK) {
            nomem = 1;
        }
        for (int i = 0; st == SIM_OK && i < c->binding_count; i++) {
            const case_binding *b = &c->bindings[i];
            size_t es = case_type_size(b->type);
            if (memcmp(data[i], out->data[i], b->size) == 0)
                continue;
            const case_expect *e = case_expect_for(c, b);
            if (e && e->compare == CASE_COMPARE_SORTED && same_multiset(data[i], out->data[i], b->count, es, &nomem))
                continue;
            for (size_t k = 0; k < b->count; k++) {
                if (memcmp(data[i] + k * es, out->data[i] + k * es, es) == 0)
                    continue;
                out->schedule_diff_total++;
                if (out->schedule_diff_count >= RUN_MAX_SCHEDULE_DIFFS)
                    continue;
                run_schedule_diff *d = &out->schedule_diffs[out->schedule_diff_count++];
                d->binding = i;
                d->element = k;
                case_format_element(b->type, out->data[i] + k * es, d->linear, sizeof d->linear);
                case_format_element(b->type, data[i] + k * es, d->reversed, sizeof d->reversed);
            }
        }
        sim_result_free(&r);
    }
    for (int i = 0; data && i < c->binding_count; i++)
        free(data[i]);
    free(data);
    free(bufs);
    free(images);
    return nomem ? -1 : 0;
}

uint64_t run_finding_count(const run_output *out)
{
    return out->result.finding_total + out->schedule_diff_total + (out->schedule_fault[0] != 0);
}

uint64_t run_print_findings(const wl_case *c, const run_output *out, FILE *f)
{
    const sim_result *r = &out->result;
    for (int i = 0; i < r->finding_count; i++) {
        const sim_finding *fd = &r->findings[i];
        char where[512], text[256] = "";
        sim_location_format(out->prog, &fd->where, where, sizeof where);
        if (out->prog && fd->where.pc < out->prog->code_count)
            isa_inst_format(out->prog, &out->prog->code[fd->where.pc], text, sizeof text);
        fprintf(f, "sanitize: %s at %s: %s\n    instruction: %s\n", sim_finding_kind_name(fd->kind), where,
                fd->message, text);
    }
    if (r->finding_total > (uint64_t)r->finding_count)
        fprintf(f, "sanitize: ... and %llu more sites\n", (unsigned long long)(r->finding_total - r->finding_count));
    for (int i = 0; i < out->schedule_diff_count; i++) {
        const run_schedule_diff *d = &out->schedule_diffs[i];
        const case_binding *b = &c->bindings[d->binding];
        fprintf(f, "sanitize: %s: set %u binding %u element %zu is %s in the linear order and %s in the reversed "
                   "order (workgroups and waves reversed)\n",
                sim_finding_kind_name(SIM_FINDING_SCHEDULE), b->set, b->binding, d->element, d->linear, d->reversed);
    }
    if (out->schedule_diff_total > (uint64_t)out->schedule_diff_count)
        fprintf(f, "sanitize: schedule: ... and %llu more elements\n",
                (unsigned long long)(out->schedule_diff_total - (uint64_t)out->schedule_diff_count));
    if (out->schedule_fault[0])
        fprintf(f, "sanitize: %s: the reversed order faults where the linear one does not: %s\n",
                sim_finding_kind_name(SIM_FINDING_SCHEDULE), out->schedule_fault);
    uint64_t n = run_finding_count(out);
    if (n)
        fprintf(f, "sanitize: %llu finding%s\n", (unsigned long long)n, n == 1 ? "" : "s");
    else
        fprintf(f, "sanitize: no findings\n");
    return n;
}
