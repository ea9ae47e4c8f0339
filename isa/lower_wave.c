/*
 * isa/lower_wave.c — subgroup (wave) operations: OpGroupNonUniform* become
 * cross-lane instructions over the exec mask (ballots, broadcasts,
 * reductions and scans, shuffles, quad operations), and control barriers.
 */
#include "isa/lower_internal.h"

/* ------------------------------------------------------------ group ops */

/* The cross-lane instruction of a broadcast, shuffle or quad broadcast (value o[3], lane index o[4]). */
static isa_op lane_read_op(SpvOp op)
{
    switch (op) {
    case SpvOpGroupNonUniformBroadcast: return ISA_OP_BCAST;
    case SpvOpGroupNonUniformShuffle: return ISA_OP_SHUFFLE;
    case SpvOpGroupNonUniformShuffleXor: return ISA_OP_SHUFFLE_XOR;
    case SpvOpGroupNonUniformShuffleUp: return ISA_OP_SHUFFLE_UP;
    case SpvOpGroupNonUniformShuffleDown: return ISA_OP_SHUFFLE_DN;
    case SpvOpGroupNonUniformQuadBroadcast: return ISA_OP_QUAD_BCAST;
    default: return ISA_OP_COUNT;
    }
}

/* OpGroupNonUniformAllEqual: one vote per component, ANDed. */
static void lower_all_equal(lower *L, const uint32_t *o, uint32_t rid, uint32_t rtype)
{
    uint32_t vt = L->ids[o[3]].type;
    type_info *t = lower_type(L, vt);
    uint32_t m = t->op == SpvOpTypeVector ? t->count : 1;
    isa_type ety = lower_scalar_isa_type(L, lower_component_type(L, vt));
    uint32_t a = lower_val(L, o[3]);
    uint32_t d = lower_def_value(L, rid, rtype, 1);
    uint32_t acc = ISA_NO_REG;
    for (uint32_t k = 0; k < m; k++) {
        uint32_t e = m == 1 ? d : lower_new_regs(L, 1);
        lower_emit_op(L, ISA_OP_VOTE_EQ, ety, e, a + k, ISA_NO_REG);
        if (acc == ISA_NO_REG) {
            acc = e;
        } else {
            uint32_t s = k == m - 1 ? d : lower_new_regs(L, 1);
            lower_emit_op(L, ISA_OP_AND, ISA_TYPE_BOOL, s, acc, e);
            acc = s;
        }
    }
}

/* The ballot family: OpGroupNonUniformBallot .. OpGroupNonUniformBallotFindMSB. */
static void lower_ballot(lower *L, SpvOp op, const uint32_t *o, uint32_t rid, uint32_t rtype, isa_type rty)
{
    switch (op) {
    case SpvOpGroupNonUniformBallot:
        lower_emit_op(L, ISA_OP_BALLOT, ISA_TYPE_U32, lower_def_value(L, rid, rtype, 4), lower_val(L, o[3]),
                      ISA_NO_REG);
        return;
    case SpvOpGroupNonUniformInverseBallot:
        lower_emit_op(L, ISA_OP_INV_BALLOT, ISA_TYPE_BOOL, lower_def_value(L, rid, rtype, 1), lower_val(L, o[3]),
                      ISA_NO_REG);
        return;
    case SpvOpGroupNonUniformBallotBitExtract:
        lower_emit_op(L, ISA_OP_BALLOT_BIT, ISA_TYPE_BOOL, lower_def_value(L, rid, rtype, 1), lower_val(L, o[3]),
                      lower_val(L, o[4]));
        return;
    case SpvOpGroupNonUniformBallotBitCount: {
        uint32_t gop = o[3];
        isa_inst *in = lower_emit(L, ISA_OP_BALLOT_CNT, rty);
        in->a = lower_val(L, o[4]);
        in->imm = gop == SpvGroupOperationReduce ? 0 : gop == SpvGroupOperationInclusiveScan ? 1 : 2;
        if (gop > SpvGroupOperationExclusiveScan)
            lower_fail(L, ISA_ERR_UNSUPPORTED, "BallotBitCount with group operation %u", gop);
        in->d = lower_def_value(L, rid, rtype, 1);
        return;
    }
    case SpvOpGroupNonUniformBallotFindLSB: case SpvOpGroupNonUniformBallotFindMSB:
        lower_emit_op(L, op == SpvOpGroupNonUniformBallotFindLSB ? ISA_OP_BALLOT_LSB : ISA_OP_BALLOT_MSB, rty,
                      lower_def_value(L, rid, rtype, 1), lower_val(L, o[3]), ISA_NO_REG);
        return;
    default:
        lower_fail(L, ISA_ERR_UNSUPPORTED, "subgroup operation %s is not modelled", lower_op_name(op));
        return;
    }
}

/* The reduction of an arithmetic group operation, and *ty with the signedness it fixes; false when op is none. */
static bool group_reduction(SpvOp op, isa_reduce_op *red, isa_type *ty)
{
    switch (op) {
    case SpvOpGroupNonUniformIAdd: case SpvOpGroupNonUniformFAdd: *red = ISA_RED_ADD; return true;
    case SpvOpGroupNonUniformIMul: case SpvOpGroupNonUniformFMul: *red = ISA_RED_MUL; return true;
    case SpvOpGroupNonUniformSMin: *red = ISA_RED_MIN; *ty = lower_with_sign(*ty, true); return true;
    case SpvOpGroupNonUniformUMin: *red = ISA_RED_MIN; *ty = lower_with_sign(*ty, false); return true;
    case SpvOpGroupNonUniformFMin: *red = ISA_RED_MIN; return true;
    case SpvOpGroupNonUniformSMax: *red = ISA_RED_MAX; *ty = lower_with_sign(*ty, true); return true;
    case SpvOpGroupNonUniformUMax: *red = ISA_RED_MAX; *ty = lower_with_sign(*ty, false); return true;
    case SpvOpGroupNonUniformFMax: *red = ISA_RED_MAX; return true;
    case SpvOpGroupNonUniformBitwiseAnd: case SpvOpGroupNonUniformLogicalAnd: *red = ISA_RED_AND; return true;
    case SpvOpGroupNonUniformBitwiseOr: case SpvOpGroupNonUniformLogicalOr: *red = ISA_RED_OR; return true;
    case SpvOpGroupNonUniformBitwiseXor: case SpvOpGroupNonUniformLogicalXor: *red = ISA_RED_XOR; return true;
    default: return false;
    }
}

/* The GroupOperation o[3] (with a cluster size o[5]) as a WAVE_OP's imm2; false after a failure. */
static bool group_operation(lower *L, const uint32_t *o, uint32_t no, int64_t *imm2)
{
    uint32_t gop = o[3];
    switch (gop) {
    case SpvGroupOperationReduce: *imm2 = ISA_GROUP_REDUCE; return true;
    case SpvGroupOperationInclusiveScan: *imm2 = ISA_GROUP_INCLUSIVE; return true;
    case SpvGroupOperationExclusiveScan: *imm2 = ISA_GROUP_EXCLUSIVE; return true;
    case SpvGroupOperationClusteredReduce: {
        if (no < 6) {
            lower_fail(L, ISA_ERR_INVALID, "ClusteredReduce without a cluster size");
            return false;
        }
        uint32_t cs = lower_const_u32(L, o[5]);
        if (cs == 0 || (cs & (cs - 1)) || cs > 128) {
            lower_fail(L, ISA_ERR_INVALID, "cluster size %u is not a power of two", cs);
            return false;
        }
        *imm2 = ISA_GROUP_CLUSTERED | ((int64_t)cs << 8);
        return true;
    }
    default:
        lower_fail(L, ISA_ERR_UNSUPPORTED, "group operation %u is not modelled", gop);
        return false;
    }
}

/* The arithmetic group operations: reductions, scans and clustered reductions of o[4], one per component. */
static void lower_group_arith(lower *L, SpvOp op, const uint32_t *o, uint32_t no, uint32_t rid, uint32_t rtype,
                              uint32_t n, isa_type rty)
{
    isa_reduce_op red;
    isa_type ty = rty;
    if (!group_reduction(op, &red, &ty)) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "subgroup operation %s is not modelled", lower_op_name(op));
        return;
    }
    int64_t imm2;
    if (!group_operation(L, o, no, &imm2))
        return;
    uint32_t a = lower_val(L, o[4]);
    uint32_t d = lower_def_value(L, rid, rtype, n);
    for (uint32_t k = 0; k < n; k++) {
        isa_inst *in = lower_emit(L, ISA_OP_WAVE_OP, ty);
        in->d = d + k;
        in->a = a + k;
        in->imm = red;
        in->imm2 = imm2;
    }
}

void lower_group(lower *L, SpvOp op, const uint32_t *o, uint32_t no)
{
    uint32_t rtype = o[0], rid = o[1];
    uint32_t scope = lower_const_u32(L, o[2]);
    if (scope != SpvScopeSubgroup) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "group operations with scope %u (only Subgroup is modelled)", scope);
        return;
    }
    type_info *rt = lower_type(L, rtype);
    uint32_t n = rt->op == SpvOpTypeVector ? rt->count : 1;
    isa_type rty = lower_scalar_isa_type(L, lower_component_type(L, rtype));
    switch (op) {
    case SpvOpGroupNonUniformElect: {
        isa_inst *in = lower_emit(L, ISA_OP_ELECT, ISA_TYPE_BOOL);
        in->d = lower_def_value(L, rid, rtype, 1);
        return;
    }
    case SpvOpGroupNonUniformAll: case SpvOpGroupNonUniformAny: {
        lower_emit_op(L, op == SpvOpGroupNonUniformAll ? ISA_OP_VOTE_ALL : ISA_OP_VOTE_ANY, ISA_TYPE_BOOL,
                      lower_def_value(L, rid, rtype, 1), lower_val(L, o[3]), ISA_NO_REG);
        return;
    }
    case SpvOpGroupNonUniformAllEqual:
        lower_all_equal(L, o, rid, rtype);
        return;
    case SpvOpGroupNonUniformBroadcast: case SpvOpGroupNonUniformShuffle: case SpvOpGroupNonUniformShuffleXor:
    case SpvOpGroupNonUniformShuffleUp: case SpvOpGroupNonUniformShuffleDown: case SpvOpGroupNonUniformQuadBroadcast: {
        uint32_t a = lower_val(L, o[3]), b = lower_val(L, o[4]);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        lower_binary(L, lane_read_op(op), rty, d, a, b, n, true); /* one lane index for every component */
        return;
    }
    case SpvOpGroupNonUniformBroadcastFirst: {
        uint32_t a = lower_val(L, o[3]);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        lower_unary(L, ISA_OP_BCAST_FIRST, rty, d, a, n);
        return;
    }
    case SpvOpGroupNonUniformQuadSwap: {
        uint32_t a = lower_val(L, o[3]);
        uint32_t dir = lower_const_u32(L, o[4]);
        uint32_t d = lower_def_value(L, rid, rtype, n);
        for (uint32_t k = 0; k < n; k++) {
            isa_inst *in = lower_emit(L, ISA_OP_QUAD_SWAP, rty);
            in->d = d + k;
            in->a = a + k;
            in->imm = dir;
        }
        return;
    }
    case SpvOpGroupNonUniformBallot: case SpvOpGroupNonUniformInverseBallot: case SpvOpGroupNonUniformBallotBitExtract:
    case SpvOpGroupNonUniformBallotBitCount: case SpvOpGroupNonUniformBallotFindLSB:
    case SpvOpGroupNonUniformBallotFindMSB:
        lower_ballot(L, op, o, rid, rtype, rty);
        return;
    default: break;
    }
    lower_group_arith(L, op, o, no, rid, rtype, n, rty);
}

/* OpControlBarrier (operands o[0..]: execution scope, memory scope, semantics). */
void lower_control_barrier(lower *L, const uint32_t *o)
{
    uint32_t scope = lower_const_u32(L, o[0]);
    if (scope == SpvScopeWorkgroup) {
        lower_emit(L, ISA_OP_BARRIER, ISA_TYPE_NONE);
    } else if (scope != SpvScopeSubgroup) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "control barrier with execution scope %u", scope);
    }
    /* a subgroup-scope control barrier: waves run in lockstep in the model: nothing to do */
}
