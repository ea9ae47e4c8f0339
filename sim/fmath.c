/*
 * sim/fmath.c — FMATH (the GLSL.std.450 extended instructions) and CVT
 * (numeric conversions).
 *
 * FMATH computes in the instruction type's precision: f32 with the float
 * functions of the C library (sinf, ...), f64 with the double ones, f16 in
 * float and rounded to half once at the end.  Transcendentals therefore
 * follow the host's libm (glibc), not any GPU's: see docs/quirks.md.  The
 * vector-only instructions (Length, Cross, Normalize, ...) are expanded by
 * the lowering and are not here.  Pack/unpack instructions read or write
 * consecutive registers (a.. / d..), one vector component per register.
 *
 * CVT: type = destination, type2 = source.  Integers wrap or extend by the
 * source's signedness; integer to float and float to float round to nearest
 * even; float to integer truncates toward zero, and a NaN or a value outside
 * the destination's range is undefined: reported, and the result is clamped
 * to the range (NaN gives 0).
 */
#include <math.h>
#include <spirv/unified1/GLSL.std.450.h>

#include "sim/sim_internal.h"

#define LANES for (uint32_t l = 0; l < W; l++)
#define PUT(value) SIM_PUT(D, l, lm, value)
#define PUT1(value) SIM_PUT(D1, l, lm, value)

static inline float clampf(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }
static inline double clampd(double x, double lo, double hi) { return fmin(fmax(x, lo), hi); }
static inline float signf(float x) { return x > 0 ? 1.0f : x < 0 ? -1.0f : x; }
static inline double signd(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }
static inline float smoothf(float e0, float e1, float x)
{
    float t = clampf((x - e0) / (e1 - e0), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}
static inline double smoothd(double e0, double e1, double x)
{
    double t = clampd((x - e0) / (e1 - e0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}
/* The lowering sign-extends every exponent to 64 bits; beyond +-100000 every finite x already gives 0 or inf,
 * so clamping there keeps the result and fits an int. */
static inline int ldexp_exponent(uint64_t v)
{
    int64_t e = (int64_t)v;
    return e < -100000 ? -100000 : e > 100000 ? 100000 : (int)e;
}

static inline uint64_t pack_unorm(float v, float scale) { return (uint64_t)nearbyintf(clampf(v, 0.0f, 1.0f) * scale); }
static inline uint64_t pack_snorm(float v, float scale, uint64_t field)
{
    return (uint64_t)(int64_t)nearbyintf(clampf(v, -1.0f, 1.0f) * scale) & field;
}

/* One template per precision: x, y, z are the inputs a, b, c. */
#define F1(ef, ed) \
    switch (type) { \
    case ISA_TYPE_F16: LANES { float x = sim_f16(A[l]); PUT(sim_f16_bits(ef)); } break; \
    case ISA_TYPE_F32: LANES { float x = sim_f32(A[l]); PUT(sim_f32_bits(ef)); } break; \
    case ISA_TYPE_F64: LANES { double x = sim_f64(A[l]); PUT(sim_f64_bits(ed)); } break; \
    default: goto bad_type; } \
    return 0
#define F2(ef, ed) \
    switch (type) { \
    case ISA_TYPE_F16: LANES { float x = sim_f16(A[l]), y = sim_f16(B[l]); PUT(sim_f16_bits(ef)); } break; \
    case ISA_TYPE_F32: LANES { float x = sim_f32(A[l]), y = sim_f32(B[l]); PUT(sim_f32_bits(ef)); } break; \
    case ISA_TYPE_F64: LANES { double x = sim_f64(A[l]), y = sim_f64(B[l]); PUT(sim_f64_bits(ed)); } break; \
    default: goto bad_type; } \
    return 0
#define F3(ef, ed) \
    switch (type) { \
    case ISA_TYPE_F16: LANES { float x = sim_f16(A[l]), y = sim_f16(B[l]), z = sim_f16(C[l]); PUT(sim_f16_bits(ef)); } break; \
    case ISA_TYPE_F32: LANES { float x = sim_f32(A[l]), y = sim_f32(B[l]), z = sim_f32(C[l]); PUT(sim_f32_bits(ef)); } break; \
    case ISA_TYPE_F64: LANES { double x = sim_f64(A[l]), y = sim_f64(B[l]), z = sim_f64(C[l]); PUT(sim_f64_bits(ed)); } break; \
    default: goto bad_type; } \
    return 0
/* Integer templates: x, y, z extended to 64 bits by the op's signedness. */
#define U3(expr) LANES { uint64_t x = SIM_ZX(A[l], sh), y = B ? SIM_ZX(B[l], sh) : 0, z = C ? SIM_ZX(C[l], sh) : 0; (void)y; (void)z; PUT(expr); } return 0
#define S3(expr) LANES { int64_t x = SIM_SX(A[l], sh), y = B ? SIM_SX(B[l], sh) : 0, z = C ? SIM_SX(C[l], sh) : 0; (void)y; (void)z; PUT((uint64_t)(expr)); } return 0

/* The body of sim_exec_fmath, compiled twice (SIM_WITH_F16C below). */
static inline __attribute__((always_inline)) int fmath(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc,
                                                       sim_mask exec)
{
    const uint32_t W = ctx->wave_size;
    const uint64_t *lm = w->lane_mask;
    const isa_type type = (isa_type)in->type;
    const unsigned sh = 64 - sim_type_bits(type);
    const isa_glsl *g = isa_glsl_info(in->imm);
    (void)exec;
    if (!g)
        return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, -1, -1,
                         "GLSL.std.450 instruction %lld is not supported by the model", (long long)in->imm);
    const unsigned inputs = g->inputs, input_regs = g->input_regs, outputs = g->outputs;
    uint64_t *D = sim_reg(ctx, w, in->d);
    uint64_t *D1 = outputs > 1 ? sim_reg(ctx, w, in->d + 1) : NULL;
    const uint64_t *A = sim_reg(ctx, w, in->a);
    const uint64_t *B = inputs > 1 ? sim_reg(ctx, w, in->b) : NULL;
    const uint64_t *C = inputs > 2 ? sim_reg(ctx, w, in->c) : NULL;
    const uint64_t *A1 = input_regs > 1 ? sim_reg(ctx, w, in->a + 1) : NULL;

    switch ((enum GLSLstd450)in->imm) {
    case GLSLstd450Round: F1(roundf(x), round(x));
    case GLSLstd450RoundEven: F1(nearbyintf(x), nearbyint(x));
    case GLSLstd450Trunc: F1(truncf(x), trunc(x));
    case GLSLstd450FAbs: F1(fabsf(x), fabs(x));
    case GLSLstd450FSign: F1(signf(x), signd(x));
    case GLSLstd450Floor: F1(floorf(x), floor(x));
    case GLSLstd450Ceil: F1(ceilf(x), ceil(x));
    case GLSLstd450Fract: F1(x - floorf(x), x - floor(x));
    case GLSLstd450Radians: F1(x * (float)(M_PI / 180.0), x * (M_PI / 180.0));
    case GLSLstd450Degrees: F1(x * (float)(180.0 / M_PI), x * (180.0 / M_PI));
    case GLSLstd450Sin: F1(sinf(x), sin(x));
    case GLSLstd450Cos: F1(cosf(x), cos(x));
    case GLSLstd450Tan: F1(tanf(x), tan(x));
    case GLSLstd450Asin: F1(asinf(x), asin(x));
    case GLSLstd450Acos: F1(acosf(x), acos(x));
    case GLSLstd450Atan: F1(atanf(x), atan(x));
    case GLSLstd450Sinh: F1(sinhf(x), sinh(x));
    case GLSLstd450Cosh: F1(coshf(x), cosh(x));
    case GLSLstd450Tanh: F1(tanhf(x), tanh(x));
    case GLSLstd450Asinh: F1(asinhf(x), asinh(x));
    case GLSLstd450Acosh: F1(acoshf(x), acosh(x));
    case GLSLstd450Atanh: F1(atanhf(x), atanh(x));
    case GLSLstd450Atan2: F2(atan2f(x, y), atan2(x, y));
    case GLSLstd450Pow: F2(powf(x, y), pow(x, y));
    case GLSLstd450Exp: F1(expf(x), exp(x));
    case GLSLstd450Log: F1(logf(x), log(x));
    case GLSLstd450Exp2: F1(exp2f(x), exp2(x));
    case GLSLstd450Log2: F1(log2f(x), log2(x));
    case GLSLstd450Sqrt: F1(sqrtf(x), sqrt(x));
    case GLSLstd450InverseSqrt: F1(1.0f / sqrtf(x), 1.0 / sqrt(x));
    case GLSLstd450FMin: case GLSLstd450NMin: F2(fminf(x, y), fmin(x, y));
    case GLSLstd450FMax: case GLSLstd450NMax: F2(fmaxf(x, y), fmax(x, y));
    case GLSLstd450FClamp: case GLSLstd450NClamp: F3(clampf(x, y, z), clampd(x, y, z));
    case GLSLstd450FMix: F3(x * (1.0f - z) + y * z, x * (1.0 - z) + y * z);
    case GLSLstd450Step: F2(y < x ? 0.0f : 1.0f, y < x ? 0.0 : 1.0);
    case GLSLstd450SmoothStep: F3(smoothf(x, y, z), smoothd(x, y, z));
    case GLSLstd450Fma:
        if (type == ISA_TYPE_F16) { /* exact product in double, then one rounding to half */
            LANES PUT(sim_f16_bits_d(fma((double)sim_f16(A[l]), (double)sim_f16(B[l]), (double)sim_f16(C[l]))));
            return 0;
        }
        F3(fmaf(x, y, z), fma(x, y, z));
    case GLSLstd450Ldexp: F1(ldexpf(x, ldexp_exponent(B[l])), ldexp(x, ldexp_exponent(B[l])));
    case GLSLstd450Modf: case GLSLstd450ModfStruct:
        switch (type) {
        case ISA_TYPE_F16: LANES { float whole, f = modff(sim_f16(A[l]), &whole); PUT(sim_f16_bits(f)); PUT1(sim_f16_bits(whole)); } return 0;
        case ISA_TYPE_F32: LANES { float whole, f = modff(sim_f32(A[l]), &whole); PUT(sim_f32_bits(f)); PUT1(sim_f32_bits(whole)); } return 0;
        case ISA_TYPE_F64: LANES { double whole, f = modf(sim_f64(A[l]), &whole); PUT(sim_f64_bits(f)); PUT1(sim_f64_bits(whole)); } return 0;
        default: goto bad_type;
        }
    case GLSLstd450Frexp: case GLSLstd450FrexpStruct:
        switch (type) {
        case ISA_TYPE_F16: LANES { int e; float m = frexpf(sim_f16(A[l]), &e); PUT(sim_f16_bits(m)); PUT1((uint32_t)e); } return 0;
        case ISA_TYPE_F32: LANES { int e; float m = frexpf(sim_f32(A[l]), &e); PUT(sim_f32_bits(m)); PUT1((uint32_t)e); } return 0;
        case ISA_TYPE_F64: LANES { int e; double m = frexp(sim_f64(A[l]), &e); PUT(sim_f64_bits(m)); PUT1((uint32_t)e); } return 0;
        default: goto bad_type;
        }
    /* integers: the type gives the width, the instruction the signedness */
    case GLSLstd450SAbs: S3(x < 0 ? 0 - (uint64_t)x : (uint64_t)x);
    case GLSLstd450SSign: S3((x > 0) - (x < 0));
    case GLSLstd450UMin: U3(x < y ? x : y);
    case GLSLstd450SMin: S3(x < y ? x : y);
    case GLSLstd450UMax: U3(x > y ? x : y);
    case GLSLstd450SMax: S3(x > y ? x : y);
    case GLSLstd450UClamp: U3(x < y ? y : x > z ? z : x);
    case GLSLstd450SClamp: S3(x < y ? y : x > z ? z : x);
    case GLSLstd450FindILsb: U3(x ? (uint64_t)__builtin_ctzll(x) : ~0ull);
    case GLSLstd450FindUMsb: U3(x ? (uint64_t)(63 - __builtin_clzll(x)) : ~0ull);
    case GLSLstd450FindSMsb:
        S3((x < 0 ? ~x : x) ? (uint64_t)(63 - __builtin_clzll((uint64_t)(x < 0 ? ~x : x))) : ~0ull);
    /* packing: components are f32 in consecutive registers */
    case GLSLstd450PackUnorm4x8: case GLSLstd450PackSnorm4x8: {
        const uint64_t *A2 = sim_reg(ctx, w, in->a + 2), *A3 = sim_reg(ctx, w, in->a + 3);
        int snorm = in->imm == GLSLstd450PackSnorm4x8;
        LANES {
            float v[4] = {sim_f32(A[l]), sim_f32(A1[l]), sim_f32(A2[l]), sim_f32(A3[l])};
            uint64_t r = 0;
            for (int c = 0; c < 4; c++)
                r |= (snorm ? pack_snorm(v[c], 127.0f, 0xff) : pack_unorm(v[c], 255.0f)) << (8 * c);
            PUT(r);
        }
        return 0;
    }
    case GLSLstd450PackUnorm2x16:
        LANES PUT(pack_unorm(sim_f32(A[l]), 65535.0f) | pack_unorm(sim_f32(A1[l]), 65535.0f) << 16);
        return 0;
    case GLSLstd450PackSnorm2x16:
        LANES PUT(pack_snorm(sim_f32(A[l]), 32767.0f, 0xffff) | pack_snorm(sim_f32(A1[l]), 32767.0f, 0xffff) << 16);
        return 0;
    case GLSLstd450PackHalf2x16:
        LANES PUT(sim_f16_bits(sim_f32(A[l])) | sim_f16_bits(sim_f32(A1[l])) << 16);
        return 0;
    case GLSLstd450PackDouble2x32:
        LANES PUT((A[l] & 0xffffffffull) | A1[l] << 32);
        return 0;
    case GLSLstd450UnpackHalf2x16:
        LANES { uint64_t v = A[l]; PUT(sim_f32_bits(sim_f16(v))); PUT1(sim_f32_bits(sim_f16(v >> 16))); }
        return 0;
    case GLSLstd450UnpackUnorm2x16:
        LANES { uint64_t v = A[l]; PUT(sim_f32_bits((float)(v & 0xffff) / 65535.0f)); PUT1(sim_f32_bits((float)((v >> 16) & 0xffff) / 65535.0f)); }
        return 0;
    case GLSLstd450UnpackSnorm2x16:
        LANES {
            uint64_t v = A[l];
            PUT(sim_f32_bits(clampf((float)(int16_t)(v & 0xffff) / 32767.0f, -1.0f, 1.0f)));
            PUT1(sim_f32_bits(clampf((float)(int16_t)((v >> 16) & 0xffff) / 32767.0f, -1.0f, 1.0f)));
        }
        return 0;
    case GLSLstd450UnpackUnorm4x8: case GLSLstd450UnpackSnorm4x8: {
        uint64_t *Dc[4] = {D, D1, sim_reg(ctx, w, in->d + 2), sim_reg(ctx, w, in->d + 3)};
        int snorm = in->imm == GLSLstd450UnpackSnorm4x8;
        LANES {
            uint64_t v = A[l];
            for (int c = 0; c < 4; c++) {
                uint64_t byte = (v >> (8 * c)) & 0xff;
                float f = snorm ? clampf((float)(int8_t)byte / 127.0f, -1.0f, 1.0f) : (float)byte / 255.0f;
                SIM_PUT(Dc[c], l, lm, sim_f32_bits(f));
            }
        }
        return 0;
    }
    case GLSLstd450UnpackDouble2x32:
        LANES { uint64_t v = A[l]; PUT(v & 0xffffffffull); PUT1(v >> 32); }
        return 0;
    default:
        break;
    }
bad_type:
    return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, -1, -1, "GLSL.std.450 %s is not defined for type '%s'",
                     isa_glsl_info(in->imm)->name, isa_type_name(type));
}

/* ------------------------------------------------------------ CVT */

/* The body of sim_exec_cvt, compiled twice (SIM_WITH_F16C below). */
static inline __attribute__((always_inline)) int cvt(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc,
                                                     sim_mask exec)
{
    const uint32_t W = ctx->wave_size;
    const uint64_t *lm = w->lane_mask;
    const isa_type to = (isa_type)in->type, from = (isa_type)in->type2;
    const unsigned to_bits = sim_type_bits(to), from_bits = sim_type_bits(from);
    const unsigned fsh = 64 - from_bits;
    uint64_t *D = sim_reg(ctx, w, in->d);
    const uint64_t *A = sim_reg(ctx, w, in->a);
    if (to == ISA_TYPE_NONE || from == ISA_TYPE_NONE || to >= ISA_TYPE_COUNT || from >= ISA_TYPE_COUNT)
        return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, -1, -1, "cvt from '%s' to '%s'",
                         isa_type_name(from), isa_type_name(to));
    const int from_float = isa_type_is_float(from), to_float = isa_type_is_float(to);
    const int from_signed = isa_type_is_signed(from);

    if (!from_float) {
        if (!to_float) {
            if (to == ISA_TYPE_BOOL)
                LANES PUT(SIM_ZX(A[l], fsh) != 0);
            else if (from_signed)
                LANES PUT((uint64_t)SIM_SX(A[l], fsh));
            else
                LANES PUT(SIM_ZX(A[l], fsh));
            return 0;
        }
        /* integer to float: one rounding, straight from the 64-bit integer */
        switch (to) {
        case ISA_TYPE_F16:
            /* through double: exact for every integer below 2^53, and anything larger is infinite in half */
            if (from_signed) LANES PUT(sim_f16_bits_d((double)SIM_SX(A[l], fsh)));
            else LANES PUT(sim_f16_bits_d((double)SIM_ZX(A[l], fsh)));
            return 0;
        case ISA_TYPE_F32:
            if (from_signed) LANES PUT(sim_f32_bits((float)SIM_SX(A[l], fsh)));
            else LANES PUT(sim_f32_bits((float)SIM_ZX(A[l], fsh)));
            return 0;
        default:
            if (from_signed) LANES PUT(sim_f64_bits((double)SIM_SX(A[l], fsh)));
            else LANES PUT(sim_f64_bits((double)SIM_ZX(A[l], fsh)));
            return 0;
        }
    }

    /* half to float and back: the same values as through double below (the one rounding is from the same value),
     * but each a single F16C instruction in the F16C copy, where GCC turns half-to-double into a libgcc call */
    if (from == ISA_TYPE_F16 && to == ISA_TYPE_F32) {
        LANES PUT(sim_f32_bits(sim_f16(A[l])));
        return 0;
    }
    if (from == ISA_TYPE_F32 && to == ISA_TYPE_F16) {
        LANES PUT(sim_f16_bits(sim_f32(A[l])));
        return 0;
    }
    /* from float: every f16/f32/f64 value is exact in double */
    double v[SIM_MAX_WAVE];
    switch (from) {
    case ISA_TYPE_F16: LANES v[l] = sim_f16(A[l]); break;
    case ISA_TYPE_F32: LANES v[l] = sim_f32(A[l]); break;
    default: LANES v[l] = sim_f64(A[l]); break;
    }
    if (to_float) {
        switch (to) {
        case ISA_TYPE_F16: LANES PUT(sim_f16_bits_d(v[l])); break;
        case ISA_TYPE_F32: LANES PUT(sim_f32_bits((float)v[l])); break;
        default: LANES PUT(sim_f64_bits(v[l])); break;
        }
        return 0;
    }
    if (to == ISA_TYPE_BOOL) {
        LANES PUT(v[l] != 0);
        return 0;
    }
    /* float to integer: truncate; NaN and out of range are reported and clamped */
    const int to_signed = isa_type_is_signed(to);
    const double limit = ldexp(1.0, (int)to_bits - (to_signed ? 1 : 0)); /* first value above the range */
    const uint64_t hi = to_signed ? (to_bits == 64 ? (uint64_t)INT64_MAX : (1ull << (to_bits - 1)) - 1)
                                  : (to_bits == 64 ? ~0ull : (1ull << to_bits) - 1);
    const uint64_t lo = to_signed ? ~hi : 0; /* sign-extended minimum */
    sim_mask bad = 0;
    LANES {
        double t = trunc(v[l]);
        uint64_t r;
        if (t != t) {
            r = 0;
            bad |= sim_mask_lane(l);
        } else if (t >= limit) {
            r = hi;
            bad |= sim_mask_lane(l);
        } else if (to_signed ? t < -limit : t < 0) {
            r = lo;
            bad |= sim_mask_lane(l);
        } else
            r = to_signed ? (uint64_t)(int64_t)t : (uint64_t)t;
        PUT(r);
    }
    for (bad &= exec; bad; bad &= bad - 1)
        sim_report_undefined(ctx, w, pc, (int32_t)sim_mask_first(bad),
                             "cvt: %s value %g does not fit in %s (result clamped, NaN gives 0)",
                             isa_type_name(from), v[sim_mask_first(bad)], isa_type_name(to));
    return 0;
}

/* Both handlers twice: plain, and with F16C where the host has it (sim_internal.h, "fp16"). */
SIM_WITH_F16C(static int, fmath_f16c, fmath_plain, fmath,
              (sim_ctx * ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec), (ctx, w, in, pc, exec))
SIM_WITH_F16C(static int, cvt_f16c, cvt_plain, cvt,
              (sim_ctx * ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec), (ctx, w, in, pc, exec))

int sim_exec_fmath(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec)
{
    return sim_use_f16c(ctx) ? fmath_f16c(ctx, w, in, pc, exec) : fmath_plain(ctx, w, in, pc, exec);
}

int sim_exec_cvt(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec)
{
    return sim_use_f16c(ctx) ? cvt_f16c(ctx, w, in, pc, exec) : cvt_plain(ctx, w, in, pc, exec);
}
