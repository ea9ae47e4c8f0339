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
 */
#include <math.h>
#include <stdio.h>

#include "sim/sanitize.h"
#include "sim/sim_internal.h"

#define LANES for (uint32_t l = 0; l < W; l++)
#define ACTIVE(l) sim_mask_has(exec, (unsigned)(l))

static inline uint64_t read_le(const uint8_t *p, unsigned size)
{
    uint64_t v = 0;
    memcpy(&v, p, size); /* little-endian host */
    return v;
}
static inline void write_le(uint8_t *p, unsigned size, uint64_t v) { memcpy(p, &v, size); }

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

/* Texel formats: component count, bytes per texel, component type (NONE: unorm8). */
static const struct { unsigned comps, bytes; isa_type type; } formats[] = {
#define X(id, name, comps, bytes, type) {comps, bytes, type},
    ISA_FORMAT_LIST(X)
#undef X
};

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
    *comps = formats[sl->format].comps;
    *bytes = formats[sl->format].bytes;
    *type = formats[sl->format].type;
    *unorm = *type == ISA_TYPE_NONE;
    if (*unorm)
        *type = ISA_TYPE_U8;
}

/* Converts a memory component to a register slot of the texel type. */
static uint64_t texel_to_reg(uint64_t raw, isa_type fmt, int unorm, isa_type texel)
{
    unsigned fbits = sim_type_bits(fmt);
    if (unorm || isa_type_is_float(fmt)) {
        double v = unorm ? (double)raw / 255.0 : sim_float_get(fmt, raw);
        if (isa_type_is_float(texel))
            return sim_float_put(texel, v);
        return isa_type_is_signed(texel) ? (uint64_t)(int64_t)v : (uint64_t)v;
    }
    int64_t iv = isa_type_is_signed(fmt) ? SIM_SX(raw, 64 - fbits) : (int64_t)SIM_ZX(raw, 64 - fbits);
    if (isa_type_is_float(texel))
        return sim_float_put(texel, isa_type_is_signed(fmt) ? (double)iv : (double)(uint64_t)iv);
    return (uint64_t)iv;
}

/* Converts a register slot of the texel type to a memory component. */
static uint64_t reg_to_texel(uint64_t reg, isa_type texel, isa_type fmt, int unorm)
{
    if (unorm) {
        double v = isa_type_is_float(texel) ? sim_float_get(texel, reg) : (double)SIM_ZX(reg, 56) / 255.0;
        v = v != v ? 0 : v < 0 ? 0 : v > 1 ? 1 : v;
        return (uint64_t)nearbyint(v * 255.0);
    }
    if (isa_type_is_float(fmt)) {
        double v = isa_type_is_float(texel) ? sim_float_get(texel, reg)
                   : isa_type_is_signed(texel) ? (double)SIM_SX(reg, 64 - sim_type_bits(texel))
                                               : (double)SIM_ZX(reg, 64 - sim_type_bits(texel));
        return sim_float_put(fmt, v);
    }
    if (isa_type_is_float(texel)) {
        double v = sim_float_get(texel, reg);
        return v != v ? 0 : isa_type_is_signed(fmt) ? (uint64_t)(int64_t)v : (uint64_t)v;
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
        const unsigned size = isa_type_size(type);
        const unsigned n = in->count ? in->count : 1;
        const uint64_t *A = in->a == ISA_NO_REG ? NULL : sim_reg(ctx, w, in->a);
        const int is_bool = type == ISA_TYPE_BOOL;
        if (size == 0)
            return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->slot, -1, "%s of type '%s'",
                             isa_op_name((isa_op)in->op), isa_type_name(type));
        if (in->op == ISA_OP_STORE && sl->readonly)
            return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->slot, -1,
                             "store to read-only slot '%s'", sl->name);
        if (!is_bool && sl->space != ISA_SPACE_PRIVATE) {
            /* the common case, one shared base and a fixed size: no per-lane base, no variable-size copy */
            uint8_t *base = m->data;
            const int load = in->op == ISA_OP_LOAD;
            uint64_t *R = w->regs + (size_t)(load ? in->d : in->b) * W;
#define FIXED(T)                                                                         \
    LANES {                                                                              \
        if (!ACTIVE(l))                                                                  \
            continue;                                                                    \
        uint64_t address = (A ? (uint64_t)(uint32_t)A[l] : 0) + (uint64_t)in->imm;                           \
        for (unsigned i = 0; i < n; i++, address += sizeof(T)) {                         \
            if (!in_bounds(m, address, sizeof(T))) {                                     \
                if (!robust)                                                             \
                    return out_of_bounds(ctx, w, in, pc, l, address, sizeof(T));         \
                if (load)                                                                \
                    R[(size_t)i * W + l] = 0;                                            \
                ctx->result->stats.robust_loads += load;                                 \
                ctx->result->stats.robust_stores += !load;                               \
                continue;                                                                \
            }                                                                            \
            T v;                                                                         \
            if (load) {                                                                  \
                memcpy(&v, base + address, sizeof(T));                                   \
                R[(size_t)i * W + l] = v;                                                \
            } else {                                                                     \
                v = (T)R[(size_t)i * W + l];                                             \
                memcpy(base + address, &v, sizeof(T));                                   \
                if (owner)                                                               \
                    sim_note_write(ctx, owner, address, sizeof(T));                      \
            }                                                                            \
        }                                                                                \
    }                                                                                    \
    return 0;
            switch (size) {
            case 1: FIXED(uint8_t)
            case 2: FIXED(uint16_t)
            case 4: FIXED(uint32_t)
            case 8: FIXED(uint64_t)
            default: break;
            }
#undef FIXED
        }
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
        unsigned comps, bytes;
        isa_type ftype;
        int unorm;
        slot_format(sl, &comps, &bytes, &ftype, &unorm);
        const unsigned cbytes = bytes / comps;
        const isa_type texel = sl->texel_type == ISA_TYPE_NONE ? ftype : sl->texel_type;
        const uint64_t *A = sim_reg(ctx, w, in->a);
        if (in->op == ISA_OP_IMG_WRITE && sl->readonly)
            return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->slot, -1,
                             "texel write to read-only slot '%s'", sl->name);
        LANES {
            if (!ACTIVE(l))
                continue;
            uint64_t address = (uint64_t)(uint32_t)A[l] * bytes;
            int outside = !in_bounds(m, address, bytes);
            if (outside && !robust)
                return out_of_bounds(ctx, w, in, pc, l, address, bytes);
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
                        v = c < 3 || comps == 4 ? 0 : isa_type_is_float(texel) ? sim_float_put(texel, 1.0) : 1;
                    else if (c < comps)
                        v = texel_to_reg(read_le(p + c * cbytes, cbytes), ftype, unorm, texel);
                    else if (c < 3)
                        v = 0;
                    else
                        v = isa_type_is_float(texel) ? sim_float_put(texel, 1.0) : 1;
                    w->regs[((size_t)in->d + c) * W + l] = v;
                } else if (c < comps) {
                    uint64_t v = w->regs[((size_t)in->b + c) * W + l];
                    write_le(p + c * cbytes, cbytes, reg_to_texel(v, texel, ftype, unorm));
                    if (owner)
                        sim_note_write(ctx, owner, address + c * cbytes, cbytes);
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
