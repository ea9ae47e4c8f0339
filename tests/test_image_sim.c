/*
 * tests/test_image_sim.c — images on the simulator: small GLSL (and one HLSL)
 * kernels that read, write, fetch, sample, gather, query and atomically
 * update images, run at several wave sizes.  Every expected value comes from
 * a reference written here (C loops over the input image with the formulas
 * of the Vulkan specification spelled out: packed offsets, unorm8 = c / 255,
 * nearest and bilinear filtering with clamp-to-edge, gather order, cube face
 * selection), never from img/ or the executor.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "img/img.h"
#include "isa/isa.h"
#include "sim/machine.h"
#include "sim/sim.h"
#include "tests/support/tsup.h"

static const uint32_t wave_sizes[] = {4, 8, 16, 32, 64};
#define NWAVES (sizeof wave_sizes / sizeof wave_sizes[0])

static isa_program *build(const char *src, const char *language)
{
    char msg[8192];
    isa_program *prog = NULL;
    isa_status st = tsup_build(src, strcmp(language, "hlsl") == 0 ? "kernel.hlsl" : "kernel.comp", language,
                               strcmp(language, "hlsl") == 0 ? "main" : NULL, &prog, msg, sizeof msg, NULL, 0);
    ck_assert_msg(st == ISA_OK, "%s\n%s", msg, src);
    return prog;
}

/* Bytes of one texel of the formats these tests use. */
static uint32_t texel_bytes(img_format f)
{
    switch (f) {
    case IMG_FMT_R32G32B32A32_SFLOAT: return 16;
    case IMG_FMT_R8G8B8A8_UNORM: case IMG_FMT_R32_UINT: case IMG_FMT_R32_SFLOAT: case IMG_FMT_R32_SINT:
    case IMG_FMT_D32_SFLOAT: return 4;
    default: ck_abort_msg("format not used by these tests"); return 0;
    }
}

static uint32_t mip_extent(uint32_t base, uint32_t mip) { return base >> mip ? base >> mip : 1; }

/* The packed layout (mip-major, then layer, then z, y, x), computed here rather than by img/. */
static size_t ref_offset(const img_image *im, uint32_t x, uint32_t y, uint32_t z, uint32_t layer, uint32_t mip)
{
    size_t off = 0, tb = texel_bytes(im->format);
    for (uint32_t m = 0; m < mip; m++)
        off += (size_t)mip_extent(im->width, m) * mip_extent(im->height, m) * mip_extent(im->depth, m) * im->layers * tb;
    size_t w = mip_extent(im->width, mip), h = mip_extent(im->height, mip), d = mip_extent(im->depth, mip);
    return off + ((((size_t)layer * d + z) * h + y) * w + x) * tb;
}

static img_image make_image(img_dim dim, img_format f, uint32_t w, uint32_t h, uint32_t d, uint32_t layers,
                            uint32_t mips)
{
    img_image im = {.dim = dim, .format = f, .width = w, .height = h, .depth = d, .layers = layers, .mip_levels = mips};
    im.size = ref_offset(&im, 0, 0, 0, 0, mips);
    im.bytes = calloc(1, im.size);
    ck_assert_ptr_nonnull(im.bytes);
    return im;
}

static float *texel_f(const img_image *im, uint32_t x, uint32_t y, uint32_t z, uint32_t layer, uint32_t mip)
{
    return (float *)(void *)(im->bytes + ref_offset(im, x, y, z, layer, mip));
}
static uint32_t *texel_u(const img_image *im, uint32_t x, uint32_t y, uint32_t z, uint32_t layer, uint32_t mip)
{
    return (uint32_t *)(void *)(im->bytes + ref_offset(im, x, y, z, layer, mip));
}

/* A value per texel component that no two texels share. */
static float pattern(uint32_t x, uint32_t y, uint32_t z, uint32_t layer, uint32_t mip, int c)
{
    return (float)(x + 16 * y + 256 * z + 1000 * layer + 5000 * mip) + 0.25f * (float)c;
}

static void fill_pattern(img_image *im)
{
    for (uint32_t m = 0; m < im->mip_levels; m++)
        for (uint32_t l = 0; l < im->layers; l++)
            for (uint32_t z = 0; z < mip_extent(im->depth, m); z++)
                for (uint32_t y = 0; y < mip_extent(im->height, m); y++)
                    for (uint32_t x = 0; x < mip_extent(im->width, m); x++)
                        for (int c = 0; c < 4; c++)
                            texel_f(im, x, y, z, l, m)[c] = pattern(x, y, z, l, m, c);
}

typedef struct run_env {
    sim_buffer buffers[2];
    int buffer_count;
    sim_image images[4];
    int image_count;
    uint32_t groups[3];
    int robust;
    const sim_mem_trace *trace;
    int image_layout;
    const void *push;
    size_t push_size;
} run_env;

static sim_status run(const isa_program *p, const run_env *e, uint32_t W, sim_result *res)
{
    sim_config cfg = {.wave_size = W, .groups = {e->groups[0] ? e->groups[0] : 1, e->groups[1] ? e->groups[1] : 1,
                                                 e->groups[2] ? e->groups[2] : 1},
                      .buffers = (sim_buffer *)e->buffers, .buffer_count = e->buffer_count,
                      .images = (sim_image *)e->images, .image_count = e->image_count, .robust_access = e->robust,
                      .mem_trace = e->trace, .image_layout = e->image_layout,
                      .push = e->push, .push_size = e->push_size};
    memset(res, 0, sizeof *res);
    return sim_run(p, &cfg, res);
}

static void assert_ok(sim_status st, const sim_result *res, uint32_t W)
{
    ck_assert_msg(st == SIM_OK, "wave %u: status %d: %s", W, st, res->fault_event.message);
}

/* ------------------------------------------------------------ storage images */

static const char *copy_src =
    "#version 450\n"
    "layout(local_size_x = 8, local_size_y = 4) in;\n"
    "layout(set = 0, binding = 0, rgba32f) uniform readonly image2D src;\n"
    "layout(set = 0, binding = 1, rgba32f) uniform writeonly image2D dst;\n"
    "void main() {\n"
    "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
    "    vec4 v = imageLoad(src, p);\n"
    "    imageStore(dst, ivec2(imageSize(dst).x - 1 - p.x, p.y), v * 2.0 + vec4(p, 0.0, 1.0));\n"
    "}\n";

START_TEST(test_image_storage_rgba32f_load_store_mirrors)
{
    isa_program *p = build(copy_src, "glsl");
    for (size_t k = 0; k < NWAVES; k++) {
        img_image src = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 16, 8, 1, 1, 1);
        img_image dst = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 16, 8, 1, 1, 1);
        fill_pattern(&src);
        run_env e = {.images = {{0, 0, &src, NULL}, {0, 1, &dst, NULL}}, .image_count = 2, .groups = {2, 2, 1}};
        sim_result res;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        for (uint32_t y = 0; y < 8; y++)
            for (uint32_t x = 0; x < 16; x++)
                for (int c = 0; c < 4; c++) {
                    float want = pattern(x, y, 0, 0, 0, c) * 2.0f + (c == 0 ? (float)x : c == 1 ? (float)y : c == 3);
                    ck_assert_msg(texel_f(&dst, 15 - x, y, 0, 0, 0)[c] == want, "wave %u texel (%u,%u).%d: %g != %g",
                                  wave_sizes[k], 15 - x, y, c, texel_f(&dst, 15 - x, y, 0, 0, 0)[c], want);
                }
        sim_result_free(&res);
        free(src.bytes);
        free(dst.bytes);
    }
    isa_program_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ fetch, mips and queries */

static const char *fetch_src =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0) uniform sampler2D tex;\n"
    "layout(set = 0, binding = 1) buffer Out { vec4 texel[64]; uvec4 size[64]; } o;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    int mip = int(i % 3u);\n"
    "    ivec2 sz = textureSize(tex, mip);\n"
    "    ivec2 p = ivec2(int(i / 3u) % sz.x, int(i / 7u) % sz.y);\n"
    "    o.texel[i] = texelFetch(tex, p, mip);\n"
    "    o.size[i] = uvec4(sz, textureQueryLevels(tex), 0u);\n"
    "}\n";

START_TEST(test_image_fetch_each_mip_reads_its_texels)
{
    isa_program *p = build(fetch_src, "glsl");
    img_sampler smp = {0};
    for (size_t k = 0; k < NWAVES; k++) {
        img_image tex = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 16, 8, 1, 1, 3);
        fill_pattern(&tex);
        struct { float texel[64][4]; uint32_t size[64][4]; } out;
        memset(&out, 0xff, sizeof out);
        run_env e = {.buffers = {{0, 1, (uint8_t *)&out, sizeof out, 0}}, .buffer_count = 1,
                     .images = {{0, 0, &tex, &smp}}, .image_count = 1};
        sim_result res;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        for (uint32_t i = 0; i < 64; i++) {
            uint32_t mip = i % 3, w = 16 >> mip, h = 8 >> mip, x = (i / 3) % w, y = (i / 7) % h;
            ck_assert_uint_eq(out.size[i][0], w);
            ck_assert_uint_eq(out.size[i][1], h);
            ck_assert_uint_eq(out.size[i][2], 3);
            for (int c = 0; c < 4; c++)
                ck_assert_msg(out.texel[i][c] == pattern(x, y, 0, 0, mip, c), "wave %u lane %u.%d: %g", wave_sizes[k], i,
                              c, out.texel[i][c]);
        }
        sim_result_free(&res);
        free(tex.bytes);
    }
    isa_program_destroy(p);
}
END_TEST

/* texelFetchOffset: the offset moves the integer texel coordinate (Vulkan, "Texel Coordinate Operations": Offset
 * and ConstOffset are added to i, j, k), the array layer stays; each lane's expected texel worked out here. */
static const char *fetch_offset_src =
    "#version 450\n"
    "layout(local_size_x = 32) in;\n"
    "layout(set = 0, binding = 0) uniform sampler2D tex;\n"
    "layout(set = 0, binding = 1) uniform sampler2DArray arr;\n"
    "layout(set = 0, binding = 2) buffer Out { vec4 a[32]; vec4 b[32]; vec4 c[32]; } o;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    ivec2 p = ivec2(2 + int(i % 10u), 1 + int(i / 10u));\n"
    "    o.a[i] = texelFetchOffset(tex, p, 0, ivec2(-2, 3));\n"
    "    o.b[i] = texelFetchOffset(tex, p / 2, 1, ivec2(1, 1));\n"
    "    o.c[i] = texelFetchOffset(arr, ivec3(p, int(i % 3u)), 0, ivec2(3, 0));\n"
    "}\n";

START_TEST(test_image_fetch_offset_moves_the_texel_not_the_layer)
{
    isa_program *p = build(fetch_offset_src, "glsl");
    img_sampler smp = {0};
    for (size_t k = 0; k < NWAVES; k++) {
        img_image tex = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 16, 8, 1, 1, 2);
        img_image arr = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 16, 8, 1, 3, 1);
        fill_pattern(&tex);
        fill_pattern(&arr);
        struct { float a[32][4], b[32][4], c[32][4]; } out;
        memset(&out, 0xff, sizeof out);
        run_env e = {.buffers = {{0, 2, (uint8_t *)&out, sizeof out, 0}}, .buffer_count = 1,
                     .images = {{0, 0, &tex, &smp}, {0, 1, &arr, &smp}}, .image_count = 2};
        sim_result res;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        for (uint32_t i = 0; i < 32; i++) {
            /* x 2..11, y 1..4; moved: 0..9 x 4..7 of 16 x 8, mip 1 (8 x 4): 2..6 x 1..3, 3 of 3 layers: inside */
            uint32_t x = 2 + i % 10, y = 1 + i / 10;
            for (int c = 0; c < 4; c++) {
                ck_assert_msg(out.a[i][c] == pattern(x - 2, y + 3, 0, 0, 0, c), "wave %u lane %u.%d: %g",
                              wave_sizes[k], i, c, out.a[i][c]);
                ck_assert_msg(out.b[i][c] == pattern(x / 2 + 1, y / 2 + 1, 0, 0, 1, c), "wave %u lane %u.%d mip 1: %g",
                              wave_sizes[k], i, c, out.b[i][c]);
                ck_assert_msg(out.c[i][c] == pattern(x + 3, y, 0, i % 3, 0, c), "wave %u lane %u.%d layer %u: %g",
                              wave_sizes[k], i, c, i % 3, out.c[i][c]);
            }
        }
        sim_result_free(&res);
        free(tex.bytes);
        free(arr.bytes);
    }
    isa_program_destroy(p);
}
END_TEST

/* textureLodOffset and textureGatherOffset: ConstOffset moves the integer texel coordinates of the level read
 * (Vulkan, "Texel Coordinate Offset"), so at mip 1 it counts mip-1 texels; each lane's texels worked out here. */
static const char *sample_offset_src =
    "#version 450\n"
    "layout(local_size_x = 32) in;\n"
    "layout(set = 0, binding = 0) uniform sampler2D tex;\n"
    "layout(set = 0, binding = 1) buffer Out { vec4 a[32]; vec4 b[32]; vec4 g[32]; } o;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    vec2 p = vec2(float(i % 10u), float(i / 10u));\n"
    "    o.a[i] = textureLodOffset(tex, (p + 0.5) / vec2(16.0, 8.0), 0.0, ivec2(3, -1));\n"
    "    o.b[i] = textureLodOffset(tex, (p + 0.5) / vec2(8.0, 4.0), 1.0, ivec2(-2, 1));\n"
    "    o.g[i] = textureGatherOffset(tex, (p + 1.0) / vec2(16.0, 8.0), ivec2(2, 1), 1);\n"
    "}\n";

/* Component c of texel (i, j) of mip `mip` of a 2D image, clamped to its edge. */
static float edge_texel(const img_image *im, int i, int j, uint32_t mip, int c)
{
    const int w = (int)img_mip_size(im->width, mip), h = (int)img_mip_size(im->height, mip);
    i = i < 0 ? 0 : i > w - 1 ? w - 1 : i;
    j = j < 0 ? 0 : j > h - 1 ? h - 1 : j;
    return pattern((uint32_t)i, (uint32_t)j, 0, 0, mip, c);
}

START_TEST(test_image_sample_and_gather_offsets_move_the_levels_texels)
{
    isa_program *p = build(sample_offset_src, "glsl");
    img_sampler near = {.address = {IMG_ADDRESS_CLAMP_TO_EDGE, IMG_ADDRESS_CLAMP_TO_EDGE, IMG_ADDRESS_CLAMP_TO_EDGE},
                        .max_lod = 1000};
    for (size_t k = 0; k < NWAVES; k++) {
        img_image tex = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 16, 8, 1, 1, 2);
        fill_pattern(&tex);
        struct { float a[32][4], b[32][4], g[32][4]; } out;
        memset(&out, 0xff, sizeof out);
        run_env e = {.buffers = {{0, 1, (uint8_t *)&out, sizeof out, 0}}, .buffer_count = 1,
                     .images = {{0, 0, &tex, &near}}, .image_count = 1};
        sim_result res;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        for (uint32_t i = 0; i < 32; i++) {
            /* texel centres: nearest reads (x, y) moved; at mip 1 (8 x 4) the same x, y are mip-1 texels; the
             * gather's coordinate (x + 1, y + 1) / size has its footprint's low corner at (x, y) */
            const int x = (int)(i % 10), y = (int)(i / 10);
            const int g[4][2] = {{x + 2, y + 2}, {x + 3, y + 2}, {x + 3, y + 1}, {x + 2, y + 1}};
            for (int c = 0; c < 4; c++) {
                ck_assert_msg(out.a[i][c] == edge_texel(&tex, x + 3, y - 1, 0, c), "wave %u lane %u.%d: %g",
                              wave_sizes[k], i, c, out.a[i][c]);
                ck_assert_msg(out.b[i][c] == edge_texel(&tex, x - 2, y + 1, 1, c), "wave %u lane %u.%d mip 1: %g",
                              wave_sizes[k], i, c, out.b[i][c]);
                ck_assert_msg(out.g[i][c] == edge_texel(&tex, g[c][0], g[c][1], 0, 1), "wave %u lane %u gather %d: %g",
                              wave_sizes[k], i, c, out.g[i][c]);
            }
        }
        sim_result_free(&res);
        free(tex.bytes);
    }
    isa_program_destroy(p);
}
END_TEST

/* A depth-comparison sampler and the Dref instructions go together, on a depth image: any other pairing faults
 * with both slots named (Vulkan leaves it undefined). */
static const char *shadow_pair_src =
    "#version 450\n"
    "layout(local_size_x = 4) in;\n"
    "layout(set = 0, binding = 0) uniform texture2D depth;\n"
    "layout(set = 0, binding = 1) uniform sampler smp;\n"
    "layout(set = 0, binding = 2) buffer Out { float plain[4]; float shadow[4]; } o;\n"
    "layout(push_constant) uniform P { uint which; } pc;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (pc.which == 0u) o.plain[i] = textureLod(sampler2D(depth, smp), vec2(0.5), 0.0).x;\n"
    "    else o.shadow[i] = textureLod(sampler2DShadow(depth, smp), vec3(0.5, 0.5, 0.25), 0.0);\n"
    "}\n";

START_TEST(test_image_depth_compare_needs_its_sampler_and_a_depth_image)
{
    isa_program *p = build(shadow_pair_src, "glsl");
    img_image d32 = make_image(IMG_DIM_2D, IMG_FMT_D32_SFLOAT, 2, 2, 1, 1, 1);
    img_image colour = make_image(IMG_DIM_2D, IMG_FMT_R32_SFLOAT, 2, 2, 1, 1, 1);
    for (uint32_t t = 0; t < 4; t++) /* depth .5 everywhere */
        memcpy(d32.bytes + 4 * t, &(float){0.5f}, 4);
    memset(colour.bytes, 0, colour.size);
    img_sampler plain, less;
    img_sampler_default(&plain);
    less = plain;
    less.compare_op = IMG_COMPARE_LESS;
    const struct {
        uint32_t which;
        img_image *image;
        const img_sampler *smp;
        const char *fault; /* NULL: runs */
    } rows[] = {
        {1, &d32, &less, NULL},
        {0, &d32, &plain, NULL},
        {0, &d32, &less, "a sample without a depth reference with sampler 'smp', whose compare_op"},
        {1, &d32, &plain, "a depth-comparison sample with sampler 'smp', which has no compare_op"},
        {1, &colour, &less, "of image 'depth', whose format is not a depth format"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        float out[8];
        memset(out, 0x7f, sizeof out);
        uint32_t which = rows[r].which;
        sim_config cfg = {.wave_size = 4, .groups = {1, 1, 1},
                          .buffers = (sim_buffer[]){{0, 2, (uint8_t *)out, sizeof out, 0}}, .buffer_count = 1,
                          .images = (sim_image[]){{0, 0, rows[r].image, NULL, 0}, {0, 1, NULL, rows[r].smp, 0}},
                          .image_count = 2, .push = (uint8_t *)&which, .push_size = sizeof which};
        sim_result res;
        memset(&res, 0, sizeof res);
        sim_status st = sim_run(p, &cfg, &res);
        if (!rows[r].fault) {
            ck_assert_msg(st == SIM_OK, "row %zu: %s", r, res.fault_event.message);
            /* the shadow row compares: .25 < .5 holds, 1; the plain row reads the depth, .5 */
            ck_assert_float_eq(out[which ? 4 : 0], which ? 1.0f : 0.5f);
        } else {
            ck_assert_msg(st == SIM_FAULT, "row %zu: status %d", r, st);
            ck_assert_msg(strstr(res.fault_event.message, rows[r].fault) != NULL, "row %zu: %s", r,
                          res.fault_event.message);
        }
        sim_result_free(&res);
    }
    free(d32.bytes);
    free(colour.bytes);
    isa_program_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ sampling */

static const char *sample_src =
    "#version 450\n"
    "layout(local_size_x = 32) in;\n"
    "layout(set = 0, binding = 0) uniform texture2D img;\n"
    "layout(set = 0, binding = 1) uniform sampler lin;\n"
    "layout(set = 0, binding = 2) uniform sampler near;\n"
    "layout(set = 0, binding = 3) buffer Out { vec4 l[128]; vec4 n[128]; vec4 g[128]; } o;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    vec2 uv = vec2(float(i % 13u) * 0.09 - 0.1, float(i / 13u) * 0.11 - 0.05);\n"
    "    o.l[i] = textureLod(sampler2D(img, lin), uv, 0.0);\n"
    "    o.n[i] = textureLod(sampler2D(img, near), uv, 0.0);\n"
    "    o.g[i] = textureGather(sampler2D(img, lin), uv, 1);\n"
    "}\n";

/* Texel (i, j) of an 8x8 image with clamp-to-edge, component c. */
static float clamped(const img_image *im, int i, int j, int c)
{
    i = i < 0 ? 0 : i > (int)im->width - 1 ? (int)im->width - 1 : i;
    j = j < 0 ? 0 : j > (int)im->height - 1 ? (int)im->height - 1 : j;
    return texel_f(im, (uint32_t)i, (uint32_t)j, 0, 0, 0)[c];
}

START_TEST(test_image_sample_linear_nearest_gather_match_reference)
{
    isa_program *p = build(sample_src, "glsl");
    img_sampler lin = {.mag_filter = IMG_FILTER_LINEAR, .min_filter = IMG_FILTER_LINEAR,
                       .address = {IMG_ADDRESS_CLAMP_TO_EDGE, IMG_ADDRESS_CLAMP_TO_EDGE, IMG_ADDRESS_CLAMP_TO_EDGE},
                       .max_lod = 1000};
    img_sampler near = {.address = {IMG_ADDRESS_REPEAT, IMG_ADDRESS_REPEAT, IMG_ADDRESS_REPEAT}, .max_lod = 1000};
    for (size_t k = 0; k < NWAVES; k++) {
        img_image im = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 8, 8, 1, 1, 1);
        fill_pattern(&im);
        struct { float l[128][4], n[128][4], g[128][4]; } out;
        memset(&out, 0, sizeof out);
        run_env e = {.buffers = {{0, 3, (uint8_t *)&out, sizeof out, 0}}, .buffer_count = 1,
                     .images = {{0, 0, &im, NULL}, {0, 1, NULL, &lin}, {0, 2, NULL, &near}}, .image_count = 3,
                     .groups = {4, 1, 1}};
        sim_result res;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        for (uint32_t i = 0; i < 128; i++) {
            float u = (float)(i % 13u) * 0.09f - 0.1f, v = (float)(i / 13u) * 0.11f - 0.05f;
            /* Vulkan "Texel Coordinate Operations": linear: i0 = floor(u * w - 0.5), weight alpha = frac */
            float x = u * 8.0f - 0.5f, y = v * 8.0f - 0.5f;
            int i0 = (int)floorf(x), j0 = (int)floorf(y);
            float a = x - floorf(x), b = y - floorf(y);
            int ni = ((int)floorf(u * 8.0f) % 8 + 8) % 8, nj = ((int)floorf(v * 8.0f) % 8 + 8) % 8;
            for (int c = 0; c < 4; c++) {
                float want = (1 - a) * (1 - b) * clamped(&im, i0, j0, c) + a * (1 - b) * clamped(&im, i0 + 1, j0, c) +
                             (1 - a) * b * clamped(&im, i0, j0 + 1, c) + a * b * clamped(&im, i0 + 1, j0 + 1, c);
                ck_assert_msg(fabsf(out.l[i][c] - want) <= 1e-3f, "wave %u lane %u linear.%d: %.6f != %.6f",
                              wave_sizes[k], i, c, out.l[i][c], want);
                ck_assert_msg(out.n[i][c] == texel_f(&im, (uint32_t)ni, (uint32_t)nj, 0, 0, 0)[c],
                              "wave %u lane %u nearest.%d", wave_sizes[k], i, c);
            }
            /* gather: component 1 of (i0, j1), (i1, j1), (i1, j0), (i0, j0) */
            const float g[4] = {clamped(&im, i0, j0 + 1, 1), clamped(&im, i0 + 1, j0 + 1, 1),
                                clamped(&im, i0 + 1, j0, 1), clamped(&im, i0, j0, 1)};
            for (int c = 0; c < 4; c++)
                ck_assert_msg(out.g[i][c] == g[c], "wave %u lane %u gather.%d: %g != %g", wave_sizes[k], i, c,
                              out.g[i][c], g[c]);
        }
        sim_result_free(&res);
        free(im.bytes);
    }
    isa_program_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ formats through a kernel */

static const char *unorm_src =
    "#version 450\n"
    "layout(local_size_x = 16) in;\n"
    "layout(set = 0, binding = 0, rgba8) uniform image2D img;\n"
    "layout(set = 0, binding = 1) buffer Out { vec4 before[16]; } o;\n"
    "void main() {\n"
    "    ivec2 p = ivec2(gl_GlobalInvocationID.x, 0);\n"
    "    o.before[p.x] = imageLoad(img, p);\n"
    "    float f = float(p.x) / 15.0;\n"
    "    imageStore(img, p, vec4(f, 1.0 - f, f * 0.3, 2.0));\n"
    "}\n";

START_TEST(test_image_rgba8_unorm_reads_c_over_255_and_stores_rounded)
{
    isa_program *p = build(unorm_src, "glsl");
    for (size_t k = 0; k < NWAVES; k++) {
        img_image im = make_image(IMG_DIM_2D, IMG_FMT_R8G8B8A8_UNORM, 16, 1, 1, 1, 1);
        for (uint32_t b = 0; b < 64; b++)
            im.bytes[b] = (uint8_t)(b * 37u + 11u);
        uint8_t initial[64];
        memcpy(initial, im.bytes, 64);
        float out[16][4];
        run_env e = {.buffers = {{0, 1, (uint8_t *)out, sizeof out, 0}}, .buffer_count = 1,
                     .images = {{0, 0, &im, NULL}}, .image_count = 1};
        sim_result res;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        for (uint32_t x = 0; x < 16; x++) {
            float f = (float)x / 15.0f;
            const float stored[4] = {f, 1.0f - f, f * 0.3f, 2.0f};
            for (int c = 0; c < 4; c++) {
                ck_assert_msg(fabsf(out[x][c] - (float)initial[x * 4 + c] / 255.0f) <= 1e-7f, "read %u.%d", x, c);
                float cl = stored[c] > 1.0f ? 1.0f : stored[c];
                uint8_t want = (uint8_t)floorf(cl * 255.0f + 0.5f);
                ck_assert_msg(im.bytes[x * 4 + c] == want, "wave %u store %u.%d: %u != %u", wave_sizes[k], x, c,
                              im.bytes[x * 4 + c], want);
            }
        }
        sim_result_free(&res);
        free(im.bytes);
    }
    isa_program_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ atomics */

static const char *atomic_src =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0, r32ui) uniform uimage2D hist;\n"
    "layout(set = 0, binding = 1, r32i) uniform iimage2D mine;\n"
    "layout(set = 0, binding = 2) buffer Out { uint old_x[256]; int old_c[256]; } o;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    uint v = (i * 2654435761u) >> 27;\n"
    "    imageAtomicAdd(hist, ivec2(int(v % 8u), 0), 1u);\n"
    "    imageAtomicMax(hist, ivec2(0, 1), i * 7u % 251u);\n"
    "    imageAtomicMin(hist, ivec2(1, 1), i * 7u % 251u + 3u);\n"
    "    imageAtomicOr(hist, ivec2(2, 1), 1u << (i % 32u));\n"
    "    imageAtomicAnd(hist, ivec2(3, 1), ~(1u << (i % 29u)));\n"
    "    imageAtomicXor(hist, ivec2(4, 1), i);\n"
    "    imageAtomicMin(mine, ivec2(0, 0), int(i) - 100);\n"
    "    imageAtomicMax(mine, ivec2(1, 0), 50 - int(i));\n"
    "    ivec2 own = ivec2(int(i % 16u), int(i / 16u) + 2);\n"
    "    o.old_x[i] = imageAtomicExchange(hist, own, i + 1000u);\n"
    "    o.old_c[i] = imageAtomicCompSwap(mine, own, int(i) & 1, -int(i));\n"
    "}\n";

START_TEST(test_image_atomics_r32_match_sequential_reference)
{
    isa_program *p = build(atomic_src, "glsl");
    for (size_t k = 0; k < NWAVES; k++) {
        img_image hist = make_image(IMG_DIM_2D, IMG_FMT_R32_UINT, 16, 18, 1, 1, 1);
        img_image mine = make_image(IMG_DIM_2D, IMG_FMT_R32_SINT, 16, 18, 1, 1, 1);
        *texel_u(&hist, 1, 1, 0, 0, 0) = 0xffffffffu;
        *texel_u(&hist, 3, 1, 0, 0, 0) = 0xffffffffu;
        for (uint32_t t = 32; t < 16 * 18; t++) {
            ((uint32_t *)(void *)hist.bytes)[t] = t * 3u;
            ((int32_t *)(void *)mine.bytes)[t] = (int32_t)(t % 2);
        }
        uint32_t ref_hist[16 * 18];
        int32_t ref_mine[16 * 18];
        memcpy(ref_hist, hist.bytes, sizeof ref_hist);
        memcpy(ref_mine, mine.bytes, sizeof ref_mine);
        struct { uint32_t old_x[256]; int32_t old_c[256]; } out;
        memset(&out, 0, sizeof out);
        run_env e = {.buffers = {{0, 2, (uint8_t *)&out, sizeof out, 0}}, .buffer_count = 1,
                     .images = {{0, 0, &hist, NULL}, {0, 1, &mine, NULL}}, .image_count = 2, .groups = {4, 1, 1}};
        sim_result res;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t v = (i * 2654435761u) >> 27, a = i * 7u % 251u;
            ref_hist[v % 8u]++;
            ref_hist[16 + 0] = a > ref_hist[16] ? a : ref_hist[16];
            ref_hist[16 + 1] = a + 3u < ref_hist[17] ? a + 3u : ref_hist[17];
            ref_hist[16 + 2] |= 1u << (i % 32u);
            ref_hist[16 + 3] &= ~(1u << (i % 29u));
            ref_hist[16 + 4] ^= i;
            ref_mine[0] = (int32_t)i - 100 < ref_mine[0] ? (int32_t)i - 100 : ref_mine[0];
            ref_mine[1] = 50 - (int32_t)i > ref_mine[1] ? 50 - (int32_t)i : ref_mine[1];
            uint32_t own = (i / 16u + 2u) * 16u + i % 16u;
            ck_assert_uint_eq(out.old_x[i], ref_hist[own]);
            ref_hist[own] = i + 1000u;
            ck_assert_int_eq(out.old_c[i], ref_mine[own]);
            if (ref_mine[own] == (int32_t)(i & 1))
                ref_mine[own] = -(int32_t)i;
        }
        ck_assert_msg(memcmp(ref_hist, hist.bytes, sizeof ref_hist) == 0, "wave %u: r32ui image differs", wave_sizes[k]);
        ck_assert_msg(memcmp(ref_mine, mine.bytes, sizeof ref_mine) == 0, "wave %u: r32i image differs", wave_sizes[k]);
        sim_result_free(&res);
        free(hist.bytes);
        free(mine.bytes);
    }
    isa_program_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ 3D, cube, 1D arrays */

static const char *dims_src =
    "#version 450\n"
    "layout(local_size_x = 8) in;\n"
    "layout(set = 0, binding = 0) uniform sampler3D vol;\n"
    "layout(set = 0, binding = 1) uniform samplerCube cube;\n"
    "layout(set = 0, binding = 2, rgba32f) uniform readonly image1DArray rows;\n"
    "layout(set = 0, binding = 3) buffer Out { vec4 v[8]; vec4 c[8]; vec4 r[8]; uvec4 q[8]; } o;\n"
    "const vec3 dirs[8] = vec3[8](vec3(1, 0.5, 0.25), vec3(-1, 0.5, 0.25), vec3(0.25, 1, 0.5), vec3(0.25, -1, 0.5),\n"
    "                             vec3(0.25, 0.5, 1), vec3(0.25, 0.5, -1), vec3(-0.6, -0.2, 0.9), vec3(0.9, -0.7, -0.1));\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    o.v[i] = texelFetch(vol, ivec3(i % 4u, i / 4u, i % 3u), 0);\n"
    "    o.c[i] = textureLod(cube, dirs[i], 0.0);\n"
    "    o.r[i] = imageLoad(rows, ivec2(i, i % 3u));\n"
    "    o.q[i] = uvec4(textureSize(vol, 0), imageSize(rows).y);\n"
    "}\n";

START_TEST(test_image_3d_cube_1darray_address_their_texels)
{
    isa_program *p = build(dims_src, "glsl");
    img_sampler near = {.address = {IMG_ADDRESS_CLAMP_TO_EDGE, IMG_ADDRESS_CLAMP_TO_EDGE, IMG_ADDRESS_CLAMP_TO_EDGE},
                        .max_lod = 1000};
    static const float dirs[8][3] = {{1, 0.5f, 0.25f}, {-1, 0.5f, 0.25f}, {0.25f, 1, 0.5f}, {0.25f, -1, 0.5f},
                                     {0.25f, 0.5f, 1}, {0.25f, 0.5f, -1}, {-0.6f, -0.2f, 0.9f}, {0.9f, -0.7f, -0.1f}};
    for (size_t k = 0; k < NWAVES; k++) {
        img_image vol = make_image(IMG_DIM_3D, IMG_FMT_R32G32B32A32_SFLOAT, 4, 2, 3, 1, 1);
        img_image cube = make_image(IMG_DIM_CUBE, IMG_FMT_R32G32B32A32_SFLOAT, 4, 4, 1, 6, 1);
        img_image rows = make_image(IMG_DIM_1D, IMG_FMT_R32G32B32A32_SFLOAT, 8, 1, 1, 3, 1);
        fill_pattern(&vol);
        fill_pattern(&cube);
        fill_pattern(&rows);
        struct { float v[8][4], c[8][4], r[8][4]; uint32_t q[8][4]; } out;
        memset(&out, 0, sizeof out);
        run_env e = {.buffers = {{0, 3, (uint8_t *)&out, sizeof out, 0}}, .buffer_count = 1,
                     .images = {{0, 0, &vol, &near}, {0, 1, &cube, &near}, {0, 2, &rows, NULL}}, .image_count = 3};
        sim_result res;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        for (uint32_t i = 0; i < 8; i++) {
            /* Vulkan "Cube Map Face Selection": the major axis picks the face, (sc, tc) by its table */
            float rx = dirs[i][0], ry = dirs[i][1], rz = dirs[i][2], ax = fabsf(rx), ay = fabsf(ry), az = fabsf(rz);
            uint32_t face;
            float sc, tc, ma;
            if (ax >= ay && ax >= az)
                face = rx >= 0 ? 0 : 1, sc = rx >= 0 ? -rz : rz, tc = -ry, ma = ax;
            else if (ay >= az)
                face = ry >= 0 ? 2 : 3, sc = rx, tc = ry >= 0 ? rz : -rz, ma = ay;
            else
                face = rz >= 0 ? 4 : 5, sc = rz >= 0 ? rx : -rx, tc = -ry, ma = az;
            float s = 0.5f * (sc / ma + 1.0f), t = 0.5f * (tc / ma + 1.0f);
            uint32_t cx = (uint32_t)floorf(s * 4.0f), cy = (uint32_t)floorf(t * 4.0f);
            cx = cx > 3 ? 3 : cx, cy = cy > 3 ? 3 : cy;
            for (int c = 0; c < 4; c++) {
                ck_assert_msg(out.v[i][c] == pattern(i % 4, i / 4, i % 3, 0, 0, c), "wave %u 3d %u.%d", wave_sizes[k], i,
                              c);
                ck_assert_msg(out.c[i][c] == pattern(cx, cy, 0, face, 0, c), "wave %u cube %u.%d: %g, want face %u "
                              "(%u,%u)", wave_sizes[k], i, c, out.c[i][c], face, cx, cy);
                ck_assert_msg(out.r[i][c] == pattern(i, 0, 0, i % 3, 0, c), "wave %u 1d array %u.%d", wave_sizes[k], i,
                              c);
            }
            ck_assert_uint_eq(out.q[i][0], 4);
            ck_assert_uint_eq(out.q[i][1], 2);
            ck_assert_uint_eq(out.q[i][2], 3);
            ck_assert_uint_eq(out.q[i][3], 3);
        }
        sim_result_free(&res);
        free(vol.bytes);
        free(cube.bytes);
        free(rows.bytes);
    }
    isa_program_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ out of bounds */

static const char *oob_src =
    "#version 450\n"
    "layout(local_size_x = 16) in;\n"
    "layout(set = 0, binding = 0, rgba32f) uniform readonly image2D src;\n"
    "layout(set = 0, binding = 1) buffer Out { vec4 v[16]; } o;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    o.v[i] = imageLoad(src, ivec2(i + 3u, 1));\n"
    "}\n";

START_TEST(test_image_out_of_bounds_faults_or_reads_zero_when_robust)
{
    isa_program *p = build(oob_src, "glsl");
    for (size_t k = 0; k < NWAVES; k++) {
        img_image src = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 16, 2, 1, 1, 1);
        fill_pattern(&src);
        float out[16][4];
        memset(out, 0x7f, sizeof out);
        run_env e = {.buffers = {{0, 1, (uint8_t *)out, sizeof out, 0}}, .buffer_count = 1,
                     .images = {{0, 0, &src, NULL}}, .image_count = 1};
        sim_result res;
        sim_status st = run(p, &e, wave_sizes[k], &res);
        ck_assert_int_eq(st, SIM_FAULT);
        ck_assert_int_eq(res.fault, SIM_FAULT_OUT_OF_BOUNDS);
        /* lane 13 is the first with x = 16: its wave and lane in the wave */
        ck_assert_int_eq(res.fault_event.where.lane, (int)(13 % wave_sizes[k]));
        ck_assert_uint_eq(res.fault_event.where.wave, 13 / wave_sizes[k]);
        ck_assert_msg(strstr(res.fault_event.message, "texel (16, 1, 0)") != NULL, "%s", res.fault_event.message);
        ck_assert_msg(strstr(res.fault_event.message, "'src'") != NULL, "%s", res.fault_event.message);
        sim_result_free(&res);
        e.robust = 1;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        for (uint32_t i = 0; i < 16; i++)
            for (int c = 0; c < 4; c++)
                ck_assert(out[i][c] == (i + 3 < 16 ? pattern(i + 3, 1, 0, 0, 0, c) : 0.0f));
        ck_assert_uint_eq(res.stats.robust_loads, 3);
        sim_result_free(&res);
        free(src.bytes);
    }
    isa_program_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ multisampled images */

static const char *ms_src =
    "#version 450\n"
    "layout(local_size_x = 8, local_size_y = 4) in;\n"
    "layout(set = 0, binding = 0, rgba32f) uniform readonly image2DMSArray src;\n"
    "layout(set = 0, binding = 1, r32ui) uniform uimage2DMS counts;\n"
    "layout(set = 0, binding = 2, rgba32f) uniform writeonly image2DMS dst;\n"
    "layout(set = 0, binding = 3) buffer Out { vec4 sum[32]; vec4 last[32]; ivec4 q; } o;\n"
    "layout(push_constant) uniform P { int extra; } pc;\n"
    "void main() {\n"
    "    ivec2 p = ivec2(gl_LocalInvocationID.xy);\n"
    "    uint i = gl_LocalInvocationIndex;\n"
    "    int n = imageSamples(src);\n"
    "    vec4 sum = vec4(0.0);\n"
    "    for (int s = 0; s < n; s++)\n"
    "        sum += imageLoad(src, ivec3(p, 1), s);\n"
    "    o.sum[i] = sum;\n"
    "    o.last[i] = imageLoad(src, ivec3(p, 0), n - 1 + pc.extra);\n"
    "    imageAtomicAdd(counts, ivec2(p.x / 2, 0), p.y, i + 1u);\n"
    "    for (int s = 0; s < imageSamples(dst); s++)\n"
    "        imageStore(dst, p, s, vec4(p, s, i));\n"
    "    if (i == 0u)\n"
    "        o.q = ivec4(n, imageSamples(counts), imageSize(src).z, imageSize(counts).x);\n"
    "}\n";

/* Byte offset of (x, y) of layer/sample in a multisampled image of one mip: each layer's samples are planes one
 * after another (docs/case-format.md), computed here rather than by img/. */
static size_t ms_offset(uint32_t w, uint32_t h, uint32_t samples, uint32_t tb, uint32_t x, uint32_t y,
                        uint32_t layer, uint32_t sample)
{
    return ((((size_t)layer * samples + sample) * h + y) * w + x) * tb;
}

static float ms_pattern(uint32_t x, uint32_t y, uint32_t layer, uint32_t sample, int c)
{
    return (float)(x + 16 * y + 1000 * layer + 100 * sample) + 0.25f * (float)c;
}

START_TEST(test_image_multisampled_load_store_atomic_query)
{
    isa_program *p = build(ms_src, "glsl");
    enum { S = 4 };
    for (size_t k = 0; k < NWAVES; k++) {
        img_image src = {.dim = IMG_DIM_2D, .format = IMG_FMT_R32G32B32A32_SFLOAT, .width = 8, .height = 4,
                         .depth = 1, .layers = 2, .mip_levels = 1, .samples = S};
        img_image counts = {.dim = IMG_DIM_2D, .format = IMG_FMT_R32_UINT, .width = 4, .height = 4, .depth = 1,
                            .layers = 1, .mip_levels = 1, .samples = S};
        img_image dst = {.dim = IMG_DIM_2D, .format = IMG_FMT_R32G32B32A32_SFLOAT, .width = 8, .height = 4,
                         .depth = 1, .layers = 1, .mip_levels = 1, .samples = S};
        src.size = 8 * 4 * 2 * S * 16, counts.size = 4 * 4 * S * 4, dst.size = 8 * 4 * S * 16;
        src.bytes = calloc(1, src.size), counts.bytes = calloc(1, counts.size), dst.bytes = calloc(1, dst.size);
        for (uint32_t l = 0; l < 2; l++)
            for (uint32_t s = 0; s < S; s++)
                for (uint32_t y = 0; y < 4; y++)
                    for (uint32_t x = 0; x < 8; x++)
                        for (int c = 0; c < 4; c++)
                            ((float *)(void *)(src.bytes + ms_offset(8, 4, S, 16, x, y, l, s)))[c] =
                                ms_pattern(x, y, l, s, c);
        for (uint32_t t = 0; t < 4 * 4 * S; t++)
            ((uint32_t *)(void *)counts.bytes)[t] = 7u * t;
        struct { float sum[32][4], last[32][4]; int32_t q[4]; } out;
        memset(&out, 0, sizeof out);
        int32_t extra = 0;
        run_env e = {.buffers = {{0, 3, (uint8_t *)&out, sizeof out, 0}}, .buffer_count = 1,
                     .images = {{0, 0, &src, NULL}, {0, 1, &counts, NULL}, {0, 2, &dst, NULL}}, .image_count = 3,
                     .push = &extra, .push_size = sizeof extra};
        sim_result res;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        sim_result_free(&res);
        ck_assert_int_eq(out.q[0], S);
        ck_assert_int_eq(out.q[1], S);
        ck_assert_int_eq(out.q[2], 2);
        ck_assert_int_eq(out.q[3], 4);
        for (uint32_t i = 0; i < 32; i++) {
            uint32_t x = i % 8, y = i / 8;
            for (int c = 0; c < 4; c++) {
                float want = 0.0f;
                for (uint32_t s = 0; s < S; s++)
                    want += ms_pattern(x, y, 1, s, c);
                ck_assert_msg(out.sum[i][c] == want, "wave %u lane %u: %g, want %g", wave_sizes[k], i,
                              (double)out.sum[i][c], (double)want);
                ck_assert(out.last[i][c] == ms_pattern(x, y, 0, S - 1, c));
            }
        }
        /* counts: texel (x / 2, 0), sample y gets i + 1 from both invocations of its pair */
        for (uint32_t s = 0; s < S; s++)
            for (uint32_t y = 0; y < 4; y++)
                for (uint32_t x = 0; x < 4; x++) {
                    uint32_t plane = s, t = (plane * 4 + y) * 4 + x, want = 7u * t;
                    if (y == 0)
                        want += (8 * s + 2 * x + 1) + (8 * s + 2 * x + 2);
                    ck_assert_uint_eq(((uint32_t *)(void *)counts.bytes)[t], want);
                }
        for (uint32_t s = 0; s < S; s++)
            for (uint32_t y = 0; y < 4; y++)
                for (uint32_t x = 0; x < 8; x++) {
                    const float *v = (const float *)(const void *)(dst.bytes + ms_offset(8, 4, S, 16, x, y, 0, s));
                    ck_assert(v[0] == (float)x && v[1] == (float)y && v[2] == (float)s && v[3] == (float)(y * 8 + x));
                }
        /* sample n is past the image's samples: a fault naming it; under robust access a zero texel */
        extra = 1;
        ck_assert_int_eq(run(p, &e, wave_sizes[k], &res), SIM_FAULT);
        ck_assert_int_eq(res.fault, SIM_FAULT_OUT_OF_BOUNDS);
        ck_assert_msg(strstr(res.fault_event.message, "layer 0 sample 4") != NULL, "%s", res.fault_event.message);
        sim_result_free(&res);
        e.robust = 1;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        for (uint32_t i = 0; i < 32; i++)
            for (int c = 0; c < 4; c++)
                ck_assert(out.last[i][c] == 0.0f);
        sim_result_free(&res);
        /* a single-sampled binding for a multisampled declaration */
        e.robust = 0, extra = 0;
        dst.samples = 1;
        ck_assert_int_ne(run(p, &e, wave_sizes[k], &res), SIM_OK);
        ck_assert_msg(strstr(res.fault_event.message, "1 sample per texel but the kernel declares a multisampled")
                      != NULL, "%s", res.fault_event.message);
        sim_result_free(&res);
        free(src.bytes), free(counts.bytes), free(dst.bytes);
    }
    isa_program_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ what is not modelled */

static isa_status lower_error(const char *src, char *msg, size_t size)
{
    isa_program *prog = NULL;
    isa_status st = tsup_build(src, "kernel.comp", "glsl", NULL, &prog, msg, size, NULL, 0);
    isa_program_destroy(prog);
    return st;
}

START_TEST(test_image_unmodelled_operations_fail_with_word_offset)
{
    static const char *const srcs[] = {
        /* a gather offset that is not a constant (constant ones are modelled:
         * test_image_sample_and_gather_offsets_move_the_levels_texels; projective sampling too: sample_proj.json) */
        "#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 0) uniform sampler2D t;\n"
        "layout(binding = 1) buffer O { vec4 v; ivec2 off; } o;\n"
        "void main() { o.v = textureGatherOffset(t, vec2(0.5), o.off); }\n",
        /* (a separate sampler picked from an array at run time is modelled: kernels/bindless/sampler_index.json) */
    };
    static const char *const words[] = {"a sampling or gather offset that is not a constant"};
    for (size_t k = 0; k < sizeof srcs / sizeof srcs[0]; k++) {
        char msg[2048] = "";
        isa_status st = lower_error(srcs[k], msg, sizeof msg);
        ck_assert_msg(st == ISA_ERR_UNSUPPORTED, "%zu: status %d: %s", k, st, msg);
        ck_assert_msg(strstr(msg, words[k]) != NULL, "%zu: %s", k, msg);
        ck_assert_msg(strstr(msg, "SPIR-V word") != NULL, "%zu: %s", k, msg);
    }
}
END_TEST

/* ------------------------------------------------------------ HLSL */

static const char *hlsl_src =
    "[[vk::binding(0, 0)]] Texture2D<float4> src;\n"
    "[[vk::binding(1, 0)]] SamplerState smp;\n"
    "[[vk::binding(2, 0)]] RWTexture2D<float4> dst;\n"
    "[numthreads(8, 8, 1)]\n"
    "void main(uint3 id : SV_DispatchThreadID) {\n"
    "    uint w, h;\n"
    "    dst.GetDimensions(w, h);\n"
    "    float2 uv = (float2(id.xy) + 0.5) / float2(w, h);\n"
    "    dst[id.xy] = src.Load(int3(id.xy, 0)) + src.SampleLevel(smp, uv, 0) * float4(1, 0, 0, 0)"
    " + dst[id.xy];\n"
    "}\n";

START_TEST(test_image_hlsl_load_samplelevel_rwtexture)
{
    isa_program *p = build(hlsl_src, "hlsl");
    img_sampler near = {.max_lod = 1000};
    for (size_t k = 0; k < NWAVES; k++) {
        img_image src = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 16, 8, 1, 1, 1);
        img_image dst = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 16, 8, 1, 1, 1);
        fill_pattern(&src);
        for (uint32_t y = 0; y < 8; y++)
            for (uint32_t x = 0; x < 16; x++)
                for (int c = 0; c < 4; c++)
                    texel_f(&dst, x, y, 0, 0, 0)[c] = (float)c;
        run_env e = {.images = {{0, 0, &src, NULL}, {0, 1, NULL, &near}, {0, 2, &dst, NULL}}, .image_count = 3,
                     .groups = {2, 1, 1}};
        sim_result res;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        for (uint32_t y = 0; y < 8; y++)
            for (uint32_t x = 0; x < 16; x++)
                for (int c = 0; c < 4; c++) {
                    float want = pattern(x, y, 0, 0, 0, c) * (c == 0 ? 2.0f : 1.0f) + (float)c;
                    ck_assert_msg(texel_f(&dst, x, y, 0, 0, 0)[c] == want, "wave %u (%u,%u).%d: %g != %g",
                                  wave_sizes[k], x, y, c, texel_f(&dst, x, y, 0, 0, 0)[c], want);
                }
        sim_result_free(&res);
        free(src.bytes);
        free(dst.bytes);
    }
    isa_program_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ the memory trace */

typedef struct trace_log {
    uint64_t addr[64];
    int n;
    uint16_t elem_bytes;
} trace_log;

static void log_access(void *user, const sim_mem_access *a)
{
    trace_log *t = user;
    if (a->op != ISA_OP_IMG_LOAD)
        return;
    t->elem_bytes = a->elem_bytes;
    for (uint32_t l = 0; l < a->wave_size && t->n < 64; l++)
        if ((a->exec >> l) & 1)
            t->addr[t->n++] = a->addr[l];
}

START_TEST(test_image_trace_linear_addresses_are_packed_offsets)
{
    isa_program *p = build(oob_src, "glsl");
    img_image src = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 32, 2, 1, 1, 1);
    float out[16][4];
    trace_log log = {0};
    sim_mem_trace trace = {log_access, &log, NULL};
    run_env e = {.buffers = {{0, 1, (uint8_t *)out, sizeof out, 0}}, .buffer_count = 1,
                 .images = {{0, 0, &src, NULL}}, .image_count = 1, .trace = &trace};
    sim_result res;
    assert_ok(run(p, &e, 8, &res), &res, 8);
    ck_assert_int_eq(log.n, 16);
    ck_assert_uint_eq(log.elem_bytes, 16);
    for (uint32_t i = 0; i < 16; i++)
        ck_assert_uint_eq(log.addr[i], ref_offset(&src, i + 3, 1, 0, 0, 0));
    sim_result_free(&res);
    /* the tiled layouts: each lane's texel placed by img_layout_address (img/'s own tests check the layouts) */
    for (int layout = IMG_LAYOUT_NV_BLOCKLINEAR; layout <= IMG_LAYOUT_AMD_SWIZZLE; layout++) {
        memset(&log, 0, sizeof log);
        e.image_layout = layout;
        assert_ok(run(p, &e, 8, &res), &res, 8);
        ck_assert_int_eq(log.n, 16);
        for (uint32_t i = 0; i < 16; i++)
            ck_assert_uint_eq(log.addr[i], img_layout_address(&src, (img_layout)layout, i + 3, 1, 0, 0, 0));
        sim_result_free(&res);
    }
    free(src.bytes);
    isa_program_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ presets and the listing */

START_TEST(test_image_presets_name_their_layout_and_bad_names_fail)
{
    static const struct { const char *preset; img_layout layout; } want[] = {
        {"lavapipe", IMG_LAYOUT_LINEAR}, {"hopper_h100", IMG_LAYOUT_NV_BLOCKLINEAR},
        {"turing_rtx2080", IMG_LAYOUT_NV_BLOCKLINEAR}, {"rdna2", IMG_LAYOUT_AMD_SWIZZLE},
        {"gcn_vega64", IMG_LAYOUT_AMD_SWIZZLE}};
    char err[512];
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        mem_machine m;
        ck_assert_msg(mem_machine_load(want[k].preset, &m, err, sizeof err) == MEM_OK, "%s", err);
        ck_assert_uint_eq(m.image_layout, want[k].layout);
    }
    /* a preset with a layout the model does not know: one error naming the field */
    mem_machine m;
    ck_assert(mem_machine_load("lavapipe", &m, err, sizeof err) == MEM_OK);
    char path[1024];
    snprintf(path, sizeof path, "%s", m.path);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char *at = strstr(text, "\"image_layout\": \"linear\"");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "\"image_layout\": \"tiled!\"", strlen("\"image_layout\": \"linear\""));
    ck_assert(mem_machine_parse(text, "bad.json", &m, err, sizeof err) != MEM_OK);
    ck_assert_msg(strstr(err, "image_layout") != NULL, "%s", err);
}
END_TEST

START_TEST(test_image_listing_names_image_ops_and_slots)
{
    isa_program *p = build(sample_src, "glsl");
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    isa_program_print(p, f);
    fclose(f);
    static const char *const want[] = {"img_sample.f32", "img_gather.f32", "sampled_image", "sampler", "lin", "near",
                                       "component 1"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        ck_assert_msg(strstr(text, want[k]) != NULL, "'%s' missing from\n%s", want[k], text);
    free(text);
    isa_program_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ formats from the binding */

static const char *unformatted_src =
    "#version 450\n"
    "#extension GL_EXT_shader_image_load_formatted : require\n"
    "layout(local_size_x = 16) in;\n"
    "layout(set = 0, binding = 0) uniform readonly image2D img;\n"
    "layout(set = 0, binding = 1) buffer Out { vec4 v[16]; } o;\n"
    "void main() { o.v[gl_GlobalInvocationID.x] = imageLoad(img, ivec2(gl_GlobalInvocationID.x, 0)); }\n";

START_TEST(test_image_unknown_format_reads_the_binding_format_and_mismatch_is_config_error)
{
    isa_program *p = build(unformatted_src, "glsl");
    img_image im = make_image(IMG_DIM_2D, IMG_FMT_R8G8B8A8_UNORM, 16, 1, 1, 1, 1);
    for (uint32_t b = 0; b < 64; b++)
        im.bytes[b] = (uint8_t)(b * 53u + 7u);
    float out[16][4];
    run_env e = {.buffers = {{0, 1, (uint8_t *)out, sizeof out, 0}}, .buffer_count = 1,
                 .images = {{0, 0, &im, NULL}}, .image_count = 1};
    sim_result res;
    assert_ok(run(p, &e, 8, &res), &res, 8);
    for (uint32_t x = 0; x < 16; x++)
        for (int c = 0; c < 4; c++)
            ck_assert(fabsf(out[x][c] - (float)(uint8_t)((x * 4 + (uint32_t)c) * 53u + 7u) / 255.0f) <= 1e-7f);
    sim_result_free(&res);
    isa_program_destroy(p);
    /* a kernel that declares rgba32f given an rgba8 image: refused before anything runs */
    p = build(copy_src, "glsl");
    img_image dst = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 16, 1, 1, 1, 1);
    run_env bad = {.images = {{0, 0, &im, NULL}, {0, 1, &dst, NULL}}, .image_count = 2};
    ck_assert_int_eq(run(p, &bad, 8, &res), SIM_ERR_CONFIG);
    ck_assert_msg(strstr(res.fault_event.message, "r8g8b8a8_unorm") != NULL, "%s", res.fault_event.message);
    sim_result_free(&res);
    /* and a missing image binding names the variable */
    bad.images[0].image = &dst;
    bad.image_count = 1;
    ck_assert_int_eq(run(p, &bad, 8, &res), SIM_ERR_CONFIG);
    ck_assert_int_eq(res.fault, SIM_FAULT_MISSING_BINDING);
    ck_assert_msg(strstr(res.fault_event.message, "'dst'") != NULL, "%s", res.fault_event.message);
    sim_result_free(&res);
    free(im.bytes);
    free(dst.bytes);
    isa_program_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ explicit gradients */

static const char *grad_src =
    "#version 450\n"
    "layout(local_size_x = 32) in;\n"
    "layout(set = 0, binding = 0) uniform sampler2D tex;\n"
    "layout(set = 0, binding = 1) buffer Out { vec4 v[32]; } o;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    vec2 uv = vec2(float(i % 8u) + 0.5, float(i / 8u) + 0.5) / vec2(8.0, 4.0);\n"
    "    float s = float(1u << (i % 3u));\n"
    "    o.v[i] = textureGrad(tex, uv, vec2(s / 16.0, 0.0), vec2(0.0, 0.5 / 8.0));\n"
    "}\n";

START_TEST(test_image_grad_picks_the_mip_of_log2_rho)
{
    isa_program *p = build(grad_src, "glsl");
    img_sampler near = {.address = {IMG_ADDRESS_CLAMP_TO_EDGE, IMG_ADDRESS_CLAMP_TO_EDGE, IMG_ADDRESS_CLAMP_TO_EDGE},
                        .max_lod = 1000};
    for (size_t k = 0; k < NWAVES; k++) {
        img_image tex = make_image(IMG_DIM_2D, IMG_FMT_R32G32B32A32_SFLOAT, 16, 8, 1, 1, 3);
        fill_pattern(&tex);
        float out[32][4];
        run_env e = {.buffers = {{0, 1, (uint8_t *)out, sizeof out, 0}}, .buffer_count = 1,
                     .images = {{0, 0, &tex, &near}}, .image_count = 1};
        sim_result res;
        assert_ok(run(p, &e, wave_sizes[k], &res), &res, wave_sizes[k]);
        for (uint32_t i = 0; i < 32; i++) {
            /* rho = max(s / 16 * 16, 0.5 / 8 * 8) = s texels of mip 0: lod log2(s) = i % 3; mipmap nearest */
            uint32_t mip = i % 3, mw = 16 >> mip, mh = 8 >> mip;
            float u = ((float)(i % 8) + 0.5f) / 8.0f, v = ((float)(i / 8) + 0.5f) / 4.0f;
            uint32_t x = (uint32_t)floorf(u * (float)mw), y = (uint32_t)floorf(v * (float)mh);
            for (int c = 0; c < 4; c++)
                ck_assert_msg(out[i][c] == pattern(x, y, 0, 0, mip, c), "wave %u lane %u.%d: %g, want mip %u (%u,%u)",
                              wave_sizes[k], i, c, out[i][c], mip, x, y);
        }
        sim_result_free(&res);
        free(tex.bytes);
    }
    isa_program_destroy(p);
}
END_TEST


/* The memory-model lines of a run's summary (from "memory (" on): what the image layout can change. */
static char *memory_lines(const char *args)
{
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "wavelab %s: exit %d\n%s", args, rc, out ? out : "");
    char *m = strstr(out, "memory (");
    ck_assert_msg(m != NULL, "no memory summary:\n%s", out);
    char *copy = strdup(m);
    free(out);
    return copy;
}

START_TEST(test_image_layout_option_equals_a_preset_with_that_layout)
{
    /* the override must give what a preset file saying the same layout gives, and differ from the other layout */
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char src[1024], dst[1200];
    snprintf(src, sizeof src, "%s/machines/turing_rtx2080.json", tsup_root());
    FILE *f = fopen(src, "r");
    ck_assert_ptr_nonnull(f);
    static char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char *at = strstr(text, "\"nv_blocklinear\"");
    ck_assert_msg(at != NULL, "the Turing preset's image layout is nv_blocklinear");
    static char edited[65600];
    snprintf(edited, sizeof edited, "%.*s\"linear\"%s", (int)(at - text), text, at + strlen("\"nv_blocklinear\""));
    free(tsup_write_file(dir, "turing_linear.json", edited));
    snprintf(dst, sizeof dst, "%s/turing_linear.json", dir);
    char a[4096], b[4096], c[4096];
    const char *kase = "kernels/004_swizzle/swizzle_image_load_row_major_168x24.json";
    snprintf(a, sizeof a, "run '%s/%s' --wave 32 --machine turing_rtx2080 --image-layout linear", tsup_root(), kase);
    snprintf(b, sizeof b, "run '%s/%s' --wave 32 --machine '%s'", tsup_root(), kase, dst);
    snprintf(c, sizeof c, "run '%s/%s' --wave 32 --machine turing_rtx2080", tsup_root(), kase);
    char *with_option = memory_lines(a), *with_preset = memory_lines(b), *own = memory_lines(c);
    /* the preset's name differs between the first two lines; compare from the statistics on */
    const char *sa = strstr(with_option, "\n"), *sb = strstr(with_preset, "\n");
    ck_assert_str_eq(sa, sb);
    ck_assert_str_ne(sa, strstr(own, "\n"));
    free(with_option);
    free(with_preset);
    free(own);
    char *out = NULL;
    snprintf(a, sizeof a, "run '%s/%s' --machine turing_rtx2080 --image-layout tiled", tsup_root(), kase);
    ck_assert_int_eq(tsup_run_cli(a, &out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--image-layout"));
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

static Suite *image_sim_suite(void)
{
    Suite *s = suite_create("image_sim");
    TCase *tc = tcase_create("image_sim");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_image_storage_rgba32f_load_store_mirrors);
    tcase_add_test(tc, test_image_fetch_each_mip_reads_its_texels);
    tcase_add_test(tc, test_image_fetch_offset_moves_the_texel_not_the_layer);
    tcase_add_test(tc, test_image_sample_and_gather_offsets_move_the_levels_texels);
    tcase_add_test(tc, test_image_depth_compare_needs_its_sampler_and_a_depth_image);
    tcase_add_test(tc, test_image_sample_linear_nearest_gather_match_reference);
    tcase_add_test(tc, test_image_rgba8_unorm_reads_c_over_255_and_stores_rounded);
    tcase_add_test(tc, test_image_atomics_r32_match_sequential_reference);
    tcase_add_test(tc, test_image_3d_cube_1darray_address_their_texels);
    tcase_add_test(tc, test_image_out_of_bounds_faults_or_reads_zero_when_robust);
    tcase_add_test(tc, test_image_multisampled_load_store_atomic_query);
    tcase_add_test(tc, test_image_unmodelled_operations_fail_with_word_offset);
    tcase_add_test(tc, test_image_hlsl_load_samplelevel_rwtexture);
    tcase_add_test(tc, test_image_trace_linear_addresses_are_packed_offsets);
    tcase_add_test(tc, test_image_presets_name_their_layout_and_bad_names_fail);
    tcase_add_test(tc, test_image_listing_names_image_ops_and_slots);
    tcase_add_test(tc, test_image_grad_picks_the_mip_of_log2_rho);
    tcase_add_test(tc, test_image_unknown_format_reads_the_binding_format_and_mismatch_is_config_error);
    tcase_add_test(tc, test_image_layout_option_equals_a_preset_with_that_layout);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tsup_run_suite(image_sim_suite(), "image_sim"); }
