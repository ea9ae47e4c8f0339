/*
 * isa/lean.c — lean wave programs: removes instructions the lowering emits
 * mechanically and that no lane's result depends on, without changing which
 * lanes any instruction runs with (the rule of docs/design.md: the kernel as
 * written; blocks and their order are left as lowered, and exec is the same
 * at every kept instruction).
 *
 * Before the uniformity analysis and the allocation (isa_lean_before_allocation):
 *  - copy propagation: `mov d, a` where d is written once and a is written at
 *    most once (an SSA value, a constant or a built-in) — every read of d
 *    reads a instead, and the move goes.  In SSA each lane reads d only after
 *    it ran the move, and a is not written again, so every lane reads the
 *    same bits (MOV copies all 64 bits whatever its type).  A copy of a
 *    register written more than once (a loop phi: `uint(i)` of a counter)
 *    goes too when every read of d follows the move in its block before
 *    anything writes a again (a block runs straight through with one exec);
 *  - dead moves: a move whose destination nothing reads;
 *  - scalar loads the entry block already made: a load of a read-only block
 *    (push constants, a never-written buffer) at a constant address whose
 *    bytes an entry-block load of the same block and type already read reuses
 *    those registers.  This keeps loop-invariant push-constant loads out of
 *    loops.  The entry block runs first, with every lane, so the earlier load
 *    has always run (and would have faulted first); a load with no such
 *    earlier twin stays where it is, since moving it could fault in a run
 *    whose loop never iterates.
 *
 * After the allocation (isa_lean_after_allocation), where the allocator has
 * given a loop phi and its back-edge value one register (phi coalescing,
 * isa/regalloc.c):
 *  - self-moves (`mov v3, v3`, `movm s2 = s2`) go;
 *  - an unconditional edge needs no edge mask, which is exec: `mask_exec m;
 *    movm d = a (lanes of m) ...; mask_or T |= m` becomes `mov d, a ...;
 *    join T` (a vector mov writes the lanes of exec; a scalar one every live
 *    lane, so only outside divergent blocks), and `mask_cond mt; mask_cond mf; ...
 *    mask_or T |= mt; mask_or F |= mf` becomes `branch.b T, F` — the same
 *    lanes arrive at the same blocks;
 *  - fused compare-and-branch: an integer comparison followed by the branch
 *    on its result (same block, same source line) becomes one `branch_cmp`,
 *    which writes the comparison's register exactly as the comparison did
 *    (it keeps its class, so a scalar one still writes every live lane) and
 *    then ORs the edges.  Per-line statistics lose one instruction, none move;
 *  - branches without the mask round trip (branches_without_masks): a branch
 *    and the `block` of its true target, when that is the next block and has
 *    no other way in, become one `branch_if`, which leaves exec as it is when
 *    every active lane goes that way (always, for a uniform condition); a
 *    loop's back edge becomes a `jump` into its header's body.
 *
 * Removing an instruction renumbers the program: jump targets (BLOCK's skip,
 * LOOP's header), block ranges and the per-instruction live counts follow.
 * No instruction moves here, and every kept one keeps its source line; the
 * one lean step that moves instructions, loop-invariant scalar arithmetic
 * out of loops, is isa/lean_hoist.c (between the uniformity analysis and the
 * allocation).
 *
 * `--no-lean` (any command) or WAVELAB_NO_LEAN=1 turns all of it off (and
 * the allocator's coalescing with it), for A/B comparisons.
 */
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"

static int lean_switch = 1;

void isa_lean_set_enabled(int enabled) { lean_switch = enabled != 0; }

int isa_lean_enabled(void)
{
    const char *env = getenv("WAVELAB_NO_LEAN");
    return lean_switch && !(env && env[0] && strcmp(env, "0") != 0);
}

/* ------------------------------------------------------------ renumbering */

/* Drops the instructions with keep[i] == 0 and renumbers what points at pcs. */
static isa_status compact(isa_program *p, const uint8_t *keep)
{
    uint32_t N = p->code_count;
    uint32_t *newpc = malloc((N + 1) * sizeof *newpc); /* the first kept instruction at or after i */
    if (!newpc)
        return ISA_ERR_NOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < N; i++) {
        newpc[i] = n;
        n += keep[i] != 0;
    }
    newpc[N] = n;
    if (n == N) {
        free(newpc);
        return ISA_OK;
    }
    for (uint32_t i = 0, o = 0; i < N; i++) {
        if (!keep[i])
            continue;
        isa_inst in = p->code[i];
        if ((in.op == ISA_OP_BLOCK || in.op == ISA_OP_LOOP || in.op == ISA_OP_BRANCH_IF || in.op == ISA_OP_JUMP) &&
            in.imm >= 0 && in.imm <= (int64_t)N)
            in.imm = newpc[in.imm];
        p->code[o] = in;
        if (p->live_vgprs)
            p->live_vgprs[o] = p->live_vgprs[i];
        if (p->live_sgprs)
            p->live_sgprs[o] = p->live_sgprs[i];
        o++;
    }
    for (uint32_t b = 0; b < p->block_count; b++) {
        p->blocks[b].start_pc = newpc[p->blocks[b].start_pc <= N ? p->blocks[b].start_pc : N];
        p->blocks[b].end_pc = newpc[p->blocks[b].end_pc <= N ? p->blocks[b].end_pc : N];
    }
    p->code_count = n;
    free(newpc);
    return ISA_OK;
}

/* The block holding each instruction (ISA_NO_BLOCK outside any). */
static uint32_t *blocks_of_pcs(const isa_program *p)
{
    uint32_t *bo = malloc((p->code_count ? p->code_count : 1) * sizeof *bo);
    if (!bo)
        return NULL;
    for (uint32_t i = 0; i < p->code_count; i++)
        bo[i] = ISA_NO_BLOCK;
    for (uint32_t b = 0; b < p->block_count; b++)
        for (uint32_t i = p->blocks[b].start_pc; i < p->blocks[b].end_pc && i < p->code_count; i++)
            bo[i] = b;
    return bo;
}

/* ------------------------------------------------------------ before allocation */


static uint32_t resolve(const uint32_t *sub, uint32_t r)
{
    while (sub[r] != ISA_NO_REG)
        r = sub[r];
    return r;
}

/* The constant byte address of a memory instruction (a = none or a constant register), or -1. */
static int64_t const_address(const isa_program *p, const isa_inst *in)
{
    if (in->a == ISA_NO_REG)
        return in->imm;
    for (uint32_t k = 0; k < p->const_count; k++)
        if (p->consts[k].reg == in->a)
            return (int64_t)(uint32_t)p->consts[k].bits + in->imm;
    return -1;
}

static int scalar_block(const isa_program *p, const isa_inst *in)
{
    return in->op == ISA_OP_LOAD && in->desc_index == ISA_DESC_NONE && isa_scalar_loadable(p, in);
}

/* Counts the reads of each single register by the instructions kept (all when keep is NULL) and the
 * blocks' conditions. */
static void count_reads(const isa_program *p, const uint8_t *keep, uint32_t R, uint32_t *reads)
{
    memset(reads, 0, (R ? R : 1) * sizeof *reads);
    for (uint32_t i = 0; i < p->code_count; i++) {
        if (keep && !keep[i])
            continue;
        const isa_inst *in = &p->code[i];
        unsigned f = isa_inst_reg_fields(in, 1, 0, 1);
        for (unsigned k = 0; k < ISA_FIELD_COUNT; k++)
            if ((f >> k) & 1 && isa_inst_field(in, k) < R)
                reads[isa_inst_field(in, k)]++;
    }
    for (uint32_t b = 0; b < p->block_count; b++)
        if (p->blocks[b].cond < R)
            reads[p->blocks[b].cond]++;
}

/* All `nreads` reads of d come after instruction i in its block, before anything writes a again: there every
 * lane reads in a what the copy put in d (a block runs straight through, with one exec). */
static int reads_before_rewrite(const isa_program *p, const uint32_t *bo, uint32_t i, uint32_t d, uint32_t a,
                                uint32_t nreads)
{
    uint32_t seen = 0;
    for (uint32_t j = i + 1; j < p->code_count && bo[j] == bo[i] && bo[i] != ISA_NO_BLOCK && seen < nreads; j++) {
        const isa_inst *in = &p->code[j];
        unsigned f = isa_inst_reg_fields(in, 1, 0, 1);
        for (unsigned k = 0; k < ISA_FIELD_COUNT; k++)
            seen += (f >> k) & 1 && isa_inst_field(in, k) == d;
        isa_span rd[6], wr[2];
        int nr, nw;
        isa_inst_regs(in, rd, &nr, wr, &nw);
        for (int k = 0; k < nw; k++)
            if (a >= wr[k].first && a < wr[k].first + wr[k].count)
                return seen == nreads;
    }
    return seen == nreads;
}

isa_status isa_lean_before_allocation(isa_program *p)
{
    if (!isa_lean_enabled() || p->allocated || !p->code_count)
        return ISA_OK;
    uint32_t R = p->reg_count, N = p->code_count;
    isa_status st = ISA_ERR_NOMEM;
    uint32_t *defs = calloc(R ? R : 1, sizeof *defs), *reads = calloc(R ? R : 1, sizeof *reads);
    uint32_t *spans = calloc(R ? R : 1, sizeof *spans); /* spans of two or more registers holding it */
    uint32_t *sub = malloc((R ? R : 1) * sizeof *sub);
    uint8_t *fixed = calloc(R ? R : 1, 1);              /* built-ins: defined when the wave starts */
    uint8_t *keep = malloc(N);
    uint32_t *bo = NULL;
    if (!defs || !reads || !spans || !sub || !fixed || !keep)
        goto out;
    memset(keep, 1, N);
    for (uint32_t r = 0; r < R; r++)
        sub[r] = ISA_NO_REG;
    for (uint32_t k = 0; k < p->builtin_count; k++)
        if (p->builtins[k].reg < R)
            fixed[p->builtins[k].reg] = 1;
    for (uint32_t i = 0; i < N; i++) {
        isa_span rd[6], wr[2];
        int nr, nw;
        isa_inst_regs(&p->code[i], rd, &nr, wr, &nw);
        for (int k = 0; k < nw; k++)
            for (uint32_t r = wr[k].first; r < wr[k].first + wr[k].count && r < R; r++) {
                defs[r]++;
                spans[r] += wr[k].count > 1;
            }
        for (int k = 0; k < nr; k++)
            for (uint32_t r = rd[k].first; r < rd[k].first + rd[k].count && r < R; r++)
                spans[r] += rd[k].count > 1;
    }
    /* scalar loads the entry block already made */
    if (p->block_count) {
        const isa_block *e = &p->blocks[0];
        for (uint32_t i = e->start_pc; i < e->end_pc && i < N; i++) {
            const isa_inst *E = &p->code[i];
            int64_t ea = const_address(p, E);
            if (!scalar_block(p, E) || ea < 0 || E->d >= R)
                continue;
            uint32_t ecount = E->count ? E->count : 1, size = isa_type_size((isa_type)E->type);
            int ok = size > 0 && E->d + ecount <= R;
            for (uint32_t k = 0; ok && k < ecount; k++)
                ok = defs[E->d + k] == 1;
            for (uint32_t j = i + 1; ok && j < N; j++) {
                const isa_inst *L = &p->code[j];
                int64_t la = const_address(p, L);
                uint32_t lcount = L->count ? L->count : 1;
                if (!keep[j] || L->op != ISA_OP_LOAD || L->slot != E->slot || L->desc_index || L->type != E->type ||
                    la < ea || L->d >= R || L->d + lcount > R || (la - ea) % size ||
                    la + (int64_t)lcount * size > ea + (int64_t)ecount * size)
                    continue;
                int mine = 1; /* its registers: written only here, read one by one */
                for (uint32_t k = 0; k < lcount; k++)
                    mine &= defs[L->d + k] == 1 && spans[L->d + k] == (lcount > 1) && !fixed[L->d + k];
                if (!mine)
                    continue;
                uint32_t off = (uint32_t)((la - ea) / size);
                for (uint32_t k = 0; k < lcount; k++)
                    sub[L->d + k] = E->d + off + k;
                keep[j] = 0;
            }
        }
    }
    /* copy propagation; a copy of a register written more than once (a loop phi) only where every read
     * of the copy follows it in its block before the source is written again */
    bo = blocks_of_pcs(p);
    if (!bo)
        goto out;
    count_reads(p, NULL, R, reads);
    for (uint32_t i = 0; i < N; i++) {
        const isa_inst *in = &p->code[i];
        if (in->op != ISA_OP_MOV || in->d >= R || in->a >= R || in->d == in->a)
            continue;
        uint32_t d = in->d, a = resolve(sub, in->a);
        if (defs[d] != 1 || spans[d] || fixed[d] || sub[d] != ISA_NO_REG)
            continue;
        if (defs[a] > 1 && !reads_before_rewrite(p, bo, i, d, a, reads[d]))
            continue;
        sub[d] = a;
        keep[i] = 0;
    }
    for (uint32_t i = 0; i < N; i++) {
        isa_inst *in = &p->code[i];
        if (!keep[i])
            continue;
        unsigned f = isa_inst_reg_fields(in, 1, 0, 1);
        for (unsigned k = 0; k < ISA_FIELD_COUNT; k++) {
            uint32_t *r = isa_inst_field_ref(in, k);
            if ((f >> k) & 1 && *r < R)
                *r = resolve(sub, *r);
        }
    }
    for (uint32_t b = 0; b < p->block_count; b++)
        if (p->blocks[b].cond < R)
            p->blocks[b].cond = resolve(sub, p->blocks[b].cond);
    count_reads(p, keep, R, reads);
    /* dead moves (spans count as reads) */
    for (uint32_t i = 0; i < N; i++) {
        const isa_inst *in = &p->code[i];
        if (keep[i] && in->op == ISA_OP_MOV && in->d < R && !reads[in->d] && !spans[in->d] && defs[in->d] == 1 &&
            !fixed[in->d])
            keep[i] = 0;
    }
    st = compact(p, keep);
out:
    free(defs), free(reads), free(spans), free(sub), free(fixed), free(keep), free(bo);
    return st;
}

/* ------------------------------------------------------------ after allocation */

/* Mask operands of an instruction (bits of d, a, b, c, e as 1, 2, 4, 8, 16), from its shape. */
static unsigned mask_fields(const isa_inst *in)
{
    const isa_shape *sh = isa_op_shape((isa_op)in->op);
    unsigned f = 0;
    for (unsigned k = 0; k < sh->count; k++)
        if (sh->op[k].role == ISA_ROLE_MASK)
            f |= 1u << sh->op[k].field;
    return f;
}

static int refers_to_mask(const isa_inst *in, uint32_t m)
{
    unsigned f = mask_fields(in);
    for (unsigned k = 0; k < ISA_FIELD_COUNT; k++)
        if ((f >> k) & 1 && isa_inst_field(in, k) == m)
            return 1;
    return 0;
}

/* The MASK_OR after i, in i's block, that reads mask m (the only other use of m), or UINT32_MAX. */
static uint32_t or_of_edge(const isa_program *p, const uint8_t *keep, const uint32_t *bo, uint32_t i, uint32_t m)
{
    for (uint32_t j = i + 1; j < p->code_count && bo[j] == bo[i]; j++) {
        const isa_inst *in = &p->code[j];
        if (!keep[j])
            continue;
        if (in->op == ISA_OP_MASK_OR && in->a == m)
            return j;
        if (in->op != ISA_OP_MOVM && in->op != ISA_OP_MOV && in->op != ISA_OP_MASK_OR)
            return UINT32_MAX;
    }
    return UINT32_MAX;
}

/* No kept instruction in (from, to) other than skip1/skip2 refers to mask m. */
static int mask_quiet(const isa_program *p, const uint8_t *keep, uint32_t from, uint32_t to, uint32_t m,
                      uint32_t skip1, uint32_t skip2)
{
    for (uint32_t j = from + 1; j < to; j++)
        if (keep[j] && j != skip1 && j != skip2 && refers_to_mask(&p->code[j], m))
            return 0;
    return 1;
}

static int is_int_compare(isa_op op)
{
    return op == ISA_OP_IEQ || op == ISA_OP_INE || op == ISA_OP_ULT || op == ISA_OP_ULE || op == ISA_OP_SLT ||
           op == ISA_OP_SLE;
}

/* Counts the kept instructions that name each mask. */
static void count_mask_uses(const isa_program *p, const uint8_t *keep, uint32_t *uses)
{
    uint32_t M = p->mask_count;
    memset(uses, 0, (M ? M : 1) * sizeof *uses);
    for (uint32_t i = 0; i < p->code_count; i++) {
        if (!keep[i])
            continue;
        const isa_inst *in = &p->code[i];
        unsigned f = mask_fields(in);
        for (unsigned k = 0; k < ISA_FIELD_COUNT; k++)
            if ((f >> k) & 1 && isa_inst_field(in, k) < M)
                uses[isa_inst_field(in, k)]++;
    }
}

/* A phi copy `movm d = a (lanes of m)` where m is exec may be a plain `mov`: a vector one writes the lanes of
 * exec, a scalar one every live lane, which are the lanes of exec outside divergent blocks. */
static int copy_may_drop_mask(const isa_inst *in)
{
    return in->cls == ISA_CLASS_VALU || (in->cls == ISA_CLASS_SALU && !(in->flags & ISA_INST_DIVERGENT));
}

/* 1 when a kept jump (block skip, loop, branch_if, jump) targets pc t. */
static int jump_target(const isa_program *p, const uint8_t *keep, uint32_t t)
{
    for (uint32_t i = 0; i < p->code_count; i++) {
        const isa_inst *in = &p->code[i];
        if (keep[i] && (in->op == ISA_OP_BLOCK || in->op == ISA_OP_LOOP || in->op == ISA_OP_BRANCH_IF ||
                        in->op == ISA_OP_JUMP) && in->imm == (int64_t)t)
            return 1;
    }
    return 0;
}

/* The next kept instruction after i (p->code_count when none). */
static uint32_t next_kept(const isa_program *p, const uint8_t *keep, uint32_t i)
{
    uint32_t j = i + 1;
    while (j < p->code_count && !keep[j])
        j++;
    return j;
}

/*
 * Branches without the mask round trip (the lanes stay the same):
 *  - branch_if: a conditional branch (branch or branch_cmp) whose true target
 *    is the next block, reached from nowhere else (its mask is named by the
 *    branch and its `block` only), and whose `block` no jump targets: the
 *    branch and that `block` become one branch_if, which narrows exec to the
 *    true lanes and ORs the others into the false target's mask, or, when no
 *    lane is true, sets exec to 0 and jumps where the `block` would have
 *    skipped to.  When the condition is uniform, every active lane goes the
 *    same way: exec is left as it is (the true side) or the block is skipped
 *    (the false side), with no mask work on the taken side.
 *  - jump: a loop's back edge `join H` straight before the loop's `loop H`,
 *    where H's mask is named at or after its header's `block` only by that
 *    block, the join and the loop: H was empty before the join (its `block`
 *    emptied it, and nothing else in the loop adds lanes), so join, loop and
 *    block would set exec to exec.  A jump to the header's body does the same.
 */
static void branches_without_masks(isa_program *p, uint8_t *keep, uint32_t *uses)
{
    uint32_t N = p->code_count, M = p->mask_count;
    count_mask_uses(p, keep, uses);
    for (uint32_t i = 0; i < N; i++) {
        isa_inst *in = &p->code[i];
        if (!keep[i] || (in->op != ISA_OP_BRANCH && in->op != ISA_OP_BRANCH_CMP))
            continue;
        uint32_t T = in->op == ISA_OP_BRANCH ? in->d : in->c, j = next_kept(p, keep, i);
        if (j == N || p->code[j].op != ISA_OP_BLOCK || p->code[j].a != T || T >= M || uses[T] != 2 ||
            jump_target(p, keep, j))
            continue;
        if (in->op == ISA_OP_BRANCH) {
            in->imm2 = 0;
            in->d = in->b = ISA_NO_REG;
        }
        in->op = ISA_OP_BRANCH_IF;
        in->c = ISA_NO_REG;
        in->imm = p->code[j].imm;
        keep[j] = 0;
        uses[T] = 0;
    }
    for (uint32_t i = 0; i < N; i++) {
        isa_inst *in = &p->code[i];
        if (!keep[i] || in->op != ISA_OP_JOIN || in->d >= M)
            continue;
        uint32_t H = in->d, k = next_kept(p, keep, i);
        if (k == N || p->code[k].op != ISA_OP_LOOP || p->code[k].a != H || p->code[k].imm < 0 ||
            p->code[k].imm >= (int64_t)i)
            continue;
        uint32_t hb = (uint32_t)p->code[k].imm;
        if (!keep[hb] || p->code[hb].op != ISA_OP_BLOCK || p->code[hb].a != H)
            continue;
        int others = 0;
        for (uint32_t j = hb; j < N && !others; j++)
            others = keep[j] && j != hb && j != i && j != k && refers_to_mask(&p->code[j], H);
        if (others)
            continue;
        in->op = ISA_OP_JUMP;
        in->d = ISA_NO_REG;
        in->imm = hb + 1;
        in->cls = ISA_CLASS_BRANCH;
    }
}

isa_status isa_lean_after_allocation(isa_program *p)
{
    if (!isa_lean_enabled() || !p->allocated || !p->code_count)
        return ISA_OK;
    uint32_t N = p->code_count, M = p->mask_count;
    isa_status st = ISA_ERR_NOMEM;
    uint8_t *keep = malloc(N);
    uint32_t *uses = calloc(M ? M : 1, sizeof *uses);
    uint32_t *bo = blocks_of_pcs(p);
    if (!keep || !uses || !bo)
        goto out;
    for (uint32_t i = 0; i < N; i++) {
        const isa_inst *in = &p->code[i];
        keep[i] = !((in->op == ISA_OP_MOV || in->op == ISA_OP_MOVM) && in->d == in->a);
    }
    count_mask_uses(p, keep, uses);
    for (uint32_t i = 0; i < N; i++) {
        isa_inst *in = &p->code[i];
        if (!keep[i] || bo[i] == ISA_NO_BLOCK)
            continue;
        if (in->op == ISA_OP_MASK_EXEC && in->d < M) {
            /* an unconditional edge: its mask is exec, so its copies need none (plain moves), and it is a join */
            uint32_t j = or_of_edge(p, keep, bo, i, in->d), copies = 0;
            int plain = j != UINT32_MAX;
            for (uint32_t k = i + 1; plain && k < j; k++)
                if (keep[k] && p->code[k].op == ISA_OP_MOVM && p->code[k].b == in->d) {
                    copies++;
                    plain = copy_may_drop_mask(&p->code[k]);
                }
            if (!plain || uses[in->d] != 2 + copies)
                continue;
            for (uint32_t k = i + 1; k < j; k++)
                if (keep[k] && p->code[k].op == ISA_OP_MOVM && p->code[k].b == in->d) {
                    p->code[k].op = ISA_OP_MOV;
                    p->code[k].b = ISA_NO_REG;
                }
            isa_inst *o = &p->code[j];
            o->op = ISA_OP_JOIN;
            o->a = ISA_NO_REG;
            o->cls = in->cls;
            o->flags = in->flags;
            keep[i] = 0;
        } else if (in->op == ISA_OP_MASK_COND && in->imm == 0 && in->type == ISA_TYPE_BOOL && i + 1 < N &&
                   keep[i + 1] && bo[i + 1] == bo[i]) {
            /* a conditional branch whose edges lost their copies: one branch */
            isa_inst *f = &p->code[i + 1];
            if (f->op != ISA_OP_MASK_COND || f->imm != 1 || f->a != in->a || f->type != in->type || in->d >= M ||
                f->d >= M || uses[in->d] != 2 || uses[f->d] != 2)
                continue;
            uint32_t jt = or_of_edge(p, keep, bo, i + 1, in->d), jf = or_of_edge(p, keep, bo, i + 1, f->d);
            if (jt == UINT32_MAX || jf == UINT32_MAX)
                continue;
            uint32_t last = jt > jf ? jt : jf;
            uint32_t T = p->code[jt].d, F = p->code[jf].d;
            if (!mask_quiet(p, keep, i + 1, last, T, jt, jf) || !mask_quiet(p, keep, i + 1, last, F, jt, jf))
                continue;
            in->op = ISA_OP_BRANCH;
            in->d = T;
            in->e = F;
            in->imm = 0;
            keep[i + 1] = keep[jt] = keep[jf] = 0;
        }
    }
    /* an integer comparison and the branch on it, on one source line: one instruction */
    for (uint32_t i = 0; i + 1 < N; i++) {
        isa_inst *in = &p->code[i];
        if (!keep[i] || !is_int_compare((isa_op)in->op) || in->d == ISA_NO_REG || bo[i] == ISA_NO_BLOCK)
            continue;
        uint32_t j = i + 1;
        while (j < N && !keep[j])
            j++;
        if (j == N || bo[j] != bo[i])
            continue;
        const isa_inst *br = &p->code[j];
        if (br->op != ISA_OP_BRANCH || br->a != in->d || br->type != ISA_TYPE_BOOL || br->line != in->line ||
            (in->cls != ISA_CLASS_SALU && in->cls != ISA_CLASS_VALU))
            continue;
        in->imm2 = in->op;
        in->op = ISA_OP_BRANCH_CMP;
        in->c = br->d;
        in->e = br->e;
        in->flags |= br->flags;
        keep[j] = 0;
    }
    branches_without_masks(p, keep, uses);
    st = compact(p, keep);
out:
    free(keep), free(uses), free(bo);
    return st;
}
