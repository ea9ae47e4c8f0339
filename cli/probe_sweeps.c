/*
 * cli/probe_sweeps.c — the sweeps of `wavelab probe` (cli/probe.c is the command and the preset): the
 * kernels of the probe/ folder run through the Vulkan backend's probe session, timed with GPU timestamps,
 * and the analyses that read a preset's values off each sweep (thresholds relative to the sweep's own
 * baseline; docs/probe.md has the method and the rules).
 *
 *   subgroup  a ballot at every subgroup size the device lists
 *   lds       shared-memory stride sweep: time per read vs stride (words)
 *   chase     pointer chase over growing footprints: latency per load vs lines
 *   line      dense chase at 2 x the L1's lines: latency vs block size
 *   stride    sequential chase in random 1 KiB blocks, L1 and L2 misses: latency vs stride
 *   assoc     k lines one L1 capacity apart (one set): latency vs k
 *   copy      streaming copy: DRAM bandwidth
 *   l2 rate   scattered one-sector loads, whole lines, adjacent sectors from a buffer the L2 holds: the L2's
 *             request and byte rates and the L1's miss merging
 *   atomic    atomic adds to one line, to one word, and spread over many lines: whether a line's atomics are done
 *             one after another, and how long each takes; shared-memory atomics to distinct words and to one, and
 *             a plain read-modify-write beside them
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/probe_internal.h"
#include "isa/isa.h"

/* ------------------------------------------------------------- small helpers */

static uint64_t next_random(uint64_t *s) /* splitmix64: a fixed stream, so chains are the same every run */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double probe_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void shuffle(uint32_t *v, size_t n, uint64_t *rng)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(next_random(rng) % i);
        uint32_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

static uint32_t pow2_floor(uint64_t v)
{
    uint32_t p = 1;
    while ((uint64_t)p * 2 <= v && p < (1u << 31))
        p *= 2;
    return p;
}

static uint32_t pow2_ceil(uint64_t v)
{
    uint32_t p = 1;
    while (p < v && p < (1u << 31))
        p *= 2;
    return p;
}

/* ------------------------------------------------------------- kernels and timing */

static int use_kernel(probe *pr, const char *file, uint32_t local, uint32_t wave)
{
    char path[640], value[16];
    snprintf(path, sizeof path, "%s/%s", pr->kernel_dir, file);
    snprintf(value, sizeof value, "%u", local);
    isa_define def = {"LOCAL", value};
    isa_compile_options o = {.path = path, .language = "glsl", .defines = &def, .define_count = 1};
    uint32_t *words = NULL;
    size_t count = 0;
    if (isa_compile(&o, &words, &count, pr->err, sizeof pr->err, NULL, 0) != ISA_OK)
        return 0;
    vkb_status st = vkb_probe_kernel(pr->p, words, count, wave, pr->err, sizeof pr->err);
    free(words);
    return st == VKB_OK;
}

/*
 * Times the chase kernel (or the LDS kernel: push word 1 = stride) on what is in the buffers now: one
 * submission of a warm-up of `warm` loads, then reps pairs (0 loads, N loads).  *ns = median over the pairs
 * of the difference / N; lo, hi the extremes.  Returns 0 on error (pr->err).
 */
static int time_loads(probe *pr, uint32_t warm, uint32_t extra, double *ns, double *lo, double *hi)
{
    int count = 1 + 2 * pr->reps;
    vkb_probe_dispatch d[1 + 2 * 16];
    double us[1 + 2 * 16], per[16];
    memset(d, 0, sizeof d);
    for (int i = 0; i < count; i++) {
        d[i].groups[0] = d[i].groups[1] = d[i].groups[2] = 1;
        d[i].push[0] = i == 0 ? warm : (i % 2 ? 0 : pr->timed_loads);
        d[i].push[1] = extra;
    }
    if (vkb_probe_run(pr->p, d, count, us, pr->err, sizeof pr->err) != VKB_OK)
        return 0;
    /* against the median of the empty dispatches: one preempted empty dispatch (a CPU device shares its host)
     * cannot make a repetition negative */
    double empty[16];
    for (int r = 0; r < pr->reps; r++)
        empty[r] = us[1 + 2 * r];
    double t0 = probe_median(empty, pr->reps);
    pr->last_empty_us = t0;
    pr->last_empty_lo = empty[0]; /* probe_median() sorted them */
    pr->last_empty_hi = empty[pr->reps - 1];
    for (int r = 0; r < pr->reps; r++) /* no load takes negative time: a slow empty dispatch is noise */
        per[r] = fmax(0.0, (us[2 + 2 * r] - t0) * 1000.0 / pr->timed_loads);
    *ns = probe_median(per, pr->reps);
    *lo = per[0];
    *hi = per[pr->reps - 1]; /* probe_median() sorted them */
    return 1;
}

/* Uploads a chain (next[] of `words` words, the chase starting at `start`) and times it. */
static int time_chain(probe *pr, const uint32_t *chain, size_t words, uint32_t start, uint32_t warm, double *ns,
                      double *lo, double *hi)
{
    uint32_t state[4] = {start, 0, 0, 0};
    if (vkb_probe_buffer(pr->p, 0, words * 4, chain, pr->err, sizeof pr->err) != VKB_OK ||
        vkb_probe_buffer(pr->p, 1, sizeof state, state, pr->err, sizeof pr->err) != VKB_OK)
        return 0;
    return time_loads(pr, warm, 0, ns, lo, hi);
}

void probe_add_point(sweep *s, double x, double y, double lo, double hi)
{
    if (s->n < MAX_POINTS) {
        s->x[s->n] = x;
        s->y[s->n] = y;
        s->lo[s->n] = lo;
        s->hi[s->n] = hi;
        s->n++;
    }
}

/* The first point from `from` on whose latency is above thr and stays above it at the next point (one noisy
 * point on a shared CPU device must not make a knee); -1 when none. */
static int first_above(const sweep *s, int from, double thr)
{
    for (int i = from; i < s->n; i++)
        if (s->y[i] > thr && (i + 1 == s->n || s->y[i + 1] > thr))
            return i;
    return -1;
}

/* The median of the three largest latencies: the level a sweep ends in, without one outlier. */
static double top3(const sweep *s)
{
    double v[MAX_POINTS];
    memcpy(v, s->y, (size_t)s->n * sizeof *v);
    qsort(v, (size_t)s->n, sizeof *v, cmp_double);
    return s->n >= 3 ? v[s->n - 2] : v[s->n - 1];
}

/* ------------------------------------------------------------- chains */

/*
 * n elements, one per `block` bytes at a random 4-byte offset inside its block (so that blocks larger than a
 * line still spread over every cache set), visited in a random cyclic order.  Returns the array (words =
 * n * block / 4) and the start index, or NULL.
 */
/* One point of a chase sweep: times `chain` (NULL: it could not be built), frees it and adds the point at x. */
static int chase_point(probe *pr, sweep *s, double x, uint32_t *chain, size_t words, uint32_t start, uint32_t warm)
{
    if (!chain) {
        snprintf(pr->err, sizeof pr->err, "out of memory");
        return 0;
    }
    double ns, lo, hi;
    int ok = time_chain(pr, chain, words, start, warm, &ns, &lo, &hi);
    free(chain);
    if (ok)
        probe_add_point(s, x, ns, lo, hi);
    return ok;
}

static uint32_t *chain_blocks(probe *pr, size_t n, uint32_t block, size_t *words, uint32_t *start)
{
    *words = n * block / 4;
    uint32_t *chain = calloc(*words ? *words : 1, 4);
    uint32_t *order = malloc(n * sizeof *order);
    if (!chain || !order) {
        free(chain);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)(i * (block / 4) + next_random(&pr->rng) % (block / 4));
    shuffle(order, n, &pr->rng);
    for (size_t i = 0; i < n; i++)
        chain[order[i]] = order[(i + 1) % n];
    *start = order[0];
    free(order);
    return chain;
}

/* `footprint` bytes as 1 KiB regions in random order, each walked at `stride` bytes from its start. */
static uint32_t *chain_strided(probe *pr, size_t footprint, uint32_t stride, size_t *words, uint32_t *start)
{
    size_t regions = footprint / 1024, per = 1024 / stride;
    *words = footprint / 4;
    uint32_t *chain = calloc(*words, 4);
    uint32_t *order = malloc(regions * sizeof *order);
    if (!chain || !order) {
        free(chain);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < regions; i++)
        order[i] = (uint32_t)i;
    shuffle(order, regions, &pr->rng);
    uint32_t first = order[0] * 256, prev = first;
    for (size_t r = 0; r < regions; r++)
        for (size_t k = 0; k < per; k++) {
            uint32_t here = order[r] * 256 + (uint32_t)(k * stride / 4);
            if (r || k)
                chain[prev] = here;
            prev = here;
        }
    chain[prev] = first;
    *start = first;
    free(order);
    return chain;
}



int probe_sweep_subgroups(probe *pr, results *r)
{
    uint32_t lo = pr->info.min_subgroup_size ? pr->info.min_subgroup_size : pr->info.subgroup_size;
    uint32_t hi = pr->info.max_subgroup_size ? pr->info.max_subgroup_size : pr->info.subgroup_size;
    uint32_t result[256];
    for (uint32_t w = lo; w <= hi && w && r->wave_count < 8; w *= 2) {
        if (!use_kernel(pr, "ballot.comp", 1, w == pr->info.subgroup_size ? 0 : w)) {
            if (getenv("WAVELAB_PROBE_DEBUG"))
                fprintf(stderr, "ballot w=%u: %s\n", w, pr->err);
            continue;
        } /* the device lists the size but cannot require it: not counted */
        vkb_probe_dispatch d = {.groups = {1, 1, 1}};
        double us;
        if (vkb_probe_buffer(pr->p, 2, sizeof result, NULL, pr->err, sizeof pr->err) != VKB_OK ||
            vkb_probe_run(pr->p, &d, 1, &us, pr->err, sizeof pr->err) != VKB_OK ||
            vkb_probe_read(pr->p, 2, result, sizeof result, pr->err, sizeof pr->err) != VKB_OK)
            return 0;
        int all = 1;
        if (getenv("WAVELAB_PROBE_DEBUG"))
            fprintf(stderr, "ballot w=%u: %u %u\n", w, result[0], result[1]);
        for (int i = 0; i < 128; i++)
            all &= result[2 * i] == w && result[2 * i + 1] == w;
        if (all)
            r->wave_sizes[r->wave_count++] = w;
    }
    r->waves_measured = r->wave_count > 0;
    r->default_wave = pr->info.subgroup_size;
    return 1;
}

/* Banks: the smallest power-of-two stride from which time stops growing (every lane in one bank), when it grew
 * at all (more than 1.5 x stride 1's time); w = the subgroup size the sweep ran at. */
void probe_analyze_lds(const sweep *s, uint32_t w, results *r)
{
    if (s->n < 1)
        return;
    /* banks: the smallest power-of-two stride from which time stops growing (every lane in one bank), when
     * it grew at all (more than 1.5 x stride 1's time) */
    double base = s->y[0], top = base;
    for (int i = 0; i < s->n; i++)
        top = fmax(top, s->y[i]);
    r->lds_base_ns = base;
    if (top > 1.5 * base) {
        for (int i = 0; i < s->n; i++) {
            uint32_t st = (uint32_t)s->x[i];
            if ((st & (st - 1)) || st < 2)
                continue;
            double next = -1;
            for (int j = 0; j < s->n; j++)
                if ((uint32_t)s->x[j] == 2 * st)
                    next = s->y[j];
            /* saturated: every larger power-of-two stride is as slow (all lanes in one bank) */
            int saturated = 1;
            for (int j = 0; j < s->n; j++) {
                uint32_t sj = (uint32_t)s->x[j];
                if (sj > st && !(sj & (sj - 1)) && s->y[j] < 0.85 * s->y[i])
                    saturated = 0;
            }
            if (next > 0 && saturated && s->y[i] > 1.5 * base && next < 1.15 * s->y[i] && s->y[i] > 0.8 * top) {
                r->lds_banks = st;
                r->lds_measured = 1;
                r->lds_pass_ns = (s->y[i] - base) / (w > 1 ? w - 1 : 1);
                break;
            }
        }
    }
}

int probe_sweep_lds(probe *pr, results *r)
{
    uint32_t w = pr->info.subgroup_size;
    if (!use_kernel(pr, "lds.comp", w, 0))
        return 0;
    static const uint32_t quick_strides[] = {1, 2, 4, 8, 16, 32, 64, 128};
    static const uint32_t full_strides[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 17, 24, 32, 33, 48, 64, 96, 128};
    const uint32_t *strides = pr->quick ? quick_strides : full_strides;
    size_t n = pr->quick ? sizeof quick_strides / 4 : sizeof full_strides / 4;
    uint32_t state[4] = {0};
    if (vkb_probe_buffer(pr->p, 1, sizeof state, state, pr->err, sizeof pr->err) != VKB_OK)
        return 0;
    sweep *s = &r->s_lds;
    for (size_t i = 0; i < n; i++) {
        double ns, lo, hi;
        if (!time_loads(pr, pr->timed_loads / 4, strides[i], &ns, &lo, &hi))
            return 0;
        probe_add_point(s, strides[i], ns, lo, hi);
    }
    probe_analyze_lds(s, w, r);
    return 1;
}

/*
 * The chase's levels.  L1: the last point before latency steps up by more than 20 % from one point to the next
 * or passes 1.5 x the median of the three smallest footprints, and stays up at the next point (a slow drift, as
 * a TLB adds within the L1 plateau, is not a cache level).  The last level: its plateau starts at the first
 * point after the L1 from which latency stays within 5 % for two more points (the floor); it ends at the last
 * point before latency passes floor + 30 % of the way to DRAM (the median of the three largest footprints).
 */
void probe_analyze_chase(const sweep *s, int cpu, results *r)
{
    if (s->n < 6)
        return;
    double first[3] = {s->y[0], s->y[1], s->y[2]}, last[3] = {s->y[s->n - 1], s->y[s->n - 2], s->y[s->n - 3]};
    double base = probe_median(first, 3), dram = probe_median(last, 3);
    r->l1_ns = base;
    int e1 = -1;
    for (int i = 1; i + 1 < s->n; i++) {
        double thr = fmin(1.2 * s->y[i - 1], 1.5 * base);
        if (s->y[i] > thr && s->y[i + 1] > thr) {
            e1 = i - 1;
            break;
        }
    }
    if (e1 >= 2 && e1 < s->n - 3) {
        r->l1_measured = 1;
        r->l1_lines = s->x[e1];
    }
    r->dram_ns = dram;
    int j = e1 + 1;
    while (j + 2 < s->n && !(s->y[j + 1] <= 1.05 * s->y[j] && s->y[j + 2] <= 1.05 * s->y[j + 1] &&
                             s->y[j + 1] >= 0.95 * s->y[j]))
        j++;
    if (j + 2 >= s->n)
        return;
    double floor_ns = s->y[j];
    r->l2_ns = floor_ns;
    r->l2_floor_lines = s->x[j];
    if (floor_ns > 0 && dram > 1.3 * floor_ns) {
        int i = first_above(s, j, floor_ns + 0.3 * (dram - floor_ns));
        if (i - 1 >= j) {
            r->l2_measured = 1;
            r->l2_lines = s->x[i - 1];
            /* two levels inside it (GPUs only: on a CPU that is its L2 and L3): a sustained step above 1.2 x
             * the floor that ends before the last level does */
            int k = cpu ? -1 : first_above(s, j, 1.2 * floor_ns);
            if (k > j && k < i - 1) {
                r->l2_step_measured = 1;
                r->l2_step_lines = s->x[k - 1];
            }
        }
    }
}

/* The chase over growing numbers of lines; finds the L1 and the last cache level. */
int probe_sweep_chase(probe *pr, results *r)
{
    if (!use_kernel(pr, "chase.comp", 1, 0))
        return 0;
    size_t max_lines = pr->quick ? (pr->cpu ? 1u << 17 : 1u << 20) : (pr->cpu ? 1u << 19 : 1u << 21);
    uint32_t warm_cap = pr->cpu ? 1u << 18 : 1u << 20;
    sweep *s = &r->s_chase;
    /* 16, 24, 32, 48, ... lines (powers of two and halfway between); --quick: powers of two */
    for (size_t k = 0;; k++) {
        size_t n = pr->quick ? (size_t)16 << k : (k % 2 ? (size_t)24 << (k / 2) : (size_t)16 << (k / 2));
        if (n > max_lines)
            break;
        size_t words = 0;
        uint32_t start = 0;
        uint32_t *chain = chain_blocks(pr, n, BLOCK, &words, &start);
        if (!chase_point(pr, s, (double)n, chain, words, start, (uint32_t)(n < warm_cap ? 2 * n : warm_cap)))
            return 0;
        if (s->n == 1) {
            r->dispatch_us = pr->last_empty_us;
            probe_add_point(&r->s_dispatch, 0, pr->last_empty_us, pr->last_empty_lo, pr->last_empty_hi);
        }
    }
    probe_analyze_chase(s, pr->cpu, r);
    return 1;
}

void probe_analyze_line(const sweep *s, results *r)
{
    if (s->n < 3)
        return;
    double hit = fmin(s->y[0], s->y[1]), miss = top3(s); /* b = 8 and 16 share lines on any cache */
    /* the first b past halfway that is also a step (> 1.3 x the previous b): a slow rise as the elements spread
     * over more pages is not a line boundary */
    double mid = hit + 0.5 * (miss - hit);
    for (int i = 1; miss > 1.3 * hit && i < s->n; i++)
        if (s->y[i] > mid && s->y[i] > 1.3 * s->y[i - 1] && (i + 1 == s->n || s->y[i + 1] > mid)) {
            r->line_measured = 1;
            r->line_bytes = (uint32_t)s->x[i];
            break;
        }
}

/* Line (tag) size: 2 x the L1's lines (as the chase saw them: up to 1.5 x short of the true capacity, its
 * steps are 1.5 x) of elements placed densely at `b` bytes: while b <= line / 2 they share lines and fit,
 * from b = line on each needs a line of its own and they do not. */
int probe_sweep_line(probe *pr, results *r)
{
    if (!r->l1_measured)
        return 1;
    size_t n = (size_t)(r->l1_lines * 2);
    sweep *s = &r->s_line;
    for (uint32_t b = 8; b <= 512; b *= 2) {
        size_t words = 0;
        uint32_t start = 0;
        uint32_t *chain = chain_blocks(pr, n, b, &words, &start);
        if (!chase_point(pr, s, b, chain, words, start, (uint32_t)(4 * n)))
            return 0;
    }
    probe_analyze_line(s, r);
    return 1;
}

/* The fetch granule: the first stride at 70 % of the way from the lowest latency to the three highest's median. */
void probe_analyze_stride(const sweep *s, int *measured, uint32_t *granule)
{
    if (s->n < 3)
        return;
    double ymin = s->y[0], ymax = top3(s);
    for (int i = 0; i < s->n; i++)
        ymin = fmin(ymin, s->y[i]);
    int i = ymax > 1.3 * ymin ? first_above(s, 0, ymin + 0.7 * (ymax - ymin)) : -1;
    if (i >= 0) {
        *measured = 1;
        *granule = (uint32_t)s->x[i];
    }
}

/* Fetch granule (sector) of a level: sequential strides through a footprint that misses it. */
int probe_sweep_stride(probe *pr, sweep *s, size_t footprint, int *measured, uint32_t *granule)
{
    size_t cap = pr->info.max_storage_buffer_range < (1u << 30) ? pr->info.max_storage_buffer_range : 1u << 30;
    if (footprint > cap)
        footprint = cap;
    footprint = (footprint + 1023) / 1024 * 1024;
    if (footprint > cap)
        footprint -= 1024;
    for (uint32_t stride = 4; stride <= 512; stride *= 2) {
        size_t words = 0, loads = footprint / stride;
        uint32_t start = 0;
        uint32_t *chain = chain_strided(pr, footprint, stride, &words, &start);
        if (!chase_point(pr, s, stride, chain, words, start, (uint32_t)(loads < (1u << 20) ? loads : 1u << 20)))
            return 0;
    }
    probe_analyze_stride(s, measured, granule);
    return 1;
}

void probe_analyze_assoc(const sweep *s, results *r)
{
    if (s->n < 8)
        return;
    /* above 40 % of the way from the first three's median to the last five's (the next level) */
    double first[3] = {s->y[0], s->y[1], s->y[2]}, last[5];
    for (int j = 0; j < 5; j++)
        last[j] = s->y[s->n - 1 - j];
    double base = probe_median(first, 3), next = probe_median(last, 5);
    int i = next > 1.15 * base ? first_above(s, 1, base + 0.4 * (next - base)) : -1;
    if (i > 0) {
        r->ways_measured = 1;
        r->l1_ways = (uint32_t)s->x[i - 1];
    }
}

/* Associativity hint: k lines one (power-of-two) L1 capacity apart all fall in one set of a modulo-mapped
 * cache; they hit while k <= ways. */
int probe_sweep_assoc(probe *pr, results *r, uint32_t line)
{
    if (!r->l1_measured)
        return 1;
    uint32_t spacing = pow2_ceil((uint64_t)(r->l1_lines * line));
    uint32_t kmax = pr->quick ? 24 : 40;
    if ((uint64_t)spacing * kmax > (1ull << 30) || (uint64_t)spacing * kmax > pr->info.max_storage_buffer_range)
        return 1; /* an L1 this large: the hint would need more than a GiB */
    size_t words = (size_t)spacing / 4 * kmax;
    uint32_t *chain = malloc(words * 4);
    if (!chain) {
        snprintf(pr->err, sizeof pr->err, "out of memory");
        return 0;
    }
    sweep *s = &r->s_assoc;
    for (uint32_t k = 1; k <= kmax; k++) {
        memset(chain, 0, words * 4);
        uint32_t order[64];
        for (uint32_t i = 0; i < k; i++)
            order[i] = i * (spacing / 4);
        shuffle(order, k, &pr->rng);
        for (uint32_t i = 0; i < k; i++)
            chain[order[i]] = order[(i + 1) % k];
        double ns, lo, hi;
        if (!time_chain(pr, chain, (size_t)spacing / 4 * k, order[0], 64 * k, &ns, &lo, &hi)) {
            free(chain);
            return 0;
        }
        probe_add_point(s, k, ns, lo, hi);
    }
    free(chain);
    probe_analyze_assoc(s, r);
    return 1;
}

/* A streaming sweep's buffer: its size by device kind and --quick, at most what one storage buffer may span. */
static size_t sweep_buffer_bytes(const probe *pr, size_t cpu_quick, size_t cpu, size_t gpu_quick, size_t gpu)
{
    size_t bytes = pr->cpu ? (pr->quick ? cpu_quick : cpu) : (pr->quick ? gpu_quick : gpu);
    if (bytes > pr->info.max_storage_buffer_range)
        bytes = pow2_floor(pr->info.max_storage_buffer_range);
    return bytes;
}

/* Workgroups enough to fill the device (a CPU device: fewer), within its dispatch limit. */
static uint32_t sweep_fill_groups(const probe *pr)
{
    uint32_t groups = pr->cpu ? 64 : 4096;
    return groups > pr->info.max_compute_workgroup_count[0] ? pr->info.max_compute_workgroup_count[0] : groups;
}

int probe_sweep_copy(probe *pr, results *r)
{
    if (!use_kernel(pr, "copy.comp", 1, 0))
        return 0;
    size_t bytes = sweep_buffer_bytes(pr, 32u << 20, 128u << 20, 256u << 20, 1024u << 20);
    if (vkb_probe_buffer(pr->p, 0, bytes, NULL, pr->err, sizeof pr->err) != VKB_OK ||
        vkb_probe_buffer(pr->p, 2, bytes, NULL, pr->err, sizeof pr->err) != VKB_OK)
        return 0;
    uint32_t groups = sweep_fill_groups(pr);
    int count = 2 + pr->reps;
    vkb_probe_dispatch d[2 + 16];
    double us[2 + 16];
    memset(d, 0, sizeof d);
    for (int i = 0; i < count; i++) {
        d[i].groups[0] = groups;
        d[i].groups[1] = d[i].groups[2] = 1;
        d[i].push[0] = (uint32_t)(bytes / 16);
        d[i].push[1] = groups * 256;
    }
    if (vkb_probe_run(pr->p, d, count, us, pr->err, sizeof pr->err) != VKB_OK)
        return 0;
    double rate[16];
    for (int i = 0; i < pr->reps; i++) {
        rate[i] = 2.0 * (double)bytes / us[2 + i]; /* bytes per microsecond */
        probe_add_point(&r->s_copy, i, rate[i] / 1000.0, rate[i] / 1000.0, rate[i] / 1000.0);
    }
    r->bytes_per_us = probe_median(rate, pr->reps);
    r->bw_measured = r->bytes_per_us > 0;
    /* the buffers are large: give the memory back before anything else runs */
    if (vkb_probe_buffer(pr->p, 0, 16, NULL, pr->err, sizeof pr->err) != VKB_OK ||
        vkb_probe_buffer(pr->p, 2, 16, NULL, pr->err, sizeof pr->err) != VKB_OK)
        return 0;
    return 1;
}


void probe_init_sweeps(results *r)
{
    r->s_lds = (sweep){.file = "lds_stride.csv", .x_min = 1, .x_name = "stride_words", .y_name = "ns_per_read"};
    r->s_chase = (sweep){.file = "chase.csv", .x_min = 1, .x_name = "lines", .y_name = "ns_per_load"};
    r->s_line = (sweep){.file = "line.csv", .x_min = 1, .x_name = "block_bytes", .y_name = "ns_per_load"};
    r->s_l1_stride = (sweep){.file = "l1_stride.csv", .x_min = 1, .x_name = "stride_bytes", .y_name = "ns_per_load"};
    r->s_l2_stride = (sweep){.file = "l2_stride.csv", .x_min = 1, .x_name = "stride_bytes", .y_name = "ns_per_load"};
    r->s_assoc = (sweep){.file = "assoc.csv", .x_min = 1, .x_name = "lines_in_one_set", .y_name = "ns_per_load"};
    r->s_copy = (sweep){.file = "copy.csv", .x_min = 0, .x_name = "repetition", .y_name = "gb_per_s"};
    r->s_dispatch = (sweep){.file = "dispatch.csv", .x_min = 0, .x_name = "loads", .y_name = "us_per_dispatch"};
    r->s_l2_rate = (sweep){.file = "l2_rate.csv", .x_min = 0, .x_name = "mode", .y_name = "g_sectors_per_s"};
    r->s_l2_footprint = (sweep){.file = "l2_footprint.csv", .x_min = 1, .x_name = "buffer_bytes", .y_name = "g_sectors_per_s"};
    r->s_atomic = (sweep){.file = "atomic.csv", .x_min = 0, .x_name = "mode", .y_name = "g_ops_per_s"};
    r->s_atomic_lines = (sweep){.file = "atomic_lines.csv", .x_min = 1, .x_name = "lines", .y_name = "g_ops_per_s"};
}


/*
 * The L2's rates, read off l2_rate.csv (x = mode: 0 scattered one-sector loads, 1 whole lines, 2 adjacent
 * sectors; y = G sectors per second), in this order of conditions:
 *   served by the L2: the whole-line byte rate is above L2_OVER_DRAM x the copy's DRAM rate (else the buffer
 *     did not stay in a cache level faster than DRAM and nothing here is the L2's);
 *   bytes: the whole-line rate x 32 bytes;
 *   request bound: the one-sector mode's sector rate is clearly below the whole-line mode's (it moves the same
 *     bytes in 4 x the requests; where requests cost nothing extra the rates are equal): its fastest repetition
 *     below REQUEST_BOUND x the whole-line mode's slowest, so that noise on a shared CPU device does not make a
 *     request bound; then its median rate, one request per sector, is the request rate;
 *   merge: request bound, and the adjacent mode request bound too (its fastest repetition below REQUEST_BOUND x
 *     the whole-line mode's slowest: where it runs as fast as whole lines, the kernel's own issue rate bounds both
 *     and the merge cannot be read; on the H100 both run at 216-218 G sectors/s); 3 of its 4 requests per line
 *     are merge candidates, so if a share f of them merges its time is (1 - 0.75 f) x the scattered mode's:
 *     f = (1 - t_adjacent / t_scattered) / 0.75 = (1 - rate_scattered / rate_adjacent) / 0.75, in [0, 1].
 */
#define L2_OVER_DRAM 1.2
#define REQUEST_BOUND 0.85
#define L2_PLATEAU 0.9 /* the buffer sizes whose scattered rate is within 10 % of the fastest */

/* A mode sweep's points (x = mode 0 .. modes - 1): each mode's median, slowest and fastest repetition; 0 where
 * the sweep has no row for it. */
static void mode_points(const sweep *s, int modes, double *rate, double *slowest, double *fastest)
{
    for (int m = 0; m < modes; m++)
        rate[m] = slowest[m] = fastest[m] = 0;
    for (int i = 0; i < s->n; i++)
        if (s->x[i] >= 0 && s->x[i] < modes && s->x[i] == floor(s->x[i])) {
            int mode = (int)s->x[i];
            rate[mode] = s->y[i];
            slowest[mode] = s->lo[i];
            fastest[mode] = s->hi[i];
        }
}

void probe_analyze_l2_rate(const sweep *s, results *r)
{
    double rate[3], fastest[3], slowest[3];
    mode_points(s, 3, rate, slowest, fastest);
    r->l2_scattered_gsps = rate[0];
    r->l2_line_gsps = rate[1];
    r->l2_adjacent_gsps = rate[2];
    double dram_gb_per_s = r->bw_measured ? r->bytes_per_us / 1000.0 : 0;
    if (!(rate[1] > 0) || !(rate[1] * 32 > L2_OVER_DRAM * dram_gb_per_s) || !(dram_gb_per_s > 0))
        return;
    r->l2_bytes_measured = 1;
    if (!(rate[0] > 0) || !(fastest[0] < REQUEST_BOUND * slowest[1]))
        return;
    r->l2_requests_measured = 1;
    if (rate[2] > 0 && fastest[2] < REQUEST_BOUND * slowest[1]) {
        r->l1_merge_measured = 1;
        r->l1_merge = fmin(1.0, fmax(0.0, (1.0 - rate[0] / rate[2]) / 0.75));
    }
}

/* One mode of a rate sweep (push: rounds, mode, word 2, invocations / 32): a warm-up, then reps pairs (0 rounds,
 * `rounds`) in one submission; the repetitions' G units per second, invocations x rounds units (the L2 rate
 * sweep: x 8 loads of 4 bytes = a sector of 32 bytes per invocation and round; the atomic sweep: one add), go
 * into s as a point at x. */
static int time_rounds(probe *pr, sweep *s, double x, uint32_t mode, uint32_t groups, uint32_t rounds,
                       uint32_t word2)
{
    int count = 1 + 2 * pr->reps;
    vkb_probe_dispatch d[1 + 2 * 16];
    double us[1 + 2 * 16], empty[16], rate[16];
    memset(d, 0, sizeof d);
    uint32_t invocations = groups * 256;
    for (int i = 0; i < count; i++) {
        d[i].groups[0] = groups;
        d[i].groups[1] = d[i].groups[2] = 1;
        d[i].push[0] = i == 0 || i % 2 == 0 ? rounds : 0;
        d[i].push[1] = mode;
        d[i].push[2] = word2;
        d[i].push[3] = invocations / 32;
    }
    if (vkb_probe_run(pr->p, d, count, us, pr->err, sizeof pr->err) != VKB_OK)
        return 0;
    for (int k = 0; k < pr->reps; k++)
        empty[k] = us[1 + 2 * k];
    /* the empty dispatches' median takes out the launch of as many workgroups, not the loads */
    double t0 = probe_median(empty, pr->reps);
    for (int k = 0; k < pr->reps; k++) {
        double t = us[2 + 2 * k] - t0;
        rate[k] = t > 0 ? (double)invocations * rounds / t / 1000.0 : 0;
    }
    double mid = probe_median(rate, pr->reps);
    probe_add_point(s, x, mid, rate[0], rate[pr->reps - 1]); /* probe_median sorted them */
    return 1;
}

double probe_l2_buffer(const sweep *s)
{
    double fastest = 0, best = 0;
    for (int i = 0; i < s->n; i++)
        fastest = fmax(fastest, s->y[i]);
    for (int i = 0; i < s->n; i++)
        if (s->y[i] > 0 && s->y[i] >= L2_PLATEAU * fastest && s->x[i] > best)
            best = s->x[i];
    return best;
}

/* The L2 rate sweep's buffer: the scattered mode at each size, then the largest size whose rate is within
 * L2_PLATEAU of the fastest (probe_l2_buffer); a size past the device's storage buffer range becomes the largest
 * power of two it allows.  Not simply the fastest: in a small buffer an SM reads some lines twice within its L1's
 * reach (on the H100 2 MiB is 3 % faster than 8 MiB, and whole lines 16 % faster), which is not the L2's rate.
 * Not simply the largest: through Vulkan on the H100 the scattered rate halves from 8 to 16 MiB while the CUDA
 * twin's stays (docs/probe.md, "The L2's rates on the H100"), a cost of the driver's mapping of the larger
 * buffer (its translation, most likely), not of the L2. */
static int pick_l2_buffer(probe *pr, results *r, uint32_t groups, uint32_t rounds, size_t *best)
{
    static const size_t gpu[] = {2u << 20, 4u << 20, 8u << 20, 16u << 20}, gpu_quick[] = {4u << 20, 8u << 20};
    const size_t cpu[] = {pr->quick ? 2u << 20 : 4u << 20};
    const size_t *sizes = pr->cpu ? cpu : pr->quick ? gpu_quick : gpu;
    size_t n = pr->cpu ? 1 : pr->quick ? sizeof gpu_quick / sizeof *gpu_quick : sizeof gpu / sizeof *gpu;
    size_t last = 0;
    for (size_t i = 0; i < n; i++) {
        size_t bytes = sizes[i];
        if (bytes > pr->info.max_storage_buffer_range) /* a small range: the largest power of two it allows, once */
            bytes = pow2_floor(pr->info.max_storage_buffer_range);
        if (bytes <= last)
            continue;
        last = bytes;
        if (vkb_probe_buffer(pr->p, 0, bytes, NULL, pr->err, sizeof pr->err) != VKB_OK)
            return 0;
        if (!time_rounds(pr, &r->s_l2_footprint, (double)bytes, 0, groups, rounds, (uint32_t)(bytes / 128 - 1)))
            return 0;
    }
    *best = (size_t)probe_l2_buffer(&r->s_l2_footprint);
    return *best > 0;
}

int probe_sweep_l2_rate(probe *pr, results *r)
{
    if (!use_kernel(pr, "l2rate.comp", 256, 0))
        return 0;
    if (vkb_probe_buffer(pr->p, 2, 16, NULL, pr->err, sizeof pr->err) != VKB_OK)
        return 0;
    uint32_t groups = sweep_fill_groups(pr);
    /* about 64 M sectors per timed dispatch on a GPU (half a millisecond on the H100), 1 to 4 M on a CPU (10 to
     * 50 ms on lavapipe: well above its launch noise) */
    uint32_t rounds = pr->cpu ? (pr->quick ? 64 : 256) : (pr->quick ? 16 : 64);
    /* buffers that fit the L2s of the presets' GPUs and no L1; a CPU device: its host's caches */
    size_t bytes;
    if (!pick_l2_buffer(pr, r, groups, rounds, &bytes) ||
        vkb_probe_buffer(pr->p, 0, bytes, NULL, pr->err, sizeof pr->err) != VKB_OK)
        return 0;
    uint32_t line_mask = (uint32_t)(bytes / 128 - 1);
    for (uint32_t mode = 0; mode < 3; mode++)
        if (!time_rounds(pr, &r->s_l2_rate, mode, mode, groups, rounds, line_mask))
            return 0;
    probe_analyze_l2_rate(&r->s_l2_rate, r);
    return vkb_probe_buffer(pr->p, 0, 16, NULL, pr->err, sizeof pr->err) == VKB_OK;
}

/*
 * The atomic sweep's reading (atomic.csv: x = mode: 0 one line, 1 one word, 2 spread over lines, 3-5 shared memory,
 * 6 one line with two lanes per word (probe/atomic.comp); y = G operations per second): a line serializes its
 * atomics where the one-line mode's fastest repetition is below PROBE_SERIAL_LINE x the spread mode's slowest (the
 * same adds over many lines go that much faster: the line, not the request rate, bounded them).  The time of a
 * pass follows from the one-line rate (cli/probe.c, put_atomic).
 */

void probe_analyze_atomic(const sweep *s, results *r)
{
    double rate[7], fastest[7], slowest[7];
    mode_points(s, 7, rate, slowest, fastest);
    r->atomic_line_gops = rate[0];
    r->atomic_word_gops = rate[1];
    r->atomic_spread_gops = rate[2];
    r->lds_atomic_gops = rate[3];
    r->lds_atomic_word_gops = rate[4];
    r->lds_rmw_gops = rate[5];
    r->atomic_pairs_gops = rate[6];
    r->atomic_measured = rate[0] > 0 && slowest[2] > 0 && fastest[0] < PROBE_SERIAL_LINE * slowest[2];
}

int probe_sweep_atomic(probe *pr, results *r)
{
    if (!use_kernel(pr, "atomic.comp", 256, 0))
        return 0;
    /* spread: 4096 lines of 128 bytes (512 KiB: the L2 holds it on every GPU of the presets) */
    const uint32_t lines = 4096;
    if (vkb_probe_buffer(pr->p, 0, (size_t)lines * 128, NULL, pr->err, sizeof pr->err) != VKB_OK)
        return 0;
    uint32_t groups = sweep_fill_groups(pr);
    /* about 2 M adds per timed dispatch on a GPU (a few milliseconds on one line of the H100), 64 K on a CPU */
    uint32_t rounds = pr->cpu ? 4 : (pr->quick ? 1 : 2);
    /* shared memory: 64 adds per invocation (16 on a CPU), well above a dispatch's launch */
    uint32_t lds_rounds = pr->cpu ? 16 : 64;
    for (uint32_t mode = 0; mode < 7; mode++)
        if (!time_rounds(pr, &r->s_atomic, mode, mode, groups, mode >= 3 && mode <= 5 ? lds_rounds : rounds, lines))
            return 0;
    /* the spread mode over 1, 2, 4, .. 64 consecutive lines: where spreading starts to pay */
    for (uint32_t n = 1; n <= 64; n *= 2)
        if (!time_rounds(pr, &r->s_atomic_lines, n, 2, groups, rounds, n))
            return 0;
    probe_analyze_atomic_lines(&r->s_atomic_lines, r);
    probe_analyze_atomic(&r->s_atomic, r);
    return vkb_probe_buffer(pr->p, 0, 16, NULL, pr->err, sizeof pr->err) == VKB_OK;
}

/*
 * The bytes one atomic unit serves, read off atomic_lines.csv (x = consecutive 128-byte lines the adds are spread
 * over, y = G adds per second): at the widest spread, rate / the one-line rate units took part, over x lines; the
 * bytes per unit rounded to a power of two (units are interleaved by a hash, so narrower spreads can land on
 * fewer units than their bytes suggest: on the H100 4 and 8 lines both reach 2).  Not measured unless the widest
 * spread is PROBE_SPREADS x the one-line rate.
 */

void probe_analyze_atomic_lines(const sweep *s, results *r)
{
    double one = 0, widest = 0, rate = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->x[i] == 1)
            one = s->y[i];
        if (s->x[i] > widest)
            widest = s->x[i], rate = s->y[i];
    }
    r->atomic_one_line_gops = one;
    r->atomic_widest_lines = widest;
    r->atomic_widest_gops = rate;
    r->atomic_unit_bytes = 0;
    if (one > 0 && widest > 1 && rate >= PROBE_SPREADS * one)
        r->atomic_unit_bytes = pow(2, round(log2(widest * 128 / (rate / one))));
}
