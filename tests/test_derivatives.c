/*
 * tests/test_derivatives.c — derivatives in compute kernels
 * (SPV_KHR/NV_compute_shader_derivatives): GLSL through glslang, the lowering
 * and the executor, against a reference written here from the Vulkan
 * specification's "Derivative Operations" and quad scope instance: under
 * DerivativeGroupQuads the quad of invocation (x, y, z) is the 2x2 block of
 * LocalInvocationId holding it, numbered 0 1 / 2 3, and lies in subgroup lanes
 * 4k..4k+3 in that order; fine dx is P1 - P0 (top row) or P3 - P2 (bottom),
 * fine dy P2 - P0 (left column) or P3 - P1 (right); coarse takes the top-left
 * invocation's; fwidth is |dx| + |dy|.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "sim/sim.h"
#include "tests/support/tsup.h"

#define SX 4
#define SY 4
#define SZ 2
#define NINV (SX * SY * SZ)
#define NOUT 10

static const char quads_src[] =
    "#version 450\n"
    "#extension GL_NV_compute_shader_derivatives : require\n"
    "#extension GL_KHR_shader_subgroup_quad : require\n"
    "layout(local_size_x = 4, local_size_y = 4, local_size_z = 2) in;\n"
    "layout(derivative_group_quadsNV) in;\n"
    "layout(set = 0, binding = 0) buffer Out { float v[]; } o;\n"
    "void main() {\n"
    "    uvec3 id = gl_LocalInvocationID;\n"
    "    float x = float(id.x), y = float(id.y), z = float(id.z);\n"
    "    float p = x * x * x + 5.0 * y * y + x * y + 7.0 * z;\n"
    "    uint i = gl_LocalInvocationIndex * 10u;\n"
    "    o.v[i + 0u] = dFdxFine(p);\n"
    "    o.v[i + 1u] = dFdyFine(p);\n"
    "    o.v[i + 2u] = dFdxCoarse(p);\n"
    "    o.v[i + 3u] = dFdyCoarse(p);\n"
    "    o.v[i + 4u] = fwidth(p);\n"
    "    o.v[i + 5u] = fwidthCoarse(p);\n"
    "    o.v[i + 6u] = dFdx(p) + 1000.0 * dFdy(p);\n"
    "    o.v[i + 7u] = float(gl_SubgroupInvocationID % 4u);\n"
    "    o.v[i + 8u] = float(subgroupQuadBroadcast(gl_LocalInvocationIndex, 0u));\n"
    "    o.v[i + 9u] = float(id.x + 10u * id.y + 100u * id.z);\n"
    "}\n";

static double p_of(int x, int y, int z) { return (double)x * x * x + 5.0 * y * y + (double)x * y + 7.0 * z; }

static isa_program *build(const char *src)
{
    isa_program *p = NULL;
    char msg[512];
    isa_status st = tsup_build(src, "deriv.comp", "glsl", NULL, &p, msg, sizeof msg, NULL, 0);
    ck_assert_msg(st == ISA_OK, "build failed: %s", msg);
    return p;
}

static void run(isa_program *p, uint32_t wave, float *out, size_t bytes, sim_result *res)
{
    sim_buffer buf = {0, 0, (uint8_t *)out, bytes, 0};
    sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.wave_size = wave;
    cfg.groups[0] = cfg.groups[1] = cfg.groups[2] = 1;
    cfg.buffers = &buf;
    cfg.buffer_count = 1;
    ck_assert_int_eq(sim_run(p, &cfg, res), SIM_OK);
}

START_TEST(quads_every_wave_size)
{
    static const uint32_t waves[] = {4, 8, 16, 32, 64};
    isa_program *p = build(quads_src);
    for (unsigned k = 0; k < sizeof waves / sizeof waves[0]; k++) {
        float out[NINV * NOUT];
        memset(out, 0, sizeof out);
        sim_result res;
        run(p, waves[k], out, sizeof out, &res);
        ck_assert_int_eq(res.event_count, 0);
        for (int z = 0; z < SZ; z++)
            for (int y = 0; y < SY; y++)
                for (int x = 0; x < SX; x++) {
                    const int x0 = x & ~1, y0 = y & ~1, qi = (y & 1) * 2 + (x & 1);
                    const double P[4] = {p_of(x0, y0, z), p_of(x0 + 1, y0, z), p_of(x0, y0 + 1, z),
                                         p_of(x0 + 1, y0 + 1, z)};
                    const double fdx = qi < 2 ? P[1] - P[0] : P[3] - P[2];
                    const double fdy = qi % 2 == 0 ? P[2] - P[0] : P[3] - P[1];
                    const double cdx = P[1] - P[0], cdy = P[2] - P[0];
                    const double want[NOUT] = {fdx, fdy, cdx, cdy, fabs(fdx) + fabs(fdy), fabs(cdx) + fabs(cdy),
                                               fdx + 1000.0 * fdy, qi, z * SX * SY + y0 * SX + x0,
                                               x + 10 * y + 100 * z};
                    const float *got = &out[(z * SX * SY + y * SX + x) * NOUT];
                    for (int c = 0; c < NOUT; c++)
                        ck_assert_msg(got[c] == (float)want[c], "wave %u invocation (%d,%d,%d) output %d: %g, want %g",
                                      waves[k], x, y, z, c, got[c], want[c]);
                }
        sim_result_free(&res);
    }
    isa_program_destroy(p);
}
END_TEST

/* A derivative in control flow that is not uniform across the quad: the spec leaves it undefined; wavelab gives
 * 0 where the difference needs an inactive lane and reports it. */
START_TEST(inactive_lane_gives_zero_and_a_report)
{
    static const char src[] =
        "#version 450\n"
        "#extension GL_NV_compute_shader_derivatives : require\n"
        "layout(local_size_x = 4, local_size_y = 2) in;\n"
        "layout(derivative_group_quadsNV) in;\n"
        "layout(set = 0, binding = 0) buffer Out { float v[]; } o;\n"
        "void main() {\n"
        "    float x = float(gl_LocalInvocationID.x), y = float(gl_LocalInvocationID.y);\n"
        "    float p = 3.0 * x + 5.0 * y;\n"
        "    float d = -1.0;\n"
        "    if (gl_LocalInvocationID.x != 3u) d = dFdxFine(p);\n"
        "    o.v[gl_LocalInvocationIndex] = d;\n"
        "}\n";
    isa_program *p = build(src);
    float out[8];
    memset(out, 0, sizeof out);
    sim_result res;
    run(p, 8, out, sizeof out, &res);
    /* quad 0 (x 0-1) is whole: dx = 3; quad 1 (x 2-3) lost x = 3: x = 2 gets 0, x = 3 did not run */
    const float want[8] = {3, 3, 0, -1, 3, 3, 0, -1};
    for (int i = 0; i < 8; i++)
        ck_assert_msg(out[i] == want[i], "invocation %d: %g, want %g", i, out[i], want[i]);
    ck_assert_int_eq(res.event_count, 2);
    ck_assert_ptr_nonnull(strstr(res.events[0].message, "inactive"));
    sim_result_free(&res);
    isa_program_destroy(p);
}
END_TEST

/* The lane placement both ways, by hand for a 6x4x2 workgroup: a pair of rows at a time, quads left to right. */
START_TEST(quad_placement_by_hand_and_back)
{
    const uint32_t size[3] = {6, 4, 2};
    static const struct { uint32_t position, x, y, z; } hand[] = {
        {0, 0, 0, 0}, {1, 1, 0, 0}, {2, 0, 1, 0}, {3, 1, 1, 0}, {4, 2, 0, 0}, {7, 3, 1, 0}, {11, 5, 1, 0},
        {12, 0, 2, 0}, {15, 1, 3, 0}, {23, 5, 3, 0}, {24, 0, 0, 1}, {47, 5, 3, 1}};
    for (size_t k = 0; k < sizeof hand / sizeof hand[0]; k++) {
        uint32_t local[3];
        uint32_t index = isa_invocation_at(size, ISA_DERIV_QUADS, hand[k].position, local);
        ck_assert_uint_eq(local[0], hand[k].x);
        ck_assert_uint_eq(local[1], hand[k].y);
        ck_assert_uint_eq(local[2], hand[k].z);
        ck_assert_uint_eq(index, hand[k].z * 24 + hand[k].y * 6 + hand[k].x);
    }
    for (uint8_t g = ISA_DERIV_NONE; g <= ISA_DERIV_LINEAR; g++)
        for (uint32_t pos = 0; pos < 48; pos++) {
            uint32_t local[3];
            uint32_t index = isa_invocation_at(size, g, pos, local);
            ck_assert_uint_eq(isa_lane_position(size, g, local), pos);
            if (g != ISA_DERIV_QUADS)
                ck_assert_uint_eq(index, pos);
        }
}
END_TEST

/* SPIR-V from any producer reaches the lowering: a quads mode on an odd workgroup, and a derivative without a
 * mode, are refused there with the reason (the lowering's own checks, without spirv-val before it). */
static const char *lower_error(const char *assembly)
{
    static char err[512];
    uint32_t *w = NULL;
    size_t n = 0;
    ck_assert_int_eq(isa_assemble_spirv(assembly, strlen(assembly), 3, &w, &n, err, sizeof err), ISA_OK);
    isa_program *p = NULL;
    err[0] = 0;
    ck_assert_int_ne(isa_lower(w, n, NULL, &p, err, sizeof err), ISA_OK);
    ck_assert_ptr_null(p);
    free(w);
    return err;
}

START_TEST(lowering_refuses_odd_quads_and_derivatives_without_a_mode)
{
    const char *e = lower_error("OpCapability Shader\nOpCapability ComputeDerivativeGroupQuadsNV\n"
                                "OpExtension \"SPV_NV_compute_shader_derivatives\"\n"
                                "OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n"
                                "OpExecutionMode %main LocalSize 3 2 1\nOpExecutionMode %main DerivativeGroupQuadsNV\n"
                                "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n"
                                "%main = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n");
    ck_assert_msg(strstr(e, "DerivativeGroupQuads") && strstr(e, "3x2x1"), "%s", e);
    e = lower_error("OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n"
                    "OpExecutionMode %main LocalSize 4 1 1\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n"
                    "%float = OpTypeFloat 32\n%one = OpConstant %float 1\n"
                    "%main = OpFunction %void None %fn\n%l = OpLabel\n%d = OpDPdx %float %one\nOpReturn\n"
                    "OpFunctionEnd\n");
    ck_assert_msg(strstr(e, "OpDPdx") && strstr(e, "execution mode"), "%s", e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("derivatives");
    TCase *tc = tcase_create("derivatives");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, quads_every_wave_size);
    tcase_add_test(tc, inactive_lane_gives_zero_and_a_report);
    tcase_add_test(tc, quad_placement_by_hand_and_back);
    tcase_add_test(tc, lowering_refuses_odd_quads_and_derivatives_without_a_mode);
    suite_add_tcase(s, tc);
    return tsup_run_suite(s, "derivatives");
}
