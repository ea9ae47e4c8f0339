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
#include <sys/stat.h>
#include <time.h>

#include "api/wavelab.h"
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

static const char *pass_kernel =
    "#version 450\n"
    "layout(local_size_x = 4) in;\n"
    "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
    "void main() { v[gl_LocalInvocationIndex] *= 2u; }\n";

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
    HAS(out, "--budget N raises it");
    free(out);
}
END_TEST

/* A grid with more waves than the budget has wave instructions stops at once (each wave runs at least one), not
 * after minutes of running the budget out: 65536^3 groups took three. */
START_TEST(test_errors_dispatch_larger_than_budget_refused_at_once)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "double.comp", pass_kernel));
    char *json = tsup_write_file(dir, "big.json",
                                 "{\"kernel\": \"double.comp\", \"groups\": [65536, 65536, 65536], \"bindings\": "
                                 "[{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"data\": [1, 2, 3, 4]}]}");
    char args[4400], *out = NULL;
    snprintf(args, sizeof args, "run '%s' --quiet", json);
    time_t start = time(NULL);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(time(NULL) - start < 20, "took %lld s", (long long)(time(NULL) - start));
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out ? out : "");
    HAS(out, "runaway kernel: 281474976710656 workgroups of 1 waves");
    HAS(out, "at the dispatch as a whole, before any wave ran");
    HAS(out, "--budget N raises it");
    free(out);
    free(json);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* A kernel's push-constant block the case does not fill is bad input (exit 2), not an out-of-bounds fault. */
START_TEST(test_errors_missing_push_constants_is_bad_input)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "pc.comp",
                         "#version 450\nlayout(local_size_x = 4) in;\nlayout(push_constant) uniform P { uint k; uint j; } pc;\n"
                         "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
                         "void main() { v[gl_LocalInvocationIndex] *= pc.k; }\n"));
    char *json = tsup_write_file(dir, "pc.json",
                                 "{\"kernel\": \"pc.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": "
                                 "\"u32\", \"data\": [1, 2, 3, 4]}]}");
    char args[4400], *out = NULL;
    snprintf(args, sizeof args, "run '%s' --quiet", json);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out ? out : "");
    HAS(out, "push_constants: the kernel's push-constant block 'pc' is 8 bytes but the case gives 0");
    free(out);
    free(json);
    /* 4 of the block's 8 bytes are not enough either; all 8 run */
    json = tsup_write_file(dir, "pc.json",
                           "{\"kernel\": \"pc.comp\", \"push_constants\": {\"type\": \"u32\", \"data\": [3]}, "
                           "\"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"data\": [1, 2, 3, 4]}]}");
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 2 && strstr(out, "is 8 bytes but the case gives 4"), "exit %d:\n%s", rc, out ? out : "");
    free(out);
    free(json);
    json = tsup_write_file(dir, "pc.json",
                           "{\"kernel\": \"pc.comp\", \"push_constants\": {\"type\": \"u32\", \"data\": [3, 0]}, "
                           "\"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"data\": [1, 2, 3, 4]}], "
                           "\"expect\": [{\"set\": 0, \"binding\": 0, \"data\": [3, 6, 9, 12]}]}");
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out ? out : "");
    free(out);
    free(json);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* A specialization key the kernel does not declare, or a value its type cannot hold: one line naming the key,
 * exit 2.  The ranges are the SPIR-V types' (uint: 0..2^32-1, int: -2^31..2^31-1). */
START_TEST(test_errors_specialization_bad_key_or_value_is_bad_input)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "s.comp",
                         "#version 450\nlayout(local_size_x = 4) in;\n"
                         "layout(constant_id = 3) const uint N = 8;\nlayout(constant_id = 5) const int K = 1;\n"
                         "layout(constant_id = 7) const bool B = false;\nlayout(constant_id = 9) const float F = 1.0;\n"
                         "layout(set = 0, binding = 0) buffer O { float v[]; };\n"
                         "void main() { v[gl_LocalInvocationIndex] = float(N) + float(K) + (B ? F : 0.0); }\n"));
    static const struct {
        const char *spec, *message;
    } bad[] = {
        {"{\"M\": 1}", "specialization \"M\": the kernel declares no specialization constant with this name"},
        {"{\"4\": 1}", "specialization \"4\": the kernel declares no specialization constant with this SpecId"},
        {"{\"N\": -1}", "specialization \"N\": does not fit the constant's unsigned integer type"},
        {"{\"3\": 4294967296}", "specialization \"3\": does not fit the constant's unsigned integer type"},
        {"{\"K\": 2147483648}", "specialization \"K\": does not fit the constant's signed integer type"},
        {"{\"N\": 1.5}", "specialization \"N\": the constant is an integer; expected a whole number"},
        {"{\"B\": 1}", "specialization \"B\": the constant is a bool; expected true or false"},
        {"{\"F\": true}", "specialization \"F\": the constant is a number; expected a number, not a bool"},
        {"{\"F\": 1e39}", "specialization \"F\": does not fit a 32-bit float"},
        {"{\"N\": \"8\"}", "specialization.N: expected true, false or a number, got a string"},
        {"[1]", "specialization: expected an object"},
    };
    char args[4400], *out = NULL;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char body[1024];
        snprintf(body, sizeof body,
                 "{\"kernel\": \"s.comp\", \"specialization\": %s, \"bindings\": [{\"set\": 0, \"binding\": 0, "
                 "\"type\": \"f32\", \"data\": [0, 0, 0, 0]}]}",
                 bad[i].spec);
        char *json = tsup_write_file(dir, "s.json", body);
        snprintf(args, sizeof args, "run '%s' --quiet", json);
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == 2, "%s: exit %d:\n%s", bad[i].spec, rc, out ? out : "");
        HAS(out, bad[i].message);
        ck_assert_msg(!strstr(out, "invalid SPIR-V"), "the case is at fault, not the module:\n%s", out);
        free(out);
        free(json);
    }
    /* the extremes of each type fit: N = 2^32-1, K = -2^31; 8 + 1 + 2.5 with B and F */
    char *json = tsup_write_file(dir, "s.json",
                                 "{\"kernel\": \"s.comp\", \"specialization\": {\"3\": 8, \"K\": 1, \"B\": true, "
                                 "\"9\": 2.5}, \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"f32\", "
                                 "\"data\": [0, 0, 0, 0]}], \"expect\": [{\"set\": 0, \"binding\": 0, \"data\": "
                                 "[11.5, 11.5, 11.5, 11.5]}]}");
    snprintf(args, sizeof args, "run '%s' --quiet", json);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out ? out : "");
    free(out);
    free(json);
    json = tsup_write_file(dir, "s.json",
                           "{\"kernel\": \"s.comp\", \"specialization\": {\"N\": 4294967295, \"K\": -2147483648}, "
                           "\"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"f32\", \"data\": [0, 0, 0, 0]}]}");
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out ? out : "");
    free(out);
    free(json);
    tsup_remove_dir(dir);
    free(dir);
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

START_TEST(test_errors_min_lod_operand_unsupported_with_clear_message)
{
    char *out = cli(2, "run %s/min_lod.json", NULL);
    HAS(out, "unsupported");
    HAS(out, "MinLod");
    HAS(out, "word ");
    free(out);

    /* and through the API: ISA_ERR_UNSUPPORTED from isa_lower */
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/errors/min_lod.comp", tsup_root());
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char src[4096];
    size_t n = fread(src, 1, sizeof src - 1, f);
    src[n] = 0;
    fclose(f);
    isa_program *p = NULL;
    char msg[4096];
    isa_status st = tsup_build(src, "min_lod.comp", "glsl", NULL, &p, msg, sizeof msg, NULL, 0);
    ck_assert_int_eq(st, ISA_ERR_UNSUPPORTED);
    ck_assert_ptr_null(p);
    HAS(msg, "(no Bias or MinLod)");
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
    out = cli(2, "run %s/oob_write.json --wave 12", NULL); /* refused before anything runs */
    ck_assert_str_eq(out, "wavelab run: --wave 12: not a wave size (a power of two from 4 to 128)\n");
    free(out);
}
END_TEST

/* ------------------------------------------------------------ wavelab test */


/* --version prints the header's version; CMD --help (anywhere on the line) and `help CMD` print that command's
 * entry of the usage and exit 0, without the other commands' entries; an unknown command is one line, exit 2. */
START_TEST(test_errors_version_and_per_command_help)
{
    char want[64];
    snprintf(want, sizeof want, "wavelab %d.%d.%d\n", WAVELAB_VERSION_MAJOR, WAVELAB_VERSION_MINOR,
             WAVELAB_VERSION_PATCH);
    char *out = cli(0, "--version", NULL);
    ck_assert_str_eq(out, want);
    free(out);
    static const char *const forms[] = {"test --help", "test kernels --wave 8 -h", "help test"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        out = cli(0, forms[i], NULL);
        ck_assert_msg(strncmp(out, "usage: wavelab test DIR|CASE...", 31) == 0, "%s:\n%s", forms[i], out);
        HAS(out, "--shard K/N");
        HAS(out, "exit codes: ");
        ck_assert_msg(!strstr(out, "  run CASE") && !strstr(out, "probe"), "%s:\n%s", forms[i], out);
        free(out);
    }
    out = cli(2, "help nosuch", NULL);
    ck_assert_str_eq(out, "wavelab help: unknown command \"nosuch\"\n");
    free(out);
    out = cli(2, "nosuch", NULL);
    ck_assert_str_eq(out, "wavelab: unknown command \"nosuch\" (wavelab --help lists the commands)\n");
    free(out);
}
END_TEST

/* --shard K/N: every N-th case of the sorted list from the K-th.  Five cases c0..c4, c3 failing: shard 1/2 runs
 * c0, c2, c4 (3 passed), shard 2/2 runs c1, c3 (1 passed, 1 failed, exit 1); each case in exactly one shard. */
START_TEST(test_errors_wavelab_test_shards_split_the_sorted_cases)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "double.comp", pass_kernel));
    for (int i = 0; i < 5; i++) {
        char name[16], text[512];
        snprintf(name, sizeof name, "c%d.json", i);
        snprintf(text, sizeof text,
                 "{\"kernel\": \"double.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", "
                 "\"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, \"binding\": 0, \"data\": [2, 4, 6, %d]}]}",
                 i == 3 ? 9 : 8);
        free(tsup_write_file(dir, name, text));
    }
    static const char *const in_shard[2][5] = {{"c0", "c2", "c4"}, {"c1", "c3"}};
    static const char *const want[2] = {"3 passed, 0 failed, 0 skipped, 0 xfail\n",
                                        "1 passed, 1 failed, 0 skipped, 0 xfail\n"};
    for (int k = 0; k < 2; k++) {
        char args[8192];
        snprintf(args, sizeof args, "test '%s' --wave 8 --shard %d/2", dir, k + 1);
        char *out = NULL;
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == (k == 0 ? 0 : 1), "exit %d:\n%s", rc, out);
        HAS(out, want[k]);
        HAS(out, k == 0 ? "shard 1 of 2: 3 of 5 cases\n" : "shard 2 of 2: 2 of 5 cases\n");
        for (int i = 0; i < 5; i++) {
            char id[16], path[32];
            snprintf(id, sizeof id, "c%d", i);
            snprintf(path, sizeof path, "/%s.json", id);
            int expected = 0;
            for (int j = 0; j < 5 && in_shard[k][j]; j++)
                expected |= strcmp(in_shard[k][j], id) == 0;
            ck_assert_msg(!strstr(out, path) == !expected, "shard %d, %s:\n%s", k + 1, path, out);
        }
        free(out);
    }
    static const char *const bad[] = {"0/2", "3/2", "1/0", "2", "/2", "a/b", "1/2/3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[8192], *out = NULL;
        snprintf(args, sizeof args, "test '%s' --shard %s", dir, bad[i]);
        ck_assert_int_eq(tsup_run_cli(args, &out), 2);
        HAS(out, "--shard");
        free(out);
    }
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

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
    ck_assert_msg(strstr(out, "2 passed, 0 failed, 0 skipped, 0 xfail\n") != NULL, "%s", out);
    free(out);

    free(tsup_write_file(dir, "b_fail.json",
                         "{\"kernel\": \"double.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", "
                         "\"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, \"binding\": 0, \"data\": [2, 4, 6, 9]}]}"));
    /* a case without expect is reported and counted as skipped, once per wave size */
    free(tsup_write_file(dir, "c_noexpect.json",
                         "{\"kernel\": \"double.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", "
                         "\"data\": [1, 2, 3, 4]}]}"));
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    size_t len = strlen(out);
    const char *tail = "2 passed, 2 failed, 2 skipped, 0 xfail\n";
    ck_assert_msg(len >= strlen(tail) && strcmp(out + len - strlen(tail), tail) == 0, "output does not end with '%s':\n%s",
                  tail, out);
    HAS(out, "FAIL");
    HAS(out, "b_fail.json");
    HAS(out, "c_noexpect.json (wave 4): the case has no \"expect\"\n");
    HAS(out, "c_noexpect.json (wave 8): the case has no \"expect\"\n");
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* A directory where a file belongs (the case, its kernel, an #include, a .spv) is bad input naming it: the
 * kernel reader used to take a directory's size as 2^63 - 1 bytes, the .spv reader printed that as its size. */
START_TEST(test_errors_directory_given_as_a_file_is_named)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    static const char *const names[] = {"kdir.comp", "inc.glsl", "k.spv"};
    for (size_t i = 0; i < 3; i++) {
        char sub[4200];
        snprintf(sub, sizeof sub, "%s/%s", dir, names[i]);
        ck_assert_int_eq(mkdir(sub, 0700), 0);
    }
    free(tsup_write_file(dir, "inc.comp",
                         "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"inc.glsl\"\n"
                         "layout(local_size_x = 4) in;\nlayout(set = 0, binding = 0) buffer B { uint v[]; };\n"
                         "void main() { v[gl_LocalInvocationIndex] *= 2u; }\n"));
    static const struct {
        const char *kernel, *want;
    } cases[] = {{"kdir.comp", "kdir.comp is a directory"},
                 {"inc.comp", "inc.glsl is a directory"},
                 {"k.spv", "k.spv is a directory"}};
    for (size_t i = 0; i < 3; i++) {
        char text[512];
        snprintf(text, sizeof text, "{\"kernel\": \"%s\", \"bindings\": [{\"set\": 0, \"binding\": 0, "
                 "\"type\": \"u32\", \"data\": [1, 2, 3, 4]}]}", cases[i].kernel);
        char *json = tsup_write_file(dir, "c.json", text);
        char args[4400], *out = NULL;
        snprintf(args, sizeof args, "run '%s'", json);
        int rc = tsup_run_cli(args, &out);
        ck_assert_msg(rc == 2 && out && strstr(out, cases[i].want) && !strstr(out, "9223372036854775807"),
                      "%s: exit %d:\n%s", cases[i].kernel, rc, out ? out : "");
        free(out);
        free(json);
    }
    /* the case itself */
    char args[4400], *out = NULL;
    snprintf(args, sizeof args, "run '%s/kdir.comp'", dir);
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 2 && out && strstr(out, "kdir.comp is a directory"), "exit %d:\n%s", rc, out ? out : "");
    free(out);
    /* and through the library: a directory as the kernel */
    char path[4200], msg[512];
    snprintf(path, sizeof path, "%s/kdir.comp", dir);
    uint32_t *words = NULL;
    size_t count = 0;
    isa_compile_options o = {.path = path};
    msg[0] = 0;
    ck_assert_int_eq(isa_compile(&o, &words, &count, msg, sizeof msg, NULL, 0), ISA_ERR_IO);
    ck_assert_msg(strstr(msg, "kdir.comp is a directory"), "%s", msg);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(args), 0);
    free(dir);
}
END_TEST

/* An empty folder is bad input with its name, not "no case files given" (and no qsort of a NULL array). */
START_TEST(test_errors_wavelab_test_empty_folder_says_no_cases)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    char args[4400], want[4400], *out = NULL;
    snprintf(args, sizeof args, "test '%s'", dir);
    int rc = tsup_run_cli(args, &out);
    snprintf(want, sizeof want, "wavelab test: no cases in %s\n", dir);
    ck_assert_msg(rc == 2 && out && strcmp(out, want) == 0, "exit %d:\n%s", rc, out ? out : "");
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* An option the simulator's run does not take is one line naming it, not the whole usage. */
START_TEST(test_errors_run_unknown_option_is_one_line)
{
    char *out = cli(2, "run %s/oob_read.json --repeat 3", NULL);
    ck_assert_str_eq(out, "wavelab run: --repeat times or picks a device: it needs --backend vulkan\n");
    free(out);
    out = cli(2, "run %s/oob_read.json --frobnicate", NULL);
    ck_assert_msg(strchr(out, '\n') == out + strlen(out) - 1 &&
                  strncmp(out, "wavelab run: unknown option --frobnicate (valid: --wave, ", 57) == 0, "%s", out);
    free(out);
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

/* max_subgroup_size: `wavelab test --waves` skips (does not run, counts as skipped) bigger wave sizes */
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
    HAS(out, "2 passed, 0 failed, 2 skipped, 0 xfail\n");
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* known_failure: a failing expectation reports XFAIL and counts as xfail (not passed); a
 * holding one reports XPASS and fails, so the marker cannot outlive its reason. */
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
    HAS(out, "0 passed, 0 failed, 0 skipped, 1 xfail\n");
    free(out);
    free(tsup_write_file(dir, "x.json",
                         "{\"kernel\": \"double.comp\", \"known_failure\": \"a quirk\", \"bindings\": [{\"set\": 0, "
                         "\"binding\": 0, \"type\": \"u32\", \"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, "
                         "\"binding\": 0, \"data\": [2, 4, 6, 8]}]}"));
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
    HAS(out, "XPASS");
    HAS(out, "0 passed, 1 failed, 0 skipped, 0 xfail\n");
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* subgroup_size is the only wave size a case holds at, min_subgroup_size the smallest: `wavelab test --waves`
 * skips the others with the reason (counted as skipped), `wavelab check --wave` refuses them before it looks
 * for a device, and the two fields contradicting each other is a case error. */
static const char *wave_size_kernel =
    "#version 450\n"
    "#extension GL_KHR_shader_subgroup_basic : require\n"
    "layout(local_size_x = 4) in;\n"
    "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
    "void main() { v[gl_LocalInvocationIndex] = gl_SubgroupSize; }\n";

START_TEST(test_errors_wavelab_test_skips_waves_the_case_excludes)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "size.comp", wave_size_kernel));
    /* the kernel writes the wave size: the expectation holds at 16 alone */
    free(tsup_write_file(dir, "only16.json",
                         "{\"kernel\": \"size.comp\", \"subgroup_size\": 16, \"bindings\": [{\"set\": 0, "
                         "\"binding\": 0, \"type\": \"u32\", \"count\": 4, \"fill\": {\"value\": 0}}], \"expect\": "
                         "[{\"set\": 0, \"binding\": 0, \"data\": [16, 16, 16, 16]}]}"));
    char args[8192];
    snprintf(args, sizeof args, "test '%s/only16.json' --waves 4,16,32", dir);
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS(out, "PASS  ");
    HAS(out, "(wave 4): the case runs only at wave 16 (subgroup_size)\n");
    HAS(out, "(wave 32): the case runs only at wave 16 (subgroup_size)\n");
    HAS(out, "1 passed, 0 failed, 2 skipped, 0 xfail\n");
    free(out);
    /* min_subgroup_size: an expectation that holds from 16 up (the kernel writes min(size, 16)) */
    free(tsup_write_file(dir, "min.comp",
                         "#version 450\n"
                         "#extension GL_KHR_shader_subgroup_basic : require\n"
                         "layout(local_size_x = 4) in;\n"
                         "layout(set = 0, binding = 0) buffer B { uint v[]; };\n"
                         "void main() { v[gl_LocalInvocationIndex] = min(gl_SubgroupSize, 16u); }\n"));
    free(tsup_write_file(dir, "from16.json",
                         "{\"kernel\": \"min.comp\", \"min_subgroup_size\": 16, \"bindings\": [{\"set\": 0, "
                         "\"binding\": 0, \"type\": \"u32\", \"count\": 4, \"fill\": {\"value\": 0}}], \"expect\": "
                         "[{\"set\": 0, \"binding\": 0, \"data\": [16, 16, 16, 16]}]}"));
    snprintf(args, sizeof args, "test '%s/from16.json' --waves 4,8,16,64", dir);
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS(out, "(wave 8): the expectations hold from wave 16 (min_subgroup_size)\n");
    HAS(out, "2 passed, 0 failed, 2 skipped, 0 xfail\n");
    free(out);
    /* without --waves the case runs at 32 (no subgroup_size): below a min_subgroup_size of 64, skipped too */
    free(tsup_write_file(dir, "from64.json",
                         "{\"kernel\": \"min.comp\", \"min_subgroup_size\": 64, \"bindings\": [{\"set\": 0, "
                         "\"binding\": 0, \"type\": \"u32\", \"count\": 4, \"fill\": {\"value\": 0}}], \"expect\": "
                         "[{\"set\": 0, \"binding\": 0, \"data\": [16, 16, 16, 16]}]}"));
    snprintf(args, sizeof args, "test '%s/from64.json'", dir);
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS(out, "from64.json (wave 32): the expectations hold from wave 64 (min_subgroup_size)\n");
    HAS(out, "0 passed, 0 failed, 1 skipped, 0 xfail\n");
    free(out);
    /* check --wave with a size the case excludes: bad input naming both, before any device is needed */
    snprintf(args, sizeof args, "check '%s/only16.json' --wave 32", dir);
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    HAS(out, "--wave 32: the case runs only at wave 16 (subgroup_size)");
    free(out);
    /* contradicting fields */
    free(tsup_write_file(dir, "both.json",
                         "{\"kernel\": \"size.comp\", \"subgroup_size\": 16, \"min_subgroup_size\": 8, "
                         "\"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"count\": 4}]}"));
    snprintf(args, sizeof args, "run '%s/both.json'", dir);
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    HAS(out, "min_subgroup_size");
    HAS(out, "subgroup_size already fixes the wave size at 16");
    free(out);
    free(tsup_write_file(dir, "inverted.json",
                         "{\"kernel\": \"size.comp\", \"min_subgroup_size\": 32, \"max_subgroup_size\": 8, "
                         "\"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"u32\", \"count\": 4}]}"));
    snprintf(args, sizeof args, "run '%s/inverted.json'", dir);
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    HAS(out, "32 is above max_subgroup_size 8");
    free(out);
    tsup_remove_dir(dir);
    free(dir);
}
END_TEST

/* Bindings that would give silent wrong results: an f32 binding for a uint buffer is bad input naming the binding and
 * both types (i32 is the same bits: accepted); a binding the kernel does not declare is a warning, and the run goes on. */
START_TEST(test_errors_binding_type_mismatch_is_an_error_and_unused_binding_a_warning)
{
    char *dir = tsup_temp_dir();
    ck_assert_ptr_nonnull(dir);
    free(tsup_write_file(dir, "double.comp", pass_kernel));
    free(tsup_write_file(dir, "float.json",
                         "{\"kernel\": \"double.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"f32\", "
                         "\"data\": [1, 2, 3, 4]}], \"expect\": [{\"set\": 0, \"binding\": 0, \"data\": [1, 2, 3, 4]}]}"));
    char args[8192];
    snprintf(args, sizeof args, "run '%s/float.json'", dir);
    char *out = NULL;
    int rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 2, "exit %d:\n%s", rc, out);
    HAS(out, "bindings (set 0 binding 0).type: the case says \"f32\" but the kernel reads and writes");
    HAS(out, " as u32");
    free(out);
    free(tsup_write_file(dir, "signed.json",
                         "{\"kernel\": \"double.comp\", \"bindings\": [{\"set\": 0, \"binding\": 0, \"type\": \"i32\", "
                         "\"data\": [1, 2, 3, 4]}, {\"set\": 1, \"binding\": 5, \"type\": \"u32\", \"count\": 1}], "
                         "\"expect\": [{\"set\": 0, \"binding\": 0, \"data\": [2, 4, 6, 8]}]}"));
    snprintf(args, sizeof args, "run '%s/signed.json'", dir);
    rc = tsup_run_cli(args, &out);
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
    HAS(out, "signed.json: warning: bindings (set 1 binding 5): the kernel does not use this binding\n");
    ck_assert_msg(!strstr(out, "(set 0 binding 0): the kernel does not use"), "%s", out);
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

/* A terminator with fewer operands than its targets (an OpReturn turned into an OpBranch of one word, so that
 * every word count still holds) is refused by name and word; the control-flow walk used to read the next
 * instruction's words as its target. */
START_TEST(test_errors_spirv_branch_without_target_rejected)
{
    size_t n;
    uint32_t *w = good_module(&n);
    size_t i = 5;
    while (i < n && w[i] != ((1u << 16) | 253u /* OpReturn */))
        i += w[i] >> 16;
    ck_assert_uint_lt(i, n);
    w[i] = (1u << 16) | 249u; /* OpBranch, no operand */
    expect_rejected(w, n, "OpBranch without a target", "(OpBranch): too few operands: 0, it needs at least 1");
    char err[4096] = "", word[32];
    isa_program *p = NULL;
    ck_assert_int_eq(isa_lower(w, n, NULL, &p, err, sizeof err), ISA_ERR_INVALID);
    snprintf(word, sizeof word, "word %zu", i);
    ck_assert_msg(strstr(err, word) != NULL, "the message names %s: %s", word, err);
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
    ck_assert_str_eq(out, "wavelab check: --timeout 0: not a count from 1 to 86400\n");
    free(out);
    out = cli(2, "run %s/oob_read.json --backend vulkan --timeout %s", "ten");
    ck_assert_str_eq(out, "wavelab run: --timeout ten: not a count from 1 to 86400\n");
    free(out);
    out = cli(2, "check %s/oob_read.json --timeout%s", "");
    ck_assert_str_eq(out, "wavelab check: --timeout needs a value (SECONDS)\n");
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
    tcase_add_test(f, test_errors_dispatch_larger_than_budget_refused_at_once);
    tcase_add_test(f, test_errors_missing_push_constants_is_bad_input);
    tcase_add_test(f, test_errors_specialization_bad_key_or_value_is_bad_input);
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
    tcase_add_test(c, test_errors_min_lod_operand_unsupported_with_clear_message);
    tcase_add_test(c, test_errors_shared_array_past_32_bits_rejected_with_its_size);
    tcase_add_test(c, test_errors_shared_and_private_limits_are_inclusive);
    tcase_add_test(c, test_errors_case_field_errors_name_the_field);
    tcase_add_test(c, test_errors_wavelab_test_counts_and_exit_code);
    tcase_add_test(c, test_errors_wavelab_test_shards_split_the_sorted_cases);
    tcase_add_test(c, test_errors_version_and_per_command_help);
    tcase_add_test(c, test_errors_run_unknown_option_is_one_line);
    tcase_add_test(c, test_errors_wavelab_test_empty_folder_says_no_cases);
    tcase_add_test(c, test_errors_directory_given_as_a_file_is_named);
    tcase_add_test(c, test_errors_wavelab_test_known_failure_is_xfail_and_xpass_fails);
    tcase_add_test(c, test_errors_wavelab_test_skips_waves_the_case_excludes);
    tcase_add_test(c, test_errors_binding_type_mismatch_is_an_error_and_unused_binding_a_warning);
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
    tcase_add_test(v, test_errors_spirv_branch_without_target_rejected);
    suite_add_tcase(s, v);
    return s;
}

int main(void) { return tsup_run_suite(errors_suite(), "test_errors"); }
