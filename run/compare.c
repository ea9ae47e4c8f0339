/*
 * run/compare.c — one side of `wavelab compare`: a case run by run_case_sim,
 * its expectations checked, and the statistics the comparison table shows
 * copied out of the run (the counters sim/counters.def names, the classes,
 * the allocation, and the memory model's statistics and estimate), so
 * cli/compare.c prints numbers that `wavelab run --dump` also reports.
 */
#include <string.h>

#include "run/run.h"
#include "sim/memmodel.h"

double run_lane_utilisation(uint64_t lane_operations, uint64_t wave_instructions, uint32_t wave_size)
{
    return wave_instructions ? (double)lane_operations / ((double)wave_instructions * wave_size) : 0.0;
}

int run_compare_side(const wl_case *c, const run_options *opt, run_side *side, FILE *log, char *err,
                     size_t err_size)
{
    memset(side, 0, sizeof *side);
    run_output out;
    int rc = run_case_sim(c, opt, &out, err, err_size);
    side->wave_size = out.wave_size;
    if (rc == RUN_EXIT_BAD_INPUT) {
        run_output_free(&out);
        return rc;
    }
    const sim_stats *s = &out.result.stats;
#define X(name, meaning) side->name = s->name;
#include "sim/counters.def"
#undef X
    memcpy(side->by_class, s->by_class, sizeof side->by_class);
    side->vgprs = out.prog->res.vgprs;
    side->sgprs = out.prog->res.sgprs;
    if (out.memory && rc == RUN_EXIT_OK) {
        const mem_machine *m = mem_model_machine(out.memory);
        uint32_t vgprs_used;
        side->has_memory = 1;
        side->occupancy = mem_machine_occupancy(m, out.prog, out.wave_size, 0, &vgprs_used);
        side->memory = *mem_model_stats(out.memory);
        side->estimate = *mem_model_estimate(out.memory);
    }
    if (rc == RUN_EXIT_FAIL) {
        run_fault_text(&out, err, err_size);
        side->faulted = 1;
    } else {
        side->failures = run_check_expects(c, out.data, log);
        if (side->failures)
            rc = RUN_EXIT_FAIL;
    }
    run_output_free(&out);
    return rc;
}
