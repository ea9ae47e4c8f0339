/*
 * tests/test_dump.c — `wavelab run --dump`: the streamed JSON reads back with
 * cJSON to exactly the buffers the kernel produced.
 *
 * The case fills its bindings with the documented random and iota fills;
 * the test computes the same fills itself (splitmix64 written out here, from
 * docs/case-format.md) and applies the kernel's arithmetic in C, so every
 * element of the dump is checked against a value found without wavelab.
 * Floats include NaN and both infinities, which the dump writes as strings.
 */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/tsup.h"

enum { ELEMENTS = 64 * 1024 + 64 * 3 };

static const char *kernel =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0) buffer In { uint a[]; };\n"
    "layout(set = 0, binding = 1) buffer Out { float f[]; };\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    uint x = a[i];\n"
    "    a[i] = x * 3u + i;\n"
    "    float v = float(x) * 0.5;\n"
    "    if (i % 7u == 1u) v = uintBitsToFloat(0x7fc00000u);\n"
    "    if (i % 7u == 2u) v = uintBitsToFloat(0x7f800000u);\n"
    "    if (i % 7u == 3u) v = uintBitsToFloat(0xff800000u);\n"
    "    if (i % 7u == 4u) v = -float(x) * 0.1;\n"
    "    f[i] = v;\n"
    "}\n";

/* docs/case-format.md: the random fill's stream */
static uint64_t splitmix64_next(uint64_t *state)
{
    *state += 0x9E3779B97F4A7C15ull;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const cJSON *binding_data(const cJSON *dump, int binding, const char *type)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(dump, "bindings"))
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(b, "binding");
        if (cJSON_IsNumber(n) && n->valuedouble == binding) {
            ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(b, "type")->valuestring, type);
            const cJSON *data = cJSON_GetObjectItemCaseSensitive(b, "data");
            ck_assert(cJSON_IsArray(data));
            ck_assert_int_eq(cJSON_GetArraySize(data), ELEMENTS);
            return data;
        }
    }
    ck_abort_msg("binding %d missing from the dump", binding);
    return NULL;
}

START_TEST(test_dump_streamed_bindings_read_back_equal_to_reference)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "k.comp", kernel));
    char case_text[2048];
    snprintf(case_text, sizeof case_text,
             "{\"kernel\": \"k.comp\", \"groups\": [%d, 1, 1], \"bindings\": [\n"
             " {\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"count\": %d,"
             "  \"fill\": {\"random\": {\"seed\": 12345, \"min\": 10, \"max\": 4000000000}}},\n"
             " {\"set\": 0, \"binding\": 1, \"type\": \"f32\", \"count\": %d},\n"
             " {\"set\": 0, \"binding\": 2, \"type\": \"i32\", \"count\": %d,"
             "  \"fill\": {\"iota\": {\"start\": -50000, \"step\": 3}}}]}\n",
             ELEMENTS / 64, ELEMENTS, ELEMENTS, ELEMENTS);
    free(tsup_write_file(dir, "c.json", case_text));
    char args[4096];
    snprintf(args, sizeof args, "run '%s/c.json' --quiet --dump '%s/dump.json'", dir, dir);
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "rc %d: %s", rc, out ? out : "");
    free(out);

    char path[4200];
    snprintf(path, sizeof path, "%s/dump.json", dir);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = malloc((size_t)size + 1);
    ck_assert_int_eq(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = 0;
    fclose(f);
    cJSON *dump = cJSON_Parse(text);
    ck_assert_msg(dump != NULL, "the dump is not JSON near: %.80s", cJSON_GetErrorPtr());
    free(text);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(dump, "backend")->valuestring, "sim");

    const cJSON *a = binding_data(dump, 0, "u32"), *fv = binding_data(dump, 1, "f32"),
                *iota = binding_data(dump, 2, "i32");
    const cJSON *ea = a->child, *ef = fv->child, *ei = iota->child;
    uint64_t state = 12345;
    for (uint32_t i = 0; i < ELEMENTS; i++, ea = ea->next, ef = ef->next, ei = ei->next) {
        uint32_t x = (uint32_t)(10 + splitmix64_next(&state) % (4000000000ull - 10 + 1));
        uint32_t want_a = x * 3u + i;
        ck_assert_msg(cJSON_IsNumber(ea) && ea->valuedouble == (double)want_a, "a[%u]: want %u", i, want_a);
        switch (i % 7) {
        case 1:
            ck_assert_msg(cJSON_IsString(ef) && strcmp(ef->valuestring, "nan") == 0, "f[%u] should be \"nan\"", i);
            break;
        case 2:
            ck_assert_msg(cJSON_IsString(ef) && strcmp(ef->valuestring, "inf") == 0, "f[%u] should be \"inf\"", i);
            break;
        case 3:
            ck_assert_msg(cJSON_IsString(ef) && strcmp(ef->valuestring, "-inf") == 0, "f[%u] should be \"-inf\"", i);
            break;
        default: {
            float want = i % 7 == 4 ? -(float)x * 0.1f : (float)x * 0.5f;
            /* the text must round-trip to the very float */
            ck_assert_msg(cJSON_IsNumber(ef) && (float)ef->valuedouble == want, "f[%u]: want %.9g, dump %.17g", i,
                          (double)want, cJSON_IsNumber(ef) ? ef->valuedouble : NAN);
        }
        }
        ck_assert_msg(cJSON_IsNumber(ei) && ei->valuedouble == -50000.0 + 3.0 * i, "iota[%u]", i);
    }
    ck_assert(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(dump, "stats")));
    ck_assert(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(dump, "undefined")));
    cJSON_Delete(dump);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

static Suite *dump_suite(void)
{
    Suite *s = suite_create("dump");
    TCase *t = tcase_create("dump");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_dump_streamed_bindings_read_back_equal_to_reference);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(dump_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failures ? 1 : 0;
}
