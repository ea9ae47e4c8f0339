/*
 * isa/lower_internal.h — private to the lowering (isa/lower*.c): the per-id
 * records, the block and lowering state, CHECK_ID, and the functions the
 * parts share.  Everything else stays static in its part.  Not installed,
 * not included outside isa/lower*.c.
 */
#ifndef WAVELAB_ISA_LOWER_INTERNAL_H
#define WAVELAB_ISA_LOWER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.h>

#include "isa/isa.h"
#include "isa/spirv.h"

/* ------------------------------------------------------------------ records */

/* K_IMAGE: an image, sampler or sampled-image value (slot, sampler_slot); K_TEXEL_PTR: OpImageTexelPointer
 * (slot, coordinates in off_reg, their count in off_const), used only by image atomics; K_DESC_ARRAY: a
 * descriptor array variable (slot: its element 0's; only an access chain's first index makes a pointer of it);
 * K_PTR_VAR: a Function or Private variable that holds a pointer (variable pointers: what inlining leaves of a
 * function that returns one), its value in registers from reg (isa/lower_varptr.c) */
enum id_kind { K_NONE, K_TYPE, K_CONST, K_VAR, K_VALUE, K_PTR, K_IMAGE, K_LABEL, K_FUNC, K_EXTINST, K_STRING, K_UNDEF,
               K_TEXEL_PTR, K_DESC_ARRAY, K_PTR_VAR };

/* A type: the module reader's record (isa/spirv.h), with its layout decorations. */
typedef spv_type type_info;

/* A run-time index into a descriptor array: how it picks the element (isa_desc_index) and its register; what
 * every instruction through the pointer or image carries as isa_inst.desc_index and x. */
typedef struct lower_desc {
    uint8_t index;
    uint32_t reg;
} lower_desc;

typedef struct id_info {
    uint8_t kind;
    uint32_t type;        /* result type id */
    uint32_t word;        /* word offset of the defining instruction */
    uint32_t reg;         /* K_VALUE/K_CONST: first register */
    /* pointers: where they point */
    int32_t slot;         /* slot index, -1: register-backed (built-in input) */
    int32_t sampler_slot; /* K_IMAGE: the slot of its sampler (a combined image sampler's own slot), -1 none */
    uint32_t off_reg;     /* dynamic byte offset register (ISA_NO_REG = none) */
    lower_desc desc;      /* K_PTR/K_IMAGE/K_TEXEL_PTR into a descriptor array by a run-time index (slot is then
                           * the array's element 0); an id made from another takes it whole */
    lower_desc sampler_desc; /* K_IMAGE of OpSampledImage: its sampler picked from an array at run time
                              * (sampler_slot is then that array's element 0) */
    int64_t off_const;    /* constant byte offset, or register offset for register-backed */
    /* constants */
    uint64_t cval;        /* scalar constant bits */
    bool cknown;
    bool has_reg;         /* K_CONST/K_UNDEF: registers already made */
    uint32_t mstride;     /* K_PTR to a matrix (or an array of them) in a buffer: its MatrixStride */
    bool row_major;       /* ... and whether it is RowMajor */
    uint32_t vstride;     /* K_PTR to a vector that is a row-major matrix's column: its component stride */
    /* decorations */
    int32_t builtin;      /* SpvBuiltIn or -1 */
    int32_t set, binding;
    bool nonwritable;
    bool nonuniform;      /* decorated NonUniform */
    uint32_t spec_id;
    const char *name;
    type_info *t;         /* K_TYPE: the reader's record */
    uint32_t storage;     /* K_VAR: storage class */
    uint32_t fold_rep;    /* K_VAR (Function) holding one constant table: the variable whose slot it shares
                           * (itself for the representative), 0 when not folded (isa/lower_constvar.c) */
    uint32_t fold_value;  /* ... and the constant every store writes */
} id_info;

typedef struct block {
    uint32_t label;
    uint32_t word;            /* word of its OpLabel */
    uint32_t first, end;      /* word range of the block's instructions (after OpLabel) */
    uint32_t merge, cont;     /* structured merge/continue targets (0 = none) */
    bool is_loop;
    uint32_t term;            /* word of the terminator */
    uint32_t *succ;
    uint32_t nsucc;
    uint32_t mask;            /* mask register of lanes waiting to run it */
    int order;                /* position in the layout, -1 when unreachable */
    uint32_t start_pc, body_pc;
    bool visited;
    bool fallthrough;         /* runs with its only predecessor's lanes, which is laid out just before it:
                               * no mask, no BLOCK, no edge instruction */
} block;

/* A pointer's candidate variables under variable pointers (isa/lower_varptr.c). */
typedef struct lower_vptr lower_vptr;

typedef struct lower {
    const isa_spec *spec;     /* the case's: runtime descriptor arrays' lengths (NULL: none) */
    const uint32_t *w;
    size_t n;
    spv_module mod;           /* the module as the reader read it: types, decorations, entry points, modes */
    uint32_t bound;
    id_info *ids;
    char *err;
    size_t err_size;
    bool failed;
    isa_status status;
    isa_program *p;
    size_t code_cap, const_cap, slot_cap, bi_cap;
    uint32_t line;
    uint32_t cur_word;
    uint32_t glsl_ext;        /* id of the GLSL.std.450 import */
    uint32_t entry_func;
    block *blocks;
    uint32_t nblocks;
    uint32_t *block_of_label; /* label id -> block index + 1 */
    uint32_t *layout;         /* block indices in emission order */
    uint32_t nlayout;
    uint32_t const_one_reg;   /* a register holding 1 (bool true), ISA_NO_REG until needed */
    uint32_t builtin_reg[ISA_BI_COUNT];
    bool workgroup_explicit;  /* the Workgroup variables are Blocks laid out by their decorations, sharing one
                               * memory (SPV_KHR_workgroup_memory_explicit_layout: all of them or none) */
    lower_vptr *vp;           /* per id, the variables a pointer may point into; NULL when the entry function makes
                               * no pointer by OpSelect or OpPhi (isa/lower_varptr.c) */
    bool vp_planned;          /* lower_plan_variable_pointers ran (variables holding pointers wait for it) */
} lower;

/* An operand id outside the module's bound fails the lowering and returns
 * from the calling (void) function. */
#define CHECK_ID(L, id)                                                                         \
    do {                                                                                        \
        if ((id) == 0 || (id) >= (L)->bound) {                                                  \
            lower_fail(L, ISA_ERR_INVALID, "id %%%u out of range (bound %u)", (id), (L)->bound); \
            return;                                                                             \
        }                                                                                       \
    } while (0)

/* ---- emission helpers (lower.c) */

/* The first failure wins: it sets L->failed and the message (with word offset, opcode, source line). */
void lower_fail(lower *L, isa_status st, const char *fmt, ...);
static inline const char *lower_op_name(SpvOp op) { return spv_op_name(op); }
void *lower_grow(void *ptr, size_t *cap, size_t need, size_t elem);
isa_inst *lower_emit(lower *L, isa_op op, isa_type type);
isa_inst *lower_emit_op(lower *L, isa_op op, isa_type type, uint32_t d, uint32_t a, uint32_t b);
uint32_t lower_new_regs(lower *L, uint32_t n);
uint32_t lower_new_mask(lower *L);
uint32_t lower_const_reg(lower *L, uint64_t bits);

/* ---- module, types, layouts, constants, values, slots (lower_module.c) */

type_info *lower_type(lower *L, uint32_t id);
isa_type lower_scalar_isa_type(lower *L, uint32_t tid);
uint32_t lower_component_type(lower *L, uint32_t tid);
isa_type lower_with_sign(isa_type t, bool is_signed);
uint32_t lower_reg_count_of(lower *L, uint32_t tid);
uint32_t lower_reg_offset_of(lower *L, uint32_t tid, uint32_t index, uint32_t *member_type);
uint32_t lower_scalar_bytes(lower *L, uint32_t tid);
uint32_t lower_elem_stride(lower *L, uint32_t tid, bool expl, uint32_t matrix_stride);
uint32_t lower_member_offset(lower *L, uint32_t tid, uint32_t index, bool expl);
bool lower_parse_module(lower *L);
void lower_const_bits(lower *L, uint32_t id, uint64_t *out, uint32_t n);
uint32_t lower_val(lower *L, uint32_t id);
uint32_t lower_const_u32(lower *L, uint32_t id);
uint32_t lower_def_value(lower *L, uint32_t id, uint32_t type, uint32_t nregs);
void lower_alias_value(lower *L, uint32_t id, uint32_t type, uint32_t reg);
void lower_make_variables(lower *L);
/* Appends a slot to the program: its index, -1 after a failure. */
int32_t lower_add_slot(lower *L, const isa_slot *s);

/* ---- constant tables in Function variables (lower_constvar.c) */

/* Marks the entry function's Function variables that only ever hold one constant (fold_rep, fold_value). */
void lower_fold_constant_variables(lower *L, uint32_t fbegin, uint32_t fend);

/* ---- control flow (lower_cfg.c) */

bool lower_read_blocks(lower *L, uint32_t fbegin, uint32_t fend);
bool lower_function(lower *L);

/* ---- instruction selection (lower_ops.c) */

/* o: the instruction's operands (after the opcode word), no of them. */
void lower_inst(lower *L, SpvOp op, const uint32_t *o, uint32_t no);
void lower_unary(lower *L, isa_op op, isa_type ty, uint32_t d, uint32_t a, uint32_t n);
bool lower_coord_derivatives(lower *L, SpvOp op, uint32_t a, uint32_t n, uint32_t *dx, uint32_t *dy);
void lower_binary(lower *L, isa_op op, isa_type ty, uint32_t d, uint32_t a, uint32_t b, uint32_t n, bool b_scalar);

/* ---- memory access (lower_mem.c) */

void lower_init_private_variables(lower *L);
void lower_mem_inst(lower *L, SpvOp op, const uint32_t *o, uint32_t no);
/* Gives the instructions lowered since code index `first` on p's slot p's run-time descriptor index, if it has
 * one (isa_inst.x, desc_index, from p->desc); a write through it marks every element written. */
void lower_index_slots(lower *L, uint32_t first, const id_info *p);
void lower_store_through(lower *L, uint32_t ptr, uint32_t tid, uint32_t reg);
/* The bytes from one pointee to the next for OpPtrAccessChain and OpPtrDiff on a pointer of type ptr_type into
 * `slot`: the pointer type's ArrayStride where the variable is explicitly laid out, else the pointee's size. */
uint32_t lower_pointee_stride(lower *L, uint32_t ptr_type, int32_t slot);

/* ---- images other than texel buffers (lower_image.c) */

/* A UniformConstant variable of image, sampled-image or sampler type: fills *s (space, dimensionality, format,
 * texel type) and returns true; false for texel buffers (and anything else) it leaves to the caller, or when it
 * failed the lowering (arrays of images, multisampled or Rect/SubpassData images). */
bool lower_image_slot(lower *L, uint32_t var, uint32_t pointee, isa_slot *s);
/* The image instructions (OpSampledImage .. OpImageQuerySamples, OpImageTexelPointer); texel buffers go on to
 * lower_mem_inst. */
void lower_image_inst(lower *L, SpvOp op, const uint32_t *o, uint32_t no);
/* An atomic whose pointer is an OpImageTexelPointer: ty/red/value/cmp as lower_mem_inst worked them out. */
void lower_image_atomic(lower *L, const id_info *ptr, uint32_t result_type, uint32_t result, isa_type ty,
                        isa_reduce_op red, uint32_t value, uint32_t cmp);

/* ---- variable pointers (lower_varptr.c) */

/* Before the body: the variables every pointer of the function [fbegin, fend) may point into, and a run of
 * aliases for each set of several (nothing when no OpSelect or OpPhi makes a pointer). */
void lower_plan_variable_pointers(lower *L, uint32_t fbegin, uint32_t fend);
/* The registers of pointer id's value (or of what variable id holds): 2 when it may point into several variables
 * (or be null), the run's element then the byte offset; 1, the byte offset, when it points into one. */
uint32_t lower_varptr_regs(lower *L, uint32_t id);
/* The first of them, for pointer id once defined (lower_varptr_define). */
uint32_t lower_varptr_first_reg(lower *L, uint32_t id);
/* Pointer id defined by registers from reg on (the element and the offset, or the offset alone). */
void lower_varptr_define(lower *L, uint32_t id, uint32_t type, uint32_t reg);
/* Pointer ptr's value as pointer target holds it (a phi's incoming value, a select's side): registers. */
uint32_t lower_varptr_value(lower *L, uint32_t ptr, uint32_t target);
void lower_varptr_select(lower *L, const uint32_t *o);
/* A Function or Private variable holding a pointer: registers for its value (K_PTR_VAR). */
void lower_varptr_variable(lower *L, uint32_t id);
/* OpLoad from, OpStore to such a variable. */
void lower_varptr_load(lower *L, uint32_t rtype, uint32_t rid, uint32_t var);
void lower_varptr_store(lower *L, uint32_t var, uint32_t value);
/* OpPtrEqual, OpPtrNotEqual, OpPtrDiff. */
void lower_pointer_compare(lower *L, SpvOp op, const uint32_t *o);
/* After the body: a variable written through an alias is written (and the other way). */
void lower_finish_variable_pointers(lower *L);

/* ---- subgroup operations and barriers (lower_wave.c) */

void lower_group(lower *L, SpvOp op, const uint32_t *o, uint32_t no);
void lower_control_barrier(lower *L, const uint32_t *o);

#endif
