/*
 * sim/machine.c — the machine preset loader (machines/NAME.json).
 *
 * A preset is untrusted input: every problem becomes MEM_ERR_PRESET with the
 * file and the field named, never an assert.  The top-level fields are one
 * table, sim/machine_fields.def, read by one loop (parse_row); what a field's
 * range depends on another field is a named check after it
 * (check_cross_fields), and the objects "l1", "l2" and "dispatch" have their
 * own parsers (parse_cache, parse_dispatch).
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
    snprintf(prefix, sizeof prefix, "%s.", name); /* o is an object: the table pass checked it */
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

/* Every floating field is checked with this first: cJSON reads 1e309 as infinity, which passes "> 0". */
static int is_finite_number(const cJSON *v) { return cJSON_IsNumber(v) && isfinite(v->valuedouble); }

/* ------------------------------------------------------------ the table of top-level fields */

typedef enum mf_kind { MF_UINT, MF_NUMBER, MF_POSITIVE, MF_ENUM, MF_TEXT, MF_ARRAY, MF_OBJECT } mf_kind;
enum { MF_OPTIONAL, MF_REQUIRED };
enum { MF_NO_SOURCE, MF_SOURCE };

/* MF_ENUM rows' words: word i, NULL past the last. */
static const char *write_back_choice(uint32_t i)
{
    static const char *const words[] = {[MEM_WRITE_BACK_FLUSH] = "flush", [MEM_WRITE_BACK_EVICT] = "evict"};
    return i < sizeof words / sizeof words[0] ? words[i] : NULL;
}

static const char *image_layout_choice(uint32_t i)
{
    return i < IMG_LAYOUT_COUNT ? img_layout_name((img_layout)i) : NULL;
}

typedef struct mf_row {
    const char *json;
    size_t offset; /* of the member; scalar kinds only */
    mf_kind kind;
    double lo, hi;
    const char *(*choices)(uint32_t i);
    int required;
    double deflt;
    int source;
    const char *meaning;
} mf_row;

/* where a row's value lands: the scalar kinds' generated member (sim/machine.h); the others have parsers */
#define MF_OFFSET_MF_UINT(member) offsetof(mem_machine, member)
#define MF_OFFSET_MF_NUMBER(member) offsetof(mem_machine, member)
#define MF_OFFSET_MF_POSITIVE(member) offsetof(mem_machine, member)
#define MF_OFFSET_MF_ENUM(member) offsetof(mem_machine, member)
#define MF_OFFSET_MF_TEXT(member) 0
#define MF_OFFSET_MF_ARRAY(member) 0
#define MF_OFFSET_MF_OBJECT(member) 0

static const mf_row mf_rows[] = {
#define MACHINE_FIELD(json, member, kind, lo, hi, choices, presence, deflt, source, meaning) \
    {#json, MF_OFFSET_##kind(member), kind, lo, hi, choices, presence, deflt, source, meaning},
#include "sim/machine_fields.def"
#undef MACHINE_FIELD
};

/* An MF_ENUM row's words, each written with `word_format` ("\"%s\""), as "A, B or C". */
static void choices_text(const mf_row *r, const char *word_format, char *out, size_t size)
{
    size_t n = 0, len = 0;
    while (r->choices((uint32_t)n))
        n++;
    out[0] = 0;
    for (size_t i = 0; i < n && len < size; i++) {
        len += (size_t)snprintf(out + len, size - len, "%s", i == 0 ? "" : i + 1 < n ? ", " : " or ");
        if (len < size)
            len += (size_t)snprintf(out + len, size - len, word_format, r->choices((uint32_t)i));
    }
}

/* What a missing source's message asks for: one number, one word, or an object's or array's numbers. */
static const char *source_missing(mf_kind kind)
{
    switch (kind) {
    case MF_UINT:
    case MF_NUMBER:
    case MF_POSITIVE:
        return "missing: say where the number comes from";
    case MF_ENUM:
        return "missing: say where the value comes from";
    case MF_TEXT:
    case MF_ARRAY:
    case MF_OBJECT:
        break;
    }
    return "missing: say where the numbers come from";
}

/* One row: absent, its default (or "missing" when required); present, its value checked against the kind
 * and range and stored, then its source.  The objects are only checked to be objects here (an "l1" of null
 * is absent), the text and arrays not at all: their parsers follow. */
static int parse_row(const mf_row *r, const cJSON *root, const cJSON *sources, const char *file, mem_machine *m,
                     char *err, size_t size)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, r->json);
    char *member = (char *)m + r->offset;
    char what[160];
    if (!v || (r->kind == MF_OBJECT && cJSON_IsNull(v))) {
        if (r->required)
            return fail(err, size, file, r->json, "missing");
        if (isnan(r->deflt)) /* set by check_cross_fields */
            return 1;
        switch (r->kind) {
        case MF_UINT:
        case MF_ENUM:
            *(uint32_t *)member = (uint32_t)r->deflt;
            break;
        case MF_NUMBER:
        case MF_POSITIVE:
            *(double *)member = r->deflt;
            break;
        case MF_TEXT:
        case MF_ARRAY:
        case MF_OBJECT:
            break;
        }
        return 1;
    }
    switch (r->kind) {
    case MF_UINT: {
        uint64_t x;
        if (!get_uint(root, file, "", r->json, (uint64_t)r->lo, (uint64_t)r->hi, &x, err, size))
            return 0;
        *(uint32_t *)member = (uint32_t)x;
        break;
    }
    case MF_NUMBER:
        if (!is_finite_number(v) || !(v->valuedouble >= r->lo && v->valuedouble <= r->hi)) {
            if (isinf(r->hi))
                snprintf(what, sizeof what, "not a finite number of at least %g", r->lo);
            else
                snprintf(what, sizeof what, "not a number from %g to %g", r->lo, r->hi);
            return fail(err, size, file, r->json, what);
        }
        *(double *)member = v->valuedouble;
        break;
    case MF_POSITIVE:
        if (!is_finite_number(v) || !(v->valuedouble > r->lo && v->valuedouble <= r->hi)) {
            if (isinf(r->hi))
                snprintf(what, sizeof what, "not a positive finite number");
            else
                snprintf(what, sizeof what, "not a positive number up to %g", r->hi);
            return fail(err, size, file, r->json, what);
        }
        *(double *)member = v->valuedouble;
        break;
    case MF_ENUM: {
        uint32_t i = 0;
        while (r->choices(i) && !(cJSON_IsString(v) && strcmp(v->valuestring, r->choices(i)) == 0))
            i++;
        if (!r->choices(i)) {
            char words[128];
            choices_text(r, "\"%s\"", words, sizeof words);
            snprintf(what, sizeof what, "must be %s", words);
            return fail(err, size, file, r->json, what);
        }
        *(uint32_t *)member = i;
        break;
    }
    case MF_OBJECT:
        if (!cJSON_IsObject(v))
            return fail(err, size, file, r->json, "not an object");
        break;
    case MF_TEXT:
    case MF_ARRAY:
        break;
    }
    if (r->source && !has_source(sources, r->json)) {
        char full[64];
        snprintf(full, sizeof full, "sources.%s", r->json);
        return fail(err, size, file, full, source_missing(r->kind));
    }
    return 1;
}

int mem_machine_field_doc(size_t i, const char **name, char *value, size_t value_size, const char **meaning)
{
    if (i >= sizeof mf_rows / sizeof mf_rows[0])
        return 0;
    const mf_row *r = &mf_rows[i];
    *name = r->json;
    *meaning = r->meaning;
    char kind[160];
    switch (r->kind) {
    case MF_UINT:
        snprintf(kind, sizeof kind, "integer, %llu to %llu", (unsigned long long)r->lo, (unsigned long long)r->hi);
        break;
    case MF_NUMBER:
        if (isinf(r->hi))
            snprintf(kind, sizeof kind, "number, at least %g", r->lo);
        else
            snprintf(kind, sizeof kind, "number, %g to %g", r->lo, r->hi);
        break;
    case MF_POSITIVE:
        if (isinf(r->hi))
            snprintf(kind, sizeof kind, "number above %g", r->lo);
        else
            snprintf(kind, sizeof kind, "number above %g, at most %g", r->lo, r->hi);
        break;
    case MF_ENUM:
        choices_text(r, "`\"%s\"`", kind, sizeof kind);
        break;
    case MF_TEXT:
        snprintf(kind, sizeof kind, "string");
        break;
    case MF_ARRAY:
        snprintf(kind, sizeof kind, "array");
        break;
    case MF_OBJECT:
        snprintf(kind, sizeof kind, "object");
        break;
    }
    if (r->required)
        snprintf(value, value_size, "%s; required", kind);
    else if (isnan(r->deflt) || r->kind == MF_TEXT || r->kind == MF_ARRAY || r->kind == MF_OBJECT)
        snprintf(value, value_size, "%s; optional", kind);
    else if (r->kind == MF_ENUM)
        snprintf(value, value_size, "%s; optional, absent: `\"%s\"`", kind, r->choices((uint32_t)r->deflt));
    else
        snprintf(value, value_size, "%s; optional, absent: %g", kind, r->deflt);
    return 1;
}

/* ------------------------------------------------------------ what the table does not say */

/* "name" (required: the table pass saw it) and "description" (optional), into fixed-size members. */
static int parse_text(const cJSON *root, const char *file, mem_machine *m, char *err, size_t size)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    if (!cJSON_IsString(name) || !name->valuestring[0] || strlen(name->valuestring) >= sizeof m->name)
        return fail(err, size, file, "name", "missing or not a short string");
    snprintf(m->name, sizeof m->name, "%s", name->valuestring);
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (desc && !cJSON_IsString(desc))
        return fail(err, size, file, "description", "not a string");
    if (desc)
        snprintf(m->description, sizeof m->description, "%s", desc->valuestring);
    return 1;
}

/* "wave_sizes" (required and sourced: the table pass saw both), and default_wave one of them. */
static int parse_wave_sizes(const cJSON *root, const char *file, mem_machine *m, char *err, size_t size)
{
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
    if (!found_default)
        return fail(err, size, file, "default_wave", "not one of wave_sizes");
    return 1;
}

/* The optional "dispatch" object: the replay's placement and per-group pace (sim/machine.h, mem_dispatch). */
static int parse_dispatch(const cJSON *o, const char *file, mem_machine *m, char *err, size_t size)
{
    m->dispatch.cus_per_cluster = 1;
    m->dispatch.cluster_stride = 1;
    m->dispatch.duration_spread = 0;
    m->dispatch.queue_clusters = 0;
    m->dispatch.l2_requests_per_step = 0;
    if (!o) /* an object with its source when present: the table pass saw to both */
        return 1;
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

/* The rules between fields, after the table pass: powers of two, the granules' order, DRAM's granule between
 * them, the L2 atomic unit's from the line up, the caches against the coalescer's granules and the dispatcher
 * against compute_units. */
static int check_cross_fields(const cJSON *root, const char *file, mem_machine *m, char *err, size_t size)
{
    if (!is_pow2(m->lds_banks) || !is_pow2(m->lds_bank_bytes))
        return fail(err, size, file, "lds_banks", "lds_banks and lds_bank_bytes must be powers of two");
    if (!is_pow2(m->cache_line_bytes) || !is_pow2(m->sector_bytes) || m->sector_bytes > m->cache_line_bytes)
        return fail(err, size, file, "sector_bytes", "cache_line_bytes and sector_bytes must be powers of two, "
                                                    "sector_bytes <= cache_line_bytes");
    /* DRAM's access granule: a power of two from sector_bytes to cache_line_bytes; absent, sector_bytes */
    if (!cJSON_GetObjectItemCaseSensitive(root, "dram_fetch_bytes")) {
        m->dram_fetch_bytes = m->sector_bytes;
    } else if (m->dram_fetch_bytes < m->sector_bytes || m->dram_fetch_bytes > m->cache_line_bytes) {
        char what[96];
        snprintf(what, sizeof what, "%u is out of range %u..%u", m->dram_fetch_bytes, m->sector_bytes,
                 m->cache_line_bytes);
        return fail(err, size, file, "dram_fetch_bytes", what);
    } else if (!is_pow2(m->dram_fetch_bytes)) {
        return fail(err, size, file, "dram_fetch_bytes", "not a power of two");
    }
    /* an L2 atomic unit's bytes: a power of two from cache_line_bytes up; absent, cache_line_bytes */
    if (!cJSON_GetObjectItemCaseSensitive(root, "l2_atomic_granule_bytes")) {
        m->l2_atomic_granule_bytes = m->cache_line_bytes;
    } else if (m->l2_atomic_granule_bytes < m->cache_line_bytes || !is_pow2(m->l2_atomic_granule_bytes)) {
        char what[96];
        snprintf(what, sizeof what, "%u is not a power of two from cache_line_bytes (%u) up",
                 m->l2_atomic_granule_bytes, m->cache_line_bytes);
        return fail(err, size, file, "l2_atomic_granule_bytes", what);
    }
    if (!parse_dispatch(cJSON_GetObjectItemCaseSensitive(root, "dispatch"), file, m, err, size))
        return 0;
    if (!parse_cache(cJSON_GetObjectItemCaseSensitive(root, "l2"), file, "l2", &m->l2, err, size))
        return 0;
    if (m->l2.line_bytes != m->cache_line_bytes || m->l2.sector_bytes != m->sector_bytes)
        return fail(err, size, file, "l2.line_bytes", "l2 line and sector sizes must equal cache_line_bytes and "
                                                      "sector_bytes (the coalescer's granules)");
    if (m->cache_line_bytes / m->sector_bytes > 16)
        return fail(err, size, file, "sector_bytes", "at most 16 sectors per line");
    const cJSON *l1 = cJSON_GetObjectItemCaseSensitive(root, "l1");
    if (l1 && !cJSON_IsNull(l1)) {
        if (!parse_cache(l1, file, "l1", &m->l1, err, size))
            return 0;
        if (m->l1.line_bytes != m->cache_line_bytes || m->l1.sector_bytes != m->sector_bytes)
            return fail(err, size, file, "l1.line_bytes", "l1 line and sector sizes must equal cache_line_bytes and "
                                                          "sector_bytes");
    }
    return 1;
}

static int parse_root(const cJSON *root, const char *file, mem_machine *m, char *err, size_t size)
{
    if (!cJSON_IsObject(root))
        return fail(err, size, file, "(top level)", "not a JSON object");
    const cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
    if (!cJSON_IsObject(sources))
        return fail(err, size, file, "sources", "missing: every number needs its public source");
    for (size_t i = 0; i < sizeof mf_rows / sizeof mf_rows[0]; i++)
        if (!parse_row(&mf_rows[i], root, sources, file, m, err, size))
            return 0;
    return parse_text(root, file, m, err, size) && parse_wave_sizes(root, file, m, err, size) &&
           check_cross_fields(root, file, m, err, size);
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
