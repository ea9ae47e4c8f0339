/*
 * sim/cache.c — the caches of the memory model: a sectored, set-associative,
 * LRU cache, and the hierarchy a global request walks: the L1 of its CU
 * (reads only), the L2 (one or more partitions, optionally with near copies
 * of far lines, as on NVIDIA A100/H100), DRAM.  Counts are per sector, the
 * way Nsight Compute counts l1tex__t_sector_hit_rate and
 * lts__t_sector_op_read_hit_rate (docs/memory.md puts the definitions side by
 * side).
 */
#include <stdlib.h>

#include "sim/cache.h"

mem_cache *mem_cache_create(const mem_cache_geometry *g)
{
    if (!g->bytes || !g->ways || !g->line_bytes || g->bytes % ((uint64_t)g->ways * g->line_bytes))
        return NULL;
    mem_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->sets = (uint32_t)(g->bytes / ((uint64_t)g->ways * g->line_bytes));
    c->ways = g->ways;
    c->line_bytes = g->line_bytes;
    c->sector_bytes = g->sector_bytes ? g->sector_bytes : g->line_bytes;
    c->hash = g->set_hash;
    size_t n = (size_t)c->sets * c->ways;
    c->tag = calloc(n, sizeof *c->tag);
    c->stamp = calloc(n, sizeof *c->stamp);
    c->valid = calloc(n, sizeof *c->valid);
    c->dirty = calloc(n, sizeof *c->dirty);
    if (!c->tag || !c->stamp || !c->valid || !c->dirty) {
        mem_cache_destroy(c);
        return NULL;
    }
    return c;
}

void mem_cache_destroy(mem_cache *c)
{
    if (!c)
        return;
    free(c->tag);
    free(c->stamp);
    free(c->valid);
    free(c->dirty);
    free(c);
}

/* The set of a line.  `xor` folds line / sets into the index, which leaves a row pitch that shares a large
 * factor with the set count in a fraction of the sets (a 64 KB pitch, 512 lines, against 12800 sets = 512 x
 * 25: the 16-line columns of a tiled strip fall in half of them); `mix` hashes every bit of the line index
 * (splitmix64's finaliser; independent of the partition hash's Fibonacci multiply) and scales the top 32
 * bits to [0, sets), so any pitch spreads over all sets. */
static inline uint32_t cache_set(const mem_cache *c, uint64_t line)
{
    if (c->hash == MEM_HASH_MIX) {
        uint64_t z = line;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        return (uint32_t)(((z >> 32) * c->sets) >> 32);
    }
    if (c->hash == MEM_HASH_XOR)
        line ^= line / c->sets ^ line / c->sets / c->sets;
    return (uint32_t)(line % c->sets);
}

uint32_t cache_request(mem_cache *c, uint64_t line, uint32_t smask, int write, cache_victim *victim_out)
{
    *victim_out = (cache_victim){0};
    uint64_t *tag = c->tag + (size_t)cache_set(c, line) * c->ways;
    size_t base = (size_t)(tag - c->tag);
    uint64_t key = line + 1, now = ++c->clock;
    for (uint32_t w = 0; w < c->ways; w++)
        if (tag[w] == key) {
            uint32_t hit = c->valid[base + w] & smask;
            c->valid[base + w] |= (uint16_t)smask;
            if (write)
                c->dirty[base + w] |= (uint16_t)smask;
            c->stamp[base + w] = now;
            return hit;
        }
    uint32_t victim = 0;
    for (uint32_t w = 0; w < c->ways; w++) {
        if (!tag[w]) {
            victim = w;
            break;
        }
        if (c->stamp[base + w] < c->stamp[base + victim])
            victim = w;
    }
    if (tag[victim])
        *victim_out = (cache_victim){.evicted = 1, .valid = c->valid[base + victim], .dirty = c->dirty[base + victim]};
    tag[victim] = key;
    c->valid[base + victim] = (uint16_t)smask;
    c->dirty[base + victim] = write ? (uint16_t)smask : 0;
    c->stamp[base + victim] = now;
    return 0;
}

uint32_t cache_fill(mem_cache *c, uint64_t line, uint32_t smask)
{
    uint64_t *tag = c->tag + (size_t)cache_set(c, line) * c->ways;
    size_t base = (size_t)(tag - c->tag);
    for (uint32_t w = 0; w < c->ways; w++)
        if (tag[w] == line + 1) {
            uint32_t added = smask & ~(uint32_t)c->valid[base + w];
            c->valid[base + w] |= (uint16_t)smask;
            return added;
        }
    return 0;
}

uint32_t cache_granule_mask(uint32_t smask, uint32_t granule)
{
    if (granule <= 1)
        return smask;
    uint32_t group = (granule >= 32 ? 0u : 1u << granule) - 1, out = 0;
    for (uint32_t i = 0; i < 32 && (smask >> i); i += granule)
        if (smask & group << i)
            out |= group << i;
    return out;
}

void cache_invalidate(mem_cache *c, uint64_t line, uint32_t smask)
{
    uint64_t *tag = c->tag + (size_t)cache_set(c, line) * c->ways;
    size_t base = (size_t)(tag - c->tag);
    for (uint32_t w = 0; w < c->ways; w++)
        if (tag[w] == line + 1) {
            c->valid[base + w] &= (uint16_t)~smask;
            return;
        }
}

int mem_cache_access(mem_cache *c, uint64_t address, int is_write)
{
    cache_victim v;
    uint64_t line = address / c->line_bytes;
    uint32_t sector = (uint32_t)(address % c->line_bytes) / c->sector_bytes;
    return cache_request(c, line, 1u << sector, is_write, &v) != 0;
}

/* The sectors a write-back of a line with these masks reads first: the rest of each dirty granule. */
static inline uint32_t incomplete_sectors(uint32_t valid, uint32_t dirty, uint32_t granule)
{
    return cache_granule_mask(dirty, granule) & ~(valid | dirty);
}

uint64_t cache_dirty_sectors(const mem_cache *c, uint32_t granule, uint64_t *incomplete)
{
    uint64_t n = 0, inc = 0;
    for (size_t i = 0; i < (size_t)c->sets * c->ways; i++)
        if (c->tag[i] && c->dirty[i]) {
            n += (uint64_t)__builtin_popcount(c->dirty[i]);
            inc += (uint64_t)__builtin_popcount(incomplete_sectors(c->valid[i], c->dirty[i], granule));
        }
    if (incomplete)
        *incomplete = inc;
    return n;
}

/* ------------------------------------------------------------ the hierarchy */

int cache_hier_init(cache_hier *h, const mem_machine *m)
{
    *h = (cache_hier){0};
    h->cus = m->compute_units;
    h->partitions = m->l2.partitions ? m->l2.partitions : 1;
    h->near_copies = m->l2.near_copies && h->partitions > 1;
    h->l1_allocates_reads = m->l1.bytes && m->l1.allocate_reads;
    h->dram_granule = m->dram_fetch_bytes > m->sector_bytes ? m->dram_fetch_bytes / m->sector_bytes : 1;
    mem_cache_geometry part = m->l2;
    part.bytes = m->l2.bytes / h->partitions;
    h->l2 = calloc(h->partitions, sizeof *h->l2);
    if (!h->l2)
        goto nomem;
    for (uint32_t p = 0; p < h->partitions; p++)
        if (!(h->l2[p] = mem_cache_create(&part)))
            goto nomem;
    if (h->l1_allocates_reads) {
        h->l1 = calloc(h->cus, sizeof *h->l1);
        if (!h->l1)
            goto nomem;
        for (uint32_t c = 0; c < h->cus; c++)
            if (!(h->l1[c] = mem_cache_create(&m->l1)))
                goto nomem;
    }
    return 0;
nomem:
    cache_hier_free(h);
    return -1;
}

void cache_hier_free(cache_hier *h)
{
    if (h->l2)
        for (uint32_t p = 0; p < h->partitions; p++)
            mem_cache_destroy(h->l2[p]);
    if (h->l1)
        for (uint32_t c = 0; c < h->cus; c++)
            mem_cache_destroy(h->l1[c]);
    free(h->l2);
    free(h->l1);
    h->l2 = NULL, h->l1 = NULL;
}

/* The home partition: a hash of the line index (NVIDIA does not publish its
 * address-to-slice hash; any hash that spreads consecutive lines evenly is a
 * model value).  Fibonacci hashing: the line times 2^64/phi, top bits. */
uint32_t cache_home_partition(const cache_hier *h, uint64_t line)
{
    if (h->partitions <= 1)
        return 0;
    uint64_t x = line * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(((x >> 32) * h->partitions) >> 32);
}

/* CUs are attached to partitions in contiguous blocks (model value: the GPCs
 * of each half of the die sit beside one partition). */
uint32_t cache_near_partition(const cache_hier *h, uint32_t cu)
{
    return (uint32_t)((uint64_t)cu * h->partitions / h->cus);
}

static inline uint32_t pop(uint32_t x) { return (uint32_t)__builtin_popcount(x); }

/* One L2 lookup in partition p; fills the outcome's L2 and eviction counts, returns the sectors that hit. */
static uint32_t l2_lookup(cache_hier *h, uint32_t p, uint64_t line, uint32_t smask, int write, cache_outcome *o)
{
    cache_victim v;
    uint32_t hit = cache_request(h->l2[p], line, smask, write, &v);
    o->l2_requests++;
    o->l2_hits += pop(hit);
    o->l2_misses += pop(smask) - pop(hit);
    o->evictions += (uint32_t)v.evicted;
    o->dram_written += pop(v.dirty);
    o->dram_completed += pop(incomplete_sectors(v.valid, v.dirty, h->dram_granule));
    return hit;
}

/* The DRAM read of the sectors `missed` of `line` in partition p (just looked up): DRAM is read in granules,
 * so the rest of each missed sector's granule comes too, where the line lacks it.  Returns the sectors read. */
static uint32_t dram_fetch(cache_hier *h, uint32_t p, uint64_t line, uint32_t missed)
{
    if (!missed || h->dram_granule <= 1)
        return pop(missed);
    return pop(missed) + pop(cache_fill(h->l2[p], line, cache_granule_mask(missed, h->dram_granule) & ~missed));
}

void cache_hier_access(cache_hier *h, uint32_t cu, int kind, uint64_t line, uint32_t smask, cache_outcome *o)
{
    *o = (cache_outcome){0};
    if (kind == CACHE_READ && h->l1) {
        cache_victim v;
        uint32_t hit = cache_request(h->l1[cu], line, smask, 0, &v);
        o->l1_hits = pop(hit);
        o->l1_misses = pop(smask) - o->l1_hits;
        smask &= ~hit;
        if (!smask)
            return;
    }
    uint32_t home = cache_home_partition(h, line);
    uint32_t near = h->near_copies ? cache_near_partition(h, cu) : home;
    if (kind != CACHE_READ) {
        /* writes and atomics go to the line's home (the point of coherence); a near copy goes stale */
        if (near != home)
            cache_invalidate(h->l2[near], line, smask);
        uint32_t hit = l2_lookup(h, home, line, smask, 1, o);
        if (kind == CACHE_ATOMIC)
            o->dram_read = dram_fetch(h, home, line, smask & ~hit);
        return;
    }
    if (near != home) {
        uint32_t hit = l2_lookup(h, near, line, smask, 0, o);
        smask &= ~hit;
        if (!smask)
            return;
        o->fabric = pop(smask);
    }
    uint32_t hit = l2_lookup(h, home, line, smask, 0, o);
    o->dram_read = dram_fetch(h, home, line, smask & ~hit);
}

uint64_t cache_hier_dirty_sectors(const cache_hier *h, uint64_t *incomplete)
{
    uint64_t n = 0, inc = 0;
    for (uint32_t p = 0; p < h->partitions; p++) {
        uint64_t i;
        n += cache_dirty_sectors(h->l2[p], h->dram_granule, &i);
        inc += i;
    }
    if (incomplete)
        *incomplete = inc;
    return n;
}
