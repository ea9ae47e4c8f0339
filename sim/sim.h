/*
 * sim/sim.h — the wave machine: runs an isa_program over a grid of
 * workgroups, wave by wave, with exact exec-mask and subgroup semantics.
 *
 * Schedule (deterministic, documented in docs/design.md): workgroups run one
 * after another in linear order (x fastest); inside a workgroup, waves run in
 * index order, each until it reaches a barrier or ends; when every live wave
 * waits at the barrier all are released.  Atomics therefore happen in a fixed
 * order: workgroup, then wave, then lane index.
 *
 * Memory is the caller's: sim_run reads and writes the buffers in place.
 */
#ifndef WAVELAB_SIM_H
#define WAVELAB_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "img/img.h"
#include "isa/isa.h"

#define SIM_MIN_WAVE 4
#define SIM_MAX_WAVE 128   /* Shader Model 6.6 [WaveSize(128)]; no Vulkan device we test on has it */
/* The wave sizes the simulator runs: a power of two from SIM_MIN_WAVE to SIM_MAX_WAVE (sim_run, every --wave). */
static inline int sim_wave_size_valid(unsigned long w) { return w >= SIM_MIN_WAVE && w <= SIM_MAX_WAVE && !(w & (w - 1)); }

/*
 * A wave-wide lane mask (exec masks, ballots, mask registers): bit l is lane
 * l, up to SIM_MAX_WAVE lanes.  A native 128-bit integer: &, |, ~, ==, and
 * (m >> l) & 1 read as they did with 64 bits, and on x86-64 each is two
 * 64-bit instructions, so waves of 32 and 64 lanes pay almost nothing
 * (measured: docs/performance.md).  Helpers in sim/sim_internal.h.
 */
typedef unsigned __int128 sim_mask;

typedef struct sim_buffer {
    uint32_t set, binding;
    uint8_t *data;      /* caller owns; updated in place */
    size_t size;        /* bytes */
    uint32_t element;   /* of a descriptor array; 0 for a single descriptor */
} sim_buffer;

/*
 * An image, sampler or combined image sampler binding (not texel buffers:
 * those are sim_buffer).  A storage image is read and written in place.
 */
typedef struct sim_image {
    uint32_t set, binding;
    img_image *image;             /* caller owns; NULL for a sampler binding; a view of one mip of a caller's image
                                   * is an img_image of its own (img_mip_view) */
    const img_sampler *sampler;   /* sampler and combined image sampler bindings; NULL otherwise */
    uint32_t element;             /* of a descriptor array; 0 for a single descriptor */
} sim_image;

/*
 * One executed memory wave instruction (LOAD, STORE, ATOMIC, IMG_READ,
 * IMG_WRITE of any class, LDS included), handed to an optional trace sink
 * after it completed.  The memory model (sim/memmodel.h) consumes these; the
 * executor's results never depend on the sink.
 */
typedef struct sim_mem_access {
    uint32_t group_linear;     /* x + y*gx + z*gx*gy */
    uint32_t wave;             /* wave index inside the workgroup */
    uint32_t pc;
    uint16_t op;               /* isa_op */
    uint8_t cls;               /* isa_class as lowered (VMEM, SMEM, LDS) */
    uint8_t space;             /* isa_space of the slot */
    uint16_t slot;
    uint16_t elem_bytes;       /* bytes of one component (texels: bytes of one texel) */
                               /* images: addr is img_layout_address in sim_config.image_layout, per lane the texel
                                * the instruction reads or writes (sampling: the texel nearest the coordinate) */
    uint16_t count;            /* consecutive components per lane (texels: 1) */
    uint32_t wave_size;
    sim_mask exec;             /* lanes that accessed memory */
    const uint64_t *addr;      /* per lane byte address of the first component, in the slot (wave_size entries) */
} sim_mem_access;

typedef struct sim_mem_trace {
    void (*access)(void *user, const sim_mem_access *a);
    void *user;
    /* Optional.  With it, a dispatch may run on several host threads while traced: `access` is still called
     * from one thread at a time, in exactly the order of the one-thread run (workgroup by workgroup).  If the
     * dispatch then has to run again on one thread (see sim_run), `restart` is called first: the sink must
     * forget every access it was given.  Without it, a traced dispatch runs on one thread. */
    void (*restart)(void *user);
} sim_mem_trace;

/*
 * Legal orders of a dispatch.  LINEAR is the documented schedule above.
 * REVERSED runs workgroups in reverse linear order and, between barriers,
 * the waves of a workgroup in reverse index order (lanes stay in order: a
 * wave is one instruction stream).  Both are orders a GPU may choose; an
 * output that differs between them depends on the schedule.
 */
typedef enum sim_schedule { SIM_SCHEDULE_LINEAR = 0, SIM_SCHEDULE_REVERSED } sim_schedule;

/*
 * One wave instruction about to run, handed to an optional step hook
 * (sim_config.step) for the one wave the hook follows.  The registers and
 * masks are the wave's own, as every earlier instruction left them; the hook
 * sees what an instruction wrote at the next call (the wave's last call is its
 * END).  `wavelab trace` (cli/trace.c) is built on it.
 */
typedef struct sim_step {
    uint32_t pc;
    uint32_t wave_size;
    sim_mask exec;             /* lanes this instruction runs for */
    sim_mask live;             /* lanes that exist (a partial last wave has fewer) */
    const uint64_t *regs;      /* register r, lane l at regs[r * wave_size + l] (read only) */
    const sim_mask *masks;     /* the wave's mask registers (isa_program.mask_count) */
} sim_step;

typedef struct sim_step_hook {
    uint32_t group[3];         /* the workgroup whose wave is followed */
    uint32_t wave;             /* that wave's index inside the workgroup */
    void (*step)(void *user, const sim_step *s);
    void *user;
} sim_step_hook;

/* Called after each workgroup finishes, with the workgroups finished so far
 * and the total (on several host threads: from any of them, concurrently; a
 * dispatch that falls back to one thread starts counting again). */
typedef struct sim_progress {
    void (*done)(void *user, uint64_t groups_done, uint64_t groups_total);
    void *user;
} sim_progress;

typedef struct sim_config {
    uint32_t wave_size;           /* power of two, SIM_MIN_WAVE..SIM_MAX_WAVE */
    uint32_t groups[3];           /* workgroup count */
    uint64_t instruction_budget;  /* wave instructions per dispatch before a "runaway" fault; 0 = 1e9 */
    const uint8_t *push;          /* push constant bytes (may be NULL) */
    size_t push_size;
    sim_buffer *buffers;
    int buffer_count;
    /* Optional: NULL, or one pointer per buffers[] entry (each may be NULL) to `size` bytes equal to that
     * buffer's contents when sim_run starts, kept by the caller (a case's initial bytes).  A multi-threaded
     * dispatch that must fall back to one thread restores from them instead of keeping a snapshot copy of
     * every written buffer, so a run's memory stays within twice its buffer bytes (issue 11). */
    const uint8_t *const *buffer_initial;
    sim_image *images;            /* image and sampler bindings (sim/image_exec.c) */
    int image_count;
    int image_layout;             /* img_layout of the image addresses handed to mem_trace (the machine preset's
                                   * "image_layout"; IMG_LAYOUT_LINEAR = 0 by default); never changes results */
    const sim_mem_trace *mem_trace; /* optional: called once per executed memory wave instruction; NULL = none */
    int robust_access;            /* robustBufferAccess2: a buffer or texel-buffer access outside its binding reads 0
                                   * and writes nothing (counted in robust_loads/robust_stores) instead of faulting;
                                   * shared and private memory still fault */
    uint32_t threads;             /* host threads for workgroups (0 or 1: this thread).  Results never depend on
                                   * it: see "Host threads" in sim_run's comment */
    int sanitize;                 /* nonzero: racecheck, initcheck, inactive-lane reads and synccheck, reported as
                                   * result->findings (sim/sanitize.c); the dispatch then runs on one thread */
    const uint8_t *uninitialized; /* optional, one per buffer: nonzero where the contents are unspecified (under
                                   * sanitize, reading a byte the dispatch has not written is an initcheck finding) */
    sim_schedule schedule;        /* the order of workgroups and waves (default: linear) */
    const sim_step_hook *step;    /* optional: called before each instruction of one wave; NULL = none (one
                                   * predictable branch per instruction).  With it the dispatch runs on one
                                   * host thread, whatever `threads` says */
    const sim_progress *progress; /* optional: called after each workgroup; never changes results */
    int portable;                 /* nonzero: the executor built for any x86-64, even where the host has AVX2 and
                                   * F16C; results are the same bits either way (tests compare the two) */
} sim_config;

typedef struct sim_stats {
#define X(name, meaning) uint64_t name;
#include "sim/counters.def"
#undef X
    uint64_t by_class[ISA_CLASS_COUNT];   /* wave instructions by class */
    uint64_t by_op[ISA_OP_COUNT];         /* wave instructions by opcode */
    uint64_t *inst_executions;            /* per program instruction (code_count entries) */
    uint64_t *inst_lanes;                 /* active lanes summed per program instruction */
    uint32_t inst_count;
} sim_stats;

typedef enum sim_fault_kind {
    SIM_FAULT_NONE = 0,
    SIM_FAULT_OUT_OF_BOUNDS,   /* buffer, texel buffer, shared or private memory */
    SIM_FAULT_DEADLOCK,        /* waves of a workgroup at different barriers, or some ended while others wait */
    SIM_FAULT_BUDGET,          /* instruction budget exhausted: a runaway kernel */
    SIM_FAULT_MISSING_BINDING, /* the kernel uses a binding the case does not provide */
    SIM_FAULT_UNSUPPORTED      /* an operation the model cannot perform with these operands */
} sim_fault_kind;

const char *sim_fault_kind_name(sim_fault_kind k);

/* Where something happened: enough to find it in the listing and the source. */
#define SIM_PC_DISPATCH UINT32_MAX
typedef struct sim_location {
    uint32_t pc;            /* instruction index in the program; SIM_PC_DISPATCH: no wave's (a refused grid) */
    uint32_t line;          /* source line, 0 when unknown */
    uint32_t spirv_word;
    uint32_t group[3];      /* workgroup id */
    uint32_t wave;          /* wave index inside the workgroup */
    int32_t lane;           /* lane, -1 when not lane specific */
    int64_t address;        /* byte offset in the slot, -1 when none */
    int32_t slot;           /* isa_program slot, -1 when none */
} sim_location;

typedef struct sim_event {
    sim_location where;
    char message[256];
} sim_event;

#define SIM_MAX_EVENTS 64

/* What the sanitizer (sim_config.sanitize) reports: each kind at most once per instruction. */
#define SIM_FINDING_LIST(X) \
    X(RACE, "racecheck", "conflicting accesses from different waves (or lanes of one store) with no barrier between") \
    X(UNINITIALIZED, "initcheck", "a read of memory that nothing wrote") \
    X(INACTIVE_LANE, "inactive-lane", "a cross-lane read of a lane that is inactive or outside the wave") \
    X(DIVERGENT_BARRIER, "synccheck", "a barrier reached in control flow that is not uniform across the workgroup") \
    X(SCHEDULE, "schedule", "an output that changes under another legal order of waves and workgroups")

typedef enum sim_finding_kind {
#define X(id, name, meaning) SIM_FINDING_##id,
    SIM_FINDING_LIST(X)
#undef X
    SIM_FINDING_KIND_COUNT
} sim_finding_kind;

/* "racecheck", "initcheck", ... */
const char *sim_finding_kind_name(sim_finding_kind k);

typedef struct sim_finding {
    sim_finding_kind kind;
    sim_location where;      /* the access (or barrier) that found it: lane and address of its first offending lane */
    char message[256];
} sim_finding;

#define SIM_MAX_FINDINGS 64

typedef struct sim_result {
    sim_stats stats;
    sim_fault_kind fault;
    sim_event fault_event;               /* valid when fault != NONE */
    sim_event events[SIM_MAX_EVENTS];    /* first undefined-behaviour reports */
    int event_count;                     /* stored in events[] (the total is stats.undefined_events) */
    sim_finding findings[SIM_MAX_FINDINGS]; /* cfg->sanitize: the first findings, in schedule order */
    int finding_count;                   /* stored in findings[] */
    uint64_t finding_total;              /* sites found (kind, instruction), stored or not */
} sim_result;

typedef enum sim_status {
    SIM_OK = 0,       /* ran to the end */
    SIM_FAULT,        /* stopped by a kernel fault: see result->fault_event */
    SIM_ERR_CONFIG,   /* bad configuration (wave size, missing buffer, ...): message in result->fault_event */
    SIM_ERR_NOMEM
} sim_status;

/*
 * Host threads: with cfg->threads > 1, workgroups run on several threads only
 * when the order cannot show: no mem_trace, no atomics on buffers, and no
 * buffer both read and written by the kernel.  Every buffer write is then
 * checked against a per-word record of the workgroup that wrote it; if two
 * workgroups write the same word, or a run faults, reports undefined
 * behaviour or exceeds the budget, the buffers are restored and the dispatch
 * runs again on one thread.  Either way the outputs, statistics, events and
 * faults are those of the one-thread schedule.
 *
 * Runs one dispatch.  `result` is filled (caller provides it; free its
 * per-instruction arrays with sim_result_free).
 */
sim_status sim_run(const isa_program *prog, const sim_config *cfg, sim_result *result);

void sim_result_free(sim_result *r);

/* Formats a location as "pc 12 (line 7, word 345), workgroup (1,0,0) wave 2 lane 5, slot 'out' address 0x40". */
void sim_location_format(const isa_program *prog, const sim_location *loc, char *buf, size_t size);

#endif
