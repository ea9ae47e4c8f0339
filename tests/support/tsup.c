/*
 * tests/support/tsup.c — see tsup.h.
 */
#include "tests/support/tsup.h"

#include "backend/backend.h"

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

static int device_tcases; /* made by tsup_device_tcase: the suite has a device part */

TCase *tsup_device_tcase(const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_tags(tc, TSUP_DEVICE_TAG);
    device_tcases++;
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
    int skip = 0;
    if (device_tcases && !tags_name(excluded, TSUP_DEVICE_TAG)) {
        tsup_prefer_lavapipe();
        skip = !device_available(why, sizeof why);
    }
    if (skip)
        snprintf(exclude, sizeof exclude, "%s %s", excluded ? excluded : "", TSUP_DEVICE_TAG);
    SRunner *sr = srunner_create(suite);
    srunner_run_tagged(sr, NULL, NULL, NULL, skip ? exclude : NULL, CK_NORMAL);
    int failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr, "%s: %.1f s\n", name, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
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
