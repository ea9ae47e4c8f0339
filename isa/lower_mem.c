/*
 * isa/lower_mem.c — memory access in the lowering: loads and stores through
 * pointers resolved to (slot, offset register, constant offset), split into
 * scalar accesses by the buffer's layout (Offset, ArrayStride, MatrixStride,
 * RowMajor); access chains; texel buffers; atomics; initialisers of
 * Private and Function variables.
 */
#include "isa/lower_internal.h"

/* ------------------------------------------------------------ memory access */

static bool slot_explicit(lower *L, int32_t slot)
{
    isa_space sp = L->p->slots[slot].space;
    return sp == ISA_SPACE_STORAGE || sp == ISA_SPACE_UNIFORM || sp == ISA_SPACE_PUSH ||
           (sp == ISA_SPACE_WORKGROUP && L->workgroup_explicit);
}

uint32_t lower_pointee_stride(lower *L, uint32_t ptr_type, int32_t slot)
{
    const type_info *pt = lower_type(L, ptr_type);
    bool expl = slot_explicit(L, slot);
    if (expl && pt->array_stride)
        return pt->array_stride;
    spv_diag diag = {0};
    uint64_t size = spv_layout_size(&L->mod, pt->elem, expl, &diag);
    return size <= UINT32_MAX ? (uint32_t)size : 0;
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

/* The element of descriptor array `b` that index `idx` picks, into r: a constant index (a
 * specialization constant, or an OpSpecConstantOp of them) picks its slot; a value known only when the kernel runs
 * leaves r->slot at element 0 and names the index register in r->desc, uniform for the wave unless the index
 * or the access chain `rid` is decorated NonUniform (the executor then runs the access once per distinct element
 * among the active lanes).  0 after a failure. */
static bool descriptor_element(lower *L, const id_info *b, uint32_t idx, uint32_t rid, id_info *r)
{
    const char *name = L->p->slots[b->slot].name;
    int len = (int)strcspn(name, "[");
    if (!idx) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "descriptor array '%.*s' is used whole: wavelab models its elements",
                   len, name);
        return false;
    }
    if (idx >= L->bound) {
        lower_fail(L, ISA_ERR_INVALID, "id %%%u out of range (bound %u)", idx, L->bound);
        return false;
    }
    if (!L->ids[idx].cknown && L->ids[idx].kind == K_CONST) { /* an OpSpecConstantOp, evaluated when asked */
        uint64_t v;
        lower_const_bits(L, idx, &v, 1);
        if (L->failed)
            return false;
    }
    r->slot = b->slot;
    if (!L->ids[idx].cknown) {
        r->desc.reg = add_scaled_index(L, ISA_NO_REG, idx, 1);
        r->desc.index = (uint8_t)(L->ids[idx].nonuniform || L->ids[rid].nonuniform ? ISA_DESC_NONUNIFORM
                                                                                     : ISA_DESC_UNIFORM);
        return !L->failed;
    }
    uint64_t e = L->ids[idx].cval;
    const uint32_t elements = L->p->slots[b->slot].elements; /* a runtime array's is the case's */
    if (e >= elements) {
        lower_fail(L, ISA_ERR_INVALID, "descriptor array '%.*s' of %u elements is indexed by the constant %lld", len,
                   name, elements, (long long)(int32_t)e);
        return false;
    }
    r->slot += (int32_t)e;
    return true;
}

/* Gives the instructions lowered since `first` on pointer or image p's slot p's run-time descriptor index, if it
 * has one; a write through it may reach every element. */
void lower_index_slots(lower *L, uint32_t first, const id_info *p)
{
    if (p->desc.index == ISA_DESC_NONE || L->failed)
        return;
    for (uint32_t i = first; i < L->p->code_count; i++) {
        isa_inst *in = &L->p->code[i];
        if (!(isa_op_shape((isa_op)in->op)->flags & ISA_SHAPE_F_SLOT) || in->slot != (uint32_t)p->slot ||
            in->desc_index != ISA_DESC_NONE)
            continue;
        in->desc_index = p->desc.index;
        in->x = p->desc.reg;
        isa_op op = (isa_op)in->op;
        bool writes = op == ISA_OP_STORE || op == ISA_OP_IMG_WRITE || op == ISA_OP_IMG_STORE ||
                      ((op == ISA_OP_ATOMIC || op == ISA_OP_IMG_ATOMIC) && in->imm2 != ISA_RED_LOAD);
        if (!writes)
            continue;
        uint32_t first_slot, count;
        isa_inst_slots(L->p, in, &first_slot, &count);
        for (uint32_t k = 0; k < count; k++)
            L->p->slots[first_slot + k].written = 1;
    }
}

/* OpAccessChain, OpInBoundsAccessChain, and OpPtrAccessChain (ptr_chain: its Element operand o[3] first steps
 * over whole pointees, by the pointer type's ArrayStride where the variable is explicitly laid out, else by the
 * pointee's size as the variable lays it out: Workgroup memory without explicit layout ignores ArrayStride). */
static void lower_access_chain(lower *L, const uint32_t *o, uint32_t no, bool ptr_chain)
{
    uint32_t rtype = o[0], rid = o[1], base = o[2];
    CHECK_ID(L, base);
    CHECK_ID(L, rid);
    id_info *b = &L->ids[base];
    if (b->kind != K_PTR && b->kind != K_DESC_ARRAY) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "access chain base %%%u is not a variable or access chain", base);
        return;
    }
    uint32_t tid = lower_type(L, b->type)->elem;
    id_info r = *b;
    r.name = NULL;
    r.kind = K_PTR;
    r.type = rtype;
    uint32_t first_index = 3;
    if (ptr_chain && (b->kind != K_PTR || b->slot < 0 || no < 4)) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "OpPtrAccessChain on %%%u, which is not a pointer into a buffer or "
                   "workgroup variable", base);
        return;
    }
    if (ptr_chain) {
        uint32_t stride = lower_pointee_stride(L, b->type, b->slot);
        CHECK_ID(L, o[3]);
        if (L->ids[o[3]].cknown)
            r.off_const += (int64_t)(int32_t)L->ids[o[3]].cval * stride;
        else
            r.off_reg = add_scaled_index(L, r.off_reg, o[3], stride);
        first_index = 4;
    }
    if (b->kind == K_DESC_ARRAY) {
        if (!descriptor_element(L, b, no > 3 ? o[3] : 0, rid, &r))
            return;
        tid = lower_type(L, tid)->elem;
        first_index = 4;
    }
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
    bool expl = slot_explicit(L, r.slot);
    mem_layout lay = ptr_layout(b);
    for (uint32_t k = first_index; k < no && !L->failed; k++) {
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
    d->desc = r.desc;
    d->off_reg = r.off_reg;
    d->off_const = r.off_const;
    /* remember how a matrix, or a column of one, lies in the buffer (loads and stores through d use it) */
    d->mstride = lay.mstride;
    d->row_major = lay.row_major;
    d->vstride = lay.vstride;
}

static int32_t image_slot(lower *L, uint32_t id)
{
    if (id == 0 || id >= L->bound || (L->ids[id].kind != K_IMAGE && L->ids[id].kind != K_PTR) || L->ids[id].slot < 0) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "image operand %%%u does not come from a texel buffer variable", id);
        return 0;
    }
    return L->ids[id].slot;
}

/* Stores the value of type tid in registers from reg through pointer ptr (OpStore, and the pointer operands of
 * GLSL.std.450 Frexp and Modf). */
void lower_store_through(lower *L, uint32_t ptr, uint32_t tid, uint32_t reg)
{
    CHECK_ID(L, ptr);
    id_info *p = &L->ids[ptr];
    if (p->kind != K_PTR || p->slot < 0) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "store through %%%u, which is not a writable resolved pointer", ptr);
        return;
    }
    if (L->p->slots[p->slot].readonly) {
        lower_fail(L, ISA_ERR_INVALID, "store to read-only '%s'", L->p->slots[p->slot].name);
        return;
    }
    if (p->fold_rep)
        return; /* the constant table was stored once at the top (lower_constvar.c) */
    uint32_t first = L->p->code_count;
    access(L, true, tid, p->slot, p->off_reg, p->off_const, reg, ptr_layout(p));
    lower_index_slots(L, first, p);
}

/* OpVariable in the entry function: its memory was laid out before; store the initialiser. */
static void lower_function_variable(lower *L, const uint32_t *o, uint32_t no)
{
    if (L->ids[o[1]].fold_rep) {
        /* a constant table: stored once, by its representative (lower_constvar.c) */
        id_info *p = &L->ids[o[1]];
        if (p->fold_rep == o[1])
            access(L, true, L->ids[p->fold_value].type, p->slot, ISA_NO_REG, 0, lower_val(L, p->fold_value),
                   (mem_layout){0, false, 0});
        return;
    }
    if (no >= 4) {
        id_info *p = &L->ids[o[1]];
        CHECK_ID(L, o[3]);
        access(L, true, L->ids[o[3]].type, p->slot, ISA_NO_REG, 0, lower_val(L, o[3]), (mem_layout){0, false, 0});
    }
}

static void lower_load(lower *L, const uint32_t *o)
{
    uint32_t rtype = o[0], rid = o[1], ptr = o[2];
    CHECK_ID(L, ptr);
    id_info *p = &L->ids[ptr];
    if (p->kind == K_PTR_VAR) { /* a variable holding a pointer (variable pointers) */
        lower_varptr_load(L, rtype, rid, ptr);
        return;
    }
    if (p->kind != K_PTR) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "load through %%%u, which is not a resolved pointer", ptr);
        return;
    }
    if (p->slot < 0) { /* built-in input */
        lower_alias_value(L, rid, rtype, (uint32_t)p->off_const);
        return;
    }
    isa_space sp = L->p->slots[p->slot].space;
    if (sp == ISA_SPACE_STORAGE_TEXEL || sp == ISA_SPACE_UNIFORM_TEXEL || sp == ISA_SPACE_STORAGE_IMAGE ||
        sp == ISA_SPACE_SAMPLED_IMAGE || sp == ISA_SPACE_SAMPLER) {
        /* an image or sampler is its slot (isa/lower_image.c); a combined image sampler is its own sampler */
        L->ids[rid].kind = K_IMAGE;
        L->ids[rid].slot = p->slot;
        L->ids[rid].desc = p->desc;
        L->ids[rid].sampler_slot =
            sp == ISA_SPACE_SAMPLER || (sp == ISA_SPACE_SAMPLED_IMAGE && L->p->slots[p->slot].image_combined)
                ? p->slot
                : -1;
        L->ids[rid].type = rtype;
        return;
    }
    uint32_t d = lower_def_value(L, rid, rtype, lower_reg_count_of(L, rtype));
    uint32_t first = L->p->code_count;
    access(L, false, rtype, p->slot, p->off_reg, p->off_const, d, ptr_layout(p));
    lower_index_slots(L, first, p);
}

static void lower_copy_memory(lower *L, const uint32_t *o)
{
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
    uint32_t first = L->p->code_count;
    if (ps->slot < 0)
        lower_unary(L, ISA_OP_MOV, ISA_TYPE_U64, r, (uint32_t)ps->off_const, lower_reg_count_of(L, tid));
    else
        access(L, false, tid, ps->slot, ps->off_reg, ps->off_const, r, ptr_layout(ps));
    lower_index_slots(L, first, ps);
    first = L->p->code_count;
    access(L, true, tid, pd->slot, pd->off_reg, pd->off_const, r, ptr_layout(pd));
    lower_index_slots(L, first, pd);
}

static void lower_array_length(lower *L, const uint32_t *o)
{
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
    uint32_t first = L->p->code_count;
    isa_inst *in = lower_emit(L, ISA_OP_ARRAY_LEN, ISA_TYPE_U32);
    in->slot = (uint16_t)p->slot;
    in->imm = p->off_const + lower_member_offset(L, st, member, true);
    in->imm2 = lower_elem_stride(L, s->members[member], true, 0);
    in->d = lower_def_value(L, rid, rtype, 1);
    lower_index_slots(L, first, p);
}

/* OpImageRead, OpImageFetch, OpImageWrite and OpImageQuerySize on a texel buffer (lower_image.c hands them on). */
static void lower_texel_buffer_inst(lower *L, SpvOp op, const uint32_t *o)
{
    if (op == SpvOpImageWrite) {
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
    int32_t slot = image_slot(L, o[2]);
    if (L->failed)
        return;
    if (op == SpvOpImageQuerySize) {
        isa_inst *in = lower_emit(L, ISA_OP_IMG_SIZE, ISA_TYPE_U32);
        in->slot = (uint16_t)slot;
        in->d = lower_def_value(L, o[1], o[0], 1);
        return;
    }
    /* OpImageRead, OpImageFetch */
    uint32_t rtype = o[0], rid = o[1];
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
}

/* What an atomic does to memory (*red, and *ty's signedness for the min/max forms) and the register of its value
 * operand (*value; *cmp for a compare-exchange). */
static void atomic_operation(lower *L, SpvOp op, const uint32_t *o, isa_type *ty, isa_reduce_op *red, uint32_t *value,
                             uint32_t *cmp)
{
    *red = ISA_RED_ADD;
    *value = *cmp = ISA_NO_REG;
    switch (op) {
    case SpvOpAtomicLoad: *red = ISA_RED_LOAD; break;
    case SpvOpAtomicStore: *red = ISA_RED_STORE; *value = lower_val(L, o[3]); break;
    case SpvOpAtomicExchange: *red = ISA_RED_EXCHANGE; *value = lower_val(L, o[5]); break;
    case SpvOpAtomicCompareExchange:
        *red = ISA_RED_CMPXCHG;
        *value = lower_val(L, o[6]);
        *cmp = lower_val(L, o[7]);
        break;
    case SpvOpAtomicIIncrement: *value = lower_const_reg(L, 1); break;
    case SpvOpAtomicIDecrement: *value = lower_const_reg(L, UINT64_MAX); break;
    case SpvOpAtomicIAdd: case SpvOpAtomicFAddEXT: *value = lower_val(L, o[5]); break;
    case SpvOpAtomicISub:
        *value = lower_new_regs(L, 1);
        lower_emit_op(L, ISA_OP_INEG, *ty, *value, lower_val(L, o[5]), ISA_NO_REG);
        break;
    case SpvOpAtomicSMin: *red = ISA_RED_MIN; *ty = lower_with_sign(*ty, true); *value = lower_val(L, o[5]); break;
    case SpvOpAtomicUMin: *red = ISA_RED_MIN; *ty = lower_with_sign(*ty, false); *value = lower_val(L, o[5]); break;
    case SpvOpAtomicSMax: *red = ISA_RED_MAX; *ty = lower_with_sign(*ty, true); *value = lower_val(L, o[5]); break;
    case SpvOpAtomicUMax: *red = ISA_RED_MAX; *ty = lower_with_sign(*ty, false); *value = lower_val(L, o[5]); break;
    case SpvOpAtomicAnd: *red = ISA_RED_AND; *value = lower_val(L, o[5]); break;
    case SpvOpAtomicOr: *red = ISA_RED_OR; *value = lower_val(L, o[5]); break;
    case SpvOpAtomicXor: *red = ISA_RED_XOR; *value = lower_val(L, o[5]); break;
    default: break; /* lower_mem_inst hands on only the atomics above */
    }
}

static void lower_atomic(lower *L, SpvOp op, const uint32_t *o)
{
    bool is_store = op == SpvOpAtomicStore;
    uint32_t ptr = is_store ? o[0] : o[2];
    CHECK_ID(L, ptr);
    id_info *p = &L->ids[ptr];
    if ((p->kind != K_PTR && p->kind != K_TEXEL_PTR) || p->slot < 0) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "atomic on an unresolved pointer %%%u", ptr);
        return;
    }
    uint32_t vtype = is_store ? L->ids[o[3]].type : o[0];
    isa_type ty = lower_scalar_isa_type(L, vtype);
    isa_reduce_op red;
    uint32_t value, cmp;
    atomic_operation(L, op, o, &ty, &red, &value, &cmp);
    if (p->kind == K_TEXEL_PTR) { /* an image texel (OpImageTexelPointer) */
        lower_image_atomic(L, p, is_store ? 0 : o[0], is_store ? 0 : o[1], ty, red, value, cmp);
        return;
    }
    if (L->p->slots[p->slot].readonly && red != ISA_RED_LOAD) {
        lower_fail(L, ISA_ERR_INVALID, "atomic write to read-only '%s'", L->p->slots[p->slot].name);
        return;
    }
    uint32_t first = L->p->code_count;
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
    lower_index_slots(L, first, p);
}

/* Loads, stores, copies, access chains, texel buffers and atomics, by family. */
void lower_mem_inst(lower *L, SpvOp op, const uint32_t *o, uint32_t no)
{
    switch (op) {
    case SpvOpVariable:
        lower_function_variable(L, o, no);
        return;
    case SpvOpLoad:
        lower_load(L, o);
        return;
    case SpvOpStore: {
        uint32_t ptr = o[0], v = o[1];
        CHECK_ID(L, v);
        CHECK_ID(L, ptr);
        if (L->ids[ptr].kind == K_PTR_VAR) /* a variable holding a pointer (variable pointers) */
            lower_varptr_store(L, ptr, v);
        else
            lower_store_through(L, ptr, L->ids[v].type, lower_val(L, v));
        return;
    }
    case SpvOpCopyMemory:
        lower_copy_memory(L, o);
        return;
    case SpvOpAccessChain: case SpvOpInBoundsAccessChain: case SpvOpPtrAccessChain:
        lower_access_chain(L, o, no, op == SpvOpPtrAccessChain);
        return;
    case SpvOpArrayLength:
        lower_array_length(L, o);
        return;
    case SpvOpImageRead: case SpvOpImageFetch: case SpvOpImageWrite: case SpvOpImageQuerySize:
        lower_texel_buffer_inst(L, op, o);
        return;
    case SpvOpAtomicLoad: case SpvOpAtomicStore: case SpvOpAtomicExchange: case SpvOpAtomicCompareExchange:
    case SpvOpAtomicIIncrement: case SpvOpAtomicIDecrement: case SpvOpAtomicIAdd: case SpvOpAtomicISub:
    case SpvOpAtomicSMin: case SpvOpAtomicUMin: case SpvOpAtomicSMax: case SpvOpAtomicUMax: case SpvOpAtomicAnd:
    case SpvOpAtomicOr: case SpvOpAtomicXor: case SpvOpAtomicFAddEXT:
        lower_atomic(L, op, o);
        return;
    default: break;
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
        /* the declaration: result type, result id, storage class, then the initialiser if any (the reader
         * checked its word count) */
        spv_iter it;
        spv_inst in;
        spv_iter_init(&it, L->w, L->n, d->word);
        if (spv_next(&it, &in) != SPV_STEP_INST || in.no < 4)
            continue;
        uint32_t init = in.o[3];
        L->cur_word = d->word;
        CHECK_ID(L, init);
        access(L, true, L->ids[init].type, d->slot, ISA_NO_REG, 0, lower_val(L, init), (mem_layout){0, false, 0});
    }
}
