/*
 * cli/main.c — the `wavelab` command: subcommand dispatch, and the
 * simulator-side subcommands run, test, compile and disasm.
 *
 * Exit codes (docs/cli.md): 0 success; 1 a kernel fault, a failed
 * expectation or a mismatch; 2 bad input (usage, case file, kernel source,
 * SPIR-V, unsupported feature).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "api/wavelab.h"
#include "case/amber.h"
#include "case/case.h"
#include "cli/cli.h"
#include "isa/isa.h"
#include "isa/spvcache.h"
#include "run/run.h"
#include "sim/machine.h"
#include "sim/memmodel.h"
#include "sim/sim.h"
#include "text/text.h"

/* The one description of every command and option: `wavelab --help` prints all of it, `wavelab CMD --help`
 * (or `wavelab help CMD`) the command's own entry. */
static const char usage_text[] =
            "usage: wavelab COMMAND [ARGS]\n"
            "\n"
            "  run CASE [--wave N] [--dump OUT.json] [--budget N] [--threads N] [--profile] [--time] [--quiet]\n"
            "      [--warmup N] [--backend sim|vulkan] [--optimize[=PASSES]] [--robust] [--sanitize]\n"
            "      [--machine NAME|FILE [--memory-threads 1|2] [--image-layout linear|nv_blocklinear|amd_swizzle]]\n"
            "        run a case on the simulator (or a Vulkan device) and print a summary\n"
            "  test DIR|CASE... [--wave N | --waves N,N,...] [--jobs N] [--optimize[=PASSES]] [--robust] [--sanitize]\n"
            "      [--junit OUT.xml] [--tap] [--shard K/N]\n"
            "        run every case with an \"expect\" at each wave size it allows (the others: SKIP); ends with\n"
            "        'N passed, N failed, N skipped, N xfail'; --junit also writes JUnit XML, --tap prints TAP\n"
            "        instead of the text (one test per case and wave size); --shard K/N runs every N-th case of\n"
            "        the sorted list from the K-th, so N machines or processes split one suite\n"
            "        (--sanitize on run, test, check: racecheck, initcheck, inactive-lane reads, synccheck and\n"
            "        the schedule check; any finding is a failure, exit 1)\n"
            "  compile CASE|KERNEL [--entry NAME] [--spirv OUT.spv] [--disasm] [--optimize[=PASSES]]\n"
            "        compile a kernel with glslang (or read a .spv), validate it, print or save the SPIR-V\n"
            "  disasm CASE|KERNEL [--entry NAME] [--machine NAME|FILE] [--wave N] [--svg OUT.svg] [--optimize[=PASSES]]\n"
            "        print the allocated wave-ISA program: class, s/v registers, source line, live VGPRs and\n"
            "        SGPRs per instruction; header with register counts and, with --machine, occupancy;\n"
            "        --svg draws live registers against instruction index\n"
            "  disasm CASE|KERNEL --against radv:FAMILY|device [--device NAME|INDEX] [--wave 32|64] [--machine M]\n"
            "        compile the kernel with AMD's compiler on RADV's null device for FAMILY (navi21, vega10,\n"
            "        gfx1100, ...: sets RADV_FORCE_FAMILY; nothing runs) or with the selected device, and print\n"
            "        its VGPRs, SGPRs, occupancy and instruction classes beside wavelab's, then both listings\n"
            "  bench [--seconds S] [--wave N]\n"
            "        measure wave instructions per second on an ALU and a memory kernel\n"
            "  machines\n"
            "        list the machine presets (machines/*.json)\n"
            "  explain CASE [--machine NAME|FILE] [--wave N] --lds [--instruction PC] [--wave-index K] |\n"
            "      --l2 | --launch-order [--order linear|tiled:N] [--image-layout NAME] [--svg OUT.svg]\n"
            "        explain LDS bank conflicts, L2 hits per workgroup or the launch order (text and SVG)\n"
            "  trace CASE [--wave N] [--workgroup X,Y,Z] [--wave-index K] [--lines A-B | --pc A-B] [--limit N]\n"
            "      [--json]\n"
            "        every instruction one wave executes: exec mask as lanes, values written, branches, loops\n"
            "  timeline CASE [--machine NAME|FILE] [--wave N] [--trace OUT.json] [--svg OUT.svg]\n"
            "        which workgroup ran on which compute unit when (the memory model's residency replay):\n"
            "        a Chrome/Perfetto trace and an SVG of rows with a histogram of durations\n"
            "  profile CASE [--backend sim|vulkan] [--wave N] [--machine NAME|FILE] [--repeat N] [--svg OUT.svg]\n"
            "      [--trace OUT.json] [--device D]\n"
            "        article 001's profiler: each pass's GPU timestamps (or the model's estimate), rows and histogram\n"
            "  report CASE -o REPORT.html [--machine NAME|FILE] [--wave N] [--backend vulkan]\n"
            "        one self-contained HTML page: summary, source with active lanes per line, listing and live\n"
            "        registers, LDS banks, L2, launch order, timeline, and the device check with --backend vulkan\n"
            "  compare A.json B.json [--machine NAME|FILE] [--waves N,N,...]\n"
            "        two variants side by side at each wave size: instructions by class, active lanes, registers,\n"
            "        and with --machine occupancy, LDS conflicts, L1/L2 hits, DRAM bytes and the time estimate;\n"
            "        A, B, B-A and B/A, then a verdict: the faster side (fewer instructions without a machine) and\n"
            "        the estimate unit (instruction class) whose cycles (count) changed most; exit 1 when either\n"
            "        side faults or fails its expectations\n"
            "  amber SCRIPT.amber [--wave N] [--quiet]\n"
            "        run an Amber script's compute subset on the simulator (docs/amber.md; check runs it on a device):\n"
            "        exit 3 names what lies outside the subset\n"
            "  isa\n"
            "        print the wave ISA's instruction table (Markdown)\n"
            "  devices\n"
            "        list Vulkan devices\n"
            "  check CASE [--wave N] [--device NAME|INDEX] [--optimize[=PASSES]] [--robust] [--sanitize]\n"
            "      [--maximal-reconvergence] [--timeout SECONDS]\n"
            "        run a case on the simulator and a Vulkan device and compare every binding; both sides\n"
            "        agreeing on values the case's expectations reject is a failure too (exit 1)\n"
            "  probe [--device NAME|INDEX] [--quick] [--base PRESET] [--name NAME] [--sweeps DIR] -o PRESET.json\n"
            "        microbenchmarks on a Vulkan device (subgroups, LDS banks, caches, DRAM) -> a machine preset;\n"
            "        --from-sweeps DIR: the preset from sweeps saved with --sweeps (no device)\n"
            "  help [COMMAND]\n"
            "        this text, or one command's entry of it\n"
            "\n"
            "kernels run as written: no optimizer moves code across control flow.  --optimize runs spirv-opt's\n"
            "-O list (or PASSES: \"size\", or spirv-opt flags) and says when the results differ from the kernel\n"
            "as written.  --robust: out-of-bounds buffer loads read 0 and stores are dropped (robustBufferAccess2).\n"
            "--maximal-reconvergence (run --backend vulkan, check): the device runs the kernel with SPIR-V's\n"
            "MaximallyReconvergesKHR, the reconvergence the simulator models (VK_KHR_shader_maximal_reconvergence).\n"
            "--timeout SECONDS (run --backend vulkan, check): how long one dispatch may take on the device (10)\n"
            "every command takes --help: its own entry of this text; wavelab --version prints the version\n"
            "every command that compiles takes --no-cache (or WAVELAB_NO_CACHE=1): compile without the SPIR-V\n"
            "cache in $XDG_CACHE_HOME/wavelab (default ~/.cache/wavelab); --no-lean (or WAVELAB_NO_LEAN=1): run\n"
            "the wave program as lowered, without copy propagation, phi coalescing and edge-mask removal\n"
            "\n";
static const char exit_codes_text[] =
    "exit codes: 0 ok, 1 fault/failure/mismatch, 2 bad input, 3 skipped (device cannot run the case)\n";

static void usage(FILE *f)
{
    fputs(usage_text, f);
    fputs(exit_codes_text, f);
}

/* Prints the entries of `cmd` in usage_text (a command may have several: disasm): each its line
 * ("  CMD ...") and the lines indented deeper under it.  Returns 0 when usage_text has no such command. */
static int command_usage(const char *cmd, FILE *f)
{
    size_t n = strlen(cmd);
    int found = 0;
    for (const char *line = usage_text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        if (strncmp(line, "  ", 2) == 0 && line[2] != ' ' && strncmp(line + 2, cmd, n) == 0 &&
            (line[2 + n] == ' ' || line[2 + n] == '\n')) {
            fprintf(f, "%s wavelab %.*s", found++ ? "   or" : "usage:", (int)(len - 2), line + 2);
            for (line += len; strncmp(line, "    ", 4) == 0;) {
                end = strchr(line, '\n');
                len = end ? (size_t)(end - line) + 1 : strlen(line);
                fwrite(line, 1, len, f);
                line += len;
            }
            continue;
        }
        line += len;
    }
    if (found)
        fputs(exit_codes_text, f);
    return found;
}

/* ------------------------------------------------------------ options */

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || v > max || s[0] == '-')
        return 0;
    *out = v;
    return 1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int cli_optimize_option(const char *arg, const char **passes)
{
    if (strcmp(arg, "--optimize") == 0) {
        *passes = "performance";
        return 1;
    }
    if (strncmp(arg, "--optimize=", 11) == 0 && arg[11]) {
        *passes = arg + 11;
        return 1;
    }
    return 0;
}

int cli_wave_option(const char *cmd, const char *text, uint32_t *wave)
{
    char *end;
    unsigned long w = strtoul(text, &end, 10);
    if (*end || end == text || w == 0 || w > 1024 || text[0] == '-') {
        fprintf(stderr, "wavelab %s: --wave: \"%s\" is not a wave size\n", cmd, text);
        return 0;
    }
    *wave = (uint32_t)w;
    return 1;
}

/* A kernel given directly (not a case): a case in memory with no bindings,
 * enough to compile, validate, lower and list it. */
static wl_case *case_for_kernel(const char *path, const char *entry, char *err, size_t err_size)
{
    wl_case *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    const char *slash = strrchr(path, '/');
    c->path = strdup(path);
    c->dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
    c->kernel = strdup(path);
    c->language = strdup(ends_with(path, ".hlsl") ? "hlsl" : ends_with(path, ".spv") ? "spirv" : "glsl");
    c->entry = strdup(entry ? entry : "main");
    c->groups[0] = c->groups[1] = c->groups[2] = 1;
    if (!c->path || !c->dir || !c->kernel || !c->language || !c->entry) {
        case_destroy(c);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    return c;
}

static wl_case *load_case_or_kernel(const char *path, const char *entry, char *err, size_t err_size)
{
    if (ends_with(path, ".json") || amber_is_script(path)) {
        wl_case *c = NULL;
        if (case_load(path, &c, err, err_size) != CASE_OK)
            return NULL;
        return c;
    }
    return case_for_kernel(path, entry, err, err_size);
}

/* ------------------------------------------------------------ summary and dump */

static void print_summary(const wl_case *c, const run_output *out, FILE *f)
{
    const isa_program *p = out->prog;
    const sim_stats *s = &out->result.stats;
    uint32_t local = p->local_size[0] * p->local_size[1] * p->local_size[2];
    fprintf(f, "wavelab run %s\n", c->path);
    wl_case view; /* several passes: the lines below describe the last pass run, the counts are summed */
    if (c->dispatches) {
        fprintf(f, "  passes       %d of %d ran; kernel, dispatch and program below are pass %d's (%s), executed "
                "counts are summed over the passes\n", out->pass_count, c->dispatch_count, out->pass,
                case_dispatch_name(c, out->pass));
        case_dispatch_view(c, out->pass, &view);
        c = &view;
    }
    fprintf(f, "  kernel       %s (%s, entry %s)\n", c->kernel, c->language, c->entry);
    fprintf(f, "  dispatch     %u x %u x %u workgroups of %u x %u x %u = %u invocations each\n", c->groups[0],
            c->groups[1], c->groups[2], p->local_size[0], p->local_size[1], p->local_size[2], local);
    fprintf(f, "  wave size    %u: %u waves per workgroup%s\n", out->wave_size, (local + out->wave_size - 1) / out->wave_size,
            local % out->wave_size ? " (the last one partial)" : "");
    /* the allocation's peak live registers, as `disasm`, `report` and `check` print them */
    fprintf(f, "  program      %u instructions, %u VGPRs + %u SGPRs, %u bytes shared memory\n", p->code_count,
            p->res.vgprs, p->res.sgprs, p->workgroup_bytes);
    fprintf(f, "  executed     %" PRIu64 " workgroups, %" PRIu64 " waves, %" PRIu64 " wave instructions, %" PRIu64
            " lane operations",
            s->workgroups, s->waves, s->wave_instructions, s->lane_operations);
    if (s->wave_instructions)
        fprintf(f, " (%.1f%% of lanes active)",
                100.0 * run_lane_utilisation(s->lane_operations, s->wave_instructions, out->wave_size));
    fprintf(f, "\n  by class    ");
    for (int k = 0; k < ISA_CLASS_COUNT; k++)
        if (s->by_class[k])
            fprintf(f, " %s %" PRIu64, isa_class_name((isa_class)k), s->by_class[k]);
    fprintf(f, "\n");
    if (s->barriers || s->atomic_lane_ops)
        fprintf(f, "  sync         %" PRIu64 " barriers, %" PRIu64 " atomic lane operations\n", s->barriers,
                s->atomic_lane_ops);
    if (s->robust_loads || s->robust_stores)
        fprintf(f, "  robust       %" PRIu64 " out-of-bounds load components read as 0, %" PRIu64
                " store components dropped\n", s->robust_loads, s->robust_stores);
    if (s->undefined_events) {
        fprintf(f, "  undefined    %" PRIu64 " event(s); the first:\n", s->undefined_events);
        for (int i = 0; i < out->result.event_count && i < 8; i++) {
            char where[512];
            sim_location_format(p, &out->result.events[i].where, where, sizeof where);
            fprintf(f, "               %s: %s\n", where, out->result.events[i].message);
        }
    }
}

/* The listing annotated with what ran: executions and average active lanes
 * per instruction, so divergence and hot loops show where they happen. */
static void print_profile(const run_output *out, FILE *f)
{
    const isa_program *p = out->prog;
    const sim_stats *s = &out->result.stats;
    if (!s->inst_executions)
        return;
    fprintf(f, "  profile      executions and average active lanes (of %u) per instruction:\n", out->wave_size);
    fprintf(f, "    %5s %10s %6s  %-64s %s\n", "pc", "executed", "lanes", "instruction", "line");
    for (uint32_t i = 0; i < p->code_count && i < s->inst_count; i++) {
        char text[256];
        isa_inst_format(p, &p->code[i], text, sizeof text);
        uint64_t n = s->inst_executions[i];
        if (n)
            fprintf(f, "    %5u %10" PRIu64 " %6.1f  %-64s %u\n", i, n, (double)s->inst_lanes[i] / (double)n, text,
                    p->code[i].line);
        else
            fprintf(f, "    %5u %10s %6s  %-64s %u\n", i, "-", "-", text, p->code[i].line);
    }
}

static cJSON *location_json(const isa_program *p, const sim_location *l)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "pc", l->pc);
    cJSON_AddNumberToObject(o, "line", l->line);
    cJSON_AddNumberToObject(o, "spirv_word", l->spirv_word);
    cJSON *g = cJSON_AddArrayToObject(o, "workgroup");
    for (int k = 0; k < 3; k++)
        cJSON_AddItemToArray(g, cJSON_CreateNumber(l->group[k]));
    cJSON_AddNumberToObject(o, "wave", l->wave);
    cJSON_AddNumberToObject(o, "lane", l->lane);
    if (l->slot >= 0 && (uint32_t)l->slot < p->slot_count)
        cJSON_AddStringToObject(o, "slot", p->slots[l->slot].name);
    cJSON_AddNumberToObject(o, "address", (double)l->address);
    return o;
}

static cJSON *stats_json(const run_output *out)
{
    const sim_stats *s = &out->result.stats;
    const isa_program *p = out->prog;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "wave_size", out->wave_size);
#define X(name, meaning) cJSON_AddNumberToObject(o, #name, (double)s->name);
#include "sim/counters.def"
#undef X
    /* instructions by class and by opcode */
    cJSON *ins = cJSON_AddObjectToObject(o, "instructions");
    cJSON_AddNumberToObject(ins, "total", (double)s->wave_instructions);
    cJSON *cls = cJSON_AddObjectToObject(ins, "by_class");
    for (int k = 0; k < ISA_CLASS_COUNT; k++)
        cJSON_AddNumberToObject(cls, isa_class_name((isa_class)k), (double)s->by_class[k]);
    cJSON *ops = cJSON_AddObjectToObject(ins, "by_opcode");
    for (int k = 0; k < ISA_OP_COUNT; k++)
        if (s->by_op[k])
            cJSON_AddNumberToObject(ops, isa_op_name((isa_op)k), (double)s->by_op[k]);
    if (out->memory)
        cJSON_AddItemToObject(o, "memory", (cJSON *)mem_model_json(out->memory, p));
    cJSON *per = cJSON_AddArrayToObject(o, "per_instruction");
    for (uint32_t i = 0; i < s->inst_count && s->inst_executions; i++) {
        if (!s->inst_executions[i])
            continue;
        cJSON *e = cJSON_CreateObject();
        char text[256];
        isa_inst_format(p, &p->code[i], text, sizeof text);
        cJSON_AddNumberToObject(e, "pc", i);
        cJSON_AddStringToObject(e, "text", text);
        cJSON_AddNumberToObject(e, "line", p->code[i].line);
        cJSON_AddNumberToObject(e, "executions", (double)s->inst_executions[i]);
        cJSON_AddNumberToObject(e, "active_lanes", (double)s->inst_lanes[i]);
        cJSON_AddItemToArray(per, e);
    }
    return o;
}

/* A small cJSON value printed as the member `key` at depth 1 (the tree is freed). */
static void dump_member(FILE *f, const char *key, cJSON *value)
{
    char *text = value ? cJSON_Print(value) : NULL;
    fprintf(f, ",\n\t\"%s\":\t", key);
    for (const char *t = text ? text : "null"; *t; t++) {
        fputc(*t, f);
        if (*t == '\n')
            fputc('\t', f);
    }
    free(text);
    cJSON_Delete(value);
}

/*
 * The dump.  Binding contents are streamed element by element
 * (case_format_element, the case file's own number format): a tree node per
 * element cost ~120 bytes and a second copy as text, which for a 33 M-element
 * binding meant gigabytes; now a dump needs no memory beyond the buffers.
 * Statistics, the fault and the events are small and go through cJSON.
 */
static int write_dump(const char *path, const wl_case *c, const run_output *out, char *err, size_t err_size)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, err_size, "%s: cannot write: %s", path, strerror(errno));
        return 0;
    }
    fputs("{\n\t\"case\":\t", f);
    text_json(f, c->path); /* cJSON's escaping, so the dump reads back exactly */
    fputs(",\n\t\"backend\":\t\"sim\",\n\t\"bindings\":\t[", f);
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        size_t es = case_type_size(b->type);
        if (case_kind_is_image(b->kind) || b->kind == CASE_KIND_SAMPLER) { /* case/case_image.c: JSON and PNG */
            fputs(i ? ",\n\t\t" : "\n\t\t", f);
            if (!case_image_dump(f, path, b, out->data[i], err, err_size)) {
                fclose(f);
                return 0;
            }
            continue;
        }
        fprintf(f, "%s\n\t\t{\"set\": %u, \"binding\": %u, \"type\": \"%s\", \"data\": [", i ? "," : "", b->set,
                b->binding, case_type_name(b->type));
        char text[64];
        for (size_t k = 0; k < b->count; k++) {
            if (k)
                fputs(", ", f);
            case_format_element(b->type, out->data[i] + k * es, text, sizeof text);
            fputs(text, f);
        }
        fputs("]}", f);
    }
    fputs(c->binding_count ? "\n\t]" : "]", f);
    dump_member(f, "stats", stats_json(out));
    if (out->result.fault != SIM_FAULT_NONE) {
        cJSON *fault = cJSON_CreateObject();
        cJSON_AddStringToObject(fault, "kind", sim_fault_kind_name(out->result.fault));
        cJSON_AddStringToObject(fault, "message", out->result.fault_event.message);
        cJSON_AddItemToObject(fault, "where", location_json(out->prog, &out->result.fault_event.where));
        dump_member(f, "fault", fault);
    }
    cJSON *ev = cJSON_CreateArray();
    for (int i = 0; i < out->result.event_count; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "message", out->result.events[i].message);
        cJSON_AddItemToObject(e, "where", location_json(out->prog, &out->result.events[i].where));
        cJSON_AddItemToArray(ev, e);
    }
    if (out->result.finding_total) {
        cJSON *fa = cJSON_CreateArray();
        for (int i = 0; i < out->result.finding_count; i++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "check", sim_finding_kind_name(out->result.findings[i].kind));
            cJSON_AddStringToObject(e, "message", out->result.findings[i].message);
            cJSON_AddItemToObject(e, "where", location_json(out->prog, &out->result.findings[i].where));
            cJSON_AddItemToArray(fa, e);
        }
        dump_member(f, "sanitize", fa);
    }
    dump_member(f, "undefined", ev);
    fputs("\n}\n", f);
    int ok = !ferror(f);
    if (fclose(f) != 0)
        ok = 0;
    if (!ok)
        snprintf(err, err_size, "%s: cannot write: %s", path, strerror(errno));
    return ok;
}

static void print_fault(const run_output *out, FILE *f)
{
    char where[512];
    sim_location_format(out->prog, &out->result.fault_event.where, where, sizeof where);
    fprintf(f, "fault: %s: %s\n  at %s\n", sim_fault_kind_name(out->result.fault), out->result.fault_event.message,
            where);
}

/* ------------------------------------------------------------ run */

int cli_cmd_run(int argc, char **argv)
{
    const char *case_path = NULL, *dump = NULL, *machine = NULL, *optimize = NULL;
    uint64_t wave = 0, budget = 0, memory_threads = 1, threads = 0, warmup = 0;
    int image_layout = -1; /* --image-layout: the preset's own when -1 */
    int quiet = 0, show_time = 0, profile = 0, robust = 0, sanitize = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sanitize") == 0) {
            sanitize = 1;
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            if (strcmp(argv[i + 1], "vulkan") == 0)
                return cli_cmd_run_vulkan(argc, argv);
            if (strcmp(argv[i + 1], "sim") != 0) {
                fprintf(stderr, "wavelab run: --backend: expected sim or vulkan, got \"%s\"\n", argv[i + 1]);
                return RUN_EXIT_BAD_INPUT;
            }
            i++;
        } else if (strcmp(argv[i], "--wave") == 0 && i + 1 < argc) {
            if (!parse_uint(argv[++i], 1024, &wave)) {
                fprintf(stderr, "wavelab run: --wave: \"%s\" is not a wave size\n", argv[i]);
                return RUN_EXIT_BAD_INPUT;
            }
        } else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc) {
            if (!parse_uint(argv[++i], UINT64_MAX, &budget)) {
                fprintf(stderr, "wavelab run: --budget: \"%s\" is not a count\n", argv[i]);
                return RUN_EXIT_BAD_INPUT;
            }
        } else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) {
            dump = argv[++i];
        } else if (strcmp(argv[i], "--machine") == 0 && i + 1 < argc) {
            machine = argv[++i];
        } else if (strcmp(argv[i], "--image-layout") == 0 && i + 1 < argc) {
            if (!cli_image_layout_option("run", argv[++i], &image_layout))
                return RUN_EXIT_BAD_INPUT;
        } else if (strcmp(argv[i], "--memory-threads") == 0 && i + 1 < argc) {
            if (!parse_uint(argv[++i], 2, &memory_threads) || memory_threads < 1) {
                fprintf(stderr, "wavelab run: --memory-threads: expected 1 or 2, got \"%s\"\n", argv[i]);
                return RUN_EXIT_BAD_INPUT;
            }
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--time") == 0) {
            show_time = 1;
        } else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc) {
            if (!parse_uint(argv[++i], 1000, &warmup)) {
                fprintf(stderr, "wavelab run: --warmup: \"%s\" is not a count from 0 to 1000\n", argv[i]);
                return RUN_EXIT_BAD_INPUT;
            }
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!parse_uint(argv[++i], 256, &threads) || threads == 0) {
                fprintf(stderr, "wavelab run: --threads: \"%s\" is not a thread count\n", argv[i]);
                return RUN_EXIT_BAD_INPUT;
            }
        } else if (strcmp(argv[i], "--profile") == 0) {
            profile = 1;
        } else if (strcmp(argv[i], "--robust") == 0) {
            robust = 1;
        } else if (cli_optimize_option(argv[i], &optimize)) {
            continue;
        } else if (argv[i][0] == '-' || case_path) {
            /* one line naming the problem: the 60-line usage would bury it (`wavelab` alone prints that) */
            fprintf(stderr, "wavelab run: unexpected argument \"%s\"%s\n", argv[i],
                    strcmp(argv[i], "--repeat") == 0 ? " (--repeat times a device: it needs --backend vulkan)"
                                                     : " (`wavelab` alone lists the options)");
            return RUN_EXIT_BAD_INPUT;
        } else {
            case_path = argv[i];
        }
    }
    if (!case_path) {
        fprintf(stderr, "wavelab run: no case file given (wavelab run --help)\n");
        return RUN_EXIT_BAD_INPUT;
    }
    char err[4096];
    wl_case *c = load_case_or_kernel(case_path, NULL, err, sizeof err);
    if (!c) {
        fprintf(stderr, "%s\n", err);
        return RUN_EXIT_BAD_INPUT;
    }
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (uint64_t)n : 1;
    }
    run_options opt = {.wave_size = (uint32_t)wave, .instruction_budget = budget, .threads = (uint32_t)threads,
                       .optimize = optimize, .robust_access = robust, .sanitize = sanitize,
                       .warmup = (uint32_t)warmup};
    if (machine && cli_memory_open(machine, image_layout, (int)memory_threads, c, &opt) != 0) {
        case_destroy(c);
        return RUN_EXIT_BAD_INPUT;
    }
    run_output out;
    cli_progress progress;
    opt.progress = cli_progress_start(&progress, quiet);
    int rc = run_case_sim(c, &opt, &out, err, sizeof err);
    cli_progress_end(&progress);
    if (out.warnings[0])
        fputs(out.warnings, stderr);
    if (rc == RUN_EXIT_BAD_INPUT) {
        fprintf(stderr, "%s\n", err);
        run_output_free(&out);
        case_destroy(c);
        return rc;
    }
    if (!quiet)
        print_summary(c, &out, stdout);
    if (out.optimizer_note[0])
        fprintf(stderr, "wavelab run: %s\n", out.optimizer_note);
    if (profile && rc != RUN_EXIT_BAD_INPUT)
        print_profile(&out, stdout);
    if (show_time)
        printf("  host time    compile %.3f ms, lower %.3f ms, dispatch %.3f ms\n", out.compile_seconds * 1e3,
               out.lower_seconds * 1e3, out.dispatch_seconds * 1e3);
    if (!quiet && out.memory)
        mem_model_print(out.memory, out.prog, stdout);
    if (rc == RUN_EXIT_FAIL)
        print_fault(&out, stderr);
    else if (run_check_expects(c, out.data, quiet ? NULL : stdout) > 0)
        rc = RUN_EXIT_FAIL;
    if (sanitize && run_print_findings(c, &out, stdout) > 0)
        rc = RUN_EXIT_FAIL;
    if (dump && !write_dump(dump, c, &out, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        rc = RUN_EXIT_BAD_INPUT;
    }
    run_output_free(&out);
    mem_model_destroy(opt.memory);
    case_destroy(c);
    return rc;
}

/* ------------------------------------------------------------ test */

typedef struct test_job {
    char *path;
    uint32_t wave;
    const char *optimize;  /* NULL, or optimizer passes for every case */
    int robust;
    int first_wave; /* the first job of its case: a case without "expect" is loaded (checked) only there */
    int sanitize;
    char *log;     /* what to print for it */
    cli_test_record record; /* the same result for --junit and --tap (cli/report_junit.c) */
    char *message; /* record.message's storage */
} test_job;

typedef struct test_pool {
    test_job *jobs;
    size_t count;
    size_t next;
    pthread_mutex_t lock;
} test_pool;

/* Fills j->record (--junit, --tap) from the outcome and message of a finished job. */
static void test_record(test_job *j, uint32_t wave, cli_test_outcome outcome, char *message, double t0)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    j->message = message;
    j->record = (cli_test_record){.path = j->path, .wave = wave, .outcome = outcome,
                                  .message = message ? message : "out of memory",
                                  .seconds = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 - t0};
}

static void run_one_test(test_job *j)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double t0 = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    char err[4096];
    char *buf = NULL;
    size_t len = 0;
    FILE *log = open_memstream(&buf, &len);
    wl_case *c = NULL;
    static const char no_expect[] = "the case has no \"expect\"";
    case_status load;
    if (!j->first_wave && !run_case_file_has_expect(j->path)) {
        /* loading big fills once per wave size was most of a warm `wavelab test` */
        fprintf(log, "SKIP  %s (wave %u): %s\n", j->path, j->wave, no_expect);
        test_record(j, j->wave, CLI_TEST_SKIP, strdup(no_expect), t0);
    } else if ((load = case_load(j->path, &c, err, sizeof err)) == CASE_ERR_UNSUPPORTED) {
        fprintf(log, "SKIP  %s (wave %u): %s\n", j->path, j->wave, err); /* an Amber script outside the subset */
        test_record(j, j->wave, CLI_TEST_SKIP, strdup(err), t0);
    } else if (load != CASE_OK) {
        fprintf(log, "FAIL  %s: %s\n", j->path, err);
        test_record(j, j->wave, CLI_TEST_ERROR, strdup(err), t0);
    } else if (c->expect_count == 0) {
        fprintf(log, "SKIP  %s (wave %u): %s\n", j->path, run_wave_size(c, j->wave), no_expect);
        test_record(j, run_wave_size(c, j->wave), CLI_TEST_SKIP, strdup(no_expect), t0);
    } else if (!case_wave_applies(c, run_wave_size(c, j->wave), err, sizeof err)) {
        fprintf(log, "SKIP  %s (wave %u): %s\n", j->path, run_wave_size(c, j->wave), err);
        test_record(j, run_wave_size(c, j->wave), CLI_TEST_SKIP, strdup(err), t0);
    } else {
        run_options opt = {.wave_size = j->wave, .optimize = j->optimize, .robust_access = j->robust,
                           .sanitize = j->sanitize};
        run_output out;
        int rc = run_case_sim(c, &opt, &out, err, sizeof err);
        if (out.warnings[0])
            fputs(out.warnings, log);
        if (out.optimizer_note[0])
            fprintf(log, "NOTE  %s (wave %u): %s\n", j->path, out.wave_size, out.optimizer_note);
        if (rc == RUN_EXIT_BAD_INPUT) {
            fprintf(log, "FAIL  %s (wave %u): %s\n", j->path, out.wave_size, err);
            test_record(j, out.wave_size, CLI_TEST_ERROR, strdup(err), t0);
        } else if (rc == RUN_EXIT_FAIL) {
            char where[512], fault[1024];
            sim_location_format(out.prog, &out.result.fault_event.where, where, sizeof where);
            snprintf(fault, sizeof fault, "%s: %s at %s", sim_fault_kind_name(out.result.fault),
                     out.result.fault_event.message, where);
            fprintf(log, "FAIL  %s (wave %u): %s\n", j->path, out.wave_size, fault);
            test_record(j, out.wave_size, CLI_TEST_FAIL, strdup(fault), t0);
        } else {
            char *ebuf = NULL;
            size_t elen = 0;
            FILE *elog = open_memstream(&ebuf, &elen);
            int failures = run_check_expects(c, out.data, elog);
            fclose(elog);
            if (c->known_failure) {
                /* the expectation states the intended semantics; a known quirk keeps it from holding */
                if (failures) {
                    fprintf(log, "XFAIL %s (wave %u): known failure: %s\n", j->path, out.wave_size, c->known_failure);
                    test_record(j, out.wave_size, CLI_TEST_XFAIL, strdup(c->known_failure), t0);
                } else {
                    fprintf(log, "XPASS %s (wave %u): marked as a known failure (%s) but every expectation holds: "
                            "remove \"known_failure\"\n", j->path, out.wave_size, c->known_failure);
                    test_record(j, out.wave_size, CLI_TEST_FAIL,
                                strdup("marked as a known failure but every expectation holds"), t0);
                }
            } else if (failures) {
                fprintf(log, "FAIL  %s (wave %u)\n%s", j->path, out.wave_size, ebuf);
                test_record(j, out.wave_size, CLI_TEST_FAIL, cli_expect_failures(c, out.data), t0);
            } else if (j->sanitize && run_finding_count(&out)) {
                fprintf(log, "FAIL  %s (wave %u): sanitizer findings\n", j->path, out.wave_size);
                run_print_findings(c, &out, log);
                test_record(j, out.wave_size, CLI_TEST_FAIL, strdup("sanitizer findings"), t0);
            } else {
                fprintf(log, "PASS  %s (wave %u)\n", j->path, out.wave_size);
                test_record(j, out.wave_size, CLI_TEST_PASS, strdup(""), t0);
            }
            free(ebuf);
        }
        run_output_free(&out);
    }
    case_destroy(c);
    fclose(log);
    j->log = buf;
}

static void *test_worker(void *arg)
{
    test_pool *pool = arg;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        size_t k = pool->next++;
        pthread_mutex_unlock(&pool->lock);
        if (k >= pool->count)
            return NULL;
        run_one_test(&pool->jobs[k]);
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Collects *.json case files under dir (recursively, sorted). */
static int collect_cases(const char *path, char ***list, size_t *n, size_t *cap)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "wavelab test: %s: %s\n", path, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            *list = realloc(*list, *cap * sizeof **list);
        }
        (*list)[(*n)++] = strdup(path);
        return 1;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "wavelab test: %s: %s\n", path, strerror(errno));
        return 0;
    }
    char **names = NULL;
    size_t nn = 0, nc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (nn == nc) {
            nc = nc ? nc * 2 : 32;
            names = realloc(names, nc * sizeof *names);
        }
        names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    if (nn) /* qsort's array may not be NULL, even for no elements */
        qsort(names, nn, sizeof *names, cmp_str);
    int ok = 1;
    for (size_t i = 0; i < nn; i++) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, names[i]);
        struct stat s2;
        if (stat(full, &s2) == 0 && (S_ISDIR(s2.st_mode) || ends_with(names[i], ".json") || amber_is_script(names[i])))
            ok &= collect_cases(full, list, n, cap);
        free(names[i]);
    }
    free(names);
    return ok;
}

/* "K/N": shard K (1-based) of N. */
static int parse_shard(const char *s, uint64_t *k, uint64_t *n)
{
    const char *slash = strchr(s, '/');
    if (!slash || slash == s)
        return 0;
    char head[24];
    size_t len = (size_t)(slash - s);
    if (len >= sizeof head)
        return 0;
    memcpy(head, s, len);
    head[len] = 0;
    return parse_uint(head, 65536, k) && parse_uint(slash + 1, 65536, n) && *k >= 1 && *n >= 1 && *k <= *n;
}

/* Keeps the cases of shard k of n — every n-th case of the sorted list, starting at the k-th — and frees the
 * others, so the N shards of one list run each case exactly once whatever machine runs them. */
static size_t keep_shard(char **paths, size_t npaths, uint64_t k, uint64_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < npaths; i++) {
        if (i % n == k - 1)
            paths[kept++] = paths[i];
        else
            free(paths[i]);
    }
    return kept;
}

int cli_cmd_test(int argc, char **argv)
{
    char **paths = NULL;
    size_t npaths = 0, cap = 0;
    uint32_t waves[16];
    int nwaves = 0, robust = 0;
    uint64_t jobs = 0;
    const char *optimize = NULL;
    int sanitize = 0;
    const char *junit_path = NULL;
    int tap = 0;
    uint64_t shard = 1, shards = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sanitize") == 0) {
            sanitize = 1;
        } else if (strcmp(argv[i], "--shard") == 0 && i + 1 < argc) {
            if (!parse_shard(argv[++i], &shard, &shards)) {
                fprintf(stderr, "wavelab test: --shard: \"%s\" is not K/N with 1 <= K <= N <= 65536\n", argv[i]);
                goto bad_arguments;
            }
        } else if (strcmp(argv[i], "--junit") == 0 && i + 1 < argc) {
            junit_path = argv[++i];
        } else if (strcmp(argv[i], "--tap") == 0) {
            tap = 1;
        } else if ((strcmp(argv[i], "--wave") == 0 || strcmp(argv[i], "--waves") == 0) && i + 1 < argc) {
            char *list = strdup(argv[++i]);
            for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
                uint64_t w;
                if (!parse_uint(tok, 1024, &w) || nwaves == 16) {
                    fprintf(stderr, "wavelab test: --waves: \"%s\" is not a wave size\n", tok);
                    free(list);
                    goto bad_arguments;
                }
                waves[nwaves++] = (uint32_t)w;
            }
            free(list);
        } else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) {
            if (!parse_uint(argv[++i], 256, &jobs)) {
                fprintf(stderr, "wavelab test: --jobs: \"%s\" is not a count\n", argv[i]);
                goto bad_arguments;
            }
        } else if (strcmp(argv[i], "--robust") == 0) {
            robust = 1;
        } else if (cli_optimize_option(argv[i], &optimize)) {
            continue;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "wavelab test: unexpected option \"%s\"\n", argv[i]);
            goto bad_arguments;
        } else {
            size_t before = npaths;
            if (!collect_cases(argv[i], &paths, &npaths, &cap))
                goto bad_arguments;
            if (npaths == before) { /* a folder with no .json anywhere below: a mistyped path, not a pass */
                fprintf(stderr, "wavelab test: no cases in %s\n", argv[i]);
                goto bad_arguments;
            }
        }
    }
    if (npaths == 0) {
        fprintf(stderr, "wavelab test: no case files given\n");
        return RUN_EXIT_BAD_INPUT;
    }
    if (nwaves == 0)
        waves[nwaves++] = 0; /* the case's own subgroup_size, else 32 */
    size_t all_cases = npaths;
    if (shards > 1)
        npaths = keep_shard(paths, npaths, shard, shards);
    /* opened before anything runs: a path that cannot be written is bad input, not a lost report */
    FILE *junit = junit_path ? fopen(junit_path, "w") : NULL;
    if (junit_path && !junit) {
        fprintf(stderr, "wavelab test: --junit %s: %s\n", junit_path, strerror(errno));
        return RUN_EXIT_BAD_INPUT;
    }
    test_pool pool = {.count = npaths * (size_t)nwaves};
    pool.jobs = calloc(pool.count, sizeof *pool.jobs);
    pthread_mutex_init(&pool.lock, NULL);
    for (size_t i = 0; i < npaths; i++)
        for (int k = 0; k < nwaves; k++) {
            pool.jobs[i * (size_t)nwaves + (size_t)k].path = paths[i];
            pool.jobs[i * (size_t)nwaves + (size_t)k].wave = waves[k];
            pool.jobs[i * (size_t)nwaves + (size_t)k].optimize = optimize;
            pool.jobs[i * (size_t)nwaves + (size_t)k].robust = robust;
            pool.jobs[i * (size_t)nwaves + (size_t)k].first_wave = k == 0;
            pool.jobs[i * (size_t)nwaves + (size_t)k].sanitize = sanitize;
        }
    if (!jobs) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = n > 0 ? (uint64_t)n : 1;
    }
    if (jobs > pool.count)
        jobs = pool.count;
    pthread_t threads[256];
    for (uint64_t t = 0; t < jobs; t++)
        pthread_create(&threads[t], NULL, test_worker, &pool);
    for (uint64_t t = 0; t < jobs; t++)
        pthread_join(threads[t], NULL);
    /* print in case order, whatever order the threads finished in; the text, TAP and JUnit count the same
     * records */
    int bad = 0;
    cli_test_record *records = calloc(pool.count, sizeof *records);
    if (!records) {
        fprintf(stderr, "wavelab test: out of memory\n");
        exit(RUN_EXIT_BAD_INPUT);
    }
    for (size_t k = 0; k < pool.count; k++)
        records[k] = pool.jobs[k].record;
    if (tap)
        cli_report_tap(stdout, records, pool.count);
    if (junit) {
        int written = cli_report_junit(junit, records, pool.count) == 0;
        if (fclose(junit) != 0 || !written) {
            fprintf(stderr, "wavelab test: --junit %s: cannot write the report\n", junit_path);
            bad++;
        }
    }
    for (size_t k = 0; k < pool.count; k++) {
        test_job *j = &pool.jobs[k];
        if (j->log && !tap)
            fputs(j->log, stdout);
        free(j->log);
    }
    if (shards > 1)
        printf("%sshard %" PRIu64 " of %" PRIu64 ": %zu of %zu cases\n", tap ? "# " : "", shard, shards, npaths,
               all_cases);
    cli_test_summary(stdout, tap ? "# " : "", records, pool.count);
    cli_test_counts n = cli_test_count(records, pool.count);
    int failed = n.of[CLI_TEST_FAIL] + n.of[CLI_TEST_ERROR] > 0;
    for (size_t k = 0; k < pool.count; k++)
        free(pool.jobs[k].message);
    free(records);
    for (size_t i = 0; i < npaths; i++)
        free(paths[i]);
    free(paths);
    free(pool.jobs);
    pthread_mutex_destroy(&pool.lock);
    return failed ? RUN_EXIT_FAIL : bad ? RUN_EXIT_BAD_INPUT : RUN_EXIT_OK;
bad_arguments: /* the cases collected before the bad argument */
    for (size_t i = 0; i < npaths; i++)
        free(paths[i]);
    free(paths);
    return RUN_EXIT_BAD_INPUT;
}

/* ------------------------------------------------------------ compile / disasm */

/* The occupancy lines of the listing's header, from a machine preset. */
static int print_occupancy(const isa_program *p, const char *machine, unsigned wave, FILE *out)
{
    mem_machine m;
    char err[1024];
    if (mem_machine_load(machine, &m, err, sizeof err) != MEM_OK) {
        fprintf(stderr, "%s\n", err);
        return 0;
    }
    if (!wave)
        wave = m.default_wave ? m.default_wave : 32;
    uint32_t local = p->local_size[0] * p->local_size[1] * p->local_size[2];
    uint32_t waves = (local + wave - 1) / wave;
    uint32_t vgprs;
    isa_occupancy o = mem_machine_occupancy(&m, p, wave, 0, &vgprs);
    fprintf(out, "; machine %s, wave %u, %u waves per workgroup: %u VGPRs -> %u allocated, %u SGPRs -> %u allocated%s\n",
            m.name, wave, waves, vgprs, o.vgprs_allocated, p->res.sgprs, o.sgprs_allocated,
            m.max_sgprs_per_wave ? "" : " (no scalar file: uniform values counted as VGPRs)");
    fprintf(out, "; occupancy %u waves per SIMD (%u workgroups per CU), limited by %s; by VGPRs %u, by SGPRs %u, "
                 "by LDS %u, by workgroups %u, hardware maximum %u\n",
            o.waves_per_simd, o.workgroups_per_cu, isa_limiter_name(o.limiter), o.by_vgprs, o.by_sgprs, o.by_lds,
            o.by_workgroups, o.by_max);
    return 1;
}

static int compile_common(int argc, char **argv, const char *cmd, int disasm_isa)
{
    const char *path = NULL, *spv_out = NULL, *entry = NULL, *machine = NULL, *svg = NULL, *optimize = NULL;
    const char *against = NULL, *device = NULL;
    int show_spirv = 0;
    unsigned wave = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--spirv") == 0 && i + 1 < argc)
            spv_out = argv[++i];
        else if (disasm_isa && strcmp(argv[i], "--machine") == 0 && i + 1 < argc)
            machine = argv[++i];
        else if (disasm_isa && strcmp(argv[i], "--svg") == 0 && i + 1 < argc)
            svg = argv[++i];
        else if (disasm_isa && strcmp(argv[i], "--wave") == 0 && i + 1 < argc)
            wave = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (disasm_isa && strcmp(argv[i], "--against") == 0 && i + 1 < argc)
            against = argv[++i];
        else if (disasm_isa && strcmp(argv[i], "--device") == 0 && i + 1 < argc)
            device = argv[++i];
        else if (strcmp(argv[i], "--entry") == 0 && i + 1 < argc)
            entry = argv[++i];
        else if (strcmp(argv[i], "--disasm") == 0)
            show_spirv = 1;
        else if (cli_optimize_option(argv[i], &optimize))
            continue;
        else if (argv[i][0] == '-' || path) {
            fprintf(stderr, "wavelab %s: unexpected argument \"%s\"\n", cmd, argv[i]);
            return RUN_EXIT_BAD_INPUT;
        } else
            path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "wavelab %s: no case or kernel given\n", cmd);
        return RUN_EXIT_BAD_INPUT;
    }
    char err[8192];
    wl_case *c = load_case_or_kernel(path, entry, err, sizeof err);
    if (!c) {
        fprintf(stderr, "%s\n", err);
        return RUN_EXIT_BAD_INPUT;
    }
    uint32_t *words = NULL;
    size_t n = 0;
    char warnings[4096] = "";
    err[0] = 0;
    isa_status st = run_compile_case_optimized(c, optimize, &words, &n, err, sizeof err, warnings, sizeof warnings);
    fputs(warnings, stderr);
    int rc = RUN_EXIT_OK;
    if (st != ISA_OK) {
        fprintf(stderr, "%s", err);
        if (err[0] && err[strlen(err) - 1] != '\n')
            fputc('\n', stderr);
        rc = RUN_EXIT_BAD_INPUT;
        goto done;
    }
    if (spv_out) {
        FILE *f = fopen(spv_out, "wb");
        if (!f || fwrite(words, 4, n, f) != n || fclose(f) != 0) {
            fprintf(stderr, "%s: cannot write: %s\n", spv_out, strerror(errno));
            rc = RUN_EXIT_BAD_INPUT;
            goto done;
        }
    }
    if (show_spirv) {
        char *text = isa_disassemble_spirv(words, n, err, sizeof err);
        if (!text) {
            fprintf(stderr, "%s\n", err);
            rc = RUN_EXIT_BAD_INPUT;
            goto done;
        }
        fputs(text, stdout);
        free(text);
    }
    if (disasm_isa) {
        isa_program *p = NULL;
        isa_spec spec = {c->spec, c->spec_count};
        st = isa_lower_spec(words, n, c->entry, &spec, &p, err, sizeof err);
        if (st != ISA_OK) {
            fprintf(stderr, "%s: %s: %s\n", c->kernel, isa_status_str(st), err);
            rc = RUN_EXIT_BAD_INPUT;
            goto done;
        }
        if (against) {
            rc = cli_disasm_against(c, words, n, p, against, device, machine, wave, stdout);
            isa_program_destroy(p);
            goto done;
        }
        if (machine && !print_occupancy(p, machine, wave, stdout)) {
            isa_program_destroy(p);
            rc = RUN_EXIT_BAD_INPUT;
            goto done;
        }
        isa_program_print(p, stdout);
        if (svg) {
            FILE *f = fopen(svg, "w");
            if (f) {
                char title[512];
                snprintf(title, sizeof title, "%s (%s)", c->path, p->entry);
                isa_program_svg(p, f, title);
            }
            if (!f || fclose(f) != 0) {
                fprintf(stderr, "%s: cannot write: %s\n", svg, strerror(errno));
                rc = RUN_EXIT_BAD_INPUT;
            }
        }
        isa_program_destroy(p);
    } else if (!show_spirv && !spv_out) {
        printf("%s: ok, %zu SPIR-V words (valid)\n", c->kernel, n);
    }
done:
    free(words);
    case_destroy(c);
    return rc;
}

int cli_cmd_compile(int argc, char **argv) { return compile_common(argc, argv, "compile", 0); }
int cli_cmd_disasm(int argc, char **argv) { return compile_common(argc, argv, "disasm", 1); }

/* ------------------------------------------------------------ isa */

/* The instruction table of isa/ops.def as Markdown: docs/isa.md is this output. */
static int cli_cmd_isa(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "wavelab isa: takes no arguments\n");
        return RUN_EXIT_BAD_INPUT;
    }
    printf("# The wave ISA\n\n"
           "Generated by `wavelab isa` from `isa/ops.def`; CI checks it is current.\n\n"
           "Registers (`v`) hold one 64-bit slot per lane; a narrower value lives in the low bits and\n"
           "instructions read it through their type suffix (`.u32`, `.f16`, ...). Wave masks (`m`) hold\n"
           "one bit per lane. Mask 0 holds the lanes that exist when a wave starts. A `mov` or `movm`\n"
           "without a suffix copies whole 64-bit slots, whatever they hold (phi copies).\n\n"
           "| instruction | class | meaning |\n| --- | --- | --- |\n");
    for (int op = 0; op < ISA_OP_COUNT; op++) {
        printf("| `%s` | %s | ", isa_op_name((isa_op)op), isa_class_name(isa_op_class((isa_op)op)));
        for (const char *m = isa_op_meaning((isa_op)op); *m; m++) {
            if (*m == '|')
                fputs("\\|", stdout);
            else
                fputc(*m, stdout);
        }
        printf(" |\n");
    }
    return RUN_EXIT_OK;
}

/* ------------------------------------------------------------ main */

/* `--no-cache` and `--no-lean`, accepted by every command (they matter to those that compile): taken out of argv
 * here so each command's parser never sees it, and the SPIR-V cache (isa/spvcache.h) turned off. */
static void cli_take_no_cache(int *argc, char **argv)
{
    int kept = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--no-cache") == 0)
            isa_spvcache_set_enabled(0);
        else if (strcmp(argv[i], "--no-lean") == 0)
            isa_lean_set_enabled(0); /* the wave program as lowered (isa/lean.c), for A/B comparisons */
        else
            argv[kept++] = argv[i];
    }
    argv[kept] = NULL;
    *argc = kept;
}

int main(int argc, char **argv)
{
    cli_take_no_cache(&argc, argv);
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("wavelab %s\n", WAVELAB_VERSION_STRING);
        return RUN_EXIT_OK;
    }
    if (argc == 3 && strcmp(argv[1], "help") == 0) {
        if (command_usage(argv[2], stdout))
            return RUN_EXIT_OK;
        fprintf(stderr, "wavelab help: unknown command \"%s\"\n", argv[2]);
        return RUN_EXIT_BAD_INPUT;
    }
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? RUN_EXIT_BAD_INPUT : RUN_EXIT_OK;
    }
    /* `wavelab CMD ... --help`: the command's entry, whatever else is on the line */
    for (int i = 2; i < argc; i++)
        if ((strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) && command_usage(argv[1], stdout))
            return RUN_EXIT_OK;
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"run", cli_cmd_run},         {"test", cli_cmd_test},       {"compile", cli_cmd_compile},
        {"disasm", cli_cmd_disasm},   {"bench", cli_cmd_bench},     {"devices", cli_cmd_devices},
        {"check", cli_cmd_check},     {"isa", cli_cmd_isa},
        {"machines", cli_cmd_machines}, {"explain", cli_cmd_explain}, {"trace", cli_cmd_trace},
        {"timeline", cli_cmd_timeline}, {"profile", cli_cmd_profile}, {"report", cli_cmd_report},
        {"probe", cli_cmd_probe},     {"compare", cli_cmd_compare}, {"amber", cli_cmd_amber},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(argv[1], cmds[i].name) == 0)
            return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "wavelab: unknown command \"%s\" (wavelab --help lists the commands)\n", argv[1]);
    return RUN_EXIT_BAD_INPUT;
}
