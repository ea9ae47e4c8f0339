/*
 * run/memory.c — a machine preset's memory model for a run (run_memory_open, run.h): the one place that decides
 * what `--machine` does to a run, for every command and the C API.
 */
#include <stdio.h>

#include "run/run.h"
#include "sim/machine.h"
#include "sim/memmodel.h"

int run_memory_open(const char *machine, int image_layout, int threads, const wl_case *c, run_options *opt,
                    char *warning, size_t warning_size, char *err, size_t err_size)
{
    mem_machine m;
    if (warning_size)
        warning[0] = 0;
    if (mem_machine_load(machine, &m, err, err_size) != MEM_OK)
        return RUN_EXIT_BAD_INPUT;
    if (image_layout >= 0)
        m.image_layout = (img_layout)image_layout;
    if (!opt->wave_size && !c->subgroup_size)
        opt->wave_size = m.default_wave;
    uint32_t wave = opt->wave_size ? opt->wave_size : c->subgroup_size;
    int supported = 0;
    for (uint32_t i = 0; i < m.wave_size_count; i++)
        supported |= m.wave_sizes[i] == wave;
    if (!supported)
        snprintf(warning, warning_size, "warning: machine '%s' does not run wave %u; modelling it anyway\n", m.name,
                 wave);
    mem_model_options mo = {.machine = &m, .threads = threads};
    if (mem_model_create(&mo, &opt->memory) != MEM_OK) {
        snprintf(err, err_size, "out of memory");
        return RUN_EXIT_BAD_INPUT;
    }
    return 0;
}
