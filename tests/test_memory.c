/*
 * tests/test_memory.c — the memory model (sim/memmodel.h, sim/machine.h):
 * LDS bank passes, the caches, launch order and residency, the presets and
 * their loader, determinism across runs and host threads, and one real kernel
 * pair (article 002) end to end.  Every expected number is computed here by
 * hand or by a small reference loop, never by the model.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "case/case.h"
#include "run/run.h"
#include "sim/machine.h"
#include "sim/memmodel.h"
#include "tests/support/tsup.h"

static mem_machine load_preset(const char *name)
{
    mem_machine m;
    char err[1024];
    mem_status st = mem_machine_load(name, &m, err, sizeof err);
    ck_assert_msg(st == MEM_OK, "%s", err);
    return m;
}

static uint32_t gcd(uint32_t a, uint32_t b) { return b ? gcd(b, a % b) : a; }

/* ------------------------------------------------------------ LDS */

/* Reference: lane l reads word l * stride; in each group of 32 lanes the 32
 * words fall in 32 / gcd(stride, 32) banks, gcd(stride, 32) distinct words each. */
static void check_strides(const char *preset, uint32_t wave)
{
    mem_machine m = load_preset(preset);
    ck_assert_uint_eq(m.lds_banks, 32);
    ck_assert_uint_eq(m.lds_lanes_per_cycle, 32);
    static const uint32_t strides[] = {1, 2, 4, 8, 16, 32, 33};
    for (size_t i = 0; i < sizeof strides / sizeof strides[0]; i++) {
        uint64_t addr[64];
        for (uint32_t l = 0; l < wave; l++)
            addr[l] = (uint64_t)l * strides[i] * 4;
        uint32_t ideal, worst;
        uint64_t exec = wave == 64 ? ~0ull : (1ull << wave) - 1;
        uint32_t cycles = mem_lds_cycles(&m, wave, exec, addr, 4, &ideal, &worst);
        uint32_t degree = gcd(strides[i], 32), groups = wave / 32;
        ck_assert_msg(worst == degree, "%s wave %u stride %u: degree %u, expected %u", preset, wave, strides[i], worst,
                      degree);
        ck_assert_uint_eq(ideal, groups);
        ck_assert_uint_eq(cycles, degree * groups);
    }
}

START_TEST(test_lds_strides_wave32_rdna2_conflict_degree_is_gcd)
{
    check_strides("rdna2", 32);
}
END_TEST

START_TEST(test_lds_strides_wave64_rdna2_served_in_halves)
{
    check_strides("rdna2", 64);
}
END_TEST

START_TEST(test_lds_strides_wave64_gcn_served_in_halves)
{
    check_strides("gcn_vega64", 64);
}
END_TEST

START_TEST(test_lds_strides_wave32_turing_conflict_degree_is_gcd)
{
    check_strides("turing_rtx2080", 32);
}
END_TEST

START_TEST(test_lds_same_address_broadcast_costs_one_pass)
{
    mem_machine m = load_preset("gcn_vega64");
    uint64_t addr[64];
    for (uint32_t l = 0; l < 64; l++)
        addr[l] = 4 * 17; /* every lane the same word */
    uint32_t ideal, worst;
    ck_assert_uint_eq(mem_lds_cycles(&m, 64, ~0ull, addr, 4, &ideal, &worst), 2); /* two halves, one pass each */
    ck_assert_uint_eq(worst, 1);
    /* 16-bit lanes: two lanes share each word -> 16 words in 16 banks, one pass */
    for (uint32_t l = 0; l < 32; l++)
        addr[l] = 2 * l;
    ck_assert_uint_eq(mem_lds_cycles(&m, 32, 0xffffffffull, addr, 2, &ideal, &worst), 1);
    /* inactive lanes do not count: only lanes 0 and 32 active, words 0 and 32 (same bank, different halves) */
    for (uint32_t l = 0; l < 64; l++)
        addr[l] = 4ull * 32 * (l / 32);
    ck_assert_uint_eq(mem_lds_cycles(&m, 64, 1ull | 1ull << 32, addr, 4, &ideal, &worst), 2);
    ck_assert_uint_eq(worst, 1);
}
END_TEST

START_TEST(test_lds_64bit_access_served_in_half_groups)
{
    mem_machine m = load_preset("rdna2");
    uint64_t addr[32];
    uint32_t ideal, worst;
    /* consecutive uint2: lanes of a 16-lane group cover 32 consecutive words -> one pass each */
    for (uint32_t l = 0; l < 32; l++)
        addr[l] = 8ull * l;
    ck_assert_uint_eq(mem_lds_cycles(&m, 32, 0xffffffffull, addr, 8, &ideal, &worst), 2);
    ck_assert_uint_eq(ideal, 2);
    /* uint2 with a 64-word row stride: the 16 lanes of a group all start in bank 0 -> 16 passes */
    for (uint32_t l = 0; l < 32; l++)
        addr[l] = 256ull * l;
    ck_assert_uint_eq(mem_lds_cycles(&m, 32, 0xffffffffull, addr, 8, &ideal, &worst), 32);
    ck_assert_uint_eq(worst, 16);
}
END_TEST

/* ------------------------------------------------------------ caches */

START_TEST(test_cache_direct_mapped_hand_traced_sequence)
{
    /* 4 lines of 16 bytes, direct mapped: set = (address / 16) % 4 */
    mem_cache_geometry g = {.bytes = 64, .ways = 1, .line_bytes = 16, .sector_bytes = 16};
    mem_cache *c = mem_cache_create(&g);
    ck_assert_ptr_nonnull(c);
    static const uint64_t seq[] = {0, 16, 0, 64, 0, 80, 16, 4, 128, 64};
    static const int hit[] = {0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    for (int i = 0; i < 10; i++)
        ck_assert_msg(mem_cache_access(c, seq[i], 0) == hit[i], "access %d (address %llu)", i,
                      (unsigned long long)seq[i]);
    mem_cache_destroy(c);
}
END_TEST

START_TEST(test_cache_lru_two_way_keeps_recent_line)
{
    /* one set, two ways: A B A C -> C evicts B (least recent); then A hits, B misses */
    mem_cache_geometry g = {.bytes = 128, .ways = 2, .line_bytes = 64, .sector_bytes = 64};
    mem_cache *c = mem_cache_create(&g);
    ck_assert_int_eq(mem_cache_access(c, 0, 0), 0);
    ck_assert_int_eq(mem_cache_access(c, 64, 0), 0);
    ck_assert_int_eq(mem_cache_access(c, 0, 0), 1);
    ck_assert_int_eq(mem_cache_access(c, 128, 0), 0);
    ck_assert_int_eq(mem_cache_access(c, 0, 0), 1);
    ck_assert_int_eq(mem_cache_access(c, 64, 0), 0);
    mem_cache_destroy(c);
}
END_TEST

/* ------------------------------------------------------------ the model on synthetic traces */

static mem_machine tiny_machine(uint32_t cus, uint32_t per_cu, uint32_t l2_bytes, uint32_t ways)
{
    char text[4096], err[512];
    tsup_preset(text, sizeof text, "compute_units=%u\nmax_waves_per_simd=%u\nmax_workgroups_per_cu=%u\nl2.bytes=%u\n"
                "l2.ways=%u", cus, per_cu, per_cu, l2_bytes, ways);
    mem_machine m;
    ck_assert_msg(mem_machine_parse(text, "tiny.json", &m, err, sizeof err) == MEM_OK, "%s", err);
    return m;
}

/* Wave 0 of `group` reads 4 consecutive u32 (one 16-byte line) at byte `address`. */
static void feed_read(mem_model *mm, uint32_t group, uint32_t pc, uint64_t address)
{
    uint64_t addr[4] = {address, address + 4, address + 8, address + 12};
    sim_mem_access a = {.group_linear = group, .wave = 0, .pc = pc, .op = ISA_OP_LOAD, .cls = ISA_CLASS_VMEM,
                        .space = ISA_SPACE_STORAGE, .elem_bytes = 4, .count = 1, .wave_size = 4, .exec = 0xf,
                        .addr = addr};
    const sim_mem_trace *t = mem_model_trace(mm);
    t->access(t->user, &a);
}

static mem_model *begin(const mem_machine *m, tsup_fake_program *f, uint32_t groups, int threads, const uint32_t *order)
{
    mem_model *mm;
    mem_model_options o = {.machine = m, .threads = threads, .launch_order = order,
                           .launch_order_count = order ? groups : 0};
    ck_assert_int_eq(mem_model_create(&o, &mm), MEM_OK);
    char err[256];
    uint32_t g3[3] = {groups, 1, 1};
    ck_assert_msg(mem_model_begin(mm, &f->p, g3, 4, err, sizeof err) == MEM_OK, "%s", err);
    return mm;
}

START_TEST(test_l2_buffer_that_fits_read_twice_hits_every_second_read)
{
    mem_machine m = tiny_machine(1, 1, 1024, 4); /* 64 lines */
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    mem_model *mm = begin(&m, &f, 1, 1, NULL);
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t a = 0; a < 512; a += 16) /* 32 lines: half the L2 */
            feed_read(mm, 0, (uint32_t)pass, a);
    mem_model_end(mm, NULL);
    const mem_stats *s = mem_model_stats(mm);
    ck_assert_uint_eq(s->l2_read_misses, 32);
    ck_assert_uint_eq(s->l2_read_hits, 32);
    uint32_t n;
    const mem_inst_stats *is = mem_model_inst_stats(mm, &n);
    ck_assert_uint_eq(is[0].l2_misses, 32); /* first read: all misses */
    ck_assert_uint_eq(is[1].l2_hits, 32);   /* second read: all hits */
    ck_assert_uint_eq(s->dram_bytes_read, 512);
    mem_model_destroy(mm);
}
END_TEST

START_TEST(test_l2_buffer_twice_the_size_read_twice_misses_both_with_lru)
{
    mem_machine m = tiny_machine(1, 1, 1024, 4);
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    mem_model *mm = begin(&m, &f, 1, 1, NULL);
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t a = 0; a < 2048; a += 16) /* 128 lines: twice the L2 */
            feed_read(mm, 0, (uint32_t)pass, a);
    mem_model_end(mm, NULL);
    const mem_stats *s = mem_model_stats(mm);
    ck_assert_uint_eq(s->l2_read_hits, 0);
    ck_assert_uint_eq(s->l2_read_misses, 256);
    ck_assert_uint_eq(s->l2_evictions, 256 - 64);
    mem_model_destroy(mm);
}
END_TEST

START_TEST(test_launch_round_robin_and_residency_by_hand)
{
    /* 2 CUs, 1 workgroup per CU; group g reads g + 1 lines: groups 0 and 1 launch
     * at step 0 on CUs 0 and 1; group 0 ends after step 0, group 2 launches at
     * step 1 on CU 0 (the next CU with a free slot after CU 1); group 1 ends
     * after step 1, group 3 launches at step 2 on CU 1. */
    mem_machine m = tiny_machine(2, 1, 1024, 4);
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    mem_model *mm = begin(&m, &f, 4, 1, NULL);
    for (uint32_t g = 0; g < 4; g++)
        for (uint32_t k = 0; k <= g; k++)
            feed_read(mm, g, 0, 4096ull * g + 16 * k);
    mem_model_end(mm, NULL);
    uint32_t n;
    const mem_group_stats *gs = mem_model_group_stats(mm, &n, NULL);
    ck_assert_uint_eq(n, 4);
    static const uint32_t cu[4] = {0, 1, 0, 1}, launch[4] = {0, 0, 1, 2}, end[4] = {0, 1, 3, 5};
    for (uint32_t g = 0; g < 4; g++) {
        ck_assert_msg(gs[g].cu == cu[g] && gs[g].launch_step == launch[g] && gs[g].end_step == end[g],
                      "group %u: cu %u launch %u end %u", g, gs[g].cu, gs[g].launch_step, gs[g].end_step);
    }
    ck_assert_uint_eq(mem_model_stats(mm)->replay_steps, 6);
    mem_model_destroy(mm);
}
END_TEST

START_TEST(test_launch_order_decides_what_shares_the_l2)
{
    /* 4 groups on 1 CU, one at a time; groups 0 and 2 read line A, 1 and 3 read
     * line B; a direct-mapped 1-line L2: linear order A B A B misses 4 times,
     * the order 0 2 1 3 (A A B B) hits twice. */
    mem_machine m = tiny_machine(1, 1, 16, 1);
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    static const uint32_t order[4] = {0, 2, 1, 3};
    for (int variant = 0; variant < 2; variant++) {
        mem_model *mm = begin(&m, &f, 4, 1, variant ? order : NULL);
        for (uint32_t g = 0; g < 4; g++)
            feed_read(mm, g, 0, g % 2 ? 4096 : 0);
        mem_model_end(mm, NULL);
        ck_assert_uint_eq(mem_model_stats(mm)->l2_read_hits, variant ? 2 : 0);
        mem_model_destroy(mm);
    }
}
END_TEST

/* A pseudo-random trace over many groups: the same statistics at 1 and 2 threads and across runs. */
static void random_trace(int threads, mem_stats *out, mem_group_stats *groups_out)
{
    mem_machine m = tiny_machine(3, 2, 512, 2);
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    mem_model *mm = begin(&m, &f, 300, threads, NULL);
    uint32_t x = 12345;
    for (uint32_t g = 0; g < 300; g++) {
        uint32_t n = g % 7;
        for (uint32_t k = 0; k < n; k++) {
            x = x * 1664525u + 1013904223u;
            feed_read(mm, g, k % 4, (uint64_t)(x >> 26) * 16);
        }
    }
    mem_model_end(mm, NULL);
    *out = *mem_model_stats(mm);
    uint32_t n;
    memcpy(groups_out, mem_model_group_stats(mm, &n, NULL), 300 * sizeof *groups_out);
    mem_model_destroy(mm);
}

START_TEST(test_replay_identical_at_one_and_two_threads_and_across_runs)
{
    static mem_stats s[3];
    static mem_group_stats g[3][300];
    random_trace(1, &s[0], g[0]);
    random_trace(2, &s[1], g[1]);
    random_trace(1, &s[2], g[2]);
    ck_assert(s[0].l2_read_hits > 0 && s[0].l2_read_misses > 0);
    ck_assert_int_eq(memcmp(&s[0], &s[1], sizeof s[0]), 0);
    ck_assert_int_eq(memcmp(&s[0], &s[2], sizeof s[0]), 0);
    ck_assert_int_eq(memcmp(g[0], g[1], sizeof g[0]), 0);
    ck_assert_int_eq(memcmp(g[0], g[2], sizeof g[0]), 0);
}
END_TEST

/* ------------------------------------------------------------ presets */

START_TEST(test_presets_all_load_with_sources)
{
    static const char *names[] = {"gcn_vega64", "rdna2", "turing_rtx2080", "hopper_h100", "lavapipe"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        mem_machine m = load_preset(names[i]);
        ck_assert_str_eq(m.name, names[i]);
    }
    mem_machine h = load_preset("hopper_h100");
    ck_assert_uint_eq(h.compute_units, 132);
    ck_assert_uint_eq(h.max_sgprs_per_wave, 0);
    ck_assert_uint_eq(load_preset("lavapipe").wave_sizes[0], 8);
}
END_TEST

START_TEST(test_preset_malformed_field_is_named)
{
    char text[4096], err[512];
    mem_machine m;
    tsup_preset(text, sizeof text, "lds_banks=0");
    ck_assert_int_eq(mem_machine_parse(text, "bad.json", &m, err, sizeof err), MEM_ERR_PRESET);
    ck_assert_msg(strstr(err, "bad.json") && strstr(err, "lds_banks"), "%s", err);
    tsup_preset(text, sizeof text, "l2.bytes=1000"); /* not a multiple of ways * line */
    ck_assert_int_eq(mem_machine_parse(text, "bad.json", &m, err, sizeof err), MEM_ERR_PRESET);
    ck_assert_msg(strstr(err, "l2.bytes"), "%s", err);
    tsup_preset(text, sizeof text, "-sources.l2");
    ck_assert_int_eq(mem_machine_parse(text, "bad.json", &m, err, sizeof err), MEM_ERR_PRESET);
    ck_assert_msg(strstr(err, "sources.l2"), "%s", err);
    ck_assert_int_eq(mem_machine_load("no_such_machine", &m, err, sizeof err), MEM_ERR_IO);
}
END_TEST

/* A preset without one of its required fields (docs/memory.md's table, listed here by hand) is refused with
 * that field named as missing; one whose field has no entry in "sources" with sources.FIELD named. */
START_TEST(test_preset_required_fields_and_sources_are_named)
{
    static const char *const required[] = {
        "name", "wave_sizes", "default_wave", "compute_units", "simds_per_cu", "simd_lanes", "max_waves_per_simd",
        "max_workgroups_per_cu", "vgprs_per_simd_lane", "vgpr_granule", "max_vgprs_per_wave", "sgprs_per_simd",
        "sgpr_granule", "max_sgprs_per_wave", "lds_bytes_per_cu", "lds_banks", "lds_bank_bytes",
        "lds_lanes_per_cycle", "cache_line_bytes", "sector_bytes", "l2", "dram_bytes_per_cycle", "clock_mhz",
        "l2_hit_latency", "dram_latency", "sources"};
    char text[4096], err[512], expected[128];
    mem_machine m;
    tsup_preset(text, sizeof text, "%s", "");
    ck_assert_msg(mem_machine_parse(text, "tiny.json", &m, err, sizeof err) == MEM_OK, "%s", err);
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        tsup_preset(text, sizeof text, "-%s", required[i]);
        ck_assert_int_eq(mem_machine_parse(text, "tiny.json", &m, err, sizeof err), MEM_ERR_PRESET);
        snprintf(expected, sizeof expected, "tiny.json: field '%s': missing", required[i]);
        ck_assert_msg(strncmp(err, expected, strlen(expected)) == 0, "without %s: %s", required[i], err);
        if (strcmp(required[i], "name") == 0 || strcmp(required[i], "sources") == 0)
            continue; /* not numbers: no source */
        tsup_preset(text, sizeof text, "-sources.%s", required[i]);
        ck_assert_int_eq(mem_machine_parse(text, "tiny.json", &m, err, sizeof err), MEM_ERR_PRESET);
        snprintf(expected, sizeof expected, "tiny.json: field 'sources.%s': missing: say where", required[i]);
        ck_assert_msg(strncmp(err, expected, strlen(expected)) == 0, "without sources.%s: %s", required[i], err);
    }
}
END_TEST

/* ------------------------------------------------------------ article 002 end to end */

static uint64_t lds_conflicts(const char *case_file, const char *preset, uint32_t wave, uint64_t *instructions,
                              uint64_t *cycles)
{
    char path[1024], err[4096];
    const char *root = getenv("WAVELAB_ROOT");
    snprintf(path, sizeof path, "%s/kernels/002_lds_fp16/%s", root ? root : ".", case_file);
    wl_case *c = NULL;
    ck_assert_msg(case_load(path, &c, err, sizeof err) == CASE_OK, "%s", err);
    mem_machine m = load_preset(preset);
    run_options opt = {.wave_size = wave};
    mem_model_options mo = {.machine = &m};
    ck_assert_int_eq(mem_model_create(&mo, &opt.memory), MEM_OK);
    run_output out;
    ck_assert_msg(run_case_sim(c, &opt, &out, err, sizeof err) == RUN_EXIT_OK, "%s", err);
    ck_assert_int_eq(run_check_expects(c, out.data, NULL), 0);
    const mem_stats *s = mem_model_stats(opt.memory);
    uint64_t conflicts = s->lds_bank_conflict_cycles;
    *instructions = s->lds_instructions;
    *cycles = s->lds_cycles;
    ck_assert_uint_eq(s->lds_cycles, s->lds_ideal_cycles + s->lds_bank_conflict_cycles);
    run_output_free(&out);
    mem_model_destroy(opt.memory);
    case_destroy(c);
    return conflicts;
}

/*
 * Hand count for kernels/002 (8x8 groups, 16x16 tile, 9x9 reads, 6 groups):
 * a 32-lane group of 4-byte reads covers 4 pixel rows of 8; tile rows are 16
 * words apart, so rows y and y+2 share banks: 2 passes.  A 16-lane group of
 * 8-byte (uvec2) reads covers 2 rows whose 32-word rows share banks: 2 passes.
 * Stores of consecutive words take one pass.  Per 64 invocations:
 *   split, wave 64:       stores 8 x 2 halves x 1 = 16; loads 81 x 2 arrays x 2 halves x 2 passes = 648 (ideal 324)
 *   interleaved, wave 64: stores 4 x 4 groups x 1 = 16; loads 81 x 4 groups x 2 passes = 648 (ideal 324)
 *   wave 32 (2 waves): the same totals.
 * So 664 cycles and 324 conflict cycles per workgroup, x 6 = 3984 and 1944.
 */
START_TEST(test_article002_split_and_interleaved_cost_the_same_lds_cycles)
{
    static const char *cases[] = {"neighborhood_fp32_split.json", "neighborhood_fp32_interleaved.json"};
    static const struct { const char *preset; uint32_t wave; } machines[] = {{"gcn_vega64", 64}, {"rdna2", 32}};
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 2; k++) {
            uint64_t instructions, cycles;
            uint64_t conflicts = lds_conflicts(cases[c], machines[k].preset, machines[k].wave, &instructions, &cycles);
            ck_assert_msg(conflicts == 1944 && cycles == 3984, "%s on %s: %llu cycles, %llu conflict cycles",
                          cases[c], machines[k].preset, (unsigned long long)cycles, (unsigned long long)conflicts);
            /* instructions: 6 groups x (stores + 81 loads) per 64 invocations, per array */
            uint64_t per64 = c == 0 ? 2 * (4 + 81) : 4 + 81;
            ck_assert_uint_eq(instructions, 6 * per64 * (64 / machines[k].wave));
        }
}
END_TEST

/* ------------------------------------------------------------ the estimate's latency term */

/* The tiny machine (L2 1024 bytes, latency 10; DRAM latency 100) with a 4-line L1 per CU and the latency
 * fields: L1 5 cycles, LDS 3. */
static mem_machine tiny_latency_machine(uint32_t cus, uint32_t per_cu)
{
    char text[4096], err[512];
    tsup_preset(text, sizeof text, "compute_units=%u\nmax_waves_per_simd=%u\nmax_workgroups_per_cu=%u\n"
                "l1={\"bytes\": 64, \"ways\": 4, \"line_bytes\": 16, \"policy\": \"lru\", \"set_hash\": "
                "\"modulo\", \"allocate\": \"reads\"}\nl1_hit_latency=5\nlds_latency=3", cus, per_cu, per_cu);
    mem_machine m;
    ck_assert_msg(mem_machine_parse(text, "tiny_latency.json", &m, err, sizeof err) == MEM_OK, "%s", err);
    ck_assert_uint_eq(m.l1_hit_latency, 5);
    ck_assert_uint_eq(m.lds_latency, 3);
    return m;
}

/* Wave 0 of `group`: one instruction of op `op` and class `cls` over `lines` 16-byte lines from `address`
 * (lane l reads the line l % lines), LDS when cls is ISA_CLASS_LDS. */
static void feed_op(mem_model *mm, uint32_t group, uint32_t pc, isa_op op, isa_class cls, uint64_t address,
                    uint32_t lines)
{
    uint64_t addr[4];
    for (uint32_t l = 0; l < 4; l++)
        addr[l] = address + 16 * (l % lines);
    sim_mem_access a = {.group_linear = group, .wave = 0, .pc = pc, .op = op, .cls = cls,
                        .space = cls == ISA_CLASS_LDS ? ISA_SPACE_WORKGROUP : ISA_SPACE_STORAGE, .elem_bytes = 4,
                        .count = 1, .wave_size = 4, .exec = 0xf, .addr = addr};
    const sim_mem_trace *t = mem_model_trace(mm);
    t->access(t->user, &a);
}

/*
 * Two workgroups of one wave on two CUs (one workgroup per CU, so each CU runs one).  The loads at pcs 0-2 of
 * the fake program are waited on (each next instruction reads register 0, which each load writes).
 *   group 0: read line 0 (DRAM), read line 0 again (its CU's L1, 5), read lines 0 and 1 in one
 *            instruction (line 0 hits the L1, line 1 comes from DRAM: the wave waits for DRAM), store line 2
 *            (not waited on), two LDS loads (3 each) and an LDS store (not waited on);
 *   group 1: read line 8 (DRAM), read it again (L1, 5).
 * The dispatch reads 3 lines = 48 bytes from DRAM, which fit the 1024-byte L2: a repeated dispatch finds them
 * there, so DRAM loads count at the L2's latency, 10 ("warm").  Chains: 10 + 5 + 10 + 3 + 3 = 31 and
 * 10 + 5 = 15.  No executor statistics, so no issue share.  One wave slot per CU: each CU's bound is its one
 * chain, the estimate the larger, 31 cycles, bound by latency; the throughput units stay below (7 line
 * requests over 2 CUs; 64 DRAM bytes at 16 per cycle).
 */
START_TEST(test_estimate_latency_chain_counted_by_hand_bounds_the_estimate)
{
    mem_machine m = tiny_latency_machine(2, 1);
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    mem_model *mm = begin(&m, &f, 2, 1, NULL);
    feed_op(mm, 0, 0, ISA_OP_LOAD, ISA_CLASS_VMEM, 0, 1);
    feed_op(mm, 0, 1, ISA_OP_LOAD, ISA_CLASS_VMEM, 0, 1);
    feed_op(mm, 0, 2, ISA_OP_LOAD, ISA_CLASS_VMEM, 0, 2);
    feed_op(mm, 0, 3, ISA_OP_STORE, ISA_CLASS_VMEM, 32, 1);
    feed_op(mm, 0, 0, ISA_OP_LOAD, ISA_CLASS_LDS, 0, 1);
    feed_op(mm, 0, 1, ISA_OP_LOAD, ISA_CLASS_LDS, 0, 1);
    feed_op(mm, 0, 2, ISA_OP_STORE, ISA_CLASS_LDS, 0, 1);
    feed_op(mm, 1, 0, ISA_OP_LOAD, ISA_CLASS_VMEM, 128, 1);
    feed_op(mm, 1, 1, ISA_OP_LOAD, ISA_CLASS_VMEM, 128, 1);
    mem_model_end(mm, NULL);
    const mem_estimate *e = mem_model_estimate(mm);
    ck_assert_int_eq(e->has_latency, 1);
    ck_assert_uint_eq(e->cus_occupied, 2);
    ck_assert_uint_eq(e->busiest_cu_groups, 1);
    ck_assert_uint_eq(e->chain_group, 0);
    ck_assert_uint_eq(e->chain_wave, 0);
    ck_assert_uint_eq(e->chain_loads[MEM_LEVEL_DRAM], 2);
    ck_assert_uint_eq(e->chain_loads[MEM_LEVEL_L2], 0);
    ck_assert_uint_eq(e->chain_loads[MEM_LEVEL_L1], 1);
    ck_assert_uint_eq(e->chain_loads[MEM_LEVEL_LDS], 2);
    ck_assert_int_eq(e->chain_warm, 1);
    ck_assert_double_eq_tol(e->chain_cycles, 31.0, 1e-9);
    ck_assert_double_eq_tol(e->unit_cycles[MEM_UNIT_LATENCY], 31.0, 1e-9);
    ck_assert_int_eq(e->bound_unit, MEM_UNIT_LATENCY);
    ck_assert_double_eq_tol(e->cycles, 31.0, 1e-9);
    ck_assert_double_eq_tol(e->unit_cycles[MEM_UNIT_MEMORY], 7.0 / 2, 1e-9);
    ck_assert_double_eq_tol(e->microseconds, 31.0 / 1000, 1e-12); /* clock 1000 MHz */
    mem_model_destroy(mm);
}
END_TEST

/*
 * One CU, three workgroups of one wave, each reading its own line once from DRAM (warm: 10 cycles) and once
 * from the L1 (5): every chain is 15.  With one wave slot the CU runs them one after another: 3 x 15 = 45.
 * With three slots they overlap: the longest chain, 15.
 */
START_TEST(test_estimate_latency_wave_slots_overlap_chains)
{
    for (uint32_t slots = 1; slots <= 3; slots += 2) {
        mem_machine m = tiny_latency_machine(1, slots);
        tsup_fake_program f;
        tsup_fake_program_init(&f);
        mem_model *mm = begin(&m, &f, 3, 1, NULL);
        for (uint32_t g = 0; g < 3; g++) {
            feed_op(mm, g, 0, ISA_OP_LOAD, ISA_CLASS_VMEM, 16 * g, 1);
            feed_op(mm, g, 1, ISA_OP_LOAD, ISA_CLASS_VMEM, 16 * g, 1);
        }
        mem_model_end(mm, NULL);
        const mem_estimate *e = mem_model_estimate(mm);
        ck_assert_uint_eq(e->cus_occupied, 1);
        ck_assert_uint_eq(e->busiest_cu_groups, 3);
        ck_assert_uint_eq(e->latency_cu_waves, 3);
        ck_assert_uint_eq(e->latency_wave_slots, slots);
        ck_assert_double_eq_tol(e->chain_cycles, 15.0, 1e-9);
        double expect = slots == 1 ? 45.0 : 15.0;
        ck_assert_msg(fabs(e->unit_cycles[MEM_UNIT_LATENCY] - expect) < 1e-9, "%u slots: %.3f cycles, expected %.0f",
                      slots, e->unit_cycles[MEM_UNIT_LATENCY], expect);
        mem_model_destroy(mm);
    }
}
END_TEST

/*
 * A workgroup keeps its wave slots until its last wave ends.  One CU with room for one workgroup of two waves;
 * two workgroups, whose wave 0 reads its own line from DRAM (warm: 10) and again from the L1 (5), a chain of 15,
 * and whose wave 1 loads nothing (chain 0).  The second workgroup starts when the first has ended, after its
 * wave 0's 15 cycles: 15 + 15 = 30.  (Counting the waves' slots alone, wave 1's idle slot would have taken the
 * second group's wave 0 and overlapped the two chains: 15.)
 */
START_TEST(test_estimate_latency_a_workgroup_holds_its_slots_until_its_longest_wave)
{
    char text[4096], err[512];
    tsup_preset(text, sizeof text, "compute_units=1\nmax_waves_per_simd=2\nmax_workgroups_per_cu=1\n"
                "l1={\"bytes\": 64, \"ways\": 4, \"line_bytes\": 16, \"policy\": \"lru\", \"set_hash\": "
                "\"modulo\", \"allocate\": \"reads\"}\nl1_hit_latency=5\nlds_latency=3");
    mem_machine m;
    ck_assert_msg(mem_machine_parse(text, "tiny_latency.json", &m, err, sizeof err) == MEM_OK, "%s", err);
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    f.p.local_size[0] = 8; /* two waves of 4 */
    mem_model *mm = begin(&m, &f, 2, 1, NULL);
    for (uint32_t g = 0; g < 2; g++) {
        feed_op(mm, g, 0, ISA_OP_LOAD, ISA_CLASS_VMEM, 16 * g, 1);
        feed_op(mm, g, 1, ISA_OP_LOAD, ISA_CLASS_VMEM, 16 * g, 1);
    }
    mem_model_end(mm, NULL);
    const mem_estimate *e = mem_model_estimate(mm);
    ck_assert_uint_eq(e->busiest_cu_groups, 2);
    ck_assert_uint_eq(e->latency_cu_waves, 4);
    ck_assert_uint_eq(e->latency_wave_slots, 2);
    ck_assert_double_eq_tol(e->chain_cycles, 15.0, 1e-9);
    ck_assert_double_eq_tol(e->unit_cycles[MEM_UNIT_LATENCY], 30.0, 1e-9);
    mem_model_destroy(mm);
}
END_TEST

/* 80 lines = 1280 bytes read from DRAM do not fit the 1024-byte L2: a repeated dispatch would not find them
 * there, so each of the 80 waited-on loads costs the DRAM latency: 8000 cycles. */
START_TEST(test_estimate_latency_reads_larger_than_l2_cost_dram_latency)
{
    mem_machine m = tiny_latency_machine(1, 1);
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    mem_model *mm = begin(&m, &f, 1, 1, NULL);
    for (uint32_t i = 0; i < 80; i++)
        feed_op(mm, 0, i % 3, ISA_OP_LOAD, ISA_CLASS_VMEM, 16 * i, 1); /* pcs 0-2: pc 1-3 read register 0 */
    mem_model_end(mm, NULL);
    const mem_estimate *e = mem_model_estimate(mm);
    ck_assert_int_eq(e->chain_warm, 0);
    ck_assert_uint_eq(e->chain_loads[MEM_LEVEL_DRAM], 80);
    ck_assert_double_eq_tol(e->unit_cycles[MEM_UNIT_LATENCY], 8000.0, 1e-9);
    mem_model_destroy(mm);
}
END_TEST

/*
 * Which loads the wave waits for, from the program:
 *   pc 0  load  r5          (r5 is not read before pc 1, a waited-on load: the two overlap, pc 0 is hidden)
 *   pc 1  load  r6
 *   pc 2  iadd  r7 = r5 + r6
 *   pc 3  atomic r8 (old value) ... nothing reads r8: not waited on (NVIDIA's RED)
 * Trace: pc 1 reads line 0 (DRAM, warm: 10), pc 0 reads line 0 (L1, hidden), pc 1 reads line 1 (10), pc 3
 * atomic on line 2 (not waited): chain 20.  Counting every load would give 10 + 5 + 10 + 10 = 35.
 */
START_TEST(test_estimate_latency_overlapped_and_unread_results_are_not_charged)
{
    mem_machine m = tiny_latency_machine(1, 1);
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    f.code[0] = (isa_inst){.op = ISA_OP_LOAD, .cls = ISA_CLASS_VMEM, .type = ISA_TYPE_U32, .count = 1, .d = 5,
                           .a = 1, .b = ISA_NO_REG, .c = ISA_NO_REG, .e = ISA_NO_REG};
    f.code[1] = f.code[0];
    f.code[1].d = 6;
    f.code[2] = (isa_inst){.op = ISA_OP_IADD, .cls = ISA_CLASS_VALU, .type = ISA_TYPE_U32, .d = 7, .a = 5, .b = 6,
                           .c = ISA_NO_REG, .e = ISA_NO_REG};
    f.code[3] = (isa_inst){.op = ISA_OP_ATOMIC, .cls = ISA_CLASS_VMEM, .type = ISA_TYPE_U32, .count = 1, .d = 8,
                           .a = 1, .b = 7, .c = ISA_NO_REG, .e = ISA_NO_REG};
    mem_model *mm = begin(&m, &f, 1, 1, NULL);
    feed_op(mm, 0, 1, ISA_OP_LOAD, ISA_CLASS_VMEM, 0, 1);
    feed_op(mm, 0, 0, ISA_OP_LOAD, ISA_CLASS_VMEM, 0, 1);
    feed_op(mm, 0, 1, ISA_OP_LOAD, ISA_CLASS_VMEM, 16, 1);
    feed_op(mm, 0, 3, ISA_OP_ATOMIC, ISA_CLASS_VMEM, 32, 1);
    mem_model_end(mm, NULL);
    const mem_estimate *e = mem_model_estimate(mm);
    ck_assert_uint_eq(e->chain_loads[MEM_LEVEL_L1], 0);
    ck_assert_uint_eq(e->chain_loads[MEM_LEVEL_DRAM], 2);
    ck_assert_uint_eq(e->chain_loads[MEM_LEVEL_L2], 0);
    ck_assert_double_eq_tol(e->unit_cycles[MEM_UNIT_LATENCY], 20.0, 1e-9);
    mem_model_destroy(mm);
}
END_TEST

/* Without "l1_hit_latency" the estimate is the throughput roofline alone: 3 line requests on 1 CU = 3 cycles
 * (and 48 DRAM bytes at 16 per cycle = 3). */
START_TEST(test_estimate_without_latency_fields_is_the_roofline)
{
    mem_machine m = tiny_machine(1, 1, 1024, 4);
    ck_assert_uint_eq(m.l1_hit_latency, 0);
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    mem_model *mm = begin(&m, &f, 3, 1, NULL);
    for (uint32_t g = 0; g < 3; g++)
        feed_op(mm, g, 0, ISA_OP_LOAD, ISA_CLASS_VMEM, 16 * g, 1);
    mem_model_end(mm, NULL);
    const mem_estimate *e = mem_model_estimate(mm);
    ck_assert_int_eq(e->has_latency, 0);
    ck_assert_double_eq_tol(e->unit_cycles[MEM_UNIT_LATENCY], 0.0, 1e-12);
    ck_assert_double_eq_tol(e->cycles, 3.0, 1e-9);
    ck_assert_int_ne(e->bound_unit, MEM_UNIT_LATENCY);
    mem_model_destroy(mm);
}
END_TEST

/* One instruction of wave 0 of workgroup 0 at pc 3: its 4 lanes' 4-byte accesses at `addr`. */
static void feed_lanes(mem_model *mm, isa_op op, const uint64_t addr[4])
{
    uint64_t a4[4] = {addr[0], addr[1], addr[2], addr[3]};
    sim_mem_access a = {.group_linear = 0, .wave = 0, .pc = 3, .op = op, .cls = ISA_CLASS_VMEM,
                        .space = ISA_SPACE_STORAGE, .elem_bytes = 4, .count = 1, .wave_size = 4, .exec = 0xf,
                        .addr = a4};
    const sim_mem_trace *t = mem_model_trace(mm);
    t->access(t->user, &a);
}

/*
 * The atomic term (docs/memory.md, "Atomics") on the tiny machine (16-byte lines and sectors, wave 4) with
 * l2_atomic_cycles 2.  Three atomic instructions and a read:
 *   {0, 4, 8, 12}:   sector 0, four distinct words: 1 pass;
 *   {0, 0, 0, 4}:    sector 0, word 0 three times: 3 passes;
 *   {16, 20, 32, 32}: sector 1, two distinct words: 1 pass; sector 2, word 32 twice: 2 passes;
 *   a read of {0, 16, 32, 48}: no passes.
 * With 32-byte units (sectors 0 and 1 share unit 0): unit 0 has 1 + 3 + 1 = 5 passes, unit 1 has 2; the term is
 * 5 x 2 = 10 cycles.  Without the granule field (units of one 16-byte line): 1 + 3 = 4, 1 and 2: 4 x 2 = 8.
 * Without l2_atomic_cycles there is no term, and it is not shown.
 */
START_TEST(test_estimate_atomic_term_counts_passes_per_unit_by_hand)
{
    static const uint64_t ops[3][4] = {{0, 4, 8, 12}, {0, 0, 0, 4}, {16, 20, 32, 32}};
    static const uint64_t read[4] = {0, 16, 32, 48};
    static const struct {
        const char *edits;
        uint64_t passes;
        double cycles;
    } rows[] = {
        {"l2_atomic_cycles=2\nl2_atomic_granule_bytes=32", 5, 10},
        {"l2_atomic_cycles=2", 4, 8},
        {"", 0, 0},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        char text[4096], err[512];
        tsup_preset(text, sizeof text, "%s", rows[r].edits);
        mem_machine m;
        ck_assert_msg(mem_machine_parse(text, "tiny_atomic.json", &m, err, sizeof err) == MEM_OK, "%s", err);
        tsup_fake_program f;
        tsup_fake_program_init(&f);
        mem_model *mm = begin(&m, &f, 1, 1, NULL);
        for (int i = 0; i < 3; i++)
            feed_lanes(mm, ISA_OP_ATOMIC, ops[i]);
        feed_lanes(mm, ISA_OP_LOAD, read);
        mem_model_end(mm, NULL);
        const mem_estimate *e = mem_model_estimate(mm);
        ck_assert_int_eq(e->has_atomic, rows[r].cycles > 0);
        ck_assert_int_eq(mem_estimate_has_unit(e, MEM_UNIT_ATOMIC), rows[r].cycles > 0);
        ck_assert_uint_eq(e->atomic_busiest_passes, rows[r].passes);
        ck_assert_double_eq_tol(e->unit_cycles[MEM_UNIT_ATOMIC], rows[r].cycles, 1e-9);
        mem_model_destroy(mm);
    }
    /* the unit's bytes: a power of two from the line (16) up */
    static const char *const bad[] = {"l2_atomic_granule_bytes=24", "l2_atomic_granule_bytes=8"};
    for (size_t i = 0; i < 2; i++) {
        char text[4096], err[512] = "";
        tsup_preset(text, sizeof text, "%s", bad[i]);
        mem_machine m;
        ck_assert_int_eq(mem_machine_parse(text, "tiny_atomic.json", &m, err, sizeof err), MEM_ERR_PRESET);
        ck_assert_msg(strstr(err, "l2_atomic_granule_bytes") && strstr(err, "not a power of two from cache_line_bytes "
                                                                         "(16) up"), "%s", err);
    }
}
END_TEST

/* The tiny machine with `rates` (tsup_preset's edits: the L2's throughput fields and the L1's merging). */
static mem_machine tiny_l2_rates_machine(const char *rates)
{
    char text[4096], err[512];
    tsup_preset(text, sizeof text, "%s", rates);
    mem_machine m;
    ck_assert_msg(mem_machine_parse(text, "tiny_rates.json", &m, err, sizeof err) == MEM_OK, "%s", err);
    return m;
}

/* One wave of one workgroup reads the 16-byte lines at `addr` in turn (the fake program's pcs 0-2 over and
 * over), then stores line 2 (pc 3); the model ended. */
static mem_model *reads_then_store(const mem_machine *m, const uint64_t *addr, uint32_t n)
{
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    mem_model *mm = begin(m, &f, 1, 1, NULL);
    for (uint32_t i = 0; i < n; i++)
        feed_read(mm, 0, i % 3, addr[i]);
    feed_op(mm, 0, 3, ISA_OP_STORE, ISA_CLASS_VMEM, 32, 1);
    mem_model_end(mm, NULL);
    return mm;
}

/*
 * Three one-line reads (lines 0, 1, then 0 again: a hit) and a one-line store on one CU, no L1: 4 L2
 * requests of one 16-byte sector each, 3 of them reads.  L2 units: 4 sectors x 16 bytes / 64 per cycle = 1
 * cycle of data, 4 requests / 0.5 per cycle = 8 cycles of lookups; the larger, 8, is the estimate (memory:
 * 4 lines on 1 CU = 4; DRAM: 2 lines read + 1 written back = 48 bytes / 16 = 3).
 */
START_TEST(test_estimate_l2_bound_by_requests_when_each_carries_one_sector)
{
    mem_machine m = tiny_l2_rates_machine("l2_bytes_per_cycle=64\nl2_requests_per_cycle=0.5");
    ck_assert_double_eq_tol(m.l2_requests_per_cycle, 0.5, 1e-12);
    const uint64_t lines[] = {0, 16, 0};
    mem_model *mm = reads_then_store(&m, lines, 3);
    const mem_stats *s = mem_model_stats(mm);
    ck_assert_uint_eq(s->l2_read_requests, 3);
    ck_assert_uint_eq(s->l2_requests, 4);
    ck_assert_uint_eq(s->l2_read_hits, 1);
    const mem_estimate *e = mem_model_estimate(mm);
    ck_assert_double_eq_tol(e->unit_cycles[MEM_UNIT_L2], 8.0, 1e-9);
    ck_assert_double_eq_tol(e->cycles, 8.0, 1e-9);
    ck_assert_int_eq(e->bound_unit, MEM_UNIT_L2);
    mem_model_destroy(mm);
    /* without the request rate the L2 is bound by its data path alone: 1 cycle, and memory (4) binds */
    m = tiny_l2_rates_machine("l2_bytes_per_cycle=64");
    mm = reads_then_store(&m, lines, 3);
    e = mem_model_estimate(mm);
    ck_assert_double_eq_tol(e->unit_cycles[MEM_UNIT_L2], 1.0, 1e-9);
    ck_assert_double_eq_tol(e->cycles, 4.0, 1e-9);
    ck_assert_int_eq(e->bound_unit, MEM_UNIT_MEMORY);
    mem_model_destroy(mm);
}
END_TEST

/*
 * One wave reads lines 0, 0, 1, 0 in four instructions, then stores line 2; no L1, so every access is an L2
 * request: 5 requests, 4 of them reads.  Merge candidates (the previous instruction sent the same line to the
 * L2 as a read): the second read only (the third reads line 1 after line 0, the fourth line 0 after line 1),
 * so 1.  With l1_miss_merge 0.5 the L2 sees 5 - 0.5 = 4.5 requests, at 0.5 per cycle 9 cycles (memory: 5
 * lines on 1 CU = 5; DRAM: 2 lines read + 1 written back = 3).
 */
START_TEST(test_estimate_l1_merges_a_share_of_misses_to_the_previous_instructions_line)
{
    mem_machine m = tiny_l2_rates_machine("l2_requests_per_cycle=0.5\nl1_miss_merge=0.5");
    const uint64_t lines[] = {0, 0, 16, 0};
    mem_model *mm = reads_then_store(&m, lines, 4);
    const mem_stats *s = mem_model_stats(mm);
    ck_assert_uint_eq(s->l2_read_requests, 4);
    ck_assert_uint_eq(s->l2_requests, 5);
    ck_assert_uint_eq(s->l2_merge_candidates, 1);
    const mem_estimate *e = mem_model_estimate(mm);
    ck_assert_double_eq_tol(e->unit_cycles[MEM_UNIT_L2], 9.0, 1e-9);
    ck_assert_int_eq(e->bound_unit, MEM_UNIT_L2);
    mem_model_destroy(mm);
}
END_TEST

/* The tiny machine with `edits` (tsup_preset's): the parser's status, its message in err. */
static mem_status parse_edited(const char *edits, char *err, size_t err_size)
{
    char text[4096];
    tsup_preset(text, sizeof text, "%s", edits);
    mem_machine m;
    return mem_machine_parse(text, "bad.json", &m, err, err_size);
}

/* ------------------------------------------------------------ DRAM: access granule, write-back, partial stores */

/*
 * The tiny machine with 64-byte lines of four 16-byte sectors (an L2 of 1024 bytes, 4 ways: 4 sets, line L in
 * set L mod 4) and `fields` (tsup_preset's edits) added: DRAM granules, write-back accounting.
 */
static void tiny_sectored_text(const char *fields, char *out, size_t out_size)
{
    /* line 64 B, sector 16 B, in the top-level fields and the L2 */
    tsup_preset(out, out_size, "cache_line_bytes=64\nl2.line_bytes=64\nl2.sector_bytes=16\n%s", fields);
}

static mem_machine tiny_sectored_machine(const char *fields)
{
    char out[4096], err[512];
    tiny_sectored_text(fields, out, sizeof out);
    mem_machine m;
    ck_assert_msg(mem_machine_parse(out, "tiny_sectored.json", &m, err, sizeof err) == MEM_OK, "%s", err);
    return m;
}

/* Reads (16 bytes: one sector each) at the given byte addresses, one instruction each, then ends the model. */
static mem_model *sector_reads(const mem_machine *m, const uint64_t *addr, uint32_t n)
{
    tsup_fake_program f;
    tsup_fake_program_init(&f);
    mem_model *mm = begin(m, &f, 1, 1, NULL);
    for (uint32_t i = 0; i < n; i++)
        feed_read(mm, 0, i % 3, addr[i]);
    mem_model_end(mm, NULL);
    return mm;
}

/*
 * Sectors 0, 1 and 2 of line 0, then sector 0 of line 2 (bytes 0, 16, 32, 128).  DRAM read in 16-byte
 * granules (the default: one sector): 4 misses, 4 x 16 = 64 bytes.  In 32-byte granules (sector pairs, the
 * H100's 64 B per 32 B sectors): sector 0's miss brings sector 1 too, so the second read hits; sector 2 brings
 * 3; line 2's sector 0 brings its sector 1: 3 misses, 1 hit, 3 x 32 = 96 bytes.
 */
START_TEST(test_dram_fetch_granule_brings_the_sector_pair)
{
    const uint64_t addr[] = {0, 16, 32, 128};
    mem_machine m = tiny_sectored_machine("");
    ck_assert_uint_eq(m.dram_fetch_bytes, 16);
    mem_model *mm = sector_reads(&m, addr, 4);
    const mem_stats *s = mem_model_stats(mm);
    ck_assert_uint_eq(s->l2_read_misses, 4);
    ck_assert_uint_eq(s->l2_read_hits, 0);
    ck_assert_uint_eq(s->dram_bytes_read, 64);
    mem_model_destroy(mm);

    m = tiny_sectored_machine("dram_fetch_bytes=32");
    ck_assert_uint_eq(m.dram_fetch_bytes, 32);
    mm = sector_reads(&m, addr, 4);
    s = mem_model_stats(mm);
    ck_assert_uint_eq(s->l2_read_misses, 3);
    ck_assert_uint_eq(s->l2_read_hits, 1);
    ck_assert_uint_eq(s->dram_bytes_read, 96);
    ck_assert_uint_eq(s->dram_completed_bytes, 0);
    mem_model_destroy(mm);
}
END_TEST

/* One wave stores 4 consecutive u32 (one 16-byte sector) at `address` (pc 3). */
static void feed_store(mem_model *mm, uint64_t address)
{
    feed_op(mm, 0, 3, ISA_OP_STORE, ISA_CLASS_VMEM, address, 1);
}

/*
 * A store of sector 0 of line 0 (dirty, its pair sector 1 never read), then reads of sector 0 of lines 4, 8,
 * 12 and 16 (bytes 256, 512, 768, 1024): all in set 0, so the fourth evicts line 0, the least recently used.
 * In 32-byte granules the write-back of sector 0 first reads sector 1: 16 bytes completed.  Reads: 4 lines x
 * 32 bytes + 16 = 144; written: 16, during the dispatch; nothing dirty at the end.  In 16-byte granules
 * nothing is completed: 4 x 16 = 64 read, 16 written.
 */
START_TEST(test_dram_write_back_of_half_a_granule_reads_the_other_half)
{
    const char *const fields[] = {"", "dram_fetch_bytes=32"};
    const uint64_t read_expected[] = {64, 144}, completed_expected[] = {0, 16};
    for (int i = 0; i < 2; i++) {
        mem_machine m = tiny_sectored_machine(fields[i]);
        tsup_fake_program f;
        tsup_fake_program_init(&f);
        mem_model *mm = begin(&m, &f, 1, 1, NULL);
        feed_store(mm, 0);
        for (uint64_t l = 4; l <= 16; l += 4)
            feed_read(mm, 0, 0, l * 64);
        mem_model_end(mm, NULL);
        const mem_stats *s = mem_model_stats(mm);
        ck_assert_uint_eq(s->l2_evictions, 1);
        ck_assert_uint_eq(s->dram_bytes_read, read_expected[i]);
        ck_assert_uint_eq(s->dram_completed_bytes, completed_expected[i]);
        ck_assert_uint_eq(s->dram_bytes_written, 16);
        ck_assert_uint_eq(s->dram_dirty_at_end_bytes, 0);
        mem_model_destroy(mm);
    }
}
END_TEST

/*
 * Stores of sectors 0 and 1 of line 0 and sector 0 of line 1, nothing evicted.  "flush" (the default): the 48
 * dirty bytes are charged to the dispatch, and in 32-byte granules line 1's write-back reads its sector 1
 * first (16 bytes).  "evict": nothing was written during the dispatch; the 48 bytes are reported as left
 * dirty, and no completion read is charged.
 */
START_TEST(test_dram_write_back_flush_or_evict)
{
    const char *const fields[] = {"dram_fetch_bytes=32", "dram_fetch_bytes=32\nl2_write_back=\"evict\""};
    const uint64_t written[] = {48, 0}, read[] = {16, 0};
    for (int i = 0; i < 2; i++) {
        mem_machine m = tiny_sectored_machine(fields[i]);
        ck_assert_int_eq(m.write_back, i ? MEM_WRITE_BACK_EVICT : MEM_WRITE_BACK_FLUSH);
        tsup_fake_program f;
        tsup_fake_program_init(&f);
        mem_model *mm = begin(&m, &f, 1, 1, NULL);
        feed_store(mm, 0);
        feed_store(mm, 16);
        feed_store(mm, 64);
        mem_model_end(mm, NULL);
        const mem_stats *s = mem_model_stats(mm);
        ck_assert_uint_eq(s->dram_bytes_written, written[i]);
        ck_assert_uint_eq(s->dram_bytes_read, read[i]);
        ck_assert_uint_eq(s->dram_completed_bytes, read[i]);
        ck_assert_uint_eq(s->dram_dirty_at_end_bytes, 48);
        mem_model_destroy(mm);
    }
}
END_TEST

/*
 * Two one-request stores on the 16-byte-line tiny machine, a request every second cycle: 4 lanes x 4 bytes
 * (the whole sector) and 2 lanes x 4 bytes (half of it: a partial store).  With l2_partial_write_cost 3 the
 * partial one occupies 3 request slots: 1 + 3 = 4 requests / 0.5 = 8 cycles (1 + 1 = 2 requests, 4 cycles,
 * without the field).
 */
START_TEST(test_partial_sector_store_costs_more_l2_requests)
{
    const char *const fields[] = {"l2_requests_per_cycle=0.5", "l2_requests_per_cycle=0.5\nl2_partial_write_cost=3"};
    const double cycles[] = {4, 8};
    for (int i = 0; i < 2; i++) {
        mem_machine m = tiny_l2_rates_machine(fields[i]);
        tsup_fake_program f;
        tsup_fake_program_init(&f);
        mem_model *mm = begin(&m, &f, 1, 1, NULL);
        const sim_mem_trace *t = mem_model_trace(mm);
        uint64_t whole[4] = {0, 4, 8, 12}, half[4] = {16, 20, 0, 0};
        sim_mem_access a = {.group_linear = 0, .wave = 0, .pc = 0, .op = ISA_OP_STORE, .cls = ISA_CLASS_VMEM,
                            .space = ISA_SPACE_STORAGE, .elem_bytes = 4, .count = 1, .wave_size = 4, .exec = 0xf,
                            .addr = whole};
        t->access(t->user, &a);
        a.pc = 1, a.exec = 0x3, a.addr = half;
        t->access(t->user, &a);
        mem_model_end(mm, NULL);
        const mem_stats *s = mem_model_stats(mm);
        ck_assert_uint_eq(s->global_partial_write_requests, 1);
        ck_assert_uint_eq(s->l2_requests, 2);
        const mem_estimate *e = mem_model_estimate(mm);
        ck_assert_double_eq_tol(e->unit_cycles[MEM_UNIT_L2], cycles[i], 1e-9);
        mem_model_destroy(mm);
    }
}
END_TEST

/*
 * One H100 preset: hopper_h100 takes what `wavelab probe` measured on the H100 (hopper_h100_measured, the
 * probe's own output for docs/probe/h100_run2): the DRAM bandwidth, the empty dispatch, the four latencies, and
 * the DRAM granule the probe reads into "measured" (l2_fetch_bytes) -- not the datasheet's 3.35 TB/s (1692
 * bytes per cycle at 1980 MHz) or a 32-byte sector.
 */
START_TEST(test_hopper_h100_takes_the_probes_measurements)
{
    mem_machine h = load_preset("hopper_h100"), p = load_preset("hopper_h100_measured");
    ck_assert_double_eq_tol(h.dram_bytes_per_cycle, p.dram_bytes_per_cycle, 1e-9);
    ck_assert_double_eq_tol(h.dram_bytes_per_cycle * h.clock_mhz / 1000.0, 2861.9, 0.1); /* GB/s, copy.csv */
    ck_assert_double_eq_tol(h.dispatch_us, p.dispatch_us, 1e-9);
    ck_assert_uint_eq(h.l1_hit_latency, p.l1_hit_latency);
    ck_assert_uint_eq(h.l2_hit_latency, p.l2_hit_latency);
    ck_assert_uint_eq(h.dram_latency, p.dram_latency);
    ck_assert_uint_eq(h.lds_latency, p.lds_latency);
    char path[1024];
    snprintf(path, sizeof path, "%s/machines/hopper_h100_measured.json", tsup_root());
    char *text = tsup_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *fetch = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "measured"),
                                                          "l2_fetch_bytes");
    ck_assert_msg(cJSON_IsNumber(fetch), "%s: no measured.l2_fetch_bytes", path);
    ck_assert_uint_eq(h.dram_fetch_bytes, (uint32_t)fetch->valuedouble);
    ck_assert_uint_eq(h.dram_fetch_bytes, 64);
    ck_assert_int_eq(h.write_back, MEM_WRITE_BACK_EVICT);
    cJSON_Delete(root);
}
END_TEST

START_TEST(test_preset_dram_fields_are_checked)
{
    char err[512];
    static const struct {
        const char *field, *message;
    } bad[] = {
        {"dram_fetch_bytes=8", "dram_fetch_bytes': 8 is out of range 16..16"},
        {"l2_write_back=\"later\"", "l2_write_back': must be \"flush\" or \"evict\""},
        {"l2_partial_write_cost=0.5", "l2_partial_write_cost': not a number from 1 to 64"},
        {"l2_write_back=\"evict\"\n-sources.l2_write_back", "sources.l2_write_back': missing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(parse_edited(bad[i].field, err, sizeof err), MEM_ERR_PRESET);
        ck_assert_msg(strstr(err, bad[i].message), "%s: %s", bad[i].field, err);
    }
    /* 64-byte lines of 16-byte sectors: 16..64 is the range, and 48 is in it but no power of two */
    char text[4096];
    mem_machine m;
    tiny_sectored_text("dram_fetch_bytes=48", text, sizeof text);
    ck_assert_int_eq(mem_machine_parse(text, "bad.json", &m, err, sizeof err), MEM_ERR_PRESET);
    ck_assert_msg(strstr(err, "dram_fetch_bytes': not a power of two"), "%s", err);
}
END_TEST

START_TEST(test_preset_l2_fields_need_a_source_and_a_value_in_range)
{
    char err[512];
    ck_assert_int_eq(parse_edited("l2_requests_per_cycle=2\n-sources.l2_requests_per_cycle", err, sizeof err),
                     MEM_ERR_PRESET);
    ck_assert_msg(strstr(err, "bad.json") && strstr(err, "sources.l2_requests_per_cycle"), "%s", err);
    ck_assert_int_eq(parse_edited("l2_requests_per_cycle=0", err, sizeof err), MEM_ERR_PRESET);
    ck_assert_msg(strstr(err, "l2_requests_per_cycle") && strstr(err, "not a positive number"), "%s", err);
    /* a merged share above 1 is refused, with the field named */
    ck_assert_int_eq(parse_edited("l1_miss_merge=1.5", err, sizeof err), MEM_ERR_PRESET);
    ck_assert_msg(strstr(err, "l1_miss_merge") && strstr(err, "from 0 to 1"), "%s", err);
}
END_TEST

/* cJSON reads 1e309 as infinity: every floating field must be finite as well as positive (a clock of infinity
 * was accepted and made every estimate zero). */
START_TEST(test_preset_infinite_floating_fields_are_refused)
{
    static const struct {
        const char *edit, *field;
    } bad[] = {
        {"clock_mhz=1e309", "clock_mhz"},
        {"dram_bytes_per_cycle=1e309", "dram_bytes_per_cycle"},
        {"clock_mhz=-1e309", "clock_mhz"},
    };
    char err[512];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(parse_edited(bad[i].edit, err, sizeof err), MEM_ERR_PRESET);
        ck_assert_msg(strstr(err, bad[i].field) && strstr(err, "finite"), "%s", err);
    }
    ck_assert_int_eq(parse_edited("dispatch_us=1e309", err, sizeof err), MEM_ERR_PRESET);
    ck_assert_msg(strstr(err, "dispatch_us") && strstr(err, "finite"), "%s", err);
}
END_TEST

START_TEST(test_preset_latency_field_without_source_is_named)
{
    char err[512];
    ck_assert_int_eq(parse_edited("l1_hit_latency=5\n-sources.l1_hit_latency", err, sizeof err), MEM_ERR_PRESET);
    ck_assert_msg(strstr(err, "bad.json") && strstr(err, "sources.l1_hit_latency"), "%s", err);
    ck_assert_int_eq(parse_edited("lds_latency=0", err, sizeof err), MEM_ERR_PRESET);
    ck_assert_msg(strstr(err, "'lds_latency'") && strstr(err, "out of range"), "%s", err);
}
END_TEST

/* `explain --l2` names the wave size and labels its two rates with what each counts: the read hit rate over the
 * read sectors, the other over every sector (reads, writes, atomics); the numbers from `run --dump`'s counters. */
START_TEST(test_explain_l2_labels_each_rate_with_what_it_counts)
{
    char path[4096], dump[] = "/tmp/wavelab-test-explain-XXXXXX", args[8192], want[512];
    snprintf(path, sizeof path, "%s/kernels/003_wave_tricks/prefix_sum_writes_wave.json", tsup_root());
    int fd = mkstemp(dump);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char *text = NULL;
    snprintf(args, sizeof args, "run '%s' --machine rdna2 --wave 32 --dump '%s'", path, dump);
    ck_assert_int_eq(tsup_run_cli(args, &text), 0);
    free(text);
    FILE *f = fopen(dump, "r");
    ck_assert_ptr_nonnull(f);
    static char json[1 << 20];
    size_t n = fread(json, 1, sizeof json - 1, f);
    json[n] = 0;
    fclose(f);
    remove(dump);
    cJSON *root = cJSON_Parse(json);
    ck_assert_ptr_nonnull(root);
    cJSON *l2 = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "stats"), "memory"), "l2");
    ck_assert_ptr_nonnull(l2);
#define L2(name) ((uint64_t)cJSON_GetObjectItem(l2, name)->valuedouble)
    uint64_t reads = L2("read_hits") + L2("read_misses");
    uint64_t hits = L2("read_hits") + L2("write_hits") + L2("atomic_hits");
    uint64_t all = hits + L2("read_misses") + L2("write_misses") + L2("atomic_misses");
    ck_assert_uint_gt(all, reads); /* the case writes: the two rates differ */
    snprintf(want, sizeof want, "L2 on rdna2: read hit rate %.1f%% over %llu read sectors; %.1f%% over all %llu sectors "
             "(reads, writes and atomics)\n", reads ? 100.0 * (double)L2("read_hits") / (double)reads : 0.0,
             (unsigned long long)reads, 100.0 * (double)hits / (double)all, (unsigned long long)all);
#undef L2
    cJSON_Delete(root);
    snprintf(args, sizeof args, "explain '%s' --l2 --machine rdna2 --wave 32", path);
    ck_assert_int_eq(tsup_run_cli(args, &text), 0);
    ck_assert_msg(strstr(text, want), "expected \"%s\" in:\n%.800s", want, text);
    ck_assert_msg(strstr(text, "prefix_sum_writes_wave.json at wave size 32 on rdna2\n"), "%.800s", text);
    free(text);
}
END_TEST

static Suite *memory_suite(void)
{
    Suite *s = suite_create("memory");
    TCase *t = tcase_create("memory");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_lds_strides_wave32_rdna2_conflict_degree_is_gcd);
    tcase_add_test(t, test_lds_strides_wave64_rdna2_served_in_halves);
    tcase_add_test(t, test_lds_strides_wave64_gcn_served_in_halves);
    tcase_add_test(t, test_lds_strides_wave32_turing_conflict_degree_is_gcd);
    tcase_add_test(t, test_lds_same_address_broadcast_costs_one_pass);
    tcase_add_test(t, test_lds_64bit_access_served_in_half_groups);
    tcase_add_test(t, test_cache_direct_mapped_hand_traced_sequence);
    tcase_add_test(t, test_cache_lru_two_way_keeps_recent_line);
    tcase_add_test(t, test_l2_buffer_that_fits_read_twice_hits_every_second_read);
    tcase_add_test(t, test_l2_buffer_twice_the_size_read_twice_misses_both_with_lru);
    tcase_add_test(t, test_launch_round_robin_and_residency_by_hand);
    tcase_add_test(t, test_launch_order_decides_what_shares_the_l2);
    tcase_add_test(t, test_replay_identical_at_one_and_two_threads_and_across_runs);
    tcase_add_test(t, test_presets_all_load_with_sources);
    tcase_add_test(t, test_preset_malformed_field_is_named);
    tcase_add_test(t, test_preset_required_fields_and_sources_are_named);
    tcase_add_test(t, test_article002_split_and_interleaved_cost_the_same_lds_cycles);
    tcase_add_test(t, test_estimate_latency_chain_counted_by_hand_bounds_the_estimate);
    tcase_add_test(t, test_estimate_latency_wave_slots_overlap_chains);
    tcase_add_test(t, test_estimate_latency_a_workgroup_holds_its_slots_until_its_longest_wave);
    tcase_add_test(t, test_estimate_latency_reads_larger_than_l2_cost_dram_latency);
    tcase_add_test(t, test_estimate_latency_overlapped_and_unread_results_are_not_charged);
    tcase_add_test(t, test_estimate_without_latency_fields_is_the_roofline);
    tcase_add_test(t, test_estimate_atomic_term_counts_passes_per_unit_by_hand);
    tcase_add_test(t, test_estimate_l2_bound_by_requests_when_each_carries_one_sector);
    tcase_add_test(t, test_explain_l2_labels_each_rate_with_what_it_counts);
    tcase_add_test(t, test_preset_l2_fields_need_a_source_and_a_value_in_range);
    tcase_add_test(t, test_estimate_l1_merges_a_share_of_misses_to_the_previous_instructions_line);
    tcase_add_test(t, test_preset_latency_field_without_source_is_named);
    tcase_add_test(t, test_preset_infinite_floating_fields_are_refused);
    tcase_add_test(t, test_dram_fetch_granule_brings_the_sector_pair);
    tcase_add_test(t, test_dram_write_back_of_half_a_granule_reads_the_other_half);
    tcase_add_test(t, test_dram_write_back_flush_or_evict);
    tcase_add_test(t, test_partial_sector_store_costs_more_l2_requests);
    tcase_add_test(t, test_preset_dram_fields_are_checked);
    tcase_add_test(t, test_hopper_h100_takes_the_probes_measurements);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return tsup_run_suite(memory_suite(), "test_memory") ? EXIT_FAILURE : EXIT_SUCCESS;
}
