/*
 * cli/vulkan.c — the Vulkan backend's commands:
 *
 *   wavelab devices [--device D]
 *   wavelab check CASE [--wave N] [--device D] [--repeat N] ... (its options: cli/options.def)
 *   wavelab run CASE --backend vulkan [--wave N] [--device D] [--repeat N] [--warmup N] [--dump OUT.json] ...
 *
 * Exit codes (docs/backend.md): 0 ok / agree, 1 differ / failed expectation /
 * device fault, 2 bad input / no Vulkan loader or device, 3 skipped: the
 * device cannot run this case (wave size, subgroup operation, feature,
 * format, limit), with "SKIP: <reason>" on stdout.
 */
#define _GNU_SOURCE /* sigabbrev_np */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "case/case.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "run/device.h"
#include "run/run.h"
#include "text/text.h"

enum { EXIT_SKIPPED = 3 };

#define MAX_MISMATCHES 8

typedef struct vk_args {
    const char *case_path;
    const char *device;
    const char *dump;
    const char *machine;
    uint32_t wave;
    uint32_t repeat;
    uint32_t warmup;  /* default 1: the first dispatch pays for pipeline compilation and thread start-up */
    int quiet;
    int robust;
    int reconverge;   /* --maximal-reconvergence */
    uint32_t timeout; /* --timeout SECONDS per dispatch on the device; 0: the backend's 10 s */
    const char *optimize;
    int sanitize;     /* check --sanitize: the simulator's side runs sanitized; a finding fails the check */
    run_options sim;  /* check: the simulator's side (--robust, --budget, --threads, ...) */
} vk_args;

/* The options of the three commands from the table's (cli/options.def). */
static void vk_args_from(const cli_opts *o, const char *case_path, vk_args *a)
{
    memset(a, 0, sizeof *a);
    a->case_path = case_path;
    a->device = o->device;
    a->dump = o->dump;
    a->machine = o->machine;
    a->wave = (uint32_t)o->wave;
    a->repeat = (uint32_t)o->repeat;
    a->warmup = o->given[CLI_OPT_warmup] ? (uint32_t)o->warmup : 1;
    a->quiet = o->quiet;
    a->robust = o->robust;
    a->reconverge = o->reconverge;
    a->timeout = (uint32_t)o->timeout;
    a->optimize = o->optimize;
    a->sanitize = o->sanitize;
    a->sim = cli_run_options(o);
}

/* Opens the Vulkan context and picks the device; prints the reason and returns 0 when there is none. */
static int open_device(const char *cmd, const char *spec, vkb_context **ctx, int *index)
{
    char err[2048];
    vkb_status st = vkb_context_create(ctx, err, sizeof err);
    if (st != VKB_OK) {
        fprintf(stderr, "wavelab %s: %s\n", cmd, err);
        return 0;
    }
    st = vkb_device_find(*ctx, spec, index, err, sizeof err);
    if (st != VKB_OK) {
        fprintf(stderr, "wavelab %s: %s\n", cmd, err);
        vkb_context_destroy(*ctx);
        *ctx = NULL;
        return 0;
    }
    return 1;
}

/* Exit code for a backend status. */
int cli_vulkan_exit_code(vkb_status st)
{
    switch (st) {
    case VKB_OK: return RUN_EXIT_OK;
    case VKB_ERR_WAVE_SIZE:
    case VKB_ERR_UNSUPPORTED: return EXIT_SKIPPED;
    case VKB_ERR_DEVICE_LOST:
    case VKB_ERR_TIMEOUT:
    case VKB_ERR_VULKAN: return RUN_EXIT_FAIL;
    default: return RUN_EXIT_BAD_INPUT;
    }
}

/* Reports a failed backend call: "SKIP: why" on stdout when the device cannot run the case (exit 3), the
 * error on stderr otherwise.  Returns the exit code. */
static int vulkan_failure_to(FILE *fout, FILE *ferr, vkb_status st, const char *prefix, const char *err);

int cli_vulkan_failure(vkb_status st, const char *prefix, const char *err)
{
    return vulkan_failure_to(stdout, stderr, st, prefix, err);
}

/* The backend's options of run and check. */
static vkb_run_options device_run_options(const vk_args *a)
{
    return (vkb_run_options){.wave_size = a->wave, .repeat = a->repeat, .warmup = a->warmup,
                             .robust_access = a->robust, .maximal_reconvergence = a->reconverge,
                             .timeout_ms = a->timeout * 1000u};
}

/* cli_vulkan_failure onto the given streams (check's, which report captures). */
static int vulkan_failure_to(FILE *fout, FILE *ferr, vkb_status st, const char *prefix, const char *err)
{
    int rc = cli_vulkan_exit_code(st);
    if (rc == EXIT_SKIPPED)
        fprintf(fout, "SKIP: %s\n", err);
    else
        fprintf(ferr, "%s%s\n", prefix, err);
    return rc;
}

/* Prints why check's device did not run the case (run/device.h's steps); returns the exit code. */
static int device_refusal(const run_device_result *res, FILE *fout, FILE *ferr)
{
    switch (res->step) {
    case RUN_DEVICE_PROCESS:
        fprintf(ferr, "wavelab check: %s\n", res->message);
        return cli_vulkan_exit_code(res->status);
    case RUN_DEVICE_OPEN:
    case RUN_DEVICE_COMPILE:
        fprintf(ferr, "wavelab check: %s\n", res->message);
        return RUN_EXIT_BAD_INPUT;
    case RUN_DEVICE_WAVE: /* an excluded --wave was refused before the device opened */
        fprintf(fout, "SKIP: the device's wave size %u: %s (--wave picks another)\n", res->wave_size, res->message);
        return EXIT_SKIPPED;
    case RUN_DEVICE_SUPPORT: return vulkan_failure_to(fout, ferr, res->status, "wavelab check: ", res->message);
    case RUN_DEVICE_DISPATCH:
        return vulkan_failure_to(fout, ferr, res->status, "wavelab check: device: ", res->message);
    case RUN_DEVICE_DONE: return RUN_EXIT_OK;
    }
    return RUN_EXIT_FAIL;
}

/* ------------------------------------------------------------- devices */

static const char *yes_no(int v)
{
    return v ? "yes" : "no";
}

static void print_device(int index, const vkb_device_info *d)
{
    char ops[256], stages[256], req_stages[256];
    vkb_subgroup_ops_format(d->subgroup_ops, ops, sizeof ops);
    vkb_shader_stages_format(d->subgroup_stages, stages, sizeof stages);
    vkb_shader_stages_format(d->required_subgroup_size_stages, req_stages, sizeof req_stages);
    printf("device %d: %s%s\n", index, d->name, d->compile_only ? " (compile only)" : "");
    if (d->compile_only) {
        const char *family = getenv("RADV_FORCE_FAMILY");
        printf("  compile only        RADV's null device, listed because RADV_FORCE_FAMILY=%s: it compiles for that GPU "
               "generation and runs nothing (wavelab disasm CASE --against radv:%s)\n", family ? family : "?",
               family ? family : "FAMILY");
    }
    printf("  type                %s, vendor 0x%04x, device 0x%04x\n", d->type, d->vendor_id, d->device_id);
    printf("  driver              %s%s%s (driver version 0x%08x)\n", d->driver_name[0] ? d->driver_name : "(not exposed)",
           d->driver_info[0] ? " — " : "", d->driver_info, d->driver_version);
    printf("  Vulkan              %u.%u.%u\n", (d->api_version >> 22) & 0x7f, (d->api_version >> 12) & 0x3ff,
           d->api_version & 0xfff);
    if (!d->usable) {
        printf("  (older than Vulkan 1.1 or no compute queue: wavelab cannot use it)\n");
        return;
    }
    printf("  subgroup size       %u (min %u, max %u)\n", d->subgroup_size, d->min_subgroup_size, d->max_subgroup_size);
    printf("  size control        %s; full subgroups %s; required-size stages: %s; max %u subgroups per workgroup\n",
           yes_no(d->subgroup_size_control), yes_no(d->compute_full_subgroups), req_stages,
           d->max_compute_workgroup_subgroups);
    printf("  subgroup stages     %s\n", stages);
    printf("  subgroup operations %s\n", ops);
    printf("  subgroup ext. types %s (8/16/64-bit integers and float16 in subgroup operations)\n",
           yes_no(d->subgroup_extended_types));
    printf("  arithmetic types    float16 %s, float64 %s, int8 %s, int16 %s, int64 %s, int64 atomics %s, "
           "float32 atomic add %s\n",
           yes_no(d->float16), yes_no(d->float64), yes_no(d->int8), yes_no(d->int16), yes_no(d->int64),
           yes_no(d->int64_atomics), yes_no(d->float32_atomic_add));
    printf("  8/16-bit storage    storage buffer %s/%s, uniform %s/%s, push constant %s/%s\n",
           yes_no(d->storage_buffer_8bit), yes_no(d->storage_buffer_16bit), yes_no(d->uniform_and_storage_buffer_8bit),
           yes_no(d->uniform_and_storage_buffer_16bit), yes_no(d->storage_push_constant_8),
           yes_no(d->storage_push_constant_16));
    printf("  compute extensions  explicit-layout workgroup memory %s; derivatives in compute kernels: quads %s, "
           "linear %s\n", yes_no(d->workgroup_explicit_layout), yes_no(d->derivative_group_quads),
           yes_no(d->derivative_group_linear));
    printf("  storage images      multisampled %s, 64-bit integer atomics %s\n", yes_no(d->storage_image_multisample),
           yes_no(d->image_int64));
    printf("  run-time indices    uniform / NonUniform into arrays of:");
    const char *sep = " ";
#define X(stem, src, name, dynamic, nonuniform) \
    printf("%s%s %s/%s", sep, name, yes_no(d->dynamic), yes_no(d->nonuniform)), sep = ", ";
    VKB_DESCRIPTOR_INDEXING_LIST(X)
#undef X
    printf("\n");
    printf("  shared memory       %u bytes per workgroup\n", d->max_compute_shared_memory_size);
    printf("  workgroups          %u invocations, size %u x %u x %u, count %u x %u x %u\n",
           d->max_compute_workgroup_invocations, d->max_compute_workgroup_size[0], d->max_compute_workgroup_size[1],
           d->max_compute_workgroup_size[2], d->max_compute_workgroup_count[0], d->max_compute_workgroup_count[1],
           d->max_compute_workgroup_count[2]);
    printf("  push constants      %u bytes\n", d->max_push_constants_size);
    if (d->timestamp_valid_bits)
        printf("  timestamps          yes: period %g ns, %u valid bits on queue family %u\n", d->timestamp_period,
               d->timestamp_valid_bits, d->compute_queue_family);
    else
        printf("  timestamps          not available on the compute queue (family %u)\n", d->compute_queue_family);
    printf("  pipeline statistics %s\n", d->pipeline_executable_properties
                                             ? "yes (VK_KHR_pipeline_executable_properties)"
                                             : "not available (no VK_KHR_pipeline_executable_properties)");
    if (d->performance_query)
        printf("  performance query   VK_KHR_performance_query: %u counters (not collected by wavelab)\n",
               d->performance_counter_count);
    else
        printf("  performance query   not available (no VK_KHR_performance_query)\n");
}

int cli_cmd_devices(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_devices, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    vk_args a;
    vk_args_from(&o, NULL, &a);
    vkb_context *ctx;
    int index;
    if (!open_device("devices", a.device, &ctx, &index))
        return RUN_EXIT_BAD_INPUT;
    for (int i = 0; i < vkb_device_count(ctx); i++) {
        if (a.device && i != index)
            continue;
        vkb_device_info info;
        vkb_device_info_get(ctx, i, &info);
        print_device(i, &info);
    }
    vkb_context_destroy(ctx);
    return RUN_EXIT_OK;
}

/* ------------------------------------------------------------- shared by run and check */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void print_timing(const wl_case *c, const vkb_run_output *o, FILE *f)
{
    if (o->timing_available) {
        fprintf(f, "  device time  median %.3f us, min %.3f, max %.3f over %u %s (timestamps); host %.1f us "
                   "submit-to-fence\n",
                o->median_us, o->min_us, o->max_us, o->sample_count,
                o->pass_count > 1 ? (o->sample_count == 1 ? "run of every pass" : "runs of every pass")
                                  : (o->sample_count == 1 ? "dispatch" : "dispatches"),
                o->host_median_us);
        double *d = o->pass_count > 1 ? malloc(o->sample_count * sizeof *d) : NULL;
        for (int p = 0; d && p < o->pass_count; p++) { /* each pass's own interval, between its timestamps */
            for (uint32_t k = 0; k < o->sample_count; k++) {
                size_t i = (size_t)k * (size_t)o->pass_count + (size_t)p;
                d[k] = o->pass_end_us[i] - o->pass_begin_us[i];
            }
            qsort(d, o->sample_count, sizeof *d, by_value);
            fprintf(f, "    pass %d %-12s median %.3f us, min %.3f, max %.3f\n", p, case_dispatch_name(c, p),
                    o->sample_count % 2 ? d[o->sample_count / 2]
                                        : (d[o->sample_count / 2 - 1] + d[o->sample_count / 2]) / 2,
                    d[0], d[o->sample_count - 1]);
        }
        free(d);
    } else
        fprintf(f, "  device time  %s; host %.1f us submit-to-fence (median of %u)\n", o->timing_note,
                o->host_median_us, o->sample_count);
}

static void print_statistics(const vkb_run_output *o, FILE *f)
{
    if (!o->stat_count) {
        fprintf(f, "  statistics   %s\n", o->stats_note);
    } else {
        for (int i = 0; i < o->stat_count; i++)
            fprintf(f, "  statistic    %s: %s = %s\n", o->stats[i].executable, o->stats[i].name, o->stats[i].value);
    }
    fprintf(f, "  counters     %s\n", o->counters_note);
}

/* ------------------------------------------------------------- run --backend vulkan */

static int write_dump(const char *path, const wl_case *c, const vkb_device_info *d, const vkb_run_output *o)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "wavelab run: %s: cannot write: %s\n", path, strerror(errno));
        return 0;
    }
    fprintf(f, "{\n  \"case\": ");
    text_json(f, c->path);
    fprintf(f, ",\n  \"backend\": \"vulkan\",\n  \"bindings\": [");
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        size_t es = case_type_size(b->type);
        if (case_kind_is_image(b->kind) || b->kind == CASE_KIND_SAMPLER) { /* case/case_image.c: JSON and PNG */
            char err[512];
            fputs(i ? ",\n    " : "\n    ", f);
            if (!case_image_dump(f, path, b, o->data[i], err, sizeof err)) {
                fprintf(stderr, "wavelab run: %s\n", err);
                fclose(f);
                return 0;
            }
            continue;
        }
        fprintf(f, "%s\n    {", i ? "," : "");
        case_write_descriptor(f, b);
        fprintf(f, ", \"type\": \"%s\", \"data\": [", case_type_name(b->type));
        for (size_t k = 0; k < b->count; k++) {
            char text[64];
            case_format_element(b->type, o->data[i] + k * es, text, sizeof text);
            fprintf(f, "%s%s", k ? ", " : "", text);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ],\n  \"device\": {\"name\": ");
    text_json(f, d->name);
    fprintf(f, ", \"driver\": ");
    text_json(f, d->driver_name);
    fprintf(f, ", \"driver_info\": ");
    text_json(f, d->driver_info);
    fprintf(f, ", \"api_version\": \"%u.%u.%u\", \"wave_size\": %u, \"wave_size_required\": %s, "
               "\"full_subgroups\": %s, \"memory\": ",
            (d->api_version >> 22) & 0x7f, (d->api_version >> 12) & 0x3ff, d->api_version & 0xfff, o->wave_size,
            o->wave_size_required ? "true" : "false", o->full_subgroups ? "true" : "false");
    text_json(f, o->memory_note);
    fprintf(f, "},\n  \"timing\": {\"available\": %s", o->timing_available ? "true" : "false");
    if (o->timing_available) {
        fprintf(f, ", \"unit\": \"us\", \"median\": %.6g, \"min\": %.6g, \"max\": %.6g, \"samples\": [", o->median_us,
                o->min_us, o->max_us);
        for (uint32_t i = 0; i < o->sample_count; i++)
            fprintf(f, "%s%.6g", i ? ", " : "", o->samples_us[i]);
        fprintf(f, "]");
        if (c->dispatches) { /* every pass of every sample, on the device clock from the first timestamp */
            fprintf(f, ", \"passes\": [");
            for (int p = 0; p < o->pass_count; p++) {
                fprintf(f, "%s\n    {\"name\": ", p ? "," : "");
                text_json(f, case_dispatch_name(c, p));
                for (int side = 0; side < 2; side++) {
                    const double *t = side ? o->pass_end_us : o->pass_begin_us;
                    fprintf(f, ", \"%s\": [", side ? "end" : "begin");
                    for (uint32_t i = 0; i < o->sample_count; i++)
                        fprintf(f, "%s%.6g", i ? ", " : "", t[(size_t)i * (size_t)o->pass_count + (size_t)p]);
                    fprintf(f, "]");
                }
                fprintf(f, "}");
            }
            fprintf(f, "]");
        }
    } else {
        fprintf(f, ", \"note\": ");
        text_json(f, o->timing_note);
    }
    fprintf(f, ", \"host_median_us\": %.6g},\n  \"statistics\": [", o->host_median_us);
    for (int i = 0; i < o->stat_count; i++) {
        fprintf(f, "%s\n    {\"executable\": ", i ? "," : "");
        text_json(f, o->stats[i].executable);
        fprintf(f, ", \"name\": ");
        text_json(f, o->stats[i].name);
        fprintf(f, ", \"value\": %.17g, \"description\": ", o->stats[i].number);
        text_json(f, o->stats[i].description);
        fprintf(f, "}");
    }
    fprintf(f, "%s],\n  \"statistics_note\": ", o->stat_count ? "\n  " : "");
    text_json(f, o->stat_count ? "" : o->stats_note);
    fprintf(f, ",\n  \"counters_note\": ");
    text_json(f, o->counters_note);
    fprintf(f, "\n}\n");
    int ok = !ferror(f);
    if (fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "wavelab run: %s: cannot write: %s\n", path, strerror(errno));
    return ok;
}

int cli_cmd_run_vulkan(const cli_opts *o, const char *case_path)
{
    vk_args a;
    vk_args_from(o, case_path, &a);
    if (!a.case_path) {
        fprintf(stderr, "wavelab run: no case file given\n");
        return RUN_EXIT_BAD_INPUT;
    }
    char err[4096];
    wl_case *c = NULL;
    if (case_load(a.case_path, &c, err, sizeof err) != CASE_OK) {
        fprintf(stderr, "%s\n", err);
        return RUN_EXIT_BAD_INPUT;
    }
    run_device_options dopt = {.device = a.device, .optimize = a.optimize, .run = device_run_options(&a)};
    run_device_result res;
    int rc = RUN_EXIT_BAD_INPUT;
    run_case_device(c, &dopt, &res);
    const vkb_run_output *out = &res.out;
    if (res.step > RUN_DEVICE_OPEN && res.warnings[0] && !a.quiet)
        fputs(res.warnings, stderr);
    if (res.step == RUN_DEVICE_OPEN || res.step == RUN_DEVICE_COMPILE) {
        fprintf(stderr, "wavelab run: %s\n", res.message);
        goto done;
    }
    if (res.step != RUN_DEVICE_DONE) {
        rc = cli_vulkan_failure(res.status, "wavelab run: ", res.message);
        goto done;
    }
    const vkb_device_info *info = &res.info;
    if (!a.quiet) {
        printf("wavelab run %s --backend vulkan\n", c->path);
        printf("  device       %s (%s)\n", info->name, info->driver_info[0] ? info->driver_info : info->driver_name);
        printf("  dispatch     %u x %u x %u workgroups\n", c->groups[0], c->groups[1], c->groups[2]);
        printf("  wave size    %u (%s%s)\n", out->wave_size,
               out->wave_size_required                                  ? "required subgroup size"
               : vkb_one_subgroup_size(info)                        ? "the device's only subgroup size"
                                                                        : "the device's choice",
               out->full_subgroups ? ", full subgroups" : "");
        printf("  memory       %s\n", out->memory_note);
        print_timing(c, out, stdout);
        print_statistics(out, stdout);
    }
    rc = run_check_expects(c, out->data, a.quiet ? NULL : stdout) > 0 ? RUN_EXIT_FAIL : RUN_EXIT_OK;
    if (a.dump && !write_dump(a.dump, c, info, out))
        rc = RUN_EXIT_BAD_INPUT;
done:
    run_device_result_free(&res);
    case_destroy(c);
    return rc;
}

/* ------------------------------------------------------------- check */

typedef struct grid {
    uint32_t local[3];
    uint32_t groups[3];
    uint32_t wave;
    uint8_t derivative_group; /* the program's: where an invocation lies in the waves (isa_lane_position) */
} grid;

/* Describes element i as the invocation that would write it if the kernel writes one element per invocation. */
static void describe_invocation(const grid *g, size_t i, char *buf, size_t size)
{
    uint64_t gx = (uint64_t)g->local[0] * g->groups[0], gy = (uint64_t)g->local[1] * g->groups[1];
    uint64_t gz = (uint64_t)g->local[2] * g->groups[2];
    if ((uint64_t)i >= gx * gy * gz || !g->local[0] || !g->wave) {
        snprintf(buf, size, "beyond the %" PRIu64 " invocations of the dispatch", gx * gy * gz);
        return;
    }
    uint64_t id[3] = {i % gx, (i / gx) % gy, i / (gx * gy)};
    uint32_t wg[3], loc[3];
    for (int k = 0; k < 3; k++) {
        wg[k] = (uint32_t)(id[k] / g->local[k]);
        loc[k] = (uint32_t)(id[k] % g->local[k]);
    }
    uint32_t position = isa_lane_position(g->local, g->derivative_group, loc);
    snprintf(buf, size, "workgroup (%u,%u,%u) local (%u,%u,%u) wave %u lane %u", wg[0], wg[1], wg[2], loc[0], loc[1],
             loc[2], position / g->wave, position % g->wave);
}

/* Compares one binding; prints up to `*budget` mismatches; returns the number of differing elements. */
static size_t compare_binding(const wl_case *c, int bi, const uint8_t *sim, const uint8_t *dev, const grid *g,
                              int *budget, char *report, size_t report_size)
{
    const case_binding *b = &c->bindings[bi];
    const case_expect *e = case_expect_for(c, b);
    case_compare mode = e ? e->compare : CASE_COMPARE_EXACT;
    double tolerance = e ? e->tolerance : 0;
    if (cli_is_image_binding(b)) /* texel by texel, decoded, placed at coordinates */
        return cli_check_image_binding(b, sim, dev, (int)mode, tolerance, budget, report, report_size);
    size_t es = case_type_size(b->type);
    const uint8_t *x = sim, *y = dev;
    uint8_t *sorted_sim = NULL, *sorted_dev = NULL;
    if (mode == CASE_COMPARE_SORTED && b->size) {
        sorted_sim = malloc(b->size);
        sorted_dev = malloc(b->size);
        if (sorted_sim && sorted_dev) {
            memcpy(sorted_sim, sim, b->size);
            memcpy(sorted_dev, dev, b->size);
            if (case_sort_elements(b->type, sorted_sim, b->count) && case_sort_elements(b->type, sorted_dev, b->count)) {
                x = sorted_sim;
                y = sorted_dev;
            }
        }
    }
    size_t bad = 0;
    for (size_t i = 0; (i = case_next_mismatch(b->type, x, y, i, b->count, mode, tolerance)) < b->count; i++) {
        bad++;
        if (*budget > 0) {
            (*budget)--;
            char sv[64], dv[64], where[160] = "";
            case_format_element(b->type, x + i * es, sv, sizeof sv);
            case_format_element(b->type, y + i * es, dv, sizeof dv);
            if (mode != CASE_COMPARE_SORTED)
                describe_invocation(g, i, where, sizeof where);
            else
                snprintf(where, sizeof where, "position in sorted order");
            char ulps[48] = "";
            uint64_t d;
            if (case_ulp_distance(b->type, x + i * es, y + i * es, &d))
                snprintf(ulps, sizeof ulps, ", %" PRIu64 " ulp", d);
            size_t len = strlen(report);
            snprintf(report + len, report_size - len, "      [%zu] simulator %s, device %s%s  (%s)\n", i, sv, dv, ulps,
                     where);
        }
    }
    free(sorted_sim);
    free(sorted_dev);
    return bad;
}

int cli_cmd_check(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_check, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    return cli_check_case(&o, o.nargs ? o.args[0] : NULL);
}

int cli_check_case(const cli_opts *o, const char *case_path)
{
    return cli_check_case_to(o, case_path, stdout, stderr);
}

/* The case check compares, with --wave held to the case's wave rules; NULL when it cannot be checked (the
 * reason printed, the exit code in *rc). */
static wl_case *load_check_case(const vk_args *a, FILE *fout, FILE *ferr, int *rc)
{
    char err[4096];
    wl_case *c = NULL;
    case_status loaded = case_load(a->case_path, &c, err, sizeof err);
    if (loaded == CASE_ERR_UNSUPPORTED) { /* an Amber script outside the subset: nothing can run it */
        fprintf(fout, "SKIP: %s\n", err);
        *rc = EXIT_SKIPPED;
        return NULL;
    }
    if (loaded != CASE_OK) {
        fprintf(ferr, "%s\n", err);
        *rc = RUN_EXIT_BAD_INPUT;
        return NULL;
    }
    if (a->wave && !case_wave_applies(c, a->wave, err, sizeof err)) {
        fprintf(ferr, "wavelab check: --wave %u: %s\n", a->wave, err);
        case_destroy(c);
        *rc = RUN_EXIT_BAD_INPUT;
        return NULL;
    }
    return c;
}

/* The simulator's fault as "kind: message at where". */
static void format_sim_fault(const run_output *sim, char *buf, size_t size)
{
    char where[512];
    sim_location_format(sim->prog, &sim->result.fault_event.where, where, sizeof where);
    snprintf(buf, size, "%s: %s at %s", sim_fault_kind_name(sim->result.fault), sim->result.fault_event.message,
             where);
}

/* The simulator's own verdict, when the device crashed and there is no device result to compare with. */
static void print_simulator_alone(const wl_case *c, const run_output *sim, int sim_rc, FILE *fout)
{
    if (sim_rc == RUN_EXIT_FAIL) {
        char fault[1024];
        format_sim_fault(sim, fault, sizeof fault);
        fprintf(fout, "  simulator    stopped with a fault (%s)\n", fault);
    } else if (c->expect_count) {
        fprintf(fout, "  expectations simulator %d failed (of %d)\n", run_check_expects(c, sim->data, NULL),
                c->expect_count);
        run_check_expects(c, sim->data, fout);
    } else {
        fprintf(fout, "  simulator    ran to the end (the case has no expectations)\n");
    }
}

/* What the comparison found, for the summary and the verdict. */
typedef struct check_tally {
    uint32_t wave;
    size_t total_bad;      /* differing elements (texels) */
    int bad_bindings;
    int sim_fail, dev_fail; /* failed expectations on each side */
    uint64_t findings;     /* the sanitizer's, with --sanitize */
} check_tally;

/* One binding's line: how it is compared and whether it agrees, then its first mismatches (report). */
static void print_binding(const wl_case *c, const case_binding *b, size_t bad, const char *report, uint32_t wave,
                          int *note_printed, FILE *fout)
{
    const case_expect *e = case_expect_for(c, b);
    case_compare mode = e ? e->compare : CASE_COMPARE_EXACT;
    double tol = e ? e->tolerance : 0;
    char how[64];
    if (case_compare_takes_tolerance(mode))
        snprintf(how, sizeof how, "%s %g", case_compare_name(mode), tol);
    else
        snprintf(how, sizeof how, "%s", case_type_is_float(b->type) || mode == CASE_COMPARE_SORTED
                                            ? case_compare_name(mode)
                                            : "bit-exact");
    char where[CASE_DESCRIPTOR_TEXT_MAX];
    fprintf(fout, "  %-15s  %-20s %-4s x %-7zu %-12s %s\n",
            case_descriptor_text(b->set, b->binding, b->element, where, sizeof where), case_kind_name(b->kind),
            case_type_name(b->type), b->count, how, bad ? "DIFFER" : "agree");
    int image = cli_is_image_binding(b);
    if (bad && !image && mode != CASE_COMPARE_SORTED && !*note_printed) {
        fprintf(fout, "      (element i is placed at global invocation i, x fastest: that holds when the kernel "
                "writes one element per invocation; wave size %u)\n",
                wave);
        *note_printed = 1;
    }
    if (bad)
        fprintf(fout, "      %zu of %zu %s differ%s\n%s", bad, b->count,
                image ? "texels (decoded components)" : "elements", report[0] ? "; the first:" : "", report);
}

/* Every binding, simulator against device, each printed unless quiet; the totals into t. */
static void compare_bindings(const wl_case *c, const run_output *sim, const vkb_run_output *dev, const grid *g,
                             int quiet, check_tally *t, FILE *fout)
{
    int budget = MAX_MISMATCHES;
    int note_printed = 0;
    for (int i = 0; i < c->binding_count; i++) {
        char report[MAX_MISMATCHES * 256] = "";
        size_t bad = compare_binding(c, i, sim->data[i], dev->data[i], g, &budget, report, sizeof report);
        if (!quiet)
            print_binding(c, &c->bindings[i], bad, report, t->wave, &note_printed, fout);
        t->total_bad += bad;
        t->bad_bindings += bad != 0;
    }
}

/* After the bindings: the device's timing and statistics, both sides' registers, waves and expectations. */
static void print_check_details(const wl_case *c, const run_output *sim, const vkb_run_output *dev,
                                const check_tally *t, FILE *fout)
{
    if (t->total_bad > MAX_MISMATCHES)
        fprintf(fout, "  (first %d mismatches shown)\n", MAX_MISMATCHES);
    print_timing(c, dev, fout);
    print_statistics(dev, fout);
    if (sim->prog)
        fprintf(fout, "  registers    wavelab's allocation: %u VGPRs + %u SGPRs (%u per thread on a GPU without scalar "
                "registers, to compare with a driver's register count; docs/registers.md)\n",
                sim->prog->res.vgprs, sim->prog->res.sgprs, sim->prog->res.vgprs + sim->prog->res.sgprs);
    fprintf(fout, "  simulator    %" PRIu64 " waves, %" PRIu64 " wave instructions, %u bytes shared memory\n",
            sim->result.stats.waves, sim->result.stats.wave_instructions, sim->prog ? sim->prog->workgroup_bytes : 0);
    if (c->expect_count)
        fprintf(fout, "  expectations simulator %d failed, device %d failed (of %d)\n", t->sim_fail, t->dev_fail,
                c->expect_count);
}

/* The verdict line (KNOWN DIFFERENCE, DIFFER FROM RECORD, DIFFER, AGREE, and after AGREE what the sanitizer
 * and the expectations say); returns the exit code. */
static int print_verdict(const wl_case *c, const run_output *sim, const char *device, const check_tally *t,
                         int quiet, FILE *fout)
{
    const case_device_difference *known = case_device_difference_for(c, device);
    if (known && t->total_bad) {
        fprintf(fout, "KNOWN DIFFERENCE: %d of %d bindings differ (%zu elements) on %s at wave %u, as the case's "
                "\"device_differences\" says: %s\n", t->bad_bindings, c->binding_count, t->total_bad, device, t->wave,
                known->reason);
        return t->findings ? RUN_EXIT_FAIL : RUN_EXIT_OK;
    }
    if (known) {
        fprintf(fout, "DIFFER FROM RECORD: all %d bindings match on %s at wave %u, but the case's \"device_differences\" "
                "says they differ (%s): remove the entry if the device changed\n", c->binding_count, device, t->wave,
                known->reason);
        return RUN_EXIT_FAIL;
    }
    if (t->total_bad) {
        fprintf(fout, "DIFFER: %d of %d bindings differ (%zu elements) between the simulator and %s at wave %u\n",
                t->bad_bindings, c->binding_count, t->total_bad, device, t->wave);
        return RUN_EXIT_FAIL;
    }
    fprintf(fout, "AGREE: all %d bindings match between the simulator and %s at wave %u\n", c->binding_count, device,
            t->wave);
    int rc = t->findings ? RUN_EXIT_FAIL : RUN_EXIT_OK;
    if (t->findings)
        fprintf(fout, "SANITIZE: the bindings agree, but the simulator's sanitizer reported %llu finding%s (exit 1)\n",
                (unsigned long long)t->findings, t->findings == 1 ? "" : "s");
    /* agreeing on a wrong answer is still a wrong answer: the expectations decide, as in `wavelab test` */
    if ((t->sim_fail || t->dev_fail) && c->known_failure) {
        fprintf(fout, "XFAIL: both sides agree and the expectations fail (simulator %d, device %d of %d), as the "
                "case's \"known_failure\" says: %s\n", t->sim_fail, t->dev_fail, c->expect_count, c->known_failure);
    } else if (t->sim_fail || t->dev_fail) {
        fprintf(fout, "FAIL: both sides agree, but the case's expectations fail (simulator %d, device %d of %d)\n",
                t->sim_fail, t->dev_fail, c->expect_count);
        if (!quiet)
            run_check_expects(c, sim->data, fout);
        rc = RUN_EXIT_FAIL;
    }
    return rc;
}

int cli_check_case_to(const cli_opts *o, const char *case_path, FILE *fout, FILE *ferr)
{
    vk_args a;
    vk_args_from(o, case_path, &a);
    if (!a.case_path) {
        fprintf(ferr, "wavelab check: no case file given\n");
        return RUN_EXIT_BAD_INPUT;
    }
    int rc = RUN_EXIT_BAD_INPUT, sim_ran = 0;
    wl_case *c = load_check_case(&a, fout, ferr, &rc);
    if (!c)
        return rc;
    char err[4096];
    run_output sim;
    memset(&sim, 0, sizeof sim);

    /* the device in a child process (a driver that crashes takes only the child with it), before this process
     * opens any Vulkan instance; once it has settled the wave size, the simulator runs here beside its dispatch */
    run_device_options dopt = {.device = a.device, .optimize = a.optimize, .run = device_run_options(&a),
                               .check_first = 1};
    run_device_job job;
    run_options sim_opt = a.sim;
    int sim_rc = RUN_EXIT_OK;
    if (run_case_device_start(c, &dopt, &job)) {
        sim_opt.wave_size = job.wave_size;
        sim_rc = run_case_sim(c, &sim_opt, &sim, err, sizeof err);
        sim_ran = 1;
    }
    run_device_result res;
    run_case_device_finish(&job, &res);
    const vkb_run_output *dev = &res.out;
    const vkb_device_info *info = &res.info;
    int crashed = res.crash_signal != 0;
    if (!crashed && res.step != RUN_DEVICE_DONE) {
        rc = device_refusal(&res, fout, ferr);
        goto done;
    }
    uint32_t wave = sim_ran ? sim_opt.wave_size
                    : crashed ? (a.wave ? a.wave : c->subgroup_size ? c->subgroup_size : info->subgroup_size)
                              : res.wave_size;
    if (crashed) {
        const char *abbrev = sigabbrev_np(res.crash_signal);
        fprintf(fout, "SKIP: the device crashed (signal %d: SIG%s) running %s on %s\n", res.crash_signal,
               abbrev ? abbrev : "?", c->path, res.have_info ? info->name : a.device ? a.device : "the Vulkan device");
    }

    if (!sim_ran) { /* the device's process died before it settled the wave size */
        sim_opt.wave_size = wave;
        sim_rc = run_case_sim(c, &sim_opt, &sim, err, sizeof err);
        sim_ran = 1;
    }
    if (sim.warnings[0] && !a.quiet)
        fputs(sim.warnings, ferr);
    if (sim.optimizer_note[0])
        fprintf(ferr, "wavelab check: simulator: %s\n", sim.optimizer_note);
    if (sim_rc == RUN_EXIT_BAD_INPUT) {
        fprintf(ferr, "wavelab check: simulator: %s\n", err);
        rc = RUN_EXIT_BAD_INPUT;
        goto done;
    }
    if (crashed) {
        print_simulator_alone(c, &sim, sim_rc, fout);
        rc = EXIT_SKIPPED;
        goto done;
    }

    if (!a.quiet) {
        fprintf(fout, "wavelab check %s\n", c->path);
        fprintf(fout, "  wave size    %u on both; device %s (%s)%s\n", wave, info->name,
               info->driver_info[0] ? info->driver_info : info->driver_name,
               dev->wave_size_required                                ? ", required subgroup size"
               : vkb_one_subgroup_size(info)                        ? ", its only subgroup size"
                                                                      : "");
        if (a.machine)
            fprintf(fout, "  machine      %s (the preset changes the model's statistics, not its outputs)\n", a.machine);
    }
    if (sim_rc == RUN_EXIT_FAIL) {
        char fault[1024];
        format_sim_fault(&sim, fault, sizeof fault);
        fprintf(fout, "DIFFER: the simulator stopped with a fault (%s); the device ran to the end\n", fault);
        rc = RUN_EXIT_FAIL;
        goto done;
    }

    grid g = {.wave = wave, .derivative_group = sim.prog ? sim.prog->derivative_group : ISA_DERIV_NONE};
    /* several passes: mismatches are placed in the last pass's grid (a hint: an earlier pass may have written them) */
    wl_case last;
    case_dispatch_view(c, c->dispatches ? sim.pass : 0, &last);
    for (int k = 0; k < 3; k++) {
        g.local[k] = sim.prog ? sim.prog->local_size[k] : res.local_size[k];
        g.groups[k] = last.groups[k];
    }
    check_tally t = {.wave = wave};
    compare_bindings(c, &sim, dev, &g, a.quiet, &t, fout);
    t.sim_fail = run_check_expects(c, sim.data, NULL);
    t.dev_fail = run_check_expects(c, dev->data, NULL);
    if (!a.quiet)
        print_check_details(c, &sim, dev, &t, fout);
    t.findings = a.sanitize ? run_print_findings(c, &sim, fout) : 0;
    rc = print_verdict(c, &sim, info->name, &t, a.quiet, fout);
done:
    if (sim_ran)
        run_output_free(&sim);
    run_device_result_free(&res);
    case_destroy(c);
    return rc;
}
