/*
 * sim/memmodel.c — the memory hierarchy model (see sim/memmodel.h for the
 * schedule and docs/memory.md for what it models and ignores).
 *
 * Data flow:  trace sink (executor thread)
 *               LDS instruction   -> bank passes, counted at once
 *               global instruction-> coalesced into requests (line, sector mask)
 *                                    appended to the current workgroup's wave stream
 *               new workgroup id  -> the previous ones are complete: publish them
 *             replay (same thread, or a second one)
 *               launch in order onto CUs, step the resident waves, L1 -> L2 -> DRAM
 *
 * A stream is an array of 64-bit words per wave: a header word per
 * instruction (bit 63 set: kind, request count, pc) followed by its requests
 * (line index << 16 | sector mask).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim/cache.h"
#include "sim/memmodel.h"

#define MAX_GROUPS (1u << 24)

/* request kinds in the streams: CACHE_READ, CACHE_WRITE, CACHE_ATOMIC (sim/cache.h) */

/* ------------------------------------------------------------ LDS */

static uint32_t lds_group_passes(const mem_machine *m, const uint64_t *addr, sim_mask exec, uint32_t first,
                                 uint32_t count, uint32_t bytes)
{
    uint64_t words[SIM_MAX_WAVE * 8];
    uint32_t n = 0;
    const uint32_t bb = m->lds_bank_bytes;
    for (uint32_t l = first; l < first + count; l++) {
        if (!((exec >> l) & 1))
            continue;
        uint64_t w0 = addr[l] / bb, w1 = (addr[l] + (bytes ? bytes : 1) - 1) / bb;
        for (uint64_t w = w0; w <= w1 && n < sizeof words / sizeof words[0]; w++)
            words[n++] = w;
    }
    /* distinct words per bank: sort, skip duplicates, count per bank */
    for (uint32_t i = 1; i < n; i++) {
        uint64_t v = words[i];
        uint32_t j = i;
        for (; j > 0 && words[j - 1] > v; j--)
            words[j] = words[j - 1];
        words[j] = v;
    }
    uint32_t per_bank[1024] = {0}, worst = 0;
    const uint32_t banks = m->lds_banks <= 1024 ? m->lds_banks : 1024;
    for (uint32_t i = 0; i < n; i++) {
        if (i && words[i] == words[i - 1])
            continue;
        uint32_t b = (uint32_t)(words[i] % banks);
        if (++per_bank[b] > worst)
            worst = per_bank[b];
    }
    return worst;
}

uint32_t mem_lds_cycles(const mem_machine *m, uint32_t wave_size, sim_mask exec, const uint64_t *addr,
                        uint32_t bytes_per_lane, uint32_t *ideal, uint32_t *max_passes)
{
    uint32_t words_per_lane = bytes_per_lane > m->lds_bank_bytes ? bytes_per_lane / m->lds_bank_bytes : 1;
    uint32_t group = m->lds_lanes_per_cycle / words_per_lane;
    if (group < 1)
        group = 1;
    uint32_t cycles = 0, groups = 0, worst = 0;
    for (uint32_t first = 0; first < wave_size; first += group) {
        uint32_t count = first + group <= wave_size ? group : wave_size - first;
        sim_mask gmask = (count >= 128 ? ~(sim_mask)0 : (((sim_mask)1 << count) - 1)) << first;
        if (!(exec & gmask))
            continue;
        uint32_t p = lds_group_passes(m, addr, exec, first, count, bytes_per_lane);
        cycles += p;
        groups++;
        if (p > worst)
            worst = p;
    }
    if (ideal)
        *ideal = groups;
    if (max_passes)
        *max_passes = worst;
    return cycles;
}

/* ------------------------------------------------------------ the model */

typedef struct u64vec {
    uint64_t *v;
    size_t n, cap;
} u64vec;

static int vec_push(u64vec *v, uint64_t x)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 256;
        uint64_t *nv = realloc(v->v, cap * sizeof *nv);
        if (!nv)
            return 0;
        v->v = nv, v->cap = cap;
    }
    v->v[v->n++] = x;
    return 1;
}

/* A count per block of memory: open addressing over block numbers (never 0: callers add 1), grown at half full, so
 * its memory is bounded by the blocks the dispatch touches.  Counts are sums, so the order in which
 * waves add to them does not change them. */
typedef struct block_counts {
    uint64_t *block;
    uint64_t *count;
    size_t cap, n;
    uint64_t busiest;             /* the largest count */
} block_counts;

static size_t block_slot(const block_counts *t, uint64_t block)
{
    size_t i = (size_t)((block * 0x9E3779B97F4A7C15ull) >> 7) & (t->cap - 1);
    while (t->block[i] && t->block[i] != block)
        i = (i + 1) & (t->cap - 1);
    return i;
}

/* Adds n to block's count; 0 when out of memory. */
static int block_counts_add(block_counts *t, uint64_t block, uint64_t n)
{
    if (2 * (t->n + 1) > t->cap) {
        block_counts g = {.cap = t->cap ? 2 * t->cap : 1024, .busiest = t->busiest};
        g.block = calloc(g.cap, sizeof *g.block);
        g.count = calloc(g.cap, sizeof *g.count);
        if (!g.block || !g.count) {
            free(g.block), free(g.count);
            return 0;
        }
        for (size_t i = 0; i < t->cap; i++)
            if (t->block[i]) {
                size_t j = block_slot(&g, t->block[i]);
                g.block[j] = t->block[i], g.count[j] = t->count[i], g.n++;
            }
        free(t->block), free(t->count);
        *t = g;
    }
    size_t i = block_slot(t, block);
    if (!t->block[i])
        t->block[i] = block, t->n++;
    t->count[i] += n;
    if (t->count[i] > t->busiest)
        t->busiest = t->count[i];
    return 1;
}

static void block_counts_free(block_counts *t)
{
    free(t->block), free(t->count);
    memset(t, 0, sizeof *t);
}

/* A resident workgroup during the replay. */
typedef struct resident {
    uint32_t group;
    uint32_t pace;      /* credit per step (PACE_ONE: an instruction every step), from the group's duration */
    uint32_t credit;    /* the group issues a step's instructions when this reaches PACE_ONE */
    uint64_t *rec;      /* offsets[wpg + 1] then the streams; NULL = no global accesses */
    size_t *cursor;     /* per wave, index into rec; then per wave the index of its previous instruction's header
                         * (SIZE_MAX: none yet), for the L1's miss merging (issue_instruction) */
} resident;

struct mem_model {
    mem_machine machine;
    mem_model_options opt;
    sim_mem_trace trace;
    /* the dispatch */
    const isa_program *prog;
    uint32_t wave_size, waves_per_group, groups[3], group_count, workgroups_per_cu;
    uint32_t sectors_per_line;
    /* producer side */
    uint32_t cur_group;           /* the workgroup whose streams are being recorded */
    int have_cur;
    u64vec *cur_waves;            /* waves_per_group streams */
    uint64_t **records;           /* per group (linear id), published when complete */
    int failed;                   /* out of memory while recording: statistics incomplete */
    /* LDS capture for explain */
    uint64_t **capture;           /* per pc: [exec low, exec high, bytes, group, addr[W]] */
    uint32_t code_count;          /* the program may be gone when the model is destroyed */
    /* shared with the replay */
    pthread_mutex_t lock;
    pthread_cond_t more;
    uint32_t complete;            /* groups [0, complete) are recorded */
    int final;
    pthread_t thread;
    int threaded;
    /* replay side */
    uint32_t *order;
    uint32_t *cu_visit;           /* the dispatcher's CU order (mem_dispatch: clusters, stride) */
    uint32_t next_launch, rr_cu;  /* rr_cu: position in cu_visit after the last CU used (or queued) */
    uint32_t *queue;              /* dispatch.queue_clusters > 0: the clusters being served, round robin */
    uint32_t *turn;               /* per cluster: the CU (index in the cluster) whose turn is next */
    uint32_t queue_n, queue_at;   /* clusters in the queue; the one served next */
    resident *res;                /* compute_units * workgroups_per_cu */
    uint32_t *res_count;          /* per CU */
    double *allowance;            /* per CU: L2 requests it may still send this step (dispatch.l2_requests_per_step) */
    size_t *cursors;
    cache_hier hier;              /* L1s, L2 partitions (sim/cache.c) */
    uint64_t step;
    int replay_done;
    /* results */
    mem_stats stats;
    mem_inst_stats *inst;         /* per pc; LDS fields written by the producer, the rest by the replay */
    mem_group_stats *group;
    uint32_t *wave_end;           /* per (group, wave): step of its last memory instruction; UINT32_MAX = not yet */
    uint32_t (*wave_loads)[MEM_LEVEL_COUNT]; /* per (group, wave): waited-on loads by level (the latency term;
                                              * NULL when the preset has none) */
    uint8_t *waited;              /* per pc: a memory instruction whose result the program reads (latency term) */
    block_counts atomic_units;     /* atomic passes per atomic unit (the atomic term; only with l2_atomic_cycles) */
    mem_estimate estimate;
    int ended;
};

const char *mem_unit_name(mem_unit u)
{
    static const char *names[MEM_UNIT_COUNT] = {"valu", "salu", "lds", "memory", "l2", "dram", "atomic", "latency"};
    return u < MEM_UNIT_COUNT ? names[u] : "?";
}

int mem_estimate_has_unit(const mem_estimate *e, mem_unit u)
{
    return u == MEM_UNIT_LATENCY ? e->has_latency : u == MEM_UNIT_ATOMIC ? e->has_atomic : 1;
}

const char *mem_level_name(mem_level l)
{
    static const char *names[MEM_LEVEL_COUNT] = {"lds", "l1", "l2", "dram"};
    return l < MEM_LEVEL_COUNT ? names[l] : "?";
}

static void sink_access(void *user, const sim_mem_access *a);
static void sink_restart(void *user);

mem_status mem_model_create(const mem_model_options *opt, mem_model **out)
{
    *out = NULL;
    if (!opt || !opt->machine)
        return MEM_ERR_PRESET;
    mem_model *m = calloc(1, sizeof *m);
    if (!m)
        return MEM_ERR_NOMEM;
    m->machine = *opt->machine;
    m->opt = *opt;
    m->opt.machine = &m->machine;
    m->trace.access = sink_access;
    m->trace.restart = sink_restart;
    m->trace.user = m;
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->more, NULL);
    *out = m;
    return MEM_OK;
}

static void free_dispatch(mem_model *m)
{
    if (m->records)
        for (uint32_t g = 0; g < m->group_count; g++)
            free(m->records[g]);
    free(m->records);
    m->records = NULL;
    if (m->cur_waves)
        for (uint32_t k = 0; k < m->waves_per_group; k++)
            free(m->cur_waves[k].v);
    free(m->cur_waves);
    m->cur_waves = NULL;
    if (m->capture)
        for (uint32_t pc = 0; pc < m->code_count; pc++)
            free(m->capture[pc]);
    free(m->capture);
    m->capture = NULL;
    free(m->order);
    free(m->cu_visit);
    m->cu_visit = NULL;
    free(m->res);
    free(m->res_count);
    free(m->allowance);
    free(m->cursors);
    m->order = NULL, m->res = NULL, m->res_count = NULL, m->allowance = NULL, m->cursors = NULL;
    cache_hier_free(&m->hier);
    free(m->wave_loads);
    m->wave_loads = NULL;
    free(m->waited);
    m->waited = NULL;
    block_counts_free(&m->atomic_units);
    free(m->inst);
    free(m->group);
    free(m->wave_end);
    m->inst = NULL, m->group = NULL, m->wave_end = NULL;
}

void mem_model_destroy(mem_model *m)
{
    if (!m)
        return;
    if (m->threaded) {
        pthread_mutex_lock(&m->lock);
        m->final = 1;
        pthread_cond_broadcast(&m->more);
        pthread_mutex_unlock(&m->lock);
        pthread_join(m->thread, NULL);
        m->threaded = 0;
    }
    free_dispatch(m);
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->more);
    free(m);
}

const sim_mem_trace *mem_model_trace(mem_model *m) { return &m->trace; }
const mem_machine *mem_model_machine(const mem_model *m) { return &m->machine; }
const mem_stats *mem_model_stats(const mem_model *m) { return &m->stats; }
const mem_estimate *mem_model_estimate(const mem_model *m) { return &m->estimate; }
uint32_t mem_model_workgroups_per_cu(const mem_model *m) { return m->workgroups_per_cu; }

const mem_inst_stats *mem_model_inst_stats(const mem_model *m, uint32_t *inst_count)
{
    *inst_count = m->prog ? m->prog->code_count : 0;
    return m->inst;
}

const uint32_t *mem_model_wave_end_steps(const mem_model *m, uint32_t *waves_per_group)
{
    *waves_per_group = m->waves_per_group;
    return m->wave_end;
}

const mem_group_stats *mem_model_group_stats(const mem_model *m, uint32_t *group_count, uint32_t groups[3])
{
    *group_count = m->group_count;
    if (groups)
        memcpy(groups, m->groups, sizeof m->groups);
    return m->group;
}

double mem_stats_l1_read_hit_rate(const mem_stats *s)
{
    uint64_t t = s->l1_read_hits + s->l1_read_misses;
    return t ? (double)s->l1_read_hits / (double)t : 0.0;
}

double mem_stats_l2_hit_rate(const mem_stats *s)
{
    uint64_t h = s->l2_read_hits + s->l2_write_hits + s->l2_atomic_hits;
    uint64_t t = h + s->l2_read_misses + s->l2_write_misses + s->l2_atomic_misses;
    return t ? (double)h / (double)t : 0.0;
}

double mem_stats_l2_read_requests_merged(const mem_stats *s, const mem_machine *m)
{
    return (double)s->l2_read_requests - m->l1_miss_merge * (double)s->l2_merge_candidates;
}

double mem_stats_l2_read_hit_rate(const mem_stats *s)
{
    uint64_t t = s->l2_read_hits + s->l2_read_misses;
    return t ? (double)s->l2_read_hits / (double)t : 0.0;
}

/* ------------------------------------------------------------ replay */

static void latency_record(mem_model *m, uint32_t group, uint32_t wave, uint32_t pc, int kind,
                           const cache_outcome *reach);
static uint8_t *latency_waited_map(const isa_program *prog);

/* A request word whose line went to the L2 as a read is marked with this bit once issued (line << 16 leaves
 * the top bits free), so the wave's next instruction can tell which of its lines have a request in flight. */
#define SENT_TO_L2 (1ull << 63)

/* Whether `line` was sent to the L2 by the wave's previous instruction, whose header is at w[prev]. */
static int previous_sent(const uint64_t *w, size_t prev, uint64_t line)
{
    if (prev == SIZE_MAX)
        return 0;
    uint32_t n = (uint32_t)(w[prev] >> 40) & 0x7fffff;
    for (uint32_t r = 0; r < n; r++) {
        uint64_t q = w[prev + 1 + r];
        if ((q & SENT_TO_L2) && ((q & ~SENT_TO_L2) >> 16) == line)
            return 1;
    }
    return 0;
}

/* Issues the wave's next memory instruction; returns the L2 requests it sent (the CU's budget counts them). */
static uint32_t issue_instruction(mem_model *m, uint32_t cu, uint32_t group, uint32_t wave, uint64_t *w,
                                  size_t *cursor, size_t *prev)
{
    uint32_t sent = 0;
    uint64_t h = w[*cursor];
    uint32_t kind = (uint32_t)(h >> 32) & 0xff, nreq = (uint32_t)(h >> 40) & 0x7fffff, pc = (uint32_t)h;
    mem_stats *s = &m->stats;
    mem_inst_stats *is = &m->inst[pc];
    mem_group_stats *gs = &m->group[group];
    const uint32_t sb = m->machine.sector_bytes;
    cache_outcome reach = {0}; /* the levels any request of the instruction reached */
    for (uint32_t r = 0; r < nreq; r++) {
        uint64_t q = w[*cursor + 1 + r];
        cache_outcome o;
        cache_hier_access(&m->hier, cu, (int)kind, q >> 16, (uint32_t)q & 0xffff, &o);
        reach.l1_hits += o.l1_hits, reach.l2_hits += o.l2_hits, reach.l2_misses += o.l2_misses;
        reach.dram_read += o.dram_read;
        s->l1_read_hits += o.l1_hits, s->l1_read_misses += o.l1_misses;
        is->l1_hits += o.l1_hits, is->l1_misses += o.l1_misses;
        s->l2_evictions += o.evictions;
        s->l2_fabric_sectors += o.fabric;
        s->l2_requests += o.l2_requests;
        sent += o.l2_requests;
        s->dram_bytes_written += (uint64_t)o.dram_written * sb;
        s->dram_completed_bytes += (uint64_t)o.dram_completed * sb;
        s->dram_bytes_read += (uint64_t)(o.dram_read + o.dram_completed) * sb;
        is->dram_bytes_read += (uint64_t)(o.dram_read + o.dram_completed) * sb;
        switch (kind) {
        case CACHE_READ:
            s->l2_read_hits += o.l2_hits, s->l2_read_misses += o.l2_misses;
            s->l2_read_requests += o.l2_requests;
            if (o.l2_requests) {
                /* a miss to a line the previous instruction's miss is still fetching: an L1 may merge them */
                if (previous_sent(w, *prev, q >> 16))
                    s->l2_merge_candidates++;
                w[*cursor + 1 + r] = q | SENT_TO_L2;
            }
            gs->l2_read_hits += o.l2_hits, gs->l2_read_misses += o.l2_misses;
            break;
        case CACHE_WRITE: s->l2_write_hits += o.l2_hits, s->l2_write_misses += o.l2_misses; break;
        default: s->l2_atomic_hits += o.l2_hits, s->l2_atomic_misses += o.l2_misses; break;
        }
        gs->l2_hits += o.l2_hits, gs->l2_misses += o.l2_misses;
        is->l2_hits += o.l2_hits, is->l2_misses += o.l2_misses;
    }
    latency_record(m, group, wave, pc, (int)kind, &reach);
    *prev = *cursor;
    *cursor += 1 + nreq;
    return sent;
}

#define PACE_ONE 65536u

/* A group's pace: PACE_ONE / (1 + spread * h(group)), h a hash of the group id in [0, 1) (splitmix64's
 * finaliser), so a group's duration is a property of the group, the same at any thread count. */
static uint32_t group_pace(double spread, uint32_t group)
{
    if (spread <= 0)
        return PACE_ONE;
    uint64_t z = (uint64_t)group + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    double h = (double)(z >> 11) / (double)(1ull << 53);
    uint32_t p = (uint32_t)((double)PACE_ONE / (1.0 + spread * h));
    return p ? p : 1;
}

/* The dispatcher's CU order: clusters of cus_per_cluster consecutive CUs (an NVIDIA TPC), visited
 * 0, s, 2s, .., then 1, 1 + s, .. for cluster_stride s (one cluster per GPC in turn); the identity by default. */
static void make_cu_visit(const mem_machine *mc, uint32_t *visit)
{
    const uint32_t C = mc->compute_units;
    uint32_t per = mc->dispatch.cus_per_cluster ? mc->dispatch.cus_per_cluster : 1;
    if (C % per)
        per = 1;
    uint32_t clusters = C / per, stride = mc->dispatch.cluster_stride ? mc->dispatch.cluster_stride : 1, n = 0;
    if (stride > clusters)
        stride = 1;
    for (uint32_t r = 0; r < stride; r++)
        for (uint32_t k = r; k < clusters; k += stride)
            for (uint32_t c = 0; c < per; c++)
                visit[n++] = k * per + c;
}

/* The clusters of the dispatcher (dispatch.cus_per_cluster consecutive CUs; make_cu_visit's fallback to 1). */
static uint32_t cluster_size(const mem_machine *mc)
{
    uint32_t per = mc->dispatch.cus_per_cluster ? mc->dispatch.cus_per_cluster : 1;
    return mc->compute_units % per ? 1 : per;
}

/* The first CU of cluster k, from turn[k] on, with a free slot; UINT32_MAX when the cluster is full. */
static uint32_t cluster_free_cu(const mem_model *m, uint32_t k, uint32_t per)
{
    for (uint32_t j = 0; j < per; j++) {
        uint32_t c = k * per + (m->turn[k] + j) % per;
        if (m->res_count[c] < m->workgroups_per_cu)
            return c;
    }
    return UINT32_MAX;
}

/* The queue's next CU (dispatch.queue_clusters = K > 0, once the first compute_units x occupancy groups have
 * launched): first the queue takes, in cu_visit order from rr_cu, clusters with a free slot that it does not
 * hold yet, up to K; then the cluster at queue_at is served, on its CU whose turn it is (the cluster's CUs
 * alternate).  UINT32_MAX when no CU has a free slot.  So a
 * cluster with several free slots gets a group every K launches or so, and one CU of it every K to
 * K * cus_per_cluster launches (the H100's short-lag revisit, docs/memory.md), instead of once per pass
 * over all CUs. */
static uint32_t queue_next(mem_model *m)
{
    const uint32_t C = m->machine.compute_units, K = m->machine.dispatch.queue_clusters;
    const uint32_t per = cluster_size(&m->machine);
    for (uint32_t i = 0, start = m->rr_cu; i < C && m->queue_n < K; i++) {
        uint32_t pos = (start + i) % C, k = m->cu_visit[pos] / per, held = 0;
        for (uint32_t q = 0; q < m->queue_n && !held; q++)
            held = m->queue[q] == k;
        if (held || cluster_free_cu(m, k, per) == UINT32_MAX)
            continue;
        m->queue[m->queue_n++] = k;
        m->rr_cu = (pos + 1) % C; /* the scan goes on from here: the same pass, one CU at a time */
    }
    if (!m->queue_n)
        return UINT32_MAX;
    if (m->queue_at >= m->queue_n)
        m->queue_at = 0;
    return cluster_free_cu(m, m->queue[m->queue_at], per);
}

/* After a launch onto CU `cu` of the queue's current cluster: the cluster's turn passes to its next CU; a full
 * cluster leaves the queue (the next one slides into its place), otherwise the queue's turn passes on. */
static void queue_served(mem_model *m, uint32_t cu)
{
    const uint32_t per = cluster_size(&m->machine), k = cu / per;
    m->turn[k] = (cu % per + 1) % per;
    if (cluster_free_cu(m, k, per) == UINT32_MAX) {
        memmove(m->queue + m->queue_at, m->queue + m->queue_at + 1,
                (m->queue_n - m->queue_at - 1) * sizeof *m->queue);
        m->queue_n--;
    } else {
        m->queue_at++;
    }
    if (m->queue_at >= m->queue_n)
        m->queue_at = 0;
}

/* Launches groups onto free CU slots, visiting CUs in cu_visit order from the one after the last used
 * (round robin by index by default; through the queue when dispatch.queue_clusters > 0); returns 0 when the next
 * group to launch is not recorded yet (the replay must wait for the executor). */
static int launch(mem_model *m, uint32_t complete, int final)
{
    const uint32_t C = m->machine.compute_units, occ = m->workgroups_per_cu;
    while (m->next_launch < m->group_count) {
        /* the queue serves the steady state: the first fill goes round all CUs (every one has free slots then;
         * the H100's first blocks go one TPC pair per GPC in turn) */
        const int queued = m->machine.dispatch.queue_clusters > 0 && m->next_launch >= (uint64_t)C * occ;
        uint32_t cu = UINT32_MAX, pos = 0;
        if (queued)
            cu = queue_next(m);
        else
            for (uint32_t i = 0; i < C; i++) {
                pos = (m->rr_cu + i) % C;
                uint32_t c = m->cu_visit[pos];
                if (m->res_count[c] < occ) {
                    cu = c;
                    break;
                }
            }
        if (cu == UINT32_MAX)
            return 1;
        uint32_t g = m->order[m->next_launch];
        if (g >= complete && !final)
            return 0;
        resident *r = &m->res[(size_t)cu * occ + m->res_count[cu]++];
        r->group = g;
        r->pace = group_pace(m->machine.dispatch.duration_spread, g);
        r->credit = 0;
        r->rec = m->records[g];
        m->records[g] = NULL;
        for (uint32_t k = 0; k < m->waves_per_group; k++) {
            r->cursor[k] = r->rec ? (size_t)r->rec[k] : 0;
            r->cursor[m->waves_per_group + k] = SIZE_MAX;
        }
        m->group[g].cu = cu;
        m->group[g].launch_order = m->next_launch;
        m->group[g].launch_step = (uint32_t)m->step;
        m->next_launch++;
        if (queued)
            queue_served(m, cu);
        else
            m->rr_cu = (pos + 1) % C;
    }
    return 1;
}

/*
 * One step of CU c's resident groups: each whose pace allows issues one memory instruction per wave.  With
 * dispatch.l2_requests_per_step B > 0 the CU sends at most B L2 requests a step (its share of the L2's request
 * rate): the step's allowance is B less what the last step overdrew, its groups are visited from (step mod n)
 * so each gets the first turn in turn, and once the allowance is spent the rest wait for the next step.  So a
 * group that misses more, or shares its CU with groups that do, issues on fewer steps, and the groups of one CU
 * slow down together (docs/memory.md, "A CU's share of the L2").
 */
static void issue_step(mem_model *m, uint32_t c)
{
    const uint32_t occ = m->workgroups_per_cu, W = m->waves_per_group, n = m->res_count[c];
    const double budget = m->machine.dispatch.l2_requests_per_step;
    if (budget > 0) /* B less the last step's overdraw; unused allowance is not kept */
        m->allowance[c] = budget + (m->allowance[c] < 0 ? m->allowance[c] : 0);
    for (uint32_t j = 0; j < n; j++) {
        if (budget > 0 && m->allowance[c] <= 0)
            break;
        resident *r = &m->res[(size_t)c * occ + (budget > 0 ? (uint32_t)((j + m->step) % n) : j)];
        if (!r->rec)
            continue;
        /* a slower group (duration_spread) issues on fewer steps */
        r->credit += r->pace;
        if (r->credit < PACE_ONE)
            continue;
        r->credit -= PACE_ONE;
        for (uint32_t k = 0; k < W; k++)
            if (r->cursor[k] < r->rec[k + 1]) {
                uint32_t sent = issue_instruction(m, c, r->group, k, r->rec, &r->cursor[k], &r->cursor[W + k]);
                if (budget > 0)
                    m->allowance[c] -= sent;
            }
    }
}

static void replay_advance(mem_model *m, uint32_t complete, int final)
{
    const uint32_t C = m->machine.compute_units, occ = m->workgroups_per_cu, W = m->waves_per_group;
    while (!m->replay_done) {
        if (!launch(m, complete, final))
            return;
        uint32_t live = 0;
        for (uint32_t c = 0; c < C; c++)
            live += m->res_count[c];
        if (!live) {
            m->replay_done = 1;
            break;
        }
        for (uint32_t c = 0; c < C; c++)
            issue_step(m, c);
        for (uint32_t c = 0; c < C; c++) {
            uint32_t kept = 0;
            for (uint32_t i = 0; i < m->res_count[c]; i++) {
                resident *r = &m->res[(size_t)c * occ + i];
                for (uint32_t k = 0; k < W; k++) {
                    uint32_t *we = &m->wave_end[(size_t)r->group * W + k];
                    if (*we == UINT32_MAX && (!r->rec || r->cursor[k] >= r->rec[k + 1]))
                        *we = (uint32_t)m->step;
                }
                int done = 1;
                for (uint32_t k = 0; k < W && r->rec && done; k++)
                    done = r->cursor[k] >= r->rec[k + 1];
                if (done) {
                    m->group[r->group].end_step = (uint32_t)m->step;
                    free(r->rec);
                    r->rec = NULL;
                    continue;
                }
                resident *dst = &m->res[(size_t)c * occ + kept++];
                if (dst != r) { /* keep launch order; swap cursor arrays */
                    size_t *tmp = dst->cursor;
                    dst->group = r->group, dst->rec = r->rec, dst->pace = r->pace, dst->credit = r->credit;
                    memcpy(tmp, r->cursor, 2 * W * sizeof *tmp);
                    r->rec = NULL;
                }
            }
            m->res_count[c] = kept;
        }
        m->step++;
    }
    m->stats.replay_steps = m->step;
}

static void *replay_thread(void *arg)
{
    mem_model *m = arg;
    for (;;) {
        pthread_mutex_lock(&m->lock);
        uint32_t complete = m->complete;
        int final = m->final;
        pthread_mutex_unlock(&m->lock);
        replay_advance(m, complete, final);
        if (m->replay_done || final)
            break;
        pthread_mutex_lock(&m->lock);
        while (m->complete == complete && !m->final)
            pthread_cond_wait(&m->more, &m->lock);
        pthread_mutex_unlock(&m->lock);
    }
    return NULL;
}

/* ------------------------------------------------------------ recording */

/* Publishes the current group's streams as one record; groups up to `upto` are complete. */
static void publish(mem_model *m, uint32_t upto)
{
    if (m->have_cur) {
        const uint32_t W = m->waves_per_group;
        size_t total = 0;
        for (uint32_t k = 0; k < W; k++)
            total += m->cur_waves[k].n;
        uint64_t *rec = NULL;
        if (total) {
            rec = malloc((W + 1 + total) * sizeof *rec);
            if (!rec) {
                m->failed = 1;
            } else {
                size_t at = W + 1;
                for (uint32_t k = 0; k < W; k++) {
                    rec[k] = at;
                    if (m->cur_waves[k].n) /* a wave that recorded nothing may have no buffer at all */
                        memcpy(rec + at, m->cur_waves[k].v, m->cur_waves[k].n * sizeof *rec);
                    at += m->cur_waves[k].n;
                }
                rec[W] = at;
            }
        }
        for (uint32_t k = 0; k < W; k++)
            m->cur_waves[k].n = 0;
        m->records[m->cur_group] = rec;
        m->have_cur = 0;
    }
    if (m->threaded) {
        pthread_mutex_lock(&m->lock);
        m->complete = upto;
        pthread_cond_signal(&m->more);
        pthread_mutex_unlock(&m->lock);
    } else {
        m->complete = upto;
        replay_advance(m, upto, 0);
    }
}

static void record_lds(mem_model *m, const sim_mem_access *a)
{
    uint32_t ideal = 0, worst = 0, bytes = (uint32_t)a->elem_bytes * a->count;
    uint32_t cycles = mem_lds_cycles(&m->machine, a->wave_size, a->exec, a->addr, bytes, &ideal, &worst);
    mem_stats *s = &m->stats;
    s->lds_instructions++;
    s->lds_cycles += cycles;
    s->lds_ideal_cycles += ideal;
    s->lds_bank_conflict_cycles += cycles - ideal;
    mem_inst_stats *is = &m->inst[a->pc];
    is->lds_cycles += cycles;
    is->lds_conflict_cycles += cycles - ideal;
    if (worst > is->lds_max_passes)
        is->lds_max_passes = worst;
    m->group[a->group_linear].lds_cycles += cycles;
    m->group[a->group_linear].lds_conflict_cycles += cycles - ideal;
    if (m->wave_loads && a->op != ISA_OP_STORE && m->waited[a->pc]) /* an LDS load or atomic that is waited on */
        m->wave_loads[(size_t)a->group_linear * m->waves_per_group + a->wave][MEM_LEVEL_LDS]++;
    if (a->wave == m->opt.capture_wave && !m->capture[a->pc]) {
        uint64_t *c = malloc((4 + a->wave_size) * sizeof *c);
        if (c) {
            c[0] = (uint64_t)a->exec, c[1] = (uint64_t)(a->exec >> 64), c[2] = bytes, c[3] = a->group_linear;
            memcpy(c + 4, a->addr, a->wave_size * sizeof *c);
            m->capture[a->pc] = c;
        }
    }
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/*
 * The atomic term's count (docs/memory.md, "Atomics"): an atomic instruction's lanes on one sector take as many
 * passes through the L2's atomic unit as the most lanes that name one address there (lanes on distinct words of a
 * sector share a pass), and the passes add up per atomic unit, which serves l2_atomic_granule_bytes of consecutive
 * memory (several lines).  The busiest unit's passes bound the dispatch.
 */
static void count_atomic_passes(mem_model *m, const sim_mem_access *a, uint64_t base)
{
    const uint64_t sb = m->machine.sector_bytes, granule = m->machine.l2_atomic_granule_bytes;
    uint64_t addr[SIM_MAX_WAVE];
    uint32_t n = 0;
    for (uint32_t l = 0; l < a->wave_size; l++)
        if ((a->exec >> l) & 1)
            addr[n++] = base + a->addr[l];
    qsort(addr, n, sizeof *addr, cmp_u64);
    for (uint32_t i = 0; i < n;) {
        uint64_t sector = addr[i] / sb;
        uint32_t passes = 0;
        while (i < n && addr[i] / sb == sector) {
            uint32_t same = 1;
            while (i + same < n && addr[i + same] == addr[i])
                same++;
            passes = same > passes ? same : passes;
            i += same;
        }
        if (!block_counts_add(&m->atomic_units, sector * sb / granule + 1, passes))
            m->failed = 1;
    }
}

/* Coalesces the active lanes into (line, sector mask) requests appended to the wave's stream. */
static void record_global(mem_model *m, const sim_mem_access *a)
{
    const isa_slot *sl = &m->prog->slots[a->slot];
    const uint64_t base = (uint64_t)(sl->set * 64u + sl->binding + 1) << 36; /* bindings never share lines */
    const uint32_t lb = m->machine.cache_line_bytes, sb = m->machine.sector_bytes;
    const uint64_t bytes = (uint64_t)a->elem_bytes * (a->count ? a->count : 1);
    uint64_t req[SIM_MAX_WAVE * 4];
    /* a store's bytes per sector of each request, lane by lane (capped at the sector), for partial writes */
    static _Thread_local uint32_t cover[SIM_MAX_WAVE * 4][16];
    uint32_t kind = a->op == ISA_OP_ATOMIC || a->op == ISA_OP_IMG_ATOMIC ? CACHE_ATOMIC
                    : (a->op == ISA_OP_STORE || a->op == ISA_OP_IMG_WRITE || a->op == ISA_OP_IMG_STORE) ? CACHE_WRITE
                                                                           : CACHE_READ;
    uint32_t n = 0;
    if (kind == CACHE_ATOMIC && m->machine.l2_atomic_cycles > 0)
        count_atomic_passes(m, a, base);
    for (uint32_t l = 0; l < a->wave_size; l++) {
        if (!((a->exec >> l) & 1))
            continue;
        uint64_t lo = base + a->addr[l], hi = lo + (bytes ? bytes : 1) - 1;
        for (uint64_t s = lo / sb; s <= hi / sb; s++) {
            uint64_t line = s * sb / lb;
            uint32_t sector = (uint32_t)(s * sb % lb / sb), bit = 1u << sector;
            uint32_t i = n;
            while (i > 0 && (req[i - 1] >> 16) != line)
                i--;
            if (i > 0)
                req[i - 1] |= bit;
            else if (n < sizeof req / sizeof req[0]) {
                req[n++] = line << 16 | bit;
                if (kind == CACHE_WRITE)
                    memset(cover[n - 1], 0, sizeof cover[n - 1]);
                i = n;
            } else
                continue;
            if (kind == CACHE_WRITE) {
                uint64_t from = lo > s * sb ? lo : s * sb, to = hi < s * sb + sb - 1 ? hi : s * sb + sb - 1;
                cover[i - 1][sector] += (uint32_t)(to - from + 1);
            }
        }
    }
    if (kind == CACHE_WRITE)
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t k = 0; k < lb / sb; k++)
                if (((uint32_t)req[i] >> k & 1) && cover[i][k] < sb) {
                    m->stats.global_partial_write_requests++;
                    break;
                }
    u64vec *v = &m->cur_waves[a->wave];
    int ok = vec_push(v, 1ull << 63 | (uint64_t)n << 40 | (uint64_t)kind << 32 | a->pc);
    uint64_t sectors = 0;
    for (uint32_t i = 0; i < n && ok; i++) {
        ok = vec_push(v, req[i]);
        sectors += (uint64_t)__builtin_popcount((uint32_t)req[i] & 0xffff);
    }
    if (!ok)
        m->failed = 1;
    m->stats.global_instructions++;
    m->stats.global_lines += n;
    m->stats.global_sectors += sectors;
    m->inst[a->pc].lines += n;
    m->inst[a->pc].sectors += sectors;
}

static void sink_access(void *user, const sim_mem_access *a)
{
    mem_model *m = user;
    if (a->group_linear >= m->group_count || a->wave >= m->waves_per_group || a->pc >= m->prog->code_count ||
        a->slot >= m->prog->slot_count)
        return; /* not the dispatch mem_model_begin described */
    m->inst[a->pc].executions++;
    if (a->cls == ISA_CLASS_LDS || a->space == ISA_SPACE_WORKGROUP) {
        record_lds(m, a);
        return;
    }
    if (a->space == ISA_SPACE_PUSH || a->space == ISA_SPACE_PRIVATE) {
        m->stats.global_unmodelled++;
        return;
    }
    if (!m->have_cur || a->group_linear != m->cur_group) {
        if (m->have_cur || a->group_linear > m->complete)
            publish(m, a->group_linear);
        m->cur_group = a->group_linear;
        m->have_cur = 1;
    }
    record_global(m, a);
}

/* The executor runs the dispatch again on one thread (sim_mem_trace.restart): start the dispatch over. */
static void sink_restart(void *user)
{
    mem_model *m = user;
    char err[256];
    const isa_program *prog = m->prog;
    uint32_t groups[3] = {m->groups[0], m->groups[1], m->groups[2]}, wave_size = m->wave_size;
    mem_model_end(m, NULL); /* joins the replay thread; the partial results are dropped below */
    if (mem_model_begin(m, prog, groups, wave_size, err, sizeof err) != MEM_OK)
        m->failed = 1;
}

/* ------------------------------------------------------------ begin / end */

mem_status mem_model_begin(mem_model *m, const isa_program *prog, const uint32_t groups[3], uint32_t wave_size,
                           char *err, size_t err_size)
{
    const mem_machine *mc = &m->machine;
    free_dispatch(m);
    memset(&m->stats, 0, sizeof m->stats);
    memset(&m->estimate, 0, sizeof m->estimate);
    m->prog = prog;
    m->code_count = prog->code_count;
    m->wave_size = wave_size;
    memcpy(m->groups, groups, sizeof m->groups);
    uint64_t count = (uint64_t)groups[0] * groups[1] * groups[2];
    uint64_t local = (uint64_t)prog->local_size[0] * prog->local_size[1] * prog->local_size[2];
    if (count == 0 || count > MAX_GROUPS || local == 0) {
        snprintf(err, err_size, "memory model: %llu workgroups: the model handles 1 to %u",
                 (unsigned long long)count, MAX_GROUPS);
        return MEM_ERR_PRESET;
    }
    m->group_count = (uint32_t)count;
    m->waves_per_group = (uint32_t)((local + wave_size - 1) / wave_size);
    /* occupancy: the one formula (isa_compute_occupancy) over the program's registers and LDS */
    isa_occupancy o = mem_machine_occupancy(mc, prog, wave_size, m->opt.vgprs_per_lane, NULL);
    uint64_t occ = o.workgroups_per_cu;
    if (occ > mc->max_workgroups_per_cu)
        occ = mc->max_workgroups_per_cu;
    if (occ == 0) {
        snprintf(err, err_size,
                 "memory model: a workgroup of %u waves and %u bytes of shared memory does not fit on one CU of "
                 "machine '%s'",
                 m->waves_per_group, prog->workgroup_bytes, mc->name);
        return MEM_ERR_PRESET;
    }
    m->workgroups_per_cu = (uint32_t)occ;
    m->stats.replay_workgroups_per_cu = occ;
    m->sectors_per_line = mc->cache_line_bytes / mc->sector_bytes;

    size_t slots = (size_t)mc->compute_units * occ;
    m->records = calloc(count, sizeof *m->records);
    m->cur_waves = calloc(m->waves_per_group, sizeof *m->cur_waves);
    m->capture = calloc(prog->code_count + 1, sizeof *m->capture);
    m->order = malloc(count * sizeof *m->order);
    m->cu_visit = calloc(3 * (size_t)mc->compute_units, sizeof *m->cu_visit); /* visit order, queue, turns */
    m->res = calloc(slots, sizeof *m->res);
    m->res_count = calloc(mc->compute_units, sizeof *m->res_count);
    m->allowance = calloc(mc->compute_units, sizeof *m->allowance);
    m->cursors = calloc(slots * m->waves_per_group * 2, sizeof *m->cursors);
    m->inst = calloc(prog->code_count + 1, sizeof *m->inst);
    m->group = calloc(count, sizeof *m->group);
    m->wave_end = malloc((size_t)count * m->waves_per_group * sizeof *m->wave_end);
    if (mc->l1_hit_latency && (!(m->wave_loads = calloc((size_t)count * m->waves_per_group, sizeof *m->wave_loads)) ||
                               !(m->waited = latency_waited_map(prog))))
        goto nomem;
    if (cache_hier_init(&m->hier, mc) != 0)
        goto nomem;
    if (!m->records || !m->cur_waves || !m->capture || !m->order || !m->cu_visit || !m->res || !m->res_count || !m->allowance ||
        !m->cursors ||
        !m->inst || !m->group || !m->wave_end)
        goto nomem;
    for (size_t i = 0; i < (size_t)count * m->waves_per_group; i++)
        m->wave_end[i] = UINT32_MAX;
    for (size_t i = 0; i < slots; i++)
        m->res[i].cursor = m->cursors + i * m->waves_per_group * 2;
    make_cu_visit(mc, m->cu_visit);
    m->queue = m->cu_visit + mc->compute_units;
    m->turn = m->cu_visit + 2 * (size_t)mc->compute_units;
    if (m->opt.launch_order && m->opt.launch_order_count == count) {
        uint8_t *seen = calloc(count, 1);
        if (!seen)
            goto nomem;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t g = m->opt.launch_order[i];
            if (g >= count || seen[g]) {
                free(seen);
                snprintf(err, err_size, "memory model: the launch order is not a permutation of the %u workgroups "
                         "(entry %u)", m->group_count, i);
                return MEM_ERR_PRESET;
            }
            seen[g] = 1;
            m->order[i] = g;
        }
        free(seen);
    } else {
        for (uint32_t i = 0; i < count; i++)
            m->order[i] = i;
    }
    m->next_launch = m->rr_cu = 0;
    m->queue_n = m->queue_at = 0;
    m->step = 0;
    m->replay_done = 0;
    m->complete = 0;
    m->final = 0;
    m->have_cur = 0;
    m->failed = 0;
    m->ended = 0;
    if (m->opt.threads >= 2) {
        if (pthread_create(&m->thread, NULL, replay_thread, m) == 0)
            m->threaded = 1;
    }
    return MEM_OK;
nomem:
    snprintf(err, err_size, "memory model: out of memory");
    return MEM_ERR_NOMEM;
}

/* ------------------------------------------------------------ the estimate */

/* A waited-on global instruction (a read or an atomic: a store is not waited on) counts once, at the
 * deepest level any of its sectors reached: the wave waits for its last sector. */
static void latency_record(mem_model *m, uint32_t group, uint32_t wave, uint32_t pc, int kind,
                           const cache_outcome *reach)
{
    if (!m->wave_loads || kind == CACHE_WRITE || !m->waited[pc])
        return;
    mem_level level;
    if (reach->dram_read)
        level = MEM_LEVEL_DRAM;
    else if (reach->l2_hits || reach->l2_misses)
        level = MEM_LEVEL_L2;
    else if (reach->l1_hits)
        level = MEM_LEVEL_L1;
    else
        return; /* no request: no active lane */
    m->wave_loads[(size_t)group * m->waves_per_group + wave][level]++;
}

/* Whether instruction `in` reads (writes: writes) register r: the spans isa_inst_regs gives (masks are numbered
 * apart and not among them). */
static int touches_register(const isa_inst *in, uint32_t r, int writes)
{
    isa_span rd[6], wr[2];
    int nr, nw;
    isa_inst_regs(in, rd, &nr, wr, &nw);
    const isa_span *s = writes ? wr : rd;
    for (int i = 0, n = writes ? nw : nr; i < n; i++)
        if (r >= s[i].first && r - s[i].first < s[i].count)
            return 1;
    return 0;
}

/*
 * Per pc, 1 when the wave waits for a memory instruction's result before its next load: the result is read
 * before it is overwritten, and before another waited-on load issues.  An atomic whose old value nobody reads
 * (NVIDIA's RED) and a store are not waited on.  The walk goes forward in
 * program order; a loop back edge that encloses the instruction also brings the loop's top into view, so a
 * value read in the next iteration counts; a value nothing reads before the end of the program is not
 * waited on.
 */
static uint8_t *latency_waited_map(const isa_program *prog)
{
    uint8_t *waited = calloc(prog->code_count + 1, 1);
    if (!waited)
        return NULL;
    for (uint32_t pc = 0; pc < prog->code_count; pc++) {
        const isa_inst *in = &prog->code[pc];
        if (in->cls != ISA_CLASS_VMEM && in->cls != ISA_CLASS_SMEM && in->cls != ISA_CLASS_LDS)
            continue;
        if (in->op == ISA_OP_STORE || in->op == ISA_OP_IMG_STORE || in->op == ISA_OP_IMG_WRITE || in->d == ISA_NO_REG)
            continue;
        int verdict = -1; /* 1 read, 0 overwritten first */
        for (uint32_t q = pc + 1; q < prog->code_count && verdict < 0; q++) {
            const isa_inst *x = &prog->code[q];
            for (uint32_t k = 0; k < (in->count ? in->count : 1) && verdict < 0; k++) {
                if (touches_register(x, in->d + k, 0))
                    verdict = 1;
                else if (k == 0 && touches_register(x, in->d, 1))
                    verdict = 0;
            }
            if (verdict < 0 && x->op == ISA_OP_LOOP && x->imm >= 0 && (uint64_t)x->imm <= pc)
                for (uint32_t t = (uint32_t)x->imm; t <= pc && verdict < 0; t++)
                    for (uint32_t k = 0; k < (in->count ? in->count : 1) && verdict < 0; k++) {
                        if (touches_register(&prog->code[t], in->d + k, 0))
                            verdict = 1;
                        else if (k == 0 && touches_register(&prog->code[t], in->d, 1))
                            verdict = 0;
                    }
        }
        waited[pc] = verdict == 1;
    }
    /* Loads issued back to back overlap: a waited-on load whose result is not read before the next waited-on
     * load of the same straight-line code (no block, branch, loop or barrier between) is hidden under that
     * one's wait, so only the last of such a batch is charged. */
    for (uint32_t pc = 0; pc < prog->code_count; pc++) {
        if (!waited[pc])
            continue;
        const isa_inst *in = &prog->code[pc];
        for (uint32_t q = pc + 1; q < prog->code_count; q++) {
            const isa_inst *x = &prog->code[q];
            int used = 0;
            for (uint32_t k = 0; k < (in->count ? in->count : 1) && !used; k++)
                used = touches_register(x, in->d + k, 0);
            if (used || x->cls == ISA_CLASS_EXEC || x->cls == ISA_CLASS_BRANCH || x->cls == ISA_CLASS_SYNC)
                break;
            if (waited[q]) {
                waited[pc] = 0;
                break;
            }
        }
    }
    return waited;
}

/*
 * The latency bound (docs/memory.md, "The latency term").  A wave's chain is its waited-on loads, each at
 * the latency of the level that served it, plus its issue share (the dispatch's wave instructions per wave).
 * A CU runs its waves `slots` at a time, so it needs at least its longest chain, and a workgroup holds its
 * waves' slots until its last wave ends (a CU's occupancy is whole workgroups; CUDA releases a block's
 * resources when the block is done), so it needs at least the sum over its workgroups of their longest chain
 * times their waves, over its wave slots; the bound is the largest over the CUs that ran a workgroup.  Also fills the
 * busiest CU's workgroup count, which the per-CU throughput units use.
 */
static double latency_bound(mem_model *m, const sim_stats *x, mem_estimate *e)
{
    const mem_machine *mc = &m->machine;
    const uint32_t C = mc->compute_units, W = m->waves_per_group;
    uint32_t *groups_on = calloc(C, sizeof *groups_on), *argmax = calloc(C, sizeof *argmax);
    double *sum = calloc(C, sizeof *sum), *longest = calloc(C, sizeof *longest);
    double bound = 0;
    if (!groups_on || !argmax || !sum || !longest || !m->group || !m->wave_loads) {
        m->failed = 1;
        goto out;
    }
    double issue = 0;
    if (x) {
        double passes = (double)((m->wave_size + mc->simd_lanes - 1) / mc->simd_lanes), all = 0;
        for (int c = 0; c < ISA_CLASS_COUNT; c++)
            all += (double)x->by_class[c];
        all += (passes - 1) * (double)(x->by_class[ISA_CLASS_VALU] + x->by_class[ISA_CLASS_XLANE]);
        issue = all / ((double)m->group_count * W);
    }
    /* Hardware times are medians of repeated dispatches over the same buffers: when all the dispatch reads
     * fits in the L2, the next dispatch finds in the L2 what this (cold) one read from DRAM. */
    e->chain_warm = m->stats.dram_bytes_read <= mc->l2.bytes;
    const double latency[MEM_LEVEL_COUNT] = {
        [MEM_LEVEL_LDS] = mc->lds_latency, [MEM_LEVEL_L1] = mc->l1_hit_latency,
        [MEM_LEVEL_L2] = mc->l2_hit_latency, [MEM_LEVEL_DRAM] = e->chain_warm ? mc->l2_hit_latency : mc->dram_latency};
    for (uint32_t g = 0; g < m->group_count; g++) {
        uint32_t cu = m->group[g].cu < C ? m->group[g].cu : 0;
        groups_on[cu]++;
        double group_chain = 0;
        for (uint32_t k = 0; k < W; k++) {
            const uint32_t *loads = m->wave_loads[(size_t)g * W + k];
            double chain = issue;
            for (int l = 0; l < MEM_LEVEL_COUNT; l++)
                chain += loads[l] * latency[l];
            if (chain > group_chain)
                group_chain = chain;
            if (chain > longest[cu])
                longest[cu] = chain, argmax[cu] = g * W + k;
        }
        sum[cu] += group_chain * W;
    }
    const double slots = (double)m->workgroups_per_cu * W;
    e->cus_occupied = 0;
    e->busiest_cu_groups = 0;
    for (uint32_t c = 0; c < C; c++) {
        if (!groups_on[c])
            continue;
        e->cus_occupied++;
        if (groups_on[c] > e->busiest_cu_groups)
            e->busiest_cu_groups = groups_on[c];
        double b = longest[c] > sum[c] / slots ? longest[c] : sum[c] / slots;
        if (b > bound || e->cus_occupied == 1) {
            bound = b;
            e->latency_cu = c;
            e->latency_cu_waves = groups_on[c] * W;
            e->chain_group = argmax[c] / W, e->chain_wave = argmax[c] % W;
            e->chain_cycles = longest[c];
            for (int l = 0; l < MEM_LEVEL_COUNT; l++)
                e->chain_loads[l] = m->wave_loads[argmax[c]][l];
        }
    }
    e->latency_wave_slots = (uint32_t)slots;
    e->chain_issue_cycles = issue;
out:
    free(groups_on), free(argmax), free(sum), free(longest);
    return bound;
}

static void compute_estimate(mem_model *m, const sim_stats *x)
{
    const mem_machine *mc = &m->machine;
    mem_estimate *e = &m->estimate;
    /* The per-CU units divide by the CUs the work spreads over: every CU without the latency term (today's
     * roofline, unchanged), the busiest CU's share of the workgroups with it (8 workgroups keep 8 CUs busy,
     * not 132). */
    double cus = mc->compute_units;
    if (mc->l1_hit_latency) {
        e->has_latency = 1;
        e->unit_cycles[MEM_UNIT_LATENCY] = latency_bound(m, x, e);
        if (e->busiest_cu_groups)
            cus = (double)m->group_count / e->busiest_cu_groups;
    }
    double simds = cus * mc->simds_per_cu;
    double passes = (double)((m->wave_size + mc->simd_lanes - 1) / mc->simd_lanes);
    if (x) {
        double valu = (double)(x->by_class[ISA_CLASS_VALU] + x->by_class[ISA_CLASS_XLANE]);
        double salu = (double)(x->by_class[ISA_CLASS_SALU] + x->by_class[ISA_CLASS_EXEC] +
                               x->by_class[ISA_CLASS_BRANCH] + x->by_class[ISA_CLASS_SYNC]);
        e->unit_cycles[MEM_UNIT_VALU] = valu * passes / simds;
        e->unit_cycles[MEM_UNIT_SALU] = salu / simds;
    }
    const mem_stats *s = &m->stats;
    e->unit_cycles[MEM_UNIT_LDS] = (double)s->lds_cycles / cus;
    e->unit_cycles[MEM_UNIT_MEMORY] = (double)s->global_lines / cus;
    uint64_t l2_sectors = s->l2_read_hits + s->l2_read_misses + s->l2_write_hits + s->l2_write_misses +
                          s->l2_atomic_hits + s->l2_atomic_misses;
    /* The L2 is bound by its data path (sectors) or by its slices' lookups (one per line requested): the
     * gather's one-sector requests reach the second long before the first (docs/hardware.md, "What bounds
     * the gather"). */
    if (mc->l2_bytes_per_cycle > 0)
        e->unit_cycles[MEM_UNIT_L2] = (double)l2_sectors * mc->sector_bytes / mc->l2_bytes_per_cycle;
    /* writes and atomics, then the reads after the L1's merging (candidates are reads only) */
    double requests = (double)(s->l2_requests - s->l2_read_requests) + mem_stats_l2_read_requests_merged(s, mc) +
                      (mc->l2_partial_write_cost - 1) * (double)s->global_partial_write_requests;
    if (mc->l2_requests_per_cycle > 0 && requests / mc->l2_requests_per_cycle > e->unit_cycles[MEM_UNIT_L2])
        e->unit_cycles[MEM_UNIT_L2] = requests / mc->l2_requests_per_cycle;
    e->unit_cycles[MEM_UNIT_DRAM] = (double)(s->dram_bytes_read + s->dram_bytes_written) / mc->dram_bytes_per_cycle;
    /* an atomic unit does its requests' passes one after another: the busiest unit bounds the dispatch */
    e->has_atomic = mc->l2_atomic_cycles > 0;
    e->atomic_busiest_passes = m->atomic_units.busiest;
    e->unit_cycles[MEM_UNIT_ATOMIC] = (double)m->atomic_units.busiest * mc->l2_atomic_cycles;
    e->cycles = 0;
    e->bound_unit = MEM_UNIT_VALU;
    for (int u = 0; u < MEM_UNIT_COUNT; u++)
        if (e->unit_cycles[u] > e->cycles)
            e->cycles = e->unit_cycles[u], e->bound_unit = (mem_unit)u;
    for (int u = 0; u < MEM_UNIT_COUNT; u++)
        e->percent_of_peak[u] = e->cycles > 0 ? 100.0 * e->unit_cycles[u] / e->cycles : 0;
    e->microseconds = e->cycles / mc->clock_mhz;
}

void mem_model_end(mem_model *m, const sim_stats *exec_stats)
{
    if (!m->prog || m->ended)
        return;
    m->ended = 1;
    if (m->have_cur)
        publish(m, m->cur_group + 1);
    if (m->threaded) {
        pthread_mutex_lock(&m->lock);
        m->complete = m->group_count;
        m->final = 1;
        pthread_cond_broadcast(&m->more);
        pthread_mutex_unlock(&m->lock);
        pthread_join(m->thread, NULL);
        m->threaded = 0;
    } else {
        m->complete = m->group_count;
        replay_advance(m, m->group_count, 1);
    }
    /* the dirty data left in the L2: written back after the dispatch (flush: charged to it, with the reads
     * that complete its granules; evict: left out, as Nsight Compute leaves it out of a kernel's bytes) */
    uint64_t completed, dirty = cache_hier_dirty_sectors(&m->hier, &completed);
    m->stats.dram_dirty_at_end_bytes = dirty * m->machine.sector_bytes;
    if (m->machine.write_back == MEM_WRITE_BACK_FLUSH) {
        m->stats.dram_bytes_written += dirty * m->machine.sector_bytes;
        m->stats.dram_completed_bytes += completed * m->machine.sector_bytes;
        m->stats.dram_bytes_read += completed * m->machine.sector_bytes;
    }
    compute_estimate(m, exec_stats);
}

int mem_model_lds_capture(const mem_model *m, uint32_t pc, sim_mask *exec, uint64_t *addr, uint32_t *bytes_per_lane,
                          uint32_t *group_linear)
{
    if (!m->capture || !m->prog || pc >= m->prog->code_count || !m->capture[pc])
        return 0;
    const uint64_t *c = m->capture[pc];
    *exec = (sim_mask)c[0] | (sim_mask)c[1] << 64;
    *bytes_per_lane = (uint32_t)c[2];
    if (group_linear)
        *group_linear = (uint32_t)c[3];
    memcpy(addr, c + 4, m->wave_size * sizeof *addr);
    return 1;
}

/* ------------------------------------------------------------ output */

static const char *stat_groups[] = {
#define X(group, name, meaning) #group,
#include "sim/memcounters.def"
#undef X
};

void *mem_model_json(const mem_model *m, const isa_program *prog)
{
    cJSON *o = cJSON_CreateObject();
    const mem_stats *s = &m->stats;
    cJSON_AddStringToObject(o, "machine", m->machine.name);
    cJSON_AddNumberToObject(o, "wave_size", m->wave_size);
    cJSON *grp = NULL;
    const char *last = "";
    int row = 0;
#define X(group, name, meaning) \
    if (strcmp(stat_groups[row], last) != 0) { \
        grp = cJSON_GetObjectItemCaseSensitive(o, #group); \
        if (!grp) \
            grp = cJSON_AddObjectToObject(o, #group); \
        last = stat_groups[row]; \
    } \
    cJSON_AddNumberToObject(grp, #name, (double)s->group##_##name); \
    row++;
#include "sim/memcounters.def"
#undef X
    cJSON *l2 = cJSON_GetObjectItemCaseSensitive(o, "l2");
    cJSON_AddNumberToObject(l2, "hit_rate", mem_stats_l2_hit_rate(s));
    cJSON_AddNumberToObject(l2, "read_hit_rate", mem_stats_l2_read_hit_rate(s));
    const mem_estimate *e = &m->estimate;
    cJSON *est = cJSON_AddObjectToObject(o, "estimate");
    cJSON_AddStringToObject(est, "bound_unit", mem_unit_name(e->bound_unit));
    cJSON_AddNumberToObject(est, "cycles", e->cycles);
    cJSON_AddNumberToObject(est, "microseconds", e->microseconds);
    cJSON_AddNumberToObject(est, "dispatch_microseconds", e->microseconds + m->machine.dispatch_us);
    cJSON *units = cJSON_AddObjectToObject(est, "units");
    for (int u = 0; u < MEM_UNIT_COUNT; u++) {
        if (!mem_estimate_has_unit(e, (mem_unit)u))
            continue;
        cJSON *x = cJSON_AddObjectToObject(units, mem_unit_name((mem_unit)u));
        cJSON_AddNumberToObject(x, "cycles", e->unit_cycles[u]);
        cJSON_AddNumberToObject(x, "percent_of_peak", e->percent_of_peak[u]);
    }
    if (e->has_atomic)
        cJSON_AddNumberToObject(est, "atomic_busiest_unit_passes", (double)e->atomic_busiest_passes);
    if (e->has_latency) {
        cJSON *lat = cJSON_AddObjectToObject(est, "latency");
        cJSON_AddNumberToObject(lat, "cus_occupied", e->cus_occupied);
        cJSON_AddNumberToObject(lat, "busiest_cu_workgroups", e->busiest_cu_groups);
        cJSON_AddNumberToObject(lat, "cu", e->latency_cu);
        cJSON_AddNumberToObject(lat, "cu_waves", e->latency_cu_waves);
        cJSON_AddNumberToObject(lat, "wave_slots", e->latency_wave_slots);
        cJSON_AddNumberToObject(lat, "chain_workgroup", e->chain_group);
        cJSON_AddNumberToObject(lat, "chain_wave", e->chain_wave);
        cJSON_AddNumberToObject(lat, "chain_cycles", e->chain_cycles);
        cJSON_AddNumberToObject(lat, "chain_issue_cycles", e->chain_issue_cycles);
        cJSON_AddBoolToObject(lat, "chain_warm", e->chain_warm);
        cJSON *loads = cJSON_AddObjectToObject(lat, "chain_loads");
        for (int l = 0; l < MEM_LEVEL_COUNT; l++)
            cJSON_AddNumberToObject(loads, mem_level_name((mem_level)l), (double)e->chain_loads[l]);
    }
    cJSON *per = cJSON_AddArrayToObject(o, "per_instruction");
    for (uint32_t pc = 0; prog && m->inst && pc < prog->code_count; pc++) {
        const mem_inst_stats *is = &m->inst[pc];
        if (!is->executions)
            continue;
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "pc", pc);
        cJSON_AddNumberToObject(x, "line", prog->code[pc].line);
        cJSON_AddNumberToObject(x, "executions", (double)is->executions);
        if (prog->code[pc].cls == ISA_CLASS_LDS) {
            cJSON_AddNumberToObject(x, "lds_cycles", (double)is->lds_cycles);
            cJSON_AddNumberToObject(x, "lds_bank_conflict_cycles", (double)is->lds_conflict_cycles);
            cJSON_AddNumberToObject(x, "lds_max_passes", is->lds_max_passes);
        } else {
            cJSON_AddNumberToObject(x, "lines", (double)is->lines);
            cJSON_AddNumberToObject(x, "sectors", (double)is->sectors);
            cJSON_AddNumberToObject(x, "l1_hits", (double)is->l1_hits);
            cJSON_AddNumberToObject(x, "l1_misses", (double)is->l1_misses);
            cJSON_AddNumberToObject(x, "l2_hits", (double)is->l2_hits);
            cJSON_AddNumberToObject(x, "l2_misses", (double)is->l2_misses);
            cJSON_AddNumberToObject(x, "dram_bytes_read", (double)is->dram_bytes_read);
        }
        cJSON_AddItemToArray(per, x);
    }
    cJSON *pw = cJSON_AddArrayToObject(o, "per_workgroup");
    for (uint32_t g = 0; m->group && g < m->group_count; g++) {
        const mem_group_stats *gs = &m->group[g];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "id", g);
        cJSON_AddNumberToObject(x, "cu", gs->cu);
        cJSON_AddNumberToObject(x, "launch_order", gs->launch_order);
        cJSON_AddNumberToObject(x, "launch_step", gs->launch_step);
        cJSON_AddNumberToObject(x, "end_step", gs->end_step);
        cJSON_AddNumberToObject(x, "l2_hits", (double)gs->l2_hits);
        cJSON_AddNumberToObject(x, "l2_misses", (double)gs->l2_misses);
        cJSON_AddNumberToObject(x, "l2_read_hits", (double)gs->l2_read_hits);
        cJSON_AddNumberToObject(x, "l2_read_misses", (double)gs->l2_read_misses);
        cJSON_AddNumberToObject(x, "lds_cycles", (double)gs->lds_cycles);
        cJSON_AddNumberToObject(x, "lds_bank_conflict_cycles", (double)gs->lds_conflict_cycles);
        cJSON_AddItemToArray(pw, x);
    }
    return o;
}

/* "37.5% (3 hits, 5 misses)", or "n/a (no reads)" when nothing was counted: a rate of no events is no rate. */
/* a read hit rate (from mem_stats_*_read_hit_rate) with its counts; "n/a" when nothing was read */
static void print_rate(FILE *f, double rate, uint64_t hits, uint64_t misses)
{
    if (hits + misses)
        fprintf(f, "%.1f%% (%llu hits, %llu misses)", 100.0 * rate, (unsigned long long)hits,
                (unsigned long long)misses);
    else
        fprintf(f, "n/a (no reads)");
}

/* bytes with a unit that keeps a few significant digits: "1.25 MB", "3.6 KB", "64 B" */
static void print_bytes(FILE *f, uint64_t bytes)
{
    if (bytes >= 100000)
        fprintf(f, "%.2f MB", (double)bytes / 1e6);
    else if (bytes >= 1000)
        fprintf(f, "%.1f KB", (double)bytes / 1e3);
    else
        fprintf(f, "%llu B", (unsigned long long)bytes);
}

/* microseconds with at least two significant digits: "103.1 us", "0.0071 us" */
static void print_us(FILE *f, double us)
{
    if (us >= 0.05 || us <= 0)
        fprintf(f, "%.1f us", us);
    else
        fprintf(f, "%.2g us", us);
}

void mem_model_print(const mem_model *m, const isa_program *prog, FILE *f)
{
    (void)prog;
    const mem_stats *s = &m->stats;
    const mem_machine *mc = &m->machine;
    fprintf(f, "memory (machine %s: %u CUs, %u workgroups per CU, L2 %llu KiB %u-way, %u B lines)\n", mc->name,
            mc->compute_units, m->workgroups_per_cu, (unsigned long long)(mc->l2.bytes / 1024), mc->l2.ways,
            mc->l2.line_bytes);
    if (s->lds_instructions)
        fprintf(f, "  lds          %llu instructions, %llu cycles, %llu bank-conflict cycles (%.2f passes per lane group)\n",
                (unsigned long long)s->lds_instructions, (unsigned long long)s->lds_cycles,
                (unsigned long long)s->lds_bank_conflict_cycles,
                s->lds_ideal_cycles ? (double)s->lds_cycles / (double)s->lds_ideal_cycles : 0.0);
    if (s->global_instructions) {
        fprintf(f, "  global       %llu instructions, %llu line requests, %llu sectors\n",
                (unsigned long long)s->global_instructions, (unsigned long long)s->global_lines,
                (unsigned long long)s->global_sectors);
        if (mc->l1.bytes) {
            fprintf(f, "  l1           read hit rate ");
            print_rate(f, mem_stats_l1_read_hit_rate(s), s->l1_read_hits, s->l1_read_misses);
            fprintf(f, "\n");
        }
        fprintf(f, "  l2           read hit rate ");
        print_rate(f, mem_stats_l2_read_hit_rate(s), s->l2_read_hits, s->l2_read_misses);
        fprintf(f, "; writes %llu hits, %llu misses; atomics %llu hits, %llu misses\n",
                (unsigned long long)s->l2_write_hits, (unsigned long long)s->l2_write_misses,
                (unsigned long long)s->l2_atomic_hits, (unsigned long long)s->l2_atomic_misses);
        fprintf(f, "  dram         ");
        print_bytes(f, s->dram_bytes_read);
        fprintf(f, " read, ");
        print_bytes(f, s->dram_bytes_written);
        fprintf(f, " written");
        if (s->dram_completed_bytes) {
            fprintf(f, " (");
            print_bytes(f, s->dram_completed_bytes);
            fprintf(f, " of the reads complete written granules)");
        }
        if (mc->write_back == MEM_WRITE_BACK_EVICT && s->dram_dirty_at_end_bytes) {
            fprintf(f, "; ");
            print_bytes(f, s->dram_dirty_at_end_bytes);
            fprintf(f, " left dirty in the L2");
        }
        fprintf(f, "\n");
    }
    fprintf(f, "  replay       %llu steps\n", (unsigned long long)s->replay_steps);
    const mem_estimate *e = &m->estimate;
    fprintf(f, "  estimate     %.0f cycles = ", e->cycles);
    print_us(f, e->microseconds);
    /* Without the latency term the estimate is throughput alone; below one DRAM round trip no unit's throughput
     * decides the time, so naming the largest term "the bound" would claim what the model cannot see. */
    if (!e->has_latency && mc->dram_latency && e->cycles < mc->dram_latency)
        fprintf(f, " at %.0f MHz, no unit bound: every throughput term is below one DRAM round trip (%u cycles), "
                   "latency decides and this machine does not model it;", mc->clock_mhz, mc->dram_latency);
    else
        fprintf(f, " at %.0f MHz, bound by %s;", mc->clock_mhz, mem_unit_name(e->bound_unit));
    for (int u = 0; u < MEM_UNIT_COUNT; u++)
        if (mem_estimate_has_unit(e, (mem_unit)u))
            fprintf(f, " %s %.0f%%", mem_unit_name((mem_unit)u), e->percent_of_peak[u]);
    if (mc->dispatch_us > 0)
    {
        fprintf(f, "; with the dispatch ");
        print_us(f, e->microseconds + mc->dispatch_us);
    }
    fprintf(f, "\n");
    if (e->has_atomic && e->atomic_busiest_passes)
        fprintf(f, "  atomic       the busiest L2 atomic unit (%u bytes) does %llu passes of %g cycles\n",
                mc->l2_atomic_granule_bytes, (unsigned long long)e->atomic_busiest_passes, mc->l2_atomic_cycles);
    if (e->has_latency)
        fprintf(f, "  latency      %u of %u CUs ran workgroups (at most %u on one); CU %u: %u waves, %u at once; its "
                   "longest chain %.0f cycles (workgroup %u wave %u: %llu L1, %llu L2, %llu DRAM, %llu LDS loads "
                   "waited on%s, %.0f issue)\n",
                e->cus_occupied, mc->compute_units, e->busiest_cu_groups, e->latency_cu, e->latency_cu_waves,
                e->latency_wave_slots, e->chain_cycles, e->chain_group, e->chain_wave,
                (unsigned long long)e->chain_loads[MEM_LEVEL_L1], (unsigned long long)e->chain_loads[MEM_LEVEL_L2],
                (unsigned long long)e->chain_loads[MEM_LEVEL_DRAM], (unsigned long long)e->chain_loads[MEM_LEVEL_LDS],
                e->chain_warm && e->chain_loads[MEM_LEVEL_DRAM] ? "; DRAM at the L2's latency: the reads fit in it"
                                                                : "",
                e->chain_issue_cycles);
    if (m->failed)
        fprintf(f, "  warning      out of memory while recording: memory statistics are incomplete\n");
}
