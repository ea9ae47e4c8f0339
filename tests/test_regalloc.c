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
            isa_array_length lengths[64];
            ck_assert_int_le(c->binding_count, 64);
            isa_spec spec;
            case_isa_spec(c, lengths, &spec); /* the case's specialization and runtime array lengths */
            ck_assert_msg(isa_lower_virtual(words, nw, c->entry, &spec, &v, err, sizeof err) == ISA_OK, "%s: %s",
                          path, err);
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
    ck_assert_int_eq(isa_lower_virtual(words, n, NULL, NULL, &v, err, sizeof err), ISA_OK);
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

/* ---- uniform values in divergent control flow (issue 27) ---- */

/* Lowers `src` without allocation, allocates a copy and verifies it; *virt and the returned allocated program
 * are the caller's. */
static isa_program *verified_pair(const char *src, isa_program **virt)
{
    isa_compile_options o = {.path = "t.comp", .source = src};
    uint32_t *words = NULL;
    size_t n = 0;
    char err[4096];
    ck_assert_msg(isa_compile(&o, &words, &n, err, sizeof err, NULL, 0) == ISA_OK, "%s", err);
    ck_assert_msg(isa_lower_virtual(words, n, NULL, NULL, virt, err, sizeof err) == ISA_OK, "%s", err);
    free(words);
    isa_program *a = isa_program_clone(*virt);
    ck_assert(a != NULL);
    ck_assert_int_eq(isa_allocate_registers(a), ISA_OK);
    ck_assert_msg(isa_verify_allocation(a, *virt, err, sizeof err), "%s", err);
    return a;
}

/* Runs kernel `src` with case fields `bindings` (a JSON array) and `expect` at waves 8 and 32: exit 0. */
static void run_expecting(const char *src, const char *bindings, const char *expect)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "k.comp", src));
    char text[8192], args[4096];
    snprintf(text, sizeof text, "{\"kernel\": \"k.comp\", \"bindings\": %s, \"expect\": %s}\n", bindings, expect);
    free(tsup_write_file(dir, "c.json", text));
    for (int w = 8; w <= 32; w *= 4) {
        char *out = NULL;
        snprintf(args, sizeof args, "run '%s/c.json' --wave %d", dir, w);
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == 0, "wave %d: rc %d: %s", w, rc, out ? out : "");
        free(out);
    }
    tsup_remove_dir(dir);
    free(dir);
}

/* A load of a read-only block at a uniform address inside an `if` on the lane index is a scalar load into
 * SGPRs, as ACO emits s_buffer_load there (kernels/matrix/matrix_layouts.comp's `if (i == 0u)`): by hand, the
 * four loads k[0..3] are smem and the three adds of their values salu, all in the divergent block; the phi of r
 * at the merge (lane 0's sum, the others' index) stays per-lane. */
static const char uniform_load_src[] =
    "#version 450\nlayout(local_size_x = 8) in;\n"
    "layout(set = 0, binding = 0) readonly buffer In { uint k[4]; };\n"
    "layout(set = 0, binding = 1) buffer Out { uint o[]; };\n"
    "void main() { uint i = gl_LocalInvocationIndex; uint r = i;"
    " if (i == 0u) r = k[0] + k[1] + k[2] + k[3]; o[i] = r; }\n";

START_TEST(test_regalloc_uniform_load_in_divergent_if_is_scalar)
{
    isa_program *v = NULL, *a = verified_pair(uniform_load_src, &v);
    int smem = 0, salu_adds = 0, vmem_loads = 0;
    for (uint32_t i = 0; i < a->code_count; i++) {
        const isa_inst *in = &a->code[i];
        if (in->op == ISA_OP_LOAD && in->cls == ISA_CLASS_SMEM && (in->flags & ISA_INST_DIVERGENT)) {
            ck_assert_int_eq(a->reg_file[in->d], ISA_FILE_SGPR);
            smem++;
        }
        vmem_loads += in->op == ISA_OP_LOAD && in->cls == ISA_CLASS_VMEM;
        if (in->op == ISA_OP_IADD && in->cls == ISA_CLASS_SALU && (in->flags & ISA_INST_DIVERGENT))
            salu_adds++;
        if (in->op == ISA_OP_STORE) /* r: lane 0's sum, the other lanes' own index */
            ck_assert_int_eq(a->reg_file[in->b], ISA_FILE_VGPR);
    }
    ck_assert_int_eq(smem, 4);
    ck_assert_int_eq(salu_adds, 3);
    ck_assert_int_eq(vmem_loads, 0);
    isa_program_destroy(a);
    isa_program_destroy(v);
    /* 5 + 7 + 11 + 13 = 36 in lane 0 */
    run_expecting(uniform_load_src,
                  "[{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"data\": [5, 7, 11, 13]},"
                  " {\"set\": 0, \"binding\": 1, \"type\": \"u32\", \"count\": 8}]",
                  "[{\"set\": 0, \"binding\": 1, \"data\": [36, 1, 2, 3, 4, 5, 6, 7]}]");
}
END_TEST

/* a = 3n is uniform and needed in the else; the then computes 7n + m and its square, uniform, in SGPRs while
 * the else's lanes wait: a keeps its register across the then (the scalar writes there reach the waiting
 * lanes).  Forcing the then's value into a's register must be refused by the verifier, which per-lane
 * liveness alone accepts (a is dead for the lanes that run the then). */
static const char else_src[] =
    "#version 450\nlayout(local_size_x = 8) in;\n"
    "layout(set = 0, binding = 0) readonly buffer In { uint n; uint m; uint data[]; };\n"
    "layout(set = 0, binding = 1) buffer Out { uint o[]; };\n"
    "void main() { uint i = gl_LocalInvocationIndex; uint a = n * 3u; uint r;"
    " if (data[i] > 5u) { uint b = n * 7u + m; r = b * b + i; } else { r = a + i; } o[i] = r; }\n";

START_TEST(test_regalloc_value_live_into_else_keeps_its_sgpr)
{
    isa_program *v = NULL, *a = verified_pair(else_src, &v);
    uint32_t times3 = ISA_NO_REG, times7 = ISA_NO_REG, then_block = ISA_NO_BLOCK;
    for (uint32_t i = 0; i < a->code_count; i++) {
        const isa_inst *in = &a->code[i];
        if (in->op != ISA_OP_IMUL || in->type != ISA_TYPE_U32 || in->cls != ISA_CLASS_SALU)
            continue;
        if (in->flags & ISA_INST_DIVERGENT)
            times7 = i;
        else if (a->reg_file[in->a] == ISA_FILE_SGPR || a->reg_file[in->b] == ISA_FILE_SGPR)
            times3 = times3 == ISA_NO_REG ? i : times3;
    }
    ck_assert_msg(times7 != ISA_NO_REG, "n * 7 in the divergent then is not scalar");
    ck_assert(times3 != ISA_NO_REG);
    for (uint32_t b = 0; b < a->block_count; b++)
        if (times7 >= a->blocks[b].start_pc && times7 < a->blocks[b].end_pc)
            then_block = b;
    ck_assert(then_block != ISA_NO_BLOCK);
    uint32_t pa = a->code[times3].d, pt = a->code[times7].d;
    ck_assert_int_eq(a->reg_file[pa], ISA_FILE_SGPR);
    ck_assert_int_eq(a->reg_file[pt], ISA_FILE_SGPR);
    ck_assert_uint_ne(pa, pt);
    /* 7n and what shares its register after it in the then move into a's */
    for (uint32_t i = times7; i < a->blocks[then_block].end_pc; i++) {
        isa_inst *in = &a->code[i];
        unsigned f = isa_inst_reg_fields(in, i > times7, 1, 1);
        uint32_t *fields[5] = {&in->d, &in->a, &in->b, &in->c, &in->e};
        for (int k = 0; k < 5; k++)
            if ((f >> k) & 1 && *fields[k] == pt)
                *fields[k] = pa;
    }
    char err[4096];
    ck_assert(!isa_verify_allocation(a, v, err, sizeof err));
    ck_assert_msg(strstr(err, "lanes waiting"), "%s", err);
    isa_program_destroy(a);
    isa_program_destroy(v);
    /* n = 4, m = 1: b = 29, b * b = 841; a = 12; data[i] > 5 in lanes 1, 2, 5 */
    run_expecting(else_src,
                  "[{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"data\": [4, 1, 0, 9, 6, 2, 5, 7, 3, 1]},"
                  " {\"set\": 0, \"binding\": 1, \"type\": \"u32\", \"count\": 8}]",
                  "[{\"set\": 0, \"binding\": 1, \"data\": [12, 842, 843, 15, 16, 846, 18, 19]}]");
}
END_TEST

/* A loop the lanes leave at different iterations (a break on the lane index): j and data[j] * 3 are uniform
 * among the lanes still in it (scalar), but t, read after the loop, is each lane's value of the iteration it
 * left at: per-lane.  data = 3, 0, 2, 1: lanes i % 4 == 3 leave at j = 0 (t = 3 * 3 + 1 = 10), 0 at j = 1
 * (t = 1), 2 at j = 2 (t = 7), 1 at j = 3 (t = 4). */
static const char loop_src[] =
    "#version 450\nlayout(local_size_x = 8) in;\n"
    "layout(set = 0, binding = 0) readonly buffer In { uint n; uint data[]; };\n"
    "layout(set = 0, binding = 1) buffer Out { uint o[]; };\n"
    "void main() { uint i = gl_LocalInvocationIndex; uint j = 0u; uint t;"
    " while (true) { t = data[j] * 3u + 1u; if (data[j] == i % 4u || j >= n) break; j++; }"
    " o[i] = t; }\n";

START_TEST(test_regalloc_value_after_divergent_loop_stays_per_lane)
{
    isa_program *v = NULL, *a = verified_pair(loop_src, &v);
    int scalar_in_loop = 0, stores = 0;
    for (uint32_t i = 0; i < a->code_count; i++) {
        const isa_inst *in = &a->code[i];
        if (in->op == ISA_OP_IMUL && in->cls == ISA_CLASS_SALU && (in->flags & ISA_INST_DIVERGENT))
            scalar_in_loop++;
        if (in->op == ISA_OP_STORE) {
            ck_assert_msg(a->reg_file[in->b] == ISA_FILE_VGPR, "t after the loop is not per-lane");
            stores++;
        }
    }
    ck_assert_int_ge(scalar_in_loop, 1);
    ck_assert_int_eq(stores, 1);
    isa_program_destroy(a);
    isa_program_destroy(v);
    run_expecting(loop_src,
                  "[{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"data\": [8, 3, 0, 2, 1, 5, 5, 5, 5, 5]},"
                  " {\"set\": 0, \"binding\": 1, \"type\": \"u32\", \"count\": 8}]",
                  "[{\"set\": 0, \"binding\": 1, \"data\": [1, 4, 7, 10, 1, 4, 7, 10]}]");
}
END_TEST

/* Per-lane liveness (docs/registers.md, allocation step 5): y is read only in the else, so the lanes that run
 * the then never need it there.  By hand: at the then's x * 11, i (for the store), x, a = x * 7 and b are
 * live: 4 VGPRs, where linear intervals also counted y (5); the peak is 4 (also at y's load: i, its address,
 * x, y).  data = 1..8 then 10, 20, ..., 80: lanes with x > 5 (x = 6, 7, 8) give 7x ^ 11x, the others y + x. */
static const char else_vgpr_src[] =
    "#version 450\nlayout(local_size_x = 8) in;\n"
    "layout(set = 0, binding = 0) readonly buffer In { uint data[]; };\n"
    "layout(set = 0, binding = 1) buffer Out { uint o[]; };\n"
    "void main() { uint i = gl_LocalInvocationIndex; uint x = data[i]; uint y = data[i + 8u]; uint r;"
    " if (x > 5u) { uint a = x * 7u; uint b = x * 11u; r = a ^ b; } else { r = y + x; } o[i] = r; }\n";

START_TEST(test_regalloc_else_value_is_not_live_in_the_then)
{
    isa_program *v = NULL, *a = verified_pair(else_vgpr_src, &v);
    uint32_t times11 = ISA_NO_REG;
    for (uint32_t i = 0; i < a->code_count; i++)
        if (a->code[i].op == ISA_OP_IMUL && (a->code[i].flags & ISA_INST_DIVERGENT))
            times11 = i; /* the last multiply in divergent code: x * 11 */
    ck_assert(times11 != ISA_NO_REG);
    ck_assert_uint_eq(a->live_vgprs[times11], 4);
    ck_assert_uint_eq(a->res.vgprs, 4);
    isa_program_destroy(a);
    isa_program_destroy(v);
    /* 7 * 6 ^ 11 * 6 = 42 ^ 66 = 104; 49 ^ 77 = 124; 56 ^ 88 = 96 */
    run_expecting(else_vgpr_src,
                  "[{\"set\": 0, \"binding\": 0, \"type\": \"u32\","
                  " \"data\": [1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 30, 40, 50, 60, 70, 80]},"
                  " {\"set\": 0, \"binding\": 1, \"type\": \"u32\", \"count\": 8}]",
                  "[{\"set\": 0, \"binding\": 1, \"data\": [11, 22, 33, 44, 55, 104, 124, 96]}]");
}
END_TEST

/* A do-while left at its latch: the lanes that leave read prev, the header's phi of cur, after the loop, while
 * the back edge's copy writes that phi for the lanes that stay.  The copy is on a conditional edge, so it must
 * not end the phi's value for the leaving lanes (isa_lane_liveness): their prev has to survive the latch's own
 * values.  The expected outputs are computed here by the same loop in C. */
static const char latch_src[] =
    "#version 450\nlayout(local_size_x = 8) in;\n"
    "layout(set = 0, binding = 0) readonly buffer In { uint data[]; };\n"
    "layout(set = 0, binding = 1) buffer Out { uint o[]; };\n"
    "void main() { uint i = gl_LocalInvocationIndex; uint prev; uint cur = i;"
    " do { prev = cur; uint t = data[cur % 8u] * 3u; cur = t + prev + 1u; } while (cur < 200u);"
    " o[i] = prev * 1000u + cur; }\n";

START_TEST(test_regalloc_header_phi_survives_a_latch_exit)
{
    isa_program *v = NULL, *a = verified_pair(latch_src, &v);
    isa_program_destroy(a);
    isa_program_destroy(v);
    const unsigned data[8] = {9, 2, 14, 5, 30, 1, 7, 11};
    char bindings[512], expect[512];
    int n = snprintf(expect, sizeof expect, "[{\"set\": 0, \"binding\": 1, \"data\": [");
    int nb = snprintf(bindings, sizeof bindings, "[{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"data\": [");
    for (unsigned i = 0; i < 8; i++) {
        unsigned prev, cur = i;
        do {
            prev = cur;
            cur = data[cur % 8u] * 3u + prev + 1u;
        } while (cur < 200u);
        n += snprintf(expect + n, sizeof expect - n, "%s%u", i ? ", " : "", prev * 1000u + cur);
        nb += snprintf(bindings + nb, sizeof bindings - nb, "%s%u", i ? ", " : "", data[i]);
    }
    snprintf(expect + n, sizeof expect - n, "]}]");
    snprintf(bindings + nb, sizeof bindings - nb, "]}, {\"set\": 0, \"binding\": 1, \"type\": \"u32\", \"count\": 8}]");
    run_expecting(latch_src, bindings, expect);
}
END_TEST

/* A divergent if whose paths meet at a loop header, and a loop-invariant scalar compare the hoist moves to
 * the end of the block laid out before that header (isa/lean_hoist.c): the then-block, which only its own lanes
 * run in the per-lane flow graph.  Its scalar division writes a register while the other lanes wait at the
 * header needing the compare's value; but the compare is written only after the division, before the header,
 * and no back edge runs it earlier, so nothing is lost.  The allocation check used to report it (found by
 * fuzz_spirv); the kernel is written by hand in the shape the fuzzer found. */
static const char hoist_after_if_asm[] =
    "               OpCapability Shader\n"
    "               OpMemoryModel Logical GLSL450\n"
    "               OpEntryPoint GLCompute %main \"main\" %wg %lid\n"
    "               OpExecutionMode %main LocalSize 4 1 1\n"
    "               OpDecorate %wg BuiltIn WorkgroupId\n"
    "               OpDecorate %lid BuiltIn LocalInvocationId\n"
    "               OpDecorate %rta ArrayStride 4\n"
    "               OpMemberDecorate %blk 0 Offset 0\n"
    "               OpDecorate %blk BufferBlock\n"
    "               OpDecorate %out DescriptorSet 0\n"
    "               OpDecorate %out Binding 0\n"
    "       %void = OpTypeVoid\n"
    "         %fn = OpTypeFunction %void\n"
    "       %bool = OpTypeBool\n"
    "       %uint = OpTypeInt 32 0\n"
    "         %v3 = OpTypeVector %uint 3\n"
    "        %pv3 = OpTypePointer Input %v3\n"
    "         %c0 = OpConstant %uint 0\n"
    "         %c1 = OpConstant %uint 1\n"
    "         %c4 = OpConstant %uint 4\n"
    "        %c16 = OpConstant %uint 16\n"
    "        %c17 = OpConstant %uint 17\n"
    "        %rta = OpTypeRuntimeArray %uint\n"
    "        %blk = OpTypeStruct %rta\n"
    "       %pblk = OpTypePointer Uniform %blk\n"
    "         %pu = OpTypePointer Uniform %uint\n"
    "         %wg = OpVariable %pv3 Input\n"
    "        %lid = OpVariable %pv3 Input\n"
    "        %out = OpVariable %pblk Uniform\n"
    "       %main = OpFunction %void None %fn\n"
    "      %entry = OpLabel\n"
    "        %wg3 = OpLoad %v3 %wg\n"
    "          %g = OpCompositeExtract %uint %wg3 0\n"
    "       %lid3 = OpLoad %v3 %lid\n"
    "          %l = OpCompositeExtract %uint %lid3 0\n"
    "        %one = OpIEqual %bool %l %c1\n"
    "               OpSelectionMerge %head None\n"
    "               OpBranchConditional %one %then %head\n"
    "       %then = OpLabel\n"
    "          %q = OpUDiv %uint %g %c16\n"
    "         %g17 = OpIMul %uint %g %c17\n"
    "         %at = OpIAdd %uint %g17 %c16\n"
    "         %pq = OpAccessChain %pu %out %c0 %at\n"
    "               OpStore %pq %q\n"
    "               OpBranch %head\n"
    "       %head = OpLabel\n"
    "          %i = OpPhi %uint %c0 %entry %c0 %then %next %head\n"
    "       %next = OpIAdd %uint %i %c1\n"
    "       %done = OpULessThanEqual %bool %c1 %c4\n"
    "        %gk = OpIMul %uint %g %c17\n"
    "         %l4 = OpIMul %uint %l %c4\n"
    "        %idx0 = OpIAdd %uint %gk %l4\n"
    "        %idx = OpIAdd %uint %idx0 %i\n"
    "         %pi = OpAccessChain %pu %out %c0 %idx\n"
    "               OpStore %pi %i\n"
    "               OpLoopMerge %exit %head None\n"
    "               OpBranchConditional %done %exit %head\n"
    "       %exit = OpLabel\n"
    "               OpReturn\n"
    "               OpFunctionEnd\n";

START_TEST(test_regalloc_hoisted_compare_after_a_divergent_if)
{
    uint32_t *words = NULL;
    size_t n = 0;
    char err[4096];
    ck_assert_msg(isa_assemble_spirv(hoist_after_if_asm, strlen(hoist_after_if_asm), 0, &words, &n, err,
                                     sizeof err) == ISA_OK, "%s", err);
    isa_program *v = NULL;
    ck_assert_msg(isa_lower_virtual(words, n, NULL, NULL, &v, err, sizeof err) == ISA_OK, "%s", err);
    free(words);
    /* the shape: a scalar compare, not divergent, right after the divergent then-block and before the LOOP's
     * header */
    uint32_t header = ISA_NO_REG, cmp = ISA_NO_REG;
    for (uint32_t i = 0; i < v->code_count; i++)
        if (v->code[i].op == ISA_OP_LOOP)
            header = (uint32_t)v->code[i].imm;
    ck_assert(header != ISA_NO_REG && header > 1);
    for (uint32_t i = 0; i < header; i++)
        if (v->code[i].op == ISA_OP_ULE && v->code[i].cls == ISA_CLASS_SALU)
            cmp = i;
    ck_assert_msg(cmp != ISA_NO_REG && !(v->code[cmp].flags & ISA_INST_DIVERGENT) &&
                      (v->code[cmp - 1].flags & ISA_INST_DIVERGENT),
                  "the compare was not hoisted to the end of the then-block");
    isa_program *a = isa_program_clone(v);
    ck_assert(a != NULL);
    ck_assert_int_eq(isa_allocate_registers(a), ISA_OK);
    ck_assert_msg(isa_verify_allocation(a, v, err, sizeof err), "%s", err);
    isa_program_destroy(a);
    isa_program_destroy(v);
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
    tcase_add_test(tc, test_regalloc_uniform_load_in_divergent_if_is_scalar);
    tcase_add_test(tc, test_regalloc_value_live_into_else_keeps_its_sgpr);
    tcase_add_test(tc, test_regalloc_value_after_divergent_loop_stays_per_lane);
    tcase_add_test(tc, test_regalloc_else_value_is_not_live_in_the_then);
    tcase_add_test(tc, test_regalloc_header_phi_survives_a_latch_exit);
    tcase_add_test(tc, test_regalloc_hoisted_compare_after_a_divergent_if);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
