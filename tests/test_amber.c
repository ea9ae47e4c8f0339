/*
 * tests/test_amber.c — pipelines of passes with per-pass bindings (the radix
 * sort of kernels/radix_sort/, expectations from Python's sorted() over the
 * documented fill) and Amber scripts (case/amber.h): the scripts of tests/amber/, whose
 * values are computed by hand in their comments, run at waves 8, 32 and 64; the
 * script's layouts and values read as Amber defines them (checked here byte by
 * byte); malformed scripts are exit 2 and constructs outside the subset exit 3,
 * each naming its line; and the scripts agree with lavapipe through `check`.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/amber.h"
#include "case/case.h"
#include "run/run.h"
#include "tests/support/tsup.h"

static wl_case *load(const char *path)
{
    char err[1024];
    wl_case *c = NULL;
    ck_assert_msg(case_load(path, &c, err, sizeof err) == CASE_OK, "%s", err);
    return c;
}

/* Runs c at wave w and returns the number of failed expectations (a fault fails the test). */
static int failures_at(const wl_case *c, uint32_t w)
{
    run_output out;
    char err[1024];
    run_options opt = {.wave_size = w};
    int rc = run_case_sim(c, &opt, &out, err, sizeof err);
    ck_assert_msg(rc == RUN_EXIT_OK, "wave %u: %s", w, err);
    int failures = run_check_expects(c, out.data, NULL);
    run_output_free(&out);
    return failures;
}

static const uint32_t waves[] = {8, 32, 64};

START_TEST(test_amber_radix_sort_pipeline_passes_at_every_wave)
{
    wl_case *c = load("kernels/radix_sort/radix_sort.json");
    ck_assert_int_eq(case_dispatch_total(c), 12);
    /* the scatter of digit 0 reads keys_a at binding 0 and writes keys_b at binding 2; digit 1 the other way */
    wl_case v;
    case_dispatch_view(c, 2, &v);
    ck_assert_int_eq(v.binding_count, 3);
    ck_assert_str_eq(c->bindings[case_dispatch_buffer(c, 2, 0)].name, "keys_a");
    ck_assert_str_eq(c->bindings[case_dispatch_buffer(c, 2, 2)].name, "keys_b");
    case_dispatch_view(c, 5, &v);
    ck_assert_str_eq(c->bindings[case_dispatch_buffer(c, 5, 0)].name, "keys_b");
    ck_assert_str_eq(c->bindings[case_dispatch_buffer(c, 5, 2)].name, "keys_a");
    ck_assert_int_eq(v.spec_count, 0);
    case_dispatch_view(c, 4, &v); /* a scan: its own specialization */
    ck_assert_int_eq(v.spec_count, 1);
    for (size_t i = 0; i < sizeof waves / sizeof *waves; i++)
        ck_assert_int_eq(failures_at(c, waves[i]), 0);
    case_destroy(c);
}
END_TEST

/* A pass that binds a buffer the case does not name is an error naming the field (exit 2). */
START_TEST(test_amber_pass_binding_of_unknown_buffer_is_an_error)
{
    static const char text[] =
        "{\"dispatches\": [{\"kernel\": \"k.comp\", \"bindings\": [{\"buffer\": \"keys\", \"binding\": 0}]}],"
        " \"bindings\": [{\"name\": \"kyes\", \"binding\": 0, \"type\": \"u32\", \"count\": 4}]}";
    char err[512];
    wl_case *c = NULL;
    ck_assert_int_eq(case_parse(text, "t.json", &c, err, sizeof err), CASE_ERR_FIELD);
    ck_assert_msg(strstr(err, "t.json: dispatches[0].bindings[0].buffer: no binding named \"keys\""), "%s", err);
    static const char twice[] =
        "{\"dispatches\": [{\"kernel\": \"k.comp\", \"bindings\": [{\"buffer\": \"a\", \"binding\": 0},"
        " {\"buffer\": \"b\", \"binding\": 0}]}],"
        " \"bindings\": [{\"name\": \"a\", \"binding\": 0, \"type\": \"u32\", \"count\": 4},"
        " {\"name\": \"b\", \"binding\": 1, \"type\": \"u32\", \"count\": 4}]}";
    ck_assert_int_eq(case_parse(twice, "t.json", &c, err, sizeof err), CASE_ERR_FIELD);
    ck_assert_msg(strstr(err, "dispatches[0].bindings[1].binding: set 0 binding 0 is already bound"), "%s", err);
}
END_TEST

START_TEST(test_amber_scripts_pass_at_every_wave)
{
    /* every script of the folder: a new one is run without being listed */
    size_t scripts = 0;
    char **paths = tsup_list_files("tests/amber", ".amber", &scripts);
    for (size_t k = 0; k < scripts; k++) {
        wl_case *c = load(paths[k]);
        for (size_t i = 0; i < sizeof waves / sizeof *waves; i++)
            ck_assert_msg(failures_at(c, waves[i]) == 0, "%s at wave %u", paths[k], waves[i]);
        case_destroy(c);
    }
    tsup_free_list(paths, scripts);
    ck_assert_uint_ge(scripts, 17); /* the folder was found and read */
}
END_TEST

static wl_case *parse_ok(const char *text)
{
    char err[1024];
    wl_case *c = NULL;
    ck_assert_msg(amber_parse(text, strlen(text), "t.amber", &c, err, sizeof err) == CASE_OK, "%s", err);
    return c;
}

/* IMAGE: the shape and fill become a storage_image binding (a 3x2 rgba8 image: 6 texels of 4 bytes, each
 * component 1.0 -> 255); what the subset does not map is refused with its line, never run another way. */
START_TEST(test_amber_image_binding_and_its_limits)
{
    static const char img_shader[] = "SHADER compute s GLSL\n#version 450\n"
                                     "layout(set = 0, binding = 0, rgba8) uniform image2D i;\n"
                                     "void main() { imageStore(i, ivec2(0), vec4(0.0)); }\nEND\n";
    char text[2048];
    snprintf(text, sizeof text,
             "%sIMAGE im FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 3 HEIGHT 2 FILL 1.0\n"
             "PIPELINE compute p\n ATTACH s\n BIND BUFFER im AS storage_image DESCRIPTOR_SET 0 BINDING 0\nEND\n"
             "RUN p 1 1 1\n",
             img_shader);
    wl_case *c = parse_ok(text);
    ck_assert_int_eq(c->binding_count, 1);
    const case_binding *b = &c->bindings[0];
    ck_assert_int_eq(b->kind, CASE_KIND_STORAGE_IMAGE);
    ck_assert_uint_eq(b->image.width, 3);
    ck_assert_uint_eq(b->image.height, 2);
    ck_assert_uint_eq(b->size, 24);
    for (size_t i = 0; i < 24; i++)
        ck_assert_uint_eq(b->bytes[i], 255);
    ck_assert_uint_eq(c->dispatches[0].bindings[0].kind, CASE_KIND_STORAGE_IMAGE);
    case_destroy(c);
    static const struct {
        const char *lines; /* after the shader */
        case_status status;
        const char *message;
    } bad[] = {
        {"IMAGE im FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 4 HEIGHT 4 SAMPLES 3\n", CASE_ERR_FIELD,
         "t.amber:6: IMAGE im SAMPLES: not a Vulkan sample count"},
        {"IMAGE im FORMAT R8G8B8A8_UNORM DIM_3D WIDTH 4 HEIGHT 4 DEPTH 2 SAMPLES 4\n", CASE_ERR_FIELD,
         "t.amber:6: IMAGE im SAMPLES: a multisampled image is 2d with one mip level"},
        {"IMAGE im FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 4 HEIGHT 4\nPIPELINE compute p\n ATTACH s\n"
         " BIND BUFFER im AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n", CASE_ERR_UNSUPPORTED,
         "t.amber:9: BIND BUFFER im AS storage: the subset binds an IMAGE as a storage_image"},
        {"BUFFER bf DATA_TYPE uint32 SIZE 4 FILL 0\nPIPELINE compute p\n ATTACH s\n"
         " BIND BUFFER bf AS storage_image DESCRIPTOR_SET 0 BINDING 0\nEND\n", CASE_ERR_FIELD,
         "t.amber:9: BIND BUFFER bf AS storage_image: not an IMAGE"},
        {"IMAGE im FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 4 HEIGHT 4\nPIPELINE compute p\n ATTACH s\n"
         " BIND BUFFER im AS storage_image DESCRIPTOR_SET 0 BINDING 0\nEND\nRUN p 1 1 1\nEXPECT im IDX 0 0 SIZE 1 1 "
         "EQ_RGBA 0 0 0 0\n", CASE_ERR_UNSUPPORTED, "t.amber:12: EXPECT im: a rectangle of part of a row is not mapped"},
        {"IMAGE im FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 4 HEIGHT 4\nPIPELINE compute p\n ATTACH s\n"
         " BIND BUFFER im AS storage_image DESCRIPTOR_SET 0 BINDING 0\nEND\nRUN p 1 1 1\nEXPECT im IDX 0 0 SIZE 4 1 "
         "EQ_RGB 0 0 0\n", CASE_ERR_UNSUPPORTED, "t.amber:12: EXPECT im EQ_RGB on r8g8b8a8_unorm: ignoring the alpha"},
        {"IMAGE im FORMAT R32_UINT DIM_2D WIDTH 4 HEIGHT 4\nPIPELINE compute p\n ATTACH s\n"
         " BIND BUFFER im AS storage_image DESCRIPTOR_SET 0 BINDING 0\nEND\nRUN p 1 1 1\nEXPECT im IDX 0 0 SIZE 4 1 "
         "EQ_RGBA 0 0 0 0\n", CASE_ERR_UNSUPPORTED, "t.amber:12: EXPECT im EQ_RGBA on r32_uint: mapped for UNORM and sRGB"},
        {"IMAGE im FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 4 HEIGHT 4\nPIPELINE compute p\n ATTACH s\n"
         " BIND BUFFER im AS storage_image DESCRIPTOR_SET 0 BINDING 0\nEND\nRUN p 1 1 1\nEXPECT im IDX 0 2 SIZE 4 3 "
         "EQ_RGBA 0 0 0 0\n", CASE_ERR_FIELD, "t.amber:12: EXPECT im IDX 0 2 SIZE 4 3: outside the 4x4 image"},
        {"IMAGE im FORMAT R32G32B32A32_SFLOAT DIM_3D WIDTH 16384 HEIGHT 16384 DEPTH 16384\n", CASE_ERR_FIELD,
         "t.amber:6: IMAGE im: 70368744177664 bytes, larger than a binding may be (1073741824 bytes)"},
        {"IMAGE im FORMAT R32_UINT DIM_2D WIDTH 4 HEIGHT 4 FILL 1.5\n", CASE_ERR_FIELD,
         "t.amber:6: IMAGE im FILL 1.5: not an integer a r32_uint texel's 32-bit component holds"},
        {"IMAGE im FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 4 HEIGHT 4 MIP_LEVELS 4\n", CASE_ERR_FIELD,
         "t.amber:6: IMAGE im: MIP_LEVELS 4, but a 4x4x1 image has 3"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[1024] = "";
        wl_case *x = NULL;
        snprintf(text, sizeof text, "%s%s", img_shader, bad[i].lines);
        ck_assert_int_eq(amber_parse(text, strlen(text), "t.amber", &x, err, sizeof err), bad[i].status);
        ck_assert_msg(strstr(err, bad[i].message), "case %zu: %s", i, err);
        ck_assert_ptr_null(x);
    }
}
END_TEST

static const char shader[] = "SHADER compute s GLSL\n#version 450\nlayout(set = 0, binding = 0) buffer B { uint v[]; };\n"
                             "void main() { v[0] += 1u; }\nEND\n";

/* vec3 in std430 takes 16 bytes; SERIES_FROM counts per component; hex is bits; values beyond a signed type's
 * range are its unsigned twin's bits, as Amber stores them; EXPECT IDX is a byte offset. */
START_TEST(test_amber_buffer_layouts_and_values)
{
    char text[2048];
    snprintf(text, sizeof text,
             "%s"
             "BUFFER v DATA_TYPE vec3<float> DATA 1 2 3 4 5 6 END\n"
             "BUFFER s DATA_TYPE int16 SIZE 3 SERIES_FROM -1 INC_BY 2\n"
             "BUFFER w DATA_TYPE int16 DATA 40206 0x8000 -1 END\n"
             "BUFFER u DATA_TYPE uint32 DATA 0.0 -1 END\n"
             "PIPELINE compute p\n ATTACH s\n BIND BUFFER v AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n"
             "RUN p 1 1 1\n"
             "EXPECT v IDX 16 EQ 4 5 6\n"
             "EXPECT s IDX 2 EQ 1 3\n"
             "EXPECT w IDX 0 EQ 40206\n"
             "EXPECT u IDX 0 EQ 0 4294967295\n",
             shader);
    wl_case *c = parse_ok(text);
    ck_assert_int_eq(c->binding_count, 4);
    const case_binding *v = &c->bindings[0], *s = &c->bindings[1], *w = &c->bindings[2], *u = &c->bindings[3];
    ck_assert_str_eq(v->name, "v");
    ck_assert_uint_eq(v->size, 32); /* two vec3 of 16 bytes */
    float f[8];
    memcpy(f, v->bytes, sizeof f);
    ck_assert(f[0] == 1 && f[1] == 2 && f[2] == 3 && f[3] == 0 && f[4] == 4 && f[5] == 5 && f[6] == 6 && f[7] == 0);
    int16_t h[3];
    memcpy(h, s->bytes, sizeof h);
    ck_assert(h[0] == -1 && h[1] == 1 && h[2] == 3);
    memcpy(h, w->bytes, sizeof h);
    ck_assert(h[0] == 40206 - 65536 && h[1] == -32768 && h[2] == -1);
    uint32_t x[2];
    memcpy(x, u->bytes, sizeof x);
    ck_assert(x[0] == 0 && x[1] == 0xFFFFFFFFu);
    /* EXPECT v IDX 16: element 1, three components from float 4; s IDX 2: from element 1 */
    ck_assert_int_eq(c->expect_count, 4);
    ck_assert_uint_eq(c->expects[0].first, 4);
    ck_assert_uint_eq(c->expects[0].count, 3);
    ck_assert_uint_eq(c->expects[1].first, 1);
    ck_assert_uint_eq(c->expects[1].count, 2);
    case_destroy(c);
}
END_TEST

/* FILE TEXT sizes the buffer by the file's values, as Amber's parser does (google/amber src/amberscript/parser.cc:
 * ParseBufferData sets the value count, overriding SIZE, larger or smaller); a count that is not whole elements is
 * malformed.  The file holds 8 values (1..8) around a comment: 8 uint32 whatever SIZE says, 4 vec2, 3 vec3 is not whole. */
START_TEST(test_amber_file_text_sizes_the_buffer)
{
    char *dir = tsup_temp_dir();
    char *data = tsup_write_file(dir, "v.txt", "# eight values\n1 2 3\n4 5 # and more\n6 7\t8");
    static const struct {
        const char *decl;
        case_status status;
        size_t size;
    } rows[] = {
        {"DATA_TYPE uint32 SIZE 2", CASE_OK, 32},
        {"DATA_TYPE uint32 SIZE 10", CASE_OK, 32},
        {"DATA_TYPE vec2<uint32> SIZE 1", CASE_OK, 32},
        {"DATA_TYPE vec3<uint32> SIZE 2", CASE_ERR_FIELD, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        char text[2048], path[4200], err[1024];
        snprintf(text, sizeof text,
                 "%sBUFFER b %s FILE TEXT v.txt\n"
                 "PIPELINE compute p\n ATTACH s\n BIND BUFFER b AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n"
                 "RUN p 1 1 1\n", shader, rows[i].decl);
        snprintf(path, sizeof path, "%s/t.amber", dir);
        wl_case *c = NULL;
        case_status s = amber_parse(text, strlen(text), path, &c, err, sizeof err);
        ck_assert_msg(s == rows[i].status, "row %zu: status %d: %s", i, (int)s, err);
        if (s != CASE_OK) {
            ck_assert_msg(strstr(err, "t.amber:6: BUFFER b FILE TEXT v.txt: 8 values is not a whole number of "
                                      "3-component elements"), "%s", err);
            continue;
        }
        ck_assert_uint_eq(c->bindings[0].size, rows[i].size);
        uint32_t v[8];
        memcpy(v, c->bindings[0].bytes, sizeof v);
        for (uint32_t k = 0; k < 8; k++)
            ck_assert_uint_eq(v[k], k + 1);
        case_destroy(c);
    }
    free(data);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* DEVICE_PROPERTY: a property the simulator's arithmetic has (IEEE 754, round to nearest even, denormals kept in
 * every precision: docs/quirks.md) is met, as a modelled DEVICE_FEATURE is. */
START_TEST(test_amber_device_property_the_simulator_has)
{
    char text[2048];
    snprintf(text, sizeof text,
             "DEVICE_PROPERTY FloatControlsProperties.shaderDenormPreserveFloat16\n"
             "DEVICE_PROPERTY FloatControlsProperties.shaderRoundingModeRTEFloat32\n%s"
             "BUFFER b DATA_TYPE uint32 DATA 5 END\n"
             "PIPELINE compute p\n ATTACH s\n BIND BUFFER b AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n"
             "RUN p 1 1 1\nEXPECT b IDX 0 EQ 6\n",
             shader);
    wl_case *c = parse_ok(text);
    ck_assert_int_eq(failures_at(c, 32), 0);
    case_destroy(c);
}
END_TEST

/* A wrong EXPECT and a differing EQ_BUFFER fail: the script's expectations are checked, never dropped. */
START_TEST(test_amber_failed_expect_is_reported)
{
    char text[2048];
    snprintf(text, sizeof text,
             "%s"
             "BUFFER b DATA_TYPE uint32 DATA 5 6 END\nBUFFER r DATA_TYPE uint32 DATA 6 7 END\n"
             "PIPELINE compute p\n ATTACH s\n BIND BUFFER b AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n"
             "RUN p 1 1 1\nEXPECT b IDX 0 EQ 6\nEXPECT b IDX 4 EQ 7\nEXPECT b EQ_BUFFER r\n",
             shader);
    wl_case *c = parse_ok(text);
    run_output out;
    char err[512];
    run_options opt = {.wave_size = 32};
    ck_assert_int_eq(run_case_sim(c, &opt, &out, err, sizeof err), RUN_EXIT_OK);
    /* v[0] += 1 once: b = {6, 6}; IDX 4 EQ 7 fails, and so does EQ_BUFFER r = {6, 7} */
    ck_assert_int_eq(run_check_expects(c, out.data, NULL), 2);
    char msg[512];
    ck_assert(!case_expect_check_data(c, &c->expects[1], out.data, msg, sizeof msg));
    ck_assert_msg(strstr(msg, "element 1: expected 7, actual 6"), "%s", msg); /* counted from the buffer's start */
    ck_assert(!case_expect_check_data(c, &c->expects[2], out.data, msg, sizeof msg));
    ck_assert_msg(strstr(msg, "element 1: expected 7, actual 6"), "%s", msg);
    run_output_free(&out);
    case_destroy(c);
}
END_TEST

/* Malformed scripts are CASE_ERR_FIELD, constructs outside the subset CASE_ERR_UNSUPPORTED; both name the line. */
/* A script (t.amber) refused with this status and a message containing this text (its line and construct). */
typedef struct refusal {
    const char *text;
    case_status status;
    const char *message;
} refusal;

static void check_refusals(const refusal *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char err[1024];
        wl_case *c = NULL;
        case_status s = amber_parse(rows[i].text, strlen(rows[i].text), "t.amber", &c, err, sizeof err);
        ck_assert_msg(s == rows[i].status, "row %zu: status %d: %s", i, (int)s, err);
        ck_assert_msg(strstr(err, rows[i].message), "row %zu: \"%s\" lacks \"%s\"", i, err, rows[i].message);
        ck_assert_ptr_null(c);
    }
}

START_TEST(test_amber_errors_name_the_construct_and_line)
{
    static const refusal rows[] = {
        {"#!amber\nSHADER vertex v PASSTHROUGH\n", CASE_ERR_UNSUPPORTED, "t.amber:2: SHADER vertex: only compute"},
        {"PIPELINE graphics g\nEND\n", CASE_ERR_UNSUPPORTED, "t.amber:1: PIPELINE graphics: only compute pipelines"},
        {"DEVICE_FEATURE sparseResidencyImage2D\n", CASE_ERR_UNSUPPORTED,
         "t.amber:1: DEVICE_FEATURE sparseResidencyImage2D: the simulator does not model it"},
        /* the simulator keeps denormals: a device that flushes them is not what it models */
        {"DEVICE_PROPERTY FloatControlsProperties.shaderDenormFlushToZeroFloat32\n", CASE_ERR_UNSUPPORTED,
         "t.amber:1: DEVICE_PROPERTY FloatControlsProperties.shaderDenormFlushToZeroFloat32: the simulator does not"},
        {"BUFFER b DATA_TYPE uint33 SIZE 4 FILL 0\n", CASE_ERR_FIELD, "t.amber:1: DATA_TYPE \"uint33\": not a type"},
        {"BUFFER b DATA_TYPE uint8 SIZE 4 FILL 256\n", CASE_ERR_FIELD, "t.amber:1: \"256\" is not a u8 value"},
        {"BUFFER b DATA_TYPE uint32 DATA 1 2\n", CASE_ERR_FIELD, "t.amber:1: BUFFER b DATA: no END"},
        {"RUN nothing 1 1 1\n", CASE_ERR_FIELD, "t.amber:1: RUN: no pipeline named \"nothing\""},
        {"FROB\n", CASE_ERR_FIELD, "t.amber:1: unknown command \"FROB\""},
        {"SHADER compute s SPIRV-ASM\n OpCapability Shader\n OpBogus\nEND\n", CASE_ERR_FIELD,
         "t.amber:3: SHADER s: SPIR-V assembly:"},
        {"BUFFER b DATA_TYPE uint32 SIZE 4 FILL 0\n", CASE_ERR_UNSUPPORTED, "t.amber: no RUN"},
        /* a descriptor's window must lie in the buffer (16 bytes: 8 at offset 12 run past it) */
        {"SHADER compute s GLSL\n#version 450\nvoid main() {}\nEND\nBUFFER b DATA_TYPE uint32 SIZE 4 FILL 0\n"
         "PIPELINE compute p\n ATTACH s\n"
         " BIND BUFFER b AS storage DESCRIPTOR_SET 0 BINDING 0 DESCRIPTOR_OFFSET 12 DESCRIPTOR_RANGE 8\nEND\n",
         CASE_ERR_FIELD, "t.amber:8: BIND BUFFER b: the window of 8 bytes at offset 12 does not lie in its 16 bytes"},
    };
    check_refusals(rows, sizeof rows / sizeof *rows);
}
END_TEST

/* VkScript read as Amber reads it (google/amber src/vkscript/command_parser.cc, src/format.cc): `ssbo B N` is N
 * elements of the type the buffer ends up with (uint: 4 bytes each); values lie at their byte offset, packed, a vec3
 * taking 4 components; a uniform buffer's matrix columns are 16 bytes apart (std140); push constants come from
 * `uniform TYPE OFFSET`.  Every byte below is worked out by hand from those rules. */
START_TEST(test_vkscript_layouts_and_values)
{
    static const char text[] =
        "[compute shader]\n#version 450\nvoid main() {}\n"
        "[test]\n"
        "ssbo 1 4\n"                               /* 4 uints, typed by the probe below: 16 bytes */
        "ssbo 0:2 subdata vec3 16 1 2 3\n"         /* element 1 of vec3 (16 bytes each): bytes 16..28, size 32 */
        "ssbo 3 subdata int8_t 2 -1 200\n"         /* bytes 2, 3: 0xff and 200 (Amber keeps the low bits) */
        "uniform ubo 0:4 mat2 0 1 2 3 4\n"         /* columns at 0 and 16, each padded to 16: 32 */
        "uniform uint 4 9\n"                       /* push constants: 9 at byte 4 */
        "compute 1 1 1\n"
        "probe ssbo uint 1 4 == 0 0\n";
    wl_case *c = parse_ok(text);
    ck_assert_int_eq(c->binding_count, 4);
    const case_binding *b1 = &c->bindings[0], *b2 = &c->bindings[1], *b3 = &c->bindings[2], *u = &c->bindings[3];
    ck_assert_str_eq(b1->name, "ssbo_0_1");
    ck_assert_uint_eq(b1->size, 16);
    ck_assert_str_eq(b2->name, "ssbo_0_2");
    ck_assert_uint_eq(b2->size, 32);
    float f[8];
    memcpy(f, b2->bytes, sizeof f);
    ck_assert(f[0] == 0 && f[3] == 0 && f[4] == 1 && f[5] == 2 && f[6] == 3 && f[7] == 0);
    ck_assert_uint_eq(b3->size, 4);
    ck_assert(b3->bytes[0] == 0 && b3->bytes[1] == 0 && b3->bytes[2] == 0xff && b3->bytes[3] == 200);
    ck_assert_str_eq(u->name, "ubo_0_4");
    ck_assert_uint_eq(u->size, 32);
    memcpy(f, u->bytes, 32);
    ck_assert(f[0] == 1 && f[1] == 2 && f[2] == 0 && f[3] == 0 && f[4] == 3 && f[5] == 4 && f[6] == 0 && f[7] == 0);
    /* the pass binds every buffer at its descriptor, the ubo as a uniform buffer */
    wl_case v;
    case_dispatch_view(c, 0, &v);
    ck_assert_int_eq(v.binding_count, 4);
    ck_assert_uint_eq(v.bindings[3].binding, 4);
    ck_assert_int_eq(v.bindings[3].kind, CASE_KIND_UNIFORM_BUFFER);
    ck_assert_uint_eq(c->push_size, 8);
    uint32_t pc[2];
    memcpy(pc, c->push_constants, sizeof pc);
    ck_assert(pc[0] == 0 && pc[1] == 9);
    /* probe ssbo uint 1 4: elements 1 and 2 of binding 1, exact */
    ck_assert_int_eq(c->expect_count, 1);
    ck_assert_uint_eq(c->expects[0].first, 1);
    ck_assert_uint_eq(c->expects[0].count, 2);
    ck_assert_int_eq(c->expects[0].compare, CASE_COMPARE_EXACT);
    case_destroy(c);
}
END_TEST

/* A binding must hold every value of its block, not the padding after the last one (Vulkan bounds only the bytes a
 * kernel accesses): `uint a[2]` in a std140 block has a stride of 16, so its values end at byte 20 while its layout
 * spans 32.  20 bytes run (a[0] + a[1] = 3 + 4 = 7, by hand); 16 bytes are refused before running, naming 20. */
START_TEST(test_binding_holds_the_values_not_the_padding)
{
    static const char text[] =
        "[compute shader]\n#version 450\n"
        "layout(set = 0, binding = 0) uniform U { uint a[2]; } u;\n"
        "layout(set = 0, binding = 1) buffer O { uint v; } o;\n"
        "void main() { o.v = u.a[0] + u.a[1]; }\n"
        "[test]\n"
        "uniform ubo 0:0 uint 0 3\n"
        "%s"
        "ssbo 1 1\n"
        "compute 1 1 1\n"
        "probe ssbo uint 1 0 == 7\n";
    char script[1024];
    snprintf(script, sizeof script, text, "uniform ubo 0:0 uint 16 4\n");
    wl_case *c = parse_ok(script);
    ck_assert_uint_eq(c->bindings[0].size, 20);
    ck_assert_int_eq(failures_at(c, 32), 0);
    case_destroy(c);
    snprintf(script, sizeof script, text, "uniform ubo 0:0 uint 4 0 0 0\n");
    c = parse_ok(script);
    ck_assert_uint_eq(c->bindings[0].size, 16);
    run_output out;
    char err[1024];
    run_options opt = {.wave_size = 32};
    ck_assert_int_eq(run_case_sim(c, &opt, &out, err, sizeof err), RUN_EXIT_BAD_INPUT);
    run_output_free(&out); /* whatever run_case_sim returned (run/run.h) */
    ck_assert_msg(strstr(err, "16 bytes, but the kernel's layout of 'u' needs at least 20"), "%s", err);
    case_destroy(c);
}
END_TEST

/* A store through a variable pointer (OpSelect of &A[g] and &B[g] by g's parity, g the global index) on 32
 * workgroups: A[g] = 7g for even g and B[g] = 7g for odd g, the rest 0 (by hand); the same bytes and counters on 1
 * and on 3 host threads (the executor goes to the variable, so each thread's write record is the variable's); and
 * a lane whose pointer is null faults, naming it. */
static const char vp_store_script[] =
    "[require]\nVariablePointerFeatures.variablePointersStorageBuffer\n"
    "[compute shader spirv]\n"
    "OpCapability Shader\nOpCapability VariablePointersStorageBuffer\n"
    "OpExtension \"SPV_KHR_variable_pointers\"\nOpExtension \"SPV_KHR_storage_buffer_storage_class\"\n"
    "OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\" %gid\n"
    "OpExecutionMode %main LocalSize 8 1 1\nOpDecorate %gid BuiltIn GlobalInvocationId\n"
    "OpDecorate %rta ArrayStride 4\nOpMemberDecorate %blk 0 Offset 0\nOpDecorate %blk Block\n"
    "OpDecorate %A DescriptorSet 0\nOpDecorate %A Binding 0\nOpDecorate %B DescriptorSet 0\nOpDecorate %B Binding 1\n"
    "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%bool = OpTypeBool\n%uint = OpTypeInt 32 0\n"
    "%v3 = OpTypeVector %uint 3\n%c0 = OpConstant %uint 0\n%c1 = OpConstant %uint 1\n%c7 = OpConstant %uint 7\n"
    "%cnull = OpConstant %uint NULL_LANE\n"
    "%rta = OpTypeRuntimeArray %uint\n%blk = OpTypeStruct %rta\n%pblk = OpTypePointer StorageBuffer %blk\n"
    "%pu = OpTypePointer StorageBuffer %uint\n%pin = OpTypePointer Input %v3\n%null = OpConstantNull %pu\n"
    "%gid = OpVariable %pin Input\n%A = OpVariable %pblk StorageBuffer\n%B = OpVariable %pblk StorageBuffer\n"
    "%main = OpFunction %void None %fn\n%e = OpLabel\n%g3 = OpLoad %v3 %gid\n%g = OpCompositeExtract %uint %g3 0\n"
    "%par = OpBitwiseAnd %uint %g %c1\n%odd = OpIEqual %bool %par %c1\n"
    "%pa = OpAccessChain %pu %A %c0 %g\n%pb = OpAccessChain %pu %B %c0 %g\n"
    "%sel = OpSelect %pu %odd %pb %pa\n%isnull = OpIEqual %bool %g %cnull\n%p = OpSelect %pu %isnull %null %sel\n"
    "%v = OpIMul %uint %g %c7\nOpStore %p %v\nOpReturn\nOpFunctionEnd\n"
    /* the probes only type the buffers (uint): the test reads the bytes and computes every value itself */
    "[test]\nssbo 0 256\nssbo 1 256\ncompute 32 1 1\nprobe ssbo uint 0 0 == 0\nprobe ssbo uint 1 0 == 0\n";

/* vp_store_script with NULL_LANE replaced by `lane` (the SPIR-V's '%' rule out printf). */
static void vp_script(char *out, size_t size, const char *lane)
{
    const char *at = strstr(vp_store_script, "NULL_LANE");
    snprintf(out, size, "%.*s%s%s", (int)(at - vp_store_script), vp_store_script, lane, at + strlen("NULL_LANE"));
}

START_TEST(test_variable_pointer_stores_on_several_threads)
{
    char script[4096];
    vp_script(script, sizeof script, "4294967295"); /* no lane's pointer is null */
    wl_case *c = parse_ok(script);
    uint64_t instructions[2] = {0, 0};
    uint8_t *bytes[2][2] = {{NULL, NULL}, {NULL, NULL}};
    for (int t = 0; t < 2; t++) {
        run_output out;
        char err[1024];
        run_options opt = {.wave_size = 8, .threads = t ? 3 : 1};
        ck_assert_msg(run_case_sim(c, &opt, &out, err, sizeof err) == RUN_EXIT_OK, "%s", err);
        for (int k = 0; k < ISA_CLASS_COUNT; k++)
            instructions[t] += out.result.stats.by_class[k];
        for (int b = 0; b < 2; b++) {
            bytes[t][b] = malloc(1024);
            memcpy(bytes[t][b], out.data[b], 1024);
        }
        run_output_free(&out);
    }
    for (uint32_t g = 0; g < 256; g++) {
        uint32_t a, b;
        memcpy(&a, bytes[0][0] + 4 * g, 4);
        memcpy(&b, bytes[0][1] + 4 * g, 4);
        ck_assert_msg(a == (g % 2 ? 0 : 7 * g) && b == (g % 2 ? 7 * g : 0), "g %u: A %u B %u", g, a, b);
    }
    ck_assert(memcmp(bytes[0][0], bytes[1][0], 1024) == 0 && memcmp(bytes[0][1], bytes[1][1], 1024) == 0);
    ck_assert_uint_eq(instructions[0], instructions[1]);
    for (int t = 0; t < 2; t++)
        free(bytes[t][0]), free(bytes[t][1]);
    case_destroy(c);
    /* lane 37's pointer is null: the store faults there */
    vp_script(script, sizeof script, "37");
    c = parse_ok(script);
    run_output out;
    char err[1024];
    run_options opt = {.wave_size = 8};
    ck_assert_int_eq(run_case_sim(c, &opt, &out, err, sizeof err), RUN_EXIT_FAIL);
    char fault[512];
    run_fault_text(&out, fault, sizeof fault);
    ck_assert_msg(strstr(fault, "access through a null pointer (lane 5)"), "%s", fault);
    run_output_free(&out);
    case_destroy(c);
}
END_TEST

/* What VkScript's compute subset refuses, each naming its line: exit 3 outside it, exit 2 malformed. */
START_TEST(test_vkscript_errors_name_the_construct_and_line)
{
    static const refusal rows[] = {
        {"[vertex shader passthrough]\n[test]\n", CASE_ERR_UNSUPPORTED, "t.amber:1: [vertex shader passthrough]:"},
        {"[compute shader]\n#version 450\nvoid main() {}\n[test]\ndraw rect 0 0 1 1\n", CASE_ERR_UNSUPPORTED,
         "t.amber:5: draw: drawing"},
        {"[require]\nsparseResidencyBuffer\n", CASE_ERR_UNSUPPORTED,
         "t.amber:2: DEVICE_FEATURE sparseResidencyBuffer: the simulator does not model it"},
        {"[compute shader]\n#version 450\nvoid main() {}\n[test]\nssbo 0 subdata uint 0 1\n"
         "probe ssbo float 0 0 == 1\n", CASE_ERR_FIELD, "t.amber:6: ssbo_0_0: float does not match"},
        {"[compute shader]\n#version 450\nvoid main() {}\n[test]\nprobe ssbo uint 0:9 0 == 1\n", CASE_ERR_FIELD,
         "t.amber:5: no buffer at descriptor set 0 binding 9"},
        {"[compute shader]\n#version 450\nvoid main() {}\n[test]\nssbo 0 4\ncompute 1 1 1\n"
         "probe ssbo uint 0 0 != 1\n", CASE_ERR_UNSUPPORTED, "t.amber:7: probe ssbo ... !=: the subset compares"},
        {"[compute shader]\n#version 450\nvoid main() {}\n[test]\nssbo 0 4\ncompute 1 1 1\n"
         "ssbo 0 subdata uint 0 1\n", CASE_ERR_UNSUPPORTED, "t.amber:7: ssbo 0: data written after a compute"},
        {"[compute shader]\n#version 450\nvoid main() {}\n[test]\nssbo 0 subdata uint 2 1\n", CASE_ERR_FIELD,
         "t.amber:5: offset 2: not a multiple of the 4-byte element"},
        {"[compute shader]\n#version 450\nvoid main() {}\n[test]\nssbo 0 subdata uvec2 0 1 2 3\n", CASE_ERR_FIELD,
         "t.amber:5: 3 values: not a whole number of 2-component elements"},
        {"[frob]\n", CASE_ERR_FIELD, "t.amber:1: [frob]: not a VkScript section"},
        {"[compute shader]\n#version 450\nvoid main() {}\n", CASE_ERR_FIELD, "t.amber: no [test] section"},
    };
    check_refusals(rows, sizeof rows / sizeof *rows);
}
END_TEST

/* An EXPECT between two RUNs that bind its buffer checks a copy taken where it stands (a pass wavelab adds):
 * v[0] += 1 twice from 5 gives 6 after the first RUN and 7 after the second (by hand); the wrong values fail. */
START_TEST(test_amber_expect_between_runs_checks_a_copy)
{
    static const char *const values[2][2] = {{"6", "7"}, {"7", "7"}};
    for (int k = 0; k < 2; k++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "%sBUFFER b DATA_TYPE uint32 DATA 5 END\n"
                 "PIPELINE compute p\n ATTACH s\n BIND BUFFER b AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n"
                 "RUN p 1 1 1\nEXPECT b IDX 0 EQ %s\nRUN p 1 1 1\nEXPECT b IDX 0 EQ %s\n",
                 shader, values[k][0], values[k][1]);
        wl_case *c = parse_ok(text);
        ck_assert_int_eq(case_dispatch_total(c), 3); /* RUN, the copy, RUN */
        ck_assert_str_eq(case_dispatch_name(c, 1), "snapshot@12");
        ck_assert_int_eq(failures_at(c, 32), k == 0 ? 0 : 1);
        case_destroy(c);
    }
}
END_TEST

/* `wavelab amber`: 0 when every EXPECT holds, 1 when one fails, 2 for a malformed script, 3 outside the subset. */
START_TEST(test_amber_command_exit_codes)
{
    char *dir = tsup_temp_dir();
    char text[2048];
    snprintf(text, sizeof text,
             "%sBUFFER b DATA_TYPE uint32 DATA 5 END\n"
             "PIPELINE compute p\n ATTACH s\n BIND BUFFER b AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n"
             "RUN p 1 1 1\nEXPECT b IDX 0 EQ %s\n",
             shader, "%s");
    char good[2048], bad[2048];
    snprintf(good, sizeof good, text, "6");
    snprintf(bad, sizeof bad, text, "5");
    char *paths[4] = {tsup_write_file(dir, "good.amber", good), tsup_write_file(dir, "bad.amber", bad),
                      tsup_write_file(dir, "malformed.amber", "BUFFER\n"),
                      tsup_write_file(dir, "graphics.amber", "PIPELINE graphics g\nEND\n")};
    static const int want[4] = {0, 1, 2, 3};
    static const char *const says[4] = {"PASS", "FAIL  expect b", "malformed.amber:1: BUFFER: expected",
                                        "SKIP  ", };
    for (int i = 0; i < 4; i++) {
        char args[4200], *out = NULL;
        snprintf(args, sizeof args, "amber '%s' --wave 16", paths[i]);
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == want[i] && out && strstr(out, says[i]), "%s: exit %d: %s", paths[i], rc, out);
        free(out);
    }
    /* check refuses a script outside the subset the same way, before any device opens */
    char args[4200], *out = NULL;
    snprintf(args, sizeof args, "check '%s'", paths[3]);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 3 && out && strstr(out, "SKIP: ") && strstr(out, "graphics.amber:1: PIPELINE graphics"),
                  "exit %d: %s", rc, out);
    free(out);
    for (int i = 0; i < 4; i++)
        free(paths[i]);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* The pipelines agree with lavapipe through `wavelab check` (the device part; skipped without a device). */
START_TEST(test_amber_pipelines_agree_with_the_device)
{
    static const char *const cases[] = {"kernels/radix_sort/radix_sort.json", "tests/amber/scale_add.amber",
                                        "tests/amber/vec3_repeat.amber", "tests/amber/frexp_modf.amber",
                                        "tests/amber/frexp_pointer.amber", "tests/amber/descriptor_window.amber",
                                        "tests/amber/aliased_bindings.amber", "tests/amber/image_two_passes.amber",
                                        "tests/amber/buffer_array.amber", "tests/amber/spec_convert.amber",
                                        "tests/amber/vkscript_layouts.amber", "tests/amber/vkscript_entry_points.amber",
                                        "tests/amber/variable_pointers.amber", "tests/amber/std140_arrays.amber",
                                        "tests/amber/vkscript_dmat2.amber"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char args[512], *out = NULL;
        snprintf(args, sizeof args, "check '%s/%s'", tsup_root(), cases[i]);
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == 0 && out && strstr(out, "AGREE"), "%s: exit %d: %s", cases[i], rc, out);
        free(out);
    }
}
END_TEST

/* Explicit-layout workgroup blocks on a device: the values agree, or the device lacks the feature and check says
 * so (exit 3, naming it; lavapipe 22.3 has no VK_KHR_workgroup_memory_explicit_layout). */
START_TEST(test_amber_workgroup_blocks_on_the_device)
{
    char args[512], *out = NULL;
    snprintf(args, sizeof args, "check '%s/tests/amber/workgroup_blocks.amber'", tsup_root());
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg((rc == 0 && out && strstr(out, "AGREE")) ||
                      (rc == 3 && out && strstr(out, "lacks workgroupMemoryExplicitLayout, which SPIR-V capability "
                                                     "WorkgroupMemoryExplicitLayoutKHR needs")),
                  "exit %d: %s", rc, out);
    free(out);
}
END_TEST

/* A descriptor window whose offset is not a multiple of the device's minStorageBufferOffsetAlignment (lavapipe:
 * 16) cannot be bound (VkDescriptorBufferInfo's rule): check says so before Vulkan would, exit 3.  The window of
 * tests/amber/descriptor_window.amber moved from byte 256 to byte 4; a device whose alignment is 4 or less takes
 * it, and then the two sides agree. */
START_TEST(test_amber_unaligned_descriptor_offset_is_refused_by_the_device)
{
    char *dir = tsup_temp_dir(), *text = NULL, path[1200];
    snprintf(path, sizeof path, "%s/tests/amber/descriptor_window.amber", tsup_root());
    text = tsup_read_file(path, NULL);
    ck_assert_ptr_nonnull(text);
    char *at = strstr(text, "OFFSET 256");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "OFFSET 4  ", 10);
    char *script = tsup_write_file(dir, "unaligned.amber", text);
    char args[1400], *out = NULL;
    snprintf(args, sizeof args, "check '%s'", script);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg((rc == 3 && out && strstr(out, "storage buffer descriptor's offset to be a multiple of") &&
                   strstr(out, "(minStorageBufferOffsetAlignment); bindings[0] (set 0 binding 0) starts at byte 4")) ||
                      (rc == 0 && out && strstr(out, "AGREE")),
                  "exit %d: %s", rc, out);
    free(out), free(script), free(text);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

static Suite *amber_suite(void)
{
    Suite *s = suite_create("amber");
    TCase *t = tcase_create("amber");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_amber_radix_sort_pipeline_passes_at_every_wave);
    tcase_add_test(t, test_amber_pass_binding_of_unknown_buffer_is_an_error);
    tcase_add_test(t, test_amber_scripts_pass_at_every_wave);
    tcase_add_test(t, test_amber_image_binding_and_its_limits);
    tcase_add_test(t, test_amber_buffer_layouts_and_values);
    tcase_add_test(t, test_amber_file_text_sizes_the_buffer);
    tcase_add_test(t, test_amber_device_property_the_simulator_has);
    tcase_add_test(t, test_amber_failed_expect_is_reported);
    tcase_add_test(t, test_amber_errors_name_the_construct_and_line);
    tcase_add_test(t, test_amber_expect_between_runs_checks_a_copy);
    tcase_add_test(t, test_vkscript_layouts_and_values);
    tcase_add_test(t, test_binding_holds_the_values_not_the_padding);
    tcase_add_test(t, test_variable_pointer_stores_on_several_threads);
    tcase_add_test(t, test_vkscript_errors_name_the_construct_and_line);
    tcase_add_test(t, test_amber_command_exit_codes);
    suite_add_tcase(s, t);
    TCase *dev = tsup_device_tcase("device");
    tcase_set_timeout(dev, 300);
    tcase_add_test(dev, test_amber_pipelines_agree_with_the_device);
    tcase_add_test(dev, test_amber_workgroup_blocks_on_the_device);
    tcase_add_test(dev, test_amber_unaligned_descriptor_offset_is_refused_by_the_device);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    tsup_prefer_lavapipe();
    return tsup_run_suite(amber_suite(), "amber");
}
