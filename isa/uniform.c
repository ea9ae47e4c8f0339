/*
 * isa/uniform.c — uniformity analysis and instruction classes.
 *
 * A register is wave-uniform when every lane that can read it holds the same
 * value.  Sources of uniform values: constants, push constants, workgroup
 * id / count / size, subgroup size / id / count, results of subgroup
 * reductions and broadcasts, scalar-eligible loads (a uniform address in a
 * storage, uniform or push-constant block the kernel never writes), and
 * arithmetic on uniform values.  As in AMD's compiler (ACO, after NIR's
 * divergence analysis), a value is per-lane only because of its operands or
 * of control flow that gives lanes different copies of it, not because of
 * where it is computed: a uniform value in a divergent block is uniform
 * among the lanes that run the block, and is one SGPR there.  Control flow
 * makes per-lane:
 *   - a phi copy on an edge of a per-lane branch, or on a forward edge out of
 *     a divergent block (a phi where lanes of divergent paths meet); the back
 *     edge of a loop (one block, the continue construct's) keeps its value's
 *     uniformity;
 *   - a value defined in a loop that lanes may leave at different iterations
 *     and read after it: each lane keeps the value of the iteration it left
 *     at;
 *   - a register written in a divergent block that has another definition
 *     (a `vinsert` into an array, a value updated in one branch): its old
 *     value may still be needed by lanes that do not run the block.
 *
 * Block divergence comes from branches: a conditional branch or switch on a
 * per-lane value (or any conditional branch inside a divergent block) makes
 * divergent every block it reaches before the lanes meet again — at its
 * merge block, at the continue target of its loop, or, when it reaches the
 * merge of its loop (a break), after the whole loop, which then becomes
 * divergent as a whole.  A loop header branching on a per-lane value makes
 * its whole loop divergent.  Registers and blocks start optimistic (uniform,
 * convergent) and only ever fall, so iterating reaches a fixed point.
 *
 * What the executor needs: a scalar ALU instruction ignores exec and writes
 * every live lane (sim/exec.c), as an SGPR has one value for the wave.  In a
 * divergent block that write reaches lanes that are waiting elsewhere (in
 * the other branch, after a loop they left), so a register that some of
 * them still need must not be written there: the rules above keep each
 * value's own old contents out of reach, and the allocation keeps other
 * values apart by liveness on the linear program (isa/regalloc.c's
 * intervals; isa_verify_allocation checks both, isa/liveness.c).
 */
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"

typedef struct uctx {
    isa_program *p;
    uint32_t *block_of_pc;
    uint8_t *uniform;     /* per register */
    uint8_t *div;         /* per block */
    uint8_t *reconv;      /* per block */
    uint8_t *div_exit;    /* per block: a loop header whose lanes may leave at different iterations */
    uint32_t *defs;       /* per register: instructions that write it */
    uint32_t *stamp;      /* per register: scratch of mark_loop_outputs */
    uint32_t *group;      /* union-find over registers that must share a file */
    uint32_t *stack;
} uctx;

static uint32_t find(uint32_t *g, uint32_t r)
{
    while (g[r] != r)
        r = g[r] = g[g[r]];
    return r;
}

static int span_uniform(const uctx *u, isa_span s)
{
    for (uint32_t r = s.first; r < s.first + s.count && r < u->p->reg_count; r++)
        if (!u->uniform[r])
            return 0;
    return 1;
}

static int reg_uniform(const uctx *u, uint32_t r) { return r == ISA_NO_REG || r >= u->p->reg_count || u->uniform[r]; }

/* A memory instruction reaches one descriptor for the wave: no run-time index, or a uniform one. */
static int index_uniform(const uctx *u, const isa_inst *in)
{
    return in->desc_index == ISA_DESC_NONE || reg_uniform(u, in->x);
}

/* Block b ends with a loop's back edge and nothing else: its phi copies feed the loop header's phis, which the
 * lanes still in the loop all take together. */
static int back_edge_block(const isa_program *p, uint32_t b)
{
    const isa_block *bl = &p->blocks[b];
    return bl->nsucc == 1 && bl->succ[0] <= b && bl->succ[0] < p->block_count && p->blocks[bl->succ[0]].is_loop;
}

/* Whether instruction i leaves uniform values in what it writes, given the current facts. */
static int result_uniform(const uctx *u, uint32_t i)
{
    const isa_program *p = u->p;
    const isa_inst *in = &p->code[i];
    uint32_t b = u->block_of_pc[i];
    int div = b != ISA_NO_BLOCK && u->div[b];
    isa_span rd[6], wr[2];
    int nr, nw;
    isa_inst_regs(in, rd, &nr, wr, &nw);
    int reads_uniform = 1;
    for (int k = 0; k < nr; k++)
        reads_uniform &= span_uniform(u, rd[k]);
    /* a second definition in a divergent block: the lanes that skip the block keep (and may need) the first */
    for (int k = 0; div && in->op != ISA_OP_MOVM && k < nw; k++)
        for (uint32_t r = wr[k].first; r < wr[k].first + wr[k].count && r < p->reg_count; r++)
            if (u->defs[r] > 1)
                return 0;
    switch (isa_op_uniform((isa_op)in->op)) {
    case ISA_UNIFORM_PHI: {
        /* a phi copy on an edge of a per-lane branch gives lanes different values; so does one on a forward
         * edge out of a divergent block (its phi is where lanes of divergent paths meet) */
        uint32_t c = b != ISA_NO_BLOCK ? p->blocks[b].cond : ISA_NO_REG;
        if (div && !back_edge_block(p, b))
            return 0;
        return reads_uniform && reg_uniform(u, c);
    }
    case ISA_UNIFORM_LANE:
        return 0;
    case ISA_UNIFORM_WAVE: /* one value for the wave, unless a per-lane index picks a descriptor per lane */
        return index_uniform(u, in);
    case ISA_UNIFORM_BCAST:
        return reg_uniform(u, in->b);
    case ISA_UNIFORM_BALLOT_BIT:
        return reg_uniform(u, in->b) && reg_uniform(u, in->a);
    case ISA_UNIFORM_BALLOT_CNT:
        return in->imm == 0 && reads_uniform;
    case ISA_UNIFORM_WAVE_OP:
        return (in->imm2 & 0xff) == ISA_GROUP_REDUCE;
    case ISA_UNIFORM_LOAD:
        return isa_scalar_loadable(p, in) && reg_uniform(u, in->a) && index_uniform(u, in);
    case ISA_UNIFORM_READS:
        return reads_uniform;
    }
    return reads_uniform;
}

/* The block after the loop headed by block h: its merge block, or the end of the program. */
static uint32_t loop_end(const isa_program *p, uint32_t h)
{
    return p->blocks[h].merge != ISA_NO_BLOCK && p->blocks[h].merge > h ? p->blocks[h].merge : p->block_count;
}

/* Marks every block of the loop headed by block h divergent: lanes may leave it at different iterations. */
static int mark_loop(uctx *u, uint32_t h)
{
    const isa_program *p = u->p;
    uint32_t end = loop_end(p, h);
    int changed = !u->div_exit[h];
    u->div_exit[h] = 1;
    for (uint32_t b = h; b < end; b++)
        if (!u->div[b])
            u->div[b] = 1, changed = 1;
    if (end < p->block_count)
        u->reconv[end] = 1;
    return changed;
}

/* Every block divergent and every loop left at different iterations: true of any program. */
static int mark_everything(uctx *u)
{
    int changed = 0;
    for (uint32_t b = 0; b < u->p->block_count; b++) {
        changed |= !u->div[b] || (u->p->blocks[b].is_loop && !u->div_exit[b]);
        u->div[b] = 1;
        u->div_exit[b] |= u->p->blocks[b].is_loop;
    }
    return changed;
}

/* The innermost loop whose construct holds block b (not b itself), or ISA_NO_BLOCK. */
static uint32_t enclosing_loop(const isa_program *p, uint32_t b)
{
    for (uint32_t l = b; l-- > 0;)
        if (p->blocks[l].is_loop && (p->blocks[l].merge == ISA_NO_BLOCK || p->blocks[l].merge > b))
            return l;
    return ISA_NO_BLOCK;
}

/* Block h ends with a branch whose lanes may split: mark what they run apart. */
static int mark_region(uctx *u, uint32_t h)
{
    const isa_program *p = u->p;
    const isa_block *hb = &p->blocks[h];
    if (hb->is_loop)
        return mark_loop(u, h);
    int changed = 0;
    uint32_t stop = hb->merge;
    uint32_t loop = enclosing_loop(p, h);
    uint32_t lmerge = loop != ISA_NO_BLOCK ? p->blocks[loop].merge : ISA_NO_BLOCK;
    uint32_t lcont = loop != ISA_NO_BLOCK ? p->blocks[loop].cont : ISA_NO_BLOCK;
    uint8_t *seen = calloc(p->block_count, 1);
    if (!seen)
        return mark_everything(u); /* out of memory: everything divergent is always safe */
    uint32_t n = 0;
    for (uint32_t s = 0; s < hb->nsucc; s++)
        u->stack[n++] = hb->succ[s];
    if (stop != ISA_NO_BLOCK)
        u->reconv[stop] = 1;
    while (n) {
        uint32_t b = u->stack[--n];
        if (b >= p->block_count || seen[b] || b == stop || b <= h)
            continue;
        seen[b] = 1;
        if (b == lmerge) { /* a break: lanes leave the loop at different iterations */
            changed |= mark_loop(u, loop);
            continue;
        }
        if (b == lcont) { /* a continue: the iteration's lanes meet again at the continue target */
            u->reconv[b] = 1;
            continue;
        }
        if (!u->div[b])
            u->div[b] = 1, changed = 1;
        const isa_block *bb = &p->blocks[b];
        for (uint32_t s = 0; s < bb->nsucc; s++)
            if (bb->succ[s] > b)
                u->stack[n++] = bb->succ[s];
    }
    free(seen);
    return changed;
}

/* A register written inside a loop that lanes leave at different iterations and read outside it is per-lane:
 * each lane that left holds the value of its last iteration, while the others go on writing theirs. */
static int mark_loop_outputs(uctx *u)
{
    const isa_program *p = u->p;
    uint32_t N = p->code_count, R = p->reg_count;
    int changed = 0;
    for (uint32_t h = 0; h < p->block_count; h++) {
        if (!u->div_exit[h])
            continue;
        uint32_t end = loop_end(p, h);
        /* first the registers the loop writes (stamped h + 1), then the reads of them outside it */
        for (int outside = 0; outside < 2; outside++)
            for (uint32_t i = 0; i < N; i++) {
                uint32_t b = u->block_of_pc[i];
                int in_loop = b != ISA_NO_BLOCK && b >= h && b < end;
                if (in_loop == outside)
                    continue;
                isa_span rd[6], wr[2];
                int nr, nw;
                isa_inst_regs(&p->code[i], rd, &nr, wr, &nw);
                const isa_span *sp = outside ? rd : wr;
                for (int k = 0; k < (outside ? nr : nw); k++)
                    for (uint32_t r = sp[k].first; r < sp[k].first + sp[k].count && r < R; r++)
                        if (!outside)
                            u->stamp[r] = h + 1;
                        else if (u->stamp[r] == h + 1 && u->uniform[r])
                            u->uniform[r] = 0, changed = 1;
            }
    }
    return changed;
}

isa_status isa_analyze_uniformity(isa_program *p)
{
    uint32_t R = p->reg_count, N = p->code_count, B = p->block_count;
    uctx u = {.p = p};
    free(p->reg_uniform);
    p->reg_uniform = NULL;
    u.uniform = malloc(R ? R : 1);
    u.block_of_pc = malloc((N ? N : 1) * sizeof *u.block_of_pc);
    u.div = calloc(B ? B : 1, 1);
    u.reconv = calloc(B ? B : 1, 1);
    u.div_exit = calloc(B ? B : 1, 1);
    u.defs = calloc(R ? R : 1, sizeof *u.defs);
    u.stamp = calloc(R ? R : 1, sizeof *u.stamp);
    u.group = malloc((R ? R : 1) * sizeof *u.group);
    size_t edges = 4;
    for (uint32_t b = 0; b < B; b++)
        edges += p->blocks[b].nsucc + 1;
    u.stack = malloc(edges * sizeof *u.stack);
    if (!u.uniform || !u.block_of_pc || !u.div || !u.reconv || !u.div_exit || !u.defs || !u.stamp || !u.group ||
        !u.stack) {
        free(u.uniform), free(u.block_of_pc), free(u.div), free(u.reconv), free(u.div_exit), free(u.defs);
        free(u.stamp), free(u.group), free(u.stack);
        return ISA_ERR_NOMEM;
    }
    memset(u.uniform, 1, R ? R : 1);
    for (uint32_t i = 0; i < N; i++)
        u.block_of_pc[i] = ISA_NO_BLOCK;
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t i = p->blocks[b].start_pc; i < p->blocks[b].end_pc && i < N; i++)
            u.block_of_pc[i] = b;
    /* built-ins that differ between lanes */
    for (uint32_t k = 0; k < p->builtin_count; k++) {
        switch ((isa_builtin)p->builtins[k].builtin) {
        case ISA_BI_WORKGROUP_ID: case ISA_BI_NUM_WORKGROUPS: case ISA_BI_WORKGROUP_SIZE: case ISA_BI_SUBGROUP_SIZE:
        case ISA_BI_SUBGROUP_ID: case ISA_BI_NUM_SUBGROUPS:
            break;
        default:
            if (p->builtins[k].reg < R)
                u.uniform[p->builtins[k].reg] = 0;
        }
    }
    /* registers an instruction reads or writes as one span (a vec4 load, a ballot) share one file */
    for (uint32_t r = 0; r < R; r++)
        u.group[r] = r;
    for (uint32_t i = 0; i < N; i++) {
        isa_span sp[8];
        int nr, nw;
        isa_inst_regs(&p->code[i], sp, &nr, sp + 6, &nw);
        for (int k = 0; k < nw; k++)
            for (uint32_t r = sp[6 + k].first; r < sp[6 + k].first + sp[6 + k].count && r < R; r++)
                u.defs[r]++;
        for (int k = 0; k < 8; k++) {
            if ((k < 6 && k >= nr) || (k >= 6 && k - 6 >= nw))
                continue;
            for (uint32_t j = 1; j < sp[k].count && sp[k].first + j < R; j++)
                u.group[find(u.group, sp[k].first + j)] = find(u.group, sp[k].first);
        }
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = 0; i < N; i++) {
            if (result_uniform(&u, i))
                continue;
            isa_span rd[6], wr[2];
            int nr, nw;
            isa_inst_regs(&p->code[i], rd, &nr, wr, &nw);
            for (int k = 0; k < nw; k++)
                for (uint32_t r = wr[k].first; r < wr[k].first + wr[k].count && r < R; r++)
                    if (u.uniform[r])
                        u.uniform[r] = 0, changed = 1;
        }
        /* a span is one value to the allocator: per-lane if any part is */
        for (uint32_t r = 0; r < R; r++)
            if (!u.uniform[r] && u.uniform[find(u.group, r)])
                u.uniform[find(u.group, r)] = 0, changed = 1;
        for (uint32_t r = 0; r < R; r++)
            if (u.uniform[r] && !u.uniform[find(u.group, r)])
                u.uniform[r] = 0, changed = 1;
        for (uint32_t b = 0; b < B; b++) {
            const isa_block *bl = &p->blocks[b];
            if (bl->cond == ISA_NO_REG)
                continue;
            if (!reg_uniform(&u, bl->cond) || u.div[b])
                changed |= mark_region(&u, b);
        }
        changed |= mark_loop_outputs(&u);
    }
    /* classes and flags */
    for (uint32_t b = 0; b < B; b++) {
        p->blocks[b].divergent = u.div[b];
        p->blocks[b].reconverges = u.reconv[b];
    }
    for (uint32_t i = 0; i < N; i++) {
        isa_inst *in = &p->code[i];
        uint32_t b = u.block_of_pc[i];
        int div = b != ISA_NO_BLOCK && u.div[b];
        int cond_uniform = b == ISA_NO_BLOCK || reg_uniform(&u, p->blocks[b].cond);
        isa_span rd[6], wr[2];
        int nr, nw;
        isa_inst_regs(in, rd, &nr, wr, &nw);
        int writes_uniform = nw > 0;
        for (int k = 0; k < nw; k++)
            writes_uniform &= span_uniform(&u, wr[k]);
        in->flags &= ~(ISA_INST_DIVERGENT | ISA_INST_UNIFORM_ADDR | ISA_INST_UNIFORM_COND);
        if (div)
            in->flags |= ISA_INST_DIVERGENT;
        isa_op op = (isa_op)in->op;
        switch (isa_op_class(op)) {
        case ISA_CLASS_VALU:
            in->cls = (uint8_t)(writes_uniform ? ISA_CLASS_SALU : ISA_CLASS_VALU);
            break;
        case ISA_CLASS_SALU: /* a buffer's or texel buffer's size: per lane when a per-lane index picks it */
            if (in->desc_index != ISA_DESC_NONE)
                in->cls = (uint8_t)(writes_uniform ? ISA_CLASS_SALU : ISA_CLASS_VALU);
            break;
        case ISA_CLASS_VMEM:
            if (op == ISA_OP_LOAD || op == ISA_OP_STORE || op == ISA_OP_ATOMIC || op == ISA_OP_IMG_READ ||
                op == ISA_OP_IMG_WRITE || op == ISA_OP_IMG_LOAD || op == ISA_OP_IMG_STORE || op == ISA_OP_IMG_SAMPLE ||
                op == ISA_OP_IMG_GATHER || op == ISA_OP_IMG_ATOMIC)
                if (reg_uniform(&u, in->a) && index_uniform(&u, in))
                    in->flags |= ISA_INST_UNIFORM_ADDR;
            if (op == ISA_OP_LOAD && writes_uniform && isa_scalar_loadable(p, in))
                in->cls = ISA_CLASS_SMEM;
            else if (op == ISA_OP_LOAD && in->cls == ISA_CLASS_SMEM && p->slots[in->slot].space != ISA_SPACE_PUSH &&
                     !isa_scalar_loadable(p, in))
                in->cls = ISA_CLASS_VMEM;
            break;
        case ISA_CLASS_EXEC:
            switch (op) {
            case ISA_OP_BLOCK:
                in->cls = (uint8_t)(!div && !(b != ISA_NO_BLOCK && u.reconv[b]) ? ISA_CLASS_BRANCH : ISA_CLASS_EXEC);
                break;
            case ISA_OP_MASK_COND: case ISA_OP_BRANCH: case ISA_OP_MASK_CASE:
                if (!div && reg_uniform(&u, in->a))
                    in->flags |= ISA_INST_UNIFORM_COND;
                in->cls = (uint8_t)(in->flags & ISA_INST_UNIFORM_COND ? ISA_CLASS_BRANCH : ISA_CLASS_EXEC);
                break;
            default:
                in->cls = (uint8_t)(!div && cond_uniform ? ISA_CLASS_BRANCH : ISA_CLASS_EXEC);
                break;
            }
            break;
        default:
            break;
        }
    }
    p->reg_uniform = u.uniform;
    p->res.virtual_regs = R;
    p->res.uniform_regs = 0;
    for (uint32_t r = 0; r < R; r++)
        p->res.uniform_regs += u.uniform[r];
    free(u.block_of_pc), free(u.div), free(u.reconv), free(u.div_exit), free(u.defs), free(u.stamp), free(u.group);
    free(u.stack);
    return ISA_OK;
}
