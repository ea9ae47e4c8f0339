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
#include "cli/options.h"
#include "isa/isa.h"
#include "isa/spvcache.h"
#include "run/run.h"
#include "sim/machine.h"
#include "sim/memmodel.h"
#include "sim/sim.h"
#include "text/text.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
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
    if (s->waterfall_rounds)
        fprintf(f, "  waterfall    %" PRIu64 " extra rounds of accesses whose descriptor each lane picks (NonUniform: "
                "once per distinct element)\n", s->waterfall_rounds);
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
        fprintf(f, "%s\n\t\t{", i ? "," : "");
        case_write_descriptor(f, b);
        fprintf(f, ", \"type\": \"%s\", \"data\": [", case_type_name(b->type));
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
    cli_opts o;
    if (!cli_parse(CLI_CMD_run, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    const char *case_path = o.nargs ? o.args[0] : NULL;
    /* the options only one side honours: one line naming the option */
    static const cli_option_id device_only[] = {CLI_OPT_repeat, CLI_OPT_device, CLI_OPT_timeout, CLI_OPT_reconverge};
    static const cli_option_id sim_only[] = {CLI_OPT_budget, CLI_OPT_threads, CLI_OPT_sanitize, CLI_OPT_profile,
                                             CLI_OPT_time, CLI_OPT_memory_threads, CLI_OPT_image_layout};
    int on_device = o.backend && strcmp(o.backend, "vulkan") == 0;
    for (size_t k = 0; k < sizeof device_only / sizeof device_only[0]; k++)
        if (!on_device && o.given[device_only[k]]) {
            fprintf(stderr, "wavelab run: %s times or picks a device: it needs --backend vulkan\n",
                    cli_option_name(device_only[k]));
            return RUN_EXIT_BAD_INPUT;
        }
    for (size_t k = 0; k < sizeof sim_only / sizeof sim_only[0]; k++)
        if (on_device && o.given[sim_only[k]]) {
            fprintf(stderr, "wavelab run: %s is the simulator's: not with --backend vulkan\n",
                    cli_option_name(sim_only[k]));
            return RUN_EXIT_BAD_INPUT;
        }
    if (on_device)
        return cli_cmd_run_vulkan(&o, case_path);
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
    run_options opt = cli_run_options(&o);
    if (o.machine && cli_memory_open(o.machine, o.given[CLI_OPT_image_layout] ? o.image_layout : -1,
                                     o.memory_threads ? (int)o.memory_threads : 1, c, &opt) != 0) {
        case_destroy(c);
        return RUN_EXIT_BAD_INPUT;
    }
    run_output out;
    cli_progress progress;
    opt.progress = cli_progress_start(&progress, o.quiet);
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
    if (!o.quiet)
        print_summary(c, &out, stdout);
    if (out.optimizer_note[0])
        fprintf(stderr, "wavelab run: %s\n", out.optimizer_note);
    if (o.profile && rc != RUN_EXIT_BAD_INPUT)
        print_profile(&out, stdout);
    if (o.time)
        printf("  host time    compile %.3f ms, lower %.3f ms, dispatch %.3f ms\n", out.compile_seconds * 1e3,
               out.lower_seconds * 1e3, out.dispatch_seconds * 1e3);
    if (!o.quiet && out.memory)
        mem_model_print(out.memory, out.prog, stdout);
    if (rc == RUN_EXIT_FAIL)
        print_fault(&out, stderr);
    else if (run_check_expects(c, out.data, o.quiet ? NULL : stdout) > 0)
        rc = RUN_EXIT_FAIL;
    if (o.sanitize && run_print_findings(c, &out, stdout) > 0)
        rc = RUN_EXIT_FAIL;
    if (o.dump && !write_dump(o.dump, c, &out, err, sizeof err)) {
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
    const run_options *base; /* the options of every case (--robust, --budget, --optimize, ...) */
    const char *machine;     /* --machine: the memory model's preset, or NULL */
    uint32_t machine_wave;   /* its default wave size, or 0 */
    int first_wave; /* the first job of its case: a case without "expect" is loaded (checked) only there */
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

/* The wave size a job asks for: --wave/--waves, else the case's own subgroup_size, else the --machine preset's
 * default (0: run_wave_size's 32), as `run --machine` takes it. */
static uint32_t job_wave(const test_job *j, const wl_case *c)
{
    return j->wave ? j->wave : c->subgroup_size ? 0 : j->machine_wave;
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
        fprintf(log, "SKIP  %s (wave %u): %s\n", j->path, run_wave_size(c, job_wave(j, c)), no_expect);
        test_record(j, run_wave_size(c, job_wave(j, c)), CLI_TEST_SKIP, strdup(no_expect), t0);
    } else if (!case_wave_applies(c, run_wave_size(c, job_wave(j, c)), err, sizeof err)) {
        fprintf(log, "SKIP  %s (wave %u): %s\n", j->path, run_wave_size(c, job_wave(j, c)), err);
        test_record(j, run_wave_size(c, job_wave(j, c)), CLI_TEST_SKIP, strdup(err), t0);
    } else {
        run_options opt = *j->base;
        opt.wave_size = job_wave(j, c);
        if (j->machine && cli_memory_open(j->machine, -1, 1, c, &opt) != 0)
            opt.memory = NULL; /* the preset loaded before any job ran: only memory can run out here */
        run_output out;
        int rc = run_case_sim(c, &opt, &out, err, sizeof err);
        mem_model_destroy(opt.memory);
        if (out.warnings[0])
            fputs(out.warnings, log);
        if (out.optimizer_note[0])
            fprintf(log, "NOTE  %s (wave %u): %s\n", j->path, out.wave_size, out.optimizer_note);
        if (rc == RUN_EXIT_BAD_INPUT) {
            fprintf(log, "FAIL  %s (wave %u): %s\n", j->path, out.wave_size, err);
            test_record(j, out.wave_size, CLI_TEST_ERROR, strdup(err), t0);
        } else if (rc == RUN_EXIT_FAIL) {
            char fault[1024];
            run_fault_text(&out, fault, sizeof fault);
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
            } else if (j->base->sanitize && run_finding_count(&out)) {
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
    cli_opts o;
    if (!cli_parse(CLI_CMD_test, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    char **paths = NULL;
    size_t npaths = 0, cap = 0;
    cli_waves waves = o.waves;
    if (o.wave && waves.count < CLI_MAX_WAVES)
        waves.size[waves.count++] = (uint32_t)o.wave;
    int nwaves = waves.count;
    uint64_t jobs = o.jobs;
    const char *junit_path = o.junit;
    int tap = o.tap;
    uint64_t shard = o.given[CLI_OPT_shard] ? o.shard.k : 1, shards = o.given[CLI_OPT_shard] ? o.shard.n : 1;
    run_options base = cli_run_options(&o);
    if (!o.given[CLI_OPT_threads])
        base.threads = 1; /* --jobs runs the cases side by side instead */
    mem_machine m; /* a preset that does not load is bad input before anything runs */
    char err[4096];
    if (o.machine && mem_machine_load(o.machine, &m, err, sizeof err) != MEM_OK) {
        fprintf(stderr, "%s\n", err);
        return RUN_EXIT_BAD_INPUT;
    }
    for (int i = 0; i < o.nargs; i++) {
        size_t before = npaths;
        if (!collect_cases(o.args[i], &paths, &npaths, &cap))
            goto bad_arguments;
        if (npaths == before) { /* a folder with no .json anywhere below: a mistyped path, not a pass */
            fprintf(stderr, "wavelab test: no cases in %s\n", o.args[i]);
            goto bad_arguments;
        }
    }
    if (npaths == 0) {
        fprintf(stderr, "wavelab test: no case files given\n");
        return RUN_EXIT_BAD_INPUT;
    }
    if (nwaves == 0)
        waves.size[nwaves++] = 0; /* the case's own subgroup_size, else 32 */
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
            pool.jobs[i * (size_t)nwaves + (size_t)k].wave = waves.size[k];
            pool.jobs[i * (size_t)nwaves + (size_t)k].base = &base;
            pool.jobs[i * (size_t)nwaves + (size_t)k].machine = o.machine;
            pool.jobs[i * (size_t)nwaves + (size_t)k].machine_wave = o.machine ? m.default_wave : 0;
            pool.jobs[i * (size_t)nwaves + (size_t)k].first_wave = k == 0;
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

static int compile_common(int argc, char **argv, cli_command cmd)
{
    cli_opts o;
    if (!cli_parse(cmd, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    int disasm_isa = cmd == CLI_CMD_disasm;
    const char *path = o.nargs ? o.args[0] : NULL, *spv_out = o.spirv, *entry = o.entry, *machine = o.machine;
    const char *svg = o.svg, *optimize = o.optimize, *against = o.against, *device = o.device;
    int show_spirv = o.disasm;
    unsigned wave = (unsigned)o.wave;
    if (!path) {
        fprintf(stderr, "wavelab %s: no case or kernel given\n", cli_command_name(cmd));
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
        isa_array_length *lengths = calloc((size_t)c->binding_count + 1, sizeof *lengths);
        if (!lengths) {
            fprintf(stderr, "out of memory\n");
            rc = RUN_EXIT_BAD_INPUT;
            goto done;
        }
        isa_spec spec;
        case_isa_spec(c, lengths, &spec);
        st = isa_lower_spec(words, n, c->entry, &spec, &p, err, sizeof err);
        free(lengths);
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

int cli_cmd_compile(int argc, char **argv) { return compile_common(argc, argv, CLI_CMD_compile); }
int cli_cmd_disasm(int argc, char **argv) { return compile_common(argc, argv, CLI_CMD_disasm); }

/* ------------------------------------------------------------ isa */

/* The instruction table of isa/ops.def as Markdown: docs/isa.md is this output. */
int cli_cmd_isa(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_isa, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    printf("# The wave ISA\n\n"
           "Generated by `wavelab isa` from `isa/ops.def`; CI checks it is current.\n\n"
           "Registers (`v`) hold one 64-bit slot per lane; a narrower value lives in the low bits and\n"
           "instructions read it through their type suffix (`.u32`, `.f16`, ...). Wave masks (`m`) hold\n"
           "one bit per lane. Mask 0 holds the lanes that exist when a wave starts. A `mov` or `movm`\n"
           "without a suffix copies whole 64-bit slots, whatever they hold (phi copies). An instruction on\n"
           "a slot (a buffer, image, sampler or variable) may also read `x`: the element of the slot's\n"
           "descriptor array, counted from the slot, when a value known only at run time picks it\n"
           "(`wavelab disasm` shows `src[s0]`, or `src[nonuniform v3]` for a per-lane index).\n\n"
           "| instruction | class | operands | meaning |\n| --- | --- | --- | --- |\n");
    for (int op = 0; op < ISA_OP_COUNT; op++) {
        char operands[160];
        isa_op_operands_text((isa_op)op, operands, sizeof operands);
        printf("| `%s` | %s | %s | ", isa_op_name((isa_op)op), isa_class_name(isa_op_class((isa_op)op)), operands);
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
    cli_command cmd;
    if (argc == 3 && strcmp(argv[1], "help") == 0) {
        if (cli_command_find(argv[2], &cmd)) {
            cli_command_help(cmd, stdout);
            return RUN_EXIT_OK;
        }
        fprintf(stderr, "wavelab help: unknown command \"%s\"\n", argv[2]);
        return RUN_EXIT_BAD_INPUT;
    }
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        cli_help(argc < 2 ? stderr : stdout);
        return argc < 2 ? RUN_EXIT_BAD_INPUT : RUN_EXIT_OK;
    }
    if (!cli_command_find(argv[1], &cmd)) {
        fprintf(stderr, "wavelab: unknown command \"%s\" (wavelab --help lists the commands)\n", argv[1]);
        return RUN_EXIT_BAD_INPUT;
    }
    /* `wavelab CMD ... --help`: the command's own help, whatever else is on the line */
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cli_command_help(cmd, stdout);
            return RUN_EXIT_OK;
        }
    static int (*const run[CLI_CMD_COUNT])(int, char **) = {
#define CMD(id, args, max_args, help) cli_cmd_##id,
#include "cli/options.def"
    };
    return run[cmd](argc - 1, argv + 1);
}
