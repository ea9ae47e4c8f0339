/*
 * sim/exec.c — the executor: sim_run() binds the program's memory slots to
 * the caller's buffers, checks the program once, then runs every workgroup
 * wave by wave under the documented schedule (sim/sim.h) and gathers the
 * statistics.  The hot loop (run_wave) dispatches once per wave instruction
 * and loops over lanes inside; the ALU families live here, memory, cross-lane
 * operations, GLSL.std.450 math and conversions in their own files.
 *
 * Contract with the lowering (isa/lower.c):
 *   - mask register 0 is the entry mask: before a wave runs, masks[0] holds
 *     the lanes that exist and every other mask is 0; the lowering starts the
 *     program with `BLOCK a=0`, which moves it into exec;
 *   - the last instruction is END (checked), so pc never runs off the code;
 *   - registers start at 0 in every lane, then constants and built-ins are
 *     written; bools are 0/1 and are read through their lowest bit.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sanitize.h"
#include <spirv/unified1/GLSL.std.450.h>

#include "sim/sim_internal.h"

#define DEFAULT_BUDGET 1000000000ull

/* ------------------------------------------------------------ names */

const char *sim_fault_kind_name(sim_fault_kind k)
{
    switch (k) {
    case SIM_FAULT_NONE: return "none";
    case SIM_FAULT_OUT_OF_BOUNDS: return "out_of_bounds";
    case SIM_FAULT_DEADLOCK: return "deadlock";
    case SIM_FAULT_BUDGET: return "budget";
    case SIM_FAULT_MISSING_BINDING: return "missing_binding";
    case SIM_FAULT_UNSUPPORTED: return "unsupported";
    }
    return "?";
}

void sim_location_format(const isa_program *prog, const sim_location *loc, char *buf, size_t size)
{
    if (!buf || size == 0)
        return;
    if (loc->pc == SIM_PC_DISPATCH) {
        snprintf(buf, size, "the dispatch as a whole, before any wave ran");
        return;
    }
    int n = snprintf(buf, size, "pc %u (line %u, word %u), workgroup (%u,%u,%u) wave %u", loc->pc, loc->line,
                     loc->spirv_word, loc->group[0], loc->group[1], loc->group[2], loc->wave);
    if (n < 0 || (size_t)n >= size)
        return;
    if (loc->lane >= 0) {
        int m = snprintf(buf + n, size - (size_t)n, " lane %d", loc->lane);
        if (m < 0 || (size_t)(n + m) >= size)
            return;
        n += m;
    }
    if (loc->slot >= 0) {
        const char *name = (prog && (uint32_t)loc->slot < prog->slot_count) ? prog->slots[loc->slot].name : "";
        int m;
        if (name[0])
            m = snprintf(buf + n, size - (size_t)n, ", slot '%s'", name);
        else
            m = snprintf(buf + n, size - (size_t)n, ", slot %d", loc->slot);
        if (m < 0 || (size_t)(n + m) >= size)
            return;
        n += m;
    }
    if (loc->address >= 0)
        snprintf(buf + n, size - (size_t)n, " address 0x%llx", (unsigned long long)loc->address);
}

void sim_result_free(sim_result *r)
{
    if (!r)
        return;
    free(r->stats.inst_executions);
    free(r->stats.inst_lanes);
    r->stats.inst_executions = NULL;
    r->stats.inst_lanes = NULL;
    r->stats.inst_count = 0;
}

/* ------------------------------------------------------------ reports */

void sim_location_at(const sim_ctx *ctx, const sim_wave *w, uint32_t pc, int32_t lane, sim_location *loc)
{
    memset(loc, 0, sizeof *loc);
    loc->pc = pc;
    if (ctx->prog && pc < ctx->prog->code_count) {
        loc->line = ctx->prog->code[pc].line;
        loc->spirv_word = ctx->prog->code[pc].spirv_word;
    }
    memcpy(loc->group, ctx->group, sizeof loc->group);
    loc->wave = w ? w->index : 0;
    loc->lane = lane;
    loc->address = -1;
    loc->slot = -1;
}

void sim_report_undefined(sim_ctx *ctx, const sim_wave *w, uint32_t pc, int32_t lane, const char *fmt, ...)
{
    sim_result *r = ctx->result;
    r->stats.undefined_events++;
    if (r->event_count >= SIM_MAX_EVENTS)
        return;
    sim_event *ev = &r->events[r->event_count++];
    sim_location_at(ctx, w, pc, lane, &ev->where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev->message, sizeof ev->message, fmt, ap);
    va_end(ap);
}

int sim_fault(sim_ctx *ctx, const sim_wave *w, uint32_t pc, sim_fault_kind kind, int32_t lane, int32_t slot,
              int64_t address, const char *fmt, ...)
{
    sim_result *r = ctx->result;
    r->fault = kind;
    sim_location_at(ctx, w, pc, lane, &r->fault_event.where);
    r->fault_event.where.slot = slot;
    r->fault_event.where.address = address;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->fault_event.message, sizeof r->fault_event.message, fmt, ap);
    va_end(ap);
    return 1;
}

/* Reports an undefined event in every lane of `lanes` (rare path). */
static void report_lanes(sim_ctx *ctx, const sim_wave *w, uint32_t pc, sim_mask lanes, const char *what)
{
    while (lanes) {
        int l = (int)sim_mask_first(lanes);
        lanes &= lanes - 1;
        sim_report_undefined(ctx, w, pc, l, "%s (%s)", what, isa_op_name((isa_op)ctx->prog->code[pc].op));
    }
}

static sim_status config_error(sim_result *r, sim_fault_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static sim_status config_error(sim_result *r, sim_fault_kind kind, const char *fmt, ...)
{
    r->fault = kind;
    memset(&r->fault_event.where, 0, sizeof r->fault_event.where);
    r->fault_event.where.lane = -1;
    r->fault_event.where.slot = -1;
    r->fault_event.where.address = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->fault_event.message, sizeof r->fault_event.message, fmt, ap);
    va_end(ap);
    return SIM_ERR_CONFIG;
}

/* ------------------------------------------------------------ program check */

/* A malformed program (a lowering bug) must never corrupt memory: every
 * register, mask, slot and jump target is checked once (isa/validate.c). */
static int check_program(sim_ctx *ctx)
{
    char what[160];
    uint32_t pc = 0;
    if (isa_program_validate(ctx->prog, &pc, what, sizeof what))
        return sim_fault(ctx, NULL, pc, SIM_FAULT_UNSUPPORTED, -1, -1, -1, "malformed program: %s", what);
    return 0;
}

/* ------------------------------------------------------------ slots */

static sim_status bind_slots(sim_ctx *ctx)
{
    const isa_program *p = ctx->prog;
    const sim_config *cfg = ctx->cfg;
    /* workgroup and private variables live at isa_slot.base inside the
     * workgroup's shared area / the lane's private area */
    size_t wg_size = p->workgroup_bytes, priv_size = p->private_bytes;
    for (uint32_t s = 0; s < p->slot_count; s++) {
        const isa_slot *sl = &p->slots[s];
        sim_slot_mem *m = &ctx->slots[s];
        if (sl->alias_of)
            continue; /* never accessed: the executor goes to the slot it aliases */
        switch (sl->space) {
        case ISA_SPACE_STORAGE: case ISA_SPACE_UNIFORM:
        case ISA_SPACE_STORAGE_TEXEL: case ISA_SPACE_UNIFORM_TEXEL: {
            int found = 0;
            for (int b = 0; b < cfg->buffer_count; b++)
                if (ISA_SAME_DESCRIPTOR(cfg->buffers[b], *sl)) {
                    m->data = cfg->buffers[b].data;
                    m->size = cfg->buffers[b].data ? cfg->buffers[b].size : 0;
                    found = 1;
                    break;
                }
            if (!found) {
                config_error(ctx->result, SIM_FAULT_MISSING_BINDING,
                             "missing binding: the kernel uses %s buffer '%s' at set %u binding %u, "
                             "which the case does not provide",
                             isa_space_name(sl->space), sl->name, sl->set, sl->binding);
                ctx->result->fault_event.where.slot = (int32_t)s;
                return SIM_ERR_CONFIG;
            }
            break;
        }
        case ISA_SPACE_STORAGE_IMAGE: case ISA_SPACE_SAMPLED_IMAGE: case ISA_SPACE_SAMPLER: {
            char why[224];
            sim_fault_kind k = sim_image_bind(ctx, s, why, sizeof why);
            if (k != SIM_FAULT_NONE) {
                config_error(ctx->result, k, "%s", why);
                ctx->result->fault_event.where.slot = (int32_t)s;
                return SIM_ERR_CONFIG;
            }
            break;
        }
        case ISA_SPACE_PUSH:
            m->data = (uint8_t *)(uintptr_t)cfg->push; /* read only: the lowering never stores to it */
            m->size = cfg->push ? cfg->push_size : 0;
            break;
        case ISA_SPACE_WORKGROUP:
            m->size = sl->static_size;
            m->area_offset = sl->base;
            if ((size_t)sl->base + sl->static_size > wg_size)
                wg_size = (size_t)sl->base + sl->static_size;
            break;
        case ISA_SPACE_PRIVATE:
            m->size = sl->static_size;
            m->area_offset = sl->base;
            if ((size_t)sl->base + sl->static_size > priv_size)
                priv_size = (size_t)sl->base + sl->static_size;
            break;
        }
    }
    ctx->workgroup_mem_size = wg_size;
    ctx->private_lane_bytes = priv_size;
    return SIM_OK;
}

/* ------------------------------------------------------------ waves */

static void set_lane_masks(sim_wave *w, uint32_t W, sim_mask exec)
{
    const uint64_t lo = sim_mask_lo(exec), hi = sim_mask_hi(exec);
    const uint32_t n0 = W < 64 ? W : 64;
    for (uint32_t l = 0; l < n0; l++)
        w->lane_mask[l] = 0 - ((lo & sim_lane_bit[l]) != 0);
    for (uint32_t l = 64; l < W; l++)
        w->lane_mask[l] = 0 - ((hi & sim_lane_bit[l - 64]) != 0);
}

/*
 * A memory or image instruction whose descriptor is picked from an array by a run-time index (isa_inst.x).
 * Each distinct element among the active lanes is one round of the instruction, with exec narrowed to the lanes
 * that name it, as AMD's compiler does for a NonUniform index (v_readfirstlane, v_cmp, s_and_saveexec: a
 * "waterfall"); rounds after the first count as further executions of the instruction.  Without NonUniform,
 * Vulkan requires the index dynamically uniform: lanes that disagree are a fault, not a guess.
 */
/* Lanes of exec whose index (the bits of x under `part`, shifted down by `shift`) differs from the first lane's,
 * where Vulkan requires it dynamically uniform (no NonUniform): a fault naming the array and two lanes; 0 when they
 * agree. */
static int nonuniform_index_fault(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec,
                                  const uint64_t *X, uint64_t part, unsigned shift, const isa_slot *array)
{
    const unsigned l = sim_mask_first(exec);
    for (uint32_t k = 0; k < ctx->wave_size; k++)
        if (sim_mask_has(exec, k) && (X[k] & part) != (X[l] & part))
            return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, (int32_t)k, (int32_t)in->slot, -1,
                             "descriptor array '%.*s' is indexed by a value that is not uniform across the wave "
                             "(lane %u: element %u, lane %u: element %u) and not decorated NonUniform: Vulkan "
                             "leaves the result undefined (nonuniformEXT / NonUniformResourceIndex say it may "
                             "differ)", (int)strcspn(array->name, "["), array->name, l,
                             (uint32_t)((X[l] & part) >> shift), k, (uint32_t)((X[k] & part) >> shift));
    return 0;
}

int sim_exec_indexed(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec, sim_exec_fn *run)
{
    const isa_program *p = ctx->prog;
    const uint32_t W = ctx->wave_size;
    const uint64_t *X = sim_reg(ctx, w, in->x);
    const isa_slot *array = &p->slots[in->slot]; /* element 0 (isa/validate.c) */
    /* a scalar result (a uniform index into buffers' lengths) is every live lane's, as the hot loop widens the lane
     * masks for any SALU instruction; it gets them back as they were */
    const int scalar = in->cls == ISA_CLASS_SALU;
    /* with a sampler picked at run time too, x is (image element << 32) | sampler element (isa_inst.sampler_index) */
    const uint64_t key_mask = in->sampler_index ? ~0ull : 0xffffffffull;
    const isa_slot *samplers = in->sampler_index ? &p->slots[in->imm2] : NULL;
    if (exec && in->desc_index == ISA_DESC_UNIFORM) { /* the whole key: the image's index, and the sampler's */
        const uint64_t lo = 0xffffffffull, hi = ~lo;
        if (nonuniform_index_fault(ctx, w, in, pc, exec, X, samplers ? hi : lo, samplers ? 32 : 0, array) ||
            (samplers && nonuniform_index_fault(ctx, w, in, pc, exec, X, lo, 0, samplers)))
            return 1;
    } else if (exec && samplers) { /* one of the pair is NonUniform: the other must still be uniform */
        if (((in->sampler_index & ISA_SAMPLER_UNIFORM_HI) &&
             nonuniform_index_fault(ctx, w, in, pc, exec, X, ~0xffffffffull, 32, array)) ||
            ((in->sampler_index & ISA_SAMPLER_UNIFORM_LO) &&
             nonuniform_index_fault(ctx, w, in, pc, exec, X, 0xffffffffull, 0, samplers)))
            return 1;
    }
    uint64_t rounds = 0;
    int failed = 0;
    for (sim_mask left = exec; left && !failed; rounds++) {
        const unsigned l = sim_mask_first(left);
        const uint64_t key = X[l] & key_mask;
        const uint32_t e = (uint32_t)(in->sampler_index ? key >> 32 : key), s = (uint32_t)key;
        sim_mask same = 0;
        for (uint32_t k = 0; k < W; k++)
            if (sim_mask_has(left, k) && (X[k] & key_mask) == key)
                same |= sim_mask_lane(k);
        if (e >= array->elements) { /* past a variable pointer's run (isa/lower_varptr.c) is its null */
            failed = array->alias_of
                         ? sim_fault(ctx, w, pc, SIM_FAULT_OUT_OF_BOUNDS, (int32_t)l, (int32_t)in->slot, -1,
                                     "access through a null pointer (lane %u)", l)
                         : sim_fault(ctx, w, pc, SIM_FAULT_OUT_OF_BOUNDS, (int32_t)l, (int32_t)in->slot, -1,
                                     "descriptor array '%.*s' of %u elements is indexed by %u (lane %u)",
                                     (int)strcspn(array->name, "["), array->name, array->elements, e, l);
            break;
        }
        if (samplers && s >= samplers->elements) {
            failed = sim_fault(ctx, w, pc, SIM_FAULT_OUT_OF_BOUNDS, (int32_t)l, (int32_t)in->imm2, -1,
                               "descriptor array '%.*s' of %u elements is indexed by %u (lane %u)",
                               (int)strcspn(samplers->name, "["), samplers->name, samplers->elements, s, l);
            break;
        }
        isa_inst one = *in;
        one.slot = (uint16_t)(in->slot + e);
        if (p->slots[one.slot].alias_of) /* a variable pointer's candidate: the variable itself */
            one.slot = (uint16_t)(p->slots[one.slot].alias_of - 1);
        one.desc_index = ISA_DESC_NONE;
        one.sampler_index = 0;
        one.x = ISA_NO_REG;
        if (samplers)
            one.imm2 = in->imm2 + s;
        else if ((isa_op_shape((isa_op)in->op)->flags & ISA_SHAPE_F_SAMPLER_IMM2) && in->imm2 == in->slot)
            one.imm2 = one.slot; /* a combined image sampler brings its own sampler */
        const sim_mask lanes = scalar ? w->live : same;
        set_lane_masks(w, W, lanes);
        failed = run(ctx, w, &one, pc, lanes);
        left &= ~same;
    }
    set_lane_masks(w, W, scalar ? w->live : exec);
    if (rounds > 1) {
        ctx->result->stats.inst_executions[pc] += rounds - 1;
        ctx->result->stats.waterfall_rounds += rounds - 1;
    }
    return failed;
}

static uint32_t builtin_value(const sim_ctx *ctx, const sim_wave *w, uint32_t lane, isa_builtin b, unsigned comp)
{
    const isa_program *p = ctx->prog;
    uint32_t W = ctx->wave_size;
    uint32_t local[3];
    const uint32_t index = isa_invocation_at(p->local_size, p->derivative_group, w->index * W + lane, local);
    unsigned c = comp < 3 ? comp : 0;
    /* 128-bit subgroup masks (uvec4), one 32-bit word per component */
    const sim_mask below = sim_mask_low(lane), in_wave = sim_mask_low(W), self = sim_mask_lane(lane);
    sim_mask mask = 0;
    switch (b) {
    case ISA_BI_GLOBAL_ID: return comp < 3 ? ctx->group[c] * p->local_size[c] + local[c] : 0;
    case ISA_BI_LOCAL_ID: return comp < 3 ? local[c] : 0;
    case ISA_BI_WORKGROUP_ID: return comp < 3 ? ctx->group[c] : 0;
    case ISA_BI_NUM_WORKGROUPS: return comp < 3 ? ctx->cfg->groups[c] : 0;
    case ISA_BI_WORKGROUP_SIZE: return comp < 3 ? p->local_size[c] : 0;
    case ISA_BI_LOCAL_INDEX: return index;
    case ISA_BI_SUBGROUP_SIZE: return W;
    case ISA_BI_SUBGROUP_LOCAL_ID: return lane;
    case ISA_BI_SUBGROUP_ID: return w->index;
    case ISA_BI_NUM_SUBGROUPS: return ctx->waves_per_group;
    case ISA_BI_EQ_MASK: mask = self; break;
    case ISA_BI_GE_MASK: mask = in_wave & ~below; break;
    case ISA_BI_GT_MASK: mask = in_wave & ~below & ~self; break;
    case ISA_BI_LE_MASK: mask = below | self; break;
    case ISA_BI_LT_MASK: mask = below; break;
    case ISA_BI_COUNT: break;
    }
    return comp < 4 ? (uint32_t)sim_mask_word32(mask, comp) : 0;
}

static void start_wave(sim_ctx *ctx, sim_wave *w, uint32_t index)
{
    const isa_program *p = ctx->prog;
    uint32_t W = ctx->wave_size;
    uint32_t first = index * W;
    uint32_t lanes = ctx->local_count - first < W ? ctx->local_count - first : W;
    w->index = index;
    w->live = sim_mask_low(lanes);
    w->exec = w->live;
    w->pc = 0;
    w->state = SIM_WAVE_READY;
    memset(w->regs, 0, (size_t)p->reg_count * W * sizeof(uint64_t));
    memset(w->masks, 0, (size_t)p->mask_count * sizeof(sim_mask));
    w->masks[0] = w->live; /* the entry mask, by contract with the lowering */
    if (ctx->private_lane_bytes)
        memset(w->private_mem, 0, ctx->private_lane_bytes * W);
    for (uint32_t i = 0; i < p->const_count; i++) {
        uint64_t *r = sim_reg(ctx, w, p->consts[i].reg);
        for (uint32_t l = 0; l < W; l++)
            r[l] = p->consts[i].bits;
    }
    for (uint32_t i = 0; i < p->builtin_count; i++) {
        uint64_t *r = sim_reg(ctx, w, p->builtins[i].reg);
        for (uint32_t l = 0; l < W; l++)
            r[l] = builtin_value(ctx, w, l, (isa_builtin)p->builtins[i].builtin, p->builtins[i].component);
    }
    set_lane_masks(w, W, w->exec);
}

/* ------------------------------------------------------------ the hot loop */

typedef enum wave_stop { WAVE_STOP_BARRIER, WAVE_STOP_END, WAVE_STOP_FAULT } wave_stop;

static inline uint64_t bit_reverse64(uint64_t x)
{
    x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((x & 0x0F0F0F0F0F0F0F0Full) << 4);
    x = ((x >> 8) & 0x00FF00FF00FF00FFull) | ((x & 0x00FF00FF00FF00FFull) << 8);
    x = ((x >> 16) & 0x0000FFFF0000FFFFull) | ((x & 0x0000FFFF0000FFFFull) << 16);
    return (x >> 32) | (x << 32);
}

static inline uint64_t low_bits(uint64_t count) { return count >= 64 ? ~0ull : ((1ull << count) - 1); }

static inline double fmod_floor(double x, double y)
{
    double r = fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
    return r;
}
static inline float fmod_floorf(float x, float y)
{
    float r = fmodf(x, y);
    if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
    return r;
}

/*
 * Lane loops.  W is a compile-time constant in each instance of the hot
 * loop (run_wave_w is instantiated per wave size), so these loops have a
 * known trip count; `ivdep` tells the compiler that lane l only reads and
 * writes index l of each register (a destination may be a source), so it
 * vectorises them without alias checks.
 *
 * Writes: FULL (a constant in each copy made by BOTH) says every lane of
 * the wave is in the current lane mask; then a lane's result is stored as it
 * is, otherwise it is blended through the lane mask so inactive lanes keep
 * their values.  BOTH(body) emits the body once for each case.
 */
#define LANES _Pragma("GCC ivdep") for (uint32_t l = 0; l < W; l++)
#define PUT(value) \
    (FULL ? (void)(D[l] = (uint64_t)(value)) : (void)SIM_PUT(D, l, lm, value))
#define BOTH(...) \
    do { \
        if (full) { const int FULL = 1; (void)FULL; __VA_ARGS__ } \
        else { const int FULL = 0; (void)FULL; __VA_ARGS__ } \
    } while (0)

/* Integer bodies see x, y (and z) as the type's value extended to 64 bits (SH: 64 - the type's bits);
 * the _32 forms are for a 32-bit type, with the width a constant. */
#define INT_U2(expr) BOTH(LANES { uint64_t x = SIM_ZX(A[l], SH), y = SIM_ZX(B[l], SH); PUT(expr); })
#define INT_S2(expr) BOTH(LANES { int64_t x = SIM_SX(A[l], SH), y = SIM_SX(B[l], SH); PUT(expr); })
#define INT_U1(expr) BOTH(LANES { uint64_t x = SIM_ZX(A[l], SH); PUT(expr); })
#define INT_S1(expr) BOTH(LANES { int64_t x = SIM_SX(A[l], SH); PUT(expr); })
#define RAW2(expr) BOTH(LANES { uint64_t x = A[l], y = B[l]; PUT(expr); })
#define INT_U2_32(expr) BOTH(LANES { uint64_t x = (uint32_t)A[l], y = (uint32_t)B[l]; PUT(expr); })
#define INT_S2_32(expr) BOTH(LANES { int64_t x = (int32_t)(uint32_t)A[l], y = (int32_t)(uint32_t)B[l]; PUT(expr); })

/* Float bodies: one template per precision (TYPE: the instruction's type); f16 computes in float and rounds.
 * The _F32 forms are for f32 alone. */
#define FLOAT2(expr_f, expr_d) \
    switch (TYPE) { \
    case ISA_TYPE_F16: BOTH(LANES { float x = sim_f16(A[l]), y = sim_f16(B[l]); PUT(sim_f16_bits(expr_f)); }); break; \
    case ISA_TYPE_F32: BOTH(LANES { float x = sim_f32(A[l]), y = sim_f32(B[l]); PUT(sim_f32_bits(expr_f)); }); break; \
    case ISA_TYPE_F64: BOTH(LANES { double x = sim_f64(A[l]), y = sim_f64(B[l]); PUT(sim_f64_bits(expr_d)); }); break; \
    default: goto bad_type; }
#define FLOAT_TEST2(expr) \
    switch (TYPE) { \
    case ISA_TYPE_F16: BOTH(LANES { float x = sim_f16(A[l]), y = sim_f16(B[l]); PUT(expr); }); break; \
    case ISA_TYPE_F32: BOTH(LANES { float x = sim_f32(A[l]), y = sim_f32(B[l]); PUT(expr); }); break; \
    case ISA_TYPE_F64: BOTH(LANES { double x = sim_f64(A[l]), y = sim_f64(B[l]); PUT(expr); }); break; \
    default: goto bad_type; }
#define FLOAT_TEST1(expr) \
    switch (TYPE) { \
    case ISA_TYPE_F16: BOTH(LANES { float x = sim_f16(A[l]); PUT(expr); }); break; \
    case ISA_TYPE_F32: BOTH(LANES { float x = sim_f32(A[l]); PUT(expr); }); break; \
    case ISA_TYPE_F64: BOTH(LANES { double x = sim_f64(A[l]); PUT(expr); }); break; \
    default: goto bad_type; }
#define FLOAT2_F32(expr) BOTH(LANES { float x = sim_f32(A[l]), y = sim_f32(B[l]); PUT(sim_f32_bits(expr)); })
#define FLOAT_TEST2_F32(expr) BOTH(LANES { float x = sim_f32(A[l]), y = sim_f32(B[l]); PUT(expr); })

/* Instructions after which exec or pc may change (a segment ends), and those with a jump target in imm. */
static int ends_segment(isa_op op)
{
    return op == ISA_OP_BLOCK || op == ISA_OP_LOOP || op == ISA_OP_BARRIER || op == ISA_OP_END ||
           op == ISA_OP_BRANCH_IF || op == ISA_OP_JUMP;
}

static int jumps_to_imm(isa_op op)
{
    return op == ISA_OP_BLOCK || op == ISA_OP_LOOP || op == ISA_OP_BRANCH_IF || op == ISA_OP_JUMP;
}

/*
 * Statistics and the budget by segment.  A segment is a run of instructions
 * entered only at its first one and left only after its last one: it ends
 * at a control instruction (block, loop, barrier, end: the only ones that
 * change exec or pc) or before the next jump target.  exec is the same for
 * every instruction of a segment, so entering one counts all of its
 * instructions at once (executions, active lanes, budget) instead of one
 * instruction at a time.  A run that stops inside a segment (a fault, the
 * budget) takes back the instructions after the stop (uncount_rest), so the
 * statistics equal those of counting each instruction as it runs.
 */
static uint32_t *segments_of(const isa_program *p)
{
    uint32_t n = p->code_count;
    uint32_t *len = calloc(n + 1, sizeof *len);
    uint8_t *start = calloc(n + 1, 1);
    if (!len || !start) {
        free(len);
        free(start);
        return NULL;
    }
    start[0] = 1;
    for (uint32_t pc = 0; pc < n; pc++) {
        isa_op op = (isa_op)p->code[pc].op;
        if (jumps_to_imm(op) && p->code[pc].imm >= 0 && p->code[pc].imm < (int64_t)n)
            start[p->code[pc].imm] = 1;
        if (ends_segment(op))
            start[pc + 1] = 1;
    }
    uint32_t end = n; /* one past the end of the segment that contains pc */
    for (uint32_t pc = n; pc-- > 0;) {
        isa_op op = (isa_op)p->code[pc].op;
        if (ends_segment(op) || start[pc + 1])
            end = pc + 1;
        if (start[pc])
            len[pc] = end - pc;
    }
    free(start);
    return len;
}

/* Adds the segment counts of this thread to the per-instruction statistics and clears them. */
static void flush_segments(sim_ctx *ctx)
{
    const uint32_t n = ctx->prog->code_count;
    sim_stats *st = &ctx->result->stats;
    if (!ctx->seg_exec)
        return;
    for (uint32_t s = 0; s < n; s++) {
        if (!ctx->seg_len[s] || !ctx->seg_exec[s])
            continue;
        for (uint32_t pc = s; pc < s + ctx->seg_len[s]; pc++) {
            st->inst_executions[pc] += ctx->seg_exec[s];
            st->inst_lanes[pc] += ctx->seg_lanes[s];
        }
        ctx->seg_exec[s] = ctx->seg_lanes[s] = 0;
    }
}

/* The run stopped in the segment that starts at seg before executing instruction `from`: from there to the
 * segment's end nothing ran, though the segment counted it. */
static void uncount_rest(sim_ctx *ctx, uint32_t seg, uint32_t from, uint64_t lanes)
{
    sim_stats *st = &ctx->result->stats;
    for (uint32_t pc = from; pc < seg + ctx->seg_len[seg]; pc++) {
        st->inst_executions[pc]--;
        st->inst_lanes[pc] -= lanes;
    }
}

/*
 * One instance of the hot loop per wave size, each twice: for any x86-64
 * and for hosts with AVX2, F16C and FMA (4 lanes per vector instruction;
 * fp16 conversions and fma() in hardware).  Both give the same bits: integer
 * and IEEE float operations are exact or correctly rounded either way, fma()
 * is one rounding in libm and in hardware, sim/ is built with
 * -ffp-contract=off so no a * b + c becomes a fused multiply-add, and
 * double-to-half stays one software rounding (GCC has no F16C instruction
 * for it).  tests/test_sim.c runs kernels both ways and compares the bits.
 * The sanitizer build (WAVELAB_NO_HOST_VARIANT, CMakeLists.txt) compiles the
 * portable instance only: the same source, half the compile time.
 */
typedef wave_stop (*wave_fn)(sim_ctx *ctx, sim_wave *w);
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(WAVELAB_NO_HOST_VARIANT)
#define WAVE_HOST_VARIANT 1
#endif
#define WAVE_ATTR
#define WAVE_W 4
#define WAVE_FN run_wave_4
#include "sim/exec_loop.h"
#undef WAVE_W
#undef WAVE_FN
#define WAVE_W 8
#define WAVE_FN run_wave_8
#include "sim/exec_loop.h"
#undef WAVE_W
#undef WAVE_FN
#define WAVE_W 16
#define WAVE_FN run_wave_16
#include "sim/exec_loop.h"
#undef WAVE_W
#undef WAVE_FN
#define WAVE_W 32
#define WAVE_FN run_wave_32
#include "sim/exec_loop.h"
#undef WAVE_W
#undef WAVE_FN
#define WAVE_W 64
#define WAVE_FN run_wave_64
#include "sim/exec_loop.h"
#undef WAVE_W
#undef WAVE_FN
#define WAVE_W 128
#define WAVE_FN run_wave_128
#include "sim/exec_loop.h"
#undef WAVE_W
#undef WAVE_FN
#undef WAVE_ATTR
#ifdef WAVE_HOST_VARIANT
#define WAVE_ATTR __attribute__((target("avx2,f16c,fma")))
#define WAVE_W 4
#define WAVE_FN run_wave_avx2_4
#include "sim/exec_loop.h"
#undef WAVE_W
#undef WAVE_FN
#define WAVE_W 8
#define WAVE_FN run_wave_avx2_8
#include "sim/exec_loop.h"
#undef WAVE_W
#undef WAVE_FN
#define WAVE_W 16
#define WAVE_FN run_wave_avx2_16
#include "sim/exec_loop.h"
#undef WAVE_W
#undef WAVE_FN
#define WAVE_W 32
#define WAVE_FN run_wave_avx2_32
#include "sim/exec_loop.h"
#undef WAVE_W
#undef WAVE_FN
#define WAVE_W 64
#define WAVE_FN run_wave_avx2_64
#include "sim/exec_loop.h"
#undef WAVE_W
#undef WAVE_FN
#define WAVE_W 128
#define WAVE_FN run_wave_avx2_128
#include "sim/exec_loop.h"
#undef WAVE_W
#undef WAVE_FN
#undef WAVE_ATTR
#endif

/* The hot loop for this wave size and host (cfg->portable: never the AVX2/F16C variant). */
static wave_fn pick_wave_fn(uint32_t W, int portable)
{
    static const wave_fn plain[] = {run_wave_4, run_wave_8, run_wave_16, run_wave_32, run_wave_64, run_wave_128};
    unsigned k = (unsigned)__builtin_ctz(W) - 2;
#ifdef WAVE_HOST_VARIANT
    static const wave_fn avx2[] = {run_wave_avx2_4,  run_wave_avx2_8,  run_wave_avx2_16,
                                   run_wave_avx2_32, run_wave_avx2_64, run_wave_avx2_128};
    if (!portable && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c") &&
        __builtin_cpu_supports("fma"))
        return avx2[k];
#else
    (void)portable;
#endif
    return plain[k];
}

static wave_stop run_wave(sim_ctx *ctx, sim_wave *w) { return ((wave_fn)ctx->run_wave)(ctx, w); }

/* ------------------------------------------------------------ schedule */

static const char *wave_state_where(const sim_wave *w, char *buf, size_t size)
{
    if (w->state == SIM_WAVE_ENDED)
        snprintf(buf, size, "wave %u ended", w->index);
    else
        snprintf(buf, size, "wave %u waits at the barrier at pc %u", w->index, w->pc - 1);
    return buf;
}

/* Runs the current workgroup; returns 0 or 1 on a fault. */
static int run_workgroup(sim_ctx *ctx)
{
    sim_result *r = ctx->result;
    uint32_t nw = ctx->waves_per_group;
    if (ctx->workgroup_mem_size)
        memset(ctx->workgroup_mem, 0, ctx->workgroup_mem_size);
    for (uint32_t k = 0; k < nw; k++)
        start_wave(ctx, &ctx->waves[k], k);
    r->stats.waves += nw;
    r->stats.workgroups++;

    for (;;) {
        uint32_t ended = 0, waiting = 0;
        for (uint32_t k = 0; k < nw; k++) {
            sim_wave *w = &ctx->waves[ctx->cfg->schedule == SIM_SCHEDULE_REVERSED ? nw - 1 - k : k];
            if (w->state == SIM_WAVE_READY) {
                wave_stop s = run_wave(ctx, w);
                if (s == WAVE_STOP_FAULT)
                    return 1;
                w->state = s == WAVE_STOP_END ? SIM_WAVE_ENDED : SIM_WAVE_BARRIER;
            }
            ended += w->state == SIM_WAVE_ENDED;
            waiting += w->state == SIM_WAVE_BARRIER;
        }
        if (waiting == 0)
            return 0;
        if (ctx->sanitize)
            sim_sanitize_barrier(ctx);
        /* every live wave waits: they must all wait at the same barrier */
        int same = 1;
        uint32_t first_pc = 0;
        int have = 0;
        for (uint32_t k = 0; k < nw; k++) {
            const sim_wave *w = &ctx->waves[k];
            if (w->state != SIM_WAVE_BARRIER)
                continue;
            if (!have)
                first_pc = w->pc, have = 1;
            else if (w->pc != first_pc)
                same = 0;
        }
        if (ended || !same) {
            char msg[sizeof r->fault_event.message];
            size_t n = (size_t)snprintf(msg, sizeof msg, "barrier deadlock in workgroup (%u,%u,%u): ",
                                        ctx->group[0], ctx->group[1], ctx->group[2]);
            const sim_wave *at = NULL;
            for (uint32_t k = 0; k < nw && n < sizeof msg; k++) {
                char one[80];
                const sim_wave *w = &ctx->waves[k];
                if (!at && w->state == SIM_WAVE_BARRIER)
                    at = w;
                n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%s", k ? "; " : "",
                                      wave_state_where(w, one, sizeof one));
            }
            sim_fault(ctx, at, at ? at->pc - 1 : 0, SIM_FAULT_DEADLOCK, -1, -1, -1, "%s", msg);
            return 1;
        }
        r->stats.barriers++;
        for (uint32_t k = 0; k < nw; k++)
            if (ctx->waves[k].state == SIM_WAVE_BARRIER)
                ctx->waves[k].state = SIM_WAVE_READY;
    }
}

/* The slots' memory of the dispatch (the workers' copies share what sim_image_bind resolved). */
static void free_slots(sim_ctx *ctx)
{
    sim_image_unbind(ctx);
    free(ctx->slots);
}

static void finish_stats(const isa_program *p, sim_stats *s)
{
    for (uint32_t pc = 0; pc < p->code_count; pc++) {
        const isa_inst *in = &p->code[pc];
        uint64_t n = s->inst_executions[pc];
        s->wave_instructions += n;
        s->lane_operations += s->inst_lanes[pc];
        if (in->op < ISA_OP_COUNT)
            s->by_op[in->op] += n;
        s->by_class[in->cls < ISA_CLASS_COUNT ? in->cls : isa_op_class((isa_op)in->op)] += n;
        if (in->op == ISA_OP_ATOMIC)
            s->atomic_lane_ops += s->inst_lanes[pc];
    }
}

/* ---------------------------------------------------------- dispatch state */

/* Wave registers, masks, private and shared memory of one host thread (reused by every workgroup it runs). */
static sim_status thread_state_alloc(sim_ctx *ctx)
{
    const isa_program *prog = ctx->prog;
    const uint32_t W = ctx->wave_size, nw = ctx->waves_per_group;
    size_t reg_slots = (size_t)prog->reg_count * W;
    ctx->waves = calloc(nw, sizeof *ctx->waves);
    uint64_t *reg_mem = calloc(reg_slots * nw + 1, sizeof(uint64_t));
    sim_mask *mask_mem = calloc((size_t)prog->mask_count * nw + 1, sizeof(sim_mask));
    uint8_t *priv_mem = calloc(ctx->private_lane_bytes * W * nw + 1, 1);
    ctx->workgroup_mem = calloc(ctx->workgroup_mem_size + 1, 1);
    ctx->seg_exec = calloc(prog->code_count + 1, sizeof(uint64_t));
    ctx->seg_lanes = calloc(prog->code_count + 1, sizeof(uint64_t));
    if (!ctx->waves || !reg_mem || !mask_mem || !priv_mem || !ctx->workgroup_mem || !ctx->seg_exec ||
        !ctx->seg_lanes) {
        free(ctx->waves);
        free(reg_mem);
        free(mask_mem);
        free(priv_mem);
        free(ctx->workgroup_mem);
        free(ctx->seg_exec);
        free(ctx->seg_lanes);
        ctx->waves = NULL;
        ctx->workgroup_mem = NULL;
        ctx->seg_exec = ctx->seg_lanes = NULL;
        return SIM_ERR_NOMEM;
    }
    for (uint32_t k = 0; k < nw; k++) {
        ctx->waves[k].regs = reg_mem + reg_slots * k;
        ctx->waves[k].masks = mask_mem + (size_t)prog->mask_count * k;
        ctx->waves[k].private_mem = priv_mem + ctx->private_lane_bytes * W * k;
    }
    for (uint32_t s = 0; s < prog->slot_count; s++)
        if (prog->slots[s].space == ISA_SPACE_WORKGROUP)
            ctx->slots[s].data = ctx->workgroup_mem + ctx->slots[s].area_offset;
    return SIM_OK;
}

static void thread_state_free(sim_ctx *ctx)
{
    if (ctx->waves) {
        free(ctx->waves[0].regs);
        free(ctx->waves[0].masks);
        free(ctx->waves[0].private_mem);
    }
    free(ctx->waves);
    free(ctx->workgroup_mem);
    free(ctx->seg_exec);
    free(ctx->seg_lanes);
    ctx->waves = NULL;
    ctx->workgroup_mem = NULL;
    ctx->seg_exec = ctx->seg_lanes = NULL;
}

/* Every workgroup in linear order (x fastest) on this thread, or in reverse linear order (SIM_SCHEDULE_REVERSED). */
static sim_status run_groups(sim_ctx *ctx)
{
    const sim_config *cfg = ctx->cfg;
    const uint64_t total = (uint64_t)cfg->groups[0] * cfg->groups[1] * cfg->groups[2];
    for (uint64_t i = 0; i < total; i++) {
        uint64_t id = cfg->schedule == SIM_SCHEDULE_REVERSED ? total - 1 - i : i;
        ctx->group[0] = (uint32_t)(id % cfg->groups[0]);
        ctx->group[1] = (uint32_t)(id / cfg->groups[0] % cfg->groups[1]);
        ctx->group[2] = (uint32_t)(id / ((uint64_t)cfg->groups[0] * cfg->groups[1]));
        if (run_workgroup(ctx)) {
            flush_segments(ctx);
            return SIM_FAULT;
        }
        sim_progress_note(ctx, i + 1);
    }
    flush_segments(ctx);
    return SIM_OK;
}

/* ---------------------------------------------------------- several host threads */

/* Whether workgroups can run on several threads without the order showing (sim.h). */
static int parallel_safe(const sim_ctx *ctx, uint8_t *read, uint8_t *written)
{
    const isa_program *p = ctx->prog;
    const sim_config *cfg = ctx->cfg;
    uint64_t groups = (uint64_t)cfg->groups[0] * cfg->groups[1] * cfg->groups[2];
    if (cfg->threads <= 1 || (cfg->mem_trace && !cfg->mem_trace->restart) || cfg->step || cfg->sanitize ||
        cfg->schedule != SIM_SCHEDULE_LINEAR || groups < 2)
        return 0;
    for (uint32_t pc = 0; pc < p->code_count; pc++) {
        const isa_inst *in = &p->code[pc];
        isa_op op = (isa_op)in->op;
        if (op == ISA_OP_IMG_STORE || op == ISA_OP_IMG_ATOMIC)
            return 0; /* image writes keep no per-word owner record: one thread */
        if (op != ISA_OP_LOAD && op != ISA_OP_STORE && op != ISA_OP_ATOMIC && op != ISA_OP_IMG_READ &&
            op != ISA_OP_IMG_WRITE)
            continue;
        isa_space sp = p->slots[in->slot].space;
        if (sp == ISA_SPACE_WORKGROUP || sp == ISA_SPACE_PRIVATE || sp == ISA_SPACE_PUSH)
            continue;
        if (op == ISA_OP_ATOMIC)
            return 0; /* atomics on buffers: their order is the schedule's */
        uint32_t first, count;
        isa_inst_slots(p, in, &first, &count);
        for (uint32_t e = first; e < first + count; e++) {
            const uint32_t k = p->slots[e].alias_of ? p->slots[e].alias_of - 1 : e; /* the slot it goes to */
            if (op == ISA_OP_LOAD || op == ISA_OP_IMG_READ)
                read[k] = 1;
            else
                written[k] = 1;
        }
    }
    for (uint32_t s = 0; s < p->slot_count; s++)
        if (read[s] && written[s])
            return 0; /* a workgroup could read what another wrote */
    return 1;
}

/*
 * A memory trace on several threads: each worker records the accesses of
 * the workgroup it runs (trace_buf), and the records are handed to the
 * caller's sink strictly in linear workgroup order, one workgroup after
 * another under a lock, so the sink sees exactly the sequence of the
 * one-thread run (the statistics of the memory model are the same bits).  A
 * worker may run at most TRACE_WINDOW workgroups ahead of the next one to
 * hand over, which bounds the recorded bytes.  If the dispatch must run
 * again on one thread, the sink's `restart` forgets what it was given.
 */
typedef struct trace_buf {
    sim_mem_access *acc;
    size_t n, cap;
    uint64_t *addr;      /* wave_size addresses per access */
    int out_of_memory;   /* an access could not be recorded: the dispatch runs again on one thread */
} trace_buf;

static void trace_record(void *user, const sim_mem_access *a)
{
    trace_buf *b = user;
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        sim_mem_access *acc = realloc(b->acc, cap * sizeof *acc);
        if (acc)
            b->acc = acc;
        uint64_t *addr = acc ? realloc(b->addr, cap * a->wave_size * sizeof *addr) : NULL;
        if (addr)
            b->addr = addr;
        if (!acc || !addr) {
            b->out_of_memory = 1;
            return;
        }
        b->cap = cap;
    }
    b->acc[b->n] = *a;
    memcpy(b->addr + b->n * a->wave_size, a->addr, a->wave_size * sizeof *b->addr);
    b->n++;
}

typedef struct par_shared {
    const sim_ctx *base;
    uint64_t next;       /* next linear workgroup id to take (atomic) */
    uint64_t total;
    uint64_t used;       /* wave instructions executed so far (atomic) */
    uint64_t groups_done;/* workgroups finished (atomic), for sim_config.progress */
    int abort;           /* atomic: stop taking workgroups */
    int conflict;        /* atomic: two workgroups wrote one word */
    /* memory trace (sink != NULL): workgroups handed over in order */
    const sim_mem_trace *sink;
    pthread_mutex_t order_lock;
    pthread_cond_t order_cond;
    uint64_t next_handover;      /* the workgroup whose trace the sink needs next */
    trace_buf *window;           /* TRACE_WINDOW recorded workgroups, slot = id % TRACE_WINDOW */
    uint8_t *window_ready;
} par_shared;

#define TRACE_WINDOW 64

typedef struct par_worker {
    sim_ctx ctx;
    sim_result result;
    par_shared *shared;
    int failed;          /* a fault, an undefined-behaviour event or the budget: rerun on one thread */
    sim_config cfg;      /* traced: the dispatch's configuration with the trace going into `rec` */
    sim_mem_trace rec_trace;
    trace_buf rec;
} par_worker;

/* Traced: workgroup `id` is recorded in pw->rec; hands it and every following recorded one to the sink in order. */
static void trace_handover(par_worker *pw, uint64_t id)
{
    par_shared *sh = pw->shared;
    pthread_mutex_lock(&sh->order_lock);
    trace_buf *slot = &sh->window[id % TRACE_WINDOW];
    trace_buf spare = *slot; /* empty, keeps its capacity: becomes this worker's next buffer */
    *slot = pw->rec;
    pw->rec = spare;
    sh->window_ready[id % TRACE_WINDOW] = 1;
    while (sh->window_ready[sh->next_handover % TRACE_WINDOW]) {
        trace_buf *b = &sh->window[sh->next_handover % TRACE_WINDOW];
        for (size_t i = 0; i < b->n; i++) {
            sim_mem_access a = b->acc[i];
            a.addr = b->addr + i * a.wave_size;
            sh->sink->access(sh->sink->user, &a);
        }
        b->n = 0;
        sh->window_ready[sh->next_handover % TRACE_WINDOW] = 0;
        sh->next_handover++;
    }
    pthread_cond_broadcast(&sh->order_cond);
    pthread_mutex_unlock(&sh->order_lock);
}

/* Traced: waits until workgroup `id` is within TRACE_WINDOW of the next hand-over; 0 when the run aborted. */
static int trace_wait_window(par_shared *sh, uint64_t id)
{
    pthread_mutex_lock(&sh->order_lock);
    while (id >= sh->next_handover + TRACE_WINDOW && !__atomic_load_n(&sh->abort, __ATOMIC_RELAXED))
        pthread_cond_wait(&sh->order_cond, &sh->order_lock);
    pthread_mutex_unlock(&sh->order_lock);
    return !__atomic_load_n(&sh->abort, __ATOMIC_RELAXED);
}

static void *par_main(void *arg)
{
    par_worker *pw = arg;
    par_shared *sh = pw->shared;
    sim_ctx *ctx = &pw->ctx;
    const sim_config *cfg = ctx->cfg;
    while (!__atomic_load_n(&sh->abort, __ATOMIC_RELAXED)) {
        uint64_t id = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED);
        if (id >= sh->total)
            break;
        if (sh->sink && !trace_wait_window(sh, id))
            break;
        ctx->group[0] = (uint32_t)(id % cfg->groups[0]);
        ctx->group[1] = (uint32_t)(id / cfg->groups[0] % cfg->groups[1]);
        ctx->group[2] = (uint32_t)(id / ((uint64_t)cfg->groups[0] * cfg->groups[1]));
        ctx->group_tag = (uint32_t)(id + 1);
        uint64_t before = ctx->budget_left;
        int faulted = run_workgroup(ctx);
        uint64_t used = __atomic_add_fetch(&sh->used, before - ctx->budget_left, __ATOMIC_RELAXED);
        if (!faulted)
            sim_progress_note(ctx, __atomic_add_fetch(&sh->groups_done, 1, __ATOMIC_RELAXED));
        if (faulted || used > ctx->budget || pw->result.stats.undefined_events || pw->rec.out_of_memory ||
            __atomic_load_n(&sh->conflict, __ATOMIC_RELAXED)) {
            pw->failed = 1;
            __atomic_store_n(&sh->abort, 1, __ATOMIC_RELAXED);
            if (sh->sink) { /* wake the workers waiting for the window */
                pthread_mutex_lock(&sh->order_lock);
                pthread_cond_broadcast(&sh->order_cond);
                pthread_mutex_unlock(&sh->order_lock);
            }
            break;
        }
        if (sh->sink)
            trace_handover(pw, id);
    }
    flush_segments(ctx);
    return NULL;
}

/* The caller's copy of a slot's initial contents (sim_config.buffer_initial), or NULL. */
static const uint8_t *caller_initial(const sim_config *cfg, const isa_slot *sl, size_t size)
{
    for (int b = 0; b < cfg->buffer_count; b++)
        if (ISA_SAME_DESCRIPTOR(cfg->buffers[b], *sl))
            return cfg->buffer_initial && cfg->buffers[b].size == size ? cfg->buffer_initial[b] : NULL;
    return NULL;
}

/*
 * Runs the dispatch on cfg->threads host threads when parallel_safe allows.
 * Returns 1 when it did (result->stats holds the summed statistics), 0 when
 * the caller must run it on one thread (buffers are then as before).
 */
static int run_parallel(sim_ctx *base)
{
    const isa_program *p = base->prog;
    const sim_config *cfg = base->cfg;
    uint32_t nslots = p->slot_count ? p->slot_count : 1;
    uint8_t *read = calloc(nslots, 1), *written = calloc(nslots, 1);
    uint32_t **owner = calloc(nslots, sizeof *owner);
    uint8_t **snapshot = calloc(nslots, sizeof *snapshot);
    const uint8_t **kept = calloc(nslots, sizeof *kept); /* the caller's initial contents, instead of a snapshot */
    uint64_t total = (uint64_t)cfg->groups[0] * cfg->groups[1] * cfg->groups[2];
    uint32_t nthreads = cfg->threads > 64 ? 64 : cfg->threads;
    if (nthreads > total)
        nthreads = (uint32_t)total;
    par_worker *workers = NULL;
    pthread_t threads[64];
    uint32_t started = 0;
    int done = 0, ok = read && written && owner && snapshot && kept && parallel_safe(base, read, written) &&
                       total <= UINT32_MAX - 1;
    for (uint32_t s = 0; ok && s < p->slot_count; s++) {
        if (!written[s] || !base->slots[s].data)
            continue;
        size_t size = base->slots[s].size;
        owner[s] = calloc(size / 4 + 1, sizeof(uint32_t));
        kept[s] = caller_initial(cfg, &p->slots[s], size);
        snapshot[s] = kept[s] ? NULL : malloc(size ? size : 1);
        if (!owner[s] || (!kept[s] && !snapshot[s]))
            ok = 0;
        else if (!kept[s])
            memcpy(snapshot[s], base->slots[s].data, size);
    }
    if (ok)
        workers = calloc(nthreads, sizeof *workers);
    par_shared sh = {.base = base, .total = total, .sink = cfg->mem_trace};
    if (sh.sink) {
        pthread_mutex_init(&sh.order_lock, NULL);
        pthread_cond_init(&sh.order_cond, NULL);
        sh.window = calloc(TRACE_WINDOW, sizeof *sh.window);
        sh.window_ready = calloc(TRACE_WINDOW, 1);
        if (!sh.window || !sh.window_ready)
            ok = 0;
    }
    if (!workers)
        ok = 0;
    for (uint32_t t = 0; ok && t < nthreads; t++) {
        par_worker *pw = &workers[t];
        pw->shared = &sh;
        pw->ctx = *base;
        pw->ctx.result = &pw->result;
        pw->ctx.write_owner = owner;
        pw->ctx.write_conflict = &sh.conflict;
        pw->ctx.waves = NULL;
        pw->ctx.workgroup_mem = NULL;
        pw->ctx.seg_exec = pw->ctx.seg_lanes = NULL;
        if (sh.sink) {
            pw->cfg = *cfg;
            pw->rec_trace.access = trace_record;
            pw->rec_trace.user = &pw->rec;
            pw->cfg.mem_trace = &pw->rec_trace;
            pw->ctx.cfg = &pw->cfg;
        }
        pw->ctx.slots = malloc(nslots * sizeof *pw->ctx.slots);
        pw->result.stats.inst_count = p->code_count;
        pw->result.stats.inst_executions = calloc(p->code_count + 1, sizeof(uint64_t));
        pw->result.stats.inst_lanes = calloc(p->code_count + 1, sizeof(uint64_t));
        if (!pw->ctx.slots || !pw->result.stats.inst_executions || !pw->result.stats.inst_lanes) {
            ok = 0;
            break;
        }
        memcpy(pw->ctx.slots, base->slots, p->slot_count * sizeof *pw->ctx.slots);
        if (thread_state_alloc(&pw->ctx) != SIM_OK)
            ok = 0;
    }
    for (uint32_t t = 0; ok && t < nthreads; t++, started++)
        if (pthread_create(&threads[t], NULL, par_main, &workers[t]) != 0)
            break;
    for (uint32_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    if (ok && started == nthreads && !sh.conflict && __atomic_load_n(&sh.next, __ATOMIC_RELAXED) >= total) {
        int failed = 0;
        for (uint32_t t = 0; t < nthreads; t++)
            failed |= workers[t].failed;
        if (!failed) {
            sim_stats *st = &base->result->stats;
            for (uint32_t t = 0; t < nthreads; t++) {
                const sim_stats *ws = &workers[t].result.stats;
#define X(name, meaning) st->name += ws->name;
#include "sim/counters.def"
#undef X
                for (uint32_t pc = 0; pc < p->code_count; pc++) {
                    st->inst_executions[pc] += ws->inst_executions[pc];
                    st->inst_lanes[pc] += ws->inst_lanes[pc];
                }
            }
            done = 1;
        }
    }
    if (!done && started) {
        /* the order could have shown: put the buffers back for the one-thread run */
        for (uint32_t s = 0; s < p->slot_count; s++)
            if (snapshot[s] || kept[s])
                memcpy(base->slots[s].data, snapshot[s] ? snapshot[s] : kept[s], base->slots[s].size);
        if (sh.sink) /* and let the trace's sink forget the workgroups it was given */
            sh.sink->restart(sh.sink->user);
    }
    if (sh.sink) {
        for (uint32_t t = 0; workers && t < nthreads; t++) {
            free(workers[t].rec.acc);
            free(workers[t].rec.addr);
        }
        for (uint32_t k = 0; sh.window && k < TRACE_WINDOW; k++) {
            free(sh.window[k].acc);
            free(sh.window[k].addr);
        }
        free(sh.window);
        free(sh.window_ready);
        pthread_mutex_destroy(&sh.order_lock);
        pthread_cond_destroy(&sh.order_cond);
    }
    for (uint32_t t = 0; workers && t < nthreads; t++) {
        thread_state_free(&workers[t].ctx);
        free(workers[t].ctx.slots);
        sim_result_free(&workers[t].result);
    }
    for (uint32_t s = 0; owner && snapshot && s < p->slot_count; s++) {
        free(owner[s]);
        free(snapshot[s]);
    }
    free(workers);
    free(owner);
    free(snapshot);
    free(kept);
    free(read);
    free(written);
    return done;
}

sim_status sim_run(const isa_program *prog, const sim_config *cfg, sim_result *result)
{
    memset(result, 0, sizeof *result);
    result->fault_event.where.lane = -1;
    result->fault_event.where.slot = -1;
    result->fault_event.where.address = -1;
    if (!prog || !cfg)
        return config_error(result, SIM_FAULT_NONE, "no program or no configuration");
    uint32_t W = cfg->wave_size;
    if (!sim_wave_size_valid(W))
        return config_error(result, SIM_FAULT_NONE, "wave size %u is not a power of two from %u to %u", W,
                            SIM_MIN_WAVE, SIM_MAX_WAVE);
    if (cfg->groups[0] < 1 || cfg->groups[1] < 1 || cfg->groups[2] < 1)
        return config_error(result, SIM_FAULT_NONE, "workgroup count (%u,%u,%u) has a zero dimension",
                            cfg->groups[0], cfg->groups[1], cfg->groups[2]);
    uint64_t local = (uint64_t)prog->local_size[0] * prog->local_size[1] * prog->local_size[2];
    if (local < 1 || local > (1u << 20))
        return config_error(result, SIM_FAULT_NONE, "workgroup size (%u,%u,%u) is not supported",
                            prog->local_size[0], prog->local_size[1], prog->local_size[2]);
    if (cfg->buffer_count < 0 || (cfg->buffer_count > 0 && !cfg->buffers))
        return config_error(result, SIM_FAULT_NONE, "bad buffer list");

    sim_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.prog = prog;
    ctx.cfg = cfg;
    ctx.result = result;
    ctx.wave_size = W;
    ctx.local_count = (uint32_t)local;
    ctx.waves_per_group = (uint32_t)((local + W - 1) / W);
    ctx.budget = cfg->instruction_budget ? cfg->instruction_budget : DEFAULT_BUDGET;
    ctx.budget_left = ctx.budget;

    sim_stats *st = &result->stats;
    st->inst_count = prog->code_count;
    st->inst_executions = calloc(prog->code_count ? prog->code_count : 1, sizeof(uint64_t));
    st->inst_lanes = calloc(prog->code_count ? prog->code_count : 1, sizeof(uint64_t));
    ctx.slots = calloc(prog->slot_count ? prog->slot_count : 1, sizeof *ctx.slots);
    if (!st->inst_executions || !st->inst_lanes || !ctx.slots) {
        free(ctx.slots);
        sim_result_free(result);
        return SIM_ERR_NOMEM;
    }

    sim_status status = bind_slots(&ctx);
    if (status != SIM_OK) {
        free_slots(&ctx);
        return status;
    }
    if (check_program(&ctx)) {
        free_slots(&ctx);
        return SIM_FAULT;
    }
    /* every wave runs at least its first instruction: a grid with more waves than the budget has instructions
     * would only be stopped after running the budget out (minutes for 65536^3 groups) */
    uint64_t groups = (uint64_t)cfg->groups[0] * cfg->groups[1] * cfg->groups[2];
    if (prog->code_count && groups > ctx.budget / ctx.waves_per_group) {
        config_error(result, SIM_FAULT_BUDGET,
                     "runaway kernel: %llu workgroups of %u waves need at least one wave instruction per wave, more "
                     "than the budget of %llu wave instructions per dispatch (--budget N raises it)",
                     (unsigned long long)groups, ctx.waves_per_group, (unsigned long long)ctx.budget);
        result->fault_event.where.pc = SIM_PC_DISPATCH;
        free_slots(&ctx);
        return SIM_FAULT;
    }
    uint32_t *seg_len = segments_of(prog);
    if (!seg_len) {
        free_slots(&ctx);
        sim_result_free(result);
        return SIM_ERR_NOMEM;
    }
    ctx.seg_len = seg_len;
    sim_decoded *decoded = sim_decode(prog, seg_len, W);
    if (!decoded) {
        free_slots(&ctx);
        free(seg_len);
        sim_result_free(result);
        return SIM_ERR_NOMEM;
    }
    ctx.decoded = decoded;
    ctx.run_wave = (void (*)(void))pick_wave_fn(W, cfg->portable);

    if (run_parallel(&ctx)) {
        finish_stats(prog, st);
        free_slots(&ctx);
        free(seg_len);
        free(decoded);
        return SIM_OK;
    }
    status = thread_state_alloc(&ctx);
    if (status == SIM_OK && cfg->sanitize)
        status = sim_sanitize_begin(&ctx);
    if (status == SIM_OK)
        status = run_groups(&ctx);
    finish_stats(prog, st);
    sim_sanitize_end(&ctx);
    thread_state_free(&ctx);
    free_slots(&ctx);
    free(seg_len);
    free(decoded);
    return status;
}
