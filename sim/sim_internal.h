/*
 * sim/sim_internal.h — private to sim/: the state of one dispatch and of one
 * wave, the helpers that read a register slot as a typed value, and the
 * handlers the executor's hot loop (sim/exec.c) calls for the instruction
 * families that live in their own files (memory, cross-lane, GLSL math,
 * conversions).
 *
 * Every handler receives the wave, the instruction, its pc and the exec mask
 * of that instruction; it loops over lanes itself (dispatch once per wave
 * instruction, never per lane) and returns 0, or nonzero when it stopped the
 * run with a fault already written into ctx->result.
 */
#ifndef WAVELAB_SIM_INTERNAL_H
#define WAVELAB_SIM_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "isa/isa.h"
#include "sim/sim.h"

typedef enum sim_wave_state {
    SIM_WAVE_READY,    /* can run */
    SIM_WAVE_BARRIER,  /* waits at the BARRIER at pc - 1 */
    SIM_WAVE_ENDED
} sim_wave_state;

typedef struct sim_wave {
    uint64_t *regs;             /* reg_count * W slots: register r, lane l at regs[r * W + l] */
    sim_mask *masks;            /* mask_count wave masks */
    uint8_t *private_mem;       /* W lanes * ctx->private_lane_bytes */
    uint64_t lane_mask[SIM_MAX_WAVE]; /* all ones where the lane is in exec: predicated writes */
    sim_mask exec;
    sim_mask live;              /* lanes that exist (a partial last wave has fewer) */
    uint32_t pc;
    uint32_t index;             /* wave index inside the workgroup */
    sim_wave_state state;
} sim_wave;

/* Where one program slot lives during the dispatch. */
typedef struct sim_slot_mem {
    uint8_t *data;              /* NULL when size is 0 (or the push block is absent) */
    size_t size;                /* bytes (private: per lane) */
    size_t area_offset;      /* workgroup / private slots: isa_slot.base, the offset inside the shared area or a lane's private area */
    img_image *image;           /* image slots: the bound image (sim/image_exec.c) */
    img_view *view;             /* ... resolved once per dispatch (levels, offsets, decoder); NULL: per instruction */
    const img_sampler *sampler; /* sampler slots and combined image samplers */
} sim_slot_mem;

typedef struct sim_ctx {
    const isa_program *prog;
    const sim_config *cfg;
    sim_result *result;
    uint32_t wave_size;
    uint32_t local_count;        /* invocations per workgroup */
    uint32_t waves_per_group;
    uint32_t group[3];           /* current workgroup id */
    uint64_t budget_left;        /* wave instructions still allowed */
    uint64_t budget;             /* the configured total, for messages */
    sim_slot_mem *slots;         /* prog->slot_count entries */
    uint8_t *workgroup_mem;      /* all WORKGROUP slots, zeroed per workgroup */
    size_t workgroup_mem_size;
    size_t private_lane_bytes;   /* all PRIVATE slots of one lane */
    sim_wave *waves;             /* waves_per_group, reused by every workgroup */
    /* several host threads (sim/exec.c): per slot, the workgroup (linear id + 1) that last wrote each
     * 32-bit word, NULL for slots not checked; a second writer sets *write_conflict */
    uint32_t **write_owner;
    uint32_t group_tag;          /* linear workgroup id + 1 */
    int *write_conflict;
    struct sim_sanitizer *sanitize; /* shadow state of cfg->sanitize (sim/sanitize.h); NULL when off */
    /* statistics by segment (sim/exec.c): per pc, the length of the segment that starts there (0: none; shared
     * by every thread), and this thread's executions and active lanes per segment, added to the per-instruction
     * statistics when the thread is done */
    const uint32_t *seg_len;
    uint64_t *seg_exec, *seg_lanes;
    const struct sim_decoded *decoded; /* prog->code pre-decoded for this wave size (sim/decode.c; shared by every thread) */
    void (*run_wave)(void);      /* the hot loop's instance for this wave size and host (sim/exec.c) */
} sim_ctx;

/* Records that the current workgroup writes bytes [address, address + bytes) of a slot whose per-word owner
 * record is `owner` (ctx->write_owner[slot]: only on several host threads); a word written by another workgroup
 * marks a conflict (the dispatch then runs again on one thread). */
static inline void sim_note_write(sim_ctx *ctx, uint32_t *owner, uint64_t address, unsigned bytes)
{
    for (uint64_t word = address / 4; word <= (address + bytes - 1) / 4; word++) {
        uint32_t expected = 0;
        if (!__atomic_compare_exchange_n(&owner[word], &expected, ctx->group_tag, 0, __ATOMIC_RELAXED,
                                         __ATOMIC_RELAXED) &&
            expected != ctx->group_tag)
            __atomic_store_n(ctx->write_conflict, 1, __ATOMIC_RELAXED);
    }
}

/* ---------------------------------------------------------- pre-decoded instructions (sim/decode.c) */

/*
 * Handlers of the hot loop (sim/exec_loop.h): one per opcode, then forms of
 * the hottest opcodes specialised by type, which run without the type switch
 * or with a constant width (_F32: f32 lanes; _32: a 32-bit integer type).
 * BRANCH_IF_B is branch_if without a comparison (imm2 = 0), BRANCH_IF_ULT_32
 * and _SLT_32 with that comparison on 32-bit integers.
 */
#define SIM_SPECIAL_HANDLERS(X) \
    X(FADD_F32) X(FSUB_F32) X(FMUL_F32) X(FMA_F32) X(FOLT_F32) X(FOLE_F32) X(FOEQ_F32) \
    X(IEQ_32) X(INE_32) X(ULT_32) X(ULE_32) X(SLT_32) X(SLE_32) X(SHRL_32) X(SHRA_32) \
    X(BRANCH_IF_B) X(BRANCH_IF_ULT_32) X(BRANCH_IF_SLT_32)

typedef enum sim_handler {
#define X(name, ...) SIM_H_##name,
#include "isa/ops.def"
#undef X
#define X(name) SIM_H_##name,
    SIM_SPECIAL_HANDLERS(X)
#undef X
    SIM_H_COUNT
} sim_handler;

/* sim_decoded.flags */
#define SIM_DEC_SALU        1u  /* scalar ALU: writes every live lane, whatever exec is */
#define SIM_DEC_SEG_SALU    2u  /* (segment starts) the segment holds a scalar ALU instruction */

/*
 * What the hot loop's head recomputed for every wave instruction, worked out
 * once per dispatch for its wave size W, in an array parallel to
 * prog->code (32 bytes an entry: a shift indexes it).  Register operands d,
 * a, b and c are slot offsets, register * W (0 where the field names no
 * register: the handlers that read such a field take it from `in`).  ix is
 * the dispatch index: handler * 2, plus 1 where a segment starts (the hot
 * loop counts the statistics there; sim/exec.c).
 */
typedef struct sim_decoded {
    const isa_inst *in;         /* the instruction: masks, immediates, slot, e */
    uint32_t d, a, b, c;        /* register operands, already * W */
    uint16_t ix;                /* sim_handler * 2 + (a segment starts here) */
    uint8_t type;               /* isa_type */
    uint8_t bits;               /* sim_type_bits(type) */
    uint8_t sh;                 /* 64 - bits: the shift of SIM_ZX / SIM_SX */
    uint8_t flags;              /* SIM_DEC_* */
} sim_decoded;

/* The pre-decoded program (malloc'd, caller frees), or NULL when out of memory or when reg_count * W does not fit
 * 32 bits.  Call after the program was checked (sim/exec.c: check_program); seg_len is segments_of's. */
sim_decoded *sim_decode(const isa_program *p, const uint32_t *seg_len, uint32_t W);

/* ---------------------------------------------------------- lane masks */

/* The lowest n lanes (n <= 128). */
static inline sim_mask sim_mask_low(unsigned n)
{
    return n >= 128 ? ~(sim_mask)0 : (((sim_mask)1 << n) - 1);
}
static inline sim_mask sim_mask_lane(unsigned l) { return (sim_mask)1 << l; }
/* Lane l of m: one 64-bit shift (a 128-bit shift by a variable is several instructions, and lane loops do this). */
static inline int sim_mask_has(sim_mask m, unsigned l)
{
    return (int)(((l < 64 ? (uint64_t)m : (uint64_t)(m >> 64)) >> (l & 63)) & 1);
}
static inline uint64_t sim_mask_lo(sim_mask m) { return (uint64_t)m; }
static inline uint64_t sim_mask_hi(sim_mask m) { return (uint64_t)(m >> 64); }
static inline unsigned sim_mask_count(sim_mask m)
{
    return (unsigned)(__builtin_popcountll(sim_mask_lo(m)) + __builtin_popcountll(sim_mask_hi(m)));
}
/* Index of the lowest / highest set lane; m must not be 0. */
static inline unsigned sim_mask_first(sim_mask m)
{
    return sim_mask_lo(m) ? (unsigned)__builtin_ctzll(sim_mask_lo(m)) : 64u + (unsigned)__builtin_ctzll(sim_mask_hi(m));
}
static inline unsigned sim_mask_last(sim_mask m)
{
    return sim_mask_hi(m) ? 127u - (unsigned)__builtin_clzll(sim_mask_hi(m)) : 63u - (unsigned)__builtin_clzll(sim_mask_lo(m));
}
/* 32-bit word k (0..3) of a mask, as a uvec4 ballot holds it. */
static inline uint64_t sim_mask_word32(sim_mask m, unsigned k) { return (uint64_t)(uint32_t)(m >> (32 * k)); }

/* sim_lane_bit[k] = 1 << k: a table lookup instead of a variable shift keeps lane loops vectorisable. */
static const uint64_t sim_lane_bit[64] = {
#define SIM_B4(k) 1ull << (k), 1ull << ((k) + 1), 1ull << ((k) + 2), 1ull << ((k) + 3)
    SIM_B4(0), SIM_B4(4), SIM_B4(8), SIM_B4(12), SIM_B4(16), SIM_B4(20), SIM_B4(24), SIM_B4(28),
    SIM_B4(32), SIM_B4(36), SIM_B4(40), SIM_B4(44), SIM_B4(48), SIM_B4(52), SIM_B4(56), SIM_B4(60),
#undef SIM_B4
};

/*
 * Builds a mask from a per-lane condition over lanes 0..W-1: two 64-bit
 * halves, so the loop for a wave of <= 64 lanes stays a plain 64-bit OR
 * reduction the compiler can vectorise.  `cond` sees the lane as `l`.
 */
#define SIM_MASK_OF(W, cond) \
    __extension__({ \
        uint64_t lo_ = 0, hi_ = 0; \
        const uint32_t n0_ = (W) < 64 ? (W) : 64; \
        for (uint32_t l = 0; l < n0_; l++) lo_ |= (0 - (uint64_t)((cond) != 0)) & sim_lane_bit[l]; \
        for (uint32_t l = 64; l < (W); l++) hi_ |= (0 - (uint64_t)((cond) != 0)) & sim_lane_bit[l - 64]; \
        (sim_mask)lo_ | (sim_mask)hi_ << 64; \
    })

/* ---------------------------------------------------------- typed reads */

/* Bits of a value of type t in its 64-bit slot (bool: 1, none: 64). */
static inline unsigned sim_type_bits(isa_type t)
{
    static const unsigned char bits[ISA_TYPE_COUNT] = {
#define X(id, name, size) [ISA_TYPE_##id] = ISA_TYPE_##id == ISA_TYPE_BOOL ? 1 : (size) ? 8 * (size) : 64,
        ISA_TYPE_LIST(X)
#undef X
    };
    return t < ISA_TYPE_COUNT ? bits[t] : 64;
}

/* Zero- and sign-extension of the low (64 - sh) bits: sh = 64 - bits. */
#define SIM_ZX(x, sh) (((uint64_t)(x) << (sh)) >> (sh))
#define SIM_SX(x, sh) ((int64_t)((uint64_t)(x) << (sh)) >> (sh))

static inline float sim_f32(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint64_t sim_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline double sim_f64(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}
static inline uint64_t sim_f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
/* f16: IEEE binary16 in the low 16 bits; arithmetic is done in float and
 * rounded back, which is exact for + - * / sqrt (24 >= 2 * 11 + 2 bits). */
static inline float sim_f16(uint64_t v)
{
    uint16_t u = (uint16_t)v;
    _Float16 h;
    memcpy(&h, &u, 2);
    return (float)h;
}
static inline uint64_t sim_f16_bits(float f)
{
    _Float16 h = (_Float16)f;
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}
static inline uint64_t sim_f16_bits_d(double d)
{
    _Float16 h = (_Float16)d;
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}

/*
 * fp16 with F16C.  The conversions above are `_Float16` casts, which GCC
 * compiles into calls to libgcc's software conversions (__extendhfsf2,
 * __truncsfhf2) unless the function that holds them is compiled for F16C:
 * there each is one instruction (vcvtph2ps; vcvtps2ph rounding as the MXCSR
 * says, to nearest even).  Both give the same bits for every input
 * (tests/test_sim.c checks every half and a sweep of floats against a
 * conversion written in the test); double-to-half has no F16C instruction
 * and stays one software rounding.  A handler outside the hot loop (which
 * has its own AVX2/F16C copy, sim/exec.c) that converts fp16 is written
 * once as an always_inline body and compiled twice by SIM_WITH_F16C:
 *     SIM_WITH_F16C(static int, name_f16c, name_plain, body, (params), (args))
 * and sim_use_f16c picks the copy per call (sim_config.portable: plain).
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SIM_WITH_F16C(ret, f16c_name, plain_name, body, params, args) \
    __attribute__((target("f16c"))) ret f16c_name params { return body args; } \
    ret plain_name params { return body args; }
static inline int sim_use_f16c(const sim_ctx *ctx) { return !ctx->cfg->portable && __builtin_cpu_supports("f16c"); }
#else
#define SIM_WITH_F16C(ret, f16c_name, plain_name, body, params, args) \
    ret f16c_name params { return body args; } \
    ret plain_name params { return body args; }
static inline int sim_use_f16c(const sim_ctx *ctx) { (void)ctx; return 0; }
#endif

/* A float slot as double (exact for f16/f32/f64), and back with one rounding. */
static inline double sim_float_get(isa_type t, uint64_t v)
{
    return t == ISA_TYPE_F16 ? (double)sim_f16(v) : t == ISA_TYPE_F32 ? (double)sim_f32(v) : sim_f64(v);
}
static inline uint64_t sim_float_put(isa_type t, double d)
{
    return t == ISA_TYPE_F16 ? sim_f16_bits_d(d) : t == ISA_TYPE_F32 ? sim_f32_bits((float)d) : sim_f64_bits(d);
}

/* Predicated write of lane l: only lanes whose lane mask is all ones change. */
#define SIM_PUT(dst, l, lm, value) \
    ((dst)[l] = (((uint64_t)(value)) & (lm)[l]) | ((dst)[l] & ~(lm)[l]))

static inline uint64_t *sim_reg(const sim_ctx *ctx, const sim_wave *w, uint32_t r)
{
    return w->regs + (size_t)r * ctx->wave_size;
}

/* ---------------------------------------------------------- reports */

void sim_location_at(const sim_ctx *ctx, const sim_wave *w, uint32_t pc, int32_t lane, sim_location *loc);

/* An undefined-behaviour event: counted, and stored while there is room.
 * `lane` is -1 when the event is not lane specific. */
void sim_report_undefined(sim_ctx *ctx, const sim_wave *w, uint32_t pc, int32_t lane, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Stops the run with a fault at pc (lane, slot, address may be -1); returns 1. */
int sim_fault(sim_ctx *ctx, const sim_wave *w, uint32_t pc, sim_fault_kind kind, int32_t lane, int32_t slot,
              int64_t address, const char *fmt, ...) __attribute__((format(printf, 8, 9)));

/* ---------------------------------------------------------- observers (sim/step.c) */

/* The step hook when it follows wave w of the current workgroup, else NULL (checked once per run_wave). */
const sim_step_hook *sim_step_followed(const sim_ctx *ctx, const sim_wave *w);

/* Hands the instruction at pc, about to run for `exec`, to the hook. */
void sim_step_call(const sim_ctx *ctx, const sim_wave *w, const sim_step_hook *hook, uint32_t pc, sim_mask exec);

/* Tells sim_config.progress (if any) that `groups_done` workgroups have finished. */
static inline void sim_progress_note(const sim_ctx *ctx, uint64_t groups_done)
{
    const sim_progress *p = ctx->cfg->progress;
    if (p)
        p->done(p->user, groups_done,
                (uint64_t)ctx->cfg->groups[0] * ctx->cfg->groups[1] * ctx->cfg->groups[2]);
}

/* ---------------------------------------------------------- handlers */

int sim_exec_memory(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec);
/* The executor of a family of instructions (sim_exec_memory, sim_exec_image): 1 when it faulted. */
typedef int sim_exec_fn(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec);
/* An instruction on a descriptor array's element picked by a run-time index (desc_index): `run` once per distinct
 * element among exec's lanes, exec narrowed to them, the index resolved (sim/exec.c).  sim_exec_memory and
 * sim_exec_image hand such an instruction here themselves, so the hot loop never looks at desc_index. */
int sim_exec_indexed(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec, sim_exec_fn *run);
int sim_exec_xlane(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec);
int sim_exec_fmath(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec);
int sim_exec_cvt(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec);
/* A lane's integer texel address (sim/image_exec.c; the sanitizer names and indexes texels by it). */
typedef struct sim_texel_at {
    int32_t xyz[3];
    int64_t layer;
    int64_t mip;
    int64_t sample; /* 0 on a single-sampled image */
} sim_texel_at;

/* The plane of the packed layout (img_planes) that holds an in-bounds texel's layer and sample. */
static inline uint32_t sim_texel_plane(const img_image *im, const sim_texel_at *t)
{
    return (uint32_t)t->layer * img_samples(im) + (uint32_t)t->sample;
}

/* IMG_LOAD, IMG_STORE, IMG_SAMPLE, IMG_GATHER, IMG_ATOMIC, IMG_QUERY (sim/image_exec.c). */
int sim_exec_image(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec);
/* Binds image/sampler slot s to its sim_config.images entry and checks that it fits the kernel's declaration.
 * Returns SIM_FAULT_NONE, or the kind with the message in why. */
sim_fault_kind sim_image_bind(sim_ctx *ctx, uint32_t s, char *why, size_t why_size);
/* Releases what sim_image_bind resolved for every slot of ctx (ctx->slots stays). */
void sim_image_unbind(sim_ctx *ctx);

#endif
