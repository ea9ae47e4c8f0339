/*
 * isa/liveness.c — which registers each instruction reads and writes, a deep
 * copy of a program, per-lane liveness, and the allocation verifier.
 *
 * Per-lane liveness (isa_lane_liveness) is data flow over the thread CFG
 * (the blocks the lowering records), which is what the executor needs for
 * every write predicated by exec: the allocator places VGPRs by it
 * (isa/regalloc.c) and the verifier checks every allocation against it,
 * recomputing the interference at each instruction from the renamed
 * program rather than trusting the allocator's ranges.  A scalar ALU write
 * in a divergent block also reaches the lanes waiting elsewhere, so it must
 * not touch a register that a waiting lane still needs
 * (check_waiting_lanes: the linear program's view).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"

void isa_inst_regs(const isa_inst *in, isa_span reads[6], int *nreads, isa_span writes[2], int *nwrites)
{
    int nr = 0, nw = 0;
    const isa_shape *sh = isa_op_shape((isa_op)in->op);
    for (unsigned k = 0; k < sh->count; k++) {
        const isa_operand *o = &sh->op[k];
        if (o->role == ISA_ROLE_MASK || !isa_operand_present(in, o))
            continue;
        isa_span s = {isa_inst_field(in, o->field), isa_operand_span(in, o)};
        if (o->role == ISA_ROLE_WRITE || o->role == ISA_ROLE_UPDATE)
            writes[nw++] = s;
        if (o->role == ISA_ROLE_READ || o->role == ISA_ROLE_UPDATE)
            reads[nr++] = s;
    }
    *nreads = nr;
    *nwrites = nw;
}

unsigned isa_inst_reg_fields(const isa_inst *in, int reads, int writes, int single)
{
    /* mark each field with a register number no program uses, and see which marks come back */
    isa_inst probe = *in;
    const uint32_t base = 0xF0000000u;
    for (unsigned k = 0; k < ISA_FIELD_COUNT; k++) {
        uint32_t *f = isa_inst_field_ref(&probe, k);
        if (*f != ISA_NO_REG)
            *f = base + k;
    }
    isa_span rd[6], wr[2];
    int nr, nw;
    isa_inst_regs(&probe, rd, &nr, wr, &nw);
    unsigned mask = 0;
    for (int k = 0; reads && k < nr; k++)
        if (rd[k].first >= base && rd[k].first < base + ISA_FIELD_COUNT && (!single || rd[k].count == 1))
            mask |= 1u << (rd[k].first - base);
    for (int k = 0; writes && k < nw; k++)
        if (wr[k].first >= base && wr[k].first < base + ISA_FIELD_COUNT && (!single || wr[k].count == 1))
            mask |= 1u << (wr[k].first - base);
    return mask;
}

int isa_inst_reads_late(const isa_inst *in)
{
    isa_class c = isa_op_class((isa_op)in->op);
    return c == ISA_CLASS_XLANE || c == ISA_CLASS_VMEM;
}

isa_program *isa_program_clone(const isa_program *p)
{
    isa_program *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    *q = *p;
    q->code = NULL, q->slots = NULL, q->consts = NULL, q->builtins = NULL, q->blocks = NULL;
    q->reg_uniform = NULL, q->reg_file = NULL, q->reg_number = NULL, q->live_vgprs = NULL, q->live_sgprs = NULL;
    q->block_count = 0;
#define DUP(field, n)                                                            \
    do {                                                                         \
        if (p->field && (n)) {                                                   \
            q->field = malloc((size_t)(n) * sizeof *p->field);                   \
            if (!q->field)                                                       \
                goto fail;                                                       \
            memcpy(q->field, p->field, (size_t)(n) * sizeof *p->field);          \
        }                                                                        \
    } while (0)
    DUP(code, p->code_count);
    DUP(slots, p->slot_count);
    DUP(consts, p->const_count);
    DUP(builtins, p->builtin_count);
    DUP(reg_uniform, p->res.virtual_regs);
    DUP(reg_file, p->reg_count);
    DUP(reg_number, p->reg_count);
    DUP(live_vgprs, p->code_count);
    DUP(live_sgprs, p->code_count);
    if (p->blocks && p->block_count) {
        q->blocks = calloc(p->block_count, sizeof *q->blocks);
        if (!q->blocks)
            goto fail;
        for (uint32_t k = 0; k < p->block_count; k++) {
            q->blocks[k] = p->blocks[k];
            q->blocks[k].succ = malloc((p->blocks[k].nsucc ? p->blocks[k].nsucc : 1) * sizeof(uint32_t));
            if (!q->blocks[k].succ)
                goto fail;
            memcpy(q->blocks[k].succ, p->blocks[k].succ, p->blocks[k].nsucc * sizeof(uint32_t));
            q->block_count = k + 1;
        }
    }
#undef DUP
    return q;
fail:
    isa_program_destroy(q);
    return NULL;
}

/* ------------------------------------------------------------ verifier */

/* Bit sets over registers. */
typedef struct bitset { uint64_t *w; uint32_t words; } bitset;
#define BS_GET(s, i) (((s).w[(i) >> 6] >> ((i) & 63)) & 1)
#define BS_SET(s, i) ((s).w[(i) >> 6] |= 1ull << ((i) & 63))
#define BS_CLR(s, i) ((s).w[(i) >> 6] &= ~(1ull << ((i) & 63)))

static void span_set(bitset s, isa_span sp, int on)
{
    for (uint32_t r = sp.first; r < sp.first + sp.count; r++) {
        if (on)
            BS_SET(s, r);
        else
            BS_CLR(s, r);
    }
}

/*
 * Per-lane liveness (isa_lane_liveness).  An instruction's writes end what
 * was live in its registers for every lane that runs it, except a phi copy
 * on a conditional edge: `movm` writes only the lanes of its mask, those
 * that take the edge to the phi's block; the block's other lanes leave by
 * its other edges and keep the old value.  So such a copy ends the old value
 * only where none of them needs it: not live into another successor, not
 * read later in the block.  A `movm` whose mask is `mask_exec` written in the
 * same block (an unconditional edge: every lane of the block copies) is a
 * whole definition.
 */
/* COPY_UNKNOWN never ends the old value: its target is not known, or its block reads the register after it */
enum { COPY_NONE, COPY_WHOLE, COPY_EDGE, COPY_UNKNOWN };

/* The block a phi copy's mask leads to: the mask is or-ed (`mask_or`) later in its block into the mask that the
 * target block's `block` takes as exec.  ISA_NO_BLOCK when not found. */
static uint32_t copy_target(const isa_program *p, const uint32_t *mask_block, uint32_t pc, uint32_t end)
{
    uint32_t m = p->code[pc].b;
    for (uint32_t j = pc + 1; j < end; j++)
        if (p->code[j].op == ISA_OP_MASK_OR && p->code[j].a == m && p->code[j].d < p->mask_count)
            return mask_block[p->code[j].d];
    return ISA_NO_BLOCK;
}

/* Whether the mask of phi copy pc is `mask_exec`, written in its block after the last change of exec. */
static int copy_mask_is_exec(const isa_program *p, uint32_t pc)
{
    const isa_inst *in = &p->code[pc];
    for (uint32_t j = pc; j-- > 0;) {
        const isa_inst *m = &p->code[j];
        switch ((isa_op)m->op) {
        case ISA_OP_MASK_EXEC: case ISA_OP_MASK_COND: case ISA_OP_MASK_CASE: case ISA_OP_MASK_OR:
        case ISA_OP_MASK_ANDN: case ISA_OP_JOIN:
            if (m->d == in->b)
                return m->op == ISA_OP_MASK_EXEC;
            break;
        case ISA_OP_BLOCK: case ISA_OP_LOOP: case ISA_OP_BRANCH: case ISA_OP_BRANCH_CMP: case ISA_OP_BRANCH_IF:
        case ISA_OP_JUMP: case ISA_OP_END:
            return 0; /* exec changed, or another block: the mask's lanes are not known to be the block's */
        default:
            break;
        }
    }
    return 0;
}

/* Whether an instruction after pc, up to end, reads what pc writes. */
static int read_later(const isa_program *p, uint32_t pc, uint32_t end)
{
    isa_span rd[6], wr[2];
    int nr, nw;
    isa_inst_regs(&p->code[pc], rd, &nr, wr, &nw);
    for (uint32_t j = pc + 1; j < end; j++) {
        isa_span rj[6], wj[2];
        int nrj, nwj;
        isa_inst_regs(&p->code[j], rj, &nrj, wj, &nwj);
        for (int k = 0; k < nw; k++)
            for (int q = 0; q < nrj; q++)
                if (wr[k].first < rj[q].first + rj[q].count && rj[q].first < wr[k].first + wr[k].count)
                    return 1;
    }
    return 0;
}

/* What kind of definition instruction pc is (COPY_*); for an edge copy, its target block in *target.  A copy
 * whose register is read later in its block is never an end: the block's other lanes read the old value there. */
static int copy_kind(const isa_program *p, const uint32_t *mask_block, uint32_t pc, uint32_t end, uint32_t *target)
{
    if (p->code[pc].op != ISA_OP_MOVM)
        return COPY_NONE;
    if (copy_mask_is_exec(p, pc))
        return COPY_WHOLE;
    *target = copy_target(p, mask_block, pc, end);
    return *target == ISA_NO_BLOCK || read_later(p, pc, end) ? COPY_UNKNOWN : COPY_EDGE;
}

/* The lane-liveness data flow's state: the sets of isa_lane_live as bit sets, and two scratch sets. */
typedef struct lane_flow {
    const isa_program *v;
    uint32_t R, B, words;
    const uint8_t *is_builtin;
    uint8_t *kind;                    /* per instruction: COPY_* */
    uint32_t *target;                 /* per instruction: an edge copy's target block */
    bitset *live_in, *live_out, *reach_in, *reach_out;
    bitset cur, tmp;
} lane_flow;

/* Sets in s the built-ins (defined when the wave starts) when b is the entry block. */
static void add_entry_definitions(const lane_flow *fl, uint32_t b, bitset s)
{
    if (b == 0)
        for (uint32_t r = 0; r < fl->R; r++)
            if (fl->is_builtin[r])
                BS_SET(s, r);
}

/* Forward data flow: the definitions that reach each block's entry and exit. */
static void reaching_definitions(lane_flow *fl)
{
    const uint32_t words = fl->words;
    bitset cur = fl->cur;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t b = 0; b < fl->B; b++) {
            const isa_block *bl = &fl->v->blocks[b];
            memcpy(cur.w, fl->reach_in[b].w, words * sizeof *cur.w);
            add_entry_definitions(fl, b, cur);
            for (uint32_t i = bl->start_pc; i < bl->end_pc; i++) {
                isa_span rd[6] = {{0, 0}}, wr[2] = {{0, 0}};
                int nr, nw;
                isa_inst_regs(&fl->v->code[i], rd, &nr, wr, &nw);
                for (int k = 0; k < nw; k++)
                    span_set(cur, wr[k], 1);
            }
            if (memcmp(cur.w, fl->reach_out[b].w, words * sizeof *cur.w)) {
                memcpy(fl->reach_out[b].w, cur.w, words * sizeof *cur.w);
                changed = 1;
            }
            for (uint32_t s = 0; s < bl->nsucc; s++) {
                bitset in = fl->reach_in[bl->succ[s]];
                for (uint32_t k = 0; k < words; k++) {
                    uint64_t nv = in.w[k] | cur.w[k];
                    if (nv != in.w[k])
                        in.w[k] = nv, changed = 1;
                }
            }
        }
    }
}

/* Steps the live set s backward over one instruction: its writes die (unless it does not end them: kills 0),
 * its reads become live. */
static void step_back(bitset s, const isa_span *rd, int nr, const isa_span *wr, int nw, int kills)
{
    for (int k = 0; kills && k < nw; k++)
        span_set(s, wr[k], 0);
    for (int k = 0; k < nr; k++)
        span_set(s, rd[k], 1);
}

/* Whether instruction pc of block b ends the old values of what it writes, given the live-in sets so far. */
static int inst_kills(const lane_flow *fl, uint32_t b, uint32_t pc)
{
    if (fl->kind[pc] == COPY_NONE || fl->kind[pc] == COPY_WHOLE)
        return 1;
    if (fl->kind[pc] == COPY_UNKNOWN)
        return 0;
    const isa_block *bl = &fl->v->blocks[b];
    isa_span rd[6], wr[2];
    int nr, nw;
    isa_inst_regs(&fl->v->code[pc], rd, &nr, wr, &nw);
    for (int k = 0; k < nw; k++) /* lanes leaving by another edge need the old value */
        for (uint32_t r = wr[k].first; r < wr[k].first + wr[k].count && r < fl->R; r++)
            for (uint32_t s = 0; s < bl->nsucc; s++)
                if (bl->succ[s] != fl->target[pc] && BS_GET(fl->live_in[bl->succ[s]], r))
                    return 0;
    return 1;
}

/* Backward data flow: the registers live (for some lane) at each block's entry and exit. */
static void per_lane_liveness(lane_flow *fl)
{
    const uint32_t words = fl->words;
    bitset tmp = fl->tmp;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t b = fl->B; b-- > 0;) {
            const isa_block *bl = &fl->v->blocks[b];
            memset(tmp.w, 0, words * sizeof *tmp.w);
            for (uint32_t s = 0; s < bl->nsucc; s++)
                for (uint32_t k = 0; k < words; k++)
                    tmp.w[k] |= fl->live_in[bl->succ[s]].w[k];
            memcpy(fl->live_out[b].w, tmp.w, words * sizeof *tmp.w);
            for (uint32_t i = bl->end_pc; i-- > bl->start_pc;) {
                isa_span rd[6] = {{0, 0}}, wr[2] = {{0, 0}};
                int nr, nw;
                isa_inst_regs(&fl->v->code[i], rd, &nr, wr, &nw);
                step_back(tmp, rd, nr, wr, nw, inst_kills(fl, b, i));
            }
            if (memcmp(tmp.w, fl->live_in[b].w, words * sizeof *tmp.w)) {
                memcpy(fl->live_in[b].w, tmp.w, words * sizeof *tmp.w);
                changed = 1;
            }
        }
    }
}

isa_status isa_lane_liveness(const isa_program *p, isa_lane_live *out)
{
    uint32_t R = p->reg_count, B = p->block_count, N = p->code_count, M = p->mask_count;
    uint32_t words = (R + 63) / 64 + 1;
    *out = (isa_lane_live){.words = words, .blocks = B};
    lane_flow fl = {.v = p, .R = R, .B = B, .words = words};
    uint64_t *mem = calloc((size_t)words * (4 * (size_t)B + 2), sizeof *mem);
    uint8_t *is_builtin = calloc(R ? R : 1, 1), *kind = calloc(N ? N : 1, 1), *kills = malloc(N ? N : 1);
    uint32_t *target = malloc((N ? N : 1) * sizeof *target), *mask_block = malloc((M ? M : 1) * sizeof *mask_block);
    bitset *sets = malloc((4 * (size_t)B + 1) * sizeof *sets);
    if (!mem || !is_builtin || !kind || !kills || !target || !mask_block || !sets) {
        free(mem), free(is_builtin), free(kind), free(kills), free(target), free(mask_block), free(sets);
        return ISA_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < p->builtin_count; i++)
        if (p->builtins[i].reg < R)
            is_builtin[p->builtins[i].reg] = 1;
    for (uint32_t m = 0; m < M; m++)
        mask_block[m] = ISA_NO_BLOCK;
    for (uint32_t b = 0; b < B; b++) {
        uint32_t sp = p->blocks[b].start_pc;
        if (sp < N && p->code[sp].op == ISA_OP_BLOCK && p->code[sp].a < M)
            mask_block[p->code[sp].a] = b;
    }
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t i = p->blocks[b].start_pc; i < p->blocks[b].end_pc && i < N; i++)
            kind[i] = (uint8_t)copy_kind(p, mask_block, i, p->blocks[b].end_pc, &target[i]);
    fl.is_builtin = is_builtin, fl.kind = kind, fl.target = target;
    fl.live_in = sets, fl.live_out = sets + B, fl.reach_in = sets + 2 * B, fl.reach_out = sets + 3 * B;
    for (uint32_t b = 0; b < B; b++) {
        fl.live_in[b] = (bitset){mem + (size_t)words * (4 * b + 0), words};
        fl.live_out[b] = (bitset){mem + (size_t)words * (4 * b + 1), words};
        fl.reach_in[b] = (bitset){mem + (size_t)words * (4 * b + 2), words};
        fl.reach_out[b] = (bitset){mem + (size_t)words * (4 * b + 3), words};
    }
    fl.cur = (bitset){mem + (size_t)words * 4 * B, words};
    fl.tmp = (bitset){mem + (size_t)words * (4 * B + 1), words};
    reaching_definitions(&fl);
    per_lane_liveness(&fl);
    /* entry definitions count as reaching block 0 for the readers of the sets */
    if (B)
        add_entry_definitions(&fl, 0, fl.reach_in[0]);
    memset(kills, 1, N ? N : 1);
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t i = p->blocks[b].start_pc; i < p->blocks[b].end_pc && i < N; i++)
            kills[i] = (uint8_t)inst_kills(&fl, b, i);
    free(is_builtin), free(kind), free(target), free(mask_block), free(sets);
    out->mem = mem;
    out->kills = kills;
    return ISA_OK;
}

/* What the verifier's steps share: the two programs, the renaming read off them, the lane liveness of the
 * virtual program as bit sets, and two scratch sets. */
typedef struct verifier {
    const isa_program *a, *v;
    uint32_t R, B, words;
    uint32_t *phys;                   /* virtual -> physical */
    uint8_t *is_const;                /* of the virtual program */
    const uint8_t *kills;             /* per instruction: isa_lane_live.kills */
    bitset *live_in, *live_out, *reach_in;
    bitset tmp, reach;
    char *err;
    size_t err_size;
} verifier;

/* The physical register of each virtual one, read off the two programs operand by operand (built-ins map
 * through the instructions that read them; unread ones get no register).  0 when one virtual register is
 * renamed to two. */
static int read_renaming(verifier *vf)
{
    const uint32_t R = vf->R;
    int ok = 1;
    for (uint32_t r = 0; r < R; r++)
        vf->phys[r] = ISA_NO_REG;
    for (uint32_t i = 0; i < vf->v->code_count; i++) {
        isa_span rv[6], wv[2], ra[6], wa[2];
        int nrv, nwv, nra, nwa;
        isa_inst_regs(&vf->v->code[i], rv, &nrv, wv, &nwv);
        isa_inst_regs(&vf->a->code[i], ra, &nra, wa, &nwa);
        isa_span pairs[8][2];
        int np = 0;
        for (int k = 0; k < nrv && k < nra; k++)
            pairs[np][0] = rv[k], pairs[np++][1] = ra[k];
        for (int k = 0; k < nwv && k < nwa; k++)
            pairs[np][0] = wv[k], pairs[np++][1] = wa[k];
        for (int k = 0; k < np; k++)
            for (uint32_t j = 0; j < pairs[k][0].count; j++) {
                uint32_t vr = pairs[k][0].first + j, pr = pairs[k][1].first + j;
                if (vr >= R)
                    continue;
                if (vf->phys[vr] == ISA_NO_REG)
                    vf->phys[vr] = pr;
                else if (vf->phys[vr] != pr && ok) {
                    snprintf(vf->err, vf->err_size, "virtual register %u is renamed both to %u and to %u", vr,
                             vf->phys[vr], pr);
                    ok = 0;
                }
            }
    }
    return ok;
}

/* Into vf->reach: the definitions that reach the point after instruction i of block b. */
static void reach_after(verifier *vf, uint32_t b, uint32_t i)
{
    memcpy(vf->reach.w, vf->reach_in[b].w, vf->words * sizeof *vf->reach.w);
    for (uint32_t j = vf->v->blocks[b].start_pc; j <= i; j++) {
        isa_span rd[6] = {{0, 0}}, wr[2] = {{0, 0}};
        int nr, nw;
        isa_inst_regs(&vf->v->code[j], rd, &nr, wr, &nw);
        for (int k = 0; k < nw; k++)
            span_set(vf->reach, wr[k], 1);
    }
}

/* Instruction i: the values live after it (vf->tmp, and defined by then: vf->reach) plus what it writes (and,
 * when it reads late, what it reads) must each have a physical register of their own.  owner/stamp record
 * which virtual register holds each physical one at this pc (stamped i + 1). */
static int check_instruction(verifier *vf, uint32_t i, const isa_span *rd, int nr, const isa_span *wr, int nw,
                             uint32_t *owner, uint32_t *stamp)
{
    uint32_t mark = i + 1;
    int late = isa_inst_reads_late(&vf->v->code[i]);
    for (uint32_t r = 0; r < vf->R; r++) {
        int written = 0;
        for (int k = 0; k < nw; k++)
            written |= r >= wr[k].first && r < wr[k].first + wr[k].count;
        if (late && BS_GET(vf->reach, r)) /* its sources are read while its destination is written: they must not
                                           * share (a source no definition reaches holds nothing: in a block no
                                           * lane enters, the allocator gives it no run either) */
            for (int k = 0; k < nr; k++)
                written |= r >= rd[k].first && r < rd[k].first + rd[k].count;
        if (!((BS_GET(vf->tmp, r) && BS_GET(vf->reach, r)) || written) || vf->is_const[r])
            continue;
        uint32_t pr = vf->phys[r];
        if (pr == ISA_NO_REG || pr >= vf->a->reg_count) {
            snprintf(vf->err, vf->err_size, "pc %u: virtual register %u has no physical register", i, r);
            return 0;
        }
        if (stamp[pr] == mark && owner[pr] != r) {
            snprintf(vf->err, vf->err_size, "pc %u: virtual registers %u and %u are both live in physical register %u",
                     i, owner[pr], r, pr);
            return 0;
        }
        stamp[pr] = mark;
        owner[pr] = r;
    }
    return 1;
}

/* Every instruction of every block, walked backward from the block's live-out set. */
static int check_interference(verifier *vf, uint32_t *owner, uint32_t *stamp)
{
    for (uint32_t b = 0; b < vf->B; b++) {
        const isa_block *bl = &vf->v->blocks[b];
        memcpy(vf->tmp.w, vf->live_out[b].w, vf->words * sizeof *vf->tmp.w);
        for (uint32_t i = bl->end_pc; i-- > bl->start_pc;) {
            reach_after(vf, b, i);
            isa_span rd[6] = {{0, 0}}, wr[2] = {{0, 0}};
            int nr, nw;
            isa_inst_regs(&vf->v->code[i], rd, &nr, wr, &nw);
            if (!check_instruction(vf, i, rd, nr, wr, nw, owner, stamp))
                return 0;
            step_back(vf->tmp, rd, nr, wr, nw, vf->kills[i]);
        }
    }
    return 1;
}

/* The block after the loop headed by block h (its merge; the end of the program when it has none). */
static uint32_t loop_end_block(const isa_program *v, uint32_t h)
{
    return v->blocks[h].merge != ISA_NO_BLOCK && v->blocks[h].merge > h ? v->blocks[h].merge : v->block_count;
}

/* Whether lanes may wait at the entry of block q while block b runs: an edge into q from a block that ran
 * before b (the else of an if, its merge, a continue target), or q is the merge of a loop around b (lanes that
 * left it earlier).  min_pred[q]: q's lowest predecessor. */
static int lanes_may_wait(const isa_program *v, const uint32_t *min_pred, uint32_t b, uint32_t q)
{
    if (q <= b)
        return 0;
    if (min_pred[q] < b)
        return 1;
    for (uint32_t h = 0; h <= b; h++)
        if (v->blocks[h].is_loop && b < loop_end_block(v, h) && v->blocks[h].merge == q)
            return 1;
    return 0;
}

/*
 * Scalar writes in divergent code.  A scalar ALU instruction writes every live
 * lane, whatever exec is (sim/exec.c; `movm` excepted, which writes only its
 * mask's lanes), so in a divergent block it also writes the lanes that wait
 * elsewhere: that is liveness on the linear program, the wave's, where the
 * else of an if runs after its then.  The physical registers it writes must
 * hold nothing such a lane still needs: no virtual register live and defined
 * at the entry of a block where lanes may wait, the written one's own old
 * value included (a value left behind by lanes that broke out of a loop) —
 * unless that register is written only after the write, before the block,
 * with no back edge that could have run one of its writes before it: it
 * holds nothing yet (a loop-invariant the hoist moved to the end of the
 * block before a loop header that an if's paths meet at, isa/lean_hoist.c).
 */
static int check_waiting_lanes(verifier *vf)
{
    const isa_program *v = vf->v;
    uint32_t B = vf->B, R = vf->R, P = vf->a->reg_count;
    uint32_t *min_pred = malloc(B * sizeof *min_pred), *first = calloc(P + 2, sizeof *first);
    uint32_t *held = malloc((R ? R : 1) * sizeof *held);
    /* each virtual register's first and last writing pc, and the lowest pc a back edge from at or after a given
     * pc returns to (back_to[i]: min over LOOPs at pc >= i of their target) */
    uint32_t *def_lo = malloc((R ? R : 1) * sizeof *def_lo), *def_hi = calloc(R ? R : 1, sizeof *def_hi);
    uint32_t *back_to = malloc((v->code_count + 1) * sizeof *back_to);
    int ok = min_pred && first && held && def_lo && def_hi && back_to;
    for (uint32_t r = 0; ok && r < R; r++)
        def_lo[r] = UINT32_MAX;
    for (uint32_t i = 0; ok && i < v->code_count; i++) {
        isa_span rd[6], wr[2];
        int nr, nw;
        isa_inst_regs(&v->code[i], rd, &nr, wr, &nw);
        for (int k = 0; k < nw; k++)
            for (uint32_t r = wr[k].first; r < wr[k].first + wr[k].count && r < R; r++) {
                def_lo[r] = i < def_lo[r] ? i : def_lo[r];
                def_hi[r] = i;
            }
    }
    if (ok)
        back_to[v->code_count] = UINT32_MAX;
    for (uint32_t i = v->code_count; ok && i-- > 0;) {
        const isa_inst *in = &v->code[i];
        uint32_t t = in->op == ISA_OP_LOOP && in->imm >= 0 && (uint64_t)in->imm <= i ? (uint32_t)in->imm : UINT32_MAX;
        back_to[i] = t < back_to[i + 1] ? t : back_to[i + 1];
    }
    if (!ok)
        snprintf(vf->err, vf->err_size, "out of memory");
    /* held[first[p] .. first[p + 1]): the virtual registers renamed to physical register p */
    for (uint32_t r = 0; ok && r < R; r++)
        if (vf->phys[r] < P)
            first[vf->phys[r] + 2]++;
    for (uint32_t k = 0; ok && k < P; k++)
        first[k + 2] += first[k + 1];
    for (uint32_t r = 0; ok && r < R; r++)
        if (vf->phys[r] < P)
            held[first[vf->phys[r] + 1]++] = r;
    for (uint32_t q = 0; ok && q < B; q++)
        min_pred[q] = UINT32_MAX;
    for (uint32_t y = 0; ok && y < B; y++)
        for (uint32_t s = 0; s < v->blocks[y].nsucc; s++)
            if (v->blocks[y].succ[s] < B && y < min_pred[v->blocks[y].succ[s]])
                min_pred[v->blocks[y].succ[s]] = y;
    for (uint32_t b = 0; ok && b < B; b++)
        for (uint32_t i = v->blocks[b].start_pc; ok && i < v->blocks[b].end_pc; i++) {
            const isa_inst *in = &v->code[i];
            if (in->cls != ISA_CLASS_SALU || in->op == ISA_OP_MOVM || !(in->flags & ISA_INST_DIVERGENT))
                continue;
            isa_span rd[6], wr[2];
            int nr, nw;
            isa_inst_regs(in, rd, &nr, wr, &nw);
            for (int k = 0; ok && k < nw; k++)
                for (uint32_t r = wr[k].first; ok && r < wr[k].first + wr[k].count && r < R; r++) {
                    uint32_t pr = vf->phys[r];
                    for (uint32_t q = b + 1; ok && pr < P && q < B; q++) {
                        if (!lanes_may_wait(v, min_pred, b, q))
                            continue;
                        for (uint32_t h = first[pr]; ok && h < first[pr + 1]; h++) {
                            uint32_t x = held[h];
                            if (vf->is_const[x] || !BS_GET(vf->live_in[q], x) || !BS_GET(vf->reach_in[q], x))
                                continue;
                            if (def_lo[x] > i && def_hi[x] < v->blocks[q].start_pc &&
                                (back_to[def_lo[x]] == UINT32_MAX || back_to[def_lo[x]] > i))
                                continue; /* written only later, before q: it holds nothing yet */
                            snprintf(vf->err, vf->err_size,
                                     "pc %u: a scalar write to physical register %u (virtual %u) in a divergent "
                                     "block reaches lanes waiting at block %u, which still need virtual register %u",
                                     i, pr, r, q, x);
                            ok = 0;
                        }
                    }
                }
        }
    free(min_pred), free(first), free(held), free(def_lo), free(def_hi), free(back_to);
    return ok;
}

/* Constants: in the constant file, and no instruction writes a register of that file. */
static int check_constants(const isa_program *a, char *err, size_t err_size)
{
    for (uint32_t i = 0; i < a->const_count; i++)
        if (a->reg_file && a->reg_file[a->consts[i].reg] != ISA_FILE_CONST) {
            snprintf(err, err_size, "constant in physical register %u outside the constant file", a->consts[i].reg);
            return 0;
        }
    for (uint32_t i = 0; i < a->code_count; i++) {
        isa_span rd[6] = {{0, 0}}, wr[2] = {{0, 0}};
        int nr, nw;
        isa_inst_regs(&a->code[i], rd, &nr, wr, &nw);
        for (int k = 0; k < nw; k++)
            for (uint32_t j = 0; j < wr[k].count; j++)
                if (a->reg_file && wr[k].first + j < a->reg_count && a->reg_file[wr[k].first + j] == ISA_FILE_CONST) {
                    snprintf(err, err_size, "pc %u writes constant register %u", i, wr[k].first + j);
                    return 0;
                }
    }
    return 1;
}

/*
 * Per-lane liveness of the virtual program `v` (before allocation) over its
 * thread CFG, intersected with "some definition reaches here" (an undefined
 * phi input leaves a register upward-exposed without making it hold
 * anything).  Then, at every instruction, the virtual registers live across
 * it plus those it writes must map to distinct physical registers of `a`.
 */
int isa_verify_allocation(const isa_program *a, const isa_program *v, char *err, size_t err_size)
{
    if (err && err_size)
        err[0] = 0;
    if (!a->allocated || !v || v->code_count != a->code_count || !v->blocks || v->block_count == 0) {
        snprintf(err, err_size, "not an allocated program and its virtual original");
        return 0;
    }
    uint32_t R = v->reg_count, B = v->block_count;
    isa_lane_live ll;
    if (isa_lane_liveness(v, &ll) != ISA_OK) {
        snprintf(err, err_size, "out of memory");
        return 0;
    }
    uint32_t words = ll.words;
    verifier vf = {.a = a, .v = v, .R = R, .B = B, .words = words, .kills = ll.kills, .err = err,
                   .err_size = err_size};
    uint64_t *mem = calloc((size_t)words * 2, sizeof *mem);
    vf.phys = malloc((R ? R : 1) * sizeof *vf.phys);
    /* constants are never written: they need no liveness, only registers no one else writes */
    vf.is_const = calloc(R ? R : 1, 1);
    vf.live_in = malloc(B * sizeof *vf.live_in);
    vf.live_out = malloc(B * sizeof *vf.live_out);
    vf.reach_in = malloc(B * sizeof *vf.reach_in);
    uint32_t *owner = malloc((a->reg_count ? a->reg_count : 1) * sizeof *owner);
    uint32_t *stamp = calloc(a->reg_count ? a->reg_count : 1, sizeof *stamp);
    int ok = mem && vf.phys && vf.is_const && vf.live_in && vf.live_out && vf.reach_in && owner && stamp;
    if (!ok)
        snprintf(err, err_size, "out of memory");
    ok = ok && read_renaming(&vf);
    for (uint32_t i = 0; ok && i < v->const_count; i++)
        vf.is_const[v->consts[i].reg] = 1;
    if (ok) {
        vf.tmp = (bitset){mem, words};
        vf.reach = (bitset){mem + words, words};
        for (uint32_t b = 0; b < B; b++) {
            vf.live_in[b] = (bitset){(uint64_t *)isa_lane_set(&ll, b, ISA_LANE_LIVE_IN), words};
            vf.live_out[b] = (bitset){(uint64_t *)isa_lane_set(&ll, b, ISA_LANE_LIVE_OUT), words};
            vf.reach_in[b] = (bitset){(uint64_t *)isa_lane_set(&ll, b, ISA_LANE_REACH_IN), words};
        }
    }
    /* check every instruction: live-out (and defined) values plus its own writes must not share a register */
    ok = ok && check_interference(&vf, owner, stamp) && check_waiting_lanes(&vf) && check_constants(a, err, err_size);
    free(owner), free(stamp), free(vf.live_in), free(vf.live_out), free(vf.reach_in), free(vf.is_const);
    free(vf.phys), free(mem), free(ll.mem), free(ll.kills);
    return ok;
}
