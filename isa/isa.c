/*
 * isa/isa.c — the tables expanded from ops.def and isa.h's lists: names,
 * classes and meanings of instructions, types, formats, built-ins; the
 * program's destructor and its listing.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"

static const char *const op_names[] = {
#define X(name, cls, meaning) #name,
#include "isa/ops.def"
#undef X
};

static const char *const op_meanings[] = {
#define X(name, cls, meaning) meaning,
#include "isa/ops.def"
#undef X
};

static const unsigned char op_classes[] = {
#define X(name, cls, meaning) ISA_CLASS_##cls,
#include "isa/ops.def"
#undef X
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
isa_class isa_op_class(isa_op op) { return op < ISA_OP_COUNT ? (isa_class)op_classes[op] : ISA_CLASS_VALU; }

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

static const struct {
    const char *name;
    unsigned bytes;
} formats[] = {
#define X(id, name, comps, bytes, type) {name, bytes},
    ISA_FORMAT_LIST(X)
#undef X
};

const char *isa_format_name(isa_format f) { return f < ISA_FORMAT_COUNT ? formats[f].name : "?"; }
unsigned isa_format_bytes(isa_format f) { return f < ISA_FORMAT_COUNT ? formats[f].bytes : 0; }
isa_format isa_format_from_name(const char *name)
{
    for (int f = 1; f < ISA_FORMAT_COUNT; f++)
        if (strcmp(formats[f].name, name) == 0)
            return (isa_format)f;
    return ISA_FORMAT_UNKNOWN;
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
