/*
 * sim/cache.h — private to the memory model (sim/memmodel.c, sim/cache.c):
 * the sectored set-associative cache and the hierarchy a global request walks
 * (the L1 of its CU, the L2 partitions, DRAM).  docs/memory.md describes the
 * model and how its counts line up with Nsight Compute's.
 *
 * Everything here runs on the replay's single thread in the replay's order, so
 * the counts are the same at any executor thread count.
 */
#ifndef WAVELAB_SIM_CACHE_H
#define WAVELAB_SIM_CACHE_H

#include <stdint.h>

#include "sim/machine.h"

struct mem_cache {
    uint32_t sets, ways, sector_bytes, line_bytes;
    mem_set_hash hash;
    uint64_t *tag;      /* line + 1; 0 = invalid */
    uint64_t *stamp;    /* last use, for LRU */
    uint16_t *valid;    /* sector masks */
    uint16_t *dirty;
    uint64_t clock;
};
typedef struct mem_cache mem_cache;

/* In sim/memmodel.h for tests; repeated here so that cache.c needs only this header. */
mem_cache *mem_cache_create(const mem_cache_geometry *g);
void mem_cache_destroy(mem_cache *c);

/* The line a request evicted: evicted 1 when a valid line left, with its valid and dirty sector masks. */
typedef struct cache_victim {
    int evicted;
    uint32_t valid, dirty;
} cache_victim;

/*
 * One request of sector mask `smask` to `line`: returns the sectors that hit.
 * Missing sectors are filled (write: marked dirty).  A miss on the line evicts
 * the least recently used way (an invalid way first), described in *victim.
 */
uint32_t cache_request(mem_cache *c, uint64_t line, uint32_t smask, int write, cache_victim *victim);
/* Marks sectors `smask` of `line` valid (clean unless already dirty), without touching its LRU place; the line
 * must be present (just requested).  Returns the sectors that were not valid before. */
uint32_t cache_fill(mem_cache *c, uint64_t line, uint32_t smask);
/* Every aligned group of `granule` sectors that has a sector in `smask`, all its sectors set (granule 1: smask). */
uint32_t cache_granule_mask(uint32_t smask, uint32_t granule);
/* Drops sectors `smask` of `line` if present (a copy made stale by a write elsewhere). */
void cache_invalidate(mem_cache *c, uint64_t line, uint32_t smask);
/* Dirty sectors in the cache; *incomplete (optional) gets the sectors a write-back of them must read first:
 * those of each dirty line's DRAM granules (`granule` sectors) that are neither valid nor dirty. */
uint64_t cache_dirty_sectors(const mem_cache *c, uint32_t granule, uint64_t *incomplete);

enum { CACHE_READ, CACHE_WRITE, CACHE_ATOMIC };

/* The hierarchy of one dispatch. */
typedef struct cache_hier {
    mem_cache **l1;          /* per CU; NULL when the preset has no L1 */
    mem_cache **l2;          /* per partition */
    uint32_t cus, partitions;
    int l1_allocates_reads;  /* global loads fill the L1 */
    int near_copies;         /* an SM's own partition keeps copies of the far partition's lines */
    uint32_t dram_granule;   /* sectors per DRAM access (dram_fetch_bytes / sector_bytes) */
} cache_hier;

/* What one request did, in sectors; L2 counts are per tag lookup (a near-copy
 * miss followed by the home partition's lookup counts twice, as the hardware's
 * per-slice counters do). */
typedef struct cache_outcome {
    uint32_t l1_hits, l1_misses;
    uint32_t l2_hits, l2_misses;
    uint32_t l2_requests;    /* L2 lookups (one per line and partition looked up) */
    uint32_t fabric;         /* sectors the near partition fetched from the far one */
    uint32_t dram_read;      /* sectors read from DRAM for the request (missed ones and the rest of their granules) */
    uint32_t dram_written;   /* dirty sectors evicted */
    uint32_t dram_completed; /* sectors read from DRAM to complete the granules of an evicted dirty line */
    uint32_t evictions;      /* L2 lines evicted */
} cache_outcome;

/* Returns 0 on success, -1 when out of memory (the hierarchy is then freed). */
int cache_hier_init(cache_hier *h, const mem_machine *m);
void cache_hier_free(cache_hier *h);
/* The L2 partition that owns `line` (its point of coherence and DRAM side). */
uint32_t cache_home_partition(const cache_hier *h, uint64_t line);
/* The partition CU `cu` is attached to. */
uint32_t cache_near_partition(const cache_hier *h, uint32_t cu);
void cache_hier_access(cache_hier *h, uint32_t cu, int kind, uint64_t line, uint32_t smask, cache_outcome *o);
/* Dirty sectors left in the L2 at the end of the dispatch; *incomplete as for cache_dirty_sectors. */
uint64_t cache_hier_dirty_sectors(const cache_hier *h, uint64_t *incomplete);

#endif
