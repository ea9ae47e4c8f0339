/*
 * isa/lower_module.c — the module-reading part of the lowering: one pass
 * over the SPIR-V that fills the per-id records (types, constants,
 * decorations, names), the type queries (register counts, scalar types,
 * explicit and natural layouts, strides, sizes), the bits of scalar,
 * composite and spec constants, the registers behind values, and the slots
 * (memory) given to variables.
 */
#include "isa/lower_internal.h"

type_info *lower_type(lower *L, uint32_t id)
{
    if (id == 0 || id >= L->bound || L->ids[id].kind != K_TYPE) {
        lower_fail(L, ISA_ERR_INVALID, "id %%%u is not a type", id);
        static type_info none = {.op = SpvOpTypeVoid};
        return &none;
    }
    return L->ids[id].t;
}

isa_type lower_scalar_isa_type(lower *L, uint32_t tid)
{
    type_info *t = lower_type(L, tid);
    switch (t->op) {
    case SpvOpTypeBool: return ISA_TYPE_BOOL;
    case SpvOpTypeInt:
        switch (t->width) {
        case 8: return t->is_signed ? ISA_TYPE_I8 : ISA_TYPE_U8;
        case 16: return t->is_signed ? ISA_TYPE_I16 : ISA_TYPE_U16;
        case 32: return t->is_signed ? ISA_TYPE_I32 : ISA_TYPE_U32;
        case 64: return t->is_signed ? ISA_TYPE_I64 : ISA_TYPE_U64;
        }
        break;
    case SpvOpTypeFloat:
        switch (t->width) {
        case 16: return ISA_TYPE_F16;
        case 32: return ISA_TYPE_F32;
        case 64: return ISA_TYPE_F64;
        }
        break;
    default: break;
    }
    lower_fail(L, ISA_ERR_UNSUPPORTED, "type %%%u is not a scalar the model knows", tid);
    return ISA_TYPE_U32;
}

/* The scalar type of a scalar or of a vector's components. */
uint32_t lower_component_type(lower *L, uint32_t tid)
{
    type_info *t = lower_type(L, tid);
    return t->op == SpvOpTypeVector ? t->elem : tid;
}

isa_type lower_with_sign(isa_type t, bool is_signed)
{
    switch (t) {
    case ISA_TYPE_U8: case ISA_TYPE_I8: return is_signed ? ISA_TYPE_I8 : ISA_TYPE_U8;
    case ISA_TYPE_U16: case ISA_TYPE_I16: return is_signed ? ISA_TYPE_I16 : ISA_TYPE_U16;
    case ISA_TYPE_U32: case ISA_TYPE_I32: return is_signed ? ISA_TYPE_I32 : ISA_TYPE_U32;
    case ISA_TYPE_U64: case ISA_TYPE_I64: return is_signed ? ISA_TYPE_I64 : ISA_TYPE_U64;
    default: return t;
    }
}

/* Registers a value of this type occupies. */
uint32_t lower_reg_count_of(lower *L, uint32_t tid)
{
    type_info *t = lower_type(L, tid);
    switch (t->op) {
    case SpvOpTypeBool: case SpvOpTypeInt: case SpvOpTypeFloat: return 1;
    case SpvOpTypeVector: return t->count;
    case SpvOpTypeMatrix: case SpvOpTypeArray: return t->count * lower_reg_count_of(L, t->elem);
    case SpvOpTypeStruct: {
        uint32_t n = 0;
        for (uint32_t i = 0; i < t->nmembers; i++)
            n += lower_reg_count_of(L, t->members[i]);
        return n;
    }
    default:
        lower_fail(L, ISA_ERR_UNSUPPORTED, "values of type %%%u (%s) cannot live in registers", tid, lower_op_name(t->op));
        return 1;
    }
}

/* Register offset of member/element `index` inside a composite value of type tid. */
uint32_t lower_reg_offset_of(lower *L, uint32_t tid, uint32_t index, uint32_t *member_type)
{
    type_info *t = lower_type(L, tid);
    if ((t->op == SpvOpTypeVector || t->op == SpvOpTypeMatrix || t->op == SpvOpTypeArray) && index >= t->count) {
        /* the validator lets a constant index past the end of an Input vector through (found by fuzz_spirv) */
        lower_fail(L, ISA_ERR_INVALID, "constant index %u past the end of a%s %s of %u", index,
             t->op == SpvOpTypeArray ? "n" : "",
             t->op == SpvOpTypeVector ? "vector" : t->op == SpvOpTypeMatrix ? "matrix" : "array", t->count);
        *member_type = t->elem;
        return 0;
    }
    switch (t->op) {
    case SpvOpTypeVector:
        *member_type = t->elem;
        return index;
    case SpvOpTypeMatrix: case SpvOpTypeArray:
        *member_type = t->elem;
        return index * lower_reg_count_of(L, t->elem);
    case SpvOpTypeStruct: {
        uint32_t off = 0;
        if (index >= t->nmembers) {
            lower_fail(L, ISA_ERR_INVALID, "member %u of a struct with %u members", index, t->nmembers);
            *member_type = t->members ? t->members[0] : tid;
            return 0;
        }
        for (uint32_t i = 0; i < index; i++)
            off += lower_reg_count_of(L, t->members[i]);
        *member_type = t->members[index];
        return off;
    }
    default:
        lower_fail(L, ISA_ERR_INVALID, "composite index into non-composite type %%%u", tid);
        *member_type = tid;
        return 0;
    }
}

/* ---- memory layout: the module reader's (isa/spirv.h), its first problem failing the lowering ---- */

static void take_diag(lower *L, const spv_diag *d)
{
    if (d->failed)
        lower_fail(L, d->unsupported ? ISA_ERR_UNSUPPORTED : ISA_ERR_INVALID, "%s", d->msg);
}

uint32_t lower_scalar_bytes(lower *L, uint32_t tid)
{
    spv_diag d = {0};
    uint32_t r = spv_scalar_bytes(&L->mod, tid, &d);
    take_diag(L, &d);
    return r;
}

/* A byte count the ISA's 32-bit offsets can hold, or an error naming the type. */
static uint32_t size_u32(lower *L, uint64_t size, uint32_t tid, const char *what)
{
    if (size <= UINT32_MAX)
        return (uint32_t)size;
    lower_fail(L, ISA_ERR_UNSUPPORTED, "the %s of type %%%u is %s%llu bytes; wave-ISA offsets are 32-bit (at most 4294967295)",
               what, tid, size >= SPV_SIZE_MAX ? "at least " : "", (unsigned long long)size);
    return 0;
}

/* Byte stride of the elements of an array/runtime array/matrix type. */
uint32_t lower_elem_stride(lower *L, uint32_t tid, bool expl, uint32_t matrix_stride)
{
    spv_diag d = {0};
    uint64_t r = spv_elem_stride(&L->mod, tid, expl, matrix_stride, &d);
    take_diag(L, &d);
    return size_u32(L, r, tid, lower_type(L, tid)->op == SpvOpTypeMatrix ? "column stride" : "element stride");
}

uint32_t lower_member_offset(lower *L, uint32_t tid, uint32_t index, bool expl)
{
    spv_diag d = {0};
    uint64_t r = spv_member_offset(&L->mod, tid, index, expl, &d);
    take_diag(L, &d);
    return size_u32(L, r, tid, "member offset");
}

/* Bytes of tid's explicit layout up to its last value (spv_layout_extent), saturating at SPV_SIZE_MAX. */
static uint64_t layout_extent(lower *L, uint32_t tid)
{
    spv_diag d = {0};
    uint64_t r = spv_layout_extent(&L->mod, tid, &d);
    take_diag(L, &d);
    return r;
}

/* ------------------------------------------------------------ parse module */

/* The records of one reader node: what it defines, its name and decorations. */
static void take_node(lower *L, const spv_node *n)
{
    id_info *d = &L->ids[n->id];
    d->name = n->name;
    d->builtin = n->builtin;
    d->set = n->set;
    d->binding = n->binding;
    d->nonwritable = n->nonwritable;
    d->nonuniform = n->nonuniform;
    d->spec_id = n->spec_id;
    if (!n->op)
        return;
    d->word = n->word;
    d->type = n->type;
    if (n->t.op) {
        d->kind = K_TYPE;
        d->t = (type_info *)&n->t;
        return;
    }
    switch (n->op) {
    case SpvOpExtInstImport:
        d->kind = K_EXTINST;
        if (strncmp(n->name, "GLSL.std.450", 12) == 0)
            L->glsl_ext = n->id;
        break;
    case SpvOpString: d->kind = K_STRING; break;
    case SpvOpUndef: d->kind = K_UNDEF; break;
    case SpvOpVariable: d->kind = K_VAR; d->storage = n->storage; break;
    default: /* the constants */
        d->kind = K_CONST;
        d->cknown = n->has_value;
        d->cval = n->value;
        /* a 32-bit signed integer's value sign-extended, as the executor's registers hold it */
        const spv_type *t = spv_type_of(&L->mod, n->type);
        if (n->has_value && !n->wide && t && t->op == SpvOpTypeInt && t->is_signed && t->width == 32 &&
            (n->value & 0x80000000u))
            d->cval |= 0xffffffff00000000ull;
        break;
    }
}

/* Array lengths the reader could not read off a plain constant (an OpSpecConstantOp): evaluated now, in the order
 * the module declares its types, as an array type's own length precedes it. */
static bool array_lengths(lower *L)
{
    bool changed = false;
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, L->w, L->mod.functions, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST) {
        if (in.op != SpvOpTypeArray)
            continue;
        L->cur_word = (uint32_t)in.word;
        spv_type *t = &spv_node_of(&L->mod, in.o[0])->t;
        uint32_t len = t->length_id;
        if (t->count_known)
            continue;
        if (len == 0 || len >= L->bound) {
            lower_fail(L, ISA_ERR_INVALID, "id %%%u out of range (bound %u)", len, L->bound);
            return false;
        }
        if (!L->ids[len].cknown && L->ids[len].kind == K_CONST) {
            uint64_t v = 0;
            lower_const_bits(L, len, &v, 1);
            if (L->failed)
                return false;
        }
        if (!L->ids[len].cknown) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "array length %%%u is not a constant the model can evaluate", len);
            return false;
        }
        t->count = (uint32_t)L->ids[len].cval;
        changed = true;
    }
    if (changed) /* an array's size changed: the layouts worked out before it no longer hold */
        spv_layout_forget(&L->mod);
    return true;
}

/* The module's declarations from the reader (isa/spirv.h) into the per-id records. */
bool lower_parse_module(lower *L)
{
    const uint32_t *w = L->w;
    if (spv_header_problem(w, L->n)) {
        lower_fail(L, ISA_ERR_INVALID, "not a SPIR-V module (magic number 0x%08x)", L->n ? w[0] : 0);
        return false;
    }
    L->bound = w[3];
    if (L->bound == 0 || L->bound > (1u << 22)) {
        lower_fail(L, ISA_ERR_INVALID, "word 3: id bound %u out of range", L->bound);
        return false;
    }
    char why[256];
    if (!spv_module_read(&L->mod, w, L->n, why, sizeof why)) {
        const char *what = strstr(why, ": ");
        L->cur_word = L->mod.err_word;
        lower_fail(L, what ? ISA_ERR_INVALID : ISA_ERR_NOMEM, "%s", what ? what + 2 : why);
        return false;
    }
    /* size the id table by the ids the module defines: every id of a valid module is some
     * instruction's result, and a reference past them is reported as out of range */
    uint32_t used = isa_spirv_used_id_bound(w, L->n);
    if (used && used < L->bound)
        L->bound = used;
    L->ids = calloc(L->bound, sizeof *L->ids);
    if (!L->ids) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < L->bound; i++) {
        L->ids[i].builtin = -1;
        L->ids[i].set = -1;
        L->ids[i].binding = -1;
        L->ids[i].slot = -1;
        L->ids[i].off_reg = ISA_NO_REG;
    }
    for (uint32_t k = 0; k < L->mod.node_count; k++) {
        const spv_node *n = &L->mod.nodes[k];
        if (n->id >= L->bound) {
            L->cur_word = n->word;
            lower_fail(L, ISA_ERR_INVALID, "id %%%u out of range (bound %u)", n->id, L->bound);
            return false;
        }
        take_node(L, n);
    }
    return array_lengths(L);
}

/* Values of constants (registers filled at wave start). */

void lower_const_bits(lower *L, uint32_t id, uint64_t *out, uint32_t n)
{
    id_info *d = &L->ids[id];
    if (d->kind == K_UNDEF) {
        memset(out, 0, n * sizeof *out);
        return;
    }
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, L->w, L->n, d->word);
    if (spv_next(&it, &in) != SPV_STEP_INST) { /* the reader read it already: not met */
        lower_fail(L, ISA_ERR_INVALID, "constant %%%u: no instruction at word %u", id, d->word);
        return;
    }
    const uint32_t *o = in.o;
    SpvOp op = in.op;
    uint32_t wc = in.wc;
    if (d->cknown) {
        out[0] = d->cval;
        return;
    }
    if (op == SpvOpConstantNull) {
        memset(out, 0, n * sizeof *out);
        return;
    }
    if (op == SpvOpConstantComposite || op == SpvOpSpecConstantComposite) {
        uint32_t k = 0;
        for (uint32_t c = 2; c < wc - 1 && !L->failed; c++) {
            uint32_t cid = o[c];
            if (cid >= L->bound || (L->ids[cid].kind != K_CONST && L->ids[cid].kind != K_UNDEF)) {
                lower_fail(L, ISA_ERR_INVALID, "constant composite %%%u has a non-constant part", id);
                return;
            }
            uint32_t m = lower_reg_count_of(L, L->ids[cid].type);
            if (k + m > n) {
                lower_fail(L, ISA_ERR_INVALID, "constant composite %%%u has too many parts", id);
                return;
            }
            lower_const_bits(L, cid, out + k, m);
            k += m;
        }
        return;
    }
    if (op == SpvOpSpecConstantOp) {
        /* sizes and bounds derived from specialization constants: evaluated wherever a constant is needed */
        uint32_t opc = o[2];
        if (opc == SpvOpCompositeExtract) {
            uint64_t tmp[64] = {0};
            uint32_t cid = o[3];
            uint32_t m = cid < L->bound ? lower_reg_count_of(L, L->ids[cid].type) : 0;
            if (m == 0 || m > 64 || wc < 6) {
                lower_fail(L, ISA_ERR_UNSUPPORTED, "OpSpecConstantOp CompositeExtract too large");
                return;
            }
            lower_const_bits(L, cid, tmp, m);
            uint32_t member = 0;
            uint32_t at = lower_reg_offset_of(L, L->ids[cid].type, o[4], &member);
            out[0] = d->cval = tmp[at < m ? at : 0];
            d->cknown = !L->failed;
            return;
        }
        /* each operand as its own width's bits read unsigned (u) and signed (sx): the operation decides which (an
         * unsigned operation on a signed-typed operand reads its bits unsigned, UConvert zero-extends, SConvert
         * sign-extends), whatever the type of the stored constant */
        uint64_t x[3] = {0, 0, 0}, u[3] = {0, 0, 0};
        int64_t sx[3] = {0, 0, 0};
        for (uint32_t k = 0; k < 3 && 4 + k < wc; k++) {
            uint32_t arg = o[3 + k];
            if (arg == 0 || arg >= L->bound || L->ids[arg].kind != K_CONST) {
                lower_fail(L, ISA_ERR_INVALID, "OpSpecConstantOp %%%u has a non-constant operand %%%u", id, arg);
                return;
            }
            lower_const_bits(L, arg, &x[k], 1);
            const type_info *at = lower_type(L, L->ids[arg].type);
            const uint32_t w = at && at->op == SpvOpTypeInt && at->width && at->width < 64 ? at->width : 64;
            const uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
            u[k] = x[k] & mask;
            sx[k] = (int64_t)(w < 64 && (u[k] >> (w - 1) & 1) ? u[k] | ~mask : u[k]);
        }
        uint64_t a = u[0], b = u[1];
        int64_t sa = sx[0], sb = sx[1];
        uint64_t r;
        switch (opc) {
        case SpvOpIAdd: r = a + b; break;
        case SpvOpISub: r = a - b; break;
        case SpvOpIMul: r = a * b; break;
        case SpvOpUDiv: r = b ? a / b : 0; break;
        case SpvOpSDiv: r = sb && !(sb == -1 && sa == INT64_MIN) ? (uint64_t)(sa / sb) : 0; break;
        case SpvOpUMod: r = b ? a % b : 0; break;
        case SpvOpSRem: r = sb && sb != -1 ? (uint64_t)(sa % sb) : 0; break;
        case SpvOpSMod: r = sb && sb != -1 ? (uint64_t)(((sa % sb) + sb) % sb) : 0; break;
        case SpvOpSNegate: r = 0 - a; break;
        case SpvOpNot: r = ~a; break;
        case SpvOpShiftLeftLogical: r = b < 64 ? a << b : 0; break;
        case SpvOpShiftRightLogical: r = b < 64 ? a >> b : 0; break;
        case SpvOpShiftRightArithmetic: r = (uint64_t)(sa >> (b < 64 ? b : 63)); break;
        case SpvOpBitwiseAnd: r = a & b; break;
        case SpvOpBitwiseOr: r = a | b; break;
        case SpvOpBitwiseXor: r = a ^ b; break;
        case SpvOpLogicalAnd: r = a && b; break;
        case SpvOpLogicalOr: r = a || b; break;
        case SpvOpLogicalNot: r = !a; break;
        case SpvOpLogicalEqual: case SpvOpIEqual: r = a == b; break;
        case SpvOpLogicalNotEqual: case SpvOpINotEqual: r = a != b; break;
        case SpvOpULessThan: r = a < b; break;
        case SpvOpSLessThan: r = sa < sb; break;
        case SpvOpUGreaterThan: r = a > b; break;
        case SpvOpSGreaterThan: r = sa > sb; break;
        case SpvOpULessThanEqual: r = a <= b; break;
        case SpvOpSLessThanEqual: r = sa <= sb; break;
        case SpvOpUGreaterThanEqual: r = a >= b; break;
        case SpvOpSGreaterThanEqual: r = sa >= sb; break;
        case SpvOpSelect: r = a ? x[1] : x[2]; break;
        case SpvOpUConvert: r = a; break;            /* zero-extended from the operand's width */
        case SpvOpSConvert: r = (uint64_t)sa; break; /* sign-extended from the operand's width */
        default:
            lower_fail(L, ISA_ERR_UNSUPPORTED, "OpSpecConstantOp with operation %u is not modelled", opc);
            return;
        }
        /* the result's width: truncated, and sign-extended for a signed type as OpConstant's are */
        const id_info *rt = &L->ids[d->type];
        if (rt->kind == K_TYPE && rt->t->op == SpvOpTypeInt && rt->t->width < 64) {
            uint32_t bits = rt->t->width;
            r &= (1ull << bits) - 1;
            if (rt->t->is_signed && (r >> (bits - 1)) & 1)
                r |= ~((1ull << bits) - 1);
        }
        out[0] = r;
        d->cval = r;
        d->cknown = true;
        return;
    }
    lower_fail(L, ISA_ERR_INVALID, "id %%%u is not a constant", id);
}

/* Register of a value id (constants get their registers on first use). */
uint32_t lower_val(lower *L, uint32_t id)
{
    if (id == 0 || id >= L->bound) {
        lower_fail(L, ISA_ERR_INVALID, "id %%%u out of range", id);
        return 0;
    }
    id_info *d = &L->ids[id];
    if (d->kind == K_VALUE)
        return d->reg;
    if (d->kind == K_CONST || d->kind == K_UNDEF) {
        if (d->has_reg)
            return d->reg;
        uint32_t n = lower_reg_count_of(L, d->type);
        uint64_t stackbuf[16];
        uint64_t *bits = n <= 16 ? stackbuf : calloc(n, sizeof *bits);
        if (!bits) {
            lower_fail(L, ISA_ERR_NOMEM, "out of memory");
            return 0;
        }
        lower_const_bits(L, id, bits, n);
        /* consecutive registers for composites; scalars share the constant pool */
        uint32_t r;
        if (n == 1) {
            r = lower_const_reg(L, bits[0]);
        } else {
            r = lower_new_regs(L, n);
            isa_program *p = L->p;
            for (uint32_t k = 0; k < n; k++) {
                isa_const_reg *c = lower_grow(p->consts, &L->const_cap, p->const_count + 1, sizeof *c);
                if (!c) {
                    lower_fail(L, ISA_ERR_NOMEM, "out of memory");
                    break;
                }
                p->consts = c;
                c[p->const_count].reg = r + k;
                c[p->const_count].bits = bits[k];
                p->const_count++;
            }
        }
        if (bits != stackbuf)
            free(bits);
        d->reg = r;
        d->has_reg = true;
        return r;
    }
    lower_fail(L, ISA_ERR_INVALID, "id %%%u is used as a value before it is defined (or is not a value)", id);
    return 0;
}

uint32_t lower_const_u32(lower *L, uint32_t id)
{
    if (id == 0 || id >= L->bound || !L->ids[id].cknown) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "id %%%u must be a constant here", id);
        return 0;
    }
    return (uint32_t)L->ids[id].cval;
}

uint32_t lower_def_value(lower *L, uint32_t id, uint32_t type, uint32_t nregs)
{
    if (id == 0 || id >= L->bound) {
        lower_fail(L, ISA_ERR_INVALID, "result id %%%u out of range", id);
        return 0;
    }
    id_info *d = &L->ids[id];
    if (d->kind == K_VALUE)
        return d->reg; /* phis are given registers before their block */
    d->kind = K_VALUE;
    d->type = type;
    d->reg = lower_new_regs(L, nregs);
    return d->reg;
}

void lower_alias_value(lower *L, uint32_t id, uint32_t type, uint32_t reg)
{
    if (id == 0 || id >= L->bound) {
        lower_fail(L, ISA_ERR_INVALID, "result id %%%u out of range", id);
        return;
    }
    id_info *d = &L->ids[id];
    if (d->kind == K_VALUE) {
        /* already has registers (a phi): copy instead */
        uint32_t n = lower_reg_count_of(L, type);
        for (uint32_t k = 0; k < n; k++) {
            lower_emit_op(L, ISA_OP_MOV, ISA_TYPE_U64, d->reg + k, reg + k, ISA_NO_REG);
        }
        return;
    }
    d->kind = K_VALUE;
    d->type = type;
    d->reg = reg;
}

/* ------------------------------------------------------------ slots */

int32_t lower_add_slot(lower *L, const isa_slot *s)
{
    isa_program *p = L->p;
    if (p->slot_count >= UINT16_MAX) { /* isa_inst.slot */
        lower_fail(L, ISA_ERR_UNSUPPORTED, "the module has more than %u variables and descriptors", UINT16_MAX - 1);
        return -1;
    }
    isa_slot *a = lower_grow(p->slots, &L->slot_cap, p->slot_count + 1, sizeof *a);
    if (!a) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return -1;
    }
    p->slots = a;
    a[p->slot_count] = *s;
    return (int32_t)p->slot_count++;
}

static void set_slot_name(lower *L, isa_slot *s, uint32_t var, uint32_t pointee)
{
    const char *nm = L->ids[var].name;
    if (!nm || !*nm)
        nm = L->ids[pointee].name;
    snprintf(s->name, sizeof s->name, "%s", nm && *nm ? nm : "");
    if (!s->name[0])
        snprintf(s->name, sizeof s->name, "%%%u", var);
}

static int builtin_of_spirv(int32_t b)
{
    switch (b) {
    case SpvBuiltInGlobalInvocationId: return ISA_BI_GLOBAL_ID;
    case SpvBuiltInLocalInvocationId: return ISA_BI_LOCAL_ID;
    case SpvBuiltInWorkgroupId: return ISA_BI_WORKGROUP_ID;
    case SpvBuiltInNumWorkgroups: return ISA_BI_NUM_WORKGROUPS;
    case SpvBuiltInLocalInvocationIndex: return ISA_BI_LOCAL_INDEX;
    case SpvBuiltInWorkgroupSize: return ISA_BI_WORKGROUP_SIZE;
    case SpvBuiltInSubgroupSize: return ISA_BI_SUBGROUP_SIZE;
    case SpvBuiltInSubgroupLocalInvocationId: return ISA_BI_SUBGROUP_LOCAL_ID;
    case SpvBuiltInSubgroupId: return ISA_BI_SUBGROUP_ID;
    case SpvBuiltInNumSubgroups: return ISA_BI_NUM_SUBGROUPS;
    case SpvBuiltInSubgroupEqMask: return ISA_BI_EQ_MASK;
    case SpvBuiltInSubgroupGeMask: return ISA_BI_GE_MASK;
    case SpvBuiltInSubgroupGtMask: return ISA_BI_GT_MASK;
    case SpvBuiltInSubgroupLeMask: return ISA_BI_LE_MASK;
    case SpvBuiltInSubgroupLtMask: return ISA_BI_LT_MASK;
    default: return -1;
    }
}

/* The slot of one buffer, texel buffer, image or sampler of variable `var` whose descriptor holds a `pointee`
 * (the variable's own pointee, or the element type of a descriptor array); false after a failure. */
static bool resource_slot(lower *L, uint32_t var, uint32_t pointee, isa_slot *s)
{
    const id_info *d = &L->ids[var];
    type_info *t = lower_type(L, pointee);
    if (d->storage != SpvStorageClassUniformConstant) {
        bool is_storage = d->storage == SpvStorageClassStorageBuffer ||
                          (d->storage == SpvStorageClassUniform && t->buffer_block);
        s->space = d->storage == SpvStorageClassPushConstant ? ISA_SPACE_PUSH
                   : is_storage                              ? ISA_SPACE_STORAGE
                                                             : ISA_SPACE_UNIFORM;
        if (s->space != ISA_SPACE_PUSH && (d->set < 0 || d->binding < 0)) {
            lower_fail(L, ISA_ERR_INVALID, "buffer variable %%%u has no DescriptorSet/Binding", var);
            return false;
        }
        s->set = d->set < 0 ? 0 : (uint32_t)d->set;
        s->binding = d->binding < 0 ? 0 : (uint32_t)d->binding;
        s->static_size = size_u32(L, layout_extent(L, pointee), pointee, "block size");
        s->readonly = s->space != ISA_SPACE_STORAGE || d->nonwritable;
        return !L->failed;
    }
    /* images, samplers (isa/lower_image.c) */
    if (lower_image_slot(L, var, pointee, s))
        return true;
    if (L->failed)
        return false;
    /* texel buffers: OpTypeImage with Dim Buffer */
    if (t->op != SpvOpTypeImage && t->op != SpvOpTypeSampledImage) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "UniformConstant variable %%%u of type %s is not a texel buffer", var,
                   lower_op_name(t->op));
        return false;
    }
    type_info *it = t->op == SpvOpTypeSampledImage ? lower_type(L, t->elem) : t;
    if (it->image_dim != SpvDimBuffer) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "image variable %%%u: only texel buffers (Dim Buffer) are modelled, "
                                           "not textures", var);
        return false;
    }
    s->space = it->image_sampled == 2 ? ISA_SPACE_STORAGE_TEXEL : ISA_SPACE_UNIFORM_TEXEL;
    s->set = d->set < 0 ? 0 : (uint32_t)d->set;
    s->binding = d->binding < 0 ? 0 : (uint32_t)d->binding;
    s->format = isa_format_from_spirv(it->image_format);
    s->texel_type = lower_scalar_isa_type(L, it->elem);
    s->readonly = s->space == ISA_SPACE_UNIFORM_TEXEL || d->nonwritable;
    return true;
}

/* The length the case gives a runtime array of descriptors at the variable's (set, binding), if it gives one. */
static bool runtime_array_length(const lower *L, const id_info *d, uint32_t *count)
{
    for (int k = 0; L->spec && k < L->spec->array_count; k++) {
        const isa_array_length *a = &L->spec->arrays[k];
        if ((int64_t)a->set == d->set && (int64_t)a->binding == d->binding && a->count) {
            *count = a->count;
            return true;
        }
    }
    return false;
}

/* The slots of a buffer, texel buffer, image or sampler variable: one, or for a descriptor array (`buffer_t
 * b[4]`, `image2D mips[12]`) one per element, made in a row, element k named "name[k]"; the variable points at
 * the first, and an access chain's first index picks the element's (isa/lower_mem.c). */
static void make_resource_slots(lower *L, uint32_t var)
{
    id_info *d = &L->ids[var];
    uint32_t pointee = lower_type(L, d->type)->elem;
    type_info *t = lower_type(L, pointee);
    uint32_t count = 1, elem = pointee;
    bool array = d->storage != SpvStorageClassPushConstant &&
                 (t->op == SpvOpTypeArray || t->op == SpvOpTypeRuntimeArray);
    if (array) {
        const char *nm = L->ids[var].name && *L->ids[var].name ? L->ids[var].name : "";
        count = t->count;
        if (t->op == SpvOpTypeRuntimeArray && !runtime_array_length(L, d, &count)) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "descriptor array '%s' (%%%u) at set %d binding %d has no length "
                       "(a runtime array of descriptors): the case binds none of its elements", nm, var, d->set,
                       d->binding);
            return;
        }
        if (t->op != SpvOpTypeRuntimeArray && !t->count_known) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "descriptor array '%s' (%%%u) has no constant length", nm, var);
            return;
        }
        type_info *et = lower_type(L, t->elem);
        if (et->op == SpvOpTypeArray || et->op == SpvOpTypeRuntimeArray) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "descriptor array '%s' (%%%u) is an array of arrays: not modelled",
                       nm, var);
            return;
        }
        if (count > ISA_MAX_DESCRIPTOR_ARRAY) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "descriptor array '%s' (%%%u) has %u elements; wavelab models at "
                       "most %u", nm, var, count, ISA_MAX_DESCRIPTOR_ARRAY);
            return;
        }
        elem = t->elem;
    }
    int32_t first = -1;
    for (uint32_t k = 0; k < count; k++) {
        isa_slot s;
        memset(&s, 0, sizeof s);
        if (!resource_slot(L, var, elem, &s))
            return;
        set_slot_name(L, &s, var, pointee);
        if (array) {
            char base[sizeof s.name];
            memcpy(base, s.name, sizeof base);
            snprintf(s.name, sizeof s.name, "%.30s[%u]", base, k);
        }
        s.element = k;
        s.elements = count;
        int32_t i = lower_add_slot(L, &s);
        if (i < 0)
            return;
        if (first < 0)
            first = i;
    }
    d->kind = array ? K_DESC_ARRAY : K_PTR;
    d->slot = first;
    d->off_const = 0;
}

/* Makes the slots of the module's variables; built-in inputs become registers. */
void lower_make_variables(lower *L)
{
    isa_program *p = L->p;
    for (uint32_t id = 1; id < L->bound && !L->failed; id++) {
        id_info *d = &L->ids[id];
        if (d->kind != K_VAR)
            continue;
        L->cur_word = d->word;
        type_info *pt = lower_type(L, d->type);
        uint32_t pointee = pt->elem;
        type_info *t = lower_type(L, pointee);
        isa_slot s;
        memset(&s, 0, sizeof s);
        switch (d->storage) {
        case SpvStorageClassInput: {
            int bi = builtin_of_spirv(d->builtin);
            if (bi < 0) {
                lower_fail(L, ISA_ERR_UNSUPPORTED, "input variable %%%u is not a compute built-in the model knows (BuiltIn %d)",
                     id, d->builtin);
                return;
            }
            uint32_t n = lower_reg_count_of(L, pointee);
            uint32_t r = lower_new_regs(L, n);
            for (uint32_t k = 0; k < n; k++) {
                isa_builtin_reg *b = lower_grow(p->builtins, &L->bi_cap, p->builtin_count + 1, sizeof *b);
                if (!b) {
                    lower_fail(L, ISA_ERR_NOMEM, "out of memory");
                    return;
                }
                p->builtins = b;
                b[p->builtin_count].reg = r + k;
                b[p->builtin_count].builtin = (uint8_t)bi;
                b[p->builtin_count].component = (uint8_t)k;
                p->builtin_count++;
            }
            d->kind = K_PTR;
            d->slot = -1;
            d->off_const = r;
            d->type = d->type;
            break;
        }
        case SpvStorageClassStorageBuffer: case SpvStorageClassUniform: case SpvStorageClassPushConstant:
        case SpvStorageClassUniformConstant:
            make_resource_slots(L, id);
            break;
        case SpvStorageClassWorkgroup: case SpvStorageClassPrivate: case SpvStorageClassFunction: {
            if (t->op == SpvOpTypePointer && d->storage != SpvStorageClassWorkgroup) {
                /* holds a pointer: registers, not memory, once the pointers are planned (lower_varptr.c) */
                if (L->vp_planned)
                    lower_varptr_variable(L, id);
                continue;
            }
            if (d->fold_rep && d->fold_rep != id) { /* shares its representative's table (lower_constvar.c) */
                d->kind = K_PTR;
                d->slot = L->ids[d->fold_rep].slot;
                d->off_const = 0;
                break;
            }
            bool wg = d->storage == SpvStorageClassWorkgroup;
            /* SPV_KHR_workgroup_memory_explicit_layout: a Workgroup variable of a Block type is laid out by its
             * Offset and ArrayStride decorations, and every such variable starts at offset 0 of the workgroup's
             * memory ("all the Workgroup blocks share the same underlying storage"); a module has all its
             * Workgroup variables in blocks or none (spv_place_variable) */
            bool shared_block = wg && t->block;
            s.space = wg ? ISA_SPACE_WORKGROUP : ISA_SPACE_PRIVATE;
            uint32_t *area = wg ? &p->workgroup_bytes : &p->private_bytes;
            uint64_t base = 0, size = 0;
            spv_diag diag = {0};
            spv_place_variable(&L->mod, pointee, wg, *area, &base, &size, &diag);
            take_diag(L, &diag);
            set_slot_name(L, &s, id, pointee);
            /* the simulator allocates these areas per workgroup and per lane: bound them (docs/quirks.md) */
            uint64_t limit = wg ? ISA_MAX_WORKGROUP_BYTES : ISA_MAX_PRIVATE_BYTES;
            uint64_t end = base + size;
            if (end > limit) {
                char before[64] = "";
                if (end != size)
                    snprintf(before, sizeof before, " (%llu with the variables before it)", (unsigned long long)end);
                lower_fail(L, ISA_ERR_UNSUPPORTED, "%s variable '%s' (%%%u) needs %s%llu bytes%s; wavelab models at most "
                           "%llu bytes of %s", wg ? "workgroup (shared)" : "private", s.name, id,
                           size >= SPV_SIZE_MAX ? "at least " : "", (unsigned long long)size, before,
                           (unsigned long long)limit, wg ? "shared memory per workgroup" : "private memory per invocation");
                return;
            }
            s.static_size = (uint32_t)size;
            s.base = (uint32_t)base;
            if (end > *area)
                *area = (uint32_t)end;
            L->workgroup_explicit |= shared_block;
            d->kind = K_PTR;
            d->slot = lower_add_slot(L, &s);
            d->off_const = 0;
            break;
        }
        default:
            lower_fail(L, ISA_ERR_UNSUPPORTED, "variables in storage class %u are not modelled", d->storage);
            return;
        }
        d->type = d->type;
    }
}
