/*
 * sim/mem.c — memory instructions: loads, stores, atomics, texel buffer
 * reads and writes, runtime array lengths.
 *
 * Every slot is a flat byte range (the caller's buffer, the push block, the
 * workgroup's shared bytes, or one lane's private bytes).  An access that
 * reaches past the end of its slot stops the run with an out-of-bounds fault
 * naming the slot, the lane and the byte address.  Values are little endian
 * (the host's order: wavelab runs on little-endian hosts); a bool occupies 4
 * bytes (0 or 1).  Atomics of a wave happen one lane after another in lane
 * order.
 *
 * Addresses: the offset register holds a 32-bit byte offset (as hardware
 * buffer instructions do); the instruction's constant offset is added to it
 * in 64 bits, so a negative index still lands outside the slot.
 *
 * Two paths: an instruction whose active lanes are all inside the slot
 * (checked first, lanes_in_bounds / texels_in_bounds) runs with what does
 * not depend on the lane resolved once (element size, base, texel format)
 * and no check per element; any other (a fault, robust accesses, bools)
 * goes lane by lane, element by element.  Both write the same bytes in the
 * same order, and a fault is found by the second exactly as before.
 */
#include <math.h>
#include <stdio.h>

#include "sim/sanitize.h"
#include "sim/sim_internal.h"

#define LANES for (uint32_t l = 0; l < W; l++)
#define ACTIVE(l) sim_mask_has(exec, (unsigned)(l))

/*
 * A value of size (1, 2, 4 or 8) bytes, little endian (the host's order):
 * a constant-size copy per case, which the compiler turns into one load or
 * store, where a copy of variable size is a call into libc and an 8-byte
 * reload of a partly written word.
 */
static inline uint64_t read_le(const uint8_t *p, unsigned size)
{
    switch (size) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    case 8: { uint64_t v; memcpy(&v, p, 8); return v; }
    default: { uint64_t v = 0; memcpy(&v, p, size < 8 ? size : 8); return v; }
    }
}
static inline void write_le(uint8_t *p, unsigned size, uint64_t v)
{
    switch (size) {
    case 1: *p = (uint8_t)v; break;
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, size < 8 ? size : 8); break;
    }
}

/* isa_type_size without a call per memory instruction: bytes in memory, bool 4, none 0. */
static inline unsigned type_size(isa_type t)
{
    static const unsigned char sizes[ISA_TYPE_COUNT] = {
#define X(id, name, size) [ISA_TYPE_##id] = ISA_TYPE_##id == ISA_TYPE_BOOL ? 4 : (size),
        ISA_TYPE_LIST(X)
#undef X
    };
    return t < ISA_TYPE_COUNT ? sizes[t] : 0;
}

/* The bytes of slot s as seen by lane l. */
static inline uint8_t *slot_base(const sim_ctx *ctx, const sim_wave *w, uint32_t s, uint32_t l)
{
    const sim_slot_mem *m = &ctx->slots[s];
    if (ctx->prog->slots[s].space == ISA_SPACE_PRIVATE)
        return w->private_mem + ctx->private_lane_bytes * l + m->area_offset;
    return m->data;
}

static int out_of_bounds(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc, uint32_t lane,
                         uint64_t address, unsigned bytes)
{
    const isa_slot *sl = &ctx->prog->slots[in->slot];
    const sim_slot_mem *m = &ctx->slots[in->slot];
    char where[64] = "";
    if (sl->space <= ISA_SPACE_UNIFORM_TEXEL)
        snprintf(where, sizeof where, " (set %u binding %u)", sl->set, sl->binding);
    return sim_fault(ctx, w, pc, SIM_FAULT_OUT_OF_BOUNDS, (int32_t)lane, (int32_t)in->slot,
                     address > INT64_MAX ? INT64_MAX : (int64_t)address,
                     "out-of-bounds %s of %u bytes at address 0x%llx of %s slot '%s'%s, which has %zu bytes%s",
                     isa_op_name((isa_op)in->op), bytes, (unsigned long long)address, isa_space_name(sl->space),
                     sl->name, where, m->size, sl->space == ISA_SPACE_PRIVATE ? " per lane" : "");
}

static inline int in_bounds(const sim_slot_mem *m, uint64_t address, unsigned bytes)
{
    return address <= m->size && m->size - address >= bytes;
}

/* robustBufferAccess2 (Vulkan) / D3D12: accesses outside a buffer binding read 0 and write nothing. */
static inline int robust_slot(const sim_ctx *ctx, const isa_slot *sl)
{
    return ctx->cfg->robust_access && sl->space <= ISA_SPACE_UNIFORM_TEXEL;
}

/* Texel format of a slot; an unknown format is read as one 32-bit component of the texel type. */
static void slot_format(const isa_slot *sl, unsigned *comps, unsigned *bytes, isa_type *type, int *unorm)
{
    if (sl->format == ISA_FORMAT_UNKNOWN || sl->format >= ISA_FORMAT_COUNT) {
        *comps = 1;
        *type = sl->texel_type == ISA_TYPE_NONE ? ISA_TYPE_U32 : sl->texel_type;
        *bytes = isa_type_size(*type);
        *unorm = 0;
        return;
    }
    *comps = isa_format_components(sl->format);
    *bytes = isa_format_bytes(sl->format);
    *type = isa_format_type(sl->format); /* NONE: unorm8 */
    *unorm = *type == ISA_TYPE_NONE;
    if (*unorm)
        *type = ISA_TYPE_U8;
}

/*
 * A texel buffer access resolved once per instruction: everything about the
 * slot's format and texel type that does not depend on the lane, so the
 * lane loops below test flags in locals instead of calling the isa_type_*
 * functions per component.
 */
typedef struct texel_access {
    unsigned comps, bytes, cbytes; /* components in memory, bytes per texel, bytes per component */
    isa_type fmt, texel;           /* component type in memory (U8 for unorm8), in registers */
    int unorm, fmt_float, fmt_signed, texel_float, texel_signed;
    unsigned fmt_sh, texel_sh;     /* 64 - bits of each, for SIM_ZX / SIM_SX */
    uint64_t one;                  /* a missing alpha component in registers: 1 or 1.0 */
} texel_access;

static void texel_access_of(const isa_slot *sl, texel_access *t)
{
    slot_format(sl, &t->comps, &t->bytes, &t->fmt, &t->unorm);
    t->cbytes = t->bytes / t->comps;
    t->texel = sl->texel_type == ISA_TYPE_NONE ? t->fmt : sl->texel_type;
    t->fmt_float = isa_type_is_float(t->fmt);
    t->fmt_signed = isa_type_is_signed(t->fmt);
    t->texel_float = isa_type_is_float(t->texel);
    t->texel_signed = isa_type_is_signed(t->texel);
    t->fmt_sh = 64 - sim_type_bits(t->fmt);
    t->texel_sh = 64 - sim_type_bits(t->texel);
    t->one = t->texel_float ? sim_float_put(t->texel, 1.0) : 1;
}

/* Converts a memory component to a register slot of the texel type. */
static inline uint64_t texel_to_reg(const texel_access *t, uint64_t raw)
{
    if (t->unorm || t->fmt_float) {
        double v = t->unorm ? (double)raw / 255.0 : sim_float_get(t->fmt, raw);
        if (t->texel_float)
            return sim_float_put(t->texel, v);
        return t->texel_signed ? (uint64_t)(int64_t)v : (uint64_t)v;
    }
    int64_t iv = t->fmt_signed ? SIM_SX(raw, t->fmt_sh) : (int64_t)SIM_ZX(raw, t->fmt_sh);
    if (t->texel_float)
        return sim_float_put(t->texel, t->fmt_signed ? (double)iv : (double)(uint64_t)iv);
    return (uint64_t)iv;
}

/* Converts a register slot of the texel type to a memory component. */
static inline uint64_t reg_to_texel(const texel_access *t, uint64_t reg)
{
    if (t->unorm) {
        double v = t->texel_float ? sim_float_get(t->texel, reg) : (double)SIM_ZX(reg, 56) / 255.0;
        v = v != v ? 0 : v < 0 ? 0 : v > 1 ? 1 : v;
        return (uint64_t)nearbyint(v * 255.0);
    }
    if (t->fmt_float) {
        double v = t->texel_float    ? sim_float_get(t->texel, reg)
                   : t->texel_signed ? (double)SIM_SX(reg, t->texel_sh)
                                     : (double)SIM_ZX(reg, t->texel_sh);
        return sim_float_put(t->fmt, v);
    }
    if (t->texel_float) {
        double v = sim_float_get(t->texel, reg);
        return v != v ? 0 : t->fmt_signed ? (uint64_t)(int64_t)v : (uint64_t)v;
    }
    return reg; /* integer to integer: the low bits */
}

static int atomic(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec)
{
    const uint32_t W = ctx->wave_size;
    const isa_type type = (isa_type)in->type;
    const unsigned size = isa_type_size(type);
    const unsigned sh = 64 - sim_type_bits(type);
    const sim_slot_mem *m = &ctx->slots[in->slot];
    const isa_reduce_op op = (isa_reduce_op)in->imm2;
    const uint64_t *A = in->a == ISA_NO_REG ? NULL : sim_reg(ctx, w, in->a);
    const uint64_t *B = op == ISA_RED_LOAD ? NULL : sim_reg(ctx, w, in->b);
    const uint64_t *C = op == ISA_RED_CMPXCHG ? sim_reg(ctx, w, in->c) : NULL;
    uint64_t *D = in->d == ISA_NO_REG ? NULL : sim_reg(ctx, w, in->d);
    int is_float = isa_type_is_float(type), is_signed = isa_type_is_signed(type);
    if (size == 0 || (is_float && op != ISA_RED_ADD && op != ISA_RED_MIN && op != ISA_RED_MAX &&
                      op != ISA_RED_EXCHANGE && op != ISA_RED_CMPXCHG && op != ISA_RED_LOAD && op != ISA_RED_STORE) ||
        op == ISA_RED_MUL || op >= ISA_RED_COUNT)
        return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->slot, -1,
                         "atomic operator %lld is not defined for type '%s'", (long long)op, isa_type_name(type));
    LANES {
        if (!ACTIVE(l))
            continue;
        uint64_t address = (A ? (uint64_t)(uint32_t)A[l] : 0) + (uint64_t)in->imm;
        if (!in_bounds(m, address, size)) {
            if (!robust_slot(ctx, &ctx->prog->slots[in->slot]))
                return out_of_bounds(ctx, w, in, pc, l, address, size);
            /* robust: memory untouched; wavelab returns 0 where Vulkan leaves the value undefined */
            if (D && op != ISA_RED_STORE)
                D[l] = 0;
            ctx->result->stats.robust_stores++;
            continue;
        }
        uint8_t *p = slot_base(ctx, w, in->slot, l) + address;
        uint64_t old = read_le(p, size), b = B ? B[l] : 0, nv = old;
        uint64_t ox = SIM_ZX(old, sh), bx = SIM_ZX(b, sh);
        switch (op) {
        case ISA_RED_ADD:
            nv = is_float ? sim_float_put(type, sim_float_get(type, old) + sim_float_get(type, b)) : old + b;
            break;
        case ISA_RED_MIN: case ISA_RED_MAX: {
            int take_b;
            if (is_float) {
                double x = sim_float_get(type, old), y = sim_float_get(type, b);
                nv = sim_float_put(type, op == ISA_RED_MIN ? fmin(x, y) : fmax(x, y));
                break;
            }
            if (is_signed)
                take_b = op == ISA_RED_MIN ? SIM_SX(b, sh) < SIM_SX(old, sh) : SIM_SX(b, sh) > SIM_SX(old, sh);
            else
                take_b = op == ISA_RED_MIN ? bx < ox : bx > ox;
            nv = take_b ? b : old;
            break;
        }
        case ISA_RED_AND: nv = old & b; break;
        case ISA_RED_OR: nv = old | b; break;
        case ISA_RED_XOR: nv = old ^ b; break;
        case ISA_RED_EXCHANGE: case ISA_RED_STORE: nv = b; break;
        case ISA_RED_CMPXCHG: nv = ox == SIM_ZX(C[l], sh) ? b : old; break;
        default: break; /* LOAD */
        }
        if (op != ISA_RED_LOAD) {
            if (ctx->prog->slots[in->slot].readonly)
                return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, (int32_t)l, (int32_t)in->slot,
                                 (int64_t)address, "atomic write to read-only slot '%s'",
                                 ctx->prog->slots[in->slot].name);
            write_le(p, size, nv);
        }
        if (D && op != ISA_RED_STORE)
            D[l] = type == ISA_TYPE_BOOL ? old != 0 : old;
    }
    return 0;
}

/*
 * The lanes of exec in lane order, one iteration per active lane (`l` in
 * body): two 64-bit words and a count-trailing-zeros each, which costs less
 * than testing every lane of the wave when all are active and much less
 * when few are.
 */
#define EACH_ACTIVE(exec, body)                                                                      \
    for (unsigned word_ = 0; word_ < 2; word_++)                                                     \
        for (uint64_t bits_ = word_ ? sim_mask_hi(exec) : sim_mask_lo(exec); bits_; bits_ &= bits_ - 1) { \
            const uint32_t l = 64 * word_ + (uint32_t)__builtin_ctzll(bits_);                        \
            body                                                                                     \
        }

/*
 * Whether every active lane's access of span bytes at A[l] + imm lies inside
 * slot memory m (A NULL: the address is imm alone).  The addresses are the
 * ones the lane loops compute; an access of n elements is inside when its
 * first byte is at most size - span.
 */
static inline int lanes_in_bounds(const sim_slot_mem *m, const uint64_t *A, int64_t imm, uint64_t span, sim_mask exec)
{
    if (exec == 0)
        return 1;
    if (span > m->size)
        return 0;
    const uint64_t last = m->size - span; /* the highest address the access may start at */
    if (!A)
        return (uint64_t)imm <= last;
    uint64_t outside = 0;
    EACH_ACTIVE(exec, outside |= (uint64_t)(uint32_t)A[l] + (uint64_t)imm > last;);
    return outside == 0;
}

/*
 * LOAD and STORE of a type that is not bool when every active lane is
 * inside the slot (lanes_in_bounds): no bounds test per element and a
 * constant-size copy per element size.  Lane by lane in lane order, element
 * by element, as the checked loop of exec_memory does, so stores of several
 * lanes to one address leave the same value.
 */
static int load_store_in_bounds(sim_ctx *ctx, sim_wave *w, const isa_inst *in, sim_mask exec, unsigned size,
                                unsigned n, const uint64_t *A, uint32_t *owner)
{
    const uint32_t W = ctx->wave_size;
    const sim_slot_mem *m = &ctx->slots[in->slot];
    /* lane l's bytes start at base + stride * l: private memory is one area per lane */
    const int private_space = ctx->prog->slots[in->slot].space == ISA_SPACE_PRIVATE;
    uint8_t *const base = private_space ? w->private_mem + m->area_offset : m->data;
    const size_t stride = private_space ? ctx->private_lane_bytes : 0;
    const uint64_t imm = (uint64_t)in->imm;
    const int every_lane = exec == sim_mask_low(W);
    uint64_t *const R = w->regs + (size_t)(in->op == ISA_OP_LOAD ? in->d : in->b) * W;
    /* the lane's address inside the slot, and its first byte in host memory */
#define ADDRESS(l) ((A ? (uint64_t)(uint32_t)A[l] : 0) + imm)
#define BYTES(l) (base + stride * (l) + ADDRESS(l))
    /* a counted loop when every lane is active (the common case), else the active lanes */
#define EACH_LANE(body)                \
    do {                               \
        if (every_lane) {              \
            LANES body                 \
        } else {                       \
            EACH_ACTIVE(exec, body);   \
        }                              \
    } while (0)
    /* one element per lane at p: with no address register and every lane active (private arrays indexed by
     * constants, uniform loads) the lanes' bytes are stride apart and no address is computed per lane */
#define EACH_ONE(body)                                                         \
    do {                                                                       \
        if (every_lane && !A) {                                                \
            uint8_t *p = base + imm;                                           \
            for (uint32_t l = 0; l < W; l++, p += stride)                      \
                body                                                           \
        } else {                                                               \
            EACH_LANE({                                                        \
                uint8_t *p = BYTES(l);                                         \
                body                                                           \
            });                                                                \
        }                                                                      \
    } while (0)
#define LOAD_AS(T)                                                                            \
    if (n == 1) {                                                                             \
        EACH_ONE({                                                                            \
            T v;                                                                              \
            memcpy(&v, p, sizeof(T));                                                         \
            R[l] = v;                                                                         \
        });                                                                                   \
    } else {                                                                                  \
        EACH_LANE({                                                                           \
            const uint8_t *p = BYTES(l);                                                      \
            for (unsigned i = 0; i < n; i++) {                                                \
                T v;                                                                          \
                memcpy(&v, p + (size_t)i * sizeof(T), sizeof(T));                             \
                R[(size_t)i * W + l] = v;                                                     \
            }                                                                                 \
        });                                                                                   \
    }                                                                                         \
    return 0;
#define STORE_AS(T)                                                                           \
    if (n == 1 && !owner) {                                                                   \
        EACH_ONE({                                                                            \
            T v = (T)R[l];                                                                    \
            memcpy(p, &v, sizeof(T));                                                         \
        });                                                                                   \
    } else {                                                                                  \
        EACH_LANE({                                                                           \
            const uint64_t address = ADDRESS(l);                                              \
            uint8_t *p = base + stride * l + address;                                         \
            for (unsigned i = 0; i < n; i++) {                                                \
                T v = (T)R[(size_t)i * W + l];                                                \
                memcpy(p + (size_t)i * sizeof(T), &v, sizeof(T));                             \
                if (owner)                                                                    \
                    sim_note_write(ctx, owner, address + (uint64_t)i * sizeof(T), sizeof(T)); \
            }                                                                                 \
        });                                                                                   \
    }                                                                                         \
    return 0;
    if (in->op == ISA_OP_LOAD) {
        switch (size) {
        case 1: LOAD_AS(uint8_t)
        case 2: LOAD_AS(uint16_t)
        case 4: LOAD_AS(uint32_t)
        default: LOAD_AS(uint64_t)
        }
    }
    switch (size) {
    case 1: STORE_AS(uint8_t)
    case 2: STORE_AS(uint16_t)
    case 4: STORE_AS(uint32_t)
    default: STORE_AS(uint64_t)
    }
#undef LOAD_AS
#undef STORE_AS
#undef EACH_ONE
#undef EACH_LANE
#undef BYTES
#undef ADDRESS
}

/* Whether every active lane's texel A[l] lies inside slot memory m (texels of `bytes` bytes). */
static inline int texels_in_bounds(const sim_slot_mem *m, const uint64_t *A, unsigned bytes, sim_mask exec)
{
    if (exec == 0)
        return 1;
    if (bytes == 0 || bytes > m->size)
        return 0;
    const uint64_t last = (m->size - bytes) / bytes; /* the highest texel index inside */
    uint64_t outside = 0;
    EACH_ACTIVE(exec, outside |= (uint64_t)(uint32_t)A[l] > last;);
    return outside == 0;
}

/*
 * IMG_READ when every active lane's texel is inside the slot
 * (texels_in_bounds): the format resolved once (t), a constant-size read per
 * component size, the components the format lacks filled as the checked loop
 * of exec_memory fills them.
 */
static int texel_read_in_bounds(sim_ctx *ctx, sim_wave *w, const isa_inst *in, sim_mask exec,
                                const texel_access *t, const uint64_t *A)
{
    const uint32_t W = ctx->wave_size;
    const uint8_t *const data = ctx->slots[in->slot].data;
    uint64_t *const D = w->regs + (size_t)in->d * W;
    const unsigned comps = t->comps, cbytes = t->cbytes, bytes = t->bytes;
    const uint64_t fill[4] = {0, 0, 0, t->one}; /* components the format does not have */
    if (t->fmt == ISA_TYPE_F32 && t->texel == ISA_TYPE_F32 && !t->unorm) {
        /* rgba32f and its kin: texel_to_reg's round trip through double gives back every float's bits, but a
         * signalling NaN comes back quiet (IEEE conversions quiet it: the quiet bit set, the payload kept) */
#define QUIET_F32(u) ((u) | (uint32_t)(((u) & 0x7fffffffu) > 0x7f800000u) << 22) /* a NaN: above infinity */
        if (comps == 4) { /* rgba32f: the component loop unrolled */
            EACH_ACTIVE(exec, {
                const uint8_t *p = data + (uint64_t)(uint32_t)A[l] * 16;
                for (unsigned c = 0; c < 4; c++) {
                    uint32_t u;
                    memcpy(&u, p + (size_t)c * 4, 4);
                    D[(size_t)c * W + l] = QUIET_F32(u);
                }
            });
            return 0;
        }
        EACH_ACTIVE(exec, {
            const uint8_t *p = data + (uint64_t)(uint32_t)A[l] * bytes;
            for (unsigned c = 0; c < comps; c++) {
                uint32_t u;
                memcpy(&u, p + (size_t)c * 4, 4);
                D[(size_t)c * W + l] = QUIET_F32(u);
            }
            for (unsigned c = comps; c < 4; c++)
                D[(size_t)c * W + l] = fill[c];
        });
        return 0;
#undef QUIET_F32
    }
#define READ_AS(T)                                                                 \
    EACH_ACTIVE(exec, {                                                            \
        const uint8_t *p = data + (uint64_t)(uint32_t)A[l] * bytes;                \
        for (unsigned c = 0; c < comps; c++) {                                     \
            T raw;                                                                 \
            memcpy(&raw, p + (size_t)c * sizeof(T), sizeof(T));                    \
            D[(size_t)c * W + l] = texel_to_reg(t, raw);                           \
        }                                                                          \
        for (unsigned c = comps; c < 4; c++)                                       \
            D[(size_t)c * W + l] = fill[c];                                        \
    });                                                                            \
    return 0;
    switch (cbytes) {
    case 1: READ_AS(uint8_t)
    case 2: READ_AS(uint16_t)
    case 4: READ_AS(uint32_t)
    case 8: READ_AS(uint64_t)
    default: break;
    }
#undef READ_AS
    EACH_ACTIVE(exec, {
        const uint8_t *p = data + (uint64_t)(uint32_t)A[l] * bytes;
        for (unsigned c = 0; c < 4; c++)
            D[(size_t)c * W + l] = c < comps ? texel_to_reg(t, read_le(p + c * cbytes, cbytes)) : fill[c];
    });
    return 0;
}

static int exec_memory(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec);

/* With a trace sink: the per-lane addresses are taken before the access (a
 * load may overwrite its address register) and reported after it succeeded. */
static int exec_memory_traced(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec)
{
    const uint32_t W = ctx->wave_size;
    const isa_op op = (isa_op)in->op;
    if (op == ISA_OP_ARRAY_LEN || op == ISA_OP_IMG_SIZE)
        return exec_memory(ctx, w, in, pc, exec);
    uint64_t addr[SIM_MAX_WAVE];
    sim_mem_access a = {.wave = w->index, .pc = pc, .op = in->op, .cls = in->cls, .slot = in->slot,
                        .space = (uint8_t)ctx->prog->slots[in->slot].space, .wave_size = W, .exec = exec,
                        .addr = addr};
    a.group_linear = ctx->group[0] + ctx->cfg->groups[0] * (ctx->group[1] + ctx->cfg->groups[1] * ctx->group[2]);
    if (op == ISA_OP_IMG_READ || op == ISA_OP_IMG_WRITE) {
        unsigned comps, bytes;
        isa_type ftype;
        int unorm;
        slot_format(&ctx->prog->slots[in->slot], &comps, &bytes, &ftype, &unorm);
        const uint64_t *A = sim_reg(ctx, w, in->a);
        LANES addr[l] = (uint64_t)(uint32_t)A[l] * bytes;
        a.elem_bytes = (uint16_t)bytes, a.count = 1;
    } else {
        const uint64_t *A = in->a == ISA_NO_REG ? NULL : sim_reg(ctx, w, in->a);
        LANES addr[l] = (A ? (uint64_t)(uint32_t)A[l] : 0) + (uint64_t)in->imm;
        a.elem_bytes = (uint16_t)isa_type_size((isa_type)in->type);
        a.count = op == ISA_OP_ATOMIC ? 1 : in->count ? in->count : 1;
    }
    if (exec_memory(ctx, w, in, pc, exec))
        return 1;
    ctx->cfg->mem_trace->access(ctx->cfg->mem_trace->user, &a);
    return 0;
}

int sim_exec_memory(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec)
{
    if (__builtin_expect(in->desc_index != ISA_DESC_NONE, 0)) /* back here once per element, without the index */
        return sim_exec_indexed(ctx, w, in, pc, exec, sim_exec_memory);
    if (__builtin_expect(ctx->sanitize != NULL, 0))
        sim_sanitize_memory(ctx, w, in, pc, exec); /* before the access: a load may overwrite its address */
    if (__builtin_expect(ctx->cfg->mem_trace != NULL, 0))
        return exec_memory_traced(ctx, w, in, pc, exec);
    return exec_memory(ctx, w, in, pc, exec);
}

static int exec_memory(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec)
{
    const uint32_t W = ctx->wave_size;
    const isa_slot *sl = &ctx->prog->slots[in->slot];
    const sim_slot_mem *m = &ctx->slots[in->slot];
    const isa_type type = (isa_type)in->type;
    const uint64_t *lm = w->lane_mask;
    /* several host threads: who wrote each word of this slot (sim_note_write) */
    uint32_t *const owner = ctx->write_owner ? ctx->write_owner[in->slot] : NULL;
    const int robust = robust_slot(ctx, sl);

    switch ((isa_op)in->op) {
    case ISA_OP_LOAD: case ISA_OP_STORE: {
        const unsigned size = type_size(type);
        const unsigned n = in->count ? in->count : 1;
        const uint64_t *A = in->a == ISA_NO_REG ? NULL : sim_reg(ctx, w, in->a);
        const int is_bool = type == ISA_TYPE_BOOL;
        if (size == 0)
            return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->slot, -1, "%s of type '%s'",
                             isa_op_name((isa_op)in->op), isa_type_name(type));
        if (in->op == ISA_OP_STORE && sl->readonly)
            return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->slot, -1,
                             "store to read-only slot '%s'", sl->name);
        if (!is_bool && lanes_in_bounds(m, A, in->imm, (uint64_t)n * size, exec))
            return load_store_in_bounds(ctx, w, in, exec, size, n, A, owner);
        /* some lane is out of bounds (a fault, or robust access), or a bool: lane by lane, element by element */
        LANES {
            if (!ACTIVE(l))
                continue;
            uint64_t address = (A ? (uint64_t)(uint32_t)A[l] : 0) + (uint64_t)in->imm;
            uint8_t *base = slot_base(ctx, w, in->slot, l);
            for (unsigned i = 0; i < n; i++, address += size) {
                if (!in_bounds(m, address, size)) {
                    if (!robust)
                        return out_of_bounds(ctx, w, in, pc, l, address, size);
                    if (in->op == ISA_OP_LOAD) {
                        w->regs[((size_t)in->d + i) * W + l] = 0;
                        ctx->result->stats.robust_loads++;
                    } else {
                        ctx->result->stats.robust_stores++;
                    }
                    continue;
                }
                if (in->op == ISA_OP_LOAD) {
                    uint64_t v = read_le(base + address, size);
                    w->regs[((size_t)in->d + i) * W + l] = is_bool ? (v != 0) : v;
                } else {
                    uint64_t v = w->regs[((size_t)in->b + i) * W + l];
                    write_le(base + address, size, is_bool ? (v & 1) : v);
                    if (owner)
                        sim_note_write(ctx, owner, address, size);
                }
            }
        }
        return 0;
    }
    case ISA_OP_ATOMIC:
        return atomic(ctx, w, in, pc, exec);
    case ISA_OP_IMG_READ: case ISA_OP_IMG_WRITE: {
        texel_access t;
        texel_access_of(sl, &t);
        const uint64_t *A = sim_reg(ctx, w, in->a);
        if (in->op == ISA_OP_IMG_WRITE && sl->readonly)
            return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->slot, -1,
                             "texel write to read-only slot '%s'", sl->name);
        if (in->op == ISA_OP_IMG_READ && texels_in_bounds(m, A, t.bytes, exec))
            return texel_read_in_bounds(ctx, w, in, exec, &t, A);
        LANES {
            if (!ACTIVE(l))
                continue;
            uint64_t address = (uint64_t)(uint32_t)A[l] * t.bytes;
            int outside = !in_bounds(m, address, t.bytes);
            if (outside && !robust)
                return out_of_bounds(ctx, w, in, pc, l, address, t.bytes);
            if (outside && in->op == ISA_OP_IMG_WRITE) {
                ctx->result->stats.robust_stores++;
                continue;
            }
            ctx->result->stats.robust_loads += outside;
            uint8_t *p = m->data + address;
            for (unsigned c = 0; c < 4; c++) {
                if (in->op == ISA_OP_IMG_READ) {
                    uint64_t v;
                    if (outside) /* a zero texel: (0, 0, 0, 0), or (0, 0, 0, 1) for a format without alpha */
                        v = c < 3 || t.comps == 4 ? 0 : t.one;
                    else if (c < t.comps)
                        v = texel_to_reg(&t, read_le(p + c * t.cbytes, t.cbytes));
                    else if (c < 3)
                        v = 0;
                    else
                        v = t.one;
                    w->regs[((size_t)in->d + c) * W + l] = v;
                } else if (c < t.comps) {
                    uint64_t v = w->regs[((size_t)in->b + c) * W + l];
                    write_le(p + c * t.cbytes, t.cbytes, reg_to_texel(&t, v));
                    if (owner)
                        sim_note_write(ctx, owner, address + c * t.cbytes, t.cbytes);
                }
            }
        }
        return 0;
    }
    case ISA_OP_ARRAY_LEN: case ISA_OP_IMG_SIZE: {
        uint64_t v;
        if (in->op == ISA_OP_ARRAY_LEN) {
            uint64_t skip = in->imm > 0 ? (uint64_t)in->imm : 0;
            v = m->size > skip ? (m->size - skip) / (uint64_t)in->imm2 : 0;
        } else {
            unsigned comps, bytes;
            isa_type ftype;
            int unorm;
            slot_format(sl, &comps, &bytes, &ftype, &unorm);
            v = bytes ? m->size / bytes : 0;
        }
        uint64_t *D = sim_reg(ctx, w, in->d);
        LANES SIM_PUT(D, l, lm, v);
        return 0;
    }
    default:
        return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, -1, -1, "%s is not a memory operation",
                         isa_op_name((isa_op)in->op));
    }
}
