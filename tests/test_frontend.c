/*
 * tests/test_frontend.c — the kernel as written: what reaches the lowering is
 * the source's semantics, whoever produced the SPIR-V.
 *
 *  - a wave operation in a loop's break branch counts the lanes of its own
 *    iteration (spirv-opt's size passes, the old compile path, merge the
 *    break block past the loop and count every lane: shown failing here);
 *  - `--optimize` runs the kernel as written beside the optimized one and
 *    names the first difference and the wave operation whose lanes changed;
 *  - SPIR-V from glslangValidator (no optimizer) and hand-written DXC-shaped
 *    assembly (wrapper function, OpVariable locals, a helper with an early
 *    return) run with the source's results, at SPIR-V 1.3, 1.5 and 1.6 (and
 *    glslang in process for a case's "target_env");
 *  - GLSL as glslc takes it: #include without its #extension line, errors in
 *    a header naming the header, a case's defines expanded once;
 *  - robust buffer access: out-of-bounds loads read 0, stores are dropped,
 *    both counted; without it the same access is a fault.
 * Every expected value is computed here from the inputs.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/case.h"
#include "isa/isa.h"
#include "run/run.h"
#include "sim/sim.h"
#include "tests/support/tsup.h"

/* Article 003's scalarization loop with the per-iteration count taken in the break branch. */
static const char *served_kernel =
    "#version 450\n"
    "#extension GL_KHR_shader_subgroup_basic : require\n"
    "#extension GL_KHR_shader_subgroup_ballot : require\n"
    "layout(local_size_x = 128) in;\n"
    "layout(set = 0, binding = 0, std430) readonly buffer Keys { uint keys[]; };\n"
    "layout(set = 0, binding = 1, std430) writeonly buffer Out { uint served[]; };\n"
    "void main()\n"
    "{\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    uint key = keys[i];\n"
    "    uint n = 0u;\n"
    "    for (;;) {\n"
    "        if (key == subgroupBroadcastFirst(key)) {\n"
    "            n = subgroupBallotBitCount(subgroupBallot(true)); // SERVED\n"
    "            break;\n"
    "        }\n"
    "    }\n"
    "    served[i] = n;\n"
    "}\n";

#define N 128

static void served_keys(uint32_t *keys)
{
    uint32_t rs = 77;
    for (int i = 0; i < N; i++)
        keys[i] = tsup_rand(&rs) % 5; /* repeats inside every wave, in no particular order */
}

static uint32_t *compile_glsl(const char *src, size_t *n)
{
    isa_compile_options o = {.path = "k.comp", .source = src, .language = "glsl"};
    uint32_t *w = NULL;
    char err[4096] = "", warn[1024] = "";
    ck_assert_msg(isa_compile(&o, &w, n, err, sizeof err, warn, sizeof warn) == ISA_OK, "%s", err);
    ck_assert_msg(isa_validate(w, *n, err, sizeof err) == ISA_OK, "%s", err);
    return w;
}

static void run_served(const isa_program *p, uint32_t wave, const uint32_t *keys, uint32_t *out)
{
    uint32_t k[N];
    memcpy(k, keys, sizeof k);
    memset(out, 0, N * sizeof *out);
    sim_buffer bufs[2] = {{0, 0, (uint8_t *)k, sizeof k, 0}, {0, 1, (uint8_t *)out, N * sizeof *out, 0}};
    sim_config cfg = {.wave_size = wave, .groups = {1, 1, 1}, .buffers = bufs, .buffer_count = 2};
    sim_result r;
    ck_assert_int_eq(sim_run(p, &cfg, &r), SIM_OK);
    sim_result_free(&r);
}

START_TEST(test_frontend_break_branch_wave_op_counts_only_its_iteration_at_every_wave_size)
{
    uint32_t keys[N], out[N];
    served_keys(keys);
    size_t n;
    uint32_t *w = compile_glsl(served_kernel, &n);
    isa_program *p = NULL;
    char err[2048];
    ck_assert_msg(isa_lower(w, n, "main", &p, err, sizeof err) == ISA_OK, "%s", err);
    for (uint32_t wave = SIM_MIN_WAVE; wave <= SIM_MAX_WAVE; wave *= 2) {
        run_served(p, wave, keys, out);
        for (uint32_t i = 0; i < N; i++) {
            /* the reference: a key is served once, with every lane of the wave that holds it */
            uint32_t same = 0, w0 = i / wave * wave;
            for (uint32_t l = w0; l < w0 + wave; l++)
                same += keys[l] == keys[i];
            ck_assert_msg(out[i] == same, "wave %u lane %u: %u, expected %u", wave, i, out[i], same);
        }
    }
    isa_program_destroy(p);

    /* the old path (glslang's optimize-for-size = spirv-opt -Os) merges the break block past the loop's
     * merge, where every lane has reconverged: each lane reports the whole wave */
    ck_assert_int_eq(isa_spirv_optimize(&w, &n, "size", err, sizeof err), ISA_OK);
    ck_assert_msg(isa_lower(w, n, "main", &p, err, sizeof err) == ISA_OK, "%s", err);
    run_served(p, 16, keys, out);
    for (uint32_t i = 0; i < N; i++)
        ck_assert_uint_eq(out[i], 16);
    isa_program_destroy(p);
    free(w);
}
END_TEST

/* A case file for `kernel` (in dir) with the served bindings; returns the loaded case. */
static wl_case *served_case(const char *dir, const char *kernel, const char *extra)
{
    uint32_t keys[N];
    served_keys(keys);
    char json[4096];
    int len = snprintf(json, sizeof json, "{\"kernel\": \"%s\", %s \"bindings\": [{\"set\": 0, \"binding\": 0, "
                       "\"type\": \"u32\", \"data\": [", kernel, extra);
    for (int i = 0; i < N; i++)
        len += snprintf(json + len, sizeof json - (size_t)len, "%s%u", i ? ", " : "", keys[i]);
    snprintf(json + len, sizeof json - (size_t)len, "]}, {\"set\": 0, \"binding\": 1, \"type\": \"u32\", "
             "\"count\": %d, \"fill\": {\"value\": 0}}]}", N);
    char *path = tsup_write_file(dir, "case.json", json);
    wl_case *c = NULL;
    char err[2048];
    ck_assert_msg(case_load(path, &c, err, sizeof err) == CASE_OK, "%s", err);
    free(path);
    return c;
}

START_TEST(test_frontend_optimize_names_first_difference_and_the_wave_operation)
{
    char *dir = tsup_temp_dir();
    free(tsup_write_file(dir, "served.comp", served_kernel));
    wl_case *c = served_case(dir, "served.comp", "");
    run_options opt = {.wave_size = 16, .optimize = "size"};
    run_output out;
    char err[2048];
    ck_assert_int_eq(run_case_sim(c, &opt, &out, err, sizeof err), RUN_EXIT_OK);
    /* the optimized program runs (every lane says 16); the kernel as written said the per-key count */
    uint32_t keys[N], same0 = 0;
    served_keys(keys);
    for (int l = 0; l < 16; l++)
        same0 += keys[l] == keys[0];
    ck_assert_uint_eq(((uint32_t *)out.data[1])[0], 16);
    char want[160];
    snprintf(want, sizeof want, "set 0 binding 1 element 0 is %u as written, 16 optimized", same0);
    ck_assert_msg(strstr(out.optimizer_note, want), "%s", out.optimizer_note);
    snprintf(want, sizeof want, "wave operation at line %d", tsup_line_of(served_kernel, "// SERVED"));
    ck_assert_msg(strstr(out.optimizer_note, want), "%s", out.optimizer_note);
    run_output_free(&out);

    /* an optimizer that changes nothing a wave sees: no note */
    opt.optimize = "--eliminate-dead-code-aggressive";
    ck_assert_int_eq(run_case_sim(c, &opt, &out, err, sizeof err), RUN_EXIT_OK);
    ck_assert_str_eq(out.optimizer_note, "");
    run_output_free(&out);

    /* a pass list spirv-opt does not know: bad input, named */
    opt.optimize = "--no-such-pass";
    ck_assert_int_eq(run_case_sim(c, &opt, &out, err, sizeof err), RUN_EXIT_BAD_INPUT);
    ck_assert_msg(strstr(err, "--no-such-pass"), "%s", err);
    run_output_free(&out);
    case_destroy(c);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* Same outputs from the .comp and from glslangValidator's unoptimized .spv of it. */
START_TEST(test_frontend_spv_from_glslang_validator_matches_its_source)
{
    if (system("command -v glslangValidator >/dev/null 2>&1") != 0) {
        printf("skip: glslangValidator (Debian's glslang-tools) is not installed\n");
        return;
    }
    char *dir = tsup_temp_dir();
    free(tsup_write_file(dir, "served.comp", served_kernel));
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "glslangValidator -V --target-env vulkan1.1 -o '%s/served.spv' '%s/served.comp' "
             ">/dev/null", dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    wl_case *source = served_case(dir, "served.comp", "");
    wl_case *binary = served_case(dir, "served.spv", "");
    ck_assert_str_eq(binary->language, "spirv");
    char err[2048];
    for (uint32_t wave = SIM_MIN_WAVE; wave <= SIM_MAX_WAVE; wave *= 2) {
        run_options opt = {.wave_size = wave};
        run_output a, b;
        ck_assert_int_eq(run_case_sim(source, &opt, &a, err, sizeof err), RUN_EXIT_OK);
        ck_assert_msg(run_case_sim(binary, &opt, &b, err, sizeof err) == RUN_EXIT_OK, "%s", err);
        ck_assert_int_eq(memcmp(a.data[1], b.data[1], N * 4), 0);
        run_output_free(&a);
        run_output_free(&b);
    }
    case_destroy(source);
    case_destroy(binary);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* SPIR-V 1.5 and 1.6 (glslangValidator's vulkan1.2 / vulkan1.3, and glslang in process through a case's
 * "target_env"): validated in their own environment and run with the SPIR-V 1.3 program's results. */
START_TEST(test_frontend_spirv_1_5_and_1_6_run_as_their_source)
{
    char *dir = tsup_temp_dir();
    free(tsup_write_file(dir, "served.comp", served_kernel));
    bool have_validator = system("command -v glslangValidator >/dev/null 2>&1") == 0;
    if (!have_validator)
        printf("skip (the .spv half): glslangValidator (Debian's glslang-tools) is not installed\n");
    static const struct { const char *env; uint32_t version; } envs[] = {{"vulkan1.2", 0x10500}, {"vulkan1.3", 0x10600}};
    wl_case *source = served_case(dir, "served.comp", "");
    char err[2048];
    for (int e = 0; e < 2; e++) {
        char extra[64], cmd[1024];
        snprintf(extra, sizeof extra, "\"target_env\": \"%s\",", envs[e].env);
        wl_case *cases[2] = {served_case(dir, "served.comp", extra), NULL};
        if (have_validator) {
            snprintf(cmd, sizeof cmd, "glslangValidator -V --target-env %s -o '%s/served.spv' '%s/served.comp' "
                     ">/dev/null", envs[e].env, dir, dir);
            ck_assert_int_eq(system(cmd), 0);
            cases[1] = served_case(dir, "served.spv", "");
        }
        for (int k = 0; k < 2 && cases[k]; k++) {
            uint32_t *w = NULL;
            size_t n = 0;
            ck_assert_msg(run_compile_case(cases[k], &w, &n, err, sizeof err, NULL, 0) == ISA_OK, "%s: %s",
                          envs[e].env, err);
            ck_assert_uint_eq(w[1], envs[e].version);
            free(w);
            for (uint32_t wave = SIM_MIN_WAVE; wave <= SIM_MAX_WAVE; wave *= 2) {
                run_options opt = {.wave_size = wave};
                run_output a, b;
                ck_assert_int_eq(run_case_sim(source, &opt, &a, err, sizeof err), RUN_EXIT_OK);
                ck_assert_msg(run_case_sim(cases[k], &opt, &b, err, sizeof err) == RUN_EXIT_OK, "%s", err);
                ck_assert_int_eq(memcmp(a.data[1], b.data[1], N * 4), 0);
                run_output_free(&a);
                run_output_free(&b);
            }
            case_destroy(cases[k]);
        }
    }
    wl_case *bad = served_case(dir, "served.comp", "\"target_env\": \"vulkan9\",");
    uint32_t *w = NULL;
    size_t n = 0;
    ck_assert_int_ne(run_compile_case(bad, &w, &n, err, sizeof err, NULL, 0), ISA_OK);
    ck_assert_msg(strstr(err, "\"vulkan9\" is not one of") && strstr(err, "\"vulkan1.3\""), "%s", err);
    case_destroy(bad);
    case_destroy(source);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* kernels/spirv_versions/versions_spv1[56].spv are what build.sh makes of versions.comp today */
START_TEST(test_frontend_committed_spirv_versions_match_a_fresh_compile)
{
    if (system("command -v glslangValidator >/dev/null 2>&1") != 0) {
        printf("skip: glslangValidator (Debian's glslang-tools) is not installed\n");
        return;
    }
    char *dir = tsup_temp_dir();
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sh '%s/kernels/spirv_versions/build.sh' '%s'", tsup_root(), dir);
    ck_assert_int_eq(system(cmd), 0);
    static const char *const names[] = {"versions_spv15.spv", "versions_spv16.spv"};
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "cmp -s '%s/%s' '%s/kernels/spirv_versions/%s'", dir, names[i], tsup_root(),
                 names[i]);
        ck_assert_msg(system(cmd) == 0, "kernels/spirv_versions/%s differs from a fresh compile: run build.sh",
                      names[i]);
    }
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* GLSL as glslc takes it: #include without GL_GOOGLE_include_directive, errors in a header name the header,
 * and a case's defines applied once, as glslang's -D does (an #undef'd define's name is free again). */
START_TEST(test_frontend_glslc_includes_and_defines_once)
{
    char *dir = tsup_temp_dir();
    free(tsup_write_file(dir, "h.glsl", "uint helper(uint x)\n{\n    return x + 3u;\n}\n"));
    free(tsup_write_file(dir, "bad.glsl", "uint helper(uint x)\n{\n    return x + undefined_thing;\n}\n"));
    static const char *kernel_fmt =
        "#version 450\n"
        "layout(local_size_x = 1) in;\n"
        "layout(std430, set = 0, binding = 0) buffer B { uint o[]; };\n"
        "#include \"%s\"\n"
        "void main()\n"
        "{\n"
        "    o[0] = helper(N);\n"
        "#undef N\n"
        "    uint N = 9u;\n"
        "    o[1] = N;\n"
        "}\n";
    char text[1024];
    snprintf(text, sizeof text, kernel_fmt, "h.glsl");
    free(tsup_write_file(dir, "k.comp", text));
    char *path = tsup_write_file(dir, "k.json", "{\"kernel\": \"k.comp\", \"defines\": {\"N\": \"4u\"}, "
                                 "\"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"count\": 2, "
                                 "\"fill\": {\"value\": 0}}]}");
    wl_case *c = NULL;
    char err[2048] = "";
    ck_assert_msg(case_load(path, &c, err, sizeof err) == CASE_OK, "%s", err);
    run_options opt = {.wave_size = 8};
    run_output out;
    ck_assert_msg(run_case_sim(c, &opt, &out, err, sizeof err) == RUN_EXIT_OK, "%s", err);
    const uint32_t *o = (const uint32_t *)out.data[0];
    ck_assert_uint_eq(o[0], 4u + 3u); /* helper(4u) */
    ck_assert_uint_eq(o[1], 9u);      /* the local N, not the case's define again */
    run_output_free(&out);
    case_destroy(c);
    free(path);

    snprintf(text, sizeof text, kernel_fmt, "bad.glsl");
    free(tsup_write_file(dir, "k.comp", text));
    char kpath[1024];
    snprintf(kpath, sizeof kpath, "%s/k.comp", dir);
    isa_define n = {"N", "4u"};
    isa_compile_options co = {.path = kpath, .defines = &n, .define_count = 1};
    uint32_t *w = NULL;
    size_t count = 0;
    err[0] = 0;
    ck_assert_int_eq(isa_compile(&co, &w, &count, err, sizeof err, NULL, 0), ISA_ERR_COMPILE);
    ck_assert_msg(strstr(err, "/bad.glsl:3: error: 'undefined_thing'"), "%s", err);
    ck_assert_msg(!strstr(err, "k.comp:3:"), "%s", err);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* kernels/spirv/dxc_shape.spvasm: wrapper, Function locals, BufferBlock structs, a helper with an early return. */
START_TEST(test_frontend_dxc_shaped_assembly_runs_as_its_hlsl_says)
{
    if (system("command -v spirv-as >/dev/null 2>&1") != 0) {
        printf("skip: spirv-as (Debian's spirv-tools) is not installed\n");
        return;
    }
    char *dir = tsup_temp_dir();
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "spirv-as --target-env vulkan1.1 -o '%s/dxc.spv' '%s/kernels/spirv/dxc_shape.spvasm'",
             dir, tsup_root());
    ck_assert_int_eq(system(cmd), 0);
    uint32_t items[2 * 64], rs = 5;
    char json[8192];
    int len = snprintf(json, sizeof json, "{\"kernel\": \"dxc.spv\", \"bindings\": [{\"set\": 0, \"binding\": 0, "
                       "\"type\": \"u32\", \"data\": [");
    for (int i = 0; i < 64; i++) {
        items[2 * i] = tsup_rand(&rs) % 3; /* key: 0 for about a third of the lanes */
        float wgt = (float)(tsup_rand(&rs) % 900);
        memcpy(&items[2 * i + 1], &wgt, 4);
        len += snprintf(json + len, sizeof json - (size_t)len, "%s%u, %u", i ? ", " : "", items[2 * i],
                        items[2 * i + 1]);
    }
    snprintf(json + len, sizeof json - (size_t)len, "]}, {\"set\": 0, \"binding\": 1, \"type\": \"u32\", "
             "\"count\": 64, \"fill\": {\"value\": 0}}]}");
    char *path = tsup_write_file(dir, "case.json", json);
    wl_case *c = NULL;
    char err[2048];
    ck_assert_msg(case_load(path, &c, err, sizeof err) == CASE_OK, "%s", err);
    for (uint32_t wave = SIM_MIN_WAVE; wave <= SIM_MAX_WAVE; wave *= 2) {
        run_options opt = {.wave_size = wave};
        run_output out;
        ck_assert_msg(run_case_sim(c, &opt, &out, err, sizeof err) == RUN_EXIT_OK, "%s", err);
        const uint32_t *o = (const uint32_t *)out.data[1];
        for (uint32_t i = 0; i < 64; i++) {
            uint32_t nonzero = 0, w0 = i / wave * wave;
            for (uint32_t l = w0; l < w0 + wave && l < 64; l++)
                nonzero += items[2 * l] != 0;
            float wgt;
            memcpy(&wgt, &items[2 * i + 1], 4);
            uint32_t want = (items[2 * i] ? nonzero : 0) * 1000u + (uint32_t)wgt;
            ck_assert_msg(o[i] == want, "wave %u lane %u: %u, expected %u", wave, i, o[i], want);
        }
        run_output_free(&out);
    }
    case_destroy(c);
    free(path);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

START_TEST(test_frontend_spv_file_errors_name_the_problem)
{
    char *dir = tsup_temp_dir();
    char *odd = tsup_write_file(dir, "odd.spv", "1234567");
    uint32_t *w = NULL;
    size_t n = 0;
    char err[1024] = "";
    ck_assert_int_eq(isa_read_spirv(odd, &w, &n, err, sizeof err), ISA_ERR_INVALID);
    ck_assert_msg(strstr(err, "7 bytes") && strstr(err, "4-byte words"), "%s", err);
    char *text = tsup_write_file(dir, "text.spv", "not SPIR-V at all, just text");
    err[0] = 0;
    /* 29 bytes: not whole words */
    ck_assert_int_eq(isa_read_spirv(text, &w, &n, err, sizeof err), ISA_ERR_INVALID);
    char *text32 = tsup_write_file(dir, "text32.spv", "not SPIR-V at all, just text!!!!");
    err[0] = 0;
    ck_assert_int_eq(isa_read_spirv(text32, &w, &n, err, sizeof err), ISA_ERR_INVALID);
    ck_assert_msg(strstr(err, "word 0: magic number"), "%s", err);
    err[0] = 0;
    ck_assert_int_eq(isa_read_spirv("/nonexistent/k.spv", &w, &n, err, sizeof err), ISA_ERR_IO);
    ck_assert_ptr_null(w);
    free(odd);
    free(text);
    free(text32);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* ------------------------------------------------------------ robust buffer access */

static const char *oob_kernel =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0, std430) readonly buffer In { uint src[]; };\n"
    "layout(set = 0, binding = 1, std430) buffer Out { uint dst[]; };\n"
    "void main()\n"
    "{\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    dst[i] = src[i] + 1u;          // src has 16 elements: lanes 16.. read past it\n"
    "    dst[64u + 2u * i] = 7u;        // dst has 96: lanes 16.. write past it\n"
    "}\n";

START_TEST(test_frontend_robust_access_reads_zero_and_drops_stores)
{
    size_t n;
    uint32_t *w = compile_glsl(oob_kernel, &n);
    isa_program *p = NULL;
    char err[2048];
    ck_assert_msg(isa_lower(w, n, "main", &p, err, sizeof err) == ISA_OK, "%s", err);
    free(w);
    for (int robust = 0; robust <= 1; robust++) {
        uint32_t src[16], dst[96];
        for (int i = 0; i < 16; i++)
            src[i] = 100u + (uint32_t)i;
        for (int i = 0; i < 96; i++)
            dst[i] = 0xdeadu;
        sim_buffer bufs[2] = {{0, 0, (uint8_t *)src, sizeof src, 0}, {0, 1, (uint8_t *)dst, sizeof dst, 0}};
        sim_config cfg = {.wave_size = 32, .groups = {1, 1, 1}, .buffers = bufs, .buffer_count = 2,
                          .robust_access = robust};
        sim_result r;
        sim_status st = sim_run(p, &cfg, &r);
        if (!robust) {
            ck_assert_int_eq(st, SIM_FAULT);
            ck_assert_int_eq(r.fault, SIM_FAULT_OUT_OF_BOUNDS);
            ck_assert_int_eq(r.fault_event.where.lane, 16);
        } else {
            ck_assert_int_eq(st, SIM_OK);
            for (uint32_t i = 0; i < 64; i++)
                ck_assert_uint_eq(dst[i], i < 16 ? 101u + i : 1u); /* loads past the end read 0 */
            for (uint32_t i = 0; i < 32; i++)
                ck_assert_uint_eq(dst[64 + i], i % 2 == 0 ? 7u : 0xdeadu); /* stores for lanes < 16 only */
            ck_assert_uint_eq(r.stats.robust_loads, 48);
            ck_assert_uint_eq(r.stats.robust_stores, 48);
        }
        sim_result_free(&r);
    }
    isa_program_destroy(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("frontend");
    TCase *t = tcase_create("as_written");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_frontend_break_branch_wave_op_counts_only_its_iteration_at_every_wave_size);
    tcase_add_test(t, test_frontend_optimize_names_first_difference_and_the_wave_operation);
    tcase_add_test(t, test_frontend_spv_from_glslang_validator_matches_its_source);
    tcase_add_test(t, test_frontend_spirv_1_5_and_1_6_run_as_their_source);
    tcase_add_test(t, test_frontend_committed_spirv_versions_match_a_fresh_compile);
    tcase_add_test(t, test_frontend_glslc_includes_and_defines_once);
    tcase_add_test(t, test_frontend_dxc_shaped_assembly_runs_as_its_hlsl_says);
    tcase_add_test(t, test_frontend_spv_file_errors_name_the_problem);
    tcase_add_test(t, test_frontend_robust_access_reads_zero_and_drops_stores);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
