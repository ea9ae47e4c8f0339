/*
 * isa/disasm.c — the program listing: one wave instruction per line, in the
 * spirit of a GPU ISA dump.  Registers print as v<N> (one value per lane),
 * wave masks as m<N>; the trailing comment gives the source line and the
 * SPIR-V word the instruction came from.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "isa/isa.h"

static int reg(char *buf, size_t size, const char *prefix, uint32_t r)
{
    if (r == ISA_NO_REG)
        return snprintf(buf, size, "-");
    return snprintf(buf, size, "%s%u", prefix, r);
}

void isa_inst_format(const isa_program *p, const isa_inst *in, char *buf, size_t size)
{
    char d[16], a[16], b[16], c[16], e[16];
    isa_op op = (isa_op)in->op;
    isa_class cls = (isa_class)in->cls;
    const char *t = isa_type_name((isa_type)in->type);
    char name[48];
    snprintf(name, sizeof name, "%s%s%s", isa_op_name(op), t[0] ? "." : "", t);
    if (op == ISA_OP_CVT)
        snprintf(name, sizeof name, "cvt.%s.%s", t, isa_type_name((isa_type)in->type2));
    reg(d, sizeof d, "v", in->d);
    reg(a, sizeof a, "v", in->a);
    reg(b, sizeof b, "v", in->b);
    reg(c, sizeof c, "v", in->c);
    reg(e, sizeof e, "v", in->e);
    const char *slot = in->slot < p->slot_count ? p->slots[in->slot].name : "?";
    switch (op) {
    case ISA_OP_BLOCK:
        snprintf(buf, size, "%-5s %-14s exec = m%u, m%u = 0, if exec == 0 goto %" PRId64, isa_class_name(cls), name,
                 in->a, in->a, in->imm);
        return;
    case ISA_OP_LOOP:
        snprintf(buf, size, "%-5s %-14s if m%u != 0 goto %" PRId64, isa_class_name(cls), name, in->a, in->imm);
        return;
    case ISA_OP_MASK_COND:
        snprintf(buf, size, "%-5s %-14s m%u = exec & (%s%s)", isa_class_name(cls), name, in->d, in->imm ? "!" : "", a);
        return;
    case ISA_OP_BRANCH:
        snprintf(buf, size, "%-5s %-14s m%u |= exec & %s, m%u |= exec & !%s", isa_class_name(cls), name, in->d, a, in->e, a);
        return;
    case ISA_OP_JOIN:
        snprintf(buf, size, "%-5s %-14s m%u |= exec", isa_class_name(cls), name, in->d);
        return;
    case ISA_OP_MASK_EXEC:
        snprintf(buf, size, "%-5s %-14s m%u = exec", isa_class_name(cls), name, in->d);
        return;
    case ISA_OP_MASK_CASE:
        snprintf(buf, size, "%-5s %-14s m%u = exec & (%s == %" PRId64 ")", isa_class_name(cls), name, in->d, a, in->imm);
        return;
    case ISA_OP_MASK_OR:
        snprintf(buf, size, "%-5s %-14s m%u |= m%u", isa_class_name(cls), name, in->d, in->a);
        return;
    case ISA_OP_MASK_ANDN:
        snprintf(buf, size, "%-5s %-14s m%u &= ~m%u", isa_class_name(cls), name, in->d, in->a);
        return;
    case ISA_OP_MOVM:
        snprintf(buf, size, "%-5s %-14s %s = %s  (lanes of m%u)", isa_class_name(cls), name, d, a, in->b);
        return;
    case ISA_OP_LOAD:
        snprintf(buf, size, "%-5s %-14s %s..+%u = %s[%s + %" PRId64 "]", isa_class_name(cls), name, d, in->count, slot,
                 a, in->imm);
        return;
    case ISA_OP_STORE:
        snprintf(buf, size, "%-5s %-14s %s[%s + %" PRId64 "] = %s..+%u", isa_class_name(cls), name, slot, a, in->imm, b,
                 in->count);
        return;
    case ISA_OP_ATOMIC: {
        static const char *const ops[] = {"add", "mul", "min", "max", "and", "or", "xor", "xchg", "cmpxchg", "load", "store"};
        const char *o = in->imm2 >= 0 && in->imm2 < (int64_t)(sizeof ops / sizeof ops[0]) ? ops[in->imm2] : "?";
        snprintf(buf, size, "%-5s %-14s %s = %s(%s[%s + %" PRId64 "], %s%s%s)", isa_class_name(cls), name, d, o, slot, a,
                 in->imm, b, in->c != ISA_NO_REG ? ", " : "", in->c != ISA_NO_REG ? c : "");
        return;
    }
    case ISA_OP_IMG_READ: case ISA_OP_IMG_WRITE: case ISA_OP_IMG_SIZE: case ISA_OP_ARRAY_LEN:
        snprintf(buf, size, "%-5s %-14s %s, %s, %s  %s %" PRId64 " %" PRId64, isa_class_name(cls), name, d, a, b, slot,
                 in->imm, in->imm2);
        return;
    case ISA_OP_WAVE_OP: {
        static const char *const ops[] = {"add", "mul", "min", "max", "and", "or", "xor"};
        static const char *const gops[] = {"reduce", "inclusive", "exclusive", "clustered"};
        const char *o = in->imm >= 0 && in->imm < 7 ? ops[in->imm] : "?";
        unsigned g = (unsigned)(in->imm2 & 0xff);
        snprintf(buf, size, "%-5s %-14s %s = %s %s(%s)", isa_class_name(cls), name, d, g < 4 ? gops[g] : "?", o, a);
        if (g == ISA_GROUP_CLUSTERED) {
            size_t n = strlen(buf);
            snprintf(buf + n, size - n, " cluster %" PRId64, in->imm2 >> 8);
        }
        return;
    }
    default:
        break;
    }
    int n = snprintf(buf, size, "%-5s %-14s %s", isa_class_name(cls), name, d);
    const char *ops[4] = {a, b, c, e};
    uint32_t regs[4] = {in->a, in->b, in->c, in->e};
    for (int k = 0; k < 4 && n > 0 && (size_t)n < size; k++)
        if (regs[k] != ISA_NO_REG)
            n += snprintf(buf + n, size - (size_t)n, ", %s", ops[k]);
    if ((op == ISA_OP_FMATH || op == ISA_OP_QUAD_SWAP || op == ISA_OP_BALLOT_CNT || op == ISA_OP_VEXTRACT ||
         op == ISA_OP_VINSERT) && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, ", #%" PRId64, in->imm);
}

void isa_program_print(const isa_program *p, FILE *out)
{
    fprintf(out, "; entry %s, workgroup %ux%ux%u, %u instructions, %u registers, %u masks\n", p->entry,
            p->local_size[0], p->local_size[1], p->local_size[2], p->code_count, p->reg_count, p->mask_count);
    fprintf(out, "; shared memory %u bytes per workgroup, private memory %u bytes per lane\n", p->workgroup_bytes,
            p->private_bytes);
    for (uint32_t s = 0; s < p->slot_count; s++) {
        const isa_slot *sl = &p->slots[s];
        fprintf(out, "; slot %u: %-13s %-16s", s, isa_space_name(sl->space), sl->name);
        if (sl->space <= ISA_SPACE_UNIFORM_TEXEL)
            fprintf(out, " set %u binding %u", sl->set, sl->binding);
        if (sl->space == ISA_SPACE_STORAGE_TEXEL || sl->space == ISA_SPACE_UNIFORM_TEXEL)
            fprintf(out, " format %s", isa_format_name(sl->format));
        if (sl->space == ISA_SPACE_WORKGROUP || sl->space == ISA_SPACE_PRIVATE)
            fprintf(out, " bytes %u at %u", sl->static_size, sl->base);
        fprintf(out, "%s%s\n", sl->readonly ? " readonly" : "", sl->written ? " written" : "");
    }
    for (uint32_t i = 0; i < p->builtin_count; i++)
        fprintf(out, "; v%u = %s.%c\n", p->builtins[i].reg, isa_builtin_name((isa_builtin)p->builtins[i].builtin),
                "xyzw"[p->builtins[i].component & 3]);
    for (uint32_t i = 0; i < p->const_count; i++)
        fprintf(out, "; v%u = 0x%" PRIx64 "\n", p->consts[i].reg, p->consts[i].bits);
    char buf[256];
    for (uint32_t i = 0; i < p->code_count; i++) {
        isa_inst_format(p, &p->code[i], buf, sizeof buf);
        if (p->code[i].line)
            fprintf(out, "%5u  %-64s ; line %u\n", i, buf, p->code[i].line);
        else
            fprintf(out, "%5u  %s\n", i, buf);
    }
}
