/*
 * tests/test_sanitize.c — the planted-bug suite of `--sanitize` and the
 * clean-kernel sweep.
 *
 * Each kernel under tests/sanitize/ holds exactly one known bug, marked in
 * its source with a "BUG" comment.  For every wave size 4..64 the test works
 * out by hand (from the kernel's indexing and the documented schedule) which
 * wave, lane and address must be named, writes the exact report line the
 * sanitizer must print, and compares; the program listing is used only to
 * find the pc and SPIR-V word of the marked line.  The schedule check is
 * compared against an enumeration of the reversed order written here.
 * Every case under kernels/ must give no finding at any wave size.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/case.h"
#include "isa/isa.h"
#include "run/run.h"
#include "sim/sim.h"
#include "tests/support/tsup.h"

#define WAVE_OF(i, W) ((uint32_t)(i) / (W))
#define LANE_OF(i, W) ((int32_t)((uint32_t)(i) % (W)))

/* One finding the sanitizer must report. */
typedef struct want {
    sim_finding_kind kind;
    const char *tag;         /* text on the source line the finding names */
    isa_op op;               /* the instruction at that site */
    uint32_t wave;
    int32_t lane;
    const char *slot;        /* NULL: no slot */
    int64_t address;
    char message[256];
} want;

typedef struct planted {
    isa_program *prog;
    char *source;
    wl_case *c;
} planted;

/* The first instruction of source line `line` with opcode `op`. */
static uint32_t pc_at(const isa_program *p, uint32_t line, isa_op op)
{
    for (uint32_t pc = 0; pc < p->code_count; pc++)
        if (p->code[pc].line == line && p->code[pc].op == op)
            return pc;
    ck_abort_msg("no %s on line %u", isa_op_name(op), line);
    return 0;
}

static uint32_t line_of(const planted *k, const char *tag)
{
    int line = tsup_line_of(k->source, tag);
    ck_assert_msg(line > 0, "tag \"%s\" not in the kernel", tag);
    return (uint32_t)line;
}

/* Runs tests/sanitize/<name>.json sanitized at wave W; returns the exit code. */
static int run_planted(const char *name, uint32_t W, planted *k, run_output *out)
{
    char path[4096], err[4096];
    snprintf(path, sizeof path, "%s/tests/sanitize/%s.json", tsup_root(), name);
    ck_assert_msg(case_load(path, &k->c, err, sizeof err) == CASE_OK, "%s", err);
    k->source = tsup_read_file(k->c->kernel, NULL);
    run_options opt = {.wave_size = W, .sanitize = 1};
    int rc = run_case_sim(k->c, &opt, out, err, sizeof err);
    ck_assert_msg(rc != RUN_EXIT_BAD_INPUT, "%s", err);
    k->prog = out->prog;
    return rc;
}

static void planted_free(planted *k, run_output *out)
{
    run_output_free(out);
    case_destroy(k->c);
    free(k->source);
}

/* Checks every field of every finding, then the exact printed report. */
static void check_findings(const planted *k, const run_output *out, const want *w, int n, uint32_t W)
{
    const sim_result *r = &out->result;
    ck_assert_msg(r->finding_total == (uint64_t)n, "wave %u: %llu findings, want %d", W,
                  (unsigned long long)r->finding_total, n);
    ck_assert_int_eq(r->finding_count, n);
    char *expected = NULL, *got = NULL;
    size_t elen = 0, glen = 0;
    FILE *ef = open_memstream(&expected, &elen);
    for (int i = 0; i < n; i++) {
        const sim_finding *f = &r->findings[i];
        uint32_t line = line_of(k, w[i].tag);
        uint32_t pc = pc_at(k->prog, line, w[i].op);
        ck_assert_int_eq(f->kind, w[i].kind);
        ck_assert_uint_eq(f->where.line, line);
        ck_assert_uint_eq(f->where.pc, pc);
        ck_assert_uint_eq(f->where.wave, w[i].wave);
        ck_assert_int_eq(f->where.lane, w[i].lane);
        ck_assert_int_eq(f->where.address, w[i].address);
        if (w[i].slot)
            ck_assert_str_eq(k->prog->slots[f->where.slot].name, w[i].slot);
        else
            ck_assert_int_eq(f->where.slot, -1);
        for (int g = 0; g < 3; g++)
            ck_assert_uint_eq(f->where.group[g], 0);
        ck_assert_str_eq(f->message, w[i].message);

        char text[256], slot[128] = "";
        isa_inst_format(k->prog, &k->prog->code[pc], text, sizeof text);
        if (w[i].slot)
            snprintf(slot, sizeof slot, ", slot '%s' address 0x%llx", w[i].slot, (unsigned long long)w[i].address);
        fprintf(ef, "sanitize: %s at pc %u (line %u, word %u), workgroup (0,0,0) wave %u lane %d%s: %s\n"
                    "    instruction: %s\n",
                w[i].kind == SIM_FINDING_RACE ? "racecheck" : w[i].kind == SIM_FINDING_UNINITIALIZED ? "initcheck"
                : w[i].kind == SIM_FINDING_INACTIVE_LANE ? "inactive-lane" : "synccheck",
                pc, line, k->prog->code[pc].spirv_word, w[i].wave, w[i].lane, slot, w[i].message, text);
    }
    fprintf(ef, "sanitize: %d finding%s\n", n, n == 1 ? "" : "s");
    fclose(ef);
    FILE *gf = open_memstream(&got, &glen);
    ck_assert_uint_eq(run_print_findings(k->c, out, gf), (uint64_t)n);
    fclose(gf);
    ck_assert_str_eq(got, expected);
    free(expected);
    free(got);
    ck_assert_int_eq(out->schedule_diff_total, 0);
    ck_assert_str_eq(out->schedule_fault, "");
}

/* Runs planted kernel `name` sanitized at wave W and checks that it reports exactly the n findings w. */
static void expect_findings(const char *name, uint32_t W, const want *w, int n)
{
    planted k;
    run_output out;
    ck_assert_int_eq(run_planted(name, W, &k, &out), RUN_EXIT_OK);
    check_findings(&k, &out, w, n, W);
    planted_free(&k, &out);
}

static uint32_t wave_of_loop(int i) { return 4u << i; } /* 4, 8, 16, 32, 64 */

static uint64_t lanes_below(uint32_t W) { return W == 64 ? ~0ull : (1ull << W) - 1; }

/* Two waves store and load tile[] in one epoch: the first wave that meets another's work is 64/W (its lane 0
 * stores tile[64], which wave 0 lane 0 read, then loads tile[0], which wave 0 lane 0 wrote). */
START_TEST(test_sanitize_race_no_barrier_reports_war_and_raw)
{
    uint32_t W = wave_of_loop(_i);
    planted k;
    run_output out;
    ck_assert_int_eq(run_planted("race_no_barrier", W, &k, &out), RUN_EXIT_OK);
    uint32_t K = 64 / W;
    uint32_t store_line = line_of(&k, "BUG-STORE"), load_line = line_of(&k, "BUG-LOAD");
    uint32_t store_pc = pc_at(k.prog, store_line, ISA_OP_STORE), load_pc = pc_at(k.prog, load_line, ISA_OP_LOAD);
    want w[2] = {
        {SIM_FINDING_RACE, "BUG-STORE", ISA_OP_STORE, K, 0, "tile", 0x100, ""},
        {SIM_FINDING_RACE, "BUG-LOAD", ISA_OP_LOAD, K, 0, "tile", 0x0, ""},
    };
    snprintf(w[0].message, sizeof w[0].message,
             "store by wave %u and a read by wave 0 lane 0 at pc %u (line %u) touch workgroup 'tile' at 0x100 with "
             "no barrier between", K, load_pc, load_line);
    snprintf(w[1].message, sizeof w[1].message,
             "load by wave %u and a plain write by wave 0 lane 0 at pc %u (line %u) touch workgroup 'tile' at 0x0 "
             "with no barrier between", K, store_pc, store_line);
    check_findings(&k, &out, w, 2, W);
    planted_free(&k, &out);
}
END_TEST

START_TEST(test_sanitize_lane_store_conflict_reports_lanes_0_and_1)
{
    uint32_t W = wave_of_loop(_i);
    want w = {SIM_FINDING_RACE, "BUG", ISA_OP_STORE, 0, 1, "tile", 0,
              "store: lanes 0 and 1 of wave 0 write different values (4 bytes) to workgroup 'tile' at 0x0 in one "
              "instruction"};
    expect_findings("lane_store_conflict", W, &w, 1);
}
END_TEST

/* The same race on a storage image (watched per texel): wave 64/W lane 0 stores texel 64, which wave 0 lane 0
 * read, then loads texel 0, which wave 0 lane 0 wrote; an r32ui texel's address is 4 bytes per texel. */
START_TEST(test_sanitize_image_race_reports_the_texels)
{
    uint32_t W = wave_of_loop(_i);
    planted k;
    run_output out;
    ck_assert_int_eq(run_planted("image_race", W, &k, &out), RUN_EXIT_OK);
    uint32_t K = 64 / W;
    uint32_t store_line = line_of(&k, "BUG-STORE"), load_line = line_of(&k, "BUG-LOAD");
    uint32_t store_pc = pc_at(k.prog, store_line, ISA_OP_IMG_STORE), load_pc = pc_at(k.prog, load_line, ISA_OP_IMG_LOAD);
    want w[2] = {
        {SIM_FINDING_RACE, "BUG-STORE", ISA_OP_IMG_STORE, K, 0, "img", 64 * 4, ""},
        {SIM_FINDING_RACE, "BUG-LOAD", ISA_OP_IMG_LOAD, K, 0, "img", 0, ""},
    };
    snprintf(w[0].message, sizeof w[0].message,
             "img_store by wave %u and a read by wave 0 lane 0 at pc %u (line %u) touch storage_image 'img' (set 0 "
             "binding 0) at texel (64, 0, 0) layer 0 mip 0 with no barrier between", K, load_pc, load_line);
    snprintf(w[1].message, sizeof w[1].message,
             "img_load by wave %u and a plain write by wave 0 lane 0 at pc %u (line %u) touch storage_image 'img' (set "
             "0 binding 0) at texel (0, 0, 0) layer 0 mip 0 with no barrier between", K, store_pc, store_line);
    check_findings(&k, &out, w, 2, W);
    planted_free(&k, &out);
}
END_TEST

/* Four lanes store four values to texel (1, 2) of a 4x4 r32ui image: byte (2 * 4 + 1) * 4 = 0x24. */
START_TEST(test_sanitize_image_lane_store_conflict_reports_lanes_0_and_1)
{
    uint32_t W = wave_of_loop(_i);
    want w = {SIM_FINDING_RACE, "BUG", ISA_OP_IMG_STORE, 0, 1, "img", 0x24,
              "img_store: lanes 0 and 1 of wave 0 write different values to storage_image 'img' (set 0 binding 0) at "
              "texel (1, 2, 0) layer 0 mip 0 in one instruction"};
    expect_findings("image_lane_store_conflict", W, &w, 1);
}
END_TEST

/* tile[64] is read by invocation 63 only. */
START_TEST(test_sanitize_uninit_shared_reports_invocation_63)
{
    uint32_t W = wave_of_loop(_i);
    want w = {SIM_FINDING_UNINITIALIZED, "BUG", ISA_OP_LOAD, WAVE_OF(63, W), LANE_OF(63, W), "tile", 0x100,
              "load reads 4 bytes of workgroup 'tile' at 0x100 that nothing wrote"};
    expect_findings("uninit_shared", W, &w, 1);
}
END_TEST

/* vals[3] (byte 12) is first read by invocation 3. */
START_TEST(test_sanitize_uninit_private_reports_lane_3)
{
    uint32_t W = wave_of_loop(_i);
    want w = {SIM_FINDING_UNINITIALIZED, "BUG", ISA_OP_LOAD, 0, 3, "vals", 0xc,
              "load reads 4 bytes of private 'vals' at 0xc that nothing wrote"};
    expect_findings("uninit_private", W, &w, 1);
}
END_TEST

/* scratch.s[5] (byte 0x14) is read by invocation 4 (4 ^ 1 == 5). */
START_TEST(test_sanitize_uninit_buffer_reports_invocation_4)
{
    uint32_t W = wave_of_loop(_i);
    want w = {SIM_FINDING_UNINITIALIZED, "BUG", ISA_OP_LOAD, WAVE_OF(4, W), LANE_OF(4, W), "scratch", 0x14,
              "load reads 4 bytes of storage 'scratch' (set 0 binding 0) at 0x14 that nothing wrote"};
    expect_findings("uninit_buffer", W, &w, 1);
}
END_TEST

/* The same on a storage image the case marks uninitialized: invocation 4 reads texel 5, byte 5 * 4. */
START_TEST(test_sanitize_image_uninit_reports_invocation_4)
{
    uint32_t W = wave_of_loop(_i);
    want w = {SIM_FINDING_UNINITIALIZED, "BUG", ISA_OP_IMG_LOAD, WAVE_OF(4, W), LANE_OF(4, W), "scratch", 0x14,
              "img_load reads storage_image 'scratch' (set 0 binding 0) at texel (5, 0, 0) layer 0 mip 0, which "
              "nothing wrote"};
    expect_findings("image_uninit", W, &w, 1);
}
END_TEST

START_TEST(test_sanitize_image_sample_uninit_reports_invocation_4s_first_texel)
{
    /* Invocations 0-3 read only border texels.  Invocation 4 samples at u = 5/8, v = 1/2 of the 8 x 4 image: the
     * linear footprint's low corner is floor(5 - 0.5) = 4, floor(2 - 0.5) = 1, the first texel the filter reads;
     * rgba32f texel (4, 1) lies (1 * 8 + 4) * 16 = 0xc0 bytes in. */
    uint32_t W = wave_of_loop(_i);
    want w = {SIM_FINDING_UNINITIALIZED, "BUG", ISA_OP_IMG_SAMPLE, WAVE_OF(4, W), LANE_OF(4, W), "lut", 0xc0,
              "img_sample reads sampled_image 'lut' (set 0 binding 0) at texel (4, 1, 0) layer 0 mip 0, which "
              "nothing wrote"};
    expect_findings("image_sample_uninit", W, &w, 1);
}
END_TEST

START_TEST(test_sanitize_inactive_lane_reports_lane_0_reading_1)
{
    uint32_t W = wave_of_loop(_i);
    want w = {SIM_FINDING_INACTIVE_LANE, "BUG", ISA_OP_SHUFFLE, 0, 0, NULL, -1, ""};
    snprintf(w.message, sizeof w.message, "shuffle: lane 0 reads lane 1, which is inactive (exec 0x%llx)",
             (unsigned long long)(0x5555555555555555ull & lanes_below(W)));
    expect_findings("inactive_lane", W, &w, 1);
}
END_TEST

START_TEST(test_sanitize_divergent_barrier_reports_half_the_lanes)
{
    uint32_t W = wave_of_loop(_i);
    want w = {SIM_FINDING_DIVERGENT_BARRIER, "BUG", ISA_OP_BARRIER, 0, 1, NULL, -1, ""};
    snprintf(w.message, sizeof w.message,
             "barrier reached by %u of the wave's %u lanes (exec 0x%llx): the control flow around it is not uniform "
             "across the workgroup", W / 2, W, (unsigned long long)(0x5555555555555555ull & lanes_below(W)));
    expect_findings("divergent_barrier", W, &w, 1);
}
END_TEST

/*
 * The atomic hands out slots in schedule order.  Linear order: slot k goes to global invocation k.  Reversed:
 * workgroups 3..0, inside each the waves from last to first, lanes in order; 16 invocations per workgroup.
 */
START_TEST(test_sanitize_order_dependence_reports_every_moved_element)
{
    uint32_t W = wave_of_loop(_i);
    planted k;
    run_output out;
    ck_assert_int_eq(run_planted("order_dependence", W, &k, &out), RUN_EXIT_OK);
    uint32_t reversed[64], n = 0;
    uint32_t per_wave = W < 16 ? W : 16, waves = 16 / per_wave;
    for (int g = 3; g >= 0; g--)
        for (int wv = (int)waves - 1; wv >= 0; wv--)
            for (uint32_t l = 0; l < per_wave; l++)
                reversed[n++] = (uint32_t)g * 16 + (uint32_t)wv * per_wave + l;
    ck_assert_uint_eq(n, 64);
    ck_assert_uint_eq(out.result.finding_total, 0);
    char *expected = NULL, *got = NULL;
    size_t elen = 0, glen = 0;
    FILE *ef = open_memstream(&expected, &elen);
    int diffs = 0;
    for (uint32_t e = 0; e < 64; e++) {
        if (reversed[e] == e)
            continue;
        ck_assert_int_lt(diffs, out.schedule_diff_count);
        const run_schedule_diff *d = &out.schedule_diffs[diffs++];
        char lin[16], rev[16];
        snprintf(lin, sizeof lin, "%u", e);
        snprintf(rev, sizeof rev, "%u", reversed[e]);
        ck_assert_int_eq(d->binding, 1);
        ck_assert_uint_eq(d->element, e);
        ck_assert_str_eq(d->linear, lin);
        ck_assert_str_eq(d->reversed, rev);
        fprintf(ef, "sanitize: schedule: set 0 binding 1 element %u is %s in the linear order and %s in the reversed "
                    "order (workgroups and waves reversed)\n", e, lin, rev);
    }
    ck_assert_int_eq(out.schedule_diff_count, diffs);
    ck_assert_uint_eq(out.schedule_diff_total, (uint64_t)diffs);
    fprintf(ef, "sanitize: %d finding%s\n", diffs, diffs == 1 ? "" : "s");
    fclose(ef);
    FILE *gf = open_memstream(&got, &glen);
    run_print_findings(k.c, &out, gf);
    fclose(gf);
    ck_assert_str_eq(got, expected);
    free(expected);
    free(got);
    planted_free(&k, &out);
}
END_TEST

/* The same kernel with "compare": "sorted" on its output: the order is allowed, no finding. */
START_TEST(test_sanitize_order_dependence_sorted_is_clean)
{
    uint32_t W = wave_of_loop(_i);
    planted k;
    run_output out;
    ck_assert_int_eq(run_planted("order_dependence_sorted", W, &k, &out), RUN_EXIT_OK);
    ck_assert_uint_eq(run_finding_count(&out), 0);
    ck_assert_int_eq(run_check_expects(k.c, out.data, NULL), 0);
    planted_free(&k, &out);
}
END_TEST

/* Invocation 0 loads a shared word atomically before invocation 127, in a later wave, stores it atomically, with
 * no barrier between: an atomic-atomic pair, which is never a race. */
START_TEST(test_sanitize_atomic_load_then_atomic_store_is_no_race)
{
    uint32_t W = wave_of_loop(_i);
    planted k;
    run_output out;
    ck_assert_int_eq(run_planted("atomic_load_store", W, &k, &out), RUN_EXIT_OK);
    if (run_finding_count(&out))
        run_print_findings(k.c, &out, stderr);
    ck_assert_uint_eq(run_finding_count(&out), 0);
    ck_assert_int_eq(run_check_expects(k.c, out.data, NULL), 0);
    planted_free(&k, &out);
}
END_TEST

/* The same kernel with a plain load: the atomic store of invocation 127 races with it (one side is not atomic). */
START_TEST(test_sanitize_plain_load_then_atomic_store_is_a_race)
{
    uint32_t W = wave_of_loop(_i);
    planted k;
    run_output out;
    ck_assert_int_eq(run_planted("atomic_load_store_plain", W, &k, &out), RUN_EXIT_OK);
    uint32_t load_line = line_of(&k, "PLAIN-LOAD");
    uint32_t load_pc = pc_at(k.prog, load_line, ISA_OP_LOAD);
    want w = {SIM_FINDING_RACE, "ATOMIC-STORE", ISA_OP_ATOMIC, WAVE_OF(127, W), LANE_OF(127, W), "flag", 0, ""};
    snprintf(w.message, sizeof w.message,
             "atomic by wave %u and a read by wave 0 lane 0 at pc %u (line %u) touch workgroup 'flag' at 0x0 with "
             "no barrier between", WAVE_OF(127, W), load_pc, load_line);
    check_findings(&k, &out, &w, 1, W);
    planted_free(&k, &out);
}
END_TEST

/* data[64] (byte 0x100) is written by invocation 63: the executor's fault, with the sanitizer on or off. */
START_TEST(test_sanitize_out_of_bounds_faults_at_invocation_63)
{
    uint32_t W = wave_of_loop(_i);
    planted k;
    run_output out;
    ck_assert_int_eq(run_planted("out_of_bounds", W, &k, &out), RUN_EXIT_FAIL);
    const sim_location *l = &out.result.fault_event.where;
    ck_assert_int_eq(out.result.fault, SIM_FAULT_OUT_OF_BOUNDS);
    ck_assert_uint_eq(l->line, line_of(&k, "BUG"));
    ck_assert_uint_eq(l->pc, pc_at(k.prog, l->line, ISA_OP_STORE));
    ck_assert_uint_eq(l->wave, WAVE_OF(63, W));
    ck_assert_int_eq(l->lane, LANE_OF(63, W));
    ck_assert_int_eq(l->address, 0x100);
    ck_assert_str_eq(out.result.fault_event.message, "out-of-bounds store of 4 bytes at address 0x100 of storage slot "
                                                     "'outp' (set 0 binding 0), which has 256 bytes");
    planted_free(&k, &out);
}
END_TEST

/* The sanitizer watches; it never changes what a kernel computes. */
START_TEST(test_sanitize_planted_outputs_equal_unsanitized_outputs)
{
    static const char *const names[] = {"race_no_barrier", "lane_store_conflict", "uninit_shared", "uninit_private",
                                        "uninit_buffer", "inactive_lane", "divergent_barrier", "order_dependence",
                                        "image_race", "image_lane_store_conflict", "image_uninit",
                                        "image_sample_uninit"};
    uint32_t W = wave_of_loop(_i);
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        planted k;
        run_output san, plain;
        char err[4096];
        run_planted(names[n], W, &k, &san);
        run_options opt = {.wave_size = W};
        ck_assert_int_eq(run_case_sim(k.c, &opt, &plain, err, sizeof err), RUN_EXIT_OK);
        ck_assert_int_eq(plain.result.finding_total, 0);
        for (int b = 0; b < k.c->binding_count; b++)
            ck_assert_msg(memcmp(san.data[b], plain.data[b], k.c->bindings[b].size) == 0, "%s binding %d", names[n],
                          b);
        ck_assert_uint_eq(san.result.stats.wave_instructions, plain.result.stats.wave_instructions);
        run_output_free(&plain);
        planted_free(&k, &san);
    }
}
END_TEST

START_TEST(test_sanitize_uninitialized_field_bad_value_is_an_error)
{
    static const struct { const char *json, *message; } bad[] = {
        {"{\"kernel\": \"k.comp\", \"bindings\": [{\"binding\": 0, \"type\": \"u32\", \"count\": 4, "
         "\"uninitialized\": 1}]}",
         "x.json: bindings[0].uninitialized: expected true or false, got a number"},
        {"{\"kernel\": \"k.comp\", \"bindings\": [{\"binding\": 0, \"type\": \"u32\", \"data\": [1, 2], "
         "\"uninitialized\": true}]}",
         "x.json: bindings[0].uninitialized: an uninitialized binding has no contents: give \"count\" alone, not "
         "\"data\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wl_case *c = NULL;
        char err[1024];
        ck_assert_int_eq(case_parse(bad[i].json, "x.json", &c, err, sizeof err), CASE_ERR_FIELD);
        ck_assert_str_eq(err, bad[i].message);
    }
    wl_case *c = NULL;
    char err[1024];
    ck_assert_int_eq(case_parse("{\"kernel\": \"k.comp\", \"bindings\": [{\"binding\": 0, \"type\": \"u32\", "
                                "\"count\": 4, \"uninitialized\": true}]}", "x.json", &c, err, sizeof err), CASE_OK);
    ck_assert_int_eq(c->bindings[0].uninitialized, 1);
    ck_assert_uint_eq(c->bindings[0].size, 16);
    case_destroy(c);
}
END_TEST

/* The commands: a finding is exit 1 and a FAIL line; without --sanitize the same case passes. */
START_TEST(test_sanitize_cli_finding_exits_1)
{
    char args[8192], *out = NULL;
    const char *root = tsup_root();
    snprintf(args, sizeof args, "run '%s/tests/sanitize/uninit_shared.json' --wave 16 --sanitize --quiet", root);
    ck_assert_int_eq(tsup_run_cli(args, &out), 1);
    ck_assert_msg(out && strstr(out, "sanitize: initcheck at pc ") && strstr(out, "sanitize: 1 finding\n"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "run '%s/tests/sanitize/uninit_shared.json' --wave 16 --quiet", root);
    ck_assert_int_eq(tsup_run_cli(args, &out), 0);
    free(out);
    snprintf(args, sizeof args, "test '%s/tests/sanitize/uninit_shared.json' '%s/tests/sanitize/order_dependence_sorted.json' "
             "--waves 8 --sanitize", root, root);
    ck_assert_int_eq(tsup_run_cli(args, &out), 1);
    ck_assert_msg(out && strstr(out, "FAIL  ") && strstr(out, "uninit_shared.json (wave 8): sanitizer findings") &&
                  strstr(out, "PASS  ") && strstr(out, "1 passed, 1 failed"), "%s", out);
    free(out);
}
END_TEST

/* ---------------------------------------------------------- clean kernels */

/* The cases of kernels/ with an "expect" (tsup_list_expect_cases), listed once in main(). */
static char **clean_paths;
static int clean_count;

/* The clean sweep's wave sizes: all five in the optimised build; under ASan and UBSan 8 and 32, the sizes the
 * sanitized `wavelab test kernels` leg of scripts/test.sh runs (the same sanitizer code at another W, a
 * fifth of a minute a size there). */
#if defined(__SANITIZE_ADDRESS__)
static const uint32_t clean_waves[] = {8, 32};
#else
static const uint32_t clean_waves[] = {4, 8, 16, 32, 64};
#endif

START_TEST(test_sanitize_clean_kernels_have_no_findings)
{
    uint32_t W = clean_waves[_i];
    ck_assert_int_gt(clean_count, 20);
    for (int i = 0; i < clean_count; i++) {
        wl_case *c = NULL;
        char err[4096];
        ck_assert_msg(case_load(clean_paths[i], &c, err, sizeof err) == CASE_OK, "%s", err);
        run_options opt = {.wave_size = W, .sanitize = 1};
        run_output out;
        int rc = run_case_sim(c, &opt, &out, err, sizeof err);
        ck_assert_msg(rc == RUN_EXIT_OK, "%s (wave %u): rc %d %s", clean_paths[i], W, rc, err);
        if (run_finding_count(&out)) {
            run_print_findings(c, &out, stderr);
            ck_abort_msg("%s (wave %u): sanitizer findings", clean_paths[i], W);
        }
        run_output_free(&out);
        case_destroy(c);
    }
}
END_TEST

static Suite *sanitize_suite(void)
{
    Suite *s = suite_create("sanitize");
    TCase *t = tcase_create("planted");
    tcase_set_timeout(t, 600);
    tcase_add_loop_test(t, test_sanitize_race_no_barrier_reports_war_and_raw, 0, 5);
    tcase_add_loop_test(t, test_sanitize_lane_store_conflict_reports_lanes_0_and_1, 0, 5);
    tcase_add_loop_test(t, test_sanitize_image_race_reports_the_texels, 0, 5);
    tcase_add_loop_test(t, test_sanitize_image_lane_store_conflict_reports_lanes_0_and_1, 0, 5);
    tcase_add_loop_test(t, test_sanitize_uninit_shared_reports_invocation_63, 0, 5);
    tcase_add_loop_test(t, test_sanitize_uninit_private_reports_lane_3, 0, 5);
    tcase_add_loop_test(t, test_sanitize_uninit_buffer_reports_invocation_4, 0, 5);
    tcase_add_loop_test(t, test_sanitize_image_uninit_reports_invocation_4, 0, 5);
    tcase_add_loop_test(t, test_sanitize_image_sample_uninit_reports_invocation_4s_first_texel, 0, 5);
    tcase_add_loop_test(t, test_sanitize_inactive_lane_reports_lane_0_reading_1, 0, 5);
    tcase_add_loop_test(t, test_sanitize_divergent_barrier_reports_half_the_lanes, 0, 5);
    tcase_add_loop_test(t, test_sanitize_order_dependence_reports_every_moved_element, 0, 5);
    tcase_add_loop_test(t, test_sanitize_order_dependence_sorted_is_clean, 0, 5);
    tcase_add_loop_test(t, test_sanitize_atomic_load_then_atomic_store_is_no_race, 0, 5);
    tcase_add_loop_test(t, test_sanitize_plain_load_then_atomic_store_is_a_race, 0, 5);
    tcase_add_loop_test(t, test_sanitize_out_of_bounds_faults_at_invocation_63, 0, 5);
    tcase_add_loop_test(t, test_sanitize_planted_outputs_equal_unsanitized_outputs, 0, 5);
    tcase_add_test(t, test_sanitize_uninitialized_field_bad_value_is_an_error);
    tcase_add_test(t, test_sanitize_cli_finding_exits_1);
    suite_add_tcase(s, t);
    TCase *clean = tcase_create("clean");
    tcase_set_timeout(clean, 600);
    tcase_add_loop_test(clean, test_sanitize_clean_kernels_have_no_findings, 0,
                        (int)(sizeof clean_waves / sizeof clean_waves[0]));
    suite_add_tcase(s, clean);
    return s;
}

int main(void)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/kernels", tsup_root());
    size_t listed = 0;
    clean_paths = tsup_list_expect_cases(dir, &listed);
    clean_count = (int)listed;
    SRunner *r = srunner_create(sanitize_suite());
    if (sizeof clean_waves / sizeof clean_waves[0] < 5)
        printf("test_sanitize: under ASan and UBSan the clean sweep runs waves 8 and 32 (the optimised build runs 4 "
               "to 64)\n");
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    tsup_free_list(clean_paths, listed);
    return failed ? 1 : 0;
}
