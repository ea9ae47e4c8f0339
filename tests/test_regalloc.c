/*
 * tests/test_regalloc.c — register allocation (isa/regalloc.c): the
 * verifier (isa/liveness.c) on every kernel case in kernels/, the allocated
 * program computing what the virtual one computes, the counts of a kernel
 * worked out by hand, and the occupancy formula against hand arithmetic.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/case.h"
#include "isa/isa.h"
#include "run/run.h"
#include "tests/support/tsup.h"

/* Every kernels/<dir>/<case>.json: lower without allocation, allocate a copy, verify. */
START_TEST(test_regalloc_verifier_accepts_every_kernel_case)
{
    char root[1024];
    snprintf(root, sizeof root, "%s/kernels", tsup_root());
    DIR *top = opendir(root);
    ck_assert_msg(top != NULL, "cannot open %s", root);
    int checked = 0;
    struct dirent *de;
    while ((de = readdir(top))) {
        if (de->d_name[0] == '.')
            continue;
        char dir[1400];
        snprintf(dir, sizeof dir, "%s/%s", root, de->d_name);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        struct dirent *fe;
        while ((fe = readdir(d))) {
            size_t n = strlen(fe->d_name);
            if (n < 6 || strcmp(fe->d_name + n - 5, ".json"))
                continue;
            char path[1800], err[8192];
            snprintf(path, sizeof path, "%s/%s", dir, fe->d_name);
            wl_case *c = NULL;
            ck_assert_msg(case_load(path, &c, err, sizeof err) == CASE_OK, "%s", err);
            uint32_t *words = NULL;
            size_t nw = 0;
            char warn[4096];
            ck_assert_msg(run_compile_case(c, &words, &nw, err, sizeof err, warn, sizeof warn) == ISA_OK, "%s", err);
            isa_program *v = NULL;
            ck_assert_msg(isa_lower_virtual(words, nw, c->entry, &v, err, sizeof err) == ISA_OK, "%s: %s", path, err);
            isa_program *a = isa_program_clone(v);
            ck_assert(a != NULL);
            ck_assert_int_eq(isa_allocate_registers(a), ISA_OK);
            ck_assert_msg(isa_verify_allocation(a, v, err, sizeof err), "%s: %s", path, err);
            ck_assert_uint_le(a->reg_count, v->reg_count);
            ck_assert_uint_ge(a->res.vgprs, 1);
            checked++;
            isa_program_destroy(a);
            isa_program_destroy(v);
            free(words);
            case_destroy(c);
        }
        closedir(d);
    }
    closedir(top);
    ck_assert_int_ge(checked, 40);
}
END_TEST

/* The verifier notices two live values forced into one register. */
START_TEST(test_regalloc_verifier_rejects_a_shared_live_register)
{
    const char *src = "#version 450\nlayout(local_size_x = 64) in;\n"
                      "layout(set = 0, binding = 0) buffer B { uint o[]; };\n"
                      "void main() { uint i = gl_LocalInvocationIndex; uint a = i * 3u; uint b = i + 5u;"
                      " o[i] = a * b; }\n";
    isa_compile_options o = {.path = "t.comp", .source = src};
    uint32_t *words = NULL;
    size_t n = 0;
    char err[4096];
    ck_assert_int_eq(isa_compile(&o, &words, &n, err, sizeof err, NULL, 0), ISA_OK);
    isa_program *v = NULL;
    ck_assert_int_eq(isa_lower_virtual(words, n, NULL, &v, err, sizeof err), ISA_OK);
    isa_program *a = isa_program_clone(v);
    ck_assert_int_eq(isa_allocate_registers(a), ISA_OK);
    ck_assert(isa_verify_allocation(a, v, err, sizeof err));
    /* the final multiply reads two values; give the second the first's register */
    uint32_t add = ISA_NO_REG;
    for (uint32_t i = 0; i < a->code_count; i++)
        if (a->code[i].op == ISA_OP_IMUL && a->code[i].type == ISA_TYPE_U32 && a->code[i].a != a->code[i].b &&
            a->reg_file[a->code[i].a] == ISA_FILE_VGPR && a->reg_file[a->code[i].b] == ISA_FILE_VGPR)
            add = i;
    ck_assert(add != ISA_NO_REG);
    uint32_t first = a->code[add].a, second = a->code[add].b;
    uint32_t def = ISA_NO_REG;
    for (uint32_t i = 0; i < add; i++)
        if (a->code[i].d == second)
            def = i;
    ck_assert(def != ISA_NO_REG);
    a->code[def].d = first;
    a->code[add].b = first;
    ck_assert(!isa_verify_allocation(a, v, err, sizeof err));
    ck_assert_msg(strstr(err, "both live") != NULL || strstr(err, "renamed both") != NULL, "%s", err);
    isa_program_destroy(a);
    isa_program_destroy(v);
    free(words);
}
END_TEST

/* Four per-lane f32 accumulators live together across a uniform loop, plus the
 * lane index and the 64-bit address: counted by hand. */
START_TEST(test_regalloc_counts_a_kernel_by_hand)
{
    isa_program *p = NULL;
    char msg[4096];
    const char *src = "#version 450\nlayout(local_size_x = 64) in;\n"
                      "layout(set = 0, binding = 0) buffer B { vec4 o[]; };\n"
                      "layout(set = 0, binding = 1) readonly buffer N { uint n; };\n"
                      "void main() { vec4 acc = vec4(0.0); float x = float(gl_LocalInvocationIndex);"
                      " for (uint i = 0u; i < n; ++i) acc += vec4(x, x * 2.0, x * 3.0, x * 4.0);"
                      " o[gl_LocalInvocationIndex] = acc; }\n";
    ck_assert_int_eq(tsup_build(src, "t.comp", "glsl", NULL, &p, msg, sizeof msg, NULL, 0), ISA_OK);
    /* live in the loop: acc (4 VGPRs), x (1), the lane index (1, read after the loop),
     * and in the body up to 4 new sums or products: the peak stays within 4 + 2 + 4, plus the 64-bit store address (2) */
    ck_assert_uint_ge(p->res.vgprs, 6);
    ck_assert_uint_le(p->res.vgprs, 12);
    /* scalar: n, i, i + 1 and the compare: a handful of SGPRs */
    ck_assert_uint_ge(p->res.sgprs, 2);
    ck_assert_uint_le(p->res.sgprs, 6);
    for (uint32_t i = 0; i < p->code_count; i++) {
        ck_assert_uint_le(p->live_vgprs[i], p->res.vgprs);
        ck_assert_uint_le(p->live_sgprs[i], p->res.sgprs);
    }
    isa_program_destroy(p);
}
END_TEST

/* A GCN-like SIMD: 256 VGPRs per lane (granule 4), 800 SGPRs (granule 16),
 * 64 KiB LDS per CU, 10 waves per SIMD, 4 SIMDs, 40 workgroups per CU. */
static const isa_machine_limits gcn = {
    .vgprs_per_simd_lane = 256, .vgpr_granule = 4, .max_vgprs_per_wave = 256, .sgprs_per_simd = 800,
    .sgpr_granule = 16, .max_sgprs_per_wave = 102, .lds_bytes_per_cu = 65536, .max_waves_per_simd = 10,
    .simds_per_cu = 4, .max_workgroups_per_cu = 40,
};

START_TEST(test_regalloc_occupancy_matches_the_formula_by_hand)
{
    /* 81 VGPRs -> 84 allocated -> 256/84 = 3 waves (the article's fp32 kernel) */
    isa_occupancy o = isa_compute_occupancy(&gcn, 81, 20, 0, 1);
    ck_assert_uint_eq(o.vgprs_allocated, 84);
    ck_assert_uint_eq(o.by_vgprs, 3);
    ck_assert_uint_eq(o.waves_per_simd, 3);
    ck_assert_int_eq(o.limiter, ISA_LIMIT_VGPRS);
    /* 108 VGPRs -> 108 -> 256/108 = 2 waves (the fp16 kernel) */
    o = isa_compute_occupancy(&gcn, 108, 20, 0, 1);
    ck_assert_uint_eq(o.waves_per_simd, 2);
    /* 24 VGPRs -> 10 by VGPRs; 90 SGPRs -> 96 -> 800/96 = 8: SGPRs limit */
    o = isa_compute_occupancy(&gcn, 24, 90, 0, 1);
    ck_assert_uint_eq(o.by_vgprs, 10);
    ck_assert_uint_eq(o.sgprs_allocated, 96);
    ck_assert_uint_eq(o.by_sgprs, 8);
    ck_assert_uint_eq(o.waves_per_simd, 8);
    ck_assert_int_eq(o.limiter, ISA_LIMIT_SGPRS);
    /* 2 KiB... 20 KiB of LDS per workgroup of 4 waves: 65536/20480 = 3 workgroups = 12 waves over 4 SIMDs = 3 */
    o = isa_compute_occupancy(&gcn, 16, 16, 20480, 4);
    ck_assert_uint_eq(o.by_lds, 3);
    ck_assert_uint_eq(o.waves_per_simd, 3);
    ck_assert_int_eq(o.limiter, ISA_LIMIT_LDS);
    ck_assert_uint_eq(o.workgroups_per_cu, 3);
    /* 48 KiB of LDS per one-wave workgroup: one workgroup per CU, its one wave on one of the 4 SIMDs.  The
     * busiest SIMD holds 1 wave (ACO's rounding up), not 1/4 rounded down to "does not fit" */
    o = isa_compute_occupancy(&gcn, 8, 8, 49152, 1);
    ck_assert_uint_eq(o.workgroups_per_cu, 1);
    ck_assert_uint_eq(o.waves_per_simd, 1);
    ck_assert_uint_eq(o.by_lds, 1);
    ck_assert_int_eq(o.limiter, ISA_LIMIT_LDS);
    /* 20 KiB per two-wave workgroup: 3 workgroups = 6 waves over 4 SIMDs, 2 on the busiest; the workgroup
     * count is LDS's 3, not the 4 that 2 waves on every SIMD would hold */
    o = isa_compute_occupancy(&gcn, 8, 8, 20480, 2);
    ck_assert_uint_eq(o.workgroups_per_cu, 3);
    ck_assert_uint_eq(o.waves_per_simd, 2);
    ck_assert_int_eq(o.limiter, ISA_LIMIT_LDS);
    /* small everything: the hardware maximum */
    o = isa_compute_occupancy(&gcn, 8, 8, 0, 1);
    ck_assert_uint_eq(o.waves_per_simd, 10);
    ck_assert_int_eq(o.limiter, ISA_LIMIT_WAVES);
    /* more LDS than the CU has: does not fit */
    o = isa_compute_occupancy(&gcn, 8, 8, 70000, 1);
    ck_assert_uint_eq(o.waves_per_simd, 0);
    ck_assert_int_eq(o.limiter, ISA_LIMIT_LDS);
}
END_TEST

/* RADV's "Subgroups per SIMD" (Mesa 22.3 radv_get_max_waves) from the same counts, worked by hand from the
 * presets' numbers: rdna2 (navi21, GFX10.3) has 1024 VGPRs per lane at wave32 = 512 at wave64, 16 waves,
 * 2 SIMDs and 64 KiB of LDS per CU; rdna3 (gfx1100) 1536 at wave32 = 768 at wave64. */
START_TEST(test_regalloc_radv_units_by_hand)
{
    static const isa_machine_limits rdna2 = {.vgprs_per_simd_lane = 1024, .sgprs_per_simd = 1696,
                                             .lds_bytes_per_cu = 65536, .max_waves_per_simd = 16, .simds_per_cu = 2};
    static const isa_machine_limits rdna3 = {.vgprs_per_simd_lane = 1536, .sgprs_per_simd = 1696,
                                             .lds_bytes_per_cu = 65536, .max_waves_per_simd = 16, .simds_per_cu = 2};
    /* navi21 wave32, 40 VGPRs: granule 512/64 * 2 = 16, 40 -> 48; 16 * 2 = 32 slots; 1024 / 48 = 21 waves;
     * wave32 counts once: 21 */
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&rdna2, 32, 103, 40, 10, 0, 64, 32), 21);
    /* navi21 wave64, 40 VGPRs: granule 8, 40; 16 slots; 512 / 40 = 12 waves; a wave64 counts twice: 24 */
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&rdna2, 32, 103, 40, 10, 0, 64, 64), 24);
    /* a light kernel: 32 at either wave (the hardware's 16 in wave32 slots, twice) */
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&rdna2, 32, 103, 4, 4, 0, 64, 32), 32);
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&rdna2, 32, 103, 4, 4, 0, 64, 64), 32);
    /* navi21 wave32, 20 KiB of LDS per 256-invocation workgroup: 8 waves share 20480 / 8 = 2560 bytes each; a
     * SIMD's share is 65536 / 2 = 32768 bytes; ceil(32768 / 2560) = 13 -- no workgroup rounding, no cap */
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&rdna2, 32, 103, 8, 4, 20480, 256, 32), 13);
    /* navi21 rounds LDS to 1 KiB: 1 byte per one-wave group is 1024 bytes a wave, ceil(32768 / 1024) = 32 */
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&rdna2, 32, 103, 8, 4, 1, 32, 32), 32);
    /* gfx1100 wave32, 50 VGPRs: granule 768/64 * 2 = 24, 50 -> 72; 1536 / 72 = 21 */
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&rdna3, 32, 110, 50, 4, 0, 64, 32), 21);
    /* vega10 (GFX9) on the GCN limits above: 48 KiB of LDS for one wave64 workgroup: a SIMD's share 16384,
     * ceil(16384 / 49152) = 1 (RADV rounds up, as ACO does) */
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&gcn, 64, 90, 8, 16, 49152, 64, 64), 1);
    /* vega10: SGPRs limit before GFX10: 90 + VCC's 2 -> 96, 800 / 96 = 8 (24 VGPRs alone would allow 10);
     * 94 + 2 = 96 still 8, 95 + 2 -> 112, 800 / 112 = 7 */
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&gcn, 64, 90, 24, 90, 0, 64, 64), 8);
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&gcn, 64, 90, 24, 94, 0, 64, 64), 8);
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&gcn, 64, 90, 24, 95, 0, 64, 64), 7);
    /* vega10: 2 KiB of LDS per workgroup of 4 waves is 512 bytes a wave: ceil(16384 / 512) = 32, the 10 slots
     * bind, where isa_compute_occupancy's 40 workgroups per CU cap and whole-workgroup rule would too */
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&gcn, 64, 90, 8, 16, 2048, 256, 64), 10);
    /* no wave32 on GCN's formula's terms: a wave size the statistic does not know is 0 */
    ck_assert_uint_eq(isa_radv_subgroups_per_simd(&gcn, 64, 90, 8, 16, 0, 64, 16), 0);
}
END_TEST

static isa_program *allocated_program_of(const char *case_path, run_output *out, wl_case **c)
{
    char path[4096], err[4096];
    snprintf(path, sizeof path, "%s/%s", tsup_root(), case_path);
    ck_assert_msg(case_load(path, c, err, sizeof err) == CASE_OK, "%s", err);
    run_options opt = {.wave_size = 32};
    ck_assert_msg(run_case_sim(*c, &opt, out, err, sizeof err) == RUN_EXIT_OK, "%s", err);
    return out->prog;
}

/* The SGPRs with RADV's compute ABI, worked by hand from the kernels' declarations (isa.h has the rule). */
START_TEST(test_regalloc_radv_abi_sgprs_by_hand)
{
    run_output out;
    wl_case *c = NULL;
    /* article 000's naive kernel: one set (texel buffer + 2 storage buffers), workgroup IDs x and y read.
     * At the start 2 ring + 1 set + 2 IDs + 1 scratch = 6; in the body its values + 2 (the set's 64-bit
     * pointer) + 4 (a buffer descriptor) */
    isa_program *p = allocated_program_of("kernels/000_uniform_load/uniform_load_naive.json", &out, &c);
    uint32_t body = p->res.sgprs + 2 + 4;
    ck_assert_uint_eq(isa_radv_abi_sgprs(p), body > 6 ? body : 6);
    run_output_free(&out);
    case_destroy(c);
    /* a combined image sampler and two buffers in set 0: the body holds the 8-word image and 4-word sampler
     * descriptors together: values + 2 + 12 */
    p = allocated_program_of("kernels/images/sampling_linear_repeat.json", &out, &c);
    ck_assert_uint_eq(isa_radv_abi_sgprs(p), p->res.sgprs + 2 + 12);
    run_output_free(&out);
    case_destroy(c);
}
END_TEST

/* `wavelab run` prints the allocation's peak VGPRs and SGPRs, the counts `disasm` prints, not the size of the
 * executor's register storage. */
START_TEST(test_regalloc_run_and_disasm_print_the_same_register_counts)
{
    char path[4096], err[4096], args[8192], want[256];
    snprintf(path, sizeof path, "%s/kernels/003_wave_tricks/prefix_sum_writes_wave.json", tsup_root());
    wl_case *c = NULL;
    ck_assert_msg(case_load(path, &c, err, sizeof err) == CASE_OK, "%s", err);
    run_options opt = {.wave_size = 32};
    run_output out;
    ck_assert_msg(run_case_sim(c, &opt, &out, err, sizeof err) == RUN_EXIT_OK, "%s", err);
    ck_assert_uint_gt(out.prog->res.vgprs, 0);
    char *text = NULL;
    snprintf(args, sizeof args, "run '%s' --wave 32", path);
    ck_assert_int_eq(tsup_run_cli(args, &text), 0);
    snprintf(want, sizeof want, "  program      %u instructions, %u VGPRs + %u SGPRs, ", out.prog->code_count,
             out.prog->res.vgprs, out.prog->res.sgprs);
    ck_assert_msg(strstr(text, want), "expected \"%s\" in:\n%s", want, text);
    free(text);
    snprintf(args, sizeof args, "disasm '%s' --wave 32", path);
    ck_assert_int_eq(tsup_run_cli(args, &text), 0);
    snprintf(want, sizeof want, "; registers: peak %u VGPRs (", out.prog->res.vgprs);
    ck_assert_msg(strstr(text, want), "expected \"%s\" in:\n%.600s", want, text);
    snprintf(want, sizeof want, " unpacked), %u SGPRs, ", out.prog->res.sgprs);
    ck_assert_msg(strstr(text, want), "expected \"%s\" in:\n%.600s", want, text);
    free(text);
    run_output_free(&out);
    case_destroy(c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("regalloc");
    TCase *tc = tcase_create("regalloc");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_regalloc_verifier_accepts_every_kernel_case);
    tcase_add_test(tc, test_regalloc_verifier_rejects_a_shared_live_register);
    tcase_add_test(tc, test_regalloc_counts_a_kernel_by_hand);
    tcase_add_test(tc, test_regalloc_occupancy_matches_the_formula_by_hand);
    tcase_add_test(tc, test_regalloc_radv_units_by_hand);
    tcase_add_test(tc, test_regalloc_radv_abi_sgprs_by_hand);
    tcase_add_test(tc, test_regalloc_run_and_disasm_print_the_same_register_counts);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
