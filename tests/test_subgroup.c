/*
 * tests/test_subgroup.c — the subgroup matrix: every GL_KHR_shader_subgroup_*
 * operation x type class x wave size {4..128} x activity pattern, run from
 * GLSL text through glslang, the lowering and the executor, and compared
 * element by element with a reference written here.
 *
 * The reference models the *spec* over an array of lanes: which lanes of
 * which wave exist and are active (from the pattern, the workgroup split by
 * LocalInvocationIndex and the partial last wave), and what each operation
 * gives each active lane.  Where the spec leaves a result undefined (a
 * shuffle or quad read of an inactive lane) the reference predicts the
 * simulator's documented yield (0, sim/xlane.c) and the number of
 * undefined-behaviour reports it must make.
 *
 * Floats: reductions and scans combine in ascending lane order with the
 * type's rounding after each step (the simulator's documented order), so the
 * reference does the same; inputs are small dyadic fractions, so sums are
 * exact anyway.
 *
 * Layout of every generated kernel: binding 0 the lane inputs (uint words,
 * [iteration][invocation]), binding 1 per-lane control words (trip counts,
 * predicates, shuffle sources chosen by the host among active lanes),
 * binding 2 the outputs, NOUT words per invocation and iteration.  Every
 * invocation first writes SENTINEL into all of its outputs; the operations
 * then overwrite them only where the pattern makes the lane active.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isa/isa.h"
#include "sim/sim.h"
#include "tests/support/tsup.h"

#define SENTINEL 0xDEADBEEFu
#define HOST_FILL 0x01010101u
#define GROUPS 2
#define MAX_ITERS 4
#define CTLW 8
#define MAX_ROWS 80

enum { CTL_TRIP, CTL_PRED, CTL_SRC, CTL_XOR, CTL_UP, CTL_DOWN, CTL_VOTE, CTL_BIT };

/* the matrix runs every wave size the simulator models; the focused tests use 64-invocation workgroups */
static const uint32_t matrix_waves[] = {4, 8, 16, 32, 64, 128};
#define NMATRIX_WAVES (sizeof matrix_waves / sizeof matrix_waves[0])
static const uint32_t wave_sizes[] = {4, 8, 16, 32, 64};
#define NWAVES (sizeof wave_sizes / sizeof wave_sizes[0])

/* Lane masks of the reference: up to 128 lanes, written independently of the simulator's sim_mask helpers. */
typedef unsigned __int128 lanes128;
static lanes128 bit128(uint32_t l) { return (lanes128)1 << l; }
static lanes128 low128(uint32_t n) { return n >= 128 ? ~(lanes128)0 : bit128(n) - 1; }
static uint32_t popcount128(lanes128 m)
{
    uint32_t n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}
static uint32_t lowest128(lanes128 m)
{
    uint32_t l = 0;
    while (!((m >> l) & 1))
        l++;
    return l;
}
static uint32_t highest128(lanes128 m)
{
    uint32_t l = 127;
    while (!((m >> l) & 1))
        l--;
    return l;
}

/* ------------------------------------------------------------ types */

typedef enum ty { TY_U32, TY_I32, TY_F32, TY_BOOL, TY_U64, TY_I64, TY_F64, TY_F16, TY_COUNT } ty;

static const struct {
    const char *name;
    const char *ext;      /* extensions the type needs */
    const char *helpers;  /* GLSL: T ld(uint i), void st(uint o, T v) */
    int words;            /* uint words per value in the buffers */
} types[TY_COUNT] = {
    [TY_U32] = {"uint", "", "uint ld(uint i) { return inw[i]; }\nvoid st(uint o, uint v) { outw[o] = v; }\n", 1},
    [TY_I32] = {"int", "", "int ld(uint i) { return int(inw[i]); }\nvoid st(uint o, int v) { outw[o] = uint(v); }\n", 1},
    [TY_F32] = {"float", "",
                "float ld(uint i) { return uintBitsToFloat(inw[i]); }\n"
                "void st(uint o, float v) { outw[o] = floatBitsToUint(v); }\n", 1},
    [TY_BOOL] = {"bool", "", "bool ld(uint i) { return inw[i] != 0u; }\nvoid st(uint o, bool v) { outw[o] = v ? 1u : 0u; }\n",
                 1},
    [TY_U64] = {"uint64_t",
                "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n"
                "#extension GL_EXT_shader_subgroup_extended_types_int64 : require\n",
                "uint64_t ld(uint i) { return packUint2x32(uvec2(inw[2u * i], inw[2u * i + 1u])); }\n"
                "void st(uint o, uint64_t v) { uvec2 u = unpackUint2x32(v); outw[o] = u.x; outw[o + 1u] = u.y; }\n", 2},
    [TY_I64] = {"int64_t",
                "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n"
                "#extension GL_EXT_shader_subgroup_extended_types_int64 : require\n",
                "int64_t ld(uint i) { return int64_t(packUint2x32(uvec2(inw[2u * i], inw[2u * i + 1u]))); }\n"
                "void st(uint o, int64_t v) { uvec2 u = unpackUint2x32(uint64_t(v)); outw[o] = u.x; outw[o + 1u] = u.y; }\n",
                2},
    /* through uint64 bit casts, not packDouble2x32: see test_subgroup_pack_double_round_trips_bits */
    [TY_F64] = {"double", "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n",
                "double ld(uint i) { return uint64BitsToDouble(packUint2x32(uvec2(inw[2u * i], inw[2u * i + 1u]))); }\n"
                "void st(uint o, double v) { uvec2 u = unpackUint2x32(doubleBitsToUint64(v)); outw[o] = u.x; "
                "outw[o + 1u] = u.y; }\n", 2},
    [TY_F16] = {"float16_t",
                "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
                "#extension GL_EXT_shader_subgroup_extended_types_float16 : require\n",
                "float16_t ld(uint i) { return unpackFloat2x16(inw[i]).x; }\n"
                "void st(uint o, float16_t v) { outw[o] = packFloat2x16(f16vec2(v, float16_t(0.0))); }\n", 1},
};

static int ty_is_float(ty t) { return t == TY_F32 || t == TY_F64 || t == TY_F16; }

static float f32_of(uint64_t b) { uint32_t u = (uint32_t)b; float f; memcpy(&f, &u, 4); return f; }
static uint64_t bits_f32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static double f64_of(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static uint64_t bits_f64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
#ifdef __FLT16_MAX__
#define HAVE_F16 1
static float f16_of(uint64_t b) { uint16_t u = (uint16_t)b; _Float16 h; memcpy(&h, &u, 2); return (float)h; }
static uint64_t bits_f16(float f) { _Float16 h = (_Float16)f; uint16_t u; memcpy(&u, &h, 2); return u; }
#else
#define HAVE_F16 0
static float f16_of(uint64_t b) { (void)b; return 0; }
static uint64_t bits_f16(float f) { (void)f; return 0; }
#endif

/* A value as a double, for comparisons of floats (all inputs are finite). */
static double as_double(ty t, uint64_t b)
{
    return t == TY_F32 ? f32_of(b) : t == TY_F64 ? f64_of(b) : f16_of(b);
}

/* ------------------------------------------------------------ operators (spec semantics) */

typedef enum rop { OP_ADD, OP_MUL, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR, OP_COUNT } rop;
static const char *const rop_glsl[OP_COUNT] = {"Add", "Mul", "Min", "Max", "And", "Or", "Xor"};

static int rop_valid(ty t, rop op)
{
    if (t == TY_BOOL)
        return op >= OP_AND;
    if (t == TY_F16) /* spot check: products of many halves overflow; add, min, max suffice */
        return op == OP_ADD || op == OP_MIN || op == OP_MAX;
    if (ty_is_float(t))
        return op <= OP_MAX;
    return 1;
}

/* The identity of each operator (what an exclusive scan gives its first active lane). */
static uint64_t rop_identity(ty t, rop op)
{
    switch (t) {
    case TY_U32: case TY_I32: {
        static const uint32_t u[OP_COUNT] = {0, 1, 0xffffffffu, 0, 0xffffffffu, 0, 0};
        static const uint32_t s[OP_COUNT] = {0, 1, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0, 0};
        return t == TY_U32 ? u[op] : s[op];
    }
    case TY_U64: case TY_I64: {
        static const uint64_t u[OP_COUNT] = {0, 1, ~0ull, 0, ~0ull, 0, 0};
        static const uint64_t s[OP_COUNT] = {0, 1, 0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull, 0, 0};
        return t == TY_U64 ? u[op] : s[op];
    }
    case TY_BOOL: return op == OP_AND;
    case TY_F32: return bits_f32(op == OP_ADD ? 0.0f : op == OP_MUL ? 1.0f : op == OP_MIN ? INFINITY : -INFINITY);
    case TY_F64: return bits_f64(op == OP_ADD ? 0.0 : op == OP_MUL ? 1.0 : op == OP_MIN ? INFINITY : -INFINITY);
    case TY_F16: return op == OP_ADD ? 0 : op == OP_MUL ? 0x3c00 : op == OP_MIN ? 0x7c00 : 0xfc00;
    default: return 0;
    }
}

static uint64_t rop_combine(ty t, rop op, uint64_t a, uint64_t b)
{
    switch (t) {
    case TY_U32: case TY_I32: case TY_U64: case TY_I64: case TY_BOOL: {
        int wide = t == TY_U64 || t == TY_I64;
        uint64_t m = wide ? ~0ull : 0xffffffffull;
        int64_t sa = wide ? (int64_t)a : (int32_t)(uint32_t)a, sb = wide ? (int64_t)b : (int32_t)(uint32_t)b;
        int sgn = t == TY_I32 || t == TY_I64;
        switch (op) {
        case OP_ADD: return (a + b) & m;
        case OP_MUL: return (a * b) & m;
        case OP_MIN: return sgn ? (sa < sb ? a : b) : (a < b ? a : b);
        case OP_MAX: return sgn ? (sa > sb ? a : b) : (a > b ? a : b);
        case OP_AND: return a & b;
        case OP_OR: return a | b;
        default: return a ^ b;
        }
    }
    case TY_F32: {
        float x = f32_of(a), y = f32_of(b);
        return bits_f32(op == OP_ADD ? x + y : op == OP_MUL ? x * y : op == OP_MIN ? fminf(x, y) : fmaxf(x, y));
    }
    case TY_F64: {
        double x = f64_of(a), y = f64_of(b);
        return bits_f64(op == OP_ADD ? x + y : op == OP_MUL ? x * y : op == OP_MIN ? fmin(x, y) : fmax(x, y));
    }
    case TY_F16: {
        float x = f16_of(a), y = f16_of(b);
        return bits_f16(op == OP_ADD ? x + y : op == OP_MUL ? x * y : op == OP_MIN ? fminf(x, y) : fmaxf(x, y));
    }
    default: return 0;
    }
}

/* ------------------------------------------------------------ activity patterns */

typedef enum pat { PAT_ALL, PAT_ODD, PAT_FIRST, PAT_NESTED, PAT_LOOP, PAT_RANDOM, PAT_PARTIAL, PAT_COUNT } pat;

static const struct {
    const char *name;
    const char *open, *close;   /* GLSL around the operations; both define `it` */
    int bcast_lane;             /* a constant lane that is active in every wave under this pattern */
    uint32_t local;             /* workgroup size */
    uint32_t iters;
} patterns[PAT_COUNT] = {
    [PAT_ALL] = {"all lanes", "{ const uint it = 0u;\n", "}\n", 3, 128, 1},
    [PAT_ODD] = {"odd lanes", "if ((gl_SubgroupInvocationID & 1u) == 1u) { const uint it = 0u;\n", "}\n", 1, 128, 1},
    [PAT_FIRST] = {"first lane", "if (gl_SubgroupInvocationID == 0u) { const uint it = 0u;\n", "}\n", 0, 128, 1},
    [PAT_NESTED] = {"nested branches",
                    "if (gl_SubgroupInvocationID % 3u != 0u) {\n"
                    "  if ((gl_SubgroupInvocationID & 1u) == 0u) { const uint it = 0u;\n",
                    "  } else { outw[gid * NOUT] = 0xDEADBEEFu; }\n}\n", 2, 128, 1},
    [PAT_LOOP] = {"loop with per-lane trips and break",
                  "for (uint it = 0u; it < ITERS; it++) {\n  if (it == ctl[(it * INV + gid) * CTLW]) break;\n", "}\n", 0,
                  128, MAX_ITERS},
    [PAT_RANDOM] = {"random lanes", "if ((ctl[gid * CTLW + 1u] & 1u) != 0u) { const uint it = 0u;\n", "}\n", 0, 128, 1},
    [PAT_PARTIAL] = {"partial last wave (37 invocations)", "{ const uint it = 0u;\n", "}\n", 0, 37, 1},
};

/* ------------------------------------------------------------ operations */

typedef enum rkind { R_T, R_BOOL, R_UINT, R_UVEC4 } rkind;

typedef enum kind {
    K_ELECT, K_SIZE, K_INVID, K_SGID, K_NUMSG, K_MASK,
    K_ALL, K_ANY, K_ALLEQ,
    K_BCAST, K_BFIRST, K_BALLOT, K_INVB, K_INVB_CONST, K_BITEX, K_BITCNT, K_LSB, K_MSB,
    K_REDUCE, K_INCL, K_EXCL, K_CLUSTER,
    K_SHUF, K_SHUF_XOR, K_UP, K_DOWN, K_XOR_CONST, K_UP_CONST, K_DOWN_CONST, K_QBCAST, K_QSWAP
} kind;

typedef struct oprow {
    kind k;
    int param;      /* mask kind, count kind, operator, cluster size, quad lane, ... */
    int param2;     /* LSB/MSB: which ballot; cluster: operator */
    rkind r;
    char expr[128];
    uint32_t slot;  /* first output word */
} oprow;

typedef enum family { F_BASIC, F_VOTE, F_BALLOT, F_ARITH, F_CLUSTERED, F_SHUFFLE, F_COUNT } family;
static const char *const family_name[F_COUNT] = {"basic", "vote", "ballot", "arithmetic", "clustered", "shuffle+quad"};

/* the constant ballot of subgroupInverseBallot(uvec4(0x5A5A5A5Au, 0xC3C3C3C3u, 0x0F0F00FFu, 0x80000001u)) */
#define INV_CONST ((lanes128)0x80000001u << 96 | (lanes128)0x0F0F00FFu << 64 | (lanes128)0xC3C3C3C35A5A5A5Aull)

static int add_row(oprow *rows, int n, kind k, int param, int param2, rkind r, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
static int add_row(oprow *rows, int n, kind k, int param, int param2, rkind r, const char *fmt, ...)
{
    ck_assert_int_lt(n, MAX_ROWS);
    oprow *o = &rows[n];
    memset(o, 0, sizeof *o);
    o->k = k;
    o->param = param;
    o->param2 = param2;
    o->r = r;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->expr, sizeof o->expr, fmt, ap);
    va_end(ap);
    return n + 1;
}

static int make_rows(family f, ty t, int bcast_lane, oprow *rows)
{
    int n = 0;
    switch (f) {
    case F_BASIC:
        n = add_row(rows, n, K_ELECT, 0, 0, R_BOOL, "subgroupElect()");
        n = add_row(rows, n, K_SIZE, 0, 0, R_UINT, "gl_SubgroupSize");
        n = add_row(rows, n, K_INVID, 0, 0, R_UINT, "gl_SubgroupInvocationID");
        n = add_row(rows, n, K_SGID, 0, 0, R_UINT, "gl_SubgroupID");
        n = add_row(rows, n, K_NUMSG, 0, 0, R_UINT, "gl_NumSubgroups");
        static const char *const masks[5] = {"Eq", "Ge", "Gt", "Le", "Lt"};
        for (int m = 0; m < 5; m++)
            n = add_row(rows, n, K_MASK, m, 0, R_UVEC4, "gl_Subgroup%sMask", masks[m]);
        break;
    case F_VOTE:
        n = add_row(rows, n, K_ALL, 0, 0, R_BOOL, "subgroupAll(p)");
        n = add_row(rows, n, K_ANY, 0, 0, R_BOOL, "subgroupAny(p)");
        n = add_row(rows, n, K_ALLEQ, 0, 0, R_BOOL, "subgroupAllEqual(x)");
        break;
    case F_BALLOT:
        n = add_row(rows, n, K_BCAST, bcast_lane, 0, R_T, "subgroupBroadcast(x, %du)", bcast_lane);
        n = add_row(rows, n, K_BFIRST, 0, 0, R_T, "subgroupBroadcastFirst(x)");
        if (t != TY_U32)
            break;
        n = add_row(rows, n, K_BALLOT, 0, 0, R_UVEC4, "subgroupBallot(p)");
        n = add_row(rows, n, K_INVB, 0, 0, R_BOOL, "subgroupInverseBallot(subgroupBallot(p))");
        n = add_row(rows, n, K_INVB_CONST, 0, 0, R_BOOL, "subgroupInverseBallot(uvec4(0x5A5A5A5Au, 0xC3C3C3C3u, 0x0F0F00FFu, 0x80000001u))");
        n = add_row(rows, n, K_BITEX, 0, 0, R_BOOL, "subgroupBallotBitExtract(subgroupBallot(p), ctl[base * CTLW + 7u])");
        n = add_row(rows, n, K_BITCNT, 0, 0, R_UINT, "subgroupBallotBitCount(subgroupBallot(p))");
        n = add_row(rows, n, K_BITCNT, 1, 0, R_UINT, "subgroupBallotInclusiveBitCount(subgroupBallot(p))");
        n = add_row(rows, n, K_BITCNT, 2, 0, R_UINT, "subgroupBallotExclusiveBitCount(subgroupBallot(p))");
        n = add_row(rows, n, K_LSB, 0, 0, R_UINT, "subgroupBallotFindLSB(subgroupBallot(p) | gl_SubgroupEqMask)");
        n = add_row(rows, n, K_MSB, 0, 0, R_UINT, "subgroupBallotFindMSB(subgroupBallot(p) | gl_SubgroupEqMask)");
        n = add_row(rows, n, K_LSB, 1, 0, R_UINT, "subgroupBallotFindLSB(subgroupBallot(true))");
        n = add_row(rows, n, K_MSB, 1, 0, R_UINT, "subgroupBallotFindMSB(subgroupBallot(true))");
        break;
    case F_ARITH:
        for (int op = 0; op < OP_COUNT; op++) {
            if (!rop_valid(t, (rop)op))
                continue;
            n = add_row(rows, n, K_REDUCE, op, 0, R_T, "subgroup%s(x)", rop_glsl[op]);
            n = add_row(rows, n, K_INCL, op, 0, R_T, "subgroupInclusive%s(x)", rop_glsl[op]);
            n = add_row(rows, n, K_EXCL, op, 0, R_T, "subgroupExclusive%s(x)", rop_glsl[op]);
        }
        break;
    case F_CLUSTERED:
        for (int op = 0; op < OP_COUNT; op++) {
            if (!rop_valid(t, (rop)op))
                continue;
            for (int cs = 1; cs <= 128; cs *= 2)
                n = add_row(rows, n, K_CLUSTER, cs, op, R_T, "subgroupClustered%s(x, %du)", rop_glsl[op], cs);
        }
        break;
    case F_SHUFFLE:
        n = add_row(rows, n, K_SHUF, 0, 0, R_T, "subgroupShuffle(x, ctl[base * CTLW + 2u])");
        n = add_row(rows, n, K_SHUF_XOR, 0, 0, R_T, "subgroupShuffleXor(x, ctl[base * CTLW + 3u])");
        n = add_row(rows, n, K_UP, 0, 0, R_T, "subgroupShuffleUp(x, ctl[base * CTLW + 4u])");
        n = add_row(rows, n, K_DOWN, 0, 0, R_T, "subgroupShuffleDown(x, ctl[base * CTLW + 5u])");
        /* constant operands: undefined wherever the source lane is inactive or outside (predicted, reported) */
        n = add_row(rows, n, K_XOR_CONST, 1, 0, R_T, "subgroupShuffleXor(x, 1u)");
        n = add_row(rows, n, K_UP_CONST, 2, 0, R_T, "subgroupShuffleUp(x, 2u)");
        n = add_row(rows, n, K_DOWN_CONST, 1, 0, R_T, "subgroupShuffleDown(x, 1u)");
        for (int q = 0; q < 4; q++)
            n = add_row(rows, n, K_QBCAST, q, 0, R_T, "subgroupQuadBroadcast(x, %du)", q);
        n = add_row(rows, n, K_QSWAP, 1, 0, R_T, "subgroupQuadSwapHorizontal(x)");
        n = add_row(rows, n, K_QSWAP, 2, 0, R_T, "subgroupQuadSwapVertical(x)");
        n = add_row(rows, n, K_QSWAP, 3, 0, R_T, "subgroupQuadSwapDiagonal(x)");
        break;
    default: break;
    }
    uint32_t slot = 0;
    for (int i = 0; i < n; i++) {
        rows[i].slot = slot;
        slot += rows[i].r == R_T ? (uint32_t)types[t].words : rows[i].r == R_UVEC4 ? 4 : 1;
    }
    return n;
}

static uint32_t rows_words(const oprow *rows, int n, ty t)
{
    if (n == 0)
        return 0;
    const oprow *l = &rows[n - 1];
    return l->slot + (l->r == R_T ? (uint32_t)types[t].words : l->r == R_UVEC4 ? 4 : 1);
}

/* ------------------------------------------------------------ kernel text */

static char *kernel_text(const oprow *rows, int n, ty t, pat pt, uint32_t nout)
{
    size_t cap = 16384 + (size_t)n * 256;
    char *s = malloc(cap);
    ck_assert_ptr_nonnull(s);
    int len = snprintf(s, cap,
        "#version 450\n"
        "#extension GL_KHR_shader_subgroup_basic : require\n"
        "#extension GL_KHR_shader_subgroup_vote : require\n"
        "#extension GL_KHR_shader_subgroup_ballot : require\n"
        "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
        "#extension GL_KHR_shader_subgroup_shuffle : require\n"
        "#extension GL_KHR_shader_subgroup_shuffle_relative : require\n"
        "#extension GL_KHR_shader_subgroup_clustered : require\n"
        "#extension GL_KHR_shader_subgroup_quad : require\n"
        "%s"
        "layout(local_size_x = %u) in;\n"
        "layout(set = 0, binding = 0, std430) readonly buffer Inputs { uint inw[]; };\n"
        "layout(set = 0, binding = 1, std430) readonly buffer Control { uint ctl[]; };\n"
        "layout(set = 0, binding = 2, std430) writeonly buffer Outputs { uint outw[]; };\n"
        "const uint INV = %uu;\nconst uint NOUT = %uu;\nconst uint CTLW = %uu;\nconst uint ITERS = %uu;\n"
        "%s"
        "void st4(uint o, uvec4 v) { outw[o] = v.x; outw[o + 1u] = v.y; outw[o + 2u] = v.z; outw[o + 3u] = v.w; }\n"
        "void main() {\n"
        "  uint gid = gl_GlobalInvocationID.x;\n"
        "  for (uint k = 0u; k < ITERS * NOUT; k++) outw[((k / NOUT) * INV + gid) * NOUT + k %% NOUT] = 0xDEADBEEFu;\n"
        "%s"
        "  uint base = it * INV + gid;\n"
        "  %s x = ld(base);\n"
        "  bool p = ctl[base * CTLW + 6u] != 0u;\n"
        "  uint o = base * NOUT;\n",
        types[t].ext, patterns[pt].local, patterns[pt].local * GROUPS, nout, CTLW, patterns[pt].iters,
        types[t].helpers, patterns[pt].open, types[t].name);
    for (int i = 0; i < n; i++) {
        const oprow *r = &rows[i];
        const char *f = r->r == R_T ? "  st(o + %uu, %s);\n"
                        : r->r == R_BOOL ? "  outw[o + %uu] = (%s) ? 1u : 0u;\n"
                        : r->r == R_UINT ? "  outw[o + %uu] = %s;\n"
                                         : "  st4(o + %uu, %s);\n";
        len += snprintf(s + len, cap - (size_t)len, f, r->slot, r->expr);
    }
    snprintf(s + len, cap - (size_t)len, "%s}\n", patterns[pt].close);
    return s;
}

/* ------------------------------------------------------------ inputs */

typedef struct run_data {
    uint32_t W, L, inv, iters, nout;
    uint32_t *in, *ctl, *out;
    size_t in_words, ctl_words, out_words;
} run_data;

/* Is (wave w, lane l) of the workgroup with global base index gbase active at iteration it? (the pattern's meaning) */
static int lane_active(pat pt, const run_data *d, uint32_t gid, uint32_t lane, uint32_t it)
{
    switch (pt) {
    case PAT_ALL: case PAT_PARTIAL: return it == 0;
    case PAT_ODD: return it == 0 && (lane & 1);
    case PAT_FIRST: return it == 0 && lane == 0;
    case PAT_NESTED: return it == 0 && lane % 3 != 0 && lane % 2 == 0;
    case PAT_RANDOM: return it == 0 && (d->ctl[(size_t)gid * CTLW + CTL_PRED] & 1);
    case PAT_LOOP: return d->ctl[(size_t)gid * CTLW + CTL_TRIP] > it;
    default: return 0;
    }
}

/* Chunk of an invocation: 0 = one value everywhere and p true, 1 = p false, 2 = p mostly true, 3 = random. */
static int chunk_of(uint32_t gid, uint32_t L)
{
    if (gid < L)
        return (int)((gid / 16) % 4);
    return gid - L < 64 ? 0 : 3;
}

static uint64_t make_value(ty t, int chunk, uint32_t *rs)
{
    uint32_t r = tsup_rand(rs), r2 = tsup_rand(rs);
    int small = (r & 3) != 0;
    int k = (int)(r2 % 25) - 12; /* -12..12: dyadic k/4 for floats */
    switch (t) {
    case TY_U32: return chunk == 0 ? 5 : small ? r2 % 16 : r2;
    case TY_I32: return chunk == 0 ? (uint32_t)-3 : small ? (uint32_t)k : (r & 12) == 4 ? 0x80000000u : r2;
    case TY_F32: return bits_f32(chunk == 0 ? 1.25f : (float)(k ? k : 1) / 4.0f);
    case TY_BOOL: return chunk == 0 ? 1 : (r2 >> 3) & 1;
    case TY_U64: return chunk == 0 ? 0x100000005ull : small ? r2 % 16 : ((uint64_t)r2 << 32) | tsup_rand(rs);
    case TY_I64: return chunk == 0 ? (uint64_t)-3 : small ? (uint64_t)(int64_t)k : ((uint64_t)r2 << 32) | tsup_rand(rs);
    case TY_F64: return bits_f64(chunk == 0 ? 1.25 : (double)(k ? k : 1) / 4.0);
    case TY_F16: return bits_f16(chunk == 0 ? 1.25f : (float)(k ? k : 1) / 4.0f);
    default: return 0;
    }
}

/* Picks a random lane of `mask` (non-empty) that satisfies lo <= lane <= hi, or `fallback` if none. */
static uint32_t pick_lane(lanes128 mask, uint32_t lo, uint32_t hi, uint32_t fallback, uint32_t *rs)
{
    uint32_t cand[128], n = 0;
    for (uint32_t l = lo; l <= hi && l < 128; l++)
        if ((mask >> l) & 1)
            cand[n++] = l;
    return n ? cand[tsup_rand(rs) % n] : fallback;
}

static void run_data_fill(run_data *d, ty t, pat pt, uint32_t W)
{
    memset(d, 0, sizeof *d);
    d->W = W;
    d->L = patterns[pt].local;
    d->inv = d->L * GROUPS;
    d->iters = patterns[pt].iters;
    d->in_words = (size_t)d->iters * d->inv * (size_t)types[t].words;
    d->ctl_words = (size_t)d->iters * d->inv * CTLW;
    d->in = calloc(d->in_words, 4);
    d->ctl = calloc(d->ctl_words, 4);
    ck_assert(d->in && d->ctl);
    uint32_t rs = 0x5eed0000u + (uint32_t)t * 977u + (uint32_t)pt * 131u;
    for (uint32_t it = 0; it < d->iters; it++)
        for (uint32_t gid = 0; gid < d->inv; gid++) {
            size_t base = (size_t)it * d->inv + gid;
            int chunk = chunk_of(gid, d->L);
            uint64_t v = make_value(t, chunk, &rs);
            if (types[t].words == 2) {
                d->in[2 * base] = (uint32_t)v;
                d->in[2 * base + 1] = (uint32_t)(v >> 32);
            } else
                d->in[base] = (uint32_t)v;
            uint32_t *c = &d->ctl[base * CTLW];
            uint32_t r = tsup_rand(&rs);
            c[CTL_VOTE] = chunk == 0 ? 1 : chunk == 1 ? 0 : chunk == 2 ? (r & 7) != 0 : r & 1;
            c[CTL_BIT] = tsup_rand(&rs) % 128;
        }
    /* trip counts and random predicates do not depend on the iteration (read at it = 0 for PRED) */
    for (uint32_t gid = 0; gid < d->inv; gid++) {
        uint32_t trip = gid % 4 == 0 ? MAX_ITERS : tsup_rand(&rs) % (MAX_ITERS + 1);
        uint32_t pred = gid % 4 == 0 ? 1 : tsup_rand(&rs) & 1;
        for (uint32_t it = 0; it < d->iters; it++) {
            d->ctl[((size_t)it * d->inv + gid) * CTLW + CTL_TRIP] = trip;
            d->ctl[((size_t)it * d->inv + gid) * CTLW + CTL_PRED] = pred;
        }
    }
    /* shuffle sources: a random active lane of the same wave (valid by construction) */
    for (uint32_t it = 0; it < d->iters; it++)
        for (uint32_t g = 0; g < GROUPS; g++)
            for (uint32_t w0 = 0; w0 < d->L; w0 += W) {
                uint32_t lanes = d->L - w0 < W ? d->L - w0 : W;
                lanes128 act = 0;
                for (uint32_t l = 0; l < lanes; l++)
                    if (lane_active(pt, d, g * d->L + w0 + l, l, it))
                        act |= bit128(l);
                for (uint32_t l = 0; l < lanes; l++) {
                    uint32_t *c = &d->ctl[((size_t)it * d->inv + g * d->L + w0 + l) * CTLW];
                    if (!((act >> l) & 1))
                        continue;
                    c[CTL_SRC] = pick_lane(act, 0, 127, l, &rs);
                    c[CTL_XOR] = l ^ pick_lane(act, 0, 127, l, &rs);
                    c[CTL_UP] = l - pick_lane(act, 0, l, l, &rs);
                    c[CTL_DOWN] = pick_lane(act, l, 127, l, &rs) - l;
                }
            }
    d->out_words = 0;
}

/* ------------------------------------------------------------ the reference */

typedef struct wave_ref {
    ty t;
    uint32_t W, lanes, wave_index, num_waves;
    lanes128 active;
    uint64_t x[128];
    int p[128];
    const uint32_t *ctl[128];
} wave_ref;

/* The value of lane `src` as read by a cross-lane operation: 0 and one undefined report when it is not active. */
static uint64_t read_lane(const wave_ref *w, uint64_t src, uint64_t *undefined)
{
    if (src < w->W && ((w->active >> src) & 1))
        return w->x[src];
    ++*undefined;
    return 0;
}

static uint64_t fold(const wave_ref *w, rop op, uint32_t lo, uint32_t hi)
{
    uint64_t acc = 0;
    int have = 0;
    for (uint32_t l = lo; l < hi && l < w->W; l++)
        if ((w->active >> l) & 1) {
            acc = have ? rop_combine(w->t, op, acc, w->x[l]) : w->x[l];
            have = 1;
        }
    return acc;
}

static int values_equal(ty t, uint64_t a, uint64_t b)
{
    return ty_is_float(t) ? as_double(t, a) == as_double(t, b) : a == b;
}

/* Result of one operation in lane l, as the 1..4 words the kernel stores. */
static void reference(const oprow *r, const wave_ref *w, uint32_t l, uint32_t words[4], uint64_t *undefined)
{
    const uint32_t W = w->W;
    const lanes128 lane_bit = bit128(l);
    const lanes128 in_wave = low128(W);
    const uint32_t first = lowest128(w->active);
    lanes128 ballot = 0;
    for (uint32_t k = 0; k < W; k++)
        if (((w->active >> k) & 1) && w->p[k])
            ballot |= bit128(k);
    uint64_t v = 0;  /* value for R_T / R_BOOL / R_UINT */
    lanes128 vm = 0; /* 128-bit mask for R_UVEC4 */
    switch (r->k) {
    case K_ELECT: v = l == first; break;
    case K_SIZE: v = W; break;
    case K_INVID: v = l; break;
    case K_SGID: v = w->wave_index; break;
    case K_NUMSG: v = w->num_waves; break;
    case K_MASK: {
        lanes128 le = low128(l + 1);
        switch (r->param) {
        case 0: vm = lane_bit; break;
        case 1: vm = ~(lane_bit - 1) & in_wave; break;
        case 2: vm = ~le & in_wave; break;
        case 3: vm = le; break;
        default: vm = lane_bit - 1; break;
        }
        break;
    }
    case K_ALL: case K_ANY: {
        int all = 1, any = 0;
        for (uint32_t k = 0; k < W; k++)
            if ((w->active >> k) & 1) {
                all &= w->p[k] != 0;
                any |= w->p[k] != 0;
            }
        v = r->k == K_ALL ? all : any;
        break;
    }
    case K_ALLEQ: {
        int eq = 1;
        for (uint32_t k = 0; k < W; k++)
            if (((w->active >> k) & 1) && !values_equal(w->t, w->x[k], w->x[first]))
                eq = 0;
        v = eq;
        break;
    }
    case K_BCAST: {
        uint64_t dummy_count = 0; /* a broadcast reports once per wave: counted by the caller */
        v = read_lane(w, (uint64_t)r->param, &dummy_count);
        break;
    }
    case K_BFIRST: v = w->x[first]; break;
    case K_BALLOT: vm = ballot; break;
    case K_INVB: v = (uint64_t)(ballot >> l) & 1; break;
    case K_INVB_CONST: v = (uint64_t)(INV_CONST >> l) & 1; break;
    case K_BITEX: {
        uint32_t bit = w->ctl[l][CTL_BIT];
        v = bit < 128 ? (uint64_t)(ballot >> bit) & 1 : 0;
        break;
    }
    case K_BITCNT: {
        lanes128 m = r->param == 0 ? ~(lanes128)0 : r->param == 1 ? low128(l + 1) : lane_bit - 1;
        v = popcount128(ballot & m);
        break;
    }
    case K_LSB: case K_MSB: {
        lanes128 b = r->param == 0 ? ballot | lane_bit : w->active;
        v = r->k == K_LSB ? lowest128(b) : highest128(b);
        break;
    }
    case K_REDUCE: v = fold(w, (rop)r->param, 0, W); break;
    case K_INCL: v = fold(w, (rop)r->param, 0, l + 1); break;
    case K_EXCL: {
        int any_before = (w->active & (lane_bit - 1)) != 0;
        v = any_before ? fold(w, (rop)r->param, 0, l) : rop_identity(w->t, (rop)r->param);
        break;
    }
    case K_CLUSTER: {
        /* a cluster larger than the wave is undefined in the spec; the simulator documents "the whole wave" */
        uint32_t cs = (uint32_t)r->param < W ? (uint32_t)r->param : W;
        uint32_t lo = l / cs * cs;
        v = fold(w, (rop)r->param2, lo, lo + cs);
        break;
    }
    case K_SHUF: v = read_lane(w, w->ctl[l][CTL_SRC], undefined); break;
    case K_SHUF_XOR: v = read_lane(w, l ^ w->ctl[l][CTL_XOR], undefined); break;
    case K_UP: v = read_lane(w, (uint64_t)l - w->ctl[l][CTL_UP], undefined); break;
    case K_DOWN: v = read_lane(w, (uint64_t)l + w->ctl[l][CTL_DOWN], undefined); break;
    case K_XOR_CONST: v = read_lane(w, l ^ (uint32_t)r->param, undefined); break;
    case K_UP_CONST: v = read_lane(w, (uint64_t)l - (uint32_t)r->param, undefined); break;
    case K_DOWN_CONST: v = read_lane(w, (uint64_t)l + (uint32_t)r->param, undefined); break;
    case K_QBCAST: v = read_lane(w, (l & ~3u) + (uint32_t)r->param, undefined); break;
    case K_QSWAP: v = read_lane(w, l ^ (uint32_t)r->param, undefined); break;
    }
    memset(words, 0, 4 * sizeof *words);
    if (r->r == R_UVEC4) {
        for (int k = 0; k < 4; k++)
            words[k] = (uint32_t)(vm >> (32 * k));
    } else if (r->r == R_T && types[w->t].words == 2) {
        words[0] = (uint32_t)v;
        words[1] = (uint32_t)(v >> 32);
    } else if (r->r == R_T && w->t == TY_F16) {
        words[0] = (uint32_t)(v & 0xffff);
    } else {
        words[0] = (uint32_t)v;
    }
}

/* Fills `expect` for a whole dispatch; returns the number of undefined-behaviour reports the spec run must make. */
static uint64_t reference_dispatch(const oprow *rows, int n, ty t, pat pt, const run_data *d, uint32_t *expect)
{
    uint64_t undefined = 0;
    for (size_t i = 0; i < (size_t)d->iters * d->inv * d->nout; i++)
        expect[i] = SENTINEL;
    for (uint32_t it = 0; it < d->iters; it++)
        for (uint32_t g = 0; g < GROUPS; g++)
            for (uint32_t w0 = 0, wi = 0; w0 < d->L; w0 += d->W, wi++) {
                wave_ref w = {.t = t, .W = d->W, .wave_index = wi, .num_waves = (d->L + d->W - 1) / d->W};
                w.lanes = d->L - w0 < d->W ? d->L - w0 : d->W;
                for (uint32_t l = 0; l < w.lanes; l++) {
                    uint32_t gid = g * d->L + w0 + l;
                    size_t base = (size_t)it * d->inv + gid;
                    if (lane_active(pt, d, gid, l, it))
                        w.active |= bit128(l);
                    w.x[l] = types[t].words == 2 ? d->in[2 * base] | (uint64_t)d->in[2 * base + 1] << 32 : d->in[base];
                    w.p[l] = d->ctl[base * CTLW + CTL_VOTE] != 0;
                    w.ctl[l] = &d->ctl[base * CTLW];
                }
                if (!w.active)
                    continue;
                for (int i = 0; i < n; i++) {
                    if (rows[i].k == K_BCAST && !(rows[i].param < (int)d->W && ((w.active >> rows[i].param) & 1)))
                        undefined++;
                    for (uint32_t l = 0; l < w.lanes; l++) {
                        if (!((w.active >> l) & 1))
                            continue;
                        uint32_t words[4];
                        reference(&rows[i], &w, l, words, &undefined);
                        uint32_t cnt = rows[i].r == R_T ? (uint32_t)types[t].words : rows[i].r == R_UVEC4 ? 4 : 1;
                        size_t o = ((size_t)it * d->inv + g * d->L + w0 + l) * d->nout + rows[i].slot;
                        for (uint32_t k = 0; k < cnt; k++)
                            expect[o + k] = words[k];
                    }
                }
            }
    return undefined;
}

/* ------------------------------------------------------------ the matrix driver */

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Runs one family for one type under every pattern and wave size; returns
 * the number of mismatching elements and puts the first few into `report`.
 * `skipped` is set when glslang rejects the type (reported, not failed).
 */
static int run_matrix(family f, ty t, char *report, size_t report_size, int *skipped)
{
    int failures = 0;
    size_t rlen = 0;
    report[0] = 0;
    *skipped = 0;
    for (int pt = 0; pt < PAT_COUNT; pt++) {
        oprow rows[MAX_ROWS];
        int n = make_rows(f, t, patterns[pt].bcast_lane, rows);
        if (n == 0)
            return 0;
        uint32_t nout = rows_words(rows, n, t);
        char *src = kernel_text(rows, n, t, (pat)pt, nout);
        char msg[8192];
        isa_program *prog = NULL;
        isa_status st = tsup_build(src, "subgroup.comp", "glsl", NULL, &prog, msg, sizeof msg, NULL, 0);
        if (st == ISA_ERR_COMPILE && t >= TY_U64) {
            /* a 64-bit / f16 spot check glslang will not take */
            *skipped = 1;
            snprintf(report, report_size, "%s", msg);
            free(src);
            return 0;
        }
        if (st != ISA_OK) {
            fprintf(stderr, "----- kernel -----\n%s------------------\n", src);
            free(src);
            snprintf(report, report_size, "%s/%s/%s: %.6000s", family_name[f], types[t].name, patterns[pt].name, msg);
            return 1;
        }
        for (size_t wi = 0; wi < NMATRIX_WAVES; wi++) {
            run_data d;
            run_data_fill(&d, t, (pat)pt, matrix_waves[wi]);
            d.nout = nout;
            d.out_words = (size_t)d.iters * d.inv * nout;
            d.out = malloc(d.out_words * 4);
            uint32_t *expect = malloc(d.out_words * 4);
            ck_assert(d.out && expect);
            for (size_t i = 0; i < d.out_words; i++)
                d.out[i] = HOST_FILL;
            sim_buffer bufs[3] = {
                {0, 0, (uint8_t *)d.in, d.in_words * 4, 0},
                {0, 1, (uint8_t *)d.ctl, d.ctl_words * 4, 0},
                {0, 2, (uint8_t *)d.out, d.out_words * 4, 0},
            };
            sim_config cfg = {.wave_size = d.W, .groups = {GROUPS, 1, 1}, .buffers = bufs, .buffer_count = 3};
            sim_result res;
            sim_status ss = sim_run(prog, &cfg, &res);
            uint64_t want_undefined = reference_dispatch(rows, n, t, (pat)pt, &d, expect);
            if (ss != SIM_OK) {
                failures++;
                rlen += (size_t)snprintf(report + rlen, rlen < report_size ? report_size - rlen : 0,
                                         "%s/%s/%s W=%u: sim_run status %d: %s\n", family_name[f], types[t].name,
                                         patterns[pt].name, d.W, (int)ss, res.fault_event.message);
            } else {
                for (size_t i = 0; i < d.out_words; i++) {
                    if (d.out[i] == expect[i])
                        continue;
                    if (failures++ < 12 && rlen < report_size) {
                        size_t per = d.nout, item = i / per, slot = i % per;
                        uint32_t it = (uint32_t)(item / d.inv), gid = (uint32_t)(item % d.inv);
                        uint32_t lidx = gid % d.L;
                        const char *what = "?";
                        for (int k = 0; k < n; k++)
                            if (rows[k].slot <= slot)
                                what = rows[k].expr;
                        rlen += (size_t)snprintf(report + rlen, report_size - rlen,
                                                 "%s/%s/%s W=%u iter %u invocation %u (wave %u lane %u) `%s` word %zu: "
                                                 "expected 0x%08x, got 0x%08x\n",
                                                 family_name[f], types[t].name, patterns[pt].name, d.W, it, gid,
                                                 lidx / d.W, lidx % d.W, what, slot, expect[i], d.out[i]);
                    }
                }
                if (res.stats.undefined_events != want_undefined) {
                    failures++;
                    if (rlen < report_size)
                        rlen += (size_t)snprintf(report + rlen, report_size - rlen,
                                                 "%s/%s/%s W=%u: %llu undefined-behaviour reports, the reference "
                                                 "predicts %llu%s%s\n",
                                                 family_name[f], types[t].name, patterns[pt].name, d.W,
                                                 (unsigned long long)res.stats.undefined_events,
                                                 (unsigned long long)want_undefined,
                                                 res.event_count ? "; first: " : "",
                                                 res.event_count ? res.events[0].message : "");
                }
            }
            sim_result_free(&res);
            free(expect);
            free(d.in);
            free(d.ctl);
            free(d.out);
        }
        isa_program_destroy(prog);
        free(src);
    }
    return failures;
}

static void check_matrix(family f, ty t)
{
    char report[8192];
    int skipped = 0;
    int failures = run_matrix(f, t, report, sizeof report, &skipped);
    if (skipped) {
        fprintf(stderr, "note: %s on %s skipped, glslang rejects it: %.300s\n", family_name[f], types[t].name, report);
        return;
    }
    ck_assert_msg(failures == 0, "%d mismatches:\n%s", failures, report);
}

#define MATRIX_TEST(fam, t, name) \
    START_TEST(test_subgroup_##name##_every_wave_and_pattern_matches_reference) { check_matrix(fam, t); } END_TEST

MATRIX_TEST(F_BASIC, TY_U32, basic_builtins)
MATRIX_TEST(F_VOTE, TY_U32, vote_uint)
MATRIX_TEST(F_VOTE, TY_I32, vote_int)
MATRIX_TEST(F_VOTE, TY_F32, vote_float)
MATRIX_TEST(F_VOTE, TY_BOOL, vote_bool)
MATRIX_TEST(F_BALLOT, TY_U32, ballot_uint)
MATRIX_TEST(F_BALLOT, TY_I32, ballot_int)
MATRIX_TEST(F_BALLOT, TY_F32, ballot_float)
MATRIX_TEST(F_BALLOT, TY_BOOL, ballot_bool)
MATRIX_TEST(F_ARITH, TY_U32, arithmetic_uint)
MATRIX_TEST(F_ARITH, TY_I32, arithmetic_int)
MATRIX_TEST(F_ARITH, TY_F32, arithmetic_float)
MATRIX_TEST(F_ARITH, TY_BOOL, arithmetic_bool)
MATRIX_TEST(F_ARITH, TY_U64, arithmetic_uint64)
MATRIX_TEST(F_ARITH, TY_I64, arithmetic_int64)
MATRIX_TEST(F_ARITH, TY_F64, arithmetic_double)
MATRIX_TEST(F_CLUSTERED, TY_U32, clustered_uint)
MATRIX_TEST(F_CLUSTERED, TY_I32, clustered_int)
MATRIX_TEST(F_CLUSTERED, TY_F32, clustered_float)
MATRIX_TEST(F_CLUSTERED, TY_BOOL, clustered_bool)
MATRIX_TEST(F_CLUSTERED, TY_I64, clustered_int64)
MATRIX_TEST(F_SHUFFLE, TY_U32, shuffle_quad_uint)
MATRIX_TEST(F_SHUFFLE, TY_I32, shuffle_quad_int)
MATRIX_TEST(F_SHUFFLE, TY_F32, shuffle_quad_float)
MATRIX_TEST(F_SHUFFLE, TY_BOOL, shuffle_quad_bool)
MATRIX_TEST(F_SHUFFLE, TY_F64, shuffle_quad_double)

START_TEST(test_subgroup_arithmetic_float16_every_wave_and_pattern_matches_reference)
{
    if (!HAVE_F16) {
        fprintf(stderr, "note: the C compiler has no _Float16; f16 spot check skipped\n");
        return;
    }
    check_matrix(F_ARITH, TY_F16);
}
END_TEST

/* ------------------------------------------------------------ focused tests */

/* One kernel, compiled, run at wave W with a single input/output buffer pair of `count` uints. */
static isa_program *build_or_fail(const char *src)
{
    char msg[8192];
    isa_program *prog = NULL;
    isa_status st = tsup_build(src, "focused.comp", "glsl", NULL, &prog, msg, sizeof msg, NULL, 0);
    ck_assert_msg(st == ISA_OK, "%s\n%s", msg, src);
    return prog;
}

static sim_status run_io(const isa_program *prog, uint32_t W, uint32_t *in, size_t in_n, uint32_t *out, size_t out_n,
                         sim_result *res)
{
    sim_buffer bufs[2] = {{0, 0, (uint8_t *)in, in_n * 4, 0}, {0, 1, (uint8_t *)out, out_n * 4, 0}};
    sim_config cfg = {.wave_size = W, .groups = {1, 1, 1}, .buffers = bufs, .buffer_count = 2};
    return sim_run(prog, &cfg, res);
}

/*
 * The first active lane of every exclusive scan gets the operator's identity,
 * written out here by hand (not from the reference's table): under the odd
 * pattern that lane is lane 1.
 */
START_TEST(test_subgroup_exclusive_scan_first_active_lane_gets_identity)
{
    static const char *src =
        "#version 450\n"
        "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
        "layout(local_size_x = 64) in;\n"
        "layout(set = 0, binding = 0) readonly buffer I { uint inw[]; };\n"
        "layout(set = 0, binding = 1) buffer O { uint outw[]; };\n"
        "void main() {\n"
        "  uint i = gl_LocalInvocationIndex, o = i * 18u;\n"
        "  uint u = inw[i]; int s = int(inw[i]); float f = float(inw[i] % 7u) + 0.5;\n"
        "  if ((gl_SubgroupInvocationID & 1u) == 1u) {\n"
        "    outw[o + 0u] = subgroupExclusiveAdd(u);\n"
        "    outw[o + 1u] = subgroupExclusiveMul(u);\n"
        "    outw[o + 2u] = subgroupExclusiveMin(u);\n"
        "    outw[o + 3u] = subgroupExclusiveMax(u);\n"
        "    outw[o + 4u] = subgroupExclusiveAnd(u);\n"
        "    outw[o + 5u] = subgroupExclusiveOr(u);\n"
        "    outw[o + 6u] = subgroupExclusiveXor(u);\n"
        "    outw[o + 7u] = uint(subgroupExclusiveAdd(s));\n"
        "    outw[o + 8u] = uint(subgroupExclusiveMul(s));\n"
        "    outw[o + 9u] = uint(subgroupExclusiveMin(s));\n"
        "    outw[o + 10u] = uint(subgroupExclusiveMax(s));\n"
        "    outw[o + 11u] = uint(subgroupExclusiveAnd(s));\n"
        "    outw[o + 12u] = uint(subgroupExclusiveOr(s));\n"
        "    outw[o + 13u] = uint(subgroupExclusiveXor(s));\n"
        "    outw[o + 14u] = floatBitsToUint(subgroupExclusiveAdd(f));\n"
        "    outw[o + 15u] = floatBitsToUint(subgroupExclusiveMul(f));\n"
        "    outw[o + 16u] = floatBitsToUint(subgroupExclusiveMin(f));\n"
        "    outw[o + 17u] = floatBitsToUint(subgroupExclusiveMax(f));\n"
        "  }\n"
        "}\n";
    static const uint32_t identity[18] = {
        0u, 1u, 0xffffffffu, 0u, 0xffffffffu, 0u, 0u,            /* uint: add mul min max and or xor */
        0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0u, 0u,   /* int: INT_MAX for min, INT_MIN for max */
        0x00000000u, 0x3f800000u, 0x7f800000u, 0xff800000u,      /* float: +0, 1, +inf, -inf */
    };
    isa_program *prog = build_or_fail(src);
    for (size_t wi = 0; wi < NWAVES; wi++) {
        uint32_t W = wave_sizes[wi], in[64], out[64 * 18];
        for (int i = 0; i < 64; i++)
            in[i] = 0x9e3779b9u * (uint32_t)(i + 1);
        memset(out, 0x11, sizeof out);
        sim_result res;
        ck_assert_int_eq(run_io(prog, W, in, 64, out, 64 * 18, &res), SIM_OK);
        for (uint32_t lane1 = 1; lane1 < 64; lane1 += W)
            for (int k = 0; k < 18; k++)
                ck_assert_msg(out[lane1 * 18 + k] == identity[k], "W=%u invocation %u op %d: expected 0x%08x got 0x%08x", W,
                              lane1, k, identity[k], out[lane1 * 18 + k]);
        sim_result_free(&res);
    }
    isa_program_destroy(prog);
}
END_TEST

/*
 * subgroupShuffle from an inactive lane is undefined: the simulator must
 * report it (per reading lane, at the shuffle's pc and source line) and
 * yield 0, as sim/xlane.c documents.
 */
START_TEST(test_subgroup_shuffle_from_inactive_lane_reported_and_yields_zero)
{
    static const char *src =
        "#version 450\n"
        "#extension GL_KHR_shader_subgroup_shuffle : require\n"
        "layout(local_size_x = 64) in;\n"
        "layout(set = 0, binding = 0) readonly buffer I { uint inw[]; };\n"
        "layout(set = 0, binding = 1) buffer O { uint outw[]; };\n"
        "void main() {\n"
        "  uint i = gl_LocalInvocationIndex;\n"
        "  if ((gl_SubgroupInvocationID & 1u) == 1u) {\n"
        "    outw[i] = subgroupShuffle(inw[i], gl_SubgroupInvocationID - 1u); // SHUFFLE\n"
        "  }\n"
        "}\n";
    int line = tsup_line_of(src, "// SHUFFLE");
    isa_program *prog = build_or_fail(src);
    for (size_t wi = 0; wi < NWAVES; wi++) {
        uint32_t W = wave_sizes[wi], in[64], out[64];
        for (int i = 0; i < 64; i++)
            in[i] = 1000u + (uint32_t)i;
        memset(out, 0x22, sizeof out);
        sim_result res;
        ck_assert_int_eq(run_io(prog, W, in, 64, out, 64, &res), SIM_OK);
        ck_assert_uint_eq(res.stats.undefined_events, 32); /* every odd lane reads an even (inactive) one */
        ck_assert_int_ge(res.event_count, 1);
        const sim_event *ev = &res.events[0];
        ck_assert_int_eq(ev->where.lane, 1);
        ck_assert_uint_eq(ev->where.wave, 0);
        ck_assert_uint_lt(ev->where.pc, prog->code_count);
        ck_assert_int_eq(prog->code[ev->where.pc].op, ISA_OP_SHUFFLE);
        ck_assert_uint_eq(ev->where.line, (uint32_t)line);
        ck_assert_msg(strstr(ev->message, "reads lane 0") && strstr(ev->message, "inactive"), "%s", ev->message);
        for (int i = 0; i < 64; i++)
            ck_assert_uint_eq(out[i], (i & 1) ? 0u : 0x22222222u);
        sim_result_free(&res);
    }
    isa_program_destroy(prog);
}
END_TEST

/* subgroupBroadcast of an inactive lane: one report per wave naming the lane read, result 0. */
START_TEST(test_subgroup_broadcast_from_inactive_lane_reported_and_yields_zero)
{
    static const char *src =
        "#version 450\n"
        "#extension GL_KHR_shader_subgroup_ballot : require\n"
        "layout(local_size_x = 64) in;\n"
        "layout(set = 0, binding = 0) readonly buffer I { uint inw[]; };\n"
        "layout(set = 0, binding = 1) buffer O { uint outw[]; };\n"
        "void main() {\n"
        "  uint i = gl_LocalInvocationIndex;\n"
        "  if (gl_SubgroupInvocationID >= 2u) {\n"
        "    outw[i] = subgroupBroadcast(inw[i], 1u); // BCAST\n"
        "  }\n"
        "}\n";
    int line = tsup_line_of(src, "// BCAST");
    isa_program *prog = build_or_fail(src);
    for (size_t wi = 0; wi < NWAVES; wi++) {
        uint32_t W = wave_sizes[wi], in[64], out[64];
        for (int i = 0; i < 64; i++)
            in[i] = 7000u + (uint32_t)i;
        memset(out, 0x33, sizeof out);
        sim_result res;
        ck_assert_int_eq(run_io(prog, W, in, 64, out, 64, &res), SIM_OK);
        ck_assert_uint_eq(res.stats.undefined_events, 64 / W);
        ck_assert_int_ge(res.event_count, 1);
        const sim_event *ev = &res.events[0];
        ck_assert_int_eq(prog->code[ev->where.pc].op, ISA_OP_BCAST);
        ck_assert_uint_eq(ev->where.line, (uint32_t)line);
        ck_assert_msg(strstr(ev->message, "lane 1") && strstr(ev->message, "inactive"), "%s", ev->message);
        for (uint32_t i = 0; i < 64; i++)
            ck_assert_uint_eq(out[i], i % W >= 2 ? 0u : 0x33333333u);
        sim_result_free(&res);
    }
    isa_program_destroy(prog);
}
END_TEST

/* subgroupShuffleDown past the end of the wave: reported as "outside the wave", result 0. */
START_TEST(test_subgroup_shuffle_down_outside_wave_reported)
{
    static const char *src =
        "#version 450\n"
        "#extension GL_KHR_shader_subgroup_shuffle_relative : require\n"
        "layout(local_size_x = 64) in;\n"
        "layout(set = 0, binding = 0) readonly buffer I { uint inw[]; };\n"
        "layout(set = 0, binding = 1) buffer O { uint outw[]; };\n"
        "void main() {\n"
        "  uint i = gl_LocalInvocationIndex;\n"
        "  outw[i] = subgroupShuffleDown(inw[i], 1u);\n"
        "}\n";
    isa_program *prog = build_or_fail(src);
    for (size_t wi = 0; wi < NWAVES; wi++) {
        uint32_t W = wave_sizes[wi], in[64], out[64];
        for (int i = 0; i < 64; i++)
            in[i] = 500u + (uint32_t)i;
        sim_result res;
        ck_assert_int_eq(run_io(prog, W, in, 64, out, 64, &res), SIM_OK);
        ck_assert_uint_eq(res.stats.undefined_events, 64 / W);
        ck_assert_int_eq(res.events[0].where.lane, (int)W - 1);
        ck_assert_msg(strstr(res.events[0].message, "outside the wave"), "%s", res.events[0].message);
        for (uint32_t i = 0; i < 64; i++)
            ck_assert_uint_eq(out[i], i % W == W - 1 ? 0u : in[i + 1]);
        sim_result_free(&res);
    }
    isa_program_destroy(prog);
}
END_TEST

/*
 * GLSL.std.450 PackDouble2x32 / UnpackDouble2x32 move the bits of a double
 * through a uvec2: the round trip must keep every bit (and + 1.0 in between
 * must act on the double).
 */
START_TEST(test_subgroup_pack_double_round_trips_bits)
{
    static const char *src =
        "#version 450\n"
        "layout(local_size_x = 4) in;\n"
        "layout(set = 0, binding = 0) readonly buffer I { uint inw[]; };\n"
        "layout(set = 0, binding = 1) buffer O { uint outw[]; };\n"
        "void main() {\n"
        "  uint i = gl_LocalInvocationIndex;\n"
        "  double d = packDouble2x32(uvec2(inw[2u * i], inw[2u * i + 1u]));\n"
        "  uvec2 u = unpackDouble2x32(d + 1.0);\n"
        "  outw[2u * i] = u.x; outw[2u * i + 1u] = u.y;\n"
        "}\n";
    isa_program *prog = build_or_fail(src);
    uint32_t in[8], out[8];
    for (int i = 0; i < 4; i++) {
        uint64_t b = bits_f64(1.5 * (i + 1));
        in[2 * i] = (uint32_t)b;
        in[2 * i + 1] = (uint32_t)(b >> 32);
    }
    sim_result res;
    ck_assert_int_eq(run_io(prog, 4, in, 8, out, 8, &res), SIM_OK);
    for (int i = 0; i < 4; i++) {
        uint64_t want = bits_f64(1.5 * (i + 1) + 1.0);
        ck_assert_uint_eq(out[2 * i], (uint32_t)want);
        ck_assert_uint_eq(out[2 * i + 1], (uint32_t)(want >> 32));
    }
    sim_result_free(&res);
    isa_program_destroy(prog);
}
END_TEST

static double suite_start;

static Suite *subgroup_suite(void)
{
    Suite *s = suite_create("subgroup");
    TCase *m = tcase_create("matrix");
    tcase_set_timeout(m, 600);
    tcase_add_test(m, test_subgroup_basic_builtins_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_vote_uint_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_vote_int_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_vote_float_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_vote_bool_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_ballot_uint_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_ballot_int_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_ballot_float_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_ballot_bool_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_arithmetic_uint_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_arithmetic_int_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_arithmetic_float_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_arithmetic_bool_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_arithmetic_uint64_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_arithmetic_int64_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_arithmetic_double_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_arithmetic_float16_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_clustered_uint_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_clustered_int_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_clustered_float_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_clustered_bool_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_clustered_int64_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_shuffle_quad_uint_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_shuffle_quad_int_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_shuffle_quad_float_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_shuffle_quad_bool_every_wave_and_pattern_matches_reference);
    tcase_add_test(m, test_subgroup_shuffle_quad_double_every_wave_and_pattern_matches_reference);
    suite_add_tcase(s, m);
    TCase *f = tcase_create("focused");
    tcase_add_test(f, test_subgroup_exclusive_scan_first_active_lane_gets_identity);
    tcase_add_test(f, test_subgroup_shuffle_from_inactive_lane_reported_and_yields_zero);
    tcase_add_test(f, test_subgroup_broadcast_from_inactive_lane_reported_and_yields_zero);
    tcase_add_test(f, test_subgroup_shuffle_down_outside_wave_reported);
    tcase_add_test(f, test_subgroup_pack_double_round_trips_bits);
    suite_add_tcase(s, f);
    return s;
}

int main(void)
{
    suite_start = seconds_now();
    SRunner *sr = srunner_create(subgroup_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    fprintf(stderr, "test_subgroup: %.1f s\n", seconds_now() - suite_start);
    return failures ? 1 : 0;
}
