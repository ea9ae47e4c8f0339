/*
 * cli/report.c — `wavelab report CASE -o report.html`: one self-contained
 * HTML page about one case, for a reader who wants to see what the wave
 * machine did without running five commands.  Everything is inline (CSS and
 * SVG); the page fetches nothing.
 *
 * Sections (each a <section id=...>, which the browser test looks for):
 *   summary   the dispatch, the executor's statistics, the expectations and
 *             the memory model's summary and estimate
 *   source    the kernel source with executions and active lanes per line
 *   listing   the allocated wave program and its live-register curve
 *   lds       the LDS bank picture of the worst LDS instruction
 *   l2        L2 read hit rate per workgroup
 *   launch    launch order per workgroup
 *   timeline  waves on compute units over the replay (article 001's rows)
 *   check     `wavelab check` against a Vulkan device (--backend vulkan)
 * The pictures are the ones `wavelab explain`, `disasm --svg` and
 * `timeline` draw: this file only arranges them.
 */
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

/* All text in the page goes through text_xml (text/text.h): HTML text is XML text here. */
static void html_text(FILE *f, const char *s, size_t n) { text_xml(f, s, n, 0); }

static void html(FILE *f, const char *s) { html_text(f, s, (size_t)-1); }

/* A block of text produced by a FILE writer, as <pre>. */
static void pre_from(FILE *f, const char *cls, void (*write)(void *arg, FILE *out), void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return;
    write(arg, m);
    fclose(m);
    fprintf(f, "<pre class=\"%s\">", cls);
    html_text(f, buf, len);
    fprintf(f, "</pre>\n");
    free(buf);
}

/* Runs `wavelab check` onto one memory stream (the check section shows its text as it is, output and errors in the
 * order check wrote them). */
static char *capture_check(const cli_opts *o, const char *case_path, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    *rc = cli_check_case_to(o, case_path, m, m);
    if (fclose(m) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

typedef struct report_ctx {
    const wl_case *c;
    const run_output *out;
    const mem_model *mm;
} report_ctx;

static void write_stats(void *arg, FILE *f)
{
    const report_ctx *r = arg;
    const isa_program *p = r->out->prog;
    const sim_stats *s = &r->out->result.stats;
    uint32_t W = r->out->wave_size, local = p->local_size[0] * p->local_size[1] * p->local_size[2];
    /* The program, its listing and the memory model are the last pass run's (run.h), so the kernel and
     * dispatch lines come from that pass too; every pass gets a line of its own first. */
    wl_case view;
    case_dispatch_view(r->c, r->out->pass, &view);
    int total = case_dispatch_total(r->c);
    if (total > 1) {
        for (int i = 0; i < r->out->pass_count && r->out->pass_stats; i++) {
            wl_case pv;
            case_dispatch_view(r->c, i, &pv);
            fprintf(f, "pass %-2d      %s: %s, %u x %u x %u workgroups, %" PRIu64 " waves, %" PRIu64
                       " wave instructions\n", i, case_dispatch_name(r->c, i), pv.kernel, pv.groups[0], pv.groups[1],
                    pv.groups[2], r->out->pass_stats[i].waves, r->out->pass_stats[i].wave_instructions);
        }
        fprintf(f, "passes       %d of %d ran; kernel to program and the memory model describe pass %d (%s), "
                   "executed and by class sum over the passes\n", r->out->pass_count, total, r->out->pass,
                case_dispatch_name(r->c, r->out->pass));
    }
    fprintf(f, "kernel       %s (%s, entry %s)\n", view.kernel, view.language, view.entry);
    fprintf(f, "dispatch     %u x %u x %u workgroups of %u x %u x %u = %u invocations each\n", view.groups[0],
            view.groups[1], view.groups[2], p->local_size[0], p->local_size[1], p->local_size[2], local);
    fprintf(f, "wave size    %u: %u waves per workgroup\n", W, (local + W - 1) / W);
    fprintf(f, "program      %u instructions, %u VGPRs, %u SGPRs, %u bytes shared memory\n", p->code_count,
            p->res.vgprs, p->res.sgprs, p->workgroup_bytes);
    fprintf(f, "executed     %" PRIu64 " waves, %" PRIu64 " wave instructions, %" PRIu64 " lane operations", s->waves,
            s->wave_instructions, s->lane_operations);
    if (s->wave_instructions)
        fprintf(f, " (%.1f%% of lanes active)", 100.0 * (double)s->lane_operations / ((double)s->wave_instructions * W));
    fprintf(f, "\nby class    ");
    for (int k = 0; k < ISA_CLASS_COUNT; k++)
        if (s->by_class[k])
            fprintf(f, " %s %" PRIu64, isa_class_name((isa_class)k), s->by_class[k]);
    fprintf(f, "\n");
    if (s->barriers || s->atomic_lane_ops)
        fprintf(f, "sync         %" PRIu64 " barriers, %" PRIu64 " atomic lane operations\n", s->barriers,
                s->atomic_lane_ops);
    if (r->out->status == SIM_FAULT)
        fprintf(f, "FAULT        %s: %s\n", sim_fault_kind_name(r->out->result.fault),
                r->out->result.fault_event.message);
    else if (r->c->expect_count)
        run_check_expects(r->c, r->out->data, f);
    fprintf(f, "\n");
    mem_model_print(r->mm, p, f);
}

static void write_listing(void *arg, FILE *f)
{
    const report_ctx *r = arg;
    isa_program_print(r->out->prog, f);
}

static void section_open(FILE *f, const char *id, const char *title, const char *what)
{
    fprintf(f, "<section id=\"%s\"><h2>%s</h2>\n<p class=\"what\">", id, title);
    html(f, what);
    fprintf(f, "</p>\n");
}

static void section_source(FILE *f, const report_ctx *r)
{
    const isa_program *p = r->out->prog;
    const sim_stats *s = &r->out->result.stats;
    size_t len = 0;
    char why[1200];
    char *src = text_read_file(r->c->kernel, CASE_MAX_FILE_BYTES, &len, why, sizeof why);
    if (!src) {
        fprintf(f, "<p>The kernel source cannot be read: ");
        html(f, why);
        fprintf(f, "</p>\n");
        return;
    }
    uint32_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += src[i] == '\n';
    uint64_t *exec = calloc(lines + 1, sizeof *exec), *lanes = calloc(lines + 1, sizeof *lanes);
    if (!exec || !lanes) {
        free(exec), free(lanes), free(src);
        return;
    }
    for (uint32_t pc = 0; pc < p->code_count && pc < s->inst_count; pc++)
        if (p->code[pc].line && p->code[pc].line <= lines) {
            exec[p->code[pc].line] += s->inst_executions[pc];
            lanes[p->code[pc].line] += s->inst_lanes[pc];
        }
    fprintf(f, "<div class=\"wide\"><table class=\"source\"><tr><th>line</th><th>wave instructions</th><th>active lanes</th>"
               "<th></th><th>source</th></tr>\n");
    const char *q = src;
    for (uint32_t line = 1; line <= lines && *q; line++) {
        const char *e = strchr(q, '\n');
        size_t n = e ? (size_t)(e - q) : strlen(q);
        fprintf(f, "<tr><td class=\"n\">%u</td>", line);
        if (exec[line]) {
            double pct = 100.0 * (double)lanes[line] / ((double)exec[line] * r->out->wave_size);
            fprintf(f, "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%.1f%%</td><td><div class=\"bar\" "
                       "style=\"width:%.0fpx\"></div></td>",
                    exec[line], pct, pct * 0.6);
        } else {
            fprintf(f, "<td></td><td></td><td></td>");
        }
        fprintf(f, "<td><code>");
        html_text(f, q, n);
        fprintf(f, "</code></td></tr>\n");
        q = e ? e + 1 : q + n;
    }
    fprintf(f, "</table></div>\n");
    free(exec);
    free(lanes);
    free(src);
}

static int has_lds(const report_ctx *r)
{
    uint32_t n;
    const mem_inst_stats *is = mem_model_inst_stats(r->mm, &n);
    for (uint32_t pc = 0; pc < n && pc < r->out->prog->code_count; pc++)
        if (r->out->prog->code[pc].cls == ISA_CLASS_LDS && is[pc].executions)
            return 1;
    return 0;
}

/* The page reads at any width (tests/test_report.c lays it out at 480 and 1400 px): a long case path wraps
 * anywhere, the wide source table scrolls in its own box, and check's lines wrap, so that its verdict and its
 * reason are read whole, in print and in screenshots too. */
static const char style[] =
    "body{font-family:sans-serif;margin:24px;max-width:1100px;color:#222}"
    "h1{font-size:22px;overflow-wrap:anywhere}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}"
    "pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}"
    "p.what{color:#555;font-size:13px}nav a{margin-right:12px}"
    "table.source{border-collapse:collapse;font-size:12px}"
    "table.source td{padding:0 6px;white-space:pre}table.source td.n{text-align:right;color:#555}"
    "table.source th{text-align:left;font-weight:normal;color:#555}"
    ".bar{height:10px;background:#4e79a7}svg{max-width:100%;height:auto}"
    ".pass{color:#2a7a2a}.fail{color:#b22}.skip{color:#8a6d00}pre.listing{max-height:360px;overflow-y:auto}"
    "div.wide{overflow-x:auto}pre.check{white-space:pre-wrap;overflow-wrap:anywhere}";

int cli_cmd_report(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_report, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    const char *case_path = o.nargs ? o.args[0] : NULL, *out_path = o.output;
    const char *machine = o.machine ? o.machine : CLI_DEFAULT_MACHINE, *backend = o.backend ? o.backend : "sim";
    if (!case_path || !out_path) {
        fprintf(stderr, "wavelab report: %s (wavelab report --help)\n",
                case_path ? "-o REPORT.html is required" : "no case file given");
        return RUN_EXIT_BAD_INPUT;
    }
    char err[4096];
    wl_case *c = NULL;
    mem_machine mc;
    if (cli_load_case_and_machine(case_path, machine, -1, &c, &mc) != 0)
        return RUN_EXIT_BAD_INPUT;
    run_options opt = cli_run_options(&o);
    if (!opt.wave_size && !c->subgroup_size)
        opt.wave_size = mc.default_wave;
    mem_model_options mo = {.machine = &mc, .threads = 1, .capture_wave = 0};
    if (mem_model_create(&mo, &opt.memory) != MEM_OK) {
        fprintf(stderr, "out of memory\n");
        case_destroy(c);
        return RUN_EXIT_BAD_INPUT;
    }
    run_output out;
    cli_progress progress;
    opt.progress = cli_progress_start(&progress, 0);
    int rc = run_case_sim(c, &opt, &out, err, sizeof err);
    if (out.optimizer_note[0])
        fprintf(stderr, "wavelab report: %s\n", out.optimizer_note);
    cli_progress_end(&progress);
    FILE *f = NULL;
    if (rc == RUN_EXIT_BAD_INPUT) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    if (!(f = fopen(out_path, "w"))) {
        fprintf(stderr, "%s: cannot write: %s\n", out_path, strerror(errno));
        rc = RUN_EXIT_BAD_INPUT;
        goto done;
    }
    report_ctx r = {.c = c, .out = &out, .mm = opt.memory};
    const isa_program *p = out.prog;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>wavelab report: ");
    html(f, case_path);
    fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>wavelab report: ", style);
    html(f, case_path);
    fprintf(f, "</h1>\n<p class=\"what\">Simulated at wave %u on the machine model <b>", out.wave_size);
    html(f, mc.name);
    fprintf(f, "</b> (");
    html(f, mc.description);
    fprintf(f, ").</p>\n<nav><a href=\"#summary\">summary</a><a href=\"#source\">source</a><a href=\"#listing\">"
               "listing</a><a href=\"#lds\">LDS banks</a><a href=\"#l2\">L2</a><a href=\"#launch\">launch order</a>"
               "<a href=\"#timeline\">timeline</a><a href=\"#check\">device check</a></nav>\n");

    section_open(f, "summary", "Summary",
                 "What ran, how many wave instructions it took, how many lanes were active, whether the case's "
                 "expectations hold, and what the memory model makes of its accesses.");
    pre_from(f, "summary", write_stats, &r);
    fprintf(f, "</section>\n");

    section_open(f, "source", "Source, line by line",
                 "Wave instructions executed for each source line (summed over every wave), and the share of a "
                 "wave's lanes active in them: divergence shows as a short bar.");
    section_source(f, &r);
    fprintf(f, "</section>\n");

    section_open(f, "listing", "The wave program and its live registers",
                 "The allocated program (wavelab disasm): class, registers, source line; the curve shows VGPRs and "
                 "SGPRs live across each instruction.");
    char title[256];
    snprintf(title, sizeof title, "live registers: %u VGPRs, %u SGPRs at the peak", p->res.vgprs, p->res.sgprs);
    isa_program_svg(p, f, title);
    pre_from(f, "listing", write_listing, &r);
    fprintf(f, "</section>\n");

    section_open(f, "lds", "LDS bank conflicts",
                 "The LDS instruction with the most conflict cycles, as wave 0 of the first workgroup ran it: which "
                 "bank each lane's word falls in and in which pass it is served.");
    if (has_lds(&r) && cli_explain_lds_svg(&out, opt.memory, f) == RUN_EXIT_OK)
        ;
    else
        fprintf(f, "<p>This kernel executes no LDS (shared-memory) instruction.</p>\n");
    fprintf(f, "</section>\n");

    section_open(f, "l2", "L2 hit rate per workgroup",
                 "Each cell is one workgroup in the grid; colour = its share of L2 read sectors that hit.");
    cli_explain_grid_svg(opt.memory, 1, f);
    fprintf(f, "</section>\n");

    section_open(f, "launch", "Launch order",
                 "Each cell is one workgroup; colour = when it was launched onto a compute unit.");
    cli_explain_grid_svg(opt.memory, 0, f);
    fprintf(f, "</section>\n");

    section_open(f, "timeline", "Timeline",
                 "Which wave ran on which compute unit when, in replay steps; waves overlapping on one CU are "
                 "stacked into rows with article 001's greedy rule, and the histogram shows their durations.");
    cli_interval *iv = NULL;
    size_t n = 0;
    double us = 1;
    uint32_t rows = 0;
    if (cli_timeline_from_memory(opt.memory, &iv, &n, &us) == 0 && cli_timeline_rows(iv, n, &rows) == 0) {
        snprintf(title, sizeof title, "waves on the compute units of %s (rows = wave slots in use, at most %u)",
                 mc.name, rows);
        cli_timeline_svg(f, iv, n, title, "steps", "CU %u", 0);
    }
    free(iv);
    fprintf(f, "</section>\n");

    section_open(f, "check", "On a device",
                 "The same case on a Vulkan device (wavelab check): every binding compared with the simulator.");
    if (strcmp(backend, "vulkan") == 0) {
        /* the report's own options (the simulator's: --robust, --budget, ...) at the wave size it ran */
        cli_opts check = o;
        check.wave = out.wave_size;
        check.given[CLI_OPT_wave] = 1;
        check.machine = NULL; /* check's --machine only names the preset: the report's is the model above */
        int check_rc = 0;
        char *text = capture_check(&check, case_path, &check_rc);
        /* check's exit codes (wavelab --help): a device that cannot run the case is a skip, not a failure */
        static const struct { const char *cls, *says; } verdicts[] = {
            {"pass", "the device agrees"}, {"fail", "mismatch"}, {"fail", "bad input"},
            {"skip", "the device cannot run this case"}};
        int known = check_rc >= 0 && check_rc < (int)(sizeof verdicts / sizeof verdicts[0]);
        fprintf(f, "<p class=\"%s\">wavelab check: exit %d (%s)</p>\n<pre class=\"check\">",
                known ? verdicts[check_rc].cls : "fail", check_rc, known ? verdicts[check_rc].says : "failed");
        html(f, text ? text : "");
        fprintf(f, "</pre>\n");
        free(text);
        if (check_rc == 1)
            rc = RUN_EXIT_FAIL;
    } else {
        fprintf(f, "<p>No device ran this report: add <code>--backend vulkan</code>.</p>\n");
    }
    fprintf(f, "</section>\n</body></html>\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write: %s\n", out_path, strerror(errno));
        rc = RUN_EXIT_BAD_INPUT;
    }
    if (rc == RUN_EXIT_OK && out.status == SIM_FAULT)
        rc = RUN_EXIT_FAIL;
done:
    run_output_free(&out);
    mem_model_destroy(opt.memory);
    case_destroy(c);
    return rc;
}
