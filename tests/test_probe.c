/*
 * tests/test_probe.c — `wavelab probe`: the preset it writes from
 * microbenchmarks on a Vulkan device (lavapipe here).
 *
 * Timings on a CPU device shared with other work vary from run to run, so
 * the values are not compared; what must hold every time: the same field
 * set (listed here from docs/memory.md's preset table, not from the
 * program), a preset the loader accepts and `run --machine` uses, every
 * number with a provenance entry of one of the three kinds, measured entries
 * naming the device as the driver lists it, the wave size the device reports
 * among the measured ones, the latency fields = their measured nanoseconds x clock (or a model value that says
 * why), and the sweeps written as CSV files.  The H100 runs' saved sweeps are read back with --from-sweeps and
 * their knees and latencies checked against values read off the CSV by hand; synthetic sweeps written here,
 * with known plateaus, give the latency fields' cycles (computed by hand) or, showing no level, model values.
 * The quick probe is the "device" TCase (test_probe_device in CTest), skipped as a whole without a device;
 * with a device but no lavapipe (it runs `probe --device llvmpipe`) it prints why and checks nothing.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "backend/backend.h"
#include "sim/machine.h"
#include "tests/support/tsup.h"

static int device_info(vkb_device_info *info, char *why, size_t size)
{
    vkb_context *ctx = NULL;
    int index = -1;
    char err[1024];
    if (vkb_context_create(&ctx, err, sizeof err) != VKB_OK) {
        snprintf(why, size, "%s", err);
        return 0;
    }
    int ok = vkb_device_find(ctx, "llvmpipe", &index, err, sizeof err) == VKB_OK &&
             vkb_device_info_get(ctx, index, info) == VKB_OK;
    if (!ok)
        snprintf(why, size, "no lavapipe device");
    vkb_context_destroy(ctx);
    return ok;
}

static cJSON *parse_path(const char *path)
{
    char *s = tsup_read_file(path, NULL);
    cJSON *j = cJSON_Parse(s);
    free(s);
    ck_assert_msg(j != NULL, "%s is not JSON", path);
    return j;
}

/* The keys of an object, sorted, comma separated. */
static void keys_of(const cJSON *o, char *out, size_t size)
{
    const char *names[128];
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, o) if (n < 128) names[n++] = e->string;
    for (int i = 1; i < n; i++) /* insertion sort: a handful of keys */
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        strncat(out, names[i], size - strlen(out) - 1);
        strncat(out, ",", size - strlen(out) - 1);
    }
}

/* The preset fields of docs/memory.md's table (with the memory model's optional dispatch_us, the texel model's
 * image_layout, the latency term's l1_hit_latency and lds_latency and the atomic term's two fields), and the
 * probe's own two objects, sorted. */
static const char expected_top[] =
    "cache_line_bytes,clock_mhz,compute_units,default_wave,description,dispatch_us,dram_bytes_per_cycle,dram_latency,"
    "image_layout,l1,l1_hit_latency,l1_miss_merge,l2,l2_atomic_cycles,l2_atomic_granule_bytes,l2_bytes_per_cycle,"
    "l2_hit_latency,l2_requests_per_cycle,"
    "lds_bank_bytes,lds_banks,lds_bytes_per_cu,"
    "lds_lanes_per_cycle,lds_latency,max_sgprs_per_wave,max_vgprs_per_wave,max_waves_per_simd,max_workgroups_per_cu,measured,name,provenance,"
    "sector_bytes,sgpr_granule,sgprs_per_simd,simd_lanes,simds_per_cu,sources,vgpr_granule,vgprs_per_simd_lane,"
    "wave_sizes,";
static const char expected_measured[] = "atomic_line_g_ops_per_s,atomic_pairs_g_ops_per_s,atomic_spread_g_ops_per_s,"
                                        "atomic_word_g_ops_per_s,dram_gb_per_s,dram_latency_ns,l1_hit_latency_ns,"
                                        "l2_adjacent_g_sectors_per_s,l2_fetch_bytes,l2_first_level_lines,"
                                        "l2_hit_latency_ns,l2_line_g_sectors_per_s,l2_scattered_g_sectors_per_s,"
                                        "lds_atomic_g_ops_per_s,lds_atomic_word_g_ops_per_s,lds_conflict_ns_per_pass,"
                                        "lds_read_ns,lds_rmw_g_ops_per_s,";
/* the caches' sectored-model fields (l1.allocate, l2.partitions, l2.near_copies) are written every time too */
static const char expected_l1[] = "allocate,bytes,line_bytes,policy,sector_bytes,set_hash,ways,";
static const char expected_l2[] = "bytes,line_bytes,near_copies,partitions,policy,sector_bytes,set_hash,ways,";

/* The latency term's four fields and the nanoseconds in "measured" each is made of (docs/probe.md). */
static const struct {
    const char *field, *ns;
} latency_fields[] = {
    {"l1_hit_latency", "l1_hit_latency_ns"},
    {"l2_hit_latency", "l2_hit_latency_ns"},
    {"dram_latency", "dram_latency_ns"},
    {"lds_latency", "lds_read_ns"},
};

/* Each latency field: measured = its nanoseconds x clock_mhz, rounded (the nanoseconds are kept to 0.001 ns, so
 * within 0.5 cycle + that); a model value says why. */
static void check_latencies(const cJSON *j)
{
    const cJSON *prov = cJSON_GetObjectItem(j, "provenance"), *ns = cJSON_GetObjectItem(j, "measured");
    double mhz = cJSON_GetObjectItem(j, "clock_mhz")->valuedouble;
    for (size_t i = 0; i < sizeof latency_fields / sizeof latency_fields[0]; i++) {
        const cJSON *v = cJSON_GetObjectItem(j, latency_fields[i].field);
        const cJSON *p = cJSON_GetObjectItem(prov, latency_fields[i].field);
        ck_assert_msg(cJSON_IsNumber(v), "%s missing", latency_fields[i].field);
        const char *src = cJSON_GetStringValue(cJSON_GetObjectItem(p, "source"));
        ck_assert_ptr_nonnull(src);
        if (!strcmp(src, "measured")) {
            const cJSON *n = cJSON_GetObjectItem(ns, latency_fields[i].ns);
            ck_assert_msg(cJSON_IsNumber(n), "%s measured without measured.%s", latency_fields[i].field,
                          latency_fields[i].ns);
            double want = n->valuedouble * mhz / 1000;
            ck_assert_msg(fabs(v->valuedouble - want) <= 0.5 + 0.001 * mhz / 1000 + 1e-9 ||
                              (want < 1 && v->valuedouble == 1),
                          "%s = %g, %s = %g ns at %g MHz", latency_fields[i].field, v->valuedouble,
                          latency_fields[i].ns, n->valuedouble, mhz);
        } else {
            ck_assert_str_eq(src, "model value");
            const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(p, "why"));
            ck_assert_msg(why && why[0], "%s: a model value without why", latency_fields[i].field);
        }
    }
}

static void check_preset(const char *path, const vkb_device_info *info, char *shape, size_t shape_size)
{
    cJSON *j = parse_path(path);
    char keys[4096];
    keys_of(j, keys, sizeof keys);
    ck_assert_str_eq(keys, expected_top);
    keys_of(cJSON_GetObjectItem(j, "measured"), keys, sizeof keys);
    ck_assert_str_eq(keys, expected_measured);
    keys_of(cJSON_GetObjectItem(j, "l1"), keys, sizeof keys);
    ck_assert_str_eq(keys, expected_l1);
    keys_of(cJSON_GetObjectItem(j, "l2"), keys, sizeof keys);
    ck_assert_str_eq(keys, expected_l2);

    /* every number (top level, and the measured extras) has a provenance of one of the kinds */
    const cJSON *prov = cJSON_GetObjectItem(j, "provenance");
    const cJSON *e;
    int measured = 0;
    cJSON_ArrayForEach(e, j) {
        if (!cJSON_IsNumber(e) && !cJSON_IsArray(e) && strcmp(e->string, "l1") && strcmp(e->string, "l2"))
            continue;
        const cJSON *p = cJSON_GetObjectItem(prov, e->string);
        ck_assert_msg(cJSON_IsObject(p), "no provenance for %s", e->string);
        const char *src = cJSON_GetStringValue(cJSON_GetObjectItem(p, "source"));
        ck_assert_msg(src && (!strcmp(src, "measured") || !strcmp(src, "vendor document") ||
                              !strcmp(src, "model value")),
                      "%s: source %s", e->string, src ? src : "(none)");
        if (!strcmp(src, "measured") && cJSON_GetObjectItem(p, "from_preset")) {
            /* measured by the base preset's author: its citation comes along */
            ck_assert_ptr_nonnull(cJSON_GetStringValue(cJSON_GetObjectItem(p, "citation")));
        } else if (!strcmp(src, "measured")) {
            measured++;
            ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "device")), info->name);
            ck_assert_ptr_nonnull(cJSON_GetStringValue(cJSON_GetObjectItem(p, "sweep")));
            ck_assert_ptr_nonnull(cJSON_GetStringValue(cJSON_GetObjectItem(p, "date")));
        }
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(j, "measured")) ck_assert_ptr_nonnull(cJSON_GetObjectItem(prov, e->string));
    /* the ballot sweep runs on every device: wave sizes are always measured, and include the default size the
     * driver reports */
    ck_assert_int_ge(measured, 2);
    int found = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(j, "wave_sizes")) found |= (uint32_t)e->valuedouble == info->subgroup_size;
    ck_assert_msg(found, "wave_sizes lacks the device's subgroup size %u", info->subgroup_size);
    keys_of(prov, shape, shape_size);
    check_latencies(j);
    cJSON_Delete(j);

    mem_machine m;
    char err[1024];
    ck_assert_msg(mem_machine_load(path, &m, err, sizeof err) == MEM_OK, "%s", err);
    ck_assert_uint_eq(m.default_wave, info->subgroup_size);
}

START_TEST(test_probe_quick_lavapipe_same_fields_loads)
{
    vkb_device_info info;
    char why[1024];
    if (!device_info(&info, why, sizeof why)) {
        printf("%s: skipped: %s\n", __func__, why);
        return;
    }
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char args[4096], *out = NULL, path[2][1200], shape[2][4096];
    for (int run = 0; run < 2; run++) {
        snprintf(path[run], sizeof path[run], "%s/p%d.json", dir, run);
        snprintf(args, sizeof args, "probe --quick --device llvmpipe --sweeps '%s' -o '%s'", dir, path[run]);
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == 0, "probe exited %d: %s", rc, out ? out : "");
        free(out);
        check_preset(path[run], &info, shape[run], sizeof shape[run]);
    }
    ck_assert_str_eq(shape[0], shape[1]);
    /* the sweeps as data files: header, then rows */
    static const char *const sweeps[] = {"subgroup.csv", "lds_stride.csv", "chase.csv", "copy.csv", "l2_rate.csv"};
    for (size_t i = 0; i < sizeof sweeps / sizeof sweeps[0]; i++) {
        char p[1400], line[256];
        snprintf(p, sizeof p, "%s/%s", dir, sweeps[i]);
        FILE *f = fopen(p, "r");
        ck_assert_msg(f != NULL, "no %s", sweeps[i]);
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* # FILE on DEVICE (DRIVER) */
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* # measured YYYY-MM-DD: today, as gmtime says */
        char today[16], want[64];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(today, sizeof today, "%Y-%m-%d", &tm);
        snprintf(want, sizeof want, "# measured %s\n", today);
        ck_assert_str_eq(line, want);
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        ck_assert_msg(strstr(line, ",min,max") != NULL, "%s header: %s", sweeps[i], line);
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        fclose(f);
    }
    /* usable with --machine: article 004's small case runs and passes its expectations on it */
    snprintf(args, sizeof args, "run '%s/kernels/004_swizzle/swizzle_row_major_168x24.json' --machine '%s'",
             tsup_root(), path[0]);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "run --machine exited %d: %s", rc, out);
    ck_assert_msg(strstr(out, "lavapipe_measured") != NULL, "%s", out);
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* The H100 run's saved sweeps (docs/probe/h100), read back without a device.  The knees, read off
 * docs/probe/h100/chase.csv by hand: latency 45 ns at 1024 lines, 76 ns at 1536 (the L1 ends at 1024 lines);
 * the L2 plateau at 151 ns from 3072 lines, DRAM about 359 ns, 208 ns at 196608 lines and 269 ns at 262144 (the
 * last level ends at 196608 lines); lds_stride.csv: 20.5 ns at stride 1, 51.8 ns from stride 32 on (32 banks). */
START_TEST(test_probe_from_sweeps_h100_knees)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char args[4096], path[1200], *out = NULL;
    snprintf(path, sizeof path, "%s/h100.json", dir);
    snprintf(args, sizeof args, "probe --from-sweeps '%s/docs/probe/h100' --base hopper_h100 -o '%s'", tsup_root(),
             path);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "probe --from-sweeps exited %d: %s", rc, out ? out : "");
    free(out);
    cJSON *j = parse_path(path);
    const cJSON *l1 = cJSON_GetObjectItem(j, "l1"), *l2 = cJSON_GetObjectItem(j, "l2");
    double line = cJSON_GetObjectItem(j, "cache_line_bytes")->valuedouble;
    ck_assert_double_eq(cJSON_GetObjectItem(l1, "bytes")->valuedouble, 1024 * line);
    /* one SM sees one partition when the base models near copies */
    double parts = cJSON_IsTrue(cJSON_GetObjectItem(l2, "near_copies")) ? cJSON_GetObjectItem(l2, "partitions")->valuedouble
                                                                         : 1;
    double unit = cJSON_GetObjectItem(l2, "ways")->valuedouble * line * parts;
    double want = 196608 * line * parts;
    ck_assert_double_eq(cJSON_GetObjectItem(l2, "bytes")->valuedouble, floor(want / unit + 0.5) * unit);
    ck_assert_int_eq((int)cJSON_GetObjectItem(j, "lds_banks")->valuedouble, 32);
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "provenance"),
                                                                                   "l2"),
                                                               "device")),
                     "NVIDIA H100 80GB HBM3");
    mem_machine m;
    char err[1024];
    ck_assert_msg(mem_machine_load(path, &m, err, sizeof err) == MEM_OK, "%s", err);
    cJSON_Delete(j);
    /* lavapipe's sweeps: a device name and a driver that hold parentheses themselves (docs/probe/chase.csv's
     * first line: "# chase.csv on llvmpipe (LLVM 15.0.6, 256 bits) (Mesa 22.3.6 (LLVM 15.0.6))") */
    snprintf(args, sizeof args, "probe --from-sweeps '%s/docs/probe' --base lavapipe -o '%s'", tsup_root(), path);
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "probe --from-sweeps exited %d: %s", rc, out ? out : "");
    free(out);
    j = parse_path(path);
    const cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "provenance"), "wave_sizes");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "device")), "llvmpipe (LLVM 15.0.6, 256 bits)");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "driver")), "Mesa 22.3.6 (LLVM 15.0.6)");
    cJSON_Delete(j);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* Runs probe --from-sweeps on the sweeps in `dir` against `base`, writing out_dir/preset.json; returns the preset
 * (caller deletes), which must load, as *m when m is not NULL. */
static cJSON *from_sweeps(const char *dir, const char *base, const char *out_dir, mem_machine *m)
{
    char args[4096], path[1200], *out = NULL;
    snprintf(path, sizeof path, "%s/preset.json", out_dir);
    snprintf(args, sizeof args, "probe --from-sweeps '%s' --base %s -o '%s'", dir, base, path);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "probe --from-sweeps exited %d: %s", rc, out ? out : "");
    free(out);
    cJSON *j = parse_path(path);
    mem_machine loaded;
    char err[1024];
    ck_assert_msg(mem_machine_load(path, m ? m : &loaded, err, sizeof err) == MEM_OK, "%s", err);
    return j;
}

/* The DRAM granule reaches the preset: docs/probe/h100_run2/l2_stride.csv by hand: 57.4 ns per load at stride 4
 * rising to 356.5 at 64 and 356.9 at 128 (the plateau, then fewer loads per line at 256 and 512): the first
 * stride above 70 % of the rise is 64 bytes, a power of two from turing_rtx2080's 32-byte sector to its 128-byte
 * line, so the preset's dram_fetch_bytes is 64, measured.  lavapipe's sweep (docs/probe/l2_stride.csv) gives
 * 256 bytes, more than lavapipe's 128-byte line: not written, and its provenance says why. */
START_TEST(test_probe_from_sweeps_writes_the_dram_granule)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char sweeps[4096];
    mem_machine m;
    snprintf(sweeps, sizeof sweeps, "%s/docs/probe/h100_run2", tsup_root());
    cJSON *j = from_sweeps(sweeps, "turing_rtx2080", dir, &m);
    ck_assert_double_eq(cJSON_GetObjectItem(j, "dram_fetch_bytes")->valuedouble, 64);
    const cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "provenance"), "dram_fetch_bytes");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "source")), "measured");
    ck_assert_uint_eq(m.dram_fetch_bytes, 64);
    cJSON_Delete(j);
    snprintf(sweeps, sizeof sweeps, "%s/docs/probe", tsup_root());
    j = from_sweeps(sweeps, "lavapipe", dir, NULL);
    ck_assert_ptr_null(cJSON_GetObjectItem(j, "dram_fetch_bytes"));
    p = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "provenance"), "dram_fetch_bytes");
    ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(p, "source")), "not measured");
    ck_assert_ptr_nonnull(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(p, "why")), "256 bytes"));
    cJSON_Delete(j);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* Writes a sweep file as `wavelab probe --sweeps` does: the device line, the header, "x,y,y,y" rows. */
static void write_sweep_file(const char *dir, const char *file, const char *columns, const double *x, const double *y,
                             int n)
{
    char text[8192];
    int len = snprintf(text, sizeof text, "# %s on Synthetic GPU (test driver 1.0)\n%s,min,max\n", file, columns);
    for (int i = 0; i < n; i++)
        len += snprintf(text + len, sizeof text - (size_t)len, "%.0f,%.4f,%.4f,%.4f\n", x[i], y[i], y[i], y[i]);
    char *path = tsup_write_file(dir, file, text);
    ck_assert_ptr_nonnull(path);
    free(path);
}

/* The chase's points as --sweeps writes them: 16, 24, 32, 48, ... lines. */
static void chase_lines(double *x, int n)
{
    for (int k = 0; k < n; k++)
        x[k] = k % 2 ? 24 << (k / 2) : 16 << (k / 2);
}

/* A new temporary folder holding a flat chase.csv: 50 ns at every footprint, no cache level. */
static char *flat_chase_dir(void)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    double x[20], y[20];
    chase_lines(x, 20);
    for (int i = 0; i < 20; i++)
        y[i] = 50;
    write_sweep_file(dir, "chase.csv", "lines,ns_per_load", x, y, 20);
    return dir;
}


/* A sweep file whose sizes are zero or negative is bad input naming the file and line: a zero L1 stride used to
 * become a zero sector and divide by it (SIGFPE), a wave size of -1 a preset with 4294967295. */
START_TEST(test_probe_from_sweeps_refuses_zero_and_negative_sizes)
{
    static const struct {
        const char *file, *columns;
        double x0;
    } bad[] = {
        {"l1_stride.csv", "stride_bytes,ns_per_load", 0},
        {"subgroup.csv", "wave_size,invocations_per_ballot", -1},
        {"l2_footprint.csv", "buffer_bytes,g_sectors_per_s", 0},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char *dir = flat_chase_dir();
        double x[4] = {bad[k].x0, bad[k].x0, bad[k].x0, bad[k].x0}, y[4] = {1, 1, 9, 9};
        write_sweep_file(dir, bad[k].file, bad[k].columns, x, y, 4);
        char args[2048], *out = NULL;
        snprintf(args, sizeof args, "probe --from-sweeps '%s' --base lavapipe -o '%s/preset.json'", dir, dir);
        int rc = tsup_run_cli(args, &out);
        char want[256];
        snprintf(want, sizeof want, "%s: line 3: ", bad[k].file);
        ck_assert_msg(rc == 2 && out && strstr(out, want), "%s: exit %d: %s", bad[k].file, rc, out ? out : "");
        free(out);
        tsup_remove_dir(dir);
        free(dir);
    }
}
END_TEST

static const char *prov_string(const cJSON *j, const char *field, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "provenance"), field),
                                                    key));
}

/*
 * A synthetic chase with known plateaus, read back with --from-sweeps against hopper_h100 (clock_mhz 1980):
 *   16, 24, 32 lines at 19, 20, 24 ns, then 20 ns to 1024 lines: the L1 plateau is the median of the three
 *     smallest footprints, 20 ns (the mean would be 21, the minimum 19) -> 20 x 1.98 = 39.6 -> 40 cycles;
 *   1536 lines at 60 ns (between levels), 2048 ... 16384 at 100 ns (101 at 3072): the L2 floor is the first
 *     point from which latency stays within 5 % for two more, 100 ns at 2048 -> 198 cycles;
 *   24576 ... 131072 lines at 390, 395, 400, 396, 404, 400 ns: DRAM = median of the last three, 400 ns -> 792;
 *   lds_stride.csv: 10 ns at every stride (no banks): a stride-1 read, 10 x 1.98 = 19.8 -> 20 cycles.
 */
START_TEST(test_probe_from_sweeps_synthetic_plateaus_cycles)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    double x[27], y[27];
    chase_lines(x, 27);
    for (int i = 0; i < 27; i++)
        y[i] = i < 13 ? 20 : i == 13 ? 60 : i < 21 ? 100 : 0;
    y[0] = 19, y[2] = 24, y[15] = 101;
    static const double dram[6] = {390, 395, 400, 396, 404, 400};
    for (int i = 0; i < 6; i++)
        y[21 + i] = dram[i];
    ck_assert_double_eq(x[12], 1024);
    ck_assert_double_eq(x[14], 2048);
    write_sweep_file(dir, "chase.csv", "lines,ns_per_load", x, y, 27);
    static const double strides[6] = {1, 2, 4, 8, 16, 32}, lds[6] = {10, 10, 10, 10, 10, 10};
    write_sweep_file(dir, "lds_stride.csv", "stride_words,ns_per_read", strides, lds, 6);

    char base_path[1200];
    snprintf(base_path, sizeof base_path, "%s/machines/hopper_h100.json", tsup_root());
    cJSON *base = parse_path(base_path);
    ck_assert_double_eq(cJSON_GetObjectItem(base, "clock_mhz")->valuedouble, 1980); /* the arithmetic above */
    cJSON_Delete(base);

    cJSON *j = from_sweeps(dir, "hopper_h100", dir, NULL);
    static const struct {
        const char *field;
        double cycles;
        const char *sweep;
    } want[] = {
        {"l1_hit_latency", 40, "chase.csv"},
        {"l2_hit_latency", 198, "chase.csv"},
        {"dram_latency", 792, "chase.csv"},
        {"lds_latency", 20, "lds_stride.csv"},
    };
    char sweep[1400];
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ck_assert_msg(cJSON_GetObjectItem(j, want[i].field)->valuedouble == want[i].cycles, "%s = %g, want %g",
                      want[i].field, cJSON_GetObjectItem(j, want[i].field)->valuedouble, want[i].cycles);
        ck_assert_str_eq(prov_string(j, want[i].field, "source"), "measured");
        ck_assert_str_eq(prov_string(j, want[i].field, "device"), "Synthetic GPU");
        ck_assert_str_eq(prov_string(j, want[i].field, "driver"), "test driver 1.0");
        snprintf(sweep, sizeof sweep, "%s/%s", dir, want[i].sweep);
        ck_assert_str_eq(prov_string(j, want[i].field, "sweep"), sweep);
    }
    /* the numbers it came from, in the method */
    ck_assert_ptr_nonnull(strstr(prov_string(j, "l1_hit_latency", "method"), "19.00, 20.00, 24.00 ns"));
    ck_assert_ptr_nonnull(strstr(prov_string(j, "l2_hit_latency", "method"), "(2048 lines) = 100.00 ns"));
    check_latencies(j);
    /* these files record no date: the preset says so rather than citing the day it was rebuilt */
    ck_assert_str_eq(prov_string(j, "l1_hit_latency", "date"), "undated");
    cJSON_Delete(j);
    /* a sweep's "# measured" line dates every measured field */
    char path[1400];
    snprintf(path, sizeof path, "%s/chase.csv", dir);
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    fputs("# measured 2025-01-02\n", f);
    fclose(f);
    j = from_sweeps(dir, "hopper_h100", dir, NULL);
    ck_assert_str_eq(prov_string(j, "l1_hit_latency", "date"), "2025-01-02");
    ck_assert_str_eq(prov_string(j, "lds_latency", "date"), "2025-01-02");
    cJSON_Delete(j);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/*
 * Sweeps that show no level: a flat chase (50 ns at every footprint: no L1 step, no DRAM above a floor) and no
 * lds_stride.csv.  The four fields are still written, as model values that say why: against hopper_h100 its own
 * values (read from machines/hopper_h100.json here); against lavapipe, which has no l1_hit_latency or
 * lds_latency, the level above's cycles as a bound: both = lavapipe.json's l2_hit_latency.
 */
START_TEST(test_probe_from_sweeps_no_levels_model_values)
{
    char *dir = flat_chase_dir();
    static const char *const fields[] = {"l1_hit_latency", "l2_hit_latency", "dram_latency", "lds_latency"};
    char base_path[1200];
    snprintf(base_path, sizeof base_path, "%s/machines/hopper_h100.json", tsup_root());
    cJSON *base = parse_path(base_path);
    cJSON *j = from_sweeps(dir, "hopper_h100", dir, NULL);
    for (size_t i = 0; i < 4; i++) {
        ck_assert_double_eq(cJSON_GetObjectItem(j, fields[i])->valuedouble,
                            cJSON_GetObjectItem(base, fields[i])->valuedouble);
        ck_assert_str_eq(prov_string(j, fields[i], "source"), "model value");
        ck_assert_str_eq(prov_string(j, fields[i], "from_preset"), "machines/hopper_h100.json");
    }
    ck_assert_ptr_nonnull(strstr(prov_string(j, "l1_hit_latency", "why"), "no L1 plateau"));
    ck_assert_ptr_nonnull(strstr(prov_string(j, "lds_latency", "why"), "LDS"));
    check_latencies(j);
    /* no l2_rate.csv: the L2 rates are the base's, each saying why */
    static const char *const rates[] = {"l2_bytes_per_cycle", "l2_requests_per_cycle", "l1_miss_merge"};
    for (size_t i = 0; i < 3; i++) {
        ck_assert_double_eq(cJSON_GetObjectItem(j, rates[i])->valuedouble,
                            cJSON_GetObjectItem(base, rates[i])->valuedouble);
        ck_assert_ptr_nonnull(strstr(prov_string(j, rates[i], "why"), "no L2 rate sweep"));
    }
    cJSON_Delete(j);
    cJSON_Delete(base);

    snprintf(base_path, sizeof base_path, "%s/machines/lavapipe.json", tsup_root());
    base = parse_path(base_path);
    ck_assert_ptr_null(cJSON_GetObjectItem(base, "l1_hit_latency"));
    ck_assert_ptr_null(cJSON_GetObjectItem(base, "lds_latency"));
    double l2 = cJSON_GetObjectItem(base, "l2_hit_latency")->valuedouble;
    j = from_sweeps(dir, "lavapipe", dir, NULL);
    ck_assert_double_eq(cJSON_GetObjectItem(j, "l2_hit_latency")->valuedouble, l2);
    ck_assert_double_eq(cJSON_GetObjectItem(j, "l1_hit_latency")->valuedouble, l2);
    ck_assert_double_eq(cJSON_GetObjectItem(j, "lds_latency")->valuedouble, l2);
    ck_assert_str_eq(prov_string(j, "lds_latency", "source"), "model value");
    ck_assert_ptr_null(prov_string(j, "lds_latency", "from_preset"));
    ck_assert_ptr_nonnull(strstr(prov_string(j, "l1_hit_latency", "why"), "as a bound"));
    check_latencies(j);
    /* lavapipe.json has no request rate and no merge: requests at the byte rate's sectors (512 / 64 = 8 from
     * lavapipe.json's l2_bytes_per_cycle and sector_bytes), the merge 0: none seen */
    ck_assert_double_eq(cJSON_GetObjectItem(base, "l2_bytes_per_cycle")->valuedouble, 512);
    ck_assert_double_eq(cJSON_GetObjectItem(base, "sector_bytes")->valuedouble, 64);
    ck_assert_ptr_null(cJSON_GetObjectItem(base, "l2_requests_per_cycle"));
    ck_assert_ptr_null(cJSON_GetObjectItem(base, "l1_miss_merge"));
    ck_assert_double_eq(cJSON_GetObjectItem(j, "l2_requests_per_cycle")->valuedouble, 8);
    ck_assert_double_eq(cJSON_GetObjectItem(j, "l1_miss_merge")->valuedouble, 0.0);
    ck_assert_str_eq(prov_string(j, "l2_requests_per_cycle", "source"), "model value");
    ck_assert_str_eq(prov_string(j, "l1_miss_merge", "source"), "model value");
    ck_assert_ptr_nonnull(strstr(prov_string(j, "l2_requests_per_cycle", "why"), "never bounds"));
    cJSON_Delete(j);

    /* a base with no l2_bytes_per_cycle either (lavapipe.json without it): the bytes are its
     * dram_bytes_per_cycle as a bound (no copy.csv here, so the base's), the requests that / sector_bytes */
    cJSON *bare = cJSON_Duplicate(base, 1);
    cJSON_DeleteItemFromObject(bare, "l2_bytes_per_cycle");
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(bare, "sources"), "l2_bytes_per_cycle");
    double dram = cJSON_GetObjectItem(base, "dram_bytes_per_cycle")->valuedouble;
    char *text = cJSON_Print(bare), *bare_path = tsup_write_file(dir, "bare.json", text);
    ck_assert_ptr_nonnull(bare_path);
    free(text);
    cJSON_Delete(bare);
    j = from_sweeps(dir, bare_path, dir, NULL);
    ck_assert_double_eq(cJSON_GetObjectItem(j, "l2_bytes_per_cycle")->valuedouble, dram);
    ck_assert_double_eq_tol(cJSON_GetObjectItem(j, "l2_requests_per_cycle")->valuedouble, dram / 64, 1e-3 * dram / 64);
    ck_assert_str_eq(prov_string(j, "l2_bytes_per_cycle", "source"), "model value");
    ck_assert_ptr_nonnull(strstr(prov_string(j, "l2_bytes_per_cycle", "why"), "dram_bytes_per_cycle"));
    free(bare_path);
    cJSON_Delete(j);
    cJSON_Delete(base);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/*
 * Synthetic L2 rate sweeps (l2_rate.csv: G sectors/s of the scattered one-sector, whole-line and adjacent modes)
 * with a copy at 2854 GB/s, read back against hopper_h100 (clock_mhz 1980, sector rates x 32 bytes); each row's
 * fields worked out by hand from docs/probe.md's rules (-1 in `want`: the base's value stays, with a why):
 *   134.8, 246.2, 167.8 (the CUDA twin's H100 rates): bytes 246.2 x 32 = 7878.4 GB/s > 1.2 x 2854 = 3424.8;
 *     request bound (134.8 < 0.85 x 246.2 = 209.3): 134.8e3 / 1980 = 68.0808 -> 68.08 requests per cycle (four
 *     significant digits); 7878.4e3 / 1980 = 3978.99 -> 3979 bytes per cycle; merge (1 - 134.8 / 167.8) / 0.75 =
 *     0.2622 -> 0.26 (two decimals);
 *   200, 210, 220: bytes 6720 GB/s -> 3393.94 -> 3394; 200 is not below 0.85 x 210 = 178.5: not request bound;
 *   50, 100, 60: bytes 3200 GB/s, not above 3424.8: nothing is the L2's;
 *   100, 200, 90: bytes 6400e3 / 1980 = 3232.32 -> 3232; requests 100e3 / 1980 = 50.505 -> 50.51; merge
 *     (1 - 100 / 90) / 0.75 < 0 -> 0;
 *   100, 1000, 800: bytes 32000e3 / 1980 = 16161.6 -> 16160; requests 50.51; merge (1 - 100 / 800) / 0.75 = 1.17
 *     -> 1 (800 is below 0.85 x 1000 = 850: the adjacent loads are request bound);
 *   137.86, 216.38, 217.82 (the H100's Vulkan sweep, 2 MiB): bytes 216.38 x 32 = 6924.16 GB/s -> 3497.05 -> 3497;
 *     requests 137.86e3 / 1980 = 69.626 -> 69.63 (137.86 < 0.85 x 216.38 = 183.9); the adjacent loads, 217.82, are
 *     not below 183.9: not request bound, so the merge stays the base's;
 *   160, 200, 180 with repetitions spread +-10 %: the medians are request bound (160 < 170) but the scattered
 *     loads' fastest repetition, 176, is not below 0.85 x the whole lines' slowest (0.85 x 180 = 153): not clearly
 *     request bound, so only the bytes: 3232.
 */
START_TEST(test_probe_from_sweeps_l2_rate_rules_fields)
{
    static const struct {
        double scattered, line, adjacent;
        double bytes, requests, merge; /* -1: the base's */
        double spread;                 /* the repetitions' min and max: median x (1 -+ spread) */
    } cases[] = {
        {134.8, 246.2, 167.8, 3979, 68.08, 0.26, 0},
        {200, 210, 220, 3394, -1, -1, 0},
        {50, 100, 60, -1, -1, -1, 0},
        {100, 200, 90, 3232, 50.51, 0, 0},
        {100, 1000, 800, 16160, 50.51, 1, 0},
        {137.86, 216.38, 217.82, 3497, 69.63, -1, 0},
        {160, 200, 180, 3232, -1, -1, 0.1},
    };
    char base_path[1200];
    snprintf(base_path, sizeof base_path, "%s/machines/hopper_h100.json", tsup_root());
    cJSON *base = parse_path(base_path);
    ck_assert_double_eq(cJSON_GetObjectItem(base, "clock_mhz")->valuedouble, 1980); /* the arithmetic above */
    static const char *const fields[] = {"l2_bytes_per_cycle", "l2_requests_per_cycle", "l1_miss_merge"};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *dir = flat_chase_dir();
        static const double reps[3] = {0, 1, 2}, copy[3] = {2854, 2854, 2854}, modes[3] = {0, 1, 2};
        write_sweep_file(dir, "copy.csv", "repetition,gb_per_s", reps, copy, 3);
        double rates[3] = {cases[c].scattered, cases[c].line, cases[c].adjacent};
        char text[512];
        int len = snprintf(text, sizeof text, "# l2_rate.csv on Synthetic GPU (test driver 1.0)\n"
                                              "mode,g_sectors_per_s,min,max\n");
        for (int i = 0; i < 3; i++)
            len += snprintf(text + len, sizeof text - (size_t)len, "%.0f,%.4f,%.4f,%.4f\n", modes[i], rates[i],
                            rates[i] * (1 - cases[c].spread), rates[i] * (1 + cases[c].spread));
        char *file = tsup_write_file(dir, "l2_rate.csv", text);
        ck_assert_ptr_nonnull(file);
        free(file);
        cJSON *j = from_sweeps(dir, "hopper_h100", dir, NULL);
        double want[3] = {cases[c].bytes, cases[c].requests, cases[c].merge};
        char sweep[1400];
        snprintf(sweep, sizeof sweep, "%s/l2_rate.csv", dir);
        for (int f = 0; f < 3; f++) {
            double got = cJSON_GetObjectItem(j, fields[f])->valuedouble;
            if (want[f] >= 0) {
                ck_assert_msg(fabs(got - want[f]) < 1e-9, "case %zu: %s = %.10g, want %g", c, fields[f], got, want[f]);
                ck_assert_str_eq(prov_string(j, fields[f], "source"), "measured");
                ck_assert_str_eq(prov_string(j, fields[f], "sweep"), sweep);
                ck_assert_str_eq(prov_string(j, fields[f], "device"), "Synthetic GPU");
            } else {
                ck_assert_msg(got == cJSON_GetObjectItem(base, fields[f])->valuedouble, "case %zu: %s = %g", c,
                              fields[f], got);
                ck_assert_str_eq(prov_string(j, fields[f], "from_preset"), "machines/hopper_h100.json");
                const char *why = prov_string(j, fields[f], "why");
                ck_assert_msg(why && strstr(why, cases[c].line * 32 > 1.2 * 2854 ? "request bound" : "DRAM"),
                              "case %zu: %s: why %s", c, fields[f], why ? why : "(none)");
            }
        }
        /* the three rates, as measured */
        const cJSON *m = cJSON_GetObjectItem(j, "measured");
        ck_assert_double_eq(cJSON_GetObjectItem(m, "l2_scattered_g_sectors_per_s")->valuedouble, rates[0]);
        ck_assert_double_eq(cJSON_GetObjectItem(m, "l2_line_g_sectors_per_s")->valuedouble, rates[1]);
        ck_assert_double_eq(cJSON_GetObjectItem(m, "l2_adjacent_g_sectors_per_s")->valuedouble, rates[2]);
        cJSON_Delete(j);
        tsup_remove_dir(dir);
        free(dir);
    }
    cJSON_Delete(base);
}
END_TEST

/*
 * The atomic sweeps (docs/probe.md, "Atomics"), against turing_rtx2080 (clock 1710 MHz, 32-byte sectors; neither
 * atomic field) and hopper_h100 (both).  Serialized: one line 10 G adds/s (repetitions 9.5 to 10.5), spread 1000
 * (900 to 1100): 10.5 < 0.5 x 900, so a pass, 32 / 4 = 8 adds, takes 8 / 10 G/s = 0.8 ns = 0.8 x 1710 / 1000 =
 * 1.368 cycles; atomic_lines.csv 10, 10, 20, 20, 40, 80, 160 G/s over 1 .. 64 lines: 16 units over 8192 bytes, 512
 * each.  Not serialized: one line 100 (up to 110), spread 150 (from 140): 110 is not below 70, so neither field is
 * measured: turing gets the values of the fields' absence (0: no atomic term; its 128-byte line) as model values
 * with why, hopper_h100 keeps its own values with why.  A CPU
 * device's rates, one line 0.01 G adds/s: 8 / 0.01 = 800 ns = 1368 cycles a pass, which the preset must still load.
 */
START_TEST(test_probe_from_sweeps_atomic_fields_by_hand)
{
    static const double modes[7] = {0, 1, 2, 3, 4, 5, 6}, lines[7] = {1, 2, 4, 8, 16, 32, 64};
    static const double serial[7] = {10, 40, 1000, 8000, 8000, 9000, 10}, spread[7] = {100, 40, 150, 1, 1, 1, 100};
    /* a CPU device's rates: 1000 x slower, so a pass is 1368 cycles (a loaded lavapipe gave such values) */
    static const double slow[7] = {0.01, 0.04, 1, 8, 8, 9, 0.01};
    static const double serial_lines[7] = {10, 10, 20, 20, 40, 80, 160}, flat_lines[7] = {100, 100, 100, 100, 100,
                                                                                          100, 100};
    for (int c = 0; c < 4; c++) {
        const double *rate = c == 0 ? serial : c == 3 ? slow : spread;
        char *dir = flat_chase_dir(), text[1024];
        int len = snprintf(text, sizeof text, "# atomic.csv on Synthetic GPU (test driver 1.0)\nmode,g_ops_per_s,min,max\n");
        for (int i = 0; i < 7; i++) /* the repetitions' extremes 5 % (one line) and 10 % (spread) around */
            len += snprintf(text + len, sizeof text - (size_t)len, "%.0f,%.4f,%.4f,%.4f\n", modes[i], rate[i],
                            rate[i] * (i == 2 ? 0.9 : 0.95), rate[i] * (i == 2 ? 1.1 : 1.05));
        char *file = tsup_write_file(dir, "atomic.csv", text);
        ck_assert_ptr_nonnull(file);
        free(file);
        write_sweep_file(dir, "atomic_lines.csv", "lines,g_ops_per_s", lines, c == 0 || c == 3 ? serial_lines
                                                                                              : flat_lines, 7);
        const char *base = c == 2 ? "hopper_h100" : "turing_rtx2080";
        cJSON *j = from_sweeps(dir, base, dir, NULL);
        const cJSON *cycles = cJSON_GetObjectItem(j, "l2_atomic_cycles"),
                    *granule = cJSON_GetObjectItem(j, "l2_atomic_granule_bytes");
        if (c == 0 || c == 3) {
            double want = c == 0 ? 1.368 : 1368;
            ck_assert_msg(fabs(cycles->valuedouble - want) < 1e-9, "%.10g, want %g", cycles->valuedouble, want);
            ck_assert_double_eq(granule->valuedouble, 512);
            ck_assert_str_eq(prov_string(j, "l2_atomic_cycles", "source"), "measured");
            ck_assert_str_eq(prov_string(j, "l2_atomic_granule_bytes", "source"), "measured");
        } else if (c == 1) { /* turing has neither: the values of their absence, as model values */
            ck_assert_double_eq(cycles->valuedouble, 0);
            ck_assert_double_eq(granule->valuedouble, 128);
            ck_assert_str_eq(prov_string(j, "l2_atomic_cycles", "source"), "model value");
            ck_assert_str_eq(prov_string(j, "l2_atomic_granule_bytes", "source"), "model value");
            ck_assert_msg(strstr(prov_string(j, "l2_atomic_cycles", "why"), "no line serializes them"), "%s",
                          prov_string(j, "l2_atomic_cycles", "why"));
            ck_assert_msg(strstr(prov_string(j, "l2_atomic_granule_bytes", "why"), "no line serializes atomics"),
                          "%s", prov_string(j, "l2_atomic_granule_bytes", "why"));
        } else {
            ck_assert_double_eq(cycles->valuedouble, 1.164);
            ck_assert_double_eq(granule->valuedouble, 512);
            ck_assert_str_eq(prov_string(j, "l2_atomic_cycles", "from_preset"), "machines/hopper_h100.json");
            ck_assert_msg(strstr(prov_string(j, "l2_atomic_cycles", "why"), "no line serializes them"), "%s",
                          prov_string(j, "l2_atomic_cycles", "why"));
        }
        /* the rates as measured */
        const cJSON *m = cJSON_GetObjectItem(j, "measured");
        ck_assert_double_eq(cJSON_GetObjectItem(m, "atomic_line_g_ops_per_s")->valuedouble, rate[0]);
        ck_assert_double_eq(cJSON_GetObjectItem(m, "atomic_pairs_g_ops_per_s")->valuedouble, rate[6]);
        cJSON_Delete(j);
        tsup_remove_dir(dir);
        free(dir);
    }
}
END_TEST

/*
 * The L2 rate sweep's buffer: l2_footprint.csv holds the scattered mode's rate at each buffer size tried, and the
 * preset cites the largest size within 10 % of the fastest.  Rates 150, 140, 136, 69 at 2, 4, 8, 16 MiB (the
 * H100's Vulkan sweep halves at 16 MiB; the smallest buffer is fastest): 0.9 x 150 = 135, so 2, 4 and 8 MiB
 * qualify and the 8 MiB buffer is cited.  Rates 150, 140, 130, 69: 130 < 135, so 4 MiB.  Without the file (sweeps
 * from before it) no buffer is cited.
 */
START_TEST(test_probe_from_sweeps_l2_footprint_cites_the_plateau_buffer)
{
    static const double sizes[4] = {2097152, 4194304, 8388608, 16777216};
    static const double by_size[2][4] = {{150, 140, 136, 69}, {150, 140, 130, 69}};
    static const char *const want[2] = {"a 8 MiB buffer, the largest within 10 % of the fastest in l2_footprint.csv",
                                        "a 4 MiB buffer, the largest within 10 % of the fastest in l2_footprint.csv"};
    for (int with_file = 0; with_file < 3; with_file++) {
        char *dir = flat_chase_dir();
        static const double reps[3] = {0, 1, 2}, copy[3] = {2854, 2854, 2854}, modes[3] = {0, 1, 2};
        static const double rates[3] = {134.8, 246.2, 167.8};
        write_sweep_file(dir, "copy.csv", "repetition,gb_per_s", reps, copy, 3);
        write_sweep_file(dir, "l2_rate.csv", "mode,g_sectors_per_s", modes, rates, 3);
        if (with_file)
            write_sweep_file(dir, "l2_footprint.csv", "buffer_bytes,g_sectors_per_s", sizes, by_size[with_file - 1], 4);
        cJSON *j = from_sweeps(dir, "hopper_h100", dir, NULL);
        const char *text = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "sources"), "l2_requests_per_cycle")->valuestring;
        ck_assert_ptr_nonnull(text);
        if (with_file)
            ck_assert_msg(strstr(text, want[with_file - 1]), "source: %s", text);
        else
            ck_assert_msg(!strstr(text, "MiB buffer"), "source: %s", text);
        /* the rate itself comes from l2_rate.csv either way: 134.8e3 / 1980 = 68.08 */
        ck_assert_double_eq_tol(cJSON_GetObjectItem(j, "l2_requests_per_cycle")->valuedouble, 68.08, 1e-9);
        cJSON_Delete(j);
        tsup_remove_dir(dir);
        free(dir);
    }
}
END_TEST

/*
 * The H100's second run (docs/probe/h100_run2), the committed hopper_h100_measured: the two fields the
 * estimate's latency term reads, by hand from the CSV files: chase.csv's three smallest footprints 30.3359,
 * 30.4062, 30.5273 ns, median 30.4062 x 1.98 = 60.2 -> 60 cycles; lds_stride.csv's stride 1, 20.4648 ns x 1.98 =
 * 40.52 -> 41 cycles (the values hopper_h100.json was given by hand before the probe wrote them).
 */
START_TEST(test_probe_from_sweeps_h100_run2_latencies)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char args[4096], path[1200], *out = NULL;
    snprintf(path, sizeof path, "%s/h100.json", dir);
    snprintf(args, sizeof args, "probe --from-sweeps '%s/docs/probe/h100_run2' --base hopper_h100 -o '%s'",
             tsup_root(), path);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "probe --from-sweeps exited %d: %s", rc, out ? out : "");
    free(out);
    snprintf(args, sizeof args, "%s/machines/hopper_h100_measured.json", tsup_root());
    cJSON *preset[2] = {parse_path(path), parse_path(args)};
    for (int k = 0; k < 2; k++) {
        ck_assert_double_eq(cJSON_GetObjectItem(preset[k], "l1_hit_latency")->valuedouble, 60);
        ck_assert_double_eq(cJSON_GetObjectItem(preset[k], "lds_latency")->valuedouble, 41);
        ck_assert_str_eq(prov_string(preset[k], "l1_hit_latency", "source"), "measured");
        ck_assert_str_eq(prov_string(preset[k], "lds_latency", "source"), "measured");
        check_latencies(preset[k]);
        cJSON_Delete(preset[k]);
    }
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

START_TEST(test_probe_bad_arguments_exit_2)
{
    char *out = NULL;
    ck_assert_int_eq(tsup_run_cli("probe", &out), 2); /* no -o */
    ck_assert_ptr_nonnull(strstr(out, "-o PRESET.json is required"));
    free(out);
    ck_assert_int_eq(tsup_run_cli("probe --frobnicate -o /tmp/x.json", &out), 2);
    free(out);
    ck_assert_int_eq(tsup_run_cli("probe --sweeps /nonexistent/dir -o /tmp/x.json", &out), 2);
    ck_assert_ptr_nonnull(strstr(out, "is not a directory"));
    free(out);
    ck_assert_int_eq(tsup_run_cli("probe -o", &out), 2);
    free(out);
    ck_assert_int_eq(tsup_run_cli("probe --from-sweeps /nonexistent/dir -o /tmp/x.json", &out), 2);
    free(out);
    ck_assert_int_eq(tsup_run_cli("probe --from-sweeps /tmp --quick -o /tmp/x.json", &out), 2);
    free(out);
    char *empty = tsup_temp_dir(), args[1024];
    snprintf(args, sizeof args, "probe --from-sweeps '%s' -o '%s/x.json'", empty, empty);
    ck_assert_int_eq(tsup_run_cli(args, &out), 2); /* no chase.csv */
    ck_assert_ptr_nonnull(strstr(out, "no chase.csv"));
    free(out);
    tsup_remove_dir(empty);
    free(empty);
}
END_TEST

static Suite *probe_suite(void)
{
    Suite *s = suite_create("probe");
    TCase *t = tcase_create("probe");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_probe_from_sweeps_h100_knees);
    tcase_add_test(t, test_probe_from_sweeps_writes_the_dram_granule);
    tcase_add_test(t, test_probe_from_sweeps_synthetic_plateaus_cycles);
    tcase_add_test(t, test_probe_from_sweeps_no_levels_model_values);
    tcase_add_test(t, test_probe_from_sweeps_l2_rate_rules_fields);
    tcase_add_test(t, test_probe_from_sweeps_l2_footprint_cites_the_plateau_buffer);
    tcase_add_test(t, test_probe_from_sweeps_atomic_fields_by_hand);
    tcase_add_test(t, test_probe_from_sweeps_h100_run2_latencies);
    tcase_add_test(t, test_probe_bad_arguments_exit_2);
    tcase_add_test(t, test_probe_from_sweeps_refuses_zero_and_negative_sizes);
    suite_add_tcase(s, t);
    TCase *dev = tsup_device_tcase("device");
    tcase_set_timeout(dev, 300);
    tcase_add_test(dev, test_probe_quick_lavapipe_same_fields_loads);
    suite_add_tcase(s, dev);
    return s;
}

int main(void) { return tsup_run_suite(probe_suite(), "test_probe"); }
