/*
 * tests/test_errors.c — every fault and error path, end to end: kernel
 * faults (exit 1) and bad input (exit 2) through the `wavelab` command, with
 * the message checked, and invalid SPIR-V fed to isa_validate / isa_lower
 * directly (an error naming the word offset, never a crash).
 *
 * The command is $WAVELAB_BIN; fixtures live in $WAVELAB_ROOT/tests/errors/.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "isa/isa.h"
#include "tests/support/tsup.h"

/* Runs `wavelab ARGS` where ARGS may use one %s for the fixture directory; checks the exit code. */
static char *cli(int want_rc, const char *fmt, const char *arg)
{
    char dir[4096], args[8192];
    snprintf(dir, sizeof dir, "'%s/tests/errors'", tsup_root());
    snprintf(args, sizeof args, fmt, dir, arg);
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == want_rc, "wavelab %s: exit %d, expected %d; output:\n%s", args, rc, want_rc, out ? out : "");
    ck_assert_ptr_nonnull(out);
    return out;
}

#define HAS(out, s) ck_assert_msg(strstr(out, s) != NULL, "expected \"%s\" in:\n%s", s, out)

/* ------------------------------------------------------------ kernel faults: exit 1 */

START_TEST(test_errors_buffer_read_out_of_bounds_names_wave_lane_address)
{
    /* invocation 37 reads element 300 (byte 0x4b0) of a 128-element buffer; at wave 32 that is wave 1 lane 5 */
    char *out = cli(1, "run %s/oob_read.json --wave 32 --quiet", NULL);
    HAS(out, "out_of_bounds");
    HAS(out, "load");
    HAS(out, "workgroup (0,0,0) wave 1 lane 5");
    HAS(out, "'In'");
    HAS(out, "address 0x4b0");
    HAS(out, "line 9");
    free(out);
}
END_TEST

START_TEST(test_errors_buffer_write_out_of_bounds_names_workgroup_wave_lane)
{
    /* global invocation 69 = workgroup 1, local 5; at wave 8 that is wave 0 lane 5 */
    char *out = cli(1, "run %s/oob_write.json --wave 8 --quiet", NULL);
    HAS(out, "out_of_bounds");
    HAS(out, "store");
    HAS(out, "workgroup (1,0,0) wave 0 lane 5");
    HAS(out, "address 0x320");
    HAS(out, "512 bytes");
    free(out);
}
END_TEST

START_TEST(test_errors_shared_memory_out_of_bounds_names_slot)
{
    /* local invocation 10 stores tile[74]: byte 0x128 of a 256-byte shared array; wave 4: wave 2 lane 2 */
    char *out = cli(1, "run %s/oob_shared.json --wave 4 --quiet", NULL);
    HAS(out, "out_of_bounds");
    HAS(out, "workgroup slot 'tile'");
    HAS(out, "wave 2 lane 2");
    HAS(out, "address 0x128");
    free(out);
}
END_TEST

START_TEST(test_errors_private_array_dynamic_index_out_of_bounds)
{
    /* invocation 3 indexes local_table[11]: byte 0x2c of 32 per lane */
    char *out = cli(1, "run %s/oob_private.json --wave 4 --quiet", NULL);
    HAS(out, "out_of_bounds");
    HAS(out, "private slot 'local_table'");
    HAS(out, "lane 3");
    HAS(out, "address 0x2c");
    free(out);
}
END_TEST

START_TEST(test_errors_barrier_in_one_wave_deadlocks)
{
    char *out = cli(1, "run %s/deadlock.json --quiet", NULL); /* subgroup_size 16: 4 waves */
    HAS(out, "deadlock");
    HAS(out, "workgroup (0,0,0)");
    HAS(out, "wave 0 waits at the barrier");
    HAS(out, "wave 1 ended");
    free(out);
    out = cli(1, "run %s/deadlock.json --wave 4 --quiet", NULL);
    HAS(out, "deadlock");
    free(out);
    /* one wave per workgroup: the barrier has nobody to wait for */
    out = cli(0, "run %s/deadlock.json --wave 64 --quiet", NULL);
    free(out);
}
END_TEST

START_TEST(test_errors_runaway_loop_exhausts_budget)
{
    char *out = cli(1, "run %s/runaway.json --budget 100000 --quiet", NULL);
    HAS(out, "budget");
    HAS(out, "100000");
    HAS(out, "workgroup (0,0,0)");
    HAS(out, "wave 0");
    free(out);
}
END_TEST

START_TEST(test_errors_texel_buffer_index_out_of_range)
{
    /* invocation 4 reads texel 20 of 16 (byte 0x50) */
    char *out = cli(1, "run %s/texel_oob.json --wave 8 --quiet", NULL);
    HAS(out, "out_of_bounds");
    HAS(out, "'texels'");
    HAS(out, "lane 4");
    HAS(out, "address 0x50");
    free(out);
}
END_TEST

START_TEST(test_errors_fault_dump_has_location_fields)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char args[8192];
    snprintf(args, sizeof args, "%%s/oob_write.json --wave 8 --quiet --dump '%s/dump.json'", dir);
    char fmt[8300];
    snprintf(fmt, sizeof fmt, "run %s", args);
    char *out = cli(1, fmt, NULL);
    free(out);
    char path[4200];
    snprintf(path, sizeof path, "%s/dump.json", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    HAS(text, "\"fault\"");
    HAS(text, "\"out_of_bounds\"");
    HAS(text, "\"lane\":\t5");
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* ------------------------------------------------------------ compile errors: exit 2 */

START_TEST(test_errors_glsl_syntax_error_reports_file_and_line)
{
    char *out = cli(2, "run %s/syntax.json", NULL);
    HAS(out, "syntax.comp:6: error:");
    HAS(out, "syntax error");
    free(out);
    out = cli(2, "compile %s/syntax.json", NULL);
    HAS(out, "syntax.comp:6: error:");
    free(out);
}
END_TEST

/* A bare kernel file (no case): compile errors still name file and line (fixed in e0c4f83). */
START_TEST(test_errors_compile_bare_kernel_reports_file_and_line)
{
    char *out = cli(2, "compile %s/syntax.comp", NULL);
    HAS(out, "syntax.comp:6: error:");
    free(out);
    out = cli(0, "compile %s/entry.hlsl --entry CSMain", NULL);
    free(out);
}
END_TEST

START_TEST(test_errors_hlsl_error_reports_file_and_line)
{
    char *out = cli(2, "run %s/syntax_hlsl.json", NULL);
    HAS(out, "syntax.hlsl:6: error:");
    HAS(out, "undeclared_name");
    free(out);
}
END_TEST

START_TEST(test_errors_glsl_entry_other_than_main_rejected)
{
    char *out = cli(2, "run %s/entry_glsl.json", NULL);
    HAS(out, "entry point");
    HAS(out, "CSMain");
    free(out);
}
END_TEST

/* An HLSL entry point that names no function is a compile error naming it (exit 2): glslang 12's HLSL front
 * end alone would emit an empty entry point of that name (isa/compile.c checks). */
START_TEST(test_errors_hlsl_unknown_entry_point_rejected)
{
    char *out = cli(2, "run %s/entry.json", NULL);
    HAS(out, "NoSuchEntry");
    free(out);
}
END_TEST

START_TEST(test_errors_hlsl_known_entry_point_runs)
{
    char *out = cli(0, "run %s/entry_ok.json --wave 4", NULL);
    HAS(out, "PASS");
    free(out);
}
END_TEST

/* ------------------------------------------------------------ unsupported features: exit 2 */

START_TEST(test_errors_multisampled_image_unsupported_with_clear_message)
{
    char *out = cli(2, "run %s/image2d.json", NULL);
    HAS(out, "unsupported");
    HAS(out, "multisampled");
    HAS(out, "word ");
    free(out);

    /* and through the API: ISA_ERR_UNSUPPORTED from isa_lower */
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/errors/image2d.comp", tsup_root());
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char src[4096];
    size_t n = fread(src, 1, sizeof src - 1, f);
    src[n] = 0;
    fclose(f);
    isa_program *p = NULL;
    char msg[4096];
    isa_status st = tsup_build(src, "image2d.comp", "glsl", NULL, &p, msg, sizeof msg, NULL, 0);
    ck_assert_int_eq(st, ISA_ERR_UNSUPPORTED);
    ck_assert_ptr_null(p);
    HAS(msg, "multisampled: not modelled");
}
END_TEST

/* Lowers a GLSL kernel that declares DECL and touches big[] (and EXTRA, if DECL defines it); returns the status, message in msg. */
static isa_status lower_decl(const char *decl, char *msg, size_t msg_size)
{
    char src[1024];
    snprintf(src, sizeof src,
             "#version 450\nlayout(local_size_x = 4) in;\nlayout(set = 0, binding = 0) buffer B { uint o[]; };\n%s\n"
             "#ifndef EXTRA\n#define EXTRA 0u\n#endif\n"
             "void main() { big[gl_LocalInvocationIndex] = gl_LocalInvocationIndex; o[0] = big[0] + EXTRA; }\n", decl);
    isa_program *p = NULL;
    isa_status st = tsup_build(src, "big.comp", "glsl", NULL, &p, msg, msg_size, NULL, 0);
    if (st == ISA_OK)
        isa_program_destroy(p);
    return st;
}

START_TEST(test_errors_shared_array_past_32_bits_rejected_with_its_size)
{
    /* 2^28 uvec4 = 2^32 bytes: 32-bit layout arithmetic wrapped this to a 0-byte variable */
    char msg[4096], want[128];
    ck_assert_int_eq(lower_decl("shared uint big[268435456 * 4];", msg, sizeof msg), ISA_ERR_UNSUPPORTED);
    snprintf(want, sizeof want, "variable 'big'");
    HAS(msg, want);
    snprintf(want, sizeof want, "needs %llu bytes", 268435456ULL * 4 * 4);
    HAS(msg, want);
    HAS(msg, "word ");
}
END_TEST

START_TEST(test_errors_shared_and_private_limits_are_inclusive)
{
    char msg[4096], decl[128], want[128];
    /* exactly the limit lowers; one more element does not, and the message names both sizes */
    snprintf(decl, sizeof decl, "shared uint big[%u];", ISA_MAX_WORKGROUP_BYTES / 4);
    ck_assert_int_eq(lower_decl(decl, msg, sizeof msg), ISA_OK);
    snprintf(decl, sizeof decl, "shared uint big[%u];", ISA_MAX_WORKGROUP_BYTES / 4 + 1);
    ck_assert_int_eq(lower_decl(decl, msg, sizeof msg), ISA_ERR_UNSUPPORTED);
    snprintf(want, sizeof want, "needs %u bytes; wavelab models at most %u bytes of shared memory",
             ISA_MAX_WORKGROUP_BYTES + 4, ISA_MAX_WORKGROUP_BYTES);
    HAS(msg, want);

    /* private arrays: whichever glslang declares second pushes the area past the limit */
    snprintf(decl, sizeof decl, "uint pad[4]; uint big[%u];\n#define EXTRA pad[1]", ISA_MAX_PRIVATE_BYTES / 4 - 3);
    ck_assert_int_eq(lower_decl(decl, msg, sizeof msg), ISA_ERR_UNSUPPORTED);
    HAS(msg, "private variable '");
    snprintf(want, sizeof want, "(%u with the variables before it)", ISA_MAX_PRIVATE_BYTES + 4);
    HAS(msg, want);
}
END_TEST

/* ------------------------------------------------------------ case files: exit 2 */

START_TEST(test_errors_case_field_errors_name_the_field)
{
    char *out = cli(2, "run %s/bad_groups.json", NULL);
    HAS(out, "bad_groups.json: groups[1]");
    free(out);
    out = cli(2, "run %s/bad_binding_type.json", NULL);
    HAS(out, "bindings[0].type");
    HAS(out, "u33");
    free(out);
    out = cli(2, "run %s/missing_binding.json", NULL);
    HAS(out, "set 0 binding 1");
    free(out);
    out = cli(2, "run %s/no_such_case.json", NULL);
    HAS(out, "no_such_case.json");
    free(out);
    out = cli(2, "run %s/oob_write.json --wave 12", NULL);
    HAS(out, "wave size 12");
    free(out);
}
END_TEST

/* ------------------------------------------------------------ wavelab test */

static const char *pass_kernel =
    "#version 450\n"
    "layout(local_size_x = 4) in;\n"
    "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
    "void main() { v[gl_LocalInvocationIndex] *= 2u; }\n";

START_TEST(test_errors_wavelab_test_counts_and_exit_code)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "double.comp", pass_kernel));
    free(tsup_write_file(dir, "a_pass.json",
                         "{\"kernel\": \"double.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", "
                         "\"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, \"binding\": 0, \"data\": [2, 4, 6, 8]}]}"));
    char args[8192];
    snprintf(args, sizeof args, "test '%s' --waves 4,8 --jobs 2", dir);
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    ck_assert_msg(strstr(out, "2 passed, 0 failed\n") != NULL, "%s", out);
    free(out);

    free(tsup_write_file(dir, "b_fail.json",
                         "{\"kernel\": \"double.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", "
                         "\"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, \"binding\": 0, \"data\": [2, 4, 6, 9]}]}"));
    /* a case without expect is not counted */
    free(tsup_write_file(dir, "c_noexpect.json",
                         "{\"kernel\": \"double.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", "
                         "\"data\": [1, 2, 3, 4]}]}"));
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    size_t len = strlen(out);
    const char *tail = "2 passed, 2 failed\n";
    ck_assert_msg(len >= strlen(tail) && strcmp(out + len - strlen(tail), tail) == 0, "output does not end with '%s':\n%s",
                  tail, out);
    HAS(out, "FAIL");
    HAS(out, "b_fail.json");
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* Several threads compile at once: glslang's process state is set up once
 * (pthread_once in isa/compile.c), so no compile may fail for it. */
START_TEST(test_errors_wavelab_test_parallel_jobs_never_fail_compiles)
{
    for (int round = 0; round < 40; round++) {
        char *dir = tsup_temp_dir();
        ck_assert_ptr_nonnull(dir);
        free(tsup_write_file(dir, "double.comp", pass_kernel));
        free(tsup_write_file(dir, "a_pass.json",
                             "{\"kernel\": \"double.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": "
                             "\"u32\", \"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, \"binding\": 0, \"data\": "
                             "[2, 4, 6, 8]}]}"));
        char args[8192];
        snprintf(args, sizeof args, "test '%s' --waves 4,8 --jobs 2", dir);
        char *out = NULL;
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == 0, "round %d: exit %d:\n%s", round, rc, out);
        free(out);
        tsup_remove_dir(dir);
        free(dir);
    }
}
END_TEST

/* known_failure: a failing expectation reports XFAIL and counts as passed; a
 * holding one reports XPASS and fails, so the marker cannot outlive its reason. */
/* max_subgroup_size: `wavelab test --waves` skips (does not run, does not count) bigger wave sizes */
START_TEST(test_errors_wavelab_test_skips_waves_above_max_subgroup_size)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "double.comp", pass_kernel));
    free(tsup_write_file(dir, "x.json",
                         "{\"kernel\": \"double.comp\", \"max_subgroup_size\": 8, \"bindings\": [{\"set\": 0, "
                         "\"binding\": 0, \"type\": \"u32\", \"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, "
                         "\"binding\": 0, \"data\": [2, 4, 6, 8]}]}"));
    char args[8192];
    snprintf(args, sizeof args, "test '%s' --waves 4,8,16,128", dir);
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS(out, "PASS  ");
    HAS(out, "(wave 8)\n");
    HAS(out, "(wave 16): the expectations hold up to wave 8 (max_subgroup_size)");
    HAS(out, "(wave 128): the expectations hold up to wave 8 (max_subgroup_size)");
    HAS(out, "2 passed, 0 failed\n");
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

START_TEST(test_errors_wavelab_test_known_failure_is_xfail_and_xpass_fails)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "double.comp", pass_kernel));
    free(tsup_write_file(dir, "x.json",
                         "{\"kernel\": \"double.comp\", \"known_failure\": \"a quirk\", \"bindings\": [{\"set\": 0, "
                         "\"binding\": 0, \"type\": \"u32\", \"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, "
                         "\"binding\": 0, \"data\": [2, 4, 6, 9]}]}"));
    char args[8192];
    snprintf(args, sizeof args, "test '%s' --waves 8", dir);
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS(out, "XFAIL");
    HAS(out, "a quirk");
    HAS(out, "1 passed, 0 failed\n");
    free(out);
    free(tsup_write_file(dir, "x.json",
                         "{\"kernel\": \"double.comp\", \"known_failure\": \"a quirk\", \"bindings\": [{\"set\": 0, "
                         "\"binding\": 0, \"type\": \"u32\", \"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, "
                         "\"binding\": 0, \"data\": [2, 4, 6, 8]}]}"));
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    HAS(out, "XPASS");
    HAS(out, "0 passed, 1 failed\n");
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* ------------------------------------------------------------ invalid SPIR-V */

static uint32_t *good_module(size_t *n)
{
    isa_compile_options o = {.path = "ok.comp", .source = pass_kernel, .language = "glsl"};
    uint32_t *w = NULL;
    char err[2048], warn[2048];
    ck_assert_int_eq(isa_compile(&o, &w, n, err, sizeof err, warn, sizeof warn), ISA_OK);
    return w;
}

/* Feeds words to both validate and lower; both must fail with a message that names a word offset. */
static void expect_rejected(const uint32_t *w, size_t n, const char *what, const char *lower_says)
{
    char err[4096] = "";
    isa_status st = isa_validate(w, n, err, sizeof err);
    ck_assert_msg(st == ISA_ERR_INVALID, "%s: validate returned %d", what, (int)st);
    ck_assert_msg(strstr(err, "word") != NULL, "%s: validate message names no word: %s", what, err);
    isa_program *p = NULL;
    err[0] = 0;
    st = isa_lower(w, n, NULL, &p, err, sizeof err);
    ck_assert_msg(st != ISA_OK, "%s: lower accepted it", what);
    ck_assert_ptr_null(p);
    ck_assert_msg(strstr(err, lower_says) != NULL, "%s: lower message lacks \"%s\": %s", what, lower_says, err);
}

START_TEST(test_errors_spirv_bad_magic_rejected_with_word)
{
    size_t n;
    uint32_t *w = good_module(&n);
    w[0] = 0x12345678u;
    expect_rejected(w, n, "bad magic", "magic number 0x12345678"); /* word 0 */
    free(w);
}
END_TEST

START_TEST(test_errors_spirv_truncated_instruction_rejected_with_word)
{
    size_t n;
    uint32_t *w = good_module(&n);
    /* cut the stream in the middle of an instruction of several words */
    size_t i = 5, cut = 0;
    while (i < n) {
        uint32_t wc = w[i] >> 16;
        if (wc >= 4 && i > n / 2) {
            cut = i + 2;
            break;
        }
        i += wc ? wc : 1;
    }
    ck_assert_uint_gt(cut, 0);
    expect_rejected(w, cut, "truncated", "word");
    /* and an instruction whose word count runs past the end */
    w[i] = (w[i] & 0xffffu) | (0xfff0u << 16);
    expect_rejected(w, n, "word count past the end", "word");
    /* and a zero word count */
    w[i] = w[i] & 0xffffu;
    expect_rejected(w, n, "zero word count", "word");
    free(w);
}
END_TEST

START_TEST(test_errors_spirv_id_out_of_range_rejected_with_word)
{
    size_t n;
    uint32_t *w = good_module(&n);
    uint32_t bound = w[3];
    /* make the first OpStore's pointer id (or else the first OpLoad's) exceed the id bound */
    size_t i = 5;
    int done = 0;
    while (i < n && !done) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (op == 62 /* OpStore */ && wc >= 3) {
            w[i + 1] = bound + 100;
            done = 1;
        } else if (op == 61 /* OpLoad */ && wc >= 4) {
            w[i + 3] = bound + 100;
            done = 1;
        }
        i += wc ? wc : 1;
    }
    ck_assert(done);
    expect_rejected(w, n, "id out of range", "word");
    free(w);
}
END_TEST


START_TEST(test_errors_spirv_huge_id_bound_sizes_by_defined_ids)
{
    /* the header's bound may be the universal limit in a small module: the lowering must size its id
     * table by the ids the module defines (a 4194303-entry table is ~470 MB), and still lower it */
    size_t n;
    uint32_t *w = good_module(&n);
    uint32_t max_result = 0;
    for (size_t i = 5; i < n;) { /* result ids of the few opcodes glslang's module uses: by hand from the grammar */
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        ck_assert_uint_gt(wc, 0);
        uint32_t id = 0;
        if (op == 19 || op == 21 || op == 22 || op == 23 || op == 24 || op == 28 || op == 29 || op == 30 ||
            op == 32 || op == 33 || op == 248 || op == 11) /* OpType*, OpLabel, OpExtInstImport: result in word 1 */
            id = w[i + 1];
        else if (op == 43 || op == 54 || op == 59 || op == 61 || op == 65 || op == 128 || op == 132 || op == 80 ||
                 op == 81 || op == 20 || op == 41 || op == 42 || op == 44)
            id = w[i + 2]; /* OpConstant*, OpFunction, OpVariable, OpLoad, OpAccessChain, arithmetic: word 2 */
        if (id > max_result)
            max_result = id;
        i += wc;
    }
    uint32_t used = isa_spirv_used_id_bound(w, n);
    ck_assert_uint_ge(used, max_result + 1);
    ck_assert_uint_le(used, w[3]);
    w[3] = 4194303;
#ifndef __SANITIZE_ADDRESS__ /* ASan reserves terabytes of address space: no limit can be set under it */
    /* this test runs in its own process (Check forks): give it 256 MB of address space beyond what it has,
     * less than a table sized by the header's bound would take */
    long pages = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    ck_assert_ptr_nonnull(statm);
    ck_assert_int_eq(fscanf(statm, "%ld", &pages), 1);
    fclose(statm);
    rlim_t cap = (rlim_t)pages * 4096 + ((rlim_t)256 << 20);
    struct rlimit lim = {cap, cap};
    ck_assert_int_eq(setrlimit(RLIMIT_AS, &lim), 0);
#endif
    isa_program *p = NULL;
    char err[1024];
    ck_assert_msg(isa_lower(w, n, NULL, &p, err, sizeof err) == ISA_OK, "%s", err);
    isa_program_destroy(p);
    ck_assert_uint_eq(isa_spirv_used_id_bound(w, n), used);
    /* a module SPIRV-Tools cannot parse gives 0 (the lowering then reports its own error) */
    w[0] = 0x12345678;
    ck_assert_uint_eq(isa_spirv_used_id_bound(w, n), 0);
    free(w);
}
END_TEST

/* A word count of 0 after the first OpFunction (where the module passes stop) is an error naming the word, not
 * an endless walk. */
START_TEST(test_errors_spirv_zero_word_count_in_function_rejected)
{
    size_t n;
    uint32_t *w = good_module(&n);
    size_t i = 5;
    while (i < n && (w[i] & 0xffff) != 54 /* OpFunction */)
        i += w[i] >> 16;
    ck_assert_uint_lt(i, n);
    i += w[i] >> 16; /* the instruction after OpFunction */
    w[i] &= 0xffffu;
    expect_rejected(w, n, "zero word count in a function", "word");
    free(w);
}
END_TEST

START_TEST(test_errors_spirv_garbage_never_crashes)
{
    /* random words after a valid header, and short streams: errors, never a crash or an assert */
    size_t n;
    uint32_t *good = good_module(&n);
    uint32_t rs = 12345;
    /* mutations land in the function bodies (declarations are corrupted by the test below) */
    size_t body = 5;
    for (int trial = 0; trial < 200; trial++) {
        uint32_t *w = malloc(n * 4);
        memcpy(w, good, n * 4);
        int flips = 1 + (int)(tsup_rand(&rs) % 4);
        for (int k = 0; k < flips; k++) {
            size_t at = body + tsup_rand(&rs) % (n - body);
            w[at] = trial & 1 ? tsup_rand(&rs) : w[at] ^ (1u << (tsup_rand(&rs) % 32));
        }
        size_t len = trial % 7 == 0 ? tsup_rand(&rs) % n : n;
        char err[2048];
        isa_program *p = NULL;
            if (isa_lower(w, len, NULL, &p, err, sizeof err) == ISA_OK)
                isa_program_destroy(p);
        (void)isa_validate(w, len, err, sizeof err);
        free(w);
    }
    for (size_t len = 0; len < 5; len++) {
        char err[2048] = "";
        isa_program *p = NULL;
        ck_assert_int_ne(isa_lower(good, len, NULL, &p, err, sizeof err), ISA_OK);
        ck_assert_ptr_null(p);
    }
    free(good);
}
END_TEST

/* A result id defined twice as a type is rejected ("defined twice"), and the first type is not leaked (the
 * ASan build's LeakSanitizer checks). */
START_TEST(test_errors_spirv_duplicate_type_id_rejected_without_leak)
{
    size_t n;
    uint32_t *w = good_module(&n);
    size_t first = 0;
    for (size_t i = 5; i < n;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (op >= 19 && op <= 30 && wc >= 2) { /* OpTypeVoid .. OpTypeStruct-ish: result id at word 1 */
            if (!first)
                first = i;
            else {
                w[i + 1] = w[first + 1];
                break;
            }
        }
        i += wc ? wc : 1;
    }
    char err[2048];
    isa_program *p = NULL;
    ck_assert_int_ne(isa_lower(w, n, NULL, &p, err, sizeof err), ISA_OK); /* under ASan: must not leak */
    free(w);
}
END_TEST


START_TEST(test_errors_check_timeout_must_be_a_positive_number_of_seconds)
{
    /* parsed before any device is opened: exit 2 with the option named, on machines without Vulkan too */
    char *out = cli(2, "check %s/oob_read.json --timeout %s", "0");
    HAS(out, "--timeout");
    HAS(out, "\"0\"");
    free(out);
    out = cli(2, "run %s/oob_read.json --backend vulkan --timeout %s", "ten");
    HAS(out, "--timeout");
    HAS(out, "\"ten\"");
    free(out);
    out = cli(2, "check %s/oob_read.json --timeout%s", "");
    HAS(out, "missing value after");
    free(out);
}
END_TEST

static Suite *errors_suite(void)
{
    Suite *s = suite_create("errors");
    TCase *f = tcase_create("faults");
    tcase_set_timeout(f, 300);
    tcase_add_test(f, test_errors_buffer_read_out_of_bounds_names_wave_lane_address);
    tcase_add_test(f, test_errors_check_timeout_must_be_a_positive_number_of_seconds);
    tcase_add_test(f, test_errors_buffer_write_out_of_bounds_names_workgroup_wave_lane);
    tcase_add_test(f, test_errors_shared_memory_out_of_bounds_names_slot);
    tcase_add_test(f, test_errors_private_array_dynamic_index_out_of_bounds);
    tcase_add_test(f, test_errors_barrier_in_one_wave_deadlocks);
    tcase_add_test(f, test_errors_runaway_loop_exhausts_budget);
    tcase_add_test(f, test_errors_texel_buffer_index_out_of_range);
    tcase_add_test(f, test_errors_fault_dump_has_location_fields);
    suite_add_tcase(s, f);
    TCase *c = tcase_create("input");
    tcase_set_timeout(c, 300);
    tcase_add_test(c, test_errors_glsl_syntax_error_reports_file_and_line);
    tcase_add_test(c, test_errors_hlsl_error_reports_file_and_line);
    tcase_add_test(c, test_errors_glsl_entry_other_than_main_rejected);
    tcase_add_test(c, test_errors_hlsl_known_entry_point_runs);
    tcase_add_test(c, test_errors_hlsl_unknown_entry_point_rejected);
    tcase_add_test(c, test_errors_compile_bare_kernel_reports_file_and_line);
    tcase_add_test(c, test_errors_wavelab_test_parallel_jobs_never_fail_compiles);
    tcase_add_test(c, test_errors_multisampled_image_unsupported_with_clear_message);
    tcase_add_test(c, test_errors_shared_array_past_32_bits_rejected_with_its_size);
    tcase_add_test(c, test_errors_shared_and_private_limits_are_inclusive);
    tcase_add_test(c, test_errors_case_field_errors_name_the_field);
    tcase_add_test(c, test_errors_wavelab_test_counts_and_exit_code);
    tcase_add_test(c, test_errors_wavelab_test_known_failure_is_xfail_and_xpass_fails);
    tcase_add_test(c, test_errors_wavelab_test_skips_waves_above_max_subgroup_size);
    suite_add_tcase(s, c);
    TCase *v = tcase_create("spirv");
    tcase_set_timeout(v, 300);
    tcase_add_test(v, test_errors_spirv_bad_magic_rejected_with_word);
    tcase_add_test(v, test_errors_spirv_truncated_instruction_rejected_with_word);
    tcase_add_test(v, test_errors_spirv_id_out_of_range_rejected_with_word);
    tcase_add_test(v, test_errors_spirv_huge_id_bound_sizes_by_defined_ids);
    tcase_add_test(v, test_errors_spirv_garbage_never_crashes);
    tcase_add_test(v, test_errors_spirv_duplicate_type_id_rejected_without_leak);
    tcase_add_test(v, test_errors_spirv_zero_word_count_in_function_rejected);
    suite_add_tcase(s, v);
    return s;
}

int main(void) { return tsup_run_suite(errors_suite(), "test_errors"); }
