/*
 * cli/probe.c — `wavelab probe`: microbenchmarks through the Vulkan backend
 * (backend/probe.c) that measure a device's memory hierarchy and write a
 * machine preset (machines/NAME.json, loadable with --machine) in which every
 * value says where it came from.
 *
 *   wavelab probe [--device NAME|INDEX] [--quick] [--base PRESET] [--name NAME]
 *                 [--sweeps DIR] -o PRESET.json
 *   wavelab probe --from-sweeps DIR [--base PRESET] [--name NAME] -o PRESET.json   (saved sweeps, no device)
 *
 * The sweeps and the analyses that read values off them are in cli/probe_sweeps.c (docs/probe.md has the
 * method, the thresholds and the plots); this file is the command, the sweep files (--sweeps, read back by
 * --from-sweeps) and the preset, whose every value says whether it was measured (which sweep, device, driver,
 * day, rule) or kept from the base preset, and why.  What a sweep cannot show (no knee on this device) stays
 * the base preset's value, marked as such.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/probe_internal.h"
#include "isa/isa.h"
#include "run/run.h"
#include "sim/machine.h"
#include "text/text.h"

enum { EXIT_NO_DEVICE = 3 };

/* ------------------------------------------------------------- output */

static int write_sweep(const probe *pr, const sweep *s)
{
    if (!pr->sweep_dir || !s->file)
        return 1;
    char path[768];
    snprintf(path, sizeof path, "%s/%s", pr->sweep_dir, s->file);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "wavelab probe: cannot write %s: %s\n", path, strerror(errno));
        return 0;
    }
    /* the driver as the preset's provenance names it (name and version), so --from-sweeps reads back the same */
    fprintf(f, "# %s on %s (%s%s%s)\n", s->file, pr->info.name, pr->info.driver_name,
            pr->info.driver_name[0] ? " " : "", pr->info.driver_info);
    fprintf(f, "# measured %s\n", pr->sweep_date); /* --from-sweeps cites this date, not the day it rebuilds */
    fprintf(f, "%s,%s,min,max\n", s->x_name, s->y_name);
    for (int i = 0; i < s->n; i++)
        fprintf(f, "%.0f,%.4f,%.4f,%.4f\n", s->x[i], s->y[i], s->lo[i], s->hi[i]);
    return fclose(f) == 0;
}

typedef struct provenance_info {
    char device[320], driver[520], date[16], base[64];
    char sweeps[400]; /* the folder the sweep files are cited in */
} provenance_info;

/* Sets field `name` of obj (replacing it) and its provenance: measured from `sweep_file`, or copied from
 * the base preset (its source string says vendor document or model value). */
static void put_measured(cJSON *obj, cJSON *sources, cJSON *prov, const char *name, cJSON *value,
                         const char *sweep_file, const char *how, const provenance_info *pi, const probe *pr)
{
    char text[2048];
    snprintf(text, sizeof text, "measured by wavelab probe on %s (%s, %s): %s; sweep %s/%s", pi->device,
             pi->driver, pi->date, how, pi->sweeps, sweep_file ? sweep_file : "-");
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToObject(p, "value", cJSON_Duplicate(value, 1));
    cJSON_AddStringToObject(p, "source", "measured");
    cJSON_AddStringToObject(p, "device", pi->device);
    cJSON_AddStringToObject(p, "driver", pi->driver);
    cJSON_AddStringToObject(p, "date", pi->date);
    char sw[480];
    snprintf(sw, sizeof sw, "%s/%s", pi->sweeps, sweep_file ? sweep_file : "-");
    cJSON_AddStringToObject(p, "sweep", sw);
    cJSON_AddStringToObject(p, "method", how);
    (void)pr;
    if (obj) {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, name);
        cJSON_AddItemToObject(obj, name, value);
    } else {
        cJSON_Delete(value);
    }
    if (sources) {
        cJSON_DeleteItemFromObjectCaseSensitive(sources, name);
        cJSON_AddStringToObject(sources, name, text);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(prov, name);
    cJSON_AddItemToObject(prov, name, p);
}

/* A field kept from the base preset: its provenance is the base's citation. */
static void put_kept(cJSON *prov, const char *name, const cJSON *value, const cJSON *sources,
                     const provenance_info *pi, const char *why)
{
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(sources, name);
    const char *cite = cJSON_IsString(src) ? src->valuestring : "";
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToObject(p, "value", value ? cJSON_Duplicate(value, 1) : cJSON_CreateNull());
    /* the base's own citation decides the kind: "model value", a measurement (of the base's author), or a
     * vendor document */
    cJSON_AddStringToObject(p, "source",
                            strstr(cite, "model value") ? "model value"
                            : strstr(cite, "measured")  ? "measured"
                                                        : "vendor document");
    cJSON_AddStringToObject(p, "citation", cite);
    char from[160];
    snprintf(from, sizeof from, "machines/%s.json%s%s", pi->base, why ? ": " : "", why ? why : "");
    cJSON_AddStringToObject(p, "from_preset", from);
    cJSON_DeleteItemFromObjectCaseSensitive(prov, name);
    cJSON_AddItemToObject(prov, name, p);
}

/* The provenance of a field the probe did not measure: its value (NULL: none) and why. */
static void put_not_measured(cJSON *prov, const char *name, const cJSON *value, const char *why)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToObject(p, "value", value ? cJSON_Duplicate(value, 1) : cJSON_CreateNull());
    cJSON_AddStringToObject(p, "source", "not measured");
    cJSON_AddStringToObject(p, "why", why);
    cJSON_DeleteItemFromObjectCaseSensitive(prov, name);
    cJSON_AddItemToObject(prov, name, p);
}

/* Rounds a measured capacity to the nearest multiple of ways * line that the loader accepts. */
static uint64_t cache_bytes(double bytes, uint32_t ways, uint32_t line)
{
    uint64_t unit = (uint64_t)ways * line;
    uint64_t k = (uint64_t)(bytes / (double)unit + 0.5);
    return (k ? k : 1) * unit;
}

/* Sets obj[name] = item: in place when it is there (the preset keeps the base's order), else at the end. */
static void set_item(cJSON *obj, const char *name, cJSON *item)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, name))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, name, item);
    else
        cJSON_AddItemToObject(obj, name, item);
}

/* A field the sweeps did not show, as a model value: its number, its source line saying why (`how`), and its
 * provenance object (returned, for callers that add the base's citation). */
static cJSON *put_model_value(cJSON *root, cJSON *sources, cJSON *prov, const char *field, double v, const char *how,
                              const provenance_info *pi)
{
    char text[2048];
    snprintf(text, sizeof text, "model value (wavelab probe on %s, %s): %s", pi->device, pi->date, how);
    set_item(root, field, cJSON_CreateNumber(v));
    set_item(sources, field, cJSON_CreateString(text));
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "value", v);
    cJSON_AddStringToObject(p, "source", "model value");
    cJSON_AddStringToObject(p, "why", how);
    set_item(prov, field, p);
    return p;
}

/*
 * The estimate's latency term (sim/memmodel.c: l2_hit_latency, dram_latency, l1_hit_latency, lds_latency, in
 * cycles), one rule for all four so that they are consistent: the nanoseconds a sweep measured for one
 * dependent load served by that level (the same nanoseconds as in "measured", *_ns) x the base preset's
 * clock_mhz, rounded.  A Vulkan kernel reads no clock; the estimate turns cycles back into microseconds with
 * the same clock, so its times are the measured ones whatever the clock.  Where a sweep shows no such level,
 * the field is still written (every preset has the same fields): the base preset's value as a model value,
 * saying why; where the base has none either (l1_hit_latency and lds_latency are optional in the loader), the
 * level above's cycles as a bound (an L1 hit costs no more than an L2 hit, an LDS read no more than an L1 hit).
 * The rows run in that order, so each bound is already in root.
 */
static void put_latencies(cJSON *root, cJSON *sources, cJSON *prov, const results *r, const cJSON *base,
                          const provenance_info *pi, const probe *pr, double clock)
{
    const sweep *c = &r->s_chase;
    int n = c->n;
    char l1_how[512] = "", l2_how[512] = "", dram_how[512] = "", lds_how[512] = "";
    if (n >= 3) {
        snprintf(l1_how, sizeof l1_how,
                 "the chase's first latency plateau: median of its three smallest footprints (%.0f, %.0f, %.0f lines: "
                 "%.2f, %.2f, %.2f ns) = %.2f ns",
                 c->x[0], c->x[1], c->x[2], c->y[0], c->y[1], c->y[2], r->l1_ns);
        snprintf(dram_how, sizeof dram_how,
                 "median of the chase's three largest footprints (%.0f, %.0f, %.0f lines: %.2f, %.2f, %.2f ns) = "
                 "%.2f ns",
                 c->x[n - 3], c->x[n - 2], c->x[n - 1], c->y[n - 3], c->y[n - 2], c->y[n - 1], r->dram_ns);
    }
    snprintf(l2_how, sizeof l2_how,
             "latency floor of the last cache level: the chase's first point after the L1 from which latency stays "
             "within 5 %% for two more points (%.0f lines) = %.2f ns",
             r->l2_floor_lines, r->l2_ns);
    snprintf(lds_how, sizeof lds_how, "a dependent shared-memory read at stride 1 (conflict free) = %.2f ns",
             r->lds_base_ns);
    const struct {
        const char *field, *file, *how;
        int have;
        double ns;
        const char *why_not; /* what the sweep did not show */
        const char *bound;   /* the field whose cycles bound this one when the base has none */
        uint32_t least;      /* the loader's lower bound */
    } rows[] = {
        {"l2_hit_latency", "chase.csv", l2_how, r->l2_measured, r->l2_ns,
         "the chase showed no last cache level before DRAM", NULL, 0},
        {"dram_latency", "chase.csv", dram_how, r->l2_measured, r->dram_ns,
         "the chase showed no last cache level, so no DRAM plateau past it", NULL, 0},
        {"l1_hit_latency", "chase.csv", l1_how, r->l1_measured, r->l1_ns,
         "the chase showed no L1 plateau (no sustained step to a next level)", "l2_hit_latency", 1},
        {"lds_latency", "lds_stride.csv", lds_how, r->lds_base_ns > 0, r->lds_base_ns,
         "no stride-1 time in the LDS stride sweep", "l1_hit_latency", 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char how[1024];
        if (rows[i].have) {
            double exact = rows[i].ns * clock / 1000.0;
            double cycles = fmin(fmax(round(exact), rows[i].least), 1u << 20);
            snprintf(how, sizeof how, "%s x %.0f MHz (clock_mhz, the base preset's: a Vulkan kernel reads no clock) "
                     "= %.2f -> %.0f cycles", rows[i].how, clock, exact, cycles);
            put_measured(root, sources, prov, rows[i].field, cJSON_CreateNumber(cycles), rows[i].file, how, pi, pr);
            continue;
        }
        const cJSON *bv = cJSON_GetObjectItemCaseSensitive(base, rows[i].field);
        const cJSON *bs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(base, "sources"),
                                                           rows[i].field);
        double cycles;
        int from_base = cJSON_IsNumber(bv);
        if (from_base) {
            cycles = bv->valuedouble;
            snprintf(how, sizeof how, "%s: the base preset's value (machines/%s.json, whose source says: %s)",
                     rows[i].why_not, pi->base, cJSON_IsString(bs) ? bs->valuestring : "-");
        } else {
            const cJSON *above = cJSON_GetObjectItemCaseSensitive(root, rows[i].bound);
            cycles = fmax(cJSON_IsNumber(above) ? above->valuedouble : 0, rows[i].least);
            snprintf(how, sizeof how,
                     "%s, and machines/%s.json has no %s: the preset's %s (%.0f cycles) as a bound, a level no slower "
                     "than the one above it",
                     rows[i].why_not, pi->base, rows[i].field, rows[i].bound, cycles);
        }
        cJSON *p = put_model_value(root, sources, prov, rows[i].field, cycles, how, pi);
        if (from_base) {
            char from[160];
            snprintf(from, sizeof from, "machines/%s.json", pi->base);
            cJSON_AddStringToObject(p, "citation", cJSON_IsString(bs) ? bs->valuestring : "");
            cJSON_AddStringToObject(p, "from_preset", from);
        }
    }
}

/*
 * The L2's rates for the estimate's L2 term (docs/memory.md: l2_bytes_per_cycle, l2_requests_per_cycle,
 * l1_miss_merge), from the L2 rate sweep where it shows them (probe_analyze_l2_rate's rules), per cycle of the
 * base preset's clock as the latency fields are.  Else the base preset's value with its citation and a why;
 * where the base has none, a model value: the bytes at dram_bytes_per_cycle (a level no slower than the one
 * behind it, as the latency fields' bound), requests at the byte rate's sectors per cycle (a request carries at
 * least one sector, so that bound never binds first) and the merge at 0, the last two leaving the
 * estimate as the fields' absence would.  Every preset has the three fields.
 */

/* Four significant digits: as many as the sweeps' repetitions agree on, on a GPU (a CPU device's rates are
 * fractions of a byte per cycle, so a fixed number of decimals would not do). */
static double four_digits(double v)
{
    char text[32];
    snprintf(text, sizeof text, "%.4g", v);
    return strtod(text, NULL);
}

static void put_l2_rates(cJSON *root, cJSON *sources, cJSON *prov, const results *r, const cJSON *base,
                         const provenance_info *pi, const probe *pr, double clock)
{
    double sector_bytes = cJSON_GetObjectItemCaseSensitive(root, "sector_bytes")->valuedouble;
    char rates[384], buffer[96] = "";
    double chosen = probe_l2_buffer(&r->s_l2_footprint);
    if (chosen > 0) /* sweeps from before the buffer sizes were tried have no l2_footprint.csv */
        snprintf(buffer, sizeof buffer, "; a %.0f MiB buffer, the largest within 10 %% of the fastest in "
                 "l2_footprint.csv", chosen / 1048576);
    snprintf(rates, sizeof rates,
             "l2_rate.csv: scattered one-sector loads %.2f, whole lines %.2f, adjacent sectors %.2f G sectors/s%s; "
             "copy %.1f GB/s",
             r->l2_scattered_gsps, r->l2_line_gsps, r->l2_adjacent_gsps, buffer,
             r->bw_measured ? r->bytes_per_us / 1000 : 0);
    const char *no_sweep = r->s_l2_rate.n ? NULL : "no L2 rate sweep (l2_rate.csv) in this run";
    const char *not_l2 = "the whole-line rate x 32 bytes is not above 1.2 x the copy's DRAM rate: the sweep's buffer "
                         "was not served by a level faster than DRAM";
    const char *not_bound = "the one-sector loads' fastest repetition is not below 0.85 x the whole-line loads' "
                            "slowest: not clearly request bound, so their rate is not the request rate";
    const char *not_adjacent = "the adjacent loads are not request bound (their fastest repetition is not below 0.85 "
                               "x the whole-line loads' slowest: the kernel's issue rate bounds both), so the merge "
                               "cannot be read";
    const struct {
        const char *field;
        int have;
        double value;
        enum { RATE_BYTES, RATE_REQUESTS, RATE_MERGE } kind; /* the merge is a share: 2 decimals, 0..1 */
        const char *rule, *why_not;
    } rows[] = {
        {"l2_bytes_per_cycle", r->l2_bytes_measured, r->l2_line_gsps * 32 * 1000 / clock, RATE_BYTES,
         "whole 128-byte lines (4 sectors per request) scattered over a buffer the L2 holds: G sectors/s x 32 bytes "
         "/ clock_mhz (the base preset's)",
         no_sweep ? no_sweep : not_l2},
        {"l2_requests_per_cycle", r->l2_requests_measured, r->l2_scattered_gsps * 1000 / clock, RATE_REQUESTS,
         "one 32-byte sector from each of 4 scattered lines per 32 invocations (one sector per request), request "
         "bound (every repetition below 0.85 x the whole-line loads' slowest): G requests/s / clock_mhz (the base "
         "preset's)",
         no_sweep ? no_sweep : !r->l2_bytes_measured ? not_l2 : not_bound},
        {"l1_miss_merge", r->l1_merge_measured, r->l1_merge, RATE_MERGE,
         "4 consecutive loads reading sectors 0..3 of the same lines against scattered ones, request bound: "
         "(1 - rate_scattered / rate_adjacent) / 0.75 (3 of 4 requests are merge candidates), clamped to 0..1",
         no_sweep                     ? no_sweep
         : !r->l2_bytes_measured      ? not_l2
         : !r->l2_requests_measured   ? not_bound
         : r->l2_adjacent_gsps > 0    ? not_adjacent
                                      : "no adjacent-sector row in l2_rate.csv"},
    };
    const cJSON *base_sources = cJSON_GetObjectItemCaseSensitive(base, "sources");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char how[1400];
        if (rows[i].have) {
            double v = rows[i].kind == RATE_MERGE ? fmin(fmax(round(rows[i].value * 100) / 100, 0), 1)
                                                  : four_digits(rows[i].value);
            snprintf(how, sizeof how, "%s = %.4g -> %g (%s)", rows[i].rule, rows[i].value, v, rates);
            put_measured(root, sources, prov, rows[i].field, cJSON_CreateNumber(v), "l2_rate.csv", how, pi, pr);
            continue;
        }
        const cJSON *bv = cJSON_GetObjectItemCaseSensitive(base, rows[i].field);
        if (cJSON_IsNumber(bv)) { /* the base's number and citation, and why the sweep did not replace it */
            cJSON *kept = cJSON_GetObjectItemCaseSensitive(prov, rows[i].field); /* make_preset's, in place */
            if (!kept) {
                put_kept(prov, rows[i].field, bv, base_sources, pi, NULL);
                kept = cJSON_GetObjectItemCaseSensitive(prov, rows[i].field);
            }
            cJSON_AddStringToObject(kept, "why", rows[i].why_not);
            continue;
        }
        double v;
        if (rows[i].kind == RATE_MERGE) {
            v = 0;
            snprintf(how, sizeof how, "%s, and machines/%s.json has no %s: %g: no merging (as the "
                     "estimate without the field)", rows[i].why_not, pi->base, rows[i].field, v);
        } else if (rows[i].kind == RATE_BYTES) {
            v = cJSON_GetObjectItemCaseSensitive(root, "dram_bytes_per_cycle")->valuedouble; /* the loader's */
            snprintf(how, sizeof how, "%s, and machines/%s.json has no %s: the preset's dram_bytes_per_cycle (%g) as a "
                     "bound, a level no slower than the one behind it", rows[i].why_not, pi->base, rows[i].field, v);
        } else {
            v = four_digits(cJSON_GetObjectItemCaseSensitive(root, "l2_bytes_per_cycle")->valuedouble / sector_bytes);
            snprintf(how, sizeof how, "%s, and machines/%s.json has no %s: the preset's l2_bytes_per_cycle / "
                     "sector_bytes = %g, a request rate that never bounds before the byte rate does", rows[i].why_not,
                     pi->base, rows[i].field, v);
        }
        put_model_value(root, sources, prov, rows[i].field, v, how, pi);
    }
}

/*
 * The L2's atomic unit (the memory model's l2_atomic_cycles and l2_atomic_granule_bytes, docs/memory.md
 * "Atomics"), from the atomic sweeps where they show it (probe_analyze_atomic, probe_analyze_atomic_lines): a pass
 * is the adds of one subgroup to one sector, sector_bytes / 4 of them in the one-line mode, so it takes
 * (sector_bytes / 4) / the one-line rate, in cycles of the base preset's clock; the unit serves the lines whose
 * adds do not spread.  Else the base's value with why, or none (both fields are optional).
 */
/* One of the two: measured; else the base's value with why; else (the base has none) the value the loader gives the
 * field's absence, as a model value, so every preset has the same fields whatever the sweeps showed. */
static void put_atomic_field(cJSON *root, cJSON *sources, cJSON *prov, const cJSON *base, const provenance_info *pi,
                             const probe *pr, const char *field, int measured, double value, const char *file,
                             const char *how, const char *why, double absent, const char *absent_means)
{
    if (measured) {
        put_measured(root, sources, prov, field, cJSON_CreateNumber(value), file, how, pi, pr);
        return;
    }
    const cJSON *bv = cJSON_GetObjectItemCaseSensitive(base, field);
    cJSON *kept = cJSON_IsNumber(bv) ? cJSON_GetObjectItemCaseSensitive(prov, field) : NULL; /* make_preset's */
    if (kept) {
        cJSON_AddStringToObject(kept, "why", why);
        return;
    }
    char model[900];
    snprintf(model, sizeof model, "%s, and machines/%s.json has no %s: %g, %s", why, pi->base, field, absent,
             absent_means);
    put_model_value(root, sources, prov, field, absent, model, pi);
}

static void put_atomic(cJSON *root, cJSON *sources, cJSON *prov, const results *r, const cJSON *base,
                       const provenance_info *pi, const probe *pr, double clock)
{
    char how[900], why[400];
    double sector = cJSON_GetObjectItemCaseSensitive(root, "sector_bytes")->valuedouble;
    double per_pass = sector / 4, cycles = r->atomic_measured ? four_digits(per_pass / r->atomic_line_gops *
                                                                            clock / 1000.0) : 0;
    snprintf(how, sizeof how, "atomic adds of a subgroup to the 32 words of one line: %.4g G/s against %.4g G/s "
             "spread over 4096 lines (%.4g with two lanes per word, %.4g to one word), so the line serializes them; "
             "a pass is %.0f adds (a %.0f-byte sector of distinct words): %.0f / %.4g G/s x %.0f MHz (clock_mhz, the "
             "base preset's) = %g cycles",
             r->atomic_line_gops, r->atomic_spread_gops, r->atomic_pairs_gops, r->atomic_word_gops, per_pass, sector,
             per_pass, r->atomic_line_gops, clock, cycles);
    if (!r->s_atomic.n)
        snprintf(why, sizeof why, "no atomic.csv in this run");
    else
        snprintf(why, sizeof why, "atomic adds to one line (%.4g G/s, fastest repetition) are not below %g x the "
                 "same adds spread over 4096 lines (%.4g G/s, slowest): no line serializes them on this device",
                 r->atomic_line_gops, PROBE_SERIAL_LINE, r->atomic_spread_gops);
    put_atomic_field(root, sources, prov, base, pi, pr, "l2_atomic_cycles", r->atomic_measured, cycles,
                     "atomic.csv", how, why, 0, "no atomic term (as the estimate without the field)");
    double granule = r->atomic_unit_bytes, one = r->atomic_one_line_gops, wide = r->atomic_widest_gops,
           lines = r->atomic_widest_lines;
    const cJSON *line = cJSON_GetObjectItemCaseSensitive(root, "cache_line_bytes");
    int granule_ok = r->atomic_measured && granule >= (cJSON_IsNumber(line) ? line->valuedouble : 0);
    snprintf(how, sizeof how, "the one-line adds spread over %.0f consecutive 128-byte lines run %.4g G/s, %.3g x the "
             "one-line %.4g G/s: that many units over %.0f bytes, %.0f bytes each, rounded to a power of two: %.0f",
             lines, wide, one > 0 ? wide / one : 0, one, lines * 128, one > 0 && wide > 0 ? lines * 128 / (wide / one)
             : 0, granule);
    if (!r->s_atomic_lines.n)
        snprintf(why, sizeof why, "no atomic_lines.csv in this run");
    else if (!r->atomic_measured)
        snprintf(why, sizeof why, "no line serializes atomics on this device (atomic.csv)");
    else
        snprintf(why, sizeof why, "spreading the adds over %.0f consecutive lines did not reach %g x the one-line "
                 "rate, or the unit is smaller than the preset's line", lines, PROBE_SPREADS);
    put_atomic_field(root, sources, prov, base, pi, pr, "l2_atomic_granule_bytes", granule_ok, granule,
                     "atomic_lines.csv", how, why, cJSON_IsNumber(line) ? line->valuedouble : 0,
                     "the preset's cache_line_bytes (as without the field)");
}

/* The preset: the base preset's JSON with the measured fields replaced; "provenance" for every number. */
/* The caches' objects (l1, l2) and the coalescer's line and sector: measured where the sweeps show them, else the
 * base's; every preset gets the sectored-cache fields. */
static void put_caches(cJSON *root, cJSON *sources, cJSON *prov, const results *r, const cJSON *base,
                       const provenance_info *pi, const probe *pr)
{
    const cJSON *base_sources = cJSON_GetObjectItemCaseSensitive(base, "sources");
    char how[512];
    /* caches: one line and one sector size for the coalescer, the L1 and the L2 (the loader's rule) */
    const cJSON *bl1 = cJSON_GetObjectItemCaseSensitive(base, "l1");
    const cJSON *bl2 = cJSON_GetObjectItemCaseSensitive(base, "l2");
    uint32_t line = r->line_measured ? r->line_bytes
                                     : (uint32_t)cJSON_GetObjectItemCaseSensitive(base, "cache_line_bytes")->valuedouble;
    uint32_t sector = r->l1_sector_measured
                          ? r->l1_sector
                          : (uint32_t)cJSON_GetObjectItemCaseSensitive(base, "sector_bytes")->valuedouble;
    int sector_clamped = 0;
    if (sector > line || line / sector > 16) {
        sector = sector > line ? line : line / 16;
        sector_clamped = 1;
    }
    if (r->line_measured)
        put_measured(root, sources, prov, "cache_line_bytes", cJSON_CreateNumber(line), "line.csv",
                     "2 x the L1's lines of elements at block b: misses from b = line on", pi, pr);
    if (r->l1_sector_measured)
        put_measured(root, sources, prov, "sector_bytes", cJSON_CreateNumber(sector), "l1_stride.csv",
                     sector_clamped ? "L1 fetch granule (sequential strides missing the L1), clamped to line / 16.."
                                      "line"
                                    : "L1 fetch granule: sequential strides through a footprint that misses the L1",
                     pi, pr);
    else if (sector_clamped) {
        cJSON_ReplaceItemInObjectCaseSensitive(root, "sector_bytes", cJSON_CreateNumber(sector));
        put_kept(prov, "sector_bytes", cJSON_GetObjectItemCaseSensitive(root, "sector_bytes"), base_sources, pi,
                 "clamped to the measured line size");
    }
    for (int level = 1; level <= 2; level++) {
        const cJSON *bc = level == 1 ? bl1 : bl2;
        if (!cJSON_IsObject(bc))
            continue;
        int have = level == 1 ? r->l1_measured : r->l2_measured;
        int ways_measured = level == 1 && r->ways_measured;
        uint32_t ways = ways_measured ? r->l1_ways : (uint32_t)cJSON_GetObjectItemCaseSensitive(bc, "ways")->valuedouble;
        /* one SM's chase sees one partition of an L2 with near copies (its own lines and copies of the far
         * partition's): the whole L2 is partitions x that */
        const cJSON *bparts = cJSON_GetObjectItemCaseSensitive(bc, "partitions");
        double seen_parts = level == 2 && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(bc, "near_copies")) &&
                                    cJSON_IsNumber(bparts) && bparts->valuedouble > 1
                                ? bparts->valuedouble
                                : 1;
        double bytes = have ? (level == 1 ? r->l1_lines : r->l2_lines) * line * seen_parts
                            : cJSON_GetObjectItemCaseSensitive(bc, "bytes")->valuedouble;
        cJSON *c = cJSON_Duplicate(bc, 1);
        /* the sectored-cache fields of the memory model (helper "caches"): always written, so every preset has
         * the same fields; measured where a sweep shows them, else the base preset's or the model's default */
        uint32_t parts = 1;
        if (level == 2) {
            const cJSON *pk = cJSON_GetObjectItemCaseSensitive(bc, "partitions");
            parts = r->l2_step_measured ? 2 : cJSON_IsNumber(pk) ? (uint32_t)pk->valuedouble : 1;
            cJSON_DeleteItemFromObjectCaseSensitive(c, "partitions");
            cJSON_AddNumberToObject(c, "partitions", parts);
            if (!cJSON_GetObjectItemCaseSensitive(c, "near_copies"))
                cJSON_AddBoolToObject(c, "near_copies", 0);
        } else {
            if (r->l1_measured) {
                cJSON_DeleteItemFromObjectCaseSensitive(c, "allocate");
                cJSON_AddStringToObject(c, "allocate", "reads");
            } else if (!cJSON_GetObjectItemCaseSensitive(c, "allocate")) {
                cJSON_AddStringToObject(c, "allocate", "reads");
            }
        }
        cJSON_ReplaceItemInObjectCaseSensitive(c, "bytes",
                                               cJSON_CreateNumber((double)cache_bytes(bytes, ways * parts, line)));
        cJSON_ReplaceItemInObjectCaseSensitive(c, "ways", cJSON_CreateNumber(ways));
        cJSON_ReplaceItemInObjectCaseSensitive(c, "line_bytes", cJSON_CreateNumber(line));
        cJSON_DeleteItemFromObjectCaseSensitive(c, "sector_bytes");
        cJSON_AddNumberToObject(c, "sector_bytes", sector);
        snprintf(how, sizeof how,
                 "bytes: %s (rounded to a multiple of ways x line); ways: %s; line_bytes: %s; sector_bytes: %s; %s; "
                 "other fields: base preset or the model's default",
                 have ? (level == 1 ? "end of the first latency plateau (chase.csv) in lines x line_bytes"
                                    : seen_parts > 1 ? "end of the last latency plateau before DRAM (chase.csv) in "
                                                       "lines x line_bytes x partitions (one SM sees one partition "
                                                       "with near copies)"
                                                     : "end of the last latency plateau before DRAM (chase.csv) in "
                                                       "lines x line_bytes")
                      : "base preset",
                 ways_measured ? "associativity hint (assoc.csv)" : "base preset",
                 r->line_measured ? "line.csv" : "base preset", r->l1_sector_measured ? "l1_stride.csv" : "base preset",
                 level == 1 ? (r->l1_measured ? "allocate: reads (the chase's loads hit a level below the next)"
                                              : "allocate: base preset")
                            : (r->l2_step_measured ? "partitions: 2 (hint: a second latency level inside the L2, "
                                                     "chase.csv)"
                                                   : "partitions: base preset"));
        if (have || ways_measured || r->line_measured || r->l1_sector_measured || sector_clamped ||
            (level == 2 && r->l2_step_measured))
            put_measured(root, sources, prov, level == 1 ? "l1" : "l2", c, "chase.csv", how, pi, pr);
        else { /* unchanged numbers, but the object gains the fields every preset has */
            cJSON_ReplaceItemInObjectCaseSensitive(root, level == 1 ? "l1" : "l2", c);
        }
    }
}

static void put_dram_granule(cJSON *root, cJSON *sources, cJSON *prov, const results *r, const provenance_info *pi,
                             const probe *pr)
{
    char how[512];
    /* DRAM's access granule (the memory model's "dram_fetch_bytes"): the fetch sweep's granule when the loader
     * can take it (a power of two from the preset's sector to its line), else the base's, with the reason */
    if (r->l2_sector_measured) {
        const cJSON *l2 = cJSON_GetObjectItemCaseSensitive(root, "l2");
        const cJSON *sec = cJSON_GetObjectItemCaseSensitive(l2, "sector_bytes");
        const cJSON *ln = cJSON_GetObjectItemCaseSensitive(root, "cache_line_bytes");
        uint32_t g = r->l2_sector, lo = cJSON_IsNumber(sec) ? (uint32_t)sec->valuedouble : 0,
                 hi = cJSON_IsNumber(ln) ? (uint32_t)ln->valuedouble : 0;
        if (g && (g & (g - 1)) == 0 && g >= lo && g <= hi) {
            snprintf(how, sizeof how, "the fetch granule of sequential strides through a footprint that misses the "
                     "last level: %u bytes", g);
            put_measured(root, sources, prov, "dram_fetch_bytes", cJSON_CreateNumber(g), "l2_stride.csv", how, pi,
                         pr);
        } else {
            snprintf(how, sizeof how, "the fetch sweep's %u bytes is not a power of two from the sector (%u) to the "
                     "line (%u) the model takes (measured.l2_fetch_bytes keeps it); the base preset's granule stays",
                     g, lo, hi);
            put_not_measured(prov, "dram_fetch_bytes", cJSON_GetObjectItemCaseSensitive(root, "dram_fetch_bytes"), how);
        }
    }
}

/* The measurements the loader does not read (the preset's "measured" object), each with its provenance. */
static cJSON *measured_extras(cJSON *prov, const results *r, const provenance_info *pi, const probe *pr)
{
    cJSON *extra = cJSON_CreateObject();
    struct {
        const char *name;
        int have;
        double value;
        const char *file, *how;
        const sweep *from; /* a sweep older runs lack: without its file the row says so (NULL: every run has it) */
    } extras[] = {
        {"l1_hit_latency_ns", r->l1_measured, r->l1_ns, "chase.csv", "median of the three smallest footprints", NULL},
        {"l2_hit_latency_ns", r->l2_measured, r->l2_ns, "chase.csv", "latency floor after the L1 plateau", NULL},
        {"dram_latency_ns", r->l2_measured, r->dram_ns, "chase.csv", "median of the three largest footprints", NULL},
        {"lds_read_ns", r->lds_base_ns > 0, r->lds_base_ns, "lds_stride.csv", "stride 1 (conflict free)", NULL},
        {"lds_conflict_ns_per_pass", r->lds_measured, r->lds_pass_ns, "lds_stride.csv",
         "(t(stride = banks) - t(1)) / (wave - 1)", NULL},
        {"dram_gb_per_s", r->bw_measured, r->bytes_per_us / 1000.0, "copy.csv", "streaming copy", NULL},
        {"l2_first_level_lines", r->l2_step_measured, r->l2_step_lines, "chase.csv",
         "end of the first latency level inside the L2 (a near partition), in lines", NULL},
        {"l2_fetch_bytes", r->l2_sector_measured, r->l2_sector, "l2_stride.csv",
         "fetch granule from DRAM: sequential strides through a footprint that misses the last level", NULL},
        {"l2_scattered_g_sectors_per_s", r->l2_scattered_gsps > 0, r->l2_scattered_gsps, "l2_rate.csv",
         "one 32-byte sector of each of 4 scattered lines per 32 invocations (one request per sector)", &r->s_l2_rate},
        {"l2_line_g_sectors_per_s", r->l2_line_gsps > 0, r->l2_line_gsps, "l2_rate.csv",
         "whole 128-byte lines, one per 32 invocations (4 sectors per request)", &r->s_l2_rate},
        {"l2_adjacent_g_sectors_per_s", r->l2_adjacent_gsps > 0, r->l2_adjacent_gsps, "l2_rate.csv",
         "as the scattered loads, but 4 consecutive loads read sectors 0..3 of the same lines", &r->s_l2_rate},
        {"atomic_line_g_ops_per_s", r->atomic_line_gops > 0, r->atomic_line_gops, "atomic.csv",
         "atomic adds of every invocation to the 32 words of one line", &r->s_atomic},
        {"atomic_word_g_ops_per_s", r->atomic_word_gops > 0, r->atomic_word_gops, "atomic.csv",
         "atomic adds of every invocation to one word", &r->s_atomic},
        {"atomic_spread_g_ops_per_s", r->atomic_spread_gops > 0, r->atomic_spread_gops, "atomic.csv",
         "as to one line, but each 32 invocations to their own line of 4096", &r->s_atomic},
        {"atomic_pairs_g_ops_per_s", r->atomic_pairs_gops > 0, r->atomic_pairs_gops, "atomic.csv",
         "as to one line, but two invocations to each of 16 words", &r->s_atomic},
        {"lds_atomic_g_ops_per_s", r->lds_atomic_gops > 0, r->lds_atomic_gops, "atomic.csv",
         "shared-memory atomic adds, 32 invocations to 32 distinct words (one bank each)", &r->s_atomic},
        {"lds_atomic_word_g_ops_per_s", r->lds_atomic_word_gops > 0, r->lds_atomic_word_gops, "atomic.csv",
         "shared-memory atomic adds of a whole workgroup to one word", &r->s_atomic},
        {"lds_rmw_g_ops_per_s", r->lds_rmw_gops > 0, r->lds_rmw_gops, "atomic.csv",
         "shared-memory adds by a load and a store, 32 invocations to 32 distinct words", &r->s_atomic},
    };
    for (size_t i = 0; i < sizeof extras / sizeof extras[0]; i++) {
        if (extras[i].have) {
            put_measured(extra, NULL, prov, extras[i].name, cJSON_CreateNumber(round(extras[i].value * 1000) / 1000),
                         extras[i].file, extras[i].how, pi, pr);
        } else {
            cJSON_AddNullToObject(extra, extras[i].name);
            char why[160] = "the sweep showed no level to read it from on this device";
            if (extras[i].from && !extras[i].from->n)
                snprintf(why, sizeof why, "no %s in this run", extras[i].file);
            put_not_measured(prov, extras[i].name, NULL, why);
        }
    }
    return extra;
}

static cJSON *make_preset(const probe *pr, const results *r, cJSON *base, const char *name, const provenance_info *pi)
{
    cJSON *root = cJSON_Duplicate(base, 1);
    cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
    const cJSON *base_sources = cJSON_GetObjectItemCaseSensitive(base, "sources");
    cJSON *prov = cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(root, "name");
    cJSON_DeleteItemFromObjectCaseSensitive(root, "description");
    cJSON_DeleteItemFromObjectCaseSensitive(root, "provenance");
    cJSON_DeleteItemFromObjectCaseSensitive(root, "measured");
    char desc[1200];
    snprintf(desc, sizeof desc, "%s measured by wavelab probe%s (%s, %s); unmeasured values from machines/%s.json",
             pi->device, pr->quick ? " --quick" : "", pi->driver, pi->date, pi->base);
    cJSON_AddStringToObject(root, "name", name);
    cJSON_AddStringToObject(root, "description", desc);

    /* every numeric field of the base starts as "kept"; measured ones overwrite their entry below */
    const cJSON *item;
    cJSON_ArrayForEach(item, base) {
        if (cJSON_IsNumber(item) || cJSON_IsArray(item) || (cJSON_IsObject(item) && strcmp(item->string, "sources")) ||
            (cJSON_IsString(item) && strcmp(item->string, "name") && strcmp(item->string, "description")))
            put_kept(prov, item->string, item, base_sources, pi, NULL);
    }
    /* the image layout of the memory model's texel addressing: nothing here measures it; the base's, else the
     * model's plain row-major layout, so every preset has the field */
    if (!cJSON_GetObjectItemCaseSensitive(root, "image_layout")) {
        cJSON_AddStringToObject(root, "image_layout", "linear");
        if (!cJSON_GetObjectItemCaseSensitive(sources, "image_layout"))
            cJSON_AddStringToObject(sources, "image_layout",
                                    "not in the base preset: linear (row-major texels), model value");
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "value", "linear");
        cJSON_AddStringToObject(p, "source", "model value");
        cJSON_AddStringToObject(p, "citation", "not in the base preset: linear (row-major texels)");
        cJSON_AddItemToObject(prov, "image_layout", p);
    }
    double clock = 1000;
    const cJSON *clk = cJSON_GetObjectItemCaseSensitive(base, "clock_mhz");
    if (cJSON_IsNumber(clk) && clk->valuedouble > 0)
        clock = clk->valuedouble;
    char how[512];

    if (r->waves_measured) {
        cJSON *ws = cJSON_CreateArray();
        for (uint32_t i = 0; i < r->wave_count; i++)
            cJSON_AddItemToArray(ws, cJSON_CreateNumber(r->wave_sizes[i]));
        put_measured(root, sources, prov, "wave_sizes", ws, "subgroup.csv",
                     "a ballot counts the invocations of each subgroup at every size the device lists", pi, pr);
        uint32_t dw = r->default_wave;
        int listed = 0;
        for (uint32_t i = 0; i < r->wave_count; i++)
            listed |= r->wave_sizes[i] == dw;
        if (!listed)
            dw = r->wave_sizes[0];
        put_measured(root, sources, prov, "default_wave", cJSON_CreateNumber(dw), "subgroup.csv",
                     "the subgroup size the device runs without a required size", pi, pr);
    }
    if (r->compute_units) {
        snprintf(how, sizeof how, "reported by the device extension %s", r->cu_extension);
        put_measured(root, sources, prov, "compute_units", cJSON_CreateNumber(r->compute_units), NULL, how, pi, pr);
    }
    if (r->lds_measured) {
        put_measured(root, sources, prov, "lds_banks", cJSON_CreateNumber(r->lds_banks), "lds_stride.csv",
                     "smallest power-of-two stride (4-byte words) from which the time per read stops growing", pi, pr);
        put_measured(root, sources, prov, "lds_bank_bytes", cJSON_CreateNumber(4), "lds_stride.csv",
                     "the sweep strides 4-byte words; a stride-1 read is conflict free", pi, pr);
    }

    put_caches(root, sources, prov, r, base, pi, pr);
    put_latencies(root, sources, prov, r, base, pi, pr, clock);
    if (r->bw_measured) {
        snprintf(how, sizeof how, "streaming copy, (read + written bytes) / time = %.1f GB/s, / %.0f MHz (clock_mhz)",
                 r->bytes_per_us / 1000.0, clock);
        put_measured(root, sources, prov, "dram_bytes_per_cycle",
                     cJSON_CreateNumber(fmax(0.001, round(r->bytes_per_us / clock * 1000) / 1000)), "copy.csv", how,
                     pi, pr);
    }
    put_l2_rates(root, sources, prov, r, base, pi, pr, clock);
    /* the fixed cost of a dispatch (the memory model's "dispatch_us", an optional field): always measured on a
     * device and saved as dispatch.csv (--from-sweeps without that file keeps the base preset's) */
    if (r->dispatch_us > 0)
        put_measured(root, sources, prov, "dispatch_us", cJSON_CreateNumber(round(r->dispatch_us * 1000) / 1000),
                 "dispatch.csv",
                 "median time of the one-invocation, zero-load dispatches of the chase's first point (GPU timestamps "
                 "around the dispatch)",
                 pi, pr);
    put_dram_granule(root, sources, prov, r, pi, pr);
    put_atomic(root, sources, prov, r, base, pi, pr, clock);
    cJSON *extra = measured_extras(prov, r, pi, pr);
    cJSON_AddItemToObject(root, "measured", extra);
    cJSON_AddItemToObject(root, "provenance", prov);
    return root;
}


static const char *default_base(const vkb_device_info *info);
static int write_preset(const probe *pr, const results *r, const mem_machine *bm, cJSON *base, const char *name,
                        const char *output, const char *sweeps);
/* Reads a sweep file written by --sweeps into s (0 when there is none); the device and driver from its
 * comment line "# FILE on DEVICE (DRIVER)", the date from "# measured YYYY-MM-DD" (files written before
 * 2026-11-25 have none). */
static int load_sweep(const char *dir, sweep *s, char *device, size_t device_size, char *driver, size_t driver_size,
                      char date[16])
{
    char path[800], line[1024];
    snprintf(path, sizeof path, "%s/%s", dir, s->file);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    for (int line_number = 1; fgets(line, sizeof line, f); line_number++) {
        double x, y, lo, hi;
        char day[16];
        if (sscanf(line, "# measured %15[0-9-]", day) == 1 && strlen(day) == 10) {
            snprintf(date, 16, "%s", day);
        } else if (line[0] == '#') {
            line[strcspn(line, "\n")] = 0;
            /* the driver is the last parenthesised group, which may hold parentheses itself */
            char *on = strstr(line, " on "), *close = strrchr(line, ')'), *paren = NULL;
            int depth = 0;
            for (char *c = close; c && c > line; c--) {
                depth += *c == ')' ? 1 : *c == '(' ? -1 : 0;
                if (depth == 0) {
                    paren = c;
                    break;
                }
            }
            if (on && paren && close && paren > on + 4 && close > paren) {
                *close = 0;
                snprintf(driver, driver_size, "%s", paren + 1);
                paren[-1] = 0; /* the space before '(' */
                snprintf(device, device_size, "%s", on + 4);
            }
        } else if (sscanf(line, "%lf,%lf,%lf,%lf", &x, &y, &lo, &hi) == 4) {
            /* the analyses take x as a whole size, stride, wave size or count (and divide by some) */
            if (!(x >= s->x_min && x <= UINT32_MAX && x == floor(x)) || !isfinite(y) || !isfinite(lo) ||
                !isfinite(hi)) {
                fprintf(stderr, "wavelab probe: %s: line %d: %s must be a whole number from %.0f to %u and the times "
                                "finite numbers\n", path, line_number, s->x_name ? s->x_name : "x", s->x_min, UINT32_MAX);
                fclose(f);
                return -1;
            }
            probe_add_point(s, x, y, lo, hi);
        }
    }
    fclose(f);
    return s->n > 0;
}

/* Every sweep a run writes and --from-sweeps reads, in file order: the subgroup sweep, then results' own. */
enum { SWEEPS = 13 };
static void sweep_files(results *r, sweep *subgroups, sweep *all[SWEEPS])
{
    sweep *list[SWEEPS] = {subgroups,       &r->s_lds,    &r->s_chase, &r->s_line,     &r->s_l1_stride,
                           &r->s_l2_stride, &r->s_assoc, &r->s_copy,  &r->s_dispatch, &r->s_l2_rate,
                           &r->s_l2_footprint, &r->s_atomic, &r->s_atomic_lines};
    memcpy(all, list, sizeof list);
}

/* --from-sweeps DIR: the preset from sweep files saved earlier (by --sweeps, on any machine), analysed as a
 * device run analyses them.  What the files do not hold (the compute-unit count an extension reported; the
 * empty dispatch's time when there is no dispatch.csv, which runs before it did not write) stays the base
 * preset's. */
static int probe_from_sweeps(const char *dir, const char *base_name, const char *name, const char *output)
{
    static probe pr;
    memset(&pr, 0, sizeof pr);
    results *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "wavelab probe: out of memory\n");
        return RUN_EXIT_FAIL;
    }
    probe_init_sweeps(r);
    sweep s_sub = {.file = "subgroup.csv", .x_min = 1, .x_name = "wave_size"};
    sweep *all[SWEEPS];
    sweep_files(r, &s_sub, all);
    int found = 0;
    for (size_t i = 0; i < SWEEPS; i++) {
        int loaded = load_sweep(dir, all[i], pr.info.name, sizeof pr.info.name, pr.info.driver_info,
                                sizeof pr.info.driver_info, pr.sweep_date);
        if (loaded < 0) {
            free(r);
            return RUN_EXIT_BAD_INPUT;
        }
        found += loaded;
    }
    if (!r->s_chase.n || !pr.info.name[0]) {
        fprintf(stderr, "wavelab probe: --from-sweeps: no chase.csv with its '# ... on DEVICE (DRIVER)' line in %s\n",
                dir);
        free(r);
        return RUN_EXIT_BAD_INPUT;
    }
    pr.cpu = strstr(pr.info.name, "llvmpipe") != NULL;
    snprintf(pr.info.type, sizeof pr.info.type, "%s", pr.cpu ? "cpu" : "other");
    pr.info.vendor_id = strstr(pr.info.name, "NVIDIA") ? 0x10de : strstr(pr.info.name, "AMD") ? 0x1002 : 0;
    for (int i = 0; i < s_sub.n && r->wave_count < 8; i++)
        r->wave_sizes[r->wave_count++] = (uint32_t)s_sub.x[i];
    r->waves_measured = r->wave_count > 0;
    r->default_wave = r->wave_count ? r->wave_sizes[0] : 0;
    pr.info.subgroup_size = r->default_wave;
    if (r->s_lds.n)
        probe_analyze_lds(&r->s_lds, r->default_wave ? r->default_wave : 1, r);
    probe_analyze_chase(&r->s_chase, pr.cpu, r);
    probe_analyze_line(&r->s_line, r);
    probe_analyze_stride(&r->s_l1_stride, &r->l1_sector_measured, &r->l1_sector);
    probe_analyze_stride(&r->s_l2_stride, &r->l2_sector_measured, &r->l2_sector);
    probe_analyze_assoc(&r->s_assoc, r);
    if (r->s_dispatch.n)
        r->dispatch_us = r->s_dispatch.y[0];
    if (r->s_copy.n) {
        double rate[MAX_POINTS];
        for (int i = 0; i < r->s_copy.n; i++)
            rate[i] = r->s_copy.y[i] * 1000.0; /* GB/s -> bytes per microsecond */
        r->bytes_per_us = probe_median(rate, r->s_copy.n);
        r->bw_measured = r->bytes_per_us > 0;
    }
    probe_analyze_l2_rate(&r->s_l2_rate, r); /* after the copy: its rules compare with the DRAM rate */
    probe_analyze_atomic(&r->s_atomic, r);
    probe_analyze_atomic_lines(&r->s_atomic_lines, r);
    if (!base_name)
        base_name = default_base(&pr.info);
    mem_machine bm;
    char err[1024];
    int rc = RUN_EXIT_BAD_INPUT;
    cJSON *base = NULL;
    if (mem_machine_load(base_name, &bm, err, sizeof err) != MEM_OK) {
        fprintf(stderr, "wavelab probe: --base: %s\n", err);
    } else {
        char *base_text = text_read_file(bm.path, MEM_PRESET_MAX_BYTES, NULL, NULL, 0);
        base = base_text ? cJSON_Parse(base_text) : NULL;
        free(base_text);
        if (!base)
            fprintf(stderr, "wavelab probe: cannot read %s\n", bm.path);
        else
            rc = write_preset(&pr, r, &bm, base, name, output, dir);
    }
    cJSON_Delete(base);
    free(r);
    (void)found;
    return rc;
}

/* Builds the preset from the results, checks that it loads, writes it and prints the findings.  Returns the exit
 * code. */
static int write_preset(const probe *pr, const results *r, const mem_machine *bm, cJSON *base, const char *name,
                        const char *output, const char *sweeps)
{
    provenance_info pi;
    snprintf(pi.device, sizeof pi.device, "%s", pr->info.name);
    snprintf(pi.driver, sizeof pi.driver, "%s%s%s", pr->info.driver_name, pr->info.driver_name[0] ? " " : "",
             pr->info.driver_info);
    /* rebuilt from sweeps that do not record their day: say so */
    snprintf(pi.date, sizeof pi.date, "%s", pr->sweep_date[0] ? pr->sweep_date : "undated");
    snprintf(pi.base, sizeof pi.base, "%s", bm->name);
    snprintf(pi.sweeps, sizeof pi.sweeps, "%s", sweeps);
    char default_name[64];
    snprintf(default_name, sizeof default_name, "%.50s_measured", bm->name);
    cJSON *preset = make_preset(pr, r, base, name ? name : default_name, &pi);
    char *text = preset ? cJSON_Print(preset) : NULL;
    cJSON_Delete(preset);
    /* the preset must load: a probe that wrote one --machine refuses is a bug here, not bad input */
    mem_machine check;
    char err[1024];
    if (!text || mem_machine_parse(text, output, &check, err, sizeof err) != MEM_OK) {
        fprintf(stderr, "wavelab probe: the preset does not load: %s\n", text ? err : "out of memory");
        free(text);
        return RUN_EXIT_FAIL;
    }
    FILE *f = fopen(output, "w");
    if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "wavelab probe: cannot write %s: %s\n", output, strerror(errno));
        free(text);
        return RUN_EXIT_BAD_INPUT;
    }
    free(text);
    printf("wavelab probe: %s (%s)\n", pi.device, pi.driver);
    printf("  wave sizes      %s", r->waves_measured ? "" : "not measured");
    for (uint32_t i = 0; i < r->wave_count; i++)
        printf("%u ", r->wave_sizes[i]);
    printf("\n  compute units   %u%s%s\n", r->compute_units ? r->compute_units : bm->compute_units,
           r->compute_units ? " from " : " (base preset)", r->compute_units ? r->cu_extension : "");
    if (r->lds_measured)
        printf("  LDS             %u banks, %.2f ns per extra pass (read %.2f ns)\n", r->lds_banks, r->lds_pass_ns,
               r->lds_base_ns);
    else
        printf("  LDS             no bank structure seen (read %.2f ns)\n", r->lds_base_ns);
    if (r->l1_measured)
        printf("  L1              %.0f lines, %.2f ns\n", r->l1_lines, r->l1_ns);
    if (r->line_measured)
        printf("  line            %u bytes\n", r->line_bytes);
    if (r->l1_sector_measured)
        printf("  L1 fetch        %u bytes\n", r->l1_sector);
    if (r->ways_measured)
        printf("  L1 ways (hint)  %u\n", r->l1_ways);
    if (r->l2_measured)
        printf("  last level      %.0f lines, %.2f ns; DRAM %.2f ns\n", r->l2_lines, r->l2_ns, r->dram_ns);
    if (r->l2_sector_measured)
        printf("  DRAM fetch      %u bytes\n", r->l2_sector);
    if (r->bw_measured)
        printf("  copy            %.1f GB/s\n", r->bytes_per_us / 1000.0);
    if (r->s_l2_rate.n)
        printf("  L2 rate         %.2f G sectors/s scattered, %.2f whole lines, %.2f adjacent; %s\n",
               r->l2_scattered_gsps, r->l2_line_gsps, r->l2_adjacent_gsps,
               r->l1_merge_measured      ? "request bound, merge measured"
               : r->l2_requests_measured ? "request bound"
               : r->l2_bytes_measured    ? "not request bound"
                                         : "not above the DRAM rate");
    if (r->s_atomic.n)
        printf("  atomics         %.3g G/s on one line, %.3g on one word, %.3g spread; %s; shared memory %.3g G/s "
               "to distinct words, %.3g to one, %.3g without atomics\n", r->atomic_line_gops, r->atomic_word_gops,
               r->atomic_spread_gops, r->atomic_measured ? "a line serializes them" : "no line serializes them",
               r->lds_atomic_gops, r->lds_atomic_word_gops, r->lds_rmw_gops);
    if (r->atomic_measured && r->atomic_unit_bytes > 0)
        printf("  atomic unit     %.0f bytes\n", r->atomic_unit_bytes);
    printf("  preset          %s\n", output);
    return RUN_EXIT_OK;
}

/* ------------------------------------------------------------- the command */

static const char *default_base(const vkb_device_info *info)
{
    if (!strcmp(info->type, "cpu"))
        return "lavapipe";
    if (info->vendor_id == 0x10de)
        return "hopper_h100";
    if (info->vendor_id == 0x1002)
        return "rdna2";
    return "lavapipe";
}

static int find_kernel_dir(char *out, size_t size)
{
    char dir[400];
    struct stat st;
    if (mem_machine_dir(dir, sizeof dir)) {
        snprintf(out, size, "%s/../probe", dir);
        char test[600];
        snprintf(test, sizeof test, "%s/chase.comp", out);
        if (stat(test, &st) == 0)
            return 1;
    }
    snprintf(out, size, "probe");
    return stat("probe/chase.comp", &st) == 0;
}

int cli_cmd_probe(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_probe, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    const char *device = o.device, *output = o.output, *base_name = o.base, *name = o.name, *sweep_dir = o.sweeps;
    const char *from = o.from_sweeps;
    int quick = o.quick;
    if (!output) {
        fprintf(stderr, "wavelab probe: -o PRESET.json is required (wavelab probe --help)\n");
        return RUN_EXIT_BAD_INPUT;
    }
    if (name && (!name[0] || strlen(name) >= 64)) {
        fprintf(stderr, "wavelab probe: --name: \"%s\" must be 1..63 characters\n", name);
        return RUN_EXIT_BAD_INPUT;
    }
    static probe pr;
    memset(&pr, 0, sizeof pr);
    if (!find_kernel_dir(pr.kernel_dir, sizeof pr.kernel_dir)) {
        fprintf(stderr, "wavelab probe: the probe kernels (probe/chase.comp ...) were not found beside the presets\n");
        return RUN_EXIT_BAD_INPUT;
    }
    const char *dirs[2] = {sweep_dir, from}, *dir_option[2] = {"--sweeps", "--from-sweeps"};
    for (int d = 0; d < 2; d++) {
        struct stat st;
        if (dirs[d] && (stat(dirs[d], &st) != 0 || !S_ISDIR(st.st_mode))) {
            fprintf(stderr, "wavelab probe: %s: \"%s\" is not a directory\n", dir_option[d], dirs[d]);
            return RUN_EXIT_BAD_INPUT;
        }
    }
    if (from && (sweep_dir || device || quick)) {
        fprintf(stderr, "wavelab probe: --from-sweeps reads saved sweeps: no --sweeps, --device or --quick\n");
        return RUN_EXIT_BAD_INPUT;
    }
    if (from)
        return probe_from_sweeps(from, base_name, name, output);

    vkb_context *ctx = NULL;
    int index = 0;
    vkb_status st = vkb_context_create(&ctx, pr.err, sizeof pr.err);
    if (st == VKB_OK)
        st = vkb_device_find(ctx, device, &index, pr.err, sizeof pr.err);
    if (st == VKB_OK && !vkb_device_count(ctx)) {
        snprintf(pr.err, sizeof pr.err, "no Vulkan device");
        st = VKB_ERR_NO_DEVICE;
    }
    if (st != VKB_OK) {
        fprintf(stderr, "wavelab probe: %s\n", pr.err);
        vkb_context_destroy(ctx);
        return st == VKB_ERR_NO_LOADER || st == VKB_ERR_NO_DEVICE ? EXIT_NO_DEVICE : RUN_EXIT_FAIL;
    }
    vkb_device_info_get(ctx, index, &pr.info);
    if (!base_name)
        base_name = default_base(&pr.info);
    mem_machine bm;
    char err[1024];
    if (mem_machine_load(base_name, &bm, err, sizeof err) != MEM_OK) {
        fprintf(stderr, "wavelab probe: --base: %s\n", err);
        vkb_context_destroy(ctx);
        return RUN_EXIT_BAD_INPUT;
    }
    char *base_text = text_read_file(bm.path, MEM_PRESET_MAX_BYTES, NULL, NULL, 0);
    cJSON *base = base_text ? cJSON_Parse(base_text) : NULL;
    free(base_text);
    if (!base) {
        fprintf(stderr, "wavelab probe: cannot read %s\n", bm.path);
        vkb_context_destroy(ctx);
        return RUN_EXIT_BAD_INPUT;
    }

    pr.quick = quick;
    pr.cpu = !strcmp(pr.info.type, "cpu");
    pr.sweep_dir = sweep_dir;
    pr.reps = quick ? 3 : 7;
    pr.timed_loads = pr.cpu ? (quick ? 1u << 15 : 1u << 17) : (quick ? 2048 : 8192);
    pr.rng = 0x5eedu;
    results *r = calloc(1, sizeof *r);
    int rc = RUN_EXIT_OK;
    if (!r || (st = vkb_probe_create(ctx, index, &pr.p, pr.err, sizeof pr.err)) != VKB_OK) {
        fprintf(stderr, "wavelab probe: %s\n", r ? pr.err : "out of memory");
        rc = st == VKB_ERR_UNSUPPORTED ? EXIT_NO_DEVICE : RUN_EXIT_FAIL;
        goto done;
    }
    r->compute_units = vkb_probe_compute_units(pr.p, &r->cu_extension);
    probe_init_sweeps(r);
    time_t now = time(NULL); /* the day of the measurement, in every sweep file and the provenance */
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(pr.sweep_date, sizeof pr.sweep_date, "%Y-%m-%d", &tm);

    /* bandwidth first: the long streaming copy also brings the clock up */
    struct {
        const char *what;
        int ok;
    } steps[10];
    int nsteps = 0;
#define STEP(name_, call_) (steps[nsteps].what = (name_), steps[nsteps++].ok = (call_))
    STEP("copy", probe_sweep_copy(&pr, r));
    if (steps[nsteps - 1].ok)
        STEP("subgroup", probe_sweep_subgroups(&pr, r));
    if (steps[nsteps - 1].ok)
        STEP("lds", probe_sweep_lds(&pr, r));
    if (steps[nsteps - 1].ok)
        STEP("chase", probe_sweep_chase(&pr, r));
    if (steps[nsteps - 1].ok)
        STEP("line", probe_sweep_line(&pr, r));
    uint32_t line = r->line_measured ? r->line_bytes : (bm.l1.bytes ? bm.l1.line_bytes : bm.l2.line_bytes);
    if (steps[nsteps - 1].ok && r->l1_measured) {
        /* misses the L1, hits the next level: 4 x the L1, at most a quarter of the last level */
        double f = 4 * r->l1_lines * line;
        if (r->l2_measured && f > r->l2_lines * line / 4)
            f = r->l2_lines * line / 4;
        STEP("l1 stride", probe_sweep_stride(&pr, &r->s_l1_stride, (size_t)f, &r->l1_sector_measured, &r->l1_sector));
    }
    if (steps[nsteps - 1].ok && r->l2_measured && !quick)
        STEP("l2 stride", probe_sweep_stride(&pr, &r->s_l2_stride, (size_t)(4 * r->l2_lines * bm.l2.line_bytes),
                                       &r->l2_sector_measured, &r->l2_sector));
    if (steps[nsteps - 1].ok)
        STEP("assoc", probe_sweep_assoc(&pr, r, line));
    if (steps[nsteps - 1].ok)
        STEP("l2 rate", probe_sweep_l2_rate(&pr, r));
    if (steps[nsteps - 1].ok)
        STEP("atomic", probe_sweep_atomic(&pr, r));
#undef STEP
    if (!steps[nsteps - 1].ok) {
        fprintf(stderr, "wavelab probe: %s sweep: %s\n", steps[nsteps - 1].what, pr.err);
        rc = RUN_EXIT_FAIL;
        goto done;
    }

    /* the subgroup sweep as a data file too */
    sweep s_sub = {.file = "subgroup.csv", .x_min = 1, .x_name = "wave_size", .y_name = "invocations_per_ballot"};
    for (uint32_t i = 0; i < r->wave_count; i++)
        probe_add_point(&s_sub, r->wave_sizes[i], r->wave_sizes[i], r->wave_sizes[i], r->wave_sizes[i]);
    sweep *all[SWEEPS];
    sweep_files(r, &s_sub, all);
    for (size_t i = 0; i < SWEEPS; i++)
        if (!write_sweep(&pr, all[i])) {
            rc = RUN_EXIT_BAD_INPUT;
            goto done;
        }

    rc = write_preset(&pr, r, &bm, base, name, output, sweep_dir ? sweep_dir : "docs/probe");
done:
    vkb_probe_destroy(pr.p);
    vkb_context_destroy(ctx);
    cJSON_Delete(base);
    free(r);
    return rc;
}
