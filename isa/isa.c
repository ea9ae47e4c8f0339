/*
 * isa/isa.c — the tables expanded from ops.def and isa.h's lists: names,
 * classes and meanings of instructions, types, formats, built-ins; the
 * program's destructor and its listing.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/GLSL.std.450.h>

#include "img/img.h"
#include "isa/isa.h"

static const char *const op_names[] = {
#define X(name, cls, shape, result, uniform, print, flags, meaning) #name,
#include "isa/ops.def"
#undef X
};

static const char *const op_meanings[] = {
#define X(name, cls, shape, result, uniform, print, flags, meaning) meaning,
#include "isa/ops.def"
#undef X
};

/* The other columns of ops.def, one struct per instruction. */
static const struct {
    unsigned char cls, shape, result, uniform, print, flags;
} op_facts[] = {
#define PURE ISA_FLAG_PURE
#define X(name, cls, shape, result, uniform, print, flags, meaning) \
    {ISA_CLASS_##cls, ISA_SHAPE_##shape, ISA_RESULT_##result, ISA_UNIFORM_##uniform, ISA_PRINT_##print, flags},
#include "isa/ops.def"
#undef X
#undef PURE
};
_Static_assert(sizeof op_facts / sizeof op_facts[0] == ISA_OP_COUNT, "one row of facts per instruction");

/* isa/shapes.def expanded: each operand macro becomes an isa_operand. */
#define R(f, span, when) {ISA_FIELD_##f, ISA_ROLE_READ, ISA_SPAN_##span, ISA_WHEN_##when, 0}
#define RO(f, span, when) {ISA_FIELD_##f, ISA_ROLE_READ, ISA_SPAN_##span, ISA_WHEN_##when, 1}
#define W(f, span, when) {ISA_FIELD_##f, ISA_ROLE_WRITE, ISA_SPAN_##span, ISA_WHEN_##when, 0}
#define WO(f, span, when) {ISA_FIELD_##f, ISA_ROLE_WRITE, ISA_SPAN_##span, ISA_WHEN_##when, 1}
#define RW(f, span, when) {ISA_FIELD_##f, ISA_ROLE_UPDATE, ISA_SPAN_##span, ISA_WHEN_##when, 0}
#define M(f) {ISA_FIELD_##f, ISA_ROLE_MASK, ISA_SPAN_ONE, ISA_WHEN_ALWAYS, 0}
#define ISA_FIELD_d ISA_FIELD_D
#define ISA_FIELD_a ISA_FIELD_A
#define ISA_FIELD_b ISA_FIELD_B
#define ISA_FIELD_c ISA_FIELD_C
#define ISA_FIELD_e ISA_FIELD_E
#define ISA_FIELD_x ISA_FIELD_X
#define S(name, flags, ...) \
    [ISA_SHAPE_##name] = {#name, flags, sizeof((isa_operand[]){{0}, __VA_ARGS__}) / sizeof(isa_operand) - 1, \
                          {__VA_ARGS__}},
static const isa_shape shapes[ISA_SHAPE_COUNT] = {
#include "isa/shapes.def"
};
#undef S
#undef R
#undef RO
#undef W
#undef WO
#undef RW
#undef M

/* isa/glsl450.def, indexed by instruction number (every FMATH looks its row up: no search). */
static const isa_glsl glsl_table[GLSLstd450Count] = {
#define G(name, in, in_regs, out, sign) [GLSLstd450##name] = {#name, in, in_regs, out, sign},
#include "isa/glsl450.def"
#undef G
};

const char *isa_status_str(isa_status s)
{
    switch (s) {
    case ISA_OK: return "ok";
    case ISA_ERR_IO: return "cannot read input";
    case ISA_ERR_COMPILE: return "compile error";
    case ISA_ERR_INVALID: return "invalid SPIR-V";
    case ISA_ERR_UNSUPPORTED: return "unsupported SPIR-V";
    case ISA_ERR_NOMEM: return "out of memory";
    }
    return "?";
}

static char op_lower[ISA_OP_COUNT][16];
static pthread_once_t op_lower_once = PTHREAD_ONCE_INIT;

static void make_lower_names(void)
{
    for (int op = 0; op < ISA_OP_COUNT; op++) {
        size_t i = 0;
        for (; op_names[op][i] && i + 1 < sizeof op_lower[op]; i++) {
            char ch = op_names[op][i];
            op_lower[op][i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
        }
        op_lower[op][i] = 0;
    }
}

const char *isa_op_name(isa_op op)
{
    if (op >= ISA_OP_COUNT)
        return "?";
    pthread_once(&op_lower_once, make_lower_names); /* callable from several threads at once */
    return op_lower[op];
}

const char *isa_op_meaning(isa_op op) { return op < ISA_OP_COUNT ? op_meanings[op] : "?"; }
isa_class isa_op_class(isa_op op) { return op < ISA_OP_COUNT ? (isa_class)op_facts[op].cls : ISA_CLASS_VALU; }
const isa_shape *isa_op_shape(isa_op op) { return &shapes[op < ISA_OP_COUNT ? op_facts[op].shape : ISA_SHAPE_NONE]; }
isa_result isa_op_result(isa_op op) { return op < ISA_OP_COUNT ? (isa_result)op_facts[op].result : ISA_RESULT_TYPED; }
isa_uniform_rule isa_op_uniform(isa_op op)
{
    return op < ISA_OP_COUNT ? (isa_uniform_rule)op_facts[op].uniform : ISA_UNIFORM_LANE;
}
isa_print isa_op_print(isa_op op) { return op < ISA_OP_COUNT ? (isa_print)op_facts[op].print : ISA_PRINT_ALU; }
unsigned isa_op_flags(isa_op op) { return op < ISA_OP_COUNT ? op_facts[op].flags : 0; }

const isa_glsl *isa_glsl_info(int64_t number)
{
    return number >= 0 && number < GLSLstd450Count && glsl_table[number].name ? &glsl_table[number] : NULL;
}

int isa_scalar_loadable(const isa_program *p, const isa_inst *in)
{
    uint32_t first, count;
    if (!isa_inst_slots(p, in, &first, &count))
        return 0;
    for (uint32_t s = first; s < first + count; s++) {
        const isa_slot *sl = &p->slots[s];
        if ((sl->space != ISA_SPACE_STORAGE && sl->space != ISA_SPACE_UNIFORM && sl->space != ISA_SPACE_PUSH) ||
            sl->written)
            return 0;
    }
    return 1;
}

int isa_inst_slots(const isa_program *p, const isa_inst *in, uint32_t *first, uint32_t *count)
{
    if (!(isa_op_shape((isa_op)in->op)->flags & ISA_SHAPE_F_SLOT) || in->slot >= p->slot_count)
        return 0;
    *first = in->slot;
    /* with a run-time index the slot is the array's element 0 (the lowering makes it so, isa/validate.c checks) */
    *count = in->desc_index != ISA_DESC_NONE ? p->slots[in->slot].elements : 1;
    return 1;
}

uint32_t *isa_inst_field_ref(isa_inst *in, unsigned f)
{
    switch ((isa_field)f) {
    case ISA_FIELD_D: return &in->d;
    case ISA_FIELD_A: return &in->a;
    case ISA_FIELD_B: return &in->b;
    case ISA_FIELD_C: return &in->c;
    case ISA_FIELD_E: return &in->e;
    case ISA_FIELD_X: return &in->x;
    case ISA_FIELD_COUNT: break;
    }
    return NULL;
}

uint32_t isa_inst_field(const isa_inst *in, unsigned f)
{
    const uint32_t *r = isa_inst_field_ref((isa_inst *)in, f);
    return r ? *r : ISA_NO_REG;
}

/* An FMATH whose GLSL.std.450 number the model lacks reads as one register in, one out, and any of b, c set:
 * the validator leaves it to the executor, which reports it when (and if) it runs. */
static unsigned glsl_inputs(const isa_inst *in)
{
    const isa_glsl *g = isa_glsl_info(in->imm);
    return g ? g->inputs : 3;
}

int isa_operand_present(const isa_inst *in, const isa_operand *o)
{
    return isa_inst_field(in, o->field) != ISA_NO_REG && isa_operand_applies(in, o);
}

int isa_operand_applies(const isa_inst *in, const isa_operand *o)
{
    switch ((isa_when)o->when) {
    case ISA_WHEN_ALWAYS: return 1;
    case ISA_WHEN_RMW: return in->imm2 != ISA_RED_LOAD;
    case ISA_WHEN_CMPXCHG: return in->imm2 == ISA_RED_CMPXCHG;
    case ISA_WHEN_FUSED: return in->imm2 != 0;
    case ISA_WHEN_GLSL_2: return glsl_inputs(in) > 1;
    case ISA_WHEN_GLSL_3: return glsl_inputs(in) > 2;
    case ISA_WHEN_INDEXED: return in->desc_index != ISA_DESC_NONE;
    }
    return 0;
}

uint32_t isa_operand_span(const isa_inst *in, const isa_operand *o)
{
    const isa_glsl *g;
    switch ((isa_span_rule)o->span) {
    case ISA_SPAN_ONE: return 1;
    case ISA_SPAN_FOUR: return 4;
    case ISA_SPAN_COUNT: return in->count ? in->count : 1;
    case ISA_SPAN_IMM: return in->imm > 0 && in->imm <= UINT32_MAX ? (uint32_t)in->imm : 1;
    case ISA_SPAN_GLSL_IN: return (g = isa_glsl_info(in->imm)) ? g->input_regs : 1;
    case ISA_SPAN_GLSL_OUT: return (g = isa_glsl_info(in->imm)) ? g->outputs : 1;
    }
    return 1;
}

const char *isa_class_name(isa_class c)
{
    static const char *const names[ISA_CLASS_COUNT] = {"salu", "valu", "xlane", "smem", "vmem", "lds", "exec", "branch", "sync"};
    return c < ISA_CLASS_COUNT ? names[c] : "?";
}

static const char *const type_names[] = {
#define X(id, name, size) name,
    ISA_TYPE_LIST(X)
#undef X
};
static const unsigned char type_sizes[] = {
#define X(id, name, size) size,
    ISA_TYPE_LIST(X)
#undef X
};

const char *isa_type_name(isa_type t) { return t < ISA_TYPE_COUNT ? type_names[t] : "?"; }
unsigned isa_type_size(isa_type t) { return t == ISA_TYPE_BOOL ? 4 : (t < ISA_TYPE_COUNT ? type_sizes[t] : 0); }
int isa_type_is_float(isa_type t) { return t == ISA_TYPE_F16 || t == ISA_TYPE_F32 || t == ISA_TYPE_F64; }
int isa_type_is_signed(isa_type t)
{
    return t == ISA_TYPE_I8 || t == ISA_TYPE_I16 || t == ISA_TYPE_I32 || t == ISA_TYPE_I64;
}

const char *isa_space_name(isa_space s)
{
    static const char *const names[] = {"storage", "uniform", "storage_texel", "uniform_texel", "push", "workgroup", "private",
                                         "storage_image", "sampled_image", "sampler"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

/* Each texel format's row of img/formats.def, which holds every fact about it. */
static const img_format texel_formats[ISA_FORMAT_COUNT] = {
    [ISA_FORMAT_UNKNOWN] = IMG_FMT_COUNT,
#define X(id, img) [ISA_FORMAT_##id] = IMG_FMT_##img,
    ISA_FORMAT_LIST(X)
#undef X
};

static const img_format_info *texel_format(isa_format f)
{
    return f > ISA_FORMAT_UNKNOWN && f < ISA_FORMAT_COUNT ? img_format_get(texel_formats[f]) : NULL;
}

const char *isa_format_name(isa_format f)
{
    const img_format_info *i = texel_format(f);
    return i ? i->spirv_name : f == ISA_FORMAT_UNKNOWN ? "unknown" : "?";
}
unsigned isa_format_bytes(isa_format f)
{
    const img_format_info *i = texel_format(f);
    return i ? i->texel_bytes : 0;
}
unsigned isa_format_components(isa_format f)
{
    const img_format_info *i = texel_format(f);
    return i ? i->components : 0;
}
uint32_t isa_format_vk(isa_format f)
{
    const img_format_info *i = texel_format(f);
    return i ? i->vk_format : 0;
}

isa_type isa_format_type(isa_format f)
{
    const img_format_info *i = texel_format(f);
    if (!i || i->encoding == IMG_ENC_UNORM)
        return ISA_TYPE_NONE;
    switch (i->numeric) {
    case IMG_NUM_FLOAT: return i->bits[0] == 16 ? ISA_TYPE_F16 : ISA_TYPE_F32;
    case IMG_NUM_UINT: return i->bits[0] == 8 ? ISA_TYPE_U8 : i->bits[0] == 16 ? ISA_TYPE_U16 : ISA_TYPE_U32;
    case IMG_NUM_SINT: return i->bits[0] == 8 ? ISA_TYPE_I8 : i->bits[0] == 16 ? ISA_TYPE_I16 : ISA_TYPE_I32;
    }
    return ISA_TYPE_NONE;
}

isa_format isa_format_from_name(const char *name)
{
    for (int f = ISA_FORMAT_UNKNOWN + 1; f < ISA_FORMAT_COUNT; f++)
        if (strcmp(isa_format_name((isa_format)f), name) == 0)
            return (isa_format)f;
    return ISA_FORMAT_UNKNOWN;
}

isa_format isa_format_from_spirv(uint32_t image_format)
{
    for (int f = ISA_FORMAT_UNKNOWN + 1; f < ISA_FORMAT_COUNT; f++)
        if (texel_format((isa_format)f)->spirv_format == image_format)
            return (isa_format)f;
    return ISA_FORMAT_UNKNOWN;
}

static char format_names[256];
static pthread_once_t format_names_once = PTHREAD_ONCE_INIT;

static void make_format_names(void)
{
    size_t n = 0;
    for (int f = ISA_FORMAT_UNKNOWN + 1; f < ISA_FORMAT_COUNT && n < sizeof format_names; f++)
        n += (size_t)snprintf(format_names + n, sizeof format_names - n, "%s%s", n ? " " : "",
                              isa_format_name((isa_format)f));
}

const char *isa_format_names(void)
{
    pthread_once(&format_names_once, make_format_names);
    return format_names;
}

const char *isa_builtin_name(isa_builtin b)
{
    static const char *const names[ISA_BI_COUNT] = {
        "GlobalInvocationId", "LocalInvocationId", "WorkgroupId", "NumWorkgroups", "LocalInvocationIndex",
        "WorkgroupSize", "SubgroupSize", "SubgroupLocalInvocationId", "SubgroupId", "NumSubgroups",
        "SubgroupEqMask", "SubgroupGeMask", "SubgroupGtMask", "SubgroupLeMask", "SubgroupLtMask"};
    return b < ISA_BI_COUNT ? names[b] : "?";
}

void isa_program_destroy(isa_program *p)
{
    if (!p)
        return;
    free(p->code);
    free(p->slots);
    free(p->consts);
    free(p->builtins);
    for (uint32_t k = 0; k < p->block_count; k++)
        free(p->blocks[k].succ);
    free(p->blocks);
    free(p->reg_uniform);
    free(p->reg_file);
    free(p->reg_number);
    free(p->live_vgprs);
    free(p->live_sgprs);
    free(p);
}

/* "d..d+3", "a..a+count-1": a field and the registers its span rule covers. */
static size_t operand_text(const isa_operand *o, char *buf, size_t size)
{
    static const char *const tails[] = {
        [ISA_SPAN_ONE] = "", [ISA_SPAN_FOUR] = "..%c+3", [ISA_SPAN_COUNT] = "..%c+count-1",
        [ISA_SPAN_IMM] = "..%c+imm-1", [ISA_SPAN_GLSL_IN] = "..", [ISA_SPAN_GLSL_OUT] = ".."};
    static const char *const conditions[] = {
        [ISA_WHEN_ALWAYS] = "", [ISA_WHEN_RMW] = " (not load)", [ISA_WHEN_CMPXCHG] = " (cmpxchg)",
        [ISA_WHEN_FUSED] = " (fused)", [ISA_WHEN_GLSL_2] = " (2+ inputs)", [ISA_WHEN_GLSL_3] = " (3 inputs)",
        [ISA_WHEN_INDEXED] = " (run-time index)"};
    static const char fields[ISA_FIELD_COUNT + 1] = "dabcex";
    char f = fields[o->field], tail[24];
    snprintf(tail, sizeof tail, tails[o->span], f);
    int n = snprintf(buf, size, "%c%s%s%s", f, tail, o->optional ? "?" : "", conditions[o->when]);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

void isa_op_operands_text(isa_op op, char *buf, size_t size)
{
    static const char *const heads[] = {[ISA_ROLE_WRITE] = "writes ", [ISA_ROLE_READ] = "reads ",
                                        [ISA_ROLE_UPDATE] = "updates ", [ISA_ROLE_MASK] = "masks "};
    static const isa_role order[] = {ISA_ROLE_WRITE, ISA_ROLE_UPDATE, ISA_ROLE_READ, ISA_ROLE_MASK};
    const isa_shape *sh = isa_op_shape(op);
    size_t n = 0;
    buf[0] = 0;
    for (size_t r = 0; r < sizeof order / sizeof order[0]; r++) {
        int first = 1;
        for (unsigned k = 0; k < sh->count && n + 1 < size; k++) {
            if (sh->op[k].role != order[r])
                continue;
            n += (size_t)snprintf(buf + n, size - n, "%s%s", first ? (n ? "; " : "") : ", ",
                                  first ? heads[order[r]] : "");
            if (n + 1 < size)
                n += operand_text(&sh->op[k], buf + n, size - n);
            first = 0;
        }
    }
    if ((sh->flags & ISA_SHAPE_F_SLOT) && n + 1 < size)
        n += (size_t)snprintf(buf + n, size - n, "%sslot", n ? "; " : "");
    if ((sh->flags & ISA_SHAPE_F_JUMP) && n + 1 < size)
        n += (size_t)snprintf(buf + n, size - n, "%sjumps to imm", n ? "; " : "");
    if (!n)
        snprintf(buf, size, "none");
}


uint32_t isa_invocation_at(const uint32_t size[3], uint8_t derivative_group, uint32_t position, uint32_t local[3])
{
    const uint32_t sx = size[0], slice = size[0] * size[1];
    if (derivative_group != ISA_DERIV_QUADS) {
        local[0] = position % sx, local[1] = position / sx % size[1], local[2] = position / slice;
        return position;
    }
    const uint32_t at = position % slice, pair = at / (2 * sx), quad = at % (2 * sx) / 4, i = at % 4;
    local[0] = 2 * quad + (i & 1), local[1] = 2 * pair + (i >> 1), local[2] = position / slice;
    return local[2] * slice + local[1] * sx + local[0];
}

uint32_t isa_lane_position(const uint32_t size[3], uint8_t derivative_group, const uint32_t local[3])
{
    const uint32_t sx = size[0], slice = size[0] * size[1];
    if (derivative_group != ISA_DERIV_QUADS)
        return local[2] * slice + local[1] * sx + local[0];
    return local[2] * slice + (local[1] & ~1u) * sx + (local[0] & ~1u) * 2 + (local[1] & 1) * 2 + (local[0] & 1);
}
