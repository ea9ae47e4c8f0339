/*
 * sim/step.c — the executor's observers that are not on its hot path: the
 * step hook that follows one wave instruction by instruction (`wavelab
 * trace`).  The executor asks once per run of a wave whether the hook
 * follows it, so a dispatch without a hook pays one predictable branch per
 * instruction and nothing else.
 */
#include "sim/sim_internal.h"

const sim_step_hook *sim_step_followed(const sim_ctx *ctx, const sim_wave *w)
{
    const sim_step_hook *h = ctx->cfg->step;
    if (!h || !h->step || h->wave != w->index)
        return NULL;
    if (h->group[0] != ctx->group[0] || h->group[1] != ctx->group[1] || h->group[2] != ctx->group[2])
        return NULL;
    return h;
}

void sim_step_call(const sim_ctx *ctx, const sim_wave *w, const sim_step_hook *hook, uint32_t pc, sim_mask exec)
{
    sim_step s = {
        .pc = pc,
        .wave_size = ctx->wave_size,
        .exec = exec,
        .live = w->live,
        .regs = w->regs,
        .masks = w->masks,
    };
    hook->step(hook->user, &s);
}
