/*
 * tests/test_api.c — the public C API (api/wavelab.h) used as a user would:
 * cases built in code from GLSL, HLSL and SPIR-V words, and loaded from case
 * files; runs at every wave size; bindings and statistics read back;
 * expectations checked; every error status with its message.  Expected
 * values come from references written here (per-wave scans computed in C),
 * never from wavelab's own output.
 */
#include <check.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "api/wavelab.h"
#include "isa/isa.h"
#include "tests/support/tsup.h"

#define LOCAL 64
#define GROUPS 2
#define N (LOCAL * GROUPS)

/* Inclusive per-wave prefix sum of the input, plus the lane's index in its wave times 1000. */
static const char *scan_glsl =
    "#version 450\n"
    "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0) readonly buffer In { uint v[]; } src;\n"
    "layout(set = 0, binding = 1) buffer Out { uint v[]; } dst;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    dst.v[i] = subgroupInclusiveAdd(src.v[i]) + gl_SubgroupInvocationID * 1000u;\n"
    "}\n";

/* The same in HLSL, where WavePrefixSum is exclusive. */
static const char *scan_hlsl =
    "StructuredBuffer<uint> src : register(t0, space0);\n"
    "RWStructuredBuffer<uint> dst : register(u1, space0);\n"
    "[numthreads(64, 1, 1)]\n"
    "void CSMain(uint3 id : SV_DispatchThreadID) {\n"
    "    dst[id.x] = WavePrefixSum(src[id.x]) + WaveGetLaneIndex() * 1000;\n"
    "}\n";

static void make_input(uint32_t *in)
{
    uint32_t seed = 12345;
    for (int i = 0; i < N; i++)
        in[i] = tsup_rand(&seed) % 100;
}

/* The reference: lanes of a workgroup form waves of `wave` consecutive invocations. */
static void reference_scan(const uint32_t *in, uint32_t wave, int inclusive, uint32_t *out)
{
    for (int g = 0; g < GROUPS; g++)
        for (int w = 0; w < LOCAL; w += (int)wave) {
            uint32_t sum = 0;
            for (uint32_t lane = 0; lane < wave; lane++) {
                int i = g * LOCAL + w + (int)lane;
                if (inclusive)
                    sum += in[i];
                out[i] = sum + lane * 1000u;
                if (!inclusive)
                    sum += in[i];
            }
        }
}

static wavelab_case *scan_case(const char *language, const uint32_t *in)
{
    wavelab_case *c;
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    if (strcmp(language, "hlsl") == 0) {
        ck_assert_int_eq(wavelab_case_set_source(c, "hlsl", "scan.hlsl", scan_hlsl), WAVELAB_OK);
        ck_assert_int_eq(wavelab_case_set_entry(c, "CSMain"), WAVELAB_OK);
    } else {
        ck_assert_int_eq(wavelab_case_set_source(c, "glsl", "scan.comp", scan_glsl), WAVELAB_OK);
    }
    ck_assert_int_eq(wavelab_case_set_groups(c, GROUPS, 1, 1), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_U32, in, N), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 1, WAVELAB_U32, NULL, N), WAVELAB_OK);
    return c;
}

static const uint32_t waves[] = {4, 8, 16, 32, 64};

START_TEST(test_api_glsl_scan_at_every_wave_matches_reference)
{
    uint32_t in[N], want[N], got[N];
    make_input(in);
    wavelab_case *c = scan_case("glsl", in);
    for (size_t k = 0; k < sizeof waves / sizeof waves[0]; k++) {
        wavelab_run *r;
        ck_assert_int_eq(wavelab_run_sim(c, waves[k], &r), WAVELAB_OK);
        ck_assert_uint_eq(wavelab_run_wave_size(r), waves[k]);
        size_t size = 0;
        ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, got, sizeof got, &size), WAVELAB_OK);
        ck_assert_uint_eq(size, sizeof got);
        reference_scan(in, waves[k], 1, want);
        for (int i = 0; i < N; i++)
            ck_assert_msg(got[i] == want[i], "wave %u element %d: %u, expected %u", waves[k], i, got[i], want[i]);
        /* the input binding comes back as it went in */
        ck_assert_int_eq(wavelab_run_read_binding(r, 0, 0, got, sizeof got, NULL), WAVELAB_OK);
        ck_assert_mem_eq(got, in, sizeof in);
        uint64_t v;
        ck_assert_int_eq(wavelab_run_stat(r, "workgroups", &v), WAVELAB_OK);
        ck_assert_uint_eq(v, GROUPS);
        ck_assert_int_eq(wavelab_run_stat(r, "waves", &v), WAVELAB_OK);
        ck_assert_uint_eq(v, GROUPS * LOCAL / waves[k]);
        ck_assert_int_eq(wavelab_run_stat(r, "lane_operations", &v), WAVELAB_OK);
        ck_assert_uint_gt(v, 0);
        ck_assert_int_eq(wavelab_run_check(r), WAVELAB_OK); /* no expectations: nothing to fail */
        wavelab_run_destroy(r);
    }
    wavelab_case_destroy(c);
}
END_TEST

START_TEST(test_api_hlsl_wave_prefix_sum_is_exclusive)
{
    uint32_t in[N], want[N], got[N];
    make_input(in);
    wavelab_case *c = scan_case("hlsl", in);
    for (size_t k = 0; k < sizeof waves / sizeof waves[0]; k++) {
        reference_scan(in, waves[k], 0, want);
        wavelab_run *r;
        ck_assert_int_eq(wavelab_run_sim(c, waves[k], &r), WAVELAB_OK);
        ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, got, sizeof got, NULL), WAVELAB_OK);
        ck_assert_mem_eq(got, want, sizeof want);
        wavelab_run_destroy(r);
    }
    wavelab_case_destroy(c);
}
END_TEST

START_TEST(test_api_expectations_hold_and_a_wrong_one_names_its_element)
{
    uint32_t in[N], want[N];
    make_input(in);
    reference_scan(in, 16, 1, want);
    wavelab_case *good = scan_case("glsl", in);
    ck_assert_int_eq(wavelab_case_expect(good, 0, 1, want, N, WAVELAB_COMPARE_EXACT, 0), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_expect_count(good), 1);
    wavelab_run *r;
    ck_assert_int_eq(wavelab_run_sim(good, 16, &r), WAVELAB_OK);
    ck_assert_int_eq(wavelab_run_check(r), WAVELAB_OK);
    ck_assert_str_eq(wavelab_run_message(r), "");
    wavelab_run_destroy(r);
    /* the same expectation at wave 32 does not hold: the scan restarts at lane 16 only at wave 16 */
    ck_assert_int_eq(wavelab_run_sim(good, 32, &r), WAVELAB_OK);
    ck_assert_int_eq(wavelab_run_check(r), WAVELAB_ERR_EXPECT);
    ck_assert_int_eq(wavelab_status_exit_code(WAVELAB_ERR_EXPECT), 1);
    char needle[128];
    uint32_t at32[N];
    reference_scan(in, 32, 1, at32);
    snprintf(needle, sizeof needle, "element 16: expected %u, actual %u", want[16], at32[16]);
    ck_assert_msg(strstr(wavelab_run_message(r), needle), "message \"%s\" lacks \"%s\"", wavelab_run_message(r),
                  needle);
    wavelab_run_destroy(r);
    wavelab_case_destroy(good);

    /* one wrong element among the first 8, checked with a second, passing expectation: one line */
    wavelab_case *bad = scan_case("glsl", in);
    uint32_t wrong[8];
    memcpy(wrong, want, sizeof wrong);
    wrong[5] += 1;
    ck_assert_int_eq(wavelab_case_expect(bad, 0, 0, in, N, WAVELAB_COMPARE_EXACT, 0), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_expect(bad, 0, 1, wrong, 8, WAVELAB_COMPARE_EXACT, 0), WAVELAB_OK);
    ck_assert_int_eq(wavelab_run_sim(bad, 16, &r), WAVELAB_OK);
    ck_assert_int_eq(wavelab_run_check(r), WAVELAB_ERR_EXPECT);
    snprintf(needle, sizeof needle, "set 0 binding 1 (exact): element 5: expected %u, actual %u; 1 of 8", wrong[5],
             want[5]);
    ck_assert_msg(strstr(wavelab_run_message(r), needle), "message \"%s\"", wavelab_run_message(r));
    ck_assert_ptr_null(strchr(wavelab_run_message(r), '\n'));
    wavelab_run_destroy(r);
    wavelab_case_destroy(bad);
}
END_TEST

START_TEST(test_api_spirv_words_run_like_source)
{
    uint32_t in[N], want[N], got[N];
    make_input(in);
    isa_compile_options o = {.path = "scan.comp", .source = scan_glsl, .language = "glsl"};
    uint32_t *words;
    size_t count;
    char err[2048];
    ck_assert_int_eq(isa_compile(&o, &words, &count, err, sizeof err, NULL, 0), ISA_OK);
    wavelab_case *c;
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_spirv(c, words, count), WAVELAB_OK);
    free(words); /* the case keeps its own copy */
    ck_assert_int_eq(wavelab_case_set_groups(c, GROUPS, 1, 1), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_U32, in, N), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 1, WAVELAB_U32, NULL, N), WAVELAB_OK);
    wavelab_run *r;
    ck_assert_int_eq(wavelab_run_sim(c, 8, &r), WAVELAB_OK);
    ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, got, sizeof got, NULL), WAVELAB_OK);
    reference_scan(in, 8, 1, want);
    ck_assert_mem_eq(got, want, sizeof want);
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);

    /* words that are not SPIR-V: a compile error with the validator's word offset, not a crash */
    uint32_t junk[] = {0x07230203, 0x00010300, 0, 10, 0, 0xdeadbeef};
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_spirv(c, junk, 6), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_U32, NULL, 4), WAVELAB_OK);
    ck_assert_int_eq(wavelab_run_sim(c, 8, &r), WAVELAB_ERR_COMPILE);
    ck_assert_ptr_nonnull(strstr(wavelab_run_message(r), "spirv: "));
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
}
END_TEST

START_TEST(test_api_push_constants_defines_and_groups_reach_the_kernel)
{
    static const char *src =
        "#version 450\n"
        "layout(local_size_x = 4) in;\n"
        "layout(push_constant) uniform P { uint scale; uint bias; } p;\n"
        "layout(set = 0, binding = 3) buffer Out { uint v[]; } dst;\n"
        "void main() { dst.v[gl_GlobalInvocationID.x] = gl_WorkGroupID.x * p.scale + p.bias + OFFSET; }\n";
    wavelab_case *c;
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_source(c, "glsl", NULL, src), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_define(c, "OFFSET", "5u"), WAVELAB_OK);
    uint32_t push[2] = {10, 7};
    ck_assert_int_eq(wavelab_case_set_push_constants(c, push, sizeof push), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_groups(c, 3, 1, 1), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 3, WAVELAB_U32, NULL, 12), WAVELAB_OK);
    uint32_t want[12];
    for (int i = 0; i < 12; i++)
        want[i] = (uint32_t)(i / 4) * 10 + 7 + 5;
    ck_assert_int_eq(wavelab_case_expect(c, 0, 3, want, 12, WAVELAB_COMPARE_EXACT, 0), WAVELAB_OK);
    wavelab_run *r;
    ck_assert_int_eq(wavelab_run_sim(c, 4, &r), WAVELAB_OK);
    ck_assert_msg(wavelab_run_check(r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
}
END_TEST

START_TEST(test_api_case_file_loads_runs_and_passes)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/kernels/000_uniform_load/uniform_load_wave.json", tsup_root());
    wavelab_case *c;
    ck_assert_msg(wavelab_case_load(path, &c) == WAVELAB_OK, "%s", wavelab_case_message(c));
    ck_assert_int_gt(wavelab_case_expect_count(c), 0);
    wavelab_run *r;
    ck_assert_int_eq(wavelab_run_sim(c, 0, &r), WAVELAB_OK);
    ck_assert_msg(wavelab_run_check(r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);

    /* a file that is not there: the handle exists and says which file */
    ck_assert_int_eq(wavelab_case_load("/nonexistent/case.json", &c), WAVELAB_ERR_CASE);
    ck_assert_ptr_nonnull(strstr(wavelab_case_message(c), "/nonexistent/case.json"));
    ck_assert_int_eq(wavelab_status_exit_code(WAVELAB_ERR_CASE), 2);
    ck_assert_int_eq(wavelab_run_sim(c, 8, &r), WAVELAB_ERR_CASE);
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
}
END_TEST

/* A case file's "specialization" reaches the API's runs too (its expectations were worked out by hand:
 * kernels/spec/). */
START_TEST(test_api_case_file_specialization_applies)
{
    static const char *const cases[] = {"local_size_id.json", "array_length.json", "bool_float.json"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/kernels/spec/%s", tsup_root(), cases[i]);
        wavelab_case *c;
        ck_assert_msg(wavelab_case_load(path, &c) == WAVELAB_OK, "%s", wavelab_case_message(c));
        wavelab_run *r;
        ck_assert_msg(wavelab_run_sim(c, 8, &r) == WAVELAB_OK, "%s: %s", cases[i], wavelab_run_message(r));
        ck_assert_msg(wavelab_run_check(r) == WAVELAB_OK, "%s: %s", cases[i], wavelab_run_message(r));
        wavelab_run_destroy(r);
        wavelab_case_destroy(c);
    }
}
END_TEST

START_TEST(test_api_out_of_bounds_write_is_a_fault_with_its_place)
{
    static const char *src =
        "#version 450\n"
        "layout(local_size_x = 8) in;\n"
        "layout(set = 0, binding = 0) buffer Out { uint v[]; } dst;\n"
        "void main() {\n"
        "    dst.v[gl_LocalInvocationIndex + 4u] = 1u;\n"
        "}\n";
    wavelab_case *c;
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_source(c, "glsl", "oob.comp", src), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_U32, NULL, 8), WAVELAB_OK);
    wavelab_run *r;
    ck_assert_int_eq(wavelab_run_sim(c, 8, &r), WAVELAB_ERR_FAULT);
    ck_assert_int_eq(wavelab_status_exit_code(WAVELAB_ERR_FAULT), 1);
    const char *m = wavelab_run_message(r);
    ck_assert_msg(strstr(m, "oob.comp") && strstr(m, "wave 8") && strstr(m, "line 5") && strstr(m, "lane 4"), "message \"%s\"", m);
    /* a faulted run keeps the binding as it was at the fault, and check repeats the fault */
    size_t size;
    ck_assert_int_eq(wavelab_run_read_binding(r, 0, 0, NULL, 0, &size), WAVELAB_OK);
    ck_assert_uint_eq(size, 32);
    ck_assert_int_eq(wavelab_run_check(r), WAVELAB_ERR_FAULT);
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
}
END_TEST

START_TEST(test_api_bad_kernels_and_cases_are_errors_with_messages)
{
    wavelab_case *c;
    wavelab_run *r;
    /* a compile error names the file and line */
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_source(c, "glsl", "broken.comp",
                                             "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { nope(); }\n"),
                     WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_U32, NULL, 1), WAVELAB_OK);
    ck_assert_int_eq(wavelab_run_sim(c, 8, &r), WAVELAB_ERR_COMPILE);
    ck_assert_ptr_nonnull(strstr(wavelab_run_message(r), "broken.comp:3"));
    wavelab_run_destroy(r);
    /* every later run reports the same compile error */
    ck_assert_int_eq(wavelab_run_sim(c, 16, &r), WAVELAB_ERR_COMPILE);
    ck_assert_ptr_nonnull(strstr(wavelab_run_message(r), "broken.comp:3"));
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);

    /* the kernel reads a binding the case lacks */
    uint32_t in[N];
    make_input(in);
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_source(c, "glsl", "scan.comp", scan_glsl), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 1, WAVELAB_U32, NULL, N), WAVELAB_OK);
    ck_assert_int_eq(wavelab_run_sim(c, 8, &r), WAVELAB_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(wavelab_run_message(r), "set 0 binding 0"));
    ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, NULL, 0, NULL), WAVELAB_ERR_NOT_FOUND);
    wavelab_run_destroy(r);
    /* a wave size the simulator does not model */
    ck_assert_int_eq(wavelab_run_sim(c, 12, &r), WAVELAB_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(wavelab_run_message(r), "wave size 12"));
    wavelab_run_destroy(r);
    /* the case has been run: it no longer changes */
    ck_assert_int_eq(wavelab_case_set_groups(c, 2, 1, 1), WAVELAB_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(wavelab_case_message(c), "has been run"));
    wavelab_case_destroy(c);

    /* a case with no kernel */
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_run_sim(c, 8, &r), WAVELAB_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(wavelab_run_message(r), "no kernel"));
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
}
END_TEST

/* The C API holds a case to the case format's limits: a define value with a CR or LF (its rest would run as a
 * preprocessor line), push constants that are not whole words or exceed 4096 bytes, a binding past 2^30 bytes
 * (2^40 elements aborted under ASan); and a run that never started has no statistics. */
START_TEST(test_api_case_limits_and_stats_of_a_run_that_never_started)
{
    wavelab_case *c;
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_define(c, "X", "1\r#error injected"), WAVELAB_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(wavelab_case_message(c), "one line"));
    ck_assert_int_eq(wavelab_case_define(c, "X", "1\n#error injected"), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_define(c, "X", "1 + 2"), WAVELAB_OK);
    uint8_t push[4100] = {0};
    ck_assert_int_eq(wavelab_case_set_push_constants(c, push, 4100), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_set_push_constants(c, push, 6), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_set_push_constants(c, push, 4096), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_U32, NULL, (size_t)1 << 40),
                     WAVELAB_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(wavelab_case_message(c), "at most 1073741824 bytes"));
    /* 2^28 u32 elements are exactly 2^30 bytes: allowed; one more is not */
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_U32, NULL,
                                              ((size_t)1 << 28) + 1),
                     WAVELAB_ERR_ARGUMENT);
    wavelab_case_destroy(c);

    /* a compile error: the dispatch never starts, so there is no statistic to read */
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_source(c, "glsl", "broken.comp",
                                             "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { nope(); }\n"),
                     WAVELAB_OK);
    wavelab_run *r;
    ck_assert_int_eq(wavelab_run_sim(c, 8, &r), WAVELAB_ERR_COMPILE);
    uint64_t value = 12345;
    ck_assert_int_eq(wavelab_run_stat(r, "wave_instructions", &value), WAVELAB_ERR_NOT_FOUND);
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
}
END_TEST

START_TEST(test_api_misuse_is_refused_not_a_crash)
{
    wavelab_case *c;
    ck_assert_int_eq(wavelab_case_create(NULL), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_source(c, "cuda", "k.cu", "x"), WAVELAB_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(wavelab_case_message(c), "cuda"));
    ck_assert_int_eq(wavelab_case_set_kernel_file(c, "kernel.metal"), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_define(c, "2BAD", "1"), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_set_groups(c, 0, 1, 1), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_expect(c, 0, 0, "x", 1, WAVELAB_COMPARE_EXACT, 0), WAVELAB_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(wavelab_case_message(c), "no binding set 0 binding 0"));
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, (wavelab_type)99, NULL, 4),
                     WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_F32, NULL, 0),
                     WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_F32, NULL, 4), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_UNIFORM_BUFFER, 0, 0, WAVELAB_F32, NULL, 4),
                     WAVELAB_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(wavelab_case_message(c), "already bound"));
    float f[5] = {0};
    ck_assert_int_eq(wavelab_case_expect(c, 0, 0, f, 5, WAVELAB_COMPARE_EXACT, 0), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_expect(c, 0, 0, f, 4, WAVELAB_COMPARE_ULP, 2), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_texel_format(c, 0, 0, "r32f"), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_TEXEL_BUFFER, 0, 2, WAVELAB_U32, NULL, 4),
                     WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_texel_format(c, 0, 2, "r99zz"), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_set_texel_format(c, 0, 2, "r32ui"), WAVELAB_OK);
    ck_assert_int_eq(wavelab_run_sim(c, 8, NULL), WAVELAB_ERR_ARGUMENT);
    wavelab_run *r;
    ck_assert_int_eq(wavelab_run_sim(NULL, 8, &r), WAVELAB_ERR_ARGUMENT);
    ck_assert_ptr_null(r);
    wavelab_case_destroy(c);
    wavelab_run_destroy(NULL);
    wavelab_case_destroy(NULL);

    /* read-back into a buffer too small, and statistics by a name that does not exist */
    uint32_t in[N];
    make_input(in);
    c = scan_case("glsl", in);
    ck_assert_int_eq(wavelab_run_sim(c, 32, &r), WAVELAB_OK);
    uint32_t small[N - 1];
    ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, small, sizeof small, NULL), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_run_read_binding(r, 5, 1, small, sizeof small, NULL), WAVELAB_ERR_NOT_FOUND);
    uint64_t v;
    ck_assert_int_eq(wavelab_run_stat(r, "no_such_counter", &v), WAVELAB_ERR_NOT_FOUND);
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);

    /* every status has a text, an exit code of the documented set, and the table of statistics is whole */
    for (int s = WAVELAB_OK; s <= WAVELAB_ERR_NOMEM; s++) {
        ck_assert_str_ne(wavelab_status_str((wavelab_status)s), "unknown status");
        int code = wavelab_status_exit_code((wavelab_status)s);
        ck_assert(code >= 0 && code <= 3);
    }
    ck_assert_int_eq(wavelab_status_exit_code(WAVELAB_ERR_DEVICE), 3);
    ck_assert_int_gt(wavelab_stat_count(), 0);
    for (int i = 0; i < wavelab_stat_count(); i++)
        ck_assert(wavelab_stat_name(i)[0] && wavelab_stat_meaning(i)[0]);
    ck_assert_ptr_null(wavelab_stat_name(wavelab_stat_count()));
    ck_assert_uint_eq(wavelab_type_size(WAVELAB_F16), 2);
    ck_assert_uint_eq(wavelab_type_size(WAVELAB_I64), 8);
    ck_assert_uint_eq(wavelab_type_size((wavelab_type)42), 0);
}
END_TEST

/* Several threads start the first run of one case at once: one compile, the same bytes everywhere. */
typedef struct thread_job {
    const wavelab_case *c;
    uint32_t out[N];
    wavelab_status st;
} thread_job;

static void *run_thread(void *arg)
{
    thread_job *j = arg;
    wavelab_run *r;
    j->st = wavelab_run_sim(j->c, 16, &r);
    if (j->st == WAVELAB_OK)
        j->st = wavelab_run_read_binding(r, 0, 1, j->out, sizeof j->out, NULL);
    wavelab_run_destroy(r);
    return NULL;
}

START_TEST(test_api_one_case_runs_on_several_threads_at_once)
{
    uint32_t in[N], want[N];
    make_input(in);
    reference_scan(in, 16, 1, want);
    wavelab_case *c = scan_case("glsl", in);
    thread_job jobs[4];
    pthread_t threads[4];
    for (int t = 0; t < 4; t++) {
        jobs[t].c = c;
        pthread_create(&threads[t], NULL, run_thread, &jobs[t]);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(threads[t], NULL);
        ck_assert_int_eq(jobs[t].st, WAVELAB_OK);
        ck_assert_mem_eq(jobs[t].out, want, sizeof want);
    }
    wavelab_case_destroy(c);
}
END_TEST

/* kernels/robust/robust_oob.comp without the case's "robust_access": 64 lanes add 1 to src[i] of a 16-element
 * source into dst[i], and write 7 to dst[64 + 2i] of a 96-element destination.  Lanes 16.. read past the source. */
static char *write_oob_case(char **dir)
{
    *dir = tsup_temp_dir();
    char text[4096];
    int n = snprintf(text, sizeof text, "{\"kernel\": \"%s/kernels/robust/robust_oob.comp\", \"bindings\": [\n"
                     "{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"data\": [", tsup_root());
    for (int i = 0; i < 16; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s%d", i ? ", " : "", 100 + i);
    n += snprintf(text + n, sizeof text - (size_t)n, "]},\n{\"set\": 0, \"binding\": 1, \"type\": \"u32\", "
                  "\"count\": 96, \"fill\": {\"value\": 57005}}]}\n");
    return tsup_write_file(*dir, "oob.json", text);
}

/* The C API runs the simulator through run_case_sim: robust access is honoured as by `wavelab run --robust`
 * (it was dropped: the same case faulted through the API and read 0 on the command line). */
START_TEST(test_api_robust_access_gives_the_verdicts_of_wavelab_run)
{
    char *dir, *path = write_oob_case(&dir);
    wavelab_case *c;
    ck_assert_msg(wavelab_case_load(path, &c) == WAVELAB_OK, "%s", wavelab_case_message(c));
    wavelab_run *r;
    /* without robust access: lane 16 reads past the source, a fault, as `wavelab run` says (exit 1) */
    ck_assert_int_eq(wavelab_run_sim(c, 32, &r), WAVELAB_ERR_FAULT);
    ck_assert_msg(strstr(wavelab_run_message(r), "lane 16"), "%s", wavelab_run_message(r));
    wavelab_run_destroy(r);
    char args[1024];
    snprintf(args, sizeof args, "run '%s' --wave 32 --quiet", path);
    ck_assert_int_eq(tsup_run_cli(args, NULL), 1);
    /* with it: out-of-bounds loads read 0, stores past the end are dropped (exit 0 on the command line) */
    wavelab_run_options o = WAVELAB_RUN_OPTIONS_INIT;
    o.wave_size = 32;
    o.robust_access = 1;
    ck_assert_int_eq(wavelab_run_sim_with(c, &o, &r), WAVELAB_OK);
    uint32_t got[96], want[96];
    for (int i = 0; i < 96; i++)
        want[i] = i < 16 ? 101u + (uint32_t)i : i < 64 ? 1u : i % 2 == 0 ? 7u : 57005u;
    ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, got, sizeof got, NULL), WAVELAB_OK);
    ck_assert_mem_eq(got, want, sizeof want);
    wavelab_run_destroy(r);
    snprintf(args, sizeof args, "run '%s' --wave 32 --robust --quiet", path);
    ck_assert_int_eq(tsup_run_cli(args, NULL), 0);
    /* the case's own "robust_access" is honoured by the plain run too (kernels/robust: the same kernel) */
    wavelab_case *robust;
    char robust_path[1024];
    snprintf(robust_path, sizeof robust_path, "%s/kernels/robust/robust_oob.json", tsup_root());
    ck_assert_int_eq(wavelab_case_load(robust_path, &robust), WAVELAB_OK);
    ck_assert_msg(wavelab_run_sim(robust, 32, &r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, got, sizeof got, NULL), WAVELAB_OK);
    ck_assert_mem_eq(got, want, sizeof want);
    wavelab_run_destroy(r);
    wavelab_case_destroy(robust);
    /* an options struct from an older header (a smaller size) is refused, not read past its end */
    o.size = sizeof(size_t);
    ck_assert_int_eq(wavelab_run_sim_with(c, &o, &r), WAVELAB_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(wavelab_run_message(r), "WAVELAB_RUN_OPTIONS_INIT"));
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
    free(path);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* The budget, the threads and the machine reach the run: a budget too small is a fault, more threads give the
 * same bytes, a machine preset is found (and an unknown one is bad input). */
START_TEST(test_api_run_options_budget_threads_machine)
{
    uint32_t in[N], want[N], got[N];
    make_input(in);
    reference_scan(in, 16, 1, want);
    wavelab_case *c = scan_case("glsl", in);
    wavelab_run *r;
    wavelab_run_options o = WAVELAB_RUN_OPTIONS_INIT;
    o.wave_size = 16;
    o.instruction_budget = 3; /* 8 waves of several instructions each cannot finish in 3 */
    ck_assert_int_eq(wavelab_run_sim_with(c, &o, &r), WAVELAB_ERR_FAULT);
    ck_assert_msg(strstr(wavelab_run_message(r), "budget"), "%s", wavelab_run_message(r));
    wavelab_run_destroy(r);
    o.instruction_budget = 0;
    o.threads = 3;
    ck_assert_int_eq(wavelab_run_sim_with(c, &o, &r), WAVELAB_OK);
    ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, got, sizeof got, NULL), WAVELAB_OK);
    ck_assert_mem_eq(got, want, sizeof want);
    wavelab_run_destroy(r);
    o.machine = "no_such_machine_preset";
    ck_assert_int_eq(wavelab_run_sim_with(c, &o, &r), WAVELAB_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(wavelab_run_message(r), "no_such_machine_preset"));
    wavelab_run_destroy(r);
    char machine[1024];
    snprintf(machine, sizeof machine, "%s/machines/rdna2.json", tsup_root());
    o.machine = machine;
    ck_assert_msg(wavelab_run_sim_with(c, &o, &r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, got, sizeof got, NULL), WAVELAB_OK);
    ck_assert_mem_eq(got, want, sizeof want);
    /* RDNA 2 runs wave32 and wave64 (machines/rdna2.json): wave 16 is modelled with the command line's warning */
    ck_assert_msg(strstr(wavelab_run_warnings(r), "does not run wave 16"), "%s", wavelab_run_warnings(r));
    wavelab_run_destroy(r);
    /* no wave size asked and none in the case: the preset's default (GCN Vega: wave64), as `wavelab run --machine` */
    snprintf(machine, sizeof machine, "%s/machines/gcn_vega64.json", tsup_root());
    o.wave_size = 0;
    ck_assert_msg(wavelab_run_sim_with(c, &o, &r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    ck_assert_uint_eq(wavelab_run_wave_size(r), 64);
    reference_scan(in, 64, 1, want);
    ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, got, sizeof got, NULL), WAVELAB_OK);
    ck_assert_mem_eq(got, want, sizeof want);
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
}
END_TEST

/* wavelab_run_options.args: every simulator option of `wavelab run`, read by its own table and parser, so a new one
 * reaches the API with no API line.  --robust makes the out-of-bounds case read 0 as the field does; --budget stops
 * a run; --sanitize reports the planted race of tests/sanitize/race_no_barrier (a wave's store and another's read
 * of tile[] with no barrier between: 2 findings at wave 32, as `wavelab run --sanitize` prints); an option that
 * sets nothing the simulator does and a bad value are refused with the command line's words; a struct of 0.2's
 * size (without args) still runs. */
START_TEST(test_api_run_options_args_take_the_command_lines_options)
{
    char *dir, *path = write_oob_case(&dir);
    wavelab_case *c;
    ck_assert_msg(wavelab_case_load(path, &c) == WAVELAB_OK, "%s", wavelab_case_message(c));
    wavelab_run *r;
    wavelab_run_options o = WAVELAB_RUN_OPTIONS_INIT;
    const char *robust[] = {"--robust", "--wave=32", NULL};
    o.args = robust;
    ck_assert_msg(wavelab_run_sim_with(c, &o, &r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    ck_assert_uint_eq(wavelab_run_wave_size(r), 32);
    uint32_t got[96], want[96];
    for (int i = 0; i < 96; i++)
        want[i] = i < 16 ? 101u + (uint32_t)i : i < 64 ? 1u : i % 2 == 0 ? 7u : 57005u;
    ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, got, sizeof got, NULL), WAVELAB_OK);
    ck_assert_mem_eq(got, want, sizeof want);
    wavelab_run_destroy(r);
    /* a 0.2 struct ends before args: the robust list above is not read, so lane 16 faults */
    o.size = offsetof(wavelab_run_options, args);
    o.wave_size = 32;
    ck_assert_int_eq(wavelab_run_sim_with(c, &o, &r), WAVELAB_ERR_FAULT);
    ck_assert_msg(strstr(wavelab_run_message(r), "lane 16"), "%s", wavelab_run_message(r));
    wavelab_run_destroy(r);
    o.size = sizeof o;
    const char *budget[] = {"--robust", "--budget", "2", NULL};
    o.args = budget;
    ck_assert_int_eq(wavelab_run_sim_with(c, &o, &r), WAVELAB_ERR_FAULT);
    ck_assert_msg(strstr(wavelab_run_message(r), "budget"), "%s", wavelab_run_message(r));
    wavelab_run_destroy(r);
    const char *dump[] = {"--dump", "x.json", NULL};
    o.args = dump;
    ck_assert_int_eq(wavelab_run_sim_with(c, &o, &r), WAVELAB_ERR_ARGUMENT);
    ck_assert_msg(strstr(wavelab_run_message(r), "--dump does not set a run option"), "%s", wavelab_run_message(r));
    wavelab_run_destroy(r);
    /* --wave abc: the parser's own line, the one every command prints after "wavelab CMD: " */
    const char *wave[] = {"--wave", "abc", NULL};
    o.args = wave;
    ck_assert_int_eq(wavelab_run_sim_with(c, &o, &r), WAVELAB_ERR_ARGUMENT);
    char args[1024], *err = NULL;
    snprintf(args, sizeof args, "run '%s' --wave abc", path);
    ck_assert_int_eq(tsup_run_cli(args, &err), 2);
    const char *line = strstr(err, "--wave abc");
    ck_assert_ptr_nonnull(line);
    ck_assert_ptr_nonnull(strstr(wavelab_run_message(r), "--wave abc"));
    ck_assert_msg(strncmp(strstr(wavelab_run_message(r), "--wave abc"), line, strcspn(line, "\n")) == 0,
                  "API: %s; CLI: %s", wavelab_run_message(r), line);
    free(err);
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);

    char race[1024];
    snprintf(race, sizeof race, "%s/tests/sanitize/race_no_barrier.json", tsup_root());
    ck_assert_int_eq(wavelab_case_load(race, &c), WAVELAB_OK);
    const char *sanitize[] = {"--sanitize", NULL};
    o.args = sanitize;
    ck_assert_int_eq(wavelab_run_sim_with(c, &o, &r), WAVELAB_ERR_FAULT);
    ck_assert_msg(strstr(wavelab_run_message(r), "2 sanitizer findings"), "%s", wavelab_run_message(r));
    ck_assert_msg(strstr(wavelab_run_message(r), "racecheck"), "%s", wavelab_run_message(r));
    wavelab_run_destroy(r);
    o.args = NULL; /* the same case without the sanitizer passes */
    ck_assert_msg(wavelab_run_sim_with(c, &o, &r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
    free(path);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* A case of several passes (article 001's pipeline: cull, compact, consume) runs every pass through the API, with
 * the bytes `wavelab run` writes (its --dump) and the case's expectations holding; it was refused at load. */
START_TEST(test_api_multi_pass_case_matches_wavelab_run)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/kernels/001_compaction/pipeline.json", tsup_root());
    wavelab_case *c;
    ck_assert_msg(wavelab_case_load(path, &c) == WAVELAB_OK, "%s", wavelab_case_message(c));
    wavelab_run *r;
    ck_assert_msg(wavelab_run_sim(c, 32, &r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    ck_assert_msg(wavelab_run_check(r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    char *dir = tsup_temp_dir(), dump[1024], args[3000];
    snprintf(dump, sizeof dump, "%s/dump.json", dir);
    snprintf(args, sizeof args, "run '%s' --wave 32 --quiet --dump '%s'", path, dump);
    ck_assert_int_eq(tsup_run_cli(args, NULL), 0);
    char *text = tsup_read_file(dump, NULL);
    ck_assert_ptr_nonnull(text);
    cJSON *root = cJSON_Parse(text);
    const cJSON *bindings = cJSON_GetObjectItemCaseSensitive(root, "bindings"), *b;
    ck_assert_int_eq(cJSON_GetArraySize(bindings), 6);
    cJSON_ArrayForEach(b, bindings) {
        uint32_t set = (uint32_t)cJSON_GetObjectItemCaseSensitive(b, "set")->valuedouble;
        uint32_t binding = (uint32_t)cJSON_GetObjectItemCaseSensitive(b, "binding")->valuedouble;
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(b, "type")->valuestring, "u32");
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(b, "data"), *v;
        size_t size = 0;
        ck_assert_int_eq(wavelab_run_read_binding(r, set, binding, NULL, 0, &size), WAVELAB_OK);
        ck_assert_uint_eq(size, (size_t)cJSON_GetArraySize(data) * 4);
        uint32_t *got = malloc(size);
        ck_assert_int_eq(wavelab_run_read_binding(r, set, binding, got, size, NULL), WAVELAB_OK);
        size_t i = 0;
        cJSON_ArrayForEach(v, data) {
            ck_assert_msg(got[i] == (uint32_t)v->valuedouble, "set %u binding %u element %zu: API %u, run %.0f",
                          set, binding, i, got[i], v->valuedouble);
            i++;
        }
        free(got);
    }
    cJSON_Delete(root);
    free(text);
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* Descriptor arrays through the API: three input buffers as one array, read by constant indices, and two outputs as
 * another; every element a binding of its own (wavelab_case_add_binding_element). */
#define ARRAY_LOCAL 64
static const char *array_glsl =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0) readonly buffer In { uint v[]; } src[3];\n"
    "layout(set = 0, binding = 1) buffer Out { uint o[]; } dst[2];\n"
    "void main()\n"
    "{\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    dst[0].o[i] = src[0].v[i] * src[1].v[i] + src[2].v[i];\n"
    "    dst[1].o[i] = src[2].v[i] ^ (src[0].v[i] << 4);\n"
    "}\n";

/* Element e of the input array: distinct values in every element, so a mix-up of elements shows. */
static void array_inputs(uint32_t src[3][ARRAY_LOCAL])
{
    for (uint32_t e = 0; e < 3; e++)
        for (uint32_t i = 0; i < ARRAY_LOCAL; i++)
            src[e][i] = i * (e + 3) + 5 * e + 1;
}

/* What the kernel means, in C: out[0] and out[1], the two output elements. */
static void array_reference(uint32_t src[3][ARRAY_LOCAL], uint32_t out[2][ARRAY_LOCAL])
{
    for (int i = 0; i < ARRAY_LOCAL; i++) {
        out[0][i] = src[0][i] * src[1][i] + src[2][i];
        out[1][i] = src[2][i] ^ (src[0][i] << 4);
    }
}

/* The array kernel's case with its two expectations (want[0], want[1]): the elements added out of order, element 0
 * of the inputs through the call without an element (it is element 0 of the new one). */
static wavelab_case *array_case(uint32_t src[3][ARRAY_LOCAL], uint32_t want[2][ARRAY_LOCAL])
{
    wavelab_case *c;
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_source(c, "glsl", "array.comp", array_glsl), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding_element(c, WAVELAB_STORAGE_BUFFER, 0, 0, 2, WAVELAB_U32, src[2],
                                                      ARRAY_LOCAL), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_U32, src[0], ARRAY_LOCAL),
                     WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding_element(c, WAVELAB_STORAGE_BUFFER, 0, 0, 1, WAVELAB_U32, src[1],
                                                      ARRAY_LOCAL), WAVELAB_OK);
    for (uint32_t e = 0; e < 2; e++)
        ck_assert_int_eq(wavelab_case_add_binding_element(c, WAVELAB_STORAGE_BUFFER, 0, 1, e, WAVELAB_U32, NULL,
                                                          ARRAY_LOCAL), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_expect(c, 0, 1, want[0], ARRAY_LOCAL, WAVELAB_COMPARE_EXACT, 0), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_expect_element(c, 0, 1, 1, want[1], ARRAY_LOCAL, WAVELAB_COMPARE_EXACT, 0),
                     WAVELAB_OK);
    return c;
}

START_TEST(test_api_descriptor_array_elements_bind_read_and_check)
{
    uint32_t src[3][ARRAY_LOCAL], want[2][ARRAY_LOCAL], got[ARRAY_LOCAL];
    array_inputs(src);
    array_reference(src, want);
    wavelab_case *c = array_case(src, want);
    for (size_t w = 0; w < sizeof waves / sizeof waves[0]; w++) {
        wavelab_run *r;
        ck_assert_msg(wavelab_run_sim(c, waves[w], &r) == WAVELAB_OK, "%s", wavelab_run_message(r));
        ck_assert_msg(wavelab_run_check(r) == WAVELAB_OK, "wave %u: %s", waves[w], wavelab_run_message(r));
        ck_assert_str_eq(wavelab_run_warnings(r), "");
        for (uint32_t e = 0; e < 2; e++) {
            size_t size = 0;
            ck_assert_int_eq(wavelab_run_read_binding_element(r, 0, 1, e, got, sizeof got, &size), WAVELAB_OK);
            ck_assert_uint_eq(size, sizeof got);
            ck_assert_mem_eq(got, want[e], sizeof got);
        }
        ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, got, sizeof got, NULL), WAVELAB_OK);
        ck_assert_mem_eq(got, want[0], sizeof got);
        ck_assert_int_eq(wavelab_run_read_binding_element(r, 0, 0, 2, got, sizeof got, NULL), WAVELAB_OK);
        ck_assert_mem_eq(got, src[2], sizeof got);
        ck_assert_int_eq(wavelab_run_read_binding_element(r, 0, 1, 2, got, sizeof got, NULL), WAVELAB_ERR_NOT_FOUND);
        wavelab_run_destroy(r);
    }
    wavelab_case_destroy(c);

    /* a wrong expectation on element 1 names the element, and only that one fails */
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_source(c, "glsl", "array.comp", array_glsl), WAVELAB_OK);
    for (uint32_t e = 0; e < 3; e++)
        ck_assert_int_eq(wavelab_case_add_binding_element(c, WAVELAB_STORAGE_BUFFER, 0, 0, e, WAVELAB_U32, src[e],
                                                          ARRAY_LOCAL), WAVELAB_OK);
    for (uint32_t e = 0; e < 2; e++)
        ck_assert_int_eq(wavelab_case_add_binding_element(c, WAVELAB_STORAGE_BUFFER, 0, 1, e, WAVELAB_U32, NULL,
                                                          ARRAY_LOCAL), WAVELAB_OK);
    uint32_t wrong[ARRAY_LOCAL];
    memcpy(wrong, want[1], sizeof wrong);
    wrong[9] += 1;
    ck_assert_int_eq(wavelab_case_expect_element(c, 0, 1, 0, want[0], ARRAY_LOCAL, WAVELAB_COMPARE_EXACT, 0),
                     WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_expect_element(c, 0, 1, 1, wrong, ARRAY_LOCAL, WAVELAB_COMPARE_EXACT, 0),
                     WAVELAB_OK);
    wavelab_run *r;
    ck_assert_int_eq(wavelab_run_sim(c, 16, &r), WAVELAB_OK);
    ck_assert_int_eq(wavelab_run_check(r), WAVELAB_ERR_EXPECT);
    char needle[160];
    snprintf(needle, sizeof needle, "set 0 binding 1 element 1 (exact): element 9: expected %u, actual %u; 1 of 64",
             wrong[9], want[1][9]);
    ck_assert_msg(strstr(wavelab_run_message(r), needle), "message \"%s\" lacks \"%s\"", wavelab_run_message(r),
                  needle);
    ck_assert_ptr_null(strchr(wavelab_run_message(r), '\n'));
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
}
END_TEST

/* Appends {"set": 0, "binding": B, "element": E, "type": "u32", ...} with data (or a zero fill of count). */
static void add_case_binding(cJSON *list, int binding, int element, const uint32_t *data, int count)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddNumberToObject(b, "set", 0);
    cJSON_AddNumberToObject(b, "binding", binding);
    cJSON_AddNumberToObject(b, "element", element);
    cJSON_AddStringToObject(b, "type", "u32");
    if (data) {
        cJSON *d = cJSON_AddArrayToObject(b, "data");
        for (int i = 0; i < count; i++)
            cJSON_AddItemToArray(d, cJSON_CreateNumber(data[i]));
    } else {
        cJSON_AddNumberToObject(b, "count", count);
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(b, "fill"), "value", 0);
    }
    cJSON_AddItemToArray(list, b);
}

/* A case file's expectation on element 1 of an array is checked by wavelab_run_check against element 1, as
 * `wavelab test` checks it (the API compared it with element 0's contents). */
START_TEST(test_api_case_file_expectation_on_an_element_checks_that_element)
{
    uint32_t src[3][ARRAY_LOCAL], want[2][ARRAY_LOCAL];
    array_inputs(src);
    array_reference(src, want);
    char *dir = tsup_temp_dir();
    char *kernel = tsup_write_file(dir, "array.comp", array_glsl);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "kernel", "array.comp");
    cJSON *bindings = cJSON_AddArrayToObject(root, "bindings");
    for (int e = 0; e < 3; e++)
        add_case_binding(bindings, 0, e, src[e], ARRAY_LOCAL);
    for (int e = 0; e < 2; e++)
        add_case_binding(bindings, 1, e, NULL, ARRAY_LOCAL);
    cJSON *expect = cJSON_AddArrayToObject(root, "expect");
    cJSON *x = cJSON_CreateObject();
    cJSON_AddNumberToObject(x, "set", 0);
    cJSON_AddNumberToObject(x, "binding", 1);
    cJSON_AddNumberToObject(x, "element", 1);
    cJSON *d = cJSON_AddArrayToObject(x, "data");
    for (int i = 0; i < ARRAY_LOCAL; i++)
        cJSON_AddItemToArray(d, cJSON_CreateNumber(want[1][i]));
    cJSON_AddItemToArray(expect, x);
    char *text = cJSON_Print(root);
    char *path = tsup_write_file(dir, "array.json", text);
    wavelab_case *c;
    ck_assert_msg(wavelab_case_load(path, &c) == WAVELAB_OK, "%s", wavelab_case_message(c));
    wavelab_run *r;
    ck_assert_msg(wavelab_run_sim(c, 32, &r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    ck_assert_msg(wavelab_run_check(r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
    char args[1200];
    snprintf(args, sizeof args, "test '%s' --wave 32", path);
    ck_assert_int_eq(tsup_run_cli(args, NULL), 0);
    free(text);
    cJSON_Delete(root);
    free(kernel);
    free(path);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* A descriptor is bound once: a second binding at the same (set, binding, element) is refused, other elements of
 * the same array are not; an element past a descriptor array's limit and calls on an element never added are
 * refused with a line naming the element.  A kernel using elements 0..1 with element 1 alone bound is refused
 * with the line a case file gets from `wavelab run`. */
START_TEST(test_api_descriptor_array_misuse_and_a_missing_element)
{
    wavelab_case *c;
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding_element(c, WAVELAB_STORAGE_BUFFER, 0, 0, 1, WAVELAB_U32, NULL, 4),
                     WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding_element(c, WAVELAB_UNIFORM_BUFFER, 0, 0, 1, WAVELAB_U32, NULL, 8),
                     WAVELAB_ERR_ARGUMENT);
    ck_assert_str_eq(wavelab_case_message(c),
                     "wavelab_case_add_binding_element: set 0 binding 0 element 1 is already bound");
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_U32, NULL, 4), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding_element(c, WAVELAB_STORAGE_BUFFER, 0, 0, 0, WAVELAB_U32, NULL, 4),
                     WAVELAB_ERR_ARGUMENT);
    ck_assert_str_eq(wavelab_case_message(c), "wavelab_case_add_binding_element: set 0 binding 0 is already bound");
    ck_assert_int_eq(wavelab_case_add_binding_element(c, WAVELAB_STORAGE_BUFFER, 0, 0, 1024, WAVELAB_U32, NULL, 4),
                     WAVELAB_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(wavelab_case_message(c), "element 1024: a descriptor array has at most 1024"));
    ck_assert_int_eq(wavelab_case_add_binding_element(c, WAVELAB_STORAGE_BUFFER, 0, 0, 1023, WAVELAB_U32, NULL, 4),
                     WAVELAB_OK);
    uint32_t four[4] = {1, 2, 3, 4};
    ck_assert_int_eq(wavelab_case_expect_element(c, 0, 0, 2, four, 4, WAVELAB_COMPARE_EXACT, 0), WAVELAB_ERR_ARGUMENT);
    ck_assert_str_eq(wavelab_case_message(c), "wavelab_case_expect_element: no binding set 0 binding 0 element 2 "
                     "(add it first)");
    ck_assert_int_eq(wavelab_case_expect_element(c, 0, 0, 1, four, 5, WAVELAB_COMPARE_EXACT, 0), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_expect_element(c, 0, 0, 1, four, 4, WAVELAB_COMPARE_EXACT, 0), WAVELAB_OK);
    /* texel formats per element: one of a texel buffer array, not a plain buffer's element */
    ck_assert_int_eq(wavelab_case_add_binding_element(c, WAVELAB_STORAGE_TEXEL_BUFFER, 0, 2, 3, WAVELAB_U32, NULL, 4),
                     WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_texel_format_element(c, 0, 2, 3, "r32ui"), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_texel_format_element(c, 0, 2, 0, "r32ui"), WAVELAB_ERR_ARGUMENT);
    ck_assert_int_eq(wavelab_case_set_texel_format_element(c, 0, 0, 1, "r32ui"), WAVELAB_ERR_ARGUMENT);
    ck_assert_str_eq(wavelab_case_message(c), "wavelab_case_set_texel_format_element: set 0 binding 0 element 1 is a "
                     "storage_buffer, not a texel buffer");
    wavelab_case_destroy(c);

    /* element 1 alone, the kernel reads elements 0 and 1: the API's line and `wavelab run`'s on the same case */
    static const char *two =
        "#version 450\n"
        "layout(local_size_x = 4) in;\n"
        "layout(set = 0, binding = 0) readonly buffer In { uint v[]; } src[2];\n"
        "layout(set = 0, binding = 1) buffer Out { uint o[]; };\n"
        "void main() { uint i = gl_GlobalInvocationID.x; o[i] = src[0].v[i] + src[1].v[i]; }\n";
    char *dir = tsup_temp_dir();
    char *kernel = tsup_write_file(dir, "two.comp", two);
    char *path = tsup_write_file(dir, "two.json", "{\"kernel\": \"two.comp\", \"bindings\": [\n"
                                 "{\"set\": 0, \"binding\": 0, \"element\": 1, \"type\": \"u32\", \"data\": [1, 2, 3, 4]},\n"
                                 "{\"set\": 0, \"binding\": 1, \"type\": \"u32\", \"count\": 4, \"fill\": {\"value\": 0}}]}\n");
    char args[1200], *out = NULL;
    snprintf(args, sizeof args, "run '%s' --wave 4 --quiet", path);
    ck_assert_int_eq(tsup_run_cli(args, &out), 2);
    const char *cli_line = strstr(out, "bindings: the kernel uses set 0 binding 0 ");
    ck_assert_msg(cli_line, "%s", out);
    ck_assert_int_eq(wavelab_case_create(&c), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_set_source(c, "glsl", "two.comp", two), WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding_element(c, WAVELAB_STORAGE_BUFFER, 0, 0, 1, WAVELAB_U32, four, 4),
                     WAVELAB_OK);
    ck_assert_int_eq(wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 1, WAVELAB_U32, NULL, 4), WAVELAB_OK);
    wavelab_run *r;
    ck_assert_int_eq(wavelab_run_sim(c, 4, &r), WAVELAB_ERR_INPUT);
    ck_assert_int_eq(wavelab_status_exit_code(WAVELAB_ERR_INPUT), 2);
    const char *api_line = strstr(wavelab_run_message(r), "bindings: the kernel uses");
    ck_assert_msg(api_line, "%s", wavelab_run_message(r));
    /* the same line after the case's name (the file's path, the API's source name) */
    ck_assert_int_eq(strncmp(api_line, cli_line, strcspn(cli_line, "\n")), 0);
    ck_assert_uint_eq(strlen(api_line), strcspn(cli_line, "\n"));
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
    free(out);
    free(kernel);
    free(path);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

START_TEST(test_api_vulkan_device_matches_reference)
{
    uint32_t in[N], want[N], got[N];
    make_input(in);
    wavelab_case *c = scan_case("glsl", in);
    wavelab_run *r;
    wavelab_status st = wavelab_run_vulkan(c, 0, NULL, &r);
    ck_assert_msg(st == WAVELAB_OK, "%s", wavelab_run_message(r));
    uint32_t wave = wavelab_run_wave_size(r);
    ck_assert_msg(wave >= 4 && wave <= 64 && (wave & (wave - 1)) == 0, "device wave size %u", wave);
    ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, got, sizeof got, NULL), WAVELAB_OK);
    reference_scan(in, wave, 1, want);
    ck_assert_mem_eq(got, want, sizeof want);
    uint64_t v;
    ck_assert_int_eq(wavelab_run_stat(r, "waves", &v), WAVELAB_ERR_NOT_FOUND);
    wavelab_run_destroy(r);
    /* a device that is not there */
    ck_assert_int_eq(wavelab_run_vulkan(c, 0, "no such gpu anywhere", &r), WAVELAB_ERR_DEVICE);
    ck_assert_int_eq(wavelab_status_exit_code(WAVELAB_ERR_DEVICE), 3);
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
}
END_TEST

/* kernels/REL, loaded (asserted). */
static wavelab_case *load_kernel_case(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/kernels/%s", tsup_root(), rel);
    wavelab_case *c;
    ck_assert_msg(wavelab_case_load(path, &c) == WAVELAB_OK, "%s", wavelab_case_message(c));
    return c;
}

/* c run on the default device, its expectations asserted to hold; the run, to destroy. */
static wavelab_run *vulkan_run_checked(wavelab_case *c)
{
    wavelab_run *r;
    ck_assert_msg(wavelab_run_vulkan(c, 0, NULL, &r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    ck_assert_msg(wavelab_run_check(r) == WAVELAB_OK, "%s", wavelab_run_message(r));
    return r;
}

/* The same descriptor arrays on the device: each element its own VkBuffer in one array descriptor. */
START_TEST(test_api_vulkan_descriptor_array_matches_reference)
{
    uint32_t src[3][ARRAY_LOCAL], want[2][ARRAY_LOCAL], got[ARRAY_LOCAL];
    array_inputs(src);
    array_reference(src, want);
    wavelab_case *c = array_case(src, want);
    wavelab_run *r = vulkan_run_checked(c);
    ck_assert_int_eq(wavelab_run_read_binding_element(r, 0, 1, 1, got, sizeof got, NULL), WAVELAB_OK);
    ck_assert_mem_eq(got, want[1], sizeof got);
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
}
END_TEST

/* An image of 40 layers bound as 40 descriptors, a view of one layer each (kernels/descriptors/layer_views_40.json):
 * the device run made 40 views in an array of 32 and crashed.  Each element reads as the one image; the last layer
 * holds what the kernel wrote to the output buffer. */
START_TEST(test_api_vulkan_40_layer_views_run_and_read_back)
{
    wavelab_case *c = load_kernel_case("descriptors/layer_views_40.json");
    wavelab_run *r = vulkan_run_checked(c);
    enum { LAYERS = 40, TEXELS = 16 };
    static uint32_t first[LAYERS * TEXELS], last[LAYERS * TEXELS];
    uint32_t out[TEXELS];
    size_t size = 0;
    ck_assert_int_eq(wavelab_run_read_binding_element(r, 0, 0, 0, first, sizeof first, &size), WAVELAB_OK);
    ck_assert_uint_eq(size, sizeof first);
    ck_assert_int_eq(wavelab_run_read_binding_element(r, 0, 0, LAYERS - 1, last, sizeof last, NULL), WAVELAB_OK);
    ck_assert_mem_eq(first, last, sizeof first);
    ck_assert_int_eq(wavelab_run_read_binding_element(r, 0, 0, LAYERS, NULL, 0, NULL), WAVELAB_ERR_NOT_FOUND);
    ck_assert_int_eq(wavelab_run_read_binding(r, 0, 1, out, sizeof out, NULL), WAVELAB_OK);
    ck_assert_mem_eq(out, &last[(LAYERS - 1) * TEXELS], sizeof out);
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
}
END_TEST

/* A case of several passes on the device: every pass runs (run_case_device), and the case's expectations hold. */
START_TEST(test_api_vulkan_runs_every_pass)
{
    wavelab_case *c = load_kernel_case("001_compaction/pipeline.json");
    wavelab_run *r = vulkan_run_checked(c);
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
}
END_TEST

/* A compile error on the device's side is named the same way by the API and by every command that runs a device
 * (run_case_device): a pass of a case of several passes by its index and name, a one-dispatch case's kernel with
 * no pass prefix (profile wrote "dispatches[0] ():" before). */
START_TEST(test_api_device_compile_errors_name_the_pass)
{
    char *dir = tsup_temp_dir();
    char *bad = tsup_write_file(dir, "bad.comp", "#version 450\nlayout(local_size_x = 8) in;\nvoid main() { nope(); }\n");
    char text[1024];
    snprintf(text, sizeof text, "{\"dispatches\": [{\"name\": \"first\", \"kernel\": \"bad.comp\", \"groups\": [1, 1, 1]}],"
             " \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"count\": 8, \"fill\": {\"value\": 0}}]}");
    char *passes = tsup_write_file(dir, "passes.json", text);
    snprintf(text, sizeof text, "{\"kernel\": \"bad.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": "
             "\"u32\", \"count\": 8, \"fill\": {\"value\": 0}}]}");
    char *one = tsup_write_file(dir, "one.json", text);
    wavelab_case *c;
    ck_assert_msg(wavelab_case_load(passes, &c) == WAVELAB_OK, "%s", wavelab_case_message(c));
    wavelab_run *r;
    ck_assert_int_eq(wavelab_run_vulkan(c, 0, NULL, &r), WAVELAB_ERR_COMPILE);
    ck_assert_msg(strstr(wavelab_run_message(r), "dispatches[0] (first): ") &&
                  strstr(wavelab_run_message(r), "bad.comp:3"), "%s", wavelab_run_message(r));
    wavelab_run_destroy(r);
    wavelab_case_destroy(c);
    const char *commands[] = {"check '%s'", "run '%s' --backend vulkan", "profile '%s'"};
    for (int k = 0; k < 3; k++) {
        char args[2048], *out = NULL;
        snprintf(args, sizeof args, commands[k], passes);
        ck_assert_int_eq(tsup_run_cli(args, &out), 2);
        ck_assert_msg(strstr(out, "dispatches[0] (first): ") && strstr(out, "bad.comp:3"), "%s: %s", args, out);
        free(out);
        snprintf(args, sizeof args, commands[k], one);
        ck_assert_int_eq(tsup_run_cli(args, &out), 2);
        ck_assert_msg(strstr(out, "bad.comp:3") && !strstr(out, "dispatches["), "%s: %s", args, out);
        free(out);
    }
    free(bad);
    free(passes);
    free(one);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *t = tcase_create("api");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_api_glsl_scan_at_every_wave_matches_reference);
    tcase_add_test(t, test_api_hlsl_wave_prefix_sum_is_exclusive);
    tcase_add_test(t, test_api_expectations_hold_and_a_wrong_one_names_its_element);
    tcase_add_test(t, test_api_spirv_words_run_like_source);
    tcase_add_test(t, test_api_push_constants_defines_and_groups_reach_the_kernel);
    tcase_add_test(t, test_api_case_file_loads_runs_and_passes);
    tcase_add_test(t, test_api_case_file_specialization_applies);
    tcase_add_test(t, test_api_out_of_bounds_write_is_a_fault_with_its_place);
    tcase_add_test(t, test_api_bad_kernels_and_cases_are_errors_with_messages);
    tcase_add_test(t, test_api_misuse_is_refused_not_a_crash);
    tcase_add_test(t, test_api_case_limits_and_stats_of_a_run_that_never_started);
    tcase_add_test(t, test_api_one_case_runs_on_several_threads_at_once);
    tcase_add_test(t, test_api_robust_access_gives_the_verdicts_of_wavelab_run);
    tcase_add_test(t, test_api_run_options_args_take_the_command_lines_options);
    tcase_add_test(t, test_api_run_options_budget_threads_machine);
    tcase_add_test(t, test_api_multi_pass_case_matches_wavelab_run);
    tcase_add_test(t, test_api_descriptor_array_elements_bind_read_and_check);
    tcase_add_test(t, test_api_case_file_expectation_on_an_element_checks_that_element);
    tcase_add_test(t, test_api_descriptor_array_misuse_and_a_missing_element);
    suite_add_tcase(s, t);
    TCase *dev = tsup_device_tcase("device");
    tcase_set_timeout(dev, 300);
    tcase_add_test(dev, test_api_vulkan_device_matches_reference);
    tcase_add_test(dev, test_api_vulkan_runs_every_pass);
    tcase_add_test(dev, test_api_vulkan_descriptor_array_matches_reference);
    tcase_add_test(dev, test_api_vulkan_40_layer_views_run_and_read_back);
    tcase_add_test(dev, test_api_device_compile_errors_name_the_pass);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    return tsup_run_suite(api_suite(), "api");
}
