/*
 * tests/test_radv.c — AMD's compiler as the judge, without AMD hardware: RADV's
 * null device (RADV_FORCE_FAMILY) compiles the articles' kernels with ACO and
 * the suite checks facts that do not depend on ACO's version — a uniform load
 * is a scalar (SMEM) load, fp16 needs fewer VGPRs than fp32, occupancy falls
 * when LDS use crosses what a CU holds — and that wavelab never dispatches on
 * the null device (RADV crashes when work is submitted to it).
 *
 * The counting of an AMD listing needs no device.  The rest exits 77 (CTest
 * SKIP_RETURN_CODE) when RADV's null device cannot be listed here.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "case/case.h"
#include "isa/isa.h"
#include "run/run.h"
#include "sim/machine.h"
#include "tests/support/tsup.h"

/* ------------------------------------------------------------- counting an AMD listing (no device) */

START_TEST(asm_classes_by_prefix)
{
    /* a listing written here in the shape ACO prints it: labels, tab-indented instructions, encodings after ';' */
    static const char listing[] = "BB0:\n"
                                  "\ts_load_dwordx4 s[8:11], s[2:3], 0x10   ; f4080201 fa000010\n"
                                  "\ts_buffer_load_dwordx2 s[0:1], s[8:11], s0 ; f4240004 00000000\n"
                                  "\tv_add_f32_e32 v5, v8, v5              ; 060a0b08\n"
                                  "\tbuffer_load_format_xyzw v[8:11], v6, s[8:11], 0 idxen\n"
                                  "\tglobal_store_dword v[0:1], v2, off\n"
                                  "\timage_sample v[0:3], v[4:5], s[0:7], s[8:11] dmask:0xf\n"
                                  "\tds_write_b32 v0, v1\n"
                                  "\tds_bpermute_b32 v2, v3, v4\n"
                                  "\ts_and_saveexec_b64 s[0:1], vcc\n"
                                  "\ts_mov_b64 exec, s[0:1]\n"
                                  "\ts_mov_b32 exec_lo, s0\n"
                                  "\ts_mov_b32 s4, 0\n"
                                  "\ts_waitcnt lgkmcnt(0)\n"
                                  "BB1:\n"
                                  "\ts_cbranch_scc1 BB5\n"
                                  "\ts_branch BB1\n"
                                  "\ts_endpgm\n"
                                  "\ts_code_end\n"
                                  "\ts_code_end\n";
    vkb_asm_counts k;
    vkb_asm_count(listing, &k);
    ck_assert_uint_eq(k.instructions, 16); /* 18 lines with a mnemonic, less the two s_code_end */
    ck_assert_uint_eq(k.by_class[ISA_CLASS_SMEM], 2);
    ck_assert_uint_eq(k.by_class[ISA_CLASS_VALU], 1);
    ck_assert_uint_eq(k.by_class[ISA_CLASS_VMEM], 3);
    ck_assert_uint_eq(k.by_class[ISA_CLASS_LDS], 1);
    ck_assert_uint_eq(k.by_class[ISA_CLASS_XLANE], 1);
    ck_assert_uint_eq(k.by_class[ISA_CLASS_EXEC], 3);
    ck_assert_uint_eq(k.by_class[ISA_CLASS_SALU], 1);
    ck_assert_uint_eq(k.by_class[ISA_CLASS_SYNC], 1);
    ck_assert_uint_eq(k.by_class[ISA_CLASS_BRANCH], 3);
    ck_assert_uint_eq(k.unclassified, 0);
    ck_assert_uint_eq(k.scalar_loads, 2);
    ck_assert_uint_eq(k.vector_loads, 2); /* buffer_load_format and image_sample; the store is not a load */
    ck_assert_int_eq(vkb_asm_class("s_mov_b32", " exec_hi, 0"), ISA_CLASS_EXEC);
    ck_assert_int_eq(vkb_asm_class("s_mov_b32", " exec_lox, 0"), ISA_CLASS_SALU);
    ck_assert_int_eq(vkb_asm_class("v_cmpx_eq_u32", " v0, v1"), ISA_CLASS_VALU);
    ck_assert_int_eq(vkb_asm_class("exp", " pos0 v0, v1, v2, v3"), -1);
}
END_TEST

/* ------------------------------------------------------------- the null device */

/* Creates the null-device context for `family` (tests run in a process of their own: Check forks). */
static vkb_context *open_null(const char *family, int *index)
{
    char err[1024];
    vkb_context *ctx = NULL;
    vkb_status st = vkb_context_create_null(family, &ctx, index, err, sizeof err);
    ck_assert_msg(st == VKB_OK, "%s: %s", family, err);
    return ctx;
}

/* Compiles a case of the repository on a null device; the output is the caller's. */
static void compile_on(const char *family, const char *case_path, uint32_t wave, vkb_compile_output *out)
{
    char path[1024], err[4096];
    snprintf(path, sizeof path, "%s/%s", tsup_root(), case_path);
    wl_case *c = NULL;
    ck_assert_msg(case_load(path, &c, err, sizeof err) == CASE_OK, "%s", err);
    uint32_t *words = NULL;
    size_t n = 0;
    ck_assert_msg(run_compile_case(c, &words, &n, err, sizeof err, NULL, 0) == ISA_OK, "%s", err);
    int index = -1;
    vkb_context *ctx = open_null(family, &index);
    vkb_run_options opt = {.wave_size = wave};
    vkb_status st = vkb_compile_case(ctx, index, c, words, n, &opt, out, err, sizeof err);
    ck_assert_msg(st == VKB_OK, "%s on %s: %s", case_path, family, err);
    ck_assert_uint_eq(out->wave_size, wave);
    free(words);
    case_destroy(c);
    vkb_context_destroy(ctx);
}

static double statistic(const vkb_compile_output *out, const char *name)
{
    const vkb_statistic *s = vkb_compile_statistic(out, name);
    ck_assert_msg(s != NULL, "the driver reports no \"%s\"", name);
    return s->number;
}

static const char *assembly(const vkb_compile_output *out)
{
    for (int i = 0; i < out->representation_count; i++)
        if (strcmp(out->representations[i].name, "Assembly") == 0)
            return out->representations[i].text;
    ck_abort_msg("no \"Assembly\" representation");
    return NULL;
}

START_TEST(null_device_is_compile_only)
{
    int index = -1;
    vkb_context *ctx = open_null("navi21", &index);
    vkb_device_info info;
    ck_assert_int_eq(vkb_device_info_get(ctx, index, &info), VKB_OK);
    ck_assert_int_eq(info.compile_only, 1);
    char err[1024];
    ck_assert_int_eq(vkb_device_dispatches(&info, err, sizeof err), VKB_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err, "null device") && strstr(err, "--against radv:navi21"), "%s", err);
    /* the default device is one that can run work, when there is one */
    int chosen = -1;
    ck_assert_int_eq(vkb_device_find(ctx, NULL, &chosen, err, sizeof err), VKB_OK);
    vkb_device_info first;
    vkb_device_info_get(ctx, chosen, &first);
    ck_assert_int_eq(first.compile_only, vkb_device_count(ctx) == 1);
    /* RADV reads RADV_FORCE_FAMILY when an instance lists its devices: another family while this context is
     * open would not apply to it, so it is refused */
    vkb_context *second = NULL;
    int other = -1;
    ck_assert_int_eq(vkb_context_create_null("vega10", &second, &other, err, sizeof err), VKB_ERR_INPUT);
    ck_assert_msg(second == NULL && strstr(err, "already has one open"), "%s", err);
    ck_assert_str_eq(getenv("RADV_FORCE_FAMILY"), "navi21");
    vkb_context_destroy(ctx);
    /* once it is closed, the next family works */
    ck_assert_int_eq(vkb_context_create_null("vega10", &second, &other, err, sizeof err), VKB_OK);
    vkb_device_info_get(second, other, &info);
    ck_assert_msg(info.compile_only && strstr(info.name, "VEGA10"), "%s", info.name);
    vkb_context_destroy(second);
}
END_TEST

/* Before the refusal, every one of these crashed inside RADV (a submit to the null device). */
START_TEST(null_device_never_dispatches)
{
    static const char *const commands[] = {
        "check kernels/000_uniform_load/uniform_load_naive.json --device null",
        "run kernels/000_uniform_load/uniform_load_naive.json --backend vulkan --device null",
        "profile kernels/000_uniform_load/uniform_load_naive.json --device null",
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char args[512];
        snprintf(args, sizeof args, "%s 2>&1", commands[i]);
        setenv("RADV_FORCE_FAMILY", "navi21", 1);
        char *out = NULL;
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == 3 && out && strstr(out, "is RADV's null device: it compiles only"), "%s: exit %d: %s",
                      commands[i], rc, out ? out : "");
        free(out);
    }
    char *out = NULL;
    int rc = tsup_run_cli("devices 2>&1", &out);
    ck_assert_msg(rc == 0 && out && strstr(out, "(RADV NAVI21) (compile only)") &&
                      strstr(out, "listed because RADV_FORCE_FAMILY=navi21"),
                  "exit %d: %s", rc, out ? out : "");
    free(out);
}
END_TEST

START_TEST(uniform_load_is_smem)
{
    /* article 000: the count read at one address for the whole wave is a scalar load on every generation */
    static const char *const families[] = {"vega10", "navi21", "gfx1100"};
    vkb_compile_output out;
    compile_on(families[_i], "kernels/000_uniform_load/uniform_load_naive.json", 64, &out);
    const char *text = assembly(&out);
    ck_assert_msg(strstr(text, "s_buffer_load") || strstr(text, "s_load_dword "), "%s", text);
    vkb_asm_counts k;
    vkb_asm_count(text, &k);
    ck_assert_uint_ge(k.scalar_loads, 1);
    ck_assert_uint_eq(k.unclassified, 0);
    vkb_compile_output_free(&out);
}
END_TEST

START_TEST(fp16_needs_fewer_vgprs)
{
    /* article 002: the same neighbourhood filter in fp16 packs two values per VGPR */
    static const struct {
        const char *family;
        uint32_t wave;
    } at[] = {{"vega10", 64}, {"navi21", 32}, {"navi21", 64}, {"gfx1100", 64}};
    vkb_compile_output h, f;
    compile_on(at[_i].family, "kernels/002_lds_fp16/neighborhood_fp16_split.json", at[_i].wave, &h);
    compile_on(at[_i].family, "kernels/002_lds_fp16/neighborhood_fp32_split.json", at[_i].wave, &f);
    /* the demand before scheduling: the allocated count rounds to the hardware's granule */
    ck_assert_msg(statistic(&h, "Pre-Sched VGPRs") < statistic(&f, "Pre-Sched VGPRs"), "fp16 %g, fp32 %g VGPRs",
                  statistic(&h, "Pre-Sched VGPRs"), statistic(&f, "Pre-Sched VGPRs"));
    ck_assert(statistic(&h, "VGPRs") <= statistic(&f, "VGPRs"));
    vkb_compile_output_free(&h);
    vkb_compile_output_free(&f);
}
END_TEST

START_TEST(lds_limits_occupancy)
{
    /* 1 KiB against 48 KiB of LDS per 64-invocation workgroup: a CU (64 KiB of LDS) holds one large workgroup */
    static const char *const families[] = {"vega10", "navi21", "gfx1100"};
    vkb_compile_output small, large;
    compile_on(families[_i], "tests/radv/lds_small.json", 64, &small);
    compile_on(families[_i], "tests/radv/lds_large.json", 64, &large);
    ck_assert_double_eq(statistic(&small, "LDS size"), 1024);
    ck_assert_double_eq(statistic(&large, "LDS size"), 49152);
    ck_assert_msg(statistic(&large, "Subgroups per SIMD") < statistic(&small, "Subgroups per SIMD"),
                  "%s: %g waves per SIMD with 48 KiB, %g with 1 KiB", families[_i],
                  statistic(&large, "Subgroups per SIMD"), statistic(&small, "Subgroups per SIMD"));
    vkb_compile_output_free(&small);
    vkb_compile_output_free(&large);
}
END_TEST

/* One workgroup of one wave whose 48 KiB of LDS leaves room for no second one on a 64 KiB CU: ACO says 1 wave
 * per SIMD on vega10 (the busiest of 4 SIMDs holds it), and so must wavelab's gcn_vega64, by hand
 * floor(65536 / 49152) = 1 workgroup of 1 wave over 4 SIMDs, rounded up; wavelab's figure in ACO's units is
 * the same 1 (ceil(16384 / 49152)). */
START_TEST(lds_bound_occupancy_matches_aco_on_vega10)
{
    char *out = NULL;
    int rc = tsup_run_cli("disasm tests/radv/lds_large.json --against radv:vega10 --wave 64 --machine gcn_vega64 "
                          "2>&1", &out);
    ck_assert_msg(rc == 0 && out, "exit %d: %s", rc, out ? out : "");
    const char *row = strstr(out, "; occupancy (waves per SIMD)");
    ck_assert_msg(row != NULL, "%s", out);
    unsigned ours = 0, aco = 0;
    ck_assert_int_eq(sscanf(row, "; occupancy (waves per SIMD) %u -", &ours), 1);
    ck_assert_uint_eq(ours, 1);
    row = strstr(out, "; occupancy in ACO's units");
    ck_assert_msg(row != NULL, "%s", out);
    ck_assert_int_eq(sscanf(row, "; occupancy in ACO's units %u %u", &ours, &aco), 2);
    ck_assert_uint_eq(aco, 1);
    ck_assert_uint_eq(ours, 1);
    free(out);
}
END_TEST

/* wavelab's occupancy in ACO's units equals RADV's "Subgroups per SIMD" on the live null device where the
 * register and LDS counts agree in granules: LDS-bound (48 KiB), LDS-light (1 KiB) and a light kernel, on the
 * three generations at both RDNA wave sizes.  The hand-worked formula is test_regalloc's; this holds it to
 * the driver itself. */
START_TEST(occupancy_in_aco_units_matches_the_driver)
{
    static const char *const cases[] = {"tests/radv/lds_large.json", "tests/radv/lds_small.json",
                                        "kernels/000_uniform_load/uniform_load_naive.json"};
    static const struct {
        const char *family;
        unsigned wave;
    } at[] = {{"vega10", 64}, {"navi21", 32}, {"navi21", 64}, {"gfx1100", 32}, {"gfx1100", 64}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[512], *out = NULL;
        snprintf(args, sizeof args, "disasm %s --against radv:%s --wave %u 2>&1", cases[i], at[_i].family,
                 at[_i].wave);
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == 0 && out, "%s: exit %d: %s", args, rc, out ? out : "");
        const char *row = strstr(out, "; occupancy in ACO's units");
        unsigned ours = 0, aco = 0;
        ck_assert_msg(row && sscanf(row, "; occupancy in ACO's units %u %u", &ours, &aco) == 2, "%s", out);
        ck_assert_msg(ours == aco && aco > 0, "%s: wavelab %u, ACO %u", args, ours, aco);
        free(out);
    }
}
END_TEST

/* article 000's naive kernel: wavelab's SGPRs with RADV's ABI counted equal ACO's demand before scheduling
 * (10 on navi21: by hand 4 values + 2 pointer + 4 descriptor; ACO's listing holds s[2:3] and s[8:11]) */
START_TEST(abi_sgprs_meet_aco_demand)
{
    char *out = NULL;
    int rc = tsup_run_cli("disasm kernels/000_uniform_load/uniform_load_naive.json --against radv:navi21 2>&1", &out);
    ck_assert_msg(rc == 0 && out, "exit %d: %s", rc, out ? out : "");
    const char *row = strstr(out, "; SGPRs with the ABI (demand)");
    unsigned ours = 0, aco = 0;
    ck_assert_msg(row && sscanf(row, "; SGPRs with the ABI (demand) %u %u", &ours, &aco) == 2, "%s", out);
    ck_assert_uint_eq(ours, aco);
    const char *values = strstr(out, "; SGPRs ");
    unsigned plain = 0;
    ck_assert_msg(values && sscanf(values, "; SGPRs %u", &plain) == 1, "%s", out);
    ck_assert_uint_eq(ours, plain + 6); /* the value count stays wavelab's own */
    free(out);
}
END_TEST

/* matrix_layouts reads `rm + cm` at one address for the whole wave inside `if (i == 0u)`, a branch on the lane
 * index: ACO loads it with scalar loads into SGPRs (s_buffer_load), and so does wavelab, whose uniform values
 * in divergent code follow ACO's rule (before, all 30 of its loads were vector loads). */
START_TEST(uniform_load_in_divergent_branch_is_smem_on_both_sides)
{
    char *out = NULL;
    int rc = tsup_run_cli("disasm kernels/matrix/matrix_layouts.json --against radv:navi21 2>&1", &out);
    ck_assert_msg(rc == 0 && out, "exit %d: %s", rc, out ? out : "");
    const char *row = strstr(out, "; scalar loads (SMEM)");
    unsigned ours = 0, aco = 0;
    ck_assert_msg(row && sscanf(row, "; scalar loads (SMEM) %u %u", &ours, &aco) == 2, "%s", out);
    ck_assert_uint_ge(ours, 1);
    ck_assert_uint_ge(aco, 1);
    ck_assert_msg(strstr(out, "s_buffer_load"), "%s", out);
    free(out);
}
END_TEST

/* A multisampled image compiles on the null device, which fills nothing (a real device's `check` fills it with
 * the backend's kernel, backend/vk_image_ms.c).  ACO addresses it as an MSAA resource (dim:SQ_RSRC_IMG_2D_MSAA,
 * the sample index its last coordinate). */
START_TEST(multisampled_image_compiles_on_the_null_device)
{
    char *out = NULL;
    int rc = tsup_run_cli("disasm kernels/images/ms_resolve.json --against radv:navi21 2>&1", &out);
    ck_assert_msg(rc == 0 && out && strstr(out, "SQ_RSRC_IMG_2D_MSAA"), "exit %d: %s", rc, out ? out : "");
    free(out);
}
END_TEST

/* gfx1100 (RX 7900 XTX) has a preset of its own: the comparison names rdna3 as exact, and ACO's VGPR
 * allocations there are whole blocks of the preset's granule (24 at wave32 on the 1.5x register file). */
START_TEST(gfx1100_compares_with_rdna3)
{
    mem_machine m;
    char err[1024];
    ck_assert_msg(mem_machine_load("rdna3", &m, err, sizeof err) == MEM_OK, "%s", err);
    ck_assert_uint_eq(m.vgpr_granule, 24);
    static const char *const cases[] = {"kernels/000_uniform_load/uniform_load_naive.json",
                                        "kernels/002_lds_fp16/neighborhood_fp32_split.json",
                                        "kernels/002_lds_fp16/neighborhood_fp16_split.json"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vkb_compile_output out;
        compile_on("gfx1100", cases[i], 32, &out);
        double vgprs = statistic(&out, "VGPRs");
        ck_assert_msg(vgprs > 0 && (unsigned)vgprs % m.vgpr_granule == 0, "%s: ACO allocates %g VGPRs", cases[i],
                      vgprs);
        vkb_compile_output_free(&out);
    }
    char *text = NULL;
    int rc = tsup_run_cli("disasm kernels/000_uniform_load/uniform_load_naive.json --against radv:gfx1100 2>&1",
                          &text);
    ck_assert_msg(rc == 0 && text && strstr(text, "wavelab's occupancy from machine rdna3\n"), "exit %d: %s", rc,
                  text ? text : "");
    free(text);
}
END_TEST

START_TEST(disasm_against_cli)
{
    char *out = NULL;
    int rc = tsup_run_cli("disasm kernels/000_uniform_load/uniform_load_naive.json --against radv:navi21 --wave 64 "
                          "2>&1", &out);
    ck_assert_msg(rc == 0 && out, "exit %d: %s", rc, out ? out : "");
    ck_assert_msg(strstr(out, "wave 64 (required)") && strstr(out, "wavelab's occupancy from machine rdna2") &&
                      strstr(out, "; ---- ACO assembly") && strstr(out, "; scalar loads (SMEM)"),
                  "%s", out);
    free(out);
    /* a kernel without a case: the descriptor set layouts come from the module (here a texel buffer whose format
     * the module leaves Unknown, which only a case could name) */
    rc = tsup_run_cli("disasm kernels/000_uniform_load/uniform_load_naive.comp --against radv:navi21 2>&1", &out);
    ck_assert_msg(rc == 0 && out && strstr(out, "; ---- ACO assembly"), "exit %d: %s", rc, out ? out : "");
    free(out);
    /* a generation RADV does not know aborts RADV itself: found in a child, reported as bad input */
    rc = tsup_run_cli("disasm kernels/000_uniform_load/uniform_load_naive.json --against radv:nosuchgpu 2>&1", &out);
    ck_assert_msg(rc == 2 && out && strstr(out, "RADV knows no GPU generation \"nosuchgpu\""), "exit %d: %s", rc,
                  out ? out : "");
    free(out);
    rc = tsup_run_cli("disasm kernels/000_uniform_load/uniform_load_naive.json --against amd 2>&1", &out);
    ck_assert_msg(rc == 2 && out && strstr(out, "neither radv:FAMILY"), "exit %d: %s", rc, out ? out : "");
    free(out);
    /* vega10 has no wave32 */
    rc = tsup_run_cli("disasm kernels/000_uniform_load/uniform_load_naive.json --against radv:vega10 --wave 32 2>&1",
                      &out);
    ck_assert_msg(rc == 3, "exit %d: %s", rc, out ? out : "");
    free(out);
}
END_TEST

START_TEST(unknown_family_leaves_environment)
{
    /* RADV aborts on a family it does not know: the variable must not stay set for the next context */
    setenv("RADV_FORCE_FAMILY", "navi21", 1);
    vkb_context *ctx = NULL;
    int index = -1;
    char err[1024];
    ck_assert_int_eq(vkb_context_create_null("nosuchgpu", &ctx, &index, err, sizeof err), VKB_ERR_INPUT);
    ck_assert_ptr_null(ctx);
    ck_assert_str_eq(getenv("RADV_FORCE_FAMILY"), "navi21");
    unsetenv("RADV_FORCE_FAMILY");
    ck_assert_int_eq(vkb_context_create_null("nosuchgpu", &ctx, &index, err, sizeof err), VKB_ERR_INPUT);
    ck_assert_ptr_null(getenv("RADV_FORCE_FAMILY"));
}
END_TEST

/* Whether RADV lists a null device here, asked in a child so that this process keeps no Vulkan state. */
static int radv_null_available(void)
{
    pid_t child = fork();
    if (child == 0) {
        int index;
        vkb_context *ctx = NULL;
        char err[1024];
        vkb_status st = vkb_context_create_null("navi21", &ctx, &index, err, sizeof err);
        if (st != VKB_OK)
            fprintf(stderr, "test_radv: skipped: %s\n", err);
        _exit(st == VKB_OK ? 0 : 1);
    }
    int status = 0;
    return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* RADV and lavapipe alone when nothing else was chosen (the other Mesa drivers print errors without their
 * hardware); drivers stay loaded after vkDestroyInstance in every process (docs/backend.md). */
static void prefer_radv(void)
{
    static const char radv[] = "/usr/share/vulkan/icd.d/radeon_icd.x86_64.json",
                      lvp[] = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
    if (!getenv("VK_DRIVER_FILES") && !getenv("VK_ICD_FILENAMES") && access(radv, R_OK) == 0 &&
        access(lvp, R_OK) == 0) {
        char both[sizeof radv + sizeof lvp];
        snprintf(both, sizeof both, "%s:%s", radv, lvp);
        setenv("VK_DRIVER_FILES", both, 1);
        setenv("VK_ICD_FILENAMES", both, 1);
    }
}

/* The loops that repeat one fact over families: under the sanitizers they run their first family only.  The other
 * iterations run the same wavelab code on ACO's other output (its statistics and listing, the ~1 s of an
 * instrumented process apiece), and the optimised build runs them all; uniform_load_is_smem keeps every family,
 * so that each family's listing goes through wavelab's parsers under the sanitizers. */
#if defined(__SANITIZE_ADDRESS__)
#define REPEATED_OVER_FAMILIES(n) 1
#else
#define REPEATED_OVER_FAMILIES(n) (n)
#endif

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    prefer_radv();
    Suite *s = suite_create("radv");
    TCase *t = tcase_create("listing");
    tcase_add_test(t, asm_classes_by_prefix);
    suite_add_tcase(s, t);
    int device = radv_null_available();
    if (device) {
        t = tcase_create("null_device");
        tcase_set_timeout(t, 300);
        tcase_add_test(t, null_device_is_compile_only);
        tcase_add_test(t, null_device_never_dispatches);
        tcase_add_loop_test(t, uniform_load_is_smem, 0, 3);
        tcase_add_loop_test(t, fp16_needs_fewer_vgprs, 0, REPEATED_OVER_FAMILIES(4));
        tcase_add_loop_test(t, lds_limits_occupancy, 0, REPEATED_OVER_FAMILIES(3));
        tcase_add_test(t, lds_bound_occupancy_matches_aco_on_vega10);
        tcase_add_loop_test(t, occupancy_in_aco_units_matches_the_driver, 0, REPEATED_OVER_FAMILIES(5));
        tcase_add_test(t, abi_sgprs_meet_aco_demand);
        tcase_add_test(t, uniform_load_in_divergent_branch_is_smem_on_both_sides);
        tcase_add_test(t, multisampled_image_compiles_on_the_null_device);
        tcase_add_test(t, gfx1100_compares_with_rdna3);
        tcase_add_test(t, disasm_against_cli);
        tcase_add_test(t, unknown_family_leaves_environment);
        suite_add_tcase(s, t);
        if (REPEATED_OVER_FAMILIES(2) == 1)
            printf("test_radv: under the sanitizers fp16_needs_fewer_vgprs, lds_limits_occupancy and "
                   "occupancy_in_aco_units_matches_the_driver run on their first family only (the optimised build "
                   "runs every family)\n");
    }
    int rc = tsup_run_suite(s, "test_radv");
    return rc != 0 ? rc : device ? 0 : 77;
}
