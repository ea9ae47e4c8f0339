/*
 * tests/test_memmodel_cache.c — the cache hierarchy of the memory model
 * (sim/cache.c): sectored fills counted per sector, the L1's read-only
 * allocation, L2 partitions with near copies, and the preset fields that
 * describe them (sim/machine.c).  Every expected count is worked out by hand
 * in the comment beside it.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cache.h"
#include "sim/memmodel.h"
#include "support/tsup.h"

/* A machine of 4 CUs with a 2-line, 1-way (per set: 2 sets) L1 of 128 B lines in 32 B sectors and an L2 of
 * `parts` partitions, 4 lines each, direct mapped; no preset file: only the fields the hierarchy reads. */
static mem_machine machine(uint32_t parts, int near, int l1_alloc)
{
    mem_machine m = {0};
    m.compute_units = 4;
    m.cache_line_bytes = 128, m.sector_bytes = 32;
    m.l1 = (mem_cache_geometry){.bytes = 256, .ways = 1, .line_bytes = 128, .sector_bytes = 32,
                                .allocate_reads = l1_alloc};
    m.l2 = (mem_cache_geometry){.bytes = 512ull * parts, .ways = 1, .line_bytes = 128, .sector_bytes = 32,
                                .partitions = parts, .near_copies = near};
    return m;
}

START_TEST(test_memmodel_cache_sector_miss_fetches_only_missing_sectors)
{
    mem_machine m = machine(1, 0, 1);
    cache_hier h;
    ck_assert_int_eq(cache_hier_init(&h, &m), 0);
    cache_outcome o;
    /* sectors 0 and 1 of line 5: both miss in L1 and L2, two sectors from DRAM */
    cache_hier_access(&h, 0, CACHE_READ, 5, 0x3, &o);
    ck_assert_uint_eq(o.l1_misses, 2); ck_assert_uint_eq(o.l1_hits, 0);
    ck_assert_uint_eq(o.l2_misses, 2); ck_assert_uint_eq(o.dram_read, 2);
    /* sectors 1 and 2: the line's tag is there, sector 1 hits, only sector 2 goes on (and is fetched) */
    cache_hier_access(&h, 0, CACHE_READ, 5, 0x6, &o);
    ck_assert_uint_eq(o.l1_hits, 1); ck_assert_uint_eq(o.l1_misses, 1);
    ck_assert_uint_eq(o.l2_hits + o.l2_misses, 1); ck_assert_uint_eq(o.dram_read, 1);
    /* the same from CU 1 (its own, empty L1): 3 sectors all hit in the L2 */
    cache_hier_access(&h, 1, CACHE_READ, 5, 0x7, &o);
    ck_assert_uint_eq(o.l1_misses, 3); ck_assert_uint_eq(o.l2_hits, 3); ck_assert_uint_eq(o.dram_read, 0);
    cache_hier_free(&h);
}
END_TEST

START_TEST(test_memmodel_cache_l1_stores_write_through_without_allocating)
{
    mem_machine m = machine(1, 0, 1);
    cache_hier h;
    ck_assert_int_eq(cache_hier_init(&h, &m), 0);
    cache_outcome o;
    /* a store: no L1 lookup at all, one L2 write miss (allocate without fetch: no DRAM read) */
    cache_hier_access(&h, 0, CACHE_WRITE, 9, 0x1, &o);
    ck_assert_uint_eq(o.l1_hits + o.l1_misses, 0);
    ck_assert_uint_eq(o.l2_misses, 1); ck_assert_uint_eq(o.dram_read, 0);
    /* reading it back on the same CU: L1 miss (the store did not allocate), L2 hit */
    cache_hier_access(&h, 0, CACHE_READ, 9, 0x1, &o);
    ck_assert_uint_eq(o.l1_misses, 1); ck_assert_uint_eq(o.l2_hits, 1);
    /* and again: now an L1 hit, the L2 is not asked */
    cache_hier_access(&h, 0, CACHE_READ, 9, 0x1, &o);
    ck_assert_uint_eq(o.l1_hits, 1); ck_assert_uint_eq(o.l2_hits + o.l2_misses, 0);
    cache_hier_free(&h);
}
END_TEST

START_TEST(test_memmodel_cache_l1_allocate_none_never_hits)
{
    mem_machine m = machine(1, 0, 0);
    cache_hier h;
    ck_assert_int_eq(cache_hier_init(&h, &m), 0);
    cache_outcome o;
    for (int i = 0; i < 3; i++) {
        cache_hier_access(&h, 0, CACHE_READ, 2, 0xf, &o);
        ck_assert_uint_eq(o.l1_hits + o.l1_misses, 0);           /* the L1 is bypassed */
        ck_assert_uint_eq(o.l2_hits, i ? 4u : 0u);                 /* 4 sectors: miss once, then hit */
    }
    cache_hier_free(&h);
}
END_TEST

START_TEST(test_memmodel_cache_l1_lru_capacity_two_lines)
{
    /* the L1 has 2 sets of 1 way: lines 0 and 2 share set 0, line 1 is set 1 */
    mem_machine m = machine(1, 0, 1);
    cache_hier h;
    ck_assert_int_eq(cache_hier_init(&h, &m), 0);
    cache_outcome o;
    static const uint64_t line[] = {0, 1, 0, 2, 1, 0};
    static const uint32_t hit[] = {0, 0, 1, 0, 1, 0};
    for (int i = 0; i < 6; i++) {
        cache_hier_access(&h, 3, CACHE_READ, line[i], 0x1, &o);
        ck_assert_msg(o.l1_hits == hit[i], "access %d: %u L1 hits, expected %u", i, o.l1_hits, hit[i]);
    }
    cache_hier_free(&h);
}
END_TEST

START_TEST(test_memmodel_cache_partitions_split_cus_and_spread_lines)
{
    mem_machine m = machine(2, 1, 0);
    cache_hier h;
    ck_assert_int_eq(cache_hier_init(&h, &m), 0);
    /* CUs 0,1 sit beside partition 0, CUs 2,3 beside partition 1 */
    ck_assert_uint_eq(cache_near_partition(&h, 0), 0);
    ck_assert_uint_eq(cache_near_partition(&h, 1), 0);
    ck_assert_uint_eq(cache_near_partition(&h, 2), 1);
    ck_assert_uint_eq(cache_near_partition(&h, 3), 1);
    /* the home hash spreads 1024 consecutive lines evenly: each partition owns 45..55 % */
    uint32_t n1 = 0;
    for (uint64_t l = 0; l < 1024; l++)
        n1 += cache_home_partition(&h, l);
    ck_assert_msg(n1 > 460 && n1 < 564, "partition 1 owns %u of 1024 lines", n1);
    cache_hier_free(&h);
}
END_TEST

/* The first line whose home is partition p. */
static uint64_t line_homed(const cache_hier *h, uint32_t p)
{
    for (uint64_t l = 0;; l++)
        if (cache_home_partition(h, l) == p)
            return l;
}

START_TEST(test_memmodel_cache_far_read_counts_near_miss_and_home_lookup)
{
    mem_machine m = machine(2, 1, 0);
    cache_hier h;
    ck_assert_int_eq(cache_hier_init(&h, &m), 0);
    uint64_t far = line_homed(&h, 1); /* far from CUs 0 and 1 */
    cache_outcome o;
    /* CU 0 reads 2 sectors: its partition misses (2), the fabric carries 2, the home misses (2), DRAM 2 */
    cache_hier_access(&h, 0, CACHE_READ, far, 0x3, &o);
    ck_assert_uint_eq(o.l2_misses, 4); ck_assert_uint_eq(o.l2_hits, 0);
    ck_assert_uint_eq(o.fabric, 2); ck_assert_uint_eq(o.dram_read, 2);
    ck_assert_uint_eq(o.l2_requests, 2); /* one lookup in each partition */
    /* CU 1, same side: the near copy hits (2 sector lookups in one request, 2 hits, nothing crosses) */
    cache_hier_access(&h, 1, CACHE_READ, far, 0x3, &o);
    ck_assert_uint_eq(o.l2_hits, 2); ck_assert_uint_eq(o.l2_misses, 0); ck_assert_uint_eq(o.fabric, 0);
    ck_assert_uint_eq(o.l2_requests, 1);
    /* CU 3, the home side: one lookup, at home, a hit */
    cache_hier_access(&h, 3, CACHE_READ, far, 0x3, &o);
    ck_assert_uint_eq(o.l2_hits, 2); ck_assert_uint_eq(o.l2_misses, 0); ck_assert_uint_eq(o.fabric, 0);
    /* CU 2 reads sector 2 of it: one home lookup, a miss, from DRAM */
    cache_hier_access(&h, 2, CACHE_READ, far, 0x4, &o);
    ck_assert_uint_eq(o.l2_misses, 1); ck_assert_uint_eq(o.dram_read, 1);
    /* CU 0 now wants sector 2: near miss, fabric, home hit: 1 miss + 1 hit, no DRAM */
    cache_hier_access(&h, 0, CACHE_READ, far, 0x4, &o);
    ck_assert_uint_eq(o.l2_misses, 1); ck_assert_uint_eq(o.l2_hits, 1);
    ck_assert_uint_eq(o.fabric, 1); ck_assert_uint_eq(o.dram_read, 0);
    cache_hier_free(&h);
}
END_TEST

START_TEST(test_memmodel_cache_write_goes_home_and_stales_the_near_copy)
{
    mem_machine m = machine(2, 1, 0);
    cache_hier h;
    ck_assert_int_eq(cache_hier_init(&h, &m), 0);
    uint64_t far = line_homed(&h, 1);
    cache_outcome o;
    cache_hier_access(&h, 0, CACHE_READ, far, 0x1, &o);  /* copy in partition 0, line at home */
    cache_hier_access(&h, 1, CACHE_WRITE, far, 0x1, &o); /* home write hit; the copy's sector dropped */
    ck_assert_uint_eq(o.l2_hits, 1); ck_assert_uint_eq(o.l2_misses, 0);
    cache_hier_access(&h, 0, CACHE_READ, far, 0x1, &o);  /* near miss, home hit (the new value) */
    ck_assert_uint_eq(o.l2_misses, 1); ck_assert_uint_eq(o.l2_hits, 1); ck_assert_uint_eq(o.fabric, 1);
    /* at the end the written sector is dirty at home only */
    ck_assert_uint_eq(cache_hier_dirty_sectors(&h, NULL), 1);
    cache_hier_free(&h);
}
END_TEST

START_TEST(test_memmodel_cache_partition_capacity_is_a_share_of_the_l2)
{
    /* 2 partitions of 4 direct-mapped lines each (512 B of 1024): without near copies each line has one
     * place.  Five lines of partition 0's home that map to the same set cannot all stay: reading
     * line a, then 4 more lines of the same set, then a again misses. */
    mem_machine m = machine(2, 0, 0);
    cache_hier h;
    ck_assert_int_eq(cache_hier_init(&h, &m), 0);
    uint64_t same[2];
    int n = 0;
    for (uint64_t l = 0; n < 2; l++)
        if (cache_home_partition(&h, l) == 0 && l % 4 == 0)
            same[n++] = l;
    cache_outcome o;
    cache_hier_access(&h, 0, CACHE_READ, same[0], 0x1, &o);
    cache_hier_access(&h, 0, CACHE_READ, same[1], 0x1, &o);
    cache_hier_access(&h, 0, CACHE_READ, same[0], 0x1, &o);
    ck_assert_uint_eq(o.l2_misses, 1); /* direct mapped: same[1] evicted same[0] */
    ck_assert_uint_eq(o.evictions, 1);
    cache_hier_free(&h);
}
END_TEST

/* The `mix` set hash, written here from its definition (machine.h, docs/memory.md): splitmix64's finaliser of
 * the line index, its top 32 bits times the set count, top 32 bits of that. */
static uint32_t reference_mix_set(uint64_t line, uint32_t sets)
{
    uint64_t z = line;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (uint32_t)(((z >> 32) * sets) >> 32);
}

START_TEST(test_memmodel_cache_mix_hash_conflicts_as_the_reference_says)
{
    /* A direct-mapped cache of 100 sets of one 128 B line.  Take line a = 0, the first line b > 0 in a's set
     * by the reference, and the first line c in another set: a, b, a misses three times (b evicted a, a
     * evicted b); then c (another set) leaves a in place, so a hits.  Lines 0 and 100, which the modulo hash
     * puts in one set, share a set here only if the reference says so. */
    mem_cache_geometry g = {.bytes = 100 * 128, .ways = 1, .line_bytes = 128, .sector_bytes = 128,
                            .set_hash = MEM_HASH_MIX};
    mem_cache *c = mem_cache_create(&g);
    ck_assert_ptr_nonnull(c);
    uint64_t a = 0, b = 1, other = 1;
    while (reference_mix_set(b, 100) != reference_mix_set(a, 100))
        b++;
    while (reference_mix_set(other, 100) == reference_mix_set(a, 100))
        other++;
    ck_assert_int_eq(mem_cache_access(c, a * 128, 0), 0);
    ck_assert_int_eq(mem_cache_access(c, b * 128, 0), 0);
    ck_assert_int_eq(mem_cache_access(c, a * 128, 0), 0);
    ck_assert_int_eq(mem_cache_access(c, other * 128, 0), 0);
    ck_assert_int_eq(mem_cache_access(c, a * 128, 0), 1);
    /* line 100 after line 0 (a is resident): a hit on a afterwards iff 100 is in another set */
    ck_assert_int_eq(mem_cache_access(c, 100 * 128, 0), 0);
    ck_assert_int_eq(mem_cache_access(c, a * 128, 0), reference_mix_set(100, 100) != reference_mix_set(a, 100));
    mem_cache_destroy(c);
}
END_TEST

/* ------------------------------------------------------------ preset fields */

/* tsup_preset's tiny machine made a 4-CU wave32 part with 128-byte lines of 32-byte sectors, an L1 of 1024 bytes
 * and an L2 of `l2_bytes` in 2 ways each, set hashes "modulo" and `l2_hash`, and `l1_extra` / `l2_extra` (members
 * with a leading comma) added to the L1 and the L2. */
static mem_status parse_hashed(const char *l1_extra, uint32_t l2_bytes, const char *l2_hash, const char *l2_extra,
                               mem_machine *m, char *err, size_t size)
{
    char text[4096];
    tsup_preset(text, sizeof text,
                "wave_sizes=[32]\ndefault_wave=32\ncompute_units=4\nsimd_lanes=32\nmax_waves_per_simd=4\n"
                "max_workgroups_per_cu=4\nlds_banks=32\nlds_lanes_per_cycle=32\ncache_line_bytes=128\nsector_bytes=32\n"
                "l1={\"bytes\": 1024, \"ways\": 2, \"line_bytes\": 128, \"sector_bytes\": 32, \"policy\": \"lru\","
                " \"set_hash\": \"modulo\"%s}\n"
                "l2={\"bytes\": %u, \"ways\": 2, \"line_bytes\": 128, \"sector_bytes\": 32, \"policy\": \"lru\","
                " \"set_hash\": \"%s\"%s}",
                l1_extra, l2_bytes, l2_hash, l2_extra);
    return mem_machine_parse(text, "p.json", m, err, size);
}

static mem_status parse(const char *l1_extra, uint32_t l2_bytes, const char *l2_extra, mem_machine *m, char *err,
                        size_t size)
{
    return parse_hashed(l1_extra, l2_bytes, "modulo", l2_extra, m, err, size);
}

START_TEST(test_memmodel_cache_preset_fields_parse_with_defaults)
{
    mem_machine m;
    char err[512] = "";
    ck_assert_int_eq(parse("", 4096, "", &m, err, sizeof err), MEM_OK);
    ck_assert_uint_eq(m.l2.partitions, 1); ck_assert_int_eq(m.l2.near_copies, 0);
    ck_assert_int_eq(m.l1.allocate_reads, 1);
    ck_assert_int_eq(parse(", \"allocate\": \"none\"", 4096, ", \"partitions\": 2, \"near_copies\": true", &m, err,
                           sizeof err), MEM_OK);
    ck_assert_uint_eq(m.l2.partitions, 2); ck_assert_int_eq(m.l2.near_copies, 1);
    ck_assert_int_eq(m.l1.allocate_reads, 0);
    ck_assert_int_eq(m.l2.set_hash, MEM_HASH_MODULO);
}
END_TEST

START_TEST(test_memmodel_cache_preset_set_hash_mix_parses)
{
    mem_machine m;
    char err[512] = "";
    ck_assert_int_eq(parse_hashed("", 4096, "mix", "", &m, err, sizeof err), MEM_OK);
    ck_assert_int_eq(m.l2.set_hash, MEM_HASH_MIX);
    ck_assert_int_eq(m.l1.set_hash, MEM_HASH_MODULO);
    ck_assert_int_eq(parse_hashed("", 4096, "xor", "", &m, err, sizeof err), MEM_OK);
    ck_assert_int_eq(m.l2.set_hash, MEM_HASH_XOR);
    ck_assert_int_eq(parse_hashed("", 4096, "fold", "", &m, err, sizeof err), MEM_ERR_PRESET);
    ck_assert_str_eq(err, "p.json: field 'l2.set_hash': must be \"modulo\", \"xor\" or \"mix\"");
}
END_TEST

START_TEST(test_memmodel_cache_preset_bad_fields_are_named)
{
    mem_machine m;
    char err[512];
    static const struct {
        const char *l1, *l2;
        uint32_t l2_bytes;
        const char *message;
    } bad[] = {
        {"", ", \"partitions\": 3", 4096, "p.json: field 'l2.bytes': not a multiple of partitions * ways * line_bytes"},
        {"", ", \"partitions\": 9", 4096 * 9, "p.json: field 'l2.partitions': 9 is out of range 1..8"},
        {"", ", \"near_copies\": 1", 4096, "p.json: field 'l2.near_copies': must be true or false"},
        {", \"partitions\": 2", "", 4096, "p.json: field 'l1.partitions': only the l2 has partitions"},
        {"", ", \"allocate\": \"reads\"", 4096, "p.json: field 'l2.allocate': only the l1 has an allocation policy"},
        {", \"allocate\": \"writes\"", "", 4096, "p.json: field 'l1.allocate': must be \"reads\" or \"none\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        ck_assert_int_eq(parse(bad[i].l1, bad[i].l2_bytes, bad[i].l2, &m, err, sizeof err), MEM_ERR_PRESET);
        ck_assert_str_eq(err, bad[i].message);
    }
}
END_TEST

static Suite *cache_suite(void)
{
    Suite *s = suite_create("memmodel_cache");
    TCase *t = tcase_create("cache");
    tcase_add_test(t, test_memmodel_cache_sector_miss_fetches_only_missing_sectors);
    tcase_add_test(t, test_memmodel_cache_l1_stores_write_through_without_allocating);
    tcase_add_test(t, test_memmodel_cache_l1_allocate_none_never_hits);
    tcase_add_test(t, test_memmodel_cache_l1_lru_capacity_two_lines);
    tcase_add_test(t, test_memmodel_cache_partitions_split_cus_and_spread_lines);
    tcase_add_test(t, test_memmodel_cache_far_read_counts_near_miss_and_home_lookup);
    tcase_add_test(t, test_memmodel_cache_write_goes_home_and_stales_the_near_copy);
    tcase_add_test(t, test_memmodel_cache_partition_capacity_is_a_share_of_the_l2);
    tcase_add_test(t, test_memmodel_cache_mix_hash_conflicts_as_the_reference_says);
    tcase_add_test(t, test_memmodel_cache_preset_fields_parse_with_defaults);
    tcase_add_test(t, test_memmodel_cache_preset_set_hash_mix_parses);
    tcase_add_test(t, test_memmodel_cache_preset_bad_fields_are_named);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return tsup_run_suite(cache_suite(), "memmodel_cache"); }
