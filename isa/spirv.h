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

/* NULL when words[0 .. count) start like a SPIR-V module (long enough, magic number), else why not. */
const char *spv_header_problem(const uint32_t *words, size_t word_count);

#endif
