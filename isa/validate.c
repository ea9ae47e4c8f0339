/*
 * isa/validate.c — the program validator: every register, mask, slot, jump
 * target and immediate an instruction's shape (isa/shapes.def) names is
 * checked against the program once.  The executor runs it before a program
 * runs, so that a lowering bug can never corrupt memory; it reads the same
 * shapes as liveness and the listing, so the three cannot disagree.
 */
#include <stdarg.h>
#include <stdio.h>

#include "isa/isa.h"

static int fail(uint32_t *bad_pc, uint32_t pc, char *err, size_t err_size, const char *fmt, ...)
{
    *bad_pc = pc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return -1;
}

/* The immediates a shape gives a meaning beyond a number. */
static int check_immediates(const isa_program *p, const isa_inst *in, unsigned flags, char *err, size_t err_size)
{
    const char *name = isa_op_name((isa_op)in->op);
    if ((flags & ISA_SHAPE_F_LEN_IMM) && (in->imm < 1 || in->imm > (int64_t)p->reg_count))
        return snprintf(err, err_size, "%s length %lld", name, (long long)in->imm), -1;
    if ((flags & ISA_SHAPE_F_STRIDE_IMM2) && in->imm2 <= 0)
        return snprintf(err, err_size, "%s stride %lld", name, (long long)in->imm2), -1;
    if ((flags & ISA_SHAPE_F_SAMPLER_IMM2) && (in->imm2 < 0 || in->imm2 >= (int64_t)p->slot_count))
        return snprintf(err, err_size, "sampler slot %lld", (long long)in->imm2), -1;
    return 0;
}

static int check_inst(const isa_program *p, const isa_inst *in, char *err, size_t err_size)
{
    isa_op op = (isa_op)in->op;
    const char *name = isa_op_name(op);
    const isa_shape *sh = isa_op_shape(op);
    if (op == ISA_OP_FMATH && !isa_glsl_info(in->imm))
        return 0; /* reported as unsupported when (and if) it runs */
    if (check_immediates(p, in, sh->flags, err, err_size))
        return -1;
    for (unsigned k = 0; k < sh->count; k++) {
        const isa_operand *o = &sh->op[k];
        uint32_t r = isa_inst_field(in, o->field);
        char field = "dabce"[o->field];
        if (o->role == ISA_ROLE_MASK) {
            if (r >= p->mask_count)
                return snprintf(err, err_size, "%s mask %u outside %u masks", name, r, p->mask_count), -1;
            continue;
        }
        if (r == ISA_NO_REG && o->optional)
            continue;
        if (!isa_operand_applies(in, o)) /* an operand whose condition fails may hold anything */
            continue;
        uint64_t span = isa_operand_span(in, o);
        if (r == ISA_NO_REG || (uint64_t)r + span > p->reg_count)
            return snprintf(err, err_size, "%s operand %c = %u (span %llu) outside %u registers", name, field, r,
                            (unsigned long long)span, p->reg_count),
                   -1;
    }
    if ((sh->flags & ISA_SHAPE_F_SLOT) && in->slot >= p->slot_count)
        return snprintf(err, err_size, "%s slot %u outside %u slots", name, in->slot, p->slot_count), -1;
    if (in->desc_index != ISA_DESC_NONE) {
        if (!(sh->flags & ISA_SHAPE_F_SLOT) || in->desc_index > ISA_DESC_NONUNIFORM)
            return snprintf(err, err_size, "%s run-time descriptor index %u", name, in->desc_index), -1;
        const isa_slot *sl = &p->slots[in->slot];
        if (sl->element != 0 || sl->elements < 1 || in->slot + sl->elements > p->slot_count)
            return snprintf(err, err_size, "%s run-time descriptor index %u on slot %u (element %u of %u)", name,
                            in->desc_index, in->slot, sl->element, sl->elements), -1;
    }
    if (in->sampler_index) { /* x's low word picks the sampler from the array whose element 0 is imm2 */
        const isa_slot *sm = in->imm2 >= 0 && in->imm2 < (int64_t)p->slot_count ? &p->slots[in->imm2] : NULL;
        const unsigned bits = ISA_SAMPLER_INDEXED | ISA_SAMPLER_UNIFORM_LO | ISA_SAMPLER_UNIFORM_HI;
        if (!(in->sampler_index & ISA_SAMPLER_INDEXED) || (in->sampler_index & ~bits) ||
            !(sh->flags & ISA_SHAPE_F_SAMPLER_IMM2) || in->desc_index == ISA_DESC_NONE || !sm ||
            sm->space != ISA_SPACE_SAMPLER || sm->element != 0 || in->imm2 + sm->elements > p->slot_count)
            return snprintf(err, err_size, "%s run-time sampler index on slot %lld", name, (long long)in->imm2), -1;
    }
    if ((sh->flags & ISA_SHAPE_F_JUMP) && (in->imm < 0 || in->imm >= (int64_t)p->code_count))
        return snprintf(err, err_size, "%s target %lld outside the code", name, (long long)in->imm), -1;
    if ((sh->flags & ISA_SHAPE_F_CLUSTER) && (in->imm2 & 0xff) == ISA_GROUP_CLUSTERED) {
        int64_t cs = in->imm2 >> 8;
        if (cs < 1 || (cs & (cs - 1)))
            return snprintf(err, err_size, "cluster size %lld is not a power of two", (long long)cs), -1;
    }
    return 0;
}

int isa_program_validate(const isa_program *p, uint32_t *bad_pc, char *err, size_t err_size)
{
    if (p->code_count == 0 || p->code[p->code_count - 1].op != ISA_OP_END)
        return fail(bad_pc, p->code_count ? p->code_count - 1 : 0, err, err_size,
                    "the last instruction is not END");
    if (p->mask_count < 1)
        return fail(bad_pc, 0, err, err_size, "no mask register (mask 0 is the entry mask)");
    for (uint32_t i = 0; i < p->const_count; i++)
        if (p->consts[i].reg >= p->reg_count)
            return fail(bad_pc, 0, err, err_size, "constant register r%u out of range", p->consts[i].reg);
    for (uint32_t i = 0; i < p->builtin_count; i++)
        if (p->builtins[i].reg >= p->reg_count || p->builtins[i].builtin >= ISA_BI_COUNT)
            return fail(bad_pc, 0, err, err_size, "built-in register r%u out of range", p->builtins[i].reg);
    for (uint32_t s = 0; s < p->slot_count; s++) {
        uint32_t a = p->slots[s].alias_of;
        if (a && (a > p->slot_count || p->slots[a - 1].alias_of || p->slots[a - 1].space != p->slots[s].space))
            return fail(bad_pc, 0, err, err_size, "slot %u aliases slot %u, not a variable of its space", s, a - 1);
    }
    for (uint32_t pc = 0; pc < p->code_count; pc++) {
        const isa_inst *in = &p->code[pc];
        if (in->op >= ISA_OP_COUNT)
            return fail(bad_pc, pc, err, err_size, "opcode %u", in->op);
        if (check_inst(p, in, err, err_size)) {
            *bad_pc = pc;
            return -1;
        }
    }
    return 0;
}
