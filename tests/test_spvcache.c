/*
 * tests/test_spvcache.c — the SPIR-V cache (isa/spvcache.h): a hit gives the
 * very words glslang gives, any change to what the key covers misses, a
 * damaged entry is recompiled, concurrent writers leave one whole entry, and
 * warnings come back on a hit.
 *
 * The reference in every test is a direct isa_compile + isa_validate with no
 * cache involved.  Each test works in a fresh temporary directory holding the
 * kernel files and the cache (never the user's cache), and makes it the
 * working directory, so the kernels there are named by relative paths.
 * Check runs each test in its own process, so chdir and setenv stay there.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "isa/spvcache.h"
#include "tests/support/tsup.h"

typedef struct compiled {
    isa_status status;
    uint32_t *words;
    size_t count;
    char warnings[8192];
    isa_spvcache_outcome outcome;
} compiled;

static isa_compile_options kernel_options(const char *path)
{
    return (isa_compile_options){.path = path};
}

/* The reference: glslang and the validator, no cache. */
static compiled compile_direct(const isa_compile_options *o)
{
    compiled c = {0};
    char err[4096] = "";
    c.status = isa_compile(o, &c.words, &c.count, err, sizeof err, c.warnings, sizeof c.warnings);
    ck_assert_msg(c.status == ISA_OK, "%s", err);
    ck_assert_int_eq(isa_validate(c.words, c.count, err, sizeof err), ISA_OK);
    return c;
}

static compiled compile_cached(const isa_compile_options *o, const char *settings, const char *cache)
{
    compiled c = {0};
    char err[4096] = "";
    c.status = isa_spvcache_compile(o, settings, cache, &c.words, &c.count, err, sizeof err, c.warnings,
                                    sizeof c.warnings, &c.outcome);
    ck_assert_msg(c.status == ISA_OK, "%s", err);
    return c;
}

static void assert_same_words(const compiled *a, const compiled *b)
{
    ck_assert_uint_eq(a->count, b->count);
    ck_assert(memcmp(a->words, b->words, a->count * 4) == 0);
}

/* The cached result is the reference's, and came about as `outcome` says. */
static void assert_cached_as(const isa_compile_options *o, const char *settings, const char *cache,
                             isa_spvcache_outcome outcome)
{
    compiled want = compile_direct(o), got = compile_cached(o, settings, cache);
    ck_assert_int_eq(got.outcome, outcome);
    assert_same_words(&got, &want);
    ck_assert_str_eq(got.warnings, want.warnings);
    free(want.words);
    free(got.words);
}

/* Files in dir/spirv whose name starts with `prefix` ("" for all, ".tmp" for leftovers). */
static int count_entries(const char *cache, const char *prefix)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/spirv", cache);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        int hidden = e->d_name[0] == '.';
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && (prefix[0] == '.' || !hidden) &&
            strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            n++;
    }
    closedir(d);
    return n;
}

static void remove_tree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* A working directory with a GLSL kernel that includes a header, which includes another from sub/. */
static const char *glsl_kernel =
    "#version 450\n"
    "#extension GL_GOOGLE_include_directive : require\n"
    "// #include \"not_a_directive.glsl\" (a comment)\n"
    "#include \"sub/scale.glsl\"\n"
    "layout(local_size_x = 32) in;\n"
    "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
    "void main() { v[gl_GlobalInvocationID.x] = scale(v[gl_GlobalInvocationID.x]) + uint(OFFSET); }\n";
static const char *scale_header = "#include \"factor.glsl\"\nuint scale(uint x) { return x * FACTOR; }\n";
static const char *factor_top = "#define FACTOR 3u\n";

static char *work_dir(void)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    ck_assert_int_eq(chdir(dir), 0);
    ck_assert_int_eq(mkdir("sub", 0777), 0);
    free(tsup_write_file(".", "kernel.comp", glsl_kernel));
    free(tsup_write_file("sub", "scale.glsl", scale_header));
    free(tsup_write_file(".", "factor.glsl", factor_top));
    return dir;
}

static const isa_define offset_7[] = {{"OFFSET", "7"}};
static const isa_define offset_8[] = {{"OFFSET", "8"}};

START_TEST(test_spvcache_second_compile_hits_with_identical_words)
{
    char *dir = work_dir();
    isa_compile_options o = kernel_options("kernel.comp");
    o.defines = offset_7;
    o.define_count = 1;
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);
    ck_assert_int_eq(count_entries("cache", ""), 1);
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_HIT);
    ck_assert_int_eq(count_entries("cache", ""), 1);
    remove_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_spvcache_changed_key_input_misses_and_old_entry_still_hits)
{
    char *dir = work_dir();
    isa_compile_options o = kernel_options("kernel.comp");
    o.defines = offset_7;
    o.define_count = 1;
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);

    /* a define's value */
    o.defines = offset_8;
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);
    o.defines = offset_7;
    /* the caller's settings text (the legalization pass list, ...) */
    assert_cached_as(&o, "passes=none", "cache", ISA_SPVCACHE_MISS);
    /* one byte of the nested header (sub/scale.glsl includes factor.glsl, found in ".") */
    free(tsup_write_file(".", "factor.glsl", "#define FACTOR 5u\n"));
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);
    free(tsup_write_file(".", "factor.glsl", factor_top));
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_HIT);
    /* a file appearing earlier in glslang's search (the includer's own directory) shadows it */
    free(tsup_write_file("sub", "factor.glsl", "#define FACTOR 11u\n"));
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);
    ck_assert_int_eq(unlink("sub/factor.glsl"), 0);
    /* the kernel itself */
    char *edited = strdup(glsl_kernel);
    *strstr(edited, "+ uint") = '^';
    free(tsup_write_file(".", "kernel.comp", edited));
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);
    free(tsup_write_file(".", "kernel.comp", glsl_kernel));
    free(edited);
    /* back to the first inputs: the first entry answers */
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_HIT);
    ck_assert_int_eq(count_entries("cache", ""), 6);
    remove_tree(dir);
    free(dir);
}
END_TEST


/* Whether the module has an OpConstant with this 32-bit value. */
static int has_constant(const compiled *c, uint32_t value)
{
    for (size_t i = 5; i < c->count && (c->words[i] >> 16); i += c->words[i] >> 16)
        if ((c->words[i] & 0xffff) == 43 && (c->words[i] >> 16) == 4 && c->words[i + 3] == value)
            return 1;
    return 0;
}

START_TEST(test_spvcache_includes_search_the_kernel_directory_not_the_working_directory)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    ck_assert_int_eq(chdir(dir), 0);
    ck_assert_int_eq(mkdir("k", 0777), 0);
    ck_assert_int_eq(mkdir("k/sub", 0777), 0);
    ck_assert_int_eq(mkdir("elsewhere", 0777), 0);
    free(tsup_write_file("k", "kernel.comp", glsl_kernel));
    free(tsup_write_file("k/sub", "scale.glsl", scale_header));
    /* sub/scale.glsl includes factor.glsl: found outward in the kernel's directory, never in the working one */
    free(tsup_write_file("k", "factor.glsl", "#define FACTOR 777001u\n"));
    free(tsup_write_file("elsewhere", "factor.glsl", "#define FACTOR 555001u\n"));
    free(tsup_write_file("elsewhere", "only_here.glsl", "#define OFFSET 1\n"));
    char kernel[4200];
    snprintf(kernel, sizeof kernel, "%s/k/kernel.comp", dir);
    ck_assert_int_eq(chdir("elsewhere"), 0);
    isa_compile_options o = kernel_options(kernel);
    o.defines = offset_7;
    o.define_count = 1;
    compiled c = compile_direct(&o);
    ck_assert(has_constant(&c, 777001u));
    ck_assert(!has_constant(&c, 555001u));
    free(c.words);
    /* the key follows the same search: the working directory's header is not part of it */
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);
    free(tsup_write_file(".", "factor.glsl", "#define FACTOR 555002u\n"));
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_HIT);
    /* a header only the working directory has is not found */
    char *uses_cwd = malloc(strlen(glsl_kernel) + 64);
    ck_assert_ptr_nonnull(uses_cwd);
    snprintf(uses_cwd, strlen(glsl_kernel) + 64, "%s", glsl_kernel);
    char *at = strstr(uses_cwd, "#include \"sub/scale.glsl\"");
    memcpy(at, "#include \"only_here.glsl\"", strlen("#include \"only_here.glsl\""));
    free(tsup_write_file("../k", "kernel2.comp", uses_cwd));
    free(uses_cwd);
    snprintf(kernel, sizeof kernel, "%s/k/kernel2.comp", dir);
    isa_compile_options o2 = kernel_options(kernel);
    uint32_t *words = NULL;
    size_t count = 0;
    char err[4096] = "", warnings[1024] = "";
    ck_assert_int_eq(isa_compile(&o2, &words, &count, err, sizeof err, warnings, sizeof warnings), ISA_ERR_COMPILE);
    ck_assert_msg(strstr(err, "only_here.glsl"), "%s", err);
    free(words);
    ck_assert_int_eq(chdir(dir), 0);
    remove_tree(dir);
    free(dir);
}
END_TEST

static const char *hlsl_two_entries =
    "[[vk::binding(0, 0)]] RWStructuredBuffer<uint> v;\n"
    "[numthreads(32, 1, 1)] void CSAdd(uint3 id : SV_DispatchThreadID) { v[id.x] = v[id.x] + 1u; }\n"
    "[numthreads(32, 1, 1)] void CSMul(uint3 id : SV_DispatchThreadID) { v[id.x] = v[id.x] * 3u; }\n";

START_TEST(test_spvcache_other_entry_point_misses)
{
    char *dir = tsup_temp_dir();
    ck_assert_int_eq(chdir(dir), 0);
    free(tsup_write_file(".", "two.hlsl", hlsl_two_entries));
    isa_compile_options o = kernel_options("two.hlsl");
    o.entry = "CSAdd";
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);
    o.entry = "CSMul";
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);
    o.language = "hlsl"; /* said explicitly rather than taken from the extension: keyed apart */
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);
    o.language = NULL;
    o.entry = "CSAdd";
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_HIT);
    remove_tree(dir);
    free(dir);
}
END_TEST

/* Rewrites the single entry of the cache: flips one byte at `offset` from the end, or truncates. */
static void damage_entry(const char *cache, long from_end, int truncate_it)
{
    char spirv[4096], path[4400];
    snprintf(spirv, sizeof spirv, "%s/spirv", cache);
    DIR *d = opendir(spirv);
    ck_assert_ptr_nonnull(d);
    path[0] = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            snprintf(path, sizeof path, "%s/%s", spirv, e->d_name);
    closedir(d);
    ck_assert(path[0]);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    if (truncate_it) {
        ck_assert_int_eq(truncate(path, st.st_size - from_end), 0);
        return;
    }
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, st.st_size - from_end, SEEK_SET), 0);
    int c = fgetc(f);
    ck_assert_int_eq(fseek(f, st.st_size - from_end, SEEK_SET), 0);
    fputc(c ^ 0x40, f);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_spvcache_damaged_entry_is_recompiled)
{
    char *dir = work_dir();
    isa_compile_options o = kernel_options("kernel.comp");
    o.defines = offset_7;
    o.define_count = 1;
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);
    /* a byte of the warnings/SPIR-V near the end, a truncation by one byte and by 100 */
    static const struct { long from_end; int truncate_it; } damage[] = {{12, 0}, {1, 1}, {100, 1}};
    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
        damage_entry("cache", damage[i].from_end, damage[i].truncate_it);
        assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);
        assert_cached_as(&o, "", "cache", ISA_SPVCACHE_HIT);
    }
    /* the length field: offset 40 of the header */
    char path[4400];
    uint8_t key[ISA_SPVCACHE_KEY_SIZE];
    size_t len;
    FILE *src = fopen("kernel.comp", "rb");
    char text[4096];
    len = fread(text, 1, sizeof text - 1, src);
    fclose(src);
    text[len] = 0;
    isa_compile_options keyed = o;
    keyed.source = text;
    ck_assert(isa_spvcache_key(&keyed, "", text, len, key));
    isa_spvcache_entry_path("cache", key, path, sizeof path);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, 40, SEEK_SET), 0);
    fputc(0x7f, f);
    ck_assert_int_eq(fclose(f), 0);
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_MISS);
    remove_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_spvcache_concurrent_writers_leave_one_valid_entry)
{
    char *dir = work_dir();
    isa_compile_options o = kernel_options("kernel.comp");
    o.defines = offset_7;
    o.define_count = 1;
    compiled want = compile_direct(&o);
    enum { WRITERS = 6 };
    pid_t pids[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        pids[i] = fork();
        ck_assert_int_ge(pids[i], 0);
        if (pids[i] == 0) {
            uint32_t *w = NULL;
            size_t n = 0;
            char err[4096], warn[4096] = "";
            isa_status st = isa_spvcache_compile(&o, "", "cache", &w, &n, err, sizeof err, warn, sizeof warn, NULL);
            _exit(st == ISA_OK && n == want.count && memcmp(w, want.words, n * 4) == 0 ? 0 : 1);
        }
    }
    for (int i = 0; i < WRITERS; i++) {
        int status = 0;
        ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
        ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    ck_assert_int_eq(count_entries("cache", ""), 1);
    ck_assert_int_eq(count_entries("cache", ".tmp"), 0);
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_HIT);
    free(want.words);
    remove_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_spvcache_hit_returns_the_compile_warnings)
{
    char *dir = tsup_temp_dir();
    /* glslang warns about an extension it does not know when the kernel asks for a warning */
    char *path = tsup_write_file(dir, "warn.comp", "#version 450\n#extension GL_EXT_no_such_extension : warn\n"
                                 "layout(local_size_x = 8) in;\nlayout(set = 0, binding = 0) buffer B { uint v[]; };\n"
                                 "void main() { v[gl_LocalInvocationIndex] = 1u; }\n");
    isa_compile_options o = kernel_options(path);
    compiled want = compile_direct(&o);
    ck_assert_ptr_nonnull(strstr(want.warnings, "warn.comp:2: warning:"));
    assert_cached_as(&o, "", dir, ISA_SPVCACHE_MISS);
    assert_cached_as(&o, "", dir, ISA_SPVCACHE_HIT);
    /* appended to what the caller's buffer held, like isa_compile */
    compiled got = {0};
    strcpy(got.warnings, "before\n");
    char err[256];
    ck_assert_int_eq(isa_spvcache_compile(&o, "", dir, &got.words, &got.count, err, sizeof err, got.warnings,
                                          sizeof got.warnings, &got.outcome), ISA_OK);
    ck_assert_int_eq(got.outcome, ISA_SPVCACHE_HIT);
    ck_assert_str_eq(got.warnings + 7, want.warnings);
    free(got.words);
    free(want.words);
    free(path);
    remove_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_spvcache_switched_off_or_unkeyable_stores_nothing)
{
    char *dir = work_dir();
    isa_compile_options o = kernel_options("kernel.comp");
    o.defines = offset_7;
    o.define_count = 1;
    setenv("WAVELAB_NO_CACHE", "1", 1);
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_OFF);
    setenv("WAVELAB_NO_CACHE", "0", 1);
    isa_spvcache_set_enabled(0);
    assert_cached_as(&o, "", "cache", ISA_SPVCACHE_OFF);
    isa_spvcache_set_enabled(1);
    ck_assert_int_eq(count_entries("cache", ""), 0);
    /* an #include through a macro cannot be followed by the key */
    free(tsup_write_file(".", "macro.comp",
                         "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
                         "#define HEADER \"factor.glsl\"\n#include HEADER\nlayout(local_size_x = 1) in;\n"
                         "layout(set = 0, binding = 0) buffer B { uint v[]; };\nvoid main() { v[0] = FACTOR; }\n"));
    isa_compile_options m = kernel_options("macro.comp");
    compiled got = {0};
    char err[4096] = "";
    isa_status st = isa_spvcache_compile(&m, "", "cache", &got.words, &got.count, err, sizeof err, got.warnings,
                                         sizeof got.warnings, &got.outcome);
    ck_assert_int_eq(got.outcome, ISA_SPVCACHE_UNKEYED);
    (void)st; /* whether glslang takes a macro include does not matter here: nothing may be stored */
    free(got.words);
    ck_assert_int_eq(count_entries("cache", ""), 0);
    remove_tree(dir);
    free(dir);
}
END_TEST

START_TEST(test_spvcache_cli_no_cache_flag_and_env_write_nothing)
{
    char *dir = tsup_temp_dir();
    setenv("XDG_CACHE_HOME", dir, 1);
    char args[4096], cache[4200];
    snprintf(cache, sizeof cache, "%s/wavelab", dir);
    char *out = NULL;
    snprintf(args, sizeof args, "compile '%s/kernels/003_wave_tricks/one_lane_atomic_wave.json' --no-cache", tsup_root());
    ck_assert_int_eq(tsup_run_cli(args, &out), 0);
    free(out);
    ck_assert_int_eq(count_entries(cache, ""), 0);
    snprintf(args, sizeof args, "--no-cache run '%s/kernels/003_wave_tricks/one_lane_atomic_wave.json' --quiet",
             tsup_root());
    ck_assert_int_eq(tsup_run_cli(args, &out), 0);
    free(out);
    ck_assert_int_eq(count_entries(cache, ""), 0);
    setenv("WAVELAB_NO_CACHE", "1", 1);
    snprintf(args, sizeof args, "compile '%s/kernels/003_wave_tricks/one_lane_atomic_wave.json'", tsup_root());
    ck_assert_int_eq(tsup_run_cli(args, &out), 0);
    free(out);
    ck_assert_int_eq(count_entries(cache, ""), 0);
    unsetenv("WAVELAB_NO_CACHE");
    ck_assert_int_eq(tsup_run_cli(args, &out), 0);
    free(out);
    ck_assert_int_eq(count_entries(cache, ""), 1);
    remove_tree(dir);
    free(dir);
}
END_TEST

static Suite *spvcache_suite(void)
{
    Suite *s = suite_create("spvcache");
    TCase *t = tcase_create("cache");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_spvcache_second_compile_hits_with_identical_words);
    tcase_add_test(t, test_spvcache_changed_key_input_misses_and_old_entry_still_hits);
    tcase_add_test(t, test_spvcache_other_entry_point_misses);
    tcase_add_test(t, test_spvcache_includes_search_the_kernel_directory_not_the_working_directory);
    tcase_add_test(t, test_spvcache_damaged_entry_is_recompiled);
    tcase_add_test(t, test_spvcache_concurrent_writers_leave_one_valid_entry);
    tcase_add_test(t, test_spvcache_hit_returns_the_compile_warnings);
    tcase_add_test(t, test_spvcache_switched_off_or_unkeyable_stores_nothing);
    tcase_add_test(t, test_spvcache_cli_no_cache_flag_and_env_write_nothing);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(spvcache_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failures ? 1 : 0;
}
