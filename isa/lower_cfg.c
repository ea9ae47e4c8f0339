/*
 * isa/lower_cfg.c — structured control flow as exec masks: reads the entry
 * function's blocks, lays them out (every edge forward but loop back edges,
 * loops contiguous), gives each block its mask register, turns branches into
 * mask edges and phis into parallel masked copies, then walks the blocks in
 * layout order handing each body instruction to lower_inst (lower_ops.c).
 *
 * Instructions are read through isa/spirv.h's iterator.  lower_read_blocks
 * checks the operand count of every instruction whose operands the walks
 * here read (labels, merges, terminators; phis where their registers are
 * made), so a malformed function is refused by word, never read past.
 */
#include "isa/lower_internal.h"

/* ------------------------------------------------------------ control flow */

static block *block_of(lower *L, uint32_t label)
{
    if (label == 0 || label >= L->bound || !L->block_of_label[label]) {
        lower_fail(L, ISA_ERR_INVALID, "branch to %%%u, which is not a block of the entry function", label);
        return &L->blocks[0];
    }
    return &L->blocks[L->block_of_label[label] - 1];
}

/* The instruction at word `at`, which a walk of the function met (no operands when there is none). */
static spv_inst inst_at(const lower *L, uint32_t at)
{
    spv_iter it;
    spv_inst in = {0};
    spv_iter_init(&it, L->w, L->n, at);
    if (spv_next(&it, &in) != SPV_STEP_INST)
        in.o = NULL, in.no = 0;
    return in;
}

/* False, and the lowering failed, when `in` has fewer than `need` operands. */
static bool has_operands(lower *L, const spv_inst *in, uint32_t need)
{
    if (in->no >= need)
        return true;
    L->cur_word = (uint32_t)in->word;
    lower_fail(L, ISA_ERR_INVALID, "too few operands: %u, it needs at least %u", in->no, need);
    return false;
}

/* The operands a terminator or merge instruction needs before the walks below read them: the targets of
 * OpBranch (1), OpBranchConditional (condition, 2 targets), OpSwitch (selector, default), OpSelectionMerge
 * (merge) and OpLoopMerge (merge, continue); 0 for the other terminators; -1 for an instruction that is neither. */
static int cfg_operands(SpvOp op)
{
    switch (op) {
    case SpvOpBranch: case SpvOpSelectionMerge: return 1;
    case SpvOpSwitch: case SpvOpLoopMerge: return 2;
    case SpvOpBranchConditional: return 3;
    case SpvOpReturn: case SpvOpReturnValue: case SpvOpKill: case SpvOpUnreachable: case SpvOpTerminateInvocation:
        return 0;
    default: return -1;
    }
}

/* A new block for the OpLabel `in`; false when it failed. */
static bool open_block(lower *L, const spv_inst *in, size_t *cap)
{
    if (!has_operands(L, in, 1))
        return false;
    block *b = lower_grow(L->blocks, cap, L->nblocks + 1, sizeof *b);
    if (!b) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return false;
    }
    L->blocks = b;
    block *nb = &b[L->nblocks++];
    memset(nb, 0, sizeof *nb);
    nb->label = in->o[0];
    nb->word = (uint32_t)in->word;
    nb->first = (uint32_t)(in->word + in->wc);
    nb->order = -1;
    if (nb->label >= L->bound) {
        lower_fail(L, ISA_ERR_INVALID, "label id out of range");
        return false;
    }
    L->block_of_label[nb->label] = L->nblocks;
    return true;
}

/* The successors of block b from its terminator; false when it failed. */
static bool block_successors(lower *L, block *b)
{
    spv_inst t = inst_at(L, b->term);
    const uint32_t *o = t.o;
    uint32_t tmp[1024];
    uint32_t n = 0;
    if (t.op == SpvOpBranch)
        tmp[n++] = o[0];
    else if (t.op == SpvOpBranchConditional) {
        tmp[n++] = o[1];
        tmp[n++] = o[2];
    } else if (t.op == SpvOpSwitch) {
        tmp[n++] = o[1];
        uint32_t sel_words = 1;
        uint32_t st = o[0] < L->bound ? L->ids[o[0]].type : 0;
        if (st && st < L->bound && L->ids[st].kind == K_TYPE && L->ids[st].t->width == 64)
            sel_words = 2;
        for (uint32_t c = 2; c + sel_words < t.no && n < 1024; c += sel_words + 1)
            tmp[n++] = o[c + sel_words];
    }
    b->succ = malloc((n ? n : 1) * sizeof *b->succ);
    if (!b->succ) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return false;
    }
    memcpy(b->succ, tmp, n * sizeof *tmp);
    b->nsucc = n;
    for (uint32_t s = 0; s < n; s++)
        block_of(L, tmp[s]);
    if (b->merge)
        block_of(L, b->merge);
    if (b->cont)
        block_of(L, b->cont);
    return true;
}

/* Reads the entry function's blocks. */
bool lower_read_blocks(lower *L, uint32_t fbegin, uint32_t fend)
{
    size_t cap = 0;
    spv_iter it;
    spv_inst in;
    spv_step step;
    spv_iter_init(&it, L->w, fend, fbegin);
    while ((step = spv_next(&it, &in)) == SPV_STEP_INST) {
        L->cur_word = (uint32_t)in.word;
        if (in.op == SpvOpLabel) {
            if (!open_block(L, &in, &cap))
                return false;
        } else if (in.op == SpvOpFunctionCall) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "function calls are not modelled: wavelab compiles with glslang's optimizer, "
                                         "which inlines every call; this module still calls a function");
            return false;
        } else if (L->nblocks && cfg_operands(in.op) >= 0) {
            block *b = &L->blocks[L->nblocks - 1];
            if (!has_operands(L, &in, (uint32_t)cfg_operands(in.op)))
                return false;
            if (in.op == SpvOpSelectionMerge) {
                b->merge = in.o[0];
            } else if (in.op == SpvOpLoopMerge) {
                b->merge = in.o[0];
                b->cont = in.o[1];
                b->is_loop = true;
            } else {
                b->term = (uint32_t)in.word;
                b->end = (uint32_t)in.word;
            }
        }
    }
    if (step == SPV_STEP_BAD) {
        L->cur_word = (uint32_t)in.word;
        lower_fail(L, ISA_ERR_INVALID, "instruction word count %u runs past the end of the function", in.wc);
        return false;
    }
    for (uint32_t k = 0; k < L->nblocks; k++) {
        block *b = &L->blocks[k];
        if (!b->term) {
            L->cur_word = b->first;
            lower_fail(L, ISA_ERR_INVALID, "block %%%u has no terminator", b->label);
            return false;
        }
        if (!block_successors(L, b))
            return false;
    }
    return !L->failed;
}

/* Structured order: reverse post-order of a depth-first walk that visits a
 * header's merge block first, then its continue target, then its successors
 * in reverse, so constructs come out contiguous and in source order. */
static void dfs(lower *L, uint32_t bi, uint32_t *post, uint32_t *npost, uint32_t depth)
{
    block *b = &L->blocks[bi];
    if (b->visited || L->failed)
        return;
    if (depth > 100000) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "control flow nested too deeply");
        return;
    }
    b->visited = true;
    if (b->merge)
        dfs(L, L->block_of_label[b->merge] - 1, post, npost, depth + 1);
    if (b->cont)
        dfs(L, L->block_of_label[b->cont] - 1, post, npost, depth + 1);
    for (uint32_t s = b->nsucc; s-- > 0;)
        dfs(L, L->block_of_label[b->succ[s]] - 1, post, npost, depth + 1);
    post[(*npost)++] = bi;
}

#define MAX_PHIS 256

/* Word offsets of the phis that open block b (after any OpLine/OpNoLine or
 * non-semantic instruction) into at[] when at is not NULL; returns how many. */
static uint32_t block_phis(lower *L, const block *b, uint32_t *at)
{
    uint32_t n = 0;
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, L->w, b->end, b->first);
    while (spv_next(&it, &in) == SPV_STEP_INST) {
        if (in.op == SpvOpPhi) {
            if (at && n == MAX_PHIS) {
                lower_fail(L, ISA_ERR_UNSUPPORTED, "block %%%u has more than %d phis", b->label, MAX_PHIS);
                return 0;
            }
            if (at)
                at[n] = (uint32_t)in.word;
            n++;
        } else if (in.op != SpvOpLine && in.op != SpvOpNoLine &&
                   !(in.op == SpvOpExtInst && in.no >= 3 && in.o[2] != L->glsl_ext)) {
            break;
        }
    }
    return n;
}

static bool has_phis(lower *L, const block *b) { return block_phis(L, b, NULL) > 0; }

/*
 * The phi copies of the edge from -> to, for the lanes in mask `edge`.  The
 * phis of a block take their values at once (a parallel copy): when one
 * reads another phi of the same block (a swap in a loop), every incoming
 * value is first read into a temporary, and only then written.  Every phi
 * has its result type and id (define_phis checked).
 */
static void phi_copies(lower *L, block *from, block *to, uint32_t edge)
{
    uint32_t at[MAX_PHIS], dst[MAX_PHIS], src[MAX_PHIS], regs[MAX_PHIS];
    uint32_t nphi = block_phis(L, to, at), ncopy = 0;
    bool reads_a_phi = false;
    for (uint32_t p = 0; p < nphi && !L->failed; p++) {
        spv_inst phi = inst_at(L, at[p]);
        const uint32_t *o = phi.o;
        for (uint32_t k = 2; k + 1 < phi.no; k += 2) {
            if (o[k + 1] != from->label)
                continue;
            uint32_t v = o[k];
            if (v >= L->bound) {
                lower_fail(L, ISA_ERR_INVALID, "phi operand out of range");
                return;
            }
            if (L->ids[v].kind == K_UNDEF)
                break; /* an undefined incoming value: the lanes keep whatever the register holds */
            for (uint32_t q = 0; q < nphi; q++)
                reads_a_phi |= inst_at(L, at[q]).o[1] == v;
            if (lower_type(L, o[0])->op == SpvOpTypePointer) { /* variable pointers (lower_varptr.c) */
                dst[ncopy] = lower_varptr_first_reg(L, o[1]);
                src[ncopy] = lower_varptr_value(L, v, o[1]);
                regs[ncopy] = lower_varptr_regs(L, o[1]);
            } else {
                dst[ncopy] = L->ids[o[1]].reg;
                src[ncopy] = lower_val(L, v);
                regs[ncopy] = lower_reg_count_of(L, o[0]);
            }
            ncopy++;
            break;
        }
    }
    if (reads_a_phi) {
        for (uint32_t c = 0; c < ncopy; c++) {
            uint32_t t = lower_new_regs(L, regs[c]);
            lower_unary(L, ISA_OP_MOV, ISA_TYPE_U64, t, src[c], regs[c]);
            src[c] = t;
        }
    }
    for (uint32_t c = 0; c < ncopy; c++)
        for (uint32_t r = 0; r < regs[c]; r++)
            lower_emit_op(L, ISA_OP_MOVM, ISA_TYPE_U64, dst[c] + r, src[c] + r, edge);
}

static void edge_to(lower *L, block *from, uint32_t label, uint32_t edge_mask)
{
    block *to = block_of(L, label);
    if (L->failed)
        return;
    phi_copies(L, from, to, edge_mask);
    lower_emit_op(L, ISA_OP_MASK_OR, ISA_TYPE_NONE, to->mask, edge_mask, ISA_NO_REG);
}

static void lower_switch(lower *L, block *b, const spv_inst *t)
{
    const uint32_t *o = t->o;
    uint32_t sel = lower_val(L, o[0]);
    isa_type ty = lower_scalar_isa_type(L, L->ids[o[0]].type);
    uint32_t sw = isa_type_size(ty) == 8 ? 2 : 1;
    uint32_t taken = lower_new_mask(L);
    uint32_t dflt = lower_new_mask(L);
    isa_inst *in = lower_emit(L, ISA_OP_MASK_EXEC, ISA_TYPE_NONE);
    in->d = dflt;
    for (uint32_t c = 2; c + sw < t->no; c += sw + 1) {
        uint64_t lit = o[c];
        if (sw == 2)
            lit |= (uint64_t)o[c + 1] << 32;
        uint32_t m = lower_new_mask(L);
        in = lower_emit(L, ISA_OP_MASK_CASE, ty);
        in->d = m;
        in->a = sel;
        in->imm = (int64_t)lit;
        lower_emit_op(L, ISA_OP_MASK_ANDN, ISA_TYPE_NONE, dflt, m, ISA_NO_REG);
        edge_to(L, b, o[c + sw], m);
    }
    (void)taken;
    edge_to(L, b, o[1], dflt);
}

static void lower_terminator(lower *L, block *b)
{
    L->cur_word = b->term;
    spv_inst t = inst_at(L, b->term);
    const uint32_t *o = t.o;
    switch (t.op) {
    case SpvOpBranch: {
        block *to = block_of(L, o[0]);
        if (!L->failed && to->fallthrough)
            return;
        if (!L->failed && !has_phis(L, to)) {
            isa_inst *in = lower_emit(L, ISA_OP_JOIN, ISA_TYPE_NONE);
            in->d = to->mask;
            return;
        }
        uint32_t m = lower_new_mask(L);
        isa_inst *in = lower_emit(L, ISA_OP_MASK_EXEC, ISA_TYPE_NONE);
        in->d = m;
        edge_to(L, b, o[0], m);
        return;
    }
    case SpvOpBranchConditional: {
        uint32_t c = lower_val(L, o[0]);
        block *tt = block_of(L, o[1]), *ft = block_of(L, o[2]);
        if (!L->failed && !has_phis(L, tt) && !has_phis(L, ft)) {
            isa_inst *in = lower_emit(L, ISA_OP_BRANCH, ISA_TYPE_BOOL);
            in->d = tt->mask;
            in->e = ft->mask;
            in->a = c;
            return;
        }
        uint32_t mt = lower_new_mask(L), mf = lower_new_mask(L);
        isa_inst *in = lower_emit(L, ISA_OP_MASK_COND, ISA_TYPE_BOOL);
        in->d = mt;
        in->a = c;
        in->imm = 0;
        in = lower_emit(L, ISA_OP_MASK_COND, ISA_TYPE_BOOL);
        in->d = mf;
        in->a = c;
        in->imm = 1;
        edge_to(L, b, o[1], mt);
        edge_to(L, b, o[2], mf);
        return;
    }
    case SpvOpSwitch:
        lower_switch(L, b, &t);
        return;
    case SpvOpReturn: case SpvOpReturnValue: case SpvOpKill: case SpvOpUnreachable: case SpvOpTerminateInvocation:
        /* the lanes are done: they take no edge */
        return;
    default:
        lower_fail(L, ISA_ERR_INVALID, "unexpected terminator");
    }
}


/* Hands the block structure to the analyses (isa/uniform.c): blocks in layout
 * order with their code ranges, successors, merge and continue targets and
 * the register that decides each conditional terminator. */
static void record_blocks(lower *L)
{
    isa_program *p = L->p;
    p->blocks = calloc(L->nlayout ? L->nlayout : 1, sizeof *p->blocks);
    if (!p->blocks) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return;
    }
    p->block_count = L->nlayout;
    for (uint32_t k = 0; k < L->nlayout && !L->failed; k++) {
        block *b = &L->blocks[L->layout[k]];
        isa_block *ib = &p->blocks[k];
        ib->start_pc = b->start_pc;
        ib->end_pc = k + 1 < L->nlayout ? L->blocks[L->layout[k + 1]].start_pc : p->code_count;
        ib->merge = b->merge ? (uint32_t)block_of(L, b->merge)->order : ISA_NO_BLOCK;
        ib->cont = b->cont ? (uint32_t)block_of(L, b->cont)->order : ISA_NO_BLOCK;
        ib->is_loop = b->is_loop;
        ib->cond = ISA_NO_REG;
        spv_inst t = inst_at(L, b->term);
        if (t.op == SpvOpBranchConditional || t.op == SpvOpSwitch) {
            L->cur_word = b->term;
            ib->cond = lower_val(L, t.o[0]);
        }
        ib->succ = malloc((b->nsucc ? b->nsucc : 1) * sizeof *ib->succ);
        if (!ib->succ) {
            lower_fail(L, ISA_ERR_NOMEM, "out of memory");
            return;
        }
        for (uint32_t s = 0; s < b->nsucc; s++) {
            int o = block_of(L, b->succ[s])->order;
            if (o >= 0)
                ib->succ[ib->nsucc++] = (uint32_t)o;
        }
    }
}

/* The reachable blocks in structured order (L->layout, each block's order); every edge forward, except back
 * edges to loop headers from inside the loop. */
static bool lay_out_blocks(lower *L)
{
    uint32_t nb = L->nblocks;
    uint32_t *post = malloc(nb * sizeof *post);
    L->layout = malloc(nb * sizeof *L->layout);
    if (!post || !L->layout) {
        free(post);
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return false;
    }
    uint32_t npost = 0;
    dfs(L, 0, post, &npost, 0);
    for (uint32_t k = 0; k < npost; k++) {
        L->layout[k] = post[npost - 1 - k];
        L->blocks[L->layout[k]].order = (int)k;
    }
    L->nlayout = npost;
    free(post);
    if (L->failed)
        return false;
    for (uint32_t k = 0; k < L->nlayout; k++) {
        block *b = &L->blocks[L->layout[k]];
        for (uint32_t s = 0; s < b->nsucc; s++) {
            block *t = block_of(L, b->succ[s]);
            if (t->order <= b->order && !t->is_loop) {
                L->cur_word = b->term;
                lower_fail(L, ISA_ERR_UNSUPPORTED, "unstructured control flow: backward branch from %%%u to %%%u, "
                                             "which is not a loop header", b->label, t->label);
                return false;
            }
        }
    }
    return true;
}

/* Every phi's registers, before any block is lowered (uses may come first in a loop). */
static bool define_phis(lower *L)
{
    for (uint32_t k = 0; k < L->nlayout; k++) {
        block *b = &L->blocks[L->layout[k]];
        spv_iter it;
        spv_inst in;
        spv_iter_init(&it, L->w, b->end, b->first);
        while (spv_next(&it, &in) == SPV_STEP_INST) {
            if (in.op != SpvOpPhi)
                continue;
            L->cur_word = (uint32_t)in.word;
            if (!has_operands(L, &in, 2))
                return false;
            uint32_t rtype = in.o[0], rid = in.o[1];
            if (rid >= L->bound) {
                lower_fail(L, ISA_ERR_INVALID, "phi result out of range");
                return false;
            }
            type_info *rt = lower_type(L, rtype);
            if (rt->op == SpvOpTypePointer) { /* variable pointers: the element of its run and the offset */
                lower_varptr_define(L, rid, rtype, lower_new_regs(L, lower_varptr_regs(L, rid)));
                if (L->failed)
                    return false;
                continue;
            }
            lower_def_value(L, rid, rtype, lower_reg_count_of(L, rtype));
        }
    }
    return true;
}

/* Marks the straight-line continuations, which need no exec-mask work (see block.fallthrough); closes[bi]: the
 * loop header (block index + 1) whose merge block bi is. */
static bool mark_fallthroughs(lower *L, const uint32_t *closes)
{
    uint32_t *npred = calloc(L->nblocks, sizeof *npred);
    bool *is_merge = calloc(L->nblocks, sizeof *is_merge);
    if (!npred || !is_merge) {
        free(npred);
        free(is_merge);
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return false;
    }
    for (uint32_t k = 0; k < L->nlayout; k++) {
        block *b = &L->blocks[L->layout[k]];
        for (uint32_t s = 0; s < b->nsucc; s++)
            npred[L->block_of_label[b->succ[s]] - 1]++;
        if (b->merge)
            is_merge[L->block_of_label[b->merge] - 1] = true;
    }
    for (uint32_t k = 1; k < L->nlayout; k++) {
        uint32_t bi = L->layout[k];
        block *b = &L->blocks[bi], *prev = &L->blocks[L->layout[k - 1]];
        spv_inst into = inst_at(L, prev->term);
        b->fallthrough = npred[bi] == 1 && !closes[bi] && !is_merge[bi] && !b->is_loop && !has_phis(L, b) &&
                         into.op == SpvOpBranch && into.o[0] == b->label;
    }
    free(npred);
    free(is_merge);
    return true;
}

/* Block `bi`: the LOOP check of the loop it closes, its BLOCK (unless it falls through), its body, its
 * terminator.  Returns the pc of its BLOCK, UINT32_MAX when it has none. */
static uint32_t lower_block(lower *L, uint32_t bi, const uint32_t *closes)
{
    block *b = &L->blocks[bi];
    uint32_t skip_fix = UINT32_MAX;
    b->start_pc = L->p->code_count;
    L->cur_word = b->word;
    if (closes[bi]) {
        block *h = &L->blocks[closes[bi] - 1];
        isa_inst *in = lower_emit(L, ISA_OP_LOOP, ISA_TYPE_NONE);
        in->a = h->mask;
        in->imm = h->body_pc;
    }
    b->body_pc = L->p->code_count;
    if (!b->fallthrough) {
        skip_fix = L->p->code_count;
        isa_inst *in = lower_emit(L, ISA_OP_BLOCK, ISA_TYPE_NONE);
        in->a = b->mask;
    }
    if (bi == 0)
        lower_init_private_variables(L);
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, L->w, b->end, b->first);
    while (!L->failed && spv_next(&it, &in) == SPV_STEP_INST) {
        L->cur_word = (uint32_t)in.word;
        if (in.op == SpvOpLine && in.no >= 3)
            L->line = in.o[1];
        else if (in.op == SpvOpNoLine)
            L->line = 0;
        else if (in.op != SpvOpPhi)
            lower_inst(L, in.op, in.o, in.no);
    }
    if (!L->failed)
        lower_terminator(L, b);
    return skip_fix;
}

/* Skip targets: a header with no lanes skips its whole construct (to its merge block, past the merge's LOOP
 * check, which concerns this header only); any other block skips to the next block. */
static void set_skip_targets(lower *L, const uint32_t *skip_fix)
{
    for (uint32_t k = 0; k < L->nlayout && !L->failed; k++) {
        block *b = &L->blocks[L->layout[k]];
        if (skip_fix[k] == UINT32_MAX)
            continue;
        uint32_t target;
        if (b->merge) {
            target = block_of(L, b->merge)->body_pc;
        } else {
            /* the next block that decides for itself: a skipped block's fallthrough successors are skipped too */
            uint32_t n = k + 1;
            while (n < L->nlayout && L->blocks[L->layout[n]].fallthrough)
                n++;
            target = n < L->nlayout ? L->blocks[L->layout[n]].start_pc : L->p->code_count - 1;
        }
        L->p->code[skip_fix[k]].imm = target;
    }
}

bool lower_function(lower *L)
{
    if (!lay_out_blocks(L))
        return false;
    /* masks: block 0 (entry) uses mask 0, the executor's initial lanes */
    L->p->mask_count = 0;
    L->blocks[0].mask = lower_new_mask(L);
    for (uint32_t k = 0; k < L->nlayout; k++)
        if (L->layout[k] != 0)
            L->blocks[L->layout[k]].mask = lower_new_mask(L);
    if (!define_phis(L))
        return false;
    /* which loop each merge block closes */
    uint32_t *closes = calloc(L->nblocks, sizeof *closes); /* block index + 1 of the loop header */
    uint32_t *skip_fix = malloc(L->nlayout * sizeof *skip_fix);
    if (!closes || !skip_fix) {
        free(closes);
        free(skip_fix);
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return false;
    }
    for (uint32_t k = 0; k < L->nlayout; k++) {
        block *b = &L->blocks[L->layout[k]];
        if (b->is_loop)
            closes[L->block_of_label[b->merge] - 1] = L->layout[k] + 1;
    }
    if (mark_fallthroughs(L, closes)) {
        for (uint32_t k = 0; k < L->nlayout && !L->failed; k++)
            skip_fix[k] = lower_block(L, L->layout[k], closes);
        lower_emit(L, ISA_OP_END, ISA_TYPE_NONE);
        set_skip_targets(L, skip_fix);
    }
    free(closes);
    free(skip_fix);
    if (!L->failed)
        record_blocks(L);
    return !L->failed;
}
