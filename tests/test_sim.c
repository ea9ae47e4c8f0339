/*
 * tests/test_sim.c — unit tests of the executor (sim/).  Programs are built
 * by hand as arrays of isa_inst, and every expected value is computed here,
 * by hand or by a small reference loop, independently of the simulator.
 *
 * Most tests use one harness (run_lane_program): each invocation loads its
 * inputs a, b, c and an "active" flag from an input buffer, the wave turns
 * the flag into exec with MASK_COND + BLOCK, runs the instructions under
 * test with d = r10.., then re-converges and stores r10..r13 to the output
 * buffer.  r10..r13 start as a sentinel, so inactive lanes show whether a
 * write leaked into them.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/sim.h"
#include "tests/support/tsup.h"

#define SENTINEL 0xdeadbeefcafef00dull
#define MAX_CODE 256
#define MAX_INV 1024

/* ------------------------------------------------------------ builder */

typedef struct builder {
    isa_program p;
    isa_inst code[MAX_CODE];
    isa_slot slots[8];
    isa_const_reg consts[64];
    isa_builtin_reg builtins[32];
} builder;

static void b_init(builder *b, uint32_t regs, uint32_t masks, uint32_t lx, uint32_t ly, uint32_t lz)
{
    memset(b, 0, sizeof *b);
    b->p.code = b->code;
    b->p.slots = b->slots;
    b->p.consts = b->consts;
    b->p.builtins = b->builtins;
    b->p.reg_count = regs;
    b->p.mask_count = masks;
    b->p.local_size[0] = lx;
    b->p.local_size[1] = ly;
    b->p.local_size[2] = lz;
}

static uint32_t b_emit(builder *b, isa_inst in)
{
    ck_assert_uint_lt(b->p.code_count, MAX_CODE);
    if (!in.cls)
        in.cls = (uint8_t)isa_op_class((isa_op)in.op);
    in.line = 100 + b->p.code_count;       /* recognisable fake source lines */
    in.spirv_word = 1000 + b->p.code_count;
    b->code[b->p.code_count] = in;
    return b->p.code_count++;
}

static void b_const(builder *b, uint32_t reg, uint64_t bits)
{
    ck_assert_uint_lt(b->p.const_count, 64);
    b->consts[b->p.const_count++] = (isa_const_reg){reg, bits};
}

static void b_builtin(builder *b, uint32_t reg, isa_builtin bi, uint8_t comp)
{
    ck_assert_uint_lt(b->p.builtin_count, 32);
    b->builtins[b->p.builtin_count++] = (isa_builtin_reg){reg, (uint8_t)bi, comp};
}

static uint32_t b_slot(builder *b, isa_space space, uint32_t set, uint32_t binding, uint32_t size, int readonly,
                       const char *name)
{
    isa_slot *s = &b->slots[b->p.slot_count];
    memset(s, 0, sizeof *s);
    s->space = space;
    s->set = set;
    s->binding = binding;
    s->static_size = size;
    s->readonly = readonly;
    snprintf(s->name, sizeof s->name, "%s", name);
    return b->p.slot_count++;
}

#define I(...) ((isa_inst){__VA_ARGS__})

static sim_config config(uint32_t wave, uint32_t gx, sim_buffer *bufs, int nbuf)
{
    sim_config c;
    memset(&c, 0, sizeof c);
    c.wave_size = wave;
    c.groups[0] = gx;
    c.groups[1] = 1;
    c.groups[2] = 1;
    c.buffers = bufs;
    c.buffer_count = nbuf;
    return c;
}

/* ------------------------------------------------------------ the lane harness */

/* the harness puts the instructions under test at pc OPS_PC */
#define OPS_PC 8

enum { R_GID = 0, R_STRIDE = 1, R_ADDR = 2, R_LANE = 3, R_A = 4, R_ACTIVE = 5, R_B = 8, R_C = 9, R_D = 10, R_FREE = 14 };

typedef struct lane_io {
    uint64_t a[MAX_INV], b[MAX_INV], c[MAX_INV];
    uint8_t active[MAX_INV];
    uint64_t out[MAX_INV][4];
} lane_io;

/* Bit i set: run_lane_program's ops[i] is scalar ALU (reset by io_reset). */
static uint32_t lane_salu_ops;

/*
 * Runs `ops` with exec = lanes whose active flag is set, over `groups`
 * workgroups of `local` invocations at wave size W.  Returns sim_run's status;
 * io->out holds r10..r13 of every invocation.
 */
static sim_status run_lane_program(uint32_t W, uint32_t local, uint32_t groups, const isa_inst *ops, int nops,
                                   lane_io *io, sim_result *res)
{
    static builder b; /* tests run one after another in one process */
    uint32_t n = local * groups;
    ck_assert_uint_le(n, MAX_INV);
    b_init(&b, 32, 8, local, 1, 1);
    b_builtin(&b, R_GID, ISA_BI_GLOBAL_ID, 0);
    b_builtin(&b, R_LANE, ISA_BI_SUBGROUP_LOCAL_ID, 0);
    b_const(&b, R_STRIDE, 32);
    for (uint32_t r = R_D; r < R_D + 4; r++)
        b_const(&b, r, SENTINEL);
    uint32_t out = b_slot(&b, ISA_SPACE_STORAGE, 0, 0, 0, 0, "out");
    uint32_t in = b_slot(&b, ISA_SPACE_STORAGE, 0, 1, 0, 1, "in");
    uint32_t entry = b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0));
    b_emit(&b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U64, .d = R_ADDR, .a = R_GID, .b = R_STRIDE));
    b_emit(&b, I(.op = ISA_OP_LOAD, .type = ISA_TYPE_U64, .d = R_A, .a = R_ADDR, .imm = 0, .slot = (uint16_t)in, .count = 1));
    b_emit(&b, I(.op = ISA_OP_LOAD, .type = ISA_TYPE_U64, .d = R_B, .a = R_ADDR, .imm = 8, .slot = (uint16_t)in, .count = 2));
    b_emit(&b, I(.op = ISA_OP_LOAD, .type = ISA_TYPE_U64, .d = R_ACTIVE, .a = R_ADDR, .imm = 24, .slot = (uint16_t)in));
    b_emit(&b, I(.op = ISA_OP_MASK_COND, .type = ISA_TYPE_BOOL, .d = 1, .a = R_ACTIVE, .imm = 0));
    b_emit(&b, I(.op = ISA_OP_MASK_EXEC, .d = 2));
    uint32_t block = b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 1));
    for (int i = 0; i < nops; i++) {
        uint32_t pc = b_emit(&b, ops[i]);
        if (lane_salu_ops >> i & 1) /* ISA_CLASS_SALU is 0, which b_emit reads as "the opcode's class" */
            b.code[pc].cls = ISA_CLASS_SALU;
    }
    uint32_t merge = b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 2));
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U64, .b = R_D, .a = R_ADDR, .slot = (uint16_t)out, .count = 4));
    uint32_t end = b_emit(&b, I(.op = ISA_OP_END));
    b.code[entry].imm = end;
    b.code[block].imm = merge;
    b.code[merge].imm = end;

    static uint64_t inbuf[MAX_INV * 4], outbuf[MAX_INV * 4];
    for (uint32_t i = 0; i < n; i++) {
        inbuf[i * 4 + 0] = io->a[i];
        inbuf[i * 4 + 1] = io->b[i];
        inbuf[i * 4 + 2] = io->c[i];
        inbuf[i * 4 + 3] = io->active[i];
    }
    memset(outbuf, 0, sizeof outbuf);
    sim_buffer bufs[2] = {{0, 0, (uint8_t *)outbuf, n * 32, 0}, {0, 1, (uint8_t *)inbuf, n * 32, 0}};
    sim_config cfg = config(W, groups, bufs, 2);
    sim_status st = sim_run(&b.p, &cfg, res);
    for (uint32_t i = 0; i < n; i++)
        memcpy(io->out[i], &outbuf[i * 4], 32);
    return st;
}

static lane_io io;

static void io_reset(void)
{
    memset(&io, 0, sizeof io);
    lane_salu_ops = 0;
    for (int i = 0; i < MAX_INV; i++)
        io.active[i] = 1;
}

/* Deterministic pseudo-random numbers for inputs. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint64_t v) { uint32_t u = (uint32_t)v; float f; memcpy(&f, &u, 4); return f; }
static uint64_t d2u(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static double u2d(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static uint16_t h_bits(float f) { _Float16 h = (_Float16)f; uint16_t u; memcpy(&u, &h, 2); return u; }
static float h_val(uint64_t v) { uint16_t u = (uint16_t)v; _Float16 h; memcpy(&h, &u, 2); return (float)h; }

/* ------------------------------------------------------------ configuration */

START_TEST(test_config_bad_wave_size_is_config_error)
{
    lane_io *p = &io;
    io_reset();
    sim_result res;
    uint32_t bad[] = {0, 2, 12, 256};
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_int_eq(run_lane_program(bad[i], 8, 1, NULL, 0, p, &res), SIM_ERR_CONFIG);
        ck_assert_ptr_nonnull(strstr(res.fault_event.message, "wave size"));
        sim_result_free(&res);
    }
}
END_TEST

START_TEST(test_config_missing_binding_names_set_binding_and_name)
{
    builder b;
    b_init(&b, 4, 1, 4, 1, 1);
    b_slot(&b, ISA_SPACE_STORAGE, 2, 7, 16, 0, "particles");
    b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0, .imm = 1));
    b_emit(&b, I(.op = ISA_OP_END));
    sim_config cfg = config(4, 1, NULL, 0);
    sim_result res;
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_ERR_CONFIG);
    ck_assert_int_eq(res.fault, SIM_FAULT_MISSING_BINDING);
    ck_assert_ptr_nonnull(strstr(res.fault_event.message, "particles"));
    ck_assert_ptr_nonnull(strstr(res.fault_event.message, "set 2 binding 7"));
    ck_assert_uint_eq(res.stats.wave_instructions, 0);
    sim_result_free(&res);
}
END_TEST

/* ------------------------------------------------------------ predication and control flow */

START_TEST(test_alu_inactive_lanes_keep_old_values)
{
    io_reset();
    for (int i = 0; i < 32; i++) {
        io.a[i] = (uint64_t)i * 3;
        io.b[i] = 100;
        io.active[i] = (i % 3) != 0;
    }
    isa_inst ops[] = {
        I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = R_D, .a = R_A, .b = R_B),
        I(.op = ISA_OP_ISUB, .type = ISA_TYPE_U32, .d = R_D + 1, .a = R_A, .b = R_B),
        I(.op = ISA_OP_SELECT, .type = ISA_TYPE_U32, .d = R_D + 2, .a = R_ACTIVE, .b = R_A, .c = R_B),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(8, 32, 1, ops, 3, &io, &res), SIM_OK);
    for (int i = 0; i < 32; i++) {
        if (io.active[i]) {
            ck_assert_uint_eq((uint32_t)io.out[i][0], (uint32_t)(i * 3 + 100));
            ck_assert_uint_eq((uint32_t)io.out[i][1], (uint32_t)(i * 3 - 100));
            ck_assert_uint_eq(io.out[i][2], (uint64_t)i * 3);
        } else {
            ck_assert_uint_eq(io.out[i][0], SENTINEL);
            ck_assert_uint_eq(io.out[i][1], SENTINEL);
            ck_assert_uint_eq(io.out[i][2], SENTINEL);
        }
        ck_assert_uint_eq(io.out[i][3], SENTINEL);
    }
    /* statistics: lanes of the add instruction = active lanes */
    uint64_t active = 0;
    for (int i = 0; i < 32; i++)
        active += io.active[i];
    ck_assert_uint_eq(res.stats.inst_lanes[OPS_PC], active);
    ck_assert_uint_eq(res.stats.inst_executions[OPS_PC], 4);
    ck_assert_uint_eq(res.stats.by_op[ISA_OP_IADD], 4);
    ck_assert_uint_eq(res.stats.waves, 4);
    ck_assert_uint_eq(res.stats.workgroups, 1);
    sim_result_free(&res);
}
END_TEST

START_TEST(test_movm_writes_only_lanes_of_mask)
{
    io_reset();
    for (int i = 0; i < 8; i++) {
        io.a[i] = 1000 + i;
        io.b[i] = i & 1;
    }
    isa_inst ops[] = {
        I(.op = ISA_OP_MASK_COND, .type = ISA_TYPE_BOOL, .d = 5, .a = R_B, .imm = 0),
        I(.op = ISA_OP_MOVM, .type = ISA_TYPE_U64, .d = R_D, .a = R_A, .b = 5),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(8, 8, 1, ops, 2, &io, &res), SIM_OK);
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(io.out[i][0], (i & 1) ? (uint64_t)(1000 + i) : SENTINEL);
    sim_result_free(&res);
}
END_TEST

START_TEST(test_control_if_else_runs_each_side_on_its_lanes)
{
    /* if (a < b) { d0 = a + a; d1 = a; } else { d0 = b + c; d1 = c; }  d2 = c after the merge */
    io_reset();
    for (int i = 0; i < 16; i++) {
        io.a[i] = (uint64_t)(i * 7 % 11);
        io.b[i] = 5;
        io.c[i] = 7;
    }
    isa_inst ops[] = {
        I(.op = ISA_OP_ULT, .type = ISA_TYPE_U32, .d = R_FREE, .a = R_A, .b = R_B),
        I(.op = ISA_OP_MASK_COND, .type = ISA_TYPE_BOOL, .d = 3, .a = R_FREE, .imm = 0),
        I(.op = ISA_OP_MASK_COND, .type = ISA_TYPE_BOOL, .d = 4, .a = R_FREE, .imm = 1),
        /* then */ I(.op = ISA_OP_BLOCK, .a = 3, .imm = OPS_PC + 8),
        I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = R_D, .a = R_A, .b = R_A),
        I(.op = ISA_OP_MOV, .d = R_D + 1, .a = R_A),
        I(.op = ISA_OP_MASK_EXEC, .d = 6),
        I(.op = ISA_OP_MASK_OR, .d = 5, .a = 6),
        /* else */ I(.op = ISA_OP_BLOCK, .a = 4, .imm = OPS_PC + 13),
        I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = R_D, .a = R_B, .b = R_C),
        I(.op = ISA_OP_MOV, .d = R_D + 1, .a = R_C),
        I(.op = ISA_OP_MASK_EXEC, .d = 6),
        I(.op = ISA_OP_MASK_OR, .d = 5, .a = 6),
        /* merge */ I(.op = ISA_OP_BLOCK, .a = 5, .imm = OPS_PC + 15),
        I(.op = ISA_OP_MOV, .d = R_D + 2, .a = R_C),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(8, 16, 1, ops, 15, &io, &res), SIM_OK);
    int then_lanes = 0;
    for (int i = 0; i < 16; i++) {
        int then = io.a[i] < 5;
        then_lanes += then;
        ck_assert_uint_eq((uint32_t)io.out[i][0], then ? (uint32_t)(io.a[i] * 2) : 12u);
        ck_assert_uint_eq(io.out[i][1], then ? io.a[i] : 7u);
        ck_assert_uint_eq(io.out[i][2], 7u);
        ck_assert_uint_eq(io.out[i][3], SENTINEL);
    }
    ck_assert_uint_eq(res.stats.inst_lanes[OPS_PC + 4], (uint64_t)then_lanes);
    ck_assert_uint_eq(res.stats.inst_lanes[OPS_PC + 9], (uint64_t)(16 - then_lanes));
    sim_result_free(&res);
}
END_TEST

START_TEST(test_control_loop_per_lane_trip_counts_sum)
{
    /* i = 0; acc = 0; do { acc += i; i++; } while (i < a); a = lane-dependent trip count */
    io_reset();
    for (int i = 0; i < 64; i++)
        io.a[i] = (uint64_t)(i % 13) + 1;
    io.a[5] = 40;
    isa_inst ops[] = {
        /* 9  */ I(.op = ISA_OP_ISUB, .type = ISA_TYPE_U32, .d = R_D, .a = R_A, .b = R_A),        /* acc = 0 */
        I(.op = ISA_OP_ISUB, .type = ISA_TYPE_U32, .d = R_FREE, .a = R_A, .b = R_A),     /* i = 0 */
        I(.op = ISA_OP_SHRL, .type = ISA_TYPE_U32, .d = R_FREE + 1, .a = R_A, .b = R_A),
        I(.op = ISA_OP_ISUB, .type = ISA_TYPE_U32, .d = R_FREE + 1, .a = R_FREE + 1, .b = R_FREE + 1),
        I(.op = ISA_OP_NOT, .type = ISA_TYPE_BOOL, .d = R_FREE + 1, .a = R_FREE + 1),   /* one = 1 */
        I(.op = ISA_OP_MASK_EXEC, .d = 3),
        /* header */ I(.op = ISA_OP_BLOCK, .a = 3, .imm = OPS_PC + 14),
        I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = R_D, .a = R_D, .b = R_FREE),
        I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = R_FREE, .a = R_FREE, .b = R_FREE + 1),
        I(.op = ISA_OP_ULT, .type = ISA_TYPE_U32, .d = R_FREE + 2, .a = R_FREE, .b = R_A),
        I(.op = ISA_OP_MASK_COND, .type = ISA_TYPE_BOOL, .d = 3, .a = R_FREE + 2, .imm = 0),
        I(.op = ISA_OP_MASK_COND, .type = ISA_TYPE_BOOL, .d = 5, .a = R_FREE + 2, .imm = 1),
        I(.op = ISA_OP_MASK_OR, .d = 4, .a = 5),
        I(.op = ISA_OP_LOOP, .a = 3, .imm = OPS_PC + 6),
        /* exit */ I(.op = ISA_OP_BLOCK, .a = 4, .imm = OPS_PC + 16),
        I(.op = ISA_OP_MOV, .type = ISA_TYPE_U32, .d = R_D + 1, .a = R_FREE),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(32, 64, 1, ops, 16, &io, &res), SIM_OK);
    uint64_t body_lanes = 0;
    for (int i = 0; i < 64; i++) {
        uint64_t n = io.a[i];
        ck_assert_uint_eq((uint32_t)io.out[i][0], (uint32_t)(n * (n - 1) / 2));
        ck_assert_uint_eq((uint32_t)io.out[i][1], (uint32_t)n);
        body_lanes += n;
    }
    ck_assert_uint_eq(res.stats.inst_lanes[OPS_PC + 7], body_lanes);
    /* wave 0 runs max(trip) iterations: lane 5 wants 40 */
    ck_assert_uint_eq(res.stats.inst_executions[OPS_PC + 7], 40 + 13);
    sim_result_free(&res);
}
END_TEST

START_TEST(test_control_mask_case_selects_matching_lanes)
{
    io_reset();
    for (int i = 0; i < 8; i++)
        io.a[i] = 0x100000000ull * 7 + (uint64_t)(i % 3);   /* upper bits ignored as u32 */
    isa_inst ops[] = {
        I(.op = ISA_OP_MASK_CASE, .type = ISA_TYPE_U32, .d = 3, .a = R_A, .imm = 2),
        I(.op = ISA_OP_MOVM, .d = R_D, .a = R_A, .b = 3),
        I(.op = ISA_OP_MASK_EXEC, .d = 4),
        I(.op = ISA_OP_MASK_ANDN, .d = 4, .a = 3),
        I(.op = ISA_OP_MOVM, .d = R_D + 1, .a = R_A, .b = 4),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(4, 8, 1, ops, 5, &io, &res), SIM_OK);
    for (int i = 0; i < 8; i++) {
        ck_assert_uint_eq(io.out[i][0], i % 3 == 2 ? io.a[i] : SENTINEL);
        ck_assert_uint_eq(io.out[i][1], i % 3 != 2 ? io.a[i] : SENTINEL);
    }
    sim_result_free(&res);
}
END_TEST

/* ------------------------------------------------------------ integer ALU */

START_TEST(test_alu_division_by_zero_reports_and_defines_result)
{
    io_reset();
    int32_t as[8] = {7, -7, INT32_MIN, 5, -9, 9, 0, 100};
    int32_t bs[8] = {2, 2, -1, 0, 4, -4, 3, -1};
    for (int i = 0; i < 8; i++) {
        io.a[i] = (uint32_t)as[i];
        io.b[i] = (uint32_t)bs[i];
    }
    isa_inst ops[] = {
        I(.op = ISA_OP_SDIV, .type = ISA_TYPE_I32, .d = R_D, .a = R_A, .b = R_B),
        I(.op = ISA_OP_SREM, .type = ISA_TYPE_I32, .d = R_D + 1, .a = R_A, .b = R_B),
        I(.op = ISA_OP_SMOD, .type = ISA_TYPE_I32, .d = R_D + 2, .a = R_A, .b = R_B),
        I(.op = ISA_OP_UDIV, .type = ISA_TYPE_U32, .d = R_D + 3, .a = R_A, .b = R_B),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(8, 8, 1, ops, 4, &io, &res), SIM_OK);
    for (int i = 0; i < 8; i++) {
        int32_t q, r, m;
        uint32_t uq;
        if (bs[i] == 0) {
            q = -1, r = 0, m = 0, uq = 0xffffffffu;
        } else if (bs[i] == -1) {
            q = (int32_t)(0u - (uint32_t)as[i]), r = 0, m = 0, uq = (uint32_t)as[i] / (uint32_t)bs[i];
        } else {
            q = as[i] / bs[i], r = as[i] % bs[i];
            m = (r != 0 && ((r < 0) != (bs[i] < 0))) ? r + bs[i] : r;
            uq = (uint32_t)as[i] / (uint32_t)bs[i];
        }
        ck_assert_int_eq((int32_t)io.out[i][0], q);
        ck_assert_int_eq((int32_t)io.out[i][1], r);
        ck_assert_int_eq((int32_t)io.out[i][2], m);
        ck_assert_uint_eq((uint32_t)io.out[i][3], uq);
    }
    ck_assert_uint_eq(res.stats.undefined_events, 4); /* lane 3, four instructions */
    ck_assert_int_eq(res.event_count, 4);
    ck_assert_int_eq(res.events[0].where.lane, 3);
    ck_assert_ptr_nonnull(strstr(res.events[0].message, "division by zero"));
    sim_result_free(&res);
}
END_TEST

START_TEST(test_alu_shifts_and_bits_use_type_width)
{
    io_reset();
    uint32_t vals[8] = {0x80000001u, 0xf0u, 0, 0xffffffffu, 0x12345678u, 1, 0x7fffffffu, 0x80u};
    for (int i = 0; i < 8; i++) {
        io.a[i] = vals[i] | 0xabcd000000000000ull; /* garbage above the type */
        io.b[i] = (uint64_t)(i * 5 + 30);          /* shift counts above 31 wrap modulo 32 */
    }
    isa_inst ops[] = {
        I(.op = ISA_OP_SHRA, .type = ISA_TYPE_I32, .d = R_D, .a = R_A, .b = R_B),
        I(.op = ISA_OP_SHRL, .type = ISA_TYPE_U32, .d = R_D + 1, .a = R_A, .b = R_B),
        I(.op = ISA_OP_FINDSMSB, .type = ISA_TYPE_I32, .d = R_D + 2, .a = R_A),
        I(.op = ISA_OP_BITREV, .type = ISA_TYPE_U32, .d = R_D + 3, .a = R_A),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(8, 8, 1, ops, 4, &io, &res), SIM_OK);
    for (int i = 0; i < 8; i++) {
        uint32_t s = (uint32_t)(i * 5 + 30) & 31, v = vals[i];
        uint32_t sra = (uint32_t)((int32_t)v < 0 ? ~(~v >> s) : v >> s);
        ck_assert_uint_eq((uint32_t)io.out[i][0], sra);
        ck_assert_uint_eq((uint32_t)io.out[i][1], v >> s);
        int32_t msb = -1;
        uint32_t t = (int32_t)v < 0 ? ~v : v;
        for (int k = 31; k >= 0; k--)
            if ((t >> k) & 1) { msb = k; break; }
        ck_assert_int_eq((int32_t)io.out[i][2], msb);
        uint32_t rev = 0;
        for (int k = 0; k < 32; k++)
            rev |= ((v >> k) & 1u) << (31 - k);
        ck_assert_uint_eq((uint32_t)io.out[i][3], rev);
    }
    sim_result_free(&res);
}
END_TEST

START_TEST(test_alu_bitfield_out_of_range_reports)
{
    io_reset();
    for (int i = 0; i < 4; i++) {
        io.a[i] = 0xdeadbeefu;
        io.b[i] = (uint64_t)(i * 8);   /* offset */
        io.c[i] = i == 3 ? 12 : 8;     /* count: lane 3 reaches bit 36 > 32 */
    }
    isa_inst ops[] = {
        I(.op = ISA_OP_BFEU, .type = ISA_TYPE_U32, .d = R_D, .a = R_A, .b = R_B, .c = R_C),
        I(.op = ISA_OP_BFES, .type = ISA_TYPE_I32, .d = R_D + 1, .a = R_A, .b = R_B, .c = R_C),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(4, 4, 1, ops, 2, &io, &res), SIM_OK);
    uint8_t bytes[4] = {0xef, 0xbe, 0xad, 0xde};
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq((uint32_t)io.out[i][0], bytes[i]);
        ck_assert_int_eq((int32_t)io.out[i][1], (int8_t)bytes[i]);
    }
    ck_assert_uint_eq((uint32_t)io.out[3][0], 0);
    ck_assert_uint_eq(res.stats.undefined_events, 2);
    ck_assert_int_eq(res.events[0].where.lane, 3);
    sim_result_free(&res);
}
END_TEST

/* ------------------------------------------------------------ conversions */

START_TEST(test_cvt_float_to_int_clamps_and_reports)
{
    io_reset();
    float in[8] = {3e9f, -3e9f, NAN, -1.5f, 2.9f, 2147483520.0f, -2147483648.0f, -0.75f};
    for (int i = 0; i < 8; i++)
        io.a[i] = f2u(in[i]);
    isa_inst ops[] = {
        I(.op = ISA_OP_CVT, .type = ISA_TYPE_I32, .type2 = ISA_TYPE_F32, .d = R_D, .a = R_A),
        I(.op = ISA_OP_CVT, .type = ISA_TYPE_U8, .type2 = ISA_TYPE_F32, .d = R_D + 1, .a = R_A),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(8, 8, 1, ops, 2, &io, &res), SIM_OK);
    int32_t want_i32[8] = {INT32_MAX, INT32_MIN, 0, -1, 2, 2147483520, INT32_MIN, 0};
    uint8_t want_u8[8] = {255, 0, 0, 0, 2, 255, 0, 0};
    for (int i = 0; i < 8; i++) {
        ck_assert_int_eq((int32_t)io.out[i][0], want_i32[i]);
        ck_assert_uint_eq((uint8_t)io.out[i][1], want_u8[i]);
    }
    /* i32: lanes 0, 1, 2; u8: lanes 0 1 2 3 5 6 (-0.75 truncates to -0: fits) */
    ck_assert_uint_eq(res.stats.undefined_events, 3 + 6);
    sim_result_free(&res);
}
END_TEST

START_TEST(test_cvt_int_and_float_widths_round_to_nearest_even)
{
    io_reset();
    io.a[0] = 0xffffffffu;                   /* u32 -> f32: 4294967296 */
    io.a[1] = 0xff;                          /* i8 -1 -> i32 -1 (sign of the source) */
    io.a[2] = 0xff;                          /* u8 255 -> i32 255 */
    io.a[3] = (1ull << 53) + 1;              /* u64 -> f64: rounds to 2^53 */
    io.a[4] = f2u(1.0f + 1.0f / 2048.0f);    /* f32 -> f16: tie, to even 1.0 */
    io.a[5] = f2u(65520.0f);                 /* f32 -> f16: overflows to inf */
    io.a[6] = d2u(0.1);                      /* f64 -> f32 */
    io.a[7] = (uint64_t)((1ull << 24) + 1);  /* u32 -> f32: tie, to even 2^24 */
    isa_inst ops[] = {
        I(.op = ISA_OP_CVT, .type = ISA_TYPE_F32, .type2 = ISA_TYPE_U32, .d = R_D, .a = R_A),
        I(.op = ISA_OP_CVT, .type = ISA_TYPE_I32, .type2 = ISA_TYPE_I8, .d = R_D + 1, .a = R_A),
        I(.op = ISA_OP_CVT, .type = ISA_TYPE_I32, .type2 = ISA_TYPE_U8, .d = R_D + 2, .a = R_A),
        I(.op = ISA_OP_CVT, .type = ISA_TYPE_F64, .type2 = ISA_TYPE_U64, .d = R_D + 3, .a = R_A),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(8, 8, 1, ops, 4, &io, &res), SIM_OK);
    ck_assert_float_eq(u2f(io.out[0][0]), 4294967296.0f);
    ck_assert_int_eq((int32_t)io.out[1][1], -1);
    ck_assert_int_eq((int32_t)io.out[2][2], 255);
    ck_assert_double_eq(u2d(io.out[3][3]), 9007199254740992.0);
    ck_assert_float_eq(u2f(io.out[7][0]), 16777216.0f);
    sim_result_free(&res);

    isa_inst ops2[] = {
        I(.op = ISA_OP_CVT, .type = ISA_TYPE_F16, .type2 = ISA_TYPE_F32, .d = R_D, .a = R_A),
        I(.op = ISA_OP_CVT, .type = ISA_TYPE_F32, .type2 = ISA_TYPE_F64, .d = R_D + 1, .a = R_A),
        I(.op = ISA_OP_CVT, .type = ISA_TYPE_BOOL, .type2 = ISA_TYPE_U32, .d = R_D + 2, .a = R_A),
    };
    ck_assert_int_eq(run_lane_program(8, 8, 1, ops2, 3, &io, &res), SIM_OK);
    ck_assert_uint_eq((uint16_t)io.out[4][0], 0x3c00);   /* 1.0 */
    ck_assert_uint_eq((uint16_t)io.out[5][0], 0x7c00);   /* +inf */
    ck_assert_float_eq(u2f(io.out[6][1]), 0.1f);
    ck_assert_uint_eq(io.out[0][2] & 0xffffffffu, 1);
    ck_assert_uint_eq(res.stats.undefined_events, 0);
    sim_result_free(&res);
}
END_TEST

/* ------------------------------------------------------------ GLSL.std.450 */

START_TEST(test_fmath_spot_checks_match_libm)
{
    io_reset();
    float xs[8] = {0.5f, -2.25f, 3.0f, 1e-3f, -0.0f, 10.0f, 2.5f, -3.5f};
    for (int i = 0; i < 8; i++) {
        io.a[i] = f2u(xs[i]);
        io.b[i] = f2u(2.0f);
        io.c[i] = f2u(0.25f);
    }
    struct { int glsl; float (*ref)(float, float, float); } cases[] = {{0, NULL}};
    (void)cases;
    isa_inst ops[] = {
        I(.op = ISA_OP_FMATH, .type = ISA_TYPE_F32, .imm = 13 /* Sin */, .d = R_D, .a = R_A),
        I(.op = ISA_OP_FMATH, .type = ISA_TYPE_F32, .imm = 26 /* Pow */, .d = R_D + 1, .a = R_A, .b = R_B),
        I(.op = ISA_OP_FMATH, .type = ISA_TYPE_F32, .imm = 2 /* RoundEven */, .d = R_D + 2, .a = R_A),
        I(.op = ISA_OP_FMATH, .type = ISA_TYPE_F32, .imm = 46 /* FMix */, .d = R_D + 3, .a = R_A, .b = R_B, .c = R_C),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(8, 8, 1, ops, 4, &io, &res), SIM_OK);
    for (int i = 0; i < 8; i++) {
        ck_assert_uint_eq((uint32_t)io.out[i][0], f2u(sinf(xs[i])));
        ck_assert_uint_eq((uint32_t)io.out[i][1], f2u(powf(xs[i], 2.0f)));
        ck_assert_uint_eq((uint32_t)io.out[i][2], f2u(nearbyintf(xs[i])));
        ck_assert_uint_eq((uint32_t)io.out[i][3], f2u(xs[i] * 0.75f + 2.0f * 0.25f));
    }
    ck_assert_float_eq(u2f(io.out[6][2]), 2.0f);  /* 2.5 rounds to even */
    ck_assert_float_eq(u2f(io.out[7][2]), -4.0f);
    sim_result_free(&res);

    isa_inst ops2[] = {
        I(.op = ISA_OP_FMATH, .type = ISA_TYPE_F32, .imm = 51 /* Frexp */, .d = R_D, .a = R_A),
        I(.op = ISA_OP_FMATH, .type = ISA_TYPE_F32, .imm = 35 /* Modf */, .d = R_D + 2, .a = R_A),
    };
    ck_assert_int_eq(run_lane_program(8, 8, 1, ops2, 2, &io, &res), SIM_OK);
    for (int i = 0; i < 8; i++) {
        int e;
        float m = frexpf(xs[i], &e), whole, frac = modff(xs[i], &whole);
        ck_assert_uint_eq((uint32_t)io.out[i][0], f2u(m));
        ck_assert_int_eq((int32_t)io.out[i][1], e);
        ck_assert_uint_eq((uint32_t)io.out[i][2], f2u(frac));
        ck_assert_uint_eq((uint32_t)io.out[i][3], f2u(whole));
    }
    sim_result_free(&res);

    /* pack/unpack, integer clamp, f16 precision */
    for (int i = 0; i < 8; i++) {
        io.a[i] = f2u(xs[i]);
        io.b[i] = f2u(0.5f);
    }
    isa_inst ops3[] = {
        I(.op = ISA_OP_FMATH, .type = ISA_TYPE_F32, .imm = 58 /* PackHalf2x16 */, .d = R_D, .a = R_A - 0 + 4),
        I(.op = ISA_OP_FMATH, .type = ISA_TYPE_F32, .imm = 62 /* UnpackHalf2x16 */, .d = R_D + 1, .a = R_D),
        I(.op = ISA_OP_FMATH, .type = ISA_TYPE_F16, .imm = 31 /* Sqrt */, .d = R_D + 3, .a = R_FREE),
    };
    ops3[0].a = R_B - 1; /* vec2 (r7, r8): r7 = a copy made below, r8 = b */
    isa_inst all[4];
    all[0] = I(.op = ISA_OP_MOV, .d = R_B - 1, .a = R_A);
    all[1] = ops3[0];
    all[2] = ops3[1];
    all[3] = I(.op = ISA_OP_FMATH, .type = ISA_TYPE_F32, .imm = 43 /* FClamp */, .d = R_D + 3, .a = R_A, .b = R_B, .c = R_B);
    ck_assert_int_eq(run_lane_program(8, 8, 1, all, 4, &io, &res), SIM_OK);
    for (int i = 0; i < 8; i++) {
        uint32_t packed = h_bits(xs[i]) | (uint32_t)h_bits(0.5f) << 16;
        ck_assert_uint_eq((uint32_t)io.out[i][0], packed);
        ck_assert_uint_eq((uint32_t)io.out[i][1], f2u(h_val(h_bits(xs[i]))));
        ck_assert_uint_eq((uint32_t)io.out[i][2], f2u(0.5f));
        ck_assert_float_eq(u2f(io.out[i][3]), 0.5f);
    }
    sim_result_free(&res);
}
END_TEST

START_TEST(test_fmath_unknown_instruction_is_unsupported_fault)
{
    io_reset();
    isa_inst ops[] = {I(.op = ISA_OP_FMATH, .type = ISA_TYPE_F32, .imm = 68 /* Cross */, .d = R_D, .a = R_A)};
    sim_result res;
    ck_assert_int_eq(run_lane_program(4, 4, 1, ops, 1, &io, &res), SIM_FAULT);
    ck_assert_int_eq(res.fault, SIM_FAULT_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(res.fault_event.message, "68"));
    ck_assert_uint_eq(res.fault_event.where.pc, OPS_PC);
    sim_result_free(&res);
}
END_TEST

/* ------------------------------------------------------------ cross-lane */

static const uint32_t wave_sizes[] = {4, 8, 32, 64};

START_TEST(test_xlane_votes_elect_bcast_with_inactive_lanes)
{
    uint32_t W = wave_sizes[_i];
    io_reset();
    for (uint32_t i = 0; i < W; i++) {
        io.active[i] = i >= 2 && i != 5;
        io.a[i] = 10 + i;
        io.b[i] = 3;          /* broadcast from lane 3 (active) */
        io.c[i] = i % 2;
    }
    isa_inst ops[] = {
        I(.op = ISA_OP_ELECT, .d = R_D),
        I(.op = ISA_OP_BCAST, .type = ISA_TYPE_U32, .d = R_D + 1, .a = R_A, .b = R_B),
        I(.op = ISA_OP_VOTE_ANY, .d = R_D + 2, .a = R_C),
        I(.op = ISA_OP_VOTE_ALL, .d = R_D + 3, .a = R_C),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(W, W, 1, ops, 4, &io, &res), SIM_OK);
    for (uint32_t i = 0; i < W; i++) {
        if (!io.active[i]) {
            for (int k = 0; k < 4; k++)
                ck_assert_uint_eq(io.out[i][k], SENTINEL);
            continue;
        }
        ck_assert_uint_eq(io.out[i][0], i == 2);
        ck_assert_uint_eq(io.out[i][1], 13);
        ck_assert_uint_eq(io.out[i][2], 1);
        ck_assert_uint_eq(io.out[i][3], 0);
    }
    ck_assert_uint_eq(res.stats.undefined_events, 0);
    sim_result_free(&res);

    /* broadcast from an inactive lane: undefined, reported once, 0 */
    for (uint32_t i = 0; i < W; i++)
        io.b[i] = 5;
    isa_inst bad[] = {I(.op = ISA_OP_BCAST, .type = ISA_TYPE_U32, .d = R_D, .a = R_A, .b = R_B),
                      I(.op = ISA_OP_BCAST_FIRST, .type = ISA_TYPE_U32, .d = R_D + 1, .a = R_A),
                      I(.op = ISA_OP_VOTE_EQ, .type = ISA_TYPE_U32, .d = R_D + 2, .a = R_B),
                      I(.op = ISA_OP_VOTE_EQ, .type = ISA_TYPE_U32, .d = R_D + 3, .a = R_A)};
    ck_assert_int_eq(run_lane_program(W, W, 1, bad, 4, &io, &res), SIM_OK);
    for (uint32_t i = 2; i < W; i++)
        if (io.active[i]) {
            ck_assert_uint_eq(io.out[i][0], 0);
            ck_assert_uint_eq(io.out[i][1], 12);
            ck_assert_uint_eq(io.out[i][2], 1);
            ck_assert_uint_eq(io.out[i][3], 0);
        }
    ck_assert_uint_eq(res.stats.undefined_events, 1);
    ck_assert_ptr_nonnull(strstr(res.events[0].message, W > 5 ? "lane 5, which is inactive" : "lane 5, which is outside"));
    sim_result_free(&res);
}
END_TEST

START_TEST(test_xlane_vote_eq_floats_compare_by_value)
{
    io_reset();
    io.a[0] = f2u(0.0f);
    io.a[1] = f2u(-0.0f);
    io.a[2] = f2u(0.0f);
    io.a[3] = f2u(-0.0f);
    io.b[0] = io.b[1] = io.b[2] = io.b[3] = f2u(NAN);
    isa_inst ops[] = {I(.op = ISA_OP_VOTE_EQ, .type = ISA_TYPE_F32, .d = R_D, .a = R_A),
                      I(.op = ISA_OP_VOTE_EQ, .type = ISA_TYPE_F32, .d = R_D + 1, .a = R_B),
                      I(.op = ISA_OP_VOTE_EQ, .type = ISA_TYPE_U32, .d = R_D + 2, .a = R_A)};
    sim_result res;
    ck_assert_int_eq(run_lane_program(4, 4, 1, ops, 3, &io, &res), SIM_OK);
    ck_assert_uint_eq(io.out[0][0], 1);
    ck_assert_uint_eq(io.out[0][1], 0);
    ck_assert_uint_eq(io.out[0][2], 0);
    sim_result_free(&res);
}
END_TEST

START_TEST(test_xlane_ballot_family_counts_only_active_true_lanes)
{
    uint32_t W = wave_sizes[_i];
    io_reset();
    uint64_t expect = 0;
    for (uint32_t i = 0; i < W; i++) {
        io.active[i] = (i % 4) != 1;
        io.a[i] = (i % 3) == 0 || i == W - 1;
        if (io.active[i] && io.a[i])
            expect |= 1ull << i;
    }
    isa_inst ops[] = {I(.op = ISA_OP_BALLOT, .d = R_D, .a = R_A)};
    sim_result res;
    ck_assert_int_eq(run_lane_program(W, W, 1, ops, 1, &io, &res), SIM_OK);
    for (uint32_t i = 0; i < W; i++) {
        if (!io.active[i])
            continue;
        ck_assert_uint_eq(io.out[i][0], expect & 0xffffffffu);
        ck_assert_uint_eq(io.out[i][1], expect >> 32);
        ck_assert_uint_eq(io.out[i][2], 0);
        ck_assert_uint_eq(io.out[i][3], 0);
    }
    sim_result_free(&res);

    /* operations on a ballot: b = ballot low word, c = high word, loaded into r8/r9 */
    for (uint32_t i = 0; i < W; i++) {
        io.b[i] = expect & 0xffffffffu;
        io.c[i] = expect >> 32;
        io.a[i] = (i * 7) % W;
    }
    isa_inst ops2[] = {
        I(.op = ISA_OP_MOV, .d = R_FREE, .a = R_B), I(.op = ISA_OP_MOV, .d = R_FREE + 1, .a = R_C),
        I(.op = ISA_OP_MOV, .d = R_FREE + 2, .a = R_C), I(.op = ISA_OP_MOV, .d = R_FREE + 3, .a = R_C),
        I(.op = ISA_OP_ISUB, .d = R_FREE + 2, .a = R_C, .b = R_C), I(.op = ISA_OP_ISUB, .d = R_FREE + 3, .a = R_C, .b = R_C),
        I(.op = ISA_OP_BALLOT_CNT, .imm = 1, .d = R_D, .a = R_FREE),
        I(.op = ISA_OP_BALLOT_CNT, .imm = 2, .d = R_D + 1, .a = R_FREE),
        I(.op = ISA_OP_INV_BALLOT, .d = R_D + 2, .a = R_FREE),
        I(.op = ISA_OP_BALLOT_BIT, .d = R_D + 3, .a = R_FREE, .b = R_A),
    };
    ck_assert_int_eq(run_lane_program(W, W, 1, ops2, 10, &io, &res), SIM_OK);
    for (uint32_t i = 0; i < W; i++) {
        if (!io.active[i])
            continue;
        uint64_t le = i == 63 ? ~0ull : (2ull << i) - 1;
        ck_assert_uint_eq(io.out[i][0], (uint64_t)__builtin_popcountll(expect & le));
        ck_assert_uint_eq(io.out[i][1], (uint64_t)__builtin_popcountll(expect & (le >> 1)));
        ck_assert_uint_eq(io.out[i][2], (expect >> i) & 1);
        ck_assert_uint_eq(io.out[i][3], (expect >> ((i * 7) % W)) & 1);
    }
    sim_result_free(&res);

    isa_inst ops3[] = {
        I(.op = ISA_OP_MOV, .d = R_FREE, .a = R_B), I(.op = ISA_OP_MOV, .d = R_FREE + 1, .a = R_C),
        I(.op = ISA_OP_ISUB, .d = R_FREE + 2, .a = R_C, .b = R_C), I(.op = ISA_OP_ISUB, .d = R_FREE + 3, .a = R_C, .b = R_C),
        I(.op = ISA_OP_BALLOT_LSB, .d = R_D, .a = R_FREE),
        I(.op = ISA_OP_BALLOT_MSB, .d = R_D + 1, .a = R_FREE),
        I(.op = ISA_OP_BALLOT_CNT, .imm = 0, .d = R_D + 2, .a = R_FREE),
        I(.op = ISA_OP_BALLOT_LSB, .d = R_D + 3, .a = R_FREE + 2), /* empty ballot */
    };
    ck_assert_int_eq(run_lane_program(W, W, 1, ops3, 8, &io, &res), SIM_OK);
    uint64_t active = 0;
    for (uint32_t i = 0; i < W; i++)
        active += io.active[i];
    for (uint32_t i = 0; i < W; i++) {
        if (!io.active[i])
            continue;
        ck_assert_uint_eq(io.out[i][0], (uint64_t)__builtin_ctzll(expect));
        ck_assert_uint_eq(io.out[i][1], (uint64_t)(63 - __builtin_clzll(expect)));
        ck_assert_uint_eq(io.out[i][2], (uint64_t)__builtin_popcountll(expect));
        ck_assert_uint_eq((uint32_t)io.out[i][3], 0xffffffffu);
    }
    ck_assert_uint_eq(res.stats.undefined_events, active);
    sim_result_free(&res);
}
END_TEST

/* Reference of the shuffle family: source lane of lane l, or -1 when outside. */
static int64_t shuffle_source(isa_op op, uint32_t W, uint32_t l, uint64_t b, int64_t imm)
{
    int64_t s;
    switch (op) {
    case ISA_OP_SHUFFLE: s = (int64_t)b; break;
    case ISA_OP_SHUFFLE_XOR: s = (int64_t)(l ^ b); break;
    case ISA_OP_SHUFFLE_UP: s = (int64_t)l - (int64_t)b; break;
    case ISA_OP_SHUFFLE_DN: s = (int64_t)l + (int64_t)b; break;
    case ISA_OP_QUAD_BCAST: s = b < 4 ? (int64_t)((l & ~3u) + b) : -1; break;
    default: s = (int64_t)(l ^ (uint32_t)(imm + 1)); break;
    }
    return s >= 0 && s < (int64_t)W ? s : -1;
}

START_TEST(test_xlane_shuffles_read_sources_and_report_inactive)
{
    uint32_t W = wave_sizes[_i];
    const isa_op shuffles[] = {ISA_OP_SHUFFLE, ISA_OP_SHUFFLE_XOR, ISA_OP_SHUFFLE_UP, ISA_OP_SHUFFLE_DN,
                               ISA_OP_QUAD_BCAST, ISA_OP_QUAD_SWAP, ISA_OP_QUAD_SWAP, ISA_OP_QUAD_SWAP};
    for (unsigned k = 0; k < sizeof shuffles / sizeof shuffles[0]; k++) {
        isa_op op = shuffles[k];
        int64_t imm = k >= 5 ? (int64_t)k - 5 : 0;
        io_reset();
        for (uint32_t i = 0; i < W; i++) {
            io.active[i] = (rnd() % 5) != 0;
            io.a[i] = rnd();
            switch (op) {
            case ISA_OP_SHUFFLE: io.b[i] = rnd() % (W + 2); break;
            case ISA_OP_SHUFFLE_XOR: io.b[i] = 1 + rnd() % (W - 1); break;
            case ISA_OP_QUAD_BCAST: io.b[i] = rnd() % 4; break;
            default: io.b[i] = rnd() % 5; break;
            }
        }
        isa_inst ops[] = {I(.op = op, .type = ISA_TYPE_U64, .d = R_D, .a = R_A, .b = R_B, .imm = imm)};
        if (op == ISA_OP_QUAD_SWAP)
            ops[0].b = 0;
        sim_result res;
        ck_assert_int_eq(run_lane_program(W, W, 1, ops, 1, &io, &res), SIM_OK);
        uint64_t events = 0;
        for (uint32_t i = 0; i < W; i++) {
            if (!io.active[i]) {
                ck_assert_uint_eq(io.out[i][0], SENTINEL);
                continue;
            }
            int64_t s = shuffle_source(op, W, i, io.b[i], imm);
            if (s < 0 || !io.active[s]) {
                events++;
                ck_assert_uint_eq(io.out[i][0], 0);
            } else
                ck_assert_uint_eq(io.out[i][0], io.a[s]);
        }
        ck_assert_uint_eq(res.stats.undefined_events, events);
        if (events)
            ck_assert_int_ge(res.events[0].where.lane, 0);
        sim_result_free(&res);
    }
}
END_TEST

/* ------------------------------------------------------------ WAVE_OP */

typedef enum vkind { V_U32, V_I32, V_F32, V_F16, V_BOOL, V_U64 } vkind;

static isa_type vkind_type(vkind k)
{
    static const isa_type t[] = {ISA_TYPE_U32, ISA_TYPE_I32, ISA_TYPE_F32, ISA_TYPE_F16, ISA_TYPE_BOOL, ISA_TYPE_U64};
    return t[k];
}

/* Reference combine of the reduction operator, in the type. */
static uint64_t ref_combine(vkind k, isa_reduce_op op, uint64_t x, uint64_t y)
{
    if (k == V_F32 || k == V_F16) {
        float a = k == V_F32 ? u2f(x) : h_val(x), b = k == V_F32 ? u2f(y) : h_val(y), r = 0;
        switch (op) {
        case ISA_RED_ADD: r = a + b; break;
        case ISA_RED_MUL: r = a * b; break;
        case ISA_RED_MIN: r = fminf(a, b); break;
        default: r = fmaxf(a, b); break;
        }
        return k == V_F32 ? f2u(r) : h_bits(r);
    }
    uint64_t width = k == V_U64 ? ~0ull : k == V_BOOL ? 1 : 0xffffffffu;
    x &= width, y &= width;
    int64_t sx = (int32_t)x, sy = (int32_t)y;
    switch (op) {
    case ISA_RED_ADD: return (x + y) & width;
    case ISA_RED_MUL: return (x * y) & width;
    case ISA_RED_MIN: return k == V_I32 ? (sx < sy ? x : y) : (x < y ? x : y);
    case ISA_RED_MAX: return k == V_I32 ? (sx > sy ? x : y) : (x > y ? x : y);
    case ISA_RED_AND: return x & y;
    case ISA_RED_OR: return x | y;
    default: return x ^ y;
    }
}

static uint64_t ref_identity(vkind k, isa_reduce_op op)
{
    switch (k) {
    case V_F32: return f2u(op == ISA_RED_ADD ? 0.0f : op == ISA_RED_MUL ? 1.0f : op == ISA_RED_MIN ? INFINITY : -INFINITY);
    case V_F16: return h_bits(op == ISA_RED_ADD ? 0.0f : op == ISA_RED_MUL ? 1.0f : op == ISA_RED_MIN ? INFINITY : -INFINITY);
    default: break;
    }
    uint64_t width = k == V_U64 ? ~0ull : k == V_BOOL ? 1 : 0xffffffffu;
    switch (op) {
    case ISA_RED_MUL: return 1;
    case ISA_RED_AND: return width;
    case ISA_RED_MIN: return k == V_I32 ? 0x7fffffffu : width;
    case ISA_RED_MAX: return k == V_I32 ? 0x80000000u : 0;
    default: return 0;
    }
}

static uint64_t random_value(vkind k)
{
    switch (k) {
    case V_U32: return rnd() & 0xffffffffu;
    case V_I32: return (uint32_t)((int32_t)(rnd() % 2001) - 1000);
    case V_F32: return f2u((float)((int)(rnd() % 2001) - 1000) / 64.0f);
    case V_F16: return h_bits((float)((int)(rnd() % 201) - 100) / 16.0f);
    case V_BOOL: return rnd() % 4 != 0;
    default: return rnd();
    }
}

static void check_wave_op(uint32_t W, uint32_t local, vkind k, isa_reduce_op op, isa_group_op group, uint32_t cluster)
{
    io_reset();
    for (uint32_t i = 0; i < local; i++) {
        io.a[i] = random_value(k) | (k == V_U64 ? 0 : 0x5a5a000000000000ull); /* garbage above the type */
        io.active[i] = (rnd() % 4) != 0;
    }
    isa_inst ops[] = {I(.op = ISA_OP_WAVE_OP, .type = (uint8_t)vkind_type(k), .d = R_D, .a = R_A, .imm = op,
                        .imm2 = (int64_t)group | ((int64_t)cluster << 8))};
    sim_result res;
    ck_assert_int_eq(run_lane_program(W, local, 1, ops, 1, &io, &res), SIM_OK);
    uint64_t width = (k == V_U64) ? ~0ull : (k == V_F16) ? 0xffff : (k == V_BOOL) ? 1 : 0xffffffffu;
    for (uint32_t base = 0; base < local; base += W) {
        uint32_t cs = group == ISA_GROUP_CLUSTERED ? cluster : W;
        for (uint32_t l = 0; l < W && base + l < local; l++) {
            uint32_t i = base + l;
            if (!io.active[i]) {
                ck_assert_uint_eq(io.out[i][0], SENTINEL);
                continue;
            }
            uint64_t acc = ref_identity(k, op);
            int have = 0;
            uint32_t from = group == ISA_GROUP_INCLUSIVE || group == ISA_GROUP_EXCLUSIVE ? 0 : l / cs * cs;
            uint32_t to = group == ISA_GROUP_INCLUSIVE ? l + 1 : group == ISA_GROUP_EXCLUSIVE ? l : from + cs;
            for (uint32_t j = from; j < to && base + j < local; j++) {
                if (!io.active[base + j])
                    continue;
                acc = have ? ref_combine(k, op, acc, io.a[base + j]) : (io.a[base + j] & width);
                have = 1;
            }
            if (!(io.out[i][0] & width) == !(acc & width) && (io.out[i][0] & width) == (acc & width))
                continue;
            ck_abort_msg("wave %u local %u type %d op %d group %d cluster %u: lane %u got 0x%llx want 0x%llx", W,
                         local, k, op, group, cluster, i, (unsigned long long)(io.out[i][0] & width),
                         (unsigned long long)(acc & width));
        }
    }
    ck_assert_uint_eq(res.stats.undefined_events, 0);
    sim_result_free(&res);
}

START_TEST(test_wave_op_every_operator_and_group_matches_reference)
{
    uint32_t W = wave_sizes[_i];
    const vkind arith[] = {V_U32, V_I32, V_F32, V_F16, V_U64};
    const isa_reduce_op arith_ops[] = {ISA_RED_ADD, ISA_RED_MUL, ISA_RED_MIN, ISA_RED_MAX};
    const vkind logic[] = {V_U32, V_BOOL, V_U64};
    const isa_reduce_op logic_ops[] = {ISA_RED_AND, ISA_RED_OR, ISA_RED_XOR};
    const uint32_t clusters[] = {1, 2, 4, W};
    for (int g = ISA_GROUP_REDUCE; g <= ISA_GROUP_CLUSTERED; g++) {
        int ncl = g == ISA_GROUP_CLUSTERED ? 4 : 1;
        for (int c = 0; c < ncl; c++) {
            for (unsigned t = 0; t < 5; t++)
                for (unsigned o = 0; o < 4; o++)
                    check_wave_op(W, 2 * W, arith[t], arith_ops[o], (isa_group_op)g, clusters[c]);
            for (unsigned t = 0; t < 3; t++)
                for (unsigned o = 0; o < 3; o++)
                    check_wave_op(W, 2 * W, logic[t], logic_ops[o], (isa_group_op)g, clusters[c]);
        }
    }
}
END_TEST

START_TEST(test_wave_op_partial_last_wave_ignores_missing_lanes)
{
    /* 2 full waves and 5 lanes of a third: lanes 5.. of wave 2 do not exist */
    uint32_t W = wave_sizes[_i];
    check_wave_op(W, 2 * W + 3, V_U32, ISA_RED_ADD, ISA_GROUP_REDUCE, 0);
    check_wave_op(W, 2 * W + 3, V_I32, ISA_RED_MIN, ISA_GROUP_INCLUSIVE, 0);
    check_wave_op(W, 2 * W + 3, V_F32, ISA_RED_ADD, ISA_GROUP_EXCLUSIVE, 0);
}
END_TEST

START_TEST(test_wave_op_exclusive_first_lane_gets_identity)
{
    io_reset();
    for (int i = 0; i < 8; i++)
        io.a[i] = (uint32_t)(-(int32_t)i - 1);
    io.active[0] = 0;
    isa_inst ops[] = {
        I(.op = ISA_OP_WAVE_OP, .type = ISA_TYPE_I32, .d = R_D, .a = R_A, .imm = ISA_RED_MIN, .imm2 = ISA_GROUP_EXCLUSIVE),
        I(.op = ISA_OP_WAVE_OP, .type = ISA_TYPE_U32, .d = R_D + 1, .a = R_A, .imm = ISA_RED_MIN, .imm2 = ISA_GROUP_EXCLUSIVE),
        I(.op = ISA_OP_WAVE_OP, .type = ISA_TYPE_F32, .d = R_D + 2, .a = R_A, .imm = ISA_RED_MAX, .imm2 = ISA_GROUP_EXCLUSIVE),
        I(.op = ISA_OP_WAVE_OP, .type = ISA_TYPE_U32, .d = R_D + 3, .a = R_A, .imm = ISA_RED_AND, .imm2 = ISA_GROUP_EXCLUSIVE),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(8, 8, 1, ops, 4, &io, &res), SIM_OK);
    ck_assert_uint_eq(io.out[1][0] & 0xffffffffu, 0x7fffffffu);
    ck_assert_uint_eq(io.out[1][1] & 0xffffffffu, 0xffffffffu);
    ck_assert_float_eq(u2f(io.out[1][2]), -INFINITY);
    ck_assert_uint_eq(io.out[1][3] & 0xffffffffu, 0xffffffffu);
    ck_assert_int_eq((int32_t)io.out[2][0], -2);
    sim_result_free(&res);
}
END_TEST

/* ------------------------------------------------------------ memory */

START_TEST(test_memory_out_of_bounds_fault_has_full_location)
{
    /* 3 groups of 2 waves of 8: the very last invocation stores past the end */
    uint32_t W = 8, local = 16, groups = 3, n = local * groups;
    builder b;
    b_init(&b, 8, 2, local, 1, 1);
    b_builtin(&b, 0, ISA_BI_GLOBAL_ID, 0);
    b_const(&b, 1, 4);
    uint32_t out = b_slot(&b, ISA_SPACE_STORAGE, 1, 3, 4, 0, "results");
    b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0, .imm = 4));
    b_emit(&b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 2, .a = 0, .b = 1));
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 0, .a = 2, .imm = 0, .slot = (uint16_t)out, .cls = ISA_CLASS_VMEM));
    b_emit(&b, I(.op = ISA_OP_MOV, .d = 3, .a = 0));
    b_emit(&b, I(.op = ISA_OP_END));
    uint32_t data[64];
    memset(data, 0, sizeof data);
    sim_buffer buf = {1, 3, (uint8_t *)data, (n - 1) * 4, 0};
    sim_config cfg = config(W, groups, &buf, 1);
    sim_result res;
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_FAULT);
    ck_assert_int_eq(res.fault, SIM_FAULT_OUT_OF_BOUNDS);
    const sim_location *w = &res.fault_event.where;
    ck_assert_uint_eq(w->pc, 2);
    ck_assert_uint_eq(w->line, 102);
    ck_assert_uint_eq(w->spirv_word, 1002);
    ck_assert_uint_eq(w->group[0], 2);
    ck_assert_uint_eq(w->group[1], 0);
    ck_assert_uint_eq(w->wave, 1);
    ck_assert_int_eq(w->lane, 7);
    ck_assert_int_eq(w->slot, 0);
    ck_assert_int_eq(w->address, (n - 1) * 4);
    ck_assert_ptr_nonnull(strstr(res.fault_event.message, "results"));
    ck_assert_ptr_nonnull(strstr(res.fault_event.message, "set 1 binding 3"));
    ck_assert_ptr_nonnull(strstr(res.fault_event.message, "storage"));
    /* the stores before the fault happened, lane order: lanes 0..6 of the last wave wrote */
    for (uint32_t i = 0; i < n - 1; i++)
        ck_assert_uint_eq(data[i], i);
    char text[256];
    sim_location_format(&b.p, w, text, sizeof text);
    ck_assert_str_eq(text, "pc 2 (line 102, word 1002), workgroup (2,0,0) wave 1 lane 7, slot 'results' address 0xbc");
    ck_assert_str_eq(sim_fault_kind_name(res.fault), "out_of_bounds");
    sim_result_free(&res);
}
END_TEST

START_TEST(test_memory_atomics_happen_in_lane_order)
{
    /* every invocation: old = atomic_exchange(cell, gid); counter: old2 = atomic_add(cell2, 1) */
    uint32_t W = 4, local = 8, groups = 2, n = local * groups;
    builder b;
    b_init(&b, 8, 2, local, 1, 1);
    b_builtin(&b, 0, ISA_BI_GLOBAL_ID, 0);
    b_const(&b, 1, 1);
    b_const(&b, 2, 16); /* out base: after the two cells */
    b_const(&b, 3, 8);
    uint32_t s = b_slot(&b, ISA_SPACE_STORAGE, 0, 0, 0, 0, "cells");
    b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0, .imm = 8));
    b_emit(&b, I(.op = ISA_OP_ATOMIC, .type = ISA_TYPE_U32, .d = 4, .a = ISA_NO_REG, .b = 0, .imm = 0, .imm2 = ISA_RED_EXCHANGE, .slot = (uint16_t)s));
    b_emit(&b, I(.op = ISA_OP_ATOMIC, .type = ISA_TYPE_U32, .d = 5, .a = ISA_NO_REG, .b = 1, .imm = 4, .imm2 = ISA_RED_ADD, .slot = (uint16_t)s));
    b_emit(&b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 6, .a = 0, .b = 3));
    b_emit(&b, I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = 6, .a = 6, .b = 2));
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 4, .a = 6, .slot = (uint16_t)s));
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 5, .a = 6, .imm = 4, .slot = (uint16_t)s));
    b_emit(&b, I(.op = ISA_OP_ATOMIC, .type = ISA_TYPE_U32, .d = ISA_NO_REG, .a = ISA_NO_REG, .b = 0, .imm = 8, .imm2 = ISA_RED_MAX, .slot = (uint16_t)s));
    b_emit(&b, I(.op = ISA_OP_END));
    b.code[0].imm = b.p.code_count - 1;
    uint32_t data[4 + 2 * 16];
    memset(data, 0, sizeof data);
    data[0] = 777;
    sim_buffer buf = {0, 0, (uint8_t *)data, sizeof data, 0};
    sim_config cfg = config(W, groups, &buf, 1);
    sim_result res;
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_OK);
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_uint_eq(data[4 + 2 * i], i == 0 ? 777 : i - 1);
        ck_assert_uint_eq(data[4 + 2 * i + 1], i);
    }
    ck_assert_uint_eq(data[0], n - 1);
    ck_assert_uint_eq(data[1], n);
    ck_assert_uint_eq(data[2], n - 1);
    ck_assert_uint_eq(res.stats.atomic_lane_ops, 3 * n);
    sim_result_free(&res);
}
END_TEST

START_TEST(test_memory_private_and_workgroup_are_zeroed_and_separate)
{
    /* private: each lane stores gid then reads it back; workgroup: lane 0 of wave 0 adds, group result stored */
    uint32_t W = 4, local = 8, groups = 2;
    builder b;
    b_init(&b, 12, 2, local, 1, 1);
    b_builtin(&b, 0, ISA_BI_GLOBAL_ID, 0);
    b_builtin(&b, 1, ISA_BI_LOCAL_INDEX, 0);
    b_const(&b, 2, 4);
    b_const(&b, 3, 1);
    uint32_t out = b_slot(&b, ISA_SPACE_STORAGE, 0, 0, 0, 0, "out");
    uint32_t priv = b_slot(&b, ISA_SPACE_PRIVATE, 0, 0, 8, 0, "tmp");
    uint32_t lds = b_slot(&b, ISA_SPACE_WORKGROUP, 0, 0, 4, 0, "sum");
    b.slots[lds].base = 12;          /* a variable inside the shared area */
    b.p.workgroup_bytes = 16;
    b.p.private_bytes = 8;
    b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0));
    b_emit(&b, I(.op = ISA_OP_LOAD, .type = ISA_TYPE_U32, .d = 5, .a = ISA_NO_REG, .imm = 4, .slot = (uint16_t)priv)); /* 0 */
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 0, .a = ISA_NO_REG, .imm = 4, .slot = (uint16_t)priv));
    b_emit(&b, I(.op = ISA_OP_LOAD, .type = ISA_TYPE_U32, .d = 6, .a = ISA_NO_REG, .imm = 4, .slot = (uint16_t)priv));
    b_emit(&b, I(.op = ISA_OP_ATOMIC, .type = ISA_TYPE_U32, .d = 7, .a = ISA_NO_REG, .b = 3, .imm = 0, .imm2 = ISA_RED_ADD, .slot = (uint16_t)lds));
    b_emit(&b, I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = 6, .a = 6, .b = 5));
    b_emit(&b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 8, .a = 0, .b = 2));
    b_emit(&b, I(.op = ISA_OP_ISUB, .type = ISA_TYPE_U32, .d = 9, .a = 6, .b = 0));   /* 0 if private worked */
    b_emit(&b, I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = 9, .a = 9, .b = 7));   /* + atomic old = local index */
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 9, .a = 8, .slot = (uint16_t)out));
    b_emit(&b, I(.op = ISA_OP_END));
    b.code[0].imm = b.p.code_count - 1;
    uint32_t data[16] = {0};
    sim_buffer buf = {0, 0, (uint8_t *)data, sizeof data, 0};
    sim_config cfg = config(W, groups, &buf, 1);
    sim_result res;
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_OK);
    for (uint32_t i = 0; i < 16; i++)
        ck_assert_uint_eq(data[i], i % local);
    sim_result_free(&res);
    /* out of bounds in private memory names the per-lane size */
    b.code[1].imm = 8;
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_FAULT);
    ck_assert_int_eq(res.fault, SIM_FAULT_OUT_OF_BOUNDS);
    ck_assert_ptr_nonnull(strstr(res.fault_event.message, "tmp"));
    ck_assert_ptr_nonnull(strstr(res.fault_event.message, "private"));
    ck_assert_int_eq(res.fault_event.where.lane, 0);
    sim_result_free(&res);
}
END_TEST

START_TEST(test_memory_texel_buffer_converts_formats)
{
    builder b;
    b_init(&b, 12, 1, 4, 1, 1);
    b_builtin(&b, 0, ISA_BI_LOCAL_INDEX, 0);
    b_const(&b, 1, 16);
    uint32_t img = b_slot(&b, ISA_SPACE_STORAGE_TEXEL, 0, 0, 0, 0, "img");
    b.slots[img].format = ISA_FORMAT_RGBA8;
    b.slots[img].texel_type = ISA_TYPE_F32;
    uint32_t out = b_slot(&b, ISA_SPACE_STORAGE, 0, 1, 0, 0, "out");
    b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0));
    b_emit(&b, I(.op = ISA_OP_IMG_READ, .d = 4, .a = 0, .slot = (uint16_t)img));
    b_emit(&b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 2, .a = 0, .b = 1));
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_F32, .b = 4, .count = 4, .a = 2, .slot = (uint16_t)out));
    b_emit(&b, I(.op = ISA_OP_FMUL, .type = ISA_TYPE_F32, .d = 4, .a = 4, .b = 4)); /* square the components */
    b_emit(&b, I(.op = ISA_OP_IMG_WRITE, .a = 0, .b = 4, .slot = (uint16_t)img));
    b_emit(&b, I(.op = ISA_OP_IMG_SIZE, .d = 8, .slot = (uint16_t)img));
    b_emit(&b, I(.op = ISA_OP_ARRAY_LEN, .d = 9, .slot = (uint16_t)out, .imm = 8, .imm2 = 12));
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 8, .count = 2, .a = ISA_NO_REG, .imm = 64, .slot = (uint16_t)out));
    b_emit(&b, I(.op = ISA_OP_END));
    b.code[0].imm = b.p.code_count - 1;
    uint8_t texels[16];
    for (int i = 0; i < 16; i++)
        texels[i] = (uint8_t)(i * 17);
    float outf[18] = {0};
    sim_buffer bufs[2] = {{0, 0, texels, 16, 0}, {0, 1, (uint8_t *)outf, sizeof outf, 0}};
    sim_config cfg = config(4, 1, bufs, 2);
    sim_result res;
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_OK);
    for (int i = 0; i < 16; i++)
        ck_assert_float_eq(outf[i], (float)(i * 17) / 255.0f);
    for (int i = 0; i < 16; i++) {
        float v = (float)(i * 17) / 255.0f;
        int c = i % 4;
        float sq = c == 0 ? v * v : v; /* only component x was squared */
        ck_assert_uint_eq(texels[i], (uint8_t)nearbyint(sq * 255.0));
    }
    uint32_t sizes[2];
    memcpy(sizes, &outf[16], 8);
    ck_assert_uint_eq(sizes[0], 4);
    ck_assert_uint_eq(sizes[1], (sizeof outf - 8) / 12);
    sim_result_free(&res);
}
END_TEST

/*
 * A texel buffer of format rgba32f read by every lane (sim/mem.c's path for
 * reads that are all in bounds) and by a wave with one lane outside the
 * buffer under robust access (the lane-by-lane path): both give every
 * float's bits, signalling NaNs quiet (IEEE conversions set the quiet bit
 * and keep the payload), and the robust lane reads (0, 0, 0, 0).
 */
START_TEST(test_memory_texel_rgba32f_reads_bits_with_nans_quiet)
{
    static const uint32_t bits[32] = {
        0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x00000001u, 0x807fffffu, 0x7f7fffffu, 0xff7fffffu,
        0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xff800001u, 0x7fbfffffu, 0x7fa00000u,
        0x3eaaaaabu, 0x40490fdbu, 0x00800000u, 0x00400000u, 0x7f000000u, 0x4b800001u, 0xc2f6e979u, 0x33800000u,
        0x7fffffffu, 0xffffffffu, 0x7f8000ffu, 0x3f7fffffu, 0x1u << 22, 0x80000001u, 0x477fe000u, 0x38800000u};
    for (int robust = 0; robust < 2; robust++) {
        builder b;
        b_init(&b, 12, 1, 8, 1, 1);
        b_builtin(&b, 0, ISA_BI_LOCAL_INDEX, 0);
        b_const(&b, 1, 16);
        b_const(&b, 3, (uint64_t)robust); /* robust: lane l reads texel l + 1, so lane 7 reads texel 8 (outside) */
        uint32_t img = b_slot(&b, ISA_SPACE_UNIFORM_TEXEL, 0, 0, 0, 1, "lights");
        b.slots[img].format = ISA_FORMAT_RGBA32F;
        b.slots[img].texel_type = ISA_TYPE_F32;
        uint32_t out = b_slot(&b, ISA_SPACE_STORAGE, 0, 1, 0, 0, "out");
        b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0));
        b_emit(&b, I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = 2, .a = 0, .b = 3));
        b_emit(&b, I(.op = ISA_OP_IMG_READ, .d = 4, .a = 2, .slot = (uint16_t)img));
        b_emit(&b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 2, .a = 0, .b = 1));
        b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 4, .count = 4, .a = 2, .slot = (uint16_t)out));
        b_emit(&b, I(.op = ISA_OP_END));
        b.code[0].imm = b.p.code_count - 1;
        uint32_t texels[32], got[32];
        memcpy(texels, bits, sizeof texels);
        memset(got, 0xee, sizeof got);
        sim_buffer bufs[2] = {{0, 0, (uint8_t *)texels, sizeof texels, 0}, {0, 1, (uint8_t *)got, sizeof got, 0}};
        for (uint32_t W = 4; W <= 8; W *= 2) {
            sim_config cfg = config(W, 1, bufs, 2);
            cfg.robust_access = robust;
            sim_result res;
            ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_OK);
            for (uint32_t k = 0; k < 32; k++) {
                uint32_t lane = k / 4, texel = lane + (uint32_t)robust;
                uint32_t u = texel < 8 ? bits[texel * 4 + k % 4] : 0;
                int nan = (u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0;
                ck_assert_msg(got[k] == (nan ? u | 0x00400000u : u), "W=%u robust=%d word %u: 0x%08x from 0x%08x", W,
                              robust, k, got[k], u);
            }
            ck_assert_uint_eq(res.stats.robust_loads, (uint64_t)robust);
            sim_result_free(&res);
        }
    }
}
END_TEST

/*
 * Loads and stores when every lane is in bounds take sim/mem.c's path
 * without per-element checks: private memory (one area per lane), a vector
 * of 3 elements, a partial exec mask (lanes not in it keep their registers
 * and write nothing) and several lanes storing to one address (the last
 * active lane of the last wave to run wins, as lane and wave order say).
 */
START_TEST(test_memory_in_bounds_private_vector_partial_and_same_address)
{
    builder b;
    b_init(&b, 20, 3, 8, 1, 1);
    b_builtin(&b, 0, ISA_BI_LOCAL_INDEX, 0);
    b_const(&b, 1, 12);
    b_const(&b, 2, 0x1000);
    b_const(&b, 3, 3);
    b_const(&b, 12, 0xdead);
    b_const(&b, 14, 1);
    b_const(&b, 16, 4);
    uint32_t priv = b_slot(&b, ISA_SPACE_PRIVATE, 0, 0, 16, 0, "arr");
    uint32_t out = b_slot(&b, ISA_SPACE_STORAGE, 0, 0, 0, 0, "out");
    b.p.private_bytes = 16;
    uint32_t entry = b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0));
    b_emit(&b, I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = 4, .a = 0, .b = 2)); /* v4 = l + 0x1000 */
    b_emit(&b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 5, .a = 0, .b = 3)); /* v5 = 3 l */
    b_emit(&b, I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = 6, .a = 5, .b = 3)); /* v6 = 3 l + 3 */
    /* private: (v4, v5, v6) at byte 4 of each lane's own area, read back into v8..v10 */
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 4, .count = 3, .a = ISA_NO_REG, .imm = 4,
                 .slot = (uint16_t)priv));
    b_emit(&b, I(.op = ISA_OP_LOAD, .type = ISA_TYPE_U32, .d = 8, .count = 3, .a = ISA_NO_REG, .imm = 4,
                 .slot = (uint16_t)priv));
    b_emit(&b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 7, .a = 0, .b = 1)); /* v7 = 12 l: words 3 l.. */
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 8, .count = 3, .a = 7, .slot = (uint16_t)out));
    /* odd lanes only: store v6 to word 24 (one address for all), then load word 24 into v12 */
    b_emit(&b, I(.op = ISA_OP_AND, .type = ISA_TYPE_U32, .d = 13, .a = 0, .b = 14));
    b_emit(&b, I(.op = ISA_OP_MASK_COND, .type = ISA_TYPE_BOOL, .d = 1, .a = 13, .imm = 0));
    b_emit(&b, I(.op = ISA_OP_MASK_EXEC, .d = 2));
    uint32_t odd = b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 1));
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 6, .a = ISA_NO_REG, .imm = 96, .slot = (uint16_t)out));
    b_emit(&b, I(.op = ISA_OP_LOAD, .type = ISA_TYPE_U32, .d = 12, .a = ISA_NO_REG, .imm = 96, .slot = (uint16_t)out));
    uint32_t merge = b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 2));
    b_emit(&b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 11, .a = 0, .b = 16)); /* words 25 + l: v12 */
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 12, .a = 11, .imm = 100, .slot = (uint16_t)out));
    uint32_t end = b_emit(&b, I(.op = ISA_OP_END));
    b.code[entry].imm = end;
    b.code[odd].imm = merge;
    b.code[merge].imm = end;
    for (uint32_t W = 4; W <= 8; W *= 2) {
        uint32_t got[33];
        memset(got, 0xee, sizeof got);
        sim_buffer buf = {0, 0, (uint8_t *)got, sizeof got, 0};
        sim_config cfg = config(W, 1, &buf, 1);
        sim_result res;
        ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_OK);
        for (uint32_t l = 0; l < 8; l++) {
            ck_assert_uint_eq(got[3 * l], l + 0x1000);
            ck_assert_uint_eq(got[3 * l + 1], 3 * l);
            ck_assert_uint_eq(got[3 * l + 2], 3 * l + 3);
            uint32_t last_odd = (l / W + 1) * W - 1; /* the highest (odd) lane of l's wave stored last */
            ck_assert_uint_eq(got[25 + l], l & 1 ? 3 * last_odd + 3 : 0xdead);
        }
        ck_assert_uint_eq(got[24], 3 * 7 + 3);
        sim_result_free(&res);
    }
}
END_TEST

/* ------------------------------------------------------------ built-ins */

START_TEST(test_builtins_per_lane_values_partial_wave)
{
    /* local size (3,2,2) = 12 invocations, wave 8: wave 1 has 4 lanes */
    builder b;
    b_init(&b, 24, 1, 3, 2, 2);
    const struct { isa_builtin bi; uint8_t comp; } list[] = {
        {ISA_BI_LOCAL_INDEX, 0}, {ISA_BI_LOCAL_ID, 0}, {ISA_BI_LOCAL_ID, 1}, {ISA_BI_LOCAL_ID, 2},
        {ISA_BI_GLOBAL_ID, 0}, {ISA_BI_GLOBAL_ID, 1}, {ISA_BI_WORKGROUP_ID, 0}, {ISA_BI_NUM_WORKGROUPS, 0},
        {ISA_BI_SUBGROUP_ID, 0}, {ISA_BI_NUM_SUBGROUPS, 0}, {ISA_BI_SUBGROUP_SIZE, 0}, {ISA_BI_SUBGROUP_LOCAL_ID, 0},
        {ISA_BI_GE_MASK, 0}, {ISA_BI_LT_MASK, 0}, {ISA_BI_EQ_MASK, 1}, {ISA_BI_WORKGROUP_SIZE, 2},
    };
    enum { NB = 16 };
    for (int i = 0; i < NB; i++)
        b_builtin(&b, (uint32_t)i, list[i].bi, list[i].comp);
    b_const(&b, 20, NB * 4);
    b_builtin(&b, 21, ISA_BI_GLOBAL_ID, 0);
    b_builtin(&b, 22, ISA_BI_GLOBAL_ID, 1);
    b_builtin(&b, 23, ISA_BI_GLOBAL_ID, 2);
    uint32_t out = b_slot(&b, ISA_SPACE_STORAGE, 0, 0, 0, 0, "out");
    b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0));
    /* flat index = workgroup x * 12 + local index */
    b_const(&b, 19, 12);
    b_emit(&b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 18, .a = 6, .b = 19));
    b_emit(&b, I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = 18, .a = 18, .b = 0));
    b_emit(&b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 18, .a = 18, .b = 20));
    b_emit(&b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 0, .count = NB, .a = 18, .slot = (uint16_t)out));
    b_emit(&b, I(.op = ISA_OP_END));
    b.code[0].imm = b.p.code_count - 1;
    uint32_t data[2 * 12 * NB];
    memset(data, 0xff, sizeof data);
    sim_buffer buf = {0, 0, (uint8_t *)data, sizeof data, 0};
    sim_config cfg = config(8, 2, &buf, 1);
    sim_result res;
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_OK);
    ck_assert_uint_eq(res.stats.waves, 4);
    for (uint32_t g = 0; g < 2; g++)
        for (uint32_t li = 0; li < 12; li++) {
            const uint32_t *v = &data[(g * 12 + li) * NB];
            uint32_t lane = li % 8, wave = li / 8, lanes = wave ? 4 : 8;
            ck_assert_uint_eq(v[0], li);
            ck_assert_uint_eq(v[1], li % 3);
            ck_assert_uint_eq(v[2], (li / 3) % 2);
            ck_assert_uint_eq(v[3], li / 6);
            ck_assert_uint_eq(v[4], g * 3 + li % 3);
            ck_assert_uint_eq(v[5], (li / 3) % 2);
            ck_assert_uint_eq(v[6], g);
            ck_assert_uint_eq(v[7], 2);
            ck_assert_uint_eq(v[8], wave);
            ck_assert_uint_eq(v[9], 2);
            ck_assert_uint_eq(v[10], 8);
            ck_assert_uint_eq(v[11], lane);
            ck_assert_uint_eq(v[12], (uint32_t)(0xffu & ~((1u << lane) - 1)));  /* GE: lanes < W only */
            ck_assert_uint_eq(v[13], (1u << lane) - 1);
            ck_assert_uint_eq(v[14], 0);
            ck_assert_uint_eq(v[15], 2);
            (void)lanes;
        }
    /* lane operations count only existing lanes: 8 + 4 per group for each instruction */
    ck_assert_uint_eq(res.stats.inst_lanes[1], 2 * 12);
    ck_assert_uint_eq(res.stats.lane_operations, 6 * 2 * 12);
    sim_result_free(&res);
}
END_TEST

/* ------------------------------------------------------------ barriers and faults */

/* shared[li] = li; barrier; r = shared[(li + W) % local] */
static void build_barrier_program(builder *b, uint32_t W, uint32_t local, int skip_for_wave1)
{
    b_init(b, 12, 4, local, 1, 1);
    b_builtin(b, 0, ISA_BI_LOCAL_INDEX, 0);
    b_builtin(b, 1, ISA_BI_SUBGROUP_ID, 0);
    b_const(b, 2, 4);
    b_const(b, 3, W);
    b_const(b, 4, local);
    b_const(b, 10, 1);
    uint32_t out = b_slot(b, ISA_SPACE_STORAGE, 0, 0, 0, 0, "out");
    uint32_t lds = b_slot(b, ISA_SPACE_WORKGROUP, 0, 0, local * 4, 0, "shared");
    b_emit(b, I(.op = ISA_OP_BLOCK, .a = 0));
    b_emit(b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 5, .a = 0, .b = 2));
    b_emit(b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 0, .a = 5, .slot = (uint16_t)lds, .cls = ISA_CLASS_LDS));
    if (skip_for_wave1) {
        /* waves other than 0 jump over the barrier (a uniform branch on the subgroup id) */
        b_emit(b, I(.op = ISA_OP_ULT, .type = ISA_TYPE_U32, .d = 9, .a = 1, .b = 10));
        b_emit(b, I(.op = ISA_OP_MASK_COND, .type = ISA_TYPE_BOOL, .d = 1, .a = 9, .imm = 0));
        uint32_t blk = b_emit(b, I(.op = ISA_OP_BLOCK, .a = 1));
        b_emit(b, I(.op = ISA_OP_BARRIER));
        b->code[blk].imm = b->p.code_count;
        b_emit(b, I(.op = ISA_OP_END));
        b->code[0].imm = b->p.code_count - 1;
        return;
    }
    b_emit(b, I(.op = ISA_OP_BARRIER));
    b_emit(b, I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = 6, .a = 0, .b = 3));
    b_emit(b, I(.op = ISA_OP_UMOD, .type = ISA_TYPE_U32, .d = 6, .a = 6, .b = 4));
    b_emit(b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 6, .a = 6, .b = 2));
    b_emit(b, I(.op = ISA_OP_LOAD, .type = ISA_TYPE_U32, .d = 7, .a = 6, .slot = (uint16_t)lds, .cls = ISA_CLASS_LDS));
    b_emit(b, I(.op = ISA_OP_BARRIER));
    b_emit(b, I(.op = ISA_OP_STORE, .type = ISA_TYPE_U32, .b = 7, .a = 5, .slot = (uint16_t)out));
    b_emit(b, I(.op = ISA_OP_END));
    b->code[0].imm = b->p.code_count - 1;
}

START_TEST(test_barrier_four_waves_see_each_others_stores)
{
    uint32_t W = 8, local = 4 * W;
    builder b;
    build_barrier_program(&b, W, local, 0);
    uint32_t data[2 * 32];
    memset(data, 0, sizeof data);
    sim_buffer buf = {0, 0, (uint8_t *)data, local * 4, 0};
    sim_config cfg = config(W, 3, &buf, 1);
    sim_result res;
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_OK);
    for (uint32_t i = 0; i < local; i++)
        ck_assert_uint_eq(data[i], (i + W) % local);
    ck_assert_uint_eq(res.stats.barriers, 2 * 3);
    ck_assert_uint_eq(res.stats.waves, 4 * 3);
    ck_assert_uint_eq(res.stats.by_class[ISA_CLASS_LDS], 2 * 4 * 3);
    ck_assert_uint_eq(res.stats.by_class[ISA_CLASS_SYNC], 2 * 4 * 3);
    sim_result_free(&res);
}
END_TEST

START_TEST(test_barrier_skipped_by_one_wave_is_deadlock)
{
    uint32_t W = 8, local = 4 * W;
    builder b;
    build_barrier_program(&b, W, local, 1);
    uint32_t data[32];
    sim_buffer buf = {0, 0, (uint8_t *)data, sizeof data, 0};
    sim_config cfg = config(W, 2, &buf, 1);
    sim_result res;
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_FAULT);
    ck_assert_int_eq(res.fault, SIM_FAULT_DEADLOCK);
    ck_assert_ptr_nonnull(strstr(res.fault_event.message, "wave 0 waits at the barrier at pc 6"));
    ck_assert_ptr_nonnull(strstr(res.fault_event.message, "wave 1 ended"));
    ck_assert_uint_eq(res.fault_event.where.group[0], 0);
    ck_assert_uint_eq(res.fault_event.where.pc, 6);
    sim_result_free(&res);
}
END_TEST

START_TEST(test_budget_runaway_loop_faults)
{
    builder b;
    b_init(&b, 4, 2, 8, 1, 1);
    b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0, .imm = 5));
    b_emit(&b, I(.op = ISA_OP_MASK_EXEC, .d = 1));
    b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 1, .imm = 5));
    b_emit(&b, I(.op = ISA_OP_MASK_EXEC, .d = 1));
    b_emit(&b, I(.op = ISA_OP_LOOP, .a = 1, .imm = 2));
    b_emit(&b, I(.op = ISA_OP_END));
    sim_config cfg = config(8, 1, NULL, 0);
    cfg.instruction_budget = 1000;
    sim_result res;
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_FAULT);
    ck_assert_int_eq(res.fault, SIM_FAULT_BUDGET);
    ck_assert_ptr_nonnull(strstr(res.fault_event.message, "runaway kernel: budget 1000 wave instructions exhausted at pc"));
    ck_assert_uint_eq(res.stats.wave_instructions, 1000);
    ck_assert_str_eq(sim_fault_kind_name(SIM_FAULT_BUDGET), "budget");
    sim_result_free(&res);
}
END_TEST

/* The executor's pre-decoded paths (sim/decode.c, sim/exec_loop.h): a segment that must take the loop's head at
 * every instruction (scalar ALU while exec is narrower than the live lanes), the budget running out inside a
 * segment, and the forms specialised by type, each against values worked out here. */
START_TEST(test_exec_scalar_alu_in_divergent_segment_writes_live_lanes_valu_only_exec)
{
    io_reset();
    for (int i = 0; i < 32; i++) {
        io.a[i] = f2u(0.5f * (float)i) | 0xabcd000000000000ull; /* garbage above the f32 */
        io.b[i] = f2u(1.25f);
        io.c[i] = f2u(-2.0f);
        io.active[i] = (i % 3) != 0;
    }
    isa_inst ops[] = {
        I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = R_D, .a = R_B, .b = R_C), /* scalar ALU */
        I(.op = ISA_OP_FADD, .type = ISA_TYPE_F32, .d = R_D + 1, .a = R_A, .b = R_B),
        I(.op = ISA_OP_FMUL, .type = ISA_TYPE_F32, .d = R_D + 2, .a = R_A, .b = R_C), /* scalar ALU */
        I(.op = ISA_OP_ULT, .type = ISA_TYPE_U32, .d = R_D + 3, .a = R_B, .b = R_A),
    };
    lane_salu_ops = 1u << 0 | 1u << 2;
    sim_result res;
    ck_assert_int_eq(run_lane_program(8, 32, 1, ops, 4, &io, &res), SIM_OK);
    for (int i = 0; i < 32; i++) {
        float a = 0.5f * (float)i;
        ck_assert_uint_eq((uint32_t)io.out[i][0], (uint32_t)(f2u(1.25f) + f2u(-2.0f)));
        ck_assert_uint_eq((uint32_t)io.out[i][2], f2u(a * -2.0f));
        if (io.active[i]) {
            ck_assert_uint_eq(io.out[i][1], f2u(a + 1.25f));
            ck_assert_uint_eq(io.out[i][3], f2u(1.25f) < f2u(a) ? 1u : 0u);
        } else {
            ck_assert_uint_eq(io.out[i][1], SENTINEL);
            ck_assert_uint_eq(io.out[i][3], SENTINEL);
        }
    }
    sim_result_free(&res);
}
END_TEST

START_TEST(test_exec_budget_inside_segment_stops_there_and_counts_what_ran)
{
    /* one block, then ten adds and the end in one segment: a budget of 5 runs pc 0..4 and stops at pc 5 */
    builder b;
    b_init(&b, 4, 1, 8, 1, 1);
    b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0, .imm = 11));
    for (int k = 0; k < 10; k++)
        b_emit(&b, I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = 1, .a = 1, .b = 2));
    b_emit(&b, I(.op = ISA_OP_END));
    sim_config cfg = config(8, 1, NULL, 0);
    cfg.instruction_budget = 5;
    sim_result res;
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_FAULT);
    ck_assert_int_eq(res.fault, SIM_FAULT_BUDGET);
    ck_assert_uint_eq(res.fault_event.where.pc, 5);
    ck_assert_uint_eq(res.stats.wave_instructions, 5);
    for (uint32_t pc = 0; pc < 12; pc++) {
        ck_assert_uint_eq(res.stats.inst_executions[pc], pc < 5 ? 1u : 0u);
        ck_assert_uint_eq(res.stats.inst_lanes[pc], pc < 5 ? 8u : 0u);
    }
    sim_result_free(&res);
}
END_TEST

START_TEST(test_exec_32bit_compares_read_only_the_low_32_bits)
{
    /* the _32 forms of ieq/ult/slt (sim/decode.c) must see the type's width, not the 64-bit slot */
    io_reset();
    for (int i = 0; i < 64; i++) {
        io.a[i] = rnd();
        io.b[i] = (i % 4 == 0) ? (io.a[i] & 0xffffffffull) | (rnd() << 32) : rnd(); /* equal low halves */
        io.active[i] = (i % 5) != 1;
    }
    isa_inst ops[] = {
        I(.op = ISA_OP_IEQ, .type = ISA_TYPE_U32, .d = R_D, .a = R_A, .b = R_B),
        I(.op = ISA_OP_ULT, .type = ISA_TYPE_U32, .d = R_D + 1, .a = R_A, .b = R_B),
        I(.op = ISA_OP_SLT, .type = ISA_TYPE_I32, .d = R_D + 2, .a = R_A, .b = R_B),
        I(.op = ISA_OP_SLE, .type = ISA_TYPE_I32, .d = R_D + 3, .a = R_B, .b = R_A),
    };
    sim_result res;
    ck_assert_int_eq(run_lane_program(16, 64, 1, ops, 4, &io, &res), SIM_OK);
    for (int i = 0; i < 64; i++) {
        uint32_t ua = (uint32_t)io.a[i], ub = (uint32_t)io.b[i];
        int32_t sa = (int32_t)ua, sb = (int32_t)ub;
        uint64_t want[4] = {ua == ub, ua < ub, sa < sb, sb <= sa};
        for (int k = 0; k < 4; k++)
            ck_assert_uint_eq(io.out[i][k], io.active[i] ? want[k] : SENTINEL);
    }
    sim_result_free(&res);
}
END_TEST

START_TEST(test_program_malformed_register_is_reported_not_crash)
{
    builder b;
    b_init(&b, 4, 1, 4, 1, 1);
    b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0, .imm = 2));
    b_emit(&b, I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = 1, .a = 2, .b = 40));
    b_emit(&b, I(.op = ISA_OP_END));
    sim_config cfg = config(4, 1, NULL, 0);
    sim_result res;
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_FAULT);
    ck_assert_int_eq(res.fault, SIM_FAULT_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(res.fault_event.message, "malformed"));
    ck_assert_uint_eq(res.fault_event.where.pc, 1);
    sim_result_free(&res);
}
END_TEST

/* ------------------------------------------------------------ speed */

START_TEST(test_speed_alu_loop_wave32_reports_rate)
{
    /* 64 waves of 32 lanes, each runs 2000 iterations of a 16-instruction ALU body */
    builder b;
    b_init(&b, 16, 2, 32 * 64, 1, 1);
    b_builtin(&b, 0, ISA_BI_LOCAL_INDEX, 0);
    b_const(&b, 1, 1);
    b_const(&b, 2, 2000);
    b_const(&b, 9, f2u(1.0f));
    b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 0, .imm = 0));
    b_emit(&b, I(.op = ISA_OP_MASK_EXEC, .d = 1));
    uint32_t header = b_emit(&b, I(.op = ISA_OP_BLOCK, .a = 1));
    for (int k = 0; k < 4; k++) {
        b_emit(&b, I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = 4, .a = 4, .b = 0));
        b_emit(&b, I(.op = ISA_OP_IMUL, .type = ISA_TYPE_U32, .d = 5, .a = 4, .b = 4));
        b_emit(&b, I(.op = ISA_OP_XOR, .type = ISA_TYPE_U32, .d = 6, .a = 5, .b = 4));
        b_emit(&b, I(.op = ISA_OP_FADD, .type = ISA_TYPE_F32, .d = 7, .a = 7, .b = 9));
    }
    b_emit(&b, I(.op = ISA_OP_IADD, .type = ISA_TYPE_U32, .d = 3, .a = 3, .b = 1));
    b_emit(&b, I(.op = ISA_OP_ULT, .type = ISA_TYPE_U32, .d = 8, .a = 3, .b = 2));
    b_emit(&b, I(.op = ISA_OP_MASK_COND, .type = ISA_TYPE_BOOL, .d = 1, .a = 8));
    b_emit(&b, I(.op = ISA_OP_LOOP, .a = 1, .imm = header));
    uint32_t end = b_emit(&b, I(.op = ISA_OP_END));
    b.code[0].imm = end;
    b.code[header].imm = end;
    sim_config cfg = config(32, 1, NULL, 0);
    sim_result res;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(sim_run(&b.p, &cfg, &res), SIM_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    ck_assert_uint_eq(res.stats.wave_instructions, 64ull * (2 + 2000 * 21) + 64);
    printf("sim speed: %llu wave instructions in %.3f s = %.1f million wave instructions/s (wave 32, ALU loop)\n",
           (unsigned long long)res.stats.wave_instructions, s, (double)res.stats.wave_instructions / s / 1e6);
    sim_result_free(&res);
}
END_TEST

/* ------------------------------------------------------------ host variants */

/*
 * The executor has a variant for hosts with AVX2, F16C and FMA (sim/exec.c);
 * sim_config.portable forces the plain x86-64 one.  Every fp16 bit pattern
 * goes through half arithmetic, fma, conversions to and from f32 and f64,
 * and f32/f64 fma; both variants must give the same bytes and statistics at
 * every wave size.  On a host without those instructions both runs take the
 * plain path (noted on stderr).  The f16 -> f32 conversion and the half sum
 * are also checked against C's _Float16 here.
 */
/*
 * test_sim_switch (CMakeLists.txt) builds this file again with the executor's switch dispatch: it differs from
 * test_sim only in how sim/exec_loop.h reaches each handler, never in the handlers or in the conversions and
 * arithmetic they call.  The two value sweeps below (every half pattern: ~400 000 and 65 536 inputs) prove that
 * arithmetic in test_sim; in test_sim_switch every SWEEP_STRIDE-th input still takes every instruction of the
 * kernels through the switch, without sweeping the same arithmetic again (the sweeps were ~95 % of that suite's
 * time, minutes under the sanitizers).
 */
#ifdef WAVELAB_SWITCH_DISPATCH
#define SWEEP_STRIDE 61u
#else
#define SWEEP_STRIDE 1u
#endif

/* Keeps every SWEEP_STRIDE-th of in[0..n) at the front; returns how many. */
static uint32_t sweep_subset(uint32_t *in, uint32_t n)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i += SWEEP_STRIDE)
        in[kept++] = in[i];
    return kept;
}

/* Output word `which` of the kernel below holds two halves (0, 1, 3, 7), a float (2, 4) or half a double (5, 6):
 * x and y differ only in NaN payloads (docs/quirks.md: which NaN an operation on two NaNs returns). */
static int is_nan64(uint32_t lo, uint32_t hi) { return (hi & 0x7ff00000u) == 0x7ff00000u && ((hi & 0xfffffu) | lo); }

static int same_nans(const uint32_t *xs, const uint32_t *ys, uint32_t k)
{
    uint32_t which = k % 8, x = xs[k], y = ys[k];
    if (which == 2 || which == 4)
        return (x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu) && (y & 0x7f800000u) == 0x7f800000u && (y & 0x7fffffu);
    if (which == 5 || which == 6) {
        uint32_t lo = k - which + 5;
        return is_nan64(xs[lo], xs[lo + 1]) && is_nan64(ys[lo], ys[lo + 1]);
    }
    for (int k = 0; k < 2; k++) {
        uint32_t hx = (x >> (16 * k)) & 0xffff, hy = (y >> (16 * k)) & 0xffff;
        int nx = (hx & 0x7c00) == 0x7c00 && (hx & 0x3ff), ny = (hy & 0x7c00) == 0x7c00 && (hy & 0x3ff);
        if (hx != hy && !(nx && ny))
            return 0;
    }
    return 1;
}

START_TEST(test_host_variant_fp16_and_fma_bits_equal_portable)
{
#ifdef WAVELAB_NO_HOST_VARIANT
    /* the sanitizer build compiles the portable loops only (CMakeLists.txt): nothing to compare here */
    printf("%s: skipped: this build has no host variant of the executor (the optimised build compares them)\n",
           __func__);
    return;
#endif
    static const char *src =
        "#version 450\n"
        "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
        "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n"
        "layout(local_size_x = 64) in;\n"
        "layout(set = 0, binding = 0) readonly buffer I { uint inw[]; };\n"
        "layout(set = 0, binding = 1) buffer O { uint outw[]; };\n"
        "void main() {\n"
        "  uint i = gl_GlobalInvocationID.x, o = i * 8u, u = inw[i];\n"
        "  f16vec2 h = unpackFloat2x16(u);\n"
        "  float16_t a = h.x, b = h.y;\n"
        "  outw[o + 0u] = packFloat2x16(f16vec2(a + b, a * b));\n"
        "  outw[o + 1u] = packFloat2x16(f16vec2(a / b, fma(a, b, a)));\n"
        "  outw[o + 2u] = floatBitsToUint(float(a));\n"
        "  float f = uintBitsToFloat(u * 2654435761u);\n"
        "  outw[o + 3u] = packFloat2x16(f16vec2(float16_t(f), float16_t(double(f) * 1.0000001)));\n"
        "  outw[o + 4u] = floatBitsToUint(fma(f, uintBitsToFloat(u), float(b)));\n"
        "  double d = fma(double(f), double(a), 0.1);\n"
        "  uvec2 dw = unpackUint2x32(doubleBitsToUint64(d));\n"
        "  outw[o + 5u] = dw.x; outw[o + 6u] = dw.y;\n"
        "  outw[o + 7u] = packFloat2x16(f16vec2(float16_t(i), float16_t(int(u) >> 7)));\n"
        "}\n";
    char msg[8192];
    isa_program *prog = NULL;
    ck_assert_msg(tsup_build(src, "variant.comp", "glsl", NULL, &prog, msg, sizeof msg, NULL, 0) == ISA_OK, "%s", msg);
    uint32_t n = 65536;
    uint32_t *in = malloc(n * 4), *out[2];
    uint32_t rs = 12345;
    for (uint32_t i = 0; i < n; i++)
        in[i] = i | (tsup_rand(&rs) & 0xffff0000u); /* every half pattern in the low half */
    n = sweep_subset(in, n);
    for (uint32_t i = 0; n % 64; i++) /* whole workgroups: the first inputs again */
        in[n++] = in[i];
    int host = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c") && __builtin_cpu_supports("fma");
    if (!host)
        fprintf(stderr, "note: this host lacks AVX2/F16C/FMA: both runs take the portable path\n");
    for (uint32_t W = 4; W <= 128; W *= 2) {
        sim_result res[2];
        for (int portable = 0; portable < 2; portable++) {
            out[portable] = calloc(n * 8, 4);
            sim_buffer bufs[2] = {{0, 0, (uint8_t *)in, n * 4, 0}, {0, 1, (uint8_t *)out[portable], n * 32, 0}};
            sim_config cfg = {.wave_size = W, .groups = {n / 64, 1, 1}, .buffers = bufs, .buffer_count = 2,
                              .portable = portable};
            ck_assert_int_eq(sim_run(prog, &cfg, &res[portable]), SIM_OK);
        }
        for (uint32_t k = 0; k < n * 8; k++)
            ck_assert_msg(out[0][k] == out[1][k] || same_nans(out[0], out[1], k),
                          "W=%u word %u (invocation %u output %u): host 0x%08x, portable 0x%08x", W, k, k / 8, k % 8,
                          out[0][k], out[1][k]);
        ck_assert_uint_eq(res[0].stats.wave_instructions, res[1].stats.wave_instructions);
        ck_assert_uint_eq(res[0].stats.lane_operations, res[1].stats.lane_operations);
        ck_assert_uint_eq(res[0].stats.undefined_events, res[1].stats.undefined_events);
        for (uint32_t i = 0; i < n; i += 97) {
            _Float16 a, b;
            uint16_t ua = (uint16_t)in[i], ub = (uint16_t)(in[i] >> 16);
            memcpy(&a, &ua, 2);
            memcpy(&b, &ub, 2);
            float fa = (float)a, sum = (float)a + (float)b;
            _Float16 hs = (_Float16)sum;
            uint16_t us;
            memcpy(&us, &hs, 2);
            uint32_t fbits;
            memcpy(&fbits, &fa, 4);
            /* a NaN's payload after a conversion is the converter's choice (libgcc's at -O0, F16C at -O2):
             * the reference only says it is a NaN */
            uint16_t got = (uint16_t)(out[0][i * 8] & 0xffff);
            if ((us & 0x7c00) == 0x7c00 && (us & 0x3ff)) {
                ck_assert_msg((got & 0x7c00) == 0x7c00 && (got & 0x3ff), "lane %u: 0x%04x is not a NaN", i, got);
            } else {
                ck_assert_uint_eq(got, us);
            }
            float gotf;
            memcpy(&gotf, &out[0][i * 8 + 2], 4);
            if (fa == fa)
                ck_assert_uint_eq(out[0][i * 8 + 2], fbits);
            else
                ck_assert(isnan(gotf));
        }
        sim_result_free(&res[0]);
        sim_result_free(&res[1]);
        free(out[0]);
        free(out[1]);
    }
    free(in);
    isa_program_destroy(prog);
}
END_TEST

/*
 * fp16 conversions with F16C and without (sim_config.portable) against a
 * conversion written here from the IEEE 754 definition: half to float is
 * exact; float to half rounds to nearest, ties to even, overflows to
 * infinity from 65520 up, and a NaN stays a NaN, made quiet, keeping the top
 * bits of its payload.  Every one of the 65536 halves goes through
 * unpackHalf2x16 (GLSL.std.450) and float(float16_t) (a conversion); a sweep
 * of floats goes through packHalf2x16 and float16_t(float): just below, at
 * and just above every tie between two halves, every half subnormal range
 * at several mantissas, float subnormals, infinities and NaNs (quiet and
 * signalling, payloads that survive and that do not).
 */
static uint32_t ref_float_of_half(uint32_t h)
{
    uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 31)
        return sign | 0x7f800000u | (m ? 0x400000u | m << 13 : 0);
    if (e == 0) {
        if (m == 0)
            return sign;
        int exp = 1 - 15; /* value = m * 2^-24 = (m / 2^10) * 2^(1 - 15): normalise */
        while (!(m & 0x400)) {
            m <<= 1;
            exp--;
        }
        return sign | (uint32_t)(exp + 127) << 23 | (m & 0x3ff) << 13;
    }
    return sign | (e - 15 + 127) << 23 | m << 13;
}

static uint32_t ref_half_of_float(uint32_t f)
{
    uint32_t sign = (f >> 16) & 0x8000u, e = (f >> 23) & 0xff, m = f & 0x7fffffu;
    if (e == 0xff)
        return sign | 0x7c00u | (m ? 0x200u | m >> 13 : 0);
    uint32_t E = e ? e : 1, mant = e ? m | 0x800000u : m; /* value = mant * 2^(E - 150) */
    int k = (int)E - 127;                                 /* the exponent when mant has its leading one */
    if (e && k >= -14) {                                  /* a normal half (or overflow): ulp 2^(k - 10) */
        if (k > 15)
            return sign | 0x7c00u;
        uint32_t q = mant >> 13, r = mant & 0x1fffu;
        if (r > 0x1000u || (r == 0x1000u && (q & 1)))
            q++;
        uint32_t h = (uint32_t)(k + 14) * 0x400u + q; /* q holds the hidden bit: a carry moves the exponent */
        return sign | (h >= 0x7c00u ? 0x7c00u : h);
    }
    /* a half subnormal: ulp 2^-24, q = value / 2^-24 = mant * 2^(E - 126) */
    uint32_t shift = 126 - E;
    if (shift >= 32)
        return sign; /* below 2^-25 (mant < 2^24): rounds to zero */
    uint32_t q = mant >> shift, r = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (r > half || (r == half && (q & 1)))
        q++;
    return sign | q;
}

START_TEST(test_fp16_conversions_f16c_and_software_equal_ieee_reference)
{
    static const char *src =
        "#version 450\n"
        "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
        "layout(local_size_x = 64) in;\n"
        "layout(set = 0, binding = 0) readonly buffer I { uint inw[]; };\n"
        "layout(set = 0, binding = 1) buffer O { uint outw[]; };\n"
        "void main() {\n"
        "  uint i = gl_GlobalInvocationID.x, o = i * 6u, u = inw[i];\n"
        "  vec2 h = unpackHalf2x16(u);\n"
        "  f16vec2 hv = unpackFloat2x16(u);\n"
        "  float f = uintBitsToFloat(u);\n"
        "  outw[o + 0u] = floatBitsToUint(h.x);\n"
        "  outw[o + 1u] = floatBitsToUint(h.y);\n"
        "  outw[o + 2u] = floatBitsToUint(float(hv.x));\n"
        "  outw[o + 3u] = floatBitsToUint(float(hv.y));\n"
        "  outw[o + 4u] = packHalf2x16(vec2(f, -f));\n"
        "  outw[o + 5u] = packFloat2x16(f16vec2(float16_t(f), float16_t(-f)));\n"
        "}\n";
    char msg[8192];
    isa_program *prog = NULL;
    ck_assert_msg(tsup_build(src, "fp16conv.comp", "glsl", NULL, &prog, msg, sizeof msg, NULL, 0) == ISA_OK, "%s", msg);
    static const uint32_t specials[] = {
        0x00000000u, 0x00000001u, 0x007fffffu, 0x00800000u, 0x33000000u, 0x33000001u, 0x337fffffu, 0x33800000u,
        0x33c00000u, 0x387fc000u, 0x387fe000u, 0x387ff000u, 0x38800000u, 0x477fe000u, 0x477fefffu, 0x477ff000u,
        0x477ff001u, 0x47800000u, 0x7f7fffffu, 0x7f800000u, 0x7f800001u, 0x7f801fffu, 0x7f802000u, 0x7fa00000u,
        0x7fbfffffu, 0x7fc00000u, 0x7fc00001u, 0x7fffe000u, 0x7fffffffu, 0x3f800000u, 0x3f801000u, 0x3f803000u};
    uint32_t cap = 65536 + 63488 * 3 + 19 * 4096 * 3 + 64 + 64, n = 0;
    uint32_t *in = malloc(cap * 4);
    for (uint32_t h = 0; h < 65536; h++)
        in[n++] = h | (65535 - h) << 16; /* every half, in both halves of a word */
    for (uint32_t h = 0; h < 0x7c00; h++) /* finite halves: below, at and above the tie with the next one */
        for (uint32_t d = 0; d < 3; d++)
            in[n++] = (ref_float_of_half(h) + 0x0fffu + d) | (h & 1) << 31;
    for (uint32_t E = 95; E <= 113; E++) /* exponents of half subnormals and below them */
        for (uint32_t k = 0; k < 4096; k++)
            for (uint32_t d = 0; d < 3; d++)
                in[n++] = (E << 23 | k << 11 | (d == 0 ? 0 : d == 1 ? 1 : 0x7ff)) | (k & 1) << 31;
    n = sweep_subset(in, n);
    for (uint32_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        in[n++] = specials[i];
        in[n++] = specials[i] | 0x80000000u;
    }
    while (n % 64)
        in[n++] = 0x3c00;
    ck_assert_uint_le(n, cap);
    int host = __builtin_cpu_supports("f16c");
    if (!host)
        fprintf(stderr, "note: this host lacks F16C: both runs take the software conversions\n");
    uint32_t *out = malloc((size_t)n * 24);
    for (int portable = 0; portable < 2; portable++) {
        memset(out, 0xee, (size_t)n * 24);
        sim_buffer bufs[2] = {{0, 0, (uint8_t *)in, (size_t)n * 4, 0}, {0, 1, (uint8_t *)out, (size_t)n * 24, 0}};
        sim_config cfg = {.wave_size = 32, .groups = {n / 64, 1, 1}, .buffers = bufs, .buffer_count = 2,
                          .portable = portable};
        sim_result res;
        ck_assert_int_eq(sim_run(prog, &cfg, &res), SIM_OK);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t u = in[i], lo = u & 0xffff, hi = u >> 16;
            uint32_t want[6] = {ref_float_of_half(lo), ref_float_of_half(hi), ref_float_of_half(lo),
                                ref_float_of_half(hi), ref_half_of_float(u) | ref_half_of_float(u ^ 0x80000000u) << 16,
                                ref_half_of_float(u) | ref_half_of_float(u ^ 0x80000000u) << 16};
            for (int k = 0; k < 6; k++)
                ck_assert_msg(out[i * 6 + k] == want[k], "%s: input 0x%08x output %d: 0x%08x, IEEE says 0x%08x",
                              portable ? "software" : "F16C", u, k, out[i * 6 + k], want[k]);
        }
        sim_result_free(&res);
    }
    free(out);
    free(in);
    isa_program_destroy(prog);
}
END_TEST

/* ------------------------------------------------------------ suite */

static Suite *sim_suite(void)
{
    Suite *s = suite_create("sim");
    TCase *tc = tcase_create("exec");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_config_bad_wave_size_is_config_error);
    tcase_add_test(tc, test_config_missing_binding_names_set_binding_and_name);
    tcase_add_test(tc, test_alu_inactive_lanes_keep_old_values);
    tcase_add_test(tc, test_movm_writes_only_lanes_of_mask);
    tcase_add_test(tc, test_control_if_else_runs_each_side_on_its_lanes);
    tcase_add_test(tc, test_control_loop_per_lane_trip_counts_sum);
    tcase_add_test(tc, test_control_mask_case_selects_matching_lanes);
    tcase_add_test(tc, test_alu_division_by_zero_reports_and_defines_result);
    tcase_add_test(tc, test_alu_shifts_and_bits_use_type_width);
    tcase_add_test(tc, test_alu_bitfield_out_of_range_reports);
    tcase_add_test(tc, test_cvt_float_to_int_clamps_and_reports);
    tcase_add_test(tc, test_cvt_int_and_float_widths_round_to_nearest_even);
    tcase_add_test(tc, test_fmath_spot_checks_match_libm);
    tcase_add_test(tc, test_fmath_unknown_instruction_is_unsupported_fault);
    tcase_add_loop_test(tc, test_xlane_votes_elect_bcast_with_inactive_lanes, 0, 4);
    tcase_add_test(tc, test_xlane_vote_eq_floats_compare_by_value);
    tcase_add_loop_test(tc, test_xlane_ballot_family_counts_only_active_true_lanes, 0, 4);
    tcase_add_loop_test(tc, test_xlane_shuffles_read_sources_and_report_inactive, 0, 4);
    tcase_add_loop_test(tc, test_wave_op_every_operator_and_group_matches_reference, 0, 4);
    tcase_add_loop_test(tc, test_wave_op_partial_last_wave_ignores_missing_lanes, 0, 4);
    tcase_add_test(tc, test_wave_op_exclusive_first_lane_gets_identity);
    tcase_add_test(tc, test_memory_out_of_bounds_fault_has_full_location);
    tcase_add_test(tc, test_memory_atomics_happen_in_lane_order);
    tcase_add_test(tc, test_memory_private_and_workgroup_are_zeroed_and_separate);
    tcase_add_test(tc, test_memory_texel_buffer_converts_formats);
    tcase_add_test(tc, test_memory_texel_rgba32f_reads_bits_with_nans_quiet);
    tcase_add_test(tc, test_memory_in_bounds_private_vector_partial_and_same_address);
    tcase_add_test(tc, test_builtins_per_lane_values_partial_wave);
    tcase_add_test(tc, test_barrier_four_waves_see_each_others_stores);
    tcase_add_test(tc, test_barrier_skipped_by_one_wave_is_deadlock);
    tcase_add_test(tc, test_budget_runaway_loop_faults);
    tcase_add_test(tc, test_exec_scalar_alu_in_divergent_segment_writes_live_lanes_valu_only_exec);
    tcase_add_test(tc, test_exec_budget_inside_segment_stops_there_and_counts_what_ran);
    tcase_add_test(tc, test_exec_32bit_compares_read_only_the_low_32_bits);
    tcase_add_test(tc, test_program_malformed_register_is_reported_not_crash);
    tcase_add_test(tc, test_speed_alu_loop_wave32_reports_rate);
    suite_add_tcase(s, tc);
    /* the two value sweeps, each a TCase of its own: ctest runs each TCase of this suite as an entry of its own
     * (CK_RUN_CASE; CMakeLists.txt), side by side */
    TCase *fp16 = tcase_create("fp16_sweep");
    tcase_set_timeout(fp16, 600);
    tcase_add_test(fp16, test_fp16_conversions_f16c_and_software_equal_ieee_reference);
    suite_add_tcase(s, fp16);
    TCase *variant = tcase_create("host_variant_sweep");
    tcase_set_timeout(variant, 600);
    tcase_add_test(variant, test_host_variant_fp16_and_fma_bits_equal_portable);
    suite_add_tcase(s, variant);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(sim_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
