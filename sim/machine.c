/*
 * sim/machine.c — the machine preset loader (machines/NAME.json).
 *
 * A preset is untrusted input: every problem becomes MEM_ERR_PRESET with the
 * file and the field named, never an assert.  The required numeric fields are
 * listed once in MACHINE_FIELDS; each must also have an entry in "sources"
 * (the public document the number comes from).
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "img/img.h"
#include "sim/machine.h"
#include "text/text.h"

/* X(field, min, max): the required unsigned fields of a preset. */
#define MACHINE_FIELDS(X) \
    X(default_wave, 1, 1024) X(compute_units, 1, 1u << 20) X(simds_per_cu, 1, 64) X(simd_lanes, 1, 1024) \
    X(max_waves_per_simd, 1, 1024) X(max_workgroups_per_cu, 1, 1024) X(vgprs_per_simd_lane, 1, 1u << 20) \
    X(vgpr_granule, 1, 1024) X(max_vgprs_per_wave, 1, 1u << 16) X(sgprs_per_simd, 0, 1u << 20) \
    X(sgpr_granule, 0, 1024) X(max_sgprs_per_wave, 0, 1u << 16) X(lds_bytes_per_cu, 0, 1u << 30) \
    X(lds_banks, 1, 1024) X(lds_bank_bytes, 1, 64) X(lds_lanes_per_cycle, 1, 1024) \
    X(cache_line_bytes, 1, 1u << 16) X(sector_bytes, 1, 1u << 16) X(l2_hit_latency, 0, 1u << 20) \
    X(dram_latency, 0, 1u << 20)

static int fail(char *err, size_t size, const char *file, const char *field, const char *what)
{
    snprintf(err, size, "%s: field '%s': %s", file, field, what);
    return 0;
}

static int get_uint(const cJSON *o, const char *file, const char *prefix, const char *field, uint64_t min,
                    uint64_t max, uint64_t *out, char *err, size_t size)
{
    char full[96];
    snprintf(full, sizeof full, "%s%s", prefix, field);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);
    if (!v)
        return fail(err, size, file, full, "missing");
    /* the range first: converting a negative, infinite or huge double to an integer is undefined */
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble < 18446744073709551616.0) ||
        v->valuedouble != (double)(uint64_t)v->valuedouble)
        return fail(err, size, file, full, "not a non-negative integer");
    uint64_t x = (uint64_t)v->valuedouble;
    if (x < min || x > max) {
        char what[96];
        snprintf(what, sizeof what, "%llu is out of range %llu..%llu", (unsigned long long)x,
                 (unsigned long long)min, (unsigned long long)max);
        return fail(err, size, file, full, what);
    }
    *out = x;
    return 1;
}

static int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

static int parse_cache(const cJSON *o, const char *file, const char *name, mem_cache_geometry *c, char *err,
                       size_t size)
{
    char prefix[16];
    snprintf(prefix, sizeof prefix, "%s.", name);
    if (!cJSON_IsObject(o))
        return fail(err, size, file, name, "not an object");
    uint64_t bytes, ways, line, sector = 0;
    if (!get_uint(o, file, prefix, "bytes", 1, 1ull << 40, &bytes, err, size) ||
        !get_uint(o, file, prefix, "ways", 1, 1024, &ways, err, size) ||
        !get_uint(o, file, prefix, "line_bytes", 4, 1u << 16, &line, err, size))
        return 0;
    if (cJSON_GetObjectItemCaseSensitive(o, "sector_bytes") &&
        !get_uint(o, file, prefix, "sector_bytes", 4, 1u << 16, &sector, err, size))
        return 0;
    char full[96];
    if (!is_pow2(line)) {
        snprintf(full, sizeof full, "%sline_bytes", prefix);
        return fail(err, size, file, full, "not a power of two");
    }
    if (sector == 0)
        sector = line;
    if (!is_pow2(sector) || sector > line || line / sector > 32) {
        snprintf(full, sizeof full, "%ssector_bytes", prefix);
        return fail(err, size, file, full, "must be a power of two dividing line_bytes into at most 32 sectors");
    }
    if (bytes % (ways * line)) {
        snprintf(full, sizeof full, "%sbytes", prefix);
        return fail(err, size, file, full, "not a multiple of ways * line_bytes");
    }
    const cJSON *pol = cJSON_GetObjectItemCaseSensitive(o, "policy");
    snprintf(full, sizeof full, "%spolicy", prefix);
    if (!cJSON_IsString(pol) || strcmp(pol->valuestring, "lru") != 0)
        return fail(err, size, file, full, "must be \"lru\" (the only policy modelled)");
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(o, "set_hash");
    snprintf(full, sizeof full, "%sset_hash", prefix);
    if (!cJSON_IsString(hash) ||
        (strcmp(hash->valuestring, "modulo") && strcmp(hash->valuestring, "xor") && strcmp(hash->valuestring, "mix")))
        return fail(err, size, file, full, "must be \"modulo\", \"xor\" or \"mix\"");
    /* level-specific keys: "partitions" and "near_copies" (L2), "allocate" (L1) */
    int is_l2 = strcmp(name, "l2") == 0;
    uint64_t parts = 1;
    int near = 0, alloc = 1;
    const cJSON *pk = cJSON_GetObjectItemCaseSensitive(o, "partitions");
    const cJSON *nk = cJSON_GetObjectItemCaseSensitive(o, "near_copies");
    const cJSON *ak = cJSON_GetObjectItemCaseSensitive(o, "allocate");
    if (!is_l2 && (pk || nk)) {
        snprintf(full, sizeof full, "%s%s", prefix, pk ? "partitions" : "near_copies");
        return fail(err, size, file, full, "only the l2 has partitions");
    }
    if (is_l2 && ak) {
        snprintf(full, sizeof full, "%sallocate", prefix);
        return fail(err, size, file, full, "only the l1 has an allocation policy");
    }
    if (pk && !get_uint(o, file, prefix, "partitions", 1, MEM_MAX_L2_PARTITIONS, &parts, err, size))
        return 0;
    if (pk && bytes % (parts * ways * line)) {
        snprintf(full, sizeof full, "%sbytes", prefix);
        return fail(err, size, file, full, "not a multiple of partitions * ways * line_bytes");
    }
    if (nk) {
        snprintf(full, sizeof full, "%snear_copies", prefix);
        if (!cJSON_IsBool(nk))
            return fail(err, size, file, full, "must be true or false");
        near = cJSON_IsTrue(nk);
    }
    if (ak) {
        snprintf(full, sizeof full, "%sallocate", prefix);
        if (!cJSON_IsString(ak) || (strcmp(ak->valuestring, "reads") && strcmp(ak->valuestring, "none")))
            return fail(err, size, file, full, "must be \"reads\" or \"none\"");
        alloc = strcmp(ak->valuestring, "reads") == 0;
    }
    c->partitions = (uint32_t)parts;
    c->near_copies = near;
    c->allocate_reads = alloc;
    c->bytes = bytes;
    c->ways = (uint32_t)ways;
    c->line_bytes = (uint32_t)line;
    c->sector_bytes = (uint32_t)sector;
    c->set_hash = strcmp(hash->valuestring, "xor") == 0   ? MEM_HASH_XOR
                  : strcmp(hash->valuestring, "mix") == 0 ? MEM_HASH_MIX
                                                          : MEM_HASH_MODULO;
    return 1;
}

static int has_source(const cJSON *sources, const char *field)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(sources, field);
    return cJSON_IsString(s) && s->valuestring[0];
}

/* An optional field that is present needs its source: 1, or 0 with the error naming sources.FIELD. */
static int require_source(const cJSON *sources, const char *file, const char *field, char *err, size_t size)
{
    if (has_source(sources, field))
        return 1;
    char full[64];
    snprintf(full, sizeof full, "sources.%s", field);
    return fail(err, size, file, full, "missing: say where the number comes from");
}

/* The latency term's optional fields (cycles), each with its source; absent = 0. */
/* Every floating field is checked with this first: cJSON reads 1e309 as infinity, which passes "> 0". */
static int is_finite_number(const cJSON *v) { return cJSON_IsNumber(v) && isfinite(v->valuedouble); }

static int parse_latency_fields(const cJSON *root, const cJSON *sources, const char *file, mem_machine *m,
                                char *err, size_t size)
{
    static const struct {
        const char *field;
        size_t offset;
    } fields[] = {
        {"l1_hit_latency", offsetof(mem_machine, l1_hit_latency)},
        {"lds_latency", offsetof(mem_machine, lds_latency)},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        uint64_t v;
        if (!cJSON_GetObjectItemCaseSensitive(root, fields[i].field))
            continue;
        if (!get_uint(root, file, "", fields[i].field, 1, 1u << 20, &v, err, size) ||
            !require_source(sources, file, fields[i].field, err, size))
            return 0;
        *(uint32_t *)((char *)m + fields[i].offset) = (uint32_t)v;
    }
    return 1;
}

/* The L2's optional throughput fields (per cycle of clock_mhz, positive) and the L1's miss merging (a share
 * from 0 to 1), each with its source; absent = 0: not limited, no merging. */
static int parse_l2_rates(const cJSON *root, const cJSON *sources, const char *file, mem_machine *m, char *err,
                          size_t size)
{
    static const struct {
        const char *field;
        size_t offset;
        int share; /* a share from 0 to 1; else a positive rate */
    } fields[] = {
        {"l2_bytes_per_cycle", offsetof(mem_machine, l2_bytes_per_cycle), 0},
        {"l2_requests_per_cycle", offsetof(mem_machine, l2_requests_per_cycle), 0},
        {"l1_miss_merge", offsetof(mem_machine, l1_miss_merge), 1},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, fields[i].field);
        if (!v)
            continue;
        double x = is_finite_number(v) ? v->valuedouble : -1;
        int ok = fields[i].share ? x >= 0 && x <= 1 : x > 0 && x <= 1e12;
        if (!ok)
            return fail(err, size, file, fields[i].field,
                        fields[i].share ? "not a number from 0 to 1" : "not a positive number");
        if (!require_source(sources, file, fields[i].field, err, size))
            return 0;
        *(double *)((char *)m + fields[i].offset) = x;
    }
    return 1;
}

/* The DRAM side's optional fields (sim/machine.h), each with its source: the access granule, the write-back
 * accounting and the partial-store cost.  Runs after the line and sector sizes are checked. */
static int parse_dram_fields(const cJSON *root, const cJSON *sources, const char *file, mem_machine *m, char *err,
                             size_t size)
{
    m->dram_fetch_bytes = m->sector_bytes;
    m->write_back = MEM_WRITE_BACK_FLUSH;
    m->l2_partial_write_cost = 1;
    uint64_t v;
    if (cJSON_GetObjectItemCaseSensitive(root, "dram_fetch_bytes")) {
        if (!get_uint(root, file, "", "dram_fetch_bytes", m->sector_bytes, m->cache_line_bytes, &v, err, size))
            return 0;
        if (!is_pow2(v))
            return fail(err, size, file, "dram_fetch_bytes", "not a power of two");
        if (!require_source(sources, file, "dram_fetch_bytes", err, size))
            return 0;
        m->dram_fetch_bytes = (uint32_t)v;
    }
    static const char *const write_back[] = {[MEM_WRITE_BACK_FLUSH] = "flush", [MEM_WRITE_BACK_EVICT] = "evict"};
    _Static_assert(sizeof write_back / sizeof write_back[0] == 2, "the message below names both");
    const cJSON *wb = cJSON_GetObjectItemCaseSensitive(root, "l2_write_back");
    if (wb) {
        size_t i = 0;
        while (i < sizeof write_back / sizeof write_back[0] &&
               !(cJSON_IsString(wb) && strcmp(wb->valuestring, write_back[i]) == 0))
            i++;
        if (i == sizeof write_back / sizeof write_back[0]) {
            char what[64];
            snprintf(what, sizeof what, "must be \"%s\" or \"%s\"", write_back[0], write_back[1]);
            return fail(err, size, file, "l2_write_back", what);
        }
        if (!require_source(sources, file, "l2_write_back", err, size))
            return 0;
        m->write_back = (mem_write_back)i;
    }
    const cJSON *pw = cJSON_GetObjectItemCaseSensitive(root, "l2_partial_write_cost");
    if (pw) {
        if (!is_finite_number(pw) || !(pw->valuedouble >= 1 && pw->valuedouble <= 64))
            return fail(err, size, file, "l2_partial_write_cost", "not a number from 1 to 64");
        if (!require_source(sources, file, "l2_partial_write_cost", err, size))
            return 0;
        m->l2_partial_write_cost = pw->valuedouble;
    }
    return 1;
}

/* The optional "dispatch" object: the replay's placement and per-group pace (sim/machine.h, mem_dispatch). */
static int parse_dispatch(const cJSON *o, const cJSON *sources, const char *file, mem_machine *m, char *err,
                          size_t size)
{
    m->dispatch.cus_per_cluster = 1;
    m->dispatch.cluster_stride = 1;
    m->dispatch.duration_spread = 0;
    m->dispatch.queue_clusters = 0;
    m->dispatch.l2_requests_per_step = 0;
    if (!o)
        return 1;
    if (!cJSON_IsObject(o))
        return fail(err, size, file, "dispatch", "not an object");
    if (!has_source(sources, "dispatch"))
        return fail(err, size, file, "sources.dispatch", "missing: say where the numbers come from");
    /* the fields, in the order an unknown one's message lists them */
    static const char *const fields[] = {"cus_per_cluster", "cluster_stride", "duration_spread", "queue_clusters",
                                         "l2_requests_per_step"};
    const size_t nfields = sizeof fields / sizeof fields[0];
    const cJSON *k;
    cJSON_ArrayForEach(k, o) {
        size_t f = 0;
        while (f < nfields && strcmp(k->string, fields[f]))
            f++;
        if (f < nfields)
            continue;
        char full[96], known[160] = "unknown (";
        snprintf(full, sizeof full, "dispatch.%.80s", k->string);
        for (f = 0; f < nfields; f++) {
            strcat(known, fields[f]);
            strcat(known, f + 1 < nfields ? ", " : ")");
        }
        return fail(err, size, file, full, known);
    }
    uint64_t v;
    if (cJSON_GetObjectItemCaseSensitive(o, "cus_per_cluster")) {
        if (!get_uint(o, file, "dispatch.", "cus_per_cluster", 1, 64, &v, err, size))
            return 0;
        if (m->compute_units % v)
            return fail(err, size, file, "dispatch.cus_per_cluster", "does not divide compute_units");
        m->dispatch.cus_per_cluster = (uint32_t)v;
    }
    if (cJSON_GetObjectItemCaseSensitive(o, "cluster_stride")) {
        if (!get_uint(o, file, "dispatch.", "cluster_stride", 1, 1u << 20, &v, err, size))
            return 0;
        if (v > m->compute_units / m->dispatch.cus_per_cluster)
            return fail(err, size, file, "dispatch.cluster_stride", "larger than the number of clusters");
        m->dispatch.cluster_stride = (uint32_t)v;
    }
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(o, "duration_spread");
    if (sp) {
        if (!is_finite_number(sp) || !(sp->valuedouble >= 0 && sp->valuedouble <= 15))
            return fail(err, size, file, "dispatch.duration_spread", "not a number from 0 to 15");
        m->dispatch.duration_spread = sp->valuedouble;
    }
    if (cJSON_GetObjectItemCaseSensitive(o, "queue_clusters")) {
        if (!get_uint(o, file, "dispatch.", "queue_clusters", 0, m->compute_units / m->dispatch.cus_per_cluster, &v,
                      err, size))
            return 0;
        m->dispatch.queue_clusters = (uint32_t)v;
    }
    const cJSON *rq = cJSON_GetObjectItemCaseSensitive(o, "l2_requests_per_step");
    if (rq) {
        /* at least one request a step, or a CU could never send a wide instruction's requests in bounded time */
        if (!is_finite_number(rq) || !(rq->valuedouble == 0 || (rq->valuedouble >= 1 && rq->valuedouble <= 1e9)))
            return fail(err, size, file, "dispatch.l2_requests_per_step", "not 0 or a number from 1 to 1e9");
        m->dispatch.l2_requests_per_step = rq->valuedouble;
    }
    return 1;
}

static int parse_root(const cJSON *root, const char *file, mem_machine *m, char *err, size_t size)
{
    if (!cJSON_IsObject(root))
        return fail(err, size, file, "(top level)", "not a JSON object");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (!cJSON_IsString(name) || !name->valuestring[0] || strlen(name->valuestring) >= sizeof m->name)
        return fail(err, size, file, "name", "missing or not a short string");
    snprintf(m->name, sizeof m->name, "%s", name->valuestring);
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (desc && !cJSON_IsString(desc))
        return fail(err, size, file, "description", "not a string");
    if (desc)
        snprintf(m->description, sizeof m->description, "%s", desc->valuestring);
    const cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
    if (!cJSON_IsObject(sources))
        return fail(err, size, file, "sources", "missing: every number needs its public source");

    uint64_t v;
#define X(field, lo, hi) \
    if (!get_uint(root, file, "", #field, lo, hi, &v, err, size)) \
        return 0; \
    if (!has_source(sources, #field)) \
        return fail(err, size, file, "sources." #field, "missing: say where the number comes from"); \
    m->field = (uint32_t)v;
    MACHINE_FIELDS(X)
#undef X

    const cJSON *ws = cJSON_GetObjectItemCaseSensitive(root, "wave_sizes");
    if (!cJSON_IsArray(ws) || cJSON_GetArraySize(ws) < 1 || cJSON_GetArraySize(ws) > MEM_MAX_WAVE_SIZES)
        return fail(err, size, file, "wave_sizes", "must be an array of 1 to 4 wave sizes");
    const cJSON *e;
    int found_default = 0;
    cJSON_ArrayForEach(e, ws) {
        if (!cJSON_IsNumber(e) || e->valuedouble < 4 || e->valuedouble > 64 || !is_pow2((uint64_t)e->valuedouble) ||
            e->valuedouble != (double)(uint64_t)e->valuedouble)
            return fail(err, size, file, "wave_sizes", "each must be a power of two from 4 to 64");
        m->wave_sizes[m->wave_size_count++] = (uint32_t)e->valuedouble;
        found_default |= (uint32_t)e->valuedouble == m->default_wave;
    }
    if (!has_source(sources, "wave_sizes"))
        return fail(err, size, file, "sources.wave_sizes", "missing: say where the number comes from");
    if (!found_default)
        return fail(err, size, file, "default_wave", "not one of wave_sizes");
    if (!is_pow2(m->lds_banks) || !is_pow2(m->lds_bank_bytes))
        return fail(err, size, file, "lds_banks", "lds_banks and lds_bank_bytes must be powers of two");
    if (!is_pow2(m->cache_line_bytes) || !is_pow2(m->sector_bytes) || m->sector_bytes > m->cache_line_bytes)
        return fail(err, size, file, "sector_bytes", "cache_line_bytes and sector_bytes must be powers of two, "
                                                    "sector_bytes <= cache_line_bytes");

    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "dram_bytes_per_cycle");
    if (!is_finite_number(d) || !(d->valuedouble > 0))
        return fail(err, size, file, "dram_bytes_per_cycle", "missing or not a positive finite number");
    m->dram_bytes_per_cycle = d->valuedouble;
    const cJSON *clk = cJSON_GetObjectItemCaseSensitive(root, "clock_mhz");
    if (!is_finite_number(clk) || !(clk->valuedouble > 0))
        return fail(err, size, file, "clock_mhz", "missing or not a positive finite number");
    m->clock_mhz = clk->valuedouble;
    if (!has_source(sources, "dram_bytes_per_cycle") || !has_source(sources, "clock_mhz"))
        return fail(err, size, file, "sources", "dram_bytes_per_cycle and clock_mhz need their sources");

    if (!parse_l2_rates(root, sources, file, m, err, size))
        return 0;
    if (!parse_dram_fields(root, sources, file, m, err, size))
        return 0;
    const cJSON *disp = cJSON_GetObjectItemCaseSensitive(root, "dispatch_us");
    if (disp) {
        if (!is_finite_number(disp) || disp->valuedouble < 0)
            return fail(err, size, file, "dispatch_us", "not a non-negative finite number");
        if (!has_source(sources, "dispatch_us"))
            return fail(err, size, file, "sources.dispatch_us", "missing: say where the number comes from");
        m->dispatch_us = disp->valuedouble;
    }
    if (!parse_latency_fields(root, sources, file, m, err, size))
        return 0;
    if (!parse_dispatch(cJSON_GetObjectItemCaseSensitive(root, "dispatch"), sources, file, m, err, size))
        return 0;
    const cJSON *l2 = cJSON_GetObjectItemCaseSensitive(root, "l2");
    if (!l2)
        return fail(err, size, file, "l2", "missing");
    if (!parse_cache(l2, file, "l2", &m->l2, err, size))
        return 0;
    if (!has_source(sources, "l2"))
        return fail(err, size, file, "sources.l2", "missing: say where the number comes from");
    if (m->l2.line_bytes != m->cache_line_bytes || m->l2.sector_bytes != m->sector_bytes)
        return fail(err, size, file, "l2.line_bytes", "l2 line and sector sizes must equal cache_line_bytes and "
                                                      "sector_bytes (the coalescer's granules)");
    if (m->cache_line_bytes / m->sector_bytes > 16)
        return fail(err, size, file, "sector_bytes", "at most 16 sectors per line");
    /* how images lie in memory: only image accesses' addresses depend on it (sim/image_exec.c) */
    const cJSON *il = cJSON_GetObjectItemCaseSensitive(root, "image_layout");
    if (il) {
        img_layout layout;
        if (!cJSON_IsString(il) || !img_layout_by_name(il->valuestring, &layout))
            return fail(err, size, file, "image_layout", "must be \"linear\", \"nv_blocklinear\" or \"amd_swizzle\"");
        if (!has_source(sources, "image_layout"))
            return fail(err, size, file, "sources.image_layout", "missing: say where the layout comes from");
        m->image_layout = (uint32_t)layout;
    }
    const cJSON *l1 = cJSON_GetObjectItemCaseSensitive(root, "l1");
    if (l1 && !cJSON_IsNull(l1)) {
        if (!parse_cache(l1, file, "l1", &m->l1, err, size))
            return 0;
        if (m->l1.line_bytes != m->cache_line_bytes || m->l1.sector_bytes != m->sector_bytes)
            return fail(err, size, file, "l1.line_bytes", "l1 line and sector sizes must equal cache_line_bytes and "
                                                          "sector_bytes");
        if (!has_source(sources, "l1"))
            return fail(err, size, file, "sources.l1", "missing: say where the number comes from");
    }
    return 1;
}

mem_status mem_machine_parse(const char *json_text, const char *file, mem_machine *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    cJSON *root = cJSON_Parse(json_text);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        snprintf(err, err_size, "%s: not valid JSON near \"%.20s\"", file, at ? at : "");
        return MEM_ERR_PRESET;
    }
    int ok = parse_root(root, file, out, err, err_size);
    cJSON_Delete(root);
    if (!ok)
        return MEM_ERR_PRESET;
    snprintf(out->path, sizeof out->path, "%s", file);
    return MEM_OK;
}

/* Tries each preset folder a binary living in folder `bin_dir` can have: installed
 * (PREFIX/bin or PREFIX/lib -> PREFIX/share/wavelab/machines; PREFIX/lib/<multiarch> one level deeper) and
 * built in a source tree (build/wavelab -> machines, build/tests/x -> machines). */
static const char *probe_beside(const char *bin_dir, char *buf, size_t size)
{
    static const char *const relative[] = {"../share/wavelab/machines", "../../share/wavelab/machines",
                                           "../machines", "../../machines"};
    char probe[PATH_MAX + 64];
    for (size_t i = 0; i < sizeof relative / sizeof relative[0]; i++) {
        snprintf(probe, sizeof probe, "%s/%s", bin_dir, relative[i]);
        if (access(probe, R_OK | X_OK) == 0) {
            snprintf(buf, size, "%s", probe);
            return buf;
        }
    }
    return NULL;
}

/* The folder of a file path (its text up to the last '/'), in place; 0 when it has none. */
static int strip_to_dir(char *path)
{
    char *slash = strrchr(path, '/');
    if (!slash)
        return 0;
    *slash = 0;
    return 1;
}

const char *mem_machine_dir(char *buf, size_t size)
{
    const char *root = getenv("WAVELAB_ROOT");
    if (root && root[0]) {
        snprintf(buf, size, "%s/machines", root);
        return buf;
    }
    /* The binary that holds this code first: libwavelab.so when a program links the shared library (its
     * executable may live anywhere), else the executable itself; then the running executable. */
    char path[PATH_MAX];
    Dl_info info;
    if (dladdr((void *)mem_machine_dir, &info) && info.dli_fname && info.dli_fname[0] == '/') {
        snprintf(path, sizeof path, "%s", info.dli_fname);
        if (strip_to_dir(path) && probe_beside(path, buf, size))
            return buf;
    }
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n > 0) {
        path[n] = 0;
        if (strip_to_dir(path) && probe_beside(path, buf, size))
            return buf;
    }
    /* the source tree as the working directory */
    if (access("machines", R_OK | X_OK) == 0) {
        snprintf(buf, size, "machines");
        return buf;
    }
    return NULL;
}

mem_status mem_machine_load(const char *name_or_path, mem_machine *out, char *err, size_t err_size)
{
    char path[PATH_MAX + 64];
    size_t len = strlen(name_or_path);
    memset(out, 0, sizeof *out);
    if (strchr(name_or_path, '/') || (len > 5 && strcmp(name_or_path + len - 5, ".json") == 0)) {
        snprintf(path, sizeof path, "%s", name_or_path);
    } else {
        char dir[PATH_MAX];
        if (!mem_machine_dir(dir, sizeof dir)) {
            snprintf(err, err_size, "machine '%s': no machines/ folder found beside the program (PREFIX/share/wavelab/machines) or in "
                     "the working directory (set WAVELAB_ROOT)", name_or_path);
            return MEM_ERR_IO;
        }
        snprintf(path, sizeof path, "%s/%s.json", dir, name_or_path);
        if (access(path, R_OK) != 0) {
            snprintf(err, err_size, "machine '%s': no preset %s (see `wavelab machines`)", name_or_path, path);
            return MEM_ERR_IO;
        }
    }
    char *text = text_read_file(path, MEM_PRESET_MAX_BYTES, NULL, err, err_size);
    if (!text)
        return MEM_ERR_IO;
    mem_status st = mem_machine_parse(text, path, out, err, err_size);
    free(text);
    return st;
}

isa_occupancy mem_machine_occupancy(const mem_machine *m, const isa_program *p, uint32_t wave_size,
                                    uint32_t vgprs_override, uint32_t *vgprs_used)
{
    isa_machine_limits lim = {
        .vgprs_per_simd_lane = m->vgprs_per_simd_lane, .vgpr_granule = m->vgpr_granule,
        .max_vgprs_per_wave = m->max_vgprs_per_wave, .sgprs_per_simd = m->sgprs_per_simd,
        .sgpr_granule = m->sgpr_granule, .max_sgprs_per_wave = m->max_sgprs_per_wave,
        .lds_bytes_per_cu = m->lds_bytes_per_cu, .max_waves_per_simd = m->max_waves_per_simd,
        .simds_per_cu = m->simds_per_cu, .max_workgroups_per_cu = m->max_workgroups_per_cu, .packed_fp16 = 1,
    };
    uint32_t local = p->local_size[0] * p->local_size[1] * p->local_size[2];
    uint32_t waves = wave_size ? (local + wave_size - 1) / wave_size : 1;
    uint32_t vgprs = vgprs_override ? vgprs_override : p->res.vgprs + (m->max_sgprs_per_wave ? 0 : p->res.sgprs);
    if (vgprs_used)
        *vgprs_used = vgprs;
    return isa_compute_occupancy(&lim, vgprs, p->res.sgprs, p->workgroup_bytes, waves);
}
