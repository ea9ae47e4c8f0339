/*
 * isa/liveness.c — which registers each instruction reads and writes, a deep
 * copy of a program, and the allocation verifier.
 *
 * The verifier is deliberately independent of the allocator (isa/regalloc.c):
 * the allocator reasons about intervals on the linear (wave) program; the
 * verifier computes per-lane liveness by data flow over the thread CFG (the
 * blocks the lowering records), which is exactly what the executor needs,
 * because every vector write is predicated by exec and every scalar write
 * happens where all live lanes stand at the same point (isa/uniform.c).
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
    uint32_t *f[5] = {&probe.d, &probe.a, &probe.b, &probe.c, &probe.e};
    const uint32_t base = 0xF0000000u;
    for (int k = 0; k < 5; k++)
        if (*f[k] != ISA_NO_REG)
            *f[k] = base + (uint32_t)k;
    isa_span rd[6], wr[2];
    int nr, nw;
    isa_inst_regs(&probe, rd, &nr, wr, &nw);
    unsigned mask = 0;
    for (int k = 0; reads && k < nr; k++)
        if (rd[k].first >= base && rd[k].first < base + 5 && (!single || rd[k].count == 1))
            mask |= 1u << (rd[k].first - base);
    for (int k = 0; writes && k < nw; k++)
        if (wr[k].first >= base && wr[k].first < base + 5 && (!single || wr[k].count == 1))
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
    uint32_t R = v->reg_count, B = v->block_count, N = v->code_count;
    /* virtual -> physical, read off the two programs operand by operand */
    uint32_t *phys = malloc((R ? R : 1) * sizeof *phys);
    uint32_t words = (R + 63) / 64 + 1;
    uint64_t *mem = calloc((size_t)words * (4 * B + 3), sizeof *mem);
    if (!phys || !mem) {
        free(phys);
        free(mem);
        snprintf(err, err_size, "out of memory");
        return 0;
    }
    int ok = 1;
    for (uint32_t r = 0; r < R; r++)
        phys[r] = ISA_NO_REG;
#define MAP(vr, pr)                                                                                          \
    do {                                                                                                     \
        if ((vr) < R) {                                                                                      \
            if (phys[vr] == ISA_NO_REG)                                                                      \
                phys[vr] = (pr);                                                                             \
            else if (phys[vr] != (pr) && ok) {                                                               \
                snprintf(err, err_size, "virtual register %u is renamed both to %u and to %u", (vr), phys[vr], \
                         (pr));                                                                              \
                ok = 0;                                                                                      \
            }                                                                                                \
        }                                                                                                    \
    } while (0)
    /* built-ins map through the instructions that read them (unread ones get no register) */
    for (uint32_t i = 0; i < N; i++) {
        isa_span rv[6], wv[2], ra[6], wa[2];
        int nrv, nwv, nra, nwa;
        isa_inst_regs(&v->code[i], rv, &nrv, wv, &nwv);
        isa_inst_regs(&a->code[i], ra, &nra, wa, &nwa);
        for (int k = 0; k < nrv && k < nra; k++)
            for (uint32_t j = 0; j < rv[k].count; j++)
                MAP(rv[k].first + j, ra[k].first + j);
        for (int k = 0; k < nwv && k < nwa; k++)
            for (uint32_t j = 0; j < wv[k].count; j++)
                MAP(wv[k].first + j, wa[k].first + j);
    }
#undef MAP
    /* constants are never written: they need no liveness, only registers no one else writes */
    uint8_t *is_const = calloc(R ? R : 1, 1);
    uint8_t *is_builtin = calloc(R ? R : 1, 1);
    if (!is_const || !is_builtin) {
        ok = 0;
        snprintf(err, err_size, "out of memory");
    }
    for (uint32_t i = 0; ok && i < v->const_count; i++)
        is_const[v->consts[i].reg] = 1;
    for (uint32_t i = 0; ok && i < v->builtin_count; i++)
        is_builtin[v->builtins[i].reg] = 1;

    bitset *live_in = NULL, *live_out = NULL, *reach_in = NULL, *reach_out = NULL;
    bitset cur = {mem + (size_t)words * 4 * B, words}, tmp = {mem + (size_t)words * (4 * B + 1), words};
    bitset reach = {mem + (size_t)words * (4 * B + 2), words};
    if (ok) {
        live_in = malloc(B * sizeof *live_in);
        live_out = malloc(B * sizeof *live_out);
        reach_in = malloc(B * sizeof *reach_in);
        reach_out = malloc(B * sizeof *reach_out);
        if (!live_in || !live_out || !reach_in || !reach_out) {
            ok = 0;
            snprintf(err, err_size, "out of memory");
        }
    }
    for (uint32_t b = 0; ok && b < B; b++) {
        live_in[b] = (bitset){mem + (size_t)words * (4 * b + 0), words};
        live_out[b] = (bitset){mem + (size_t)words * (4 * b + 1), words};
        reach_in[b] = (bitset){mem + (size_t)words * (4 * b + 2), words};
        reach_out[b] = (bitset){mem + (size_t)words * (4 * b + 3), words};
    }
    /* forward: definitions that reach each block (builtins are defined at entry) */
    for (int changed = 1; ok && changed;) {
        changed = 0;
        for (uint32_t b = 0; b < B; b++) {
            const isa_block *bl = &v->blocks[b];
            memcpy(cur.w, reach_in[b].w, words * sizeof *cur.w);
            if (b == 0)
                for (uint32_t r = 0; r < R; r++)
                    if (is_builtin[r])
                        BS_SET(cur, r);
            for (uint32_t i = bl->start_pc; i < bl->end_pc; i++) {
                isa_span rd[6] = {{0, 0}}, wr[2] = {{0, 0}};
                int nr, nw;
                isa_inst_regs(&v->code[i], rd, &nr, wr, &nw);
                for (int k = 0; k < nw; k++)
                    span_set(cur, wr[k], 1);
            }
            if (memcmp(cur.w, reach_out[b].w, words * sizeof *cur.w)) {
                memcpy(reach_out[b].w, cur.w, words * sizeof *cur.w);
                changed = 1;
            }
            for (uint32_t s = 0; s < bl->nsucc; s++)
                for (uint32_t k = 0; k < words; k++) {
                    uint64_t nv = reach_in[bl->succ[s]].w[k] | cur.w[k];
                    if (nv != reach_in[bl->succ[s]].w[k])
                        reach_in[bl->succ[s]].w[k] = nv, changed = 1;
                }
        }
    }
    /* backward: per-lane liveness */
    for (int changed = 1; ok && changed;) {
        changed = 0;
        for (uint32_t b = B; b-- > 0;) {
            const isa_block *bl = &v->blocks[b];
            memset(tmp.w, 0, words * sizeof *tmp.w);
            for (uint32_t s = 0; s < bl->nsucc; s++)
                for (uint32_t k = 0; k < words; k++)
                    tmp.w[k] |= live_in[bl->succ[s]].w[k];
            memcpy(live_out[b].w, tmp.w, words * sizeof *tmp.w);
            for (uint32_t i = bl->end_pc; i-- > bl->start_pc;) {
                isa_span rd[6] = {{0, 0}}, wr[2] = {{0, 0}};
                int nr, nw;
                isa_inst_regs(&v->code[i], rd, &nr, wr, &nw);
                for (int k = 0; k < nw; k++)
                    span_set(tmp, wr[k], 0);
                for (int k = 0; k < nr; k++)
                    span_set(tmp, rd[k], 1);
            }
            if (memcmp(tmp.w, live_in[b].w, words * sizeof *tmp.w)) {
                memcpy(live_in[b].w, tmp.w, words * sizeof *tmp.w);
                changed = 1;
            }
        }
    }
    /* check every instruction: live-out (and defined) values plus its own writes must not share a register */
    uint32_t *owner = malloc((a->reg_count ? a->reg_count : 1) * sizeof *owner);
    uint32_t *stamp = calloc(a->reg_count ? a->reg_count : 1, sizeof *stamp);
    if (ok && (!owner || !stamp)) {
        ok = 0;
        snprintf(err, err_size, "out of memory");
    }
    for (uint32_t b = 0; ok && b < B; b++) {
        const isa_block *bl = &v->blocks[b];
        memcpy(tmp.w, live_out[b].w, words * sizeof *tmp.w);
        /* reaching definitions at each point: recompute forward within the block */
        for (uint32_t i = bl->end_pc; ok && i-- > bl->start_pc;) {
            memcpy(reach.w, reach_in[b].w, words * sizeof *reach.w);
            if (b == 0)
                for (uint32_t r = 0; r < R; r++)
                    if (is_builtin[r])
                        BS_SET(reach, r);
            for (uint32_t j = bl->start_pc; j <= i; j++) {
                isa_span rd[6] = {{0, 0}}, wr[2] = {{0, 0}};
                int nr, nw;
                isa_inst_regs(&v->code[j], rd, &nr, wr, &nw);
                for (int k = 0; k < nw; k++)
                    span_set(reach, wr[k], 1);
            }
            isa_span rd[6] = {{0, 0}}, wr[2] = {{0, 0}};
            int nr, nw;
            isa_inst_regs(&v->code[i], rd, &nr, wr, &nw);
            uint32_t mark = i + 1;
            int late = isa_inst_reads_late(&v->code[i]);
            /* values live after i (and defined by then) */
            for (uint32_t r = 0; ok && r < R; r++) {
                int written = 0;
                for (int k = 0; k < nw; k++)
                    written |= r >= wr[k].first && r < wr[k].first + wr[k].count;
                if (late) /* its sources are read while its destination is written: they must not share */
                    for (int k = 0; k < nr; k++)
                        written |= r >= rd[k].first && r < rd[k].first + rd[k].count;
                if (!((BS_GET(tmp, r) && BS_GET(reach, r)) || written) || is_const[r])
                    continue;
                uint32_t pr = phys[r];
                if (pr == ISA_NO_REG || pr >= a->reg_count) {
                    snprintf(err, err_size, "pc %u: virtual register %u has no physical register", i, r);
                    ok = 0;
                    break;
                }
                if (stamp[pr] == mark && owner[pr] != r) {
                    snprintf(err, err_size,
                             "pc %u: virtual registers %u and %u are both live in physical register %u", i,
                             owner[pr], r, pr);
                    ok = 0;
                    break;
                }
                stamp[pr] = mark;
                owner[pr] = r;
            }
            /* step backward over i */
            for (int k = 0; k < nw; k++)
                span_set(tmp, wr[k], 0);
            for (int k = 0; k < nr; k++)
                span_set(tmp, rd[k], 1);
            /* stamps must not leak between instructions: they carry the pc */
        }
    }
    /* constants: the physical register must hold nothing else that is ever written */
    for (uint32_t i = 0; ok && i < a->const_count; i++)
        if (a->reg_file && a->reg_file[a->consts[i].reg] != ISA_FILE_CONST) {
            snprintf(err, err_size, "constant in physical register %u outside the constant file", a->consts[i].reg);
            ok = 0;
        }
    for (uint32_t i = 0; ok && i < N; i++) {
        isa_span rd[6] = {{0, 0}}, wr[2] = {{0, 0}};
        int nr, nw;
        isa_inst_regs(&a->code[i], rd, &nr, wr, &nw);
        for (int k = 0; k < nw && ok; k++)
            for (uint32_t j = 0; j < wr[k].count; j++)
                if (a->reg_file && wr[k].first + j < a->reg_count && a->reg_file[wr[k].first + j] == ISA_FILE_CONST) {
                    snprintf(err, err_size, "pc %u writes constant register %u", i, wr[k].first + j);
                    ok = 0;
                    break;
                }
    }
    free(owner);
    free(stamp);
    free(live_in);
    free(live_out);
    free(reach_in);
    free(reach_out);
    free(is_const);
    free(is_builtin);
    free(phys);
    free(mem);
    return ok;
}
