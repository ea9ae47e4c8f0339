/*
 * tests/test_determinism.c — the same case gives the same bytes and the same
 * statistics on every run and at any host thread count.
 *
 * Every case under kernels/ is run once on this thread (the reference), then
 * again on 1 and on 3 concurrent host threads; final buffers, every counter,
 * the per-class, per-opcode and per-instruction statistics and the
 * undefined-behaviour events must all be identical to the reference.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/case.h"
#include "isa/isa.h"
#include "sim/machine.h"
#include "sim/memmodel.h"
#include "sim/sim.h"
#include "run/run.h"
#include "tests/support/tsup.h"

/* The cases of kernels/ with an "expect" (tsup_list_expect_cases), listed once in main(). */
static char **case_paths;
static int case_count;

typedef struct outcome {
    int rc;
    size_t nbytes;
    uint8_t *bytes;     /* every binding's final contents, concatenated */
    sim_stats stats;    /* per-instruction arrays copied */
    uint64_t *inst;     /* executions then lanes */
    uint32_t inst_count;
    int event_count;
    char events[SIM_MAX_EVENTS][256];
} outcome;

/* The memory model's results after a run, copied. */
typedef struct mem_outcome {
    mem_stats stats;
    mem_estimate estimate;
    mem_inst_stats *inst;
    uint32_t inst_count;
    mem_group_stats *group;
    uint32_t group_count;
} mem_outcome;

static void mem_outcome_take(mem_model *mm, mem_outcome *mo)
{
    const mem_inst_stats *is = mem_model_inst_stats(mm, &mo->inst_count);
    uint32_t g3[3];
    const mem_group_stats *gs = mem_model_group_stats(mm, &mo->group_count, g3);
    mo->stats = *mem_model_stats(mm);
    mo->estimate = *mem_model_estimate(mm);
    mo->inst = malloc((mo->inst_count + 1) * sizeof *mo->inst);
    mo->group = malloc((mo->group_count + 1) * sizeof *mo->group);
    memcpy(mo->inst, is, mo->inst_count * sizeof *mo->inst);
    memcpy(mo->group, gs, mo->group_count * sizeof *mo->group);
}

static int mem_outcomes_equal(const mem_outcome *a, const mem_outcome *b)
{
    return memcmp(&a->stats, &b->stats, sizeof a->stats) == 0 &&
           memcmp(&a->estimate, &b->estimate, sizeof a->estimate) == 0 && a->inst_count == b->inst_count &&
           memcmp(a->inst, b->inst, a->inst_count * sizeof *a->inst) == 0 && a->group_count == b->group_count &&
           memcmp(a->group, b->group, a->group_count * sizeof *a->group) == 0;
}

static void mem_outcome_free(mem_outcome *mo)
{
    free(mo->inst);
    free(mo->group);
}

/* With `memory` (a machine), the run feeds a memory model (replayed on `memory_threads`) whose results go to *mo. */
static void run_case_full(const char *path, uint32_t wave, uint32_t threads, const mem_machine *memory,
                          int memory_threads, uint32_t warmup, outcome *o, mem_outcome *mo)
{
    memset(o, 0, sizeof *o);
    char err[4096];
    wl_case *c = NULL;
    ck_assert_msg(case_load(path, &c, err, sizeof err) == CASE_OK, "%s", err);
    run_options opt = {.wave_size = wave, .threads = threads, .warmup = warmup};
    mem_model *mm = NULL;
    if (memory) {
        mem_model_options mopt = {.machine = memory, .threads = memory_threads};
        ck_assert_int_eq(mem_model_create(&mopt, &mm), MEM_OK);
        opt.memory = mm;
    }
    run_output out;
    o->rc = run_case_sim(c, &opt, &out, err, sizeof err);
    if (o->rc != RUN_EXIT_BAD_INPUT) {
        for (int i = 0; i < c->binding_count; i++)
            o->nbytes += c->bindings[i].size;
        o->bytes = malloc(o->nbytes + 1);
        size_t at = 0;
        for (int i = 0; i < c->binding_count; i++) {
            memcpy(o->bytes + at, out.data[i], c->bindings[i].size);
            at += c->bindings[i].size;
        }
        o->stats = out.result.stats;
        o->inst_count = out.result.stats.inst_count;
        o->inst = malloc(2 * (o->inst_count + 1) * sizeof *o->inst);
        if (o->inst_count) {
            memcpy(o->inst, out.result.stats.inst_executions, o->inst_count * sizeof *o->inst);
            memcpy(o->inst + o->inst_count, out.result.stats.inst_lanes, o->inst_count * sizeof *o->inst);
        }
        o->stats.inst_executions = o->stats.inst_lanes = NULL;
        o->event_count = out.result.event_count;
        for (int i = 0; i < o->event_count; i++)
            snprintf(o->events[i], sizeof o->events[i], "%.200s@%u/%d", out.result.events[i].message,
                     out.result.events[i].where.pc, out.result.events[i].where.lane);
    }
    if (mm && o->rc != RUN_EXIT_BAD_INPUT)
        mem_outcome_take(mm, mo);
    run_output_free(&out);
    mem_model_destroy(mm);
    case_destroy(c);
}

static void run_case_threads(const char *path, uint32_t wave, uint32_t threads, outcome *o)
{
    run_case_full(path, wave, threads, NULL, 1, 0, o, NULL);
}

static void run_case(const char *path, uint32_t wave, outcome *o) { run_case_threads(path, wave, 1, o); }

static void outcome_free(outcome *o)
{
    free(o->bytes);
    free(o->inst);
}

static int outcomes_equal(const outcome *a, const outcome *b, char *why, size_t n)
{
    if (a->rc != b->rc)
        return snprintf(why, n, "exit %d vs %d", a->rc, b->rc), 0;
    if (a->nbytes != b->nbytes || (a->nbytes && memcmp(a->bytes, b->bytes, a->nbytes)))
        return snprintf(why, n, "output bytes differ"), 0;
#define X(name, meaning)                                                                             \
    if (a->stats.name != b->stats.name)                                                             \
        return snprintf(why, n, #name " differs: %llu vs %llu", (unsigned long long)a->stats.name, \
                        (unsigned long long)b->stats.name), 0;
#include "sim/counters.def"
#undef X
    if (memcmp(a->stats.by_class, b->stats.by_class, sizeof a->stats.by_class) != 0 ||
        memcmp(a->stats.by_op, b->stats.by_op, sizeof a->stats.by_op) != 0)
        return snprintf(why, n, "instruction counts differ"), 0;
    if (a->inst_count != b->inst_count ||
        (a->inst_count && memcmp(a->inst, b->inst, 2 * a->inst_count * sizeof *a->inst)))
        return snprintf(why, n, "per-instruction statistics differ"), 0;
    if (a->event_count != b->event_count || memcmp(a->events, b->events, sizeof a->events))
        return snprintf(why, n, "undefined-behaviour events differ"), 0;
    return 1;
}

typedef struct job {
    int first, step;
    uint32_t wave;
    outcome *results;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    for (int i = j->first; i < case_count; i += j->step)
        run_case(case_paths[i], j->wave, &j->results[i]);
    return NULL;
}

static void check_threads(uint32_t wave, int threads)
{
    outcome *ref = calloc((size_t)case_count, sizeof *ref);
    outcome *par = calloc((size_t)case_count, sizeof *par);
    for (int i = 0; i < case_count; i++)
        run_case(case_paths[i], wave, &ref[i]);
    pthread_t t[8];
    job jobs[8];
    for (int k = 0; k < threads; k++) {
        jobs[k] = (job){k, threads, wave, par};
        pthread_create(&t[k], NULL, worker, &jobs[k]);
    }
    for (int k = 0; k < threads; k++)
        pthread_join(t[k], NULL);
    for (int i = 0; i < case_count; i++) {
        char why[128];
        ck_assert_msg(outcomes_equal(&ref[i], &par[i], why, sizeof why), "%s at wave %u on %d threads: %s",
                      case_paths[i], wave, threads, why);
        outcome_free(&ref[i]);
        outcome_free(&par[i]);
    }
    free(ref);
    free(par);
}

START_TEST(test_determinism_every_kernel_on_one_thread_matches_a_second_run)
{
    ck_assert_int_gt(case_count, 0);
    check_threads(8, 1);
}
END_TEST

START_TEST(test_determinism_every_kernel_on_three_threads_matches_one_thread)
{
    ck_assert_int_gt(case_count, 0);
    check_threads(32, 3);
    check_threads(64, 3);
}
END_TEST

/* One dispatch on several host threads (sim_config.threads) gives the one-thread results for every kernel. */
START_TEST(test_determinism_every_kernel_on_three_dispatch_threads_matches_one)
{
    for (int i = 0; i < case_count; i++) {
        outcome one, three;
        run_case_threads(case_paths[i], 16, 1, &one);
        run_case_threads(case_paths[i], 16, 3, &three);
        char why[128];
        ck_assert_msg(outcomes_equal(&one, &three, why, sizeof why), "%s at wave 16, 3 dispatch threads: %s",
                      case_paths[i], why);
        outcome_free(&one);
        outcome_free(&three);
    }
}
END_TEST

/*
 * Untimed warm-up dispatches (run_options.warmup, `wavelab run --warmup`) run on the pass's initial contents and
 * leave no trace: for every kernel (atomics and several passes included), the outputs, statistics and events
 * after two warm-ups, on one and on three dispatch threads, equal those of a run without any.
 */
START_TEST(test_determinism_every_kernel_after_warmup_dispatches_matches_a_cold_run)
{
    for (int i = 0; i < case_count; i++) {
        outcome cold, warm;
        run_case_full(case_paths[i], 8, 1, NULL, 1, 0, &cold, NULL);
        run_case_full(case_paths[i], 8, 1 + 2 * (uint32_t)(i & 1), NULL, 1, 2, &warm, NULL);
        char why[128];
        ck_assert_msg(outcomes_equal(&cold, &warm, why, sizeof why), "%s at wave 8 after 2 warm-ups: %s",
                      case_paths[i], why);
        outcome_free(&cold);
        outcome_free(&warm);
    }
}
END_TEST

/*
 * A traced dispatch (the memory model attached) runs on several host threads too, handing the trace to the
 * model in workgroup order: for every kernel, on a machine with and one without an L1 and one with L2
 * partitions, with the model's replay on the executor's thread and on its own, the outputs, the executor's statistics and every statistic
 * of the memory model (totals, per instruction, per workgroup, the estimate) equal the one-thread run's.
 * Kernels whose order could show (atomics, a buffer read and written) fall back to one thread: the model is
 * restarted and must still give the one-thread answer.
 */
START_TEST(test_determinism_memory_model_on_three_dispatch_threads_matches_one)
{
    /* hopper_h100: L2 partitions with near copies, a 224 KB L1 */
    static const char *const presets[] = {"turing_rtx2080", "rdna2", "hopper_h100"};
    for (int k = 0; k < 3; k++) {
        mem_machine m;
        char err[1024];
        ck_assert_msg(mem_machine_load(presets[k], &m, err, sizeof err) == MEM_OK, "%s", err);
        for (int i = 0; i < case_count; i++) {
            outcome one, three;
            mem_outcome mone = {0}, mthree = {0};
            run_case_full(case_paths[i], m.default_wave, 1, &m, 1, 0, &one, &mone);
            run_case_full(case_paths[i], m.default_wave, 3, &m, 1 + (i & 1), 2 * (i & 1), &three, &mthree);
            char why[128];
            ck_assert_msg(outcomes_equal(&one, &three, why, sizeof why), "%s on %s, 3 dispatch threads: %s",
                          case_paths[i], presets[k], why);
            ck_assert_msg(mem_outcomes_equal(&mone, &mthree), "%s on %s: memory model statistics differ on 3 threads",
                          case_paths[i], presets[k]);
            outcome_free(&one);
            outcome_free(&three);
            mem_outcome_free(&mone);
            mem_outcome_free(&mthree);
        }
    }
}
END_TEST

/* Kernels where the order would show: the threaded dispatch must notice and give the one-thread answer. */
static const char *race_kernel =
    "#version 450\n"
    "layout(local_size_x = 32) in;\n"
    "layout(set = 0, binding = 0) buffer Out { uint last; uint mine[]; };\n"
    "layout(set = 0, binding = 1) buffer Bad { uint small[4]; };\n"
    "void main() {\n"
    "    uint g = gl_WorkGroupID.x;\n"
    "    if (gl_LocalInvocationIndex == 0u) last = g;   /* every workgroup writes word 0 */\n"
    "    mine[gl_GlobalInvocationID.x] = g * 100u + gl_LocalInvocationIndex;\n"
    "    if (g >= FAULT_FROM) small[gl_LocalInvocationIndex] = 1u; /* out of bounds from lane 4 */\n"
    "}\n";

static sim_status run_race_traced(uint32_t threads, uint32_t fault_from, uint32_t *out, size_t out_words,
                                  sim_result *r, const sim_mem_trace *trace)
{
    char src[2048];
    snprintf(src, sizeof src, "%s", race_kernel);
    char def[16];
    snprintf(def, sizeof def, "%u", fault_from);
    isa_define d = {"FAULT_FROM", def};
    isa_compile_options o = {.path = "race.comp", .source = src, .language = "glsl", .defines = &d, .define_count = 1};
    uint32_t *words = NULL;
    size_t n = 0;
    char err[2048] = "", warn[512] = "";
    ck_assert_msg(isa_compile(&o, &words, &n, err, sizeof err, warn, sizeof warn) == ISA_OK, "%s", err);
    isa_program *p = NULL;
    ck_assert_msg(isa_lower(words, n, "main", &p, err, sizeof err) == ISA_OK, "%s", err);
    free(words);
    uint32_t small[4] = {0};
    memset(out, 0, out_words * 4);
    sim_buffer bufs[2] = {{0, 0, (uint8_t *)out, out_words * 4, 0}, {0, 1, (uint8_t *)small, sizeof small, 0}};
    sim_config cfg = {.wave_size = 8, .groups = {8, 1, 1}, .buffers = bufs, .buffer_count = 2, .threads = threads,
                      .mem_trace = trace};
    sim_status st = sim_run(p, &cfg, r);
    isa_program_destroy(p);
    return st;
}

static sim_status run_race(uint32_t threads, uint32_t fault_from, uint32_t *out, size_t out_words, sim_result *r)
{
    return run_race_traced(threads, fault_from, out, out_words, r, NULL);
}

/* A sink that counts accesses and lanes, and how often it was restarted. */
typedef struct counting_sink {
    uint64_t accesses, lanes, restarts;
    uint32_t last_group;
    int out_of_order;
} counting_sink;

static void count_access(void *user, const sim_mem_access *a)
{
    counting_sink *c = user;
    if (c->accesses && a->group_linear < c->last_group)
        c->out_of_order = 1;
    c->last_group = a->group_linear;
    c->accesses++;
    for (uint32_t l = 0; l < a->wave_size; l++)
        c->lanes += (a->exec >> l) & 1;
}

static void count_restart(void *user)
{
    counting_sink *c = user;
    c->accesses = c->lanes = 0;
    c->last_group = 0;
    c->out_of_order = 0;
    c->restarts++;
}

/* The race makes the threaded traced run fall back: the sink is restarted once and then sees the one-thread trace. */
START_TEST(test_determinism_traced_dispatch_with_a_race_restarts_the_sink)
{
    enum { WORDS = 1 + 8 * 32 };
    static uint32_t one[WORDS], three[WORDS];
    counting_sink c1 = {0}, c3 = {0};
    sim_mem_trace t1 = {count_access, &c1, count_restart}, t3 = {count_access, &c3, count_restart};
    sim_result r1, r3;
    ck_assert_int_eq(run_race_traced(1, 100, one, WORDS, &r1, &t1), SIM_OK);
    ck_assert_int_eq(run_race_traced(3, 100, three, WORDS, &r3, &t3), SIM_OK);
    ck_assert_mem_eq(one, three, sizeof one);
    ck_assert_uint_eq(c1.restarts, 0);
    ck_assert_uint_eq(c3.restarts, 1);
    /* 8 workgroups of 4 waves of 8 lanes: the store to mine[] in every wave, `last` in wave 0 (one lane) */
    ck_assert_uint_eq(c1.accesses, 8 * 4 + 8);
    ck_assert_uint_eq(c1.lanes, 8 * 32 + 8);
    ck_assert_uint_eq(c3.accesses, c1.accesses);
    ck_assert_uint_eq(c3.lanes, c1.lanes);
    ck_assert(!c1.out_of_order && !c3.out_of_order);
    sim_result_free(&r1);
    sim_result_free(&r3);
}
END_TEST

START_TEST(test_determinism_threaded_dispatch_with_a_write_race_gives_the_linear_order)
{
    enum { WORDS = 1 + 8 * 32 };
    static uint32_t one[WORDS], three[WORDS];
    sim_result r1, r3;
    ck_assert_int_eq(run_race(1, 100, one, WORDS, &r1), SIM_OK);
    ck_assert_int_eq(run_race(3, 100, three, WORDS, &r3), SIM_OK);
    ck_assert_uint_eq(one[0], 7); /* the last workgroup in linear order wrote it last */
    ck_assert_uint_eq(three[0], 7);
    for (int i = 0; i < 8 * 32; i++)
        ck_assert_uint_eq(three[1 + i], (uint32_t)(i / 32 * 100 + i % 32));
    ck_assert_mem_eq(one, three, sizeof one);
    ck_assert_uint_eq(r1.stats.wave_instructions, r3.stats.wave_instructions);
    sim_result_free(&r1);
    sim_result_free(&r3);
}
END_TEST

START_TEST(test_determinism_threaded_dispatch_reports_the_first_fault_in_linear_order)
{
    enum { WORDS = 1 + 8 * 32 };
    static uint32_t one[WORDS], three[WORDS];
    sim_result r1, r3;
    ck_assert_int_eq(run_race(1, 5, one, WORDS, &r1), SIM_FAULT);
    ck_assert_int_eq(run_race(3, 5, three, WORDS, &r3), SIM_FAULT);
    ck_assert_int_eq(r1.fault, SIM_FAULT_OUT_OF_BOUNDS);
    ck_assert_int_eq(r3.fault, SIM_FAULT_OUT_OF_BOUNDS);
    ck_assert_uint_eq(r1.fault_event.where.group[0], 5);
    ck_assert_uint_eq(r3.fault_event.where.group[0], 5);
    ck_assert_int_eq(r3.fault_event.where.lane, r1.fault_event.where.lane);
    ck_assert_mem_eq(one, three, sizeof one); /* the buffers as the one-thread run left them at the fault */
    sim_result_free(&r1);
    sim_result_free(&r3);
}
END_TEST

/*
 * The fallback to one thread restores written buffers from the caller's
 * initial contents when given (sim_config.buffer_initial; run_case_sim passes
 * the case's bytes) instead of a snapshot copy.  Workgroup 0 spins, then
 * faults before writing: in the linear order nothing is written, while the
 * threaded run has other workgroups write meanwhile, which must be undone.
 */
static const char *slow_fault_kernel =
    "#version 450\n"
    "layout(local_size_x = 32) in;\n"
    "layout(set = 0, binding = 0) buffer Out { uint words[]; };\n"
    "layout(set = 0, binding = 1) buffer Bad { uint small[4]; };\n"
    "void main() {\n"
    "    uint g = gl_WorkGroupID.x;\n"
    "    if (g == 0u) {\n"
    "        uint x = 1u;\n"
    "        for (uint i = 0u; i < 100000u; i++) x = x * 1664525u + 1013904223u;\n"
    "        small[gl_LocalInvocationIndex + (x & 1u)] = 1u; /* out of bounds from lane 3 or 4 */\n"
    "    }\n"
    "    words[gl_GlobalInvocationID.x] = g * 100u + gl_LocalInvocationIndex;\n"
    "}\n";

START_TEST(test_determinism_threaded_fallback_restores_from_the_callers_initial_contents)
{
    enum { GROUPS = 64, WORDS = GROUPS * 32 };
    static uint32_t initial[WORDS], data[WORDS];
    for (int i = 0; i < WORDS; i++)
        initial[i] = 0xA5000000u + (uint32_t)i;
    isa_compile_options o = {.path = "slow_fault.comp", .source = slow_fault_kernel, .language = "glsl"};
    uint32_t *words = NULL;
    size_t n = 0;
    char err[2048] = "", warn[512] = "";
    ck_assert_msg(isa_compile(&o, &words, &n, err, sizeof err, warn, sizeof warn) == ISA_OK, "%s", err);
    isa_program *p = NULL;
    ck_assert_msg(isa_lower(words, n, "main", &p, err, sizeof err) == ISA_OK, "%s", err);
    free(words);
    for (uint32_t threads = 1; threads <= 3; threads += 2) {
        uint32_t small[4] = {0};
        memcpy(data, initial, sizeof data);
        sim_buffer bufs[2] = {{0, 0, (uint8_t *)data, sizeof data, 0}, {0, 1, (uint8_t *)small, sizeof small, 0}};
        const uint8_t *kept[2] = {(const uint8_t *)initial, NULL};
        sim_config cfg = {.wave_size = 8, .groups = {GROUPS, 1, 1}, .buffers = bufs, .buffer_count = 2,
                          .threads = threads, .buffer_initial = kept};
        sim_result r;
        ck_assert_int_eq(sim_run(p, &cfg, &r), SIM_FAULT);
        ck_assert_uint_eq(r.fault_event.where.group[0], 0);
        for (int i = 0; i < WORDS; i++)
            ck_assert_msg(data[i] == 0xA5000000u + (uint32_t)i, "%u threads: word %d is %#x", threads, i, data[i]);
        sim_result_free(&r);
    }
    for (int i = 0; i < WORDS; i++) /* the caller's copy is only read */
        ck_assert_uint_eq(initial[i], 0xA5000000u + (uint32_t)i);
    isa_program_destroy(p);
}
END_TEST

int main(void)
{
    const char *root = getenv("WAVELAB_ROOT");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/kernels", root ? root : ".");
    size_t listed = 0;
    case_paths = tsup_list_expect_cases(dir, &listed);
    case_count = (int)listed;
    Suite *s = suite_create("determinism");
    TCase *tc = tcase_create("runs");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_determinism_every_kernel_on_one_thread_matches_a_second_run);
    tcase_add_test(tc, test_determinism_every_kernel_on_three_threads_matches_one_thread);
    tcase_add_test(tc, test_determinism_every_kernel_on_three_dispatch_threads_matches_one);
    tcase_add_test(tc, test_determinism_threaded_dispatch_with_a_write_race_gives_the_linear_order);
    tcase_add_test(tc, test_determinism_threaded_dispatch_reports_the_first_fault_in_linear_order);
    tcase_add_test(tc, test_determinism_threaded_fallback_restores_from_the_callers_initial_contents);
    tcase_add_test(tc, test_determinism_memory_model_on_three_dispatch_threads_matches_one);
    tcase_add_test(tc, test_determinism_every_kernel_after_warmup_dispatches_matches_a_cold_run);
    tcase_add_test(tc, test_determinism_traced_dispatch_with_a_race_restarts_the_sink);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    tsup_free_list(case_paths, listed);
    return failed ? 1 : 0;
}
