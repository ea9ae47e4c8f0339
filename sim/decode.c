/*
 * sim/decode.c — pre-decoded instructions for the executor's hot loop.
 *
 * The hot loop (sim/exec_loop.h) used to work out, for every wave
 * instruction it ran, the same facts about it: its type's width, whether a
 * segment starts there, whether it is scalar ALU, the address of each
 * register operand (register * W), and for float and integer opcodes a
 * switch on the type.  At wave 8 that fixed cost was most of an
 * instruction's time.  sim_decode works them out once per dispatch, after
 * the program was checked, into an array parallel to prog->code that every
 * host thread of the dispatch reads; isa_inst stays what the lowering makes.
 */
#include <stdlib.h>

#include <spirv/unified1/GLSL.std.450.h>

#include "sim/sim_internal.h"

_Static_assert((int)SIM_H_FADD_F32 == (int)ISA_OP_COUNT, "sim_handler lists every opcode first, in ops.def's order");

/* Opcodes with a type-specialised handler: f32 floats (f32 = 1) or 32-bit integers (f32 = 0). */
static const struct {
    isa_op op;
    sim_handler fast;
    int f32;
} typed_handlers[] = {
    {ISA_OP_FADD, SIM_H_FADD_F32, 1}, {ISA_OP_FSUB, SIM_H_FSUB_F32, 1}, {ISA_OP_FMUL, SIM_H_FMUL_F32, 1},
    {ISA_OP_FMA, SIM_H_FMA_F32, 1},   {ISA_OP_FOLT, SIM_H_FOLT_F32, 1}, {ISA_OP_FOLE, SIM_H_FOLE_F32, 1},
    {ISA_OP_FOEQ, SIM_H_FOEQ_F32, 1}, {ISA_OP_IEQ, SIM_H_IEQ_32, 0},    {ISA_OP_INE, SIM_H_INE_32, 0},
    {ISA_OP_ULT, SIM_H_ULT_32, 0},    {ISA_OP_ULE, SIM_H_ULE_32, 0},    {ISA_OP_SLT, SIM_H_SLT_32, 0},
    {ISA_OP_SLE, SIM_H_SLE_32, 0},    {ISA_OP_SHRL, SIM_H_SHRL_32, 0},  {ISA_OP_SHRA, SIM_H_SHRA_32, 0},
};

/* The handler for one instruction: a type-specialised one where the hot loop has it, else the opcode's. */
static sim_handler handler_of(const isa_inst *in, unsigned bits)
{
    const isa_type t = (isa_type)in->type;
    const int f32 = t == ISA_TYPE_F32, int32 = bits == 32 && !isa_type_is_float(t);
    for (size_t k = 0; k < sizeof typed_handlers / sizeof typed_handlers[0]; k++)
        if (typed_handlers[k].op == (isa_op)in->op)
            return (typed_handlers[k].f32 ? f32 : int32) ? typed_handlers[k].fast : (sim_handler)in->op;
    switch ((isa_op)in->op) {
    case ISA_OP_BRANCH_IF:
        if (in->imm2 == 0)
            return SIM_H_BRANCH_IF_B;
        if (int32 && in->imm2 == ISA_OP_ULT)
            return SIM_H_BRANCH_IF_ULT_32;
        if (int32 && in->imm2 == ISA_OP_SLT)
            return SIM_H_BRANCH_IF_SLT_32;
        return SIM_H_BRANCH_IF;
    case ISA_OP_FMATH: /* GLSL.std.450 instructions that are an opcode of the ISA: its handler (the same expression) */
        if (isa_type_is_float(t)) {
            if (in->imm == GLSLstd450Fma)
                return f32 ? SIM_H_FMA_F32 : SIM_H_FMA;
        } else if (t != ISA_TYPE_BOOL && t != ISA_TYPE_NONE) {
            switch (in->imm) {
            case GLSLstd450SAbs: return SIM_H_SABS;
            case GLSLstd450SSign: return SIM_H_SSIGN;
            case GLSLstd450UMin: return SIM_H_UMIN;
            case GLSLstd450SMin: return SIM_H_SMIN;
            case GLSLstd450UMax: return SIM_H_UMAX;
            case GLSLstd450SMax: return SIM_H_SMAX;
            default: break;
            }
        }
        return SIM_H_FMATH;
    default: return (sim_handler)in->op; /* the opcode's own handler: SIM_H_<op> == ISA_OP_<op> */
    }
}

sim_decoded *sim_decode(const isa_program *p, const uint32_t *seg_len, uint32_t W)
{
    const uint32_t n = p->code_count;
    if ((uint64_t)p->reg_count * W > UINT32_MAX)
        return NULL;
    sim_decoded *dec = calloc(n ? n : 1, sizeof *dec);
    if (!dec)
        return NULL;
#define OFFSET(r) ((r) < p->reg_count ? (r) * W : 0u)
    uint32_t seg = 0; /* the segment that holds pc */
    for (uint32_t pc = 0; pc < n; pc++) {
        const isa_inst *in = &p->code[pc];
        sim_decoded *di = &dec[pc];
        const unsigned bits = sim_type_bits((isa_type)in->type);
        if (seg_len[pc])
            seg = pc;
        di->in = in;
        di->d = OFFSET(in->d);
        di->a = OFFSET(in->a);
        di->b = OFFSET(in->b);
        di->c = OFFSET(in->c);
        di->ix = (uint16_t)(handler_of(in, bits) * 2 + (seg_len[pc] != 0));
        di->type = in->type;
        di->bits = (uint8_t)bits;
        di->sh = (uint8_t)(64 - bits);
        if (in->cls == ISA_CLASS_SALU) {
            di->flags |= SIM_DEC_SALU;
            dec[seg].flags |= SIM_DEC_SEG_SALU;
        }
    }
#undef OFFSET
    return dec;
}
