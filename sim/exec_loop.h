/*
 * sim/exec_loop.h — the executor's hot loop, included by sim/exec.c once
 * per wave size and host variant (a template by inclusion: each copy has its
 * own dispatch table and a constant lane count).  Before including, define
 * WAVE_W (the wave size), WAVE_FN (the function's name) and WAVE_ATTR
 * (attributes, e.g. a target).  Everything it uses (the lane-loop macros,
 * set_lane_masks, uncount_rest, the handlers) is defined in sim/exec.c.
 */

/*
 * Runs wave w until it reaches a barrier, ends, or faults.  The position is
 * di, the instruction's pre-decoded form (sim/decode.c: register operands
 * already * W, the handler picked by type); exec, the budget and the
 * statistics of the segment live in locals and are written back to the wave
 * before anything that can stop it.  W is a constant in each instance, so
 * the lane loops have a known trip count.
 *
 * Most instructions go straight from one handler to the next.  Everything
 * else the loop must do per instruction is the head's (`head` below), which
 * an instruction reaches first when
 *   - a segment starts there (its dispatch index is odd): count the whole
 *     segment (sim/exec.c, "Statistics and the budget by segment"), and
 *     decide whether the segment needs the head at every instruction;
 *   - the segment does ("careful"): the budget runs out inside it, `wavelab
 *     trace` follows this wave (the step hook), or it holds a scalar ALU
 *     instruction while exec is not every live lane (scalar ALU writes every
 *     live lane, whatever exec is, as an SGPR has one value for the wave, so
 *     the lane masks widen to the live lanes around it; in divergent code
 *     the allocation keeps what waiting lanes need out of its registers,
 *     docs/registers.md).
 */
WAVE_ATTR static wave_stop WAVE_FN(sim_ctx *ctx, sim_wave *w)
{
    const uint32_t W = WAVE_W;
    const sim_decoded *const dec = ctx->decoded;
    uint64_t *const regs = w->regs;
    sim_mask *const masks = w->masks;
    const uint64_t *const lm = w->lane_mask;
    const uint32_t *const seg_len = ctx->seg_len;
    uint64_t *const seg_exec = ctx->seg_exec;
    uint64_t *const seg_lanes = ctx->seg_lanes;
    const sim_mask all = sim_mask_low(W);
    const sim_mask live = w->live;
    const sim_decoded *di = &dec[w->pc];
    sim_mask exec = w->exec;
    uint64_t exec_lanes = 0;        /* lanes of exec where the current segment started */
    uint64_t budget_left = ctx->budget_left;
    uint32_t seg = w->pc;           /* start of the current segment */
    uint32_t budget_pc = UINT32_MAX; /* the instruction the budget does not reach, in this segment */
    int full = exec == all;         /* every lane of the wave is in the lane masks */
    int widened = 0;                /* the lane masks are the live lanes for a scalar ALU instruction */
    const sim_step_hook *const step = sim_step_followed(ctx, w); /* NULL unless `wavelab trace` follows this wave */
    const int FULL = 0;             /* lane loops outside BOTH(...) always blend */
    wave_stop stop;

#define PC ((uint32_t)(di - dec))
#define IN (di->in)
#define TYPE ((isa_type)di->type)
#define BITS ((unsigned)di->bits)
#define SH ((unsigned)di->sh)
#define SAVE() (w->pc = PC, w->exec = exec, ctx->budget_left = budget_left)
#define R(field) (regs + di->field)
#define RE (regs + (size_t)IN->e * W)

    /*
     * Dispatch: one indirect jump per wave instruction through a table of
     * label addresses (GCC's computed goto, as Lua and CPython do: every
     * handler ends in its own jump to the next), indexed by the pre-decoded
     * dispatch index.  Two tables: `normal` sends a segment's first
     * instruction to the head and the others to their handlers; `careful`
     * sends every instruction to the head, which then jumps to the handler
     * through `normal`.  Built with -DWAVELAB_SWITCH_DISPATCH=ON (CMake),
     * which CI also tests, the same is a plain switch and a `careful` flag.
     * Handlers are written once: OP(X) (SOP(X) for a specialised form,
     * sim_handler) is their label, `break` ends one, and a jump sets di
     * through JUMP_TO.  check_program has checked every opcode.
     */
#ifdef WAVELAB_SWITCH_DISPATCH
    int careful = 1;
#define SET_CAREFUL(c) (careful = (c))
#define DISPATCH_BEGIN \
    if (careful | (di->ix & 1)) \
        goto head; \
    dispatch_op: \
    switch ((sim_handler)(di->ix >> 1)) {
#define DISPATCH_OP() goto dispatch_op
#define OP(name) case SIM_H_##name:
#define SOP(name) case SIM_H_##name:
#define DISPATCH_END \
    case SIM_H_COUNT: \
        goto bad_type; \
        }
#else
    static const void *const normal[2 * SIM_H_COUNT] = {
#define X(name, ...) [2 * SIM_H_##name] = &&op_##name, [2 * SIM_H_##name + 1] = &&head,
#include "isa/ops.def"
#undef X
#define X(name) [2 * SIM_H_##name] = &&op_##name, [2 * SIM_H_##name + 1] = &&head,
        SIM_SPECIAL_HANDLERS(X)
#undef X
    };
    static const void *const careful_table[2 * SIM_H_COUNT] = {
#define X(name, ...) [2 * SIM_H_##name] = &&head, [2 * SIM_H_##name + 1] = &&head,
#include "isa/ops.def"
#undef X
#define X(name) [2 * SIM_H_##name] = &&head, [2 * SIM_H_##name + 1] = &&head,
        SIM_SPECIAL_HANDLERS(X)
#undef X
    };
    const void *const *table = careful_table;
#define SET_CAREFUL(c) (table = (c) ? careful_table : normal)
#define DISPATCH_BEGIN do { goto *table[di->ix];
#define DISPATCH_OP() goto *normal[di->ix & ~1u]
#define OP(name) op_##name:
#define SOP(name) op_##name:
#define DISPATCH_END } while (0);
#endif
#define SET_LANE_MASKS(m) (set_lane_masks(w, W, (m)), full = (m) == all)
#ifdef WAVELAB_SWITCH_DISPATCH
#define JUMP_TO(target) do { di = dec + (target); goto jumped; } while (0)
#define JUMPED jumped:;
#else
/* its own dispatch: the loop's latch (di++, the jump) stays one small block that GCC copies into each handler */
#define JUMP_TO(target) do { di = dec + (target); goto *table[di->ix]; } while (0)
#define JUMPED
#endif

    for (;;) {
        DISPATCH_BEGIN
        /* ---- moves ---- */
        OP(MOV) {
            uint64_t *D = R(d); const uint64_t *A = R(a);
            BOTH(LANES PUT(A[l]););
            break;
        }
        OP(MOVM) {
            uint64_t *D = R(d); const uint64_t *A = R(a);
            const sim_mask m = masks[IN->b];
            if (m == all) { /* the common case: a phi copy for the whole wave */
                LANES D[l] = A[l];
            } else if (m != 0) {
                const uint64_t m0 = sim_mask_lo(m), m1 = sim_mask_hi(m);
                LANES {
                    uint64_t k = 0 - (((l < 64 ? m0 : m1) & sim_lane_bit[l & 63]) != 0);
                    D[l] = (A[l] & k) | (D[l] & ~k);
                }
            }
            break;
        }
        OP(SELECT) {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b), *C = R(c);
            BOTH(LANES { uint64_t k = 0 - (A[l] & 1); PUT((B[l] & k) | (C[l] & ~k)); });
            break;
        }
        /* ---- integer: wrapping ops work on all 64 BITS ---- */
        OP(IADD) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); RAW2(x + y); break; }
        OP(ISUB) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); RAW2(x - y); break; }
        OP(IMUL) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); RAW2(x * y); break; }
        OP(AND) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); RAW2(x & y); break; }
        OP(OR) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); RAW2(x | y); break; }
        OP(XOR) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); RAW2(x ^ y); break; }
        OP(SHL) {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
            RAW2(x << (y & (BITS - 1)));
            break;
        }
        OP(INEG) { uint64_t *D = R(d); const uint64_t *A = R(a); BOTH(LANES PUT(0 - A[l]);); break; }
        OP(NOT) {
            uint64_t *D = R(d); const uint64_t *A = R(a);
            uint64_t flip = TYPE == ISA_TYPE_BOOL ? 1 : ~0ull; /* bools stay 0/1 */
            BOTH(LANES PUT(A[l] ^ flip););
            break;
        }
        /* ---- integer: width and signedness matter ---- */
        OP(UDIV) OP(UMOD) {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
            sim_mask zero = 0;
            if (IN->op == ISA_OP_UDIV) {
                LANES { uint64_t x = SIM_ZX(A[l], SH), y = SIM_ZX(B[l], SH);
                        zero |= (sim_mask)(y == 0) << l; PUT(y ? x / y : ~0ull); }
            } else {
                LANES { uint64_t x = SIM_ZX(A[l], SH), y = SIM_ZX(B[l], SH);
                        zero |= (sim_mask)(y == 0) << l; PUT(y ? x % y : 0); }
            }
            if (zero & exec)
                report_lanes(ctx, w, PC, zero & exec, "integer division by zero");
            break;
        }
        OP(SDIV) OP(SREM) OP(SMOD) {
            /* x / -1 is computed as 0 - x: INT_MIN / -1 wraps to INT_MIN, never traps */
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
            sim_mask zero = 0;
            isa_op op = (isa_op)IN->op;
            LANES {
                int64_t x = SIM_SX(A[l], SH), y = SIM_SX(B[l], SH);
                uint64_t r;
                zero |= (sim_mask)(y == 0) << l;
                if (y == 0)
                    r = op == ISA_OP_SDIV ? ~0ull : 0;
                else if (y == -1)
                    r = op == ISA_OP_SDIV ? 0 - (uint64_t)x : 0;
                else if (op == ISA_OP_SDIV)
                    r = (uint64_t)(x / y);
                else {
                    int64_t m = x % y;
                    if (op == ISA_OP_SMOD && m != 0 && ((m < 0) != (y < 0)))
                        m += y;
                    r = (uint64_t)m;
                }
                PUT(r);
            }
            if (zero & exec)
                report_lanes(ctx, w, PC, zero & exec, "integer division by zero");
            break;
        }
        OP(SHRL) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2(x >> (y & (BITS - 1))); break; }
        OP(SHRA) {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
            BOTH(LANES { int64_t x = SIM_SX(A[l], SH); PUT((uint64_t)(x >> (B[l] & (BITS - 1)))); });
            break;
        }
        OP(BFI) OP(BFEU) OP(BFES) {
            /* offset + count beyond the width: undefined, reported; bfi keeps a, bfe gives 0 */
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b), *C = R(c);
            const uint64_t *E = IN->op == ISA_OP_BFI ? RE : NULL;
            sim_mask bad = 0;
            isa_op op = (isa_op)IN->op;
            LANES {
                uint64_t x = SIM_ZX(A[l], SH), r;
                uint64_t off = op == ISA_OP_BFI ? (uint32_t)C[l] : (uint32_t)B[l];
                uint64_t cnt = op == ISA_OP_BFI ? (uint32_t)E[l] : (uint32_t)C[l];
                if (off + cnt > BITS) {
                    bad |= sim_mask_lane(l);
                    r = op == ISA_OP_BFI ? x : 0;
                } else if (cnt == 0) {
                    r = op == ISA_OP_BFI ? x : 0;
                } else if (op == ISA_OP_BFI) {
                    uint64_t m = low_bits(cnt) << off;
                    r = (x & ~m) | ((B[l] << off) & m);
                } else {
                    r = (x >> off) & low_bits(cnt);
                    if (op == ISA_OP_BFES)
                        r = (uint64_t)SIM_SX(r, 64 - cnt);
                }
                PUT(r);
            }
            if (bad & exec)
                report_lanes(ctx, w, PC, bad & exec, "bit field offset + count exceeds the width");
            break;
        }
        OP(BITREV) { uint64_t *D = R(d); const uint64_t *A = R(a); INT_U1(bit_reverse64(x) >> SH); break; }
        OP(BITCNT) { uint64_t *D = R(d); const uint64_t *A = R(a); INT_U1(__builtin_popcountll(x)); break; }
        OP(FINDLSB) {
            uint64_t *D = R(d); const uint64_t *A = R(a);
            INT_U1(x ? (uint64_t)__builtin_ctzll(x) : ~0ull);
            break;
        }
        OP(FINDUMSB) {
            uint64_t *D = R(d); const uint64_t *A = R(a);
            INT_U1(x ? (uint64_t)(63 - __builtin_clzll(x)) : ~0ull);
            break;
        }
        OP(FINDSMSB) {
            uint64_t *D = R(d); const uint64_t *A = R(a);
            INT_S1(((x < 0 ? ~x : x) ? (uint64_t)(63 - __builtin_clzll((uint64_t)(x < 0 ? ~x : x))) : ~0ull));
            break;
        }
        OP(UMULHI) {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
            INT_U2((uint64_t)(((unsigned __int128)x * y) >> BITS));
            break;
        }
        OP(SMULHI) {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
            INT_S2((uint64_t)(((__int128)x * y) >> BITS));
            break;
        }
        OP(IADDC) {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
            INT_U2((uint64_t)(((unsigned __int128)x + y) >> BITS));
            break;
        }
        OP(ISUBB) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2(x < y); break; }
        OP(UMIN) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2(x < y ? x : y); break; }
        OP(UMAX) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2(x > y ? x : y); break; }
        OP(SMIN) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_S2(x < y ? x : y); break; }
        OP(SMAX) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_S2(x > y ? x : y); break; }
        OP(SABS) { uint64_t *D = R(d); const uint64_t *A = R(a); INT_S1(x < 0 ? 0 - (uint64_t)x : (uint64_t)x); break; }
        OP(SSIGN) { uint64_t *D = R(d); const uint64_t *A = R(a); INT_S1((int64_t)(x > 0) - (int64_t)(x < 0)); break; }
        OP(IEQ) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2(x == y); break; }
        OP(INE) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2(x != y); break; }
        OP(ULT) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2(x < y); break; }
        OP(ULE) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2(x <= y); break; }
        OP(SLT) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_S2(x < y); break; }
        OP(SLE) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_S2(x <= y); break; }
        /* ---- float ---- */
        OP(FADD) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT2(x + y, x + y); break; }
        OP(FSUB) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT2(x - y, x - y); break; }
        OP(FMUL) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT2(x * y, x * y); break; }
        OP(FDIV) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT2(x / y, x / y); break; }
        OP(FREM) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT2(fmodf(x, y), fmod(x, y)); break; }
        OP(FMOD) {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
            FLOAT2(fmod_floorf(x, y), fmod_floor(x, y));
            break;
        }
        OP(FMIN) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT2(fminf(x, y), fmin(x, y)); break; }
        OP(FMAX) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT2(fmaxf(x, y), fmax(x, y)); break; }
        OP(FNEG) {
            uint64_t *D = R(d); const uint64_t *A = R(a);
            if (!isa_type_is_float(TYPE))
                goto bad_type;
            uint64_t sign = 1ull << (BITS - 1);
            BOTH(LANES PUT(A[l] ^ sign););
            break;
        }
        OP(FMA)
        fma_op: {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b), *C = R(c);
            switch (TYPE) {
            case ISA_TYPE_F16: /* exact product in double, one rounding to half (see docs/quirks.md) */
                LANES PUT(sim_f16_bits_d(fma((double)sim_f16(A[l]), (double)sim_f16(B[l]), (double)sim_f16(C[l]))));
                break;
            case ISA_TYPE_F32: BOTH(LANES PUT(sim_f32_bits(fmaf(sim_f32(A[l]), sim_f32(B[l]), sim_f32(C[l]))));); break;
            case ISA_TYPE_F64: BOTH(LANES PUT(sim_f64_bits(fma(sim_f64(A[l]), sim_f64(B[l]), sim_f64(C[l]))));); break;
            default: goto bad_type;
            }
            break;
        }
        /* ---- the common types without the type switch (sim/decode.c picks these) ---- */
        SOP(FADD_F32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT2_F32(x + y); break; }
        SOP(FSUB_F32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT2_F32(x - y); break; }
        SOP(FMUL_F32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT2_F32(x * y); break; }
        SOP(FMA_F32) {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b), *C = R(c);
            BOTH(LANES PUT(sim_f32_bits(fmaf(sim_f32(A[l]), sim_f32(B[l]), sim_f32(C[l])))););
            break;
        }
        SOP(FOLT_F32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT_TEST2_F32(x < y); break; }
        SOP(FOLE_F32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT_TEST2_F32(x <= y); break; }
        SOP(FOEQ_F32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT_TEST2_F32(x == y); break; }
        /* a 32-bit shift with the width a constant: the same bits as SHRL/SHRA, without zero/sign-extending each
         * lane by a variable amount first (the ALU benchmark's hash spends a tenth of its time there) */
        SOP(SHRL_32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2_32(x >> (y & 31)); break; }
        SOP(SHRA_32) {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
            INT_S2_32((uint64_t)(x >> (y & 31)));
            break;
        }
        SOP(IEQ_32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2_32(x == y); break; }
        SOP(INE_32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2_32(x != y); break; }
        SOP(ULT_32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2_32(x < y); break; }
        SOP(ULE_32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_U2_32(x <= y); break; }
        SOP(SLT_32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_S2_32(x < y); break; }
        SOP(SLE_32) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); INT_S2_32(x <= y); break; }
        OP(FOEQ) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT_TEST2(x == y); break; }
        OP(FONE) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT_TEST2(x < y || x > y); break; }
        OP(FOLT) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT_TEST2(x < y); break; }
        OP(FOLE) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT_TEST2(x <= y); break; }
        OP(FUEQ) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT_TEST2(!(x < y || x > y)); break; }
        OP(FUNE) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT_TEST2(!(x == y)); break; }
        OP(FULT) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT_TEST2(!(x >= y)); break; }
        OP(FULE) { uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b); FLOAT_TEST2(!(x > y)); break; }
        OP(ISNAN) { uint64_t *D = R(d); const uint64_t *A = R(a); FLOAT_TEST1(x != x); break; }
        OP(ISINF) { uint64_t *D = R(d); const uint64_t *A = R(a); FLOAT_TEST1(isinf(x) != 0); break; }
        OP(FMATH)
            /* GLSL.std.450 Fma is the fma instruction (the same rounding: sim/fmath.c) */
            if (IN->imm == GLSLstd450Fma && isa_type_is_float(TYPE))
                goto fma_op;
            /* integer min, max and clamp here (the expressions of sim/fmath.c); the rest there */
            if (!isa_type_is_float(TYPE) && TYPE != ISA_TYPE_BOOL && TYPE != ISA_TYPE_NONE) {
                uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
                switch (IN->imm) {
                case GLSLstd450UMin: INT_U2(x < y ? x : y); goto fmath_done;
                case GLSLstd450SMin: INT_S2(x < y ? x : y); goto fmath_done;
                case GLSLstd450UMax: INT_U2(x > y ? x : y); goto fmath_done;
                case GLSLstd450SMax: INT_S2(x > y ? x : y); goto fmath_done;
                case GLSLstd450UClamp: {
                    const uint64_t *C = R(c);
                    BOTH(LANES {
                        uint64_t x = SIM_ZX(A[l], SH), y = SIM_ZX(B[l], SH), z = SIM_ZX(C[l], SH);
                        PUT(x < y ? y : x > z ? z : x);
                    });
                    goto fmath_done;
                }
                case GLSLstd450SClamp: {
                    const uint64_t *C = R(c);
                    BOTH(LANES {
                        int64_t x = SIM_SX(A[l], SH), y = SIM_SX(B[l], SH), z = SIM_SX(C[l], SH);
                        PUT((uint64_t)(x < y ? y : x > z ? z : x));
                    });
                    goto fmath_done;
                }
                default: break;
                }
            }
            if (sim_exec_fmath(ctx, w, IN, PC, exec))
                goto fault;
        fmath_done:
            break;
        OP(CVT) {
            /* the common 32-bit integer to f32 conversions here (one rounding, as sim/fmath.c does); the rest there */
            const isa_type from = (isa_type)IN->type2;
            if (TYPE == ISA_TYPE_F32 && (from == ISA_TYPE_U32 || from == ISA_TYPE_I32)) {
                uint64_t *D = R(d); const uint64_t *A = R(a);
                if (from == ISA_TYPE_U32)
                    BOTH(LANES PUT(sim_f32_bits((float)(uint32_t)A[l])););
                else
                    BOTH(LANES PUT(sim_f32_bits((float)(int32_t)(uint32_t)A[l])););
                break;
            }
            if (sim_exec_cvt(ctx, w, IN, PC, exec))
                goto fault;
            break;
        }
        OP(VEXTRACT) {
            uint64_t *D = R(d); const uint64_t *B = R(b);
            sim_mask bad = 0;
            const uint64_t n = (uint64_t)IN->imm;
            LANES {
                uint64_t k = (uint32_t)B[l];
                bad |= (sim_mask)(k >= n) << l;
                PUT(k < n ? regs[((size_t)IN->a + k) * W + l] : 0);
            }
            if (bad & exec)
                report_lanes(ctx, w, PC, bad & exec, "vector index out of range on extract");
            break;
        }
        OP(VINSERT) {
            const uint64_t *A = R(a), *B = R(b);
            sim_mask bad = 0;
            const uint64_t n = (uint64_t)IN->imm;
            LANES {
                uint64_t k = (uint32_t)B[l];
                if (!sim_mask_has(exec, l))
                    continue;
                if (k >= n)
                    bad |= sim_mask_lane(l);
                else
                    regs[((size_t)IN->d + k) * W + l] = A[l];
            }
            if (bad)
                report_lanes(ctx, w, PC, bad, "vector index out of range on insert");
            break;
        }
        /* ---- cross-lane ---- */
        OP(ELECT) OP(VOTE_ALL) OP(VOTE_ANY) OP(VOTE_EQ) OP(BCAST)
        OP(BCAST_FIRST) OP(BALLOT) OP(INV_BALLOT) OP(BALLOT_BIT)
        OP(BALLOT_CNT) OP(BALLOT_LSB) OP(BALLOT_MSB)
        OP(SHUFFLE_XOR) OP(SHUFFLE_UP) OP(SHUFFLE_DN) OP(QUAD_BCAST)
        OP(QUAD_SWAP) OP(WAVE_OP) OP(DPDX) OP(DPDY)
        xlane:
            if (sim_exec_xlane(ctx, w, IN, PC, exec))
                goto fault;
            break;
        OP(SHUFFLE) {
            /* the common case here, with W constant (article 000's broadcast of one light to the wave):
             * every lane active and reading a lane of the wave.  Anything else, a read of an inactive
             * or missing lane that must be reported, is sim/xlane.c's. */
            if (!full)
                goto xlane;
            uint64_t *D = R(d);
            const uint64_t *A = R(a), *B = R(b);
            uint64_t out[WAVE_W];
            const uint32_t b0 = (uint32_t)B[0];
            uint32_t outside = 0, differ = 0;
            LANES {
                outside |= (uint32_t)B[l] >= W;
                differ |= (uint32_t)B[l] != b0;
            }
            if (outside)
                goto xlane;
            if (!differ) { /* one lane for all (a uniform index): one load, then a broadcast */
                const uint64_t v = A[b0];
                LANES D[l] = v;
                break;
            }
            for (uint32_t l = 0; l < W; l++)
                out[l] = A[(uint32_t)B[l]];
            LANES D[l] = out[l];
            break;
        }
        /* ---- memory ---- */
        OP(LOAD) OP(STORE) OP(ATOMIC) OP(IMG_READ) OP(IMG_WRITE)
        OP(ARRAY_LEN) OP(IMG_SIZE)
            if (sim_exec_memory(ctx, w, IN, PC, exec))
                goto fault;
            break;
        OP(IMG_LOAD) OP(IMG_STORE) OP(IMG_SAMPLE) OP(IMG_GATHER) OP(IMG_ATOMIC) OP(IMG_QUERY) OP(IMG_QUERY_LOD)
            if (sim_exec_image(ctx, w, IN, PC, exec))
                goto fault;
            break;
        /* ---- exec masks and control ---- */
        OP(BLOCK)
            exec = masks[IN->a];
            masks[IN->a] = 0;
            SET_LANE_MASKS(exec);
            if (exec == 0) {
                JUMP_TO(IN->imm);
            }
            break;
        OP(MASK_COND) {
            const uint64_t *A = R(a);
            sim_mask m;
            const uint64_t want = IN->imm ? 0 : 1;
            if (TYPE == ISA_TYPE_BOOL || TYPE == ISA_TYPE_NONE)
                m = SIM_MASK_OF(W, (A[l] & 1) == want);
            else
                m = SIM_MASK_OF(W, (SIM_ZX(A[l], SH) != 0) == want);
            masks[IN->d] = exec & m;
            break;
        }
        OP(MASK_EXEC)
            masks[IN->d] = exec;
            break;
        OP(JOIN)
            masks[IN->d] |= exec;
            break;
        OP(BRANCH) {
            const uint64_t *A = R(a);
            const sim_mask m = SIM_MASK_OF(W, A[l] & 1);
            masks[IN->d] |= exec & m;
            masks[IN->e] |= exec & ~m;
            break;
        }
/* The integer comparison of branch_cmp and branch_if (imm2: its isa_op), written to D from A and B. */
#define BRANCH_COMPARE() \
    switch ((isa_op)IN->imm2) { \
    case ISA_OP_IEQ: INT_U2(x == y); break; \
    case ISA_OP_INE: INT_U2(x != y); break; \
    case ISA_OP_ULT: INT_U2(x < y); break; \
    case ISA_OP_ULE: INT_U2(x <= y); break; \
    case ISA_OP_SLT: INT_S2(x < y); break; \
    case ISA_OP_SLE: INT_S2(x <= y); break; \
    default: goto bad_type; \
    }
        OP(BRANCH_CMP) { /* a comparison and the branch on it (isa/lean.c): the comparison's write, then the edges */
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
            BRANCH_COMPARE();
            const sim_mask m = SIM_MASK_OF(W, D[l] & 1);
            masks[IN->c] |= exec & m;
            masks[IN->e] |= exec & ~m;
            break;
        }
/* branch + the next block's `block` (isa/lean.c), on the bool in C: exec narrows, or stays when uniform */
#define BRANCH_IF_TAIL(C) \
    do { \
        const sim_mask m_ = exec & SIM_MASK_OF(W, (C)[l] & 1); \
        if (m_ != exec) { /* some lanes go the other way: the masked path, as branch + block */ \
            masks[IN->e] |= exec & ~m_; \
            exec = m_; \
            SET_LANE_MASKS(exec); \
            if (exec == 0) \
                JUMP_TO(IN->imm); \
        } \
    } while (0)
        OP(BRANCH_IF) {
            const uint64_t *C = R(a);
            if (IN->imm2) {
                uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
                BRANCH_COMPARE();
                C = D;
            }
            BRANCH_IF_TAIL(C);
            break;
        }
        SOP(BRANCH_IF_B) BRANCH_IF_TAIL(R(a)); break;
        SOP(BRANCH_IF_ULT_32) {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
            INT_U2_32(x < y);
            BRANCH_IF_TAIL(D);
            break;
        }
        SOP(BRANCH_IF_SLT_32) {
            uint64_t *D = R(d); const uint64_t *A = R(a), *B = R(b);
            INT_S2_32(x < y);
            BRANCH_IF_TAIL(D);
            break;
        }
        OP(JUMP)
            JUMP_TO(IN->imm);
        OP(MASK_CASE) {
            const uint64_t *A = R(a);
            const uint64_t v = SIM_ZX((uint64_t)IN->imm, SH);
            const sim_mask m = SIM_MASK_OF(W, SIM_ZX(A[l], SH) == v);
            masks[IN->d] = exec & m;
            break;
        }
        OP(MASK_OR) masks[IN->d] |= masks[IN->a]; break;
        OP(MASK_ANDN) masks[IN->d] &= ~masks[IN->a]; break;
        OP(LOOP)
            if (masks[IN->a]) {
                JUMP_TO(IN->imm);
            }
            break;
        OP(BARRIER)
            di++;
            stop = WAVE_STOP_BARRIER;
            goto out;
        OP(END)
            stop = WAVE_STOP_END;
            goto out;
        DISPATCH_END
        di++;
        JUMPED
    }

head: {
    /* the per-instruction work of a segment start, and of every instruction of a careful segment */
    const uint32_t pc = PC;
    if (widened) { /* the last instruction was scalar ALU: back to exec's lanes */
        SET_LANE_MASKS(exec);
        widened = 0;
    }
    if (di->ix & 1) {
        const uint32_t n = seg_len[pc];
        seg = pc;
        exec_lanes = sim_mask_count(exec);
        budget_pc = UINT32_MAX;
        if (__builtin_expect(budget_left < n, 0)) {
            budget_pc = pc + (uint32_t)budget_left;
            budget_left = 0;
        } else
            budget_left -= n;
        seg_exec[pc]++;
        seg_lanes[pc] += exec_lanes;
        SET_CAREFUL(budget_pc != UINT32_MAX || step != NULL || ((di->flags & SIM_DEC_SEG_SALU) && exec != live));
    }
    if (__builtin_expect(pc == budget_pc, 0)) {
        SAVE();
        uncount_rest(ctx, seg, pc, exec_lanes);
        sim_fault(ctx, w, pc, SIM_FAULT_BUDGET, -1, -1, -1,
                  "runaway kernel: budget %llu wave instructions exhausted at pc %u, workgroup (%u,%u,%u), "
                  "wave %u (--budget N raises it)",
                  (unsigned long long)ctx->budget, pc, ctx->group[0], ctx->group[1], ctx->group[2], w->index);
        return WAVE_STOP_FAULT;
    }
    if (__builtin_expect(step != NULL, 0))
        sim_step_call(ctx, w, step, pc, exec);
    if ((di->flags & SIM_DEC_SALU) && exec != live) {
        SET_LANE_MASKS(live);
        widened = 1;
    }
    DISPATCH_OP();
}

bad_type:
    SAVE();
    uncount_rest(ctx, seg, PC + 1, exec_lanes);
    sim_fault(ctx, w, PC, SIM_FAULT_UNSUPPORTED, -1, -1, -1, "%s is not defined for type '%s'",
              isa_op_name((isa_op)IN->op), isa_type_name((isa_type)IN->type));
    return WAVE_STOP_FAULT;
fault:
    SAVE();
    uncount_rest(ctx, seg, PC + 1, exec_lanes);
    return WAVE_STOP_FAULT;
out:
    SAVE();
    return stop;
#undef PC
#undef IN
#undef TYPE
#undef BITS
#undef SH
#undef SAVE
#undef R
#undef RE
#undef SET_LANE_MASKS
#undef JUMP_TO
#undef JUMPED
#undef SET_CAREFUL
#undef BRANCH_COMPARE
#undef BRANCH_IF_TAIL
#undef DISPATCH_BEGIN
#undef DISPATCH_OP
#undef OP
#undef SOP
#undef DISPATCH_END
}

