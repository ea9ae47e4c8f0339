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

#include "isa/isa.h"

#define SIM_MIN_WAVE 4
#define SIM_MAX_WAVE 64

typedef struct sim_buffer {
    uint32_t set, binding;
    uint8_t *data;      /* caller owns; updated in place */
    size_t size;        /* bytes */
} sim_buffer;

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
    uint16_t count;            /* consecutive components per lane (texels: 1) */
    uint32_t wave_size;
    uint64_t exec;             /* lanes that accessed memory */
    const uint64_t *addr;      /* per lane byte address of the first component, in the slot (wave_size entries) */
} sim_mem_access;

typedef struct sim_mem_trace {
    void (*access)(void *user, const sim_mem_access *a);
    void *user;
} sim_mem_trace;

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
    uint64_t exec;             /* lanes this instruction runs for */
    uint64_t live;             /* lanes that exist (a partial last wave has fewer) */
    const uint64_t *regs;      /* register r, lane l at regs[r * wave_size + l] (read only) */
    const uint64_t *masks;     /* the wave's mask registers (isa_program.mask_count) */
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
    const sim_mem_trace *mem_trace; /* optional: called once per executed memory wave instruction; NULL = none */
    uint32_t threads;             /* host threads for workgroups (0 or 1: this thread).  Results never depend on
                                   * it: see "Host threads" in sim_run's comment */
    const sim_step_hook *step;    /* optional: called before each instruction of one wave; NULL = none (one
                                   * predictable branch per instruction).  With it the dispatch runs on one
                                   * host thread, whatever `threads` says */
    const sim_progress *progress; /* optional: called after each workgroup; never changes results */
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
typedef struct sim_location {
    uint32_t pc;            /* instruction index in the program */
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

typedef struct sim_result {
    sim_stats stats;
    sim_fault_kind fault;
    sim_event fault_event;               /* valid when fault != NONE */
    sim_event events[SIM_MAX_EVENTS];    /* first undefined-behaviour reports */
    int event_count;                     /* stored in events[] (the total is stats.undefined_events) */
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
