/*
 * cli/against.c — `wavelab disasm CASE --against radv:FAMILY|device`: the
 * same SPIR-V compiled by a real compiler (ACO on RADV's null device for a
 * GPU generation, or the selected device), its registers, occupancy and
 * instruction counts beside wavelab's, then both listings one after the
 * other.  The compile and the counting happen in backend/ (vkb_compile_case,
 * vkb_asm_count); this file picks the device and prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "isa/isa.h"
#include "run/run.h"
#include "sim/machine.h"

/* The machine preset whose numbers wavelab's side uses for a RADV family when --machine is not given.  Families
 * without a preset of their own take the nearest one, and the header says so. */
static const struct {
    const char *family;
    const char *machine;
    int exact; /* the preset describes this generation (otherwise the nearest: register file and LDS may differ) */
    unsigned gfx; /* the generation as isa_radv_subgroups_per_simd takes it (Mesa's amd_gfx_level) */
} family_machines[] = {
    {"vega10", "gcn_vega64", 1, 90}, {"vega20", "gcn_vega64", 0, 90}, {"navi10", "rdna2", 0, 100},
    {"navi14", "rdna2", 0, 100},     {"navi21", "rdna2", 1, 103},     {"navi22", "rdna2", 1, 103},
    {"navi23", "rdna2", 1, 103},     {"gfx1100", "rdna3", 1, 110},
};

static const char *machine_of_family(const char *family, int *exact, unsigned *gfx)
{
    for (size_t i = 0; i < sizeof family_machines / sizeof family_machines[0]; i++)
        if (strcmp(family_machines[i].family, family) == 0) {
            *exact = family_machines[i].exact;
            *gfx = family_machines[i].gfx;
            return family_machines[i].machine;
        }
    *exact = 0;
    *gfx = 0;
    return NULL;
}

/* One side of the comparison. */
typedef struct side {
    int have_regs, have_occupancy, have_counts, have_radv_units;
    int have_demand;
    double vgprs, sgprs, sgpr_demand, occupancy, radv_units, lds;
    uint32_t instructions, by_class[ISA_CLASS_COUNT], unclassified, scalar_loads, vector_loads;
} side;

static int is_vector_load(const isa_inst *in)
{
    return in->cls == ISA_CLASS_VMEM && (in->op == ISA_OP_LOAD || in->op == ISA_OP_IMG_READ || in->op == ISA_OP_IMG_LOAD ||
                                         in->op == ISA_OP_IMG_SAMPLE || in->op == ISA_OP_IMG_GATHER);
}

/* wavelab's side; `gfx` nonzero (a RADV family) adds the occupancy in RADV's units from the same counts. */
static void wavelab_side(const isa_program *p, const mem_machine *m, unsigned gfx, uint32_t wave, side *s)
{
    memset(s, 0, sizeof *s);
    s->have_regs = s->have_counts = 1;
    uint32_t vgprs = p->res.vgprs;
    s->sgpr_demand = isa_radv_abi_sgprs(p);
    s->have_demand = gfx != 0;
    if (m) {
        isa_occupancy o = mem_machine_occupancy(m, p, wave, 0, &vgprs);
        s->occupancy = o.waves_per_simd;
        s->have_occupancy = 1;
        if (gfx) {
            isa_machine_limits lim = {.vgprs_per_simd_lane = m->vgprs_per_simd_lane, .sgprs_per_simd = m->sgprs_per_simd,
                                      .lds_bytes_per_cu = m->lds_bytes_per_cu, .max_waves_per_simd = m->max_waves_per_simd,
                                      .simds_per_cu = m->simds_per_cu};
            s->radv_units = isa_radv_subgroups_per_simd(&lim, m->default_wave, gfx, vgprs, s->sgpr_demand,
                                                        p->workgroup_bytes,
                                                        p->local_size[0] * p->local_size[1] * p->local_size[2], wave);
            s->have_radv_units = 1;
        }
    }
    s->vgprs = vgprs;
    s->sgprs = p->res.sgprs;
    s->lds = p->res.lds_bytes;
    for (uint32_t i = 0; i < p->code_count; i++) {
        const isa_inst *in = &p->code[i];
        s->instructions++;
        s->by_class[in->cls]++;
        s->scalar_loads += in->cls == ISA_CLASS_SMEM;
        s->vector_loads += is_vector_load(in);
    }
}

static const char *assembly_of(const vkb_compile_output *co)
{
    for (int i = 0; i < co->representation_count; i++)
        if (strcmp(co->representations[i].name, "Assembly") == 0) /* RADV's name for the final ISA */
            return co->representations[i].text;
    return NULL;
}

static void device_side(const vkb_compile_output *co, side *s)
{
    memset(s, 0, sizeof *s);
    const vkb_statistic *v = vkb_compile_statistic(co, "VGPRs"), *g = vkb_compile_statistic(co, "SGPRs"),
                        *occ = vkb_compile_statistic(co, "Subgroups per SIMD"), *lds = vkb_compile_statistic(co, "LDS size");
    if (v && g) {
        s->have_regs = 1;
        s->vgprs = v->number;
        s->sgprs = g->number;
    }
    if (occ) {
        s->have_occupancy = s->have_radv_units = 1;
        s->occupancy = s->radv_units = occ->number;
    }
    s->lds = lds ? lds->number : -1;
    const vkb_statistic *demand = vkb_compile_statistic(co, "Pre-Sched SGPRs");
    s->have_demand = demand != NULL;
    s->sgpr_demand = demand ? demand->number : 0;
    const char *text = assembly_of(co);
    if (text) {
        vkb_asm_counts k;
        vkb_asm_count(text, &k);
        s->have_counts = 1;
        s->instructions = k.instructions;
        memcpy(s->by_class, k.by_class, sizeof s->by_class);
        s->unclassified = k.unclassified;
        s->scalar_loads = k.scalar_loads;
        s->vector_loads = k.vector_loads;
    }
}

static void row(FILE *f, const char *name, int have_a, double a, int have_b, double b)
{
    char x[32] = "-", y[32] = "-";
    if (have_a)
        snprintf(x, sizeof x, "%g", a);
    if (have_b && b >= 0)
        snprintf(y, sizeof y, "%g", b);
    fprintf(f, "; %-28s %12s %12s\n", name, x, y);
}

static void print_comparison(FILE *f, const side *w, const side *d, const char *device_label)
{
    fprintf(f, "; %-28s %12s %12s\n", "", "wavelab", device_label);
    row(f, "VGPRs", w->have_regs, w->vgprs, d->have_regs, d->vgprs);
    row(f, "SGPRs", w->have_regs, w->sgprs, d->have_regs, d->sgprs);
    if (w->have_demand) /* RADV's ABI counted on wavelab's side, ACO's demand before scheduling on the other */
        row(f, "SGPRs with the ABI (demand)", 1, w->sgpr_demand, d->have_demand, d->sgpr_demand);
    /* wavelab's rule (its presets' workgroup cap, whole workgroups per CU) has no counterpart in a driver's
     * statistic; ACO's units (RADV's statistic) are compared on a row of their own (isa_radv_subgroups_per_simd) */
    row(f, "occupancy (waves per SIMD)", w->have_occupancy, w->occupancy, d->have_occupancy && !w->have_radv_units,
        d->occupancy);
    if (w->have_radv_units)
        row(f, "occupancy in ACO's units", 1, w->radv_units, d->have_radv_units, d->radv_units);
    row(f, "LDS bytes", 1, w->lds, d->lds >= 0, d->lds);
    row(f, "instructions", w->have_counts, w->instructions, d->have_counts, d->instructions);
    for (int k = 0; k < ISA_CLASS_COUNT; k++) {
        char name[40];
        snprintf(name, sizeof name, "  %s", isa_class_name((isa_class)k));
        row(f, name, w->have_counts, w->by_class[k], d->have_counts, d->by_class[k]);
    }
    if (d->have_counts && d->unclassified)
        row(f, "  (unclassified)", 1, 0, 1, d->unclassified);
    row(f, "scalar loads (SMEM)", w->have_counts, w->scalar_loads, d->have_counts, d->scalar_loads);
    row(f, "vector loads (VMEM)", w->have_counts, w->vector_loads, d->have_counts, d->vector_loads);
}

int cli_disasm_against(const struct wl_case *c, const uint32_t *words, size_t word_count, const isa_program *p,
                       const char *against, const char *device, const char *machine, uint32_t wave, FILE *f)
{
    const char *family = NULL;
    if (strncmp(against, "radv:", 5) == 0 && against[5])
        family = against + 5;
    else if (strcmp(against, "device") != 0) {
        fprintf(stderr, "wavelab disasm: --against: \"%s\" is neither radv:FAMILY (radv:navi21, radv:vega10, ...) "
                        "nor device\n", against);
        return RUN_EXIT_BAD_INPUT;
    }
    int exact = 1;
    unsigned gfx = 0;
    if (family) {
        const char *nearest = machine_of_family(family, &exact, &gfx);
        if (!machine)
            machine = nearest;
        else
            exact = 1; /* the preset the user named is the one meant */
    }
    mem_machine m;
    char err[2048];
    if (machine && mem_machine_load(machine, &m, err, sizeof err) != MEM_OK) {
        fprintf(stderr, "%s\n", err);
        return RUN_EXIT_BAD_INPUT;
    }
    if (!wave && machine)
        wave = m.default_wave;

    vkb_context *ctx = NULL;
    int index = 0;
    vkb_status st = family ? vkb_context_create_null(family, &ctx, &index, err, sizeof err)
                           : vkb_context_create(&ctx, err, sizeof err);
    if (st == VKB_OK && !family)
        st = vkb_device_find(ctx, device, &index, err, sizeof err);
    if (st != VKB_OK) {
        fprintf(stderr, "wavelab disasm: %s\n", err);
        vkb_context_destroy(ctx);
        /* no RADV (or no device at all) is a machine that cannot do this; a bad name is bad input */
        return st == VKB_ERR_INPUT || (st == VKB_ERR_NO_DEVICE && !family) ? RUN_EXIT_BAD_INPUT
                                                                            : cli_vulkan_exit_code(st);
    }
    vkb_run_options opt = {.wave_size = wave};
    vkb_compile_output co;
    st = vkb_compile_case(ctx, index, c, words, word_count, &opt, &co, err, sizeof err);
    int rc = RUN_EXIT_OK;
    if (st != VKB_OK) {
        rc = cli_vulkan_failure(st, "wavelab disasm: ", err);
        goto done;
    }
    side w, d;
    wavelab_side(p, machine ? &m : NULL, gfx, wave ? wave : co.wave_size, &w);
    device_side(&co, &d);
    fprintf(f, "; %s (%s) against %s, wave %u%s\n", c->path, p->entry, co.device_name, co.wave_size,
            co.wave_size_required ? " (required)" : "");
    if (machine)
        fprintf(f, "; wavelab's occupancy from machine %s%s\n", m.name,
                exact ? "" : " (the nearest preset to this GPU generation: its limits may differ)");
    print_comparison(f, &w, &d, family ? "ACO" : "device");
    if (co.stat_count) {
        fprintf(f, "; driver statistics:");
        for (int i = 0; i < co.stat_count; i++)
            fprintf(f, "%s %s %s", i % 4 ? "," : "\n;  ", co.stats[i].name, co.stats[i].value);
        fputc('\n', f);
    } else {
        fprintf(f, "; driver statistics %s\n", co.stats_note);
    }
    fprintf(f, "\n; ---- wavelab\n");
    isa_program_print(p, f);
    const char *text = assembly_of(&co);
    if (text)
        fprintf(f, "\n; ---- %s assembly (%s)\n%s", family ? "ACO" : "device", co.device_name, text);
    else
        for (int i = 0; i < co.representation_count; i++)
            fprintf(f, "\n; ---- %s: %s\n%s", co.device_name, co.representations[i].name,
                    co.representations[i].text);
done:
    vkb_compile_output_free(&co);
    vkb_context_destroy(ctx);
    return rc;
}
