/*
 * tests/test_ops_table.c — the instruction table (isa/ops.def, isa/shapes.def,
 * isa/glsl450.def) as its readers see it: the registers liveness reports, the
 * validator's verdicts, the result kinds and the listing.  Every expectation
 * is written by hand from the instruction's meaning in isa/ops.def (or from
 * the GLSL.std.450 specification), not read back from the tables.
 */
#include <check.h>
#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.h>
#include <vulkan/vulkan_core.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "tests/support/tsup.h"

static isa_inst inst(isa_op op, uint32_t d, uint32_t a, uint32_t b, uint32_t c, uint32_t e)
{
    isa_inst in;
    memset(&in, 0, sizeof in);
    in.op = (uint16_t)op;
    in.type = ISA_TYPE_U32;
    in.d = d, in.a = a, in.b = b, in.c = c, in.e = e;
    return in;
}

/* The spans liveness reports, as text: "w 3+1 | r 5+1 7+1" (first+count, in the order reported). */
static void regs_text(const isa_inst *in, char *buf, size_t size)
{
    isa_span rd[6], wr[2];
    int nr, nw;
    isa_inst_regs(in, rd, &nr, wr, &nw);
    size_t n = (size_t)snprintf(buf, size, "w");
    for (int k = 0; k < nw; k++)
        n += (size_t)snprintf(buf + n, size - n, " %u+%u", wr[k].first, wr[k].count);
    n += (size_t)snprintf(buf + n, size - n, " | r");
    for (int k = 0; k < nr; k++)
        n += (size_t)snprintf(buf + n, size - n, " %u+%u", rd[k].first, rd[k].count);
}

#define NO ISA_NO_REG
#define EXPECT_REGS(in, text)                                                                                      \
    do {                                                                                                           \
        char got_[128];                                                                                            \
        regs_text(&(in), got_, sizeof got_);                                                                       \
        ck_assert_msg(strcmp(got_, (text)) == 0, "%s: got '%s', want '%s'", isa_op_name((isa_op)(in).op), got_,   \
                      (text));                                                                                     \
    } while (0)

START_TEST(test_ops_registers_by_meaning)
{
    isa_inst in = inst(ISA_OP_IADD, 1, 2, 3, NO, NO); /* d = a + b */
    EXPECT_REGS(in, "w 1+1 | r 2+1 3+1");
    in = inst(ISA_OP_STORE, NO, 4, 8, NO, NO); /* count values from b.. to address a */
    in.count = 3;
    EXPECT_REGS(in, "w | r 8+3 4+1");
    in = inst(ISA_OP_LOAD, 10, NO, NO, NO, NO); /* a = ISA_NO_REG: address imm alone */
    in.count = 4;
    EXPECT_REGS(in, "w 10+4 | r");
    in = inst(ISA_OP_ATOMIC, 1, 2, 3, 4, NO); /* CMPXCHG stores b only if old == c */
    in.imm2 = ISA_RED_CMPXCHG;
    EXPECT_REGS(in, "w 1+1 | r 2+1 3+1 4+1");
    in.imm2 = ISA_RED_ADD; /* c is not an operand of add, whatever the field holds */
    EXPECT_REGS(in, "w 1+1 | r 2+1 3+1");
    in.imm2 = ISA_RED_LOAD; /* an atomic load has no value operand */
    EXPECT_REGS(in, "w 1+1 | r 2+1");
    in = inst(ISA_OP_BALLOT, 8, 2, NO, NO, NO); /* d..d+3 = mask */
    EXPECT_REGS(in, "w 8+4 | r 2+1");
    in = inst(ISA_OP_BALLOT_BIT, 1, 8, 3, NO, NO); /* bit b of ballot a..a+3 */
    EXPECT_REGS(in, "w 1+1 | r 8+4 3+1");
    in = inst(ISA_OP_VINSERT, 20, 2, 3, NO, NO); /* register (d + b) = a for b < imm: the array is read and written */
    in.imm = 5;
    EXPECT_REGS(in, "w 20+5 | r 20+5 2+1 3+1");
    in = inst(ISA_OP_VEXTRACT, 1, 20, 3, NO, NO);
    in.imm = 6;
    EXPECT_REGS(in, "w 1+1 | r 20+6 3+1");
    in = inst(ISA_OP_IMG_STORE, NO, 4, 8, NO, NO); /* coordinates a.. (count), texel b..b+3 */
    in.count = 2;
    EXPECT_REGS(in, "w | r 4+2 8+4");
    in = inst(ISA_OP_IMG_SAMPLE, 1, 10, NO, 20, 30); /* gradients c.. and e.., imm each */
    in.count = 2, in.imm = 2;
    EXPECT_REGS(in, "w 1+4 | r 10+2 20+2 30+2");
}
END_TEST

/* The control instructions that once fell to a "two-operand ALU" default: masks are never registers. */
START_TEST(test_ops_control_masks_are_not_registers)
{
    isa_inst in = inst(ISA_OP_BRANCH_CMP, 1, 2, 3, 0, 1); /* d = a cmp b; masks c, e */
    in.imm2 = ISA_OP_ULT;
    EXPECT_REGS(in, "w 1+1 | r 2+1 3+1");
    in = inst(ISA_OP_BRANCH_IF, NO, 2, NO, NO, 1); /* exec &= a; mask e */
    EXPECT_REGS(in, "w | r 2+1");
    in = inst(ISA_OP_BRANCH_IF, 5, 2, 3, NO, 1); /* fused: d = a cmp b */
    in.imm2 = ISA_OP_SLT;
    EXPECT_REGS(in, "w 5+1 | r 2+1 3+1");
    in = inst(ISA_OP_JUMP, NO, NO, NO, NO, NO);
    EXPECT_REGS(in, "w | r");
    in = inst(ISA_OP_MOVM, 1, 2, 0, NO, NO); /* b is a mask */
    EXPECT_REGS(in, "w 1+1 | r 2+1");
    in = inst(ISA_OP_MASK_OR, 1, 0, NO, NO, NO);
    EXPECT_REGS(in, "w | r");
    in = inst(ISA_OP_BRANCH, 0, 7, NO, NO, 1); /* masks d, e; condition a */
    EXPECT_REGS(in, "w | r 7+1");
}
END_TEST

/* GLSL.std.450: operand counts from the specification. */
START_TEST(test_ops_glsl450_operands)
{
    isa_inst in = inst(ISA_OP_FMATH, 1, 2, 3, 4, NO);
    in.type = ISA_TYPE_F32;
    in.imm = GLSLstd450Fma; /* a * b + c */
    EXPECT_REGS(in, "w 1+1 | r 2+1 3+1 4+1");
    in.imm = GLSLstd450Sqrt; /* one operand: b and c are not read */
    EXPECT_REGS(in, "w 1+1 | r 2+1");
    in.imm = GLSLstd450PackHalf2x16; /* a vec2: two registers */
    EXPECT_REGS(in, "w 1+1 | r 2+2");
    in.imm = GLSLstd450UnpackUnorm4x8; /* a vec4 result */
    EXPECT_REGS(in, "w 1+4 | r 2+1");
    in.imm = GLSLstd450Frexp; /* significand and exponent */
    EXPECT_REGS(in, "w 1+2 | r 2+1");
    ck_assert_ptr_null(isa_glsl_info(GLSLstd450Determinant)); /* not modelled */
    ck_assert_ptr_null(isa_glsl_info(-1));
    ck_assert_ptr_null(isa_glsl_info(100000));
    ck_assert_int_eq(isa_glsl_info(GLSLstd450SMin)->sign, 's');
    ck_assert_int_eq(isa_glsl_info(GLSLstd450UClamp)->sign, 'u');
    ck_assert_int_eq(isa_glsl_info(GLSLstd450FMin)->sign, 0);
    ck_assert_str_eq(isa_glsl_info(GLSLstd450InverseSqrt)->name, "InverseSqrt");
}
END_TEST

/* A comparison, a vote and a lane test write one bool per lane whatever their operand type; a ballot and an
 * element count write u32; arithmetic writes its own type. */
START_TEST(test_ops_result_kinds)
{
    const isa_op bools[] = {ISA_OP_IEQ, ISA_OP_SLT, ISA_OP_FUNE, ISA_OP_ISNAN, ISA_OP_VOTE_ANY, ISA_OP_ELECT,
                            ISA_OP_INV_BALLOT, ISA_OP_BALLOT_BIT};
    for (size_t k = 0; k < sizeof bools / sizeof bools[0]; k++)
        ck_assert_msg(isa_op_result(bools[k]) == ISA_RESULT_BOOL, "%s", isa_op_name(bools[k]));
    const isa_op u32s[] = {ISA_OP_BALLOT, ISA_OP_BALLOT_CNT, ISA_OP_BALLOT_MSB, ISA_OP_ARRAY_LEN, ISA_OP_IMG_SIZE};
    for (size_t k = 0; k < sizeof u32s / sizeof u32s[0]; k++)
        ck_assert_msg(isa_op_result(u32s[k]) == ISA_RESULT_U32, "%s", isa_op_name(u32s[k]));
    ck_assert(isa_op_result(ISA_OP_FADD) == ISA_RESULT_TYPED);
    ck_assert(isa_op_result(ISA_OP_WAVE_OP) == ISA_RESULT_TYPED);
    /* every instruction whose result is a bool or a u32 writes a register */
    for (int op = 0; op < ISA_OP_COUNT; op++) {
        if (isa_op_result((isa_op)op) == ISA_RESULT_TYPED)
            continue;
        const isa_shape *sh = isa_op_shape((isa_op)op);
        int writes = 0;
        for (unsigned k = 0; k < sh->count; k++)
            writes |= sh->op[k].role == ISA_ROLE_WRITE;
        ck_assert_msg(writes, "%s has a result kind but writes nothing", isa_op_name((isa_op)op));
    }
}
END_TEST

/* A program of `code` followed by END, with 8 registers, 2 masks and 1 slot. */
static int validate(isa_inst code, char *err, size_t size, uint32_t *pc)
{
    isa_inst prog[2] = {code, inst(ISA_OP_END, NO, NO, NO, NO, NO)};
    isa_slot slot;
    memset(&slot, 0, sizeof slot);
    snprintf(slot.name, sizeof slot.name, "buf");
    isa_program p;
    memset(&p, 0, sizeof p);
    p.code = prog, p.code_count = 2, p.reg_count = 8, p.mask_count = 2, p.slots = &slot, p.slot_count = 1;
    err[0] = 0;
    return isa_program_validate(&p, pc, err, size);
}

#define EXPECT_VALID(in)                                                                                           \
    do {                                                                                                           \
        char e_[160];                                                                                              \
        uint32_t pc_;                                                                                              \
        ck_assert_msg(validate((in), e_, sizeof e_, &pc_) == 0, "%s: %s", isa_op_name((isa_op)(in).op), e_);      \
    } while (0)
#define EXPECT_INVALID(in, text)                                                                                   \
    do {                                                                                                           \
        char e_[160];                                                                                              \
        uint32_t pc_ = 99;                                                                                         \
        ck_assert_int_eq(validate((in), e_, sizeof e_, &pc_), -1);                                                 \
        ck_assert_uint_eq(pc_, 0);                                                                                 \
        ck_assert_str_eq(e_, (text));                                                                              \
    } while (0)

START_TEST(test_ops_validator)
{
    isa_inst in = inst(ISA_OP_IADD, 1, 2, 3, NO, NO);
    EXPECT_VALID(in);
    in.b = 8;
    EXPECT_INVALID(in, "iadd operand b = 8 (span 1) outside 8 registers");
    in.b = NO; /* a required operand missing */
    EXPECT_INVALID(in, "iadd operand b = 4294967295 (span 1) outside 8 registers");
    in = inst(ISA_OP_STORE, NO, 1, 5, NO, NO);
    in.count = 3; /* b..b+2 = 5..7 fits */
    EXPECT_VALID(in);
    in.count = 4; /* 5..8 does not */
    EXPECT_INVALID(in, "store operand b = 5 (span 4) outside 8 registers");
    in = inst(ISA_OP_ATOMIC, NO, 1, NO, NO, NO); /* a load: no value operand, old value unused */
    in.imm2 = ISA_RED_LOAD;
    EXPECT_VALID(in);
    in.imm2 = ISA_RED_ADD; /* an add without its value */
    EXPECT_INVALID(in, "atomic operand b = 4294967295 (span 1) outside 8 registers");
    in.slot = 1;
    in.b = 2;
    EXPECT_INVALID(in, "atomic slot 1 outside 1 slots");
    in = inst(ISA_OP_BRANCH, 0, 1, NO, NO, 2); /* mask e = 2 of 2 */
    EXPECT_INVALID(in, "branch mask 2 outside 2 masks");
    in = inst(ISA_OP_VEXTRACT, 1, 2, 3, NO, NO);
    in.imm = 0;
    EXPECT_INVALID(in, "vextract length 0");
    in.imm = 6; /* a..a+5 = 2..7 */
    EXPECT_VALID(in);
    in.imm = 7;
    EXPECT_INVALID(in, "vextract operand a = 2 (span 7) outside 8 registers");
    in = inst(ISA_OP_JUMP, NO, NO, NO, NO, NO);
    in.imm = 2;
    EXPECT_INVALID(in, "jump target 2 outside the code");
    in = inst(ISA_OP_ARRAY_LEN, 1, NO, NO, NO, NO);
    in.imm2 = 0;
    EXPECT_INVALID(in, "array_len stride 0");
    in = inst(ISA_OP_WAVE_OP, 1, 2, NO, NO, NO);
    in.imm2 = ISA_GROUP_CLUSTERED | (3 << 8);
    EXPECT_INVALID(in, "cluster size 3 is not a power of two");
    in = inst(ISA_OP_FMATH, 1, 2, NO, NO, NO);
    in.type = ISA_TYPE_F32;
    in.imm = GLSLstd450Pow; /* two inputs: b missing */
    EXPECT_INVALID(in, "fmath operand b = 4294967295 (span 1) outside 8 registers");
    in.imm = GLSLstd450Determinant; /* not modelled: left to the executor, which reports it if it runs */
    EXPECT_VALID(in);
    in = inst(ISA_OP_COUNT, NO, NO, NO, NO, NO);
    char bad_op[32];
    snprintf(bad_op, sizeof bad_op, "opcode %d", (int)ISA_OP_COUNT);
    EXPECT_INVALID(in, bad_op);
}
END_TEST

/* Every instruction's listing names each register its shape reads or writes (the listing and liveness read one
 * table): a register number no other field holds must appear in the line. */
START_TEST(test_ops_listing_names_every_register)
{
    isa_slot slots[2];
    memset(slots, 0, sizeof slots);
    snprintf(slots[0].name, sizeof slots[0].name, "buf");
    snprintf(slots[1].name, sizeof slots[1].name, "smp");
    isa_program p;
    memset(&p, 0, sizeof p);
    p.reg_count = 100, p.mask_count = 100, p.slots = slots, p.slot_count = 2;
    for (int op = 0; op < ISA_OP_COUNT; op++) {
        isa_inst in = inst((isa_op)op, 11, 22, 33, 44, 55);
        in.imm = 2, in.imm2 = 1, in.count = 2;
        if (op == ISA_OP_ATOMIC || op == ISA_OP_IMG_ATOMIC)
            in.imm2 = ISA_RED_CMPXCHG;
        if (op == ISA_OP_FMATH)
            in.imm = GLSLstd450Fma;
        if (op == ISA_OP_IMG_SAMPLE) /* an explicit lod and gradients exclude each other (SPIR-V Image Operands) */
            in.b = NO;
        isa_span rd[6], wr[2];
        int nr, nw;
        isa_inst_regs(&in, rd, &nr, wr, &nw);
        char line[256], want[16];
        isa_inst_format(&p, &in, line, sizeof line);
        for (int k = 0; k < nr + nw; k++) {
            snprintf(want, sizeof want, "v%u", k < nr ? rd[k].first : wr[k - nr].first);
            ck_assert_msg(strstr(line, want), "%s: '%s' does not name %s", isa_op_name((isa_op)op), line, want);
        }
    }
}
END_TEST


/* Texel-buffer formats: every fact from the format's img/formats.def row, checked against the Vulkan and SPIR-V
 * specifications' definitions written out here. */
START_TEST(test_ops_texel_formats)
{
    static const struct {
        const char *name;
        unsigned bytes, comps;
        isa_type type;
        VkFormat vk;
        SpvImageFormat spirv;
    } want[] = {
        {"r32ui", 4, 1, ISA_TYPE_U32, VK_FORMAT_R32_UINT, SpvImageFormatR32ui},
        {"rg32i", 8, 2, ISA_TYPE_I32, VK_FORMAT_R32G32_SINT, SpvImageFormatRg32i},
        {"rgba32f", 16, 4, ISA_TYPE_F32, VK_FORMAT_R32G32B32A32_SFLOAT, SpvImageFormatRgba32f},
        {"r16f", 2, 1, ISA_TYPE_F16, VK_FORMAT_R16_SFLOAT, SpvImageFormatR16f},
        {"rgba16f", 8, 4, ISA_TYPE_F16, VK_FORMAT_R16G16B16A16_SFLOAT, SpvImageFormatRgba16f},
        {"r16ui", 2, 1, ISA_TYPE_U16, VK_FORMAT_R16_UINT, SpvImageFormatR16ui},
        {"r8ui", 1, 1, ISA_TYPE_U8, VK_FORMAT_R8_UINT, SpvImageFormatR8ui},
        {"rgba8", 4, 4, ISA_TYPE_NONE, VK_FORMAT_R8G8B8A8_UNORM, SpvImageFormatRgba8},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        isa_format f = isa_format_from_name(want[k].name);
        ck_assert_msg(f != ISA_FORMAT_UNKNOWN, "%s", want[k].name);
        ck_assert_str_eq(isa_format_name(f), want[k].name);
        ck_assert_uint_eq(isa_format_bytes(f), want[k].bytes);
        ck_assert_uint_eq(isa_format_components(f), want[k].comps);
        ck_assert_int_eq(isa_format_type(f), want[k].type);
        ck_assert_uint_eq(isa_format_vk(f), (uint32_t)want[k].vk);
        ck_assert_int_eq(isa_format_from_spirv(want[k].spirv), f);
        ck_assert_ptr_nonnull(strstr(isa_format_names(), want[k].name));
    }
    ck_assert_int_eq(isa_format_from_name("r8_unorm"), ISA_FORMAT_UNKNOWN); /* an image format, not a texel one */
    ck_assert_int_eq(isa_format_from_spirv(SpvImageFormatRgba8Snorm), ISA_FORMAT_UNKNOWN);
    ck_assert_uint_eq(isa_format_bytes(ISA_FORMAT_UNKNOWN), 0);
    ck_assert_uint_eq(isa_format_vk(ISA_FORMAT_UNKNOWN), (uint32_t)VK_FORMAT_UNDEFINED);
}
END_TEST

static Suite *ops_suite(void)
{
    Suite *s = suite_create("ops_table");
    TCase *tc = tcase_create("ops_table");
    tcase_add_test(tc, test_ops_registers_by_meaning);
    tcase_add_test(tc, test_ops_control_masks_are_not_registers);
    tcase_add_test(tc, test_ops_glsl450_operands);
    tcase_add_test(tc, test_ops_result_kinds);
    tcase_add_test(tc, test_ops_validator);
    tcase_add_test(tc, test_ops_listing_names_every_register);
    tcase_add_test(tc, test_ops_texel_formats);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tsup_run_suite(ops_suite(), "test_ops_table"); }
