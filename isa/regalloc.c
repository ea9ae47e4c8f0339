/*
 * isa/regalloc.c — register allocation after the uniformity analysis.
 *
 * 1. Groups: registers one instruction reads or writes as a span (a vec4
 *    load, a ballot, an array indexed per lane) stay consecutive: one group.
 * 2. Files: a group of uniform registers goes to the SGPR file; a group of
 *    per-lane registers to the VGPR file, except a lone per-lane bool, which
 *    lives in the SGPR file as a lane mask (as on AMD hardware); a group of
 *    constants to the constant file (literals: filled when the wave starts,
 *    not counted).
 * 3. SGPR intervals on the linear program, as the wave runs it: from the
 *    first to the last reference; a group referenced both inside and outside
 *    a loop, or read inside a loop before it is written there (a loop-carried
 *    phi), is live across the whole loop.  Built-ins are defined at entry.
 *    This is liveness on the linear CFG (the else of an if runs after its
 *    then), which SGPRs need: a scalar write in a divergent block reaches
 *    every live lane, also those waiting for the else (isa/uniform.c).
 *    VGPRs by lane liveness (lane_ranges): their writes are predicated by
 *    exec, so values of different lanes' paths may share one.
 * 4. First fit per file: SGPRs by linear scan of their intervals, VGPRs in
 *    the order of the first position they hold a value at, each group to the
 *    lowest consecutive registers free wherever it holds one.
 * 5. Counting: the 32-bit registers live at each instruction (64-bit values
 *    take two, 16-bit VGPR values half of one when packed, lane masks two
 *    SGPRs), and their peak is the kernel's VGPR / SGPR count.
 * 6. Renaming: every operand becomes its physical register; the executor
 *    runs the renamed program.  Physical registers: VGPRs first, then SGPRs,
 *    then constants.
 */
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"

enum { W_UNKNOWN, W_BOOL, W_16, W_32, W_64 };

typedef struct group {
    uint32_t lo, hi;          /* virtual registers lo..hi */
    int64_t start, end;       /* interval in positions (2 per instruction) */
    int64_t first_ref;
    int first_is_read;
    int referenced;
    uint8_t file;             /* isa_reg_file */
    uint32_t slot;            /* first register in its file */
    uint32_t halves, halves_unpacked, sunits;
    /* a VGPR group's lane liveness (lane_ranges): where it holds a value for some lane (occupied) and where it
     * counts (occupied, or read for the last time); ranges of positions, 0 the wave's start, i + 1 after pc i */
    uint32_t occ_first, occ_count, cnt_first, cnt_count;
    int64_t held_from;        /* the first position it holds a value at (INT64_MAX: none) */
    int by_lanes;
} group;

typedef struct range { int64_t lo, hi; } range;

static uint32_t find(uint32_t *g, uint32_t r)
{
    while (g[r] != r)
        r = g[r] = g[g[r]];
    return r;
}

static int width_of_type(isa_type t)
{
    switch (t) {
    case ISA_TYPE_BOOL: return W_BOOL;
    case ISA_TYPE_U16: case ISA_TYPE_I16: case ISA_TYPE_F16: return W_16;
    case ISA_TYPE_U64: case ISA_TYPE_I64: case ISA_TYPE_F64: return W_64;
    case ISA_TYPE_NONE: return W_UNKNOWN;
    default: return W_32;
    }
}

static int is_copy(const isa_inst *in)
{
    return (in->op == ISA_OP_MOV || in->op == ISA_OP_MOVM) && (in->type == ISA_TYPE_U64 || in->type == ISA_TYPE_NONE);
}

/* Width of each virtual register: from typed definitions, through copies, then from typed uses. */
static void infer_widths(const isa_program *p, uint8_t *w)
{
    uint32_t R = p->reg_count;
    memset(w, W_UNKNOWN, R);
    for (uint32_t i = 0; i < p->code_count; i++) {
        const isa_inst *in = &p->code[i];
        if (is_copy(in))
            continue;
        isa_span rd[6], wr[2];
        int nr, nw;
        isa_inst_regs(in, rd, &nr, wr, &nw);
        isa_result res = isa_op_result((isa_op)in->op);
        int wd = res == ISA_RESULT_BOOL ? W_BOOL : res == ISA_RESULT_U32 ? W_32 : width_of_type((isa_type)in->type);
        for (int k = 0; k < nw; k++)
            for (uint32_t r = wr[k].first; r < wr[k].first + wr[k].count && r < R; r++)
                if (wd > w[r])
                    w[r] = (uint8_t)wd;
    }
    for (uint32_t k = 0; k < p->builtin_count; k++)
        if (p->builtins[k].reg < R)
            w[p->builtins[k].reg] = W_32;
    for (int pass = 0; pass < 2; pass++) {
        for (int changed = 1; changed;) {
            changed = 0;
            for (uint32_t i = 0; i < p->code_count; i++) {
                const isa_inst *in = &p->code[i];
                if (!is_copy(in) || in->d >= R || in->a >= R)
                    continue;
                uint8_t m = w[in->d] > w[in->a] ? w[in->d] : w[in->a];
                if (w[in->d] != m || w[in->a] != m)
                    w[in->d] = w[in->a] = m, changed = 1;
            }
        }
        if (pass)
            break;
        /* still unknown (copies of constants): the type of the instructions that read them */
        for (uint32_t i = 0; i < p->code_count; i++) {
            const isa_inst *in = &p->code[i];
            if (is_copy(in) || isa_op_class((isa_op)in->op) != ISA_CLASS_VALU)
                continue;
            int wt = in->op == ISA_OP_CVT ? width_of_type((isa_type)in->type2) : width_of_type((isa_type)in->type);
            uint32_t ops[3] = {in->a, in->b, in->c};
            for (int k = in->op == ISA_OP_SELECT ? 1 : 0; k < 3; k++)
                if (ops[k] < R && w[ops[k]] == W_UNKNOWN)
                    w[ops[k]] = (uint8_t)wt;
        }
    }
    for (uint32_t r = 0; r < R; r++)
        if (w[r] == W_UNKNOWN)
            w[r] = W_32;
}


static int by_start(const void *x, const void *y)
{
    const group *a = *(const group *const *)x, *b = *(const group *const *)y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The lowest first register of `size` consecutive free ones (is_free(ctx, r)) below max_regs; UINT32_MAX when
 * there is none (cannot happen to a file of as many registers as the program's virtual ones). */
static uint32_t first_fit(uint32_t size, uint32_t max_regs, int (*is_free)(const void *ctx, uint32_t r),
                          const void *ctx)
{
    for (uint32_t at = 0;;) {
        if (at + size > max_regs)
            return UINT32_MAX;
        uint32_t r = 0;
        while (r < size && is_free(ctx, at + r))
            r++;
        if (r == size)
            return at;
        at += r + 1;
    }
}

static int not_busy(const void *busy, uint32_t r) { return !((const uint8_t *)busy)[r]; }

/* Linear scan of the groups of one file; returns the registers used. */
static uint32_t scan(group **gs, uint32_t n, uint8_t file, uint32_t max_regs)
{
    group **active = malloc((n ? n : 1) * sizeof *active);
    uint8_t *busy = calloc(max_regs + 1, 1);
    if (!active || !busy) {
        free(active);
        free(busy);
        return UINT32_MAX;
    }
    uint32_t nactive = 0, used = 0;
    for (uint32_t k = 0; k < n; k++) {
        group *g = gs[k];
        if (g->file != file)
            continue;
        for (uint32_t a = 0; a < nactive;) {
            if (active[a]->end < g->start) {
                for (uint32_t r = active[a]->slot; r <= active[a]->slot + (active[a]->hi - active[a]->lo); r++)
                    busy[r] = 0;
                active[a] = active[--nactive];
            } else {
                a++;
            }
        }
        uint32_t size = g->hi - g->lo + 1, at = first_fit(size, max_regs, not_busy, busy);
        if (at == UINT32_MAX) {
            used = UINT32_MAX;
            break;
        }
        g->slot = at;
        for (uint32_t r = 0; r < size; r++)
            busy[at + r] = 1;
        if (at + size > used)
            used = at + size;
        active[nactive++] = g;
    }
    free(active);
    free(busy);
    return used;
}

/* Whether two sorted lists of disjoint ranges meet: each range of a looked up in b by bisection. */
static int ranges_meet(const range *a, size_t na, const range *b, size_t nb)
{
    for (size_t i = 0; i < na; i++) {
        size_t lo = 0, hi = nb; /* the first range of b that ends at or after a[i].lo */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (b[mid].hi < a[i].lo)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < nb && b[lo].lo <= a[i].hi)
            return 1;
    }
    return 0;
}

/* What one VGPR holds over the program: sorted disjoint ranges. */
typedef struct held { range *r; size_t n; } held;

/* Adds ranges a (sorted, disjoint from h's) to h. */
static int hold(held *h, const range *a, size_t na)
{
    range *m = malloc((h->n + na ? h->n + na : 1) * sizeof *m);
    if (!m)
        return 0;
    size_t i = 0, j = 0, k = 0;
    while (i < h->n || j < na)
        m[k++] = j == na || (i < h->n && h->r[i].lo < a[j].lo) ? h->r[i++] : a[j++];
    free(h->r);
    h->r = m, h->n = k;
    return 1;
}

static int by_held_from(const void *x, const void *y)
{
    const group *a = *(const group *const *)x, *b = *(const group *const *)y;
    if (a->held_from != b->held_from)
        return a->held_from < b->held_from ? -1 : 1;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* What scan_lanes asks of a VGPR: whether it holds nothing where a group holds a value. */
typedef struct lane_fit { const held *h; const range *a; uint32_t n; } lane_fit;

static int holds_none_of(const void *ctx, uint32_t r)
{
    const lane_fit *f = ctx;
    return !ranges_meet(f->a, f->n, f->h[r].r, f->h[r].n);
}

/* 4b. First fit of the VGPR groups by their lane ranges (occ): a group takes the lowest consecutive VGPRs that
 * hold nothing where it holds a value.  Returns the registers used (UINT32_MAX when out of memory). */
static uint32_t scan_lanes(group **gs, uint32_t n, const range *occ, uint32_t max_regs)
{
    held *h = calloc(max_regs + 1, sizeof *h);
    if (!h)
        return UINT32_MAX;
    uint32_t used = 0;
    for (uint32_t k = 0; k < n; k++) {
        group *g = gs[k];
        if (g->file != ISA_FILE_VGPR)
            continue;
        const range *a = occ + g->occ_first;
        lane_fit fit = {h, a, g->occ_count};
        uint32_t size = g->hi - g->lo + 1, at = first_fit(size, max_regs, holds_none_of, &fit);
        if (at == UINT32_MAX) {
            used = UINT32_MAX;
            goto out;
        }
        g->slot = at;
        for (uint32_t r = 0; r < size; r++)
            if (!hold(&h[at + r], a, g->occ_count)) {
                used = UINT32_MAX;
                goto out;
            }
        if (at + size > used)
            used = at + size;
    }
out:
    for (uint32_t r = 0; r <= max_regs; r++)
        free(h[r].r);
    free(h);
    return used;
}

/* A scalar ALU instruction in a divergent block: its write reaches every live lane, not only exec's
 * (sim/exec.c), so also the lanes that wait elsewhere. */
static int widened_write(const isa_inst *in)
{
    return in->cls == ISA_CLASS_SALU && (in->flags & ISA_INST_DIVERGENT);
}

/*
 * Phi coalescing: the copy `movm d = a` of a loop phi d from its back-edge
 * value a becomes a self-move (isa/lean.c removes it) when d and a can share
 * one register.  They can when a is written once and read only by that copy,
 * no block starts between the two (the same lanes run both: a block and its
 * fallthrough continuation), the copy is on an unconditional edge (its mask
 * is `mask_exec`, so every lane that wrote a also copies it), and nothing
 * between a's write and the copy reads or writes d: then no lane needs d's
 * old value once a is written.  The merged group keeps the union of the two intervals.  Not when a is
 * written by a scalar instruction in a divergent block and d is per-lane (a lane mask at the merge of a
 * short-circuit `||`): that write would reach the lanes that already hold their d and wait elsewhere.
 * into[r] = the register r now shares (ISA_NO_REG when none).
 */
static void coalesce_phis(const isa_program *p, group *groups, const uint32_t *gid, const uint8_t *is_builtin,
                          uint32_t *into)
{
    uint32_t R = p->reg_count, N = p->code_count, M = p->mask_count;
    uint32_t *defs = calloc(R ? R : 1, sizeof *defs), *reads = calloc(R ? R : 1, sizeof *reads);
    uint32_t *def_pc = malloc((R ? R : 1) * sizeof *def_pc), *movm_defs = calloc(R ? R : 1, sizeof *movm_defs);
    uint32_t *mask_pc = malloc((M ? M : 1) * sizeof *mask_pc);
    uint8_t *taken = calloc(R ? R : 1, 1); /* group index: merged away or merged into */
    if (!defs || !reads || !def_pc || !movm_defs || !mask_pc || !taken)
        goto out;
    for (uint32_t m = 0; m < M; m++)
        mask_pc[m] = UINT32_MAX;
    for (uint32_t i = 0; i < N; i++) {
        const isa_inst *in = &p->code[i];
        isa_span rd[6], wr[2];
        int nr, nw;
        isa_inst_regs(in, rd, &nr, wr, &nw);
        for (int k = 0; k < nw; k++)
            for (uint32_t r = wr[k].first; r < wr[k].first + wr[k].count && r < R; r++) {
                defs[r]++;
                def_pc[r] = i;
                movm_defs[r] += in->op == ISA_OP_MOVM;
            }
        for (int k = 0; k < nr; k++)
            for (uint32_t r = rd[k].first; r < rd[k].first + rd[k].count && r < R; r++)
                reads[r]++;
        if (in->op == ISA_OP_MASK_EXEC && in->d < M)
            mask_pc[in->d] = mask_pc[in->d] == UINT32_MAX ? i : UINT32_MAX - 1; /* written twice: never */
        else if ((in->op == ISA_OP_MASK_COND || in->op == ISA_OP_MASK_CASE || in->op == ISA_OP_MASK_OR ||
                  in->op == ISA_OP_MASK_ANDN || in->op == ISA_OP_JOIN) && in->d < M)
            mask_pc[in->d] = UINT32_MAX - 1;
    }
    for (uint32_t i = 0; i < N; i++) {
        const isa_inst *in = &p->code[i];
        if (in->op != ISA_OP_MOVM || in->d >= R || in->a >= R || in->d == in->a || in->b >= M)
            continue;
        uint32_t d = in->d, a = in->a, gd = gid[d], ga = gid[a];
        group *Gd = &groups[gd], *Ga = &groups[ga];
        if (gd == ga || taken[gd] == 2 || taken[ga] || Ga->lo != Ga->hi || Gd->file != Ga->file ||
            Gd->file == ISA_FILE_CONST || !Gd->referenced || !Ga->referenced || is_builtin[a] || is_builtin[d])
            continue;
        uint32_t da = def_pc[a], me = mask_pc[in->b];
        if (defs[a] != 1 || reads[a] != 1 || movm_defs[d] != defs[d] || da >= i || me >= i || me < da)
            continue;
        if (widened_write(&p->code[da]) && !(p->reg_uniform && d < p->res.virtual_regs && p->reg_uniform[d]))
            continue; /* a scalar write in a divergent block would reach the waiting lanes' copies of a per-lane d */
        int same_exec = 1; /* no block starts between a's write and the copy: the same lanes run both */
        for (uint32_t j = da + 1; j <= i && same_exec; j++)
            same_exec = p->code[j].op != ISA_OP_BLOCK && p->code[j].op != ISA_OP_LOOP;
        if (!same_exec)
            continue;
        if (Ga->start != 2 * (int64_t)da + 3 || Ga->end != 2 * (int64_t)i + 2) /* not stretched over a loop */
            continue;
        int clash = 0;
        for (uint32_t j = da; j < i && !clash; j++) {
            isa_span rd[6], wr[2];
            int nr, nw;
            isa_inst_regs(&p->code[j], rd, &nr, wr, &nw);
            for (int k = 0; k < nr; k++) /* a's own definition may read d first, unless it reads late */
                if (d >= rd[k].first && d < rd[k].first + rd[k].count && (j > da || isa_inst_reads_late(&p->code[j])))
                    clash = 1;
            for (int k = 0; k < nw; k++)
                if (j > da && d >= wr[k].first && d < wr[k].first + wr[k].count)
                    clash = 1;
        }
        if (clash)
            continue;
        if (Ga->start < Gd->start)
            Gd->start = Ga->start;
        if (Ga->end > Gd->end)
            Gd->end = Ga->end;
        Ga->referenced = 0;
        taken[ga] = 2;
        taken[gd] = 1;
        into[a] = d;
    }
out:
    free(defs), free(reads), free(def_pc), free(movm_defs), free(mask_pc), free(taken);
}

/* 1. Groups: every span one instruction reads or writes is unioned into one group of consecutive registers;
 * gid[r] = r's group.  Returns the number of groups. */
static uint32_t build_groups(const isa_program *p, uint32_t *uf, uint32_t *gid, group *groups)
{
    uint32_t R = p->reg_count, N = p->code_count;
    for (uint32_t r = 0; r < R; r++)
        uf[r] = r;
    for (uint32_t i = 0; i < N; i++) {
        isa_span sp[8];
        int nr, nw;
        isa_inst_regs(&p->code[i], sp, &nr, sp + 6, &nw);
        for (int k = 0; k < 8; k++) {
            if ((k < 6 && k >= nr) || (k >= 6 && k - 6 >= nw))
                continue;
            for (uint32_t j = 1; j < sp[k].count && sp[k].first + j < R; j++) {
                uint32_t x = find(uf, sp[k].first + j), y = find(uf, sp[k].first);
                if (x != y)
                    uf[x > y ? x : y] = x < y ? x : y; /* the root is the lowest register */
            }
        }
    }
    uint32_t ng = 0;
    for (uint32_t r = 0; r < R; r++) {
        uint32_t root = find(uf, r);
        if (root == r) {
            gid[r] = ng;
            groups[ng] = (group){.lo = r, .hi = r, .start = INT64_MAX, .end = -1, .first_ref = INT64_MAX};
            ng++;
        } else {
            gid[r] = gid[root];
            if (r > groups[gid[r]].hi)
                groups[gid[r]].hi = r;
        }
    }
    return ng;
}

/* One reference at position pos widens its group's interval (position 0, the wave's start, is a definition
 * that does not by itself make the group referenced). */
static void add_reference(group *g, int64_t pos, int is_read)
{
    g->referenced |= pos > 0;
    if (pos < g->start)
        g->start = pos;
    if (pos > g->end)
        g->end = pos;
    if (pos < g->first_ref)
        g->first_ref = pos, g->first_is_read = is_read;
}

/* 2a. References: instruction i reads at 2i+2 (a late read, at 2i+3, overlaps its own writes) and writes at 2i+3. */
static void record_references(const isa_program *p, group *groups, const uint32_t *gid)
{
    uint32_t R = p->reg_count, N = p->code_count;
    for (uint32_t i = 0; i < N; i++) {
        isa_span rd[6], wr[2];
        int nr, nw;
        isa_inst_regs(&p->code[i], rd, &nr, wr, &nw);
        int64_t rpos = isa_inst_reads_late(&p->code[i]) ? 2 * (int64_t)i + 3 : 2 * (int64_t)i + 2;
        for (int k = 0; k < nr; k++)
            for (uint32_t r = rd[k].first; r < rd[k].first + rd[k].count && r < R; r++)
                add_reference(&groups[gid[r]], rpos, 1);
        for (int k = 0; k < nw; k++)
            for (uint32_t r = wr[k].first; r < wr[k].first + wr[k].count && r < R; r++)
                add_reference(&groups[gid[r]], 2 * (int64_t)i + 3, 0);
    }
    for (uint32_t k = 0; k < p->builtin_count; k++) /* defined when the wave starts */
        add_reference(&groups[gid[p->builtins[k].reg]], 0, 0);
}

/* 2b. Files and sizes: each group's register file, and what it counts there (halves of VGPRs, packed and
 * unpacked; SGPR units). */
static void assign_files(const isa_program *p, group *groups, uint32_t ng, const uint8_t *width,
                         const uint8_t *is_const)
{
    for (uint32_t k = 0; k < ng; k++) {
        group *g = &groups[k];
        int all_const = 1, any_const = 0, uniform = 1;
        for (uint32_t r = g->lo; r <= g->hi; r++) {
            all_const &= is_const[r];
            any_const |= is_const[r];
            if (p->reg_uniform && r < p->res.virtual_regs && !p->reg_uniform[r])
                uniform = 0;
        }
        if (all_const) {
            g->file = ISA_FILE_CONST;
            continue;
        }
        if (any_const) /* constants filled at entry share the group's registers from the start */
            g->start = 0, g->first_ref = 0, g->first_is_read = 0;
        g->by_lanes = !any_const; /* a VGPR group's registers by lane liveness (lane_ranges) */
        if (uniform) {
            g->file = ISA_FILE_SGPR;
        } else if (g->lo == g->hi && width[g->lo] == W_BOOL) {
            g->file = ISA_FILE_SGPR; /* a per-lane bool: a lane mask */
        } else {
            g->file = ISA_FILE_VGPR;
        }
        for (uint32_t r = g->lo; r <= g->hi; r++) {
            int w = width[r];
            if (g->file == ISA_FILE_SGPR)
                g->sunits += w == W_64 || (w == W_BOOL && !uniform) ? 2 : 1;
            g->halves += w == W_16 ? 1 : w == W_64 ? 4 : 2;
            g->halves_unpacked += w == W_64 ? 4 : 2;
        }
        if (g->file == ISA_FILE_SGPR)
            g->halves = g->halves_unpacked = 0;
    }
}

/* 3. Loops: a group crossing a loop's boundary, or carried around it, lives across all of it (repeated until
 * nothing grows: stretching over an inner loop can make a group cross an outer one). */
static void stretch_over_loops(const isa_program *p, group *groups, uint32_t ng)
{
    uint32_t N = p->code_count;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t le = 0; le < N; le++) {
            const isa_inst *in = &p->code[le];
            if (in->op != ISA_OP_LOOP || in->imm < 0 || in->imm > (int64_t)le)
                continue;
            int64_t ls = 2 * in->imm + 2, lend = 2 * (int64_t)le + 3;
            for (uint32_t k = 0; k < ng; k++) {
                group *g = &groups[k];
                if (!g->referenced || g->file == ISA_FILE_CONST || g->end < ls || g->start > lend)
                    continue;
                int inside = g->start >= ls && g->end <= lend;
                if (inside && !(g->first_is_read && g->first_ref >= ls))
                    continue;
                if (g->start > ls)
                    g->start = ls, changed = 1;
                if (g->end < lend)
                    g->end = lend, changed = 1;
            }
        }
    }
}

/* The instruction an interval position (2i + 2 or 2i + 3: instruction i; below 2: the wave's start) belongs to,
 * within the program's N instructions. */
static int64_t position_pc(int64_t pos, uint32_t N)
{
    int64_t pc = pos < 2 ? 0 : (pos - 2) / 2;
    return pc >= (int64_t)N ? (N ? N - 1 : 0) : pc;
}

/* One run of a register's lane liveness inside a block, for lane_ranges: occupied positions [lo, hi] (none when
 * hi < lo), counted [lo, chi]. */
typedef struct lane_run { uint32_t g; int64_t lo, hi, chi; } lane_run;

typedef struct run_list { lane_run *r; size_t n, cap; } run_list;

static int add_run(run_list *l, uint32_t g, int64_t lo, int64_t hi, int64_t chi)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        lane_run *r = realloc(l->r, cap * sizeof *r);
        if (!r)
            return 0;
        l->r = r, l->cap = cap;
    }
    l->r[l->n++] = (lane_run){g, lo, hi, chi};
    return 1;
}

static int by_group_lo(const void *x, const void *y)
{
    const lane_run *a = x, *b = y;
    if (a->g != b->g)
        return a->g < b->g ? -1 : 1;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Appends to *out the union of the ranges [lo, hi] of runs[0..n) (sorted by lo), hi chosen by `counted`. */
static int merge_runs(const lane_run *runs, size_t n, int counted, range **out, size_t *nout, size_t *cap)
{
    size_t first = *nout;
    for (size_t k = 0; k < n; k++) {
        int64_t lo = runs[k].lo, hi = counted ? runs[k].chi : runs[k].hi;
        if (hi < lo)
            continue;
        if (*nout > first && (*out)[*nout - 1].hi + 1 >= lo) {
            if (hi > (*out)[*nout - 1].hi)
                (*out)[*nout - 1].hi = hi;
            continue;
        }
        if (*nout == *cap) {
            size_t c = *cap ? 2 * *cap : 256;
            range *r = realloc(*out, c * sizeof *r);
            if (!r)
                return 0;
            *out = r, *cap = c;
        }
        (*out)[(*nout)++] = (range){lo, hi};
    }
    return 1;
}

/*
 * 3c. VGPRs by lane liveness.  Every write to a VGPR is predicated by exec,
 * so a lane's value is overwritten only by that lane's own path: two values
 * may share a VGPR unless some lane needs both at once.  That is liveness
 * on the thread CFG (isa_lane_liveness), where the then and the else of a
 * divergent if are different lanes' paths and a branch on a uniform value
 * takes one of its sides, as ACO computes it for VGPRs; SGPRs keep the
 * intervals on the linear program (a scalar write reaches every lane).  A
 * group holds a value at the positions after each instruction where one of
 * its registers is live and defined, and at its writes (and late reads); it
 * counts there and at its last reads.  Groups with a constant keep their
 * interval (the constant is filled at the wave's start).  Sets each VGPR
 * group's ranges in occ and cnt; 0 when out of memory.
 */
/* What the backward walk of lane_ranges carries from block to block. */
typedef struct lane_walk {
    const isa_program *p;
    const isa_lane_live *ll;
    const uint32_t *gid, *into;
    const uint8_t *by_lanes;  /* per register: its group is placed by lane liveness */
    int64_t *open_end, *cnt_end; /* per live register: the last position of its open run, held and counted */
    uint64_t *live, *fresh;   /* live registers; those an instruction's writes made live (no value after it) */
    run_list runs;
} lane_walk;

#define BIT(set, r) (((set)[(r) >> 6] >> ((r) & 63)) & 1)

static uint32_t owner_group(const lane_walk *w, uint32_t r)
{
    return w->gid[w->into[r] != ISA_NO_REG ? w->into[r] : r];
}

/* Block b, backward from its live-out set: every run of every register placed by lane liveness. */
static int walk_block(lane_walk *w, uint32_t b)
{
    const isa_program *p = w->p;
    const isa_block *bl = &p->blocks[b];
    uint32_t R = p->reg_count, words = w->ll->words;
    const uint64_t *reach_in = isa_lane_set(w->ll, b, ISA_LANE_REACH_IN);
    memcpy(w->live, isa_lane_set(w->ll, b, ISA_LANE_LIVE_OUT), words * sizeof *w->live);
    for (uint32_t k = 0; k < words; k++)
        for (uint64_t bits = w->live[k]; bits; bits &= bits - 1) {
            uint32_t r = k * 64 + (uint32_t)__builtin_ctzll(bits);
            if (r < R)
                w->open_end[r] = w->cnt_end[r] = bl->end_pc;
        }
    for (uint32_t i = bl->end_pc; i-- > bl->start_pc;) {
        isa_span rd[6], wr[2];
        int nr, nw, late = isa_inst_reads_late(&p->code[i]), kills = w->ll->kills[i];
        isa_inst_regs(&p->code[i], rd, &nr, wr, &nw);
        /* what it writes (and reads late) holds a value after it */
        for (int k = 0; k < nw + (late ? nr : 0); k++) {
            isa_span sp = k < nw ? wr[k] : rd[k - nw];
            for (uint32_t r = sp.first; r < sp.first + sp.count && r < R; r++)
                if (!BIT(w->live, r)) {
                    w->live[r >> 6] |= 1ull << (r & 63);
                    w->fresh[r >> 6] |= (uint64_t)(k < nw) << (r & 63);
                    w->open_end[r] = w->cnt_end[r] = (int64_t)i + 1;
                }
        }
        /* a write ends its register's run (what follows it is defined); the value before it is still needed when
         * the write reaches only some lanes (isa_lane_live.kills) and the value was live after it */
        for (int k = 0; k < nw; k++)
            for (uint32_t r = wr[k].first; r < wr[k].first + wr[k].count && r < R; r++) {
                if (w->by_lanes[r] && !add_run(&w->runs, owner_group(w, r), (int64_t)i + 1, w->open_end[r],
                                               w->cnt_end[r]))
                    return 0;
                if (kills || BIT(w->fresh, r))
                    w->live[r >> 6] &= ~(1ull << (r & 63));
                else
                    w->open_end[r] = w->cnt_end[r] = i;
                w->fresh[r >> 6] &= ~(1ull << (r & 63));
            }
        for (int k = 0; k < nr; k++) /* a last read: counted here, held before */
            for (uint32_t r = rd[k].first; r < rd[k].first + rd[k].count && r < R; r++)
                if (!BIT(w->live, r)) {
                    w->live[r >> 6] |= 1ull << (r & 63);
                    w->open_end[r] = i, w->cnt_end[r] = (int64_t)i + 1;
                }
    }
    /* live at the block's entry: held from its first instruction on, when something defined it */
    for (uint32_t k = 0; k < words; k++)
        for (uint64_t bits = w->live[k] & reach_in[k]; bits; bits &= bits - 1) {
            uint32_t r = k * 64 + (uint32_t)__builtin_ctzll(bits);
            if (r < R && w->by_lanes[r] && !add_run(&w->runs, owner_group(w, r), b == 0 ? 0 : (int64_t)bl->start_pc + 1,
                                                   w->open_end[r], w->cnt_end[r]))
                return 0;
        }
    return 1;
}

static int lane_ranges(const isa_program *p, group *groups, uint32_t ng, const uint32_t *gid, const uint32_t *into,
                       range **occ, size_t *nocc, range **cnt, size_t *ncnt)
{
    uint32_t R = p->reg_count, N = p->code_count;
    isa_lane_live ll;
    if (isa_lane_liveness(p, &ll) != ISA_OK)
        return 0;
    lane_walk w = {.p = p, .ll = &ll, .gid = gid, .into = into};
    uint8_t *by_lanes = calloc(R ? R : 1, 1);
    w.by_lanes = by_lanes;
    w.open_end = malloc((R ? R : 1) * sizeof *w.open_end), w.cnt_end = malloc((R ? R : 1) * sizeof *w.cnt_end);
    w.live = malloc(ll.words * sizeof *w.live), w.fresh = calloc(ll.words, sizeof *w.fresh);
    size_t occ_cap = 0, cnt_cap = 0;
    int ok = by_lanes && w.open_end && w.cnt_end && w.live && w.fresh;
    for (uint32_t r = 0; ok && r < R; r++) {
        const group *g = &groups[owner_group(&w, r)];
        by_lanes[r] = g->file == ISA_FILE_VGPR && g->by_lanes;
    }
    for (uint32_t b = 0; ok && b < p->block_count; b++)
        ok = walk_block(&w, b);
    /* a VGPR group with a constant holds it from the wave's start to its last reference */
    for (uint32_t k = 0; ok && k < ng; k++) {
        group *g = &groups[k];
        if (g->file != ISA_FILE_VGPR || g->by_lanes || !g->referenced)
            continue;
        int64_t last = position_pc(g->end, N);
        ok = add_run(&w.runs, k, 0, last + 1, last + 1);
    }
    if (ok && w.runs.n) /* no runs: no array (qsort takes none) */
        qsort(w.runs.r, w.runs.n, sizeof *w.runs.r, by_group_lo);
    for (size_t k = 0; ok && k < w.runs.n;) {
        size_t e = k;
        while (e < w.runs.n && w.runs.r[e].g == w.runs.r[k].g)
            e++;
        group *g = &groups[w.runs.r[k].g];
        g->occ_first = (uint32_t)*nocc, g->cnt_first = (uint32_t)*ncnt;
        ok = merge_runs(w.runs.r + k, e - k, 0, occ, nocc, &occ_cap) &&
             merge_runs(w.runs.r + k, e - k, 1, cnt, ncnt, &cnt_cap);
        g->occ_count = (uint32_t)(*nocc - g->occ_first), g->cnt_count = (uint32_t)(*ncnt - g->cnt_first);
        g->held_from = g->occ_count ? (*occ)[g->occ_first].lo : INT64_MAX;
        k = e;
    }
    free(w.open_end), free(w.cnt_end), free(w.live), free(w.fresh), free(by_lanes), free(w.runs.r), free(ll.mem);
    free(ll.kills);
    return ok;
}

/* Constant groups one after another in the constant file; returns its size. */
static uint32_t place_constants(group *groups, uint32_t ng)
{
    uint32_t nc = 0;
    for (uint32_t k = 0; k < ng; k++)
        if (groups[k].file == ISA_FILE_CONST) {
            groups[k].slot = nc;
            nc += groups[k].hi - groups[k].lo + 1;
        }
    return nc;
}

/* The peaks of the running counts: VGPR halves (packed, unpacked) and SGPR units. */
typedef struct peaks {
    int64_t halves, halves_unpacked, sunits;
} peaks;

/* 5. Counting: what the allocated groups hold at each instruction (a difference array over their intervals),
 * into live_v (VGPRs) and live_s (SGPRs), and the peaks.  0 when out of memory. */
static int count_live(group *const *order, uint32_t no, uint32_t N, const range *cnt, uint16_t *live_v,
                      uint16_t *live_s, peaks *max)
{
    int64_t *delta_v = calloc(N + 2, sizeof *delta_v), *delta_vu = calloc(N + 2, sizeof *delta_vu),
            *delta_s = calloc(N + 2, sizeof *delta_s);
    if (!delta_v || !delta_vu || !delta_s) {
        free(delta_v), free(delta_vu), free(delta_s);
        return 0;
    }
    for (uint32_t k = 0; k < no; k++) {
        const group *g = order[k];
        if (g->file == ISA_FILE_VGPR) { /* its lane ranges: position i + 1 is pc i */
            for (uint32_t j = g->cnt_first; j < g->cnt_first + g->cnt_count; j++) {
                int64_t first = cnt[j].lo < 1 ? 0 : cnt[j].lo - 1, last = cnt[j].hi - 1;
                if (last < first)
                    continue;
                if (last >= (int64_t)N)
                    last = N ? N - 1 : 0;
                delta_v[first] += g->halves, delta_v[last + 1] -= g->halves;
                delta_vu[first] += g->halves_unpacked, delta_vu[last + 1] -= g->halves_unpacked;
            }
            continue;
        }
        /* an SGPR group (halves 0): its interval */
        int64_t first = position_pc(g->start, N), last = position_pc(g->end, N);
        delta_s[first] += g->sunits, delta_s[last + 1] -= g->sunits;
    }
    int64_t hv = 0, hvu = 0, hs = 0;
    *max = (peaks){0, 0, 0};
    for (uint32_t i = 0; i < N; i++) {
        hv += delta_v[i], hvu += delta_vu[i], hs += delta_s[i];
        live_v[i] = (uint16_t)((hv + 1) / 2 > 65535 ? 65535 : (hv + 1) / 2);
        live_s[i] = (uint16_t)(hs > 65535 ? 65535 : hs);
        if (hv > max->halves) max->halves = hv;
        if (hvu > max->halves_unpacked) max->halves_unpacked = hvu;
        if (hs > max->sunits) max->sunits = hs;
    }
    free(delta_v), free(delta_vu), free(delta_s);
    return 1;
}

/* 6. Renaming: every operand, constant and read built-in to its physical register (VGPRs first, then SGPRs,
 * then constants); a coalesced register (into) takes its partner's.  Sets p->reg_count, reg_file and
 * reg_number; 0 when out of memory, p untouched. */
static int rename_registers(isa_program *p, const group *groups, const uint32_t *gid, const uint32_t *into,
                            uint32_t *map, uint32_t nv, uint32_t ns, uint32_t nc)
{
    uint32_t R = p->reg_count, N = p->code_count, total = nv + ns + nc;
    uint8_t *reg_file = malloc((total ? total : 1) * sizeof *reg_file);
    uint32_t *reg_number = malloc((total ? total : 1) * sizeof *reg_number);
    if (!reg_file || !reg_number) {
        free(reg_file), free(reg_number);
        return 0;
    }
    for (uint32_t r = 0; r < total; r++) {
        reg_file[r] = r < nv ? ISA_FILE_VGPR : r < nv + ns ? ISA_FILE_SGPR : ISA_FILE_CONST;
        reg_number[r] = r < nv ? r : r < nv + ns ? r - nv : r - nv - ns;
    }
    for (uint32_t r = 0; r < R; r++) {
        const group *g = &groups[gid[r]];
        uint32_t base = g->file == ISA_FILE_VGPR ? 0 : g->file == ISA_FILE_SGPR ? nv : nv + ns;
        map[r] = g->referenced || g->file == ISA_FILE_CONST ? base + g->slot + (r - g->lo) : ISA_NO_REG;
    }
    for (uint32_t r = 0; r < R; r++)
        if (into[r] != ISA_NO_REG)
            map[r] = map[into[r]];
    for (uint32_t i = 0; i < N; i++) {
        isa_inst *in = &p->code[i];
        unsigned f = isa_inst_reg_fields(in, 1, 1, 0);
        for (unsigned k = 0; k < ISA_FIELD_COUNT; k++) {
            uint32_t *r = isa_inst_field_ref(in, k);
            if ((f >> k) & 1 && *r < R)
                *r = map[*r];
        }
    }
    for (uint32_t k = 0; k < p->const_count; k++)
        p->consts[k].reg = map[p->consts[k].reg];
    uint32_t kept = 0;
    for (uint32_t k = 0; k < p->builtin_count; k++) {
        if (!groups[gid[p->builtins[k].reg]].referenced)
            continue; /* never read: no register, nothing to fill */
        p->builtins[kept] = p->builtins[k];
        p->builtins[kept].reg = map[p->builtins[k].reg];
        kept++;
    }
    p->builtin_count = kept;
    p->reg_count = total;
    p->reg_file = reg_file;
    p->reg_number = reg_number;
    return 1;
}

isa_status isa_allocate_registers(isa_program *p)
{
    if (p->allocated)
        return ISA_OK;
    uint32_t R = p->reg_count, N = p->code_count;
    isa_status st = ISA_ERR_NOMEM;
    uint8_t *width = malloc(R ? R : 1);
    uint32_t *uf = malloc((R ? R : 1) * sizeof *uf);
    uint32_t *gid = malloc((R ? R : 1) * sizeof *gid);
    uint8_t *is_const = calloc(R ? R : 1, 1), *is_builtin = calloc(R ? R : 1, 1);
    group *groups = calloc(R ? R : 1, sizeof *groups);
    group **order = malloc((R ? R : 1) * sizeof *order);
    uint32_t *map = malloc((R ? R : 1) * sizeof *map), *into = malloc((R ? R : 1) * sizeof *into);
    uint16_t *live_v = calloc(N ? N : 1, sizeof *live_v), *live_s = calloc(N ? N : 1, sizeof *live_s);
    range *occ = NULL, *cnt = NULL;
    size_t nocc = 0, ncnt = 0;
    if (!width || !uf || !gid || !is_const || !is_builtin || !groups || !order || !map || !into || !live_v || !live_s)
        goto out;
    infer_widths(p, width);
    for (uint32_t r = 0; r < R; r++)
        into[r] = ISA_NO_REG;
    for (uint32_t k = 0; k < p->const_count; k++)
        is_const[p->consts[k].reg] = 1;
    for (uint32_t k = 0; k < p->builtin_count; k++)
        is_builtin[p->builtins[k].reg] = 1;

    uint32_t ng = build_groups(p, uf, gid, groups);
    record_references(p, groups, gid);
    assign_files(p, groups, ng, width, is_const);
    stretch_over_loops(p, groups, ng);
    /* 3b. loop phis share a register with their back-edge values (isa/lean.c removes the copies) */
    if (isa_lean_enabled())
        coalesce_phis(p, groups, gid, is_builtin, into);
    /* 3c. VGPR groups: where they hold values, by lane liveness */
    if (!lane_ranges(p, groups, ng, gid, into, &occ, &nocc, &cnt, &ncnt))
        goto out;
    /* 4. first fit per file: SGPRs by linear scan of their intervals, VGPRs by their lane ranges */
    uint32_t no = 0;
    for (uint32_t k = 0; k < ng; k++)
        if (groups[k].referenced && groups[k].file != ISA_FILE_CONST)
            order[no++] = &groups[k];
    qsort(order, no, sizeof *order, by_held_from);
    uint32_t nv = scan_lanes(order, no, occ, R);
    qsort(order, no, sizeof *order, by_start);
    uint32_t ns = scan(order, no, ISA_FILE_SGPR, R);
    if (nv == UINT32_MAX || ns == UINT32_MAX)
        goto out;
    uint32_t nc = place_constants(groups, ng);
    peaks max;
    if (!count_live(order, no, N, cnt, live_v, live_s, &max) ||
        !rename_registers(p, groups, gid, into, map, nv, ns, nc))
        goto out;
    free(p->live_vgprs);
    free(p->live_sgprs);
    p->live_vgprs = live_v, live_v = NULL;
    p->live_sgprs = live_s, live_s = NULL;
    p->res.vgprs = (uint32_t)((max.halves + 1) / 2);
    p->res.vgprs_unpacked = (uint32_t)((max.halves_unpacked + 1) / 2);
    p->res.sgprs = (uint32_t)max.sunits;
    p->res.vgpr_slots = nv;
    p->res.sgpr_slots = ns;
    p->res.lds_bytes = p->workgroup_bytes;
    p->allocated = 1;
    st = ISA_OK;
out:
    free(width), free(uf), free(gid), free(is_const), free(is_builtin), free(groups), free(order), free(map), free(into);
    free(live_v), free(live_s), free(occ), free(cnt);
    return st;
}
