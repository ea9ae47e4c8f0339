/*
 * tests/support/tsup.c — see tsup.h.
 */
#include "tests/support/tsup.h"

#include "backend/backend.h"
#include "run/run.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

isa_status tsup_build(const char *source, const char *path, const char *language, const char *entry,
                      isa_program **out, char *msg, size_t msg_size, char *warnings, size_t warnings_size)
{
    *out = NULL;
    if (msg && msg_size)
        msg[0] = 0;
    if (warnings && warnings_size)
        warnings[0] = 0;
    isa_compile_options o = {
        .path = path ? path : "kernel",
        .source = source,
        .language = language,
        .entry = entry,
        
    };
    uint32_t *words = NULL;
    size_t n = 0;
    char err[4096] = "";
    isa_status st = isa_compile(&o, &words, &n, err, sizeof err, warnings, warnings_size);
    if (st != ISA_OK) {
        snprintf(msg, msg_size, "compile: %s: %s", isa_status_str(st), err);
        return st;
    }
    st = isa_validate(words, n, err, sizeof err);
    if (st != ISA_OK) {
        snprintf(msg, msg_size, "validate: %s", err);
        free(words);
        return st;
    }
    st = isa_lower(words, n, entry, out, err, sizeof err);
    if (st != ISA_OK)
        snprintf(msg, msg_size, "lower: %s: %s", isa_status_str(st), err);
    free(words);
    return st;
}

uint32_t tsup_rand(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) | (*state << 24);
}

char *tsup_temp_dir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/wavelab-test-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpl))
        return NULL;
    return strdup(tmpl);
}

char *tsup_write_file(const char *dir, const char *name, const char *text)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (!path)
        return NULL;
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0) {
        if (f)
            fclose(f);
        free(path);
        return NULL;
    }
    fclose(f);
    return path;
}

char *tsup_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    ck_assert_msg(n >= 0, "cannot read %s", path);
    char *s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(fread(s, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
    s[n] = 0;
    fclose(f);
    if (size)
        *size = (size_t)n;
    return s;
}

void tsup_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

const char *tsup_bin(void)
{
    const char *b = getenv("WAVELAB_BIN");
    return b && *b ? b : "build/wavelab";
}

const char *tsup_root(void)
{
    const char *r = getenv("WAVELAB_ROOT");
    return r && *r ? r : ".";
}

int tsup_run_cli(const char *args, char **output)
{
    if (output)
        *output = NULL;
    char *dir = tsup_temp_dir();
    if (!dir)
        return -1;
    char log[4096], cmd[16384];
    snprintf(log, sizeof log, "%s/output.txt", dir);
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>&1", tsup_bin(), args, log);
    int status = system(cmd);
    int rc = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (output) {
        FILE *f = fopen(log, "rb");
        if (f) {
            fseek(f, 0, SEEK_END);
            long n = ftell(f);
            rewind(f);
            char *s = malloc(n > 0 ? (size_t)n + 1 : 1);
            size_t got = s && n > 0 ? fread(s, 1, (size_t)n, f) : 0;
            if (s)
                s[got] = 0;
            *output = s;
            fclose(f);
        }
    }
    tsup_remove_dir(dir);
    free(dir);
    return rc;
}

int tsup_line_of(const char *source, const char *needle)
{
    const char *p = strstr(source, needle);
    if (!p)
        return 0;
    int line = 1;
    for (const char *q = source; q < p; q++)
        line += *q == '\n';
    return line;
}

static int device_tcases;   /* made by tsup_device_tcase: the suite has a device part */
static int chromium_tcases; /* made by tsup_chromium_tcase: the suite has a browser part */

TCase *tsup_device_tcase(const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_tags(tc, TSUP_DEVICE_TAG);
    device_tcases++;
    return tc;
}

TCase *tsup_chromium_tcase(const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_tags(tc, TSUP_CHROMIUM_TAG);
    chromium_tcases++;
    return tc;
}

/* Whether Check's space-separated tag list `tags` (may be NULL) names `tag`. */
static int tags_name(const char *tags, const char *tag)
{
    size_t n = strlen(tag);
    for (const char *p = tags; p && *p;) {
        p += strspn(p, " ");
        size_t len = strcspn(p, " ");
        if (len == n && !strncmp(p, tag, n))
            return 1;
        p += len;
    }
    return 0;
}

/* Whether tsup_device_open finds a device, asked in a child process so that this one loads no Vulkan driver
 * before Check forks the tests.  `why` gets the reason when it does not. */
static int device_available(char *why, size_t why_size)
{
    why[0] = 0;
    int fd[2];
    if (pipe(fd)) {
        snprintf(why, why_size, "pipe: %s", strerror(errno));
        return 0;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        vkb_context *ctx = NULL;
        char skip[1024];
        int device = tsup_device_open(&ctx, skip, sizeof skip);
        vkb_context_destroy(ctx);
        if (device < 0) {
            ssize_t written = write(fd[1], skip, strlen(skip));
            (void)written;
        }
        _exit(device < 0 ? 1 : 0);
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    while (pid > 0 && got + 1 < why_size && (r = read(fd[0], why + got, why_size - 1 - got)) > 0)
        got += (size_t)r;
    why[got] = 0;
    close(fd[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        snprintf(why, why_size, "cannot run the device check: %s", strerror(errno));
        return 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 1;
    if (!why[0])
        snprintf(why, why_size, "the device check %s %d", WIFSIGNALED(status) ? "died of signal" : "exited with",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    return 0;
}

int tsup_run_suite(Suite *suite, const char *name)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* the device part is skipped as a whole, never test by test: no device, no device TCase runs */
    const char *excluded = getenv("CK_EXCLUDE_TAGS");
    char why[1024] = "", exclude[1024];
    snprintf(exclude, sizeof exclude, "%s", excluded ? excluded : "");
    int skip = 0, no_browser = 0;
    if (device_tcases && !tags_name(excluded, TSUP_DEVICE_TAG)) {
        tsup_prefer_lavapipe();
        skip = !device_available(why, sizeof why);
    }
    if (skip)
        snprintf(exclude + strlen(exclude), sizeof exclude - strlen(exclude), " %s", TSUP_DEVICE_TAG);
    /* the browser part, like the device part, is skipped as a whole: no chromium, no browser TCase runs */
    if (chromium_tcases && !tags_name(excluded, TSUP_CHROMIUM_TAG) && system("command -v chromium >/dev/null 2>&1")) {
        no_browser = 1;
        snprintf(exclude + strlen(exclude), sizeof exclude - strlen(exclude), " %s", TSUP_CHROMIUM_TAG);
    }
    SRunner *sr = srunner_create(suite);
    srunner_run_tagged(sr, NULL, NULL, NULL, skip || no_browser ? exclude : NULL, CK_NORMAL);
    int failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr, "%s: %.1f s\n", name, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    if (no_browser) {
        printf("%s: the browser tests skipped: chromium is not installed (scripts/setup.sh installs Debian's "
               "chromium)\n", name);
        if (!failures && !skip)
            return TSUP_EXIT_SKIP;
    }
    if (skip) {
        const char *require = getenv("WAVELAB_REQUIRE_DEVICE");
        int required = require && *require && strcmp(require, "0");
        printf("%s: the device tests %s: no Vulkan device: %s\n", name,
               required ? "FAILED (WAVELAB_REQUIRE_DEVICE is set)" : "skipped", why);
        if (!failures)
            return required ? 1 : TSUP_EXIT_SKIP;
    }
    return failures ? 1 : 0;
}

void tsup_prefer_lavapipe(void)
{
    /* lavapipe alone when it is installed and nothing else was chosen: the other Mesa drivers print
     * errors on machines without their hardware */
    const char *lvp = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
    struct stat sb;
    if (!getenv("VK_DRIVER_FILES") && !getenv("VK_ICD_FILENAMES") && stat(lvp, &sb) == 0) {
        setenv("VK_DRIVER_FILES", lvp, 1);
        setenv("VK_ICD_FILENAMES", lvp, 1);
    }
}

int tsup_device_open(vkb_context **ctx, char *skip, size_t skip_size)
{
    char err[1024] = "";
    skip[0] = 0;
    if (vkb_context_create(ctx, err, sizeof err) != VKB_OK) {
        snprintf(skip, skip_size, "%s", err);
        return -1;
    }
    if (vkb_device_count(*ctx) == 0) {
        snprintf(skip, skip_size, "the Vulkan loader lists no device");
        return -1;
    }
    int device = 0;
    if (vkb_device_find(*ctx, "llvmpipe", &device, err, sizeof err) != VKB_OK)
        device = 0;
    return device;
}

void tsup_fake_program_init(tsup_fake_program *f)
{
    memset(f, 0, sizeof *f);
    f->p.code = f->code;
    f->p.code_count = 4;
    for (int i = 0; i < 4; i++)
        f->code[i] = (isa_inst){.op = ISA_OP_LOAD, .cls = ISA_CLASS_VMEM, .type = ISA_TYPE_U32, .count = 1};
    f->p.slots = &f->slot;
    f->p.slot_count = 1;
    f->slot.space = ISA_SPACE_STORAGE;
    f->p.local_size[0] = 4, f->p.local_size[1] = 1, f->p.local_size[2] = 1;
}

void tsup_preset(char *out, size_t size, const char *edits, ...)
{
    static const char base[] =
        "{\"name\": \"tiny\", \"wave_sizes\": [4], \"default_wave\": 4, \"compute_units\": 1, \"simds_per_cu\": 1,"
        " \"simd_lanes\": 4, \"max_waves_per_simd\": 1, \"max_workgroups_per_cu\": 1, \"vgprs_per_simd_lane\": 256,"
        " \"vgpr_granule\": 4, \"max_vgprs_per_wave\": 256, \"sgprs_per_simd\": 0, \"sgpr_granule\": 0,"
        " \"max_sgprs_per_wave\": 0, \"lds_bytes_per_cu\": 1024, \"lds_banks\": 4, \"lds_bank_bytes\": 4,"
        " \"lds_lanes_per_cycle\": 4, \"cache_line_bytes\": 16, \"sector_bytes\": 16,"
        " \"l2\": {\"bytes\": 1024, \"ways\": 4, \"line_bytes\": 16, \"policy\": \"lru\", \"set_hash\": \"modulo\"},"
        " \"dram_bytes_per_cycle\": 16, \"clock_mhz\": 1000, \"l2_hit_latency\": 10, \"dram_latency\": 100}";
    cJSON *root = cJSON_Parse(base);
    ck_assert_ptr_nonnull(root);
    cJSON *sources = cJSON_AddObjectToObject(root, "sources");
    for (const cJSON *f = root->child; f; f = f->next)
        if (strcmp(f->string, "name") != 0 && strcmp(f->string, "sources") != 0)
            cJSON_AddStringToObject(sources, f->string, "test");
    char text[8192];
    va_list ap;
    va_start(ap, edits);
    int n = vsnprintf(text, sizeof text, edits, ap);
    va_end(ap);
    ck_assert_msg(n >= 0 && (size_t)n < sizeof text, "tsup_preset: the edits are too long");
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (!line[0])
            continue;
        int remove = line[0] == '-';
        char *path = line + remove, *eq = strchr(path, '=');
        ck_assert_msg(remove ? !eq : eq != NULL, "tsup_preset: \"%s\" is neither PATH=JSON nor -PATH", line);
        if (eq)
            *eq = 0;
        cJSON *parent = root;
        char *key = path, *dot = strchr(path, '.');
        if (dot) {
            *dot = 0;
            parent = cJSON_GetObjectItemCaseSensitive(root, path);
            ck_assert_msg(cJSON_IsObject(parent), "tsup_preset: no object \"%s\" to edit", path);
            key = dot + 1;
        }
        if (remove) {
            cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
            cJSON *src = cJSON_GetObjectItemCaseSensitive(root, "sources"); /* after: "-sources" removes it */
            if (parent == root && cJSON_IsObject(src))
                cJSON_DeleteItemFromObjectCaseSensitive(src, key);
            continue;
        }
        cJSON *check = cJSON_Parse(eq + 1);
        ck_assert_msg(check != NULL, "tsup_preset: %s: not JSON: %s", path, eq + 1);
        cJSON_Delete(check);
        cJSON *value = cJSON_CreateRaw(eq + 1);
        if (cJSON_GetObjectItemCaseSensitive(parent, key))
            cJSON_ReplaceItemInObjectCaseSensitive(parent, key, value);
        else
            cJSON_AddItemToObject(parent, key, value);
        cJSON *src = cJSON_GetObjectItemCaseSensitive(root, "sources");
        if (parent == root && strcmp(key, "sources") != 0 && strcmp(key, "name") != 0 &&
            strcmp(key, "description") != 0 && cJSON_IsObject(src) && !cJSON_GetObjectItemCaseSensitive(src, key))
            cJSON_AddStringToObject(src, key, "test");
    }
    char *printed = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    ck_assert_ptr_nonnull(printed);
    ck_assert_msg(strlen(printed) < size, "tsup_preset: %zu bytes do not fit in %zu", strlen(printed), size);
    memcpy(out, printed, strlen(printed) + 1);
    free(printed);
}

/* ------------------------------------------------------------ headless Chromium */

/* Debian's chromium without a sandbox, GPU, network or first-run chores; every run bounded: the test machines
 * have two cores, and a browser that hangs must fail the test, not hold CTest */
#define CHROMIUM "timeout -k 5 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run " \
                 "--disable-background-networking --disable-component-update --disable-sync --hide-scrollbars"

static int chromium_runs; /* each run its own profile folder: two browsers never share one */

static char *read_stream(FILE *f)
{
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            buf = realloc(buf, cap *= 2);
            ck_assert_ptr_nonnull(buf);
        }
    }
    buf[n] = 0;
    return buf;
}

char *tsup_chromium_dom(const char *page, int width, int height, const char *dir, const char *png)
{
    char cmd[16384], shot[4200] = "";
    if (png) {
        ck_assert_msg(!strchr(png, '\''), "%s: a quote in the path", png);
        snprintf(shot, sizeof shot, "--screenshot='%s' ", png);
        remove(png);
    }
    snprintf(cmd, sizeof cmd, CHROMIUM " --user-data-dir='%s/profile%d' --window-size=%d,%d "
             "%s--dump-dom 'file://%s' 2>/dev/null", dir, chromium_runs++, width, height,
             shot, page);
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    char *dom = read_stream(f);
    int status = pclose(f);
    ck_assert_msg(status == 0, "chromium --dump-dom %s failed (status %d)", page, status);
    ck_assert_msg(strstr(dom, "</html>") != NULL, "no DOM from chromium for %s:\n%.500s", page, dom);
    ck_assert_msg(!png || access(png, R_OK) == 0, "chromium wrote no screenshot of %s", page);
    return dom;
}

static uint32_t be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The rows are unfiltered with PNG's filters 0-4 (the PNG specification, section 9). */
size_t tsup_png_colours(const char *path, double *ink, uint32_t *width, uint32_t *height)
{
    size_t len = 0;
    unsigned char *png = (unsigned char *)tsup_read_file(path, &len);
    static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    ck_assert_msg(len > 33 && memcmp(png, sig, 8) == 0, "%s is not a PNG", path);
    uint32_t w = 0, h = 0, bpp = 0;
    unsigned char *idat = NULL;
    size_t idat_len = 0;
    for (size_t at = 8; at + 12 <= len;) {
        uint32_t n = be32(png + at);
        const unsigned char *type = png + at + 4, *data = png + at + 8;
        ck_assert(at + 12 + n <= len);
        if (memcmp(type, "IHDR", 4) == 0) {
            w = be32(data), h = be32(data + 4);
            ck_assert_int_eq(data[8], 8); /* bit depth */
            ck_assert(data[9] == 2 || data[9] == 6);
            ck_assert_int_eq(data[12], 0); /* not interlaced */
            bpp = data[9] == 6 ? 4 : 3;
        } else if (memcmp(type, "IDAT", 4) == 0) {
            idat = realloc(idat, idat_len + n);
            memcpy(idat + idat_len, data, n);
            idat_len += n;
        }
        at += 12 + n;
    }
    ck_assert(w > 0 && h > 0 && idat);
    size_t stride = (size_t)w * bpp, raw_len = (stride + 1) * h;
    unsigned char *raw = malloc(raw_len);
    uLongf out_len = (uLongf)raw_len;
    ck_assert_int_eq(uncompress(raw, &out_len, idat, (uLong)idat_len), Z_OK);
    ck_assert_uint_eq(out_len, raw_len);
    unsigned char *img = calloc(stride * h, 1);
    for (uint32_t y = 0; y < h; y++) {
        const unsigned char *in = raw + y * (stride + 1) + 1;
        unsigned char filter = raw[y * (stride + 1)], *row = img + y * stride;
        const unsigned char *up = y ? img + (y - 1) * stride : NULL;
        ck_assert_int_le(filter, 4);
        for (size_t i = 0; i < stride; i++) {
            int a = i >= bpp ? row[i - bpp] : 0, b = up ? up[i] : 0, c = up && i >= bpp ? up[i - bpp] : 0;
            int pred = filter == 0 ? 0 : filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : paeth(a, b, c);
            row[i] = (unsigned char)(in[i] + pred);
        }
    }
    size_t pixels = (size_t)w * h, non_white = 0;
    uint32_t *colours = malloc(pixels * sizeof *colours);
    for (size_t i = 0; i < pixels; i++) {
        const unsigned char *px = img + i * bpp;
        colours[i] = (uint32_t)px[0] << 16 | px[1] << 8 | px[2];
        non_white += colours[i] != 0xffffff;
    }
    qsort(colours, pixels, sizeof *colours, cmp_u32);
    size_t distinct = pixels ? 1 : 0;
    for (size_t i = 1; i < pixels; i++)
        distinct += colours[i] != colours[i - 1];
    *ink = (double)non_white / (double)pixels;
    *width = w, *height = h;
    free(colours);
    free(img);
    free(raw);
    free(idat);
    free(png);
    return distinct;
}

/* Runs in the page after layout and writes its findings into <pre id="tsup-layout"> (tsup.h says what it
 * looks for).  Boxes are the browser's (getBoundingClientRect: after transforms and the SVG's scaling); half
 * a pixel of slack for rounding. */
static const char layout_script[] =
    "<script>\n"
    "(function () {\n"
    "  var out = [], slack = 0.5;\n"
    "  function who(e) {\n"
    "    var t = (e.textContent || '').replace(/\\s+/g, ' ').trim(), f = e.closest('[id]');\n"
    "    return (f ? '#' + f.id + ' ' : '') + e.tagName.toLowerCase() + ' \"' + t.slice(0, 60) + '\"';\n"
    "  }\n"
    "  function r1(x) { return Math.round(x * 10) / 10; }\n"
    "  function box(b) { return '[' + r1(b.left) + ',' + r1(b.top) + ' .. ' + r1(b.right) + ',' + r1(b.bottom) + ']'; }\n"
    "  function outside(b, o) {\n"
    "    return b.left < o.left - slack || b.right > o.right + slack || b.top < o.top - slack ||\n"
    "           b.bottom > o.bottom + slack;\n"
    "  }\n"
    "  function rgb(c) { var m = /rgba?\\((\\d+), *(\\d+), *(\\d+)/.exec(c); return m ? [+m[1], +m[2], +m[3]] : null; }\n"
    "  function lum(c) {\n" /* WCAG 2's relative luminance */
    "    var v = c.map(function (x) { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });\n"
    "    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];\n"
    "  }\n"
    "  function contrast(a, b) { var x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }\n"
    "  document.querySelectorAll('svg').forEach(function (svg) {\n"
    "    if (svg.parentElement.closest('svg')) return;\n"
    "    var sb = svg.getBoundingClientRect();\n"
    "    var rects = [].filter.call(svg.querySelectorAll('rect'), function (r) {\n"
    "      var f = getComputedStyle(r).fill;\n"
    "      return r.getAttribute('width') !== '100%' && f !== 'none' && rgb(f);\n"
    "    }).map(function (r) { return {b: r.getBoundingClientRect(), fill: rgb(getComputedStyle(r).fill)}; });\n"
    "    svg.querySelectorAll('text').forEach(function (t) {\n"
    "      var b = t.getBoundingClientRect();\n"
    "      if (!b.width && !b.height) return;\n"
    "      if (outside(b, sb)) out.push('text leaves its picture: ' + who(t) + ' ' + box(b) + ' outside ' + box(sb));\n"
    "      var cx = (b.left + b.right) / 2, cy = (b.top + b.bottom) / 2, best = null;\n"
    "      rects.forEach(function (r) {\n"
    "        if (cx >= r.b.left && cx <= r.b.right && cy >= r.b.top && cy <= r.b.bottom &&\n"
    "            (!best || r.b.width * r.b.height < best.b.width * best.b.height)) best = r;\n"
    "      });\n"
    "      if (!best) return;\n"
    "      if (outside(b, best.b)) out.push('text leaves its box: ' + who(t) + ' ' + box(b) + ' outside ' + box(best.b));\n"
    "      var ink = rgb(getComputedStyle(t).fill);\n"
    "      if (ink && contrast(ink, best.fill) < 3)\n"
    "        out.push('text hard to read on its box: ' + who(t) + ' ' + getComputedStyle(t).fill + ' on rgb(' +\n"
    "                 best.fill.join(', ') + '), contrast ' + r1(contrast(ink, best.fill)) + ':1');\n"
    "    });\n"
    "  });\n"
    "  document.querySelectorAll('body, body *').forEach(function (e) {\n"
    "    if (e.closest('svg') || e.id === 'tsup-layout') return;\n"
    "    var cs = getComputedStyle(e);\n"
    "    if (cs.display === 'inline' || cs.display === 'contents' || cs.display === 'none') return;\n"
    "    if (cs.overflowX === 'visible' && e.scrollWidth > e.clientWidth + 1)\n"
    "      out.push('content wider than its box (overflow visible): ' + who(e) + ' ' + e.scrollWidth + ' > ' +\n"
    "               e.clientWidth + ' px');\n"
    "  });\n"
    "  if (window.tsupWhole) document.querySelectorAll(window.tsupWhole).forEach(function (e) {\n"
    "    if (e.scrollWidth > e.clientWidth + 1)\n"
    "      out.push('content cut or scrolled, not shown whole: ' + who(e) + ' ' + e.scrollWidth + ' > ' +\n"
    "               e.clientWidth + ' px');\n"
    "  });\n"
    "  var d = document.documentElement;\n"
    "  if (d.scrollWidth > window.innerWidth)\n"
    "    out.push('page wider than the window: ' + d.scrollWidth + ' > ' + window.innerWidth + ' px');\n"
    "  var pre = document.createElement('pre');\n"
    "  pre.id = 'tsup-layout';\n"
    "  pre.textContent = out.join('\\n');\n"
    "  document.body.appendChild(pre);\n"
    "})();\n"
    "</script>\n";

/* Undoes the DOM dump's escaping of text (&amp; &lt; &gt; &quot;), in place. */
static void unescape_text(char *s)
{
    static const struct { const char *entity; char c; } e[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'},
                                                               {"&quot;", '"'}, {"&nbsp;", ' '}};
    char *w = s;
    for (const char *r = s; *r;) {
        size_t k = 0;
        while (k < sizeof e / sizeof e[0] && strncmp(r, e[k].entity, strlen(e[k].entity)))
            k++;
        if (k < sizeof e / sizeof e[0])
            *w++ = e[k].c, r += strlen(e[k].entity);
        else
            *w++ = *r++;
    }
    *w = 0;
}

char *tsup_layout_problems(const char *dir, const char *name, const char *html, int width, int height,
                           const char *whole, const char *png)
{
    const char *end = strstr(html, "</body>");
    ck_assert_msg(end != NULL, "%s: the page has no </body>", name);
    ck_assert_msg(!whole || !strpbrk(whole, "\"<\\"), "the selector %s needs escaping", whole);
    size_t head = (size_t)(end - html), n = strlen(html) + sizeof layout_script + (whole ? strlen(whole) : 0) + 64;
    char *page = malloc(n);
    ck_assert_ptr_nonnull(page);
    snprintf(page, n, "%.*s<script>window.tsupWhole = \"%s\";</script>\n%s%s", (int)head, html, whole ? whole : "",
             layout_script, end);
    char *path = tsup_write_file(dir, name, page);
    ck_assert_msg(path != NULL, "cannot write %s/%s", dir, name);
    free(page);
    char *dom = tsup_chromium_dom(path, width, height, dir, png);
    free(path);
    const char *open = "<pre id=\"tsup-layout\">", *a = strstr(dom, open);
    ck_assert_msg(a != NULL, "%s: the layout script did not run (no #tsup-layout in the DOM)", name);
    a += strlen(open);
    const char *b = strstr(a, "</pre>");
    ck_assert_ptr_nonnull(b);
    char *problems = strndup(a, (size_t)(b - a));
    free(dom);
    unescape_text(problems);
    return problems;
}

static void list_into(const char *dir, const char *suffix, char ***list, size_t *n, size_t *cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2, name = strlen(e->d_name), sl = strlen(suffix);
        char *path = malloc(len);
        if (!path)
            break;
        snprintf(path, len, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            list_into(path, suffix, list, n, cap);
        } else if (name >= sl && strcmp(e->d_name + name - sl, suffix) == 0) {
            if (*n == *cap) {
                char **grown = realloc(*list, (*cap = *cap ? 2 * *cap : 64) * sizeof *grown);
                if (!grown) {
                    free(path);
                    break;
                }
                *list = grown;
            }
            (*list)[(*n)++] = path;
            continue;
        }
        free(path);
    }
    closedir(d);
}

int tsup_compare_strings(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char **tsup_list_files(const char *dir, const char *suffix, size_t *count)
{
    char **list = NULL;
    size_t n = 0, cap = 0;
    list_into(dir, suffix, &list, &n, &cap);
    if (n)
        qsort(list, n, sizeof *list, tsup_compare_strings);
    *count = n;
    return list;
}

char **tsup_list_expect_cases(const char *dir, size_t *count)
{
    size_t n = 0, kept = 0;
    char **paths = tsup_list_files(dir, ".json", &n);
    for (size_t i = 0; i < n; i++) {
        if (run_case_file_has_expect(paths[i]))
            paths[kept++] = paths[i];
        else
            free(paths[i]);
    }
    *count = kept;
    return paths;
}

void tsup_free_list(char **list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(list[i]);
    free(list);
}

void tsup_remove_tree(const char *dir)
{
    char cmd[4200];
    ck_assert_msg(strstr(dir, "/wavelab-test-") != NULL, "tsup_remove_tree: %s is not a test folder", dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

char *tsup_layout_at_two_widths(const char *dir, const char *html, int height, const char *whole, const char *label)
{
    static const int widths[] = {480, 1400};
#if defined(__SANITIZE_ADDRESS__)
    (void)dir, (void)html, (void)height, (void)whole;
    printf("%s: layout not measured under AddressSanitizer (the optimised build lays the same page out)\n", label);
    return strdup("");
#endif
    char *report = NULL;
    size_t report_len = 0;
    FILE *r = open_memstream(&report, &report_len);
    ck_assert_ptr_nonnull(r);
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        char name[64], shot[4200];
        snprintf(name, sizeof name, "layout%d.html", widths[i]);
        snprintf(shot, sizeof shot, "%s/shot%d.png", dir, widths[i]);
        char *problems = tsup_layout_problems(dir, name, html, widths[i], height, whole, shot);
        if (problems[0])
            fprintf(r, "at %d px:\n%s\n", widths[i], problems);
        free(problems);
        double ink = 0;
        uint32_t w = 0, h = 0;
        size_t colours = tsup_png_colours(shot, &ink, &w, &h);
        ck_assert_uint_eq(w, (uint32_t)widths[i]);
        /* a blank or failed page is one or two colours; text, bars and ramps give many */
        ck_assert_msg(colours > 20 && ink > 0.02, "%s at %d px: the screenshot is blank (%zu colours, %.1f%% ink)",
                      label, widths[i], colours, 100 * ink);
    }
    fclose(r);
    return report;
}
