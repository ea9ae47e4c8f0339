/*
 * tests/test_lower.c — lowering cases that need a kernel of their own: the
 * phis of a loop header that read each other (a swap) must take their values
 * at once, as SPIR-V defines them, at every wave size and with per-lane trip
 * counts; Ldexp's exponent read signed at 8, 16, 32 and 64 bits.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "sim/sim.h"
#include "tests/support/tsup.h"

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
        sim_buffer buf = {0, 0, (uint8_t *)out, sizeof out, 0};
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

/* GLSL.std.450 Ldexp with a signed exponent of every width: out[k] for in = {a, b} (exponents a as i8, i16, i32,
 * b << 32 and its negation as i64, a as i64, then the constants i8 -1 and i16 -2), hand-written because glslang has no 64-bit ldexp overload. */
static const char *ldexp_asm =
    "OpCapability Shader\n"
    "OpCapability Int8\n"
    "OpCapability Int16\n"
    "OpCapability Int64\n"
    "%ext = OpExtInstImport \"GLSL.std.450\"\n"
    "OpMemoryModel Logical GLSL450\n"
    "OpEntryPoint GLCompute %main \"main\"\n"
    "OpExecutionMode %main LocalSize 1 1 1\n"
    "OpDecorate %farr ArrayStride 4\n"
    "OpMemberDecorate %FS 0 Offset 0\n"
    "OpDecorate %FS Block\n"
    "OpDecorate %out DescriptorSet 0\n"
    "OpDecorate %out Binding 0\n"
    "OpDecorate %iarr ArrayStride 4\n"
    "OpMemberDecorate %IS 0 Offset 0\n"
    "OpDecorate %IS Block\n"
    "OpDecorate %in DescriptorSet 0\n"
    "OpDecorate %in Binding 1\n"
    "%void = OpTypeVoid\n"
    "%fn = OpTypeFunction %void\n"
    "%f32 = OpTypeFloat 32\n"
    "%u32 = OpTypeInt 32 0\n"
    "%i8 = OpTypeInt 8 1\n"
    "%i16 = OpTypeInt 16 1\n"
    "%i32 = OpTypeInt 32 1\n"
    "%i64 = OpTypeInt 64 1\n"
    "%u8 = OpConstant %u32 8\n"
    "%k8 = OpConstant %i8 -1\n"
    "%k16 = OpConstant %i16 -2\n"
    "%c6 = OpConstant %i32 6\n"
    "%c7 = OpConstant %i32 7\n"
    "%u2 = OpConstant %u32 2\n"
    "%farr = OpTypeArray %f32 %u8\n"
    "%iarr = OpTypeArray %i32 %u2\n"
    "%FS = OpTypeStruct %farr\n"
    "%IS = OpTypeStruct %iarr\n"
    "%pFS = OpTypePointer StorageBuffer %FS\n"
    "%pIS = OpTypePointer StorageBuffer %IS\n"
    "%pf = OpTypePointer StorageBuffer %f32\n"
    "%pi = OpTypePointer StorageBuffer %i32\n"
    "%out = OpVariable %pFS StorageBuffer\n"
    "%in = OpVariable %pIS StorageBuffer\n"
    "%c0 = OpConstant %i32 0\n"
    "%c1 = OpConstant %i32 1\n"
    "%c2 = OpConstant %i32 2\n"
    "%c3 = OpConstant %i32 3\n"
    "%c4 = OpConstant %i32 4\n"
    "%c5 = OpConstant %i32 5\n"
    "%c32 = OpConstant %i32 32\n"
    "%one = OpConstant %f32 1\n"
    "%three = OpConstant %f32 3\n"
    "%main = OpFunction %void None %fn\n"
    "%entry = OpLabel\n"
    "%pa = OpAccessChain %pi %in %c0 %c0\n"
    "%a = OpLoad %i32 %pa\n"
    "%pb = OpAccessChain %pi %in %c0 %c1\n"
    "%b = OpLoad %i32 %pb\n"
    "%a8 = OpSConvert %i8 %a\n"
    "%r0 = OpExtInst %f32 %ext Ldexp %one %a8\n"
    "%p0 = OpAccessChain %pf %out %c0 %c0\n"
    "OpStore %p0 %r0\n"
    "%a16 = OpSConvert %i16 %a\n"
    "%r1 = OpExtInst %f32 %ext Ldexp %three %a16\n"
    "%p1 = OpAccessChain %pf %out %c0 %c1\n"
    "OpStore %p1 %r1\n"
    "%r2 = OpExtInst %f32 %ext Ldexp %three %a\n"
    "%p2 = OpAccessChain %pf %out %c0 %c2\n"
    "OpStore %p2 %r2\n"
    "%b64 = OpSConvert %i64 %b\n"
    "%big = OpShiftLeftLogical %i64 %b64 %c32\n"
    "%r3 = OpExtInst %f32 %ext Ldexp %one %big\n"
    "%p3 = OpAccessChain %pf %out %c0 %c3\n"
    "OpStore %p3 %r3\n"
    "%nbig = OpSNegate %i64 %big\n"
    "%r4 = OpExtInst %f32 %ext Ldexp %one %nbig\n"
    "%p4 = OpAccessChain %pf %out %c0 %c4\n"
    "OpStore %p4 %r4\n"
    "%a64 = OpSConvert %i64 %a\n"
    "%r5 = OpExtInst %f32 %ext Ldexp %three %a64\n"
    "%p5 = OpAccessChain %pf %out %c0 %c5\n"
    "OpStore %p5 %r5\n"
    "%r6 = OpExtInst %f32 %ext Ldexp %one %k8\n"
    "%p6 = OpAccessChain %pf %out %c0 %c6\n"
    "OpStore %p6 %r6\n"
    "%r7 = OpExtInst %f32 %ext Ldexp %three %k16\n"
    "%p7 = OpAccessChain %pf %out %c0 %c7\n"
    "OpStore %p7 %r7\n"
    "OpReturn\n"
    "OpFunctionEnd\n"
;

START_TEST(test_lower_ldexp_reads_the_exponent_at_its_width_and_sign)
{
    if (system("command -v spirv-as >/dev/null 2>&1") != 0) {
        printf("skip: spirv-as (Debian's spirv-tools) is not installed\n");
        return;
    }
    char *dir = tsup_temp_dir();
    free(tsup_write_file(dir, "ldexp.spvasm", ldexp_asm));
    char cmd[1024], path[512], err[2048] = "";
    snprintf(cmd, sizeof cmd, "spirv-as --target-env vulkan1.1 -o '%s/ldexp.spv' '%s/ldexp.spvasm'", dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/ldexp.spv", dir);
    uint32_t *words = NULL;
    size_t n = 0;
    ck_assert_msg(isa_read_spirv(path, &words, &n, err, sizeof err) == ISA_OK, "%s", err);
    ck_assert_msg(isa_validate(words, n, err, sizeof err) == ISA_OK, "%s", err);
    isa_program *p = NULL;
    ck_assert_msg(isa_lower(words, n, "main", &p, err, sizeof err) == ISA_OK, "%s", err);
    free(words);
    tsup_remove_dir(dir);
    free(dir);
    /* the GLSL.std.450 definition, x * 2^exp, by hand: 2^-1 = 0.5, 2^-3 = 0.125; 2^(2^32) overflows to inf
     * and 2^-(2^32) underflows to 0, where the exponent's low 32 bits alone (0) would give x */
    static const struct { int32_t a; float want[8]; } rows[] = {
        {-1, {0.5f, 1.5f, 1.5f, INFINITY, 0.0f, 1.5f, 0.5f, 0.75f}},
        {-3, {0.125f, 0.375f, 0.375f, INFINITY, 0.0f, 0.375f, 0.5f, 0.75f}},
        {2, {4.0f, 12.0f, 12.0f, INFINITY, 0.0f, 12.0f, 0.5f, 0.75f}},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        float out[8] = {0};
        int32_t in[2] = {rows[r].a, 1};
        sim_buffer bufs[2] = {{0, 0, (uint8_t *)out, sizeof out, 0}, {0, 1, (uint8_t *)in, sizeof in, 0}};
        sim_config cfg = {.wave_size = 4, .groups = {1, 1, 1}, .buffers = bufs, .buffer_count = 2};
        sim_result res;
        ck_assert_int_eq(sim_run(p, &cfg, &res), SIM_OK);
        sim_result_free(&res);
        for (int k = 0; k < 8; k++)
            ck_assert_msg(out[k] == rows[r].want[k], "a = %d, out[%d] = %g, expected %g", rows[r].a, k, out[k],
                          rows[r].want[k]);
    }
    isa_program_destroy(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lower");
    TCase *tc = tcase_create("phis");
    tcase_add_test(tc, test_lower_loop_phis_that_read_each_other_copy_in_parallel);
    tcase_add_test(tc, test_lower_ldexp_reads_the_exponent_at_its_width_and_sign);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
