/*
 * isa/isa.h — the wave ISA and everything that produces it.
 *
 *   isa_compile()   GLSL/HLSL source -> SPIR-V words (glslang, in process)
 *   isa_validate()  SPIR-V -> ok or a message (SPIRV-Tools)
 *   isa_disassemble_spirv()  SPIR-V -> text (SPIRV-Tools)
 *   isa_lower()     SPIR-V -> isa_program: a flat array of fixed-size wave
 *                   instructions over numbered registers, structured control
 *                   flow already turned into exec-mask instructions.
 *
 * The executor in sim/ runs only isa_program; it never sees SPIR-V words.
 * The instruction set is listed once, in isa/ops.def.
 */
#ifndef WAVELAB_ISA_H
#define WAVELAB_ISA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum isa_status {
    ISA_OK = 0,
    ISA_ERR_IO,          /* cannot read a file */
    ISA_ERR_COMPILE,     /* glslang rejected the source */
    ISA_ERR_INVALID,     /* SPIR-V is malformed or fails validation */
    ISA_ERR_UNSUPPORTED, /* valid SPIR-V that wavelab does not model (message says what) */
    ISA_ERR_NOMEM
} isa_status;

const char *isa_status_str(isa_status s);

/* ---------------------------------------------------------------- compile */

typedef struct isa_define {
    const char *name;
    const char *value;
} isa_define;

typedef struct isa_compile_options {
    const char *path;          /* source file (read from disk unless `source` is set) */
    const char *source;        /* optional source text; `path` still names it in messages */
    const char *language;      /* "glsl", "hlsl" or NULL to pick from the extension */
    const char *entry;         /* entry point, NULL = "main" */
    const isa_define *defines;
    int define_count;
    int optimize;              /* nonzero: run glslang's optimizer (SSA output); default path uses 1 */
} isa_compile_options;

/*
 * Compiles a compute kernel to SPIR-V (Vulkan 1.1 target, SPIR-V 1.3, with
 * source line information).  For HLSL input, glslang's known departures from
 * HLSL semantics are corrected where that is safe and warned about (with the
 * source line) where it is not: see docs/quirks.md.  Warnings are appended to
 * `warnings` (may be NULL) as "file:line: warning: ..." lines.
 * On success *words (malloc'd, caller frees) holds *word_count words.
 * On failure err holds "file:line: message" lines.
 */
isa_status isa_compile(const isa_compile_options *opt, uint32_t **words, size_t *word_count,
                       char *err, size_t err_size, char *warnings, size_t warnings_size);

/* Validates SPIR-V for the Vulkan 1.1 environment.  err gets the validator's message with its word offset. */
isa_status isa_validate(const uint32_t *words, size_t word_count, char *err, size_t err_size);

/* SPIR-V disassembly as text (malloc'd, caller frees), or NULL with err set. */
char *isa_disassemble_spirv(const uint32_t *words, size_t word_count, char *err, size_t err_size);

/* ---------------------------------------------------------------- the ISA */

typedef enum isa_op {
#define X(name, cls, meaning) ISA_OP_##name,
#include "isa/ops.def"
#undef X
    ISA_OP_COUNT
} isa_op;

typedef enum isa_class {
    ISA_CLASS_SALU,   /* scalar ALU: one value per wave */
    ISA_CLASS_VALU,   /* vector ALU: one value per lane */
    ISA_CLASS_XLANE,  /* cross-lane (wave/subgroup) operation */
    ISA_CLASS_SMEM,   /* scalar memory load */
    ISA_CLASS_VMEM,   /* vector memory (buffer, texel buffer) */
    ISA_CLASS_LDS,    /* workgroup shared memory */
    ISA_CLASS_EXEC,   /* exec-mask manipulation */
    ISA_CLASS_BRANCH, /* jumps, end of program */
    ISA_CLASS_SYNC,   /* barriers */
    ISA_CLASS_COUNT
} isa_class;

const char *isa_op_name(isa_op op);          /* "iadd" */
const char *isa_op_meaning(isa_op op);
isa_class isa_op_class(isa_op op);           /* the table's class (memory ops may be re-classed per instruction) */
const char *isa_class_name(isa_class c);     /* "valu" */

/* How an instruction's lanes read their 64-bit register slots. */
#define ISA_TYPE_LIST(X) \
    X(NONE, "", 0)  X(BOOL, "b", 1) \
    X(U8, "u8", 1)  X(I8, "i8", 1)  X(U16, "u16", 2) X(I16, "i16", 2) \
    X(U32, "u32", 4) X(I32, "i32", 4) X(U64, "u64", 8) X(I64, "i64", 8) \
    X(F16, "f16", 2) X(F32, "f32", 4) X(F64, "f64", 8)

typedef enum isa_type {
#define X(id, name, size) ISA_TYPE_##id,
    ISA_TYPE_LIST(X)
#undef X
    ISA_TYPE_COUNT
} isa_type;

const char *isa_type_name(isa_type t);
unsigned isa_type_size(isa_type t);          /* bytes in memory; bool counts 4 */
int isa_type_is_float(isa_type t);
int isa_type_is_signed(isa_type t);

/* Operators of ISA_OP_WAVE_OP (imm) and ISA_OP_ATOMIC (imm2). */
typedef enum isa_reduce_op {
    ISA_RED_ADD, ISA_RED_MUL, ISA_RED_MIN, ISA_RED_MAX,
    ISA_RED_AND, ISA_RED_OR, ISA_RED_XOR,
    ISA_RED_EXCHANGE, ISA_RED_CMPXCHG, ISA_RED_LOAD, ISA_RED_STORE, /* atomics only */
    ISA_RED_COUNT
} isa_reduce_op;

/* Group operations of ISA_OP_WAVE_OP (imm2). */
typedef enum isa_group_op {
    ISA_GROUP_REDUCE, ISA_GROUP_INCLUSIVE, ISA_GROUP_EXCLUSIVE, ISA_GROUP_CLUSTERED
} isa_group_op;

#define ISA_NO_REG UINT32_MAX

typedef struct isa_inst {
    uint16_t op;        /* isa_op */
    uint8_t type;       /* isa_type of the lanes' values */
    uint8_t type2;      /* CVT: source type; memory: unused */
    uint8_t count;      /* LOAD/STORE: consecutive registers/components */
    uint8_t cls;        /* isa_class, as lowered (memory ops: VMEM, SMEM or LDS) */
    uint16_t slot;      /* memory: index into isa_program.slots */
    uint32_t d;         /* destination register or mask */
    uint32_t a, b, c, e;/* source registers (or masks / targets, see ops.def) */
    int64_t imm;
    int64_t imm2;
    uint32_t line;      /* source line (0 = unknown) */
    uint32_t spirv_word;/* word offset of the SPIR-V instruction it came from */
} isa_inst;

typedef enum isa_space {
    ISA_SPACE_STORAGE,        /* storage buffer (set, binding) */
    ISA_SPACE_UNIFORM,        /* uniform buffer */
    ISA_SPACE_STORAGE_TEXEL,  /* storage texel buffer (imageBuffer / RWBuffer) */
    ISA_SPACE_UNIFORM_TEXEL,  /* uniform texel buffer (samplerBuffer / Buffer) */
    ISA_SPACE_PUSH,           /* push constants */
    ISA_SPACE_WORKGROUP,      /* shared memory of the workgroup */
    ISA_SPACE_PRIVATE         /* per-lane memory (Function/Private variables) */
} isa_space;

const char *isa_space_name(isa_space s);

/* Texel formats of texel buffers the model converts. */
#define ISA_FORMAT_LIST(X) \
    X(UNKNOWN, "unknown", 0, 0, ISA_TYPE_NONE) \
    X(R32UI, "r32ui", 1, 4, ISA_TYPE_U32) X(R32I, "r32i", 1, 4, ISA_TYPE_I32) X(R32F, "r32f", 1, 4, ISA_TYPE_F32) \
    X(RG32UI, "rg32ui", 2, 8, ISA_TYPE_U32) X(RG32I, "rg32i", 2, 8, ISA_TYPE_I32) X(RG32F, "rg32f", 2, 8, ISA_TYPE_F32) \
    X(RGBA32UI, "rgba32ui", 4, 16, ISA_TYPE_U32) X(RGBA32I, "rgba32i", 4, 16, ISA_TYPE_I32) \
    X(RGBA32F, "rgba32f", 4, 16, ISA_TYPE_F32) \
    X(R16F, "r16f", 1, 2, ISA_TYPE_F16) X(RGBA16F, "rgba16f", 4, 8, ISA_TYPE_F16) \
    X(R16UI, "r16ui", 1, 2, ISA_TYPE_U16) X(R8UI, "r8ui", 1, 1, ISA_TYPE_U8) \
    X(RGBA8UI, "rgba8ui", 4, 4, ISA_TYPE_U8) X(RGBA8, "rgba8", 4, 4, ISA_TYPE_NONE)

typedef enum isa_format {
#define X(id, name, comps, bytes, type) ISA_FORMAT_##id,
    ISA_FORMAT_LIST(X)
#undef X
    ISA_FORMAT_COUNT
} isa_format;

const char *isa_format_name(isa_format f);
isa_format isa_format_from_name(const char *name);   /* ISA_FORMAT_UNKNOWN when not known */
unsigned isa_format_bytes(isa_format f);               /* bytes per texel */
unsigned isa_format_components(isa_format f);

typedef struct isa_slot {
    isa_space space;
    uint32_t set, binding;     /* buffers and texel buffers */
    isa_format format;         /* texel buffers: format declared in SPIR-V (unknown allowed for uniform texel) */
    isa_type texel_type;       /* texel buffers: the sampled type's component type */
    uint32_t static_size;      /* workgroup / private: bytes of this variable; buffers: the smallest size the layout needs */
    uint32_t base;             /* workgroup / private: byte offset of this variable inside the workgroup's shared
                                * area (workgroup_bytes) or the lane's private area (private_bytes).  Addresses in
                                * instructions are relative to the variable: bounds are checked against static_size. */
    int readonly;              /* NonWritable, uniform buffers, uniform texel buffers */
    int written;               /* the kernel stores or atomically writes it */
    char name[48];             /* the variable's name in the source, where known */
} isa_slot;

typedef enum isa_builtin {
    ISA_BI_GLOBAL_ID, ISA_BI_LOCAL_ID, ISA_BI_WORKGROUP_ID, ISA_BI_NUM_WORKGROUPS,
    ISA_BI_LOCAL_INDEX, ISA_BI_WORKGROUP_SIZE,
    ISA_BI_SUBGROUP_SIZE, ISA_BI_SUBGROUP_LOCAL_ID, ISA_BI_SUBGROUP_ID, ISA_BI_NUM_SUBGROUPS,
    ISA_BI_EQ_MASK, ISA_BI_GE_MASK, ISA_BI_GT_MASK, ISA_BI_LE_MASK, ISA_BI_LT_MASK,
    ISA_BI_COUNT
} isa_builtin;

const char *isa_builtin_name(isa_builtin b);

/* A register that holds a built-in value when a wave starts. */
typedef struct isa_builtin_reg {
    uint32_t reg;
    uint8_t builtin;    /* isa_builtin */
    uint8_t component;  /* x/y/z or ballot word */
} isa_builtin_reg;

/* A register that holds a constant in every lane when a wave starts. */
typedef struct isa_const_reg {
    uint32_t reg;
    uint64_t bits;
} isa_const_reg;

typedef struct isa_program {
    isa_inst *code;
    uint32_t code_count;
    uint32_t reg_count;        /* registers, each one 64-bit slot per lane */
    uint32_t mask_count;       /* wave mask registers */
    isa_slot *slots;
    uint32_t slot_count;
    isa_const_reg *consts;
    uint32_t const_count;
    isa_builtin_reg *builtins;
    uint32_t builtin_count;
    uint32_t local_size[3];    /* workgroup size */
    uint32_t workgroup_bytes;  /* shared memory per workgroup */
    uint32_t private_bytes;    /* per-lane memory */
    char entry[64];
    char source_path[256];     /* from OpSource/OpString where known */
} isa_program;

/*
 * Lowers SPIR-V to a new program (free with isa_program_destroy).  `entry`
 * names the GLCompute entry point (NULL: the only one).  On failure returns
 * NULL-program status and writes one message with the SPIR-V word offset
 * ("word 123 (OpFoo): ...") into err.
 */
isa_status isa_lower(const uint32_t *words, size_t word_count, const char *entry,
                     isa_program **out, char *err, size_t err_size);

void isa_program_destroy(isa_program *p);

/* Prints the program as a listing, one instruction per line. */
void isa_program_print(const isa_program *p, FILE *out);

/* Formats one instruction (without newline) into buf. */
void isa_inst_format(const isa_program *p, const isa_inst *in, char *buf, size_t buf_size);

#endif
