/*
 * sim/machine.h — machine presets: the numbers of one GPU (or CPU device)
 * that the memory model, the occupancy calculation and the time estimate
 * read.  Presets are data: machines/NAME.json, every number citing its public
 * source in a "sources" object keyed by field (sim/machine_fields.def is the
 * table of fields; docs/memory.md shows it).  This header is the module's
 * public face for other modules (register allocation reads the register-file
 * fields from here).
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

/* The scalar members are generated from sim/machine_fields.def (one per MF_UINT, MF_NUMBER, MF_POSITIVE or
 * MF_ENUM row; their meaning is the row's); the rest are declared by hand here. */
#define MF_MEMBER_MF_UINT(member) uint32_t member;
#define MF_MEMBER_MF_NUMBER(member) double member;
#define MF_MEMBER_MF_POSITIVE(member) double member;
#define MF_MEMBER_MF_ENUM(member) uint32_t member; /* the index of the word (mem_write_back, img_layout) */
#define MF_MEMBER_MF_TEXT(member)
#define MF_MEMBER_MF_ARRAY(member)
#define MF_MEMBER_MF_OBJECT(member)

typedef struct mem_machine {
    char name[64];
    char description[256];
    char path[512];                 /* the file it came from */
    uint32_t wave_sizes[MEM_MAX_WAVE_SIZES];
    uint32_t wave_size_count;
    mem_cache_geometry l1;          /* per CU; bytes 0 when the preset has no "l1" */
    mem_cache_geometry l2;
    mem_dispatch dispatch;          /* optional ("dispatch"): placement and per-group pace in the replay */
#define MACHINE_FIELD(json, member, kind, lo, hi, choices, presence, deflt, source, meaning) MF_MEMBER_##kind(member)
#include "sim/machine_fields.def"
#undef MACHINE_FIELD
} mem_machine;

/*
 * Parses a preset from JSON text; `file` names it in messages.  The fields,
 * their ranges, which are required and which need an entry in "sources":
 * sim/machine_fields.def.  Returns MEM_OK, or MEM_ERR_PRESET with
 * "FILE: field 'NAME': what is wrong" in err.
 */
mem_status mem_machine_parse(const char *json_text, const char *file, mem_machine *out, char *err, size_t err_size);

/*
 * Row `i` of sim/machine_fields.def for the documentation (`wavelab machines
 * --fields`, docs/memory.md's table): its JSON name, what its value may be as
 * a phrase into `value` ("integer, 1 to 1024; required"), and its
 * meaning (Markdown).  Returns 0 past the last row.
 */
int mem_machine_field_doc(size_t i, const char **name, char *value, size_t value_size, const char **meaning);

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
