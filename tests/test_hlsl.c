/*
 * tests/test_hlsl.c — HLSL wave intrinsics through glslang's HLSL front end,
 * checked against HLSL's meaning (as DXC implements it), computed here.
 *
 * glslang 12 departs from HLSL in places (docs/quirks.md): WavePrefixSum /
 * WavePrefixProduct come out inclusive (isa/compile.c rewrites them to the
 * exclusive scans HLSL means); `c ? WaveOp(x) : y` and `a && Buffer[i]`
 * evaluate both sides (isa_compile warns with the source line).  Tests that
 * record what glslang does where it differs from DXC say so in their name.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isa/isa.h"
#include "isa/spirv.h"
#include "sim/sim.h"
#include "tests/support/tsup.h"

#define SENTINEL 0xDEADBEEFu
#define NOUT 15

static const uint32_t wave_sizes[] = {4, 8, 16, 32, 64};

static isa_program *build_hlsl(const char *src, char *warnings, size_t wsize)
{
    char msg[8192];
    isa_program *prog = NULL;
    isa_status st = tsup_build(src, "kernel.hlsl", "hlsl", "main", &prog, msg, sizeof msg, warnings, wsize);
    ck_assert_msg(st == ISA_OK, "%s\n%s", msg, src);
    return prog;
}

static sim_status run2(const isa_program *prog, uint32_t W, uint32_t *in, size_t in_n, uint32_t *out, size_t out_n,
                       sim_result *res)
{
    sim_buffer bufs[2] = {{0, 0, (uint8_t *)in, in_n * 4, 0}, {0, 1, (uint8_t *)out, out_n * 4, 0}};
    sim_config cfg = {.wave_size = W, .groups = {1, 1, 1}, .buffers = bufs, .buffer_count = 2};
    return sim_run(prog, &cfg, res);
}

static uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* ------------------------------------------------------------ the wave intrinsics */

static const char *intrinsics_src =
    "[[vk::binding(0, 0)]] StructuredBuffer<uint> inw;\n"
    "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> outw;\n"
    "void body(uint gi) {\n"
    "    uint x = inw[gi];\n"
    "    float f = float(x % 8u) * 0.5;\n"
    "    uint o = gi * 15u;\n"
    "    outw[o + 0u] = WavePrefixSum(x);\n"
    "    outw[o + 1u] = WavePrefixProduct(x % 3u + 1u);\n"
    "    outw[o + 2u] = asuint(WavePrefixSum(f));\n"
    "    outw[o + 3u] = WavePrefixCountBits((x & 1u) != 0u);\n"
    "    outw[o + 4u] = WaveActiveSum(x);\n"
    "    outw[o + 5u] = WaveActiveAllTrue(x < 50u) ? 1u : 0u;\n"
    "    outw[o + 6u] = WaveActiveAnyTrue(x == 7u) ? 1u : 0u;\n"
    "    uint4 b = WaveActiveBallot((x & 1u) != 0u);\n"
    "    outw[o + 7u] = b.x;\n"
    "    outw[o + 8u] = b.y;\n"
    "    outw[o + 9u] = WaveReadLaneAt(x, 1);\n"
    "    outw[o + 10u] = WaveReadLaneFirst(x);\n"
    "    outw[o + 11u] = WaveIsFirstLane() ? 1u : 0u;\n"
    "    outw[o + 12u] = WaveGetLaneIndex();\n"
    "    outw[o + 13u] = WaveGetLaneCount();\n"
    "    outw[o + 14u] = WaveActiveCountBits(x > 3u);\n"
    "}\n"
    "[numthreads(64, 1, 1)]\n"
    "void main(uint gi : SV_GroupIndex) {\n"
    "    if (ODD_ONLY == 0 || (WaveGetLaneIndex() & 1u) == 1u)\n"
    "        body(gi);\n"
    "}\n";

/* HLSL's meaning of every output for one wave; lanes not in `active` keep the sentinel. */
static void hlsl_reference(const uint32_t *x, uint32_t W, uint64_t active, uint32_t *expect)
{
    uint32_t first = (uint32_t)__builtin_ctzll(active);
    uint32_t sum = 0, all = 1, any = 0, count_gt3 = 0;
    uint64_t ballot = 0;
    for (uint32_t l = 0; l < W; l++)
        if ((active >> l) & 1) {
            sum += x[l];
            all &= x[l] < 50u;
            any |= x[l] == 7u;
            ballot |= (uint64_t)(x[l] & 1u) << l;
            count_gt3 += x[l] > 3u;
        }
    uint32_t psum = 0, pprod = 1, pbits = 0;
    float pf = 0.0f;
    for (uint32_t l = 0; l < W; l++) {
        uint32_t *e = &expect[l * NOUT];
        if (!((active >> l) & 1)) {
            for (int k = 0; k < NOUT; k++)
                e[k] = SENTINEL;
            continue;
        }
        /* exclusive prefixes: what the lanes before this one hold (HLSL's WavePrefix*) */
        e[0] = psum;
        e[1] = pprod;
        e[2] = f32_bits(pf);
        e[3] = pbits;
        e[4] = sum;
        e[5] = all;
        e[6] = any;
        e[7] = (uint32_t)ballot;
        e[8] = (uint32_t)(ballot >> 32);
        e[9] = x[1];
        e[10] = x[first];
        e[11] = l == first;
        e[12] = l;
        e[13] = W;
        e[14] = count_gt3;
        psum += x[l];
        pprod *= x[l] % 3u + 1u;
        pf += (float)(x[l] % 8u) * 0.5f;
        pbits += x[l] & 1u;
    }
}

static void check_intrinsics(int odd_only)
{
    char src[8192], warnings[4096];
    snprintf(src, sizeof src, "#define ODD_ONLY %d\n%s", odd_only, intrinsics_src);
    isa_program *prog = build_hlsl(src, warnings, sizeof warnings);
    for (size_t wi = 0; wi < sizeof wave_sizes / sizeof wave_sizes[0]; wi++) {
        uint32_t W = wave_sizes[wi], in[64], out[64 * NOUT], expect[64 * NOUT];
        for (uint32_t i = 0; i < 64; i++)
            in[i] = (i * 37u + 11u) % 61u;
        for (size_t i = 0; i < 64 * NOUT; i++)
            out[i] = SENTINEL;
        sim_result res;
        ck_assert_int_eq(run2(prog, W, in, 64, out, 64 * NOUT, &res), SIM_OK);
        ck_assert_uint_eq(res.stats.undefined_events, 0);
        uint64_t lanes = W == 64 ? ~0ull : (1ull << W) - 1;
        uint64_t active = odd_only ? lanes & 0xaaaaaaaaaaaaaaaaull : lanes;
        for (uint32_t w0 = 0; w0 < 64; w0 += W)
            hlsl_reference(in + w0, W, active, expect + w0 * NOUT);
        for (size_t i = 0; i < 64 * NOUT; i++)
            ck_assert_msg(out[i] == expect[i], "W=%u lane %zu output %zu: expected 0x%08x (HLSL), got 0x%08x", W,
                          i / NOUT, i % NOUT, expect[i], out[i]);
        sim_result_free(&res);
    }
    isa_program_destroy(prog);
}

START_TEST(test_hlsl_wave_intrinsics_all_lanes_match_hlsl) { check_intrinsics(0); }
END_TEST

START_TEST(test_hlsl_wave_intrinsics_odd_lanes_match_hlsl) { check_intrinsics(1); }
END_TEST

/* ------------------------------------------------------------ quad reads */

START_TEST(test_hlsl_quad_reads_match_hlsl_quad_layout)
{
    static const char *src =
        "[[vk::binding(0, 0)]] StructuredBuffer<uint> inw;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> outw;\n"
        "[numthreads(64, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) {\n"
        "    uint x = inw[gi];\n"
        "    outw[gi * 4u + 0u] = QuadReadAcrossX(x);\n"
        "    outw[gi * 4u + 1u] = QuadReadAcrossY(x);\n"
        "    outw[gi * 4u + 2u] = QuadReadAcrossDiagonal(x);\n"
        "    outw[gi * 4u + 3u] = QuadReadLaneAt(x, 2);\n"
        "}\n";
    isa_program *prog = build_hlsl(src, NULL, 0);
    for (size_t wi = 0; wi < sizeof wave_sizes / sizeof wave_sizes[0]; wi++) {
        uint32_t in[64], out[256];
        for (uint32_t i = 0; i < 64; i++)
            in[i] = 100u + i;
        sim_result res;
        ck_assert_int_eq(run2(prog, wave_sizes[wi], in, 64, out, 256, &res), SIM_OK);
        /* HLSL's quad: lanes 0 1 / 2 3; X swaps within a row (^1), Y within a column (^2), diagonal ^3 */
        for (uint32_t i = 0; i < 64; i++) {
            ck_assert_uint_eq(out[i * 4 + 0], in[i ^ 1u]);
            ck_assert_uint_eq(out[i * 4 + 1], in[i ^ 2u]);
            ck_assert_uint_eq(out[i * 4 + 2], in[i ^ 3u]);
            ck_assert_uint_eq(out[i * 4 + 3], in[(i & ~3u) + 2u]);
        }
        sim_result_free(&res);
    }
    isa_program_destroy(prog);
}
END_TEST

/* ------------------------------------------------------------ HLSL 2021 short-circuit ?:, && and || */

/* A wave operation in one arm of ?: sees only the lanes that choose that arm, exactly as inside an if. */
START_TEST(test_hlsl_ternary_wave_op_sees_only_lanes_of_its_arm)
{
    static const char *src =
        "[[vk::binding(0, 0)]] StructuredBuffer<uint> inw;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> outw;\n"
        "[numthreads(64, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) {\n"
        "    uint x = inw[gi];\n"
        "    outw[gi] = (x & 1u) != 0u ? WaveActiveSum(x) : WaveActiveMax(x);\n"
        "    uint y = 0u;\n"
        "    if ((x & 1u) != 0u)\n"
        "        y = WaveActiveSum(x);\n"
        "    outw[64u + gi] = y;\n"
        "}\n";
    char warnings[4096];
    isa_program *prog = build_hlsl(src, warnings, sizeof warnings);
    ck_assert_msg(strstr(warnings, "warning") == NULL, "%s", warnings);
    for (size_t wi = 0; wi < sizeof wave_sizes / sizeof wave_sizes[0]; wi++) {
        uint32_t W = wave_sizes[wi], in[64], out[128];
        for (uint32_t i = 0; i < 64; i++)
            in[i] = (i * 7u + 3u) % 13u;
        sim_result res;
        ck_assert_int_eq(run2(prog, W, in, 64, out, 128, &res), SIM_OK);
        for (uint32_t w0 = 0; w0 < 64; w0 += W) {
            uint32_t odd_sum = 0, even_max = 0;
            for (uint32_t l = w0; l < w0 + W; l++) {
                if (in[l] & 1u)
                    odd_sum += in[l];
                else if (in[l] > even_max)
                    even_max = in[l];
            }
            for (uint32_t l = w0; l < w0 + W; l++) {
                ck_assert_uint_eq(out[l], (in[l] & 1u) ? odd_sum : even_max);
                ck_assert_uint_eq(out[64 + l], (in[l] & 1u) ? odd_sum : 0u);
            }
        }
        sim_result_free(&res);
    }
    isa_program_destroy(prog);
}
END_TEST

/* `gi < n && inw[gi] != 0` and `gi < n ? inw[gi] : 0` never read past n: no fault. */
START_TEST(test_hlsl_guarded_buffer_reads_stay_in_bounds)
{
    static const char *src =
        "[[vk::binding(0, 0)]] StructuredBuffer<uint> inw;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> outw;\n"
        "[numthreads(64, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) {\n"
        "    uint n = outw[0];\n"
        "    if (gi < n && inw[gi] != 0u)\n"
        "        outw[1u + gi] = 1u;\n"
        "    uint v = gi < n ? inw[gi] : 7u;\n"
        "    outw[65u + gi] = v;\n"
        "    outw[129u + gi] = (gi >= n || inw[gi] == 0u) ? 5u : 6u;\n"
        "}\n";
    char warnings[4096];
    isa_program *prog = build_hlsl(src, warnings, sizeof warnings);
    ck_assert_msg(strstr(warnings, "warning") == NULL, "%s", warnings);
    uint32_t in[16], out[193] = {16};
    for (int i = 0; i < 16; i++)
        in[i] = (uint32_t)i % 3u;
    sim_result res;
    ck_assert_int_eq(run2(prog, 32, in, 16, out, 193, &res), SIM_OK);
    for (uint32_t i = 0; i < 64; i++) {
        ck_assert_uint_eq(out[1 + i], i < 16 && in[i] != 0 ? 1u : 0u);
        ck_assert_uint_eq(out[65 + i], i < 16 ? in[i] : 7u);
        ck_assert_uint_eq(out[129 + i], i >= 16 || in[i] == 0 ? 5u : 6u);
    }
    sim_result_free(&res);
    isa_program_destroy(prog);
}
END_TEST

/* ------------------------------------------------------------ DXC's sized type names */

static isa_status compile_only(const char *src, char *err, size_t err_size, uint32_t **words, size_t *n)
{
    isa_compile_options o = {.path = "kernel.hlsl", .source = src, .language = "hlsl", .entry = "main"};
    char warnings[2048];
    return isa_compile(&o, words, n, err, err_size, warnings, sizeof warnings);
}

/* Compiles an HLSL kernel glslang must refuse: the status is ISA_ERR_COMPILE, no words come back, and the error
 * text (valid until the next call) is returned. */
static const char *refused(const char *src)
{
    static char err[4096];
    uint32_t *w = NULL;
    size_t n = 0;
    err[0] = 0;
    ck_assert_int_eq(compile_only(src, err, sizeof err, &w, &n), ISA_ERR_COMPILE);
    ck_assert_ptr_null(w);
    return err;
}

/* uint16_t, int16_t, float16_t, uint32_t4, float32_t2, uint16_t2 as DXC spells them (with explicit casts). */
START_TEST(test_hlsl_dxc_sized_type_names_compile_and_compute)
{
    static const char *src =
        "[[vk::binding(0, 0)]] StructuredBuffer<uint> inw;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> outw;\n"
        "[numthreads(64, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) {\n"
        "    uint32_t x = inw[gi];\n"
        "    uint16_t a = (uint16_t)(x * 3u);\n"
        "    int16_t b = (int16_t)((int32_t)x - 4);\n"
        "    float16_t h = (float16_t)((float32_t)x * 0.5);\n"
        "    uint32_t4 q = uint32_t4(x, 1u, 2u, 3u);\n"
        "    float32_t2 f2 = float32_t2((float)h, 2.0);\n"
        "    uint16_t2 v2 = uint16_t2(a, a);\n"
        "    outw[gi] = (uint)a + (uint)(b + (int16_t)10) * 100u + (uint)(f2.x * 4.0) * 10000u + q.w * 1000000u\n"
        "             + (uint)v2.y;\n"
        "}\n";
    isa_program *prog = build_hlsl(src, NULL, 0);
    uint32_t in[64], out[64];
    for (uint32_t i = 0; i < 64; i++)
        in[i] = i % 5u; /* small: every value fits the 16-bit types exactly */
    sim_result res;
    ck_assert_int_eq(run2(prog, 16, in, 64, out, 64, &res), SIM_OK);
    for (uint32_t i = 0; i < 64; i++) {
        uint32_t x = in[i], a = x * 3u;
        int32_t b = (int32_t)x - 4 + 10;
        uint32_t want = a + (uint32_t)b * 100u + (uint32_t)((float)x * 0.5f * 4.0f) * 10000u + 3000000u + a;
        ck_assert_msg(out[i] == want, "lane %u: %u, expected %u", i, out[i], want);
    }
    sim_result_free(&res);
    isa_program_destroy(prog);

    /* a kernel that names the type itself keeps its own meaning */
    static const char *own =
        "typedef uint uint32_t;\n"
        "[[vk::binding(0, 0)]] StructuredBuffer<uint32_t> inw;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint32_t> outw;\n"
        "[numthreads(64, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { outw[gi] = inw[gi] + 1u; }\n";
    prog = build_hlsl(own, NULL, 0);
    ck_assert_int_eq(run2(prog, 32, in, 64, out, 64, &res), SIM_OK);
    for (uint32_t i = 0; i < 64; i++)
        ck_assert_uint_eq(out[i], in[i] + 1u);
    sim_result_free(&res);
    isa_program_destroy(prog);
}
END_TEST

/* int64_t has no glslang 12 HLSL spelling: one note names it. */
START_TEST(test_hlsl_dxc_int64_t_is_a_clear_error)
{
    static const char *src =
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> outw;\n"
        "[numthreads(8, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { int64_t x = (int64_t)gi; outw[gi] = (uint)x; }\n";
    const char *err = refused(src);
    ck_assert_msg(strstr(err, "kernel.hlsl:3: error:") && strstr(err, "note: `int64_t`"), "%s", err);
}
END_TEST

/* ------------------------------------------------------------ where glslang differs from DXC: recorded */


static int has_opcode(const uint32_t *w, size_t n, uint32_t opcode)
{
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, w, n, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST)
        if ((uint32_t)in.op == opcode)
            return 1;
    return 0;
}


START_TEST(test_hlsl_glslang_rejects_wave_match_and_multiprefix)
{
    static const char *const srcs[] = {
        "RWStructuredBuffer<uint> o;\n[numthreads(64,1,1)] void main(uint gi : SV_GroupIndex) { o[gi] = WaveMatch(o[gi]).x; }\n",
        "RWStructuredBuffer<uint> o;\n[numthreads(64,1,1)] void main(uint gi : SV_GroupIndex) "
        "{ o[gi] = WaveMultiPrefixSum(o[gi], uint4(1,0,0,0)); }\n",
        "RWStructuredBuffer<uint> o;\n[numthreads(64,1,1)] void main(uint gi : SV_GroupIndex) "
        "{ o[gi] = WaveMultiPrefixCountBits(o[gi] != 0, uint4(1,0,0,0)); }\n",
    };
    for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
        const char *err = refused(srcs[i]);
        ck_assert_msg(strstr(err, "kernel.hlsl:2: error:") && strstr(err, "no matching overloaded function"), "%s", err);
    }
}
END_TEST

START_TEST(test_hlsl_glslang_read_lane_at_is_a_shuffle_so_nonuniform_index_works_per_lane)
{
    /* DXC requires a uniform index (it emits OpGroupNonUniformBroadcast); glslang emits a shuffle */
    static const char *src =
        "[[vk::binding(0, 0)]] StructuredBuffer<uint> inw;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> outw;\n"
        "[numthreads(64, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { outw[gi] = WaveReadLaneAt(inw[gi], WaveGetLaneIndex() ^ 1u); }\n";
    char err[4096];
    uint32_t *w = NULL;
    size_t n = 0;
    ck_assert_int_eq(compile_only(src, err, sizeof err, &w, &n), ISA_OK);
    ck_assert(has_opcode(w, n, 345 /* OpGroupNonUniformShuffle */));
    ck_assert(!has_opcode(w, n, 337 /* OpGroupNonUniformBroadcast */));
    free(w);
    isa_program *prog = build_hlsl(src, NULL, 0);
    uint32_t in[64], out[64];
    for (uint32_t i = 0; i < 64; i++)
        in[i] = 300u + i;
    sim_result res;
    ck_assert_int_eq(run2(prog, 16, in, 64, out, 64, &res), SIM_OK);
    for (uint32_t i = 0; i < 64; i++)
        ck_assert_uint_eq(out[i], in[i ^ 1u]);
    sim_result_free(&res);
    isa_program_destroy(prog);
}
END_TEST

START_TEST(test_hlsl_uint64_wave_sum_is_an_integer_add)
{
    /* glslang 12 alone picked the double overload of WaveActiveSum for uint64_t (an FAdd, exact below 2^53);
     * the overload wavelab declares makes it DXC's 64-bit integer add */
    static const char *src =
        "RWStructuredBuffer<uint> o;\n"
        "[numthreads(64, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { uint64_t x = o[gi]; o[gi] = uint(WaveActiveSum(x)); }\n";
    char err[4096];
    uint32_t *w = NULL;
    size_t n = 0;
    ck_assert_int_eq(compile_only(src, err, sizeof err, &w, &n), ISA_OK);
    ck_assert(!has_opcode(w, n, 350 /* OpGroupNonUniformFAdd */));
    ck_assert(has_opcode(w, n, 349 /* OpGroupNonUniformIAdd */));
    free(w);
}
END_TEST

/* DXC's rule for resources with neither register() nor [[vk::binding]]: the next binding of set 0 that no explicit
 * one took, in declaration order (glslang alone put all three on binding 0: the collision error) */
START_TEST(test_hlsl_resources_without_register_take_free_bindings_in_declaration_order)
{
    static const char *src =
        "RWStructuredBuffer<uint> unused;\n"           /* binding 1 (0 is b's): numbered though never used */
        "RWStructuredBuffer<uint> a;\n"                /* binding 2 */
        "RWStructuredBuffer<uint> b : register(u0);\n" /* binding 0 */
        "RWStructuredBuffer<uint> c;\n"                /* binding 3 */
        "[numthreads(8, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { c[gi] = a[gi] * 10u + b[gi]; }\n";
    isa_program *prog = build_hlsl(src, NULL, 0);
    uint32_t a[8], b[8], c[8];
    for (uint32_t i = 0; i < 8; i++)
        a[i] = 100u + i, b[i] = i + 1u, c[i] = SENTINEL;
    sim_buffer bufs[3] = {{0, 0, (uint8_t *)b, sizeof b, 0}, {0, 2, (uint8_t *)a, sizeof a, 0}, {0, 3, (uint8_t *)c, sizeof c, 0}};
    sim_config cfg = {.wave_size = 8, .groups = {1, 1, 1}, .buffers = bufs, .buffer_count = 3};
    sim_result res;
    ck_assert_int_eq(sim_run(prog, &cfg, &res), SIM_OK);
    for (uint32_t i = 0; i < 8; i++)
        ck_assert_uint_eq(c[i], (100u + i) * 10u + i + 1u);
    sim_result_free(&res);
    isa_program_destroy(prog);
}
END_TEST

/* QuadAny / QuadAll (Shader Model 6.7; glslang 12 has neither): whether any / every lane of the lane's quad
 * (lanes 4k .. 4k+3) has the condition; glslang alone: "no matching overloaded function" */
START_TEST(test_hlsl_quad_any_and_quad_all_over_each_quad)
{
    static const char *src =
        "[[vk::binding(0, 0)]] StructuredBuffer<uint> inw;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> outw;\n"
        "[numthreads(64, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) {\n"
        "    uint x = inw[gi];\n"
        "    outw[gi] = (QuadAny(x == 0u) ? 1u : 0u) + (QuadAll(x != 3u) ? 10u : 0u);\n"
        "}\n";
    isa_program *prog = build_hlsl(src, NULL, 0);
    uint32_t in[64], out[64];
    for (uint32_t i = 0; i < 64; i++)
        in[i] = (i * 7u + i / 4u) % 5u;
    for (size_t wi = 0; wi < sizeof wave_sizes / sizeof wave_sizes[0]; wi++) {
        sim_result res;
        ck_assert_int_eq(run2(prog, wave_sizes[wi], in, 64, out, 64, &res), SIM_OK);
        for (uint32_t i = 0; i < 64; i++) {
            uint32_t q = i & ~3u, any = 0, all = 1;
            for (uint32_t k = 0; k < 4; k++)
                any |= in[q + k] == 0u, all &= in[q + k] != 3u;
            ck_assert_msg(out[i] == any + 10u * all, "wave %u lane %u: %u, expected %u", wave_sizes[wi], i, out[i],
                          any + 10u * all);
        }
        sim_result_free(&res);
    }
    isa_program_destroy(prog);
}
END_TEST

/* `unsigned int` (and its vectors) is uint, as DXC reads it; glslang 12 reserves `unsigned`.  A header is read
 * like the kernel: a DXC type name only it uses (uint32_t) and `unsigned int` work there too, and a DXC intrinsic
 * only it calls (QuadAny) is defined.  Errors keep their line. */
START_TEST(test_hlsl_unsigned_int_and_dxc_names_in_headers)
{
    char *dir = tsup_temp_dir();
    free(tsup_write_file(dir, "h.hlsli",
                         "// unsigned int in a comment stays\n"
                         "unsigned int twice(uint32_t v) { unsigned int2 p = unsigned int2(v, v); return p.x + p.y; }\n"
                         "bool quad_has_zero(uint v) { return QuadAny(v == 0u); }\n"));
    free(tsup_write_file(dir, "k.hlsl",
                         "#include \"h.hlsli\"\n"
                         "[[vk::binding(0, 0)]] StructuredBuffer<uint> inw;\n"
                         "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> outw;\n"
                         "[numthreads(64, 1, 1)]\n"
                         "void main(uint gi : SV_GroupIndex) {\n"
                         "    unsigned int x = inw[gi];\n"
                         "    outw[gi] = twice(x) + (quad_has_zero(x) ? 1000u : 0u);\n"
                         "}\n"));
    char path[1024], msg[8192];
    snprintf(path, sizeof path, "%s/k.hlsl", dir);
    char *text = tsup_read_file(path, NULL);
    isa_program *prog = NULL;
    ck_assert_msg(tsup_build(text, path, "hlsl", "main", &prog, msg, sizeof msg, NULL, 0) == ISA_OK, "%s", msg);
    uint32_t in[64], out[64];
    for (uint32_t i = 0; i < 64; i++)
        in[i] = (i * 13u) % 9u;
    sim_result res;
    ck_assert_int_eq(run2(prog, 32, in, 64, out, 64, &res), SIM_OK);
    for (uint32_t i = 0; i < 64; i++) {
        uint32_t q = i & ~3u, any = 0;
        for (uint32_t k = 0; k < 4; k++)
            any |= in[q + k] == 0u;
        ck_assert_uint_eq(out[i], 2u * in[i] + 1000u * any);
    }
    sim_result_free(&res);
    isa_program_destroy(prog);
    free(text);

    /* `unsigned` before anything but int stays glslang's error, on its line */
    static const char *bad =
        "RWStructuredBuffer<uint> o;\n"
        "[numthreads(8, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { unsigned short s = 1; o[gi] = s; }\n";
    const char *err = refused(bad);
    ck_assert_msg(strstr(err, "kernel.hlsl:3: error: 'unsigned'"), "%s", err);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* The wave intrinsics on uint64_t and uint16_t, as DXC defines them: a 64-bit integer sum (glslang 12 alone picked
 * the double overload, exact below 2^53 only) and a 16-bit sum and prefix sum that wrap at 65536 (glslang 12 alone
 * refused the argument).  Expected values in 64-bit and 16-bit arithmetic here. */
START_TEST(test_hlsl_wave_intrinsics_on_64_and_16_bit_integers)
{
    static const char *src =
        "[[vk::binding(0, 0)]] StructuredBuffer<uint> inw;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> outw;\n"
        "[numthreads(64, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) {\n"
        "    uint x = inw[gi];\n"
        "    uint64_t big = x;\n"
        "    big = (big << 32) | x;\n"
        "    uint64_t s = WaveActiveSum(big);\n"
        "    uint16_t h = (uint16_t)(x * 3000u);\n"
        "    uint16_t hs = WaveActiveSum(h);\n"
        "    uint16_t hp = WavePrefixSum(h);\n"
        "    uint64_t first = WaveReadLaneFirst(big);\n"
        "    uint o = gi * 6u;\n"
        "    outw[o] = (uint)(s >> 32); outw[o + 1u] = (uint)s; outw[o + 2u] = (uint)hs; outw[o + 3u] = (uint)hp;\n"
        "    outw[o + 4u] = (uint)(first >> 32); outw[o + 5u] = (uint)first;\n"
        "}\n";
    isa_program *prog = build_hlsl(src, NULL, 0);
    uint32_t in[64], out[64 * 6];
    for (uint32_t i = 0; i < 64; i++)
        in[i] = 0x90000000u + i * 0x01234567u; /* the low halves carry into the high ones */
    for (size_t wi = 0; wi < sizeof wave_sizes / sizeof wave_sizes[0]; wi++) {
        uint32_t W = wave_sizes[wi];
        sim_result res;
        ck_assert_int_eq(run2(prog, W, in, 64, out, 64 * 6, &res), SIM_OK);
        for (uint32_t w0 = 0; w0 < 64; w0 += W) {
            uint64_t sum = 0;
            uint16_t hsum = 0;
            for (uint32_t l = 0; l < W; l++) {
                sum += (uint64_t)in[w0 + l] << 32 | in[w0 + l];
                hsum = (uint16_t)(hsum + (uint16_t)(in[w0 + l] * 3000u));
            }
            uint16_t prefix = 0;
            for (uint32_t l = 0; l < W; l++) {
                const uint32_t *e = &out[(w0 + l) * 6];
                ck_assert_msg(e[0] == (uint32_t)(sum >> 32) && e[1] == (uint32_t)sum, "wave %u lane %u: sum %08x%08x, "
                              "expected %016llx", W, w0 + l, e[0], e[1], (unsigned long long)sum);
                ck_assert_uint_eq(e[2], hsum);
                ck_assert_uint_eq(e[3], prefix);
                ck_assert_uint_eq(e[4], in[w0]);
                ck_assert_uint_eq(e[5], in[w0]);
                prefix = (uint16_t)(prefix + (uint16_t)(in[w0 + l] * 3000u));
            }
        }
        sim_result_free(&res);
    }
    isa_program_destroy(prog);
}
END_TEST

/* A function taking ConstantBuffer<T> (issue 25's list): glslang 12 takes it as written; computed by hand */
START_TEST(test_hlsl_constant_buffer_argument)
{
    static const char *src =
        "struct Params { uint scale; uint bias; };\n"
        "[[vk::binding(0, 0)]] ConstantBuffer<Params> params;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> outw;\n"
        "uint apply(ConstantBuffer<Params> p, uint x) { return p.scale * x + p.bias; }\n"
        "[numthreads(16, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { outw[gi] = apply(params, gi); }\n";
    isa_program *prog = build_hlsl(src, NULL, 0);
    uint32_t p[2] = {7u, 1000u}, out[16];
    sim_result res;
    ck_assert_int_eq(run2(prog, 8, p, 2, out, 16, &res), SIM_OK);
    for (uint32_t i = 0; i < 16; i++)
        ck_assert_uint_eq(out[i], 7u * i + 1000u);
    sim_result_free(&res);
    isa_program_destroy(prog);
}
END_TEST

/* What stays refused: an implicit narrowing to half (glslang 12's HLSL converts implicitly only among the 32- and
 * 64-bit scalar types) is glslang's error on its line and one note naming the cause */
START_TEST(test_hlsl_implicit_conversion_to_half_is_a_clear_error)
{
    static const char *src =
        "RWStructuredBuffer<uint> o;\n"
        "[numthreads(8, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) {\n"
        "    half h = 1.0;\n"
        "    o[gi] = (uint)(float)h;\n"
        "}\n";
    const char *err = refused(src);
    ck_assert_msg(strstr(err, "kernel.hlsl:4: error:") && strstr(err, "note: glslang 12 converts to 16-bit"), "%s", err);
}
END_TEST

/* GetGroupWaveCount / GetGroupWaveIndex (Shader Model 6.10; glslang 12 has neither): DXC reads NumSubgroups and
 * SubgroupId.  64 invocations in waves of W: 64 / W waves, and (with the model's waves filled in local-index order)
 * invocation i in wave i / W. */
START_TEST(test_hlsl_group_wave_count_and_index)
{
    static const char *src =
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> outw;\n"
        "[numthreads(64, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { outw[gi] = GetGroupWaveCount() * 1000u + GetGroupWaveIndex(); }\n";
    isa_program *prog = build_hlsl(src, NULL, 0);
    uint32_t in[1] = {0}, out[64];
    for (size_t wi = 0; wi < sizeof wave_sizes / sizeof wave_sizes[0]; wi++) {
        uint32_t W = wave_sizes[wi];
        sim_result res;
        ck_assert_int_eq(run2(prog, W, in, 1, out, 64, &res), SIM_OK);
        for (uint32_t i = 0; i < 64; i++)
            ck_assert_uint_eq(out[i], 64u / W * 1000u + i / W);
        sim_result_free(&res);
    }
    isa_program_destroy(prog);
}
END_TEST

/* all() / any() of a vector WaveActiveAllEqual: HLSL's per-component answer reduced (glslang 12 alone: OpAll of its
 * one bool, invalid SPIR-V); expected per pattern by hand */
START_TEST(test_hlsl_all_any_of_vector_wave_active_all_equal)
{
    static const char *src =
        "[[vk::binding(0, 0)]] StructuredBuffer<int2> Input;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint2> Output;\n"
        "[numthreads(8, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) {\n"
        "    Output[gi] = uint2(all(WaveActiveAllEqual(Input[gi])) ? 1u : 0u, any(WaveActiveAllEqual(Input[gi])) ? 1u : 0u);\n"
        "}\n";
    char warnings[1024] = "";
    isa_program *prog = build_hlsl(src, warnings, sizeof warnings);
    ck_assert_msg(!strstr(warnings, "WaveActiveAllEqual"), "%s", warnings);
    for (int pattern = 0; pattern < 4; pattern++) {
        uint32_t in[16], out[16] = {0};
        for (uint32_t i = 0; i < 8; i++) {
            in[2 * i] = pattern & 1 ? i : 7;            /* x differs across lanes in patterns 1 and 3 */
            in[2 * i + 1] = pattern & 2 ? 100 + i : 5;  /* y differs in patterns 2 and 3 */
        }
        sim_result res;
        ck_assert_int_eq(run2(prog, 8, in, 16, out, 16, &res), SIM_OK);
        sim_result_free(&res);
        for (uint32_t i = 0; i < 8; i++) {
            ck_assert_msg(out[2 * i] == (pattern == 0 ? 1u : 0u), "pattern %d lane %u all", pattern, i);
            ck_assert_msg(out[2 * i + 1] == (pattern == 3 ? 0u : 1u), "pattern %d lane %u any", pattern, i);
        }
    }
    isa_program_destroy(prog);
}
END_TEST

/* all() / any() of a matrix WaveActiveAllEqual: HLSL compares element by element (a bool2x2); glslang 12 has no
 * overload and SPIR-V no bool matrix.  Each pattern makes a chosen set of elements differ across lanes; the expected
 * all/any come from that set, by hand. */
START_TEST(test_hlsl_all_any_of_matrix_wave_active_all_equal)
{
    static const char *src =
        "[[vk::binding(0, 0)]] StructuredBuffer<float2x2> Input;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint2> Output;\n"
        "[numthreads(8, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) {\n"
        "    float2x2 m = Input[gi];\n"
        "    Output[gi] = uint2(all(WaveActiveAllEqual(m)) ? 1u : 0u, any(WaveActiveAllEqual(m)) ? 1u : 0u);\n"
        "}\n";
    isa_program *prog = build_hlsl(src, NULL, 0);
    /* bit e of `differs`: element e (of the 4 floats each lane reads) differs across lanes */
    static const unsigned differs[] = {0x0, 0x1, 0x8, 0x6, 0xf, 0x7};
    for (size_t p = 0; p < sizeof differs / sizeof differs[0]; p++) {
        float in[32];
        uint32_t inw[32], out[16] = {0};
        for (uint32_t i = 0; i < 8; i++)
            for (uint32_t e = 0; e < 4; e++)
                in[4 * i + e] = differs[p] >> e & 1 ? (float)i + 0.5f : 3.25f;
        memcpy(inw, in, sizeof in);
        sim_result res;
        ck_assert_int_eq(run2(prog, 8, inw, 32, out, 16, &res), SIM_OK);
        sim_result_free(&res);
        for (uint32_t i = 0; i < 8; i++) {
            ck_assert_msg(out[2 * i] == (differs[p] == 0 ? 1u : 0u), "pattern %zu lane %u all", p, i);
            ck_assert_msg(out[2 * i + 1] == (differs[p] == 0xf ? 0u : 1u), "pattern %zu lane %u any", p, i);
        }
    }
    isa_program_destroy(prog);
    /* a 1x1 matrix is a scalar (DXC's rule; glslang alone wrote a one-component vector), and all()/any() of any
     * scalar is that scalar as a bool (glslang alone wrote OpAll of a scalar, invalid SPIR-V) */
    static const char *one =
        "[[vk::binding(0, 0)]] StructuredBuffer<float1x1> Input;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint2> Output;\n"
        "[numthreads(8, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) {\n"
        "    float1x1 m = Input[gi];\n"
        "    Output[gi] = uint2(all(WaveActiveAllEqual(m)) ? 1u : 0u, any(m) ? 1u : 0u);\n"
        "}\n";
    prog = build_hlsl(one, NULL, 0);
    for (int pattern = 0; pattern < 2; pattern++) {
        float in[8];
        uint32_t inw[8], out[16] = {0};
        for (uint32_t i = 0; i < 8; i++)
            in[i] = pattern ? (float)(i % 3) : 2.0f; /* pattern 1: 0, 1, 2, 0, ... differ, and some are 0 */
        memcpy(inw, in, sizeof in);
        sim_result res;
        ck_assert_int_eq(run2(prog, 8, inw, 8, out, 16, &res), SIM_OK);
        sim_result_free(&res);
        for (uint32_t i = 0; i < 8; i++) {
            ck_assert_msg(out[2 * i] == (pattern ? 0u : 1u), "1x1 pattern %d lane %u all", pattern, i);
            ck_assert_msg(out[2 * i + 1] == (in[i] != 0.0f ? 1u : 0u), "1x1 pattern %d lane %u any", pattern, i);
        }
    }
    isa_program_destroy(prog);
    /* anywhere else its bool matrix has no SPIR-V type: one error that says so, never a wrong value */
    static const char *kept =
        "[[vk::binding(0, 0)]] StructuredBuffer<float2x2> Input;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> Output;\n"
        "[numthreads(8, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { bool e = WaveActiveAllEqual(Input[gi]); Output[gi] = e ? 1u : 0u; }\n";
    const char *err = refused(kept);
    ck_assert_msg(strstr(err, "note: WaveActiveAllEqual of a matrix is taken only as the argument of all() or any()"),
                  "%s", err);
}
END_TEST

/* register(t0) input and register(u0) output: both binding 0 under glslang (the kernel read its own output
 * as input, silently); now one error naming both, and [[vk::binding]] separates them */
START_TEST(test_hlsl_register_classes_that_collide_are_an_error)
{
    static const char *colliding =
        "StructuredBuffer<uint> Input : register(t0);\n"
        "RWStructuredBuffer<uint> Output : register(u0);\n"
        "[numthreads(8, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { Output[gi] = Input[gi] * 3u; }\n";
    const char *err = refused(colliding);
    ck_assert_msg(strstr(err, "kernel.hlsl: error: `Output` and `Input` are both set 0 binding 0") ||
                  strstr(err, "kernel.hlsl: error: `Input` and `Output` are both set 0 binding 0"), "%s", err);
    static const char *bound =
        "[[vk::binding(0, 0)]] StructuredBuffer<uint> Input : register(t0);\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> Output : register(u0);\n"
        "[numthreads(8, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { Output[gi] = Input[gi] * 3u; }\n";
    isa_program *prog = build_hlsl(bound, NULL, 0);
    uint32_t in[8], out[8] = {0};
    for (uint32_t i = 0; i < 8; i++)
        in[i] = 10 + i;
    sim_result res;
    ck_assert_int_eq(run2(prog, 8, in, 8, out, 8, &res), SIM_OK);
    sim_result_free(&res);
    for (uint32_t i = 0; i < 8; i++)
        ck_assert_uint_eq(out[i], (10 + i) * 3u);
    isa_program_destroy(prog);
}
END_TEST

/* WaveActiveAllEqual(int2) is a bool2, component by component (HLSL); glslang 12 compared the whole vector */
START_TEST(test_hlsl_vector_wave_active_all_equal_is_per_component)
{
    static const char *src =
        "[[vk::binding(0, 0)]] StructuredBuffer<int2> Input;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint2> Output;\n"
        "[numthreads(8, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { bool2 e = WaveActiveAllEqual(Input[gi]); Output[gi] = uint2(e); }\n";
    char warnings[1024] = "";
    isa_program *prog = build_hlsl(src, warnings, sizeof warnings);
    ck_assert_msg(!strstr(warnings, "WaveActiveAllEqual"), "%s", warnings);
    for (int pattern = 0; pattern < 3; pattern++) {
        uint32_t in[16], out[16] = {0};
        for (uint32_t i = 0; i < 8; i++) {
            in[2 * i] = pattern == 1 ? i : 7;          /* x: equal except in pattern 1 */
            in[2 * i + 1] = pattern == 0 ? 100 + i : 5; /* y: equal except in pattern 0 */
        }
        sim_result res;
        ck_assert_int_eq(run2(prog, 8, in, 16, out, 16, &res), SIM_OK);
        sim_result_free(&res);
        for (uint32_t i = 0; i < 8; i++) {
            ck_assert_msg(out[2 * i] == (pattern == 1 ? 0u : 1u), "pattern %d lane %u x", pattern, i);
            ck_assert_msg(out[2 * i + 1] == (pattern == 0 ? 0u : 1u), "pattern %d lane %u y", pattern, i);
        }
    }
    isa_program_destroy(prog);
    /* converted before glslang splats it: not correctable on the words, so a warning says so */
    static const char *direct =
        "[[vk::binding(0, 0)]] StructuredBuffer<int2> Input;\n"
        "[[vk::binding(1, 0)]] RWStructuredBuffer<uint2> Output;\n"
        "[numthreads(8, 1, 1)]\n"
        "void main(uint gi : SV_GroupIndex) { Output[gi] = uint2(WaveActiveAllEqual(Input[gi])); }\n";
    warnings[0] = 0;
    prog = build_hlsl(direct, warnings, sizeof warnings);
    ck_assert_msg(strstr(warnings, "warning: WaveActiveAllEqual of a 2-component vector"), "%s", warnings);
    isa_program_destroy(prog);
}
END_TEST

/* The derivative group execution mode of the first entry point: 5289 quads, 5290 linear, 0 none. */
static uint32_t derivative_mode(const uint32_t *w, size_t n)
{
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, w, n, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST)
        if (in.op == SpvOpExecutionMode && in.no >= 2 &&
            (in.o[1] == SpvExecutionModeDerivativeGroupQuadsNV || in.o[1] == SpvExecutionModeDerivativeGroupLinearNV))
            return in.o[1];
    return 0;
}

/* Derivatives and implicit-LOD sampling in compute (Shader Model 6.6): glslang 12 adds no derivative group mode,
 * so wavelab adds DXC's (SpirvEmitter::addDerivativeGroupExecutionMode): linear when numthreads X is a multiple
 * of 4 and Y, Z are 1, else quads (X and Y even); anything else is refused as DXC refuses it.  Without a mode
 * glslang wrote Sample as a sample at level 0 and SampleBias as invalid SPIR-V. */
START_TEST(test_hlsl_derivatives_take_dxc_derivative_group)
{
    static const struct {
        const char *threads;
        uint32_t mode;
    } cases[] = {{"64, 1, 1", SpvExecutionModeDerivativeGroupLinearNV},
                 {"4, 1, 1", SpvExecutionModeDerivativeGroupLinearNV},
                 {"8, 8, 1", SpvExecutionModeDerivativeGroupQuadsNV},
                 {"4, 2, 1", SpvExecutionModeDerivativeGroupQuadsNV},
                 {"2, 10, 1", SpvExecutionModeDerivativeGroupQuadsNV},
                 {"4, 1, 2", 0}, {"3, 1, 1", 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char src[1024];
        snprintf(src, sizeof src,
                 "[[vk::binding(0)]] Texture2D<float4> t;\n[[vk::binding(1)]] SamplerState s;\n"
                 "[[vk::binding(2)]] RWStructuredBuffer<float4> o;\n"
                 "[numthreads(%s)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n"
                 "    float2 uv = float2(id.xy) / 8.0;\n"
                 "    o[id.x] = t.Sample(s, uv) + t.SampleBias(s, uv, 1.0) + ddx_fine(uv.x);\n}\n",
                 cases[k].threads);
        if (!cases[k].mode) {
            const char *err = refused(src);
            ck_assert_msg(strstr(err, "derivatives") && strstr(err, "numthreads"), "%s", err);
            continue;
        }
        char err[4096] = "";
        uint32_t *w = NULL;
        size_t n = 0;
        ck_assert_msg(compile_only(src, err, sizeof err, &w, &n) == ISA_OK, "numthreads(%s): %s", cases[k].threads,
                      err);
        ck_assert_uint_eq(derivative_mode(w, n), cases[k].mode);
        ck_assert(has_opcode(w, n, SpvOpImageSampleImplicitLod));
        ck_assert(!has_opcode(w, n, SpvOpImageSampleExplicitLod));
        free(w);
    }
    /* a kernel without derivatives gets no mode */
    uint32_t *w = NULL;
    size_t n = 0;
    char err[1024] = "";
    ck_assert_int_eq(compile_only("RWStructuredBuffer<float> o : register(u0);\n[numthreads(3, 1, 1)]\n"
                                  "void main(uint3 id : SV_DispatchThreadID) { o[id.x] = 1.0; }\n",
                                  err, sizeof err, &w, &n), ISA_OK);
    ck_assert_uint_eq(derivative_mode(w, n), 0);
    free(w);
}
END_TEST

static Suite *hlsl_suite(void)
{
    Suite *s = suite_create("hlsl");
    TCase *t = tcase_create("wave");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_hlsl_wave_intrinsics_all_lanes_match_hlsl);
    tcase_add_test(t, test_hlsl_wave_intrinsics_odd_lanes_match_hlsl);
    tcase_add_test(t, test_hlsl_quad_reads_match_hlsl_quad_layout);
    tcase_add_test(t, test_hlsl_ternary_wave_op_sees_only_lanes_of_its_arm);
    tcase_add_test(t, test_hlsl_guarded_buffer_reads_stay_in_bounds);
    tcase_add_test(t, test_hlsl_dxc_sized_type_names_compile_and_compute);
    tcase_add_test(t, test_hlsl_dxc_int64_t_is_a_clear_error);
    tcase_add_test(t, test_hlsl_register_classes_that_collide_are_an_error);
    tcase_add_test(t, test_hlsl_resources_without_register_take_free_bindings_in_declaration_order);
    tcase_add_test(t, test_hlsl_quad_any_and_quad_all_over_each_quad);
    tcase_add_test(t, test_hlsl_unsigned_int_and_dxc_names_in_headers);
    tcase_add_test(t, test_hlsl_wave_intrinsics_on_64_and_16_bit_integers);
    tcase_add_test(t, test_hlsl_constant_buffer_argument);
    tcase_add_test(t, test_hlsl_group_wave_count_and_index);
    tcase_add_test(t, test_hlsl_all_any_of_vector_wave_active_all_equal);
    tcase_add_test(t, test_hlsl_all_any_of_matrix_wave_active_all_equal);
    tcase_add_test(t, test_hlsl_implicit_conversion_to_half_is_a_clear_error);
    tcase_add_test(t, test_hlsl_vector_wave_active_all_equal_is_per_component);
    tcase_add_test(t, test_hlsl_glslang_rejects_wave_match_and_multiprefix);
    tcase_add_test(t, test_hlsl_glslang_read_lane_at_is_a_shuffle_so_nonuniform_index_works_per_lane);
    tcase_add_test(t, test_hlsl_uint64_wave_sum_is_an_integer_add);
    tcase_add_test(t, test_hlsl_derivatives_take_dxc_derivative_group);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return tsup_run_suite(hlsl_suite(), "test_hlsl"); }
