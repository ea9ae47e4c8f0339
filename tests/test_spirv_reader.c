/*
 * tests/test_spirv_reader.c — the SPIR-V module reader (isa/spirv.h): the
 * layouts of small assembled modules against sizes and offsets worked out by
 * hand from the Vulkan specification's rules (std140, std430 and scalar
 * blocks as their decorations say; a Workgroup struct of a float3 and a float
 * in natural layout), a LocalSizeId through a specialization constant, and
 * malformed modules refused with the word offset of the instruction at fault.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "isa/isa.h"
#include "isa/spirv.h"
#include "tests/support/tsup.h"

/* The preamble every module here shares: a GLCompute entry point %main with a 1x1x1 LocalSize unless the module
 * adds its own mode, and the scalar and vector types the layouts use. */
#define PREAMBLE                                                                 \
    "OpCapability Shader\n"                                                      \
    "OpMemoryModel Logical GLSL450\n"                                            \
    "OpEntryPoint GLCompute %main \"main\"\n"
#define TYPES                                                                    \
    "%void = OpTypeVoid\n"                                                       \
    "%fn = OpTypeFunction %void\n"                                               \
    "%uint = OpTypeInt 32 0\n"                                                   \
    "%int = OpTypeInt 32 1\n"                                                    \
    "%float = OpTypeFloat 32\n"                                                  \
    "%v2 = OpTypeVector %float 2\n"                                              \
    "%v3 = OpTypeVector %float 3\n"                                              \
    "%v4 = OpTypeVector %float 4\n"                                              \
    "%u3 = OpConstant %uint 3\n"                                                 \
    "%u4 = OpConstant %uint 4\n"
#define BODY                                                                     \
    "%main = OpFunction %void None %fn\n"                                        \
    "%entry = OpLabel\n"                                                         \
    "OpReturn\n"                                                                 \
    "OpFunctionEnd\n"

static uint32_t *assemble(const char *text, int minor, size_t *n)
{
    uint32_t *w = NULL;
    char err[512] = "";
    isa_status st = isa_assemble_spirv(text, strlen(text), minor, &w, n, err, sizeof err);
    ck_assert_msg(st == ISA_OK, "assembling: %s", err);
    return w;
}

/* The id the assembler gave a named result: the reader's OpName for it. */
static uint32_t id_named(const spv_module *m, const char *name)
{
    for (uint32_t k = 0; k < m->node_count; k++)
        if (m->nodes[k].name && strcmp(m->nodes[k].name, name) == 0)
            return m->nodes[k].id;
    ck_abort_msg("no id named %s", name);
    return 0;
}

/* The pointee of a named variable's pointer type. */
static uint32_t pointee_of(const spv_module *m, const char *var)
{
    const spv_node *v = spv_node_of(m, id_named(m, var));
    ck_assert_ptr_nonnull(v);
    const spv_type *p = spv_type_of(m, v->type);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->op, SpvOpTypePointer);
    return p->elem;
}

static void read_ok(spv_module *m, const uint32_t *w, size_t n)
{
    char err[256];
    ck_assert_msg(spv_module_read(m, w, n, err, sizeof err), "read: %s", err);
}

/* One block of { float a; vec3 b; float c; float arr[3]; vec2 d; } with the offsets and array stride a layout
 * gives it; expect[] the member offsets, arr's stride and the block's size. */
static void check_block(const char *storage, const char *block, const uint32_t offsets[5], uint32_t stride,
                        uint64_t size)
{
    char text[4096];
    snprintf(text, sizeof text,
             "%sOpExecutionMode %%main LocalSize 1 1 1\n"
             "OpName %%S \"S\"\nOpName %%buf \"buf\"\n"
             "OpDecorate %%S %s\n"
             "OpMemberDecorate %%S 0 Offset %u\nOpMemberDecorate %%S 1 Offset %u\nOpMemberDecorate %%S 2 Offset %u\n"
             "OpMemberDecorate %%S 3 Offset %u\nOpMemberDecorate %%S 4 Offset %u\n"
             "OpDecorate %%arr ArrayStride %u\n"
             "OpDecorate %%buf DescriptorSet 0\nOpDecorate %%buf Binding 1\n%s"
             "%%arr = OpTypeArray %%float %%u3\n"
             "%%S = OpTypeStruct %%float %%v3 %%float %%arr %%v2\n"
             "%%ptr = OpTypePointer %s %%S\n"
             "%%buf = OpVariable %%ptr %s\n%s",
             PREAMBLE, block, offsets[0], offsets[1], offsets[2], offsets[3], offsets[4], stride, TYPES, storage,
             storage, BODY);
    size_t n = 0;
    uint32_t *w = assemble(text, 3, &n);
    spv_module m;
    read_ok(&m, w, n);
    uint32_t s = pointee_of(&m, "buf");
    spv_diag d = {0};
    for (uint32_t k = 0; k < 5; k++)
        ck_assert_uint_eq(spv_member_offset(&m, s, k, true, &d), offsets[k]);
    const spv_type *t = spv_type_of(&m, s);
    ck_assert_uint_eq(spv_elem_stride(&m, t->members[3], true, 0, &d), stride);
    ck_assert_uint_eq(spv_layout_size(&m, t->members[3], true, &d), 3 * stride);
    ck_assert_uint_eq(spv_layout_size(&m, s, true, &d), size);
    ck_assert_msg(!d.failed, "%s", d.msg);
    const spv_node *v = spv_node_of(&m, id_named(&m, "buf"));
    ck_assert_int_eq(v->set, 0);
    ck_assert_int_eq(v->binding, 1);
    spv_module_free(&m);
    free(w);
}

/* std140: vec3 at 16 (aligned as vec4), the float after it packs at 28, array elements and the vec2 after the
 * array round up to 16: arr at 32 .. 80, d at 80, 8 bytes: 88. */
START_TEST(test_reader_std140_block)
{
    const uint32_t offsets[5] = {0, 16, 28, 32, 80};
    check_block("Uniform", "Block", offsets, 16, 88);
}
END_TEST

/* std430: arrays of scalars are tightly packed: arr at 32 .. 44, d (aligned 8) at 48, size 56. */
START_TEST(test_reader_std430_block)
{
    const uint32_t offsets[5] = {0, 16, 28, 32, 48};
    check_block("StorageBuffer", "Block", offsets, 4, 56);
}
END_TEST

/* scalar block layout: every member aligned as its scalar: b at 4, c at 16, arr at 20 .. 32, d at 32, size 40. */
START_TEST(test_reader_scalar_block)
{
    const uint32_t offsets[5] = {0, 4, 16, 20, 32};
    check_block("StorageBuffer", "Block", offsets, 4, 40);
}
END_TEST

/* A Workgroup struct { vec3 v; float f; } without explicit layout: the vec3 is aligned as a vec4 and takes 12
 * bytes, the float packs right after it at 12, the struct is 16 bytes aligned 16; an array of 4 of them strides 16
 * (64 bytes), and a following vec3[4] variable strides 16 too, starting at 64: the workgroup needs 128 bytes. */
START_TEST(test_reader_workgroup_natural_layout)
{
    const char *text = PREAMBLE "OpExecutionMode %main LocalSize 1 1 1\n"
                                "OpName %W \"W\"\nOpName %wa \"wa\"\nOpName %wb \"wb\"\n" TYPES
                                "%W = OpTypeStruct %v3 %float\n"
                                "%Wa = OpTypeArray %W %u4\n"
                                "%v3a = OpTypeArray %v3 %u4\n"
                                "%pWa = OpTypePointer Workgroup %Wa\n"
                                "%pv3a = OpTypePointer Workgroup %v3a\n"
                                "%wa = OpVariable %pWa Workgroup\n"
                                "%wb = OpVariable %pv3a Workgroup\n" BODY;
    size_t n = 0;
    uint32_t *w = assemble(text, 3, &n);
    spv_module m;
    read_ok(&m, w, n);
    spv_diag d = {0};
    uint32_t s = id_named(&m, "W");
    ck_assert_uint_eq(spv_member_offset(&m, s, 0, false, &d), 0);
    ck_assert_uint_eq(spv_member_offset(&m, s, 1, false, &d), 12);
    ck_assert_uint_eq(spv_natural_align(&m, s, &d), 16);
    ck_assert_uint_eq(spv_natural_size(&m, s, &d), 16);
    uint32_t wa = pointee_of(&m, "wa"), wb = pointee_of(&m, "wb");
    ck_assert_uint_eq(spv_elem_stride(&m, wa, false, 0, &d), 16);
    ck_assert_uint_eq(spv_layout_size(&m, wa, false, &d), 64);
    ck_assert_uint_eq(spv_elem_stride(&m, wb, false, 0, &d), 16);
    uint64_t base = 0, size = 0;
    spv_place_variable(&m, wa, true, 0, &base, &size, &d);
    ck_assert_uint_eq(base, 0);
    ck_assert_uint_eq(size, 64);
    spv_place_variable(&m, wb, true, 64, &base, &size, &d);
    ck_assert_uint_eq(base, 64);
    ck_assert_uint_eq(size, 64);
    ck_assert_msg(!d.failed, "%s", d.msg);
    spv_module_free(&m);

    /* the backend's shared-memory bound is the same 128 bytes (tightly packed it was 4 * 16 + 4 * 12 = 112) */
    vkb_kernel_info k;
    char err[256] = "";
    ck_assert_int_eq(vkb_kernel_scan(w, n, "main", &k, err, sizeof err), VKB_OK);
    ck_assert_uint_eq(k.shared_bytes, 128);
    free(w);
}
END_TEST

/* LocalSizeId through a specialization constant (SpecId 7, default 64) and two plain constants; the push-constant
 * block { uint; vec4 at 16 } spans 32 bytes. */
START_TEST(test_reader_local_size_id_and_spec_constant)
{
    const char *text = "OpCapability Shader\n"
                       "OpMemoryModel Logical GLSL450\n"
                       "OpEntryPoint GLCompute %main \"main\"\n"
                       "OpExecutionModeId %main LocalSizeId %x %one %one\n"
                       "OpName %x \"x\"\nOpName %pc \"pc\"\n"
                       "OpDecorate %x SpecId 7\n"
                       "OpDecorate %P Block\nOpMemberDecorate %P 0 Offset 0\nOpMemberDecorate %P 1 Offset 16\n"
                       "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n"
                       "%float = OpTypeFloat 32\n%v4 = OpTypeVector %float 4\n"
                       "%x = OpSpecConstant %uint 64\n%one = OpConstant %uint 1\n"
                       "%P = OpTypeStruct %uint %v4\n%pP = OpTypePointer PushConstant %P\n"
                       "%pc = OpVariable %pP PushConstant\n" BODY;
    size_t n = 0;
    uint32_t *w = assemble(text, 3, &n);
    spv_module m;
    read_ok(&m, w, n);
    const spv_entry *e = spv_entry_named(&m, SpvExecutionModelGLCompute, "main");
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(m.mode_count, 1);
    const spv_mode *md = &m.modes[0];
    ck_assert_uint_eq(md->entry, e->func);
    ck_assert_uint_eq(md->mode, SpvExecutionModeLocalSizeId);
    ck_assert(md->is_id);
    ck_assert_uint_eq(md->nargs, 3);
    const spv_node *x = spv_node_of(&m, md->args[0]);
    ck_assert_uint_eq(x->id, id_named(&m, "x"));
    ck_assert_int_eq(x->op, SpvOpSpecConstant);
    ck_assert_uint_eq(x->spec_id, 7 + 1);
    ck_assert_uint_eq(x->value, 64);
    ck_assert_uint_eq(spv_node_of(&m, md->args[1])->value, 1);
    spv_diag d = {0};
    ck_assert_uint_eq(spv_layout_size(&m, pointee_of(&m, "pc"), true, &d), 32);
    spv_module_free(&m);

    vkb_kernel_info k;
    char err[256] = "";
    ck_assert_int_eq(vkb_kernel_scan(w, n, "main", &k, err, sizeof err), VKB_OK);
    ck_assert_uint_eq(k.local_size[0], 64);
    ck_assert_uint_eq(k.local_size[1], 1);
    ck_assert_uint_eq(k.push_constant_bytes, 32);
    free(w);
}
END_TEST

/* A copy of a small valid module that a test breaks. */
static uint32_t *small_module(size_t *n)
{
    return assemble(PREAMBLE "OpExecutionMode %main LocalSize 1 1 1\nOpName %main \"main\"\n" TYPES BODY, 3, n);
}

/* Word offset of the first instruction with this opcode. */
static size_t word_of(const uint32_t *w, size_t n, SpvOp op)
{
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, w, n, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST)
        if (in.op == op)
            return in.word;
    ck_abort_msg("no opcode %d", (int)op);
    return 0;
}

static void expect_refused(const uint32_t *w, size_t n, size_t word)
{
    spv_module m;
    char err[256] = "", want[32];
    ck_assert(!spv_module_read(&m, w, n, err, sizeof err));
    ck_assert_uint_eq(m.err_word, word);
    snprintf(want, sizeof want, "word %zu: ", word);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "error \"%s\" does not start with \"%s\"", err, want);
    ck_assert_ptr_null(m.nodes);
}

/* A matrix member takes its MatrixStride: { mat3 m; mat2x3 r (RowMajor); } with std430's strides.  The column-major
 * mat3 has 3 columns 16 bytes apart: 48 bytes at 0.  The row-major mat2x3 (2 columns of 3 floats, so 3 rows of 2)
 * has 3 rows 16 bytes apart at offset 48: it ends at 96 (its packed columns alone would end at 72). */
START_TEST(test_reader_matrix_member_takes_its_matrix_stride)
{
    const char *text = PREAMBLE "OpExecutionMode %main LocalSize 1 1 1\n"
                                "OpName %pc \"pc\"\n"
                                "OpDecorate %P Block\n"
                                "OpMemberDecorate %P 0 Offset 0\nOpMemberDecorate %P 0 ColMajor\n"
                                "OpMemberDecorate %P 0 MatrixStride 16\n"
                                "OpMemberDecorate %P 1 Offset 48\nOpMemberDecorate %P 1 RowMajor\n"
                                "OpMemberDecorate %P 1 MatrixStride 16\n" TYPES
                                "%m3 = OpTypeMatrix %v3 3\n%m23 = OpTypeMatrix %v3 2\n"
                                "%P = OpTypeStruct %m3 %m23\n%pP = OpTypePointer PushConstant %P\n"
                                "%pc = OpVariable %pP PushConstant\n" BODY;
    size_t n = 0;
    uint32_t *w = assemble(text, 3, &n);
    spv_module m;
    read_ok(&m, w, n);
    spv_diag d = {0};
    ck_assert_uint_eq(spv_layout_size(&m, pointee_of(&m, "pc"), true, &d), 96);
    ck_assert_msg(!d.failed, "%s", d.msg);
    spv_module_free(&m);

    vkb_kernel_info k;
    char err[256] = "";
    ck_assert_int_eq(vkb_kernel_scan(w, n, "main", &k, err, sizeof err), VKB_OK);
    ck_assert_uint_eq(k.push_constant_bytes, 96);
    free(w);
}
END_TEST

/* A module whose Workgroup variable "sh" is struct s<levels>, each s<i> holding two of s<i-1>, s0 two uints. */
static uint32_t *struct_chain(int levels, size_t *n)
{
    char chain[8192];
    int len = snprintf(chain, sizeof chain, "%sOpExecutionMode %%main LocalSize 1 1 1\nOpName %%sh \"sh\"\n%s"
                       "%%s0 = OpTypeStruct %%uint %%uint\n", PREAMBLE, TYPES);
    for (int i = 1; i <= levels; i++)
        len += snprintf(chain + len, sizeof chain - (size_t)len, "%%s%d = OpTypeStruct %%s%d %%s%d\n", i, i - 1,
                        i - 1);
    snprintf(chain + len, sizeof chain - (size_t)len,
             "%%ps = OpTypePointer Workgroup %%s%d\n%%sh = OpVariable %%ps Workgroup\n%s", levels, BODY);
    return assemble(chain, 3, n);
}

/* Struct type paths, counted by hand: S0 { uint, uint } reaches itself and two uints (3); S1 { S0, S0[2] } itself,
 * S0's 3, and the array's 1 + 3 (8): 11 over both structs.  A chain of structs that each hold two of the one
 * before doubles per level; the validation refuses it, naming a struct, where SPIRV-Tools alone took exponential
 * time (22 levels: seconds; 40: hours). */
START_TEST(test_reader_struct_type_paths_and_the_refusal_of_repeated_structs)
{
    const char *text = PREAMBLE "OpExecutionMode %main LocalSize 1 1 1\nOpName %S1 \"S1\"\n" TYPES
                                "%u2 = OpConstant %uint 2\n"
                                "%S0 = OpTypeStruct %uint %uint\n%A = OpTypeArray %S0 %u2\n"
                                "%S1 = OpTypeStruct %S0 %A\n" BODY;
    size_t n = 0;
    uint32_t *w = assemble(text, 3, &n);
    spv_module m;
    read_ok(&m, w, n);
    uint32_t worst = 0;
    ck_assert_uint_eq(spv_struct_type_paths(&m, 1000, &worst), 3 + 8);
    ck_assert_uint_eq(worst, id_named(&m, "S1")); /* the struct with the most paths, 8 */
    ck_assert_uint_eq(spv_struct_type_paths(&m, 5, NULL), 6); /* saturates past the limit */
    spv_module_free(&m);
    free(w);

    w = struct_chain(22, &n);
    char err[512] = "";
    ck_assert_int_eq(isa_validate(w, n, err, sizeof err), ISA_ERR_INVALID);
    ck_assert_msg(strstr(err, "1048576 type paths"), "%s", err);
    free(w);

    /* the reader's own layout queries remember each struct's answer: 40 levels, s40 is 2^40 copies of 8 bytes,
     * worked out once per struct (before: 2^41 calls for one query, hours; the fuzz harness queries every type) */
    w = struct_chain(40, &n);
    read_ok(&m, w, n);
    spv_diag d = {0};
    ck_assert_uint_eq(spv_natural_size(&m, pointee_of(&m, "sh"), &d), (uint64_t)8 << 40);
    ck_assert_uint_eq(spv_natural_align(&m, pointee_of(&m, "sh"), &d), 4);
    ck_assert_uint_eq(spv_layout_size(&m, pointee_of(&m, "sh"), false, &d), (uint64_t)8 << 40);
    ck_assert_uint_eq(spv_member_offset(&m, pointee_of(&m, "sh"), 1, false, &d), (uint64_t)8 << 39);
    ck_assert(!d.failed);
    spv_module_free(&m);
    free(w);
}
END_TEST

START_TEST(test_reader_refuses_zero_word_count)
{
    size_t n = 0;
    uint32_t *w = small_module(&n);
    size_t at = word_of(w, n, SpvOpTypeFloat);
    w[at] &= 0xffff; /* word count 0 */
    expect_refused(w, n, at);
    /* the iterator says so too, and stops there */
    spv_iter it;
    spv_inst in;
    spv_step step;
    spv_iter_init(&it, w, n, SPV_HEADER_WORDS);
    while ((step = spv_next(&it, &in)) == SPV_STEP_INST)
        ck_assert_uint_lt(in.word, at);
    ck_assert_int_eq(step, SPV_STEP_BAD);
    ck_assert_uint_eq(in.word, at);
    ck_assert_uint_eq(in.wc, 0);
    free(w);
}
END_TEST

START_TEST(test_reader_refuses_count_past_the_end)
{
    size_t n = 0;
    uint32_t *w = small_module(&n);
    size_t at = word_of(w, n, SpvOpFunctionEnd); /* the last instruction, one word */
    ck_assert_uint_eq(at, n - 1);
    w[at] = (2u << 16) | SpvOpFunctionEnd;
    expect_refused(w, n, at);
    free(w);
}
END_TEST

START_TEST(test_reader_refuses_a_string_without_its_nul)
{
    size_t n = 0;
    uint32_t *w = small_module(&n);
    size_t at = word_of(w, n, SpvOpName); /* OpName %main "main": "main" fills a word, its NUL the next */
    ck_assert_uint_eq(w[at] >> 16, 4);
    w[at] = (3u << 16) | SpvOpName;        /* the instruction now ends before the NUL ... */
    memmove(w + at + 3, w + at + 4, (n - at - 4) * sizeof *w);
    n--;                                   /* ... and the module stays well formed otherwise */
    expect_refused(w, n, at);
    free(w);
}
END_TEST

START_TEST(test_reader_refuses_bad_headers)
{
    size_t n = 0;
    uint32_t *w = small_module(&n);
    expect_refused(w, 4, 0);
    w[3] = 0; /* id bound */
    expect_refused(w, n, 3);
    w[0] = 0x03022307u;
    expect_refused(w, n, 0);
    free(w);
}
END_TEST

/* A struct that contains itself (or any type named before it is declared) would send every layout query round
 * for ever: refused where it is declared. */
START_TEST(test_reader_refuses_a_type_declared_after_its_use)
{
    size_t n = 0;
    uint32_t *w = assemble(PREAMBLE TYPES "%S = OpTypeStruct %float %S\n" BODY, 3, &n);
    expect_refused(w, n, word_of(w, n, SpvOpTypeStruct));
    free(w);
}
END_TEST

/* A malformed scalar narrower than a byte has alignment 0: the layout queries go on (size 0), no division by 0. */
START_TEST(test_reader_layout_of_a_zero_width_scalar)
{
    size_t n = 0;
    uint32_t *w = assemble(PREAMBLE "OpName %S \"S\"\n" TYPES "%tiny = OpTypeInt 4 0\n"
                           "%S = OpTypeStruct %float %tiny %float\n" BODY, 3, &n);
    spv_module m;
    read_ok(&m, w, n);
    uint32_t s = id_named(&m, "S");
    spv_diag d = {0};
    ck_assert_uint_eq(spv_member_offset(&m, s, 2, false, &d), 4);
    ck_assert_uint_eq(spv_natural_size(&m, s, &d), 8);
    spv_module_free(&m);
    free(w);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("spirv_reader");
    TCase *tc = tcase_create("spirv_reader");
    tcase_add_test(tc, test_reader_std140_block);
    tcase_add_test(tc, test_reader_std430_block);
    tcase_add_test(tc, test_reader_scalar_block);
    tcase_add_test(tc, test_reader_workgroup_natural_layout);
    tcase_add_test(tc, test_reader_local_size_id_and_spec_constant);
    tcase_add_test(tc, test_reader_matrix_member_takes_its_matrix_stride);
    tcase_add_test(tc, test_reader_struct_type_paths_and_the_refusal_of_repeated_structs);
    tcase_add_test(tc, test_reader_refuses_zero_word_count);
    tcase_add_test(tc, test_reader_refuses_count_past_the_end);
    tcase_add_test(tc, test_reader_refuses_a_string_without_its_nul);
    tcase_add_test(tc, test_reader_refuses_bad_headers);
    tcase_add_test(tc, test_reader_refuses_a_type_declared_after_its_use);
    tcase_add_test(tc, test_reader_layout_of_a_zero_width_scalar);
    suite_add_tcase(s, tc);
    return tsup_run_suite(s, "test_spirv_reader");
}
