/*
 * tests/test_case_image.c — the case format's images and samplers (case/case_image.c): bindings encoded from
 * values given in shader terms, sampler fields and their defaults, the errors that name the file and field,
 * image expectations compared on decoded components, PNG files in and out, and the format table as
 * docs/case-format.md documents it.  (tests/test_image.c tests img/ itself.)
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/case.h"
#include "img/img.h"
#include "tests/support/tsup.h"

#include <png.h>

/* ---- the case format's images (case/case_image.c) ----------------------------------------------------- */

static char *quoted(const char *single_quoted)
{
    char *s = strdup(single_quoted);
    ck_assert_ptr_nonnull(s);
    for (char *k = s; *k; k++)
        if (*k == '\'')
            *k = '"';
    return s;
}

static wl_case *parse_case(const char *bindings, const char *expect, const char *path)
{
    char text[8192], err[512] = "";
    snprintf(text, sizeof text, "{'kernel': 'k.comp', 'bindings': [%s]%s%s}", bindings, expect ? ", 'expect': " : "",
             expect ? expect : "");
    char *json = quoted(text);
    wl_case *c = NULL;
    case_status st = case_parse(json, path, &c, err, sizeof err);
    free(json);
    ck_assert_msg(st == CASE_OK, "%s: %s", bindings, err);
    return c;
}

static void case_fails(const char *bindings, const char *expect, const char *needle)
{
    char text[8192], err[512] = "";
    snprintf(text, sizeof text, "{'kernel': 'k.comp', 'bindings': [%s]%s%s}", bindings, expect ? ", 'expect': " : "",
             expect ? expect : "");
    char *json = quoted(text);
    wl_case *c = (wl_case *)1;
    case_status st = case_parse(json, "t.json", &c, err, sizeof err);
    free(json);
    ck_assert_msg(st == CASE_ERR_FIELD, "status %d for %s (%s)", (int)st, bindings, err);
    ck_assert_ptr_null(c);
    ck_assert_msg(strncmp(err, "t.json: ", 8) == 0, "message lacks the file: %s", err);
    ck_assert_msg(strstr(err, needle), "message \"%s\" lacks \"%s\"", err, needle);
}

START_TEST(test_case_image_binding_encodes_data_in_shader_terms)
{
    wl_case *c = parse_case("{'binding': 0, 'kind': 'storage_image', 'format': 'rgba8', 'extent': [2, 1],"
                            " 'data': [0, 0.5, 1, 0.2,  1, 1, 0, 0]}", NULL, "t.json");
    const case_binding *b = &c->bindings[0];
    ck_assert_int_eq(b->kind, CASE_KIND_STORAGE_IMAGE);
    ck_assert_int_eq(b->type, CASE_TYPE_F32);
    ck_assert_int_eq(b->image.format, IMG_FMT_R8G8B8A8_UNORM);
    ck_assert_int_eq(b->image.dim, IMG_DIM_2D);
    ck_assert_uint_eq(b->image.width, 2);
    ck_assert_uint_eq(b->image.height, 1);
    ck_assert_uint_eq(b->image.layers, 1);
    ck_assert_uint_eq(b->count, 2);
    ck_assert_uint_eq(b->size, 8);
    ck_assert_ptr_eq(b->image.bytes, b->bytes);
    /* 0.5 * 255 = 127.5 -> 128 (ties to even); 0.2 * 255 = 51 */
    static const uint8_t want[8] = {0, 128, 255, 51, 255, 255, 0, 0};
    ck_assert_mem_eq(b->bytes, want, 8);
    case_destroy(c);

    /* integer formats take integers; layers and mips: a 2x2 r32i with 2 layers and 2 mips = 10 texels */
    c = parse_case("{'binding': 1, 'kind': 'sampled_image', 'format': 'r32_sint', 'extent': [2, 2], 'layers': 2,"
                   " 'mip_levels': 2, 'data': [-1, 2, -3, 4, 5]}", NULL, "t.json");
    b = &c->bindings[0];
    ck_assert_int_eq(b->type, CASE_TYPE_I32);
    ck_assert_uint_eq(b->count, 10);
    int32_t words[10];
    memcpy(words, b->bytes, sizeof words);
    ck_assert_int_eq(words[0], -1);
    ck_assert_int_eq(words[4], 5);
    ck_assert_int_eq(words[9], 0); /* not given: zero */
    uint8_t *values;
    size_t count;
    ck_assert_int_eq(case_image_components(b, 0, 1, &values, &count), CASE_OK);
    ck_assert_uint_eq(count, 4);
    memcpy(words, values, 16);
    ck_assert_int_eq(words[0], 5); /* layer 1 starts at texel 4 */
    free(values);
    ck_assert_int_eq(case_image_components(b, 1, 0, &values, &count), CASE_OK);
    ck_assert_uint_eq(count, 1);
    free(values);
    ck_assert_int_eq(case_image_components(b, 2, 0, &values, &count), CASE_ERR_FIELD);
    case_destroy(c);

    /* fill: one texel repeated, or a scalar for every component; cubes default to 6 layers */
    c = parse_case("{'binding': 0, 'kind': 'combined_image_sampler', 'format': 'r16g16_sfloat', 'dim': 'cube',"
                   " 'extent': [2, 2], 'fill': {'value': [1.5, -2]}, 'sampler': {}}", NULL, "t.json");
    b = &c->bindings[0];
    ck_assert_uint_eq(b->image.layers, 6);
    ck_assert_uint_eq(b->count, 24);
    for (size_t t = 0; t < 24; t++) {
        ck_assert_uint_eq(b->bytes[t * 4] | b->bytes[t * 4 + 1] << 8, 0x3e00);     /* half 1.5 */
        ck_assert_uint_eq(b->bytes[t * 4 + 2] | b->bytes[t * 4 + 3] << 8, 0xc000); /* half -2 */
    }
    ck_assert(b->has_sampler);
    case_destroy(c);
    c = parse_case("{'binding': 0, 'kind': 'storage_image', 'format': 'r8_uint', 'dim': '1d', 'extent': [3],"
                   " 'fill': {'value': 300}}", NULL, "t.json");
    ck_assert_uint_eq(c->bindings[0].bytes[2], 255); /* clamped on encode */
    case_destroy(c);
}
END_TEST

START_TEST(test_case_image_sampler_fields_parse_with_defaults)
{
    wl_case *c = parse_case("{'binding': 3, 'kind': 'sampler', 'sampler': {'mag_filter': 'linear',"
                            " 'address_mode': ['repeat', 'clamp_to_border'], 'border_color': 'int_opaque_white',"
                            " 'unnormalized_coordinates': true, 'mip_lod_bias': 0.5, 'max_lod': 2}}",
                            NULL, "t.json");
    const img_sampler *s = &c->bindings[0].sampler;
    ck_assert(c->bindings[0].has_sampler);
    ck_assert_int_eq(s->mag_filter, IMG_FILTER_LINEAR);
    ck_assert_int_eq(s->min_filter, IMG_FILTER_NEAREST);
    ck_assert_int_eq(s->mipmap_mode, IMG_MIPMAP_NEAREST);
    ck_assert_int_eq(s->address[0], IMG_ADDRESS_REPEAT);
    ck_assert_int_eq(s->address[1], IMG_ADDRESS_CLAMP_TO_BORDER);
    ck_assert_int_eq(s->address[2], IMG_ADDRESS_CLAMP_TO_BORDER);
    ck_assert_int_eq(s->border, IMG_BORDER_INT_OPAQUE_WHITE);
    ck_assert_int_eq(s->unnormalized, 1);
    ck_assert_float_eq(s->mip_lod_bias, 0.5f);
    ck_assert_float_eq(s->min_lod, 0.0f);
    ck_assert_float_eq(s->max_lod, 2.0f);
    case_destroy(c);
}
END_TEST

START_TEST(test_case_image_errors_name_the_file_and_field)
{
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'rgba9', 'extent': [1, 1]}", NULL,
               "bindings[0].format: unknown image format \"rgba9\"");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'rgba8', 'extent': [1, 1, 1]}", NULL,
               "bindings[0].extent: expected an array of 2 positive integers");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'rgba8', 'extent': [1, 0]}", NULL,
               "bindings[0].extent[1]: expected an integer in 1..16384");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'rgba8', 'extent': [1e309, 1]}", NULL,
               "bindings[0].extent[0]: expected an integer in 1..16384, got a number out of range");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'rgba8'}", NULL, "bindings[0].extent: missing");
    case_fails("{'binding': 0, 'kind': 'sampled_image', 'format': 'rgba8', 'dim': 'cube', 'extent': [2, 4]}", NULL,
               "bindings[0].extent: a cube's faces are square");
    case_fails("{'binding': 0, 'kind': 'sampled_image', 'format': 'rgba8', 'dim': 'cube', 'extent': [2, 2],"
               " 'layers': 7}", NULL, "bindings[0].layers: a cube image has 6 layers per cube");
    case_fails("{'binding': 0, 'kind': 'sampled_image', 'format': 'rgba8', 'dim': '4d', 'extent': [2, 2]}", NULL,
               "bindings[0].dim: unknown dimension \"4d\"");
    case_fails("{'binding': 0, 'kind': 'sampled_image', 'format': 'rgba8', 'extent': [4, 4], 'mip_levels': 4}",
               NULL, "bindings[0].mip_levels: 4 is too large (at most 3)");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'rgba8', 'extent': [2, 1], 'data': [1, 2, 3]}",
               NULL, "bindings[0].data: 3 values: give whole texels (4 components each)");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32ui', 'extent': [2, 1], 'data': [1.5, 2]}",
               NULL, "bindings[0].data[0]");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'type': 'u32', 'extent': [1, 1]}", NULL,
               "bindings[0].type: \"u32\" does not match the format");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'extent': [1, 1], 'count': 3}", NULL,
               "bindings[0].count: unknown field");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'extent': [1, 1], 'file': 'x.png'}", NULL,
               "bindings[0].file: a PNG gives 8-bit unorm, srgb or uint formats");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'rgba8', 'file': 'no-such.png'}", NULL,
               "bindings[0].file: cannot read");
    case_fails("{'binding': 0, 'kind': 'sampler'}", NULL, "bindings[0].sampler: missing");
    case_fails("{'binding': 0, 'kind': 'sampler', 'sampler': {'address_mode': ['repeat', 'wrap']}}", NULL,
               "bindings[0].sampler.address_mode[1]: unknown address mode \"wrap\"");
    case_fails("{'binding': 0, 'kind': 'sampler', 'sampler': {'min_filter': 'cubic'}}", NULL,
               "bindings[0].sampler.min_filter: unknown value \"cubic\"");
    case_fails("{'binding': 0, 'kind': 'sampler', 'sampler': {'min_lod': 3, 'max_lod': 1}}", NULL,
               "bindings[0].sampler.max_lod: 1 is less than min_lod 3");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'extent': [1, 1], 'sampler': {}}", NULL,
               "bindings[0].sampler: only sampler and combined_image_sampler bindings take a sampler");
    case_fails("{'binding': 0, 'kind': 'sampler', 'sampler': {'compare_op': 'lesser'}}", NULL,
               "bindings[0].sampler.compare_op: unknown value \"lesser\"");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'd32_sfloat', 'extent': [1, 1]}", NULL,
               "bindings[0].format: d32_sfloat is a depth format: it binds as a sampled_image or "
               "combined_image_sampler, not a storage_image");
    case_fails("{'binding': 0, 'kind': 'combined_image_sampler', 'format': 'r32f', 'extent': [1, 1], "
               "'sampler': {'compare_op': 'less'}}", NULL,
               "bindings[0].format: the sampler has a compare_op, which samples a depth format");
    /* multisampled images: a Vulkan sample count, 2d, one level, one view */
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'extent': [2, 2], 'samples': 3}", NULL,
               "bindings[0].samples: 3: not a Vulkan sample count");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'extent': [2, 2], 'samples': 128}", NULL,
               "bindings[0].samples: 128 is too large (at most 64)");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'dim': '3d', 'extent': [2, 2, 2], "
               "'samples': 4}", NULL, "bindings[0].samples: 4: a multisampled image is 2d with one mip level");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'extent': [2, 2], 'mip_levels': 2, "
               "'samples': 2}", NULL, "bindings[0].samples: 2: a multisampled image is 2d with one mip level");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'extent': [2, 2], 'layers': 2, "
               "'samples': 2, 'views': 'layers'}", NULL, "bindings[0].views: a multisampled image is bound as one view");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'extent': [1, 1], 'samples': 2, "
               "'data': [1, 2, 3]}", NULL, "bindings[0].data: 3 values: give whole texels (1 components each), at "
               "most the 2 the image holds");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'extent': [1, 1], 'samples': 2}",
               "[{'binding': 0, 'sample': 2, 'data': [1]}]", "expect[0].sample: 2 is too large (at most 1)");
    case_fails("{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'extent': [1, 1]}",
               "[{'binding': 0, 'sample': 1, 'data': [1]}]", "expect[0].sample: 1 is too large (at most 0)");
    /* expectations */
    const char *image = "{'binding': 0, 'kind': 'storage_image', 'format': 'r32f', 'extent': [2, 2], 'mip_levels': 2}";
    case_fails(image, "[{'binding': 0, 'mip': 2, 'data': [1]}]", "expect[0].mip: 2 is too large (at most 1)");
    case_fails(image, "[{'binding': 0, 'layer': 1, 'data': [1]}]", "expect[0].layer: 1 is too large (at most 0)");
    case_fails(image, "[{'binding': 0, 'mip': 1, 'data': [1, 2]}]", "expect[0].data: 2 values");
    case_fails("{'binding': 0, 'type': 'u32', 'count': 4}", "[{'binding': 0, 'mip': 0, 'data': [1]}]",
               "expect[0].mip: only image bindings take a mip, layer or sample");
    case_fails("{'binding': 0, 'kind': 'sampler', 'sampler': {}}", "[{'binding': 0, 'data': [1]}]",
               "expect[0].binding: set 0 binding 0 is a sampler");
}
END_TEST

START_TEST(test_case_image_expect_compares_decoded_components)
{
    wl_case *c = parse_case("{'binding': 0, 'kind': 'storage_image', 'format': 'rgba8', 'extent': [2, 2], 'layers': 2}",
                            "[{'binding': 0, 'layer': 1, 'data': [0, 0.2, 1, 1,  0.5, 0, 0, 0], 'compare': {'epsilon': 0.002}}]",
                            "t.json");
    const case_expect *e = &c->expects[0];
    ck_assert(e->is_image);
    ck_assert_uint_eq(e->layer, 1);
    ck_assert_uint_eq(e->count, 8);
    uint8_t actual[32] = {0};
    /* layer 1 starts at byte 16: texel 0 = (0, 51, 255, 255) -> (0, .2, 1, 1); texel 1 = (128, 0, 0, 0) */
    uint8_t layer1[8] = {0, 51, 255, 255, 128, 0, 0, 0};
    memcpy(actual + 16, layer1, 8);
    char msg[512];
    size_t bad = 99;
    ck_assert_msg(case_expect_check(e, actual, sizeof actual, msg, sizeof msg, &bad), "%s", msg);
    actual[16 + 5] = 1; /* texel 1 green: 1/255 = 0.0039 > 0.002 */
    ck_assert(!case_expect_check(e, actual, sizeof actual, msg, sizeof msg, &bad));
    ck_assert_uint_eq(bad, 5);
    ck_assert_msg(strstr(msg, "texel (1, 0, 0) component 1"), "%s", msg);
    ck_assert_msg(strstr(msg, "layer 1"), "%s", msg);
    ck_assert(!case_expect_check(e, actual, 20, msg, sizeof msg, &bad)); /* too short */
    case_destroy(c);
}
END_TEST

/* The test's own PNG writer and reader: libpng's simplified API. */
static void write_png(const char *path, const uint8_t *rgba, uint32_t w, uint32_t h)
{
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    png.width = w;
    png.height = h;
    png.format = PNG_FORMAT_RGBA;
    ck_assert(png_image_write_to_file(&png, path, 0, rgba, 0, NULL));
}

START_TEST(test_case_image_png_file_loads_and_dump_writes_it_back)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    uint8_t rgba[3 * 2 * 4];
    for (size_t i = 0; i < sizeof rgba; i++)
        rgba[i] = (uint8_t)(i * 37 + 5);
    char png_path[512], case_path[512], dump_path[512];
    snprintf(png_path, sizeof png_path, "%s/pic.png", dir);
    snprintf(case_path, sizeof case_path, "%s/t.json", dir);
    snprintf(dump_path, sizeof dump_path, "%s/out.json", dir);
    write_png(png_path, rgba, 3, 2);
    /* the path resolves against the case's directory; the extent comes from the picture */
    wl_case *c = parse_case("{'binding': 0, 'kind': 'sampled_image', 'format': 'r8g8b8a8_srgb', 'file': 'pic.png'}",
                            NULL, case_path);
    const case_binding *b = &c->bindings[0];
    ck_assert_uint_eq(b->image.width, 3);
    ck_assert_uint_eq(b->image.height, 2);
    ck_assert_mem_eq(b->bytes, rgba, sizeof rgba);

    FILE *f = fopen(dump_path, "w");
    ck_assert_ptr_nonnull(f);
    char err[256] = "";
    ck_assert_msg(case_image_dump(f, dump_path, b, b->bytes, err, sizeof err), "%s", err);
    fclose(f);
    char dumped_png[600];
    snprintf(dumped_png, sizeof dumped_png, "%s/out.set0.binding0.png", dir);
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    ck_assert(png_image_begin_read_from_file(&png, dumped_png));
    png.format = PNG_FORMAT_RGBA;
    ck_assert_uint_eq(png.width, 3);
    ck_assert_uint_eq(png.height, 2);
    uint8_t back[sizeof rgba];
    ck_assert(png_image_finish_read(&png, NULL, back, 0, NULL));
    ck_assert_mem_eq(back, rgba, sizeof rgba);
    /* the JSON names the PNG and lists the decoded components: texel 0 red 5 -> sRGB EOTF(5/255) */
    f = fopen(dump_path, "r");
    char text[4096] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    ck_assert_msg(strstr(text, "\"png\": \"out.set0.binding0.png\""), "%s", text);
    ck_assert_msg(strstr(text, "\"format\": \"r8g8b8a8_srgb\""), "%s", text);
    char first[64];
    snprintf(first, sizeof first, "\"data\": [%.9g,", (double)(float)(5.0 / 255.0 / 12.92));
    ck_assert_msg(strstr(text, first), "%s lacks %s", text, first);
    case_destroy(c);

    /* a picture of another size than "extent" */
    char bad_case[8192], err2[512];
    char *json = quoted("{'kernel': 'k.comp', 'bindings': [{'binding': 0, 'kind': 'sampled_image', 'format': 'rgba8',"
                        " 'extent': [4, 2], 'file': 'pic.png'}]}");
    snprintf(bad_case, sizeof bad_case, "%s", json);
    free(json);
    c = (wl_case *)1;
    ck_assert_int_eq(case_parse(bad_case, case_path, &c, err2, sizeof err2), CASE_ERR_FIELD);
    ck_assert_msg(strstr(err2, "bindings[0].extent: [4, 2] does not match the picture's 3x2"), "%s", err2);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* A PNG's bytes become the texels only when the file holds exactly the format's components at 8 bits: libpng
 * would otherwise convert (16 bits to 8 through sRGB, RGB to gray by luminance), so other files are refused. */
START_TEST(test_case_image_png_of_another_depth_or_colour_type_is_refused)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    static const struct {
        const char *name;
        png_uint_32 format; /* what the simplified writer writes: 16-bit gray for LINEAR_Y, else 8 bits */
        size_t pixel_bytes;
        const char *refusal; /* NULL: loads */
    } rows[] = {
        {"gray8.png", PNG_FORMAT_GRAY, 1, NULL},
        {"gray16.png", PNG_FORMAT_LINEAR_Y, 2, "holds 16-bit gray; format r8_unorm takes a PNG of 8-bit gray"},
        {"rgb8.png", PNG_FORMAT_RGB, 3, "holds 8-bit RGB; format r8_unorm takes a PNG of 8-bit gray"},
        {"rgba8.png", PNG_FORMAT_RGBA, 4, "holds 8-bit RGBA; format r8_unorm takes a PNG of 8-bit gray"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint8_t pixels[2 * 2 * 4];
        for (size_t k = 0; k < sizeof pixels; k++)
            pixels[k] = (uint8_t)(k * 40 + 3);
        char path[512], case_path[512], err[1024] = "";
        snprintf(path, sizeof path, "%s/%s", dir, rows[i].name);
        snprintf(case_path, sizeof case_path, "%s/t.json", dir);
        png_image png;
        memset(&png, 0, sizeof png);
        png.version = PNG_IMAGE_VERSION;
        png.width = 2;
        png.height = 2;
        png.format = rows[i].format;
        ck_assert(png_image_write_to_file(&png, path, 0, pixels, 0, NULL));
        char text[1024];
        snprintf(text, sizeof text, "{'kernel': 'k.comp', 'bindings': [{'binding': 0, 'kind': 'sampled_image', "
                 "'format': 'r8_unorm', 'file': '%s'}]}", rows[i].name);
        char *json = quoted(text);
        wl_case *c = NULL;
        case_status st = case_parse(json, case_path, &c, err, sizeof err);
        free(json);
        if (!rows[i].refusal) {
            ck_assert_msg(st == CASE_OK, "%s: %s", rows[i].name, err);
            ck_assert_mem_eq(c->bindings[0].bytes, pixels, 4); /* the gray bytes as stored */
            case_destroy(c);
            continue;
        }
        ck_assert_msg(st == CASE_ERR_FIELD, "%s loaded", rows[i].name);
        ck_assert_msg(strstr(err, "bindings[0].file") && strstr(err, rows[i].refusal), "%s: %s", rows[i].name, err);
    }
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

START_TEST(test_case_image_bad_case_exits_2_from_the_command)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char *path = tsup_write_file(dir, "bad.json", "{\"kernel\": \"k.comp\", \"bindings\": [{\"binding\": 0, \"kind\": "
                                                  "\"storage_image\", \"format\": \"rgba8\", \"extent\": [2]}]}");
    ck_assert_ptr_nonnull(path);
    char args[1024], *output = NULL;
    snprintf(args, sizeof args, "run '%s'", path);
    int status = tsup_run_cli(args, &output);
    ck_assert_msg(status == 2, "exit %d: %s", status, output ? output : "");
    ck_assert_msg(output && strstr(output, "bindings[0].extent"), "%s", output ? output : "");
    free(output);
    free(path);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* docs/case-format.md lists every format of img/formats.def. */
START_TEST(test_img_every_format_is_documented)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/case-format.md", tsup_root());
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s", path);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    for (int fmt = 0; fmt < IMG_FMT_COUNT; fmt++) {
        char row[96];
        snprintf(row, sizeof row, "| `%s` |", img_format_get((img_format)fmt)->name);
        ck_assert_msg(strstr(text, row), "docs/case-format.md lacks the row of %s", row);
    }
}
END_TEST

static Suite *case_image_suite(void)
{
    Suite *s = suite_create("case_image");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_case_image_binding_encodes_data_in_shader_terms);
    tcase_add_test(tc, test_case_image_sampler_fields_parse_with_defaults);
    tcase_add_test(tc, test_case_image_errors_name_the_file_and_field);
    tcase_add_test(tc, test_case_image_expect_compares_decoded_components);
    tcase_add_test(tc, test_case_image_png_file_loads_and_dump_writes_it_back);
    tcase_add_test(tc, test_case_image_png_of_another_depth_or_colour_type_is_refused);
    tcase_add_test(tc, test_case_image_bad_case_exits_2_from_the_command);
    tcase_add_test(tc, test_img_every_format_is_documented);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tsup_run_suite(case_image_suite(), "test_case_image");
}
