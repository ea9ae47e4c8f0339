/*
 * sim/sanitize.h — private to sim/: the sanitizer's entry points, called by
 * the executor only when sim_config.sanitize is set (ctx->sanitize != NULL),
 * so a run without it pays one predictable branch per memory instruction.
 *
 * The sanitizer keeps shadow state beside the memory it watches:
 *   - shared memory, per byte: the last write (wave, lane, pc, barrier epoch,
 *     atomic or not), the last read (wave, lane, pc, epoch, whether several
 *     waves read in that epoch), and whether anything wrote it this
 *     workgroup;
 *   - buffers the kernel writes (or the case marks uninitialized), per byte:
 *     the same, compared within one workgroup only; written-ness for the
 *     whole dispatch;
 *   - images the kernel writes (or the case marks uninitialized), per texel: the same as buffers;
 *   - private memory, per lane and byte: whether it was written.
 * An epoch is one stretch between barriers of one workgroup: two accesses in
 * the same epoch from different waves are unordered.
 */
#ifndef WAVELAB_SIM_SANITIZE_H
#define WAVELAB_SIM_SANITIZE_H

#include "sim/sim_internal.h"

/* Allocates ctx->sanitize for the dispatch; returns SIM_OK or SIM_ERR_NOMEM. */
sim_status sim_sanitize_begin(sim_ctx *ctx);
void sim_sanitize_end(sim_ctx *ctx);

/* Before memory instruction `in` of wave w runs with `exec`: checks and records every in-bounds byte it touches
 * (out-of-bounds lanes are left to the executor's fault).  Returns 0 (findings never stop the run). */
int sim_sanitize_memory(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc, uint64_t exec);

/* Image instruction `in` (IMG_LOAD, IMG_STORE, IMG_ATOMIC) of wave w on the lanes of `exec` that are in bounds,
 * at[l] lane l's texel.  Checks and records each texel of a watched image (one the kernel writes, or the case
 * marks uninitialized), as sim_sanitize_memory does bytes; two lanes of one store writing different values to
 * one texel is a race. */
void sim_sanitize_image(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc, uint64_t exec,
                        const sim_texel_at *at);

/* What the sanitizer's texel_read callback (img/img.h) needs to know of the sample being taken: the caller sets
 * `lane` before each lane's sample or gather. */
typedef struct sim_texel_reader {
    sim_ctx *ctx;
    const sim_wave *w;
    const isa_inst *in;
    uint32_t pc, lane;
} sim_texel_reader;

/* Sampling instruction `in` (IMG_SAMPLE, IMG_GATHER) of wave w: when the sanitizer checks the texels its image's
 * samples read (initcheck on an image the case marks uninitialized), installs on `copy` (the caller's copy of
 * the sampler) the texel_read callback that checks each texel a lane reads from memory, with `reader` as its
 * user, and returns 1; otherwise returns 0 and leaves `copy` alone. */
int sim_sanitize_watch_sampler(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc, img_sampler *copy,
                               sim_texel_reader *reader);

/* When no wave of the current workgroup is ready and at least one waits at a barrier: synccheck (a wave at a
 * barrier with live lanes outside exec; waves at different barriers). */
void sim_sanitize_barrier(sim_ctx *ctx);

/* Records a finding of `kind` at pc unless that site was already reported. */
void sim_sanitize_report(sim_ctx *ctx, const sim_wave *w, uint32_t pc, sim_finding_kind kind, int32_t lane,
                         int32_t slot, int64_t address, const char *fmt, ...) __attribute__((format(printf, 8, 9)));

#endif
