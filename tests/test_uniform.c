/*
 * tests/test_uniform.c — the uniformity analysis (isa/uniform.c) on small
 * hand-written kernels, against the classification worked out by hand in
 * each test: which instructions are scalar (SALU/SMEM, destination in an
 * SGPR) and which are per-lane (VALU/VMEM, destination in a VGPR).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "tests/support/tsup.h"

static isa_program *build(const char *src)
{
    isa_program *p = NULL;
    char msg[4096];
    isa_status st = tsup_build(src, "t.comp", "glsl", NULL, &p, msg, sizeof msg, NULL, 0);
    ck_assert_msg(st == ISA_OK, "%s", msg);
    ck_assert(p->allocated);
    return p;
}

/* The file of the register instruction i writes. */
static isa_reg_file dest_file(const isa_program *p, const isa_inst *in)
{
    ck_assert_uint_lt(in->d, p->reg_count);
    return (isa_reg_file)p->reg_file[in->d];
}

/* Counts instructions of op `op` and type `type` (ISA_TYPE_COUNT: any) by class; a comparison fused with
 * its branch (branch_cmp, isa/lean.c) counts as the comparison, whose class it keeps. */
static int count(const isa_program *p, isa_op op, isa_type type, isa_class cls)
{
    int n = 0;
    for (uint32_t i = 0; i < p->code_count; i++)
        if ((p->code[i].op == op || ((p->code[i].op == ISA_OP_BRANCH_CMP || p->code[i].op == ISA_OP_BRANCH_IF) && p->code[i].imm2 == op)) &&
            (type == ISA_TYPE_COUNT || p->code[i].type == type) && p->code[i].cls == cls)
            n++;
    return n;
}

#define HEADER "#version 450\n#extension GL_KHR_shader_subgroup_ballot : require\nlayout(local_size_x = 64) in;\n" \
               "layout(set = 0, binding = 0) buffer Out { uint o[]; };\n" \
               "layout(set = 0, binding = 1) readonly buffer In { uint n; uint data[]; };\n"

/* for (i < n) with n from a read-only buffer at a constant address: the counter, its
 * compare and increment are scalar; the per-lane sum is vector. */
START_TEST(test_uniform_loop_counter_is_scalar)
{
    isa_program *p = build(HEADER
                           "void main() { uint s = gl_LocalInvocationIndex; for (uint i = 0u; i < n; ++i) s += i * 3u;"
                           " o[gl_LocalInvocationIndex] = s; }\n");
    /* the load of n: SMEM into an SGPR */
    int smem = 0;
    for (uint32_t i = 0; i < p->code_count; i++)
        if (p->code[i].op == ISA_OP_LOAD && p->code[i].cls == ISA_CLASS_SMEM) {
            smem++;
            ck_assert_int_eq(dest_file(p, &p->code[i]), ISA_FILE_SGPR);
        }
    ck_assert_int_eq(smem, 1);
    /* i < n: scalar compare, and the loop's branch is a scalar branch */
    ck_assert_int_eq(count(p, ISA_OP_ULT, ISA_TYPE_U32, ISA_CLASS_SALU), 1);
    ck_assert_int_eq(count(p, ISA_OP_ULT, ISA_TYPE_U32, ISA_CLASS_VALU), 0);
    ck_assert_int_eq(count(p, ISA_OP_BRANCH, ISA_TYPE_COUNT, ISA_CLASS_EXEC), 0);
    /* i * 3 scalar, s + ... vector */
    ck_assert_int_eq(count(p, ISA_OP_IMUL, ISA_TYPE_U32, ISA_CLASS_SALU), 1);
    ck_assert_int_ge(count(p, ISA_OP_IADD, ISA_TYPE_U32, ISA_CLASS_VALU), 1);
    for (uint32_t b = 0; b < p->block_count; b++)
        ck_assert_msg(!p->blocks[b].divergent, "block %u divergent", b);
    isa_program_destroy(p);
}
END_TEST

/* subgroupBroadcastFirst of a per-lane value is uniform: arithmetic on it is SALU. */
START_TEST(test_uniform_broadcast_first_result_is_scalar)
{
    isa_program *p = build(HEADER
                           "void main() { uint v = data[gl_LocalInvocationIndex]; uint f = subgroupBroadcastFirst(v);"
                           " o[gl_LocalInvocationIndex] = f * 7u + v; }\n");
    int found = 0;
    for (uint32_t i = 0; i < p->code_count; i++) {
        const isa_inst *in = &p->code[i];
        if (in->op == ISA_OP_BCAST_FIRST) {
            ck_assert_int_eq(dest_file(p, in), ISA_FILE_SGPR);
            found++;
        }
        if (in->op == ISA_OP_LOAD && in->slot < p->slot_count && strcmp(p->slots[in->slot].name, "In") == 0) {
            ck_assert_int_eq(in->cls, ISA_CLASS_VMEM); /* per-lane address */
            ck_assert_int_eq(dest_file(p, in), ISA_FILE_VGPR);
        }
    }
    ck_assert_int_eq(found, 1);
    ck_assert_int_eq(count(p, ISA_OP_IMUL, ISA_TYPE_U32, ISA_CLASS_SALU), 1);
    ck_assert_int_eq(count(p, ISA_OP_IADD, ISA_TYPE_U32, ISA_CLASS_VALU), 1);
    isa_program_destroy(p);
}
END_TEST

/* n * 5 is computed from uniform operands inside a branch on a per-lane
 * condition: uniform among the lanes that run the branch, so SALU there, as
 * ACO puts it (the instruction is flagged divergent); the same expression
 * outside the branch is SALU too.  r, where the two paths meet, is per-lane:
 * the value stored is in a VGPR. */
START_TEST(test_uniform_value_under_divergent_branch_is_scalar)
{
    isa_program *p = build(HEADER
                           "void main() { uint r = n * 9u; if (gl_LocalInvocationIndex < 5u) { r = n * 5u; }"
                           " o[gl_LocalInvocationIndex] = r; }\n");
    int salu9 = 0, salu5 = 0;
    for (uint32_t i = 0; i < p->code_count; i++) {
        const isa_inst *in = &p->code[i];
        if (in->op == ISA_OP_STORE)
            ck_assert_int_eq(p->reg_file[in->b], ISA_FILE_VGPR);
        if (in->op != ISA_OP_IMUL || in->type != ISA_TYPE_U32)
            continue;
        /* skip the address arithmetic (index * 4 bytes): only n * 9 and n * 5 are counted */
        int is_stride = 0;
        for (uint32_t k = 0; k < p->const_count; k++)
            if (p->consts[k].reg == in->b && p->consts[k].bits == 4)
                is_stride = 1;
        if (is_stride)
            continue;
        ck_assert_int_eq(in->cls, ISA_CLASS_SALU);
        /* the multiplier is a constant register: tell them apart by the instruction's divergence flag */
        if (in->flags & ISA_INST_DIVERGENT)
            salu5++;
        else
            salu9++;
    }
    ck_assert_int_eq(salu9, 1);
    ck_assert_int_eq(salu5, 1);
    /* the branch on gl_LocalInvocationIndex is an exec-mask branch */
    ck_assert_int_ge(count(p, ISA_OP_BRANCH, ISA_TYPE_COUNT, ISA_CLASS_EXEC) +
                         count(p, ISA_OP_MASK_COND, ISA_TYPE_COUNT, ISA_CLASS_EXEC), 1);
    isa_program_destroy(p);
}
END_TEST

/* A loop whose exit depends on the lane: lanes leave at different iterations,
 * so its counter (uniform operands, uniform start), read after the loop, is
 * each lane's value of the iteration it left at: per-lane, and so is what is
 * computed from it in the loop.  A loop with a uniform exit around the same
 * body keeps its counter scalar. */
START_TEST(test_uniform_loop_carried_values_of_divergent_loop_are_vector)
{
    isa_program *p = build(HEADER
                           "void main() { uint i = 0u; while (i < n) { if (data[i] == gl_LocalInvocationIndex) break; i++; }"
                           " o[gl_LocalInvocationIndex] = i; }\n");
    int loop_ops = 0;
    for (uint32_t i = 0; i < p->code_count; i++) {
        const isa_inst *in = &p->code[i];
        if (in->op == ISA_OP_IADD && in->type == ISA_TYPE_U32) {
            ck_assert_int_eq(in->cls, ISA_CLASS_VALU);
            ck_assert(in->flags & ISA_INST_DIVERGENT);
            loop_ops++;
        }
        if (in->op == ISA_OP_ULT) /* i < n: per-lane i */
            ck_assert_int_eq(in->cls, ISA_CLASS_VALU);
    }
    ck_assert_int_ge(loop_ops, 1);
    int div_blocks = 0;
    for (uint32_t b = 0; b < p->block_count; b++)
        div_blocks += p->blocks[b].divergent;
    ck_assert_int_ge(div_blocks, 2);
    isa_program_destroy(p);
}
END_TEST

/* subgroupAll of a per-lane condition is uniform: the branch on it is scalar,
 * its blocks are not divergent, and a scalar add inside stays SALU. */
START_TEST(test_uniform_vote_branch_is_scalar)
{
    isa_program *p = build("#version 450\n#extension GL_KHR_shader_subgroup_vote : require\n"
                           "layout(local_size_x = 64) in;\n"
                           "layout(set = 0, binding = 0) buffer Out { uint o[]; };\n"
                           "layout(set = 0, binding = 1) readonly buffer In { uint n; uint data[]; };\n"
                           "void main() { uint r = 1u; if (subgroupAll(data[gl_LocalInvocationIndex] > 3u)) { r = n + 2u; }"
                           " o[gl_LocalInvocationIndex] = r; }\n");
    ck_assert_int_eq(count(p, ISA_OP_VOTE_ALL, ISA_TYPE_COUNT, ISA_CLASS_XLANE), 1);
    ck_assert_int_eq(count(p, ISA_OP_IADD, ISA_TYPE_U32, ISA_CLASS_SALU), 1);
    for (uint32_t b = 0; b < p->block_count; b++)
        ck_assert(!p->blocks[b].divergent);
    isa_program_destroy(p);
}
END_TEST

/* Loads: a buffer the kernel writes is never scalar-loaded; a texel buffer at a
 * uniform address stays VMEM (flagged as one address across the wave). */
START_TEST(test_uniform_loads_follow_the_hardware_rule)
{
    isa_program *p = build("#version 450\nlayout(local_size_x = 64) in;\n"
                           "layout(set = 0, binding = 0) buffer RW { uint k; uint o[]; };\n"
                           "layout(set = 0, binding = 1) uniform samplerBuffer tex;\n"
                           "void main() { uint a = k; vec4 t = texelFetch(tex, 3);"
                           " o[gl_LocalInvocationIndex] = a + uint(t.x); }\n");
    int vmem_uniform = 0, img = 0;
    for (uint32_t i = 0; i < p->code_count; i++) {
        const isa_inst *in = &p->code[i];
        if (in->op == ISA_OP_LOAD) {
            ck_assert_int_eq(in->cls, ISA_CLASS_VMEM);
            ck_assert(in->flags & ISA_INST_UNIFORM_ADDR);
            vmem_uniform++;
        }
        if (in->op == ISA_OP_IMG_READ) {
            ck_assert_int_eq(in->cls, ISA_CLASS_VMEM);
            ck_assert(in->flags & ISA_INST_UNIFORM_ADDR);
            ck_assert_int_eq(dest_file(p, in), ISA_FILE_VGPR);
            img++;
        }
    }
    ck_assert_int_eq(vmem_uniform, 1);
    ck_assert_int_eq(img, 1);
    isa_program_destroy(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("uniform");
    TCase *tc = tcase_create("uniform");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_uniform_loop_counter_is_scalar);
    tcase_add_test(tc, test_uniform_broadcast_first_result_is_scalar);
    tcase_add_test(tc, test_uniform_value_under_divergent_branch_is_scalar);
    tcase_add_test(tc, test_uniform_loop_carried_values_of_divergent_loop_are_vector);
    tcase_add_test(tc, test_uniform_vote_branch_is_scalar);
    tcase_add_test(tc, test_uniform_loads_follow_the_hardware_rule);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
