/*
 * sim/machine.h — machine presets: the numbers of one GPU (or CPU device)
 * that the memory model, the occupancy calculation and the time estimate
 * read.  Presets are data: machines/NAME.json, every number citing its public
 * source in a "sources" object keyed by field (docs/memory.md lists the
 * fields).  This header is the module's public face for other modules
 * (register allocation reads the register-file fields from here).
 */
#ifndef WAVELAB_MACHINE_H
#define WAVELAB_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "isa/isa.h"

#define MEM_MAX_WAVE_SIZES 4

typedef enum mem_status {
    MEM_OK = 0,
    MEM_ERR_IO,       /* cannot read the preset file or find the named preset */
    MEM_ERR_PRESET,   /* malformed preset: the message names the file and field */
    MEM_ERR_NOMEM
} mem_status;


typedef enum mem_set_hash {
    MEM_HASH_MODULO,  /* set = line index mod sets */
    MEM_HASH_XOR,     /* set = (line ^ line / sets ^ line / sets^2) mod sets: folds higher address bits in */
    MEM_HASH_MIX      /* set = the top bits of splitmix64's finaliser of the line index, scaled to [0, sets):
                       * every address bit moves the set, so no power-of-two pitch aliases (sim/cache.c) */
} mem_set_hash;

/* Which dirty sectors the dispatch's DRAM writes count ("l2_write_back"). */
typedef enum mem_write_back {
    MEM_WRITE_BACK_FLUSH, /* "flush": those evicted during the dispatch and those left dirty at its end (default) */
    MEM_WRITE_BACK_EVICT  /* "evict": only those evicted during the dispatch, as Nsight Compute's dram__bytes_write
                           * counts a kernel (the rest stays in the L2 after it) */
} mem_write_back;

#define MEM_MAX_L2_PARTITIONS 8
/* a preset file larger than this is not one (the measured presets are tens of KiB) */
#define MEM_PRESET_MAX_BYTES ((size_t)16 << 20)

/* One cache level: capacity, associativity, line and sector size, LRU. */
typedef struct mem_cache_geometry {
    uint64_t bytes;        /* 0: the level is absent; the L2: all partitions together */
    uint32_t ways;
    uint32_t line_bytes;
    uint32_t sector_bytes; /* fill granule inside a line (= line_bytes when not sectored) */
    mem_set_hash set_hash;
    /* L2 only ("partitions", "near_copies"): the L2 split into partitions of bytes / partitions each; a
     * line lives in one (its home, by an address hash); with near_copies an SM's own partition also keeps
     * copies of lines whose home is another (NVIDIA A100/H100).  1 and 0 when absent. */
    uint32_t partitions;
    int near_copies;
    /* L1 only ("allocate": "reads" or "none"): whether global loads fill the L1; stores and atomics
     * never allocate (write-through).  1 when absent. */
    int allocate_reads;
} mem_cache_geometry;

/*
 * How the dispatcher places workgroups on CUs and how long each runs, for the
 * memory model's replay (optional "dispatch" object; docs/memory.md, "Launch
 * order, residency and the replay schedule").  All defaults give the plain round-robin, lock-step replay.
 */
typedef struct mem_dispatch {
    uint32_t cus_per_cluster; /* CUs that take consecutive groups in turn (an NVIDIA TPC: 2); 1 when absent */
    uint32_t cluster_stride;  /* the fill visits clusters 0, s, 2s, .., then 1, 1+s, .. (GPC-strided); 1 when absent */
    double duration_spread;   /* group g's memory instructions take (1 + spread * h(g)) steps each on average,
                               * h a hash of g in [0, 1); 0 (lock step) when absent */
    uint32_t queue_clusters;  /* > 0: groups go round robin to a queue of at most this many clusters with a free
                               * slot, a cluster staying until it is full and its CUs taking turns, so one CU takes
                               * groups a few launches apart (the H100's short-lag revisit); 0 (one group per CU
                               * per pass over all CUs) when absent */
    double l2_requests_per_step; /* > 0: a CU sends at most this many L2 requests per replay step, its groups
                                  * taking turns (its share of the L2's request rate, so groups that miss more run
                                  * longer and a CU's groups slow down together); 0 (no limit) when absent */
} mem_dispatch;

typedef struct mem_machine {
    char name[64];
    char description[256];
    char path[512];                 /* the file it came from */
    uint32_t wave_sizes[MEM_MAX_WAVE_SIZES];
    uint32_t wave_size_count;
    uint32_t default_wave;
    uint32_t compute_units;         /* CUs / SMs */
    uint32_t simds_per_cu;          /* SIMDs / SM sub-partitions */
    uint32_t simd_lanes;            /* lanes executed per cycle by one SIMD */
    uint32_t max_waves_per_simd;
    uint32_t max_workgroups_per_cu;
    uint32_t vgprs_per_simd_lane;   /* 32-bit vector registers per lane per SIMD */
    uint32_t vgpr_granule;
    uint32_t max_vgprs_per_wave;
    uint32_t sgprs_per_simd;
    uint32_t sgpr_granule;
    uint32_t max_sgprs_per_wave;    /* 0: no scalar register file (NVIDIA-like parts) */
    uint32_t lds_bytes_per_cu;
    uint32_t lds_banks;
    uint32_t lds_bank_bytes;
    uint32_t lds_lanes_per_cycle;   /* lanes the LDS serves per pass (a GCN wave64 is served in halves of 32) */
    uint32_t cache_line_bytes;
    uint32_t sector_bytes;
    mem_cache_geometry l1;          /* per CU; bytes 0 when the preset has no "l1" */
    mem_cache_geometry l2;
    double dram_bytes_per_cycle;    /* at clock_mhz */
    double l2_bytes_per_cycle;      /* optional ("l2_bytes_per_cycle"): L2 bandwidth for the estimate; 0 = not limited */
    double l2_requests_per_cycle;   /* optional ("l2_requests_per_cycle"): L2 lookups (lines) the slices serve per cycle, all
                                       together; 0 = not limited */
    double l1_miss_merge;           /* optional ("l1_miss_merge", 0 to 1): the share of l2.merge_candidates an L1 merges into
                                       the request already in flight (the estimate's L2 requests); 0 = none */
    /* DRAM-side fields (docs/memory.md, "DRAM"); each optional with its source. */
    uint32_t dram_fetch_bytes;      /* "dram_fetch_bytes": DRAM's access granule, a power of two from sector_bytes to
                                     * cache_line_bytes: a read or atomic that misses the L2 fetches every sector of
                                     * the aligned granule around each missed sector, and a dirty line leaving the
                                     * L2 first reads the sectors it lacks of each granule it writes (the H100 reads
                                     * 64 B per touched sector pair); sector_bytes when absent */
    mem_write_back write_back;      /* "l2_write_back": which dirty data the dispatch's DRAM writes count */
    double l2_partial_write_cost;   /* "l2_partial_write_cost" (>= 1): L2 request slots a store request occupies
                                     * when it writes part of a sector (a byte-masked merge in the slice); 1 when
                                     * absent */
    double clock_mhz;
    double dispatch_us;             /* optional ("dispatch_us"): the measured time of a near-empty dispatch
                                     * (launch, timestamps); added to the estimate for whole-dispatch times */
    uint32_t l2_hit_latency;        /* cycles */
    uint32_t dram_latency;          /* cycles */
    uint32_t image_layout;          /* img_layout of images in device memory ("image_layout"; optional, linear) */
    /* The estimate's latency term (docs/memory.md, "The latency term"): optional, each with its source.
     * l1_hit_latency 0 = absent: the estimate is the throughput roofline alone.  lds_latency 0 = LDS loads
     * add nothing to a wave's chain.  l2_hit_latency and dram_latency (above) are the other two levels. */
    uint32_t l1_hit_latency;        /* cycles: a load served by the L1 */
    uint32_t lds_latency;           /* cycles: an LDS load */
    mem_dispatch dispatch;          /* optional ("dispatch"): placement and per-group pace in the replay */
} mem_machine;

/*
 * Parses a preset from JSON text; `file` names it in messages.  Every field
 * is required except "l1" and "description"; "sources" must hold an entry for
 * every numeric field present.  Returns MEM_OK, or MEM_ERR_PRESET with
 * "FILE: field 'NAME': what is wrong" in err.
 */
mem_status mem_machine_parse(const char *json_text, const char *file, mem_machine *out, char *err, size_t err_size);

/* Loads a preset by file path (contains '/' or ends in .json) or by name:
 * machines/NAME.json under $WAVELAB_ROOT, next to the executable's parent
 * folder, or under the current directory. */
mem_status mem_machine_load(const char *name_or_path, mem_machine *out, char *err, size_t err_size);

/*
 * Occupancy of an allocated program on this machine at this wave size: the
 * preset's register-file and LDS limits handed to isa_compute_occupancy (the
 * one formula).  `vgprs_override` replaces the program's VGPR count when
 * nonzero.  A machine without a scalar register file (max_sgprs_per_wave 0,
 * NVIDIA-like) keeps uniform values in vector registers: its VGPRs include
 * the program's SGPRs.
 */
isa_occupancy mem_machine_occupancy(const mem_machine *m, const isa_program *p, uint32_t wave_size,
                                    uint32_t vgprs_override, uint32_t *vgprs_used);

/* The folder that holds the presets (as searched by mem_machine_load), or
 * NULL; writes into buf.  First found: $WAVELAB_ROOT/machines; beside the
 * binary holding this code (libwavelab.so or the executable) and beside the
 * running executable: ../share/wavelab/machines (installed),
 * ../../share/wavelab/machines (a multiarch libdir), ../machines and
 * ../../machines (build trees); ./machines. */
const char *mem_machine_dir(char *buf, size_t size);

#endif
