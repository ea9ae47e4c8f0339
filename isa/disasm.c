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
#include "text/text.h"

/* A register by its file once allocated: v7 (per lane), s3 (per wave, or a
 * per-lane bool as a lane mask), a literal for the constant file; before
 * allocation every register prints as v<N>. */
static int reg(const isa_program *p, char *buf, size_t size, uint32_t r)
{
    if (r == ISA_NO_REG)
        return snprintf(buf, size, "-");
    if (!p->allocated || !p->reg_file || r >= p->reg_count)
        return snprintf(buf, size, "v%u", r);
    switch ((isa_reg_file)p->reg_file[r]) {
    case ISA_FILE_VGPR: return snprintf(buf, size, "v%u", p->reg_number[r]);
    case ISA_FILE_SGPR: return snprintf(buf, size, "s%u", p->reg_number[r]);
    case ISA_FILE_CONST:
        for (uint32_t k = 0; k < p->const_count; k++)
            if (p->consts[k].reg == r) {
                uint64_t b = p->consts[k].bits;
                return b < 65 ? snprintf(buf, size, "%" PRIu64, b) : snprintf(buf, size, "0x%" PRIx64, b);
            }
        return snprintf(buf, size, "k%u", p->reg_number[r]);
    }
    return snprintf(buf, size, "r%u", r);
}

/* An isa_reduce_op's name, "?" outside [0, end). */
static const char *reduce_name(int64_t op, isa_reduce_op end)
{
    static const char *const names[ISA_RED_COUNT] = {
        [ISA_RED_ADD] = "add", [ISA_RED_MUL] = "mul", [ISA_RED_MIN] = "min", [ISA_RED_MAX] = "max",
        [ISA_RED_AND] = "and", [ISA_RED_OR] = "or", [ISA_RED_XOR] = "xor", [ISA_RED_EXCHANGE] = "xchg",
        [ISA_RED_CMPXCHG] = "cmpxchg", [ISA_RED_LOAD] = "load", [ISA_RED_STORE] = "store"};
    return op >= 0 && op < (int64_t)end ? names[op] : "?";
}

/* The slot an instruction names: its name ("src[2]"), or with a run-time index the array and the index register
 * ("src[s0]", "src[nonuniform v3]"). */
static const char *slot_text(const isa_program *p, const isa_inst *in, char *buf, size_t size)
{
    const char *slot = in->slot < p->slot_count ? p->slots[in->slot].name : "?";
    if (in->desc_index == ISA_DESC_NONE || (in->sampler_index && p->slots[in->slot].elements < 2))
        return slot; /* (a single image beside a sampler picked at run time) */
    char x[24];
    reg(p, x, sizeof x, in->x);
    snprintf(buf, size, "%.*s[%s%s%s]", (int)strcspn(slot, "["), slot,
             in->desc_index == ISA_DESC_NONUNIFORM ? "nonuniform " : "", x, in->sampler_index ? ".hi" : "");
    return buf;
}

void isa_inst_format(const isa_program *p, const isa_inst *in, char *buf, size_t size)
{
    char d[24], a[24], b[24], c[24], e[24];
    isa_op op = (isa_op)in->op;
    isa_class cls = (isa_class)in->cls;
    const char *t = isa_type_name((isa_type)in->type);
    /* A u64 copy moves whole 64-bit slots whatever they hold (phi copies span registers of mixed types), so it
     * prints untyped rather than claiming 64-bit values. */
    if ((op == ISA_OP_MOV || op == ISA_OP_MOVM) && in->type == ISA_TYPE_U64)
        t = "";
    char name[48];
    snprintf(name, sizeof name, "%s%s%s", isa_op_name(op), t[0] ? "." : "", t);
    if (op == ISA_OP_CVT)
        snprintf(name, sizeof name, "cvt.%s.%s", t, isa_type_name((isa_type)in->type2));
    reg(p, d, sizeof d, in->d);
    reg(p, a, sizeof a, in->a);
    reg(p, b, sizeof b, in->b);
    reg(p, c, sizeof c, in->c);
    reg(p, e, sizeof e, in->e);
    char slot_buf[96];
    const char *slot = slot_text(p, in, slot_buf, sizeof slot_buf);
    switch (isa_op_print(op)) {
    case ISA_PRINT_BLOCK:
        snprintf(buf, size, "%-5s %-14s exec = m%u, m%u = 0, if exec == 0 goto %" PRId64, isa_class_name(cls), name,
                 in->a, in->a, in->imm);
        return;
    case ISA_PRINT_LOOP:
        snprintf(buf, size, "%-5s %-14s if m%u != 0 goto %" PRId64, isa_class_name(cls), name, in->a, in->imm);
        return;
    case ISA_PRINT_MASK_COND:
        snprintf(buf, size, "%-5s %-14s m%u = exec & (%s%s)", isa_class_name(cls), name, in->d, in->imm ? "!" : "", a);
        return;
    case ISA_PRINT_BRANCH:
        snprintf(buf, size, "%-5s %-14s m%u |= exec & %s, m%u |= exec & !%s", isa_class_name(cls), name, in->d, a, in->e, a);
        return;
    case ISA_PRINT_JOIN:
        snprintf(buf, size, "%-5s %-14s m%u |= exec", isa_class_name(cls), name, in->d);
        return;
    case ISA_PRINT_BRANCH_CMP: {
        isa_op cmp = in->imm2 >= 0 && in->imm2 < ISA_OP_COUNT ? (isa_op)in->imm2 : ISA_OP_COUNT;
        snprintf(buf, size, "%-5s %-14s %s = %s %s %s; m%u |= exec & %s, m%u |= exec & !%s", isa_class_name(cls), name,
                 d, cmp < ISA_OP_COUNT ? isa_op_name(cmp) : "?", a, b, in->c, d, in->e, d);
        return;
    }
    case ISA_PRINT_BRANCH_IF: {
        isa_op cmp = in->imm2 > 0 && in->imm2 < ISA_OP_COUNT ? (isa_op)in->imm2 : ISA_OP_COUNT;
        char cond[96];
        if (in->imm2)
            snprintf(cond, sizeof cond, "%s = %s %s %s; ", d, cmp < ISA_OP_COUNT ? isa_op_name(cmp) : "?", a, b);
        else
            cond[0] = 0;
        snprintf(buf, size, "%-5s %-14s %sm%u |= exec & !%s, exec &= %s, if exec == 0 goto %" PRId64,
                 isa_class_name(cls), name, cond, in->e, in->imm2 ? d : a, in->imm2 ? d : a, in->imm);
        return;
    }
    case ISA_PRINT_JUMP:
        snprintf(buf, size, "%-5s %-14s goto %" PRId64, isa_class_name(cls), name, in->imm);
        return;
    case ISA_PRINT_MASK_EXEC:
        snprintf(buf, size, "%-5s %-14s m%u = exec", isa_class_name(cls), name, in->d);
        return;
    case ISA_PRINT_MASK_CASE:
        snprintf(buf, size, "%-5s %-14s m%u = exec & (%s == %" PRId64 ")", isa_class_name(cls), name, in->d, a, in->imm);
        return;
    case ISA_PRINT_MASK_OR:
        snprintf(buf, size, "%-5s %-14s m%u |= m%u", isa_class_name(cls), name, in->d, in->a);
        return;
    case ISA_PRINT_MASK_ANDN:
        snprintf(buf, size, "%-5s %-14s m%u &= ~m%u", isa_class_name(cls), name, in->d, in->a);
        return;
    case ISA_PRINT_MOVM:
        snprintf(buf, size, "%-5s %-14s %s = %s  (lanes of m%u)", isa_class_name(cls), name, d, a, in->b);
        return;
    case ISA_PRINT_LOAD:
        snprintf(buf, size, "%-5s %-14s %s..+%u = %s[%s + %" PRId64 "]", isa_class_name(cls), name, d, in->count, slot,
                 a, in->imm);
        return;
    case ISA_PRINT_STORE:
        snprintf(buf, size, "%-5s %-14s %s[%s + %" PRId64 "] = %s..+%u", isa_class_name(cls), name, slot, a, in->imm, b,
                 in->count);
        return;
    case ISA_PRINT_ATOMIC: {
        const char *o = reduce_name(in->imm2, ISA_RED_COUNT);
        snprintf(buf, size, "%-5s %-14s %s = %s(%s[%s + %" PRId64 "], %s%s%s)", isa_class_name(cls), name, d, o, slot, a,
                 in->imm, b, in->c != ISA_NO_REG ? ", " : "", in->c != ISA_NO_REG ? c : "");
        return;
    }
    case ISA_PRINT_SLOT_IMM:
        snprintf(buf, size, "%-5s %-14s %s, %s, %s  %s %" PRId64 " %" PRId64, isa_class_name(cls), name, d, a, b, slot,
                 in->imm, in->imm2);
        return;
    case ISA_PRINT_IMG_LOAD:
        snprintf(buf, size, "%-5s %-14s %s..+4 = %s[%s..+%u]%s%s%s", isa_class_name(cls), name, d, slot, a, in->count,
                 in->b != ISA_NO_REG ? " lod " : "", in->b != ISA_NO_REG ? b : "", in->imm ? " (fetch)" : "");
        return;
    case ISA_PRINT_IMG_STORE:
        snprintf(buf, size, "%-5s %-14s %s[%s..+%u] = %s..+4", isa_class_name(cls), name, slot, a, in->count, b);
        return;
    case ISA_PRINT_IMG_SAMPLE: {
        const char *smp = in->imm2 >= 0 && in->imm2 < (int64_t)p->slot_count ? p->slots[in->imm2].name : "?";
        char smp_text[96];
        if (in->sampler_index) { /* a sampler picked at run time: the low word of x */
            char x[24];
            reg(p, x, sizeof x, in->x);
            snprintf(smp_text, sizeof smp_text, "%.*s[%s%s.lo]", (int)strcspn(smp, "["), smp,
                     in->desc_index == ISA_DESC_NONUNIFORM ? "nonuniform " : "", x);
            smp = smp_text;
        } else if (in->desc_index != ISA_DESC_NONE && in->imm2 == in->slot) {
            smp = slot; /* a combined image sampler: the same element's sampler */
        }
        char lod[96], ref[48] = "", offset[48] = "";
        if (op == ISA_OP_IMG_GATHER)
            snprintf(lod, sizeof lod, ", component %" PRId64, in->imm);
        else if (in->c != ISA_NO_REG)
            snprintf(lod, sizeof lod, ", grad %s..+%" PRId64 " %s..+%" PRId64, c, in->imm, e, in->imm);
        else
            snprintf(lod, sizeof lod, ", lod %s", in->b != ISA_NO_REG ? b : "0");
        if (in->img_dref) { /* the reference is the last coordinate register */
            char r[32];
            reg(p, r, sizeof r, in->a + in->count - 1u);
            snprintf(ref, sizeof ref, ", dref %s", r);
        }
        const int8_t *o = in->texel_offset;
        if (o[0] || o[1] || o[2])
            snprintf(offset, sizeof offset, ", offset (%d, %d, %d)", o[0], o[1], o[2]);
        snprintf(buf, size, "%-5s %-14s %s..+4 = %s(%s, %s, %s..+%u%s%s%s)", isa_class_name(cls), name, d,
                 op == ISA_OP_IMG_GATHER ? "gather" : op == ISA_OP_IMG_QUERY_LOD ? "query_lod" : "sample", slot, smp, a,
                 in->count, lod, ref, offset);
        return;
    }
    case ISA_PRINT_IMG_ATOMIC: {
        const char *o = reduce_name(in->imm2, ISA_RED_COUNT);
        snprintf(buf, size, "%-5s %-14s %s = %s(%s[%s..+%u], %s%s%s)", isa_class_name(cls), name, d, o, slot, a,
                 in->count, b, in->c != ISA_NO_REG ? ", " : "", in->c != ISA_NO_REG ? c : "");
        return;
    }
    case ISA_PRINT_IMG_QUERY:
        snprintf(buf, size, "%-5s %-14s %s..+%u = %s(%s%s%s)", isa_class_name(cls), name, d, in->count,
                 in->imm ? "levels" : "size", slot, in->b != ISA_NO_REG ? ", lod " : "", in->b != ISA_NO_REG ? b : "");
        return;
    case ISA_PRINT_WAVE_OP: {
        static const char *const gops[] = {"reduce", "inclusive", "exclusive", "clustered"};
        const char *o = reduce_name(in->imm, ISA_RED_EXCHANGE); /* the wave operators end before exchange */
        unsigned g = (unsigned)(in->imm2 & 0xff);
        snprintf(buf, size, "%-5s %-14s %s = %s %s(%s)", isa_class_name(cls), name, d, g < 4 ? gops[g] : "?", o, a);
        if (g == ISA_GROUP_CLUSTERED) {
            size_t n = strlen(buf);
            snprintf(buf + n, size - n, " cluster %" PRId64, in->imm2 >> 8);
        }
        return;
    }
    case ISA_PRINT_ALU: case ISA_PRINT_ALU_IMM:
        break;
    }
    int n = snprintf(buf, size, "%-5s %-14s %s", isa_class_name(cls), name, d);
    const char *ops[4] = {a, b, c, e};
    uint32_t regs[4] = {in->a, in->b, in->c, in->e};
    for (int k = 0; k < 4 && n > 0 && (size_t)n < size; k++)
        if (regs[k] != ISA_NO_REG)
            n += snprintf(buf + n, size - (size_t)n, ", %s", ops[k]);
    if (isa_op_print(op) == ISA_PRINT_ALU_IMM && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, ", #%" PRId64, in->imm);
}

/* "v0..v6" for the registers of one file the listing names, "no v" when none */
static const char *slot_range(char file, uint32_t slots, char *buf, size_t size)
{
    if (!slots)
        snprintf(buf, size, "no %c", file);
    else if (slots == 1)
        snprintf(buf, size, "%c0", file);
    else
        snprintf(buf, size, "%c0..%c%u", file, file, slots - 1);
    return buf;
}

void isa_program_print(const isa_program *p, FILE *out)
{
    char r1[32], r2[32];
    fprintf(out, "; entry %s, workgroup %ux%ux%u, %u instructions, %u wave masks\n", p->entry, p->local_size[0],
            p->local_size[1], p->local_size[2], p->code_count, p->mask_count);
    fprintf(out, "; shared memory %u bytes per workgroup, private memory %u bytes per lane\n", p->workgroup_bytes,
            p->private_bytes);
    if (p->allocated)
        /* Two different counts (docs/registers.md, "Counts"): the peak demand in 32-bit registers, which
         * occupancy uses, and the slots the listing names, each holding one value of up to 64 bits. */
        fprintf(out, "; registers: peak %u VGPRs (%u with 16-bit values unpacked), %u SGPRs, counted in 32-bit "
                     "registers live at once; LDS %u bytes; %u of %u values uniform; the listing names %s, %s "
                     "(each holds one value of up to 64 bits)\n",
                p->res.vgprs, p->res.vgprs_unpacked, p->res.sgprs, p->res.lds_bytes, p->res.uniform_regs,
                p->res.virtual_regs, slot_range('v', p->res.vgpr_slots, r1, sizeof r1),
                slot_range('s', p->res.sgpr_slots, r2, sizeof r2));
    for (uint32_t s = 0; s < p->slot_count; s++) {
        const isa_slot *sl = &p->slots[s];
        fprintf(out, "; slot %u: %-13s %-16s", s, isa_space_name(sl->space), sl->name);
        if (sl->space <= ISA_SPACE_UNIFORM_TEXEL || sl->space >= ISA_SPACE_STORAGE_IMAGE)
            fprintf(out, " set %u binding %u", sl->set, sl->binding);
        if (sl->space == ISA_SPACE_STORAGE_IMAGE || sl->space == ISA_SPACE_SAMPLED_IMAGE) {
            static const char *const dims[] = {"1d", "2d", "3d", "cube"};
            fprintf(out, " %s%s%s%s %s spirv-format %u", dims[sl->image_dim & 3], sl->image_ms ? " ms" : "",
                    sl->image_arrayed ? " array" : "",
                    sl->image_combined ? " combined" : "", isa_type_name((isa_type)sl->texel_type), sl->image_format);
        }
        if (sl->space == ISA_SPACE_STORAGE_TEXEL || sl->space == ISA_SPACE_UNIFORM_TEXEL)
            fprintf(out, " format %s", isa_format_name(sl->format));
        if (sl->space == ISA_SPACE_WORKGROUP || sl->space == ISA_SPACE_PRIVATE)
            fprintf(out, " bytes %u at %u", sl->static_size, sl->base);
        if (sl->alias_of) /* a variable pointer's run (isa/lower_varptr.c) */
            fprintf(out, " = slot %u as element %u of %u", sl->alias_of - 1, sl->element, sl->elements);
        fprintf(out, "%s%s\n", sl->readonly ? " readonly" : "", sl->written ? " written" : "");
    }
    char buf[256], r[24];
    for (uint32_t i = 0; i < p->builtin_count; i++) {
        reg(p, r, sizeof r, p->builtins[i].reg);
        fprintf(out, "; %s = %s.%c\n", r, isa_builtin_name((isa_builtin)p->builtins[i].builtin),
                "xyzw"[p->builtins[i].component & 3]);
    }
    if (!p->allocated)
        for (uint32_t i = 0; i < p->const_count; i++)
            fprintf(out, "; v%u = 0x%" PRIx64 "\n", p->consts[i].reg, p->consts[i].bits);
    if (p->allocated && p->live_vgprs)
        fprintf(out, ";  pc  live v  s  class instruction%52s source\n", "");
    for (uint32_t i = 0; i < p->code_count; i++) {
        const isa_inst *in = &p->code[i];
        isa_inst_format(p, in, buf, sizeof buf);
        char live[32] = "";
        if (p->allocated && p->live_vgprs)
            snprintf(live, sizeof live, "%4u %3u  ", p->live_vgprs[i], p->live_sgprs[i]);
        const char *note = in->flags & ISA_INST_UNIFORM_ADDR && (in->cls == ISA_CLASS_VMEM || in->cls == ISA_CLASS_LDS)
                               ? ", one address across the wave"
                               : "";
        if (in->line)
            fprintf(out, "%5u  %s%-64s ; line %u%s\n", i, live, buf, in->line, note);
        else if (note[0])
            fprintf(out, "%5u  %s%-64s ;%s\n", i, live, buf, note + 1);
        else
            fprintf(out, "%5u  %s%s\n", i, live, buf);
    }
}

void isa_program_svg(const isa_program *p, FILE *out, const char *title)
{
    /* live VGPRs (and SGPRs) against instruction index, like RGA's live-register plot */
    const int W = 900, H = 420, left = 60, right = 20, top = 40, bottom = 50;
    uint32_t n = p->code_count ? p->code_count : 1, peak = 1;
    for (uint32_t i = 0; p->live_vgprs && i < p->code_count; i++) {
        if (p->live_vgprs[i] > peak) peak = p->live_vgprs[i];
        if (p->live_sgprs[i] > peak) peak = p->live_sgprs[i];
    }
    uint32_t step = peak <= 10 ? 1 : peak <= 20 ? 2 : peak <= 50 ? 5 : peak <= 100 ? 10 : peak <= 200 ? 20 : 50;
    uint32_t ymax = (peak + step - 1) / step * step;
    double pw = W - left - right, ph = H - top - bottom;
    const char *name = title ? title : p->entry;
    char counts[64];
    snprintf(counts, sizeof counts, ": %u VGPRs, %u SGPRs", p->res.vgprs, p->res.sgprs);
    /* a long title widens the picture instead of being cut; the viewBox lets a page scale it to its width */
    int width = left + (int)(text_monospace_width(name, 15) + text_monospace_width(counts, 15)) + 8;
    width = width > W ? width : W;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                 "font-family=\"monospace\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, H, width, H);
    fprintf(out, "<text x=\"%d\" y=\"22\" font-size=\"15\">", left);
    text_xml(out, name, (size_t)-1, 0);
    fprintf(out, "%s</text>\n", counts);
    for (uint32_t y = 0; y <= ymax; y += step) {
        double py = top + ph - ph * y / ymax;
        fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                     "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%u</text>\n",
                left, py, W - right, py, left - 6, py + 4, y);
    }
    uint32_t xstep = n <= 50 ? 5 : n <= 200 ? 20 : n <= 500 ? 50 : n <= 2000 ? 200 : 500;
    for (uint32_t x = 0; x <= n; x += xstep) {
        double px = left + pw * x / n;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>"
                     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%u</text>\n",
                px, top + (int)ph, px, top + ph + 5, px, top + ph + 18, x);
    }
    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", left, top, left, top + (int)ph);
    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", left, top + (int)ph, W - right,
            top + (int)ph);
    fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">instruction index (pc)</text>\n", left + pw / 2,
            H - 10);
    fprintf(out, "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">live registers"
                 "</text>\n", top + ph / 2, top + ph / 2);
    const char *colour[2] = {"#1f77b4", "#ff7f0e"};
    const char *label[2] = {"live VGPRs", "live SGPRs"};
    for (int k = 0; k < 2 && p->live_vgprs; k++) {
        const uint16_t *v = k ? p->live_sgprs : p->live_vgprs;
        fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", colour[k]);
        for (uint32_t i = 0; i < p->code_count; i++) {
            double x0 = left + pw * i / n, x1 = left + pw * (i + 1) / n, y = top + ph - ph * v[i] / ymax;
            fprintf(out, "%.1f,%.1f %.1f,%.1f ", x0, y, x1, y);
        }
        fprintf(out, "\"/>\n<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", W - right - 100, top + 14 + 16 * k,
                colour[k], label[k]);
    }
    fprintf(out, "</svg>\n");
}
