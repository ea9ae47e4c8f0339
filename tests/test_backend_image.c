/*
 * tests/test_backend_image.c — the Vulkan backend's images: SPIR-V scanning
 * of image and sampler resources (no device needed), then on a Vulkan device
 * (lavapipe in CI): storage images of several formats and an array image
 * updated in place, a sampled image's every mip and layer read back through
 * texelFetch (the upload's packed order), re-upload on repeats, the errors
 * (a format the device cannot use, a forbidden sampler, a kind or format
 * mismatch), and every image case under kernels/ (articles 000 and 004 as
 * written, the sampling suite) against its expectations, which
 * tools/gen_kernel_cases.py computes from the specification's formulas.
 *
 * Expected values are computed here or come from the generator, never from
 * wavelab's own img/ code.  The device tests are the "device" TCase
 * (test_backend_image_device in CTest), skipped as a whole without a device.
 */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "img/img.h"
#include "isa/isa.h"
#include "run/run.h"
#include "tests/support/tsup.h"

static const char *root(void)
{
    return tsup_root();
}

static uint32_t *compile(const char *kernel_file, const isa_define *defines, int define_count, size_t *words)
{
    char path[1200], err[4096] = "", warnings[1024] = "";
    snprintf(path, sizeof path, "%s/%s", root(), kernel_file);
    isa_compile_options opt = {.path = path, .language = "glsl", .defines = defines, .define_count = define_count};
    uint32_t *spirv = NULL;
    isa_status st = isa_compile(&opt, &spirv, words, err, sizeof err, warnings, sizeof warnings);
    ck_assert_msg(st == ISA_OK, "compile %s: %s", path, err);
    return spirv;
}

/* ------------------------------------------------------------- a case built in C */

typedef struct image_case {
    wl_case c;
    case_binding b[4];
    char kernel[1024];
} image_case;

static void ic_init(image_case *t, const char *kernel_file, uint32_t gx, uint32_t gy)
{
    memset(t, 0, sizeof *t);
    snprintf(t->kernel, sizeof t->kernel, "%s/%s", root(), kernel_file);
    t->c.kernel = t->c.path = t->kernel;
    t->c.entry = (char *)"main";
    t->c.language = (char *)"glsl";
    t->c.groups[0] = gx;
    t->c.groups[1] = gy;
    t->c.groups[2] = 1;
    t->c.push_type = CASE_TYPE_U32;
    t->c.bindings = t->b;
}

/* An image binding of `format` (Vulkan name), w x h, layers, mips; contents zero (the caller fills bytes). */
static case_binding *ic_image(image_case *t, uint32_t binding, case_kind kind, const char *format, uint32_t w,
                              uint32_t h, uint32_t layers, uint32_t mips)
{
    case_binding *b = &t->b[t->c.binding_count++];
    memset(b, 0, sizeof *b);
    b->binding = binding;
    b->kind = kind;
    img_format f;
    ck_assert_msg(img_format_by_name(format, &f), "format %s", format);
    const img_format_info *fi = img_format_get(f);
    b->type = fi->numeric == IMG_NUM_FLOAT ? CASE_TYPE_F32 : fi->numeric == IMG_NUM_SINT ? CASE_TYPE_I32 : CASE_TYPE_U32;
    b->image.dim = IMG_DIM_2D;
    b->image.format = f;
    b->image.width = w;
    b->image.height = h;
    b->image.depth = 1;
    b->image.layers = layers;
    b->image.mip_levels = mips;
    /* packed size counted here, independently of img_image_bytes */
    size_t texels = 0;
    for (uint32_t m = 0; m < mips; m++) {
        uint32_t mw = w >> m ? w >> m : 1, mh = h >> m ? h >> m : 1;
        texels += (size_t)mw * mh * layers;
    }
    b->count = texels;
    b->size = texels * fi->texel_bytes;
    b->bytes = calloc(b->size, 1);
    ck_assert_ptr_nonnull(b->bytes);
    b->image.bytes = b->bytes;
    b->image.size = b->size;
    snprintf(b->format, sizeof b->format, "%s", format);
    return b;
}

static case_binding *ic_buffer(image_case *t, uint32_t binding, size_t count)
{
    case_binding *b = &t->b[t->c.binding_count++];
    memset(b, 0, sizeof *b);
    b->binding = binding;
    b->kind = CASE_KIND_STORAGE_BUFFER;
    b->type = CASE_TYPE_U32;
    b->count = count;
    b->size = count * 4;
    b->bytes = calloc(b->size, 1);
    ck_assert_ptr_nonnull(b->bytes);
    return b;
}

static void ic_free(image_case *t)
{
    for (int i = 0; i < t->c.binding_count; i++)
        free(t->b[i].bytes);
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

static vkb_status ic_run(image_case *t, const char *kernel_file, const isa_define *defines, int define_count,
                         const vkb_run_options *opt, vkb_run_output *out, char *err, size_t err_size)
{
    size_t words = 0;
    uint32_t *spirv = compile(kernel_file, defines, define_count, &words);
    vkb_status st = vkb_run_case(ctx, device, &t->c, spirv, words, opt, out, err, err_size);
    free(spirv);
    return st;
}

/* Runs a kernel that takes its image's format qualifier, image type and vector type as FMT, IMG and VEC.  Returns 1
 * when it ran (out filled), 0 when the device cannot hold the format (printed as a skip of `test`; t is released). */
static int ic_run_format(image_case *t, const char *kernel_file, const char *qualifier, const char *image,
                         const char *vec, const char *format, const char *test, vkb_run_output *out)
{
    isa_define defs[] = {{"FMT", qualifier}, {"IMG", image}, {"VEC", vec}};
    char err[1024] = "";
    vkb_status st = ic_run(t, kernel_file, defs, 3, NULL, out, err, sizeof err);
    if (st == VKB_ERR_UNSUPPORTED) {
        printf("%s[%s]: skipped: %s\n", test, format, err);
        vkb_run_output_free(out);
        ic_free(t);
        return 0;
    }
    ck_assert_msg(st == VKB_OK, "%s: %s", format, err);
    return 1;
}

/* ------------------------------------------------------------- scanning (no device) */

START_TEST(test_backend_image_scan_finds_image_and_sampler_kinds)
{
    size_t words = 0;
    vkb_kernel_info k;
    char err[512] = "";
    isa_define sample[] = {{"SAMPLE_LEVEL", "1"}};
    uint32_t *spirv = compile("kernels/004_swizzle/swizzle_image.comp", sample, 1, &words);
    ck_assert_int_eq(vkb_kernel_scan(spirv, words, "main", &k, err, sizeof err), VKB_OK);
    free(spirv);
    int seen = 0;
    for (int r = 0; r < k.resource_count; r++) {
        const vkb_resource *res = &k.resources[r];
        if (res->binding == 1) { /* layout(r32ui) uimage2D Output */
            ck_assert_int_eq(res->kind, CASE_KIND_STORAGE_IMAGE);
            ck_assert_uint_eq(res->image_dim, 1); /* SpvDim2D */
            ck_assert_uint_eq(res->image_format, 33); /* SpvImageFormatR32ui */
            seen |= 1;
        } else if (res->binding == 2) { /* texture2D InputF */
            ck_assert_int_eq(res->kind, CASE_KIND_SAMPLED_IMAGE);
            ck_assert_int_eq(res->image_arrayed, 0);
            seen |= 2;
        } else if (res->binding == 3) { /* sampler PointClamp */
            ck_assert_int_eq(res->kind, CASE_KIND_SAMPLER);
            seen |= 4;
        }
    }
    ck_assert_int_eq(seen, 7);

    spirv = compile("kernels/images/sampling.comp", NULL, 0, &words);
    ck_assert_int_eq(vkb_kernel_scan(spirv, words, "main", &k, err, sizeof err), VKB_OK);
    free(spirv);
    ck_assert_int_eq(k.resource_count, 3);
    int combined = 0;
    for (int r = 0; r < k.resource_count; r++)
        combined += k.resources[r].kind == CASE_KIND_COMBINED_IMAGE_SAMPLER && k.resources[r].binding == 0;
    ck_assert_int_eq(combined, 1);

    isa_define arr[] = {{"FMT", "r32ui"}, {"IMG", "uimage2DArray"}, {"VEC", "uvec4"}, {"ARRAY", "1"}};
    spirv = compile("tests/backend/storage_image.comp", arr, 4, &words);
    ck_assert_int_eq(vkb_kernel_scan(spirv, words, "main", &k, err, sizeof err), VKB_OK);
    free(spirv);
    ck_assert_int_eq(k.resource_count, 1);
    ck_assert_int_eq(k.resources[0].image_arrayed, 1);
}
END_TEST

/* ------------------------------------------------------------- storage images */

/* Storage images of each format: every component + 1 in place.  `start` texel values are small, so the
 * expected bytes are plain arithmetic on the encoded values. */
static const struct {
    const char *format, *qualifier, *image, *vec;
    unsigned comps, bytes_per_comp;
    int kind; /* 0 uint, 1 sint, 2 float, 3 unorm8 */
} storage_formats[] = {
    {"r32_uint", "r32ui", "uimage2D", "uvec4", 1, 4, 0},
    {"r32_sint", "r32i", "iimage2D", "ivec4", 1, 4, 1},
    {"r32_sfloat", "r32f", "image2D", "vec4", 1, 4, 2},
    {"r32g32_uint", "rg32ui", "uimage2D", "uvec4", 2, 4, 0},
    {"r32g32b32a32_sfloat", "rgba32f", "image2D", "vec4", 4, 4, 2},
    {"r32g32b32a32_uint", "rgba32ui", "uimage2D", "uvec4", 4, 4, 0},
    {"r8g8b8a8_uint", "rgba8ui", "uimage2D", "uvec4", 4, 1, 0},
    {"r8g8b8a8_unorm", "rgba8", "image2D", "vec4", 4, 1, 3},
};

START_TEST(test_backend_image_storage_each_format_adds_one)
{
    __typeof__(storage_formats[0]) f = storage_formats[_i];
    const uint32_t w = 8, h = 4;
    image_case t;
    ic_init(&t, "tests/backend/storage_image.comp", w / 4, h / 4);
    case_binding *b = ic_image(&t, 0, CASE_KIND_STORAGE_IMAGE, f.format, w, h, 1, 1);
    size_t comps = (size_t)w * h * f.comps;
    for (size_t i = 0; i < comps; i++) {
        uint32_t v = (uint32_t)(i * 7 % 200); /* below 255: unorm8 + 1/255 still fits */
        if (f.kind == 2) {
            float x = (float)v * 0.5f - 20.0f;
            memcpy(b->bytes + i * 4, &x, 4);
        } else if (f.bytes_per_comp == 1)
            b->bytes[i] = (uint8_t)v;
        else {
            int32_t s = f.kind == 1 ? (int32_t)v - 100 : (int32_t)v;
            memcpy(b->bytes + i * 4, &s, 4);
        }
    }
    vkb_run_output out;
    if (!ic_run_format(&t, "tests/backend/storage_image.comp", f.qualifier, f.image, f.vec, f.format, __func__, &out))
        return;
    for (size_t i = 0; i < comps; i++) {
        if (f.kind == 2) {
            float in, got;
            memcpy(&in, b->bytes + i * 4, 4);
            memcpy(&got, out.data[0] + i * 4, 4);
            ck_assert_msg(got == in + 1.0f, "%s component %zu: %g, expected %g", f.format, i, got, in + 1.0f);
        } else if (f.bytes_per_comp == 1) {
            /* uint: c + 1; unorm: c/255 + 1 = (c + 255)/255 clamps to 1.0, which encodes as 255 */
            uint8_t want = f.kind == 3 ? 255 : (uint8_t)(b->bytes[i] + 1);
            ck_assert_msg(out.data[0][i] == want, "%s component %zu: %u, expected %u", f.format, i, out.data[0][i],
                          want);
        } else {
            int32_t in, got;
            memcpy(&in, b->bytes + i * 4, 4);
            memcpy(&got, out.data[0] + i * 4, 4);
            ck_assert_msg(got == in + 1, "%s component %zu: %d, expected %d", f.format, i, got, in + 1);
        }
    }
    vkb_run_output_free(&out);
    ic_free(&t);
}
END_TEST

START_TEST(test_backend_image_storage_array_layers_each_add_one_once_per_run)
{
    const uint32_t w = 4, h = 8, layers = 3;
    image_case t;
    ic_init(&t, "tests/backend/storage_image.comp", w / 4, h / 4);
    case_binding *b = ic_image(&t, 0, CASE_KIND_STORAGE_IMAGE, "r32_uint", w, h, layers, 1);
    uint32_t *v = (uint32_t *)b->bytes;
    for (uint32_t i = 0; i < w * h * layers; i++)
        v[i] = 1000 * (i / (w * h)) + i; /* the layer in the thousands */
    isa_define defs[] = {{"FMT", "r32ui"}, {"IMG", "uimage2DArray"}, {"VEC", "uvec4"}, {"ARRAY", "1"}, {"LAYERS", "3"}};
    vkb_run_options opt = {.repeat = 3, .warmup = 1};
    vkb_run_output out;
    char err[1024] = "";
    ck_assert_msg(ic_run(&t, "tests/backend/storage_image.comp", defs, 5, &opt, &out, err, sizeof err) == VKB_OK, "%s",
                  err);
    const uint32_t *got = (const uint32_t *)out.data[0];
    for (uint32_t i = 0; i < w * h * layers; i++) /* four runs, each from the case's contents: + 1, not + 4 */
        ck_assert_msg(got[i] == v[i] + 1, "texel %u (layer %u): %u, expected %u", i, i / (w * h), got[i], v[i] + 1);
    vkb_run_output_free(&out);
    ic_free(&t);
}
END_TEST

/* Multisampled storage images, which the backend fills and reads with a kernel of its own through a view in the
 * unsigned-integer format of the texel's size (1, 2, 4, 8 and 16 bytes: r8ui, r16ui, r32ui, rg32ui, rgba32ui;
 * r16f's and rgba16f's halves ride in r16ui and rg32ui; 1- and 2-byte texels share 32-bit words): 4 samples,
 * 2 layers, every sample's bits distinct; the kernel reverses each texel's samples, so sample s of the read-back
 * is sample 3 - s of the input, bit for bit (the packed order: each layer's samples are planes one after
 * another, docs/case-format.md). */
static const struct {
    const char *format, *qualifier, *image, *vec;
    uint32_t bytes;
    int half; /* 16-bit float components: the test writes finite halves */
} ms_formats[] = {
    {"r8_uint", "r8ui", "uimage2DMSArray", "uvec4", 1, 0},
    {"r16_sfloat", "r16f", "image2DMSArray", "vec4", 2, 1},
    {"r32_uint", "r32ui", "uimage2DMSArray", "uvec4", 4, 0},
    {"r16g16b16a16_sfloat", "rgba16f", "image2DMSArray", "vec4", 8, 1},
    {"r32g32b32a32_uint", "rgba32ui", "uimage2DMSArray", "uvec4", 16, 0},
};

START_TEST(test_backend_image_multisampled_samples_round_trip_reversed)
{
    __typeof__(ms_formats[0]) f = ms_formats[_i];
    const uint32_t w = 8, h = 4, layers = 2, samples = 4;
    image_case t;
    ic_init(&t, "tests/backend/ms_reverse.comp", w / 4, h / 4);
    t.c.groups[2] = layers;
    case_binding *b = ic_image(&t, 0, CASE_KIND_STORAGE_IMAGE, f.format, w, h, layers * samples, 1);
    /* ic_image sized layers * samples planes; the image itself has `layers` layers of `samples` samples */
    b->image.layers = layers;
    b->image.samples = samples;
    for (size_t i = 0; i < b->size / 2; i++) {
        /* 16-bit words: a half with a sign, exponent 1..29 and a mantissa from the index (finite, no NaN) */
        uint16_t v = f.half ? (uint16_t)((i & 1) << 15 | (1 + i % 29) << 10 | (i * 37 % 1024))
                            : (uint16_t)(i * 2654435761u >> 7);
        memcpy(b->bytes + 2 * i, &v, 2);
    }
    vkb_run_output out;
    if (!ic_run_format(&t, "tests/backend/ms_reverse.comp", f.qualifier, f.image, f.vec, f.format, __func__, &out))
        return;
    const size_t plane = (size_t)w * h * f.bytes;
    for (uint32_t l = 0; l < layers; l++)
        for (uint32_t s = 0; s < samples; s++) {
            const uint8_t *got = out.data[0] + (l * samples + s) * plane;
            const uint8_t *want = b->bytes + (l * samples + (samples - 1 - s)) * plane;
            for (size_t k = 0; k < plane; k++)
                ck_assert_msg(got[k] == want[k], "%s layer %u sample %u byte %zu: 0x%02x, expected 0x%02x", f.format,
                              l, s, k, got[k], want[k]);
        }
    vkb_run_output_free(&out);
    ic_free(&t);
}
END_TEST

/* ------------------------------------------------------------- sampled images */

START_TEST(test_backend_image_sampled_mips_and_layers_arrive_in_packed_order)
{
    const uint32_t size = 8, layers = 2, mips = 4;
    uint32_t total = 0;
    for (uint32_t m = 0; m < mips; m++)
        total += (size >> m) * (size >> m) * layers; /* 128 + 32 + 8 + 2 */
    ck_assert_uint_eq(total, 170);
    image_case t;
    ic_init(&t, "tests/backend/sampled_mips.comp", (total + 7) / 8, 1);
    case_binding *b = ic_image(&t, 0, CASE_KIND_SAMPLED_IMAGE, "r32_uint", size, size, layers, mips);
    ck_assert_uint_eq(b->count, total);
    for (uint32_t i = 0; i < total; i++)
        ((uint32_t *)b->bytes)[i] = 0x10000u + i * 3; /* unique: a texel in the wrong place shows */
    ic_buffer(&t, 1, (total + 7) / 8 * 8);
    isa_define defs[] = {{"SIZE", "8"}, {"LAYERS", "2"}, {"MIPS", "4"}};
    vkb_run_output out;
    char err[1024] = "";
    ck_assert_msg(ic_run(&t, "tests/backend/sampled_mips.comp", defs, 3, NULL, &out, err, sizeof err) == VKB_OK, "%s",
                  err);
    const uint32_t *got = (const uint32_t *)out.data[1];
    for (uint32_t i = 0; i < total; i++)
        ck_assert_msg(got[i] == 0x10000u + i * 3, "packed texel %u: 0x%x, expected 0x%x", i, got[i], 0x10000u + i * 3);
    /* a sampled image is read-only: its final contents are the case's */
    ck_assert(memcmp(out.data[0], b->bytes, b->size) == 0);
    vkb_run_output_free(&out);
    ic_free(&t);
}
END_TEST

/* ------------------------------------------------------------- errors */

START_TEST(test_backend_image_unusable_storage_format_is_unsupported_naming_binding_and_format)
{
    /* sRGB formats are not storage formats on any device we know (Vulkan requires none to be) */
    image_case t;
    ic_init(&t, "tests/backend/storage_image.comp", 1, 1);
    ic_image(&t, 0, CASE_KIND_STORAGE_IMAGE, "r8g8b8a8_srgb", 4, 4, 1, 1);
    isa_define defs[] = {{"FMT", "rgba8"}, {"IMG", "image2D"}, {"VEC", "vec4"}};
    size_t words = 0;
    uint32_t *spirv = compile("tests/backend/storage_image.comp", defs, 3, &words);
    vkb_kernel_info k;
    char err[1024] = "";
    ck_assert_int_eq(vkb_kernel_scan(spirv, words, "main", &k, err, sizeof err), VKB_OK);
    /* the kernel says rgba8 (UNORM), the case sRGB: a mismatch first */
    ck_assert_int_eq(vkb_check_support(ctx, device, &k, &t.c, 0, err, sizeof err), VKB_ERR_INPUT);
    ck_assert_msg(strstr(err, "r8g8b8a8_srgb") && strstr(err, "bindings[0]"), "%s", err);
    free(spirv);
    /* a format-less storage image takes the case's format: then the device's verdict */
    spirv = compile("tests/backend/storage_image_noformat.comp", NULL, 0, &words);
    ck_assert_int_eq(vkb_kernel_scan(spirv, words, "main", &k, err, sizeof err), VKB_OK);
    free(spirv);
    ck_assert_uint_eq(k.resources[0].image_format, 0);
    vkb_status st = vkb_check_support(ctx, device, &k, &t.c, 0, err, sizeof err);
    ck_assert_msg(st == VKB_ERR_UNSUPPORTED, "status %d: %s", st, err);
    ck_assert_msg(strstr(err, "r8g8b8a8_srgb") && strstr(err, "bindings[0]") && strstr(err, "storage image"), "%s",
                  err);
    ic_free(&t);
}
END_TEST

START_TEST(test_backend_image_unnormalized_sampler_with_lod_range_is_an_input_error)
{
    image_case t;
    ic_init(&t, "kernels/images/sampling.comp", 1, 1);
    case_binding *b = ic_image(&t, 0, CASE_KIND_COMBINED_IMAGE_SAMPLER, "r8g8b8a8_unorm", 8, 4, 1, 1);
    b->has_sampler = 1;
    b->sampler.address[0] = b->sampler.address[1] = b->sampler.address[2] = IMG_ADDRESS_CLAMP_TO_EDGE;
    b->sampler.unnormalized = 1;
    b->sampler.max_lod = 1000; /* Vulkan requires 0 with unnormalized coordinates */
    ic_buffer(&t, 1, 32);
    ic_buffer(&t, 2, 32);
    isa_define defs[] = {{"LOD0", "1"}};
    vkb_run_output out;
    char err[1024] = "";
    ck_assert_int_eq(ic_run(&t, "kernels/images/sampling.comp", defs, 1, NULL, &out, err, sizeof err), VKB_ERR_INPUT);
    ck_assert_msg(strstr(err, "unnormalized") && strstr(err, "max_lod") && strstr(err, "bindings[0]"), "%s", err);
    vkb_run_output_free(&out);
    b->sampler.max_lod = 0;
    b->sampler.address[1] = IMG_ADDRESS_REPEAT;
    ck_assert_int_eq(ic_run(&t, "kernels/images/sampling.comp", defs, 1, NULL, &out, err, sizeof err), VKB_ERR_INPUT);
    ck_assert_msg(strstr(err, "clamp_to_edge"), "%s", err);
    vkb_run_output_free(&out);
    ic_free(&t);
}
END_TEST

START_TEST(test_backend_image_kind_mismatch_is_an_input_error)
{
    image_case t;
    ic_init(&t, "tests/backend/storage_image.comp", 1, 1);
    ic_image(&t, 0, CASE_KIND_SAMPLED_IMAGE, "r32_uint", 4, 4, 1, 1); /* the kernel writes a storage image */
    isa_define defs[] = {{"FMT", "r32ui"}, {"IMG", "uimage2D"}, {"VEC", "uvec4"}};
    vkb_run_output out;
    char err[1024] = "";
    ck_assert_int_eq(ic_run(&t, "tests/backend/storage_image.comp", defs, 3, NULL, &out, err, sizeof err),
                     VKB_ERR_INPUT);
    ck_assert_msg(strstr(err, "sampled_image") && strstr(err, "storage_image"), "%s", err);
    vkb_run_output_free(&out);
    ic_free(&t);

    ic_init(&t, "tests/backend/storage_image.comp", 1, 1);
    ic_image(&t, 0, CASE_KIND_STORAGE_IMAGE, "r32_sfloat", 4, 4, 1, 1); /* the kernel declares r32ui */
    ck_assert_int_eq(ic_run(&t, "tests/backend/storage_image.comp", defs, 3, NULL, &out, err, sizeof err),
                     VKB_ERR_INPUT);
    ck_assert_msg(strstr(err, "r32_uint") && strstr(err, "r32_sfloat"), "%s", err);
    vkb_run_output_free(&out);
    ic_free(&t);
}
END_TEST

/* ------------------------------------------------------------- the image cases under kernels/ */

static int is_image_case(const char *rel)
{
    return (!strncmp(rel, "images/", 7) && strstr(rel, ".json")) ||
           (strstr(rel, "uniform_load_image") && strstr(rel, ".json")) ||
           (strstr(rel, "swizzle_image") && strstr(rel, ".json") && !strstr(rel, "1440p"));
}

static int collect(const char *dir, const char *rel_dir, char (*out)[512], int n, int max)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, rel_dir);
    DIR *d = opendir(path);
    if (!d)
        return n;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        if (e->d_name[0] == '.')
            continue;
        char rel[512];
        snprintf(rel, sizeof rel, "%s%s%s", rel_dir, rel_dir[0] ? "/" : "", e->d_name);
        char full[1800];
        snprintf(full, sizeof full, "%s/%s", dir, rel);
        struct stat sb;
        if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode))
            n = collect(dir, rel, out, n, max);
        else if (is_image_case(rel))
            snprintf(out[n++], 512, "%s", rel);
    }
    closedir(d);
    return n;
}

static int by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The largest |device - expected| over a float expectation (the sampling suite's tolerance at work). */
static double largest_error(const wl_case *c, uint8_t *const *data)
{
    double worst = 0;
    for (int e = 0; e < c->expect_count; e++) {
        const case_expect *x = &c->expects[e];
        if (x->is_image || x->type != CASE_TYPE_F32)
            continue;
        for (int i = 0; i < c->binding_count; i++)
            if (c->bindings[i].set == x->set && c->bindings[i].binding == x->binding)
                for (size_t k = 0; k < x->count && k < c->bindings[i].count; k++) {
                    float want, got;
                    memcpy(&want, x->bytes + 4 * k, 4);
                    memcpy(&got, data[i] + 4 * k, 4);
                    if (fabs((double)got - want) > worst)
                        worst = fabs((double)got - want);
                }
    }
    return worst;
}

START_TEST(test_backend_image_every_image_case_meets_its_expectations_on_the_device)
{
    enum { MAX_CASES = 128 };
    char(*cases)[512] = calloc(MAX_CASES, 512);
    ck_assert_ptr_nonnull(cases);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/kernels", root());
    int n = collect(dir, "", cases, 0, MAX_CASES);
    qsort(cases, (size_t)n, 512, by_name);
    ck_assert_int_ge(n, 30); /* 4 of article 000, 16 of article 004, 17 of the sampling suite */
    int passed = 0, skipped = 0, failed = 0;
    static char failures[16384];
    failures[0] = 0;
    for (int i = 0; i < n; i++) {
        char path[1800], err[4096] = "";
        snprintf(path, sizeof path, "%s/%s", dir, cases[i]);
        wl_case *c = NULL;
        ck_assert_msg(case_load(path, &c, err, sizeof err) == CASE_OK, "%s", err);
        uint32_t *spirv = NULL;
        size_t words = 0;
        ck_assert_msg(run_compile_case_optimized(c, NULL, &spirv, &words, err, sizeof err, NULL, 0) == ISA_OK, "%s: %s",
                      cases[i], err);
        vkb_run_output out;
        vkb_status st = vkb_run_case(ctx, device, c, spirv, words, NULL, &out, err, sizeof err);
        if (st == VKB_ERR_UNSUPPORTED || st == VKB_ERR_WAVE_SIZE) {
            skipped++;
            printf("skip   %s: %s\n", cases[i], err);
        } else if (st != VKB_OK) {
            failed++;
            printf("FAIL   %s: %s\n", cases[i], err);
            size_t len = strlen(failures);
            snprintf(failures + len, sizeof failures - len, "%s: %s\n", cases[i], err);
        } else {
            int bad = run_check_expects(c, out.data, NULL);
            vkb_device_info info;
            vkb_device_info_get(ctx, device, &info);
            const case_device_difference *known = case_device_difference_for(c, info.name);
            if (known && bad) {
                passed++;
                printf("known  %s: %d expectations fail, as the case records: %s\n", cases[i], bad, known->reason);
            } else if (known) {
                failed++;
                printf("FAIL   %s: passes, but the case records a difference on %s\n", cases[i], info.name);
                size_t len = strlen(failures);
                snprintf(failures + len, sizeof failures - len, "%s: the recorded device difference did not show\n",
                         cases[i]);
            } else if (bad) {
                failed++;
                printf("FAIL   %s\n", cases[i]);
                run_check_expects(c, out.data, stdout);
                size_t len = strlen(failures);
                snprintf(failures + len, sizeof failures - len, "%s: %d expectations fail\n", cases[i], bad);
            } else {
                passed++;
                double worst = largest_error(c, out.data);
                if (worst > 0)
                    printf("pass   %s (largest difference from the reference %.6g)\n", cases[i], worst);
                else
                    printf("pass   %s\n", cases[i]);
            }
        }
        vkb_run_output_free(&out);
        free(spirv);
        case_destroy(c);
    }
    printf("%s: %d cases: %d pass, %d skipped, %d failed\n", __func__, n, passed, skipped, failed);
    free(cases);
    ck_assert_msg(failed == 0, "image cases that fail on the device:\n%s", failures);
}
END_TEST

START_TEST(test_backend_image_check_on_srgb_storage_case_exits_3)
{
    char args[1400], *output = NULL;
    snprintf(args, sizeof args, "check '%s/tests/backend/cases/image_srgb_storage.json' --device %d", root(), device);
    int code = tsup_run_cli(args, &output);
    printf("$ wavelab %s -> %d\n%s", args, code, output ? output : "");
    ck_assert_msg(code == 3, "exit %d:\n%s", code, output ? output : "");
    ck_assert_msg(output && strstr(output, "SKIP: ") && strstr(output, "r8g8b8a8_srgb") && strstr(output, "bindings[0]"),
                  "%s", output ? output : "");
    free(output);
}
END_TEST

START_TEST(test_backend_image_run_dump_writes_decoded_texels)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char args[2400], *output = NULL;
    snprintf(args, sizeof args, "run '%s/kernels/004_swizzle/swizzle_image_load_tiled_72x40.json' --backend vulkan "
             "--device %d --dump '%s/dump.json'", root(), device, dir);
    int code = tsup_run_cli(args, &output);
    ck_assert_msg(code == 0, "exit %d:\n%s", code, output ? output : "");
    free(output);
    char path[1200];
    snprintf(path, sizeof path, "%s/dump.json", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    /* the output image's first texels as tools/gen_kernel_cases.py computes article 004's gather */
    const char *out_image = strstr(text, "\"binding\": 1, \"kind\": \"storage_image\"");
    ck_assert_msg(out_image && strstr(out_image, "\"data\": [8945459, 11115347, 9987722, "), "%.600s", text);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

static Suite *backend_image_suite(void)
{
    Suite *s = suite_create("backend_image");
    TCase *scan = tcase_create("scan");
    tcase_add_test(scan, test_backend_image_scan_finds_image_and_sampler_kinds);
    suite_add_tcase(s, scan);

    TCase *dev = tsup_device_tcase("device");
    tcase_set_timeout(dev, 600);
    tcase_add_checked_fixture(dev, device_setup, device_teardown);
    tcase_add_loop_test(dev, test_backend_image_storage_each_format_adds_one, 0,
                        (int)(sizeof storage_formats / sizeof storage_formats[0]));
    tcase_add_test(dev, test_backend_image_storage_array_layers_each_add_one_once_per_run);
    tcase_add_loop_test(dev, test_backend_image_multisampled_samples_round_trip_reversed, 0,
                        (int)(sizeof ms_formats / sizeof ms_formats[0]));
    tcase_add_test(dev, test_backend_image_sampled_mips_and_layers_arrive_in_packed_order);
    tcase_add_test(dev, test_backend_image_unusable_storage_format_is_unsupported_naming_binding_and_format);
    tcase_add_test(dev, test_backend_image_unnormalized_sampler_with_lod_range_is_an_input_error);
    tcase_add_test(dev, test_backend_image_kind_mismatch_is_an_input_error);
    tcase_add_test(dev, test_backend_image_every_image_case_meets_its_expectations_on_the_device);
    tcase_add_test(dev, test_backend_image_check_on_srgb_storage_case_exits_3);
    tcase_add_test(dev, test_backend_image_run_dump_writes_decoded_texels);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    return tsup_run_suite(backend_image_suite(), "backend_image");
}
