/*
 * tests/test_lean.c — lean wave programs (isa/lean.c and the allocator's phi
 * coalescing).  Each kernel is built twice, with the pass and without it
 * (isa_lean_set_enabled), and each test checks two things independently:
 * the instructions saved, counted by hand from the lowering's rules (one MOV
 * per bitcast, one MOVM per phi per edge, a mask_exec + mask_or per edge with
 * copies, a SMEM load per push-constant read), and that both programs give
 * the same outputs — equal to a reference computed here in C — the same
 * events and the same active lanes per source line for every wave operation.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "sim/sim.h"
#include "tests/support/tsup.h"

static isa_program *build(const char *src, int lean)
{
    isa_program *p = NULL;
    char msg[4096];
    isa_lean_set_enabled(lean);
    isa_status st = tsup_build(src, "t.comp", "glsl", NULL, &p, msg, sizeof msg, NULL, 0);
    isa_lean_set_enabled(1);
    ck_assert_msg(st == ISA_OK, "%s", msg);
    return p;
}

static int count_op(const isa_program *p, isa_op op)
{
    int n = 0;
    for (uint32_t i = 0; i < p->code_count; i++)
        n += p->code[i].op == op;
    return n;
}

typedef struct run_out {
    uint32_t o[256];
    sim_result res;
} run_out;

/* Runs p over `groups` workgroups of 64 at wave size W with push constants {n, k}; output binding 0. */
static void run(const isa_program *p, uint32_t W, uint32_t groups, uint32_t n, uint32_t k, run_out *out)
{
    memset(out, 0, sizeof *out);
    uint32_t push[2] = {n, k};
    sim_buffer buf = {.set = 0, .binding = 0, .data = (uint8_t *)out->o, .size = sizeof out->o};
    sim_config c;
    memset(&c, 0, sizeof c);
    c.wave_size = W;
    c.groups[0] = groups;
    c.groups[1] = c.groups[2] = 1;
    c.buffers = &buf;
    c.buffer_count = 1;
    c.push = (const uint8_t *)push;
    c.push_size = sizeof push;
    ck_assert_int_eq(sim_run(p, &c, &out->res), SIM_OK);
}

/* Both programs: same outputs, events, and per source line the same executions and active lanes of wave ops. */
static void assert_same_behaviour(const isa_program *lean, const isa_program *off, const run_out *a,
                                  const run_out *b)
{
    ck_assert_mem_eq(a->o, b->o, sizeof a->o);
    ck_assert_uint_eq(a->res.stats.undefined_events, b->res.stats.undefined_events);
    ck_assert_int_eq(a->res.event_count, b->res.event_count);
    for (int e = 0; e < a->res.event_count; e++) {
        ck_assert_str_eq(a->res.events[e].message, b->res.events[e].message);
        ck_assert_uint_eq(a->res.events[e].where.line, b->res.events[e].where.line);
    }
    for (uint32_t line = 0; line < 64; line++) {
        uint64_t ex[2] = {0, 0}, lanes[2] = {0, 0};
        const isa_program *ps[2] = {lean, off};
        const sim_result *rs[2] = {&a->res, &b->res};
        for (int k = 0; k < 2; k++)
            for (uint32_t i = 0; i < ps[k]->code_count; i++)
                if (ps[k]->code[i].line == line && isa_op_class((isa_op)ps[k]->code[i].op) == ISA_CLASS_XLANE) {
                    ex[k] += rs[k]->stats.inst_executions[i];
                    lanes[k] += rs[k]->stats.inst_lanes[i];
                }
        ck_assert_uint_eq(ex[0], ex[1]);
        ck_assert_uint_eq(lanes[0], lanes[1]);
    }
}

#define HEADER "#version 450\n#extension GL_KHR_shader_subgroup_arithmetic : require\n" \
               "layout(local_size_x = 64) in;\n" \
               "layout(push_constant) uniform P { uint n; uint k; } pc;\n" \
               "layout(set = 0, binding = 0) buffer Out { uint o[]; };\n"

/* Two bitcasts (int(x), uint(...)) lower to two MOVs; copy propagation removes both. */
START_TEST(test_lean_bitcasts_propagated_two_fewer)
{
    const char *src = HEADER "void main() { uint x = gl_GlobalInvocationID.x; int y = int(x);\n"
                             "  o[x] = uint(y + 1); }\n";
    isa_program *lean = build(src, 1), *off = build(src, 0);
    ck_assert_int_eq(count_op(off, ISA_OP_MOV), 2);
    ck_assert_int_eq(count_op(lean, ISA_OP_MOV), 0);
    ck_assert_uint_eq(lean->code_count, off->code_count - 2);
    run_out a, b;
    run(lean, 32, 4, 0, 0, &a);
    run(off, 32, 4, 0, 0, &b);
    for (uint32_t x = 0; x < 256; x++)
        ck_assert_uint_eq(a.o[x], x + 1);
    assert_same_behaviour(lean, off, &a, &b);
    /* the wave ran two instructions fewer */
    ck_assert_uint_eq(a.res.stats.wave_instructions + 2 * 8, b.res.stats.wave_instructions);
    sim_result_free(&a.res), sim_result_free(&b.res);
    isa_program_destroy(lean), isa_program_destroy(off);
}
END_TEST

/*
 * A loop with two phis (acc, i) fed on the back edge, and pc.k read before the
 * loop (entry block) and inside it.  As lowered (docs/design.md), per wave:
 * the entry block (block, load, mask_exec, 2 movm, mask_or: 6), per visit of
 * the header (n + 1: block, load pc.n, ult, branch: 4), per visit of the body
 * block (n + 1, the last one skipped: block; loop: 2), per iteration (n: load
 * pc.k, imul, iadd, iadd, iadd i, mask_exec, 2 movm, mask_or: 9), the exit
 * block (block, imul, store, end: 4): 15n + 16.
 * The lean program: the entry edge's copies need no mask (mov, no mask_exec:
 * 5); the header's block runs once, the back edge jumps into its body (1);
 * per header visit the load and one branch_if for ult + branch + the body's
 * block (2); per iteration imul, 2 iadd, iadd i and the jump (5: the reload
 * reuses the entry block's load, both phis share registers with their
 * back-edge values); the loop check once (1) and the exit block (4): 7n + 13.
 * The program is 7 instructions shorter (mask_exec x2, 2 movm, ult's
 * fusion, the body's block, the reload).
 */
START_TEST(test_lean_uniform_loop_eight_fewer_per_iteration)
{
    const char *src = HEADER "void main() {\n"
                             "  uint x = gl_GlobalInvocationID.x;\n"
                             "  uint acc = pc.k;\n"
                             "  for (uint i = 0u; i < pc.n; ++i)\n"
                             "    acc += x * pc.k + i;\n"
                             "  o[x] = acc; }\n";
    isa_program *lean = build(src, 1), *off = build(src, 0);
    ck_assert_uint_eq(lean->code_count, off->code_count - 7);
    ck_assert_int_eq(count_op(off, ISA_OP_MOVM), 4);
    ck_assert_int_eq(count_op(lean, ISA_OP_MOVM), 0);
    ck_assert_int_eq(count_op(lean, ISA_OP_MOV), 2); /* the entry edge's copies, unmasked */
    ck_assert_int_eq(count_op(off, ISA_OP_BRANCH_CMP) + count_op(off, ISA_OP_BRANCH_IF), 0);
    ck_assert_int_eq(count_op(lean, ISA_OP_BRANCH_IF), 1);
    ck_assert_int_eq(count_op(lean, ISA_OP_JUMP), 1);
    ck_assert_int_eq(count_op(off, ISA_OP_LOAD) - count_op(lean, ISA_OP_LOAD), 1);
    static const uint32_t waves[] = {4, 8, 16, 32, 64, 128};
    for (unsigned w = 0; w < sizeof waves / sizeof *waves; w++) {
        const uint32_t n = 7, k = 3, W = waves[w], nwaves = 4 * ((64 + W - 1) / W);
        run_out a, b;
        run(lean, W, 4, n, k, &a);
        run(off, W, 4, n, k, &b);
        for (uint32_t x = 0; x < 256; x++) {
            uint32_t acc = k;
            for (uint32_t i = 0; i < n; i++)
                acc += x * k + i;
            ck_assert_uint_eq(a.o[x], acc);
        }
        assert_same_behaviour(lean, off, &a, &b);
        ck_assert_uint_eq(b.res.stats.wave_instructions, (15ull * n + 16) * nwaves);
        ck_assert_uint_eq(a.res.stats.wave_instructions, (7ull * n + 13) * nwaves);
        /* one SMEM per wave instead of 1 + n */
        ck_assert_uint_eq(a.res.stats.by_class[ISA_CLASS_SMEM] + 1ull * n * nwaves,
                          b.res.stats.by_class[ISA_CLASS_SMEM]);
        sim_result_free(&a.res), sim_result_free(&b.res);
    }
    isa_program_destroy(lean), isa_program_destroy(off);
}
END_TEST

/*
 * A wave operation inside a divergent branch inside a loop: the lean program
 * must give it the same lanes on every iteration (and the same sums).  The
 * reference computes subgroupAdd per wave of W consecutive invocations.
 */
START_TEST(test_lean_divergent_wave_op_same_lanes)
{
    const char *src = HEADER "void main() {\n"
                             "  uint x = gl_GlobalInvocationID.x;\n"
                             "  uint acc = 0u;\n"
                             "  for (uint i = 0u; i < pc.n; ++i) {\n"
                             "    if ((x + i) % 3u == 0u)\n"
                             "      acc += subgroupAdd(x + i);\n"
                             "    else\n"
                             "      acc += i * pc.k;\n"
                             "  }\n"
                             "  o[x] = acc; }\n";
    isa_program *lean = build(src, 1), *off = build(src, 0);
    ck_assert_uint_lt(lean->code_count, off->code_count);
    /* the per-lane test (x + i) % 3 == 0 is a vector comparison fused with its (divergent) branch */
    int vector_fused = 0;
    for (uint32_t i = 0; i < lean->code_count; i++)
        vector_fused += (lean->code[i].op == ISA_OP_BRANCH_CMP || (lean->code[i].op == ISA_OP_BRANCH_IF && lean->code[i].imm2)) &&
                        lean->code[i].cls == ISA_CLASS_VALU;
    ck_assert_int_eq(vector_fused, 1);
    static const uint32_t waves[] = {4, 8, 16, 32, 64, 128};
    for (unsigned w = 0; w < sizeof waves / sizeof *waves; w++) {
        const uint32_t n = 5, k = 2, W = waves[w] < 64 ? waves[w] : 64; /* a wave never spans workgroups */
        run_out a, b;
        run(lean, waves[w], 4, n, k, &a);
        run(off, waves[w], 4, n, k, &b);
        for (uint32_t x = 0; x < 256; x++) {
            uint32_t acc = 0, base = x / W * W;
            for (uint32_t i = 0; i < n; i++) {
                if ((x + i) % 3u == 0u) {
                    uint32_t s = 0;
                    for (uint32_t l = base; l < base + W; l++)
                        if ((l + i) % 3u == 0u)
                            s += l + i;
                    acc += s;
                } else {
                    acc += i * k;
                }
            }
            ck_assert_uint_eq(a.o[x], acc);
        }
        assert_same_behaviour(lean, off, &a, &b);
        sim_result_free(&a.res), sim_result_free(&b.res);
    }
    isa_program_destroy(lean), isa_program_destroy(off);
}
END_TEST

/* Exec and branch bookkeeping, the end, and copies (mov, movm) the wave executed: everything but the kernel's own
 * work.  A fused branch_cmp or branch_if holds one comparison of the kernel: that part is work. */
static uint64_t bookkeeping(const isa_program *p, const sim_result *r)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < p->code_count; i++) {
        isa_op op = (isa_op)p->code[i].op;
        uint64_t x = r->stats.inst_executions[i];
        switch (op) {
        case ISA_OP_BLOCK: case ISA_OP_MASK_COND: case ISA_OP_MASK_EXEC: case ISA_OP_MASK_CASE: case ISA_OP_MASK_OR:
        case ISA_OP_MASK_ANDN: case ISA_OP_BRANCH: case ISA_OP_JOIN: case ISA_OP_LOOP: case ISA_OP_JUMP:
        case ISA_OP_END: case ISA_OP_MOV: case ISA_OP_MOVM:
            n += x;
            break;
        case ISA_OP_BRANCH_IF:
            n += p->code[i].imm2 ? 0 : x;
            break;
        default:
            break;
        }
    }
    return n;
}

/*
 * A uniform `if (pc.n > 4)` inside a divergent `if (x % 3 != 0)`, wave
 * operations on both sides and after the inner merge.  Every wave holds lanes
 * of both kinds (any 3 consecutive x), so every wave runs the same path.  As
 * lowered, per wave: outer branch (block, 2 mask_cond, mask_or, the phi copy
 * of acc for the lanes that skip, mask_or: 6), the inner header's block and
 * branch (2), the taken side's block and its edge to the inner merge
 * (mask_exec, movm, mask_or: 4), the other side's block, skipped (1), the
 * inner merge's block and its edge to the outer merge (block, mask_exec,
 * movm, mask_or: 4), the outer merge's block and the end (2): 19.  Lean: the
 * inner branch and its true side's block are one branch_if (-1); each edge to
 * a merge is one join (-2 for mask_exec and mask_or, -1 for its copy, which
 * the allocator coalesced or found a self-move, on both edges: -4 in all for
 * the path taken, and the inner merge's): 13.  The same either way the
 * uniform condition goes.
 */
START_TEST(test_lean_uniform_if_inside_divergent_if_six_fewer)
{
    const char *src = HEADER "void main() {\n"
                             "  uint x = gl_GlobalInvocationID.x;\n"
                             "  uint acc = x;\n"
                             "  if (x % 3u != 0u) {\n"
                             "    if (pc.n > 4u)\n"
                             "      acc += subgroupAdd(x);\n"
                             "    else\n"
                             "      acc += subgroupMax(x);\n"
                             "    acc += subgroupAdd(1u);\n"
                             "  }\n"
                             "  o[x] = acc; }\n";
    isa_program *lean = build(src, 1), *off = build(src, 0);
    ck_assert_int_eq(count_op(lean, ISA_OP_BRANCH_IF), 1);
    static const uint32_t waves[] = {4, 8, 16, 32, 64, 128};
    static const uint32_t ns[] = {7, 2};
    for (unsigned w = 0; w < sizeof waves / sizeof *waves; w++)
        for (unsigned t = 0; t < 2; t++) {
            const uint32_t n = ns[t], W = waves[w] < 64 ? waves[w] : 64, nwaves = 4 * (64 / W);
            run_out a, b;
            run(lean, waves[w], 4, n, 0, &a);
            run(off, waves[w], 4, n, 0, &b);
            for (uint32_t x = 0; x < 256; x++) {
                uint32_t want = x, base = x / W * W, sum = 0, max = 0, lanes = 0;
                for (uint32_t l = base; l < base + W; l++)
                    if (l % 3u != 0u) {
                        sum += l;
                        max = l > max ? l : max;
                        lanes++;
                    }
                if (x % 3u != 0u)
                    want += (n > 4u ? sum : max) + lanes;
                ck_assert_uint_eq(a.o[x], want);
            }
            assert_same_behaviour(lean, off, &a, &b);
            ck_assert_uint_eq(bookkeeping(off, &b.res), 19ull * nwaves);
            ck_assert_uint_eq(bookkeeping(lean, &a.res), 13ull * nwaves);
            ck_assert_uint_eq(a.res.stats.wave_instructions - bookkeeping(lean, &a.res),
                              b.res.stats.wave_instructions - bookkeeping(off, &b.res)); /* the same work */
            sim_result_free(&a.res), sim_result_free(&b.res);
        }
    isa_program_destroy(lean), isa_program_destroy(off);
}
END_TEST

/*
 * A loop with a uniform trip count (pc.n) and a divergent break (at i ==
 * x % 5 + pc.k), a wave operation after the break.  The test follows the
 * lanes of each wave through the source's structured semantics: at visit i of
 * the header the lanes A_i that are still in the loop; B_i of them pass the
 * test i < n; Br_i of those break; C_i = B_i - Br_i run the rest of the body
 * (the wave operation sees exactly them) and come back: A_{i+1} = C_i.
 * As lowered, per wave: entry (block, mask_exec, 2 movm, mask_or: 5), per
 * visit (header block, branch, the body's block, the continuing lanes'
 * block, loop: 5; when B_i: the break test's branch and the break block's
 * block: 2; when Br_i: the break's join: 1; when C_i: the back edge's
 * mask_exec, 2 movm and mask_or: 4), exit (block, end: 2).  Lean: entry
 * (block, 2 mov, join, and the header's block, which only the first visit
 * runs: 5), per visit (the continuing lanes' block, and the back edge's jump
 * or, on the last visit, the loop check: 2; when Br_i: the join: 1 — the
 * header's test and the break test are each one branch_if with the body's
 * and the break block's `block`), exit 2.
 */
START_TEST(test_lean_uniform_loop_divergent_break_same_lanes)
{
    const char *src = HEADER "void main() {\n"
                             "  uint x = gl_GlobalInvocationID.x;\n"
                             "  uint acc = 0u;\n"
                             "  for (uint i = 0u; i < pc.n; ++i) {\n"
                             "    if (i == x % 5u + pc.k)\n"
                             "      break;\n"
                             "    acc += subgroupAdd(i + x);\n"
                             "  }\n"
                             "  o[x] = acc; }\n";
    isa_program *lean = build(src, 1), *off = build(src, 0);
    ck_assert_int_eq(count_op(lean, ISA_OP_BRANCH_IF), 2);
    ck_assert_int_eq(count_op(lean, ISA_OP_JUMP), 1);
    static const uint32_t waves[] = {4, 8, 16, 32, 64, 128};
    static const uint32_t nk[][2] = {{4, 1}, {9, 0}, {0, 3}};
    for (unsigned w = 0; w < sizeof waves / sizeof *waves; w++)
        for (unsigned t = 0; t < sizeof nk / sizeof *nk; t++) {
            const uint32_t n = nk[t][0], k = nk[t][1], W = waves[w] < 64 ? waves[w] : 64;
            run_out a, b;
            run(lean, waves[w], 4, n, k, &a);
            run(off, waves[w], 4, n, k, &b);
            uint32_t want[256] = {0};
            uint64_t bk_off = 0, bk_lean = 0;
            for (uint32_t base = 0; base < 256; base += W) {
                uint64_t A = W == 64 ? ~0ull : (1ull << W) - 1; /* bit j: lane base + j */
                bk_off += 5 + 2, bk_lean += 5 + 2;
                for (uint32_t i = 0; A; i++) {
                    uint64_t B = i < n ? A : 0, Br = 0;
                    for (uint32_t j = 0; j < W; j++)
                        if ((B >> j) & 1 && i == (base + j) % 5u + k)
                            Br |= 1ull << j;
                    uint64_t C = B & ~Br;
                    uint32_t sum = 0;
                    for (uint32_t j = 0; j < W; j++)
                        if ((C >> j) & 1)
                            sum += i + base + j;
                    for (uint32_t j = 0; j < W; j++)
                        if ((C >> j) & 1)
                            want[base + j] += sum;
                    bk_off += 5 + (B ? 2 : 0) + (Br ? 1 : 0) + (C ? 4 : 0);
                    bk_lean += 2 + (Br ? 1 : 0);
                    A = C;
                }
            }
            for (uint32_t x = 0; x < 256; x++)
                ck_assert_uint_eq(a.o[x], want[x]);
            assert_same_behaviour(lean, off, &a, &b);
            ck_assert_uint_eq(bookkeeping(off, &b.res), bk_off);
            ck_assert_uint_eq(bookkeeping(lean, &a.res), bk_lean);
            ck_assert_uint_eq(a.res.stats.wave_instructions - bookkeeping(lean, &a.res),
                              b.res.stats.wave_instructions - bookkeeping(off, &b.res));
            sim_result_free(&a.res), sim_result_free(&b.res);
        }
    isa_program_destroy(lean), isa_program_destroy(off);
}
END_TEST

/* Private-memory stores of the program, and their executions in a run. */
static int count_private_stores(const isa_program *p, const sim_result *r, uint64_t *executed)
{
    int n = 0;
    *executed = 0;
    for (uint32_t i = 0; i < p->code_count; i++)
        if (p->code[i].op == ISA_OP_STORE && p->slots[p->code[i].slot].space == ISA_SPACE_PRIVATE) {
            n++;
            *executed += r->stats.inst_executions[i];
        }
    return n;
}

static uint32_t table5(uint32_t i) { static const uint32_t t[5] = {3, 5, 7, 11, 13}; return t[i % 5]; }

/*
 * A constant table indexed dynamically in a function called twice per
 * iteration: glslang stores the whole table into a Function variable at
 * every call (5 stores, 2 calls).  Folded, the two variables share one
 * table stored once per wave at the top: 5 stores in the program instead
 * of 10, executed once per wave instead of 10 per iteration.
 */
START_TEST(test_lean_constant_table_stored_once)
{
    const char *src = HEADER "const uint kT[5] = uint[5](3u, 5u, 7u, 11u, 13u);\n"
                             "uint w(uint i) { return kT[i % 5u]; }\n"
                             "void main() { uint x = gl_GlobalInvocationID.x; uint acc = 0u;\n"
                             "  for (uint i = 0u; i < pc.n; ++i) acc += w(x + i) * w(i);\n"
                             "  o[x] = acc; }\n";
    isa_program *lean = build(src, 1), *off = build(src, 0);
    const uint32_t n = 6, waves = 256 / 32;
    run_out a, b;
    run(lean, 32, 4, n, 0, &a);
    run(off, 32, 4, n, 0, &b);
    for (uint32_t x = 0; x < 256; x++) {
        uint32_t acc = 0;
        for (uint32_t i = 0; i < n; i++)
            acc += table5(x + i) * table5(i);
        ck_assert_uint_eq(a.o[x], acc);
    }
    assert_same_behaviour(lean, off, &a, &b);
    uint64_t ex_lean, ex_off;
    ck_assert_int_eq(count_private_stores(lean, &a.res, &ex_lean), 5);
    ck_assert_int_eq(count_private_stores(off, &b.res, &ex_off), 10);
    ck_assert_uint_eq(ex_lean, 5 * waves);
    ck_assert_uint_eq(ex_off, 10 * n * waves);
    sim_result_free(&a.res), sim_result_free(&b.res);
    isa_program_destroy(lean), isa_program_destroy(off);
}
END_TEST

/*
 * Tables that do not hold one constant stay as written: one initialised at
 * every iteration and then overwritten on some lanes (a store through a
 * dynamic access chain: storing the initialiser once would let the 9 of one
 * iteration leak into the next), and one assigned two different constants
 * on the two sides of a branch.
 */
START_TEST(test_lean_written_tables_not_folded)
{
    const char *src = HEADER "void main() { uint x = gl_GlobalInvocationID.x; uint acc = 0u;\n"
                             "  for (uint i = 0u; i < pc.n; ++i) {\n"
                             "    uint t[3] = uint[3](1u, 2u, 3u);\n"
                             "    acc += t[(x + i) % 3u];\n"
                             "    if (x % 2u == 1u) t[pc.k % 3u] = 9u;\n"
                             "    acc = acc * 3u + t[(x + 2u * i) % 3u];\n"
                             "  }\n"
                             "  uint u[2];\n"
                             "  if (x % 3u == 0u) u = uint[2](4u, 5u); else u = uint[2](6u, 7u);\n"
                             "  o[x] = acc * 10u + u[(x / 3u) % 2u]; }\n";
    isa_program *lean = build(src, 1), *off = build(src, 0);
    const uint32_t n = 4, k = 1;
    run_out a, b;
    run(lean, 32, 4, n, k, &a);
    run(off, 32, 4, n, k, &b);
    for (uint32_t x = 0; x < 256; x++) {
        uint32_t acc = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t t[3] = {1, 2, 3};
            acc += t[(x + i) % 3];
            if (x % 2 == 1)
                t[k % 3] = 9;
            acc = acc * 3 + t[(x + 2 * i) % 3];
        }
        uint32_t u0[2] = {4, 5}, u1[2] = {6, 7};
        uint32_t uv = x % 3 == 0 ? u0[(x / 3) % 2] : u1[(x / 3) % 2];
        ck_assert_uint_eq(a.o[x], acc * 10 + uv);
    }
    assert_same_behaviour(lean, off, &a, &b);
    uint64_t ex_lean, ex_off;
    /* t: 3 stores of its initialiser and 1 of t[k]; u: 2 on each side */
    ck_assert_int_eq(count_private_stores(off, &b.res, &ex_off), 3 + 1 + 2 + 2);
    ck_assert_int_eq(count_private_stores(lean, &a.res, &ex_lean), 3 + 1 + 2 + 2);
    ck_assert_uint_eq(ex_lean, ex_off);
    sim_result_free(&a.res), sim_result_free(&b.res);
    isa_program_destroy(lean), isa_program_destroy(off);
}
END_TEST

/* Executions of the scalar-ALU instructions of one source line. */
static uint64_t salu_executions_on_line(const isa_program *p, const sim_result *r, uint32_t line)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < p->code_count; i++)
        if (p->code[i].line == line && p->code[i].cls == ISA_CLASS_SALU)
            n += r->stats.inst_executions[i];
    return n;
}

/*
 * Line 11's `j * 7u` is scalar (j is uniform) and does not change inside the
 * inner loop, so it moves before the inner loop's header; `+ pc.k` stays,
 * since it needs the load of pc.k (a load never moves: it could fault in a
 * run whose loop does not iterate).  The outer header is visited n + 1
 * times per wave; the first n fall through to the moved multiply, the last
 * one jumps there with no lane left (a jump from outside the loop to its
 * header lands on the moved code), so per wave the line runs n + 1
 * multiplies and n² adds, where the program as lowered runs 2n².
 */
START_TEST(test_lean_invariant_scalar_math_leaves_inner_loop)
{
    const char *src = HEADER "void main() {\n"                              /* line 6 */
                             "  uint x = gl_GlobalInvocationID.x; uint acc = 0u;\n"
                             "  for (uint j = 0u; j < pc.n; ++j) {\n"
                             "    for (uint i = 0u; i < pc.n; ++i) {\n"
                             "      acc += (x + i) *\n"
                             "             (j * 7u + pc.k);\n"             /* line 11 */
                             "    }\n"
                             "  }\n"
                             "  o[x] = acc; }\n";
    isa_program *lean = build(src, 1), *off = build(src, 0);
    const uint32_t waves = 256 / 32;
    for (uint32_t n = 0; n <= 5; n += 5) {
        const uint32_t k = 3;
        run_out a, b;
        run(lean, 32, 4, n, k, &a);
        run(off, 32, 4, n, k, &b);
        for (uint32_t x = 0; x < 256; x++) {
            uint32_t acc = 0;
            for (uint32_t j = 0; j < n; j++)
                for (uint32_t i = 0; i < n; i++)
                    acc += (x + i) * (j * 7 + k);
            ck_assert_uint_eq(a.o[x], acc);
        }
        assert_same_behaviour(lean, off, &a, &b);
        ck_assert_uint_eq(salu_executions_on_line(off, &b.res, 11), 2 * n * n * waves);
        ck_assert_uint_eq(salu_executions_on_line(lean, &a.res, 11), (n * n + n + 1) * waves);
        sim_result_free(&a.res), sim_result_free(&b.res);
    }
    isa_program_destroy(lean), isa_program_destroy(off);
}
END_TEST

/*
 * `uint(i)` of a loop counter is a move (a bitcast) from the counter's phi
 * register, which the loop writes again at its end: the copy goes because
 * its one read, the multiply, follows it in the same block before the
 * counter is written (per wave, n moves fewer).
 */
START_TEST(test_lean_copy_of_loop_counter_propagated)
{
    const char *src = HEADER "void main() {\n"
                             "  uint x = gl_GlobalInvocationID.x; uint acc = 0u;\n"
                             "  for (int i = 0; i < int(pc.n); ++i) {\n"
                             "    acc += uint(i) * x;\n"                     /* line 9 */
                             "  }\n"
                             "  o[x] = acc; }\n";
    isa_program *lean = build(src, 1), *off = build(src, 0);
    int moves[2] = {0, 0};
    const isa_program *ps[2] = {lean, off};
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < ps[k]->code_count; i++)
            moves[k] += ps[k]->code[i].line == 9 && ps[k]->code[i].op == ISA_OP_MOV;
    ck_assert_int_eq(moves[1], 1);
    ck_assert_int_eq(moves[0], 0);
    const uint32_t n = 7;
    run_out a, b;
    run(lean, 32, 4, n, 0, &a);
    run(off, 32, 4, n, 0, &b);
    for (uint32_t x = 0; x < 256; x++)
        ck_assert_uint_eq(a.o[x], x * (n * (n - 1) / 2));
    assert_same_behaviour(lean, off, &a, &b);
    sim_result_free(&a.res), sim_result_free(&b.res);
    isa_program_destroy(lean), isa_program_destroy(off);
}
END_TEST

/* WAVELAB_NO_LEAN=1 turns the pass off like isa_lean_set_enabled(0). */
START_TEST(test_lean_env_off_same_as_switch_off)
{
    const char *src = HEADER "void main() { uint x = gl_GlobalInvocationID.x; int y = int(x);\n"
                             "  o[x] = uint(y + 1); }\n";
    setenv("WAVELAB_NO_LEAN", "1", 1);
    isa_program *env_off = build(src, 1);
    unsetenv("WAVELAB_NO_LEAN");
    isa_program *off = build(src, 0);
    ck_assert_uint_eq(env_off->code_count, off->code_count);
    ck_assert_int_eq(count_op(env_off, ISA_OP_MOV), 2);
    isa_program_destroy(env_off), isa_program_destroy(off);
}
END_TEST

static Suite *lean_suite(void)
{
    Suite *s = suite_create("lean");
    TCase *tc = tcase_create("lean");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_lean_bitcasts_propagated_two_fewer);
    tcase_add_test(tc, test_lean_uniform_loop_eight_fewer_per_iteration);
    tcase_add_test(tc, test_lean_divergent_wave_op_same_lanes);
    tcase_add_test(tc, test_lean_uniform_if_inside_divergent_if_six_fewer);
    tcase_add_test(tc, test_lean_uniform_loop_divergent_break_same_lanes);
    tcase_add_test(tc, test_lean_env_off_same_as_switch_off);
    tcase_add_test(tc, test_lean_constant_table_stored_once);
    tcase_add_test(tc, test_lean_written_tables_not_folded);
    tcase_add_test(tc, test_lean_invariant_scalar_math_leaves_inner_loop);
    tcase_add_test(tc, test_lean_copy_of_loop_counter_propagated);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tsup_run_suite(lean_suite(), "test_lean"); }
