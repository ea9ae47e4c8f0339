/*
 * isa/lower_varptr.c — variable pointers (SPV_KHR_variable_pointers, core in
 * SPIR-V 1.3: the VariablePointersStorageBuffer and VariablePointers
 * capabilities): a pointer that OpSelect or OpPhi makes may point into one of
 * several variables, chosen per lane when the kernel runs, or be null.
 *
 * Before the body is lowered, every pointer id of the entry function gets
 * the set of variables it may point into (its candidates: the variables its
 * access chains, copies, selects and phis start from, to a fixed point, and
 * null for OpConstantNull).  A pointer with one candidate stays what every
 * pointer was (a slot and an offset).  A pointer with several gets a run of
 * slots, one per candidate variable, each a second name for that variable
 * (isa_slot.alias_of); the pointer is then that run indexed per lane, as a
 * NonUniform descriptor array is: its `which` register picks the element,
 * null being the index past the run, and its offset register the byte
 * offset inside the variable.  The executor runs an access once per distinct
 * variable among the active lanes and goes to the variable itself
 * (sim_exec_indexed), so memory, the sanitizer, the memory model and the
 * per-thread write records see the variable, never the alias.
 *
 * Pointers with the same candidates share one run; a pointer is moved into
 * another's run (a select of a static and a variable pointer, a phi) by
 * mapping its `which` through a chain of selects.  OpPtrEqual and
 * OpPtrNotEqual compare the buffer variable (its slot) and the offset, or,
 * in workgroup memory, the address; OpPtrDiff divides the difference by the
 * pointee's stride.
 */
#include "isa/lower_internal.h"

/* The most variables one pointer may point into (more is refused). */
#define VP_MAX 8
#define VP_NULL 0xFFFFu

struct lower_vptr {
    uint16_t cand[VP_MAX]; /* the slots it may point into, ascending, then VP_NULL when it may be null */
    uint8_t n;
    int32_t run;           /* the first slot of its run (-1: one variable, no run) */
    uint8_t run_len;       /* the variables in the run (null is index run_len) */
};

static int is_pointer_type(lower *L, uint32_t tid)
{
    return tid < L->bound && L->ids[tid].kind == K_TYPE && L->ids[tid].t->op == SpvOpTypePointer;
}

/* Adds b's candidates to a's; 1 when a grew, -1 when it would hold more than VP_MAX. */
static int vp_union(lower_vptr *a, const lower_vptr *b)
{
    int grew = 0;
    for (uint8_t i = 0; i < b->n; i++) {
        uint8_t k = 0;
        while (k < a->n && a->cand[k] < b->cand[i])
            k++;
        if (k < a->n && a->cand[k] == b->cand[i])
            continue;
        if (a->n == VP_MAX)
            return -1;
        memmove(&a->cand[k + 1], &a->cand[k], (size_t)(a->n - k) * sizeof *a->cand);
        a->cand[k] = b->cand[i];
        a->n++;
        grew = 1;
    }
    return grew;
}

/* The real variables (not null) among v's candidates. */
static uint8_t vp_real(const lower_vptr *v) { return (uint8_t)(v->n && v->cand[v->n - 1] == VP_NULL ? v->n - 1 : v->n); }

/* The run of aliases for v's variables: one of the runs made so far (runs[0..*nruns)) of the same variables, or
 * a new one, appended there. */
static void vp_make_run(lower *L, lower_vptr *v, lower_vptr *runs, uint32_t *nruns)
{
    uint8_t real = vp_real(v);
    v->run_len = real;
    for (uint32_t k = 0; k < *nruns; k++)
        if (runs[k].run_len == real && !memcmp(runs[k].cand, v->cand, real * sizeof *v->cand)) {
            v->run = runs[k].run;
            return;
        }
    v->run = (int32_t)L->p->slot_count;
    runs[(*nruns)++] = *v;
    for (uint8_t i = 0; i < real && !L->failed; i++) {
        isa_slot s = L->p->slots[v->cand[i]];
        s.alias_of = v->cand[i] + 1u;
        s.element = i;
        s.elements = real;
        lower_add_slot(L, &s);
    }
}

void lower_plan_variable_pointers(lower *L, uint32_t fbegin, uint32_t fend)
{
    /* only a function with a select or phi of pointers has variable pointers */
    spv_iter it;
    spv_inst in;
    bool any = false;
    L->vp_planned = true;
    spv_iter_init(&it, L->w, fend, fbegin);
    while (spv_next(&it, &in) == SPV_STEP_INST && !any)
        any = (in.op == SpvOpSelect || in.op == SpvOpPhi) && in.no >= 2 && is_pointer_type(L, in.o[0]);
    for (uint32_t id = 1; id < L->bound && !any; id++) /* a Function or Private variable holding a pointer */
        any = L->ids[id].kind == K_VAR && is_pointer_type(L, L->ids[id].type) &&
              is_pointer_type(L, L->ids[L->ids[id].type].t->elem);
    if (!any)
        return;
    L->vp = calloc(L->bound, sizeof *L->vp);
    if (!L->vp) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return;
    }
    for (uint32_t id = 1; id < L->bound; id++) {
        lower_vptr *v = &L->vp[id];
        const id_info *d = &L->ids[id];
        v->run = -1;
        if (d->kind == K_PTR && d->slot >= 0 && d->desc.index == ISA_DESC_NONE &&
            (L->p->slots[d->slot].space == ISA_SPACE_STORAGE || L->p->slots[d->slot].space == ISA_SPACE_UNIFORM ||
             L->p->slots[d->slot].space == ISA_SPACE_WORKGROUP))
            v->cand[v->n++] = (uint16_t)d->slot;
        else if (d->kind == K_CONST && is_pointer_type(L, d->type))
            v->cand[v->n++] = VP_NULL; /* OpConstantNull of a pointer type */
    }
    /* to a fixed point: a phi may take a value defined later in the function */
    for (bool changed = true; changed && !L->failed;) {
        changed = false;
        spv_iter_init(&it, L->w, fend, fbegin);
        while (spv_next(&it, &in) == SPV_STEP_INST && !L->failed) {
            if (in.op == SpvOpStore && in.no >= 2 && in.o[0] < L->bound && in.o[1] < L->bound &&
                L->ids[in.o[0]].kind == K_VAR && is_pointer_type(L, L->ids[in.o[0]].type) &&
                is_pointer_type(L, L->ids[L->ids[in.o[0]].type].t->elem)) {
                /* a variable holding a pointer holds what is stored into it */
                int r = vp_union(&L->vp[in.o[0]], &L->vp[in.o[1]]);
                if (r < 0)
                    lower_fail(L, ISA_ERR_UNSUPPORTED, "a variable pointer into more than %d variables", VP_MAX);
                changed |= r > 0;
                continue;
            }
            if (in.no < 3 || !is_pointer_type(L, in.o[0]) || in.o[1] >= L->bound)
                continue;
            /* the operands the result's value comes from: o[first], o[first + step], ... up to o[last] */
            uint32_t first = 0, step = 1, last = 0;
            switch (in.op) {
            case SpvOpAccessChain: case SpvOpInBoundsAccessChain: case SpvOpPtrAccessChain:
            case SpvOpCopyObject: case SpvOpCopyLogical: case SpvOpLoad: /* a load of a pointer: from a variable */
                first = last = 2;
                break;
            case SpvOpSelect:
                first = 3, last = in.no >= 5 ? 4 : 0;
                break;
            case SpvOpPhi:
                first = 2, step = 2, last = in.no - 1;
                break;
            default: break;
            }
            for (uint32_t k = first; first && k <= last && k < in.no; k += step) {
                if (in.o[k] >= L->bound)
                    continue;
                L->cur_word = (uint32_t)in.word;
                int r = vp_union(&L->vp[in.o[1]], &L->vp[in.o[k]]);
                if (r < 0)
                    lower_fail(L, ISA_ERR_UNSUPPORTED, "a variable pointer into more than %d variables", VP_MAX);
                changed |= r > 0;
            }
        }
    }
    lower_vptr *runs = malloc(L->bound * sizeof *runs);
    uint32_t nruns = 0;
    if (!runs)
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
    for (uint32_t id = 1; id < L->bound && !L->failed; id++)
        if (L->vp[id].n >= 2)
            vp_make_run(L, &L->vp[id], runs, &nruns);
    free(runs);
}

uint32_t lower_varptr_regs(lower *L, uint32_t id)
{
    return L->vp && id < L->bound && L->vp[id].run >= 0 ? 2 : 1;
}

uint32_t lower_varptr_first_reg(lower *L, uint32_t id)
{
    return lower_varptr_regs(L, id) == 2 ? L->ids[id].desc.reg : L->ids[id].off_reg;
}

/* A register holding constant v (32 bits). */
static uint32_t konst(lower *L, uint32_t v) { return lower_const_reg(L, v); }

/* p's byte offset in one register. */
static uint32_t offset_reg(lower *L, const id_info *p)
{
    if (p->kind != K_PTR)
        return konst(L, 0); /* null */
    if (p->off_reg == ISA_NO_REG)
        return konst(L, (uint32_t)p->off_const);
    if (p->off_const == 0)
        return p->off_reg;
    uint32_t r = lower_new_regs(L, 1);
    lower_emit_op(L, ISA_OP_IADD, ISA_TYPE_U32, r, p->off_reg, konst(L, (uint32_t)p->off_const));
    return r;
}

/* A per-lane value picked by p's `which` (in p's run of `len`): value[i] for element i, `none` for null. */
static uint32_t by_which(lower *L, const id_info *p, uint32_t len, const uint32_t *value, uint32_t none)
{
    uint32_t r = konst(L, none);
    for (uint32_t i = 0; i < len; i++) {
        uint32_t eq = lower_new_regs(L, 1), next = lower_new_regs(L, 1);
        lower_emit_op(L, ISA_OP_IEQ, ISA_TYPE_U32, eq, p->desc.reg, konst(L, i));
        isa_inst *s = lower_emit(L, ISA_OP_SELECT, ISA_TYPE_U32);
        s->d = next, s->a = eq, s->b = konst(L, value[i]), s->c = r;
        r = next;
    }
    return r;
}

/* Whether id's value is a pointer the planning can follow: a variable pointer, a variable or access chain into
 * one (no descriptor array indexed at run time), or null. */
static bool followable(lower *L, uint32_t id)
{
    const id_info *p = &L->ids[id];
    if (p->kind == K_CONST)
        return true;
    if (p->kind != K_PTR || p->slot < 0) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "variable pointers into %%%u, which is not a buffer or workgroup variable",
                   id);
        return false;
    }
    if (p->desc.index != ISA_DESC_NONE && !L->p->slots[p->slot].alias_of) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "variable pointers into an element of a descriptor array picked at run "
                   "time (%%%u)", id);
        return false;
    }
    return true;
}

/* The variable (slot) of each element of p's run, and their count. */
static uint32_t run_slots(lower *L, const id_info *p, uint32_t *slots)
{
    const isa_slot *first = &L->p->slots[p->slot];
    for (uint32_t i = 0; i < first->elements; i++)
        slots[i] = L->p->slots[p->slot + i].alias_of - 1;
    return first->elements;
}

/* p's `which` in the run of `target` (which must have one): null maps to null. */
static uint32_t which_in(lower *L, uint32_t ptr, uint32_t target)
{
    const lower_vptr *t = &L->vp[target];
    const id_info *p = &L->ids[ptr];
    if (p->kind != K_PTR)
        return konst(L, t->run_len);
    uint32_t pos[VP_MAX];
    for (uint32_t i = 0; i < VP_MAX; i++)
        pos[i] = t->run_len;
    if (p->desc.index == ISA_DESC_NONE) { /* a variable itself */
        for (uint32_t i = 0; i < t->run_len; i++)
            if (t->cand[i] == (uint16_t)p->slot)
                return konst(L, i);
        lower_fail(L, ISA_ERR_INVALID, "pointer %%%u is not among the variables of %%%u", ptr, target);
        return 0;
    }
    if (p->slot == t->run)
        return p->desc.reg;
    uint32_t slots[VP_MAX], n = run_slots(L, p, slots);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < t->run_len; k++)
            if (t->cand[k] == slots[i])
                pos[i] = k;
    return by_which(L, p, n, pos, t->run_len);
}

uint32_t lower_varptr_value(lower *L, uint32_t ptr, uint32_t target)
{
    if (!followable(L, ptr))
        return 0;
    const id_info *p = &L->ids[ptr], *t = &L->ids[target];
    if (p->kind == K_PTR && (p->mstride != t->mstride || p->row_major != t->row_major || p->vstride != t->vstride)) {
        /* how a matrix, or a column of one, lies in the buffer travels with a pointer while it is lowered, not
         * when the kernel runs */
        lower_fail(L, ISA_ERR_UNSUPPORTED, "a variable pointer to matrices (or their columns) laid out in more than "
                   "one way (%%%u)", ptr);
        return 0;
    }
    if (L->vp[target].run < 0) /* one variable: the offset alone */
        return offset_reg(L, p);
    uint32_t w = which_in(L, ptr, target), o = offset_reg(L, p);
    uint32_t pair = lower_new_regs(L, 2);
    lower_emit_op(L, ISA_OP_MOV, ISA_TYPE_U32, pair, w, ISA_NO_REG);
    lower_emit_op(L, ISA_OP_MOV, ISA_TYPE_U32, pair + 1, o, ISA_NO_REG);
    return pair;
}

void lower_varptr_define(lower *L, uint32_t id, uint32_t type, uint32_t reg)
{
    const lower_vptr *v = &L->vp[id];
    id_info *d = &L->ids[id];
    d->kind = K_PTR; /* a phi's or load's matrix layout is none (the ids start zeroed); a select set its own */
    d->type = type;
    d->off_const = 0;
    d->desc = (lower_desc){ISA_DESC_NONE, ISA_NO_REG};
    if (v->run < 0) { /* one variable: reg is the offset */
        d->slot = v->n && v->cand[0] != VP_NULL ? v->cand[0] : -1;
        d->off_reg = reg;
        if (d->slot < 0)
            lower_fail(L, ISA_ERR_UNSUPPORTED, "pointer %%%u is always null", id);
        return;
    }
    d->slot = v->run;
    d->desc = (lower_desc){ISA_DESC_NONUNIFORM, reg};
    d->off_reg = reg + 1;
}

void lower_varptr_select(lower *L, const uint32_t *o)
{
    uint32_t rtype = o[0], rid = o[1], c = o[2], a = o[3], b = o[4];
    CHECK_ID(L, c);
    CHECK_ID(L, a);
    CHECK_ID(L, b);
    if (!L->vp || lower_type(L, L->ids[c].type)->op != SpvOpTypeBool) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "a select of pointers needs a scalar condition");
        return;
    }
    uint32_t n = lower_varptr_regs(L, rid);
    /* a matrix (or a column of one) keeps how it lies in the buffer: both sides must agree (lower_varptr_value) */
    const id_info *from = &L->ids[L->ids[a].kind == K_PTR ? a : b];
    L->ids[rid].mstride = from->mstride;
    L->ids[rid].row_major = from->row_major;
    L->ids[rid].vstride = from->vstride;
    uint32_t va = lower_varptr_value(L, a, rid), vb = lower_varptr_value(L, b, rid);
    if (L->failed)
        return;
    uint32_t d = lower_new_regs(L, n), cr = lower_val(L, c);
    for (uint32_t k = 0; k < n; k++) {
        isa_inst *s = lower_emit(L, ISA_OP_SELECT, ISA_TYPE_U32);
        s->d = d + k, s->a = cr, s->b = va + k, s->c = vb + k;
    }
    lower_varptr_define(L, rid, rtype, d);
}

/* Workgroup memory is one address space: its variables compare by address (VP_SHARED and the variable's base
 * plus the offset), so explicit-layout blocks that share memory (SPV_KHR_workgroup_memory_explicit_layout) are
 * equal where their addresses are.  A buffer variable is its own (its slot). */
#define VP_SHARED 0xFFFEu

static uint32_t slot_key(lower *L, uint32_t slot)
{
    return L->p->slots[slot].space == ISA_SPACE_WORKGROUP ? VP_SHARED : slot;
}

/* Per lane, what p points into (slot_key; VP_NULL for null). */
static uint32_t variable_key(lower *L, uint32_t ptr)
{
    const id_info *p = &L->ids[ptr];
    if (p->kind != K_PTR)
        return konst(L, VP_NULL);
    if (p->desc.index == ISA_DESC_NONE)
        return konst(L, slot_key(L, (uint32_t)p->slot));
    uint32_t slots[VP_MAX], n = run_slots(L, p, slots);
    for (uint32_t i = 0; i < n; i++)
        slots[i] = slot_key(L, slots[i]);
    return by_which(L, p, n, slots, VP_NULL);
}

/* Per lane, p's address in what it points into: its offset, plus the variable's base in workgroup memory. */
static uint32_t address_reg(lower *L, uint32_t ptr)
{
    const id_info *p = &L->ids[ptr];
    uint32_t off = offset_reg(L, p);
    if (p->kind != K_PTR || L->p->slots[p->slot].space != ISA_SPACE_WORKGROUP)
        return off;
    uint32_t base;
    if (p->desc.index == ISA_DESC_NONE) {
        base = konst(L, L->p->slots[p->slot].base);
    } else {
        uint32_t slots[VP_MAX], n = run_slots(L, p, slots);
        for (uint32_t i = 0; i < n; i++)
            slots[i] = L->p->slots[slots[i]].base;
        base = by_which(L, p, n, slots, 0);
    }
    uint32_t r = lower_new_regs(L, 1);
    lower_emit_op(L, ISA_OP_IADD, ISA_TYPE_U32, r, off, base);
    return r;
}

void lower_pointer_compare(lower *L, SpvOp op, const uint32_t *o)
{
    uint32_t rtype = o[0], rid = o[1], a = o[2], b = o[3];
    CHECK_ID(L, a);
    CHECK_ID(L, b);
    if (!followable(L, a) || !followable(L, b))
        return;
    uint32_t oa = address_reg(L, a), ob = address_reg(L, b);
    if (op == SpvOpPtrDiff) {
        /* the difference in elements of the pointee type (both point into one array): lower_pointee_stride */
        isa_type rt = lower_scalar_isa_type(L, rtype);
        if (isa_type_size(rt) != 4) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "OpPtrDiff with a %u-bit result", 8 * isa_type_size(rt));
            return;
        }
        int32_t slot = L->ids[a].kind == K_PTR ? L->ids[a].slot : L->ids[b].slot;
        uint32_t stride = slot >= 0 ? lower_pointee_stride(L, L->ids[a].type, slot) : 0;
        if (!stride) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "OpPtrDiff of pointers to a type without a size");
            return;
        }
        uint32_t diff = lower_new_regs(L, 1), d = lower_def_value(L, rid, rtype, 1);
        lower_emit_op(L, ISA_OP_ISUB, ISA_TYPE_U32, diff, oa, ob);
        lower_emit_op(L, ISA_OP_SDIV, ISA_TYPE_I32, d, diff, konst(L, stride));
        return;
    }
    uint32_t ka = variable_key(L, a), kb = variable_key(L, b);
    uint32_t same_var = lower_new_regs(L, 1), same_off = lower_new_regs(L, 1);
    lower_emit_op(L, ISA_OP_IEQ, ISA_TYPE_U32, same_var, ka, kb);
    lower_emit_op(L, ISA_OP_IEQ, ISA_TYPE_U32, same_off, oa, ob);
    uint32_t d = lower_def_value(L, rid, rtype, 1);
    if (op == SpvOpPtrEqual) {
        lower_emit_op(L, ISA_OP_AND, ISA_TYPE_BOOL, d, same_var, same_off);
        return;
    }
    uint32_t both = lower_new_regs(L, 1);
    lower_emit_op(L, ISA_OP_AND, ISA_TYPE_BOOL, both, same_var, same_off);
    lower_emit_op(L, ISA_OP_XOR, ISA_TYPE_BOOL, d, both, konst(L, 1));
}

void lower_varptr_variable(lower *L, uint32_t id)
{
    id_info *d = &L->ids[id];
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, L->w, L->n, d->word);
    if (spv_next(&it, &in) == SPV_STEP_INST && in.op == SpvOpVariable && in.no > 3) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "a variable holding a pointer with an initializer");
        return;
    }
    if (!L->vp) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "a variable holding a pointer (%%%u)", id);
        return;
    }
    d->kind = K_PTR_VAR;
    d->reg = lower_new_regs(L, lower_varptr_regs(L, id));
}

void lower_varptr_load(lower *L, uint32_t rtype, uint32_t rid, uint32_t var)
{
    uint32_t n = lower_varptr_regs(L, var), r = lower_new_regs(L, n);
    if (L->vp[rid].run != L->vp[var].run) {
        lower_fail(L, ISA_ERR_INVALID, "pointer %%%u loaded from %%%u points elsewhere", rid, var);
        return;
    }
    lower_unary(L, ISA_OP_MOV, ISA_TYPE_U32, r, L->ids[var].reg, n);
    lower_varptr_define(L, rid, rtype, r);
}

void lower_varptr_store(lower *L, uint32_t var, uint32_t value)
{
    uint32_t n = lower_varptr_regs(L, var), v = lower_varptr_value(L, value, var);
    if (!L->failed)
        lower_unary(L, ISA_OP_MOV, ISA_TYPE_U32, L->ids[var].reg, v, n);
}

void lower_finish_variable_pointers(lower *L)
{
    /* a variable written through one of its names is written: the analyses read `written` on either */
    isa_program *p = L->p;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t s = 0; s < p->slot_count; s++) {
            uint32_t a = p->slots[s].alias_of;
            if (!a)
                continue;
            if (pass == 0)
                p->slots[a - 1].written |= p->slots[s].written;
            else
                p->slots[s].written = p->slots[a - 1].written;
        }
}
