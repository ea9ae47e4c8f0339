/*
 * cli/explain.c — `wavelab machines` (with --fields: the table of preset
 * fields) and `wavelab explain`: the memory model's pictures.  explain runs
 * the case on the simulator with the memory model and shows one of
 *   --lds           which lane hit which bank and word for one LDS instruction
 *                   of one wave (text and a lane x bank SVG);
 *   --l2            the L2 hit rate per workgroup over the dispatch grid
 *                   (text table and an SVG heat map);
 *   --launch-order  when and where (CU) each workgroup ran (text and SVG of the
 *                   grid coloured by launch step), like article 004's figures.
 * `--order tiled:N` launches the groups in the article's horizontally tiled
 * order (the hardware-side equivalent of the kernel's ID swizzle).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/case.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "run/run.h"
#include "sim/machine.h"
#include "sim/memmodel.h"
#include "text/text.h"


int cli_load_case_and_machine(const char *case_path, const char *machine, int image_layout, wl_case **c,
                              mem_machine *m)
{
    char err[4096];
    *c = NULL;
    if (case_load(case_path, c, err, sizeof err) != CASE_OK) {
        fprintf(stderr, "%s\n", err);
        return RUN_EXIT_BAD_INPUT;
    }
    if (mem_machine_load(machine, m, err, sizeof err) != MEM_OK) {
        fprintf(stderr, "%s\n", err);
        case_destroy(*c);
        *c = NULL;
        return RUN_EXIT_BAD_INPUT;
    }
    if (image_layout >= 0)
        m->image_layout = (img_layout)image_layout;
    return 0;
}

int cli_memory_open(const char *machine, int image_layout, int threads, const struct wl_case *c,
                    struct run_options *opt)
{
    char err[1024], warning[512];
    int rc = run_memory_open(machine, image_layout, threads, c, opt, warning, sizeof warning, err, sizeof err);
    fputs(rc ? err : warning, stderr);
    if (rc)
        fputs("\n", stderr);
    return rc;
}

/* ------------------------------------------------------------ machines */

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int cli_cmd_machines(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_machines, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    if (o.fields) { /* the table of sim/machine_fields.def: docs/memory.md's, checked by tools/doccheck.py */
        printf("| field | value | meaning |\n| --- | --- | --- |\n");
        const char *name, *meaning;
        char value[256];
        for (size_t i = 0; mem_machine_field_doc(i, &name, value, sizeof value, &meaning); i++)
            printf("| `%s` | %s | %s |\n", name, value, meaning);
        return RUN_EXIT_OK;
    }
    char dir[4096];
    if (!mem_machine_dir(dir, sizeof dir)) {
        fprintf(stderr, "wavelab machines: no machines/ folder found (set WAVELAB_ROOT)\n");
        return RUN_EXIT_BAD_INPUT;
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "wavelab machines: %s: %s\n", dir, strerror(errno));
        return RUN_EXIT_BAD_INPUT;
    }
    char *names[256];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 256;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, name_cmp);
    int rc = RUN_EXIT_OK;
    printf("%-16s %-8s %5s %6s %9s %9s  %s\n", "name", "waves", "CUs", "LDS/CU", "L2", "DRAM GB/s", "description");
    for (int i = 0; i < n; i++) {
        char path[8192], err[1024], waves[32] = "";
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        mem_machine m;
        if (mem_machine_load(path, &m, err, sizeof err) != MEM_OK) {
            fprintf(stderr, "%s\n", err);
            rc = RUN_EXIT_BAD_INPUT;
        } else {
            for (uint32_t k = 0; k < m.wave_size_count; k++)
                snprintf(waves + strlen(waves), sizeof waves - strlen(waves), "%s%u", k ? "/" : "", m.wave_sizes[k]);
            printf("%-16s %-8s %5u %5uK %7lluK %9.0f  %s\n", m.name, waves, m.compute_units, m.lds_bytes_per_cu / 1024,
                   (unsigned long long)(m.l2.bytes / 1024), m.dram_bytes_per_cycle * m.clock_mhz / 1000.0,
                   m.description);
        }
        free(names[i]);
    }
    return rc;
}

/* ------------------------------------------------------------ SVG helpers */

static void svg_open(FILE *f, int w, int h, const char *title)
{
    /* a title longer than the picture widens it instead of being cut */
    int title_w = 8 + (int)text_monospace_width(title, 13) + 8;
    if (title_w > w)
        w = title_w;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"monospace\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"8\" y=\"16\" font-size=\"13\">",
            w, h, w, h);
    text_xml(f, title, (size_t)-1, 0);
    fputs("</text>\n", f);
}

/* t in [0, 1] -> a colour from dark blue through green to yellow (viridis-like) */
static void ramp_rgb(double t, int rgb[3])
{
    static const int stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double x = t * 4;
    int i = x >= 4 ? 3 : (int)x;
    double u = x - i;
    for (int k = 0; k < 3; k++)
        rgb[k] = (int)(stops[i][k] + u * (stops[i + 1][k] - stops[i][k]));
}

static void ramp(double t, char *buf, size_t size)
{
    int c[3];
    ramp_rgb(t, c);
    snprintf(buf, size, "rgb(%d,%d,%d)", c[0], c[1], c[2]);
}

/* the ink a number on ramp colour t is readable in: black above half luminance (the yellow end), else white */
static const char *ramp_ink(double t)
{
    int c[3];
    ramp_rgb(t, c);
    return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] > 127.5 ? "black" : "white";
}

static void legend_ramp(FILE *f, int x, int y, const char *lo, const char *hi, const char *what)
{
    char c[32];
    for (int i = 0; i < 100; i++) {
        ramp(i / 99.0, c, sizeof c);
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"2\" height=\"12\" fill=\"%s\"/>\n", x + 2 * i, y, c);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>"
               "<text x=\"%d\" y=\"%d\">%s</text>\n",
            x, y + 26, lo, x + 200, y + 26, hi, x, y + 42, what); /* the label under the ramp: never clipped */
}

/* ------------------------------------------------------------ LDS */

/* Text goes to `text` (NULL: none), the picture to `svg` (NULL: none). */
#define TEXTF(...) (text ? fprintf(text, __VA_ARGS__) : 0)

static int explain_lds(const run_output *out, const mem_model *mm, long pc_arg, uint32_t wave_index, FILE *text,
                       FILE *svg)
{
    const isa_program *p = out->prog;
    uint32_t n;
    const mem_inst_stats *is = mem_model_inst_stats(mm, &n);
    long pc = pc_arg;
    if (pc < 0) { /* the LDS instruction with the most conflict cycles (lowest pc on ties) */
        uint64_t best = 0;
        for (uint32_t i = 0; i < n; i++)
            if (p->code[i].cls == ISA_CLASS_LDS && is[i].executions && (pc < 0 || is[i].lds_conflict_cycles > best))
                pc = i, best = is[i].lds_conflict_cycles;
        if (pc < 0) {
            fprintf(stderr, "wavelab explain: the kernel executes no LDS instruction\n");
            return RUN_EXIT_BAD_INPUT;
        }
    }
    if ((uint32_t)pc >= n || p->code[pc].cls != ISA_CLASS_LDS) {
        fprintf(stderr, "wavelab explain: pc %ld is not an LDS instruction (see `wavelab disasm`)\n", pc);
        return RUN_EXIT_BAD_INPUT;
    }
    sim_mask exec;
    uint64_t addr[SIM_MAX_WAVE];
    uint32_t bytes, group;
    if (!mem_model_lds_capture(mm, (uint32_t)pc, &exec, addr, &bytes, &group)) {
        fprintf(stderr, "wavelab explain: wave %u never executed pc %ld\n", wave_index, pc);
        return RUN_EXIT_BAD_INPUT;
    }
    const mem_machine *mc = mem_model_machine(mm);
    const uint32_t W = out->wave_size, banks = mc->lds_banks, bb = mc->lds_bank_bytes;
    uint32_t words_per_lane = bytes > bb ? bytes / bb : 1;
    uint32_t gsize = mc->lds_lanes_per_cycle / words_per_lane;
    if (gsize < 1)
        gsize = 1;
    uint32_t ideal, worst;
    uint32_t cycles = mem_lds_cycles(mc, W, exec, addr, bytes, &ideal, &worst);
    char inst_text[256];
    isa_inst_format(p, &p->code[pc], inst_text, sizeof inst_text);
    TEXTF("LDS pc %ld: %s   (line %u)\n", pc, inst_text, p->code[pc].line);
    TEXTF("machine %s: %u banks of %u bytes, %u lanes per cycle; %u bytes per lane -> lane groups of %u\n", mc->name,
           banks, bb, mc->lds_lanes_per_cycle, bytes, gsize);
    TEXTF("workgroup %u wave %u: %u cycles (%u without conflicts), worst group %u passes; over the dispatch: "
           "%" PRIu64 " cycles, %" PRIu64 " conflict cycles in %" PRIu64 " executions\n",
           group, wave_index, cycles, ideal, worst, is[pc].lds_cycles, is[pc].lds_conflict_cycles, is[pc].executions);
    /* pass of each (lane, word): the rank of the word among the distinct words of its bank in its group */
    uint32_t pass_of[64][8];
    memset(pass_of, 0, sizeof pass_of);
    for (uint32_t first = 0; first < W; first += gsize) {
        uint64_t seen_word[64 * 8];
        uint32_t seen_pass[64 * 8], seen = 0, per_bank[1024] = {0};
        for (uint32_t l = first; l < first + gsize && l < W; l++) {
            if (!((exec >> l) & 1))
                continue;
            for (uint32_t k = 0; k < words_per_lane && k < 8; k++) {
                uint64_t wd = addr[l] / bb + k;
                uint32_t i = 0;
                while (i < seen && seen_word[i] != wd)
                    i++;
                if (i == seen) {
                    seen_word[seen] = wd;
                    seen_pass[seen++] = per_bank[wd % banks]++;
                }
                pass_of[l][k] = seen_pass[i];
            }
        }
    }
    TEXTF("\n lane  address  word   bank  pass\n");
    for (uint32_t l = 0; l < W; l++) {
        if (!((exec >> l) & 1)) {
            TEXTF(" %4u  (inactive)\n", l);
            continue;
        }
        TEXTF(" %4u  %7" PRIu64 "  %5" PRIu64 "  %4" PRIu64 "  %4u%s\n", l, addr[l], addr[l] / bb,
               (addr[l] / bb) % banks, pass_of[l][0] + 1, words_per_lane > 1 ? " (first word)" : "");
    }
    if (!svg)
        return RUN_EXIT_OK;
    const int cell = 16, left = 60, top = 50;
    int width = left + (int)banks * cell + 240, height = top + (int)W * cell + 60;
    char title[512];
    snprintf(title, sizeof title, "LDS pc %ld (%s) on %s: workgroup %u wave %u, %u cycles, %u conflict", pc,
             inst_text, mc->name, group, wave_index, cycles, cycles - ideal);
    svg_open(svg, width, height, title);
    for (uint32_t b = 0; b < banks; b++)
        if (b % 4 == 0)
            fprintf(svg, "<text x=\"%d\" y=\"%d\">%u</text>\n", left + (int)b * cell, top - 4, b);
    fprintf(svg, "<text x=\"%d\" y=\"%d\">bank</text>\n", left + (int)banks * cell + 4, top - 4);
    for (uint32_t l = 0; l < W; l++) {
        int y = top + (int)l * cell;
        fprintf(svg, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%u</text>\n", left - 6, y + 12, l);
        if (l % gsize == 0 && l)
            fprintf(svg, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" stroke-width=\"2\"/>\n",
                    left, y, left + (int)banks * cell, y);
        for (uint32_t b = 0; b < banks; b++)
            fprintf(svg, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#ddd\"/>\n",
                    left + (int)b * cell, y, cell, cell);
        if (!((exec >> l) & 1))
            continue;
        for (uint32_t k = 0; k < words_per_lane && k < 8; k++) {
            uint64_t wd = addr[l] / bb + k;
            char c[32];
            double t = worst > 1 ? (double)pass_of[l][k] / (worst - 1) : 0;
            ramp(t, c, sizeof c);
            fprintf(svg,
                    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>lane %u word %" PRIu64
                    " bank %" PRIu64 " pass %u</title></rect>\n",
                    left + (int)(wd % banks) * cell + 1, y + 1, cell - 2, cell - 2, c, l, wd, wd % banks,
                    pass_of[l][k] + 1);
            fprintf(svg, "<text x=\"%d\" y=\"%d\" font-size=\"9\" fill=\"%s\">%u</text>\n",
                    left + (int)(wd % banks) * cell + 4, y + 12, ramp_ink(t), pass_of[l][k] + 1);
        }
    }
    fprintf(svg, "<text x=\"%d\" y=\"%d\" transform=\"rotate(-90 %d %d)\">lane</text>\n", 14, top + 40, 14, top + 40);
    int lx = left + (int)banks * cell + 16;
    fprintf(svg, "<text x=\"%d\" y=\"%d\">cell = the word a lane reads</text>\n", lx, top + 20);
    fprintf(svg, "<text x=\"%d\" y=\"%d\">number = pass that serves it</text>\n", lx, top + 36);
    fprintf(svg, "<text x=\"%d\" y=\"%d\">same word = broadcast, same pass</text>\n", lx, top + 52);
    fprintf(svg, "<text x=\"%d\" y=\"%d\">thick line = lane group served</text>\n", lx, top + 68);
    fprintf(svg, "<text x=\"%d\" y=\"%d\">per cycle (%u lanes)</text>\n", lx, top + 84, gsize);
    legend_ramp(svg, lx, top + 100, "pass 1", "last", "");
    fprintf(svg, "</svg>\n");
    return RUN_EXIT_OK;
}

/* ------------------------------------------------------------ grid pictures */

static int explain_grid(const mem_model *mm, int l2, FILE *text, FILE *svg)
{
    uint32_t count, g3[3];
    const mem_group_stats *gs = mem_model_group_stats(mm, &count, g3);
    const mem_stats *s = mem_model_stats(mm);
    const mem_machine *mc = mem_model_machine(mm);
    uint32_t gx = g3[0], gy = g3[1] * g3[2];
    uint64_t last_step = 0;
    for (uint32_t g = 0; g < count; g++)
        if (gs[g].end_step > last_step)
            last_step = gs[g].end_step;
    if (l2)
        TEXTF("L2 on %s: read hit rate %.1f%% over %" PRIu64 " read sectors; %.1f%% over all %" PRIu64
               " sectors (reads, writes and atomics)\n", mc->name, 100 * mem_stats_l2_read_hit_rate(s),
               s->l2_read_hits + s->l2_read_misses, 100 * mem_stats_l2_hit_rate(s),
               s->l2_read_hits + s->l2_read_misses + s->l2_write_hits + s->l2_write_misses + s->l2_atomic_hits +
                   s->l2_atomic_misses);
    else
        TEXTF("launch on %s: %u CUs x %u workgroups per CU, %" PRIu64 " steps\n", mc->name, mc->compute_units,
               mem_model_workgroups_per_cu(mm), s->replay_steps);
    /* text: the grid in at most 32 x 24 blocks; a block shows the mean over its groups */
    uint32_t bx = (gx + 31) / 32, by = (gy + 23) / 24;
    TEXTF("%s per block of %u x %u workgroups (grid %u x %u):\n", l2 ? "L2 read hit rate %" : "mean launch order",
           bx, by, gx, gy);
    for (uint32_t y0 = 0; y0 < gy; y0 += by) {
        TEXTF("%5u |", y0);
        for (uint32_t x0 = 0; x0 < gx; x0 += bx) {
            double num = 0, den = 0;
            for (uint32_t y = y0; y < y0 + by && y < gy; y++)
                for (uint32_t x = x0; x < x0 + bx && x < gx; x++) {
                    const mem_group_stats *g = &gs[(size_t)y * gx + x];
                    if (l2)
                        num += (double)g->l2_read_hits, den += (double)(g->l2_read_hits + g->l2_read_misses);
                    else
                        num += g->launch_order, den += 1;
                }
            if (l2)
                TEXTF(den > 0 ? " %3.0f" : "   -", den > 0 ? 100 * num / den : 0);
            else
                TEXTF(" %4.0f", den > 0 ? num / den : 0);
        }
        TEXTF("\n");
    }
    if (!l2 && count <= 64) {
        TEXTF("\n group  order  cu  launch  end\n");
        for (uint32_t g = 0; g < count; g++)
            TEXTF(" %5u  %5u  %2u  %6u  %3u\n", g, gs[g].launch_order, gs[g].cu, gs[g].launch_step, gs[g].end_step);
    }
    if (!svg)
        return RUN_EXIT_OK;
    int cell = (int)(960 / (gx ? gx : 1));
    if (cell > 40)
        cell = 40;
    if (cell < 2)
        cell = 2;
    int left = 20, top = 40, width = left + (int)gx * cell + 260, height = top + (int)gy * cell + 60;
    char title[256];
    if (l2)
        snprintf(title, sizeof title, "L2 read hit rate per workgroup on %s: %.1f%% overall", mc->name,
                 100 * mem_stats_l2_read_hit_rate(s));
    else
        snprintf(title, sizeof title, "launch order per workgroup on %s (%u CUs x %u per CU, %" PRIu64 " steps)",
                 mc->name, mc->compute_units, mem_model_workgroups_per_cu(mm), last_step + 1);
    svg_open(svg, width, height < 200 ? 200 : height, title);
    for (uint32_t y = 0; y < gy; y++)
        for (uint32_t x = 0; x < gx; x++) {
            const mem_group_stats *g = &gs[(size_t)y * gx + x];
            char c[32];
            double t;
            if (l2) {
                uint64_t den = g->l2_read_hits + g->l2_read_misses;
                t = den ? (double)g->l2_read_hits / (double)den : 0;
            } else {
                t = count > 1 ? (double)g->launch_order / (double)(count - 1) : 0;
            }
            ramp(t, c, sizeof c);
            fprintf(svg, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"",
                    left + (int)x * cell, top + (int)y * cell, cell, cell, c);
            if (cell >= 8)
                fprintf(svg, " stroke=\"white\" stroke-width=\"0.5\"><title>group (%u,%u) cu %u launch order %u step %u..%u, "
                             "L2 read %" PRIu64 " hits %" PRIu64 " misses</title></rect>\n",
                        x, y, g->cu, g->launch_order, g->launch_step, g->end_step, g->l2_read_hits, g->l2_read_misses);
            else
                fprintf(svg, "/>\n");
            if (cell >= 24 && !l2)
                fprintf(svg, "<text x=\"%d\" y=\"%d\" font-size=\"9\" fill=\"%s\">%u</text>\n",
                        left + (int)x * cell + 2, top + (int)y * cell + 11, ramp_ink(t), g->launch_order + 1);
        }
    int lx = left + (int)gx * cell + 20;
    if (l2)
        legend_ramp(svg, lx, top + 10, "0%", "100%", "");
    else {
        char hi[32];
        snprintf(hi, sizeof hi, "%u", count);
        legend_ramp(svg, lx, top + 10, "1st", hi, "launched");
        if (cell >= 24)
            fprintf(svg, "<text x=\"%d\" y=\"%d\">number = launch order</text>\n", lx, top + 76);
    }
    fprintf(svg, "</svg>\n");
    return RUN_EXIT_OK;
}

/* The article's horizontal tiling (corrected for widths not a multiple of n):
 * order[i] = the linear id of the group launched i-th. */
static uint32_t *tiled_order(uint32_t gx, uint32_t gy, uint32_t gz, uint32_t n)
{
    uint32_t *order = malloc((size_t)gx * gy * gz * sizeof *order);
    if (!order)
        return NULL;
    uint32_t i = 0;
    for (uint32_t z = 0; z < gz; z++)
        for (uint32_t x0 = 0; x0 < gx; x0 += n)
            for (uint32_t y = 0; y < gy; y++)
                for (uint32_t x = x0; x < x0 + n && x < gx; x++)
                    order[i++] = x + gx * (y + gy * z);
    return order;
}

int cli_cmd_explain(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_explain, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    const char *case_path = o.nargs ? o.args[0] : NULL, *machine = o.machine ? o.machine : CLI_DEFAULT_MACHINE;
    const char *svg_path = o.svg;
    long pc = o.given[CLI_OPT_instruction] ? (long)o.instruction : -1;
    uint32_t wave_index = (uint32_t)o.wave_index, threads = o.memory_threads ? (uint32_t)o.memory_threads : 1;
    int mode = o.launch_order ? 3 : o.l2 ? 2 : o.lds ? 1 : 0; /* 1 lds, 2 l2, 3 launch order */
    int image_layout = o.given[CLI_OPT_image_layout] ? o.image_layout : -1; /* the preset's own when -1 */
    if (o.lds + o.l2 + o.launch_order > 1) {
        fprintf(stderr, "wavelab explain: give one of --lds, --l2 and --launch-order\n");
        return RUN_EXIT_BAD_INPUT;
    }
    if (!case_path || !mode) {
        fprintf(stderr, "wavelab explain: usage: explain CASE --lds|--l2|--launch-order [--machine M] [--svg OUT]\n");
        return RUN_EXIT_BAD_INPUT;
    }
    uint32_t tile = (uint32_t)o.order;
    char err[4096];
    wl_case *c = NULL;
    mem_machine mc;
    if (cli_load_case_and_machine(case_path, machine, image_layout, &c, &mc) != 0)
        return RUN_EXIT_BAD_INPUT;
    run_options opt = cli_run_options(&o);
    if (!opt.wave_size && !c->subgroup_size)
        opt.wave_size = mc.default_wave;
    uint32_t *order = tile ? tiled_order(c->groups[0], c->groups[1], c->groups[2], tile) : NULL;
    mem_model_options mo = {.machine = &mc, .threads = (int)threads, .capture_wave = wave_index, .launch_order = order,
                            .launch_order_count = order ? c->groups[0] * c->groups[1] * c->groups[2] : 0};
    if (mem_model_create(&mo, &opt.memory) != MEM_OK) {
        free(order);
        case_destroy(c);
        return RUN_EXIT_BAD_INPUT;
    }
    run_output out;
    int rc = run_case_sim(c, &opt, &out, err, sizeof err);
    if (out.optimizer_note[0])
        fprintf(stderr, "wavelab explain: %s\n", out.optimizer_note);
    if (rc == RUN_EXIT_BAD_INPUT)
        fprintf(stderr, "%s\n", err);
    else if (rc == RUN_EXIT_FAIL)
        fprintf(stderr, "fault: %s\n", out.result.fault_event.message);
    else {
        FILE *svg = NULL;
        char svg_tmp[4200];
        if (svg_path && !(svg = text_output_open(svg_path, svg_tmp, sizeof svg_tmp))) {
            fprintf(stderr, "%s: cannot write: %s\n", svg_path, strerror(errno));
            rc = RUN_EXIT_BAD_INPUT;
        } else {
            printf("%s at wave size %u on %s\n", c->path, out.wave_size, mc.name);
            rc = mode == 1 ? explain_lds(&out, opt.memory, pc, wave_index, stdout, svg)
                           : explain_grid(opt.memory, mode == 2, stdout, svg);
            if (rc == RUN_EXIT_OK && mode != 1) {
                printf("\n");
                mem_model_print(opt.memory, out.prog, stdout);
            }
            /* the picture only when the analysis succeeded: no empty SVG left behind */
            if (svg && text_output_close(svg, svg_tmp, svg_path, rc == RUN_EXIT_OK) != 0) {
                fprintf(stderr, "%s: cannot write: %s\n", svg_path, strerror(errno));
                rc = RUN_EXIT_BAD_INPUT;
            }
        }
    }
    run_output_free(&out);
    mem_model_destroy(opt.memory);
    free(order);
    case_destroy(c);
    return rc;
}

int cli_explain_lds_svg(const run_output *out, const mem_model *mm, FILE *svg)
{
    return explain_lds(out, mm, -1, 0, NULL, svg);
}

int cli_explain_grid_svg(const mem_model *mm, int l2, FILE *svg)
{
    return explain_grid(mm, l2, NULL, svg);
}
