/*
 * sim/xlane.c — cross-lane (wave / subgroup) operations: votes, broadcasts,
 * ballots, shuffles, quad operations and the reductions and scans of
 * WAVE_OP.
 *
 * Only lanes active in the instruction's exec mask take part.  Reading a
 * lane that is inactive (or does not exist, or lies outside the wave) is
 * undefined: it is reported as an event with the reading lane and the source
 * lane, and the value read is 0.  Reductions and scans combine values
 * strictly in ascending lane order over the active lanes, so float results
 * are deterministic (they equal a sequential loop over the lanes, rounding
 * after each step in the type's precision).
 */
#include <math.h>
#include <stdio.h>

#include "sim/sanitize.h"
#include "sim/sim_internal.h"

#define LANES for (uint32_t l = 0; l < W; l++)
#define ACTIVE(l) sim_mask_has(exec, (unsigned)(l))

static const char *source_problem(uint64_t src, uint32_t W, sim_mask exec)
{
    return src >= W ? "outside the wave" : !ACTIVE(src) ? "inactive" : "fine";
}

/* A ballot held by lane l in registers a..a+3 (32 bits each), limited to the lanes of the wave. */
static inline sim_mask ballot_of_lane(const uint64_t *const A[4], uint32_t l, sim_mask in_wave)
{
    sim_mask v = 0;
    for (unsigned k = 0; k < 4; k++)
        v |= (sim_mask)(uint32_t)A[k][l] << (32 * k);
    return v & in_wave;
}

static int wave_op(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec);

/*
 * One family of operations per helper, each `static inline` so that
 * sim_exec_xlane keeps them in its body as it did when they were its cases
 * (the executor's speed); the reports of undefined reads, a rare path, are
 * functions of their own.
 */

/* VOTE_EQ: whether every active lane holds the first active lane's value. */
static inline int vote_eq(const sim_ctx *ctx, const sim_wave *w, const isa_inst *in, sim_mask exec, uint32_t first)
{
    const uint32_t W = ctx->wave_size;
    const isa_type type = (isa_type)in->type;
    /* floats compare by value: -0 equals +0, a NaN equals nothing */
    const uint64_t *A = sim_reg(ctx, w, in->a);
    int same = 1;
    if (isa_type_is_float(type)) {
        double v0 = sim_float_get(type, A[first]);
        LANES if (ACTIVE(l) && !(sim_float_get(type, A[l]) == v0)) same = 0;
    } else {
        unsigned s = type == ISA_TYPE_BOOL ? 63 : 64 - sim_type_bits(type);
        uint64_t v0 = SIM_ZX(A[first], s);
        LANES if (ACTIVE(l) && SIM_ZX(A[l], s) != v0) same = 0;
    }
    return same;
}

static void report_bad_broadcast(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec,
                                 uint32_t first, uint64_t src)
{
    const uint32_t W = ctx->wave_size;
    char hex[40];
    if (sim_mask_hi(exec))
        snprintf(hex, sizeof hex, "%llx%016llx", (unsigned long long)sim_mask_hi(exec),
                 (unsigned long long)sim_mask_lo(exec));
    else
        snprintf(hex, sizeof hex, "%llx", (unsigned long long)sim_mask_lo(exec));
    sim_report_undefined(ctx, w, pc, -1, "broadcast reads lane %llu, which is %s (exec 0x%s)",
                         (unsigned long long)src, source_problem(src, W, exec), hex);
    if (ctx->sanitize)
        sim_sanitize_report(ctx, w, pc, SIM_FINDING_INACTIVE_LANE, (int32_t)first, -1, -1,
                            "%s reads lane %llu, which is %s (exec 0x%s)", isa_op_name((isa_op)in->op),
                            (unsigned long long)src, source_problem(src, W, exec), hex);
}

/* BCAST: the value of the lane the first active lane names; 0 (reported) when that lane is not active. */
static inline uint64_t broadcast(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec,
                                 uint32_t first)
{
    const uint32_t W = ctx->wave_size;
    const uint64_t *A = sim_reg(ctx, w, in->a), *B = sim_reg(ctx, w, in->b);
    uint64_t src = (uint32_t)B[first];
    if (src < W && ACTIVE(src))
        return A[src];
    report_bad_broadcast(ctx, w, in, pc, exec, first, src);
    return 0;
}

/* BALLOT: the active lanes whose bool is set, as four 32-bit words in d..d+3 of every lane. */
static inline void ballot(const sim_ctx *ctx, sim_wave *w, const isa_inst *in, sim_mask exec, uint64_t *D)
{
    const uint32_t W = ctx->wave_size;
    const uint64_t *lm = w->lane_mask;
    const uint64_t *A = sim_reg(ctx, w, in->a);
    const sim_mask t = SIM_MASK_OF(W, A[l] & 1) & exec;
    const uint64_t t0 = sim_mask_word32(t, 0), t1 = sim_mask_word32(t, 1), t2 = sim_mask_word32(t, 2),
                   t3 = sim_mask_word32(t, 3);
    uint64_t *D1 = sim_reg(ctx, w, in->d + 1), *D2 = sim_reg(ctx, w, in->d + 2), *D3 = sim_reg(ctx, w, in->d + 3);
    /* D may be A: A is not read after this point */
    LANES {
        SIM_PUT(D, l, lm, t0);
        SIM_PUT(D1, l, lm, t1);
        SIM_PUT(D2, l, lm, t2);
        SIM_PUT(D3, l, lm, t3);
    }
}

/* BALLOT_BIT: bit b of each lane's ballot; an index past the 128 bits reads 0 and is reported. */
static inline void ballot_bit(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec,
                              uint64_t *D)
{
    const uint32_t W = ctx->wave_size;
    const uint64_t *lm = w->lane_mask;
    const uint64_t *B = sim_reg(ctx, w, in->b);
    uint64_t out[SIM_MAX_WAVE];
    sim_mask bad = 0;
    LANES {
        uint64_t bit = (uint32_t)B[l];
        if (bit >= 128) {
            bad |= sim_mask_lane(l);
            out[l] = 0;
        } else {
            uint64_t word = w->regs[((size_t)in->a + (bit >> 5)) * W + l];
            out[l] = (word >> (bit & 31)) & 1;
        }
    }
    LANES SIM_PUT(D, l, lm, out[l]);
    for (bad &= exec; bad; bad &= bad - 1)
        sim_report_undefined(ctx, w, pc, (int32_t)sim_mask_first(bad), "ballot bit index outside the 128-bit ballot");
}

/* BALLOT_CNT (imm 0: all, 1: inclusive, 2: exclusive of the lane), BALLOT_LSB, BALLOT_MSB of each lane's ballot.
 * Only bits of lanes inside the wave count; an empty ballot's lsb/msb is undefined, reported, -1. */
static inline void ballot_query(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec,
                                uint64_t *D)
{
    const uint32_t W = ctx->wave_size;
    const uint64_t *lm = w->lane_mask;
    const sim_mask in_wave = sim_mask_low(W);
    const uint64_t *const A[4] = {sim_reg(ctx, w, in->a), sim_reg(ctx, w, in->a + 1), sim_reg(ctx, w, in->a + 2),
                                  sim_reg(ctx, w, in->a + 3)};
    uint64_t out[SIM_MAX_WAVE];
    sim_mask empty = 0;
    LANES {
        sim_mask v = ballot_of_lane(A, l, in_wave);
        sim_mask le = sim_mask_low(l + 1); /* lanes <= l */
        if (in->op == ISA_OP_BALLOT_CNT)
            out[l] = sim_mask_count(in->imm == 0 ? v : in->imm == 1 ? v & le : v & (le >> 1));
        else if (v == 0) {
            empty |= sim_mask_lane(l);
            out[l] = ~0ull;
        } else
            out[l] = in->op == ISA_OP_BALLOT_LSB ? sim_mask_first(v) : sim_mask_last(v);
    }
    LANES SIM_PUT(D, l, lm, out[l]);
    for (empty &= exec; empty; empty &= empty - 1)
        sim_report_undefined(ctx, w, pc, (int32_t)sim_mask_first(empty), "%s of an empty ballot (result -1)",
                             in->op == ISA_OP_BALLOT_LSB ? "lowest bit" : "highest bit");
}

static void report_bad_shuffle_reads(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec,
                                     sim_mask bad, const uint64_t *src)
{
    const uint32_t W = ctx->wave_size;
    for (bad &= exec; bad; bad &= bad - 1) {
        int l = (int)sim_mask_first(bad);
        sim_report_undefined(ctx, w, pc, l, "%s: lane %d reads lane %lld, which is %s",
                             isa_op_name((isa_op)in->op), l, (long long)src[l],
                             source_problem(src[l], W, exec));
        if (ctx->sanitize)
            sim_sanitize_report(ctx, w, pc, SIM_FINDING_INACTIVE_LANE, l, -1, -1,
                                "%s: lane %d reads lane %lld, which is %s (exec 0x%llx)",
                                isa_op_name((isa_op)in->op), l, (long long)src[l],
                                source_problem(src[l], W, exec), (unsigned long long)exec);
    }
}

/* SHUFFLE, SHUFFLE_XOR/UP/DN, QUAD_BCAST, QUAD_SWAP: each lane reads the lane its operation names; a lane
 * outside the wave or inactive reads 0, reported. */
static inline void shuffle(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec, uint64_t *D)
{
    const uint32_t W = ctx->wave_size;
    const uint64_t *lm = w->lane_mask;
    const uint64_t *A = sim_reg(ctx, w, in->a);
    const uint64_t *B = in->op == ISA_OP_QUAD_SWAP ? NULL : sim_reg(ctx, w, in->b);
    uint64_t src[SIM_MAX_WAVE], out[SIM_MAX_WAVE];
    sim_mask bad = 0;
    switch ((isa_op)in->op) {
    case ISA_OP_SHUFFLE: LANES src[l] = (uint32_t)B[l]; break;
    case ISA_OP_SHUFFLE_XOR: LANES src[l] = l ^ (uint32_t)B[l]; break;
    case ISA_OP_SHUFFLE_UP: LANES src[l] = (uint64_t)l - (uint32_t)B[l]; break; /* wraps to huge: outside */
    case ISA_OP_SHUFFLE_DN: LANES src[l] = (uint64_t)l + (uint32_t)B[l]; break;
    case ISA_OP_QUAD_BCAST: LANES src[l] = (uint32_t)B[l] < 4 ? (l & ~3u) + (uint32_t)B[l] : ~0ull; break;
    default: LANES src[l] = l ^ (uint32_t)((in->imm & 3) + 1 > 3 ? 3 : (in->imm & 3) + 1); break;
    }
    LANES {
        uint64_t s = src[l];
        if (s < W && ACTIVE(s))
            out[l] = A[s];
        else {
            out[l] = 0;
            bad |= sim_mask_lane(l);
        }
    }
    LANES SIM_PUT(D, l, lm, out[l]);
    if (bad & exec)
        report_bad_shuffle_reads(ctx, w, in, pc, exec, bad, src);
}

/*
 * DPDX, DPDY: a difference across this lane's derivative quad, lanes 4k..4k+3 holding its top-left, top-right,
 * bottom-left and bottom-right invocations (sim/exec.c places them so).  Fine (imm 0): x is P1 - P0 for the top
 * row and P3 - P2 for the bottom one, y is P2 - P0 for the left column and P3 - P1 for the right one, as the
 * Vulkan specification's "Derivative Operations" define them; coarse (imm 1): every lane takes the top-left
 * lane's, P1 - P0 and P2 - P0.  Rounded once in f32.  A difference that needs an inactive lane is undefined
 * (derivatives must run in control flow uniform across the quad): it is 0, as NVIDIA documents its hardware
 * does (GL_NV_compute_shader_derivatives, issue 4), and reported with the lane it needed.
 */
static inline void derivative(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec,
                              uint64_t *D)
{
    const uint32_t W = ctx->wave_size;
    const uint64_t *lm = w->lane_mask;
    const uint64_t *A = sim_reg(ctx, w, in->a);
    const bool y = in->op == ISA_OP_DPDY, coarse = in->imm != 0;
    uint64_t src[SIM_MAX_WAVE], out[SIM_MAX_WAVE];
    sim_mask bad = 0;
    LANES {
        const uint32_t q = l & ~3u, i = coarse ? 0 : l & 3u;
        const uint32_t from = y ? q + (i & 1u) : q + (i & 2u), to = from + (y ? 2u : 1u);
        const bool ok = ACTIVE(from) && ACTIVE(to);
        src[l] = ACTIVE(from) ? to : from;
        out[l] = ok ? sim_f32_bits(sim_f32(A[to]) - sim_f32(A[from])) : 0;
        if (!ok)
            bad |= sim_mask_lane(l);
    }
    LANES SIM_PUT(D, l, lm, out[l]);
    if (bad & exec)
        report_bad_shuffle_reads(ctx, w, in, pc, exec, bad, src);
}

int sim_exec_xlane(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec)
{
    const uint32_t W = ctx->wave_size;
    const uint64_t *lm = w->lane_mask;
    if (exec == 0)
        return 0;
    const uint32_t first = sim_mask_first(exec);
    uint64_t *D = sim_reg(ctx, w, in->d);

    switch ((isa_op)in->op) {
    case ISA_OP_ELECT:
        LANES SIM_PUT(D, l, lm, l == first);
        return 0;
    case ISA_OP_VOTE_ALL: case ISA_OP_VOTE_ANY: {
        const uint64_t *A = sim_reg(ctx, w, in->a);
        const sim_mask t = SIM_MASK_OF(W, A[l] & 1) & exec;
        uint64_t r = in->op == ISA_OP_VOTE_ALL ? t == exec : t != 0;
        LANES SIM_PUT(D, l, lm, r);
        return 0;
    }
    case ISA_OP_VOTE_EQ: {
        uint64_t same = (uint64_t)vote_eq(ctx, w, in, exec, first);
        LANES SIM_PUT(D, l, lm, same);
        return 0;
    }
    case ISA_OP_BCAST: {
        uint64_t v = broadcast(ctx, w, in, pc, exec, first);
        LANES SIM_PUT(D, l, lm, v);
        return 0;
    }
    case ISA_OP_BCAST_FIRST: {
        uint64_t v = sim_reg(ctx, w, in->a)[first];
        LANES SIM_PUT(D, l, lm, v);
        return 0;
    }
    case ISA_OP_BALLOT:
        ballot(ctx, w, in, exec, D);
        return 0;
    case ISA_OP_INV_BALLOT:
        LANES {
            uint64_t word = w->regs[((size_t)in->a + (l >> 5)) * W + l];
            SIM_PUT(D, l, lm, (word >> (l & 31)) & 1);
        }
        return 0;
    case ISA_OP_BALLOT_BIT:
        ballot_bit(ctx, w, in, pc, exec, D);
        return 0;
    case ISA_OP_BALLOT_CNT: case ISA_OP_BALLOT_LSB: case ISA_OP_BALLOT_MSB:
        ballot_query(ctx, w, in, pc, exec, D);
        return 0;
    case ISA_OP_SHUFFLE: case ISA_OP_SHUFFLE_XOR: case ISA_OP_SHUFFLE_UP: case ISA_OP_SHUFFLE_DN:
    case ISA_OP_QUAD_BCAST: case ISA_OP_QUAD_SWAP:
        shuffle(ctx, w, in, pc, exec, D);
        return 0;
    case ISA_OP_WAVE_OP:
        return wave_op(ctx, w, in, pc, exec);
    case ISA_OP_DPDX: case ISA_OP_DPDY:
        derivative(ctx, w, in, pc, exec, D);
        return 0;
    default:
        return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, -1, -1, "%s is not a cross-lane operation",
                         isa_op_name((isa_op)in->op));
    }
}

/* ------------------------------------------------------------ WAVE_OP */

/*
 * One template for every type and operator: GET reads a lane, PUTV makes a
 * slot of the combined value, IDENT is the identity (what the first active
 * lane of an exclusive scan receives), COMB(acc, x) combines in lane order.
 * The first value of a run is taken as it is, so float sums keep -0.
 */
#define WAVE_SCAN(T, GET, PUTV, IDENT, COMB) \
    do { \
        T vals[SIM_MAX_WAVE]; \
        uint64_t out[SIM_MAX_WAVE]; \
        LANES vals[l] = GET(A[l]); \
        if (group == ISA_GROUP_INCLUSIVE || group == ISA_GROUP_EXCLUSIVE) { \
            T acc = IDENT; \
            int have = 0; \
            LANES { \
                if (!ACTIVE(l)) continue; \
                T x = vals[l]; \
                if (group == ISA_GROUP_EXCLUSIVE) out[l] = have ? PUTV(acc) : PUTV(IDENT); \
                acc = have ? COMB(acc, x) : x; \
                have = 1; \
                if (group == ISA_GROUP_INCLUSIVE) out[l] = PUTV(acc); \
            } \
        } else { \
            for (uint32_t base = 0; base < W; base += cluster) { \
                T acc = IDENT; \
                int have = 0; \
                for (uint32_t l = base; l < base + cluster; l++) { \
                    if (!ACTIVE(l)) continue; \
                    acc = have ? COMB(acc, vals[l]) : vals[l]; \
                    have = 1; \
                } \
                uint64_t r = PUTV(acc); \
                for (uint32_t l = base; l < base + cluster; l++) out[l] = r; \
            } \
        } \
        LANES if (ACTIVE(l)) D[l] = out[l]; \
    } while (0)

#define U_GET(x) SIM_ZX(x, sh)
#define S_GET(x) ((uint64_t)SIM_SX(x, sh))
#define I_PUT(v) SIM_ZX(v, sh)
#define F16_ROUND(v) sim_f16(sim_f16_bits(v))

#define C_ADD(a, x) ((a) + (x))
#define C_MUL(a, x) ((a) * (x))
#define C_AND(a, x) ((a) & (x))
#define C_OR(a, x) ((a) | (x))
#define C_XOR(a, x) ((a) ^ (x))
#define C_UMIN(a, x) ((x) < (a) ? (x) : (a))
#define C_UMAX(a, x) ((x) > (a) ? (x) : (a))
#define C_SMIN(a, x) ((int64_t)(x) < (int64_t)(a) ? (x) : (a))
#define C_SMAX(a, x) ((int64_t)(x) > (int64_t)(a) ? (x) : (a))
#define C_H_ADD(a, x) F16_ROUND((a) + (x))
#define C_H_MUL(a, x) F16_ROUND((a) * (x))

static int wave_op(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec)
{
    const uint32_t W = ctx->wave_size;
    const isa_type type = (isa_type)in->type;
    const unsigned bits = sim_type_bits(type);
    const unsigned sh = 64 - bits;
    const isa_reduce_op op = (isa_reduce_op)in->imm;
    const isa_group_op group = (isa_group_op)(in->imm2 & 0xff);
    uint64_t *D = sim_reg(ctx, w, in->d);
    const uint64_t *A = sim_reg(ctx, w, in->a);
    uint32_t cluster = W;
    if (group == ISA_GROUP_CLUSTERED) {
        int64_t cs = in->imm2 >> 8;
        cluster = cs >= 1 && cs < (int64_t)W ? (uint32_t)cs : W; /* bigger than the wave: the whole wave */
    } else if (group != ISA_GROUP_REDUCE && group != ISA_GROUP_INCLUSIVE && group != ISA_GROUP_EXCLUSIVE)
        return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, -1, -1, "wave_op: unknown group operation %lld",
                         (long long)(in->imm2 & 0xff));

    if (type == ISA_TYPE_F32 || type == ISA_TYPE_F16) {
        int half = type == ISA_TYPE_F16;
#define F_GET(x) (half ? sim_f16(x) : sim_f32(x))
#define F_PUT(v) (half ? sim_f16_bits(v) : sim_f32_bits(v))
        switch (op) {
        case ISA_RED_ADD:
            if (half) WAVE_SCAN(float, F_GET, F_PUT, 0.0f, C_H_ADD);
            else WAVE_SCAN(float, F_GET, F_PUT, 0.0f, C_ADD);
            return 0;
        case ISA_RED_MUL:
            if (half) WAVE_SCAN(float, F_GET, F_PUT, 1.0f, C_H_MUL);
            else WAVE_SCAN(float, F_GET, F_PUT, 1.0f, C_MUL);
            return 0;
        case ISA_RED_MIN: WAVE_SCAN(float, F_GET, F_PUT, INFINITY, fminf); return 0;
        case ISA_RED_MAX: WAVE_SCAN(float, F_GET, F_PUT, -INFINITY, fmaxf); return 0;
        default: break;
        }
#undef F_GET
#undef F_PUT
    } else if (type == ISA_TYPE_F64) {
        switch (op) {
        case ISA_RED_ADD: WAVE_SCAN(double, sim_f64, sim_f64_bits, 0.0, C_ADD); return 0;
        case ISA_RED_MUL: WAVE_SCAN(double, sim_f64, sim_f64_bits, 1.0, C_MUL); return 0;
        case ISA_RED_MIN: WAVE_SCAN(double, sim_f64, sim_f64_bits, INFINITY, fmin); return 0;
        case ISA_RED_MAX: WAVE_SCAN(double, sim_f64, sim_f64_bits, -INFINITY, fmax); return 0;
        default: break;
        }
    } else {
        int is_signed = isa_type_is_signed(type);
        uint64_t width_ones = bits == 64 ? ~0ull : ((1ull << bits) - 1);
        uint64_t smax = width_ones >> 1, smin = ~smax; /* as sign-extended 64-bit values */
        switch (op) {
        case ISA_RED_ADD: WAVE_SCAN(uint64_t, U_GET, I_PUT, 0, C_ADD); return 0;
        case ISA_RED_MUL: WAVE_SCAN(uint64_t, U_GET, I_PUT, 1, C_MUL); return 0;
        case ISA_RED_AND: WAVE_SCAN(uint64_t, U_GET, I_PUT, ~0ull, C_AND); return 0;
        case ISA_RED_OR: WAVE_SCAN(uint64_t, U_GET, I_PUT, 0, C_OR); return 0;
        case ISA_RED_XOR: WAVE_SCAN(uint64_t, U_GET, I_PUT, 0, C_XOR); return 0;
        case ISA_RED_MIN:
            if (is_signed) WAVE_SCAN(uint64_t, S_GET, I_PUT, smax, C_SMIN);
            else WAVE_SCAN(uint64_t, U_GET, I_PUT, width_ones, C_UMIN);
            return 0;
        case ISA_RED_MAX:
            if (is_signed) WAVE_SCAN(uint64_t, S_GET, I_PUT, smin, C_SMAX);
            else WAVE_SCAN(uint64_t, U_GET, I_PUT, 0, C_UMAX);
            return 0;
        default: break;
        }
    }
    return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, -1, -1, "wave_op: operator %lld is not defined for type '%s'",
                     (long long)op, isa_type_name(type));
}
