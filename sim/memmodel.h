/*
 * sim/memmodel.h — the memory hierarchy model: LDS banks, a coalescer, an
 * optional per-CU L1, the L2, DRAM traffic, launch order and residency, and
 * a first-order time estimate.  docs/memory.md describes the model.
 *
 * It is a pipeline stage after the functional executor and never changes its
 * results: sim_run calls the trace sink (mem_model_trace) once per memory
 * wave instruction.  LDS conflicts are computed as the trace arrives; global
 * accesses are coalesced into per-workgroup, per-wave request streams, which
 * are then replayed through a launch-order/residency schedule:
 *
 *   - workgroups launch in the launch order (linear by default) onto CUs,
 *     round robin from the CU after the last one used, skipping full CUs
 *     (in the preset's CU order: mem_dispatch's clusters and stride);
 *     a CU holds `workgroups_per_cu` (occupancy: waves per SIMD, LDS bytes,
 *     the workgroup limit and, when given, VGPRs);
 *   - each step, CUs in index order, their resident workgroups in launch
 *     order, each wave in index order issues its next memory instruction
 *     (all its requests: L1 of that CU, then the L2);
 *     a group with a duration spread (mem_dispatch) sits out some steps;
 *   - after the step, finished workgroups leave and new ones launch.
 *
 * The replay runs incrementally while the executor produces groups (memory
 * stays bounded by the resident window), or on a second host thread
 * (threads = 2); the statistics are identical either way.
 */
#ifndef WAVELAB_MEMMODEL_H
#define WAVELAB_MEMMODEL_H

#include <stdint.h>
#include <stdio.h>

#include "isa/isa.h"
#include "sim/machine.h"
#include "sim/sim.h"

typedef struct mem_stats {
#define X(group, name, meaning) uint64_t group##_##name;
#include "sim/memcounters.def"
#undef X
} mem_stats;

/* Per program instruction (pc). */
typedef struct mem_inst_stats {
    uint64_t executions;           /* memory wave instructions seen at this pc */
    uint64_t lds_cycles, lds_conflict_cycles;
    uint32_t lds_max_passes;       /* worst pass count of one lane group */
    uint64_t lines, sectors;       /* global: after coalescing */
    uint64_t l1_hits, l1_misses;
    uint64_t l2_hits, l2_misses;   /* reads, writes and atomics together */
    uint64_t dram_bytes_read;
} mem_inst_stats;

/* Per workgroup (linear id). */
typedef struct mem_group_stats {
    uint64_t l2_read_hits, l2_read_misses;
    uint64_t l2_hits, l2_misses;   /* all kinds */
    uint64_t lds_cycles, lds_conflict_cycles;
    uint32_t cu;                   /* where it ran */
    uint32_t launch_order;         /* position in the launch order */
    uint32_t launch_step, end_step;/* replay steps */
} mem_group_stats;

/* The estimate's bounds: the throughput units, the busiest L2 atomic unit (only with a preset that has
 * "l2_atomic_cycles"), then the latency bound (only with a preset that has "l1_hit_latency"; 0 cycles
 * otherwise). */
typedef enum mem_unit {
    MEM_UNIT_VALU, MEM_UNIT_SALU, MEM_UNIT_LDS, MEM_UNIT_MEMORY, MEM_UNIT_L2, MEM_UNIT_DRAM, MEM_UNIT_ATOMIC,
    MEM_UNIT_LATENCY,
    MEM_UNIT_COUNT
} mem_unit;

const char *mem_unit_name(mem_unit u);   /* "valu", ..., "dram", "latency" */

/* Where a waited-on load was served, for the latency chain: the deepest level any of its sectors reached. */
typedef enum mem_level {
    MEM_LEVEL_LDS, MEM_LEVEL_L1, MEM_LEVEL_L2, MEM_LEVEL_DRAM, MEM_LEVEL_COUNT
} mem_level;

const char *mem_level_name(mem_level l); /* "lds", "l1", "l2", "dram" */

/* A roofline: cycles each unit needs at its peak throughput, and, with a preset that has the latency
 * fields, the latency bound; the estimate is the largest.  docs/memory.md ("The estimate", "The latency
 * term") says how each is computed and what it ignores. */
typedef struct mem_estimate {
    double unit_cycles[MEM_UNIT_COUNT];
    double cycles;                 /* max of unit_cycles */
    double microseconds;           /* cycles / clock_mhz */
    mem_unit bound_unit;
    double percent_of_peak[MEM_UNIT_COUNT]; /* unit_cycles / cycles * 100 */
    /* The latency term (has_latency: the preset has "l1_hit_latency").  Per-CU units are then the busiest
     * CU's share: busiest_cu_groups of the dispatch's workgroups, instead of 1 / compute_units of them. */
    int has_latency;
    uint32_t cus_occupied;         /* CUs that ran at least one workgroup */
    uint32_t busiest_cu_groups;    /* the most workgroups one CU ran */
    uint32_t latency_cu;           /* the CU whose latency bound is the largest (the bound) */
    uint32_t latency_cu_waves;     /* waves that ran on it */
    uint32_t latency_wave_slots;   /* waves it holds at once (occupancy) */
    uint32_t chain_group, chain_wave;          /* the wave with the longest chain on that CU */
    uint64_t chain_loads[MEM_LEVEL_COUNT];     /* its waited-on loads by the level that served them */
    int chain_warm;                /* the dispatch's DRAM reads fit in the L2: DRAM loads count at the L2's
                                    * latency (a repeated dispatch finds them there) */
    double chain_issue_cycles;     /* its issue share: the dispatch's wave instructions per wave (VALU x passes) */
    double chain_cycles;           /* its chain: loads x latency of their level + issue */
    /* The atomic term (has_atomic: the preset has "l2_atomic_cycles"): the passes of the L2 atomic unit with
     * the most (docs/memory.md, "Atomics"), times that many cycles each. */
    int has_atomic;
    uint64_t atomic_busiest_passes;
} mem_estimate;

/* Whether the estimate has unit u: the latency and atomic terms only with their preset fields. */
int mem_estimate_has_unit(const mem_estimate *e, mem_unit u);

typedef struct mem_model mem_model;

typedef struct mem_model_options {
    const mem_machine *machine;    /* required; copied */
    const uint32_t *launch_order;  /* optional: linear workgroup ids in launch order (a permutation); NULL = linear */
    uint32_t launch_order_count;
    int threads;                   /* 1 (or 0): replay on the executor's thread; 2: replay on a second thread */
    uint32_t vgprs_per_lane;       /* optional: VGPRs a lane of this program allocates (occupancy); 0 = no limit */
    uint32_t capture_wave;         /* LDS explain: the wave whose first execution of each LDS pc is kept */
} mem_model_options;

/* Creates a model (free with mem_model_destroy).  Returns MEM_OK or MEM_ERR_NOMEM. */
mem_status mem_model_create(const mem_model_options *opt, mem_model **out);
void mem_model_destroy(mem_model *m);

/* Before sim_run: the program and the grid it will run.  Returns MEM_OK, or
 * MEM_ERR_PRESET when the workgroup cannot fit on one CU of the machine (err says why). */
mem_status mem_model_begin(mem_model *m, const isa_program *prog, const uint32_t groups[3], uint32_t wave_size,
                           char *err, size_t err_size);

/* The sink to put in sim_config.mem_trace (owned by the model). */
const sim_mem_trace *mem_model_trace(mem_model *m);

/* After sim_run (whatever its status): finishes the replay and computes the
 * estimate from the executor's instruction counts. */
void mem_model_end(mem_model *m, const sim_stats *exec_stats);

const mem_machine *mem_model_machine(const mem_model *m);
const mem_stats *mem_model_stats(const mem_model *m);
const mem_estimate *mem_model_estimate(const mem_model *m);
/* Arrays of inst_count / group_count entries (valid after mem_model_end). */
const mem_inst_stats *mem_model_inst_stats(const mem_model *m, uint32_t *inst_count);
const mem_group_stats *mem_model_group_stats(const mem_model *m, uint32_t *group_count, uint32_t groups[3]);
uint32_t mem_model_workgroups_per_cu(const mem_model *m);
/* Per wave (valid after mem_model_end): at [group * waves_per_group + wave], the replay step in which the
 * wave issued its last memory instruction (a wave with none: the step its group launched in).  A group's
 * end_step is the largest of its waves'. */
const uint32_t *mem_model_wave_end_steps(const mem_model *m, uint32_t *waves_per_group);

/* L1 read hit rate (0 when no L1 read). */
double mem_stats_l1_read_hit_rate(const mem_stats *s);
/* L2 hit rate over reads, writes and atomics (0 when no access). */
double mem_stats_l2_hit_rate(const mem_stats *s);
double mem_stats_l2_read_hit_rate(const mem_stats *s);
/* The L2 read requests the slices see once the L1 has merged its share (m->l1_miss_merge) of the merge
 * candidates: what Nsight Compute's lts__t_requests_op_read counts (docs/memory.md). */
double mem_stats_l2_read_requests_merged(const mem_stats *s, const mem_machine *m);

/* The first execution of LDS instruction pc by the capture wave: returns 1 and
 * fills the lane addresses (wave_size entries), exec and bytes per lane. */
int mem_model_lds_capture(const mem_model *m, uint32_t pc, sim_mask *exec, uint64_t *addr, uint32_t *bytes_per_lane,
                          uint32_t *group_linear);

/* ------------------------------------------------------------ pieces, for tests and explain */

/*
 * LDS passes of one wave instruction: active lanes are served in groups of
 * lds_lanes_per_cycle / max(1, bytes_per_lane / lds_bank_bytes) consecutive
 * lanes; a group needs as many passes as the largest number of distinct
 * words that fall in one bank (same word = broadcast, one pass).  Returns the
 * cycles (passes summed over groups); *ideal = groups with an active lane,
 * *max_passes = the worst group.  passes_per_bank (optional, lds_banks entries)
 * receives the distinct words per bank of the worst group.
 */
uint32_t mem_lds_cycles(const mem_machine *m, uint32_t wave_size, sim_mask exec, const uint64_t *addr,
                        uint32_t bytes_per_lane, uint32_t *ideal, uint32_t *max_passes);

/* A standalone cache with the given geometry, for tests: returns an opaque
 * handle (free with mem_cache_destroy) or NULL. */
typedef struct mem_cache mem_cache;
mem_cache *mem_cache_create(const mem_cache_geometry *g);
void mem_cache_destroy(mem_cache *c);
/* Reads (is_write 0) or writes one byte address; returns 1 on a hit. */
int mem_cache_access(mem_cache *c, uint64_t address, int is_write);

/* ------------------------------------------------------------ output */

/* The "memory" object of `--dump` stats (caller owns; a cJSON *). */
void *mem_model_json(const mem_model *m, const isa_program *prog);
/* The human summary's memory section. */
void mem_model_print(const mem_model *m, const isa_program *prog, FILE *f);

#endif
