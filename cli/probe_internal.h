/*
 * cli/probe_internal.h — what the two halves of `wavelab probe` share: cli/probe_sweeps.c runs the sweeps
 * on a Vulkan device and reads values off them (the analyses, also used on saved sweeps); cli/probe.c is the
 * command, the sweep files and the preset with its provenance.  Not a public interface: the command's one
 * entry point is cli_cmd_probe in cli/cli.h.
 */
#ifndef WAVELAB_CLI_PROBE_INTERNAL_H
#define WAVELAB_CLI_PROBE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

#define MAX_POINTS 96
#define BLOCK 256u /* chase element spacing: at least any cache line, so one element = one line */

/* One sweep: its data file and columns, and the points (median, min, max of the repetitions). */
typedef struct sweep {
    const char *file;   /* docs/probe/<file> */
    const char *x_name, *y_name;
    double x_min; /* smallest x a file may hold: 1 for sizes, strides and wave sizes, 0 for modes and counts */
    int n;
    double x[MAX_POINTS], y[MAX_POINTS], lo[MAX_POINTS], hi[MAX_POINTS];
} sweep;

typedef struct probe {
    vkb_probe *p;
    vkb_device_info info;
    int quick;
    int cpu;                  /* a CPU device (lavapipe): longer timed chases, smaller buffers */
    const char *sweep_dir;    /* NULL: sweeps are not written */
    char kernel_dir[512];
    uint32_t timed_loads;     /* loads per timed chase dispatch */
    int reps;
    uint64_t rng;
    double last_empty_us;     /* median time of the last point's empty (0-load) dispatches */
    double last_empty_lo, last_empty_hi; /* and their extremes */
    char sweep_date[16];      /* the day of the measurement: today on a device, what the sweep files
                               * record with --from-sweeps ("" when they do not) */
    char err[2048];
} probe;

typedef struct results {
    uint32_t wave_sizes[8], wave_count, default_wave;
    int waves_measured;
    uint32_t compute_units;
    const char *cu_extension;
    int lds_measured;
    uint32_t lds_banks;
    double lds_pass_ns, lds_base_ns;
    int l1_measured, l2_measured;
    int l2_step_measured;   /* a second latency level inside the last cache (a far L2 partition) */
    double l2_step_lines;   /* the end of the first (near) level */
    double l1_lines, l2_lines, l1_ns, l2_ns, dram_ns;
    double l2_floor_lines;  /* where the last level's floor (l2_ns) starts */
    int line_measured;
    uint32_t line_bytes;
    int l1_sector_measured, l2_sector_measured;
    uint32_t l1_sector, l2_sector;
    int ways_measured;
    uint32_t l1_ways;
    int bw_measured;
    double bytes_per_us;
    double dispatch_us;     /* a one-invocation dispatch that does nothing (the chase's 0-load dispatches) */
    /* the L2 rate sweep (l2_rate.csv): G sectors per second of its three modes, and what they show */
    double l2_scattered_gsps, l2_line_gsps, l2_adjacent_gsps;
    int l2_bytes_measured, l2_requests_measured, l1_merge_measured;
    double l1_merge;        /* the share of merge candidates the L1 merged, 0..1 */
    /* the atomic sweep (atomic.csv): G atomic operations per second of its three modes, and what they show */
    double atomic_line_gops, atomic_word_gops, atomic_spread_gops;
    double lds_atomic_gops, lds_atomic_word_gops, lds_rmw_gops; /* shared memory: distinct words, one, no atomic */
    double atomic_pairs_gops; /* one line, two lanes per word */
    double atomic_unit_bytes; /* atomic_lines.csv: consecutive bytes one atomic unit serves; 0: not seen */
    double atomic_one_line_gops, atomic_widest_lines, atomic_widest_gops; /* the points it was read off */
    int atomic_measured;    /* the one-line mode is clearly slower than the spread one: a line serializes */
    sweep s_lds, s_chase, s_line, s_l1_stride, s_l2_stride, s_assoc, s_copy, s_l2_rate, s_atomic, s_atomic_lines;
    sweep s_l2_footprint;   /* the scattered mode's rate at each buffer size tried; l2_rate.csv is the fastest's */
    sweep s_dispatch;       /* one row: the empty dispatches' median, min and max (dispatch_us) */
} results;
/* Statistics and sweep points. */
double probe_median(double *v, int n); /* sorts v */
void probe_add_point(sweep *s, double x, double y, double lo, double hi);
void probe_init_sweeps(results *r); /* each sweep's file and column names */

/* The sweeps on the device: each returns 0 on a Vulkan error (pr->err says which call), fills its sweep in r
 * and reads its values off it with the matching analysis below. */
int probe_sweep_subgroups(probe *pr, results *r);
int probe_sweep_lds(probe *pr, results *r);
int probe_sweep_chase(probe *pr, results *r);
int probe_sweep_line(probe *pr, results *r);
int probe_sweep_stride(probe *pr, sweep *s, size_t footprint, int *measured, uint32_t *granule);
int probe_sweep_assoc(probe *pr, results *r, uint32_t line);
int probe_sweep_copy(probe *pr, results *r);
int probe_sweep_l2_rate(probe *pr, results *r); /* after the copy: its rules need the DRAM rate */
int probe_sweep_atomic(probe *pr, results *r);

/* The analyses: a sweep's points in, the values it shows out (the *_measured flags stay 0 where it shows
 * nothing); the same on a device run and on sweep files read back by --from-sweeps. */
void probe_analyze_lds(const sweep *s, uint32_t w, results *r);
void probe_analyze_chase(const sweep *s, int cpu, results *r);
void probe_analyze_line(const sweep *s, results *r);
void probe_analyze_stride(const sweep *s, int *measured, uint32_t *granule);
void probe_analyze_assoc(const sweep *s, results *r);
void probe_analyze_l2_rate(const sweep *s, results *r); /* needs r's copy rate (bw_measured, bytes_per_us) */
/* The atomic sweeps' thresholds (their rules: cli/probe_sweeps.c), which the preset's provenance quotes. */
#define PROBE_SERIAL_LINE 0.5 /* one line's fastest below this x the spread mode's slowest: the line serializes */
#define PROBE_SPREADS 1.5     /* the widest spread at least this x the one-line rate: the unit's bytes are seen */
void probe_analyze_atomic(const sweep *s, results *r);
void probe_analyze_atomic_lines(const sweep *s, results *r);
double probe_l2_buffer(const sweep *s); /* l2_footprint.csv: the largest size within 10 % of the fastest; 0: none */

#endif
