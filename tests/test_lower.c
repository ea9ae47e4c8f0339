/*
 * tests/test_lower.c — lowering cases that need a kernel of their own: the
 * phis of a loop header that read each other (a swap) must take their values
 * at once, as SPIR-V defines them, at every wave size and with per-lane trip
 * counts.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "sim/sim.h"

static const char *swap_kernel =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
    "void main() {\n"
    "    uint i = gl_LocalInvocationIndex;\n"
    "    uint a = i, b = 100u + i, c = 7u;\n"
    "    for (uint k = 0u; k < i % 5u; k++) { uint t = a; a = b; b = c; c = t; }  /* rotate three */\n"
    "    v[i] = a * 1000000u + b * 1000u + c;\n"
    "}\n";

START_TEST(test_lower_loop_phis_that_read_each_other_copy_in_parallel)
{
    isa_compile_options o = {.path = "swap.comp", .source = swap_kernel, .language = "glsl"};
    uint32_t *words = NULL;
    size_t n = 0;
    char err[2048] = "", warn[512] = "";
    ck_assert_msg(isa_compile(&o, &words, &n, err, sizeof err, warn, sizeof warn) == ISA_OK, "%s", err);
    isa_program *p = NULL;
    ck_assert_msg(isa_lower(words, n, "main", &p, err, sizeof err) == ISA_OK, "%s", err);
    free(words);
    for (uint32_t wave = 4; wave <= 64; wave *= 2) {
        uint32_t out[64] = {0};
        sim_buffer buf = {0, 0, (uint8_t *)out, sizeof out};
        sim_config cfg = {.wave_size = wave, .groups = {1, 1, 1}, .buffers = &buf, .buffer_count = 1};
        sim_result r;
        ck_assert_int_eq(sim_run(p, &cfg, &r), SIM_OK);
        sim_result_free(&r);
        for (uint32_t i = 0; i < 64; i++) {
            uint32_t abc[3] = {i, 100 + i, 7}; /* the reference: rotate i % 5 times */
            for (uint32_t k = 0; k < i % 5; k++) {
                uint32_t t = abc[0];
                abc[0] = abc[1], abc[1] = abc[2], abc[2] = t;
            }
            ck_assert_msg(out[i] == abc[0] * 1000000u + abc[1] * 1000u + abc[2], "wave %u lane %u: %u", wave, i,
                          out[i]);
        }
    }
    isa_program_destroy(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lower");
    TCase *tc = tcase_create("phis");
    tcase_add_test(tc, test_lower_loop_phis_that_read_each_other_copy_in_parallel);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
