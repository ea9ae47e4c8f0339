/*
 * isa/lower_ops.c — instruction selection: lower_inst dispatches each body
 * instruction to its family (memory: lower_mem.c, barriers and subgroup
 * operations: lower_wave.c) and lowers the value-computing families here:
 * composites, conversions and bitcasts, unary and binary arithmetic,
 * comparisons, matrices, carries and bit fields, and GLSL.std.450.
 */
#include "isa/lower_internal.h"

/* ------------------------------------------------------------ helpers for ALU */

void lower_unary(lower *L, isa_op op, isa_type ty, uint32_t d, uint32_t a, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        lower_emit_op(L, op, ty, d + k, a + k, ISA_NO_REG);
    }
}

/* b_scalar: the second operand is one register for every component */
void lower_binary(lower *L, isa_op op, isa_type ty, uint32_t d, uint32_t a, uint32_t b, uint32_t n, bool b_scalar)
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

/* Converts n consecutive registers from a.. of type `from` into d.. of type `to`. */
static void emit_cvt(lower *L, isa_type to, isa_type from, uint32_t d, uint32_t a, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        isa_inst *cv = lower_emit(L, ISA_OP_CVT, to);
        cv->type2 = (uint8_t)from;
        cv->d = d + k;
        cv->a = a + k;
    }
}

/* The determinant of the n x n matrix whose element (row r, column c) is in register m[r * n + c], by Laplace
 * expansion along the first row (GLSL.std.450 leaves the formula to the implementation): one register. */
static uint32_t emit_det(lower *L, isa_type ty, const uint32_t *m, uint32_t n)
{
    if (n == 1)
        return m[0];
    if (n == 2) {
        uint32_t p = lower_new_regs(L, 3);
        lower_emit_op(L, ISA_OP_FMUL, ty, p, m[0], m[3]);
        lower_emit_op(L, ISA_OP_FMUL, ty, p + 1, m[1], m[2]);
        lower_emit_op(L, ISA_OP_FSUB, ty, p + 2, p, p + 1);
        return p + 2;
    }
    uint32_t acc = ISA_NO_REG, minor[9];
    for (uint32_t j = 0; j < n; j++) {
        uint32_t k = 0;
        for (uint32_t r = 1; r < n; r++)
            for (uint32_t c = 0; c < n; c++)
                if (c != j)
                    minor[k++] = m[r * n + c];
        uint32_t term = lower_new_regs(L, 1);
        lower_emit_op(L, ISA_OP_FMUL, ty, term, m[j], emit_det(L, ty, minor, n - 1));
        if (acc == ISA_NO_REG) {
            acc = term;
            continue;
        }
        uint32_t sum = lower_new_regs(L, 1);
        lower_emit_op(L, j & 1 ? ISA_OP_FSUB : ISA_OP_FADD, ty, sum, acc, term);
        acc = sum;
    }
    return acc;
}

/* Determinant and MatrixInverse of a square matrix (columns in consecutive registers, each its rows): the inverse is
 * the adjugate divided by the determinant, element (r, c) = cofactor (c, r) / det. */
static void lower_matrix_fn(lower *L, enum GLSLstd450 f, uint32_t rid, uint32_t rtype, uint32_t arg)
{
    uint32_t at = L->ids[arg].type;
    type_info *mt = lower_type(L, at);
    type_info *col = mt->op == SpvOpTypeMatrix ? lower_type(L, mt->elem) : NULL;
    uint32_t n = mt->count;
    if (!col || col->op != SpvOpTypeVector || col->count != n || n < 2 || n > 4) {
        lower_fail(L, ISA_ERR_INVALID, "GLSL.std.450 %s needs a square matrix of 2 to 4 columns",
                   f == GLSLstd450Determinant ? "Determinant" : "MatrixInverse");
        return;
    }
    const isa_type elem = lower_scalar_isa_type(L, lower_component_type(L, mt->elem));
    /* f16 matrices are computed in f32 and rounded once at the end (the precision Vulkan allows, and what
     * drivers do): rounding every product and sum to f16 loses more than the CTS's tolerances */
    const isa_type ty = elem == ISA_TYPE_F16 ? ISA_TYPE_F32 : elem;
    uint32_t a = lower_val(L, arg), m[16];
    if (ty != elem) {
        uint32_t wide = lower_new_regs(L, n * n);
        emit_cvt(L, ty, elem, wide, a, n * n);
        a = wide;
    }
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t c = 0; c < n; c++)
            m[r * n + c] = a + c * n + r; /* column c holds rows 0..n-1 */
    uint32_t det = emit_det(L, ty, m, n);
    if (f == GLSLstd450Determinant) {
        if (ty != elem) {
            uint32_t narrow = lower_new_regs(L, 1);
            emit_cvt(L, elem, ty, narrow, det, 1);
            det = narrow;
        }
        lower_alias_value(L, rid, rtype, det);
        return;
    }
    uint32_t d = lower_def_value(L, rid, rtype, n * n), minor[9];
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t c = 0; c < n; c++) {
            uint32_t k = 0; /* cofactor (c, r): the matrix without row c and column r */
            for (uint32_t rr = 0; rr < n; rr++)
                for (uint32_t cc = 0; cc < n; cc++)
                    if (rr != c && cc != r)
                        minor[k++] = m[rr * n + cc];
            uint32_t cof = emit_det(L, ty, minor, n - 1);
            if ((r + c) & 1) {
                uint32_t neg = lower_new_regs(L, 1);
                lower_unary(L, ISA_OP_FNEG, ty, neg, cof, 1);
                cof = neg;
            }
            uint32_t out = d + c * n + r, q = ty != elem ? lower_new_regs(L, 1) : out;
            lower_emit_op(L, ISA_OP_FDIV, ty, q, cof, det);
            if (ty != elem) /* the quotient in f32, rounded once to f16 */
                emit_cvt(L, elem, ty, out, q, 1);
        }
}

/* Length, Distance, Normalize, Cross, Reflect and FaceForward: vector functions expanded into arithmetic. */
static void lower_glsl_geometric(lower *L, uint32_t f, uint32_t rid, uint32_t rtype, const uint32_t *args)
{
    uint32_t at = L->ids[args[0]].type;
    type_info *vt = lower_type(L, at);
    uint32_t m = vt->op == SpvOpTypeVector ? vt->count : 1;
    isa_type ety = lower_scalar_isa_type(L, lower_component_type(L, at));
    uint32_t a = lower_val(L, args[0]);
    if (f == GLSLstd450Length || f == GLSLstd450Distance) {
        uint32_t v = a;
        if (f == GLSLstd450Distance) {
            v = lower_new_regs(L, m);
            lower_binary(L, ISA_OP_FSUB, ety, v, a, lower_val(L, args[1]), m, false);
        }
        uint32_t s = dot(L, ety, v, v, m);
        lower_alias_value(L, rid, rtype, fmath1(L, ety, GLSLstd450Sqrt, s));
    } else if (f == GLSLstd450Normalize) {
        uint32_t s = dot(L, ety, a, a, m);
        uint32_t len = fmath1(L, ety, GLSLstd450Sqrt, s);
        uint32_t d = lower_def_value(L, rid, rtype, m);
        lower_binary(L, ISA_OP_FDIV, ety, d, a, len, m, true);
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
        lower_binary(L, ISA_OP_FMUL, ety, scaled, nn, two, m, true);
        uint32_t d = lower_def_value(L, rid, rtype, m);
        lower_binary(L, ISA_OP_FSUB, ety, d, a, scaled, m, false);
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
}

/* The Pack and Unpack functions: one instruction over the consecutive registers of a vector, into nout registers
 * (the packed scalar, or the unpacked vector's components). */
static void lower_glsl_pack(lower *L, uint32_t f, uint32_t rid, uint32_t rtype, uint32_t nout, isa_type ty,
                            uint32_t arg)
{
    uint32_t d = lower_def_value(L, rid, rtype, nout);
    isa_inst *in = lower_emit(L, ISA_OP_FMATH, ty);
    in->type2 = (uint8_t)lower_scalar_isa_type(L, lower_component_type(L, L->ids[arg].type));
    in->d = d;
    in->a = lower_val(L, arg); /* the first component of the vector operand (components consecutive) */
    in->imm = f;
}

/* Frexp, Modf and their Struct forms: the value and the whole part / exponent.  The Struct forms return both as
 * struct {value, second} (registers d..d+m-1 and d+m..d+2m-1); Frexp and Modf return the value and store the second
 * part through their pointer operand. */
static void lower_glsl_two_results(lower *L, uint32_t f, uint32_t rid, uint32_t rtype, const type_info *rt,
                                   const uint32_t *args, uint32_t nargs)
{
    bool is_struct = f == GLSLstd450FrexpStruct || f == GLSLstd450ModfStruct;
    if (!is_struct && nargs < 2) {
        lower_fail(L, ISA_ERR_INVALID, "GLSL.std.450 instruction %u needs a pointer operand", f);
        return;
    }
    uint32_t vt = is_struct ? rt->members[0] : rtype;
    uint32_t second_t = is_struct ? rt->members[1] : lower_type(L, L->ids[args[1]].type)->elem;
    type_info *vti = lower_type(L, vt);
    uint32_t m = vti->op == SpvOpTypeVector ? vti->count : 1;
    isa_type ety = lower_scalar_isa_type(L, lower_component_type(L, vt));
    isa_type sty = lower_scalar_isa_type(L, lower_component_type(L, second_t));
    uint32_t d = lower_def_value(L, rid, rtype, is_struct ? 2 * m : m);
    uint32_t second = is_struct ? d + m : lower_new_regs(L, m);
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
        lower_emit_op(L, ISA_OP_MOV, sty, second + k, pair + 1, ISA_NO_REG);
    }
    if (!is_struct)
        lower_store_through(L, args[1], second_t, second);
}

/* The component-wise functions of isa/glsl450.def: one instruction per component of the n-component result, a
 * scalar operand read by every component; signedness from the function when it fixes it. */
static void lower_glsl_componentwise(lower *L, uint32_t f, uint32_t rid, uint32_t rtype, uint32_t n, isa_type ty,
                                     const uint32_t *args, uint32_t nargs)
{
    const isa_glsl *g = isa_glsl_info(f);
    if (g && g->sign)
        ty = lower_with_sign(ty, g->sign == 's');
    uint32_t d = lower_def_value(L, rid, rtype, n);
    uint32_t ar[3] = {ISA_NO_REG, ISA_NO_REG, ISA_NO_REG};
    bool scalar_arg[3] = {false, false, false};
    for (uint32_t k = 0; k < nargs && k < 3; k++) {
        ar[k] = lower_val(L, args[k]);
        type_info *at = lower_type(L, L->ids[args[k]].type);
        scalar_arg[k] = at->op != SpvOpTypeVector;
    }
    if (f == GLSLstd450Ldexp && nargs >= 2 && ar[1] != ISA_NO_REG) {
        /* the exponent is signed at any width (GLSL.std.450): sign-extend it to 64 bits, which the executor
         * reads (a register keeps a narrow integer's own bits, so an 8-bit -1 would read as 255) */
        uint32_t etid = L->ids[args[1]].type;
        type_info *et = lower_type(L, etid);
        isa_type ety = lower_with_sign(lower_scalar_isa_type(L, et->op == SpvOpTypeVector ? et->elem : etid), true);
        if (ety != ISA_TYPE_I64) {
            uint32_t count = scalar_arg[1] ? 1 : n, wide = lower_new_regs(L, count);
            emit_cvt(L, ISA_TYPE_I64, ety, wide, ar[1], count);
            ar[1] = wide;
        }
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

/* A GLSL.std.450 instruction, by the shape of its operands and results. */
static void lower_ext_glsl(lower *L, const uint32_t *o, uint32_t no)
{
    uint32_t rtype = o[0], rid = o[1], f = o[3];
    uint32_t nargs = no - 4;
    const uint32_t *args = o + 4;
    for (uint32_t k = 0; k < nargs; k++)
        CHECK_ID(L, args[k]);
    if ((f == GLSLstd450Determinant || f == GLSLstd450MatrixInverse) && nargs == 1) {
        lower_matrix_fn(L, (enum GLSLstd450)f, rid, rtype, args[0]);
        return;
    }
    uint32_t ctype = lower_component_type(L, rtype);
    type_info *rt = lower_type(L, rtype);
    uint32_t n = rt->op == SpvOpTypeVector ? rt->count : 1;
    isa_type ty = rt->op == SpvOpTypeStruct ? ISA_TYPE_NONE : lower_scalar_isa_type(L, ctype);
    switch (f) {
    case GLSLstd450Length: case GLSLstd450Distance: case GLSLstd450Normalize: case GLSLstd450Cross:
    case GLSLstd450Reflect: case GLSLstd450FaceForward:
        lower_glsl_geometric(L, f, rid, rtype, args);
        return;
    case GLSLstd450PackHalf2x16: case GLSLstd450PackUnorm2x16: case GLSLstd450PackSnorm2x16:
    case GLSLstd450PackUnorm4x8: case GLSLstd450PackSnorm4x8: case GLSLstd450PackDouble2x32:
        lower_glsl_pack(L, f, rid, rtype, 1, ty, args[0]);
        return;
    case GLSLstd450UnpackHalf2x16: case GLSLstd450UnpackUnorm2x16: case GLSLstd450UnpackSnorm2x16:
    case GLSLstd450UnpackUnorm4x8: case GLSLstd450UnpackSnorm4x8: case GLSLstd450UnpackDouble2x32:
        lower_glsl_pack(L, f, rid, rtype, n, ty, args[0]);
        return;
    case GLSLstd450FrexpStruct: case GLSLstd450ModfStruct: case GLSLstd450Frexp: case GLSLstd450Modf:
        lower_glsl_two_results(L, f, rid, rtype, rt, args, nargs);
        return;
    default: break;
    }
    if (rt->op == SpvOpTypeStruct || f == GLSLstd450Refract || f == GLSLstd450InterpolateAtCentroid) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "GLSL.std.450 instruction %u is not modelled", f);
        return;
    }
    lower_glsl_componentwise(L, f, rid, rtype, n, ty, args, nargs);
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

/* Composites and vectors taken apart, put together, copied and selected. */
static void lower_composite_inst(lower *L, SpvOp op, const uint32_t *o, uint32_t no)
{
    switch (op) {
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
        if (L->ids[o[2]].kind == K_PTR || L->ids[o[2]].kind == K_DESC_ARRAY) {
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
        if (lower_type(L, rtype)->op == SpvOpTypePointer) { /* variable pointers */
            lower_varptr_select(L, o);
            return;
        }
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
    default: break;
    }
    lower_fail(L, ISA_ERR_UNSUPPORTED, "%s is not modelled", lower_op_name(op));
}

/* Dot products, vectors by scalars and matrices, matrix products and transposes. */
static void lower_matrix_inst(lower *L, SpvOp op, const uint32_t *o)
{
    switch (op) {
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
        lower_binary(L, ISA_OP_FMUL, lower_scalar_isa_type(L, lower_component_type(L, rtype)), d, lower_val(L, o[2]), lower_val(L, o[3]), n, true);
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
        lower_binary(L, ISA_OP_FMUL, lower_scalar_isa_type(L, lower_type(L, lower_type(L, rtype)->elem)->elem), d, lower_val(L, o[2]), lower_val(L, o[3]), n,
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
    default: break;
    }
    lower_fail(L, ISA_ERR_UNSUPPORTED, "%s is not modelled", lower_op_name(op));
}

/* OpExtInst: GLSL.std.450 is lowered, NonSemantic.* instructions carry no semantics and are skipped. */
static void lower_ext_inst(lower *L, const uint32_t *o, uint32_t no)
{
    if (no < 4) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "%s is not modelled", lower_op_name(SpvOpExtInst));
        return;
    }
    if (o[2] == L->glsl_ext) {
        lower_ext_glsl(L, o, no);
        return;
    }
    const char *set = o[2] < L->bound ? L->ids[o[2]].name : NULL;
    if (set && strncmp(set, "NonSemantic.", 12) == 0)
        return;
    lower_fail(L, ISA_ERR_UNSUPPORTED, "extended instruction set \"%s\" is not modelled", set ? set : "?");
}

/* OpQuantizeToF16: to f16 and back. */
static void lower_quantize_f16(lower *L, const uint32_t *o)
{
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
}

/* The one-operand instructions that are one wave instruction per component (OpLogicalNot is an XOR with true). */
static isa_op unary_op(SpvOp op)
{
    switch (op) {
    case SpvOpSNegate: return ISA_OP_INEG;
    case SpvOpFNegate: return ISA_OP_FNEG;
    case SpvOpNot: return ISA_OP_NOT;
    case SpvOpBitReverse: return ISA_OP_BITREV;
    case SpvOpBitCount: return ISA_OP_BITCNT;
    case SpvOpIsNan: return ISA_OP_ISNAN;
    case SpvOpIsInf: return ISA_OP_ISINF;
    default: return ISA_OP_COUNT;
    }
}

static void lower_unary_inst(lower *L, SpvOp op, const uint32_t *o)
{
    uint32_t rtype = o[0], rid = o[1];
    CHECK_ID(L, o[2]);
    uint32_t n = lower_reg_count_of(L, rtype);
    uint32_t a = lower_val(L, o[2]);
    isa_type sty = lower_scalar_isa_type(L, lower_component_type(L, L->ids[o[2]].type));
    uint32_t d = lower_def_value(L, rid, rtype, n);
    if (op == SpvOpLogicalNot) {
        lower_binary(L, ISA_OP_XOR, ISA_TYPE_BOOL, d, a, one_reg(L), n, true);
        return;
    }
    lower_unary(L, unary_op(op), sty, d, a, n);
}

/* OpAny and OpAll: the components ORed or ANDed together. */
static void lower_any_all(lower *L, SpvOp op, const uint32_t *o)
{
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
}

/* OpIAddCarry, OpISubBorrow, OpUMulExtended, OpSMulExtended: a struct of the low and the high (carry) halves. */
static void lower_extended_arith(lower *L, SpvOp op, const uint32_t *o)
{
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
    lower_binary(L, lo, ty, d, a, b, n, false);
    lower_binary(L, hi, ty, d + n, a, b, n, false);
}

/* OpBitFieldInsert, OpBitFieldSExtract, OpBitFieldUExtract: offset and count are scalars for every component. */
static void lower_bitfield(lower *L, SpvOp op, const uint32_t *o)
{
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
        return;
    }
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

/* A comparison (int_cmp's wave op, operands swapped for the greater-than forms). */
static void lower_compare(lower *L, isa_op cmp, bool swap, const uint32_t *o)
{
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
    lower_binary(L, cmp, ty, d, swap ? b : a, swap ? a : b, n, false);
}

/* A binary arithmetic, bitwise or shift instruction (arith_op's wave op and sign); a scalar second operand of a
 * vector instruction is read by every component. */
static void lower_arith(lower *L, isa_op ar, int sign, const uint32_t *o)
{
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
    lower_binary(L, ar, ty, d, a, b, n, b_scalar);
}

/* Values computed from values: conversions, unary and binary arithmetic, comparisons,
 * carries, bit fields, GLSL.std.450. */
static void lower_alu_inst(lower *L, SpvOp op, const uint32_t *o, uint32_t no)
{
    switch (op) {
    case SpvOpExtInst:
        lower_ext_inst(L, o, no);
        return;
    case SpvOpConvertFToU: case SpvOpConvertFToS: case SpvOpConvertSToF: case SpvOpConvertUToF:
    case SpvOpUConvert: case SpvOpSConvert: case SpvOpFConvert:
        lower_convert(L, op, o);
        return;
    case SpvOpQuantizeToF16:
        lower_quantize_f16(L, o);
        return;
    case SpvOpBitcast:
        lower_bitcast(L, o);
        return;
    case SpvOpSNegate: case SpvOpFNegate: case SpvOpNot: case SpvOpLogicalNot: case SpvOpBitReverse:
    case SpvOpBitCount: case SpvOpIsNan: case SpvOpIsInf:
        lower_unary_inst(L, op, o);
        return;
    case SpvOpAny: case SpvOpAll:
        lower_any_all(L, op, o);
        return;
    case SpvOpIAddCarry: case SpvOpISubBorrow: case SpvOpUMulExtended: case SpvOpSMulExtended:
        lower_extended_arith(L, op, o);
        return;
    case SpvOpBitFieldInsert: case SpvOpBitFieldSExtract: case SpvOpBitFieldUExtract:
        lower_bitfield(L, op, o);
        return;
    default: break;
    }
    bool swap, is_signed;
    isa_op cmp = int_cmp(op, &swap, &is_signed);
    if (cmp != ISA_OP_COUNT) {
        lower_compare(L, cmp, swap, o);
        return;
    }
    int sign;
    isa_op ar = arith_op(op, &sign);
    if (ar != ISA_OP_COUNT) {
        lower_arith(L, ar, sign, o);
        return;
    }
    lower_fail(L, ISA_ERR_UNSUPPORTED, "%s is not modelled", lower_op_name(op));
}

/*
 * OpDPdx, OpDPdy, OpFwidth and their Fine and Coarse forms (SPV_KHR/NV_compute_shader_derivatives): a difference
 * across the derivative quad per component, DPDX/DPDY (imm 0 fine, 1 coarse).  The plain forms are fine, as
 * wavelab's implicit-LOD sampling is (docs/quirks.md); Fwidth is |dx| + |dy|.  Only with a derivative group
 * execution mode (the simulator places invocations by it), and 32-bit floats only.
 */
static bool derivatives_allowed(lower *L, SpvOp op)
{
    if (L->p->derivative_group != ISA_DERIV_NONE)
        return true;
    lower_fail(L, ISA_ERR_INVALID, "%s in an entry point without a DerivativeGroupQuads or DerivativeGroupLinear "
               "execution mode: a compute kernel has no derivatives without one", lower_op_name(op));
    return false;
}

/* The fine x and y derivatives (what OpDPdx and OpDPdy give) of n f32 registers from a, into n fresh registers
 * each: implicit-LOD sampling's coordinate derivatives (isa/lower_image.c).  False after a failure. */
bool lower_coord_derivatives(lower *L, SpvOp op, uint32_t a, uint32_t n, uint32_t *dx, uint32_t *dy)
{
    if (!derivatives_allowed(L, op))
        return false;
    *dx = lower_new_regs(L, n), *dy = lower_new_regs(L, n);
    for (uint32_t c = 0; c < n; c++) {
        lower_emit_op(L, ISA_OP_DPDX, ISA_TYPE_F32, *dx + c, a + c, ISA_NO_REG);
        lower_emit_op(L, ISA_OP_DPDY, ISA_TYPE_F32, *dy + c, a + c, ISA_NO_REG);
    }
    return !L->failed;
}

static void lower_derivative(lower *L, SpvOp op, const uint32_t *o)
{
    if (!derivatives_allowed(L, op))
        return;
    CHECK_ID(L, o[2]);
    if (lower_scalar_isa_type(L, lower_component_type(L, o[0])) != ISA_TYPE_F32) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "%s of a type other than 32-bit float: not modelled", lower_op_name(op));
        return;
    }
    type_info *t = lower_type(L, o[0]);
    uint32_t n = t->op == SpvOpTypeVector ? t->count : 1;
    const int64_t coarse = op == SpvOpDPdxCoarse || op == SpvOpDPdyCoarse || op == SpvOpFwidthCoarse;
    const bool fwidth = op == SpvOpFwidth || op == SpvOpFwidthFine || op == SpvOpFwidthCoarse;
    const bool y = op == SpvOpDPdy || op == SpvOpDPdyFine || op == SpvOpDPdyCoarse;
    uint32_t a = lower_val(L, o[2]), d = lower_def_value(L, o[1], o[0], n);
    uint32_t dx = fwidth ? lower_new_regs(L, 2 * n) : d, dy = dx + n;
    for (uint32_t c = 0; c < n; c++) {
        if (fwidth || !y)
            lower_emit_op(L, ISA_OP_DPDX, ISA_TYPE_F32, dx + c, a + c, ISA_NO_REG)->imm = coarse;
        if (fwidth || y)
            lower_emit_op(L, ISA_OP_DPDY, ISA_TYPE_F32, fwidth ? dy + c : d + c, a + c, ISA_NO_REG)->imm = coarse;
    }
    if (!fwidth)
        return;
    for (uint32_t c = 0; c < n; c++)
        lower_emit_op(L, ISA_OP_FADD, ISA_TYPE_F32, d + c, fmath1(L, ISA_TYPE_F32, GLSLstd450FAbs, dx + c),
                      fmath1(L, ISA_TYPE_F32, GLSLstd450FAbs, dy + c));
}

/* One SPIR-V instruction of a block body (not a phi, not a terminator), by family. */
void lower_inst(lower *L, SpvOp op, const uint32_t *o, uint32_t no)
{
    switch (op) {
    case SpvOpNop: case SpvOpLine: case SpvOpNoLine: case SpvOpSelectionMerge: case SpvOpLoopMerge:
    case SpvOpMemoryBarrier: case SpvOpModuleProcessed:
        return;
    case SpvOpVariable: case SpvOpLoad: case SpvOpStore: case SpvOpCopyMemory: case SpvOpAccessChain:
    case SpvOpInBoundsAccessChain: case SpvOpPtrAccessChain: case SpvOpArrayLength: case SpvOpAtomicLoad: case SpvOpAtomicStore: case SpvOpAtomicExchange: case SpvOpAtomicCompareExchange:
    case SpvOpAtomicIIncrement: case SpvOpAtomicIDecrement: case SpvOpAtomicIAdd: case SpvOpAtomicISub:
    case SpvOpAtomicSMin: case SpvOpAtomicUMin: case SpvOpAtomicSMax: case SpvOpAtomicUMax: case SpvOpAtomicAnd:
    case SpvOpAtomicOr: case SpvOpAtomicXor: case SpvOpAtomicFAddEXT:
        lower_mem_inst(L, op, o, no);
        return;
    case SpvOpControlBarrier:
        lower_control_barrier(L, o);
        return;
    case SpvOpDPdx: case SpvOpDPdy: case SpvOpFwidth: case SpvOpDPdxFine: case SpvOpDPdyFine: case SpvOpFwidthFine:
    case SpvOpDPdxCoarse: case SpvOpDPdyCoarse: case SpvOpFwidthCoarse:
        lower_derivative(L, op, o);
        return;
    case SpvOpCompositeExtract: case SpvOpCompositeInsert: case SpvOpCompositeConstruct: case SpvOpVectorShuffle:
    case SpvOpCopyObject: case SpvOpCopyLogical: case SpvOpVectorExtractDynamic: case SpvOpVectorInsertDynamic:
    case SpvOpSelect:
        lower_composite_inst(L, op, o, no);
        return;
    case SpvOpDot: case SpvOpVectorTimesScalar: case SpvOpMatrixTimesVector: case SpvOpVectorTimesMatrix:
    case SpvOpMatrixTimesScalar: case SpvOpTranspose: case SpvOpMatrixTimesMatrix:
        lower_matrix_inst(L, op, o);
        return;
    case SpvOpPtrEqual: case SpvOpPtrNotEqual: case SpvOpPtrDiff:
        lower_pointer_compare(L, op, o);
        return;
    case SpvOpAssumeTrueKHR: /* SPV_KHR_expect_assume: hints to the compiler; the kernel runs as if absent (an */
        return;              /* assumption that does not hold is not detected: docs/quirks.md) */
    case SpvOpExpectKHR:
        CHECK_ID(L, o[2]);
        lower_alias_value(L, o[1], o[0], lower_val(L, o[2])); /* the value itself */
        return;
    default: break;
    }
    if ((op >= SpvOpSampledImage && op <= SpvOpImageQuerySamples) || op == SpvOpImageTexelPointer ||
        (op >= SpvOpImageSparseSampleImplicitLod && op <= SpvOpImageSparseRead)) {
        lower_image_inst(L, op, o, no); /* texel buffers go on to lower_mem_inst */
        return;
    }
    if (op >= SpvOpGroupNonUniformElect && op <= SpvOpGroupNonUniformQuadSwap) {
        lower_group(L, op, o, no);
        return;
    }
    lower_alu_inst(L, op, o, no);
}
