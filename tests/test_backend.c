/*
 * tests/test_backend.c — the Vulkan backend: SPIR-V scanning (no device
 * needed), then, on a Vulkan device (lavapipe in CI), one case per binding
 * kind and element type with outputs checked against values computed here,
 * the wave-size and unsupported-operation errors, repeats and timing, and the
 * `wavelab check` cross-check of every case in kernels/.
 *
 * The device tests are the "device" TCase (test_backend_device in CTest),
 * skipped as a whole without a device (tsup_run_suite).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backend/backend.h"
#include "backend/vulkan_internal.h"
#include "tests/support/tsup.h"
#include "isa/isa.h"
#include "run/run.h"

/* Element sizes straight from the case contract's type table (no dependency on case.c). */
static size_t type_size(case_type t)
{
    static const size_t sizes[] = {
#define X(id, name, size, is_signed, is_float) size,
        CASE_TYPE_LIST(X)
#undef X
    };
    return sizes[t];
}

static const char *root(void)
{
    return tsup_root();
}

/* ------------------------------------------------------------- a case built in C */

typedef struct test_case {
    wl_case c;
    case_binding b[4];
    char kernel[1024];
} test_case;

static void tc_init(test_case *t, const char *kernel_file, uint32_t groups_x)
{
    memset(t, 0, sizeof *t);
    snprintf(t->kernel, sizeof t->kernel, "%s/tests/backend/%s", root(), kernel_file);
    t->c.kernel = t->kernel;
    t->c.path = t->kernel;
    t->c.entry = (char *)"main";
    t->c.language = (char *)"glsl";
    t->c.groups[0] = groups_x;
    t->c.groups[1] = t->c.groups[2] = 1;
    t->c.push_type = CASE_TYPE_U32;
    t->c.bindings = t->b;
}

static case_binding *tc_bind(test_case *t, uint32_t set, uint32_t binding, case_kind kind, case_type type,
                             const char *format, size_t count)
{
    case_binding *b = &t->b[t->c.binding_count++];
    b->set = set;
    b->binding = binding;
    b->kind = kind;
    b->type = type;
    snprintf(b->format, sizeof b->format, "%s", format ? format : "");
    b->count = count;
    b->size = count * type_size(type);
    b->bytes = calloc(b->size ? b->size : 1, 1);
    ck_assert_ptr_nonnull(b->bytes);
    return b;
}

static void tc_free(test_case *t)
{
    for (int i = 0; i < t->c.binding_count; i++)
        free(t->b[i].bytes);
}

static uint32_t *compile(const char *kernel, const isa_define *defines, int define_count, size_t *words)
{
    char err[4096] = "", warnings[1024] = "";
    isa_compile_options opt = {
        .path = kernel, .language = "glsl", .defines = defines, .define_count = define_count};
    uint32_t *spirv = NULL;
    isa_status st = isa_compile(&opt, &spirv, words, err, sizeof err, warnings, sizeof warnings);
    ck_assert_msg(st == ISA_OK, "compile %s: %s", kernel, err);
    return spirv;
}

/* ------------------------------------------------------------- the device fixture */

static vkb_context *ctx;
static int device = -1;
static char skip_reason[1024];

static void device_setup(void)
{
    device = tsup_device_open(&ctx, skip_reason, sizeof skip_reason);
    ck_assert_msg(device >= 0, "no Vulkan device: %s", skip_reason); /* tsup_run_suite found one */
}

static void device_teardown(void)
{
    vkb_context_destroy(ctx);
    ctx = NULL;
}

static uint32_t device_wave(void)
{
    vkb_device_info info;
    ck_assert_int_eq(vkb_device_info_get(ctx, device, &info), VKB_OK);
    return info.subgroup_size;
}

/* Runs a test case on the device; returns the status, err holds the message. */
static vkb_status tc_run(test_case *t, const isa_define *defines, int define_count, const vkb_run_options *opt,
                         vkb_run_output *out, char *err, size_t err_size)
{
    size_t words = 0;
    uint32_t *spirv = compile(t->kernel, defines, define_count, &words);
    vkb_status st = vkb_run_case(ctx, device, &t->c, spirv, words, opt, out, err, err_size);
    free(spirv);
    return st;
}

/* ------------------------------------------------------------- element helpers */

static uint16_t half_from_float(float f)
{
    /* exact for the small values used here (normal numbers with few mantissa bits) */
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    int exp = (int)((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = (x >> 13) & 0x3ffu;
    if ((x & 0x7fffffffu) == 0)
        return (uint16_t)sign;
    return (uint16_t)(sign | ((uint32_t)exp << 10) | mant);
}

static void put_element(case_type t, uint8_t *p, double v)
{
    uint64_t bits = 0;
    if (t == CASE_TYPE_F16) {
        uint16_t h = half_from_float((float)v);
        memcpy(p, &h, 2);
        return;
    }
    if (t == CASE_TYPE_F32) {
        float f = (float)v;
        memcpy(p, &f, 4);
        return;
    }
    if (t == CASE_TYPE_F64) {
        memcpy(p, &v, 8);
        return;
    }
    bits = (uint64_t)(int64_t)v;
    memcpy(p, &bits, type_size(t)); /* little-endian host */
}

/* ------------------------------------------------------------- tests without a device */

START_TEST(test_backend_status_names_are_distinct)
{
    ck_assert_str_eq(vkb_result_name(-4), "VK_ERROR_DEVICE_LOST");
    ck_assert_str_eq(vkb_result_name(2), "VK_TIMEOUT");
    ck_assert_str_eq(vkb_result_name(12345), "VkResult(12345)");
    ck_assert_str_ne(vkb_status_str(VKB_ERR_WAVE_SIZE), vkb_status_str(VKB_ERR_UNSUPPORTED));
    char buf[128];
    vkb_subgroup_ops_format(VKB_SUBGROUP_BASIC | VKB_SUBGROUP_CLUSTERED, buf, sizeof buf);
    ck_assert_str_eq(buf, "basic clustered");
    vkb_shader_stages_format(0x20, buf, sizeof buf);
    ck_assert_str_eq(buf, "compute");
}
END_TEST

START_TEST(test_backend_scan_reads_size_resources_and_push_bytes)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/tests/backend/push_constants.comp", root());
    size_t words = 0;
    uint32_t *spirv = compile(path, NULL, 0, &words);
    vkb_kernel_info k;
    char err[512] = "";
    ck_assert_int_eq(vkb_kernel_scan(spirv, words, "main", &k, err, sizeof err), VKB_OK);
    ck_assert_str_eq(k.entry, "main");
    ck_assert_uint_eq(k.local_size[0], 8);
    ck_assert_uint_eq(k.local_size[1], 1);
    ck_assert_uint_eq(k.push_constant_bytes, 8);
    ck_assert_int_eq(k.resource_count, 1);
    ck_assert_int_eq(k.resources[0].kind, CASE_KIND_STORAGE_BUFFER);
    ck_assert_int_eq(k.resources[0].used, 1);
    free(spirv);
}
END_TEST

START_TEST(test_backend_scan_clustered_kernel_needs_clustered_ops)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/tests/backend/clustered.comp", root());
    size_t words = 0;
    uint32_t *spirv = compile(path, NULL, 0, &words);
    vkb_kernel_info k;
    char err[512] = "";
    ck_assert_int_eq(vkb_kernel_scan(spirv, words, NULL, &k, err, sizeof err), VKB_OK);
    ck_assert(k.subgroup_ops & VKB_SUBGROUP_CLUSTERED);
    free(spirv);
}
END_TEST

START_TEST(test_backend_scan_texel_buffers_have_kind_and_format)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/tests/backend/storage_texel.comp", root());
    isa_define defs[] = {{"FMT", "rgba32f"}, {"IMG", "imageBuffer"}, {"VEC", "vec4"}};
    size_t words = 0;
    uint32_t *spirv = compile(path, defs, 3, &words);
    vkb_kernel_info k;
    char err[512] = "";
    ck_assert_int_eq(vkb_kernel_scan(spirv, words, "main", &k, err, sizeof err), VKB_OK);
    ck_assert_int_eq(k.resource_count, 1);
    ck_assert_int_eq(k.resources[0].kind, CASE_KIND_STORAGE_TEXEL_BUFFER);
    ck_assert_str_eq(k.resources[0].format, "rgba32f");
    free(spirv);

    snprintf(path, sizeof path, "%s/tests/backend/uniform_texel.comp", root());
    isa_define defs2[] = {{"SAMPLER", "usamplerBuffer"}, {"OUT_T", "uint"}};
    spirv = compile(path, defs2, 2, &words);
    ck_assert_int_eq(vkb_kernel_scan(spirv, words, "main", &k, err, sizeof err), VKB_OK);
    ck_assert_int_eq(k.resource_count, 2);
    int texel = k.resources[0].kind == CASE_KIND_UNIFORM_TEXEL_BUFFER || k.resources[1].kind == CASE_KIND_UNIFORM_TEXEL_BUFFER;
    ck_assert(texel);
    free(spirv);
}
END_TEST

START_TEST(test_backend_scan_garbage_is_an_input_error)
{
    uint32_t junk[8] = {0x07230203, 0x10300, 0, 100, 0, 0xffff0011, 0, 0};
    vkb_kernel_info k;
    char err[256] = "";
    ck_assert_int_eq(vkb_kernel_scan(junk, 8, NULL, &k, err, sizeof err), VKB_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err, "word 5"));
    ck_assert_int_eq(vkb_kernel_scan(junk, 3, NULL, &k, err, sizeof err), VKB_ERR_INPUT);
}
END_TEST

/* ------------------------------------------------------------- device tests */

START_TEST(test_backend_devices_include_one_with_subgroup_size_8)
{
    int found = 0;
    for (int i = 0; i < vkb_device_count(ctx); i++) {
        vkb_device_info info;
        ck_assert_int_eq(vkb_device_info_get(ctx, i, &info), VKB_OK);
        ck_assert(info.name[0]);
        printf("device %d: %s, subgroup size %u (%u..%u), ops 0x%x\n", i, info.name, info.subgroup_size,
               info.min_subgroup_size, info.max_subgroup_size, info.subgroup_ops);
        if (info.subgroup_size == 8)
            found = 1;
    }
    if (!found) {
        printf("%s: skipped: no device with subgroup size 8 (lavapipe) on this machine\n", __func__);
        return;
    }
    vkb_device_info info;
    vkb_device_info_get(ctx, device, &info);
    ck_assert_uint_eq(info.subgroup_size, 8);
    ck_assert(info.subgroup_ops & VKB_SUBGROUP_BASIC);
    ck_assert_uint_gt(info.max_compute_shared_memory_size, 0);
}
END_TEST

START_TEST(test_backend_device_find_by_index_and_name)
{
    char err[1024] = "";
    int i = -1;
    ck_assert_int_eq(vkb_device_find(ctx, "0", &i, err, sizeof err), VKB_OK);
    ck_assert_int_eq(i, 0);
    ck_assert_int_eq(vkb_device_find(ctx, NULL, &i, err, sizeof err), VKB_OK);
    ck_assert_int_eq(i, 0);
    ck_assert_int_eq(vkb_device_find(ctx, "no such gpu anywhere", &i, err, sizeof err), VKB_ERR_NO_DEVICE);
    ck_assert_ptr_nonnull(strstr(err, "no such gpu anywhere"));
    ck_assert_int_eq(vkb_device_find(ctx, "999", &i, err, sizeof err), VKB_ERR_NO_DEVICE);
}
END_TEST

/* Storage buffers of every element type: b[i] = a[i] + i. */
static const struct {
    const char *glsl;
    case_type type;
} storage_types[] = {
    {"uint8_t", CASE_TYPE_U8},   {"int8_t", CASE_TYPE_I8},       {"uint16_t", CASE_TYPE_U16},
    {"int16_t", CASE_TYPE_I16},  {"uint", CASE_TYPE_U32},        {"int", CASE_TYPE_I32},
    {"uint64_t", CASE_TYPE_U64}, {"int64_t", CASE_TYPE_I64},     {"float16_t", CASE_TYPE_F16},
    {"float", CASE_TYPE_F32},    {"double", CASE_TYPE_F64},
};

START_TEST(test_backend_storage_buffer_each_type_adds_index)
{
    const size_t n = 32;
    case_type t = storage_types[_i].type;
    test_case tc;
    tc_init(&tc, "storage_type.comp", (uint32_t)(n / 8));
    case_binding *in = tc_bind(&tc, 0, 0, CASE_KIND_STORAGE_BUFFER, t, NULL, n);
    tc_bind(&tc, 0, 1, CASE_KIND_STORAGE_BUFFER, t, NULL, n);
    int is_float = t == CASE_TYPE_F16 || t == CASE_TYPE_F32 || t == CASE_TYPE_F64;
    size_t es = type_size(t);
    for (size_t i = 0; i < n; i++)
        put_element(t, in->bytes + i * es, is_float ? (double)i * 0.5 + 0.25 : (double)(i * 37 + 250));
    isa_define defs[] = {{"T", storage_types[_i].glsl}};
    vkb_run_output out;
    char err[1024] = "";
    vkb_status st = tc_run(&tc, defs, 1, NULL, &out, err, sizeof err);
    if (st == VKB_ERR_UNSUPPORTED) {
        printf("%s[%s]: skipped: %s\n", __func__, storage_types[_i].glsl, err);
        vkb_run_output_free(&out);
        tc_free(&tc);
        return;
    }
    ck_assert_msg(st == VKB_OK, "%s: %s", storage_types[_i].glsl, err);
    ck_assert_int_eq(out.binding_count, 2);
    for (size_t i = 0; i < n; i++) {
        uint8_t want[8] = {0};
        if (is_float)
            put_element(t, want, (double)i * 0.5 + 0.25 + (double)i);
        else {
            uint64_t v = (uint64_t)(i * 37 + 250) + i;
            memcpy(want, &v, es);
        }
        ck_assert_msg(memcmp(out.data[1] + i * es, want, es) == 0, "%s element %zu differs", storage_types[_i].glsl, i);
        ck_assert_msg(memcmp(out.data[0] + i * es, in->bytes + i * es, es) == 0, "input changed");
    }
    vkb_run_output_free(&out);
    tc_free(&tc);
}
END_TEST

START_TEST(test_backend_uniform_buffer_is_read_by_every_invocation)
{
    test_case tc;
    tc_init(&tc, "uniform_buffer.comp", 2);
    case_binding *u = tc_bind(&tc, 0, 0, CASE_KIND_UNIFORM_BUFFER, CASE_TYPE_U32, NULL, 16);
    tc_bind(&tc, 1, 3, CASE_KIND_STORAGE_BUFFER, CASE_TYPE_U32, NULL, 16);
    for (uint32_t i = 0; i < 16; i++)
        ((uint32_t *)u->bytes)[i] = 100 + i * i;
    vkb_run_output out;
    char err[1024] = "";
    ck_assert_msg(tc_run(&tc, NULL, 0, NULL, &out, err, sizeof err) == VKB_OK, "%s", err);
    for (uint32_t i = 0; i < 16; i++)
        ck_assert_uint_eq(((uint32_t *)out.data[1])[i], (100 + i * i) * 2 + 1);
    vkb_run_output_free(&out);
    tc_free(&tc);
}
END_TEST

/* Storage texel buffers of each format: every component + 1 in place. */
static const struct {
    const char *format, *image, *vec;
    case_type type;
    unsigned comps;
} storage_texel_formats[] = {
    {"r32ui", "uimageBuffer", "uvec4", CASE_TYPE_U32, 1},   {"r32i", "iimageBuffer", "ivec4", CASE_TYPE_I32, 1},
    {"r32f", "imageBuffer", "vec4", CASE_TYPE_F32, 1},      {"rg32ui", "uimageBuffer", "uvec4", CASE_TYPE_U32, 2},
    {"rg32i", "iimageBuffer", "ivec4", CASE_TYPE_I32, 2},   {"rg32f", "imageBuffer", "vec4", CASE_TYPE_F32, 2},
    {"rgba32ui", "uimageBuffer", "uvec4", CASE_TYPE_U32, 4}, {"rgba32i", "iimageBuffer", "ivec4", CASE_TYPE_I32, 4},
    {"rgba32f", "imageBuffer", "vec4", CASE_TYPE_F32, 4},   {"r16f", "imageBuffer", "vec4", CASE_TYPE_F16, 1},
    {"rgba16f", "imageBuffer", "vec4", CASE_TYPE_F16, 4},   {"r16ui", "uimageBuffer", "uvec4", CASE_TYPE_U16, 1},
    {"r8ui", "uimageBuffer", "uvec4", CASE_TYPE_U8, 1},     {"rgba8ui", "uimageBuffer", "uvec4", CASE_TYPE_U8, 4},
    {"rgba8", "imageBuffer", "vec4", CASE_TYPE_U8, 4},
};

START_TEST(test_backend_storage_texel_buffer_each_format_adds_one)
{
    const unsigned texels = 8;
    __typeof__(storage_texel_formats[0]) f = storage_texel_formats[_i];
    size_t n = (size_t)texels * f.comps, es = type_size(f.type);
    int unorm = strcmp(f.format, "rgba8") == 0;
    int is_float = f.type == CASE_TYPE_F16 || f.type == CASE_TYPE_F32;
    test_case tc;
    tc_init(&tc, "storage_texel.comp", texels / 4);
    case_binding *b = tc_bind(&tc, 0, 0, CASE_KIND_STORAGE_TEXEL_BUFFER, f.type, f.format, n);
    for (size_t i = 0; i < n; i++)
        put_element(f.type, b->bytes + i * es, is_float ? (double)i * 0.25 : (double)(i * 3 % 200));
    isa_define defs[] = {{"FMT", f.format}, {"IMG", f.image}, {"VEC", f.vec}};
    vkb_run_output out;
    char err[1024] = "";
    vkb_status st = tc_run(&tc, defs, 3, NULL, &out, err, sizeof err);
    if (st == VKB_ERR_UNSUPPORTED) {
        printf("%s[%s]: skipped: %s\n", __func__, f.format, err);
    } else {
        ck_assert_msg(st == VKB_OK, "%s: %s", f.format, err);
        for (size_t i = 0; i < n; i++) {
            uint8_t want[8] = {0};
            if (unorm)
                want[0] = 255; /* x/255 + 1.0 saturates to 1.0 */
            else
                put_element(f.type, want, is_float ? (double)i * 0.25 + 1.0 : (double)(i * 3 % 200 + 1));
            ck_assert_msg(memcmp(out.data[0] + i * es, want, es) == 0, "%s component %zu differs", f.format, i);
        }
    }
    vkb_run_output_free(&out);
    tc_free(&tc);
}
END_TEST

/* Uniform texel buffers of several formats: o[i] = texel(i).x * 5 + i. */
static const struct {
    const char *format, *sampler, *out_glsl;
    case_type type, out_type;
    unsigned comps;
} uniform_texel_formats[] = {
    {"r32ui", "usamplerBuffer", "uint", CASE_TYPE_U32, CASE_TYPE_U32, 1},
    {"r32i", "isamplerBuffer", "int", CASE_TYPE_I32, CASE_TYPE_I32, 1},
    {"r32f", "samplerBuffer", "float", CASE_TYPE_F32, CASE_TYPE_F32, 1},
    {"rgba32f", "samplerBuffer", "float", CASE_TYPE_F32, CASE_TYPE_F32, 4},
    {"rgba32ui", "usamplerBuffer", "uint", CASE_TYPE_U32, CASE_TYPE_U32, 4},
    {"r16f", "samplerBuffer", "float", CASE_TYPE_F16, CASE_TYPE_F32, 1},
    {"rgba8ui", "usamplerBuffer", "uint", CASE_TYPE_U8, CASE_TYPE_U32, 4},
    {"rgba8", "samplerBuffer", "float", CASE_TYPE_U8, CASE_TYPE_F32, 4},
};

START_TEST(test_backend_uniform_texel_buffer_each_format_is_fetched)
{
    const unsigned texels = 8;
    __typeof__(uniform_texel_formats[0]) f = uniform_texel_formats[_i];
    size_t n = (size_t)texels * f.comps, es = type_size(f.type);
    int is_float = f.type == CASE_TYPE_F16 || f.type == CASE_TYPE_F32;
    test_case tc;
    tc_init(&tc, "uniform_texel.comp", texels / 4);
    case_binding *src = tc_bind(&tc, 0, 0, CASE_KIND_UNIFORM_TEXEL_BUFFER, f.type, f.format, n);
    tc_bind(&tc, 0, 1, CASE_KIND_STORAGE_BUFFER, f.out_type, NULL, texels);
    for (size_t i = 0; i < n; i++)
        put_element(f.type, src->bytes + i * es, is_float ? (double)i * 0.5 : (double)(i * 51 % 256));
    isa_define defs[] = {{"SAMPLER", f.sampler}, {"OUT_T", f.out_glsl}};
    vkb_run_output out;
    char err[1024] = "";
    vkb_status st = tc_run(&tc, defs, 2, NULL, &out, err, sizeof err);
    if (st == VKB_ERR_UNSUPPORTED) {
        printf("%s[%s]: skipped: %s\n", __func__, f.format, err);
    } else {
        ck_assert_msg(st == VKB_OK, "%s: %s", f.format, err);
        for (size_t t = 0; t < texels; t++) {
            size_t first = t * f.comps; /* component x of texel t */
            if (f.out_type == CASE_TYPE_F32) {
                double x;
                if (f.type == CASE_TYPE_U8)
                    x = (double)(first * 51 % 256) / 255.0;
                else
                    x = (double)first * 0.5;
                float got;
                memcpy(&got, out.data[1] + t * 4, 4);
                ck_assert_msg(fabs(got - (x * 5 + (double)t)) < 1e-5, "%s texel %zu: %g", f.format, t, got);
            } else {
                uint32_t got;
                memcpy(&got, out.data[1] + t * 4, 4);
                ck_assert_uint_eq(got, (uint32_t)(first * 51 % 256) * 5 + (uint32_t)t);
            }
        }
    }
    vkb_run_output_free(&out);
    tc_free(&tc);
}
END_TEST

START_TEST(test_backend_push_constants_reach_the_kernel)
{
    test_case tc;
    tc_init(&tc, "push_constants.comp", 2);
    tc_bind(&tc, 0, 0, CASE_KIND_STORAGE_BUFFER, CASE_TYPE_U32, NULL, 16);
    uint32_t push[2] = {7, 1000};
    tc.c.push_constants = (uint8_t *)push;
    tc.c.push_size = sizeof push;
    vkb_run_output out;
    char err[1024] = "";
    ck_assert_msg(tc_run(&tc, NULL, 0, NULL, &out, err, sizeof err) == VKB_OK, "%s", err);
    for (uint32_t i = 0; i < 16; i++)
        ck_assert_uint_eq(((uint32_t *)out.data[0])[i], i * 7 + 1000);
    vkb_run_output_free(&out);
    tc_free(&tc);
}
END_TEST

START_TEST(test_backend_subgroup_kernel_runs_at_the_device_wave)
{
    uint32_t wave = device_wave();
    test_case tc;
    tc_init(&tc, "subgroup.comp", 2);
    tc_bind(&tc, 0, 0, CASE_KIND_STORAGE_BUFFER, CASE_TYPE_U32, NULL, 32);
    vkb_run_options opt = {.wave_size = wave};
    vkb_run_output out;
    char err[1024] = "";
    ck_assert_msg(tc_run(&tc, NULL, 0, &opt, &out, err, sizeof err) == VKB_OK, "%s", err);
    ck_assert_uint_eq(out.wave_size, wave);
    uint32_t lane_sum = wave * (wave - 1) / 2;
    for (uint32_t i = 0; i < 32; i++)
        ck_assert_uint_eq(((uint32_t *)out.data[0])[i], wave * 1000 + lane_sum);
    vkb_run_output_free(&out);
    tc_free(&tc);
}
END_TEST

START_TEST(test_backend_unsupported_wave_size_names_the_supported_sizes)
{
    vkb_device_info info;
    vkb_device_info_get(ctx, device, &info);
    uint32_t bad = info.max_subgroup_size * 2; /* always outside min..max */
    test_case tc;
    tc_init(&tc, "subgroup.comp", 2);
    tc_bind(&tc, 0, 0, CASE_KIND_STORAGE_BUFFER, CASE_TYPE_U32, NULL, 32);
    vkb_run_options opt = {.wave_size = bad};
    vkb_run_output out;
    char err[1024] = "", want[64];
    ck_assert_int_eq(tc_run(&tc, NULL, 0, &opt, &out, err, sizeof err), VKB_ERR_WAVE_SIZE);
    printf("%s: %s\n", __func__, err);
    snprintf(want, sizeof want, "wave size %u", bad);
    ck_assert_ptr_nonnull(strstr(err, want));
    if (info.subgroup_size_control)
        snprintf(want, sizeof want, "%u..%u", info.min_subgroup_size, info.max_subgroup_size);
    else
        snprintf(want, sizeof want, "only subgroup size %u", info.subgroup_size);
    ck_assert_ptr_nonnull(strstr(err, want));
    vkb_run_output_free(&out);
    tc_free(&tc);
}
END_TEST

START_TEST(test_backend_clustered_ops_on_a_device_without_them_are_unsupported)
{
    vkb_device_info info;
    vkb_device_info_get(ctx, device, &info);
    test_case tc;
    tc_init(&tc, "clustered.comp", 1);
    tc_bind(&tc, 0, 0, CASE_KIND_STORAGE_BUFFER, CASE_TYPE_U32, NULL, 8);
    vkb_run_output out;
    char err[1024] = "";
    vkb_status st = tc_run(&tc, NULL, 0, NULL, &out, err, sizeof err);
    if (info.subgroup_ops & VKB_SUBGROUP_CLUSTERED) {
        ck_assert_msg(st == VKB_OK, "%s", err);
        printf("%s: the device supports clustered operations; ran instead\n", __func__);
    } else {
        ck_assert_int_eq(st, VKB_ERR_UNSUPPORTED);
        ck_assert_ptr_nonnull(strstr(err, "clustered"));
        printf("%s: %s\n", __func__, err);
    }
    vkb_run_output_free(&out);
    tc_free(&tc);
}
END_TEST

START_TEST(test_backend_missing_binding_is_an_input_error)
{
    test_case tc;
    tc_init(&tc, "storage_type.comp", 1);
    tc_bind(&tc, 0, 1, CASE_KIND_STORAGE_BUFFER, CASE_TYPE_U32, NULL, 8); /* binding 0 missing */
    isa_define defs[] = {{"T", "uint"}};
    vkb_run_output out;
    char err[1024] = "";
    ck_assert_int_eq(tc_run(&tc, defs, 1, NULL, &out, err, sizeof err), VKB_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err, "set 0 binding 0"));
    vkb_run_output_free(&out);

    /* and a kind mismatch: the kernel's storage buffer given as a uniform buffer */
    tc_free(&tc);
    tc_init(&tc, "storage_type.comp", 1);
    tc_bind(&tc, 0, 0, CASE_KIND_UNIFORM_BUFFER, CASE_TYPE_U32, NULL, 8);
    tc_bind(&tc, 0, 1, CASE_KIND_STORAGE_BUFFER, CASE_TYPE_U32, NULL, 8);
    ck_assert_int_eq(tc_run(&tc, defs, 1, NULL, &out, err, sizeof err), VKB_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err, "uniform_buffer"));
    vkb_run_output_free(&out);
    tc_free(&tc);
}
END_TEST

START_TEST(test_backend_repeats_reupload_inputs_and_time_each_dispatch)
{
    test_case tc;
    tc_init(&tc, "inplace.comp", 4);
    case_binding *b = tc_bind(&tc, 0, 0, CASE_KIND_STORAGE_BUFFER, CASE_TYPE_U32, NULL, 32);
    for (uint32_t i = 0; i < 32; i++)
        ((uint32_t *)b->bytes)[i] = i * 10;
    vkb_run_options opt = {.repeat = 5, .warmup = 2};
    vkb_run_output out;
    char err[1024] = "";
    ck_assert_msg(tc_run(&tc, NULL, 0, &opt, &out, err, sizeof err) == VKB_OK, "%s", err);
    for (uint32_t i = 0; i < 32; i++)
        ck_assert_uint_eq(((uint32_t *)out.data[0])[i], i * 10 + 1);
    ck_assert_uint_eq(out.sample_count, 5);
    if (out.timing_available) {
        ck_assert(out.min_us <= out.median_us && out.median_us <= out.max_us);
        ck_assert(out.min_us >= 0);
    } else {
        ck_assert_ptr_nonnull(strstr(out.timing_note, "not available"));
    }
    ck_assert(out.stat_count > 0 || strstr(out.stats_note, "not available"));
    ck_assert(out.counters_note[0]);
    printf("%s: median %.2f us (min %.2f, max %.2f); statistics: %s; memory: %s\n", __func__, out.median_us,
           out.min_us, out.max_us, out.stat_count ? "yes" : out.stats_note, out.memory_note);
    vkb_run_output_free(&out);
    tc_free(&tc);
}
END_TEST

/* ------------------------------------------------------------- the `wavelab check` command */

static int run_command(const char *command, char *output, size_t size)
{
    FILE *p = popen(command, "r");
    ck_assert_ptr_nonnull(p);
    size_t len = 0;
    output[0] = 0;
    char chunk[512];
    while (fgets(chunk, sizeof chunk, p)) {
        size_t n = strlen(chunk);
        if (len + n + 1 < size) {
            memcpy(output + len, chunk, n + 1);
            len += n;
        }
    }
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static const char *binary(void)
{
    return tsup_bin();
}

START_TEST(test_backend_check_command_exit_codes)
{
    static const struct {
        const char *file;
        int wave; /* 0: the device's own wave size, else this one */
        int exit_code;
    } rows[] = {
        {"agree.json", 0, 0},
        {"agree_wrong_expect.json", 0, 1}, /* both sides agree on a value the expectation rejects */
        {"kinds.json", 0, 0},
        {"clustered.json", 0, 3},
        {"agree.json", 128, 3},   /* a wave size the simulator runs and no device we test on has */
        {"agree.json", 1024, 2},  /* not a wave size at all: --wave refuses it before any device opens */
        {"does-not-exist.json", 0, 2},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char cmd[2048], output[16384];
        snprintf(cmd, sizeof cmd, "'%s' check '%s/tests/backend/cases/%s' --device %d --wave %u 2>&1", binary(), root(),
                 rows[i].file, device, rows[i].wave ? (uint32_t)rows[i].wave : device_wave());
        int code = run_command(cmd, output, sizeof output);
        printf("$ %s -> %d\n%s", cmd, code, output);
        int want = rows[i].exit_code;
        vkb_device_info info;
        vkb_device_info_get(ctx, device, &info);
        if (!strcmp(rows[i].file, "clustered.json") && (info.subgroup_ops & VKB_SUBGROUP_CLUSTERED))
            want = 0; /* a device with clustered operations runs it */
        ck_assert_msg(code == want, "%s: exit %d, expected %d:\n%s", cmd, code, want, output);
        if (code == 3)
            ck_assert_msg(strstr(output, "SKIP: "), "a skip must say why:\n%s", output);
        if (!strcmp(rows[i].file, "agree_wrong_expect.json"))
            ck_assert_msg(strstr(output, "AGREE: ") && strstr(output, "FAIL: both sides agree, but the case's "
                                                                       "expectations fail (simulator 1, device 1 of 1)"),
                          "%s", output);
    }
}
END_TEST

/* A driver that crashes running the case (the test hook WAVELAB_TEST_DEVICE_CRASH raises SIGSEGV in check's device
 * process right after it opens the device, or after it settled the wave size): exit 3 with one line naming the
 * signal, case and device, and the simulator's own verdict still printed.  agree_wrong_expect.json's expectation
 * (element 0 == 7) cannot hold (element 0 is at least 4000), so the simulator fails its one expectation. */
START_TEST(test_backend_check_survives_a_device_crash)
{
    /* _i 0: at the device's opening, before the simulator starts; 1: after the device settled the wave size, while
     * the simulator runs beside its dispatch */
    static const char *const when[] = {"1", "dispatch"};
    char cmd[2048], output[16384];
    snprintf(cmd, sizeof cmd,
             "WAVELAB_TEST_DEVICE_CRASH=%s '%s' check '%s/tests/backend/cases/agree_wrong_expect.json' --device %d "
             "--wave %u 2>&1", when[_i], binary(), root(), device, device_wave());
    int code = run_command(cmd, output, sizeof output);
    printf("$ %s -> %d\n%s", cmd, code, output);
    ck_assert_msg(code == 3, "exit %d, expected 3:\n%s", code, output);
    vkb_device_info info;
    vkb_device_info_get(ctx, device, &info);
    char want[512];
    snprintf(want, sizeof want, "SKIP: the device crashed (signal 11: SIGSEGV) running %s/tests/backend/cases/"
             "agree_wrong_expect.json on %s\n", root(), info.name);
    ck_assert_msg(strstr(output, want), "no \"%s\" in:\n%s", want, output);
    ck_assert_msg(strstr(output, "expectations simulator 1 failed (of 1)"), "%s", output);
    ck_assert_msg(strstr(output, "FAIL  expect set 0 binding 0"), "%s", output);
}
END_TEST

/* A kernel declaring OpExtension "SPV_KHR_subgroup_uniform_control_flow" (written by hand, assembled here with
 * spirv-as; each invocation stores 7): a device without VK_KHR_shader_subgroup_uniform_control_flow (lavapipe 22.3)
 * is a skip naming the extension, found before any pipeline is created; a device with it runs the case and agrees. */
START_TEST(test_backend_check_names_a_missing_device_extension)
{
    static const char spvasm[] =
        "OpCapability Shader\n"
        "OpExtension \"SPV_KHR_subgroup_uniform_control_flow\"\n"
        "OpMemoryModel Logical GLSL450\n"
        "OpEntryPoint GLCompute %main \"main\" %gid\n"
        "OpExecutionMode %main LocalSize 32 1 1\n"
        "OpDecorate %gid BuiltIn GlobalInvocationId\n"
        "OpDecorate %rta ArrayStride 4\n"
        "OpMemberDecorate %B 0 Offset 0\n"
        "OpDecorate %B Block\n"
        "OpDecorate %buf DescriptorSet 0\n"
        "OpDecorate %buf Binding 0\n"
        "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%int = OpTypeInt 32 1\n"
        "%v3uint = OpTypeVector %uint 3\n%p_in = OpTypePointer Input %v3uint\n%gid = OpVariable %p_in Input\n"
        "%rta = OpTypeRuntimeArray %uint\n%B = OpTypeStruct %rta\n%p_B = OpTypePointer StorageBuffer %B\n"
        "%buf = OpVariable %p_B StorageBuffer\n%p_uint = OpTypePointer StorageBuffer %uint\n"
        "%uint_7 = OpConstant %uint 7\n%int_0 = OpConstant %int 0\n"
        "%main = OpFunction %void None %fn\n%entry = OpLabel\n%id = OpLoad %v3uint %gid\n"
        "%x = OpCompositeExtract %uint %id 0\n%ptr = OpAccessChain %p_uint %buf %int_0 %x\n"
        "OpStore %ptr %uint_7\nOpReturn\nOpFunctionEnd\n";
    static const char json[] =
        "{\"kernel\": \"k.spv\", \"groups\": [1, 1, 1], \"bindings\": [{\"set\": 0, \"binding\": 0, "
        "\"type\": \"u32\", \"count\": 32, \"fill\": {\"value\": 0}}]}\n";
    char *dir = tsup_temp_dir();
    free(tsup_write_file(dir, "k.spvasm", spvasm));
    char *case_path = tsup_write_file(dir, "k.json", json);
    char cmd[2048], output[16384];
    snprintf(cmd, sizeof cmd, "spirv-as --target-env vulkan1.1 '%s/k.spvasm' -o '%s/k.spv' 2>&1", dir, dir);
    int code = run_command(cmd, output, sizeof output);
    ck_assert_msg(code == 0, "%s -> %d:\n%s", cmd, code, output);
    snprintf(cmd, sizeof cmd, "'%s' check '%s' --device %d 2>&1", binary(), case_path, device);
    code = run_command(cmd, output, sizeof output);
    printf("$ %s -> %d\n%s", cmd, code, output);
    vkb_device_info info;
    vkb_device_info_get(ctx, device, &info);
    if (vkb_internal_has_extension(ctx, device, "VK_KHR_shader_subgroup_uniform_control_flow")) {
        ck_assert_msg(code == 0 && strstr(output, "AGREE: "), "exit %d:\n%s", code, output);
    } else {
        char want[512];
        snprintf(want, sizeof want, "SKIP: the kernel's SPV_KHR_subgroup_uniform_control_flow needs "
                 "VK_KHR_shader_subgroup_uniform_control_flow, which %s does not offer\n", info.name);
        ck_assert_msg(code == 3 && strstr(output, want), "exit %d, expected 3 and \"%s\":\n%s", code, want, output);
    }
    free(case_path);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* A case whose expectations hold only from a wave size above the device's own: `check` without --wave skips
 * (exit 3) and names both; with that --wave it is bad input (exit 2) before any device is opened. */
START_TEST(test_backend_check_skips_a_device_wave_size_the_case_excludes)
{
    uint32_t wave = device_wave();
    ck_assert_uint_lt(wave, 128);
    char cmd[2048], output[16384], want[256];
    snprintf(cmd, sizeof cmd, "'%s' check '%s/tests/backend/cases/agree_from_wave_128.json' --device %d 2>&1",
             binary(), root(), device);
    int code = run_command(cmd, output, sizeof output);
    printf("$ %s -> %d\n%s", cmd, code, output);
    ck_assert_int_eq(code, 3);
    snprintf(want, sizeof want, "SKIP: the device's wave size %u: the expectations hold from wave 128 "
             "(min_subgroup_size)", wave);
    ck_assert_msg(strstr(output, want), "expected \"%s\" in:\n%s", want, output);
    snprintf(cmd, sizeof cmd, "'%s' check '%s/tests/backend/cases/agree_from_wave_128.json' --device %d --wave %u 2>&1",
             binary(), root(), device, wave);
    code = run_command(cmd, output, sizeof output);
    ck_assert_int_eq(code, 2);
    snprintf(want, sizeof want, "--wave %u: the expectations hold from wave 128 (min_subgroup_size)", wave);
    ck_assert_msg(strstr(output, want), "expected \"%s\" in:\n%s", want, output);
}
END_TEST

/* A 1024-invocation workgroup with a subgroup operation at the device's wave size: on a device of one subgroup
 * size (lavapipe's 8) check does not require that size, which would cap the workgroup at
 * maxComputeWorkgroupSubgroups (32 there); both sides agree, and the expectation (3 i) holds. */
START_TEST(test_backend_check_runs_a_1024_workgroup_at_the_only_subgroup_size)
{
    vkb_device_info info;
    ck_assert_int_eq(vkb_device_info_get(ctx, device, &info), VKB_OK);
    const int only_size = info.min_subgroup_size == info.max_subgroup_size;
    if (!only_size && info.max_compute_workgroup_subgroups * info.subgroup_size < 1024) {
        printf("%s: skipped: the device has several subgroup sizes and runs at most %u subgroups of %u\n", __func__,
               info.max_compute_workgroup_subgroups, info.subgroup_size);
        return;
    }
    char cmd[2048], output[16384];
    snprintf(cmd, sizeof cmd, "'%s' check '%s/tests/backend/cases/workgroup_1024.json' --device %d --wave %u 2>&1",
             binary(), root(), device, info.subgroup_size);
    int code = run_command(cmd, output, sizeof output);
    printf("$ %s -> %d\n%s", cmd, code, output);
    ck_assert_int_eq(code, 0);
    ck_assert_msg(strstr(output, "AGREE: all 2 bindings match"), "%s", output);
    if (only_size)
        ck_assert_msg(strstr(output, ", its only subgroup size"), "%s", output);
}
END_TEST

START_TEST(test_backend_run_vulkan_dump_has_every_binding)
{
    char dump[] = "/tmp/wavelab-test-backend-XXXXXX";
    int fd = mkstemp(dump);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char cmd[2048], output[16384];
    snprintf(cmd, sizeof cmd,
             "'%s' run '%s/tests/backend/cases/kinds.json' --backend vulkan --device %d --wave %u --repeat 3 "
             "--dump '%s' 2>&1",
             binary(), root(), device, device_wave(), dump);
    int code = run_command(cmd, output, sizeof output);
    printf("$ %s -> %d\n%s", cmd, code, output);
    ck_assert_msg(code == 0, "exit %d:\n%s", code, output);
    ck_assert_ptr_nonnull(strstr(output, "device time"));
    FILE *f = fopen(dump, "r");
    ck_assert_ptr_nonnull(f);
    static char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    unlink(dump);
    ck_assert_ptr_nonnull(strstr(text, "\"backend\": \"vulkan\""));
    ck_assert_ptr_nonnull(strstr(text, "{\"set\": 1, \"binding\": 2, \"type\": \"f32\", \"data\": [101, 101.5, 102,"));
    ck_assert_ptr_nonnull(strstr(text, "{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"data\": [10, 20, 30, 40]}"));
    /* rgba32ui texel i = (i*3+100, v[i%4], lane, workgroup): texel 9 is (127, 20, 1, 1) */
    ck_assert_ptr_nonnull(strstr(text, "127, 20, 1, 1"));
    ck_assert_ptr_nonnull(strstr(text, "\"timing\""));
}
END_TEST

#if defined(__SANITIZE_ADDRESS__)
/* Appends every key path below o to keys (with the value of each "kind" and "format"), outside a binding's
 * contents and the expectations. */
static void feature_walk(const cJSON *o, const char *path, char ***keys, size_t *n, size_t *cap)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, o)
    {
        const char *name = item->string;
        if (name && (!strcmp(name, "data") || !strcmp(name, "fill") || !strcmp(name, "expect")))
            continue;
        char here[512];
        snprintf(here, sizeof here, "%s/%s", path, name ? name : "[]");
        if (name && cJSON_IsString(item) && (!strcmp(name, "kind") || !strcmp(name, "format")))
            snprintf(here + strlen(here), sizeof here - strlen(here), "=%s", item->valuestring);
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            *keys = realloc(*keys, *cap * sizeof **keys);
            ck_assert_ptr_nonnull(*keys);
        }
        (*keys)[(*n)++] = strdup(here);
        feature_walk(item, here, keys, n, cap);
    }
}

/* A case file's features as the device side meets them: the sorted, distinct key paths it uses outside its
 * bindings' contents ("data", "fill") and its expectations, with each binding's kind and format.  Two cases
 * with the same features take the same way through wavelab's side of `check` (descriptors, uploads, passes,
 * specialization, push constants, readback) and differ in their data and kernel, which the sanitized
 * `wavelab test kernels` leg runs for every case.  Returns a malloc'd string. */
static char *case_features(const char *path)
{
    size_t len = 0;
    char *text = tsup_read_file(path, &len); /* a Check failure when it cannot be read */
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    ck_assert_msg(root != NULL, "%s: not JSON", path);
    char **keys = NULL;
    size_t n = 0, cap = 0, total = 1;
    feature_walk(root, "", &keys, &n, &cap);
    cJSON_Delete(root);
    qsort(keys, n, sizeof *keys, tsup_compare_strings);
    for (size_t i = 0; i < n; i++)
        total += strlen(keys[i]) + 1;
    char *joined = calloc(1, total), *at = joined;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(keys[i], keys[i - 1]))
            at += sprintf(at, "%s;", keys[i]);
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    return joined;
}
#endif

START_TEST(test_backend_every_kernel_case_agrees_with_the_simulator_at_wave_8)
{
    if (device_wave() != 8) {
        printf("%s: skipped: the chosen device (%d) does not run wave 8; lavapipe does\n", __func__, device);
        return;
    }
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/kernels", root());
    size_t count = 0;
    char **cases = tsup_list_files(dir, ".json", &count);
    int n = (int)count;
    int agreed = 0, skipped = 0, failed = 0;
    static char output[65536];
    static char failures[65536];
    failures[0] = 0;
#if defined(__SANITIZE_ADDRESS__)
    struct {
        char *features;
        const char *rel;
    } *seen = calloc(count + 1, sizeof *seen);
    int seen_count = 0;
#endif
    for (int i = 0; i < n; i++) {
        char cmd[2300];
#if defined(__SANITIZE_ADDRESS__)
        /* the model studies (no "expect": the 1440p gathers, kernels/generalize) run at their real size and
         * take minutes under the sanitizers; the optimised build of the same suite cross-checks them */
        if (!run_case_file_has_expect(cases[i])) {
            skipped++;
            printf("skip   %s: a model study at its real size, too slow under AddressSanitizer (checked by the -O2 build)\n",
                   cases[i] + strlen(root()) + 1);
            continue;
        }
#endif
        const char *rel = cases[i] + strlen(root()) + 1;
#if defined(__SANITIZE_ADDRESS__)
        /* one case per set of features under the sanitizers (a check there takes ~1 s, mostly the instrumented
         * process, compiler and driver starting): the optimised build checks every case */
        char *features = case_features(cases[i]);
        int first = -1;
        for (int k = 0; k < seen_count && first < 0; k++)
            if (!strcmp(seen[k].features, features))
                first = k;
        if (first >= 0) {
            free(features);
            skipped++;
            printf("skip   %s: the case-file features of %s, checked here (the -O2 build checks this one)\n", rel,
                   seen[first].rel);
            continue;
        }
        seen[seen_count].features = features;
        seen[seen_count++].rel = rel;
#endif
        snprintf(cmd, sizeof cmd, "'%s' check '%s' --wave 8 --device %d 2>&1", binary(), cases[i], device);
        int code = run_command(cmd, output, sizeof output);
        if (code == 0) {
            agreed++;
            printf("agree  %s\n", rel);
        } else if (code == 3) {
            skipped++;
            const char *reason = strstr(output, "SKIP: ");
            char line[512];
            snprintf(line, sizeof line, "%.500s", reason ? reason + 6 : output);
            line[strcspn(line, "\n")] = 0;
            printf("skip   %s: %s\n", rel, line);
        } else {
            failed++;
            printf("FAIL   %s (exit %d)\n%s\n", rel, code, output);
            size_t len = strlen(failures);
            snprintf(failures + len, sizeof failures - len, "%s (exit %d)\n", rel, code);
        }
    }
    printf("%s: %d cases: %d agree, %d skipped, %d failed\n", __func__, n, agreed, skipped, failed);
#if defined(__SANITIZE_ADDRESS__)
    for (int k = 0; k < seen_count; k++)
        free(seen[k].features);
    free(seen);
#endif
    ck_assert_msg(agreed > 0, "no case of %s agreed", dir);
    tsup_free_list(cases, count);
    ck_assert_msg(failed == 0, "cases that differ or fail:\n%s", failures);
}
END_TEST


START_TEST(test_backend_check_recorded_difference_that_does_not_show_is_exit_1)
{
    vkb_device_info info;
    vkb_device_info_get(ctx, device, &info);
    /* the template names no device: write this device's name in, beside the template (its kernel path is relative) */
    char template_path[1024], path[1100], cmd[2400], output[16384];
    snprintf(template_path, sizeof template_path, "%s/tests/backend/cases/agree_recorded_different.json", root());
    snprintf(path, sizeof path, "%s/tests/backend/cases/.recorded_%d.json", root(), (int)getpid());
    FILE *in = fopen(template_path, "r"), *out = fopen(path, "w");
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        char *at = strstr(line, "DEVICE_NAME");
        if (at) {
            *at = 0;
            fprintf(out, "%s%s%s", line, info.name, at + strlen("DEVICE_NAME"));
        } else {
            fputs(line, out);
        }
    }
    fclose(in);
    fclose(out);
    snprintf(cmd, sizeof cmd, "'%s' check '%s' --device %d --wave %u 2>&1", binary(), path, device, device_wave());
    int code = run_command(cmd, output, sizeof output);
    remove(path);
    printf("$ %s -> %d\n%s", cmd, code, output);
    ck_assert_int_eq(code, 1);
    ck_assert_ptr_nonnull(strstr(output, "DIFFER FROM RECORD"));
    ck_assert_ptr_nonnull(strstr(output, "a test of the record"));
}
END_TEST

/* ------------------------------------------------------------- maximal reconvergence */

/* The instructions of a module as (offset, opcode, length), walked independently of backend/reconverge.c. */
static int walk(const uint32_t *w, size_t n, size_t *at, uint32_t *op, int max)
{
    int k = 0;
    for (size_t i = 5; i < n && k < max; i += w[i] >> 16, k++) {
        at[k] = i;
        op[k] = w[i] & 0xffff;
    }
    return k;
}

START_TEST(test_backend_maximal_reconvergence_adds_extension_and_mode_once)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/backend/subgroup.comp", root());
    size_t n = 0, m = 0, m2 = 0;
    uint32_t *in = compile(path, NULL, 0, &n);
    uint32_t *out = NULL, *again = NULL;
    char err[256] = "";
    ck_assert_int_eq(vkb_spirv_add_maximal_reconvergence(in, n, "main", &out, &m, err, sizeof err), VKB_OK);
    /* "SPV_KHR_maximal_reconvergence" is 29 bytes + NUL = 8 words, + the opcode word; the mode is 3 words */
    ck_assert_uint_eq(m, n + 9 + 3);
    static size_t at[4096];
    static uint32_t op[4096];
    int k = walk(out, m, at, op, 4096);
    int ext = -1, mode = -1, last_ext = -1, first_import = -1, last_mode = -1;
    uint32_t entry_id = 0;
    for (int i = 0; i < k; i++) {
        const uint32_t *w = out + at[i];
        if (op[i] == 10) {
            last_ext = i;
            if (!strcmp((const char *)(w + 1), "SPV_KHR_maximal_reconvergence"))
                ext = i;
        }
        if (op[i] == 11 && first_import < 0)
            first_import = i;
        if (op[i] == 15)
            entry_id = w[2];
        if (op[i] == 16) {
            last_mode = i;
            if (w[2] == 6023)
                mode = i;
        }
    }
    ck_assert_int_ge(ext, 0);
    ck_assert_int_eq(ext, last_ext);                 /* after the other extensions ... */
    ck_assert_int_lt(ext, first_import);             /* ... before the imports */
    ck_assert_int_eq(mode, last_mode);               /* the last execution mode ... */
    ck_assert_uint_eq(out[at[mode] + 1], entry_id);  /* ... of the entry point ... */
    ck_assert_uint_eq(out[at[mode]] >> 16, 3);
    for (int i = mode + 1; i < k; i++)               /* ... and the section of modes ends there */
        ck_assert(op[i] != 10 && op[i] != 11 && op[i] != 14 && op[i] != 15 && op[i] != 16 && op[i] != 331);
    /* everything else is the input, in order */
    size_t j = 0;
    for (size_t i = 0; i < m; i++) {
        if (i == at[ext]) { i += 8; continue; }
        if (i == at[mode]) { i += 2; continue; }
        ck_assert_uint_eq(out[i], in[j]);
        j++;
    }
    ck_assert_uint_eq(j, n);
    /* a second time changes nothing */
    ck_assert_int_eq(vkb_spirv_add_maximal_reconvergence(out, m, "main", &again, &m2, err, sizeof err), VKB_OK);
    ck_assert_uint_eq(m2, m);
    ck_assert_int_eq(memcmp(again, out, m * 4), 0);
    free(again);
    free(out);
    free(in);
}
END_TEST

START_TEST(test_backend_maximal_reconvergence_bad_module_or_entry_is_an_input_error)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/backend/subgroup.comp", root());
    size_t n = 0, m = 0;
    uint32_t *in = compile(path, NULL, 0, &n);
    uint32_t *out = NULL;
    char err[256] = "";
    ck_assert_int_eq(vkb_spirv_add_maximal_reconvergence(in, n, "CSMain", &out, &m, err, sizeof err),
                     VKB_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err, "\"CSMain\""));
    ck_assert_ptr_null(out);
    in[5] = 0xffff0011u; /* the first instruction claims to run far past the end */
    ck_assert_int_eq(vkb_spirv_add_maximal_reconvergence(in, n, "main", &out, &m, err, sizeof err), VKB_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err, "word 5"));
    in[0] = 0;
    ck_assert_int_eq(vkb_spirv_add_maximal_reconvergence(in, n, "main", &out, &m, err, sizeof err), VKB_ERR_INPUT);
    free(in);
}
END_TEST

START_TEST(test_backend_maximal_reconvergence_runs_or_names_the_missing_feature)
{
    uint32_t wave = device_wave();
    test_case tc;
    tc_init(&tc, "subgroup.comp", 2);
    tc_bind(&tc, 0, 0, CASE_KIND_STORAGE_BUFFER, CASE_TYPE_U32, NULL, 32);
    vkb_run_options opt = {.wave_size = wave, .maximal_reconvergence = 1};
    vkb_run_output out;
    memset(&out, 0, sizeof out);
    char err[1024] = "";
    vkb_status st = tc_run(&tc, NULL, 0, &opt, &out, err, sizeof err);
    if (st == VKB_OK) {
        uint32_t lane_sum = wave * (wave - 1) / 2;
        for (uint32_t i = 0; i < 32; i++)
            ck_assert_uint_eq(((uint32_t *)out.data[0])[i], wave * 1000 + lane_sum);
        printf("%s: the device supports maximal reconvergence; ran\n", __func__);
    } else {
        ck_assert_int_eq(st, VKB_ERR_UNSUPPORTED);
        ck_assert_ptr_nonnull(strstr(err, "shaderMaximalReconvergence"));
        printf("%s: %s\n", __func__, err);
    }
    vkb_run_output_free(&out);
    tc_free(&tc);
}
END_TEST

static Suite *backend_suite(void)
{
    Suite *s = suite_create("backend");
    TCase *scan = tcase_create("scan");
    tcase_add_test(scan, test_backend_status_names_are_distinct);
    tcase_add_test(scan, test_backend_scan_reads_size_resources_and_push_bytes);
    tcase_add_test(scan, test_backend_scan_clustered_kernel_needs_clustered_ops);
    tcase_add_test(scan, test_backend_scan_texel_buffers_have_kind_and_format);
    tcase_add_test(scan, test_backend_scan_garbage_is_an_input_error);
    tcase_add_test(scan, test_backend_maximal_reconvergence_adds_extension_and_mode_once);
    tcase_add_test(scan, test_backend_maximal_reconvergence_bad_module_or_entry_is_an_input_error);
    suite_add_tcase(s, scan);

    TCase *dev = tsup_device_tcase("device");
    tcase_set_timeout(dev, 1800); /* every kernel case through `check`, one after another: minutes on a loaded machine */
    tcase_add_checked_fixture(dev, device_setup, device_teardown);
    tcase_add_test(dev, test_backend_devices_include_one_with_subgroup_size_8);
    tcase_add_test(dev, test_backend_device_find_by_index_and_name);
    tcase_add_loop_test(dev, test_backend_storage_buffer_each_type_adds_index, 0,
                        (int)(sizeof storage_types / sizeof storage_types[0]));
    tcase_add_test(dev, test_backend_uniform_buffer_is_read_by_every_invocation);
    tcase_add_loop_test(dev, test_backend_storage_texel_buffer_each_format_adds_one, 0,
                        (int)(sizeof storage_texel_formats / sizeof storage_texel_formats[0]));
    tcase_add_loop_test(dev, test_backend_uniform_texel_buffer_each_format_is_fetched, 0,
                        (int)(sizeof uniform_texel_formats / sizeof uniform_texel_formats[0]));
    tcase_add_test(dev, test_backend_push_constants_reach_the_kernel);
    tcase_add_test(dev, test_backend_subgroup_kernel_runs_at_the_device_wave);
    tcase_add_test(dev, test_backend_unsupported_wave_size_names_the_supported_sizes);
    tcase_add_test(dev, test_backend_clustered_ops_on_a_device_without_them_are_unsupported);
    tcase_add_test(dev, test_backend_missing_binding_is_an_input_error);
    tcase_add_test(dev, test_backend_repeats_reupload_inputs_and_time_each_dispatch);
    tcase_add_test(dev, test_backend_check_command_exit_codes);
    tcase_add_loop_test(dev, test_backend_check_survives_a_device_crash, 0, 2);
    tcase_add_test(dev, test_backend_check_names_a_missing_device_extension);
    tcase_add_test(dev, test_backend_check_skips_a_device_wave_size_the_case_excludes);
    tcase_add_test(dev, test_backend_run_vulkan_dump_has_every_binding);
    tcase_add_test(dev, test_backend_maximal_reconvergence_runs_or_names_the_missing_feature);
    tcase_add_test(dev, test_backend_check_recorded_difference_that_does_not_show_is_exit_1);
    tcase_add_test(dev, test_backend_every_kernel_case_agrees_with_the_simulator_at_wave_8);
    tcase_add_test(dev, test_backend_check_runs_a_1024_workgroup_at_the_only_subgroup_size);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    return tsup_run_suite(backend_suite(), "backend");
}
