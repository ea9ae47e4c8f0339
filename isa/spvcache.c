/*
 * isa/spvcache.c — the on-disk SPIR-V cache (see isa/spvcache.h): the key,
 * the entry file format, atomic writes, and isa_spvcache_compile which puts
 * them in front of isa_compile + isa_validate.
 *
 * Entry file ("<dir>/spirv/<key in hex>.spv"), every integer little-endian
 * on the hosts wavelab builds for (the key includes the build ID, so an entry
 * is only ever read by the binary that wrote it):
 *
 *   offset  0  magic "WLSPVC1\n"
 *           8  the key (32 bytes): an entry copied under another name is refused
 *          40  payload length in bytes (u64): a truncated file is refused
 *          48  SHA-256 of the payload (32 bytes): a damaged file is refused
 *          80  payload: word count (u64), warnings length (u64), the SPIR-V
 *              words, the warnings text (no terminating NUL)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glslang/build_info.h>
#include <nettle/sha2.h>

#include "isa/spvcache.h"
#include "text/text.h"

/* From <spirv-tools/libspirv.h>, which cannot be included by a second C file of one program: in C its
 * `const uint32_t kDefaultMaxIdBound` is a definition (isa/compile.c includes it already). */
const char *spvSoftwareVersionDetailsString(void);

enum {
    HEADER_SIZE = 80,
    PAYLOAD_HEADER_SIZE = 16,
    MAX_ENTRY_BYTES = 256 << 20,  /* far above any kernel; a bigger file is damaged */
    MAX_INCLUDE_DEPTH = 32,       /* deeper nesting is not keyed (glslang would refuse it anyway) */
    MAX_INCLUDE_PROBES = 4096,    /* bounds the work of the include scan on pathological headers */
};
static const char entry_magic[8] = {'W', 'L', 'S', 'P', 'V', 'C', '1', '\n'};

/* ---------------------------------------------------------------- switch and directory */

static int cache_switch = 1;

void isa_spvcache_set_enabled(int enabled) { cache_switch = enabled != 0; }

int isa_spvcache_enabled(void)
{
    const char *env = getenv("WAVELAB_NO_CACHE");
    return cache_switch && !(env && env[0] && strcmp(env, "0") != 0);
}

int isa_spvcache_dir(char *buf, size_t size)
{
    /* the XDG base directory rules: a relative XDG_CACHE_HOME is ignored */
    const char *xdg = getenv("XDG_CACHE_HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, size, "%s/wavelab", xdg);
    else {
        const char *home = getenv("HOME");
        if (!home || home[0] != '/')
            return 0;
        n = snprintf(buf, size, "%s/.cache/wavelab", home);
    }
    return n > 0 && (size_t)n < size;
}

void isa_spvcache_entry_path(const char *dir, const uint8_t key[ISA_SPVCACHE_KEY_SIZE], char *buf, size_t size)
{
    char hex[2 * ISA_SPVCACHE_KEY_SIZE + 1];
    for (int i = 0; i < ISA_SPVCACHE_KEY_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", key[i]);
    snprintf(buf, size, "%s/spirv/%s.spv", dir, hex);
}

/* ---------------------------------------------------------------- files */

/* mkdir -p; returns 1 when `path` is a directory afterwards. */
static int make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int ok = mkdir(path, 0777) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok)
            return 0;
    }
    struct stat st;
    return (mkdir(path, 0777) == 0 || errno == EEXIST) && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---------------------------------------------------------------- who compiles */

/*
 * The identity of the code that compiles: the GNU build ID of the object
 * (program or shared library) holding isa_compile, which glslang and
 * SPIRV-Tools are linked into.  Without a build ID, a SHA-256 of that
 * object's file.  Found once per process.
 */
static uint8_t build_identity[SHA256_DIGEST_SIZE];
static int build_identity_ok;
static pthread_once_t build_identity_once = PTHREAD_ONCE_INIT;

typedef struct object_search {
    uintptr_t address;
    int found;
    char file[4096];
    uint8_t id[64];
    size_t id_len;
} object_search;

static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    object_search *s = data;
    int holds = 0;
    for (int i = 0; i < info->dlpi_phnum && !holds; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        holds = ph->p_type == PT_LOAD && s->address >= lo && s->address < lo + ph->p_memsz;
    }
    if (!holds)
        return 0;
    s->found = 1;
    snprintf(s->file, sizeof s->file, "%s", info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe");
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const uint8_t *name = p + sizeof *nh;
            const uint8_t *desc = name + ((nh->n_namesz + 3u) & ~3u);
            if (desc + nh->n_descsz > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
                nh->n_descsz <= sizeof s->id) {
                memcpy(s->id, desc, nh->n_descsz);
                s->id_len = nh->n_descsz;
                return 1;
            }
            p = desc + ((nh->n_descsz + 3u) & ~3u);
        }
    }
    return 1;
}

static void find_build_identity(void)
{
    object_search s = {.address = (uintptr_t)&isa_compile};
    dl_iterate_phdr(find_object, &s);
    if (!s.found)
        return;
    struct sha256_ctx h;
    sha256_init(&h);
    if (s.id_len) {
        sha256_update(&h, s.id_len, s.id);
    } else {
        size_t len;
        char *bytes = text_read_file(s.file, (size_t)1 << 31, &len, NULL, 0);
        if (!bytes)
            return;
        sha256_update(&h, len, (const uint8_t *)bytes);
        free(bytes);
    }
    sha256_digest(&h, sizeof build_identity, build_identity);
    build_identity_ok = 1;
}

/* ---------------------------------------------------------------- the key */

/* Every field goes in as (name, length, bytes), so no two different inputs hash the same stream. */
static void key_field(struct sha256_ctx *h, const char *name, const void *bytes, size_t len)
{
    uint8_t n[8];
    for (int i = 0; i < 8; i++)
        n[i] = (uint8_t)((uint64_t)len >> (8 * i));
    sha256_update(h, strlen(name) + 1, (const uint8_t *)name);
    sha256_update(h, sizeof n, n);
    if (len)
        sha256_update(h, len, bytes);
}

static void key_string(struct sha256_ctx *h, const char *name, const char *s)
{
    /* NULL and "" differ (a NULL language means "from the extension") */
    if (!s)
        key_field(h, name, "\xff", 1);
    else
        key_field(h, name, s, strlen(s) + 1);
}

/*
 * Includes.  isa/compile.c resolves #include "name" itself (include_local):
 * it tries "<dir>/name" (backslashes turned into slashes) for each directory
 * of a stack, innermost first, and takes the first file that opens.  The
 * stack starts with the kernel's own directory (never the process's working
 * directory) and gains the directory of each file being included.
 * #include <name> never resolves (no system directories), so the compile
 * fails and nothing is cached.
 *
 * The scan below follows the same search for every #include line of the
 * text with comments removed, whether or not a conditional would skip it,
 * and feeds every probe into the key: "absent" for a candidate that does not
 * open, the bytes of the one that does.  So any file that could change what
 * glslang reads changes the key; a header in a dead #if branch only costs a
 * needless miss.  An #include whose operand is not a quoted name (a macro)
 * cannot be followed: then the compilation is not keyed at all.
 */
typedef struct include_scan {
    struct sha256_ctx *hash;
    int probes;
    int keyable;
} include_scan;

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
}

static void scan_includes(include_scan *s, const char *text, size_t len, char **stack, int depth);

/* Keys every probe of #include "name" at `depth` (include_local's search), and scans the header found. */
static void scan_include(include_scan *s, const char *name, char **stack, int depth)
{
    key_field(s->hash, "include", name, strlen(name));
    for (int d = depth - 1; d >= 0 && s->keyable; d--) {
        if (++s->probes > MAX_INCLUDE_PROBES) {
            s->keyable = 0;
            return;
        }
        size_t plen = strlen(stack[d]) + strlen(name) + 2;
        char *cand = malloc(plen);
        if (!cand) {
            s->keyable = 0;
            return;
        }
        snprintf(cand, plen, "%s/%s", stack[d], name);
        for (char *c = cand; *c; c++)
            if (*c == '\\')
                *c = '/';
        struct stat st;
        if (stat(cand, &st) == 0 && !S_ISREG(st.st_mode)) {
            s->keyable = 0; /* a directory or device where glslang would look: not followed */
            free(cand);
            return;
        }
        size_t flen = 0;
        char *bytes = text_read_file(cand, MAX_ENTRY_BYTES, &flen, NULL, 0);
        key_field(s->hash, bytes ? "found" : "absent", cand, strlen(cand));
        if (bytes) {
            key_field(s->hash, "bytes", bytes, flen);
            stack[depth] = dir_of(cand);
            if (stack[depth])
                scan_includes(s, bytes, flen, stack, depth + 1);
            else
                s->keyable = 0;
            free(stack[depth]);
            stack[depth] = NULL;
            free(bytes);
            free(cand);
            return;
        }
        free(cand);
    }
}

static void scan_includes(include_scan *s, const char *text, size_t len, char **stack, int depth)
{
    char *clean = text_strip_comments(text, len);
    if (!clean) {
        s->keyable = 0;
        return;
    }
    for (char *line = clean; line && s->keyable;) {
        char *eol = strchr(line, '\n');
        if (eol)
            *eol = 0;
        const char *operand = NULL;
        size_t operand_len = 0;
        int kind = text_include_directive(line, &operand, &operand_len);
        if (kind == '<') {
            key_field(s->hash, "include-system", operand, operand_len);
        } else if (kind == '?' || (kind == '"' && depth >= MAX_INCLUDE_DEPTH)) {
            s->keyable = 0;
        } else if (kind == '"') {
            char *name = strndup(operand, operand_len);
            if (name)
                scan_include(s, name, stack, depth);
            else
                s->keyable = 0;
            free(name);
        }
        line = eol ? eol + 1 : NULL;
    }
    free(clean);
}

/*
 * Adding a field to isa_compile_options must add it to the key below, or
 * compilations that differ only in that field would share an entry.  This
 * check trips when the struct changes size so that cannot be forgotten.
 */
#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(isa_compile_options) == 56,
               "isa_compile_options changed: add the new field to isa_spvcache_key (isa/spvcache.c), then fix this size");
#endif

int isa_spvcache_key(const isa_compile_options *opt, const char *settings, const char *source, size_t source_len,
                     uint8_t key[ISA_SPVCACHE_KEY_SIZE])
{
    pthread_once(&build_identity_once, find_build_identity);
    if (!build_identity_ok)
        return 0;
    struct sha256_ctx h;
    sha256_init(&h);
    key_string(&h, "format", "wavelab-spvcache-1");
    key_field(&h, "build", build_identity, sizeof build_identity);
    char version[64];
    snprintf(version, sizeof version, "%d.%d.%d%s", GLSLANG_VERSION_MAJOR, GLSLANG_VERSION_MINOR,
             GLSLANG_VERSION_PATCH, GLSLANG_VERSION_FLAVOR);
    key_string(&h, "glslang", version);
    key_string(&h, "spirv-tools", spvSoftwareVersionDetailsString());
    key_string(&h, "path", opt->path);
    key_string(&h, "language", opt->language);
    key_string(&h, "entry", opt->entry);
    for (int i = 0; i < opt->define_count; i++) {
        const isa_define *d = &opt->defines[i];
        /* a newline in a define would put a directive (an #include) into glslang's preamble */
        if (strpbrk(d->name, "\r\n") || (d->value && strpbrk(d->value, "\r\n")))
            return 0;
        key_string(&h, "define", d->name);
        key_string(&h, "value", d->value);
    }
    key_field(&h, "define-count", &opt->define_count, sizeof opt->define_count);
    key_string(&h, "target-env", opt->target_env);
    key_string(&h, "settings", settings);
    key_field(&h, "source", source, source_len);
    char *stack[MAX_INCLUDE_DEPTH + 1] = {opt->path ? dir_of(opt->path) : strdup(".")};
    include_scan scan = {.hash = &h, .keyable = stack[0] != NULL};
    if (scan.keyable)
        scan_includes(&scan, source, source_len, stack, 1);
    free(stack[0]);
    if (!scan.keyable)
        return 0;
    sha256_digest(&h, ISA_SPVCACHE_KEY_SIZE, key);
    return 1;
}

/* ---------------------------------------------------------------- entries */

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void append_text(char *buf, size_t size, const char *text, size_t len)
{
    if (!buf || !size)
        return;
    size_t have = strlen(buf);
    if (have + 1 >= size)
        return;
    if (len > size - 1 - have)
        len = size - 1 - have;
    memcpy(buf + have, text, len);
    buf[have + len] = 0;
}

int isa_spvcache_get(const char *dir, const uint8_t key[ISA_SPVCACHE_KEY_SIZE], uint32_t **words, size_t *word_count,
                     char *warnings, size_t warnings_size)
{
    char path[4200];
    isa_spvcache_entry_path(dir, key, path, sizeof path);
    size_t len = 0;
    uint8_t *e = (uint8_t *)text_read_file(path, MAX_ENTRY_BYTES, &len, NULL, 0);
    if (!e)
        return 0;
    int ok = len >= HEADER_SIZE + PAYLOAD_HEADER_SIZE && memcmp(e, entry_magic, 8) == 0 &&
             memcmp(e + 8, key, ISA_SPVCACHE_KEY_SIZE) == 0 && get_u64(e + 40) == len - HEADER_SIZE;
    if (ok) {
        uint8_t sum[SHA256_DIGEST_SIZE];
        struct sha256_ctx h;
        sha256_init(&h);
        sha256_update(&h, len - HEADER_SIZE, e + HEADER_SIZE);
        sha256_digest(&h, sizeof sum, sum);
        ok = memcmp(sum, e + 48, sizeof sum) == 0;
    }
    uint64_t nw = ok ? get_u64(e + HEADER_SIZE) : 0, nt = ok ? get_u64(e + HEADER_SIZE + 8) : 0;
    const uint8_t *body = e + HEADER_SIZE + PAYLOAD_HEADER_SIZE;
    ok = ok && nw >= 5 && nw <= MAX_ENTRY_BYTES / 4 && nt <= MAX_ENTRY_BYTES &&
         HEADER_SIZE + PAYLOAD_HEADER_SIZE + nw * 4 + nt == len && memchr(body + nw * 4, 0, nt) == NULL;
    uint32_t *w = ok ? malloc(nw * 4) : NULL;
    if (w) {
        memcpy(w, body, nw * 4);
        append_text(warnings, warnings_size, (const char *)body + nw * 4, nt);
        *words = w;
        *word_count = nw;
    }
    free(e);
    return w != NULL;
}

int isa_spvcache_put(const char *dir, const uint8_t key[ISA_SPVCACHE_KEY_SIZE], const uint32_t *words,
                     size_t word_count, const char *warnings)
{
    char path[4200], tmp[4300];
    isa_spvcache_entry_path(dir, key, path, sizeof path);
    char *sub = strdup(path);
    if (!sub)
        return 0;
    *strrchr(sub, '/') = 0;
    int ok = make_dirs(sub);
    snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", sub);
    free(sub);
    size_t nt = warnings ? strlen(warnings) : 0;
    size_t len = HEADER_SIZE + PAYLOAD_HEADER_SIZE + word_count * 4 + nt;
    uint8_t *e = ok ? malloc(len) : NULL;
    if (!e)
        return 0;
    memcpy(e, entry_magic, 8);
    memcpy(e + 8, key, ISA_SPVCACHE_KEY_SIZE);
    put_u64(e + 40, len - HEADER_SIZE);
    put_u64(e + HEADER_SIZE, word_count);
    put_u64(e + HEADER_SIZE + 8, nt);
    memcpy(e + HEADER_SIZE + PAYLOAD_HEADER_SIZE, words, word_count * 4);
    memcpy(e + HEADER_SIZE + PAYLOAD_HEADER_SIZE + word_count * 4, warnings, nt);
    struct sha256_ctx h;
    sha256_init(&h);
    sha256_update(&h, len - HEADER_SIZE, e + HEADER_SIZE);
    sha256_digest(&h, SHA256_DIGEST_SIZE, e + 48);
    /* a whole entry appears under its name or none does: readers never see a partial file */
    int fd = mkstemp(tmp);
    ok = fd >= 0;
    for (size_t done = 0; ok && done < len;) {
        ssize_t r = write(fd, e + done, len - done);
        ok = r > 0;
        done += ok ? (size_t)r : 0;
    }
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    if (ok && rename(tmp, path) != 0)
        ok = 0;
    if (!ok && fd >= 0)
        unlink(tmp);
    free(e);
    return ok;
}

/* ---------------------------------------------------------------- compile through the cache */

static isa_status compile_and_validate(const isa_compile_options *opt, uint32_t **words, size_t *word_count,
                                       char *err, size_t err_size, char *warnings, size_t warnings_size)
{
    isa_status st = isa_compile(opt, words, word_count, err, err_size, warnings, warnings_size);
    if (st != ISA_OK)
        return st;
    char verr[1024];
    st = isa_validate(*words, *word_count, verr, sizeof verr);
    if (st != ISA_OK) {
        snprintf(err, err_size, "%s: %s", opt->path ? opt->path : "<source>", verr);
        free(*words);
        *words = NULL;
        *word_count = 0;
    }
    return st;
}

isa_status isa_spvcache_compile(const isa_compile_options *opt, const char *settings, const char *dir,
                                uint32_t **words, size_t *word_count, char *err, size_t err_size, char *warnings,
                                size_t warnings_size, isa_spvcache_outcome *outcome)
{
    isa_spvcache_outcome dummy;
    if (!outcome)
        outcome = &dummy;
    *outcome = ISA_SPVCACHE_OFF;
    char dir_buf[4096];
    if (!dir && isa_spvcache_dir(dir_buf, sizeof dir_buf))
        dir = dir_buf;
    if (!isa_spvcache_enabled() || !dir)
        return compile_and_validate(opt, words, word_count, err, err_size, warnings, warnings_size);

    /* read the source once: the bytes keyed are the bytes compiled */
    char *owned = NULL;
    size_t source_len = 0;
    isa_compile_options o = *opt;
    if (o.source) {
        source_len = strlen(o.source);
    } else if (o.path) {
        owned = text_read_file(o.path, MAX_ENTRY_BYTES, &source_len, NULL, 0);
        if (!owned) /* isa_compile reports it */
            return compile_and_validate(opt, words, word_count, err, err_size, warnings, warnings_size);
        o.source = owned;
    }
    uint8_t key[ISA_SPVCACHE_KEY_SIZE];
    isa_status st;
    if (!o.source || !isa_spvcache_key(&o, settings, o.source, source_len, key)) {
        *outcome = ISA_SPVCACHE_UNKEYED;
        st = compile_and_validate(&o, words, word_count, err, err_size, warnings, warnings_size);
    } else if (isa_spvcache_get(dir, key, words, word_count, warnings, warnings_size)) {
        *outcome = ISA_SPVCACHE_HIT;
        if (err && err_size)
            err[0] = 0;
        st = ISA_OK;
    } else {
        /* this compilation's own warnings are stored, whatever the caller's buffer held before */
        enum { WARNINGS_KEPT = 16384 };
        char *mine = calloc(1, WARNINGS_KEPT);
        *outcome = ISA_SPVCACHE_MISS;
        st = compile_and_validate(&o, words, word_count, err, err_size, mine ? mine : warnings,
                                  mine ? WARNINGS_KEPT : warnings_size);
        if (mine) {
            append_text(warnings, warnings_size, mine, strlen(mine));
            if (st == ISA_OK)
                isa_spvcache_put(dir, key, *words, *word_count, mine);
            free(mine);
        }
    }
    free(owned);
    return st;
}
