/*
 * isa/lean_hoist.c — loop-invariant scalar arithmetic out of loops.
 *
 * Article 004's gather recomputes `(j - 2) * 8` and `5 * j` of its outer
 * loop counter at every tap of the inner loop: three of the inner loop's
 * twenty instructions.  This pass moves such an instruction to just before
 * the header of the outermost loop it does not depend on, once the
 * uniformity analysis has classed it scalar (isa_lean_hoist runs between
 * isa_analyze_uniformity and the allocation).
 *
 * An instruction moves out of a loop when:
 *  - it is scalar ALU (one value for the wave; it writes every live lane
 *    whatever exec is, so where it runs does not change what it writes);
 *  - its operation is pure and cannot report anything (add, multiply,
 *    logic, shifts, integer compares, min/max/abs/clamp, a few float ops:
 *    no division, no bit-field extraction that can be out of range);
 *  - its destination has no other definition in the program (an SSA value,
 *    so every read of it comes after it on every path) and it reads no
 *    register that an instruction staying in the loop writes;
 *  - it is not in a divergent block and the loop header is not divergent
 *    (so the lanes reaching the new place are the wave's live lanes);
 *  - nothing from outside the loop jumps into it past its header.
 *
 * It is the only lean step that moves an instruction.  It never moves a
 * wave operation, a memory access, a mask or a branch, so every wave
 * operation still runs with the lanes it had as lowered; an instruction
 * that moved runs once per entry to the loop (also when the loop runs no
 * iteration) with its source line, so per-line counts show the saving.
 * Jumps from outside the loop to its header land on the moved code; the
 * loop's own back edge still goes to the header.
 */
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"

static int pure_scalar_op(const isa_inst *in)
{
    isa_op op = (isa_op)in->op;
    if (op == ISA_OP_FMATH) { /* the integer GLSL.std.450 instructions, which cannot report */
        const isa_glsl *g = isa_glsl_info(in->imm);
        return !isa_type_is_float((isa_type)in->type) && in->type != ISA_TYPE_BOOL && in->type != ISA_TYPE_NONE &&
               g && g->sign;
    }
    return (isa_op_flags(op) & ISA_FLAG_PURE) != 0;
}

static int is_jump(const isa_inst *in)
{
    return in->op == ISA_OP_BLOCK || in->op == ISA_OP_LOOP || in->op == ISA_OP_BRANCH_IF || in->op == ISA_OP_JUMP;
}

/* Adds `delta` to counts[r] for every register r < R that `in` writes (set: stores `delta` instead). */
static void count_writes(const isa_inst *in, uint32_t R, uint32_t *counts, int set, uint32_t delta)
{
    isa_span rd[6], wr[2];
    int nr, nw;
    isa_inst_regs(in, rd, &nr, wr, &nw);
    for (int k = 0; k < nw; k++)
        for (uint32_t r = wr[k].first; r < wr[k].first + wr[k].count && r < R; r++)
            counts[r] = set ? delta : counts[r] + delta;
}

typedef struct loop_range {
    uint32_t head, end; /* [head, end]: the header's first instruction .. the LOOP instruction */
} loop_range;

static int by_size(const void *x, const void *y)
{
    const loop_range *a = x, *b = y;
    uint32_t sa = a->end - a->head, sb = b->end - b->head;
    return sa < sb ? -1 : sa > sb ? 1 : (a->head > b->head) - (a->head < b->head);
}

/* uniform_start[pc] = 1 where a non-empty block that is not divergent starts (a loop's header block). */
static uint8_t *uniform_block_starts(const isa_program *p)
{
    uint8_t *u = calloc(p->code_count + 1, 1);
    if (!u)
        return NULL;
    for (uint32_t b = 0; b < p->block_count; b++)
        if (p->blocks[b].start_pc < p->blocks[b].end_pc && p->blocks[b].start_pc < p->code_count)
            u[p->blocks[b].start_pc] = !p->blocks[b].divergent;
    return u;
}

/* Moves the chosen instructions (to[i] = the header to stand before, UINT32_MAX stays) and renumbers. */
static isa_status reorder(isa_program *p, const uint32_t *to, const uint32_t *loop_end_of)
{
    uint32_t N = p->code_count;
    uint32_t *newpc = malloc(N * sizeof *newpc), *first = malloc(N * sizeof *first);
    uint32_t *stay = malloc((N + 1) * sizeof *stay), *order = malloc(N * sizeof *order);
    uint32_t *bucket = calloc(N + 1, sizeof *bucket), *moved = malloc(N * sizeof *moved);
    isa_inst *code = malloc(N * sizeof *code);
    isa_status st = ISA_ERR_NOMEM;
    if (!newpc || !first || !stay || !order || !bucket || !moved || !code)
        goto out;
    /* moved[bucket[t] .. bucket[t+1]): the instructions that go before t, in program order */
    for (uint32_t i = 0; i < N; i++)
        if (to[i] != UINT32_MAX)
            bucket[to[i] + 1]++;
    for (uint32_t t = 0; t < N; t++)
        bucket[t + 1] += bucket[t];
    for (uint32_t t = 0; t < N; t++) /* order[] serves first as each header's fill cursor */
        order[t] = bucket[t];
    for (uint32_t i = 0; i < N; i++)
        if (to[i] != UINT32_MAX)
            moved[order[to[i]]++] = i;
    uint32_t n = 0;
    for (uint32_t t = 0; t < N; t++) {
        first[t] = n;
        for (uint32_t k = bucket[t]; k < bucket[t + 1]; k++) {
            order[n] = moved[k];
            newpc[moved[k]] = n++;
        }
        if (to[t] == UINT32_MAX) {
            order[n] = t;
            newpc[t] = n++;
        }
    }
    /* stay[i]: the new place of the first instruction at or after i that did not move */
    stay[N] = N;
    for (uint32_t i = N; i-- > 0;)
        stay[i] = to[i] == UINT32_MAX ? newpc[i] : stay[i + 1];
    for (uint32_t k = 0; k < N; k++) {
        uint32_t s = order[k];
        isa_inst in = p->code[s];
        if (is_jump(&in) && in.imm >= 0 && in.imm <= (int64_t)N) {
            uint32_t t = (uint32_t)in.imm;
            /* into a loop's header from outside: onto the code moved before it; from inside (the back
             * edge) and everywhere else: the instruction itself */
            int outside = t < N && loop_end_of[t] != UINT32_MAX && (s < t || s > loop_end_of[t]);
            in.imm = outside ? first[t] : stay[t];
        }
        code[k] = in;
    }
    memcpy(p->code, code, N * sizeof *code);
    /* a block boundary before a loop header stays after the moved code, which joins the block before */
    for (uint32_t b = 0; b < p->block_count; b++) {
        uint32_t s = p->blocks[b].start_pc, e = p->blocks[b].end_pc;
        p->blocks[b].start_pc = stay[s < N ? s : N];
        p->blocks[b].end_pc = stay[e < N ? e : N];
    }
    st = ISA_OK;
out:
    free(newpc), free(first), free(stay), free(order), free(bucket), free(moved), free(code);
    return st;
}

isa_status isa_lean_hoist(isa_program *p)
{
    if (!isa_lean_enabled() || p->allocated || !p->code_count || p->live_vgprs)
        return ISA_OK;
    uint32_t N = p->code_count, R = p->reg_count, nloops = 0;
    for (uint32_t i = 0; i < N; i++)
        nloops += p->code[i].op == ISA_OP_LOOP && p->code[i].imm >= 0 && p->code[i].imm <= (int64_t)i;
    if (!nloops)
        return ISA_OK;
    isa_status st = ISA_ERR_NOMEM;
    loop_range *loops = malloc(nloops * sizeof *loops);
    uint32_t *defs = calloc(R ? R : 1, sizeof *defs), *indef = calloc(R ? R : 1, sizeof *indef);
    uint32_t *to = malloc(N * sizeof *to), *loop_end_of = malloc(N * sizeof *loop_end_of);
    uint32_t *jmin = malloc(N * sizeof *jmin), *jmax = calloc(N, sizeof *jmax); /* jump sources per target */
    uint8_t *uniform_start = uniform_block_starts(p);
    if (!loops || !defs || !indef || !to || !loop_end_of || !jmin || !jmax || !uniform_start)
        goto out;
    nloops = 0;
    for (uint32_t i = 0; i < N; i++) {
        to[i] = loop_end_of[i] = jmin[i] = UINT32_MAX;
        const isa_inst *in = &p->code[i];
        if (in->op == ISA_OP_LOOP && in->imm >= 0 && in->imm <= (int64_t)i)
            loops[nloops++] = (loop_range){(uint32_t)in->imm, i};
        count_writes(in, R, defs, 0, 1);
    }
    for (uint32_t i = 0; i < N; i++) {
        const isa_inst *in = &p->code[i];
        if (is_jump(in) && in->imm >= 0 && in->imm < (int64_t)N) {
            uint32_t t = (uint32_t)in->imm;
            jmin[t] = i < jmin[t] ? i : jmin[t];
            jmax[t] = i > jmax[t] ? i : jmax[t];
        }
    }
    qsort(loops, nloops, sizeof *loops, by_size); /* inner loops first */
    int any = 0;
    for (uint32_t l = 0; l < nloops; l++) {
        uint32_t h = loops[l].head, e = loops[l].end;
        if (loop_end_of[h] != UINT32_MAX)
            continue; /* two loops with one header: not structured, leave both */
        loop_end_of[h] = e;
        int closed = uniform_start[h];
        for (uint32_t t = h + 1; closed && t <= e; t++) /* nothing from outside jumps past the header */
            closed = jmin[t] == UINT32_MAX || (jmin[t] >= h && jmax[t] <= e);
        if (!closed)
            continue;
        for (uint32_t i = h; i <= e; i++)
            count_writes(&p->code[i], R, indef, 0, 1);
        for (uint32_t i = h; i <= e; i++) {
            const isa_inst *in = &p->code[i];
            if (in->cls != ISA_CLASS_SALU || !pure_scalar_op(in) || (in->flags & ISA_INST_DIVERGENT) ||
                jmin[i] != UINT32_MAX)
                continue;
            isa_span rd[6], wr[2];
            int nr, nw;
            isa_inst_regs(in, rd, &nr, wr, &nw);
            if (nw != 1 || wr[0].count != 1 || wr[0].first >= R || defs[wr[0].first] != 1)
                continue;
            int invariant = 1;
            for (int k = 0; invariant && k < nr; k++)
                for (uint32_t r = rd[k].first; invariant && r < rd[k].first + rd[k].count; r++)
                    invariant = r >= R || indef[r] == 0;
            if (!invariant)
                continue;
            to[i] = h;
            indef[wr[0].first]--;
            any = 1;
        }
        for (uint32_t i = h; i <= e; i++) /* clear the counts for the next loop */
            count_writes(&p->code[i], R, indef, 1, 0);
    }
    st = any ? reorder(p, to, loop_end_of) : ISA_OK;
out:
    free(loops), free(defs), free(indef), free(to), free(loop_end_of), free(jmin), free(jmax), free(uniform_start);
    return st;
}
