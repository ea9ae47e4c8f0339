/*
 * sim/sanitize.c — the kernel sanitizer behind `--sanitize`: racecheck,
 * initcheck, inactive-lane reads and synccheck, at any wave size.
 *
 * The executor calls in only when sim_config.sanitize is set (sim/sanitize.h
 * says when); everything the sanitizer learns goes into result->findings,
 * one finding per (kind, instruction), and never changes what the kernel
 * computes.  Schedule dependence is found one level up (run/sanitize.c) by
 * running the dispatch again under SIM_SCHEDULE_REVERSED.
 *
 * Races are judged against the model's own rules of order:
 *   - the waves of a workgroup are unordered between two barriers: two
 *     accesses to one byte from different waves in the same epoch conflict
 *     when either writes, unless both are atomics;
 *   - the lanes of one wave run in lockstep, so different instructions of a
 *     wave are ordered; within one store instruction, two lanes writing
 *     different values to one address conflict (which one lands is the
 *     hardware's choice);
 *   - workgroups are unordered with respect to each other and no barrier
 *     orders them, so buffer and image accesses are compared within a
 *     workgroup only (docs/quirks.md says what that misses).
 * Images the kernel writes, or the case marks uninitialized, are watched
 * per texel (an image instruction reads or writes a whole texel), under the
 * same rules.
 * The epoch is stats.workgroups + stats.barriers: it grows by one at every
 * workgroup start and every barrier release, so equal epochs mean "same
 * workgroup, no barrier between".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/sanitize.h"

const char *sim_finding_kind_name(sim_finding_kind k)
{
    static const char *const names[] = {
#define X(id, name, meaning) [SIM_FINDING_##id] = name,
        SIM_FINDING_LIST(X)
#undef X
    };
    return (unsigned)k < SIM_FINDING_KIND_COUNT ? names[k] : "?";
}

enum {
    CELL_WRITTEN = 1,  /* something wrote this byte (this workgroup for shared memory; this dispatch for buffers) */
    CELL_W_ATOMIC = 2, /* the last write was an atomic */
    CELL_R_MULTI = 4,  /* several waves read it in r_epoch */
    CELL_R_ATOMIC = 8  /* every read in r_epoch was an atomic (the record then names an atomic reader) */
};

/* The shadow of one byte. */
typedef struct san_cell {
    uint32_t w_epoch, r_epoch;   /* epoch of the last write / read; 0: none */
    uint32_t w_pc, r_pc;
    uint16_t w_wave, r_wave;
    uint8_t w_lane, r_lane, flags, unused;
} san_cell;

typedef struct san_slot {
    san_cell *cells;             /* buffers: one per byte; images: one per texel; NULL when not watched */
    int check_init;              /* the case marked the buffer or image uninitialized */
} san_slot;

struct sim_sanitizer {
    san_slot *slots;             /* per program slot */
    san_cell *shared;            /* one per byte of the workgroup's shared area */
    uint8_t *private_written;    /* per wave, lane and byte of private memory: 1 when written */
    uint8_t *reported;           /* per instruction: bit (1 << kind) once that kind was reported there */
    uint64_t workgroup_serial;   /* stats.workgroups when the per-workgroup shadows were last cleared */
};

/* One lane's component written by a store, for the same-instruction check. */
typedef struct san_store {
    uint64_t address, value;
    uint32_t lane;
} san_store;

static int slot_is_buffer(isa_space s) { return s <= ISA_SPACE_UNIFORM_TEXEL; }

/* Whether the case marks the binding of slot sl uninitialized (sim_config.uninitialized, one per buffer). */
static int marked_uninitialized(const sim_ctx *ctx, const isa_slot *sl)
{
    for (int b = 0; b < ctx->cfg->buffer_count && ctx->cfg->uninitialized; b++) {
        const sim_buffer *buf = &ctx->cfg->buffers[b];
        if (ISA_SAME_DESCRIPTOR(*buf, *sl) && ctx->cfg->uninitialized[b])
            return 1;
    }
    return 0;
}

sim_status sim_sanitize_begin(sim_ctx *ctx)
{
    const isa_program *p = ctx->prog;
    const uint32_t W = ctx->wave_size, nw = ctx->waves_per_group;
    struct sim_sanitizer *s = calloc(1, sizeof *s);
    if (!s)
        return SIM_ERR_NOMEM;
    ctx->sanitize = s;
    s->slots = calloc(p->slot_count + 1, sizeof *s->slots);
    s->reported = calloc(p->code_count + 1, 1);
    s->shared = calloc(ctx->workgroup_mem_size + 1, sizeof *s->shared);
    s->private_written = calloc(ctx->private_lane_bytes * W * nw + 1, 1);
    if (!s->slots || !s->reported || !s->shared || !s->private_written)
        return SIM_ERR_NOMEM;
    /* buffers get a cell per byte, images one per texel of every mip and layer; a binding nobody writes cannot
     * race, and one with known contents cannot be read uninitialized */
    for (uint32_t k = 0; k < p->slot_count; k++) {
        const isa_slot *sl = &p->slots[k];
        const img_image *im = ctx->slots[k].image;
        size_t cells;
        if (slot_is_buffer(sl->space) && ctx->slots[k].data)
            cells = ctx->slots[k].size;
        else if ((sl->space == ISA_SPACE_STORAGE_IMAGE || sl->space == ISA_SPACE_SAMPLED_IMAGE) && im)
            cells = img_image_texels(im);
        else
            continue;
        s->slots[k].check_init = marked_uninitialized(ctx, sl);
        if (!sl->written && !s->slots[k].check_init)
            continue;
        s->slots[k].cells = calloc(cells + 1, sizeof(san_cell));
        if (!s->slots[k].cells)
            return SIM_ERR_NOMEM;
    }
    return SIM_OK;
}

void sim_sanitize_end(sim_ctx *ctx)
{
    struct sim_sanitizer *s = ctx->sanitize;
    if (!s)
        return;
    for (uint32_t k = 0; s->slots && k < ctx->prog->slot_count; k++)
        free(s->slots[k].cells);
    free(s->slots);
    free(s->shared);
    free(s->private_written);
    free(s->reported);
    free(s);
    ctx->sanitize = NULL;
}

void sim_sanitize_report(sim_ctx *ctx, const sim_wave *w, uint32_t pc, sim_finding_kind kind, int32_t lane,
                         int32_t slot, int64_t address, const char *fmt, ...)
{
    struct sim_sanitizer *s = ctx->sanitize;
    sim_result *r = ctx->result;
    if (!s)
        return;
    if (pc < ctx->prog->code_count) {
        if (s->reported[pc] & (1u << kind))
            return;
        s->reported[pc] |= (uint8_t)(1u << kind);
    }
    r->finding_total++;
    if (r->finding_count >= SIM_MAX_FINDINGS)
        return;
    sim_finding *f = &r->findings[r->finding_count++];
    f->kind = kind;
    sim_location_at(ctx, w, pc, lane, &f->where);
    f->where.slot = slot;
    f->where.address = address;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
}

/* Shared and private memory start unwritten in every workgroup. */
static void enter_workgroup(sim_ctx *ctx, struct sim_sanitizer *s)
{
    if (s->workgroup_serial == ctx->result->stats.workgroups)
        return;
    s->workgroup_serial = ctx->result->stats.workgroups;
    memset(s->shared, 0, ctx->workgroup_mem_size * sizeof *s->shared);
    memset(s->private_written, 0, ctx->private_lane_bytes * ctx->wave_size * ctx->waves_per_group);
}

static const char *access_name(const isa_inst *in)
{
    return isa_op_name((isa_op)in->op);
}

static const char *slot_words(const isa_slot *sl, char *buf, size_t size)
{
    if (slot_is_buffer(sl->space) || sl->space == ISA_SPACE_STORAGE_IMAGE || sl->space == ISA_SPACE_SAMPLED_IMAGE)
        snprintf(buf, size, "%s '%s' (set %u binding %u)", isa_space_name(sl->space), sl->name, sl->set, sl->binding);
    else
        snprintf(buf, size, "%s '%s'", isa_space_name(sl->space), sl->name);
    return buf;
}

/* Where an access lands, as a finding says it: the slot and the byte address, or the slot and the texel. */
static const char *place_words(const isa_slot *sl, const sim_texel_at *t, uint64_t address, char *buf, size_t size)
{
    char slot[128];
    slot_words(sl, slot, sizeof slot);
    if (t && t->sample)
        snprintf(buf, size, "%s at texel (%d, %d, %d) layer %lld sample %lld", slot, t->xyz[0], t->xyz[1], t->xyz[2],
                 (long long)t->layer, (long long)t->sample);
    else if (t)
        snprintf(buf, size, "%s at texel (%d, %d, %d) layer %lld mip %lld", slot, t->xyz[0], t->xyz[1], t->xyz[2],
                 (long long)t->layer, (long long)t->mip);
    else
        snprintf(buf, size, "%s at 0x%llx", slot, (unsigned long long)address);
    return buf;
}

static uint32_t line_of(const sim_ctx *ctx, uint32_t pc)
{
    return pc < ctx->prog->code_count ? ctx->prog->code[pc].line : 0;
}

/*
 * Checks and records the `bytes` cells from `first` on, accessed by lane `lane` of wave w at `address` (what a
 * finding names): the bytes of shared memory or a watched buffer from that address on, or the one cell of a
 * texel t of a watched image (address: the texel's byte offset in the image).
 */
static void touch_cells(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc, san_cell *first,
                        int check_init, uint32_t lane, uint64_t address, unsigned bytes, int reads, int writes,
                        int atomic, uint32_t epoch, const sim_texel_at *t)
{
    const isa_slot *sl = &ctx->prog->slots[in->slot];
    const uint16_t X = (uint16_t)w->index;
    char where[192];
    for (unsigned b = 0; b < bytes; b++) {
        san_cell *c = &first[b];
        if (reads && check_init && !(c->flags & CELL_WRITTEN)) {
            place_words(sl, t, address, where, sizeof where);
            if (t) /* a texel is read whole */
                sim_sanitize_report(ctx, w, pc, SIM_FINDING_UNINITIALIZED, (int32_t)lane, (int32_t)in->slot,
                                    (int64_t)address, "%s reads %s, which nothing wrote", access_name(in), where);
            else
                sim_sanitize_report(ctx, w, pc, SIM_FINDING_UNINITIALIZED, (int32_t)lane, (int32_t)in->slot,
                                    (int64_t)address, "%s reads %u bytes of %s that nothing wrote", access_name(in),
                                    bytes, where);
        }
        int other_write = c->w_epoch == epoch && c->w_wave != X && !(atomic && (c->flags & CELL_W_ATOMIC));
        if (other_write)
            sim_sanitize_report(ctx, w, pc, SIM_FINDING_RACE, (int32_t)lane, (int32_t)in->slot, (int64_t)address,
                                "%s by wave %u and a %s write by wave %u lane %u at pc %u (line %u) touch %s with no "
                                "barrier between",
                                access_name(in), w->index, (c->flags & CELL_W_ATOMIC) ? "atomic" : "plain", c->w_wave,
                                c->w_lane, c->w_pc, line_of(ctx, c->w_pc),
                                place_words(sl, t, address + b, where, sizeof where));
        else if (writes && c->r_epoch == epoch && (c->r_wave != X || (c->flags & CELL_R_MULTI)) &&
                 !(atomic && (c->flags & CELL_R_ATOMIC)))
            sim_sanitize_report(ctx, w, pc, SIM_FINDING_RACE, (int32_t)lane, (int32_t)in->slot, (int64_t)address,
                                "%s by wave %u and a read by wave %u lane %u at pc %u (line %u) touch %s with no "
                                "barrier between",
                                access_name(in), w->index, c->r_wave, c->r_lane, c->r_pc, line_of(ctx, c->r_pc),
                                place_words(sl, t, address + b, where, sizeof where));
        if (writes) {
            c->w_epoch = epoch;
            c->w_wave = X;
            c->w_lane = (uint8_t)lane;
            c->w_pc = pc;
            c->flags = (uint8_t)((c->flags & ~CELL_W_ATOMIC) | CELL_WRITTEN | (atomic ? CELL_W_ATOMIC : 0));
        } else if (reads) {
            /* the record keeps the first read of the epoch, or the first plain one once there is one: a later
             * write races with it unless both are atomics */
            int first = c->r_epoch != epoch, first_plain = !first && !atomic && (c->flags & CELL_R_ATOMIC);
            if (!first && c->r_wave != X)
                c->flags |= CELL_R_MULTI;
            if (first || first_plain) {
                c->r_epoch = epoch;
                c->r_wave = X;
                c->r_lane = (uint8_t)lane;
                c->r_pc = pc;
                c->flags = (uint8_t)((c->flags & ~(CELL_R_ATOMIC | (first ? CELL_R_MULTI : 0))) |
                                     (atomic ? CELL_R_ATOMIC : 0));
            }
        }
    }
}

static int cmp_store(const void *a, const void *b)
{
    const san_store *x = a, *y = b;
    if (x->address != y->address)
        return x->address < y->address ? -1 : 1;
    return x->lane < y->lane ? -1 : x->lane > y->lane;
}

/* Two lanes of one store writing different values to one address: which lands is the hardware's choice. */
static void same_instruction_stores(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc,
                                    san_store *st, size_t n, unsigned size)
{
    char where[128];
    qsort(st, n, sizeof *st, cmp_store);
    for (size_t i = 1; i < n; i++)
        if (st[i].address == st[i - 1].address && st[i].lane != st[i - 1].lane && st[i].value != st[i - 1].value) {
            sim_sanitize_report(ctx, w, pc, SIM_FINDING_RACE, (int32_t)st[i].lane, (int32_t)in->slot,
                                (int64_t)st[i].address,
                                "%s: lanes %u and %u of wave %u write different values (%u bytes) to %s at 0x%llx in "
                                "one instruction",
                                access_name(in), st[i - 1].lane, st[i].lane, w->index, size,
                                slot_words(&ctx->prog->slots[in->slot], where, sizeof where),
                                (unsigned long long)st[i].address);
            return;
        }
}

/* Bytes of one texel of a texel-buffer slot (the executor's rule: an unknown format is one 32-bit component). */
static unsigned texel_bytes(const isa_slot *sl)
{
    if (sl->format != ISA_FORMAT_UNKNOWN && sl->format < ISA_FORMAT_COUNT)
        return isa_format_bytes(sl->format);
    return isa_type_size(sl->texel_type == ISA_TYPE_NONE ? ISA_TYPE_U32 : sl->texel_type);
}

int sim_sanitize_memory(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc, uint64_t exec)
{
    struct sim_sanitizer *s = ctx->sanitize;
    const isa_op op = (isa_op)in->op;
    const isa_slot *sl = &ctx->prog->slots[in->slot];
    const sim_slot_mem *m = &ctx->slots[in->slot];
    const uint32_t W = ctx->wave_size;
    if (op != ISA_OP_LOAD && op != ISA_OP_STORE && op != ISA_OP_ATOMIC && op != ISA_OP_IMG_READ &&
        op != ISA_OP_IMG_WRITE)
        return 0;
    if (sl->space == ISA_SPACE_PUSH)
        return 0;
    enter_workgroup(ctx, s);
    const uint32_t epoch = (uint32_t)(ctx->result->stats.workgroups + ctx->result->stats.barriers);
    const int atomic = op == ISA_OP_ATOMIC;
    const isa_reduce_op red = (isa_reduce_op)in->imm2;
    const int reads = op == ISA_OP_LOAD || op == ISA_OP_IMG_READ || (atomic && red != ISA_RED_STORE);
    const int writes = op == ISA_OP_STORE || op == ISA_OP_IMG_WRITE || (atomic && red != ISA_RED_LOAD);
    unsigned elem, n;
    const uint64_t *A = in->a == ISA_NO_REG ? NULL : sim_reg(ctx, w, in->a);
    if (op == ISA_OP_IMG_READ || op == ISA_OP_IMG_WRITE) {
        elem = texel_bytes(sl);
        n = 1;
    } else {
        elem = isa_type_size((isa_type)in->type);
        n = atomic ? 1 : in->count ? in->count : 1;
    }
    if (elem == 0)
        return 0;
    const uint64_t span = (uint64_t)elem * n;
    san_cell *cells = NULL;
    int check_init = 0;
    if (sl->space == ISA_SPACE_WORKGROUP) {
        cells = s->shared + m->area_offset;
        check_init = 1;
    } else if (slot_is_buffer(sl->space)) {
        cells = s->slots[in->slot].cells;
        check_init = s->slots[in->slot].check_init;
        if (!cells)
            return 0;
    }
    /* the same-instruction check of plain stores: one entry per lane and component */
    san_store stores[SIM_MAX_WAVE * 4];
    size_t nstores = 0;
    const int check_stores = op == ISA_OP_STORE && cells && n <= 4;

    for (uint32_t l = 0; l < W; l++) {
        if (!((exec >> l) & 1))
            continue;
        uint64_t address = op == ISA_OP_IMG_READ || op == ISA_OP_IMG_WRITE
                               ? (uint64_t)(uint32_t)A[l] * elem
                               : (A ? (uint64_t)(uint32_t)A[l] : 0) + (uint64_t)in->imm;
        if (!(address <= m->size && m->size - address >= span))
            continue; /* the executor stops the run with an out-of-bounds fault */
        if (sl->space == ISA_SPACE_PRIVATE) {
            uint8_t *written = s->private_written +
                               ((size_t)w->index * W + l) * ctx->private_lane_bytes + m->area_offset + address;
            if (reads)
                for (uint64_t b = 0; b < span; b++)
                    if (!written[b]) {
                        char where[128];
                        uint64_t at = address + b / elem * elem;
                        sim_sanitize_report(ctx, w, pc, SIM_FINDING_UNINITIALIZED, (int32_t)l, (int32_t)in->slot,
                                            (int64_t)at, "%s reads %u bytes of %s at 0x%llx that nothing wrote",
                                            access_name(in), elem, slot_words(sl, where, sizeof where),
                                            (unsigned long long)at);
                        break;
                    }
            if (writes)
                memset(written, 1, span);
            continue;
        }
        for (unsigned i = 0; i < n; i++) {
            uint64_t at = address + (uint64_t)i * elem;
            touch_cells(ctx, w, in, pc, cells + at, check_init, l, at, elem, reads, writes, atomic, epoch, NULL);
            if (check_stores) {
                uint64_t v = w->regs[((size_t)in->b + i) * W + l];
                stores[nstores++] = (san_store){.address = at,
                                                .value = elem >= 8 ? v : v & ((1ull << (8 * elem)) - 1),
                                                .lane = l};
            }
        }
    }
    if (nstores > 1)
        same_instruction_stores(ctx, w, in, pc, stores, nstores, elem);
    return 0;
}

/* Checks and records texel t of the watched image of instruction `in`, accessed by lane `lane`; returns the
 * texel's byte offset in the image (what a finding names). */
static uint64_t touch_texel(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc, uint32_t lane,
                            const sim_texel_at *t, int reads, int writes, int atomic)
{
    struct sim_sanitizer *s = ctx->sanitize;
    const img_image *im = ctx->slots[in->slot].image;
    enter_workgroup(ctx, s);
    const uint32_t epoch = (uint32_t)(ctx->result->stats.workgroups + ctx->result->stats.barriers);
    const uint64_t offset = img_texel_offset(im, (uint32_t)t->xyz[0], (uint32_t)t->xyz[1], (uint32_t)t->xyz[2],
                                             sim_texel_plane(im, t), (uint32_t)t->mip);
    touch_cells(ctx, w, in, pc, s->slots[in->slot].cells + offset / img_format_get(im->format)->texel_bytes,
                s->slots[in->slot].check_init, lane, offset, 1, reads, writes, atomic, epoch, t);
    return offset;
}

void sim_sanitize_image(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc, uint64_t exec,
                        const sim_texel_at *at)
{
    if (!ctx->sanitize->slots[in->slot].cells)
        return;
    const isa_op op = (isa_op)in->op;
    const isa_reduce_op red = (isa_reduce_op)in->imm2;
    const int atomic = op == ISA_OP_IMG_ATOMIC;
    const int reads = op == ISA_OP_IMG_LOAD || (atomic && red != ISA_RED_STORE);
    const int writes = op == ISA_OP_IMG_STORE || (atomic && red != ISA_RED_LOAD);
    const uint32_t W = ctx->wave_size;
    const img_image *im = ctx->slots[in->slot].image;
    uint64_t offset[SIM_MAX_WAVE]; /* each lane's texel as a byte offset in the image: what a finding names */
    for (uint32_t l = 0; l < W; l++) {
        if (!((exec >> l) & 1))
            continue;
        const sim_texel_at *t = &at[l];
        offset[l] = touch_texel(ctx, w, in, pc, l, t, reads, writes, atomic);
        if (op != ISA_OP_IMG_STORE)
            continue;
        /* an earlier lane of this store writing the same texel, and whether the texels it encodes differ */
        uint32_t k = 0;
        while (k < l && !(((exec >> k) & 1) && offset[k] == offset[l]))
            k++;
        if (k == l)
            continue;
        uint8_t enc[2][16] = {{0}};
        const uint32_t lanes[2] = {k, l};
        for (int j = 0; j < 2; j++) {
            img_texel v;
            for (int c = 0; c < 4; c++)
                v.u[c] = (uint32_t)w->regs[((size_t)in->b + c) * W + lanes[j]];
            img_encode(im->format, &v, enc[j]);
        }
        if (memcmp(enc[0], enc[1], sizeof enc[0]) != 0) {
            char where[192];
            sim_sanitize_report(ctx, w, pc, SIM_FINDING_RACE, (int32_t)l, (int32_t)in->slot, (int64_t)offset[l],
                                "%s: lanes %u and %u of wave %u write different values to %s in one instruction",
                                access_name(in), k, l, w->index,
                                place_words(&ctx->prog->slots[in->slot], t, 0, where, sizeof where));
        }
    }
}

/* img_sampler.texel_read for a watched sample: the texel a lane reads (always one in the image: img/img.h), as an
 * IMG_LOAD of it is checked. */
static void sampled_texel_read(void *user, const int32_t at[3], uint32_t layer, uint32_t mip)
{
    const sim_texel_reader *r = user;
    const sim_texel_at t = {{at[0], at[1], at[2]}, layer, mip, 0};
    touch_texel(r->ctx, r->w, r->in, r->pc, r->lane, &t, 1, 0, 0);
}

int sim_sanitize_watch_sampler(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc, img_sampler *copy,
                               sim_texel_reader *reader)
{
    const struct sim_sanitizer *s = ctx->sanitize;
    if (!s || !s->slots[in->slot].cells || !s->slots[in->slot].check_init)
        return 0;
    *reader = (sim_texel_reader){.ctx = ctx, .w = w, .in = in, .pc = pc, .lane = 0};
    copy->texel_read = sampled_texel_read;
    copy->texel_read_user = reader;
    return 1;
}

void sim_sanitize_barrier(sim_ctx *ctx)
{
    const uint32_t nw = ctx->waves_per_group;
    const sim_wave *first = NULL;
    for (uint32_t k = 0; k < nw; k++) {
        const sim_wave *w = &ctx->waves[k];
        if (w->state != SIM_WAVE_BARRIER)
            continue;
        uint32_t pc = w->pc - 1; /* the BARRIER it waits at */
        if (!first)
            first = w;
        else if (w->pc != first->pc)
            sim_sanitize_report(ctx, w, pc, SIM_FINDING_DIVERGENT_BARRIER, -1, -1, -1,
                                "wave %u waits at this barrier (line %u) while wave %u waits at the barrier at pc %u "
                                "(line %u): the workgroup's control flow is not uniform",
                                w->index, line_of(ctx, pc), first->index, first->pc - 1, line_of(ctx, first->pc - 1));
        uint64_t missing = w->live & ~w->exec;
        if (missing)
            sim_sanitize_report(ctx, w, pc, SIM_FINDING_DIVERGENT_BARRIER, __builtin_ctzll(missing), -1, -1,
                                "barrier reached by %d of the wave's %d lanes (exec 0x%llx): the control flow "
                                "around it is not uniform across the workgroup",
                                __builtin_popcountll(w->exec & w->live), __builtin_popcountll(w->live),
                                (unsigned long long)w->exec);
    }
}
