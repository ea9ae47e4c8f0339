/*
 * isa/spirv.h — the one reader of SPIR-V words, shared by the lowering
 * (isa/lower*.c) and the backend (backend/spirv_scan.c, reconverge.c).
 *
 * The instruction iterator is the only code that splits a module into
 * instructions: it checks every word count against the module's end, and
 * literal strings are read only up to the end of their instruction.  SPIR-V
 * is untrusted input, so a malformed module is refused with the word offset
 * of the instruction at fault, never read past.
 */
#ifndef WAVELAB_ISA_SPIRV_H
#define WAVELAB_ISA_SPIRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <spirv/unified1/spirv.h>

/* Words before the first instruction: magic, version, generator, id bound, schema. */
#define SPV_HEADER_WORDS 5

/* ------------------------------------------------------------ instructions */

typedef struct spv_inst {
    SpvOp op;
    uint32_t wc;          /* word count, opcode word included */
    size_t word;          /* offset of the opcode word in the module */
    const uint32_t *o;    /* operands: the words after the opcode word */
    uint32_t no;          /* how many (wc - 1) */
} spv_inst;

typedef struct spv_iter {
    const uint32_t *w;
    size_t n;
    size_t at;            /* offset of the next instruction */
} spv_iter;

typedef enum spv_step {
    SPV_STEP_BAD = -1,    /* the word count at it->at is 0 or runs past the end: in->word and in->wc say which */
    SPV_STEP_END = 0,     /* no more instructions */
    SPV_STEP_INST = 1,    /* *in is the next instruction */
} spv_step;

/* Iterates words[start ..); start is SPV_HEADER_WORDS for a whole module or any instruction's offset. */
void spv_iter_init(spv_iter *it, const uint32_t *words, size_t word_count, size_t start);
spv_step spv_next(spv_iter *it, spv_inst *in);

/* The literal string that starts at operand k: NUL-terminated within the instruction, or NULL.  *next (may be
 * NULL) gets the index of the operand after it. */
const char *spv_string(const spv_inst *in, uint32_t k, uint32_t *next);

/* "OpLoad" for the opcodes messages name most often, "opcode N" for the others. */
const char *spv_op_name(SpvOp op);

/* NULL when words[0 .. count) start like a SPIR-V module (long enough, magic number), else why not. */
const char *spv_header_problem(const uint32_t *words, size_t word_count);

/* ------------------------------------------------------------ the module
 *
 * spv_module_read parses a module's declarations once (everything before its
 * first OpFunction; the rest is only checked for word counts) into a table of
 * nodes, one per id that the declarations define, name or decorate, and
 * answers queries from it.  It lowers nothing, and what it allocates is
 * bounded by the module's size whatever its header's id bound says.
 */

#define SPV_NO_OFFSET UINT32_MAX

/* What a type declaration says, with the decorations that lay it out.  The
 * lowering uses it as its type record (isa/lower_internal.h), under these
 * names. */
typedef struct spv_type {
    SpvOp op;             /* OpTypeInt, OpTypeStruct, ...; 0 for an id that is no type */
    uint32_t width;       /* Int/Float: bits */
    bool is_signed;
    uint32_t elem;        /* Vector/Matrix: component/column type; Array/RuntimeArray: element; Pointer: pointee;
                           * Image: sampled type; SampledImage: image type */
    uint32_t count;       /* Vector components, Matrix columns, Array length (0 while the length is unknown) */
    uint32_t length_id;   /* Array: the constant id of its length */
    bool count_known;     /* Array: the length is an OpConstant/OpSpecConstant (count holds its value) */
    uint32_t *members;    /* Struct: member type ids */
    uint32_t *offsets;    /* ... their Offset decorations (SPV_NO_OFFSET = none) */
    uint32_t *mstride;    /* ... their MatrixStride (0 = none) */
    bool *row_major;      /* ... RowMajor */
    bool *col_major;      /* ... ColMajor */
    int32_t *mbuiltin;    /* ... BuiltIn (-1 = none) */
    uint32_t nmembers;
    uint32_t storage;     /* Pointer: storage class */
    uint32_t image_dim, image_depth, image_sampled, image_format;
    bool image_arrayed, image_ms;
    uint32_t array_stride;/* ArrayStride, 0 = none */
    bool block, buffer_block;
} spv_type;

typedef struct spv_node {
    uint32_t id;
    SpvOp op;             /* the defining declaration's opcode, 0 when only named or decorated */
    uint32_t word;        /* ... its word offset (of the first name or decoration when there is none) */
    uint32_t type;        /* result type of a constant, variable or undef */
    spv_type t;           /* types */
    uint64_t value;       /* Constant/SpecConstant: the literal words (low, high), not sign-extended;
                           * True/False and their Spec forms: 1/0 */
    bool has_value;
    bool wide;            /* Constant/SpecConstant: two literal words */
    const uint32_t *parts;/* ConstantComposite/SpecConstantComposite: the constituent ids */
    uint32_t nparts;
    uint32_t storage;     /* Variable: storage class */
    /* decorations */
    int32_t builtin, set, binding;  /* -1 = none */
    uint32_t spec_id;     /* SpecId + 1, 0 = none */
    bool nonwritable, nonreadable;
    bool nonuniform;      /* NonUniform: a value that may differ between lanes where a uniform one is expected */
    const char *name;     /* OpName; OpString's and OpExtInstImport's string */
} spv_node;

typedef struct spv_entry {
    uint32_t model, func;
    const char *name;
    const uint32_t *iface;/* the interface ids */
    uint32_t niface;
    uint32_t word;
} spv_entry;

typedef struct spv_mode {
    uint32_t entry, mode;
    bool is_id;           /* OpExecutionModeId: the arguments are ids */
    const uint32_t *args;
    uint32_t nargs;
    uint32_t word;
} spv_mode;

typedef struct spv_module {
    const uint32_t *w;
    size_t n;
    uint32_t version;     /* header word 1 */
    uint32_t bound;       /* header word 3 */
    size_t functions;     /* word of the first OpFunction (n when there is none) */
    spv_node *nodes;      /* in order of first mention */
    uint32_t node_count;
    uint32_t *index;      /* id -> node index + 1, open addressing */
    uint32_t index_mask;
    spv_entry *entries;
    uint32_t entry_count;
    spv_mode *modes;
    uint32_t mode_count;
    uint32_t *capabilities;
    uint32_t capability_count;
    const char **extensions;
    uint32_t extension_count;
    uint32_t *imports;    /* OpExtInstImport ids (their names: the nodes') */
    uint32_t import_count;
    uint32_t *pool;       /* struct member arrays */
    bool *bool_pool;
    size_t pool_used;
    uint32_t err_word;    /* the failed instruction's word offset */
    struct spv_memo *memo;/* the layout queries' answers so far, SPV_MEMO_KINDS per node (isa/spirv.c): each type's
                           * size and alignment is worked out once, so a query's time is linear in the types */
} spv_module;

/* Reads words[0 .. word_count) (kept, not copied).  On failure returns false with "word N: what" in err
 * (m->err_word = N) and nothing left to free. */
bool spv_module_read(spv_module *m, const uint32_t *words, size_t word_count, char *err, size_t err_size);
void spv_module_free(spv_module *m);

/* The node of an id, NULL when the declarations neither define, name nor decorate it. */
spv_node *spv_node_of(const spv_module *m, uint32_t id);
/* The type an id defines, NULL when it is no type. */
const spv_type *spv_type_of(const spv_module *m, uint32_t id);
/* The entry point of this execution model named `name` (any name when NULL); NULL when none. */
const spv_entry *spv_entry_named(const spv_module *m, uint32_t model, const char *name);

/* How many types a walk into every member, element, column, image and pointee of each struct type reaches,
 * counting a type again on each path to it, summed over the struct types (saturating past `limit`); *worst (may
 * be NULL) gets the struct with the most.  SPIRV-Tools' validator walks struct types this way, without memory, so a
 * module of a few hundred bytes whose structs each hold two of the one before takes it exponential time: the
 * validation refuses a module over SPV_TYPE_PATHS_MAX before running it (isa_validate). */
#define SPV_TYPE_PATHS_MAX ((uint64_t)1 << 20)
uint64_t spv_struct_type_paths(const spv_module *m, uint64_t limit, uint32_t *worst);

/* ------------------------------------------------------------ layouts
 *
 * The one place that knows how a type is laid out in memory.  Explicit
 * layout follows the Offset, ArrayStride and MatrixStride decorations
 * (buffers, push constants, Workgroup blocks); natural layout is the
 * std430-like layout wavelab gives memory without them (Workgroup, Private and
 * Function variables: a vector of 3 aligned as 4, structs and arrays as
 * their largest member).  Sizes are 64-bit and saturate at SPV_SIZE_MAX.
 * The first problem met goes to *diag (may be NULL) and the query goes on
 * with a stand-in value, as the lowering's callers expect.
 */

#define SPV_SIZE_MAX ((uint64_t)1 << 48)

typedef struct spv_diag {
    bool failed;
    bool unsupported;     /* the module is valid, wavelab does not model it (else: the module is invalid) */
    char msg[200];
} spv_diag;

uint32_t spv_scalar_bytes(const spv_module *m, uint32_t tid, spv_diag *diag);
uint64_t spv_natural_size(const spv_module *m, uint32_t tid, spv_diag *diag);
uint32_t spv_natural_align(const spv_module *m, uint32_t tid, spv_diag *diag);
/* Size the layout of tid spans (a runtime array counts zero elements). */
uint64_t spv_layout_size(const spv_module *m, uint32_t tid, bool expl, spv_diag *diag);
/* The bytes of tid's explicit layout up to the end of its last value: spv_layout_size without the padding after
 * the last element of an array or the last column of a matrix (what a descriptor must cover for every value of
 * the block to lie in it: Vulkan bounds only the bytes a kernel accesses). */
uint64_t spv_layout_extent(const spv_module *m, uint32_t tid, spv_diag *diag);
/* Byte stride between the elements of an array, runtime array or matrix (matrix_stride: the member's MatrixStride,
 * 0 when none), or the components of a vector. */
uint64_t spv_elem_stride(const spv_module *m, uint32_t tid, bool expl, uint32_t matrix_stride, spv_diag *diag);
uint64_t spv_member_offset(const spv_module *m, uint32_t tid, uint32_t index, bool expl, spv_diag *diag);
/* The queries above remember each type's answers; a caller that changes a type afterwards (the lowering sets the
 * length of an array sized by a specialization constant) makes them forget. */
void spv_layout_forget(spv_module *m);

/* Where a Workgroup, Private or Function variable whose pointee type is `pointee` goes in memory that `area`
 * bytes of earlier variables fill: *base and *size.  Natural layout, aligned to its natural alignment (at least
 * 4); a Workgroup Block (SPV_KHR_workgroup_memory_explicit_layout) by its decorations, at offset 0, since all
 * of them share one memory.  The simulator's slots and the backend's shared-memory bound both come from it. */
void spv_place_variable(const spv_module *m, uint32_t pointee, bool workgroup, uint64_t area, uint64_t *base,
                        uint64_t *size, spv_diag *diag);

#endif
