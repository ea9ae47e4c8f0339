/*
 * cli/bench.c — `wavelab bench`: the executor's speed, measured.
 *
 * Two kernels built into the binary (so the numbers do not depend on a case
 * file): an ALU-heavy loop of integer and float arithmetic, and a
 * memory-heavy kernel that streams a buffer through loads, stores and a
 * shared-memory exchange.  Each is compiled and lowered once, then dispatched
 * repeatedly for about --seconds; the report gives wave instructions and lane
 * operations per second of host time, on one host thread.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "isa/isa.h"
#include "run/run.h"
#include "sim/sim.h"

static const char bench_alu[] =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0) buffer Out { uint data[]; } o;\n"
    "void main() {\n"
    "  uint x = gl_GlobalInvocationID.x;\n"
    "  uint h = x * 2654435761u;\n"
    "  float f = float(x) * 0.5;\n"
    "  for (uint i = 0; i < 256u; i++) {\n"
    "    h = (h ^ (h >> 15)) * 2246822519u + i;\n"
    "    f = f * 0.999 + float(h & 255u);\n"
    "  }\n"
    "  o.data[x] = h + uint(f);\n"
    "}\n";

static const char bench_mem[] =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0) buffer In { uint a[]; } src;\n"
    "layout(set = 0, binding = 1) buffer Out { uint b[]; } dst;\n"
    "shared uint tile[64];\n"
    "void main() {\n"
    "  uint x = gl_GlobalInvocationID.x, l = gl_LocalInvocationIndex;\n"
    "  uint acc = 0u;\n"
    "  for (uint i = 0; i < 32u; i++) {\n"
    "    uint v = src.a[(x * 7u + i * 64u) % 65536u];\n"
    "    tile[l] = v;\n"
    "    barrier();\n"
    "    acc += tile[63u - l];\n"
    "    barrier();\n"
    "  }\n"
    "  dst.b[x] = acc;\n"
    "}\n";

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* This thread's CPU time: on a machine shared with other work, the rate per CPU second is the stable figure. */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_one(const char *name, const char *source, uint32_t wave, double seconds, uint32_t groups)
{
    isa_compile_options o = {.path = name, .source = source, .language = "glsl"};
    uint32_t *words = NULL;
    size_t n = 0;
    char err[4096] = "", warn[1024] = "";
    if (isa_compile(&o, &words, &n, err, sizeof err, warn, sizeof warn) != ISA_OK) {
        fprintf(stderr, "%s", err);
        return RUN_EXIT_BAD_INPUT;
    }
    isa_program *p = NULL;
    if (isa_lower(words, n, "main", &p, err, sizeof err) != ISA_OK) {
        fprintf(stderr, "%s: %s\n", name, err);
        free(words);
        return RUN_EXIT_BAD_INPUT;
    }
    free(words);
    size_t elems = 65536;
    uint32_t *a = calloc(elems, 4), *b = calloc(elems, 4);
    for (size_t i = 0; i < elems; i++)
        a[i] = (uint32_t)(i * 2654435761u);
    sim_buffer bufs[2] = {{0, 0, (uint8_t *)a, elems * 4, 0}, {0, 1, (uint8_t *)b, elems * 4, 0}};
    sim_config cfg = {.wave_size = wave, .groups = {groups, 1, 1}, .buffers = bufs, .buffer_count = 2};
    uint64_t insts = 0, lanes = 0;
    int runs = 0;
    double t0 = now_seconds(), t = 0, c0 = cpu_seconds();
    do {
        sim_result r;
        if (sim_run(p, &cfg, &r) != SIM_OK) {
            fprintf(stderr, "%s: %s\n", name, r.fault_event.message);
            sim_result_free(&r);
            break;
        }
        insts += r.stats.wave_instructions;
        lanes += r.stats.lane_operations;
        sim_result_free(&r);
        runs++;
        t = now_seconds() - t0;
    } while (t < seconds);
    double cpu = cpu_seconds() - c0;
    printf("%-8s wave %3u  %4d dispatches of %u x 64 invocations  %8.2f M wave-instr/s  %9.1f M lane-ops/s  "
           "(%.2f M wave-instr per CPU s)\n",
           name, wave, runs, groups, (double)insts / t * 1e-6, (double)lanes / t * 1e-6,
           cpu > 0 ? (double)insts / cpu * 1e-6 : 0.0);
    free(a);
    free(b);
    isa_program_destroy(p);
    return RUN_EXIT_OK;
}

int cli_cmd_bench(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_bench, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    double seconds = o.given[CLI_OPT_seconds] ? o.seconds : 1.0;
    uint32_t waves[8] = {8, 32, 64};
    int nwaves = 3;
    if (o.wave)
        waves[0] = (uint32_t)o.wave, nwaves = 1;
    printf("wavelab bench: one host thread, %.1f s per line\n", seconds);
    for (int k = 0; k < nwaves; k++) {
        int rc = bench_one("alu", bench_alu, waves[k], seconds, 64);
        if (rc)
            return rc;
        rc = bench_one("memory", bench_mem, waves[k], seconds, 64);
        if (rc)
            return rc;
    }
    return RUN_EXIT_OK;
}
