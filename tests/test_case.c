/*
 * tests/test_case.c — the case-file module: every field of the format, every
 * error path (each message must name its field), the fills byte by byte, the
 * f16 conversion against hand-known bit patterns, and the expectation
 * comparisons.  JSON texts are written with single quotes and turned into
 * JSON by q() so that they stay readable.
 */
#include "case/case.h"
#include "img/img.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------- */
/* Helpers                                                                    */
/* ------------------------------------------------------------------------- */

/* The text with every ' turned into ": the tests' JSON never needs an apostrophe. */
static char *q(const char *single_quoted)
{
    char *s = strdup(single_quoted);
    ck_assert_ptr_nonnull(s);
    for (char *k = s; *k; k++)
        if (*k == '\'')
            *k = '"';
    return s;
}

static wl_case *parse_ok_at(const char *single_quoted, const char *path)
{
    char err[512] = "";
    wl_case *c = NULL;
    char *json = q(single_quoted);
    case_status s = case_parse(json, path, &c, err, sizeof err);
    free(json);
    ck_assert_msg(s == CASE_OK, "expected the case to parse, got status %d: %s", (int)s, err);
    ck_assert_ptr_nonnull(c);
    return c;
}

static wl_case *parse_ok(const char *single_quoted)
{
    return parse_ok_at(single_quoted, "t.json");
}

/* Parses text that must fail with `want` and a message holding `needle`. */
static void parse_fails(const char *single_quoted, case_status want, const char *needle)
{
    char err[512] = "";
    wl_case *c = (wl_case *)1;
    char *json = q(single_quoted);
    case_status s = case_parse(json, "t.json", &c, err, sizeof err);
    free(json);
    ck_assert_msg(s == want, "status %d, wanted %d, for %s (message: %s)", (int)s, (int)want, single_quoted, err);
    ck_assert_ptr_null(c);
    ck_assert_msg(strncmp(err, "t.json: ", 8) == 0, "message does not start with the file: %s", err);
    ck_assert_msg(strstr(err, needle) != NULL, "message \"%s\" lacks \"%s\"", err, needle);
}

/* A case with one binding given as text, to test binding fields. */
static char *with_binding(const char *binding)
{
    static char text[4096];
    snprintf(text, sizeof text, "{'kernel': 'k.comp', 'bindings': [%s]}", binding);
    return text;
}

static void binding_fails(const char *binding, const char *needle)
{
    parse_fails(with_binding(binding), CASE_ERR_FIELD, needle);
}

static uint64_t le(const uint8_t *p, size_t size)
{
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* splitmix64 again, written from the spec in the brief, not from case.c. */
static uint64_t reference_splitmix64(uint64_t *state)
{
    *state = *state + 0x9E3779B97F4A7C15ull;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static case_expect make_expect(case_type t, case_compare compare, double tolerance, const void *bytes,
                               size_t count)
{
    case_expect e = {.set = 0, .binding = 3, .type = t, .compare = compare, .tolerance = tolerance,
                     .count = count, .bytes = (uint8_t *)bytes};
    return e;
}

/* ------------------------------------------------------------------------- */
/* Tables                                                                     */
/* ------------------------------------------------------------------------- */

START_TEST(test_case_type_tables_match_the_list)
{
    ck_assert_str_eq(case_type_name(CASE_TYPE_U8), "u8");
    ck_assert_str_eq(case_type_name(CASE_TYPE_I64), "i64");
    ck_assert_str_eq(case_type_name(CASE_TYPE_F16), "f16");
    ck_assert_uint_eq(case_type_size(CASE_TYPE_I16), 2);
    ck_assert_uint_eq(case_type_size(CASE_TYPE_F16), 2);
    ck_assert_uint_eq(case_type_size(CASE_TYPE_U64), 8);
    ck_assert_uint_eq(case_type_size(CASE_TYPE_F32), 4);
    ck_assert_int_eq(case_type_is_float(CASE_TYPE_F64), 1);
    ck_assert_int_eq(case_type_is_float(CASE_TYPE_I32), 0);
    ck_assert_int_eq(case_type_is_signed(CASE_TYPE_I8), 1);
    ck_assert_int_eq(case_type_is_signed(CASE_TYPE_U32), 0);
    ck_assert_int_eq(case_type_is_signed(CASE_TYPE_F32), 1);
    ck_assert_str_eq(case_kind_name(CASE_KIND_STORAGE_BUFFER), "storage_buffer");
    ck_assert_str_eq(case_kind_name(CASE_KIND_UNIFORM_BUFFER), "uniform_buffer");
    ck_assert_str_eq(case_kind_name(CASE_KIND_STORAGE_TEXEL_BUFFER), "storage_texel_buffer");
    ck_assert_str_eq(case_kind_name(CASE_KIND_UNIFORM_TEXEL_BUFFER), "uniform_texel_buffer");
    ck_assert_str_eq(case_status_str(CASE_ERR_JSON), "the case file is not valid JSON");
    ck_assert_str_eq(case_status_str(CASE_OK), "ok");
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Top-level fields                                                           */
/* ------------------------------------------------------------------------- */

START_TEST(test_case_minimal_case_gets_defaults)
{
    wl_case *c = parse_ok("{'kernel': 'k.comp', 'bindings': [{'binding': 0, 'type': 'u32', 'count': 3}]}");
    ck_assert_str_eq(c->path, "t.json");
    ck_assert_str_eq(c->dir, ".");
    ck_assert_str_eq(c->kernel, "k.comp");
    ck_assert_str_eq(c->language, "glsl");
    ck_assert_str_eq(c->entry, "main");
    ck_assert_int_eq(c->define_count, 0);
    ck_assert_uint_eq(c->groups[0], 1);
    ck_assert_uint_eq(c->groups[1], 1);
    ck_assert_uint_eq(c->groups[2], 1);
    ck_assert_uint_eq(c->subgroup_size, 0);
    ck_assert_ptr_null(c->push_constants);
    ck_assert_uint_eq(c->push_size, 0);
    ck_assert_int_eq(c->binding_count, 1);
    ck_assert_int_eq(c->expect_count, 0);
    const case_binding *b = &c->bindings[0];
    ck_assert_uint_eq(b->set, 0);
    ck_assert_uint_eq(b->binding, 0);
    ck_assert_int_eq(b->kind, CASE_KIND_STORAGE_BUFFER);
    ck_assert_int_eq(b->type, CASE_TYPE_U32);
    ck_assert_str_eq(b->format, "");
    ck_assert_uint_eq(b->count, 3);
    ck_assert_uint_eq(b->size, 12);
    for (size_t i = 0; i < b->size; i++)
        ck_assert_uint_eq(b->bytes[i], 0);
    case_destroy(c);
}
END_TEST

START_TEST(test_case_full_example_fills_every_field)
{
    wl_case *c = parse_ok_at(
        "{'description': 'the example of docs/case-format.md',"
        " 'kernel': 'scan.hlsl', 'language': 'glsl', 'entry': 'scan_main',"
        " 'defines': {'RADIUS': '4', 'N': 16},"
        " 'groups': [4, 2], 'subgroup_size': 32,"
        " 'push_constants': {'type': 'u32', 'data': [1, 2]},"
        " 'bindings': ["
        "   {'set': 0, 'binding': 0, 'type': 'u32', 'data': [3, 1, 4]},"
        "   {'set': 1, 'binding': 1, 'kind': 'uniform_buffer', 'type': 'f32', 'count': 4, 'fill': {'value': 0.5}},"
        "   {'binding': 4, 'kind': 'storage_texel_buffer', 'format': 'r32ui', 'type': 'u32', 'count': 16,"
        "    'fill': {'value': 0}},"
        "   {'binding': 5, 'kind': 'uniform_texel_buffer', 'format': 'rgba8', 'type': 'u8', 'count': 8}],"
        " 'expect': [{'binding': 0, 'data': [3, 1], 'compare': 'sorted'},"
        "            {'set': 1, 'binding': 1, 'type': 'f32', 'data': [0.5], 'compare': {'ulp': 2}},"
        "            {'set': 1, 'binding': 1, 'data': [0.5, 0.5], 'compare': {'epsilon': 0.25}},"
        "            {'binding': 4, 'data': [0], 'compare': 'exact'}]}",
        "cases/sub/scan.json");
    ck_assert_str_eq(c->dir, "cases/sub");
    ck_assert_str_eq(c->kernel, "cases/sub/scan.hlsl");
    ck_assert_str_eq(c->language, "glsl"); /* "language" overrides the extension */
    ck_assert_str_eq(c->entry, "scan_main");
    ck_assert_int_eq(c->define_count, 2);
    ck_assert_str_eq(c->defines[0].name, "RADIUS");
    ck_assert_str_eq(c->defines[0].value, "4");
    ck_assert_str_eq(c->defines[1].name, "N");
    ck_assert_str_eq(c->defines[1].value, "16");
    ck_assert_uint_eq(c->groups[0], 4);
    ck_assert_uint_eq(c->groups[1], 2);
    ck_assert_uint_eq(c->groups[2], 1);
    ck_assert_uint_eq(c->subgroup_size, 32);
    ck_assert_int_eq(c->push_type, CASE_TYPE_U32);
    ck_assert_uint_eq(c->push_size, 8);
    ck_assert_uint_eq(le(c->push_constants, 4), 1);
    ck_assert_uint_eq(le(c->push_constants + 4, 4), 2);

    ck_assert_int_eq(c->binding_count, 4);
    ck_assert_uint_eq(c->bindings[0].count, 3);
    ck_assert_uint_eq(le(c->bindings[0].bytes + 8, 4), 4);
    const case_binding *u = case_find_binding(c, 1, 1, 0);
    ck_assert_ptr_eq(u, &c->bindings[1]);
    ck_assert_int_eq(u->kind, CASE_KIND_UNIFORM_BUFFER);
    ck_assert_uint_eq(le(u->bytes + 12, 4), f32_bits(0.5f));
    ck_assert_int_eq(c->bindings[2].kind, CASE_KIND_STORAGE_TEXEL_BUFFER);
    ck_assert_str_eq(c->bindings[2].format, "r32ui");
    ck_assert_int_eq(c->bindings[3].kind, CASE_KIND_UNIFORM_TEXEL_BUFFER);
    ck_assert_str_eq(c->bindings[3].format, "rgba8");
    ck_assert_ptr_null(case_find_binding(c, 0, 1, 0));
    ck_assert_ptr_null(case_find_binding(c, 2, 0, 0));

    ck_assert_int_eq(c->expect_count, 4);
    ck_assert_int_eq(c->expects[0].compare, CASE_COMPARE_SORTED);
    ck_assert_int_eq(c->expects[0].type, CASE_TYPE_U32);
    ck_assert_uint_eq(c->expects[0].count, 2);
    ck_assert_uint_eq(le(c->expects[0].bytes + 4, 4), 1);
    ck_assert_int_eq(c->expects[1].compare, CASE_COMPARE_ULP);
    ck_assert_double_eq(c->expects[1].tolerance, 2.0);
    ck_assert_uint_eq(c->expects[1].set, 1);
    ck_assert_int_eq(c->expects[2].compare, CASE_COMPARE_EPSILON);
    ck_assert_double_eq(c->expects[2].tolerance, 0.25);
    ck_assert_int_eq(c->expects[3].compare, CASE_COMPARE_EXACT);
    case_destroy(c);
}
END_TEST

START_TEST(test_case_paths_resolve_against_the_case_directory)
{
    static const struct {
        const char *case_path, *kernel, *dir, *resolved;
    } rows[] = {
        {"t.json", "k.comp", ".", "k.comp"},
        {"cases/t.json", "k.comp", "cases", "cases/k.comp"},
        {"cases/t.json", "../shared/k.comp", "cases", "cases/../shared/k.comp"},
        {"/abs/dir/t.json", "k.comp", "/abs/dir", "/abs/dir/k.comp"},
        {"/t.json", "k.comp", "/", "/k.comp"},
        {"cases/t.json", "/opt/k.comp", "cases", "/opt/k.comp"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "{'kernel': '%s', 'bindings': [{'binding': 0, 'type': 'u8', 'count': 4}]}",
                 rows[i].kernel);
        wl_case *c = parse_ok_at(text, rows[i].case_path);
        ck_assert_str_eq(c->path, rows[i].case_path);
        ck_assert_str_eq(c->dir, rows[i].dir);
        ck_assert_str_eq(c->kernel, rows[i].resolved);
        case_destroy(c);
    }
}
END_TEST

START_TEST(test_case_language_comes_from_extension_or_field)
{
    static const struct {
        const char *kernel, *language_field, *language;
    } rows[] = {
        {"a.comp", NULL, "glsl"}, {"a.glsl", NULL, "glsl"}, {"a.hlsl", NULL, "hlsl"},
        {"A.HLSL", NULL, "hlsl"}, {"a.spv", "hlsl", "hlsl"}, {"dir.x/a", "glsl", "glsl"},
        {"a.spv", NULL, "spirv"}, {"a.comp", "spirv", "spirv"},
        {"a.comp", "hlsl", "hlsl"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[256], language[64] = "";
        if (rows[i].language_field)
            snprintf(language, sizeof language, "'language': '%s', ", rows[i].language_field);
        snprintf(text, sizeof text, "{'kernel': '%s', %s'bindings': [{'binding': 0, 'type': 'u8', 'count': 4}]}",
                 rows[i].kernel, language);
        wl_case *c = parse_ok(text);
        ck_assert_str_eq(c->language, rows[i].language);
        case_destroy(c);
    }
    parse_fails("{'kernel': 'a.msl', 'bindings': [{'binding': 0, 'type': 'u8', 'count': 4}]}", CASE_ERR_FIELD,
                "t.json: kernel: cannot tell the language");
    parse_fails("{'kernel': 'dir.hlsl/a', 'bindings': [{'binding': 0, 'type': 'u8', 'count': 4}]}", CASE_ERR_FIELD,
                "kernel: ");
    parse_fails("{'kernel': 'a.comp', 'language': 'msl', 'bindings': [{'binding': 0, 'type': 'u8', 'count': 4}]}",
                CASE_ERR_FIELD, "language: unknown language \"msl\"");
}
END_TEST

START_TEST(test_case_defines_keep_order_and_print_numbers)
{
    wl_case *c = parse_ok("{'kernel': 'k.comp', 'defines': {'RADIUS': '4', 'N': 16, 'NEG': -3, 'HALF': 0.5,"
                          " 'TENTH': 0.1, 'BIG': 1e20, 'TINY': 1.5e-7, 'EXPR': '(N * 2)', '_U': ''},"
                          " 'bindings': [{'binding': 0, 'type': 'u8', 'count': 4}]}");
    static const char *const want[][2] = {
        {"RADIUS", "4"}, {"N", "16"}, {"NEG", "-3"}, {"HALF", "0.5"}, {"TENTH", "0.1"},
        {"BIG", "1e+20"}, {"TINY", "1.5e-07"}, {"EXPR", "(N * 2)"}, {"_U", ""},
    };
    ck_assert_int_eq(c->define_count, 9);
    for (int i = 0; i < 9; i++) {
        ck_assert_str_eq(c->defines[i].name, want[i][0]);
        ck_assert_str_eq(c->defines[i].value, want[i][1]);
    }
    case_destroy(c);
}
END_TEST

START_TEST(test_case_groups_fill_missing_dimensions_with_one)
{
    wl_case *c = parse_ok("{'kernel': 'k.comp', 'groups': [7], 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}]}");
    ck_assert_uint_eq(c->groups[0], 7);
    ck_assert_uint_eq(c->groups[1], 1);
    ck_assert_uint_eq(c->groups[2], 1);
    case_destroy(c);
    c = parse_ok("{'kernel': 'k.comp', 'groups': [2, 3, 4294967295], 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}]}");
    ck_assert_uint_eq(c->groups[1], 3);
    ck_assert_uint_eq(c->groups[2], 4294967295u);
    case_destroy(c);
}
END_TEST

START_TEST(test_case_known_failure_is_kept_and_must_be_a_reason)
{
    wl_case *c = parse_ok("{'kernel': 'k.comp', 'known_failure': 'glslang quirk', 'bindings': "
                          "[{'binding': 0, 'type': 'u32', 'count': 1}]}");
    ck_assert_str_eq(c->known_failure, "glslang quirk");
    case_destroy(c);
    c = parse_ok("{'kernel': 'k.comp', 'bindings': [{'binding': 0, 'type': 'u32', 'count': 1}]}");
    ck_assert_ptr_null(c->known_failure);
    case_destroy(c);
    parse_fails("{'kernel': 'k.comp', 'known_failure': 3, 'bindings': [{'binding': 0, 'type': 'u32', 'count': 1}]}",
                CASE_ERR_FIELD, "known_failure");
    parse_fails("{'kernel': 'k.comp', 'known_failure': '', 'bindings': [{'binding': 0, 'type': 'u32', 'count': 1}]}",
                CASE_ERR_FIELD, "known_failure");
}
END_TEST

START_TEST(test_case_device_differences_match_by_part_of_the_name)
{
    wl_case *c = parse_ok("{'kernel': 'k.comp', 'device_differences': [{'device': 'llvmpipe', 'reason': 'sinks'}, "
                          "{'device': 'NVIDIA', 'reason': 'splits'}], "
                          "'bindings': [{'binding': 0, 'type': 'u32', 'count': 1}]}");
    ck_assert_int_eq(c->device_difference_count, 2);
    const case_device_difference *d = case_device_difference_for(c, "NVIDIA H100 80GB HBM3");
    ck_assert_ptr_nonnull(d);
    ck_assert_str_eq(d->reason, "splits");
    d = case_device_difference_for(c, "llvmpipe (LLVM 15.0.6, 256 bits)");
    ck_assert_ptr_nonnull(d);
    ck_assert_str_eq(d->reason, "sinks");
    ck_assert_ptr_null(case_device_difference_for(c, "AMD Radeon RX 7900"));
    case_destroy(c);
    parse_fails("{'kernel': 'k.comp', 'device_differences': [], 'bindings': [{'binding': 0, 'type': 'u32', "
                "'count': 1}]}", CASE_ERR_FIELD, "device_differences");
    parse_fails("{'kernel': 'k.comp', 'device_differences': [{'device': 'x'}], 'bindings': [{'binding': 0, "
                "'type': 'u32', 'count': 1}]}", CASE_ERR_FIELD, "device_differences[0]");
    parse_fails("{'kernel': 'k.comp', 'device_differences': [{'device': '', 'reason': 'r'}], 'bindings': "
                "[{'binding': 0, 'type': 'u32', 'count': 1}]}", CASE_ERR_FIELD, "device_differences[0]");
    parse_fails("{'kernel': 'k.comp', 'device_differences': [{'device': 'x', 'reason': 'r', 'when': 1}], "
                "'bindings': [{'binding': 0, 'type': 'u32', 'count': 1}]}", CASE_ERR_FIELD, "when");
}
END_TEST

START_TEST(test_case_subgroup_sizes_powers_of_two_parse)
{
    for (unsigned size = 4; size <= 128; size *= 2) {
        char text[256];
        snprintf(text, sizeof text,
                 "{'kernel': 'k.comp', 'subgroup_size': %u, 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}]}",
                 size);
        wl_case *c = parse_ok(text);
        ck_assert_uint_eq(c->subgroup_size, size);
        case_destroy(c);
    }
}
END_TEST

START_TEST(test_case_max_subgroup_size_parses_and_rejects_non_powers_of_two)
{
    wl_case *c = parse_ok("{'kernel': 'k.comp', 'max_subgroup_size': 64, 'bindings': [{'binding': 0, 'type': 'u8', "
                          "'count': 1}]}");
    ck_assert_uint_eq(c->max_subgroup_size, 64);
    ck_assert_uint_eq(c->subgroup_size, 0);
    case_destroy(c);
    c = parse_ok("{'kernel': 'k.comp', 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}]}");
    ck_assert_uint_eq(c->max_subgroup_size, 0);
    case_destroy(c);
    parse_fails("{'kernel': 'k.comp', 'max_subgroup_size': 48, 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}]}",
                CASE_ERR_FIELD, "max_subgroup_size");
    parse_fails("{'kernel': 'k.comp', 'max_subgroup_size': 256, 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}]}",
                CASE_ERR_FIELD, "max_subgroup_size");
}
END_TEST

START_TEST(test_case_push_constants_become_bytes)
{
    wl_case *c = parse_ok("{'kernel': 'k.comp', 'push_constants': {'type': 'i16', 'data': [-1, 2, 300, -32768]},"
                          " 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}]}");
    static const uint8_t want[] = {0xFF, 0xFF, 0x02, 0x00, 0x2C, 0x01, 0x00, 0x80};
    ck_assert_int_eq(c->push_type, CASE_TYPE_I16);
    ck_assert_uint_eq(c->push_size, sizeof want);
    ck_assert_mem_eq(c->push_constants, want, sizeof want);
    case_destroy(c);
    c = parse_ok("{'kernel': 'k.comp', 'push_constants': {'type': 'f32', 'data': [1.5, 'inf']},"
                 " 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}]}");
    ck_assert_uint_eq(le(c->push_constants, 4), 0x3FC00000u);
    ck_assert_uint_eq(le(c->push_constants + 4, 4), 0x7F800000u);
    case_destroy(c);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Binding contents                                                           */
/* ------------------------------------------------------------------------- */

START_TEST(test_case_integer_limits_store_little_endian)
{
    static const struct {
        const char *type, *data;
        uint64_t first, second;
    } rows[] = {
        {"u8", "[0, 255]", 0, 0xFF},
        {"i8", "[-128, 127]", 0x80, 0x7F},
        {"u16", "[0, 65535]", 0, 0xFFFF},
        {"i16", "[-32768, 32767]", 0x8000, 0x7FFF},
        {"u32", "[0, 4294967295]", 0, 0xFFFFFFFFu},
        {"i32", "[-2147483648, 2147483647]", 0x80000000u, 0x7FFFFFFFu},
        {"u64", "['0', '18446744073709551615']", 0, UINT64_MAX},
        {"i64", "['-9223372036854775808', '9223372036854775807']", 0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull},
        {"u64", "[9007199254740992, '9007199254740993']", 9007199254740992ull, 9007199254740993ull},
        {"i64", "[-9007199254740992, '-1']", (uint64_t)-9007199254740992ll, UINT64_MAX},
        {"i32", "[-0, 1.0]", 0, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char binding[256];
        snprintf(binding, sizeof binding, "{'binding': 0, 'type': '%s', 'data': %s}", rows[i].type, rows[i].data);
        wl_case *c = parse_ok(with_binding(binding));
        const case_binding *b = &c->bindings[0];
        size_t size = case_type_size(b->type);
        ck_assert_uint_eq(b->count, 2);
        ck_assert_uint_eq(b->size, 2 * size);
        ck_assert_msg(le(b->bytes, size) == rows[i].first, "row %zu first", i);
        ck_assert_msg(le(b->bytes + size, size) == rows[i].second, "row %zu second", i);
        if (size == 2) /* little-endian: low byte first */
            ck_assert_uint_eq(b->bytes[0], rows[i].first & 0xFF);
        case_destroy(c);
    }
}
END_TEST

START_TEST(test_case_integer_out_of_range_fails_without_wrapping)
{
    static const struct {
        const char *type, *value, *needle;
    } rows[] = {
        {"u8", "256", "bindings[0].data[1]: 256 is out of range (u8 holds 0..255)"},
        {"u8", "-1", "bindings[0].data[1]: -1 is out of range"},
        {"i8", "128", "i8 holds -128..127"},
        {"i8", "-129", "bindings[0].data[1]"},
        {"u16", "65536", "u16 holds 0..65535"},
        {"i16", "-32769", "bindings[0].data[1]"},
        {"u32", "4294967296", "u32 holds 0..4294967295"},
        {"i32", "2147483648", "i32 holds"},
        {"u64", "'18446744073709551616'", "bindings[0].data[1]: 18446744073709551616 is out of range"},
        {"u64", "'-1'", "bindings[0].data[1]: -1 is out of range"},
        {"i64", "'9223372036854775808'", "out of range"},
        {"u64", "9007199254740994", "bindings[0].data[1]: 9007199254740994 is above 2^53"},
        {"u64", "'12a'", "bindings[0].data[1]: \"12a\" is not a decimal integer"},
        {"u64", "' 12'", "not a decimal integer"},
        {"u64", "''", "not a decimal integer"},
        {"u32", "'12'", "bindings[0].data[1]: expected an integer for u32, got a string"},
        {"u32", "1.5", "bindings[0].data[1]: expected an integer for u32, got 1.5"},
        {"i32", "true", "got a boolean"},
        {"i32", "null", "got null"},
        {"i32", "[1]", "flatten vectors and structs"},
        {"u64", "{}", "expected an integer or a decimal string for u64, got an object"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char binding[256];
        snprintf(binding, sizeof binding, "{'binding': 0, 'type': '%s', 'data': [0, %s]}", rows[i].type,
                 rows[i].value);
        binding_fails(binding, rows[i].needle);
    }
}
END_TEST

START_TEST(test_case_float_values_and_specials_store_canonical_bits)
{
    wl_case *c = parse_ok(with_binding("{'binding': 0, 'type': 'f32', 'data': [1, -0.0, 'nan', 'inf', '-inf', 0.1,"
                                       " 3.4028234663852886e38, 1e-46]}"));
    const uint8_t *p = c->bindings[0].bytes;
    ck_assert_uint_eq(le(p + 0, 4), 0x3F800000u);
    ck_assert_uint_eq(le(p + 4, 4), 0x80000000u);
    ck_assert_uint_eq(le(p + 8, 4), 0x7FC00000u);
    ck_assert_uint_eq(le(p + 12, 4), 0x7F800000u);
    ck_assert_uint_eq(le(p + 16, 4), 0xFF800000u);
    ck_assert_uint_eq(le(p + 20, 4), 0x3DCCCCCDu);
    ck_assert_uint_eq(le(p + 24, 4), 0x7F7FFFFFu); /* FLT_MAX */
    ck_assert_uint_eq(le(p + 28, 4), 0x00000000u); /* below half the smallest subnormal */
    case_destroy(c);

    c = parse_ok(with_binding("{'binding': 0, 'type': 'f64', 'data': [0.1, 'nan', '-inf', -0.0]}"));
    p = c->bindings[0].bytes;
    ck_assert_uint_eq(le(p + 0, 8), 0x3FB999999999999Aull);
    ck_assert_uint_eq(le(p + 8, 8), 0x7FF8000000000000ull);
    ck_assert_uint_eq(le(p + 16, 8), 0xFFF0000000000000ull);
    ck_assert_uint_eq(le(p + 24, 8), 0x8000000000000000ull);
    case_destroy(c);

    /* f16 from the JSON double in one rounding: 1 + 2^-11 + 2^-40 is just above the
     * halfway point between 1 and 1 + 2^-10, so it goes up (through f32 it would tie to 1). */
    c = parse_ok(with_binding("{'binding': 0, 'type': 'f16', 'data': [1, 65504, 'nan', '-inf', 1.0004882812509095,"
                              " 1.00048828125, 5.960464477539063e-08, -0.0]}"));
    p = c->bindings[0].bytes;
    ck_assert_uint_eq(le(p + 0, 2), 0x3C00);
    ck_assert_uint_eq(le(p + 2, 2), 0x7BFF);
    ck_assert_uint_eq(le(p + 4, 2), 0x7E00);
    ck_assert_uint_eq(le(p + 6, 2), 0xFC00);
    ck_assert_uint_eq(le(p + 8, 2), 0x3C01);
    ck_assert_uint_eq(le(p + 10, 2), 0x3C00);
    ck_assert_uint_eq(le(p + 12, 2), 0x0001);
    ck_assert_uint_eq(le(p + 14, 2), 0x8000);
    case_destroy(c);
}
END_TEST

START_TEST(test_case_float_out_of_range_fails)
{
    binding_fails("{'binding': 0, 'type': 'f16', 'data': [65520]}", "bindings[0].data[0]: 65520 is out of range");
    binding_fails("{'binding': 0, 'type': 'f16', 'data': [-1e5]}", "largest finite f16 is 65504");
    binding_fails("{'binding': 0, 'type': 'f32', 'data': [1, 1e39]}", "bindings[0].data[1]: 1e+39 is out of range");
    binding_fails("{'binding': 0, 'type': 'f32', 'data': [3.4028235677973366e38]}", "out of range");
    binding_fails("{'binding': 0, 'type': 'f64', 'data': [1e999]}", "bindings[0].data[0]: number is beyond");
    binding_fails("{'binding': 0, 'type': 'f32', 'data': ['NaN']}", "bindings[0].data[0]: \"NaN\" is not a number");
    binding_fails("{'binding': 0, 'type': 'f32', 'data': ['+inf']}", "\"+inf\" is not a number");
    binding_fails("{'binding': 0, 'type': 'f64', 'data': [true]}", "bindings[0].data[0]: expected a number");
    binding_fails("{'binding': 0, 'type': 'f32', 'data': [[1, 2]]}", "flatten vectors and structs");
}
END_TEST

START_TEST(test_case_data_with_count_pads_with_zeros)
{
    wl_case *c = parse_ok(with_binding("{'binding': 0, 'type': 'u16', 'count': 4, 'data': [7, 8]}"));
    static const uint8_t want[] = {7, 0, 8, 0, 0, 0, 0, 0};
    ck_assert_uint_eq(c->bindings[0].count, 4);
    ck_assert_mem_eq(c->bindings[0].bytes, want, sizeof want);
    case_destroy(c);
    c = parse_ok(with_binding("{'binding': 0, 'type': 'u16', 'count': 2, 'data': [7, 8]}"));
    ck_assert_uint_eq(c->bindings[0].count, 2);
    case_destroy(c);
    c = parse_ok(with_binding("{'binding': 0, 'type': 'f64', 'count': 3, 'data': []}"));
    ck_assert_uint_eq(c->bindings[0].size, 24);
    case_destroy(c);
}
END_TEST

START_TEST(test_case_fill_value_repeats_one_element)
{
    wl_case *c = parse_ok(with_binding("{'binding': 0, 'type': 'u16', 'count': 5, 'fill': {'value': 48879}}"));
    for (size_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(c->bindings[0].bytes[2 * i], 0xEF);
        ck_assert_uint_eq(c->bindings[0].bytes[2 * i + 1], 0xBE);
    }
    case_destroy(c);
    c = parse_ok(with_binding("{'binding': 0, 'type': 'f32', 'count': 3, 'fill': {'value': 'nan'}}"));
    for (size_t i = 0; i < 3; i++)
        ck_assert_uint_eq(le(c->bindings[0].bytes + 4 * i, 4), 0x7FC00000u);
    case_destroy(c);
    c = parse_ok(with_binding("{'binding': 0, 'type': 'i64', 'count': 2, 'fill': {'value': '-9223372036854775807'}}"));
    ck_assert_uint_eq(le(c->bindings[0].bytes + 8, 8), 0x8000000000000001ull);
    case_destroy(c);
}
END_TEST

START_TEST(test_case_fill_iota_matches_hand_values)
{
    wl_case *c = parse_ok(with_binding("{'binding': 0, 'type': 'u32', 'count': 4, 'fill': {'iota': {'start': 5, 'step': 3}}}"));
    static const uint32_t u32_want[] = {5, 8, 11, 14};
    for (size_t i = 0; i < 4; i++)
        ck_assert_uint_eq(le(c->bindings[0].bytes + 4 * i, 4), u32_want[i]);
    case_destroy(c);

    c = parse_ok(with_binding("{'binding': 0, 'type': 'i8', 'count': 4, 'fill': {'iota': {'start': 3, 'step': -2}}}"));
    static const uint8_t i8_want[] = {3, 1, 0xFF, 0xFD};
    ck_assert_mem_eq(c->bindings[0].bytes, i8_want, 4);
    case_destroy(c);

    c = parse_ok(with_binding("{'binding': 0, 'type': 'u8', 'count': 256, 'fill': {'iota': {}}}"));
    for (size_t i = 0; i < 256; i++)
        ck_assert_uint_eq(c->bindings[0].bytes[i], i);
    case_destroy(c);

    c = parse_ok(with_binding("{'binding': 0, 'type': 'f32', 'count': 3, 'fill': {'iota': {'start': 0.5, 'step': 0.25}}}"));
    ck_assert_uint_eq(le(c->bindings[0].bytes + 0, 4), f32_bits(0.5f));
    ck_assert_uint_eq(le(c->bindings[0].bytes + 4, 4), f32_bits(0.75f));
    ck_assert_uint_eq(le(c->bindings[0].bytes + 8, 4), f32_bits(1.0f));
    case_destroy(c);

    /* start + i * step in double, not an accumulated sum: 0.1 * 3 rounds once */
    c = parse_ok(with_binding("{'binding': 0, 'type': 'f64', 'count': 4, 'fill': {'iota': {'start': 0, 'step': 0.1}}}"));
    ck_assert_uint_eq(le(c->bindings[0].bytes + 24, 8), f64_bits(3.0 * 0.1));
    case_destroy(c);

    c = parse_ok(with_binding("{'binding': 0, 'type': 'u64', 'count': 2,"
                              " 'fill': {'iota': {'start': '18446744073709551614', 'step': 1}}}"));
    ck_assert_uint_eq(le(c->bindings[0].bytes + 8, 8), UINT64_MAX);
    case_destroy(c);

    c = parse_ok(with_binding("{'binding': 0, 'type': 'f16', 'count': 2, 'fill': {'iota': {'start': 1, 'step': -2}}}"));
    ck_assert_uint_eq(le(c->bindings[0].bytes + 2, 2), 0xBC00);
    case_destroy(c);
}
END_TEST

START_TEST(test_case_fill_random_matches_reference_generator)
{
    static const struct {
        const char *type, *params;
        uint64_t seed;
        int64_t min, max;
    } int_rows[] = {
        {"u32", "'seed': 7, 'min': 0, 'max': 1000", 7, 0, 1000},
        {"i8", "'seed': 1, 'min': -5, 'max': 5", 1, -5, 5},
        {"u8", "'seed': 123, 'min': 0, 'max': 255", 123, 0, 255},
        {"i32", "'seed': '18446744073709551615', 'min': -2147483648, 'max': 2147483647", UINT64_MAX, INT32_MIN,
         INT32_MAX},
        {"u16", "'seed': 0, 'min': 9, 'max': 9", 0, 9, 9},
    };
    for (size_t r = 0; r < sizeof int_rows / sizeof int_rows[0]; r++) {
        char binding[256];
        snprintf(binding, sizeof binding, "{'binding': 0, 'type': '%s', 'count': 100, 'fill': {'random': {%s}}}",
                 int_rows[r].type, int_rows[r].params);
        wl_case *c = parse_ok(with_binding(binding));
        const case_binding *b = &c->bindings[0];
        uint64_t state = int_rows[r].seed;
        uint64_t span = (uint64_t)(int_rows[r].max - int_rows[r].min) + 1;
        for (size_t i = 0; i < 100; i++) {
            int64_t want = int_rows[r].min + (int64_t)(reference_splitmix64(&state) % span);
            size_t size = case_type_size(b->type);
            uint64_t mask = size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
            ck_assert_msg(le(b->bytes + i * size, size) == ((uint64_t)want & mask), "row %zu element %zu", r, i);
        }
        case_destroy(c);
    }

    /* full 64-bit range: x % 2^64 is x itself */
    wl_case *c = parse_ok(with_binding("{'binding': 0, 'type': 'i64', 'count': 8, 'fill': {'random': {'seed': 3,"
                                       " 'min': '-9223372036854775808', 'max': '9223372036854775807'}}}"));
    uint64_t state = 3;
    for (size_t i = 0; i < 8; i++)
        ck_assert_uint_eq(le(c->bindings[0].bytes + 8 * i, 8), reference_splitmix64(&state) ^ 0x8000000000000000ull);
    case_destroy(c);

    c = parse_ok(with_binding("{'binding': 0, 'type': 'f32', 'count': 64, 'fill': {'random': {'seed': 7, 'min': -1, 'max': 1}}}"));
    state = 7;
    for (size_t i = 0; i < 64; i++) {
        uint64_t x = reference_splitmix64(&state);
        volatile double scaled = 2.0 * ((double)(x >> 11) / 9007199254740992.0);
        float want = (float)(-1.0 + scaled);
        ck_assert_uint_eq(le(c->bindings[0].bytes + 4 * i, 4), f32_bits(want));
        ck_assert(want >= -1.0f && want <= 1.0f);
    }
    case_destroy(c);
}
END_TEST

/* Bytes computed in Python from the formula in docs/case-format.md (struct.pack
 * '<f', '<e', '<d' of min + (max - min) * ((x >> 11) * 2.0**-53)): the doc's
 * recipe and the C code agree. */
START_TEST(test_case_fill_random_matches_python_recipe)
{
    wl_case *c = parse_ok("{'kernel': 'k.comp', 'bindings': ["
                          "{'binding': 0, 'type': 'f32', 'count': 4, 'fill': {'random': {'seed': 7, 'min': -1, 'max': 1}}},"
                          "{'binding': 1, 'type': 'f16', 'count': 4, 'fill': {'random': {'seed': 7, 'min': 0, 'max': 10}}},"
                          "{'binding': 2, 'type': 'f64', 'count': 4, 'fill': {'random': {'seed': 7, 'min': 0.1, 'max': 0.2}}},"
                          "{'binding': 3, 'type': 'i8', 'count': 4, 'fill': {'random': {'seed': 7, 'min': -5, 'max': 5}}}]}");
    static const uint32_t f32_want[] = {0xbe61a0f1, 0xbf776786, 0x3f4d3081, 0x3e29d75c};
    static const uint16_t f16_want[] = {0x43cc, 0x315f, 0x4881, 0x45d4};
    static const uint64_t f64_want[] = {0x3fc1ca31b1d14281, 0x3fba079faf32060a, 0x3fc85469a00955a9, 0x3fc442f22c052982};
    static const int8_t i8_want[] = {-3, -5, -5, -5};
    for (size_t i = 0; i < 4; i++) {
        ck_assert_uint_eq(le(c->bindings[0].bytes + 4 * i, 4), f32_want[i]);
        ck_assert_uint_eq(le(c->bindings[1].bytes + 2 * i, 2), f16_want[i]);
        ck_assert_uint_eq(le(c->bindings[2].bytes + 8 * i, 8), f64_want[i]);
        ck_assert_int_eq((int8_t)c->bindings[3].bytes[i], i8_want[i]);
    }
    case_destroy(c);
}
END_TEST

START_TEST(test_case_splitmix64_known_vectors_match)
{
    /* published splitmix64 outputs for seeds 0 and 1234567 */
    uint64_t state = 0;
    ck_assert_uint_eq(case_splitmix64(&state), 0xE220A8397B1DCDAFull);
    state = 1234567;
    static const uint64_t want[] = {6457827717110365317ull, 3203168211198807973ull, 9817491932198370423ull,
                                    4593380528125082431ull, 16408922859458223821ull};
    for (size_t i = 0; i < 5; i++)
        ck_assert_uint_eq(case_splitmix64(&state), want[i]);
    uint64_t a = 99, b = 99;
    for (int i = 0; i < 1000; i++)
        ck_assert_uint_eq(case_splitmix64(&a), reference_splitmix64(&b));
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Half precision                                                             */
/* ------------------------------------------------------------------------- */

START_TEST(test_case_float_to_half_matches_known_bits)
{
    static const struct {
        float value;
        uint16_t bits;
    } rows[] = {
        {1.0f, 0x3C00},
        {-2.0f, 0xC000},
        {0.5f, 0x3800},
        {0.0f, 0x0000},
        {-0.0f, 0x8000},
        {65504.0f, 0x7BFF},
        {65519.0f, 0x7BFF},      /* below halfway to 65536: rounds down */
        {65520.0f, 0x7C00},      /* halfway: ties to even, which is inf */
        {1e10f, 0x7C00},
        {-1e10f, 0xFC00},
        {0x1p-24f, 0x0001},      /* smallest subnormal */
        {0x1p-25f, 0x0000},      /* half of it: ties to even, zero */
        {0x1.000002p-25f, 0x0001}, /* just above half: up */
        {0x1.8p-24f, 0x0002},    /* 1.5 units: tie, to even 2 */
        {0x1p-23f, 0x0002},
        {0x1.4p-23f, 0x0002},    /* 2.5 units: tie, to even 2 */
        {0x1.cp-23f, 0x0004},    /* 3.5 units: tie, to even 4 */
        {0x1p-14f, 0x0400},      /* smallest normal */
        {0x1.ff8p-15f, 0x03FF},  /* largest subnormal */
        {0x1.ffcp-15f, 0x0400},  /* halfway between: up to the smallest normal (even) */
        {1e-10f, 0x0000},
        {0x1.002p0f, 0x3C00},    /* 1 + 2^-11: tie, to even 1 */
        {0x1.006p0f, 0x3C02},    /* 1 + 3 * 2^-11: tie, to even 1 + 2^-9 */
        {0x1.0024p0f, 0x3C01},   /* a little above the tie: up */
        {0.1f, 0x2E66},
        {1.0f / 3.0f, 0x3555},
        {INFINITY, 0x7C00},
        {-INFINITY, 0xFC00},
        {2048.0f, 0x6800},
        {2049.0f, 0x6800},       /* spacing 2 here: tie to even */
        {2051.0f, 0x6802},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        ck_assert_msg(img_double_to_half(rows[i].value) == rows[i].bits, "row %zu: %a -> 0x%04x, want 0x%04x", i,
                      (double)rows[i].value, img_double_to_half(rows[i].value), rows[i].bits);
    uint16_t nan_bits = img_double_to_half(NAN);
    ck_assert_uint_eq(nan_bits & 0x7C00, 0x7C00);
    ck_assert_uint_ne(nan_bits & 0x03FF, 0);
}
END_TEST

START_TEST(test_case_half_to_float_matches_known_values)
{
    ck_assert_float_eq(img_half_to_float(0x3C00), 1.0f);
    ck_assert_float_eq(img_half_to_float(0xC000), -2.0f);
    ck_assert_float_eq(img_half_to_float(0x7BFF), 65504.0f);
    ck_assert_float_eq(img_half_to_float(0x0001), 0x1p-24f);
    ck_assert_float_eq(img_half_to_float(0x03FF), 1023 * 0x1p-24f);
    ck_assert_float_eq(img_half_to_float(0x0400), 0x1p-14f);
    ck_assert_float_eq(img_half_to_float(0x3555), 0.333251953125f);
    ck_assert_uint_eq(f32_bits(img_half_to_float(0x8000)), 0x80000000u);
    ck_assert_uint_eq(f32_bits(img_half_to_float(0x8001)), f32_bits(-0x1p-24f));
    ck_assert_uint_eq(f32_bits(img_half_to_float(0x7C00)), 0x7F800000u);
    ck_assert_uint_eq(f32_bits(img_half_to_float(0xFC00)), 0xFF800000u);
    ck_assert(isnan(img_half_to_float(0x7E00)));
    ck_assert(isnan(img_half_to_float(0xFC01)));
}
END_TEST

START_TEST(test_case_every_half_round_trips_through_float_and_text)
{
    for (uint32_t h = 0; h <= 0xFFFF; h++) {
        float f = img_half_to_float((uint16_t)h);
        int is_nan = (h & 0x7C00) == 0x7C00 && (h & 0x03FF);
        if (is_nan) {
            ck_assert(isnan(f));
            uint16_t back = img_double_to_half(f);
            ck_assert((back & 0x7C00) == 0x7C00 && (back & 0x03FF));
            ck_assert_uint_eq(back & 0x8000, h & 0x8000);
            continue;
        }
        ck_assert_msg(img_double_to_half(f) == h, "0x%04x does not round-trip", h);
        /* the printed text reads back as the same half */
        uint8_t element[2] = {(uint8_t)h, (uint8_t)(h >> 8)};
        char text[40];
        case_format_element(CASE_TYPE_F16, element, text, sizeof text);
        if ((h & 0x7FFF) == 0x7C00)
            continue;
        ck_assert_msg(img_double_to_half((float)strtod(text, NULL)) == h, "0x%04x printed as %s", h, text);
    }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Formatting                                                                 */
/* ------------------------------------------------------------------------- */

static const char *format_bits(case_type t, uint64_t bits)
{
    static char text[64];
    uint8_t element[8];
    for (int i = 0; i < 8; i++)
        element[i] = (uint8_t)(bits >> (8 * i));
    int n = case_format_element(t, element, text, sizeof text);
    ck_assert_int_eq(n, (int)strlen(text));
    return text;
}

START_TEST(test_case_format_element_round_trips)
{
    ck_assert_str_eq(format_bits(CASE_TYPE_U8, 255), "255");
    ck_assert_str_eq(format_bits(CASE_TYPE_I8, 0x80), "-128");
    ck_assert_str_eq(format_bits(CASE_TYPE_I16, 0xFFFF), "-1");
    ck_assert_str_eq(format_bits(CASE_TYPE_U32, 0xFFFFFFFFu), "4294967295");
    ck_assert_str_eq(format_bits(CASE_TYPE_I32, 0x80000000u), "-2147483648");
    /* 64-bit integers past 2^53 as decimal strings: a JSON number there would not read back exactly */
    ck_assert_str_eq(format_bits(CASE_TYPE_U64, UINT64_MAX), "\"18446744073709551615\"");
    ck_assert_str_eq(format_bits(CASE_TYPE_I64, 0x8000000000000000ull), "\"-9223372036854775808\"");
    ck_assert_str_eq(format_bits(CASE_TYPE_U64, 1ull << 53), "9007199254740992");
    ck_assert_str_eq(format_bits(CASE_TYPE_U64, (1ull << 53) + 1), "\"9007199254740993\"");
    ck_assert_str_eq(format_bits(CASE_TYPE_I64, (uint64_t)-(int64_t)(1ull << 53)), "-9007199254740992");
    ck_assert_str_eq(format_bits(CASE_TYPE_I64, (uint64_t)(-(int64_t)(1ull << 53) - 1)), "\"-9007199254740993\"");
    ck_assert_str_eq(format_bits(CASE_TYPE_F32, f32_bits(0.1f)), "0.100000001");
    ck_assert_str_eq(format_bits(CASE_TYPE_F32, f32_bits(1.0f)), "1");
    ck_assert_str_eq(format_bits(CASE_TYPE_F32, 0x80000000u), "-0");
    ck_assert_str_eq(format_bits(CASE_TYPE_F32, 0x7FC00000u), "\"nan\"");
    ck_assert_str_eq(format_bits(CASE_TYPE_F32, 0xFFC00001u), "\"nan\"");
    ck_assert_str_eq(format_bits(CASE_TYPE_F32, 0x7F800000u), "\"inf\"");
    ck_assert_str_eq(format_bits(CASE_TYPE_F32, 0xFF800000u), "\"-inf\"");
    ck_assert_str_eq(format_bits(CASE_TYPE_F64, f64_bits(0.1)), "0.10000000000000001");
    ck_assert_str_eq(format_bits(CASE_TYPE_F64, 0xFFF0000000000000ull), "\"-inf\"");
    ck_assert_str_eq(format_bits(CASE_TYPE_F16, 0x3555), "0.33325");
    ck_assert_str_eq(format_bits(CASE_TYPE_F16, 0x7BFF), "65504");
    ck_assert_str_eq(format_bits(CASE_TYPE_F16, 0x7E00), "\"nan\"");
    ck_assert_str_eq(format_bits(CASE_TYPE_F16, 0xFC00), "\"-inf\"");

    /* f32 and f64 text reads back bit-exact */
    static const float floats[] = {0.1f, 1.0f / 3.0f, 0x1p-149f, FLT_MAX, -1.17549435e-38f, 16777217.0f};
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++) {
        const char *text = format_bits(CASE_TYPE_F32, f32_bits(floats[i]));
        ck_assert_uint_eq(f32_bits(strtof(text, NULL)), f32_bits(floats[i]));
    }
    static const double doubles[] = {0.1, 1.0 / 3.0, 0x1p-1074, DBL_MAX, -2.2250738585072014e-308};
    for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++) {
        const char *text = format_bits(CASE_TYPE_F64, f64_bits(doubles[i]));
        ck_assert_uint_eq(f64_bits(strtod(text, NULL)), f64_bits(doubles[i]));
    }
    char small[4];
    uint8_t element[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    ck_assert_int_eq(case_format_element(CASE_TYPE_U32, element, small, sizeof small), 10);
    ck_assert_str_eq(small, "429");
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Expectation comparisons                                                    */
/* ------------------------------------------------------------------------- */

START_TEST(test_case_expect_exact_passes_and_names_first_difference)
{
    uint32_t want[] = {1, 2, 3, 4};
    uint32_t got[] = {1, 2, 9, 5, 77};
    case_expect e = make_expect(CASE_TYPE_U32, CASE_COMPARE_EXACT, 0, want, 4);
    char msg[256];
    size_t bad = 99;
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)want, sizeof want, msg, sizeof msg, &bad), 1);
    ck_assert_str_eq(msg, "");
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)got, sizeof got, msg, sizeof msg, &bad), 0);
    ck_assert_uint_eq(bad, 2);
    ck_assert_msg(strstr(msg, "element 2") && strstr(msg, "expected 3") && strstr(msg, "actual 9") &&
                      strstr(msg, "2 of 4 elements differ") && strstr(msg, "set 0 binding 3"),
                  "%s", msg);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)got, sizeof got, NULL, 0, NULL), 0);

    /* floats: bit-exact, so -0 is not +0; a NaN matches any NaN (tests/test_compare.c) */
    float fw[] = {0.0f, NAN}, fg[] = {-0.0f, NAN};
    e = make_expect(CASE_TYPE_F32, CASE_COMPARE_EXACT, 0, fw, 2);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)fg, sizeof fg, msg, sizeof msg, &bad), 0);
    ck_assert_uint_eq(bad, 0);
    ck_assert_msg(strstr(msg, "expected 0, actual -0") && strstr(msg, "1 of 2"), "%s", msg);
}
END_TEST

START_TEST(test_case_expect_short_actual_fails)
{
    uint16_t want[] = {1, 2, 3};
    case_expect e = make_expect(CASE_TYPE_U16, CASE_COMPARE_EXACT, 0, want, 3);
    char msg[256];
    size_t bad = 99;
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)want, 5, msg, sizeof msg, &bad), 0);
    ck_assert_uint_eq(bad, 2);
    ck_assert_msg(strstr(msg, "5 bytes, expected at least 6"), "%s", msg);
    ck_assert_int_eq(case_expect_check(&e, NULL, 0, msg, sizeof msg, &bad), 0);
    ck_assert_uint_eq(bad, 0);
}
END_TEST

START_TEST(test_case_expect_ulp_counts_representable_steps)
{
    char msg[256];
    size_t bad;
    float one = 1.0f;
    float next[] = {nextafterf(1.0f, 2.0f)};
    float two_up[] = {nextafterf(nextafterf(1.0f, 2.0f), 2.0f)};
    case_expect e = make_expect(CASE_TYPE_F32, CASE_COMPARE_ULP, 1, &one, 1);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)next, 4, msg, sizeof msg, &bad), 1);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)two_up, 4, msg, sizeof msg, &bad), 0);
    ck_assert_msg(strstr(msg, "within 1 ulp") && strstr(msg, "expected 1, actual 1.00000024"), "%s", msg);
    e.tolerance = 0;
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)next, 4, msg, sizeof msg, &bad), 0);
    /* below 1.0 the step is half as large, still one ulp */
    float below[] = {nextafterf(1.0f, 0.0f)};
    e.tolerance = 1;
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)below, 4, msg, sizeof msg, &bad), 1);

    /* zeros of either sign are 0 apart; the two smallest subnormals are 2 apart */
    float zero = 0.0f, neg_zero[] = {-0.0f}, tiny = 0x1p-149f, neg_tiny[] = {-0x1p-149f};
    e = make_expect(CASE_TYPE_F32, CASE_COMPARE_ULP, 0, &zero, 1);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)neg_zero, 4, msg, sizeof msg, &bad), 1);
    e = make_expect(CASE_TYPE_F32, CASE_COMPARE_ULP, 1, &tiny, 1);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)neg_tiny, 4, msg, sizeof msg, &bad), 0);
    e.tolerance = 2;
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)neg_tiny, 4, msg, sizeof msg, &bad), 1);

    /* NaN matches only NaN (any payload); infinity only itself */
    float nan_want = NAN, other_nan[] = {-NAN}, number[] = {1.0f}, big[] = {FLT_MAX}, inf = INFINITY;
    e = make_expect(CASE_TYPE_F32, CASE_COMPARE_ULP, 1000, &nan_want, 1);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)other_nan, 4, msg, sizeof msg, &bad), 1);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)number, 4, msg, sizeof msg, &bad), 0);
    ck_assert_msg(strstr(msg, "expected \"nan\", actual 1"), "%s", msg);
    e = make_expect(CASE_TYPE_F32, CASE_COMPARE_ULP, 1000, &inf, 1);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)big, 4, msg, sizeof msg, &bad), 0);
    e = make_expect(CASE_TYPE_F32, CASE_COMPARE_ULP, 1000, number, 1);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)&nan_want, 4, msg, sizeof msg, &bad), 0);

    /* f16 and f64 */
    uint16_t h_want = 0x3C00, h_got[] = {0x3C03};
    e = make_expect(CASE_TYPE_F16, CASE_COMPARE_ULP, 3, &h_want, 1);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)h_got, 2, msg, sizeof msg, &bad), 1);
    e.tolerance = 2;
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)h_got, 2, msg, sizeof msg, &bad), 0);
    double d_want[] = {1.0, -1.0}, d_got[] = {1.0, nextafter(nextafter(-1.0, 0.0), 0.0)};
    e = make_expect(CASE_TYPE_F64, CASE_COMPARE_ULP, 1, d_want, 2);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)d_got, 16, msg, sizeof msg, &bad), 0);
    ck_assert_uint_eq(bad, 1);
    e.tolerance = 2;
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)d_got, 16, msg, sizeof msg, &bad), 1);
}
END_TEST

START_TEST(test_case_expect_epsilon_bounds_absolute_difference)
{
    char msg[256];
    size_t bad;
    double want[] = {1.0, 2.0, 3.0}, close[] = {1.0005, 1.9995, 3.0}, far[] = {1.0, 2.0, 3.01};
    case_expect e = make_expect(CASE_TYPE_F64, CASE_COMPARE_EPSILON, 0.001, want, 3);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)close, sizeof close, msg, sizeof msg, &bad), 1);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)far, sizeof far, msg, sizeof msg, &bad), 0);
    ck_assert_uint_eq(bad, 2);
    ck_assert_msg(strstr(msg, "element 2: expected 3, actual 3.0099999999999998") && strstr(msg, "1 of 3"), "%s",
                  msg);

    float fw[] = {0.0f, INFINITY, NAN}, fg[] = {-0.0f, INFINITY, NAN}, fbad[] = {0.0f, FLT_MAX, NAN};
    e = make_expect(CASE_TYPE_F32, CASE_COMPARE_EPSILON, 0, fw, 3);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)fg, sizeof fg, msg, sizeof msg, &bad), 1);
    e.tolerance = 1e30;
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)fbad, sizeof fbad, msg, sizeof msg, &bad), 0);
    ck_assert_uint_eq(bad, 1);

    uint16_t hw[] = {0x3C00}, hg[] = {0x3C01}; /* 1 and 1 + 2^-10 */
    e = make_expect(CASE_TYPE_F16, CASE_COMPARE_EPSILON, 0.001, hw, 1);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)hg, 2, msg, sizeof msg, &bad), 1);
    e.tolerance = 0.0009;
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)hg, 2, msg, sizeof msg, &bad), 0);
    ck_assert_msg(strstr(msg, "expected 1, actual 1.001"), "%s", msg);
}
END_TEST

START_TEST(test_case_expect_sorted_compares_multisets)
{
    char msg[256];
    size_t bad;
    int32_t want[] = {3, -1, 2, 2, -7}, perm[] = {2, -7, 3, 2, -1, 1000}, other[] = {2, -7, 3, 3, -1};
    case_expect e = make_expect(CASE_TYPE_I32, CASE_COMPARE_SORTED, 0, want, 5);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)perm, sizeof perm, msg, sizeof msg, &bad), 1);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)other, sizeof other, msg, sizeof msg, &bad), 0);
    /* sorted: -7 -1 2 2 3 against -7 -1 2 3 3 */
    ck_assert_uint_eq(bad, 3);
    ck_assert_msg(strstr(msg, "after sorting, element 3: expected 2, actual 3") && strstr(msg, "1 of 5"), "%s", msg);

    /* only the first count elements of actual take part */
    uint8_t bytes_want[] = {5, 4}, bytes_got[] = {4, 6, 5};
    e = make_expect(CASE_TYPE_U8, CASE_COMPARE_SORTED, 0, bytes_want, 2);
    ck_assert_int_eq(case_expect_check(&e, bytes_got, 3, msg, sizeof msg, &bad), 0);
    bytes_got[1] = 5;
    ck_assert_int_eq(case_expect_check(&e, bytes_got, 3, msg, sizeof msg, &bad), 1);

    /* floats by value, NaN last, -0 and +0 kept apart */
    float fw[] = {NAN, 2.5f, -0.0f, -3.0f, 0.0f, INFINITY}, fg[] = {0.0f, INFINITY, -3.0f, NAN, -0.0f, 2.5f};
    e = make_expect(CASE_TYPE_F32, CASE_COMPARE_SORTED, 0, fw, 6);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)fg, sizeof fg, msg, sizeof msg, &bad), 1);
    float fbad[] = {0.0f, INFINITY, -3.0f, NAN, 0.0f, 2.5f};
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)fbad, sizeof fbad, msg, sizeof msg, &bad), 0);
    ck_assert_uint_eq(bad, 1); /* sorted: -3 -0 0 2.5 inf nan against -3 0 0 2.5 inf nan */
    ck_assert_msg(strstr(msg, "expected -0, actual 0"), "%s", msg);

    /* unsigned and 64-bit orders */
    uint64_t uw[] = {UINT64_MAX, 0, 1}, ug[] = {1, UINT64_MAX, 0};
    e = make_expect(CASE_TYPE_U64, CASE_COMPARE_SORTED, 0, uw, 3);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)ug, sizeof ug, msg, sizeof msg, &bad), 1);
    int64_t iw[] = {INT64_MIN, INT64_MAX, -1}, ig[] = {-1, INT64_MIN, INT64_MAX};
    e = make_expect(CASE_TYPE_I64, CASE_COMPARE_SORTED, 0, iw, 3);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)ig, sizeof ig, msg, sizeof msg, &bad), 1);
    uint16_t hw[] = {0xBC00, 0x3C00, 0x7E00}, hg[] = {0x7E00, 0x3C00, 0xBC00};
    e = make_expect(CASE_TYPE_F16, CASE_COMPARE_SORTED, 0, hw, 3);
    ck_assert_int_eq(case_expect_check(&e, (const uint8_t *)hg, sizeof hg, msg, sizeof msg, &bad), 1);
}
END_TEST

START_TEST(test_case_parsed_expect_checks_binding_results)
{
    wl_case *c = parse_ok("{'kernel': 'k.comp', 'bindings': [{'binding': 2, 'type': 'f32', 'count': 4}],"
                          " 'expect': [{'binding': 2, 'data': [1, 2], 'compare': {'epsilon': 0.5}},"
                          "            {'binding': 2, 'data': ['nan', 2, 'inf'], 'compare': {'ulp': 0}}]}");
    float actual[] = {1.25f, 2.0f, INFINITY, 0.0f};
    char msg[256];
    ck_assert_int_eq(case_expect_check(&c->expects[0], (const uint8_t *)actual, sizeof actual, msg, sizeof msg, NULL), 1);
    ck_assert_int_eq(case_expect_check(&c->expects[1], (const uint8_t *)actual, sizeof actual, msg, sizeof msg, NULL), 0);
    ck_assert_msg(strstr(msg, "set 0 binding 2") && strstr(msg, "element 0: expected \"nan\", actual 1.25"), "%s", msg);
    actual[0] = NAN;
    ck_assert_int_eq(case_expect_check(&c->expects[1], (const uint8_t *)actual, sizeof actual, msg, sizeof msg, NULL), 1);
    case_destroy(c);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Errors: each message names its field                                       */
/* ------------------------------------------------------------------------- */

START_TEST(test_case_top_level_errors_name_the_field)
{
    static const struct {
        const char *json, *needle;
    } rows[] = {
        {"[]", "t.json: (top level): expected a JSON object at the top level, got an array"},
        {"{'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}]}", "t.json: kernel: missing (required)"},
        {"{'kernel': 5, 'bindings': []}", "t.json: kernel: expected a string, got a number"},
        {"{'kernel': '', 'bindings': []}", "kernel: must not be empty"},
        {"{'kernel': 'k.comp', 'bindigns': []}", "t.json: bindigns: unknown field (expected one of: description, kernel"},
        {"{'kernel': 'k.comp', 'bindigns': []}", "did you mean \"bindings\"?"},
        {"{'kernel': 'k.comp', 'Kernel': 'x'}", "Kernel: unknown field"},
        {"{'kernel': 'k.comp', 'kernel': 'x.comp'}", "t.json: kernel: field given twice"},
        {"{'kernel': 'k.comp'}", "t.json: bindings: missing (required)"},
        {"{'kernel': 'k.comp', 'bindings': []}", "t.json: bindings: empty"},
        {"{'kernel': 'k.comp', 'bindings': {}}", "bindings: expected an array of binding objects, got an object"},
        {"{'kernel': 'k.comp', 'description': 3}", "description: expected a string, got a number"},
        {"{'kernel': 'k.comp', 'entry': ['main']}", "t.json: entry: expected a string, got an array"},
        {"{'kernel': 'k.comp', 'language': 'GLSL'}", "language: unknown language \"GLSL\""},
        {"{'kernel': 'k.comp', 'defines': ['A']}", "t.json: defines: expected an object"},
        {"{'kernel': 'k.comp', 'defines': {'1A': '2'}}", "t.json: defines.1A: \"1A\" is not a macro name"},
        {"{'kernel': 'k.comp', 'defines': {'A-B': '2'}}", "defines.A-B: "},
        {"{'kernel': 'k.comp', 'defines': {'A': true}}", "t.json: defines.A: expected a string or a number, got a boolean"},
        {"{'kernel': 'k.comp', 'defines': {'A': '1\\n2'}}", "defines.A: the value must be a single line"},
        {"{'kernel': 'k.comp', 'defines': {'A': '1', 'A': '2'}}", "defines.A: field given twice"},
        {"{'kernel': 'k.comp', 'groups': 4}", "t.json: groups: expected an array"},
        {"{'kernel': 'k.comp', 'groups': []}", "groups: has 0 elements (expected 1 to 3)"},
        {"{'kernel': 'k.comp', 'groups': [1, 1, 1, 1]}", "groups: has 4 elements"},
        {"{'kernel': 'k.comp', 'groups': [4, 0]}", "t.json: groups[1]: 0 is too small (at least 1)"},
        {"{'kernel': 'k.comp', 'groups': [-2]}", "groups[0]: -2 is too small"},
        {"{'kernel': 'k.comp', 'groups': [1.5]}", "groups[0]: expected an integer, got 1.5"},
        {"{'kernel': 'k.comp', 'groups': [4294967296]}", "groups[0]: 4294967296 is too large"},
        {"{'kernel': 'k.comp', 'groups': ['4']}", "groups[0]: expected an integer, got a string"},
        {"{'kernel': 'k.comp', 'subgroup_size': 48}", "t.json: subgroup_size: 48 is not a power of two"},
        {"{'kernel': 'k.comp', 'subgroup_size': 2}", "subgroup_size: 2 is too small (at least 4)"},
        {"{'kernel': 'k.comp', 'subgroup_size': 256}", "subgroup_size: 256 is too large (at most 128)"},
        {"{'kernel': 'k.comp', 'subgroup_size': '32'}", "subgroup_size: expected an integer"},
        {"{'kernel': 'k.comp', 'push_constants': [1]}", "t.json: push_constants: expected an object"},
        {"{'kernel': 'k.comp', 'push_constants': {'data': [1]}}", "push_constants.type: missing (required)"},
        {"{'kernel': 'k.comp', 'push_constants': {'type': 'u32'}}", "push_constants.data: missing (required)"},
        {"{'kernel': 'k.comp', 'push_constants': {'type': 'v4', 'data': [1]}}", "push_constants.type: unknown type \"v4\""},
        {"{'kernel': 'k.comp', 'push_constants': {'type': 'u32', 'data': []}}", "push_constants.data: empty"},
        {"{'kernel': 'k.comp', 'push_constants': {'type': 'u32', 'data': 1}}", "push_constants.data: expected an array"},
        {"{'kernel': 'k.comp', 'push_constants': {'type': 'u8', 'data': [1, 2, 3]}}",
         "push_constants.data: 3 bytes: push constants must be a multiple of 4 bytes"},
        {"{'kernel': 'k.comp', 'push_constants': {'type': 'u8', 'data': [1, 2, 3, 256]}}",
         "push_constants.data[3]: 256 is out of range"},
        {"{'kernel': 'k.comp', 'push_constants': {'type': 'u32', 'data': [1], 'count': 4}}",
         "push_constants.count: unknown field"},
        {"{'kernel': 'k.comp', 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}], 'expect': {}}",
         "t.json: expect: expected an array"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        parse_fails(rows[i].json, CASE_ERR_FIELD, rows[i].needle);
}
END_TEST

START_TEST(test_case_binding_errors_name_the_field)
{
    static const struct {
        const char *binding, *needle;
    } rows[] = {
        {"7", "t.json: bindings[0]: expected an object, got a number"},
        {"{'binding': 0, 'type': 'u8', 'count': 1, 'bindnig': 1}",
         "bindings[0].bindnig: unknown field (expected one of: set, binding, element, kind, type, format, count, data, "
         "fill, uninitialized, name); did you mean \"binding\"?"},
        {"{'type': 'u8', 'count': 1}", "t.json: bindings[0].binding: missing (required)"},
        {"{'binding': -1, 'type': 'u8', 'count': 1}", "bindings[0].binding: -1 is too small (at least 0)"},
        {"{'binding': 0.5, 'type': 'u8', 'count': 1}", "bindings[0].binding: expected an integer, got 0.5"},
        {"{'binding': 0, 'set': 4294967296, 'type': 'u8', 'count': 1}", "bindings[0].set: 4294967296 is too large"},
        {"{'binding': 0, 'set': '0', 'type': 'u8', 'count': 1}", "bindings[0].set: expected an integer, got a string"},
        {"{'binding': 0, 'count': 1}", "bindings[0].type: missing (required)"},
        {"{'binding': 0, 'type': 'u33', 'count': 1}",
         "t.json: bindings[0].type: unknown type \"u33\" (expected one of u8 i8 u16 i16 u32 i32 u64 i64 f16 f32 f64)"},
        {"{'binding': 0, 'type': 32, 'count': 1}", "bindings[0].type: expected a string, got a number"},
        {"{'binding': 0, 'type': 'u8', 'kind': 'image', 'count': 1}", "bindings[0].kind: unknown kind \"image\""},
        {"{'binding': 0, 'type': 'u8', 'kind': 'storage_texel_buffer', 'count': 4}",
         "bindings[0].format: missing (required for a storage_texel_buffer)"},
        {"{'binding': 0, 'type': 'u8', 'kind': 'uniform_texel_buffer', 'format': 'rgba4', 'count': 4}",
         "bindings[0].format: unknown format \"rgba4\""},
        {"{'binding': 0, 'type': 'u32', 'format': 'r32ui', 'count': 4}",
         "bindings[0].format: only texel buffers take a format (this binding is a storage_buffer)"},
        {"{'binding': 0, 'type': 'u32', 'kind': 'uniform_buffer', 'format': 'r32ui', 'count': 4}",
         "this binding is a uniform_buffer"},
        {"{'binding': 0, 'type': 'f32', 'kind': 'storage_texel_buffer', 'format': 'rgba32f', 'count': 6}",
         "bindings[0].count: 24 bytes is not a whole number of rgba32f texels (16 bytes each)"},
        {"{'binding': 0, 'type': 'u8', 'kind': 'storage_texel_buffer', 'format': 'r32ui', 'data': [1, 2]}",
         "bindings[0].data: 2 bytes is not a whole number of r32ui texels"},
        {"{'binding': 0, 'type': 'u8'}", "t.json: bindings[0]: needs \"data\", \"fill\" with \"count\", or \"count\""},
        {"{'binding': 0, 'type': 'u8', 'count': -4}", "bindings[0].count: -4 is too small (at least 1)"},
        {"{'binding': 0, 'type': 'u8', 'count': 0}", "bindings[0].count: 0 is too small"},
        {"{'binding': 0, 'type': 'u8', 'count': 2.5}", "bindings[0].count: expected an integer, got 2.5"},
        {"{'binding': 0, 'type': 'u8', 'count': 'many'}", "bindings[0].count: expected an integer, got a string"},
        {"{'binding': 0, 'type': 'u32', 'count': 1e12}", "bindings[0].count: 1000000000000 is too large (at most 268435456)"},
        {"{'binding': 0, 'type': 'u8', 'count': 1, 'data': [1, 2]}",
         "bindings[0].count: 1 is less than the 2 elements of \"data\""},
        {"{'binding': 0, 'type': 'u8', 'data': []}", "bindings[0].data: empty"},
        {"{'binding': 0, 'type': 'u8', 'data': 3}", "bindings[0].data: expected an array of numbers, got a number"},
        {"{'binding': 0, 'type': 'u8', 'data': [1], 'fill': {'value': 1}}",
         "bindings[0].fill: give either \"data\" or \"fill\", not both"},
        {"{'binding': 0, 'type': 'u8', 'fill': {'value': 1}}", "bindings[0].count: missing (required with \"fill\")"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': 1}", "bindings[0].fill: expected an object"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {}}",
         "bindings[0].fill: give exactly one of \"value\", \"iota\", \"random\""},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'value': 1, 'iota': {}}}", "bindings[0].fill: give exactly one"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'vaule': 1}}",
         "bindings[0].fill.vaule: unknown field (expected one of: value, iota, random); did you mean \"value\"?"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'value': 256}}", "bindings[0].fill.value: 256 is out of range"},
        {"{'binding': 0, 'type': 'f16', 'count': 2, 'fill': {'value': 'max'}}", "bindings[0].fill.value: \"max\" is not a number"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'iota': 1}}", "bindings[0].fill.iota: expected an object"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'iota': {'begin': 1}}}", "bindings[0].fill.iota.begin: unknown field"},
        {"{'binding': 0, 'type': 'u8', 'count': 300, 'fill': {'iota': {}}}",
         "bindings[0].fill.iota: element 256 would be 256, out of range (u8 holds 0..255)"},
        {"{'binding': 0, 'type': 'u32', 'count': 2, 'fill': {'iota': {'start': 5, 'step': -6}}}",
         "bindings[0].fill.iota: element 1 would be -1"},
        {"{'binding': 0, 'type': 'i8', 'count': 2, 'fill': {'iota': {'start': 300}}}",
         "bindings[0].fill.iota.start: 300 is out of range"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'iota': {'step': 0.5}}}",
         "bindings[0].fill.iota.step: expected an integer for u8, got 0.5"},
        {"{'binding': 0, 'type': 'f32', 'count': 2, 'fill': {'iota': {'step': 'inf'}}}",
         "bindings[0].fill.iota.step: expected a finite number, got a string"},
        {"{'binding': 0, 'type': 'f16', 'count': 3, 'fill': {'iota': {'start': 65000, 'step': 500}}}",
         "bindings[0].fill.iota: element 2 would be 66000"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'random': []}}", "bindings[0].fill.random: expected an object"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'random': {'min': 0, 'max': 1}}}",
         "bindings[0].fill.random.seed: missing (required)"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'random': {'seed': -1, 'min': 0, 'max': 1}}}",
         "bindings[0].fill.random.seed: -1 is out of range"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'random': {'seed': 1.5, 'min': 0, 'max': 1}}}",
         "bindings[0].fill.random.seed: expected an integer"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'random': {'seed': 'x', 'min': 0, 'max': 1}}}",
         "bindings[0].fill.random.seed: \"x\" is not a decimal integer"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'random': {'seed': 1, 'max': 1}}}",
         "bindings[0].fill.random.min: missing (required)"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'random': {'seed': 1, 'min': 1}}}",
         "bindings[0].fill.random.max: missing (required)"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'random': {'seed': 1, 'min': 5, 'max': 4}}}",
         "bindings[0].fill.random.max: 4 is less than min 5"},
        {"{'binding': 0, 'type': 'u8', 'count': 2, 'fill': {'random': {'seed': 1, 'min': 0, 'max': 256}}}",
         "bindings[0].fill.random.max: 256 is out of range"},
        {"{'binding': 0, 'type': 'f32', 'count': 2, 'fill': {'random': {'seed': 1, 'min': 1, 'max': 0}}}",
         "bindings[0].fill.random.max: 0 is less than min 1"},
        {"{'binding': 0, 'type': 'f16', 'count': 2, 'fill': {'random': {'seed': 1, 'min': 0, 'max': 1e6}}}",
         "bindings[0].fill.random.max: 1000000 is out of range (largest finite f16 is 65504)"},
        {"{'binding': 0, 'type': 'f64', 'count': 2, 'fill': {'random': {'seed': 1, 'min': -1e308, 'max': 1e308}}}",
         "bindings[0].fill.random.max: max - min overflows a double"},
        {"{'binding': 0, 'type': 'f32', 'count': 2, 'fill': {'random': {'seed': 1, 'min': 'nan', 'max': 1}}}",
         "bindings[0].fill.random.min: expected a finite number"},
        {"{'binding': 0, 'type': 'f32', 'count': 2, 'fill': {'random': {'seed': 1, 'min': 0, 'max': 1, 'mean': 0}}}",
         "bindings[0].fill.random.mean: unknown field"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        binding_fails(rows[i].binding, rows[i].needle);

    /* a second binding: its index in the path, and (set, binding) unique */
    parse_fails("{'kernel': 'k.comp', 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1},"
                " {'binding': 1, 'type': 'u8', 'data': [1, -1]}]}",
                CASE_ERR_FIELD, "t.json: bindings[1].data[1]: -1 is out of range");
    parse_fails("{'kernel': 'k.comp', 'bindings': [{'binding': 3, 'type': 'u8', 'count': 1},"
                " {'set': 0, 'binding': 3, 'type': 'u8', 'count': 1}]}",
                CASE_ERR_FIELD, "t.json: bindings[1].binding: set 0 binding 3 is already used by bindings[0]");
    parse_fails("{'kernel': 'k.comp', 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1, 'type': 'u16'}]}",
                CASE_ERR_FIELD, "bindings[0].type: field given twice");
    /* the same binding number in another set is fine */
    wl_case *c = parse_ok("{'kernel': 'k.comp', 'bindings': [{'binding': 3, 'type': 'u8', 'count': 1},"
                          " {'set': 1, 'binding': 3, 'type': 'u8', 'count': 1}]}");
    ck_assert_int_eq(c->binding_count, 2);
    case_destroy(c);
}
END_TEST

START_TEST(test_case_expect_errors_name_the_field)
{
    static const struct {
        const char *expect, *needle;
    } rows[] = {
        {"7", "t.json: expect[0]: expected an object, got a number"},
        {"{'binding': 0, 'data': [1], 'tolerance': 1}", "expect[0].tolerance: unknown field"},
        {"{'data': [1]}", "t.json: expect[0].binding: missing (required)"},
        {"{'binding': 9, 'data': [1]}", "t.json: expect[0].binding: no binding with set 0 binding 9"},
        {"{'set': 1, 'binding': 0, 'data': [1]}", "expect[0].binding: no binding with set 1 binding 0"},
        {"{'binding': 0, 'type': 'f32', 'data': [1]}",
         "t.json: expect[0].type: \"f32\" does not match the binding's type \"u16\""},
        {"{'binding': 0, 'type': 'q8', 'data': [1]}", "expect[0].type: unknown type \"q8\""},
        {"{'binding': 0}", "t.json: expect[0].data: missing (required)"},
        {"{'binding': 0, 'data': []}", "expect[0].data: empty"},
        {"{'binding': 0, 'data': {}}", "expect[0].data: expected an array"},
        {"{'binding': 0, 'data': [1, 2, 3, 4, 5]}", "expect[0].data: 5 elements, but the binding holds only 4"},
        {"{'binding': 0, 'data': [1, 70000]}", "t.json: expect[0].data[1]: 70000 is out of range (u16 holds 0..65535)"},
        {"{'binding': 0, 'data': [1], 'compare': 'fuzzy'}", "t.json: expect[0].compare: unknown comparison \"fuzzy\""},
        {"{'binding': 0, 'data': [1], 'compare': 'ulp'}", "expect[0].compare: \"ulp\" needs a tolerance: write {\"ulp\": N}"},
        {"{'binding': 0, 'data': [1], 'compare': 3}", "expect[0].compare: expected \"exact\", \"sorted\""},
        {"{'binding': 0, 'data': [1], 'compare': {'ulp': 1}}",
         "t.json: expect[0].compare: ulp comparison needs a float type (f16, f32, f64), this data is u16"},
        {"{'binding': 0, 'data': [1], 'compare': {'epsilon': 1}}", "expect[0].compare: epsilon comparison needs a float type"},
        {"{'binding': 1, 'data': [1], 'compare': {}}", "expect[0].compare: give exactly one of \"ulp\", \"epsilon\" or \"relative\""},
        {"{'binding': 1, 'data': [1], 'compare': {'ulp': 1, 'epsilon': 1}}", "expect[0].compare: give exactly one"},
        {"{'binding': 1, 'data': [1], 'compare': {'ulps': 1}}",
         "expect[0].compare.ulps: unknown field (expected one of: ulp, epsilon, relative); did you mean \"ulp\"?"},
        {"{'binding': 1, 'data': [1], 'compare': {'ulp': -1}}", "t.json: expect[0].compare.ulp: -1 is too small"},
        {"{'binding': 1, 'data': [1], 'compare': {'ulp': 0.5}}", "expect[0].compare.ulp: expected an integer, got 0.5"},
        {"{'binding': 1, 'data': [1], 'compare': {'epsilon': -0.1}}",
         "t.json: expect[0].compare.epsilon: -0.1 is negative"},
        {"{'binding': 1, 'data': [1], 'compare': {'epsilon': 'inf'}}", "expect[0].compare.epsilon: expected a finite number"},
        {"{'binding': 1, 'data': ['nan', [2]]}", "t.json: expect[0].data[1]: expected a number or"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{'kernel': 'k.comp', 'bindings': [{'binding': 0, 'type': 'u16', 'count': 4},"
                 " {'binding': 1, 'type': 'f32', 'count': 4}], 'expect': [%s]}",
                 rows[i].expect);
        parse_fails(text, CASE_ERR_FIELD, rows[i].needle);
    }
    parse_fails("{'kernel': 'k.comp', 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}],"
                " 'expect': [{'binding': 0, 'data': [1]}, {'binding': 0, 'data': [1], 'compare': 'exakt'}]}",
                CASE_ERR_FIELD, "t.json: expect[1].compare: unknown comparison \"exakt\"");
}
END_TEST

START_TEST(test_case_json_syntax_errors_give_line_and_column)
{
    parse_fails("{\n  'kernel': 'k.comp',\n  'bindings': [,]\n}", CASE_ERR_JSON, "t.json: line 3, column 16: invalid JSON");
    parse_fails("{'kernel': 'k.comp',}", CASE_ERR_JSON, "line 1, column");
    parse_fails("", CASE_ERR_JSON, "t.json: line 1, column 1: invalid JSON");
    parse_fails("{'kernel': 'k.comp'} trailing", CASE_ERR_JSON, "line 1, column 22: invalid JSON near \"trailing\"");
    parse_fails("{'kernel': 'k.comp',\n 'groups': [1, 2", CASE_ERR_JSON, "t.json: line 2, column");
    parse_fails("\n\n  nope", CASE_ERR_JSON, "line 3, column 3: invalid JSON near \"nope\"");
}
END_TEST

START_TEST(test_case_hostile_inputs_fail_cleanly)
{
    char err[256];
    wl_case *c = (wl_case *)1;
    ck_assert_int_eq(case_parse(NULL, "t.json", &c, err, sizeof err), CASE_ERR_IO);
    ck_assert_ptr_null(c);
    /* no error buffer at all */
    ck_assert_int_eq(case_parse("{", "t.json", &c, NULL, 0), CASE_ERR_JSON);
    char *json = q("{'kernel': 'k.comp', 'bindings': 1}");
    ck_assert_int_eq(case_parse(json, NULL, &c, err, sizeof err), CASE_ERR_FIELD);
    ck_assert_msg(strstr(err, "<memory>: bindings: expected an array"), "%s", err);
    free(json);
    /* a tiny buffer is truncated, not overrun */
    char tiny[8];
    json = q("{'kernel': 'k.comp', 'bindings': 1}");
    ck_assert_int_eq(case_parse(json, "t.json", &c, tiny, sizeof tiny), CASE_ERR_FIELD);
    ck_assert_uint_eq(strlen(tiny), 7);
    free(json);
    /* deep nesting stops in cJSON, not in a stack overflow */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 1);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = '\0';
    ck_assert_int_eq(case_parse(deep, "t.json", &c, err, sizeof err), CASE_ERR_JSON);
    free(deep);
    /* very long unknown key and a control character in a key */
    char text[1024];
    char key[600];
    memset(key, 'x', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    snprintf(text, sizeof text, "{\"%s\": 1}", key);
    ck_assert_int_eq(case_parse(text, "t.json", &c, err, sizeof err), CASE_ERR_FIELD);
    ck_assert_msg(strstr(err, "t.json: xxxx"), "%s", err);
    ck_assert_int_eq(case_parse("{\"a\\u0001b\": 1}", "t.json", &c, err, sizeof err), CASE_ERR_FIELD);
    ck_assert_msg(strstr(err, "t.json: a\\x01b: unknown field"), "%s", err);
    case_destroy(NULL);
    ck_assert_ptr_null(case_find_binding(NULL, 0, 0, 0));
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Files                                                                      */
/* ------------------------------------------------------------------------- */

/* tests/cases/bad/NAME: from WAVELAB_ROOT (ctest sets it), else next to this
 * source file (CMake compiles it by its absolute path), else from the cwd. */
static void fixture_path(const char *name, char *out, size_t size)
{
    const char *root = getenv("WAVELAB_ROOT");
    if (root && *root) {
        snprintf(out, size, "%s/tests/cases/bad/%s", root, name);
        return;
    }
    const char *source = __FILE__, *slash = strrchr(source, '/');
    if (slash)
        snprintf(out, size, "%.*s/cases/bad/%s", (int)(slash - source), source, name);
    else
        snprintf(out, size, "tests/cases/bad/%s", name);
}

START_TEST(test_case_bad_fixture_files_fail_with_their_field)
{
    static const struct {
        const char *file;
        case_status status;
        const char *needle;
    } rows[] = {
        {"syntax.json", CASE_ERR_JSON, "syntax.json: line 6, column 3: invalid JSON"},
        {"typo.json", CASE_ERR_FIELD, "typo.json: bindigns: unknown field"},
        {"bad_type.json", CASE_ERR_FIELD, "bad_type.json: bindings[1].type: unknown type \"u33\""},
        {"random_seed.json", CASE_ERR_FIELD, "random_seed.json: bindings[0].fill.random.seed: expected an integer"},
        {"expect_ulp_int.json", CASE_ERR_FIELD, "expect_ulp_int.json: expect[0].compare: ulp comparison needs a float type"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char path[1024], err[512] = "";
        wl_case *c = (wl_case *)1;
        fixture_path(rows[i].file, path, sizeof path);
        case_status s = case_load(path, &c, err, sizeof err);
        ck_assert_msg(s == rows[i].status, "%s: status %d (%s)", rows[i].file, (int)s, err);
        ck_assert_ptr_null(c);
        ck_assert_msg(strncmp(err, path, strlen(path)) == 0, "message does not start with the path: %s", err);
        ck_assert_msg(strstr(err, rows[i].needle), "message \"%s\" lacks \"%s\"", err, rows[i].needle);
    }
}
END_TEST

START_TEST(test_case_load_missing_file_is_io_error)
{
    char err[512];
    wl_case *c = (wl_case *)1;
    ck_assert_int_eq(case_load("/nonexistent/wavelab/case.json", &c, err, sizeof err), CASE_ERR_IO);
    ck_assert_ptr_null(c);
    ck_assert_msg(strstr(err, "/nonexistent/wavelab/case.json: cannot open"), "%s", err);
    ck_assert_int_eq(case_load("/", &c, err, sizeof err), CASE_ERR_IO); /* a directory reads as an error */
}
END_TEST

START_TEST(test_case_load_reads_a_file_and_resolves_the_kernel)
{
    char dir[] = "/tmp/wavelab_case_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/good.json", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"kernel\": \"k.hlsl\", \"bindings\": [{\"binding\": 0, \"type\": \"u32\", \"data\": [1, 2]}]}\n", f);
    fclose(f);
    wl_case *c = NULL;
    ck_assert_int_eq(case_load(path, &c, err, sizeof err), CASE_OK);
    ck_assert_str_eq(c->path, path);
    ck_assert_str_eq(c->dir, dir);
    char kernel[300];
    snprintf(kernel, sizeof kernel, "%s/k.hlsl", dir);
    ck_assert_str_eq(c->kernel, kernel);
    ck_assert_str_eq(c->language, "hlsl");
    case_destroy(c);

    /* a NUL byte in the middle of the file */
    f = fopen(path, "wb");
    fwrite("{\"kernel\": \"k\0.comp\"}", 1, 21, f);
    fclose(f);
    ck_assert_int_eq(case_load(path, &c, err, sizeof err), CASE_ERR_JSON);
    ck_assert_msg(strstr(err, "line 1, column 14") && strstr(err, "NUL byte"), "%s", err);
    remove(path);
    rmdir(dir);
}
END_TEST

/* ------------------------------------------------------------------------- */


/* ------------------------------------------------------------------------- */
/* Several dispatches                                                         */
/* ------------------------------------------------------------------------- */

START_TEST(test_case_dispatches_parse_in_order_with_their_own_fields)
{
    wl_case *c = parse_ok_at("{'dispatches': ["
                             "{'kernel': 'cull.comp', 'groups': [4], 'defines': {'N': 8}},"
                             "{'name': 'scan', 'kernel': 'sub/compact.hlsl', 'entry': 'CSMain',"
                             " 'push_constants': {'type': 'u32', 'data': [7]}},"
                             "{'kernel': 'consume.comp', 'groups': [2, 3]}],"
                             "'bindings': [{'binding': 0, 'type': 'u32', 'count': 4}]}", "cases/x.json");
    ck_assert_int_eq(c->dispatch_count, 3);
    ck_assert_int_eq(case_dispatch_total(c), 3);
    ck_assert_str_eq(case_dispatch_name(c, 0), "cull");
    ck_assert_str_eq(case_dispatch_name(c, 1), "scan");
    ck_assert_str_eq(case_dispatch_name(c, 2), "consume");
    const case_dispatch *d = c->dispatches;
    ck_assert_str_eq(d[0].kernel, "cases/cull.comp");
    ck_assert_str_eq(d[0].entry, "main");
    ck_assert_uint_eq(d[0].groups[0], 4);
    ck_assert_uint_eq(d[0].groups[1], 1);
    ck_assert_int_eq(d[0].define_count, 1);
    ck_assert_str_eq(d[0].defines[0].value, "8");
    ck_assert_ptr_null(d[0].push_constants);
    ck_assert_str_eq(d[1].kernel, "cases/sub/compact.hlsl");
    ck_assert_str_eq(d[1].language, "hlsl");
    ck_assert_str_eq(d[1].entry, "CSMain");
    ck_assert_uint_eq(d[1].push_size, 4);
    ck_assert_uint_eq(le(d[1].push_constants, 4), 7);
    ck_assert_uint_eq(d[2].groups[0], 2);
    ck_assert_uint_eq(d[2].groups[1], 3);
    ck_assert_uint_eq(d[2].groups[2], 1);
    /* the top level is dispatch 0, for commands that look at one kernel */
    ck_assert_str_eq(c->kernel, "cases/cull.comp");
    ck_assert_uint_eq(c->groups[0], 4);
    ck_assert_int_eq(c->define_count, 1);
    /* a view of pass 1 is a one-dispatch case with pass 1's fields and the shared bindings */
    wl_case view;
    case_dispatch_view(c, 1, &view);
    ck_assert_ptr_null(view.dispatches);
    ck_assert_str_eq(view.entry, "CSMain");
    ck_assert_uint_eq(view.groups[0], 1);
    ck_assert_uint_eq(view.push_size, 4);
    ck_assert_ptr_eq(view.bindings, c->bindings);
    case_destroy(c);

    c = parse_ok("{'kernel': 'k.comp', 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}]}");
    ck_assert_int_eq(c->dispatch_count, 0);
    ck_assert_int_eq(case_dispatch_total(c), 1);
    case_dispatch_view(c, 0, &view);
    ck_assert_str_eq(view.kernel, "k.comp");
    case_destroy(c);
}
END_TEST

START_TEST(test_case_dispatch_errors_name_the_entry_and_field)
{
    static const struct {
        const char *dispatches, *needle;
    } rows[] = {
        {"{}", "dispatches: expected an array"},
        {"[]", "dispatches: has 0 entries"},
        {"[3]", "dispatches[0]: expected an object"},
        {"[{'kernel': 'a.comp'}, {'kernel': 'b.comp', 'groups': [0]}]", "dispatches[1].groups[0]:"},
        {"[{'kernel': 'a.comp'}, {'kernel': 'b.comp', 'groups': [1, 1, 1, 1]}]", "dispatches[1].groups: has 4"},
        {"[{'kernel': 'a.comp'}, {'groups': [1]}]", "dispatches[1].kernel: missing"},
        {"[{'kernel': 'a.txt'}]", "dispatches[0].kernel: cannot tell the language"},
        {"[{'kernel': 'a.comp', 'grups': [1]}]", "dispatches[0].grups: unknown field"},
        {"[{'kernel': 'a.comp', 'name': ''}]", "dispatches[0].name: must not be empty"},
        {"[{'kernel': 'a.comp', 'push_constants': {'type': 'u8', 'data': [1]}}]", "dispatches[0].push_constants.data:"},
        {"[{'kernel': 'a.comp', 'defines': {'9x': 1}}]", "dispatches[0].defines.9x:"},
    };
    char text[1024];
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        snprintf(text, sizeof text, "{'dispatches': %s, 'bindings': [{'binding': 0, 'type': 'u8', 'count': 1}]}",
                 rows[i].dispatches);
        parse_fails(text, CASE_ERR_FIELD, rows[i].needle);
    }
    parse_fails("{'kernel': 'k.comp', 'dispatches': [{'kernel': 'a.comp'}], 'bindings': [{'binding': 0, 'type': 'u8', "
                "'count': 1}]}", CASE_ERR_FIELD, "kernel: not allowed beside \"dispatches\"");
    parse_fails("{'groups': [2], 'dispatches': [{'kernel': 'a.comp'}], 'bindings': [{'binding': 0, 'type': 'u8', "
                "'count': 1}]}", CASE_ERR_FIELD, "groups: not allowed beside \"dispatches\"");
}
END_TEST

static Suite *case_suite(void)
{
    Suite *s = suite_create("case");
    TCase *tc = tcase_create("case");
    tcase_add_test(tc, test_case_type_tables_match_the_list);
    tcase_add_test(tc, test_case_minimal_case_gets_defaults);
    tcase_add_test(tc, test_case_full_example_fills_every_field);
    tcase_add_test(tc, test_case_paths_resolve_against_the_case_directory);
    tcase_add_test(tc, test_case_language_comes_from_extension_or_field);
    tcase_add_test(tc, test_case_defines_keep_order_and_print_numbers);
    tcase_add_test(tc, test_case_groups_fill_missing_dimensions_with_one);
    tcase_add_test(tc, test_case_subgroup_sizes_powers_of_two_parse);
    tcase_add_test(tc, test_case_max_subgroup_size_parses_and_rejects_non_powers_of_two);
    tcase_add_test(tc, test_case_known_failure_is_kept_and_must_be_a_reason);
    tcase_add_test(tc, test_case_device_differences_match_by_part_of_the_name);
    tcase_add_test(tc, test_case_push_constants_become_bytes);
    tcase_add_test(tc, test_case_integer_limits_store_little_endian);
    tcase_add_test(tc, test_case_integer_out_of_range_fails_without_wrapping);
    tcase_add_test(tc, test_case_float_values_and_specials_store_canonical_bits);
    tcase_add_test(tc, test_case_float_out_of_range_fails);
    tcase_add_test(tc, test_case_data_with_count_pads_with_zeros);
    tcase_add_test(tc, test_case_fill_value_repeats_one_element);
    tcase_add_test(tc, test_case_fill_iota_matches_hand_values);
    tcase_add_test(tc, test_case_fill_random_matches_reference_generator);
    tcase_add_test(tc, test_case_fill_random_matches_python_recipe);
    tcase_add_test(tc, test_case_splitmix64_known_vectors_match);
    tcase_add_test(tc, test_case_float_to_half_matches_known_bits);
    tcase_add_test(tc, test_case_half_to_float_matches_known_values);
    tcase_add_test(tc, test_case_every_half_round_trips_through_float_and_text);
    tcase_add_test(tc, test_case_format_element_round_trips);
    tcase_add_test(tc, test_case_expect_exact_passes_and_names_first_difference);
    tcase_add_test(tc, test_case_expect_short_actual_fails);
    tcase_add_test(tc, test_case_expect_ulp_counts_representable_steps);
    tcase_add_test(tc, test_case_expect_epsilon_bounds_absolute_difference);
    tcase_add_test(tc, test_case_expect_sorted_compares_multisets);
    tcase_add_test(tc, test_case_parsed_expect_checks_binding_results);
    tcase_add_test(tc, test_case_top_level_errors_name_the_field);
    tcase_add_test(tc, test_case_binding_errors_name_the_field);
    tcase_add_test(tc, test_case_expect_errors_name_the_field);
    tcase_add_test(tc, test_case_json_syntax_errors_give_line_and_column);
    tcase_add_test(tc, test_case_hostile_inputs_fail_cleanly);
    tcase_add_test(tc, test_case_bad_fixture_files_fail_with_their_field);
    tcase_add_test(tc, test_case_load_missing_file_is_io_error);
    tcase_add_test(tc, test_case_load_reads_a_file_and_resolves_the_kernel);
    tcase_add_test(tc, test_case_dispatches_parse_in_order_with_their_own_fields);
    tcase_add_test(tc, test_case_dispatch_errors_name_the_entry_and_field);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(case_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
