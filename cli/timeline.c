/*
 * cli/timeline.c — timelines of intervals: which wave ran on which compute
 * unit when (the memory model's launch/residency replay).
 *
 * Overlapping intervals are stacked into rows with the greedy rule of
 * article 001 (mos9527, "Foundation 施工笔记 【3】- Profiler 与 Wave
 * Intrisics 实验"): sort by start, put each interval on the lowest row whose
 * last interval has ended.  On one track (a CU) that gives as many rows as
 * the most intervals ever overlapping — the wave slots in use.  The same
 * intervals are written as a Chrome/Perfetto trace (JSON "X" events) and
 * drawn as an SVG with a histogram of durations.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
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

typedef struct order_key {
    const cli_interval *iv;
    size_t index;
} order_key;

static int by_track_start(const void *a, const void *b)
{
    const cli_interval *x = ((const order_key *)a)->iv, *y = ((const order_key *)b)->iv;
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    size_t i = ((const order_key *)a)->index, j = ((const order_key *)b)->index;
    return i < j ? -1 : i > j;
}

int cli_timeline_rows(cli_interval *iv, size_t n, uint32_t *max_rows)
{
    *max_rows = 0;
    if (!n)
        return 0;
    order_key *k = malloc(n * sizeof *k);
    double *row_end = malloc(n * sizeof *row_end);
    if (!k || !row_end) {
        free(k);
        free(row_end);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        k[i].iv = &iv[i], k[i].index = i;
    qsort(k, n, sizeof *k, by_track_start);
    uint32_t rows = 0, track = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        cli_interval *x = &iv[k[i].index];
        if (x->track != track)
            track = x->track, rows = 0;
        uint32_t r = 0;
        while (r < rows && row_end[r] > x->start)
            r++;
        if (r == rows)
            rows++;
        row_end[r] = x->end;
        x->row = r;
        if (rows > *max_rows)
            *max_rows = rows;
    }
    free(k);
    free(row_end);
    return 0;
}

/* Rows before each track (tracks 0..max_track): row_base[t] + row is an interval's line in the picture. */
static uint32_t *track_row_base(const cli_interval *iv, size_t n, uint32_t *tracks, uint32_t *total_rows)
{
    uint32_t nt = 0;
    for (size_t i = 0; i < n; i++)
        if (iv[i].track + 1 > nt)
            nt = iv[i].track + 1;
    uint32_t *rows = calloc((size_t)nt + 1, sizeof *rows);
    if (!rows)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (iv[i].row + 1 > rows[iv[i].track])
            rows[iv[i].track] = iv[i].row + 1;
    uint32_t base = 0;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t r = rows[t];
        rows[t] = base;
        base += r;
    }
    rows[nt] = base;
    *tracks = nt;
    *total_rows = base;
    return rows;
}

/* each fill with the ink its label is readable in: white below half luminance (0.299 R + 0.587 G + 0.114 B),
 * black above */
static const struct colour { const char *fill, *ink; } palette[] = {
    {"#4e79a7", "white"}, {"#f28e2b", "black"}, {"#59a14f", "black"}, {"#e15759", "black"}, {"#76b7b2", "black"},
    {"#edc948", "black"}, {"#b07aa1", "black"}, {"#ff9da7", "black"}, {"#9c755f", "white"}, {"#bab0ac", "black"}};
enum { PALETTE = sizeof palette / sizeof palette[0] };

/* An axis value: plain digits up to 1e9 ("12120", "0.25"), never "1.212e+04" */
static void axis_value(FILE *f, double t, const char *unit)
{
    double a = fabs(t);
    if (a >= 1e4 && a < 1e9)
        fprintf(f, "%.0f %s", t, unit);
    else
        fprintf(f, "%.4g %s", t, unit);
}

/* Colour keys by name: key[i] = the rank of iv[i].name among the distinct names in order of first appearance;
 * *names = how many, first[k] = the first interval of name k.  NULL when out of memory. */
static size_t *keys_by_name(const cli_interval *iv, size_t n, size_t **first, size_t *names)
{
    size_t *key = malloc((n ? n : 1) * sizeof *key), *f = malloc((n ? n : 1) * sizeof *f), k = 0;
    if (!key || !f) {
        free(key);
        free(f);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < k && strcmp(iv[f[j]].name, iv[i].name))
            j++;
        if (j == k)
            f[k++] = i;
        key[i] = j;
    }
    *first = f;
    *names = k;
    return key;
}

/* The next legend entry, `name`, in lines as wide as the plot: moves to a new line when it does not fit on
 * this one (*line), and returns its x offset (*x then points past it). */
static int legend_next(const char *name, int plot_w, int *x, int *line)
{
    int w = 16 + (int)text_monospace_width(name, 11) + 16, at;
    if (*x && *x + w > plot_w)
        (*line)++, *x = 0;
    at = *x;
    *x += w;
    return at;
}

/* Where the parts of the picture go, and the time and duration ranges they show. */
typedef struct svg_layout {
    double t0, t1;            /* the time axis: the earliest start to the latest end */
    double dmin, dmax;        /* the shortest and longest duration */
    int left, plot_w, top;    /* the plot's left edge and width, the first row's top */
    int row_h, rows_h;        /* one row's height, all rows' */
    int hist_top, hist_h;     /* the histogram of durations */
    int legend_top;           /* the legend under the histogram */
    int width, height;
} svg_layout;

static svg_layout layout_of(const cli_interval *iv, size_t n, uint32_t total_rows, const char *title,
                            const size_t *first, size_t names)
{
    svg_layout L = {.t0 = n ? iv[0].start : 0, .t1 = n ? iv[0].end : 1, .dmin = INFINITY, .dmax = 0,
                    .left = 110, .plot_w = 820, .top = 40};
    for (size_t i = 0; i < n; i++) {
        if (iv[i].start < L.t0)
            L.t0 = iv[i].start;
        if (iv[i].end > L.t1)
            L.t1 = iv[i].end;
        double d = iv[i].end - iv[i].start;
        if (d < L.dmin)
            L.dmin = d;
        if (d > L.dmax)
            L.dmax = d;
    }
    if (L.t1 <= L.t0)
        L.t1 = L.t0 + 1;
    L.row_h = total_rows ? 480 / (int)total_rows : 14;
    L.row_h = L.row_h > 16 ? 16 : L.row_h < 1 ? 1 : L.row_h;
    L.rows_h = (int)total_rows * L.row_h;
    L.hist_top = L.top + L.rows_h + 50, L.hist_h = 140;
    L.width = L.left + L.plot_w + 30, L.height = L.hist_top + L.hist_h + 50;
    /* the legend under the histogram: a swatch and a name per colour */
    int legend_x = 0, legend_line = 0;
    L.legend_top = L.hist_top + L.hist_h + 40;
    for (size_t k = 0; k < names; k++)
        legend_next(iv[first[k]].name, L.plot_w, &legend_x, &legend_line);
    if (names)
        L.height += 16 * (legend_line + 1);
    /* a long title widens the picture instead of being cut */
    int title_w = 8 + (int)text_monospace_width(title, 13) + 8;
    if (title_w > L.width)
        L.width = title_w;
    return L;
}

/* Track bands (every other one shaded) and their labels, thinned to every 2^k-th when they would not fit. */
static void draw_tracks(FILE *f, const svg_layout *L, const uint32_t *base, uint32_t tracks, const char *track_label)
{
    int label_every = 1;
    while (tracks / label_every > (uint32_t)(L->rows_h / 12 + 1))
        label_every *= 2;
    for (uint32_t t = 0; t < tracks; t++) {
        int y = L->top + (int)base[t] * L->row_h, h = (int)(base[t + 1] - base[t]) * L->row_h;
        if (t % 2)
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f2f2f2\"/>\n", L->left, y,
                    L->plot_w, h);
        if (t % label_every == 0 && h > 0) {
            fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", L->left - 6, y + (h < 11 ? 9 : h / 2 + 4));
            fprintf(f, track_label, t);
            fprintf(f, "</text>\n");
        }
    }
}

/* One rectangle per interval, coloured by name (key) or else by interval, with a tooltip and a label where
 * they are wanted and fit. */
static void draw_intervals(FILE *f, const svg_layout *L, const cli_interval *iv, size_t n, const uint32_t *base,
                           const size_t *key, const char *unit)
{
    double sx = L->plot_w / (L->t1 - L->t0);
    int row_h = L->row_h;
    /* a 1440p grid has tens of thousands of intervals: no tooltips then, to keep the file small */
    int tooltips = n <= 5000;
    for (size_t i = 0; i < n; i++) {
        double x = L->left + (iv[i].start - L->t0) * sx, w = (iv[i].end - iv[i].start) * sx;
        int y = L->top + (int)(base[iv[i].track] + iv[i].row) * row_h;
        const struct colour *c = &palette[(key ? key[i] : i) % PALETTE]; /* by name with a legend, else by interval */
        fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"", x, y, w < 0.5 ? 0.5 : w,
                row_h, c->fill);
        if (!tooltips) {
            fprintf(f, "/>\n");
            continue;
        }
        fprintf(f, " stroke=\"white\" stroke-width=\"%s\"><title>", row_h >= 6 ? "0.5" : "0");
        text_xml(f, iv[i].name, (size_t)-1, 0);
        fprintf(f, ": %.4g..%.4g %s</title></rect>\n", iv[i].start, iv[i].end, unit);
        /* a label only where it fits: 10 px text is 13 px tall in the browser's box, centred in the row */
        if (row_h >= 14 && w > 3 + text_monospace_width(iv[i].name, 10) + 3) {
            fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" font-size=\"10\" dominant-baseline=\"central\" fill=\"%s\">",
                    x + 3, y + row_h / 2.0, c->ink);
            text_xml(f, iv[i].name, (size_t)-1, 0);
            fprintf(f, "</text>\n");
        }
    }
}

/* The time axis: five ticks; on a whole-number clock (the replay's steps) each rounded to a whole number and
 * drawn where that number is, so a two-step dispatch has ticks 0, 1, 2, never "0.5 steps". */
static void draw_time_axis(FILE *f, const svg_layout *L, const cli_interval *iv, size_t n, const char *unit)
{
    double t0 = L->t0, t1 = L->t1, sx = L->plot_w / (t1 - t0);
    int integral = 1;
    for (size_t i = 0; i < n && integral; i++)
        integral = iv[i].start == floor(iv[i].start) && iv[i].end == floor(iv[i].end);
    int axis_y = L->top + L->rows_h + 4;
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", L->left, axis_y,
            L->left + L->plot_w, axis_y);
    double last_tick = -INFINITY;
    for (int k = 0; k <= 4; k++) {
        double t = t0 + (t1 - t0) * k / 4;
        if (integral)
            t = k == 4 ? t1 : floor(t + 0.5);
        if (t <= last_tick || (k < 4 && t >= t1)) /* the end's tick is the last one's, anchored at the end */
            continue;
        last_tick = t;
        int x = L->left + (int)((t - t0) * sx + 0.5);
        /* the last label ends at the axis' end so that it stays inside the picture */
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>"
                   "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\">",
                x, axis_y, x, axis_y + 4, x, axis_y + 16, k == 4 ? "end" : k == 0 ? "start" : "middle");
        axis_value(f, t, unit);
        fprintf(f, "</text>\n");
    }
}

/* The histogram of durations: log10 bins when they span more than 50x (as tracy and article 001 do). */
static void draw_histogram(FILE *f, const svg_layout *L, const cli_interval *iv, size_t n, const char *unit)
{
    enum { BINS = 30 };
    const int left = L->left, plot_w = L->plot_w, hist_top = L->hist_top, hist_h = L->hist_h;
    const double dmin = L->dmin, dmax = L->dmax;
    uint64_t count[BINS] = {0}, most = 0;
    int logs = dmin > 0 && dmax / dmin > 50;
    double lo = logs ? log10(dmin) : dmin, hi = logs ? log10(dmax) : dmax;
    if (hi <= lo)
        hi = lo + 1;
    for (size_t i = 0; i < n; i++) {
        double d = iv[i].end - iv[i].start, v = logs ? log10(d) : d;
        int b = (int)((v - lo) / (hi - lo) * BINS);
        b = b < 0 ? 0 : b >= BINS ? BINS - 1 : b;
        if (++count[b] > most)
            most = count[b];
    }
    /* one duration for every interval is no range: "all 3 steps", and the histogram's ends get one label */
    int one_duration = !n || dmin == dmax;
    if (one_duration)
        fprintf(f, "<text x=\"%d\" y=\"%d\">durations: %zu intervals, all %.4g %s</text>\n", left, hist_top - 8, n,
                n ? dmax : 0, unit);
    else
        fprintf(f, "<text x=\"%d\" y=\"%d\">durations: %zu intervals, %.4g to %.4g %s%s</text>\n", left,
                hist_top - 8, n, dmin, dmax, unit, logs ? " (log scale)" : "");
    int bar_w = plot_w / BINS;
    for (int b = 0; b < BINS; b++) {
        int h = most ? (int)((double)count[b] / (double)most * hist_h) : 0;
        if (count[b] && h < 1)
            h = 1;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#4e79a7\"><title>%" PRIu64
                   " intervals</title></rect>\n",
                left + b * bar_w, hist_top + hist_h - h, bar_w - 1, h, count[b]);
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", left, hist_top + hist_h,
            left + plot_w, hist_top + hist_h);
    fprintf(f, "<text x=\"%d\" y=\"%d\">", left, hist_top + hist_h + 16);
    axis_value(f, logs ? pow(10, lo) : lo, unit);
    fprintf(f, "</text>");
    if (!one_duration) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left + plot_w, hist_top + hist_h + 16);
        axis_value(f, logs ? pow(10, hi) : hi, unit);
        fprintf(f, "</text>");
    }
    fprintf(f, "\n");
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%" PRIu64 "</text>\n", left - 6, hist_top + 10, most);
}

/* The legend: a swatch and a name per colour, in lines as wide as the plot (legend_next, as layout_of counted). */
static void draw_legend(FILE *f, const svg_layout *L, const cli_interval *iv, const size_t *first, size_t names)
{
    int legend_x = 0, legend_line = 0;
    for (size_t k = 0; k < names; k++) {
        const char *name = iv[first[k]].name;
        int lx = L->left + legend_next(name, L->plot_w, &legend_x, &legend_line), ly = L->legend_top + 16 * legend_line;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\" class=\"legend\"/>"
                   "<text x=\"%d\" y=\"%d\">", lx, ly, palette[k % PALETTE].fill, lx + 16, ly + 9);
        text_xml(f, name, (size_t)-1, 0);
        fprintf(f, "</text>\n");
    }
}

int cli_timeline_svg(FILE *f, const cli_interval *iv, size_t n, const char *title, const char *unit,
                     const char *track_label, int legend)
{
    uint32_t tracks = 0, total_rows = 0;
    uint32_t *base = track_row_base(iv, n, &tracks, &total_rows);
    size_t *key = NULL, *first = NULL, names = 0;
    if (base && legend && !(key = keys_by_name(iv, n, &first, &names))) {
        free(base);
        base = NULL;
    }
    if (!base)
        return -1;
    svg_layout L = layout_of(iv, n, total_rows, title, first, names);
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"monospace\" font-size=\"11\" class=\"timeline\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"8\" y=\"16\" font-size=\"13\">",
            L.width, L.height, L.width, L.height);
    text_xml(f, title, (size_t)-1, 0);
    fprintf(f, "</text>\n");
    draw_tracks(f, &L, base, tracks, track_label);
    draw_intervals(f, &L, iv, n, base, key, unit);
    draw_time_axis(f, &L, iv, n, unit);
    draw_histogram(f, &L, iv, n, unit);
    draw_legend(f, &L, iv, first, names);
    fprintf(f, "</svg>\n");
    free(base);
    free(key);
    free(first);
    return ferror(f) ? -1 : 0;
}

int cli_timeline_trace_json(FILE *f, const cli_interval *iv, size_t n, const char *process, const char *track_label,
                            double us_per_unit)
{
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":");
    text_json(f, process);
    fprintf(f, "}}");
    /* one thread per (track, row): Perfetto and chrome://tracing draw each as a line */
    uint32_t tracks = 0, total = 0;
    uint32_t *base = track_row_base(iv, n, &tracks, &total);
    if (!base)
        return -1;
    for (uint32_t t = 0; t < tracks; t++)
        for (uint32_t r = base[t]; r < base[t + 1]; r++) {
            char label[96], name[128];
            snprintf(label, sizeof label, track_label, t);
            snprintf(name, sizeof name, "%s row %u", label, r - base[t]);
            fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"args\":{\"name\":", r + 1);
            text_json(f, name);
            fprintf(f, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
                       "\"args\":{\"sort_index\":%u}}",
                    r + 1, r + 1);
        }
    for (size_t i = 0; i < n; i++) {
        fprintf(f, ",\n{\"name\":");
        text_json(f, iv[i].name);
        fprintf(f, ",\"cat\":");
        text_json(f, iv[i].category[0] ? iv[i].category : "interval");
        fprintf(f, ",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.6f,\"dur\":%.6f,"
                   "\"args\":{\"track\":%u,\"row\":%u,\"start\":%.6g,\"end\":%.6g}}",
                base[iv[i].track] + iv[i].row + 1,
                iv[i].start * us_per_unit, (iv[i].end - iv[i].start) * us_per_unit, iv[i].track, iv[i].row,
                iv[i].start, iv[i].end);
    }
    fprintf(f, "\n]}\n");
    free(base);
    return ferror(f) ? -1 : 0;
}

int cli_timeline_from_memory(const mem_model *mm, cli_interval **out, size_t *count, double *us_per_step)
{
    uint32_t n = 0, g3[3], waves = 0;
    const mem_group_stats *gs = mem_model_group_stats(mm, &n, g3);
    const uint32_t *wave_end = mem_model_wave_end_steps(mm, &waves);
    const mem_stats *s = mem_model_stats(mm);
    const mem_estimate *e = mem_model_estimate(mm);
    size_t total = (size_t)n * waves;
    cli_interval *iv = calloc(total ? total : 1, sizeof *iv);
    if (!iv)
        return -1;
    for (uint32_t g = 0; g < n; g++)
        for (uint32_t k = 0; k < waves; k++) {
            cli_interval *x = &iv[(size_t)g * waves + k];
            /* a wave launches with its group and is done after the step of its last memory instruction */
            x->start = gs[g].launch_step;
            x->end = (double)wave_end[(size_t)g * waves + k] + 1;
            x->track = gs[g].cu;
            snprintf(x->name, sizeof x->name, "wg (%u,%u,%u) wave %u", g % g3[0], g / g3[0] % g3[1],
                     g / (g3[0] * g3[1]), k);
            snprintf(x->category, sizeof x->category, "wave");
        }
    /* steps are the replay's clock; the estimate says how long the whole dispatch takes */
    *us_per_step = s->replay_steps && e->microseconds > 0 ? e->microseconds / (double)s->replay_steps : 1;
    *out = iv;
    *count = total;
    return 0;
}

/* ------------------------------------------------------------ wavelab timeline */

int cli_cmd_timeline(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_timeline, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    const char *case_path = o.nargs ? o.args[0] : NULL, *machine = o.machine ? o.machine : CLI_DEFAULT_MACHINE;
    const char *svg_path = o.svg, *trace_path = o.trace;
    if (!case_path) {
        fprintf(stderr, "wavelab timeline: no case file given (wavelab timeline --help)\n");
        return RUN_EXIT_BAD_INPUT;
    }
    char err[4096];
    wl_case *c = NULL;
    if (case_load(case_path, &c, err, sizeof err) != CASE_OK) {
        fprintf(stderr, "%s\n", err);
        return RUN_EXIT_BAD_INPUT;
    }
    run_options opt = cli_run_options(&o);
    if (cli_memory_open(machine, -1, 1, c, &opt) != 0) {
        case_destroy(c);
        return RUN_EXIT_BAD_INPUT;
    }
    run_output out;
    cli_progress progress;
    opt.progress = cli_progress_start(&progress, 0);
    int rc = run_case_sim(c, &opt, &out, err, sizeof err);
    if (out.optimizer_note[0])
        fprintf(stderr, "wavelab timeline: %s\n", out.optimizer_note);
    cli_progress_end(&progress);
    cli_interval *iv = NULL;
    size_t n = 0;
    double us = 1;
    if (rc == RUN_EXIT_BAD_INPUT)
        fprintf(stderr, "%s\n", err);
    else if (rc == RUN_EXIT_FAIL)
        fprintf(stderr, "fault: %s\n", out.result.fault_event.message);
    else if (cli_timeline_from_memory(opt.memory, &iv, &n, &us) != 0) {
        fprintf(stderr, "out of memory\n");
        rc = RUN_EXIT_BAD_INPUT;
    }
    uint32_t rows = 0;
    if (rc == RUN_EXIT_OK && cli_timeline_rows(iv, n, &rows) != 0) {
        fprintf(stderr, "out of memory\n");
        rc = RUN_EXIT_BAD_INPUT;
    }
    if (rc == RUN_EXIT_OK) {
        const mem_machine *mc = mem_model_machine(opt.memory);
        const mem_stats *s = mem_model_stats(opt.memory);
        printf("timeline on %s: %zu waves on %u CUs, at most %u at once on one CU (%u workgroups fit), %" PRIu64
               " replay steps = %.4g us (%.4g us per step)\n",
               mc->name, n, mc->compute_units, rows, mem_model_workgroups_per_cu(opt.memory), s->replay_steps,
               us * (double)s->replay_steps, us);
        char title[256];
        const uint32_t *ls = out.prog->local_size;
        uint32_t waves = (ls[0] * ls[1] * ls[2] + out.wave_size - 1) / out.wave_size;
        snprintf(title, sizeof title, "waves on the compute units of %s (%u per workgroup, wave %u; rows = wave slots "
                 "in use)", mc->name, waves, out.wave_size);
        char process[160];
        snprintf(process, sizeof process, "wavelab model of %s: %s", mc->name, case_path);
        FILE *f;
        if (svg_path) {
            if (!(f = fopen(svg_path, "w")) || cli_timeline_svg(f, iv, n, title, "steps", "CU %u", 0) != 0 ||
                fclose(f) != 0) {
                fprintf(stderr, "%s: cannot write: %s\n", svg_path, strerror(errno));
                rc = RUN_EXIT_BAD_INPUT;
            }
        }
        if (trace_path && rc == RUN_EXIT_OK) {
            if (!(f = fopen(trace_path, "w")) || cli_timeline_trace_json(f, iv, n, process, "CU %u", us) != 0 ||
                fclose(f) != 0) {
                fprintf(stderr, "%s: cannot write: %s\n", trace_path, strerror(errno));
                rc = RUN_EXIT_BAD_INPUT;
            }
        }
    }
    free(iv);
    run_output_free(&out);
    mem_model_destroy(opt.memory);
    case_destroy(c);
    return rc;
}
