/*
 * tools/gather_model.c — article 004's gather through the memory model at
 * image sizes the interpreter is too slow for (16384 x 4096: 1M workgroups).
 *
 * The kernel (kernels/004_swizzle/swizzle_{row_major,tiled}.comp with TAPS
 * and SPACING) runs once through the simulator on a small grid, with the
 * memory model attached: that gives the lowered program (occupancy), which pc
 * loads the input and which stores the output, the push-constant reads per
 * wave and the wave instructions per workgroup by class.  Then the same
 * model is fed, workgroup by workgroup, the accesses the kernel makes at the
 * requested size, computed here from the kernel's formula (the clamped taps;
 * for the tiled order the group-ID swizzle).  Every access the executor would
 * hand the model is handed in the same order, so the statistics are those of
 * running the kernel: --check runs the kernel at the requested size too and
 * compares every counter (tests: ctest gather_model_check).
 *
 *   gather_model --machine hopper_h100 --order row_major|tiled --size 16384x4096 --spacing 64 [--taps 7]
 *                [--memory-threads 2] [--check] [--placement FILE.csv] [--counters]
 *
 * Prints one CSV row: width,height,S,order,l1_hit_pct,l2_hit_pct,dram_read_bytes,time_us,path,l2_read_requests
 * (the columns of the Nsight Compute records, which path produced it, and the L2 read requests that bound the
 * time, after the preset's L1 miss merging: docs/hardware.md, "What bounds the gather").  --placement writes the model's
 * placement in the columns of tools/h100_smid.sh's records, block,sm,start,end, in replay steps (for
 * tools/smid_reuse.py and tools/dispatch_fit.py).  --counters prints every counter of the model to stderr,
 * one "group.name value" line each (l2.fabric_sectors beside dram.bytes_read: the H100's fabric reads equal its
 * DRAM fills, docs/hardware.md, 'The dispatcher').  Exit 0; 1 when --check finds a
 * difference; 2 on bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case/case.h"
#include "run/run.h"
#include "sim/memmodel.h"

#define TILE_N 16u

typedef struct gather {
    uint32_t width, height, spacing, taps, tiled;
} gather;

static int usage(const char *why)
{
    fprintf(stderr, "gather_model: %s\nusage: gather_model --machine M --order row_major|tiled --size WxH "
                    "--spacing S [--taps T] [--memory-threads N] [--check] [--placement FILE.csv] [--counters]\n",
            why);
    return 2;
}

/* The case for the kernel at this size; written to a temporary file (case_load reads files). */
static wl_case *make_case(const gather *g, uint32_t width, uint32_t height, char *err, size_t err_size)
{
    char path[] = "/tmp/gather_model_XXXXXX.json";
    int fd = mkstemps(path, 5);
    if (fd < 0) {
        snprintf(err, err_size, "cannot create a temporary case file");
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    uint64_t n = (uint64_t)width * height;
    fprintf(f,
            "{\"kernel\": \"%s/kernels/004_swizzle/swizzle_%s.comp\", \"defines\": {\"TAPS\": \"%u\", \"SPACING\": "
            "\"%u\"}, \"groups\": [%u, %u, 1], \"push_constants\": {\"type\": \"u32\", \"data\": [%u, %u, %u, %u]},"
            " \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"count\": %llu, \"fill\": {\"value\":"
            " 1}}, {\"set\": 0, \"binding\": 1, \"type\": \"u32\", \"count\": %llu, \"fill\": {\"value\": 0}}]}\n",
            getenv("WAVELAB_ROOT") ? getenv("WAVELAB_ROOT") : ".", g->tiled ? "tiled" : "row_major", g->taps,
            g->spacing, width / 8, height / 8, width / 8, height / 8, width, height, (unsigned long long)n,
            (unsigned long long)n);
    fclose(f);
    wl_case *c = NULL;
    case_status cs = case_load(path, &c, err, err_size);
    unlink(path);
    return cs == CASE_OK ? c : NULL;
}

/* Runs the kernel itself at width x height with a model of machine mc. */
static int run_kernel(const gather *g, uint32_t width, uint32_t height, const mem_machine *mc, int threads,
                      wl_case **cp, run_output *out, mem_model **mm)
{
    char err[1024];
    *cp = make_case(g, width, height, err, sizeof err);
    if (!*cp) {
        fprintf(stderr, "gather_model: %s\n", err);
        return 2;
    }
    mem_model_options mo = {.machine = mc, .threads = threads};
    if (mem_model_create(&mo, mm) != MEM_OK)
        return 2;
    run_options ro = {.wave_size = 32, .memory = *mm};
    if (run_case_sim(*cp, &ro, out, err, sizeof err) != RUN_EXIT_OK) {
        fprintf(stderr, "gather_model: %s\n", err);
        return 2;
    }
    return 0;
}

/* The workgroup whose pixels group `flat` computes: the kernel's threadGroupTilingX for the tiled order. */
static void swizzle(const gather *g, uint32_t gx, uint32_t gy, uint32_t flat, uint32_t *sx, uint32_t *sy)
{
    if (!g->tiled) {
        *sx = flat % gx, *sy = flat / gx;
        return;
    }
    uint32_t per_tile = TILE_N * gy, full = gx / TILE_N, in_full = full * per_tile;
    uint32_t tile = flat / per_tile, in_tile = flat % per_tile, tw = TILE_N;
    if (flat >= in_full)
        tw = gx % TILE_N;
    uint32_t s = tile * TILE_N + (in_tile / tw) * gx + in_tile % tw;
    *sx = s % gx, *sy = s / gx;
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Feeds the model every access of the dispatch at g's size, in the executor's order. */
static void feed(const gather *g, const isa_program *prog, const mem_inst_stats *is, uint32_t small_waves,
                 mem_model *m)
{
    const sim_mem_trace *t = mem_model_trace(m);
    uint32_t load_pc = UINT32_MAX, store_pc = UINT32_MAX;
    for (uint32_t pc = 0; pc < prog->code_count; pc++) {
        const isa_inst *in = &prog->code[pc];
        if (in->cls != ISA_CLASS_VMEM || !is[pc].executions)
            continue;
        if (in->op == ISA_OP_LOAD && prog->slots[in->slot].binding == 0)
            load_pc = pc;
        if (in->op == ISA_OP_STORE && prog->slots[in->slot].binding == 1)
            store_pc = pc;
    }
    const uint32_t W = 32, gx = g->width / 8, gy = g->height / 8, T = g->taps;
    const int S = (int)g->spacing, lastx = (int)g->width - 1, lasty = (int)g->height - 1;
    uint64_t addr[32];
    sim_mem_access a = {.wave_size = W, .exec = ((sim_mask)1 << 32) - 1, .addr = addr};
    for (uint32_t flat = 0; flat < gx * gy; flat++) {
        uint32_t sx, sy;
        swizzle(g, gx, gy, flat, &sx, &sy);
        a.group_linear = flat;
        for (uint32_t w = 0; w < 2; w++) {
            a.wave = w;
            /* push-constant reads: not modelled, counted (the same number per wave at any size) */
            for (uint32_t pc = 0; pc < prog->code_count; pc++) {
                const isa_inst *in = &prog->code[pc];
                if (!is[pc].executions || prog->slots[in->slot].space != ISA_SPACE_PUSH ||
                    (in->cls != ISA_CLASS_VMEM && in->cls != ISA_CLASS_SMEM))
                    continue;
                sim_mem_access p = a;
                p.pc = pc, p.op = in->op, p.cls = in->cls, p.slot = in->slot, p.space = ISA_SPACE_PUSH;
                p.elem_bytes = 4, p.count = 1;
                for (uint64_t k = 0; k < is[pc].executions / small_waves; k++)
                    t->access(t->user, &p);
            }
            for (uint32_t k = 0; k <= T * T; k++) {
                int store = k == T * T;
                const isa_inst *in = &prog->code[store ? store_pc : load_pc];
                int ox = store ? 0 : ((int)(k % T) - (int)T / 2) * S, oy = store ? 0 : ((int)(k / T) - (int)T / 2) * S;
                for (uint32_t l = 0; l < W; l++) {
                    uint32_t li = w * W + l;
                    int px = (int)(sx * 8 + li % 8), py = (int)(sy * 8 + li / 8);
                    int qx = clampi(px + ox, 0, lastx), qy = clampi(py + oy, 0, lasty);
                    addr[l] = 4ull * ((uint64_t)qy * g->width + (uint64_t)qx);
                }
                a.pc = store ? store_pc : load_pc;
                a.op = in->op, a.cls = in->cls, a.slot = in->slot;
                a.space = (uint8_t)prog->slots[in->slot].space;
                a.elem_bytes = 4, a.count = 1;
                t->access(t->user, &a);
            }
        }
    }
}

static double pct(uint64_t h, uint64_t m) { return h + m ? 100.0 * (double)h / (double)(h + m) : 0.0; }

static void print_row(const gather *g, const mem_model *m, const char *path)
{
    const mem_stats *s = mem_model_stats(m);
    printf("%u,%u,%u,%s,%.3f,%.3f,%llu,%.1f,%s,%.0f\n", g->width, g->height, g->spacing, g->tiled ? "tiled" : "row",
           pct(s->l1_read_hits, s->l1_read_misses), 100.0 * mem_stats_l2_read_hit_rate(s),
           (unsigned long long)s->dram_bytes_read, mem_model_estimate(m)->microseconds, path,
           mem_stats_l2_read_requests_merged(s, mem_model_machine(m)));
}

int main(int argc, char **argv)
{
    gather g = {.taps = 7};
    const char *machine = NULL, *placement = NULL;
    int threads = 1, check = 0, counters = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--check")) {
            check = 1;
            continue;
        }
        if (!strcmp(argv[i], "--counters")) {
            counters = 1;
            continue;
        }
        if (!v)
            return usage("an option lacks its value");
        if (!strcmp(argv[i], "--machine"))
            machine = v;
        else if (!strcmp(argv[i], "--order")) {
            if (strcmp(v, "row_major") && strcmp(v, "tiled"))
                return usage("--order: row_major or tiled");
            g.tiled = !strcmp(v, "tiled");
        } else if (!strcmp(argv[i], "--size")) {
            if (sscanf(v, "%ux%u", &g.width, &g.height) != 2)
                return usage("--size: WxH");
        } else if (!strcmp(argv[i], "--spacing"))
            g.spacing = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(argv[i], "--taps"))
            g.taps = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(argv[i], "--placement"))
            placement = v;
        else if (!strcmp(argv[i], "--memory-threads"))
            threads = atoi(v);
        else
            return usage("unknown option");
        i++;
    }
    if (!machine || !g.width || !g.spacing || g.taps < 1 || g.taps % 2 == 0 || g.width % 8 || g.height % 8)
        return usage("--machine, --size (multiples of 8), --spacing and an odd --taps are required");
    if (g.tiled && (g.width / 8) % TILE_N)
        return usage("tiled: the width must be a multiple of 8 * 16 pixels (the estimate scales one instruction "
                     "mix per group)");
    if ((uint64_t)(g.width / 8) * (g.height / 8) > (1u << 24))
        return usage("at most 2^24 workgroups");
    mem_machine mc;
    char err[1024];
    if (mem_machine_load(machine, &mc, err, sizeof err) != MEM_OK) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }

    /* 1. the kernel on a small grid: the program and what one workgroup executes */
    const uint32_t sw = 8 * 2 * TILE_N, sh = 8 * 12;
    wl_case *sc = NULL;
    run_output so = {0};
    mem_model *sm = NULL;
    int rc = run_kernel(&g, sw, sh, &mc, 1, &sc, &so, &sm);
    if (rc)
        return rc;
    const uint32_t small_groups = (sw / 8) * (sh / 8), groups[3] = {g.width / 8, g.height / 8, 1};
    uint32_t ninst;
    const mem_inst_stats *is = mem_model_inst_stats(sm, &ninst);

    /* 2. the same model, fed the accesses at the requested size */
    mem_model *m = NULL;
    mem_model_options mo = {.machine = &mc, .threads = threads};
    if (mem_model_create(&mo, &m) != MEM_OK ||
        mem_model_begin(m, so.prog, groups, 32, err, sizeof err) != MEM_OK) {
        fprintf(stderr, "gather_model: %s\n", err);
        return 2;
    }
    feed(&g, so.prog, is, small_groups * 2, m);
    sim_stats x = so.result.stats;
    uint64_t count = (uint64_t)groups[0] * groups[1];
    for (int c = 0; c < ISA_CLASS_COUNT; c++)
        x.by_class[c] = x.by_class[c] / small_groups * count;
    mem_model_end(m, &x);
    print_row(&g, m, "trace generator");
    fflush(stdout);
    if (counters) {
        const mem_stats *a = mem_model_stats(m);
#define X(group, name, meaning) fprintf(stderr, "%s.%s %llu\n", #group, #name, (unsigned long long)a->group##_##name);
#include "sim/memcounters.def"
#undef X
    }
    if (placement) {
        FILE *pf = fopen(placement, "w");
        if (!pf) {
            fprintf(stderr, "gather_model: cannot write %s\n", placement);
            return 2;
        }
        uint32_t n;
        const mem_group_stats *gs = mem_model_group_stats(m, &n, NULL);
        fprintf(pf, "block,sm,start_step,end_step\n");
        for (uint32_t k = 0; k < n; k++)
            fprintf(pf, "%u,%u,%u,%u\n", k, gs[k].cu, gs[k].launch_step, gs[k].end_step);
        fclose(pf);
    }

    if (check) {
        /* 3. the kernel itself at the requested size: every counter must agree */
        wl_case *bc = NULL;
        run_output bo = {0};
        mem_model *bm = NULL;
        rc = run_kernel(&g, g.width, g.height, &mc, 1, &bc, &bo, &bm);
        if (!rc) {
            print_row(&g, bm, "kernel");
            const mem_stats *a = mem_model_stats(m), *b = mem_model_stats(bm);
#define X(group, name, meaning) \
    if (a->group##_##name != b->group##_##name) { \
        fprintf(stderr, "gather_model: %s.%s: generator %llu, kernel %llu\n", #group, #name, \
                (unsigned long long)a->group##_##name, (unsigned long long)b->group##_##name); \
        rc = 1; \
    }
#include "sim/memcounters.def"
#undef X
            if (mem_model_estimate(m)->cycles != mem_model_estimate(bm)->cycles) {
                fprintf(stderr, "gather_model: estimate: generator %.1f cycles, kernel %.1f\n",
                        mem_model_estimate(m)->cycles, mem_model_estimate(bm)->cycles);
                rc = 1;
            }
            if (!rc)
                fprintf(stderr, "gather_model: every counter and the estimate agree with the kernel\n");
        }
        mem_model_destroy(bm);
        run_output_free(&bo);
        case_destroy(bc);
    }
    mem_model_destroy(m);
    mem_model_destroy(sm);
    run_output_free(&so);
    case_destroy(sc);
    return rc;
}
