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
#include <stdbool.h>
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
    const char *target_env;    /* glslangValidator's --target-env spelling ("vulkan1.3": SPIR-V 1.6); NULL = "vulkan1.1" */
} isa_compile_options;

/*
 * Compiles a compute kernel to SPIR-V (by default the Vulkan 1.1 target, SPIR-V 1.3, with
 * source line information).  For HLSL input, glslang's known departures from
 * HLSL semantics are corrected where that is safe and warned about (with the
 * source line) where it is not: see docs/quirks.md.  Warnings are appended to
 * `warnings` (may be NULL) as "file:line: warning: ..." lines.
 * On success *words (malloc'd, caller frees) holds *word_count words.
 * On failure err holds "file:line: message" lines.
 */
isa_status isa_compile(const isa_compile_options *opt, uint32_t **words, size_t *word_count,
                       char *err, size_t err_size, char *warnings, size_t warnings_size);

/*
 * The SPIR-V the lowering takes: one function, SSA values.  Runs SPIRV-Tools'
 * inlining and local-variable passes, none of which moves an instruction
 * across structured control flow (isa/spvopt.cpp lists them and says why).
 * isa_compile already did this; call it for SPIR-V from elsewhere, after
 * isa_validate.  Replaces *words (malloc'd; the old array is freed).
 */
isa_status isa_spirv_legalize(uint32_t **words, size_t *word_count, char *err, size_t err_size);

/* The legalization pass list as spirv-opt flags, for documentation and cache keys. */
const char *isa_spirv_legalization_passes(void);

/*
 * The optimizer, only when a user asks for it: `passes` is "performance"
 * (spirv-opt -O), "size" (-Os) or spirv-opt flags ("--merge-blocks ...").
 * These passes may change what wave operations see.  Replaces *words.
 */
isa_status isa_spirv_optimize(uint32_t **words, size_t *word_count, const char *passes, char *err, size_t err_size);

/* Assembles SPIR-V assembly text (spirv-as's syntax) into a module of SPIR-V 1.`minor` (0 .. 6) with SPIRV-Tools'
 * assembler; *words is malloc'd.  On failure err gets "line L, column C: message" (lines of `text`, from 1). */
isa_status isa_assemble_spirv(const char *text, size_t len, int minor, uint32_t **words, size_t *word_count,
                              char *err, size_t err_size);

/* Reads a SPIR-V binary (either byte order) into *words (malloc'd).  Checks size and magic only: validate it next. */
isa_status isa_read_spirv(const char *path, uint32_t **words, size_t *word_count, char *err, size_t err_size);

/*
 * The environment a module is validated, legalized and optimized in: the one
 * its header's SPIR-V version belongs to (1.0-1.3: Vulkan 1.1, 1.4: Vulkan 1.1
 * with SPIR-V 1.4, 1.5: Vulkan 1.2, 1.6: Vulkan 1.3), as SPIRV-Tools'
 * spv_target_env; and the oldest Vulkan 1.x minor version whose devices take
 * the module without extensions.
 */
int isa_spirv_env(const uint32_t *words, size_t word_count);
uint32_t isa_spirv_vulkan_minor(const uint32_t *words, size_t word_count);

/* Whether `name` is a target environment isa_compile knows; `names` (may be NULL) gets them all, quoted. */
bool isa_target_env_known(const char *name, char *names, size_t names_size);

/* Validates SPIR-V in the environment its version belongs to (isa_spirv_env).  err gets the validator's message with its word offset. */
isa_status isa_validate(const uint32_t *words, size_t word_count, char *err, size_t err_size);
/* One more than the largest result id the module defines (SPIRV-Tools' parser), or 0 when it does not
 * parse.  The lowering sizes its id table by this, not by the header's bound, which may be 4194303 in
 * a five-word file. */
uint32_t isa_spirv_used_id_bound(const uint32_t *words, size_t word_count);

/* SPIR-V disassembly as text (malloc'd, caller frees), or NULL with err set. */
char *isa_disassemble_spirv(const uint32_t *words, size_t word_count, char *err, size_t err_size);

/* ---------------------------------------------------------------- the ISA */

typedef enum isa_op {
#define X(name, ...) ISA_OP_##name,
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

/* The columns of isa/ops.def beside name, class and meaning (see there). */
typedef enum isa_shape_id {
#define S(name, ...) ISA_SHAPE_##name,
#include "isa/shapes.def"
#undef S
    ISA_SHAPE_COUNT
} isa_shape_id;

typedef enum isa_result { ISA_RESULT_TYPED, ISA_RESULT_BOOL, ISA_RESULT_U32 } isa_result;

typedef enum isa_uniform_rule {
    ISA_UNIFORM_READS, ISA_UNIFORM_WAVE, ISA_UNIFORM_LANE, ISA_UNIFORM_PHI, ISA_UNIFORM_BCAST,
    ISA_UNIFORM_BALLOT_BIT, ISA_UNIFORM_BALLOT_CNT, ISA_UNIFORM_WAVE_OP, ISA_UNIFORM_LOAD
} isa_uniform_rule;

typedef enum isa_print {
    ISA_PRINT_ALU, ISA_PRINT_ALU_IMM, ISA_PRINT_SLOT_IMM, ISA_PRINT_BLOCK, ISA_PRINT_LOOP,
    ISA_PRINT_MASK_COND, ISA_PRINT_MASK_CASE, ISA_PRINT_MASK_EXEC, ISA_PRINT_MASK_OR, ISA_PRINT_MASK_ANDN,
    ISA_PRINT_BRANCH, ISA_PRINT_BRANCH_CMP, ISA_PRINT_BRANCH_IF, ISA_PRINT_JOIN, ISA_PRINT_JUMP,
    ISA_PRINT_MOVM, ISA_PRINT_LOAD, ISA_PRINT_STORE, ISA_PRINT_ATOMIC, ISA_PRINT_IMG_LOAD,
    ISA_PRINT_IMG_STORE, ISA_PRINT_IMG_SAMPLE, ISA_PRINT_IMG_ATOMIC, ISA_PRINT_IMG_QUERY, ISA_PRINT_WAVE_OP
} isa_print;

enum { ISA_FLAG_PURE = 1 };

/* Operand shapes (isa/shapes.def): fields are numbered d, a, b, c, e, x = 0..5, the bits of
 * isa_inst_reg_fields. */
typedef enum isa_field { ISA_FIELD_D, ISA_FIELD_A, ISA_FIELD_B, ISA_FIELD_C, ISA_FIELD_E, ISA_FIELD_X,
                         ISA_FIELD_COUNT } isa_field;
typedef enum isa_role { ISA_ROLE_READ, ISA_ROLE_WRITE, ISA_ROLE_UPDATE, ISA_ROLE_MASK } isa_role;
typedef enum isa_span_rule {
    ISA_SPAN_ONE, ISA_SPAN_FOUR, ISA_SPAN_COUNT, ISA_SPAN_IMM, ISA_SPAN_GLSL_IN, ISA_SPAN_GLSL_OUT
} isa_span_rule;
typedef enum isa_when {
    ISA_WHEN_ALWAYS, ISA_WHEN_RMW, ISA_WHEN_CMPXCHG, ISA_WHEN_FUSED, ISA_WHEN_GLSL_2, ISA_WHEN_GLSL_3,
    ISA_WHEN_INDEXED
} isa_when;
enum {
    ISA_SHAPE_F_SLOT = 1, ISA_SHAPE_F_JUMP = 2, ISA_SHAPE_F_LEN_IMM = 4, ISA_SHAPE_F_STRIDE_IMM2 = 8,
    ISA_SHAPE_F_SAMPLER_IMM2 = 16, ISA_SHAPE_F_CLUSTER = 32
};
typedef struct isa_operand {
    uint8_t field, role, span, when, optional; /* isa_field, isa_role, isa_span_rule, isa_when; may be ISA_NO_REG */
} isa_operand;
typedef struct isa_shape {
    const char *name;
    unsigned flags;        /* ISA_SHAPE_F_* */
    unsigned count;        /* operands */
    isa_operand op[ISA_FIELD_COUNT];
} isa_shape;

const char *isa_op_name(isa_op op);          /* "iadd" */
const isa_shape *isa_op_shape(isa_op op);
isa_result isa_op_result(isa_op op);
isa_uniform_rule isa_op_uniform(isa_op op);
isa_print isa_op_print(isa_op op);
unsigned isa_op_flags(isa_op op);            /* ISA_FLAG_* */
/* The operands of an instruction's shape in words: "writes d..d+3; reads a, b?; slot" (`?`: may be absent). */
void isa_op_operands_text(isa_op op, char *buf, size_t size);

/* GLSL.std.450 instructions the model has (isa/glsl450.def), or NULL: name, register inputs (operands a, b,
 * c), registers read from a, registers written from d, and the integer signedness the function itself fixes
 * ('s', 'u', or 0 when it follows its operands' type). */
typedef struct isa_glsl {
    const char *name;
    unsigned char inputs, input_regs, outputs;
    char sign;
} isa_glsl;
const isa_glsl *isa_glsl_info(int64_t number);
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
    int8_t texel_offset[3]; /* IMG_SAMPLE/IMG_GATHER: the ConstOffset in texels of the level read (0: none) */
    uint8_t img_dref;   /* IMG_SAMPLE/IMG_GATHER: 1 when the last of the `count` coordinate registers is the depth
                         * reference (Dref) of a depth-comparison sample */
    uint8_t desc_index; /* instructions on a slot: isa_desc_index, how x picks the element of a descriptor array */
    uint8_t sampler_index; /* sampling with a sampler picked from an array at run time (ISA_SAMPLER_*): x holds the
                            * image's element in its high word, the sampler's (counted from imm2) in its low */
    uint32_t x;         /* ... the register holding that element's index, counted from `slot` (with ISA_DESC_NONE:
                         * unused).  Combined image samplers take their sampler (imm2 == slot) from the same element. */
    int64_t imm;
    int64_t imm2;
    uint32_t line;      /* source line (0 = unknown) */
    uint32_t spirv_word;/* word offset of the SPIR-V instruction it came from */
    uint32_t flags;     /* ISA_INST_* facts found by the analyses (isa/uniform.c) */
} isa_inst;

/* isa_inst.desc_index: a descriptor array indexed by a value known only when the kernel runs (SPIR-V's dynamic
 * indexing).  The executor resolves the element per wave instruction (sim/exec.c: sim_indexed_slot). */
typedef enum isa_desc_index {
    ISA_DESC_NONE,       /* `slot` is the descriptor */
    ISA_DESC_UNIFORM,    /* slot + x, one element for the wave: Vulkan requires the index dynamically uniform */
    ISA_DESC_NONUNIFORM  /* slot + x per lane (decorated NonUniform): AMD's compiler loops over the distinct
                          * elements among the active lanes (a waterfall); so does the executor */
} isa_desc_index;

/* isa_inst.sampler_index: a sampler picked from an array at run time, and which of the pair's indices Vulkan
 * requires dynamically uniform (no NonUniform) while the other is NonUniform (desc_index is then NONUNIFORM) */
#define ISA_SAMPLER_INDEXED    1u
#define ISA_SAMPLER_UNIFORM_LO 2u  /* the sampler's index (x's low word) */
#define ISA_SAMPLER_UNIFORM_HI 4u  /* the image's index (x's high word) */

/* isa_inst.flags */
#define ISA_INST_DIVERGENT     1u  /* in a block that a subset of the wave's lanes may run (divergent control flow) */
#define ISA_INST_UNIFORM_ADDR  2u  /* memory: one address across the wave (address operand uniform or absent) */
#define ISA_INST_UNIFORM_COND  4u  /* branch/mask op: its condition is uniform (a scalar branch) */

typedef enum isa_space {
    ISA_SPACE_STORAGE,        /* storage buffer (set, binding) */
    ISA_SPACE_UNIFORM,        /* uniform buffer */
    ISA_SPACE_STORAGE_TEXEL,  /* storage texel buffer (imageBuffer / RWBuffer) */
    ISA_SPACE_UNIFORM_TEXEL,  /* uniform texel buffer (samplerBuffer / Buffer) */
    ISA_SPACE_PUSH,           /* push constants */
    ISA_SPACE_WORKGROUP,      /* shared memory of the workgroup */
    ISA_SPACE_PRIVATE,        /* per-lane memory (Function/Private variables) */
    ISA_SPACE_STORAGE_IMAGE,  /* storage image (image2D / RWTexture2D), not a texel buffer */
    ISA_SPACE_SAMPLED_IMAGE,  /* sampled image (texture2D / Texture2D), or a combined image sampler (sampler2D) */
    ISA_SPACE_SAMPLER         /* sampler (sampler / SamplerState) */
} isa_space;

/* Image dimensionalities of image slots (the order of img_dim in img/img.h). */
typedef enum isa_image_dim { ISA_IMAGE_1D, ISA_IMAGE_2D, ISA_IMAGE_3D, ISA_IMAGE_CUBE } isa_image_dim;

const char *isa_space_name(isa_space s);

/* The formats a texel buffer may have: X(id, row) pairs each with its row of img/formats.def, which holds every
 * fact about it (its name is the row's SPIR-V/GLSL qualifier, "r32ui"; its bytes, components, VkFormat and
 * SPIR-V ImageFormat are the row's).  The list itself is what the simulator's texel path converts. */
#define ISA_FORMAT_LIST(X) \
    X(R32UI, R32_UINT) X(R32I, R32_SINT) X(R32F, R32_SFLOAT) \
    X(RG32UI, R32G32_UINT) X(RG32I, R32G32_SINT) X(RG32F, R32G32_SFLOAT) \
    X(RGBA32UI, R32G32B32A32_UINT) X(RGBA32I, R32G32B32A32_SINT) X(RGBA32F, R32G32B32A32_SFLOAT) \
    X(R16F, R16_SFLOAT) X(RGBA16F, R16G16B16A16_SFLOAT) X(R16UI, R16_UINT) X(R8UI, R8_UINT) \
    X(RGBA8UI, R8G8B8A8_UINT) X(RGBA8, R8G8B8A8_UNORM)

typedef enum isa_format {
    ISA_FORMAT_UNKNOWN,
#define X(id, img) ISA_FORMAT_##id,
    ISA_FORMAT_LIST(X)
#undef X
    ISA_FORMAT_COUNT
} isa_format;

const char *isa_format_name(isa_format f);            /* the SPIR-V/GLSL qualifier: "rgba32f"; "unknown" */
isa_format isa_format_from_name(const char *name);   /* ISA_FORMAT_UNKNOWN when not known */
isa_format isa_format_from_spirv(uint32_t image_format); /* ISA_FORMAT_UNKNOWN when not a texel format */
unsigned isa_format_bytes(isa_format f);               /* bytes per texel */
unsigned isa_format_components(isa_format f);
isa_type isa_format_type(isa_format f);                /* the component type; NONE for 8-bit unorm */
uint32_t isa_format_vk(isa_format f);                  /* its VkFormat, 0 (VK_FORMAT_UNDEFINED) when unknown */
/* "r32ui r32i ... rgba8": every texel format's name, for messages. */
const char *isa_format_names(void);

typedef struct isa_slot {
    isa_space space;
    uint32_t set, binding;     /* buffers, texel buffers, images and samplers */
    uint32_t element;          /* ... the element of a descriptor array (0 for a single descriptor): each element
                                * of `buffer_t b[4]` is a slot of its own, made in a row (isa/lower_module.c) */
    uint32_t elements;         /* ... the array's length (1 for a single descriptor): slots [s - element,
                                * s - element + elements) are its elements */
    uint32_t alias_of;         /* a variable pointer's candidate (isa/lower_varptr.c): this slot is slot
                                * alias_of - 1 again, as element `element` of the run of `elements` slots a
                                * pointer chosen per lane indexes; the executor goes to that slot (0: none) */
    isa_format format;         /* texel buffers: format declared in SPIR-V (unknown allowed for uniform texel) */
    isa_type texel_type;       /* texel buffers: the sampled type's component type */
    uint32_t static_size;      /* workgroup / private: bytes of this variable; buffers and push constants: the bytes
                                * up to the block's last value (spv_layout_extent), which a binding must hold */
    uint32_t base;             /* workgroup / private: byte offset of this variable inside the workgroup's shared
                                * area (workgroup_bytes) or the lane's private area (private_bytes).  Addresses in
                                * instructions are relative to the variable: bounds are checked against static_size. */
    /* image slots (STORAGE_IMAGE, SAMPLED_IMAGE): what OpTypeImage declares */
    uint8_t image_dim;         /* isa_image_dim */
    uint8_t image_arrayed;     /* Arrayed: the last coordinate is the layer (cube arrays: layer = 6 * cube + face) */
    uint8_t image_combined;    /* SAMPLED_IMAGE: a combined image sampler (the binding brings its sampler) */
    uint8_t image_ms;          /* MS: multisampled (2d); reads, writes and atomics take the sample index as their
                                * last coordinate */
    uint32_t image_format;     /* the SPIR-V ImageFormat (0 = Unknown: the binding's format applies) */
    int readonly;              /* NonWritable, uniform buffers, uniform texel buffers, sampled images */
    int written;               /* the kernel stores or atomically writes it */
    char name[48];             /* the variable's name in the source, where known */
} isa_slot;

/* The most elements of one descriptor array the lowering makes slots for (each element is a slot). */
#define ISA_MAX_DESCRIPTOR_ARRAY 1024u

/* Whether two records name the same descriptor: each has `set`, `binding` and `element` (a slot, a case
 * binding or expectation, a simulator buffer or image).  Every such comparison goes through this. */
#define ISA_SAME_DESCRIPTOR(a, b) ((a).set == (b).set && (a).binding == (b).binding && (a).element == (b).element)

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

/* Register files after allocation (isa_program.reg_file, one per register). */
typedef enum isa_reg_file {
    ISA_FILE_VGPR,      /* one value per lane */
    ISA_FILE_SGPR,      /* one value per wave (uniform) or a per-lane bool held as a lane mask */
    ISA_FILE_CONST      /* a literal: filled when the wave starts, never written, not counted */
} isa_reg_file;

/* A basic block of the lowered program, in layout order (recorded by the lowering). */
#define ISA_NO_BLOCK UINT32_MAX
typedef struct isa_block {
    uint32_t start_pc, end_pc;  /* [start_pc, end_pc) of code */
    uint32_t merge, cont;       /* structured merge / continue target (block index), ISA_NO_BLOCK when none */
    uint32_t cond;              /* register deciding a conditional branch or switch, ISA_NO_REG when none */
    uint32_t *succ;             /* successor block indices (owned by the program) */
    uint32_t nsucc;
    uint8_t is_loop;            /* loop header */
    uint8_t divergent;          /* analysis: a subset of the wave's live lanes may run it */
    uint8_t reconverges;        /* analysis: lanes of a divergent branch meet here (exec restored) */
} isa_block;

/* The register allocation's results and the resources of the kernel. */
typedef struct isa_resources {
    uint32_t vgprs;             /* peak live 32-bit VGPRs, 16-bit values packed two to a register */
    uint32_t vgprs_unpacked;    /* the same with every 16-bit value in a register of its own */
    uint32_t sgprs;             /* peak live 32-bit SGPRs (uniform values; per-lane bools as 64-bit lane masks) */
    uint32_t vgpr_slots, sgpr_slots; /* registers the allocation uses (each holds one value of up to 64 bits) */
    uint32_t lds_bytes;         /* shared memory per workgroup */
    uint32_t virtual_regs;      /* registers before allocation */
    uint32_t uniform_regs;      /* of which uniform */
} isa_resources;

/*
 * The largest shared area per workgroup and private area per invocation the
 * lowering accepts (exit 2 beyond): the simulator allocates them for every
 * resident workgroup and lane, so they bound its memory.  Both are far above
 * any GPU's (an H100 has 228 KiB of shared memory per SM).
 */
#define ISA_MAX_WORKGROUP_BYTES ((uint32_t)64 << 20)
#define ISA_MAX_PRIVATE_BYTES ((uint32_t)256 << 10)

/*
 * The derivative group execution mode (SPV_KHR/NV_compute_shader_derivatives).  Under QUADS the invocations
 * (2m, 2n), (2m+1, 2n), (2m, 2n+1), (2m+1, 2n+1) of LocalInvocationId are lanes 4k..4k+3 of one wave, in that
 * order (the Vulkan specification's quad scope instance); under LINEAR and NONE lane order is
 * LocalInvocationIndex order.  The executor places invocations by it (isa_invocation_at).
 */
typedef enum isa_derivative_group {
    ISA_DERIV_NONE, ISA_DERIV_QUADS, ISA_DERIV_LINEAR
} isa_derivative_group;

/*
 * Where an invocation lies in its workgroup's waves: its lane position (wave = position / wave size, lane =
 * position % wave size) from its LocalInvocationId, and back (isa_invocation_at fills the id and returns its
 * LocalInvocationIndex).  The position is LocalInvocationIndex but under ISA_DERIV_QUADS, where it runs a pair of
 * rows at a time, each pair's 2x2 quads left to right, each quad's invocations (2m, 2n), (2m+1, 2n), (2m, 2n+1),
 * (2m+1, 2n+1) on 4 consecutive lanes (the lowering holds the first two sizes even).
 */
uint32_t isa_lane_position(const uint32_t size[3], uint8_t derivative_group, const uint32_t local[3]);
uint32_t isa_invocation_at(const uint32_t size[3], uint8_t derivative_group, uint32_t position, uint32_t local[3]);

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
    uint8_t derivative_group;  /* isa_derivative_group: how invocations form derivative quads */
    uint32_t workgroup_bytes;  /* shared memory per workgroup (at most ISA_MAX_WORKGROUP_BYTES) */
    uint32_t private_bytes;    /* per-lane memory (at most ISA_MAX_PRIVATE_BYTES) */
    char entry[64];
    char source_path[256];     /* from OpSource/OpString where known */
    /* control flow and the analyses (isa/uniform.c, isa/regalloc.c) */
    isa_block *blocks;
    uint32_t block_count;
    uint8_t *reg_uniform;      /* per register before allocation: 1 = wave-uniform (NULL until analysed) */
    uint8_t *reg_file;         /* per register: isa_reg_file (NULL until allocated) */
    uint32_t *reg_number;      /* per register: its number in its file (v7, s3, or the constant's index) */
    uint16_t *live_vgprs;      /* per instruction: 32-bit VGPRs live across it (NULL until allocated) */
    uint16_t *live_sgprs;      /* per instruction: SGPRs live across it */
    isa_resources res;
    int allocated;             /* registers renamed to physical ones */
} isa_program;

/*
 * Lowers SPIR-V to a new program (free with isa_program_destroy).  `entry`
 * names the GLCompute entry point (NULL: the only one).  On failure returns
 * NULL-program status and writes one message with the SPIR-V word offset
 * ("word 123 (OpFoo): ...") into err.
 */
isa_status isa_lower(const uint32_t *words, size_t word_count, const char *entry,
                     isa_program **out, char *err, size_t err_size);

/*
 * Specialization constants (a case's "specialization", isa/lower_spec.c).  A
 * key is a SpecId in decimal or the constant's OpName; the value is a JSON
 * bool for a bool constant, else a number that must fit the constant's
 * declared integer or float type.  Specialization is a lowering input, not a
 * compile input: the SPIR-V (and its cache entry) is the same for every
 * specialization.
 */
typedef struct isa_spec_value {
    char *key;
    bool is_bool;
    bool flag;       /* is_bool */
    double number;   /* !is_bool */
} isa_spec_value;

/* The length of a descriptor array the kernel declares without one (a runtime array of descriptors: GLSL's
 * `uniform texture2D t[]`, HLSL's `Texture2D t[]`), which Vulkan leaves to the descriptor set layout: the case's,
 * one past the highest element it binds at (set, binding) (case_array_lengths). */
typedef struct isa_array_length {
    uint32_t set, binding, count;
} isa_array_length;

typedef struct isa_spec {
    const isa_spec_value *values;
    int count;
    const isa_array_length *arrays; /* the lengths of runtime arrays of descriptors (may be NULL) */
    int array_count;
} isa_spec;

/* What a Vulkan VkSpecializationInfo needs: one entry per value, in spec's order. */
typedef struct isa_spec_map {
    uint32_t count;
    uint32_t *ids;      /* SpecId */
    uint32_t *offsets;  /* byte offset into data */
    uint32_t *sizes;    /* 4 or 8 (a bool is a 4-byte VkBool32) */
    uint8_t *data;
    size_t data_size;
} isa_spec_map;

/*
 * Resolves spec against the module and writes a copy of the words whose
 * specialization constants carry the given values as their defaults (*out,
 * free it) and, when map is not NULL, the map for VkSpecializationInfo
 * (isa_spec_map_free).  A key the module does not declare, or a value that
 * does not fit the constant's type, is ISA_ERR_INVALID with a message naming
 * the key (the case is bad input).  The lowering and the
 * Vulkan backend's scan both read the specialised words, so both see the
 * same workgroup size.
 */
isa_status isa_specialize(const uint32_t *words, size_t word_count, const isa_spec *spec, uint32_t **out,
                          isa_spec_map *map, char *err, size_t err_size);
void isa_spec_map_free(isa_spec_map *map);

/* isa_lower with specialization constants set and runtime descriptor arrays sized (spec NULL or empty:
 * isa_lower). */
isa_status isa_lower_spec(const uint32_t *words, size_t word_count, const char *entry, const isa_spec *spec,
                          isa_program **out, char *err, size_t err_size);

/* The same, analysed but not allocated: one register per value, as the
 * lowering numbered them (for the allocation verifier and the tests). */
isa_status isa_lower_virtual(const uint32_t *words, size_t word_count, const char *entry, const isa_spec *spec,
                             isa_program **out, char *err, size_t err_size);

void isa_program_destroy(isa_program *p);

/* ---------------------------------------------------------------- analyses */

/*
 * Uniformity analysis (isa/uniform.c): marks every register wave-uniform or
 * per-lane and every block divergent or not (a fixed point), then sets each
 * instruction's class (SALU/VALU, SMEM/VMEM, scalar branch/exec) and flags.
 * Needs the blocks the lowering records.  Returns ISA_OK or ISA_ERR_NOMEM.
 * isa_lower() runs it; it is exported for the tests.
 */
isa_status isa_analyze_uniformity(isa_program *p);

/*
 * Register allocation (isa/regalloc.c): live intervals over the linear
 * (wave) program, a linear scan per register file, then renames every
 * operand to its physical register (the executor runs the renamed program).
 * Fills p->res, reg_file, reg_number, live_vgprs, live_sgprs.  isa_lower()
 * runs it after the uniformity analysis.
 */
isa_status isa_allocate_registers(isa_program *p);

/*
 * Lean wave programs (isa/lean.c): copy propagation, dead moves and scalar
 * loads the entry block already made, before the uniformity analysis; then,
 * after the allocation (which coalesces loop phis with their back-edge
 * values), self-moves, the edge masks nothing needs any more and the mask
 * round trips of branches that cannot change exec (branch_if, jump); and
 * between the analysis and the allocation, loop-invariant scalar arithmetic
 * moves before its loop (isa_lean_hoist).  None changes which lanes any wave
 * operation, memory access or branch runs with.  isa_lower() runs both
 * unless turned off: isa_lean_set_enabled(0), `--no-lean`, or
 * WAVELAB_NO_LEAN=1 (which also turns the allocator's coalescing off).
 */
isa_status isa_lean_before_allocation(isa_program *p);
isa_status isa_lean_after_allocation(isa_program *p);
/* Loop-invariant scalar arithmetic to before its loop (isa/lean_hoist.c): after the uniformity analysis,
 * before the allocation; a no-op when lean is off. */
isa_status isa_lean_hoist(isa_program *p);
void isa_lean_set_enabled(int enabled);
int isa_lean_enabled(void);

/*
 * Checks an allocated program: no two values live at the same time share a
 * physical register, every read register was written on some path.  Returns
 * 1 when it holds; otherwise 0 with a message in err.  Checks the renamed
 * program at every instruction against the original's per-lane liveness
 * (isa_lane_liveness), independently of the allocator's ranges and intervals.
 */
int isa_verify_allocation(const isa_program *p, const isa_program *before, char *err, size_t err_size);

/*
 * Per-lane liveness over the thread CFG (the blocks the lowering records): for
 * each block, the registers live at its entry and exit for some lane, and the
 * definitions that reach its entry and exit (the built-ins reach block 0).
 * Values of different lanes' paths may share a register when every write
 * to it is predicated by exec: VGPRs (isa/regalloc.c), and what
 * isa_verify_allocation checks.  Set k of block b is
 * isa_lane_set(l, b, k), `words` 64-bit words, bit r for register r.
 */
enum { ISA_LANE_LIVE_IN, ISA_LANE_LIVE_OUT, ISA_LANE_REACH_IN, ISA_LANE_REACH_OUT };
typedef struct isa_lane_live {
    uint32_t words, blocks;
    uint64_t *mem;   /* the sets; free() it */
    uint8_t *kills;  /* per instruction: whether its writes end, for every lane that runs it, what its registers
                      * held (all but a phi copy on a conditional edge whose old value other lanes need); free() */
} isa_lane_live;
isa_status isa_lane_liveness(const isa_program *p, isa_lane_live *out);
static inline const uint64_t *isa_lane_set(const isa_lane_live *l, uint32_t b, int k)
{
    return l->mem + (size_t)l->words * (4 * (size_t)b + (size_t)k);
}

/* Registers an instruction reads and writes, as (first, count) spans; returns
 * the number of spans written into reads[]/writes[] (at most 6 / 2). */
typedef struct isa_span { uint32_t first, count; } isa_span;
void isa_inst_regs(const isa_inst *in, isa_span reads[6], int *nreads, isa_span writes[2], int *nwrites);

/* Field f (isa_field) of an instruction; whether an operand of its shape applies to it (its condition on
 * imm2 or the GLSL.std.450 number holds) and is present (applies, and the field holds a register); how many
 * registers it spans there. */
uint32_t isa_inst_field(const isa_inst *in, unsigned f);
uint32_t *isa_inst_field_ref(isa_inst *in, unsigned f); /* the same field, to rewrite (NULL: no such field) */
int isa_operand_applies(const isa_inst *in, const isa_operand *o);
int isa_operand_present(const isa_inst *in, const isa_operand *o);
uint32_t isa_operand_span(const isa_inst *in, const isa_operand *o);

/* The slots an instruction on a slot may reach: `slot` alone, or with a run-time index (desc_index) every element
 * of its descriptor array from `slot` on; 0 when it names no slot. */
int isa_inst_slots(const isa_program *p, const isa_inst *in, uint32_t *first, uint32_t *count);
/* Whether a load of in's slots may be a scalar (SMEM) load when its address is uniform: storage and uniform
 * buffers and push constants the kernel never writes (AMD's rule: a scalar load bypasses the vector cache). */
int isa_scalar_loadable(const isa_program *p, const isa_inst *in);

/* Checks every register, mask, slot, jump target and immediate an instruction's shape names against the
 * program: 0 when it holds, else -1 with the offending pc and a message ("iadd operand b = 9 (span 1)
 * outside 8 registers").  A malformed program (a lowering bug) must never reach the executor. */
int isa_program_validate(const isa_program *p, uint32_t *bad_pc, char *err, size_t err_size);

/* Which of the fields d, a, b, c, e, x (bits 0..5) hold registers that isa_inst_regs reports: among the reads,
 * the writes or both; with `single`, only spans of one register (the rest are masks, or unused). */
unsigned isa_inst_reg_fields(const isa_inst *in, int reads, int writes, int single);

/* 1 when an instruction may read a source after writing part of its
 * destination (cross-lane and memory instructions): sources and destination
 * must then live in different registers. */
int isa_inst_reads_late(const isa_inst *in);

/* A copy of a program (deep; free with isa_program_destroy). */
isa_program *isa_program_clone(const isa_program *p);

/* ---------------------------------------------------------------- occupancy */

/* The fields of a machine preset that occupancy needs. */
typedef struct isa_machine_limits {
    uint32_t vgprs_per_simd_lane;   /* VGPR file per SIMD lane (registers) */
    uint32_t vgpr_granule;          /* VGPRs are allocated in multiples of this */
    uint32_t max_vgprs_per_wave;
    uint32_t sgprs_per_simd;
    uint32_t sgpr_granule;
    uint32_t max_sgprs_per_wave;
    uint32_t lds_bytes_per_cu;
    uint32_t max_waves_per_simd;
    uint32_t simds_per_cu;
    uint32_t max_workgroups_per_cu;
    int packed_fp16;                /* two 16-bit values per VGPR */
} isa_machine_limits;

typedef enum isa_limiter {
    ISA_LIMIT_WAVES, ISA_LIMIT_VGPRS, ISA_LIMIT_SGPRS, ISA_LIMIT_LDS, ISA_LIMIT_WORKGROUPS, ISA_LIMIT_TOO_BIG
} isa_limiter;

typedef struct isa_occupancy {
    uint32_t waves_per_simd;        /* resident waves per SIMD (0: the kernel does not fit) */
    uint32_t by_vgprs, by_sgprs, by_lds, by_workgroups, by_max; /* waves per SIMD each resource allows */
    uint32_t vgprs_allocated, sgprs_allocated; /* rounded up to the granules */
    uint32_t workgroups_per_cu;
    isa_limiter limiter;
} isa_occupancy;

const char *isa_limiter_name(isa_limiter l);

/*
 * Waves per SIMD for a kernel using `vgprs`, `sgprs` and `lds_bytes` per
 * workgroup of `waves_per_group` waves, on machine m:
 *   by_vgprs = floor(vgprs_per_simd_lane / roundup(vgprs, vgpr_granule))
 *   by_sgprs = floor(sgprs_per_simd / roundup(sgprs, sgpr_granule))
 *   workgroups_per_cu = min(floor(min(by_max, by_vgprs, by_sgprs) * simds_per_cu / waves_per_group),
 *                           floor(lds_bytes_per_cu / lds_bytes), max_workgroups_per_cu)
 *   waves    = ceil(workgroups_per_cu * waves_per_group / simds_per_cu): the busiest SIMD's waves
 *   by_lds, by_workgroups = the same ceil of the workgroups each allows; the limiter is the smallest.
 */
isa_occupancy isa_compute_occupancy(const isa_machine_limits *m, uint32_t vgprs, uint32_t sgprs, uint32_t lds_bytes,
                                    uint32_t waves_per_group);

/*
 * RADV's "Subgroups per SIMD" statistic (VK_KHR_pipeline_executable_properties) for the same counts: what
 * Mesa 22.3's radv_get_max_waves (src/amd/vulkan/radv_shader.c) computes from a shader's allocated registers
 * and LDS, in its units.  It differs from isa_compute_occupancy in what it counts, not in the kernel: no
 * workgroups-per-CU cap, LDS shared per SIMD rather than whole workgroups per CU, and from GFX10 on a wave64
 * counts as two (the figure is in wave32 slots).  `m` is the preset (register file counted at `machine_wave`,
 * its default wave), `gfx` the generation as 90 (GFX9), 100 (GFX10), 103 (GFX10.3) or 110 (GFX11):
 *   file64   = vgprs_per_simd_lane * machine_wave / 64      (RADV: num_physical_wave64_vgprs_per_simd)
 *   granule  = gfx >= 103 ? file64 / 64 * (64 / wave) : (wave == 32 ? 8 : 4)
 *   w        = max_waves_per_simd * 64 / wave
 *   w        = min(w, file64 * 64 / wave / roundup(vgprs, granule))
 *   w        = min(w, sgprs_per_simd / roundup(sgprs + 2, 16))                (GFX9 only)
 *   lds_wave = roundup(lds_bytes, gfx >= 103 ? 1024 : 512) / ceil(invocations / wave)
 *   w        = min(w, ceil(lds_bytes_per_cu / simds_per_cu / lds_wave))      (when lds_bytes > 0)
 *   result   = gfx >= 100 ? w * wave / 32 : w
 * `sgprs` is the demand with the ABI's registers (isa_radv_abi_sgprs); on GFX9 ACO's allocation adds VCC's 2
 * (aco_live_var_analysis.cpp, get_extra_sgprs: no flat scratch or XNACK in a compute shader on RADV there).
 */
uint32_t isa_radv_subgroups_per_simd(const isa_machine_limits *m, uint32_t machine_wave, unsigned gfx, uint32_t vgprs,
                                     uint32_t sgprs, uint32_t lds_bytes, uint32_t invocations, uint32_t wave);

/*
 * The SGPRs an allocated program holds once RADV's compute ABI is counted (Mesa 22.3:
 * src/amd/vulkan/radv_shader_args.c declares the arguments, src/amd/compiler/aco_instruction_selection.cpp
 * loads descriptors into SGPRs), wavelab's own count (res.sgprs) left as it is:
 *   at the start: 2 (ring offsets) + 1 per descriptor set used + 1 (push-constant pointer, when used)
 *                 + 3 (workgroup count, when read) + 1 per workgroup-ID component read (directly or through
 *                 the global ID) + 1 (workgroup info, when the subgroup ID or count is read) + 1 (scratch offset)
 *   in the body:  res.sgprs + 2 per descriptor set used (its 32-bit pointer widened to 64 bits)
 *                 + 2 (the push-constant pointer) + the widest descriptor held (8 for a storage image,
 *                 12 for a sampled image with its sampler, 4 for a buffer, texel buffer or sampler)
 *   result = the larger of the two: a demand, set beside ACO's "Pre-Sched SGPRs"; the VCC, FLAT_SCRATCH
 *   and XNACK registers ACO adds to its allocation on GFX9 are isa_radv_subgroups_per_simd's to add.
 */
uint32_t isa_radv_abi_sgprs(const isa_program *p);

/* Prints the program as a listing, one instruction per line. */
void isa_program_print(const isa_program *p, FILE *out);

/* Draws live VGPRs and SGPRs against instruction index as an SVG picture (allocated programs). */
void isa_program_svg(const isa_program *p, FILE *out, const char *title);

/* Formats one instruction (without newline) into buf. */
void isa_inst_format(const isa_program *p, const isa_inst *in, char *buf, size_t buf_size);

#endif
