/*
 * tests/test_dispatch.c — the memory model's dispatcher (sim/memmodel.c's launch and replay, the preset's
 * optional "dispatch" object in sim/machine.h): which workgroup lands on which CU, in which order, and how
 * long each one runs.  Placements are worked out by hand in the comments; the per-group pace is checked
 * against a reference written here from docs/memory.md's definition, not read back from the model.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/machine.h"
#include "sim/memmodel.h"
#include "tests/support/tsup.h"

/* tsup_preset's tiny machine with `cus` CUs holding `per_cu` one-wave groups of 4 lanes each; `dispatch` is the
 * preset's "dispatch" value (JSON text) or NULL, with its source or without. */
static mem_status parse_tiny(uint32_t cus, uint32_t per_cu, const char *dispatch, int with_source, mem_machine *m,
                             char *err, size_t err_size)
{
    char text[4096];
    tsup_preset(text, sizeof text, "compute_units=%u\nmax_waves_per_simd=%u\nmax_workgroups_per_cu=%u\n%s%s\n%s", cus,
                per_cu, per_cu, dispatch ? "dispatch=" : "", dispatch ? dispatch : "",
                with_source ? "" : "-sources.dispatch");
    return mem_machine_parse(text, "tiny.json", m, err, err_size);
}

static mem_machine tiny(uint32_t cus, uint32_t per_cu, const char *dispatch)
{
    mem_machine m;
    char err[512];
    ck_assert_msg(parse_tiny(cus, per_cu, dispatch, 1, &m, err, sizeof err) == MEM_OK, "%s", err);
    return m;
}

/* Group `group` makes `n` memory instructions (the replay issues one per step), each reading one line, or four
 * (one per lane: four L2 requests) where bit k of `wide` is set; no group reads another's lines. */
static void feed_group(mem_model *mm, uint32_t group, uint32_t n, uint32_t wide)
{
    const sim_mem_trace *t = mem_model_trace(mm);
    for (uint32_t k = 0; k < n; k++) {
        const uint64_t lane = k < 32 && (wide >> k & 1) ? 16 : 4;
        uint64_t base = 4096ull * group + 64ull * k, addr[4] = {base, base + lane, base + 2 * lane, base + 3 * lane};
        sim_mem_access a = {.group_linear = group, .wave = 0, .pc = k % 4, .op = ISA_OP_LOAD,
                            .cls = ISA_CLASS_VMEM, .space = ISA_SPACE_STORAGE, .elem_bytes = 4, .count = 1,
                            .wave_size = 4, .exec = 0xf, .addr = addr};
        t->access(t->user, &a);
    }
}

static mem_model *run_groups_wide(const mem_machine *m, tsup_fake_program *f, uint32_t groups,
                                  const uint32_t *lines, int threads, uint32_t wide)
{
    mem_model *mm;
    mem_model_options o = {.machine = m, .threads = threads};
    ck_assert_int_eq(mem_model_create(&o, &mm), MEM_OK);
    char err[256];
    uint32_t g3[3] = {groups, 1, 1};
    ck_assert_msg(mem_model_begin(mm, &f->p, g3, 4, err, sizeof err) == MEM_OK, "%s", err);
    for (uint32_t g = 0; g < groups; g++)
        feed_group(mm, g, lines[g], wide);
    mem_model_end(mm, NULL);
    return mm;
}

static mem_model *run_groups(const mem_machine *m, tsup_fake_program *f, uint32_t groups, const uint32_t *lines,
                             int threads)
{
    return run_groups_wide(m, f, groups, lines, threads, 0);
}

START_TEST(test_dispatch_clusters_strided_fill_and_refill_by_hand)
{
    /* 8 CUs in clusters of 2 (4 clusters), stride 2: clusters 0, 2, 1, 3, so the CU order is
     * 0 1 4 5 2 3 6 7.  One group per CU; group g reads 1 + g % 3 lines (one per step).
     *   step 0: groups 0-7 launch on CUs 0 1 4 5 2 3 6 7; groups 0, 3, 6 (one line) end.
     *   step 1: free CUs 0, 5, 6; the order resumes at its start (after CU 7): group 8 -> CU 0, then
     *           CU 1 and 4 are busy, group 9 -> CU 5, group 10 -> CU 6.  Groups 1, 4, 7 and 9 end.
     *   step 2: the order resumes after CU 6: group 11 -> CU 7.  Groups 2, 5 and 10 end.
     *   step 3: group 8 (3 lines from step 1) ends; step 4: group 11 (3 lines from step 2) ends. */
    mem_machine m = tiny(8, 1, "{\"cus_per_cluster\": 2, \"cluster_stride\": 2}");
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    uint32_t lines[12];
    for (uint32_t g = 0; g < 12; g++)
        lines[g] = 1 + g % 3;
    mem_model *mm = run_groups(&m, &f, 12, lines, 1);
    static const uint32_t cu[12] = {0, 1, 4, 5, 2, 3, 6, 7, 0, 5, 6, 7};
    static const uint32_t launch[12] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2};
    static const uint32_t end[12] = {0, 1, 2, 0, 1, 2, 0, 1, 3, 1, 2, 4};
    uint32_t n;
    const mem_group_stats *gs = mem_model_group_stats(mm, &n, NULL);
    ck_assert_uint_eq(n, 12);
    for (uint32_t g = 0; g < 12; g++) {
        ck_assert_msg(gs[g].cu == cu[g] && gs[g].launch_step == launch[g] && gs[g].end_step == end[g],
                      "group %u: cu %u launch %u end %u; expected cu %u launch %u end %u", g, gs[g].cu,
                      gs[g].launch_step, gs[g].end_step, cu[g], launch[g], end[g]);
        ck_assert_uint_eq(gs[g].launch_order, g);
    }
    ck_assert_uint_eq(mem_model_stats(mm)->replay_steps, 5);
    mem_model_destroy(mm);
}
END_TEST

START_TEST(test_dispatch_queue_serves_few_cus_in_turn_by_hand)
{
    /* 4 CUs of 3 slots, queue_clusters 2 (clusters of one CU), lock step.  The first fill (12 groups, every
     * slot) goes round the CUs as without a queue: group g -> CU g % 4, rr = 0 after it.  Groups 0, 4 (CU 0),
     * 6 (CU 2) and 7 (CU 3) read one line and end at step 0; the rest of the first 12 read two (end at step 1).
     * Step 1, with the queue: it takes CU 0 (two free slots) and, CU 1 being full, CU 2 (rr -> 3):
     * g12 -> CU 0 (not full: stays), g13 -> CU 2 (full: leaves); it takes CU 3 (rr -> 0): g14 -> CU 0 (full:
     * leaves), g15 -> CU 3.  Without it, one group per free CU per pass from rr = 0: CUs 0, 2, 3, 0.
     * Groups 12-15 read one line and end at step 1. */
    static const uint32_t lines[16] = {1, 2, 2, 2, 1, 2, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1};
    static const uint32_t cu_queue[16] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 2, 0, 3};
    static const uint32_t cu_plain[16] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 2, 3, 0};
    static const uint32_t end[16] = {0, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
    for (int queued = 0; queued < 2; queued++) {
        mem_machine m = tiny(4, 3, queued ? "{\"queue_clusters\": 2}" : NULL);
        ck_assert_uint_eq(m.dispatch.queue_clusters, queued ? 2 : 0);
        tsup_fake_program f;
        tsup_fake_program_init(&f);
        mem_model *mm = run_groups(&m, &f, 16, lines, 1);
        uint32_t n;
        const mem_group_stats *gs = mem_model_group_stats(mm, &n, NULL);
        ck_assert_uint_eq(n, 16);
        for (uint32_t g = 0; g < 16; g++) {
            uint32_t cu = queued ? cu_queue[g] : cu_plain[g];
            ck_assert_msg(gs[g].cu == cu && gs[g].launch_step == (g >= 12) && gs[g].end_step == end[g],
                          "queue %d, group %u: cu %u launch %u end %u; expected cu %u launch %u end %u", queued, g,
                          gs[g].cu, gs[g].launch_step, gs[g].end_step, cu, g >= 12, end[g]);
        }
        ck_assert_uint_eq(mem_model_stats(mm)->replay_steps, 2);
        mem_model_destroy(mm);
    }
}
END_TEST

START_TEST(test_dispatch_queue_serves_a_cluster_until_full_its_cus_in_turn_by_hand)
{
    /* 4 CUs of 2 slots in clusters of 2 (cluster 0: CUs 0, 1; cluster 1: CUs 2, 3), queue_clusters 1.  The first
     * fill: group g -> CU g % 4 (rr = 0 after it).  Groups 0, 4 (CU 0), 1 (CU 1) and 2 (CU 2) read one line and
     * end at step 0, groups 3, 5, 6, 7 two (end at step 1).  Step 1, with the queue: it takes cluster 0 at CU 0
     * (rr -> 1), whose CUs take turns from CU 0: g8 -> CU 0, g9 -> CU 1, g10 -> CU 0 (the cluster is full and
     * leaves); the scan from rr = 1 passes CU 1 (cluster 0) and takes cluster 1 at CU 2 (rr -> 3): g11 -> CU 2.
     * Without it: CUs 0, 1, 2, 0.  Groups 8-11 read one line and end at step 1. */
    static const uint32_t lines[12] = {1, 1, 1, 2, 1, 2, 2, 2, 1, 1, 1, 1};
    static const uint32_t cu_queue[12] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 0, 2};
    static const uint32_t cu_plain[12] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 0};
    static const uint32_t end[12] = {0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1};
    for (int queued = 0; queued < 2; queued++) {
        mem_machine m = tiny(4, 2, queued ? "{\"cus_per_cluster\": 2, \"queue_clusters\": 1}"
                                          : "{\"cus_per_cluster\": 2}");
        tsup_fake_program f;
        tsup_fake_program_init(&f);
        mem_model *mm = run_groups(&m, &f, 12, lines, 1);
        uint32_t n;
        const mem_group_stats *gs = mem_model_group_stats(mm, &n, NULL);
        ck_assert_uint_eq(n, 12);
        for (uint32_t g = 0; g < 12; g++) {
            uint32_t cu = queued ? cu_queue[g] : cu_plain[g];
            ck_assert_msg(gs[g].cu == cu && gs[g].launch_step == (g >= 8) && gs[g].end_step == end[g],
                          "queue %d, group %u: cu %u launch %u end %u; expected cu %u launch %u end %u", queued, g,
                          gs[g].cu, gs[g].launch_step, gs[g].end_step, cu, g >= 8, end[g]);
        }
        ck_assert_uint_eq(mem_model_stats(mm)->replay_steps, 2);
        mem_model_destroy(mm);
    }
}
END_TEST

START_TEST(test_dispatch_absent_is_round_robin_lock_step)
{
    /* Without "dispatch": CUs in index order, every group issues each step.  3 CUs, 2 groups per CU, 6
     * groups of 2 lines: groups 0-5 launch at step 0 on CUs 0 1 2 0 1 2 and all end at step 1. */
    mem_machine m = tiny(3, 2, NULL);
    ck_assert_uint_eq(m.dispatch.cus_per_cluster, 1);
    ck_assert_uint_eq(m.dispatch.cluster_stride, 1);
    ck_assert(m.dispatch.duration_spread == 0);
    ck_assert_uint_eq(m.dispatch.queue_clusters, 0);
    ck_assert(m.dispatch.l2_requests_per_step == 0);
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    static const uint32_t lines[6] = {2, 2, 2, 2, 2, 2};
    mem_model *mm = run_groups(&m, &f, 6, lines, 1);
    uint32_t n;
    const mem_group_stats *gs = mem_model_group_stats(mm, &n, NULL);
    for (uint32_t g = 0; g < 6; g++) {
        ck_assert_uint_eq(gs[g].cu, g % 3);
        ck_assert_uint_eq(gs[g].launch_step, 0);
        ck_assert_uint_eq(gs[g].end_step, 1);
    }
    mem_model_destroy(mm);
}
END_TEST

/* Reference for the pace (docs/memory.md): h(g) = splitmix64's finaliser of g + 0x9e3779b97f4a7c15, top 53
 * bits / 2^53; the group gains floor(65536 / (1 + spread * h)) credit per step and issues one instruction per
 * wave on each step its credit reaches 65536 (then loses 65536).  Returns the step of its n-th instruction,
 * counted from its launch step. */
static uint32_t reference_last_step(double spread, uint32_t g, uint32_t n)
{
    uint64_t z = (uint64_t)g + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    double h = (double)(z >> 11) / 9007199254740992.0;
    uint32_t pace = (uint32_t)(65536.0 / (1.0 + spread * h)), credit = 0, issued = 0, step = 0;
    for (;; step++) {
        credit += pace;
        if (credit >= 65536) {
            credit -= 65536;
            if (++issued == n)
                return step;
        }
    }
}

START_TEST(test_dispatch_duration_spread_stretches_each_group_by_its_hash)
{
    /* One CU, one group at a time: group g launches the step after group g - 1 ends, and takes the steps
     * the reference gives; with spread 1 each group needs between n and 2n steps for its n lines. */
    mem_machine m = tiny(1, 1, "{\"duration_spread\": 1}");
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    enum { G = 16, LINES = 10 };
    uint32_t lines[G];
    for (uint32_t g = 0; g < G; g++)
        lines[g] = LINES;
    mem_model *mm = run_groups(&m, &f, G, lines, 1);
    uint32_t n, launch = 0, longer = 0;
    const mem_group_stats *gs = mem_model_group_stats(mm, &n, NULL);
    for (uint32_t g = 0; g < G; g++) {
        uint32_t last = reference_last_step(1.0, g, LINES);
        ck_assert_uint_eq(gs[g].launch_step, launch);
        ck_assert_msg(gs[g].end_step == launch + last, "group %u: end %u, reference %u", g, gs[g].end_step,
                      launch + last);
        ck_assert(last + 1 >= LINES && last + 1 <= 2 * LINES);
        longer += last + 1 > LINES;
        launch = gs[g].end_step + 1;
    }
    ck_assert_uint_gt(longer, G / 2); /* the hash spreads: most groups are slower than lock step */
    mem_model_destroy(mm);
}
END_TEST

START_TEST(test_dispatch_cu_budget_lets_groups_take_turns_by_hand)
{
    /* One CU of 3 slots sending at most 2 L2 requests a step; every instruction reads one line (one request).
     * Groups 0-2 read 2 lines, group 3 one.  Each step the CU's allowance is 2 and its groups are visited from
     * (step mod n):
     *   step 0: residents g0 g1 g2, from 0: g0, g1 issue; the allowance is spent, g2 waits.
     *   step 1: from 1: g1 (its last: ends), g2 issue; g0 waits.
     *   step 2: g3 launches into g1's slot (residents g0 g2 g3), from 2: g3 (ends), g0 (ends) issue; g2 waits.
     *   step 3: g2 alone (its last: ends).  Four steps, where lock step takes three (groups 0-2 end at step 1). */
    mem_machine m = tiny(1, 3, "{\"l2_requests_per_step\": 2}");
    ck_assert(m.dispatch.l2_requests_per_step == 2);
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    static const uint32_t lines[4] = {2, 2, 2, 1};
    mem_model *mm = run_groups(&m, &f, 4, lines, 1);
    static const uint32_t launch[4] = {0, 0, 0, 2}, end[4] = {2, 1, 3, 2};
    uint32_t n;
    const mem_group_stats *gs = mem_model_group_stats(mm, &n, NULL);
    ck_assert_uint_eq(n, 4);
    for (uint32_t g = 0; g < 4; g++)
        ck_assert_msg(gs[g].launch_step == launch[g] && gs[g].end_step == end[g],
                      "group %u: launch %u end %u; expected launch %u end %u", g, gs[g].launch_step, gs[g].end_step,
                      launch[g], end[g]);
    ck_assert_uint_eq(mem_model_stats(mm)->replay_steps, 4);
    ck_assert_uint_eq(mem_model_stats(mm)->l2_requests, 7);
    mem_model_destroy(mm);
}
END_TEST

START_TEST(test_dispatch_cu_budget_overdrawn_by_a_wide_instruction_waits_by_hand)
{
    /* One group of three instructions, each reading four lines (four requests), on a CU allowed 2 a step: an
     * instruction issues on a full allowance and overdraws it to -2; the next step's allowance is 0 (nothing
     * issues), the one after 2 again.  So the instructions issue at steps 0, 2 and 4.
     * Then one reading 1, 4 and 1 lines: step 0 leaves 1 unused, which is not kept (step 1's allowance is 2, not
     * 3), so the wide one overdraws to -2, step 2 has 0 and the last instruction issues at step 3. */
    mem_machine m = tiny(1, 1, "{\"l2_requests_per_step\": 2}");
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    static const uint32_t lines[1] = {3};
    mem_model *mm = run_groups_wide(&m, &f, 1, lines, 1, 0x7);
    uint32_t n;
    const mem_group_stats *gs = mem_model_group_stats(mm, &n, NULL);
    ck_assert_uint_eq(gs[0].end_step, 4);
    ck_assert_uint_eq(mem_model_stats(mm)->replay_steps, 5);
    ck_assert_uint_eq(mem_model_stats(mm)->l2_requests, 12);
    mem_model_destroy(mm);
    mm = run_groups_wide(&m, &f, 1, lines, 1, 0x2);
    gs = mem_model_group_stats(mm, &n, NULL);
    ck_assert_uint_eq(gs[0].end_step, 3);
    ck_assert_uint_eq(mem_model_stats(mm)->l2_requests, 6);
    mem_model_destroy(mm);
}
END_TEST

START_TEST(test_dispatch_spread_identical_at_one_and_two_threads)
{
    mem_machine m = tiny(6, 3, "{\"cus_per_cluster\": 2, \"cluster_stride\": 3, "
                               "\"duration_spread\": 0.5, \"queue_clusters\": 2, \"l2_requests_per_step\": 3}");
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    enum { G = 400 };
    static uint32_t lines[G];
    for (uint32_t g = 0; g < G; g++)
        lines[g] = 1 + (g * 7) % 5;
    mem_model *a = run_groups(&m, &f, G, lines, 1), *b = run_groups(&m, &f, G, lines, 2);
    uint32_t n;
    ck_assert_int_eq(memcmp(mem_model_stats(a), mem_model_stats(b), sizeof(mem_stats)), 0);
    ck_assert_int_eq(memcmp(mem_model_group_stats(a, &n, NULL), mem_model_group_stats(b, &n, NULL),
                            G * sizeof(mem_group_stats)),
                     0);
    mem_model_destroy(a);
    mem_model_destroy(b);
}
END_TEST

START_TEST(test_dispatch_malformed_field_is_named)
{
    static const struct {
        const char *dispatch;
        int with_source;
        const char *message;
    } bad[] = {
        {"{\"cus_per_cluster\": 3}", 1,
         "tiny.json: field 'dispatch.cus_per_cluster': does not divide compute_units"},
        {"{\"cluster_stride\": 9}", 1,
         "tiny.json: field 'dispatch.cluster_stride': larger than the number of clusters"},
        {"{\"duration_spread\": -1}", 1,
         "tiny.json: field 'dispatch.duration_spread': not a number from 0 to 15"},
        {"{\"spread\": 1}", 1,
         "tiny.json: field 'dispatch.spread': unknown (cus_per_cluster, cluster_stride, duration_spread, "
         "queue_clusters, l2_requests_per_step)"},
        {"{\"l2_requests_per_step\": 0.5}", 1,
         "tiny.json: field 'dispatch.l2_requests_per_step': not 0 or a number from 1 to 1e9"},
        {"{\"l2_requests_per_step\": \"many\"}", 1,
         "tiny.json: field 'dispatch.l2_requests_per_step': not 0 or a number from 1 to 1e9"},
        {"{\"queue_clusters\": 9}", 1,
         "tiny.json: field 'dispatch.queue_clusters': 9 is out of range 0..8"},
        {"{\"cus_per_cluster\": 2, \"queue_clusters\": 5}", 1,
         "tiny.json: field 'dispatch.queue_clusters': 5 is out of range 0..4"},
        {"{\"queue_clusters\": 1.5}", 1,
         "tiny.json: field 'dispatch.queue_clusters': not a non-negative integer"},
        /* negative and infinite values are refused before any conversion (UBSan would catch one) */
        {"{\"queue_clusters\": -1}", 1,
         "tiny.json: field 'dispatch.queue_clusters': not a non-negative integer"},
        {"{\"queue_clusters\": 1e309}", 1,
         "tiny.json: field 'dispatch.queue_clusters': not a non-negative integer"},
        {"2", 1, "tiny.json: field 'dispatch': not an object"},
        {"{\"duration_spread\": 1}", 0,
         "tiny.json: field 'sources.dispatch': missing: say where the numbers come from"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mem_machine m;
        char err[512] = "";
        ck_assert_int_eq(parse_tiny(8, 1, bad[i].dispatch, bad[i].with_source, &m, err, sizeof err),
                         MEM_ERR_PRESET);
        ck_assert_str_eq(err, bad[i].message);
    }
}
END_TEST

static Suite *dispatch_suite(void)
{
    Suite *s = suite_create("dispatch");
    TCase *t = tcase_create("dispatch");
    tcase_add_test(t, test_dispatch_clusters_strided_fill_and_refill_by_hand);
    tcase_add_test(t, test_dispatch_queue_serves_few_cus_in_turn_by_hand);
    tcase_add_test(t, test_dispatch_queue_serves_a_cluster_until_full_its_cus_in_turn_by_hand);
    tcase_add_test(t, test_dispatch_absent_is_round_robin_lock_step);
    tcase_add_test(t, test_dispatch_duration_spread_stretches_each_group_by_its_hash);
    tcase_add_test(t, test_dispatch_cu_budget_lets_groups_take_turns_by_hand);
    tcase_add_test(t, test_dispatch_cu_budget_overdrawn_by_a_wide_instruction_waits_by_hand);
    tcase_add_test(t, test_dispatch_spread_identical_at_one_and_two_threads);
    tcase_add_test(t, test_dispatch_malformed_field_is_named);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return tsup_run_suite(dispatch_suite(), "test_dispatch") ? EXIT_FAILURE : EXIT_SUCCESS;
}
