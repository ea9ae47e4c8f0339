/*
 * isa/lower.c — SPIR-V (as glslang emits it for compute) to the wave ISA:
 * the entry points (isa_lower, isa_lower_virtual), the driver that runs the
 * parts in order, and the emission helpers every part shares (errors, new
 * instructions, registers, constant registers).
 *
 * One pass reads the module into per-id records (types, constants,
 * variables, decorations, names); a second walks the entry function's blocks
 * in a structured order and emits fixed-size isa_inst records:
 *
 *  - every SPIR-V value gets registers: a scalar one register, a vector or
 *    composite one register per flattened component;
 *  - pointers are resolved at lowering time to (slot, offset register,
 *    constant offset): logical addressing never lets a pointer escape;
 *  - structured control flow becomes exec masks.  Each block owns a mask
 *    register of the lanes waiting to run it; a branch ORs the lanes taking
 *    each edge into the target's mask; a block starts with BLOCK (exec =
 *    its mask, skip when empty).  Blocks are laid out so that every edge but
 *    a loop back edge goes forward and every loop is contiguous, ending in a
 *    LOOP instruction that runs the header again while lanes wait there.
 *    This gives exactly the reconvergence of structured control flow: lanes
 *    meet again at merge blocks, lanes that left a loop wait at its merge.
 *  - OpPhi becomes masked copies (MOVM) on each incoming edge.
 *
 * The parts, behind isa/lower_internal.h:
 *   lower_module.c  ids, names, decorations, types, layouts, constants, values, slots
 *   lower_cfg.c     blocks, structured layout, exec-mask edges, phis, the function walk
 *   lower_ops.c     instruction dispatch; composites, arithmetic, conversions, matrices, GLSL.std.450
 *   lower_mem.c     loads, stores, access chains, texel buffers, atomics
 *   lower_wave.c    subgroup (wave) operations and barriers
 *
 * Errors name the SPIR-V word offset and opcode.
 */
#include <stdarg.h>

#include "isa/lower_internal.h"

void lower_fail(lower *L, isa_status st, const char *fmt, ...)
{
    if (L->failed)
        return;
    L->failed = true;
    L->status = st;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (L->err && L->err_size) {
        char where[64] = "";
        if (L->line)
            snprintf(where, sizeof where, ", source line %u", L->line);
        if (L->cur_word && L->cur_word < L->n)
            snprintf(L->err, L->err_size, "SPIR-V word %u (%s%s): %s", L->cur_word,
                     lower_op_name((SpvOp)(L->w[L->cur_word] & 0xffff)), where, msg);
        else
            snprintf(L->err, L->err_size, "%s", msg);
    }
}
/* ------------------------------------------------------------------ helpers */

const char *lower_op_name(SpvOp op)
{
    /* Names of the opcodes met most often in messages; the rest by number. */
    switch (op) {
#define N(x) case SpvOp##x: return "Op" #x;
        N(Load) N(Store) N(AccessChain) N(InBoundsAccessChain) N(PtrAccessChain) N(FunctionCall) N(Phi)
        N(Branch) N(BranchConditional) N(Switch) N(Return) N(ReturnValue) N(LoopMerge) N(SelectionMerge)
        N(Variable) N(TypeStruct) N(TypePointer) N(TypeImage) N(ExtInst) N(Bitcast) N(ImageRead) N(ImageWrite)
        N(ImageFetch) N(ControlBarrier) N(MemoryBarrier) N(CopyMemory) N(SpecConstantOp) N(Function)
        N(Label) N(EntryPoint) N(ExecutionMode) N(Decorate) N(MemberDecorate) N(Constant) N(ConstantComposite)
        N(TypeMatrix) N(MatrixTimesVector) N(MatrixTimesMatrix) N(VectorTimesMatrix) N(OuterProduct)
        N(Transpose) N(MatrixTimesScalar) N(Kill) N(Unreachable) N(ImageQuerySize) N(ArrayLength)
#undef N
    default: {
        static _Thread_local char buf[32];
        snprintf(buf, sizeof buf, "opcode %u", (unsigned)op);
        return buf;
    }
    }
}

void *lower_grow(void *ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return ptr;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *q = realloc(ptr, nc * elem);
    if (!q)
        return NULL;
    memset((char *)q + *cap * elem, 0, (nc - *cap) * elem);
    *cap = nc;
    return q;
}

isa_inst *lower_emit(lower *L, isa_op op, isa_type type)
{
    isa_program *p = L->p;
    isa_inst *c = lower_grow(p->code, &L->code_cap, p->code_count + 1, sizeof *c);
    if (!c) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        static isa_inst sink;
        return &sink;
    }
    p->code = c;
    isa_inst *in = &c[p->code_count++];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)op;
    in->type = (uint8_t)type;
    in->cls = (uint8_t)isa_op_class(op);
    in->d = in->a = in->b = in->c = in->e = ISA_NO_REG;
    in->line = L->line;
    in->spirv_word = L->cur_word;
    return in;
}

/* An instruction with destination d and sources a, b (ISA_NO_REG where unused). */
isa_inst *lower_emit_op(lower *L, isa_op op, isa_type type, uint32_t d, uint32_t a, uint32_t b)
{
    isa_inst *in = lower_emit(L, op, type);
    in->d = d;
    in->a = a;
    in->b = b;
    return in;
}

uint32_t lower_new_regs(lower *L, uint32_t n)
{
    uint32_t r = L->p->reg_count;
    L->p->reg_count += n;
    return r;
}

uint32_t lower_new_mask(lower *L) { return L->p->mask_count++; }

uint32_t lower_const_reg(lower *L, uint64_t bits)
{
    isa_program *p = L->p;
    for (uint32_t i = 0; i < p->const_count; i++)
        if (p->consts[i].bits == bits)
            return p->consts[i].reg;
    isa_const_reg *c = lower_grow(p->consts, &L->const_cap, p->const_count + 1, sizeof *c);
    if (!c) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return 0;
    }
    p->consts = c;
    uint32_t r = lower_new_regs(L, 1);
    c[p->const_count].reg = r;
    c[p->const_count].bits = bits;
    p->const_count++;
    return r;
}

/* ------------------------------------------------------------ memory access */

static bool slot_explicit(lower *L, int32_t slot)
{
    isa_space sp = L->p->slots[slot].space;
    return sp == ISA_SPACE_STORAGE || sp == ISA_SPACE_UNIFORM || sp == ISA_SPACE_PUSH;
}

static isa_class mem_class(lower *L, int32_t slot, uint32_t off_reg)
{
    switch (L->p->slots[slot].space) {
    case ISA_SPACE_WORKGROUP: return ISA_CLASS_LDS;
    case ISA_SPACE_PUSH: return ISA_CLASS_SMEM;
    case ISA_SPACE_UNIFORM: return off_reg == ISA_NO_REG ? ISA_CLASS_SMEM : ISA_CLASS_VMEM;
    default: return ISA_CLASS_VMEM;
    }
}

/*
 * How a matrix or vector lies in an explicitly laid out buffer: MatrixStride
 * and RowMajor of the member that holds it, and, for a column of a row-major
 * matrix reached through an access chain, the stride between its components.
 */
typedef struct mem_layout {
    uint32_t mstride;
    bool row_major;
    uint32_t vstride;
} mem_layout;

static mem_layout ptr_layout(const id_info *p)
{
    return (mem_layout){p->mstride, p->row_major, p->vstride};
}

/* One scalar load or store of register `reg` (one lane slot) at (slot, off_reg + off). */
static void access_scalar(lower *L, bool store, uint32_t scalar_tid, int32_t slot, uint32_t off_reg, int64_t off,
                          uint32_t reg)
{
    isa_inst *in = lower_emit(L, store ? ISA_OP_STORE : ISA_OP_LOAD, lower_scalar_isa_type(L, scalar_tid));
    in->count = 1;
    in->slot = (uint16_t)slot;
    in->a = off_reg;
    in->imm = off;
    if (store)
        in->b = reg;
    else
        in->d = reg;
    in->cls = (uint8_t)mem_class(L, slot, off_reg);
    if (store)
        L->p->slots[slot].written = 1;
}

/* Loads (store = false) or stores a value of type tid at (slot, off_reg + off), laid out as `lay` says. */
static void access(lower *L, bool store, uint32_t tid, int32_t slot, uint32_t off_reg, int64_t off, uint32_t reg,
                   mem_layout lay)
{
    if (L->failed)
        return;
    type_info *t = lower_type(L, tid);
    bool expl = slot_explicit(L, slot);
    switch (t->op) {
    case SpvOpTypeVector:
        if (expl && lay.vstride) {
            /* a column of a row-major matrix: its components are a row apart */
            for (uint32_t c = 0; c < t->count; c++)
                access_scalar(L, store, t->elem, slot, off_reg, off + (int64_t)c * lay.vstride, reg + c);
            return;
        }
        /* fall through */
    case SpvOpTypeBool: case SpvOpTypeInt: case SpvOpTypeFloat: {
        isa_inst *in = lower_emit(L, store ? ISA_OP_STORE : ISA_OP_LOAD,
                            lower_scalar_isa_type(L, t->op == SpvOpTypeVector ? t->elem : tid));
        in->count = (uint8_t)(t->op == SpvOpTypeVector ? t->count : 1);
        in->slot = (uint16_t)slot;
        in->a = off_reg;
        in->imm = off;
        if (store)
            in->b = reg;
        else
            in->d = reg;
        in->cls = (uint8_t)mem_class(L, slot, off_reg);
        if (store)
            L->p->slots[slot].written = 1;
        return;
    }
    case SpvOpTypeMatrix: {
        uint32_t stride = lower_elem_stride(L, tid, expl, lay.mstride);
        uint32_t per = lower_reg_count_of(L, t->elem);
        mem_layout column = {0, false, 0};
        int64_t step = (int64_t)stride;
        if (expl && lay.row_major) {
            /* row-major: column c starts c scalars into the first row; its components are MatrixStride apart */
            column.vstride = stride;
            step = lower_scalar_bytes(L, lower_type(L, t->elem)->elem);
        }
        for (uint32_t c = 0; c < t->count; c++)
            access(L, store, t->elem, slot, off_reg, off + (int64_t)c * step, reg + c * per, column);
        return;
    }
    case SpvOpTypeArray: {
        uint32_t stride = lower_elem_stride(L, tid, expl, 0);
        uint32_t per = lower_reg_count_of(L, t->elem);
        /* MatrixStride and RowMajor on an array of matrices apply to each matrix */
        mem_layout elem = {lay.mstride, lay.row_major, 0};
        for (uint32_t c = 0; c < t->count && !L->failed; c++)
            access(L, store, t->elem, slot, off_reg, off + (int64_t)c * stride, reg + c * per, elem);
        return;
    }
    case SpvOpTypeStruct: {
        uint32_t r = reg;
        for (uint32_t m = 0; m < t->nmembers && !L->failed; m++) {
            mem_layout member = {t->mstride[m], t->row_major[m], 0};
            access(L, store, t->members[m], slot, off_reg, off + lower_member_offset(L, tid, m, expl), r, member);
            r += lower_reg_count_of(L, t->members[m]);
        }
        return;
    }
    default:
        lower_fail(L, ISA_ERR_UNSUPPORTED, "%s of a %s is not modelled", store ? "store" : "load", lower_op_name(t->op));
    }
}

/*
 * offset register = off_reg + index * stride, in 32 bits: byte offsets inside
 * a buffer or variable are 32-bit, as hardware buffer instructions take them
 * (the constant part of the address stays a separate 64-bit immediate).  A
 * 64-bit index is truncated: byte offsets beyond 4 GiB wrap (docs/quirks.md).
 */
static uint32_t add_scaled_index(lower *L, uint32_t off_reg, uint32_t index_id, uint32_t stride)
{
    uint32_t itype = L->ids[index_id].type;
    isa_type it = lower_scalar_isa_type(L, itype);
    uint32_t index = lower_val(L, index_id);
    isa_inst *in;
    if (isa_type_size(it) == 8) {
        uint32_t narrow = lower_new_regs(L, 1);
        in = lower_emit(L, ISA_OP_CVT, ISA_TYPE_U32);
        in->type2 = ISA_TYPE_U64;
        in->d = narrow;
        in->a = index;
        index = narrow;
    } else if (isa_type_size(it) < 4) {
        /* 8/16-bit indices: sign or zero extend by the index's own type */
        uint32_t wide = lower_new_regs(L, 1);
        in = lower_emit(L, ISA_OP_CVT, ISA_TYPE_U32);
        in->type2 = (uint8_t)it;
        in->d = wide;
        in->a = index;
        index = wide;
    }
    uint32_t scaled = index;
    if (stride != 1) {
        scaled = lower_new_regs(L, 1);
        lower_emit_op(L, ISA_OP_IMUL, ISA_TYPE_U32, scaled, index, lower_const_reg(L, stride));
    }
    if (off_reg == ISA_NO_REG)
        return scaled;
    uint32_t sum = lower_new_regs(L, 1);
    lower_emit_op(L, ISA_OP_IADD, ISA_TYPE_U32, sum, off_reg, scaled);
    return sum;
}

static void lower_access_chain(lower *L, const uint32_t *o, uint32_t no)
{
    uint32_t rtype = o[0], rid = o[1], base = o[2];
    CHECK_ID(L, base);
    CHECK_ID(L, rid);
    id_info *b = &L->ids[base];
    if (b->kind != K_PTR) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "access chain base %%%u is not a variable or access chain", base);
        return;
    }
    uint32_t tid = lower_type(L, b->type)->elem;
    id_info r = *b;
    r.name = NULL;
    r.kind = K_PTR;
    r.type = rtype;
    if (b->slot < 0) {
        /* register-backed built-in input: constant indices only */
        uint32_t regoff = 0;
        for (uint32_t k = 3; k < no; k++) {
            uint32_t mt;
            regoff += lower_reg_offset_of(L, tid, lower_const_u32(L, o[k]), &mt);
            tid = mt;
        }
        r.off_const = b->off_const + regoff;
        L->ids[rid].kind = K_PTR;
        L->ids[rid].slot = -1;
        L->ids[rid].off_const = r.off_const;
        L->ids[rid].type = rtype;
        return;
    }
    bool expl = slot_explicit(L, b->slot);
    mem_layout lay = ptr_layout(b);
    for (uint32_t k = 3; k < no && !L->failed; k++) {
        type_info *t = lower_type(L, tid);
        uint32_t idx = o[k];
        CHECK_ID(L, idx);
        switch (t->op) {
        case SpvOpTypeStruct: {
            uint32_t m = lower_const_u32(L, idx);
            r.off_const += lower_member_offset(L, tid, m, expl);
            lay = (mem_layout){m < t->nmembers ? t->mstride[m] : 0, m < t->nmembers && t->row_major[m], 0};
            tid = m < t->nmembers ? t->members[m] : tid;
            break;
        }
        case SpvOpTypeArray: case SpvOpTypeRuntimeArray: case SpvOpTypeVector: case SpvOpTypeMatrix: {
            uint32_t stride = lower_elem_stride(L, tid, expl, lay.mstride);
            mem_layout next = {0, false, 0};
            if (t->op == SpvOpTypeMatrix && expl && lay.row_major) {
                /* column c of a row-major matrix: c scalars into the first row, components a row apart */
                next.vstride = stride;
                stride = lower_scalar_bytes(L, lower_type(L, t->elem)->elem);
            } else if (t->op == SpvOpTypeVector && expl && lay.vstride) {
                stride = lay.vstride; /* a component of such a column */
            } else if (t->op == SpvOpTypeArray || t->op == SpvOpTypeRuntimeArray) {
                next = (mem_layout){lay.mstride, lay.row_major, 0}; /* an array of matrices keeps their layout */
            }
            if (L->ids[idx].cknown)
                r.off_const += (int64_t)(int32_t)L->ids[idx].cval * stride;
            else
                r.off_reg = add_scaled_index(L, r.off_reg, idx, stride);
            tid = t->elem;
            lay = next;
            break;
        }
        default:
            lower_fail(L, ISA_ERR_INVALID, "access chain index into %s", lower_op_name(t->op));
            return;
        }
    }
    id_info *d = &L->ids[rid];
    d->kind = K_PTR;
    d->type = rtype;
    d->slot = r.slot;
    d->off_reg = r.off_reg;
    d->off_const = r.off_const;
    /* remember how a matrix, or a column of one, lies in the buffer (loads and stores through d use it) */
    d->mstride = lay.mstride;
    d->row_major = lay.row_major;
    d->vstride = lay.vstride;
}

/* ------------------------------------------------------------ helpers for ALU */

void lower_unary(lower *L, isa_op op, isa_type ty, uint32_t d, uint32_t a, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        lower_emit_op(L, op, ty, d + k, a + k, ISA_NO_REG);
    }
}

/* b_scalar: the second operand is one register for every component */
static void binary(lower *L, isa_op op, isa_type ty, uint32_t d, uint32_t a, uint32_t b, uint32_t n, bool b_scalar)
{
    for (uint32_t k = 0; k < n; k++) {
        lower_emit_op(L, op, ty, d + k, a + k, b_scalar ? b : b + k);
    }
}

static uint32_t one_reg(lower *L)
{
    return lower_const_reg(L, 1);
}

/* dot product of n components into a fresh register */
static uint32_t dot(lower *L, isa_type ty, uint32_t a, uint32_t b, uint32_t n)
{
    uint32_t acc = lower_new_regs(L, 1);
    lower_emit_op(L, ISA_OP_FMUL, ty, acc, a, b);
    for (uint32_t k = 1; k < n; k++) {
        uint32_t prod = lower_new_regs(L, 1);
        lower_emit_op(L, ISA_OP_FMUL, ty, prod, a + k, b + k);
        uint32_t sum = lower_new_regs(L, 1);
        lower_emit_op(L, ISA_OP_FADD, ty, sum, acc, prod);
        acc = sum;
    }
    return acc;
}

static uint32_t fmath1(lower *L, isa_type ty, enum GLSLstd450 f, uint32_t a)
{
    uint32_t d = lower_new_regs(L, 1);
    isa_inst *in = lower_emit(L, ISA_OP_FMATH, ty);
    in->d = d;
    in->a = a;
    in->imm = f;
    return d;
}

static void lower_ext_glsl(lower *L, const uint32_t *o, uint32_t no)
{
    uint32_t rtype = o[0], rid = o[1], f = o[3];
    uint32_t nargs = no - 4;
    const uint32_t *args = o + 4;
    for (uint32_t k = 0; k < nargs; k++)
        CHECK_ID(L, args[k]);
    uint32_t ctype = lower_component_type(L, rtype);
    type_info *rt = lower_type(L, rtype);
    uint32_t n = rt->op == SpvOpTypeVector ? rt->count : 1;
    isa_type ty = rt->op == SpvOpTypeStruct ? ISA_TYPE_NONE : lower_scalar_isa_type(L, ctype);
    switch (f) {
    case GLSLstd450Length: case GLSLstd450Distance: case GLSLstd450Normalize: case GLSLstd450Cross:
    case GLSLstd450Reflect: case GLSLstd450FaceForward: {
        uint32_t at = L->ids[args[0]].type;
        type_info *vt = lower_type(L, at);
        uint32_t m = vt->op == SpvOpTypeVector ? vt->count : 1;
        isa_type ety = lower_scalar_isa_type(L, lower_component_type(L, at));
        uint32_t a = lower_val(L, args[0]);
        if (f == GLSLstd450Length || f == GLSLstd450Distance) {
            uint32_t v = a;
            if (f == GLSLstd450Distance) {
                v = lower_new_regs(L, m);
                binary(L, ISA_OP_FSUB, ety, v, a, lower_val(L, args[1]), m, false);
            }
            uint32_t s = dot(L, ety, v, v, m);
            lower_alias_value(L, rid, rtype, fmath1(L, ety, GLSLstd450Sqrt, s));
        } else if (f == GLSLstd450Normalize) {
            uint32_t s = dot(L, ety, a, a, m);
            uint32_t len = fmath1(L, ety, GLSLstd450Sqrt, s);
            uint32_t d = lower_def_value(L, rid, rtype, m);
            binary(L, ISA_OP_FDIV, ety, d, a, len, m, true);
        } else if (f == GLSLstd450Cross) {
            uint32_t b = lower_val(L, args[1]);
            uint32_t d = lower_def_value(L, rid, rtype, 3);
            static const int i1[3] = {1, 2, 0}, i2[3] = {2, 0, 1};
            for (int k = 0; k < 3; k++) {
                uint32_t p = lower_new_regs(L, 2);
                isa_inst *in = lower_emit(L, ISA_OP_FMUL, ety);
                in->d = p;
                in->a = a + i1[k];
                in->b = b + i2[k];
                in = lower_emit(L, ISA_OP_FMUL, ety);
                in->d = p + 1;
                in->a = a + i2[k];
                in->b = b + i1[k];
                lower_emit_op(L, ISA_OP_FSUB, ety, d + k, p, p + 1);
            }
        } else if (f == GLSLstd450Reflect) {
            /* I - 2 * dot(N, I) * N */
            uint32_t nn = lower_val(L, args[1]);
            uint32_t dt = dot(L, ety, nn, a, m);
            uint32_t two = lower_new_regs(L, 1);
            lower_emit_op(L, ISA_OP_FADD, ety, two, dt, dt);
            uint32_t scaled = lower_new_regs(L, m);
            binary(L, ISA_OP_FMUL, ety, scaled, nn, two, m, true);
            uint32_t d = lower_def_value(L, rid, rtype, m);
            binary(L, ISA_OP_FSUB, ety, d, a, scaled, m, false);
        } else { /* FaceForward(N, I, Nref) = dot(Nref, I) < 0 ? N : -N */
            uint32_t i = lower_val(L, args[1]), nref = lower_val(L, args[2]);
            uint32_t dt = dot(L, ety, nref, i, m);
            uint32_t zero = lower_const_reg(L, 0);
            uint32_t lt = lower_new_regs(L, 1);
            lower_emit_op(L, ISA_OP_FOLT, ety, lt, dt, zero);
            uint32_t neg = lower_new_regs(L, m);
            lower_unary(L, ISA_OP_FNEG, ety, neg, a, m);
            uint32_t d = lower_def_value(L, rid, rtype, m);
            for (uint32_t k = 0; k < m; k++) {
                isa_inst *in = lower_emit_op(L, ISA_OP_SELECT, ety, d + k, lt, a + k);
                in->c = neg + k;
            }
        }
        return;
    }
    case GLSLstd450PackHalf2x16: case GLSLstd450PackUnorm2x16: case GLSLstd450PackSnorm2x16:
    case GLSLstd450PackUnorm4x8: case GLSLstd450PackSnorm4x8: case GLSLstd450PackDouble2x32: {
        /* a = first component of the vector operand (components consecutive) */
        uint32_t d = lower_def_value(L, rid, rtype, 1);
        isa_inst *in = lower_emit(L, ISA_OP_FMATH, ty);
        in->type2 = (uint8_t)lower_scalar_isa_type(L, lower_component_type(L, L->ids[args[0]].type));
        in->d = d;
        in->a = lower_val(L, args[0]);
        in->imm = f;
        return;
    }
    case GLSLstd450UnpackHalf2x16: case GLSLstd450UnpackUnorm2x16: case GLSLstd450UnpackSnorm2x16:
    case GLSLstd450UnpackUnorm4x8: case GLSLstd450UnpackSnorm4x8: case GLSLstd450UnpackDouble2x32: {
        uint32_t d = lower_def_value(L, rid, rtype, n);
        isa_inst *in = lower_emit(L, ISA_OP_FMATH, ty);
        in->type2 = (uint8_t)lower_scalar_isa_type(L, lower_component_type(L, L->ids[args[0]].type));
        in->d = d;
        in->a = lower_val(L, args[0]);
        in->imm = f;
        return;
    }
    case GLSLstd450FrexpStruct: case GLSLstd450ModfStruct: {
        /* result struct {value-type, value-type}: registers d..d+n-1 and d+n..d+2n-1 */
        type_info *st = rt;
        uint32_t vt = st->members[0];
        type_info *vti = lower_type(L, vt);
        uint32_t m = vti->op == SpvOpTypeVector ? vti->count : 1;
        isa_type ety = lower_scalar_isa_type(L, lower_component_type(L, vt));
        uint32_t d = lower_def_value(L, rid, rtype, 2 * m);
        uint32_t a = lower_val(L, args[0]);
        for (uint32_t k = 0; k < m; k++) {
            uint32_t pair = lower_new_regs(L, 2);
            isa_inst *in = lower_emit(L, ISA_OP_FMATH, ety);
            in->d = pair;
            in->a = a + k;
            in->imm = f;
            in = lower_emit(L, ISA_OP_MOV, ety);
            in->d = d + k;
            in->a = pair;
            lower_emit_op(L, ISA_OP_MOV, ISA_TYPE_I32, d + m + k, pair + 1, ISA_NO_REG);
        }
        return;
    }
    default: break;
    }
    if (rt->op == SpvOpTypeStruct || f == GLSLstd450Frexp || f == GLSLstd450Modf || f == GLSLstd450Determinant ||
        f == GLSLstd450MatrixInverse || f == GLSLstd450Refract || f == GLSLstd450InterpolateAtCentroid) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "GLSL.std.450 instruction %u is not modelled", f);
        return;
    }
    /* component-wise functions; signedness from the function */
    switch (f) {
    case GLSLstd450SAbs: case GLSLstd450SSign: case GLSLstd450SMin: case GLSLstd450SMax: case GLSLstd450SClamp:
    case GLSLstd450FindSMsb:
        ty = lower_with_sign(ty, true);
        break;
    case GLSLstd450UMin: case GLSLstd450UMax: case GLSLstd450UClamp: case GLSLstd450FindUMsb:
        ty = lower_with_sign(ty, false);
        break;
    default: break;
    }
    uint32_t d = lower_def_value(L, rid, rtype, n);
    uint32_t ar[3] = {ISA_NO_REG, ISA_NO_REG, ISA_NO_REG};
    bool scalar_arg[3] = {false, false, false};
    for (uint32_t k = 0; k < nargs && k < 3; k++) {
        ar[k] = lower_val(L, args[k]);
        type_info *at = lower_type(L, L->ids[args[k]].type);
        scalar_arg[k] = at->op != SpvOpTypeVector;
    }
    for (uint32_t c = 0; c < n; c++) {
        isa_inst *in = lower_emit(L, ISA_OP_FMATH, ty);
        in->d = d + c;
        in->a = ar[0] == ISA_NO_REG ? ISA_NO_REG : ar[0] + (scalar_arg[0] ? 0 : c);
        in->b = ar[1] == ISA_NO_REG ? ISA_NO_REG : ar[1] + (scalar_arg[1] ? 0 : c);
        in->c = ar[2] == ISA_NO_REG ? ISA_NO_REG : ar[2] + (scalar_arg[2] ? 0 : c);
        in->imm = f;
    }
}

/* ------------------------------------------------------------ group ops */

static void lower_group(lower *L, SpvOp op, const uint32_t *o, uint32_t no)
{
    uint32_t rtype = o[0], rid = o[1];
    uint32_t scope = lower_const_u32(L, o[2]);
    if (scope != SpvScopeSubgroup) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "group operations with scope %u (only Subgroup is modelled)", scope);
        return;
    }
    type_info *rt = lower_type(L, rtype);
    uint32_t n = rt->op == SpvOpTypeVector ? rt->count : 1;
    isa_type rty = lower_scalar_isa_type(L, lower_component_type(L, rtype));
    switch (op) {
    case SpvOpGroupNonUniformElect: {
        isa_inst *in = lower_emit(L, ISA_OP_ELECT, ISA_TYPE_BOOL);
        in->d = lower_def_value(L, rid, rtype, 1);
        return;
    }
    case SpvOpGroupNonUniformAll: case SpvOpGroupNonUniformAny: {
        lower_emit_op(L, op == SpvOpGroupNonUniformAll ? ISA_OP_VOTE_ALL : ISA_OP_VOTE_ANY, ISA_TYPE_BOOL, lower_def_value(L, rid, rtype, 1), lower_val(L, o[3]), ISA_NO_REG);
        return;
    }
    case SpvOpGroupNonUniformAllEqual: {
        uint32_t vt = L->ids[o[3]].type;
        type_info *t = lower_type(L, vt);
        uint32_t m = t->op == SpvOpTypeVector ? t->count : 1;
        isa_type ety = lower_scalar_isa_type(L, lower_component_type(L, vt));
        uint32_t a = lower_val(L, o[3]);
        uint32_t d = lower_def_value(L, rid, rtype, 1);
        uint32_t acc = ISA_NO_REG;
        for (uint32_t k = 0; k < m; k++) {
            uint32_t e = m == 1 ? d : lower_new_regs(L, 1);
            lower_emit_op(L, ISA_OP_VOTE_EQ, ety, e, a + k, ISA_NO_REG);
            if (acc == ISA_NO_REG) {
                acc = e;
            } else {
                uint32_t s = k == m - 1 ? d : lower_new_regs(L, 1);
                lower_emit_op(L, ISA_OP_AND, ISA_TYPE_BOOL, s, acc, e);
                acc = s;
            }
        }
        return;
    }
    case SpvOpGroupNonUniformBroadcast: case SpvOpGroupNonUniformShuffle: case SpvOpGroupNonUniformShuffleXor:
    case SpvOpGroupNonUniformShuffleUp: case SpvOpGroupNonUniformShuffleDown: case SpvOpGroupNonUniformQuadBroadcast: {
        isa_op iop = op == SpvOpGroupNonUniformBroadcast      ? ISA_OP_BCAST
                     : op == SpvOpGroupNonUniformShuffle      ? ISA_OP_SHUFFLE
                     : op == SpvOpGroupNonUniformShuffleXor   ? ISA_OP_SHUFFLE_XOR
                     : op == SpvOpGroupNonUniformShuffleUp    ? ISA_OP_SHUFFLE_UP
                     : op == SpvOpGroupNonUniformShuffleDown  ? ISA_OP_SHUFFLE_DN
                                                              : ISA_OP_QUAD_BCAST;
        uint32_t a = lower_val(L, o[3]), b = lower_val(L, o[4]);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        binary(L, iop, rty, d, a, b, n, true); /* one lane index for every component */
        return;
    }
    case SpvOpGroupNonUniformBroadcastFirst: {
        uint32_t a = lower_val(L, o[3]);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        lower_unary(L, ISA_OP_BCAST_FIRST, rty, d, a, n);
        return;
    }
    case SpvOpGroupNonUniformQuadSwap: {
        uint32_t a = lower_val(L, o[3]);
        uint32_t dir = lower_const_u32(L, o[4]);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        for (uint32_t k = 0; k < n; k++) {
            isa_inst *in = lower_emit(L, ISA_OP_QUAD_SWAP, rty);
            in->d = d + k;
            in->a = a + k;
            in->imm = dir;
        }
        return;
    }
    case SpvOpGroupNonUniformBallot: {
        lower_emit_op(L, ISA_OP_BALLOT, ISA_TYPE_U32, lower_def_value(L, rid, rtype, 4), lower_val(L, o[3]), ISA_NO_REG);
        return;
    }
    case SpvOpGroupNonUniformInverseBallot: {
        lower_emit_op(L, ISA_OP_INV_BALLOT, ISA_TYPE_BOOL, lower_def_value(L, rid, rtype, 1), lower_val(L, o[3]), ISA_NO_REG);
        return;
    }
    case SpvOpGroupNonUniformBallotBitExtract: {
        lower_emit_op(L, ISA_OP_BALLOT_BIT, ISA_TYPE_BOOL, lower_def_value(L, rid, rtype, 1), lower_val(L, o[3]), lower_val(L, o[4]));
        return;
    }
    case SpvOpGroupNonUniformBallotBitCount: {
        uint32_t gop = o[3];
        isa_inst *in = lower_emit(L, ISA_OP_BALLOT_CNT, rty);
        in->a = lower_val(L, o[4]);
        in->imm = gop == SpvGroupOperationReduce ? 0 : gop == SpvGroupOperationInclusiveScan ? 1 : 2;
        if (gop > SpvGroupOperationExclusiveScan)
            lower_fail(L, ISA_ERR_UNSUPPORTED, "BallotBitCount with group operation %u", gop);
        in->d = lower_def_value(L, rid, rtype, 1);
        return;
    }
    case SpvOpGroupNonUniformBallotFindLSB: case SpvOpGroupNonUniformBallotFindMSB: {
        lower_emit_op(L, op == SpvOpGroupNonUniformBallotFindLSB ? ISA_OP_BALLOT_LSB : ISA_OP_BALLOT_MSB, rty, lower_def_value(L, rid, rtype, 1), lower_val(L, o[3]), ISA_NO_REG);
        return;
    }
    default: break;
    }
    /* arithmetic */
    isa_reduce_op red;
    isa_type ty = rty;
    switch (op) {
    case SpvOpGroupNonUniformIAdd: case SpvOpGroupNonUniformFAdd: red = ISA_RED_ADD; break;
    case SpvOpGroupNonUniformIMul: case SpvOpGroupNonUniformFMul: red = ISA_RED_MUL; break;
    case SpvOpGroupNonUniformSMin: red = ISA_RED_MIN; ty = lower_with_sign(rty, true); break;
    case SpvOpGroupNonUniformUMin: red = ISA_RED_MIN; ty = lower_with_sign(rty, false); break;
    case SpvOpGroupNonUniformFMin: red = ISA_RED_MIN; break;
    case SpvOpGroupNonUniformSMax: red = ISA_RED_MAX; ty = lower_with_sign(rty, true); break;
    case SpvOpGroupNonUniformUMax: red = ISA_RED_MAX; ty = lower_with_sign(rty, false); break;
    case SpvOpGroupNonUniformFMax: red = ISA_RED_MAX; break;
    case SpvOpGroupNonUniformBitwiseAnd: case SpvOpGroupNonUniformLogicalAnd: red = ISA_RED_AND; break;
    case SpvOpGroupNonUniformBitwiseOr: case SpvOpGroupNonUniformLogicalOr: red = ISA_RED_OR; break;
    case SpvOpGroupNonUniformBitwiseXor: case SpvOpGroupNonUniformLogicalXor: red = ISA_RED_XOR; break;
    default:
        lower_fail(L, ISA_ERR_UNSUPPORTED, "subgroup operation %s is not modelled", lower_op_name(op));
        return;
    }
    uint32_t gop = o[3];
    int64_t imm2;
    switch (gop) {
    case SpvGroupOperationReduce: imm2 = ISA_GROUP_REDUCE; break;
    case SpvGroupOperationInclusiveScan: imm2 = ISA_GROUP_INCLUSIVE; break;
    case SpvGroupOperationExclusiveScan: imm2 = ISA_GROUP_EXCLUSIVE; break;
    case SpvGroupOperationClusteredReduce: {
        if (no < 6) {
            lower_fail(L, ISA_ERR_INVALID, "ClusteredReduce without a cluster size");
            return;
        }
        uint32_t cs = lower_const_u32(L, o[5]);
        if (cs == 0 || (cs & (cs - 1)) || cs > 128) {
            lower_fail(L, ISA_ERR_INVALID, "cluster size %u is not a power of two", cs);
            return;
        }
        imm2 = ISA_GROUP_CLUSTERED | ((int64_t)cs << 8);
        break;
    }
    default:
        lower_fail(L, ISA_ERR_UNSUPPORTED, "group operation %u is not modelled", gop);
        return;
    }
    uint32_t a = lower_val(L, o[4]);
    uint32_t d = lower_def_value(L, rid, rtype, n);
    for (uint32_t k = 0; k < n; k++) {
        isa_inst *in = lower_emit(L, ISA_OP_WAVE_OP, ty);
        in->d = d + k;
        in->a = a + k;
        in->imm = red;
        in->imm2 = imm2;
    }
}

/* ------------------------------------------------------------ instructions */

static isa_op int_cmp(SpvOp op, bool *swap, bool *is_signed)
{
    *swap = false;
    *is_signed = false;
    switch (op) {
    case SpvOpIEqual: case SpvOpLogicalEqual: return ISA_OP_IEQ;
    case SpvOpINotEqual: case SpvOpLogicalNotEqual: return ISA_OP_INE;
    case SpvOpULessThan: return ISA_OP_ULT;
    case SpvOpULessThanEqual: return ISA_OP_ULE;
    case SpvOpUGreaterThan: *swap = true; return ISA_OP_ULT;
    case SpvOpUGreaterThanEqual: *swap = true; return ISA_OP_ULE;
    case SpvOpSLessThan: *is_signed = true; return ISA_OP_SLT;
    case SpvOpSLessThanEqual: *is_signed = true; return ISA_OP_SLE;
    case SpvOpSGreaterThan: *is_signed = true; *swap = true; return ISA_OP_SLT;
    case SpvOpSGreaterThanEqual: *is_signed = true; *swap = true; return ISA_OP_SLE;
    case SpvOpFOrdEqual: return ISA_OP_FOEQ;
    case SpvOpFOrdNotEqual: return ISA_OP_FONE;
    case SpvOpFOrdLessThan: return ISA_OP_FOLT;
    case SpvOpFOrdLessThanEqual: return ISA_OP_FOLE;
    case SpvOpFOrdGreaterThan: *swap = true; return ISA_OP_FOLT;
    case SpvOpFOrdGreaterThanEqual: *swap = true; return ISA_OP_FOLE;
    case SpvOpFUnordEqual: return ISA_OP_FUEQ;
    case SpvOpFUnordNotEqual: return ISA_OP_FUNE;
    case SpvOpFUnordLessThan: return ISA_OP_FULT;
    case SpvOpFUnordLessThanEqual: return ISA_OP_FULE;
    case SpvOpFUnordGreaterThan: *swap = true; return ISA_OP_FULT;
    case SpvOpFUnordGreaterThanEqual: *swap = true; return ISA_OP_FULE;
    default: return ISA_OP_COUNT;
    }
}

static isa_op arith_op(SpvOp op, int *sign)
{
    /* sign: 0 = as declared, 1 = force signed, -1 = force unsigned */
    *sign = 0;
    switch (op) {
    case SpvOpIAdd: return ISA_OP_IADD;
    case SpvOpISub: return ISA_OP_ISUB;
    case SpvOpIMul: return ISA_OP_IMUL;
    case SpvOpUDiv: *sign = -1; return ISA_OP_UDIV;
    case SpvOpSDiv: *sign = 1; return ISA_OP_SDIV;
    case SpvOpUMod: *sign = -1; return ISA_OP_UMOD;
    case SpvOpSRem: *sign = 1; return ISA_OP_SREM;
    case SpvOpSMod: *sign = 1; return ISA_OP_SMOD;
    case SpvOpFAdd: return ISA_OP_FADD;
    case SpvOpFSub: return ISA_OP_FSUB;
    case SpvOpFMul: return ISA_OP_FMUL;
    case SpvOpFDiv: return ISA_OP_FDIV;
    case SpvOpFRem: return ISA_OP_FREM;
    case SpvOpFMod: return ISA_OP_FMOD;
    case SpvOpBitwiseAnd: case SpvOpLogicalAnd: return ISA_OP_AND;
    case SpvOpBitwiseOr: case SpvOpLogicalOr: return ISA_OP_OR;
    case SpvOpBitwiseXor: return ISA_OP_XOR;
    case SpvOpShiftLeftLogical: return ISA_OP_SHL;
    case SpvOpShiftRightLogical: *sign = -1; return ISA_OP_SHRL;
    case SpvOpShiftRightArithmetic: *sign = 1; return ISA_OP_SHRA;
    default: return ISA_OP_COUNT;
    }
}

static void lower_convert(lower *L, SpvOp op, const uint32_t *o)
{
    uint32_t rtype = o[0], rid = o[1], src = o[2];
    CHECK_ID(L, src);
    type_info *rt = lower_type(L, rtype);
    uint32_t n = rt->op == SpvOpTypeVector ? rt->count : 1;
    isa_type dty = lower_scalar_isa_type(L, lower_component_type(L, rtype));
    isa_type sty = lower_scalar_isa_type(L, lower_component_type(L, L->ids[src].type));
    switch (op) {
    case SpvOpConvertFToU: dty = lower_with_sign(dty, false); break;
    case SpvOpConvertFToS: dty = lower_with_sign(dty, true); break;
    case SpvOpConvertSToF: case SpvOpSConvert: sty = lower_with_sign(sty, true); break;
    case SpvOpConvertUToF: case SpvOpUConvert: sty = lower_with_sign(sty, false); break;
    default: break;
    }
    uint32_t a = lower_val(L, src);
    uint32_t d = lower_def_value(L, rid, rtype, n);
    for (uint32_t k = 0; k < n; k++) {
        isa_inst *in = lower_emit(L, ISA_OP_CVT, dty);
        in->type2 = (uint8_t)sty;
        in->d = d + k;
        in->a = a + k;
    }
}

static void lower_bitcast(lower *L, const uint32_t *o)
{
    uint32_t rtype = o[0], rid = o[1], src = o[2];
    CHECK_ID(L, src);
    uint32_t stype = L->ids[src].type;
    type_info *rt = lower_type(L, rtype), *st = lower_type(L, stype);
    uint32_t rn = rt->op == SpvOpTypeVector ? rt->count : 1;
    uint32_t sn = st->op == SpvOpTypeVector ? st->count : 1;
    if (rt->op == SpvOpTypePointer || st->op == SpvOpTypePointer) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "pointer bitcasts are not modelled");
        return;
    }
    isa_type rty = lower_scalar_isa_type(L, lower_component_type(L, rtype));
    isa_type sty = lower_scalar_isa_type(L, lower_component_type(L, stype));
    uint32_t a = lower_val(L, src);
    if (rn == sn) {
        /* same component size: the bits are already right; copy so that the
         * destination is its own register (keeps predication simple) */
        uint32_t d = lower_def_value(L, rid, rtype, rn);
        lower_unary(L, ISA_OP_MOV, rty, d, a, rn);
        return;
    }
    uint32_t rb = isa_type_size(rty) * 8, sb = isa_type_size(sty) * 8;
    uint32_t d = lower_def_value(L, rid, rtype, rn);
    if (rb > sb) {
        /* pack: several narrow source components into each result component */
        uint32_t per = rb / sb;
        for (uint32_t k = 0; k < rn; k++) {
            uint32_t acc = ISA_NO_REG;
            for (uint32_t j = 0; j < per; j++) {
                uint32_t part = lower_new_regs(L, 1);
                isa_inst *in = lower_emit(L, ISA_OP_CVT, ISA_TYPE_U64);
                in->type2 = (uint8_t)lower_with_sign(sty == ISA_TYPE_F16 ? ISA_TYPE_U16 : sty == ISA_TYPE_F32 ? ISA_TYPE_U32 : sty, false);
                in->d = part;
                in->a = a + k * per + j;
                if (j) {
                    uint32_t sh = lower_new_regs(L, 1);
                    lower_emit_op(L, ISA_OP_SHL, ISA_TYPE_U64, sh, part, lower_const_reg(L, j * sb));
                    part = sh;
                }
                if (acc == ISA_NO_REG) {
                    acc = part;
                } else {
                    uint32_t s = lower_new_regs(L, 1);
                    lower_emit_op(L, ISA_OP_OR, ISA_TYPE_U64, s, acc, part);
                    acc = s;
                }
            }
            lower_emit_op(L, ISA_OP_MOV, rty, d + k, acc, ISA_NO_REG);
        }
    } else {
        uint32_t per = sb / rb;
        for (uint32_t k = 0; k < rn; k++) {
            uint32_t s = a + k / per;
            uint32_t j = k % per;
            uint32_t t = s;
            if (j) {
                t = lower_new_regs(L, 1);
                lower_emit_op(L, ISA_OP_SHRL, ISA_TYPE_U64, t, s, lower_const_reg(L, j * rb));
            }
            isa_inst *in = lower_emit(L, ISA_OP_CVT, lower_with_sign(rb == 16 ? ISA_TYPE_U16 : rb == 32 ? ISA_TYPE_U32 : ISA_TYPE_U8, false));
            in->type2 = ISA_TYPE_U64;
            in->d = d + k;
            in->a = t;
        }
    }
}

static int32_t image_slot(lower *L, uint32_t id)
{
    if (id == 0 || id >= L->bound || (L->ids[id].kind != K_IMAGE && L->ids[id].kind != K_PTR) || L->ids[id].slot < 0) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "image operand %%%u does not come from a texel buffer variable", id);
        return 0;
    }
    return L->ids[id].slot;
}

void lower_inst(lower *L, SpvOp op, const uint32_t *o, uint32_t no)
{
    switch (op) {
    case SpvOpNop: case SpvOpLine: case SpvOpNoLine: case SpvOpSelectionMerge: case SpvOpLoopMerge:
    case SpvOpMemoryBarrier: case SpvOpModuleProcessed:
        return;
    case SpvOpVariable: {
        /* Function variable: its memory was laid out before; store the initialiser */
        if (no >= 4) {
            id_info *p = &L->ids[o[1]];
            CHECK_ID(L, o[3]);
            access(L, true, L->ids[o[3]].type, p->slot, ISA_NO_REG, 0, lower_val(L, o[3]), (mem_layout){0, false, 0});
        }
        return;
    }
    case SpvOpExtInst: {
        if (no < 4)
            break;
        if (o[2] == L->glsl_ext) {
            lower_ext_glsl(L, o, no);
            return;
        }
        /* NonSemantic.* instructions carry no semantics: skip them */
        const char *set = o[2] < L->bound ? L->ids[o[2]].name : NULL;
        if (set && strncmp(set, "NonSemantic.", 12) == 0)
            return;
        lower_fail(L, ISA_ERR_UNSUPPORTED, "extended instruction set \"%s\" is not modelled", set ? set : "?");
        return;
    }
    case SpvOpLoad: {
        uint32_t rtype = o[0], rid = o[1], ptr = o[2];
        CHECK_ID(L, ptr);
        id_info *p = &L->ids[ptr];
        if (p->kind != K_PTR) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "load through %%%u, which is not a resolved pointer", ptr);
            return;
        }
        if (p->slot < 0) { /* built-in input */
            lower_alias_value(L, rid, rtype, (uint32_t)p->off_const);
            return;
        }
        isa_space sp = L->p->slots[p->slot].space;
        if (sp == ISA_SPACE_STORAGE_TEXEL || sp == ISA_SPACE_UNIFORM_TEXEL) {
            L->ids[rid].kind = K_IMAGE;
            L->ids[rid].slot = p->slot;
            L->ids[rid].type = rtype;
            return;
        }
        uint32_t d = lower_def_value(L, rid, rtype, lower_reg_count_of(L, rtype));
        access(L, false, rtype, p->slot, p->off_reg, p->off_const, d, ptr_layout(p));
        return;
    }
    case SpvOpStore: {
        uint32_t ptr = o[0], v = o[1];
        CHECK_ID(L, ptr);
        CHECK_ID(L, v);
        id_info *p = &L->ids[ptr];
        if (p->kind != K_PTR || p->slot < 0) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "store through %%%u, which is not a writable resolved pointer", ptr);
            return;
        }
        if (L->p->slots[p->slot].readonly) {
            lower_fail(L, ISA_ERR_INVALID, "store to read-only '%s'", L->p->slots[p->slot].name);
            return;
        }
        access(L, true, L->ids[v].type, p->slot, p->off_reg, p->off_const, lower_val(L, v), ptr_layout(p));
        return;
    }
    case SpvOpCopyMemory: {
        uint32_t dst = o[0], src = o[1];
        CHECK_ID(L, dst);
        CHECK_ID(L, src);
        id_info *pd = &L->ids[dst], *ps = &L->ids[src];
        if (pd->kind != K_PTR || ps->kind != K_PTR || pd->slot < 0) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "OpCopyMemory between unresolved pointers");
            return;
        }
        uint32_t tid = lower_type(L, ps->type)->elem;
        uint32_t r = lower_new_regs(L, lower_reg_count_of(L, tid));
        if (ps->slot < 0)
            lower_unary(L, ISA_OP_MOV, ISA_TYPE_U64, r, (uint32_t)ps->off_const, lower_reg_count_of(L, tid));
        else
            access(L, false, tid, ps->slot, ps->off_reg, ps->off_const, r, ptr_layout(ps));
        access(L, true, tid, pd->slot, pd->off_reg, pd->off_const, r, ptr_layout(pd));
        return;
    }
    case SpvOpAccessChain: case SpvOpInBoundsAccessChain:
        lower_access_chain(L, o, no);
        return;
    case SpvOpArrayLength: {
        uint32_t rtype = o[0], rid = o[1], ptr = o[2], member = o[3];
        CHECK_ID(L, ptr);
        id_info *p = &L->ids[ptr];
        if (p->kind != K_PTR || p->slot < 0) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "OpArrayLength of an unresolved pointer");
            return;
        }
        uint32_t st = lower_type(L, p->type)->elem;
        type_info *s = lower_type(L, st);
        if (member >= s->nmembers) {
            lower_fail(L, ISA_ERR_INVALID, "OpArrayLength member %u out of range", member);
            return;
        }
        isa_inst *in = lower_emit(L, ISA_OP_ARRAY_LEN, ISA_TYPE_U32);
        in->slot = (uint16_t)p->slot;
        in->imm = p->off_const + lower_member_offset(L, st, member, true);
        in->imm2 = lower_elem_stride(L, s->members[member], true, 0);
        in->d = lower_def_value(L, rid, rtype, 1);
        return;
    }
    case SpvOpImageRead: case SpvOpImageFetch: {
        uint32_t rtype = o[0], rid = o[1];
        int32_t slot = image_slot(L, o[2]);
        if (L->failed)
            return;
        type_info *rt = lower_type(L, rtype);
        uint32_t n = rt->op == SpvOpTypeVector ? rt->count : 1;
        uint32_t tmp = n == 4 ? lower_def_value(L, rid, rtype, 4) : lower_new_regs(L, 4);
        isa_inst *in = lower_emit(L, ISA_OP_IMG_READ, L->p->slots[slot].texel_type);
        in->slot = (uint16_t)slot;
        in->a = lower_val(L, o[3]);
        in->d = tmp;
        in->cls = ISA_CLASS_VMEM;
        if (n != 4)
            lower_alias_value(L, rid, rtype, tmp);
        return;
    }
    case SpvOpImageWrite: {
        int32_t slot = image_slot(L, o[0]);
        if (L->failed)
            return;
        uint32_t texel = o[2];
        CHECK_ID(L, texel);
        type_info *tt = lower_type(L, L->ids[texel].type);
        uint32_t n = tt->op == SpvOpTypeVector ? tt->count : 1;
        uint32_t src = lower_val(L, texel);
        if (n != 4) {
            uint32_t tmp = lower_new_regs(L, 4);
            lower_unary(L, ISA_OP_MOV, ISA_TYPE_U64, tmp, src, n);
            src = tmp;
        }
        isa_inst *in = lower_emit(L, ISA_OP_IMG_WRITE, L->p->slots[slot].texel_type);
        in->slot = (uint16_t)slot;
        in->a = lower_val(L, o[1]);
        in->b = src;
        in->cls = ISA_CLASS_VMEM;
        L->p->slots[slot].written = 1;
        return;
    }
    case SpvOpImageQuerySize: {
        int32_t slot = image_slot(L, o[2]);
        if (L->failed)
            return;
        isa_inst *in = lower_emit(L, ISA_OP_IMG_SIZE, ISA_TYPE_U32);
        in->slot = (uint16_t)slot;
        in->d = lower_def_value(L, o[1], o[0], 1);
        return;
    }
    case SpvOpImage: case SpvOpSampledImage: {
        int32_t slot = image_slot(L, o[2]);
        L->ids[o[1]].kind = K_IMAGE;
        L->ids[o[1]].slot = slot;
        L->ids[o[1]].type = o[0];
        return;
    }
    case SpvOpCompositeExtract: {
        uint32_t rtype = o[0], rid = o[1], comp = o[2];
        CHECK_ID(L, comp);
        uint32_t tid = L->ids[comp].type;
        uint32_t off = 0;
        for (uint32_t k = 3; k < no; k++) {
            uint32_t mt;
            off += lower_reg_offset_of(L, tid, o[k], &mt);
            tid = mt;
        }
        lower_alias_value(L, rid, rtype, lower_val(L, comp) + off);
        return;
    }
    case SpvOpCompositeInsert: {
        uint32_t rtype = o[0], rid = o[1], obj = o[2], comp = o[3];
        CHECK_ID(L, obj);
        CHECK_ID(L, comp);
        uint32_t n = lower_reg_count_of(L, rtype);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        lower_unary(L, ISA_OP_MOV, ISA_TYPE_U64, d, lower_val(L, comp), n);
        uint32_t tid = rtype, off = 0;
        for (uint32_t k = 4; k < no; k++) {
            uint32_t mt;
            off += lower_reg_offset_of(L, tid, o[k], &mt);
            tid = mt;
        }
        lower_unary(L, ISA_OP_MOV, ISA_TYPE_U64, d + off, lower_val(L, obj), lower_reg_count_of(L, tid));
        return;
    }
    case SpvOpCompositeConstruct: {
        uint32_t rtype = o[0], rid = o[1];
        uint32_t n = lower_reg_count_of(L, rtype);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        uint32_t k = 0;
        for (uint32_t c = 2; c < no && !L->failed; c++) {
            CHECK_ID(L, o[c]);
            uint32_t m = lower_reg_count_of(L, L->ids[o[c]].type);
            if (k + m > n) {
                lower_fail(L, ISA_ERR_INVALID, "composite construct with too many components");
                return;
            }
            lower_unary(L, ISA_OP_MOV, ISA_TYPE_U64, d + k, lower_val(L, o[c]), m);
            k += m;
        }
        return;
    }
    case SpvOpVectorShuffle: {
        uint32_t rtype = o[0], rid = o[1], v1 = o[2], v2 = o[3];
        CHECK_ID(L, v1);
        CHECK_ID(L, v2);
        uint32_t n1 = lower_reg_count_of(L, L->ids[v1].type);
        uint32_t d = lower_def_value(L, rid, rtype, no - 4);
        uint32_t a1 = lower_val(L, v1), a2 = lower_val(L, v2);
        for (uint32_t k = 4; k < no; k++) {
            uint32_t sel = o[k];
            if (sel == 0xffffffffu)
                continue; /* undefined component: left as is */
            lower_emit_op(L, ISA_OP_MOV, ISA_TYPE_U64, d + (k - 4), sel < n1 ? a1 + sel : a2 + (sel - n1), ISA_NO_REG);
        }
        return;
    }
    case SpvOpCopyObject: case SpvOpCopyLogical: {
        CHECK_ID(L, o[2]);
        if (L->ids[o[2]].kind == K_PTR) {
            L->ids[o[1]] = L->ids[o[2]];
            L->ids[o[1]].name = NULL;
            return;
        }
        lower_alias_value(L, o[1], o[0], lower_val(L, o[2]));
        return;
    }
    case SpvOpVectorExtractDynamic: {
        uint32_t rtype = o[0], rid = o[1], v = o[2], idx = o[3];
        CHECK_ID(L, v);
        CHECK_ID(L, idx);
        isa_inst *in = lower_emit(L, ISA_OP_VEXTRACT, lower_scalar_isa_type(L, rtype));
        in->a = lower_val(L, v);
        in->b = lower_val(L, idx);
        in->imm = lower_reg_count_of(L, L->ids[v].type);
        in->d = lower_def_value(L, rid, rtype, 1);
        return;
    }
    case SpvOpVectorInsertDynamic: {
        uint32_t rtype = o[0], rid = o[1], v = o[2], comp = o[3], idx = o[4];
        CHECK_ID(L, v);
        CHECK_ID(L, comp);
        CHECK_ID(L, idx);
        uint32_t n = lower_reg_count_of(L, rtype);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        lower_unary(L, ISA_OP_MOV, ISA_TYPE_U64, d, lower_val(L, v), n);
        isa_inst *in = lower_emit(L, ISA_OP_VINSERT, lower_scalar_isa_type(L, lower_component_type(L, rtype)));
        in->d = d;
        in->a = lower_val(L, comp);
        in->b = lower_val(L, idx);
        in->imm = n;
        return;
    }
    case SpvOpSelect: {
        uint32_t rtype = o[0], rid = o[1], c = o[2], a = o[3], b = o[4];
        CHECK_ID(L, c);
        CHECK_ID(L, a);
        CHECK_ID(L, b);
        uint32_t n = lower_reg_count_of(L, rtype);
        bool cvec = lower_type(L, L->ids[c].type)->op == SpvOpTypeVector;
        uint32_t d = lower_def_value(L, rid, rtype, n);
        uint32_t cr = lower_val(L, c), ar = lower_val(L, a), br = lower_val(L, b);
        for (uint32_t k = 0; k < n; k++) {
            isa_inst *in = lower_emit(L, ISA_OP_SELECT, ISA_TYPE_U64);
            in->d = d + k;
            in->a = cvec ? cr + k : cr;
            in->b = ar + k;
            in->c = br + k;
        }
        return;
    }
    case SpvOpConvertFToU: case SpvOpConvertFToS: case SpvOpConvertSToF: case SpvOpConvertUToF:
    case SpvOpUConvert: case SpvOpSConvert: case SpvOpFConvert:
        lower_convert(L, op, o);
        return;
    case SpvOpQuantizeToF16: {
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        uint32_t n = lower_reg_count_of(L, rtype);
        uint32_t a = lower_val(L, o[2]);
        uint32_t h = lower_new_regs(L, n), d = lower_def_value(L, rid, rtype, n);
        for (uint32_t k = 0; k < n; k++) {
            isa_inst *in = lower_emit(L, ISA_OP_CVT, ISA_TYPE_F16);
            in->type2 = ISA_TYPE_F32;
            in->d = h + k;
            in->a = a + k;
            in = lower_emit(L, ISA_OP_CVT, ISA_TYPE_F32);
            in->type2 = ISA_TYPE_F16;
            in->d = d + k;
            in->a = h + k;
        }
        return;
    }
    case SpvOpBitcast:
        lower_bitcast(L, o);
        return;
    case SpvOpSNegate: case SpvOpFNegate: case SpvOpNot: case SpvOpLogicalNot: case SpvOpBitReverse:
    case SpvOpBitCount: case SpvOpIsNan: case SpvOpIsInf: {
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        uint32_t n = lower_reg_count_of(L, rtype);
        uint32_t a = lower_val(L, o[2]);
        isa_type sty = lower_scalar_isa_type(L, lower_component_type(L, L->ids[o[2]].type));
        uint32_t d = lower_def_value(L, rid, rtype, n);
        if (op == SpvOpLogicalNot) {
            binary(L, ISA_OP_XOR, ISA_TYPE_BOOL, d, a, one_reg(L), n, true);
            return;
        }
        isa_op iop = op == SpvOpSNegate ? ISA_OP_INEG : op == SpvOpFNegate ? ISA_OP_FNEG : op == SpvOpNot ? ISA_OP_NOT
                   : op == SpvOpBitReverse ? ISA_OP_BITREV : op == SpvOpBitCount ? ISA_OP_BITCNT
                   : op == SpvOpIsNan ? ISA_OP_ISNAN : ISA_OP_ISINF;
        lower_unary(L, iop, sty, d, a, n);
        return;
    }
    case SpvOpAny: case SpvOpAll: {
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        uint32_t n = lower_reg_count_of(L, L->ids[o[2]].type);
        uint32_t a = lower_val(L, o[2]);
        uint32_t acc = a;
        for (uint32_t k = 1; k < n; k++) {
            uint32_t s = lower_new_regs(L, 1);
            lower_emit_op(L, op == SpvOpAny ? ISA_OP_OR : ISA_OP_AND, ISA_TYPE_BOOL, s, acc, a + k);
            acc = s;
        }
        uint32_t d = lower_def_value(L, rid, rtype, 1);
        lower_emit_op(L, ISA_OP_MOV, ISA_TYPE_BOOL, d, acc, ISA_NO_REG);
        return;
    }
    case SpvOpDot: {
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        CHECK_ID(L, o[3]);
        uint32_t n = lower_reg_count_of(L, L->ids[o[2]].type);
        uint32_t r = dot(L, lower_scalar_isa_type(L, rtype), lower_val(L, o[2]), lower_val(L, o[3]), n);
        lower_alias_value(L, rid, rtype, r);
        return;
    }
    case SpvOpVectorTimesScalar: {
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        CHECK_ID(L, o[3]);
        uint32_t n = lower_reg_count_of(L, rtype);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        binary(L, ISA_OP_FMUL, lower_scalar_isa_type(L, lower_component_type(L, rtype)), d, lower_val(L, o[2]), lower_val(L, o[3]), n, true);
        return;
    }
    case SpvOpMatrixTimesVector: {
        /* result[r] = sum_c M[c][r] * v[c] */
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        CHECK_ID(L, o[3]);
        type_info *mt = lower_type(L, L->ids[o[2]].type);
        uint32_t rows = lower_type(L, mt->elem)->count, cols = mt->count;
        isa_type ty = lower_scalar_isa_type(L, lower_component_type(L, rtype));
        uint32_t m = lower_val(L, o[2]), v = lower_val(L, o[3]);
        uint32_t d = lower_def_value(L, rid, rtype, rows);
        for (uint32_t r = 0; r < rows; r++) {
            uint32_t acc = lower_new_regs(L, 1);
            lower_emit_op(L, ISA_OP_FMUL, ty, acc, m + r, v);
            for (uint32_t c = 1; c < cols; c++) {
                uint32_t p = lower_new_regs(L, 2);
                lower_emit_op(L, ISA_OP_FMUL, ty, p, m + c * rows + r, v + c);
                lower_emit_op(L, ISA_OP_FADD, ty, p + 1, acc, p);
                acc = p + 1;
            }
            isa_inst *mv = lower_emit(L, ISA_OP_MOV, ty);
            mv->d = d + r;
            mv->a = acc;
        }
        return;
    }
    case SpvOpVectorTimesMatrix: {
        /* result[c] = dot(v, M[c]): HLSL's mul(m, v) with its column_major default lands here */
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        CHECK_ID(L, o[3]);
        type_info *mt = lower_type(L, L->ids[o[3]].type);
        uint32_t rows = lower_type(L, mt->elem)->count, cols = mt->count;
        isa_type ty = lower_scalar_isa_type(L, lower_component_type(L, rtype));
        uint32_t v = lower_val(L, o[2]), m = lower_val(L, o[3]);
        uint32_t d = lower_def_value(L, rid, rtype, cols);
        for (uint32_t c = 0; c < cols; c++)
            lower_emit_op(L, ISA_OP_MOV, ty, d + c, dot(L, ty, v, m + c * rows, rows), ISA_NO_REG);
        return;
    }
    case SpvOpMatrixTimesScalar: {
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        CHECK_ID(L, o[3]);
        uint32_t n = lower_reg_count_of(L, rtype);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        /* the component type of a matrix is its column's */
        binary(L, ISA_OP_FMUL, lower_scalar_isa_type(L, lower_type(L, lower_type(L, rtype)->elem)->elem), d, lower_val(L, o[2]), lower_val(L, o[3]), n,
               true);
        return;
    }
    case SpvOpTranspose: {
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        type_info *mt = lower_type(L, L->ids[o[2]].type);
        uint32_t rows = lower_type(L, mt->elem)->count, cols = mt->count;
        uint32_t m = lower_val(L, o[2]);
        uint32_t d = lower_def_value(L, rid, rtype, rows * cols);
        /* column r of the result holds row r of the operand */
        for (uint32_t r = 0; r < rows; r++)
            for (uint32_t c = 0; c < cols; c++)
                lower_emit_op(L, ISA_OP_MOV, ISA_TYPE_U64, d + r * cols + c, m + c * rows + r, ISA_NO_REG);
        return;
    }
    case SpvOpMatrixTimesMatrix: {
        /* R[c][r] = sum_k A[k][r] * B[c][k] */
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        CHECK_ID(L, o[3]);
        type_info *at = lower_type(L, L->ids[o[2]].type), *bt = lower_type(L, L->ids[o[3]].type);
        uint32_t rows = lower_type(L, at->elem)->count, inner = at->count, cols = bt->count;
        isa_type ty = lower_scalar_isa_type(L, lower_type(L, at->elem)->elem);
        uint32_t a = lower_val(L, o[2]), b = lower_val(L, o[3]);
        uint32_t d = lower_def_value(L, rid, rtype, rows * cols);
        for (uint32_t c = 0; c < cols; c++)
            for (uint32_t r = 0; r < rows; r++) {
                uint32_t acc = lower_new_regs(L, 1);
                lower_emit_op(L, ISA_OP_FMUL, ty, acc, a + r, b + c * inner);
                for (uint32_t k = 1; k < inner; k++) {
                    uint32_t p = lower_new_regs(L, 2);
                    lower_emit_op(L, ISA_OP_FMUL, ty, p, a + k * rows + r, b + c * inner + k);
                    lower_emit_op(L, ISA_OP_FADD, ty, p + 1, acc, p);
                    acc = p + 1;
                }
                lower_emit_op(L, ISA_OP_MOV, ty, d + c * rows + r, acc, ISA_NO_REG);
            }
        return;
    }
    case SpvOpIAddCarry: case SpvOpISubBorrow: case SpvOpUMulExtended: case SpvOpSMulExtended: {
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        CHECK_ID(L, o[3]);
        type_info *st = lower_type(L, rtype);
        uint32_t mt = st->nmembers ? st->members[0] : rtype;
        uint32_t n = lower_reg_count_of(L, mt);
        isa_type ty = lower_scalar_isa_type(L, lower_component_type(L, mt));
        if (op == SpvOpSMulExtended)
            ty = lower_with_sign(ty, true);
        else
            ty = lower_with_sign(ty, false);
        uint32_t d = lower_def_value(L, rid, rtype, 2 * n);
        isa_op lo = op == SpvOpIAddCarry ? ISA_OP_IADD : op == SpvOpISubBorrow ? ISA_OP_ISUB : ISA_OP_IMUL;
        isa_op hi = op == SpvOpIAddCarry ? ISA_OP_IADDC : op == SpvOpISubBorrow ? ISA_OP_ISUBB
                  : op == SpvOpUMulExtended ? ISA_OP_UMULHI : ISA_OP_SMULHI;
        uint32_t a = lower_val(L, o[2]), b = lower_val(L, o[3]);
        binary(L, lo, ty, d, a, b, n, false);
        binary(L, hi, ty, d + n, a, b, n, false);
        return;
    }
    case SpvOpBitFieldInsert: case SpvOpBitFieldSExtract: case SpvOpBitFieldUExtract: {
        uint32_t rtype = o[0], rid = o[1];
        uint32_t n = lower_reg_count_of(L, rtype);
        isa_type ty = lower_scalar_isa_type(L, lower_component_type(L, rtype));
        uint32_t base = lower_val(L, o[2]);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        if (op == SpvOpBitFieldInsert) {
            uint32_t ins = lower_val(L, o[3]), off = lower_val(L, o[4]), cnt = lower_val(L, o[5]);
            for (uint32_t k = 0; k < n; k++) {
                isa_inst *in = lower_emit(L, ISA_OP_BFI, ty);
                in->d = d + k;
                in->a = base + k;
                in->b = ins + k;
                in->c = off;
                in->e = cnt;
            }
        } else {
            uint32_t off = lower_val(L, o[3]), cnt = lower_val(L, o[4]);
            isa_type t2 = lower_with_sign(ty, op == SpvOpBitFieldSExtract);
            for (uint32_t k = 0; k < n; k++) {
                isa_inst *in = lower_emit(L, op == SpvOpBitFieldSExtract ? ISA_OP_BFES : ISA_OP_BFEU, t2);
                in->d = d + k;
                in->a = base + k;
                in->b = off;
                in->c = cnt;
            }
        }
        return;
    }
    case SpvOpAtomicLoad: case SpvOpAtomicStore: case SpvOpAtomicExchange: case SpvOpAtomicCompareExchange:
    case SpvOpAtomicIIncrement: case SpvOpAtomicIDecrement: case SpvOpAtomicIAdd: case SpvOpAtomicISub:
    case SpvOpAtomicSMin: case SpvOpAtomicUMin: case SpvOpAtomicSMax: case SpvOpAtomicUMax: case SpvOpAtomicAnd:
    case SpvOpAtomicOr: case SpvOpAtomicXor: case SpvOpAtomicFAddEXT: {
        bool is_store = op == SpvOpAtomicStore;
        uint32_t ptr = is_store ? o[0] : o[2];
        CHECK_ID(L, ptr);
        id_info *p = &L->ids[ptr];
        if (p->kind != K_PTR || p->slot < 0) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "atomic on an unresolved pointer %%%u", ptr);
            return;
        }
        uint32_t vtype = is_store ? L->ids[o[3]].type : o[0];
        isa_type ty = lower_scalar_isa_type(L, vtype);
        isa_reduce_op red = ISA_RED_ADD;
        uint32_t value = ISA_NO_REG, cmp = ISA_NO_REG;
        switch (op) {
        case SpvOpAtomicLoad: red = ISA_RED_LOAD; break;
        case SpvOpAtomicStore: red = ISA_RED_STORE; value = lower_val(L, o[3]); break;
        case SpvOpAtomicExchange: red = ISA_RED_EXCHANGE; value = lower_val(L, o[5]); break;
        case SpvOpAtomicCompareExchange: red = ISA_RED_CMPXCHG; value = lower_val(L, o[6]); cmp = lower_val(L, o[7]); break;
        case SpvOpAtomicIIncrement: value = lower_const_reg(L, 1); break;
        case SpvOpAtomicIDecrement: value = lower_const_reg(L, UINT64_MAX); break;
        case SpvOpAtomicIAdd: case SpvOpAtomicFAddEXT: value = lower_val(L, o[5]); break;
        case SpvOpAtomicISub: {
            value = lower_new_regs(L, 1);
            lower_emit_op(L, ISA_OP_INEG, ty, value, lower_val(L, o[5]), ISA_NO_REG);
            break;
        }
        case SpvOpAtomicSMin: red = ISA_RED_MIN; ty = lower_with_sign(ty, true); value = lower_val(L, o[5]); break;
        case SpvOpAtomicUMin: red = ISA_RED_MIN; ty = lower_with_sign(ty, false); value = lower_val(L, o[5]); break;
        case SpvOpAtomicSMax: red = ISA_RED_MAX; ty = lower_with_sign(ty, true); value = lower_val(L, o[5]); break;
        case SpvOpAtomicUMax: red = ISA_RED_MAX; ty = lower_with_sign(ty, false); value = lower_val(L, o[5]); break;
        case SpvOpAtomicAnd: red = ISA_RED_AND; value = lower_val(L, o[5]); break;
        case SpvOpAtomicOr: red = ISA_RED_OR; value = lower_val(L, o[5]); break;
        case SpvOpAtomicXor: red = ISA_RED_XOR; value = lower_val(L, o[5]); break;
        default: break;
        }
        if (L->p->slots[p->slot].readonly && red != ISA_RED_LOAD) {
            lower_fail(L, ISA_ERR_INVALID, "atomic write to read-only '%s'", L->p->slots[p->slot].name);
            return;
        }
        isa_inst *in = lower_emit(L, ISA_OP_ATOMIC, ty);
        in->slot = (uint16_t)p->slot;
        in->a = p->off_reg;
        in->imm = p->off_const;
        in->imm2 = red;
        in->b = value;
        in->c = cmp;
        in->count = 1;
        in->cls = (uint8_t)(L->p->slots[p->slot].space == ISA_SPACE_WORKGROUP ? ISA_CLASS_LDS : ISA_CLASS_VMEM);
        if (!is_store)
            in->d = lower_def_value(L, o[1], o[0], 1);
        if (red != ISA_RED_LOAD)
            L->p->slots[p->slot].written = 1;
        return;
    }
    case SpvOpControlBarrier: {
        uint32_t scope = lower_const_u32(L, o[0]);
        if (scope == SpvScopeWorkgroup) {
            lower_emit(L, ISA_OP_BARRIER, ISA_TYPE_NONE);
        } else if (scope != SpvScopeSubgroup) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "control barrier with execution scope %u", scope);
        }
        /* a subgroup-scope control barrier: waves run in lockstep in the model: nothing to do */
        return;
    }
    default: break;
    }
    if (op >= SpvOpGroupNonUniformElect && op <= SpvOpGroupNonUniformQuadSwap) {
        lower_group(L, op, o, no);
        return;
    }
    bool swap, is_signed;
    isa_op cmp = int_cmp(op, &swap, &is_signed);
    if (cmp != ISA_OP_COUNT) {
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        CHECK_ID(L, o[3]);
        uint32_t n = lower_reg_count_of(L, rtype);
        isa_type ty = lower_scalar_isa_type(L, lower_component_type(L, L->ids[o[2]].type));
        if (cmp == ISA_OP_SLT || cmp == ISA_OP_SLE)
            ty = lower_with_sign(ty, true);
        else if (cmp == ISA_OP_ULT || cmp == ISA_OP_ULE)
            ty = lower_with_sign(ty, false);
        uint32_t a = lower_val(L, o[2]), b = lower_val(L, o[3]);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        binary(L, cmp, ty, d, swap ? b : a, swap ? a : b, n, false);
        return;
    }
    int sign;
    isa_op ar = arith_op(op, &sign);
    if (ar != ISA_OP_COUNT) {
        uint32_t rtype = o[0], rid = o[1];
        CHECK_ID(L, o[2]);
        CHECK_ID(L, o[3]);
        uint32_t n = lower_reg_count_of(L, rtype);
        isa_type ty = lower_scalar_isa_type(L, lower_component_type(L, rtype));
        if (sign)
            ty = lower_with_sign(ty, sign > 0);
        uint32_t a = lower_val(L, o[2]), b = lower_val(L, o[3]);
        bool b_scalar = lower_type(L, L->ids[o[3]].type)->op != SpvOpTypeVector && n > 1;
        uint32_t d = lower_def_value(L, rid, rtype, n);
        binary(L, ar, ty, d, a, b, n, b_scalar);
        return;
    }
    lower_fail(L, ISA_ERR_UNSUPPORTED, "%s is not modelled", lower_op_name(op));
}


/* Module-scope Private variables with an initialiser: stored when each lane starts. */
void lower_init_private_variables(lower *L)
{
    for (uint32_t id = 1; id < L->bound && !L->failed; id++) {
        id_info *d = &L->ids[id];
        if (d->kind != K_PTR || d->slot < 0 || d->storage != SpvStorageClassPrivate)
            continue;
        uint32_t wc = L->w[d->word] >> 16;
        if (wc < 5)
            continue;
        uint32_t init = L->w[d->word + 4];
        L->cur_word = d->word;
        CHECK_ID(L, init);
        access(L, true, L->ids[init].type, d->slot, ISA_NO_REG, 0, lower_val(L, init), (mem_layout){0, false, 0});
    }
}
/* ------------------------------------------------------------ entry */

static isa_status lower_program(const uint32_t *words, size_t word_count, const char *entry, isa_program **out,
                                char *err, size_t err_size, bool allocate);

isa_status isa_lower(const uint32_t *words, size_t word_count, const char *entry, isa_program **out, char *err,
                     size_t err_size)
{
    return lower_program(words, word_count, entry, out, err, err_size, true);
}

isa_status isa_lower_virtual(const uint32_t *words, size_t word_count, const char *entry, isa_program **out,
                             char *err, size_t err_size)
{
    return lower_program(words, word_count, entry, out, err, err_size, false);
}

static isa_status lower_program(const uint32_t *words, size_t word_count, const char *entry, isa_program **out,
                                char *err, size_t err_size, bool allocate)
{
    lower LL, *L = &LL;
    memset(L, 0, sizeof *L);
    L->w = words;
    L->n = word_count;
    L->err = err;
    L->err_size = err_size;
    if (err && err_size)
        err[0] = 0;
    *out = NULL;
    L->p = calloc(1, sizeof *L->p);
    if (!L->p)
        return ISA_ERR_NOMEM;
    isa_program *p = L->p;
    p->local_size[0] = p->local_size[1] = p->local_size[2] = 1;
    if (!lower_parse_module(L))
        goto done;
    /* entry point */
    uint32_t fid = 0;
    int entries = 0;
    for (size_t i = 5; i < L->n;) {
        uint32_t wc = words[i] >> 16;
        SpvOp op = (SpvOp)(words[i] & 0xffff);
        L->cur_word = (uint32_t)i;
        if (op == SpvOpEntryPoint && wc >= 4 && words[i + 1] == SpvExecutionModelGLCompute) {
            const char *name = (const char *)(words + i + 3);
            entries++;
            if (!entry || !*entry || strcmp(entry, name) == 0 || (entries == 1 && strcmp(entry, "main") == 0)) {
                if (!fid || (entry && strcmp(entry, name) == 0)) {
                    fid = words[i + 2];
                    snprintf(p->entry, sizeof p->entry, "%s", name);
                }
            }
        } else if (op == SpvOpExecutionMode && wc >= 6 && words[i + 2] == SpvExecutionModeLocalSize) {
            if (!fid || words[i + 1] == fid) {
                p->local_size[0] = words[i + 3];
                p->local_size[1] = words[i + 4];
                p->local_size[2] = words[i + 5];
            }
        } else if (op == SpvOpFunction) {
            break;
        }
        i += wc;
    }
    L->cur_word = 0;
    if (!fid) {
        lower_fail(L, ISA_ERR_INVALID, entries ? "no GLCompute entry point named \"%s\"" : "no GLCompute entry point%s",
             entry ? entry : "");
        goto done;
    }
    /* a constant decorated WorkgroupSize overrides LocalSize */
    for (uint32_t id = 1; id < L->bound; id++) {
        if (L->ids[id].kind == K_CONST && L->ids[id].builtin == SpvBuiltInWorkgroupSize) {
            uint64_t b[3] = {1, 1, 1};
            L->cur_word = L->ids[id].word;
            lower_const_bits(L, id, b, 3);
            for (int k = 0; k < 3; k++)
                p->local_size[k] = (uint32_t)b[k];
        }
    }
    if (L->failed)
        goto done;
    uint64_t inv = (uint64_t)p->local_size[0] * p->local_size[1] * p->local_size[2];
    if (inv == 0 || inv > 1024) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "workgroup size %ux%ux%u: wavelab models 1..1024 invocations per workgroup",
             p->local_size[0], p->local_size[1], p->local_size[2]);
        goto done;
    }
    for (size_t i = 5; i < L->n;) {
        uint32_t wc = words[i] >> 16;
        SpvOp op = (SpvOp)(words[i] & 0xffff);
        if (wc == 0 || i + wc > L->n) {
            L->cur_word = (uint32_t)i;
            lower_fail(L, ISA_ERR_INVALID, "instruction word count %u runs past the end of the module", wc);
            goto done;
        }
        if (op == SpvOpLine && wc >= 2 && words[i + 1] < L->bound && L->ids[words[i + 1]].kind == K_STRING &&
            !p->source_path[0])
            snprintf(p->source_path, sizeof p->source_path, "%s", L->ids[words[i + 1]].name);
        i += wc;
    }
    L->block_of_label = calloc(L->bound, sizeof *L->block_of_label);
    if (!L->block_of_label) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        goto done;
    }
    lower_make_variables(L);
    if (L->failed)
        goto done;
    /* find the entry function's body */
    uint32_t fbegin = 0, fend = 0;
    for (size_t i = 5; i < L->n;) {
        uint32_t wc = words[i] >> 16;
        SpvOp op = (SpvOp)(words[i] & 0xffff);
        if (op == SpvOpFunction && wc >= 5 && words[i + 2] == fid)
            fbegin = (uint32_t)(i + wc);
        else if (op == SpvOpFunctionEnd && fbegin && !fend)
            fend = (uint32_t)i;
        i += wc;
    }
    if (!fbegin || !fend) {
        lower_fail(L, ISA_ERR_INVALID, "entry function %%%u has no body", fid);
        goto done;
    }
    /* Function-storage variables of the entry function: per-lane memory */
    for (uint32_t i = fbegin; i < fend;) {
        uint32_t wc = words[i] >> 16;
        SpvOp op = (SpvOp)(words[i] & 0xffff);
        if (op == SpvOpVariable && wc >= 4) {
            uint32_t id = words[i + 2];
            if (id < L->bound) {
                L->ids[id].kind = K_VAR;
                L->ids[id].type = words[i + 1];
                L->ids[id].storage = words[i + 3];
                L->ids[id].word = i;
            }
        }
        i += wc;
    }
    lower_make_variables(L);
    if (L->failed)
        goto done;
    /* initialisers of Function variables are stored at the top of the entry block */
    if (!lower_read_blocks(L, fbegin, fend))
        goto done;
    if (L->nblocks == 0) {
        lower_fail(L, ISA_ERR_INVALID, "entry function has no blocks");
        goto done;
    }
    lower_function(L);
done:
    if (L->ids) {
        for (uint32_t i = 0; i < L->bound; i++) {
            if (L->ids[i].kind == K_TYPE && L->ids[i].t) {
                free(L->ids[i].t->members);
                free(L->ids[i].t->offsets);
                free(L->ids[i].t->mstride);
                free(L->ids[i].t->row_major);
                free(L->ids[i].t);
            }
        }
    }
    for (uint32_t k = 0; k < L->nblocks; k++)
        free(L->blocks[k].succ);
    free(L->blocks);
    free(L->layout);
    free(L->block_of_label);
    free(L->ids);
    if (L->failed) {
        isa_program_destroy(p);
        return L->status;
    }
    /* scalar/vector classes, then physical registers: the executor runs the allocated program */
    isa_status st = isa_analyze_uniformity(p);
    if (st == ISA_OK && allocate)
        st = isa_allocate_registers(p);
    if (st != ISA_OK) {
        if (err && err_size)
            snprintf(err, err_size, "register allocation: %s", isa_status_str(st));
        isa_program_destroy(p);
        return st;
    }
    *out = p;
    return ISA_OK;
}
