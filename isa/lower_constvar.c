/*
 * isa/lower_constvar.c — constant tables in Function variables, stored once.
 *
 * GLSL's `const float w[5] = ...; ... w[i]` with a dynamic index, and HLSL's
 * `static const` arrays inside functions, reach the lowering as a Function
 * variable that every inlined call stores the whole constant into before
 * indexing it: article 002's 9×9 filter stored its five weights twice per
 * tap (ten stores for two loads).  A driver puts such a table in constant
 * memory once; the source's semantics allow the same, because every store
 * writes the same value and nothing else writes the variable, so every load
 * that reads a stored value reads that constant.
 *
 * A Function variable is folded when, in the entry function's body:
 *  - every OpStore whose pointer is the variable itself stores one and the
 *    same constant id (an initialiser counts as such a store);
 *  - the variable (or an access chain into it) is otherwise only loaded
 *    from: no store through an access chain, no copy, atomic, call, phi,
 *    select or any other instruction that names it.
 * Folded variables with the same type and constant share one private slot,
 * stored once where the first of them is declared (the top of the entry
 * block, with every live lane active); their own stores emit nothing.
 *
 * What it changes: private-memory instructions and their statistics, never
 * which lanes a wave operation sees (stores to per-lane memory are not wave
 * operations).  A load before any store reads the constant rather than an
 * undefined value (docs/quirks.md).  `--no-lean` turns it off with the other
 * clean-ups, so tools/lean_ab.sh checks it.
 */
#include "isa/lower_internal.h"

/* marks var as not foldable */
#define POISON UINT32_MAX

static void note_store(uint32_t *value, uint32_t var, uint32_t v, const lower *L)
{
    if (value[var] == POISON)
        return;
    bool is_const = v < L->bound && L->ids[v].kind == K_CONST;
    if (!is_const || (value[var] != 0 && value[var] != v))
        value[var] = POISON;
    else
        value[var] = v;
}

void lower_fold_constant_variables(lower *L, uint32_t fbegin, uint32_t fend)
{
    if (!isa_lean_enabled())
        return;
    /* root[p]: the Function variable pointer p is or points into (0: none); value[var]: its one constant */
    uint32_t *root = calloc(L->bound, sizeof *root);
    uint32_t *value = calloc(L->bound, sizeof *value);
    if (!root || !value) {
        free(root);
        free(value);
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return;
    }
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, L->w, fend, fbegin); /* a malformed body: the walk in lower_read_blocks reports it */
    while (spv_next(&it, &in) == SPV_STEP_INST) {
        const uint32_t *o = in.o;
        switch (in.op) {
        case SpvOpVariable:
            if (in.no >= 3 && o[1] < L->bound && o[2] == SpvStorageClassFunction) {
                root[o[1]] = o[1];
                if (in.no >= 4)
                    note_store(value, o[1], o[3], L);
            }
            break;
        case SpvOpAccessChain: case SpvOpInBoundsAccessChain:
            if (in.no >= 3 && o[1] < L->bound && o[2] < L->bound && root[o[2]]) {
                root[o[1]] = root[o[2]];
                for (uint32_t k = 3; k < in.no; k++) /* a pointer as an index: not SPIR-V, but stay safe */
                    if (o[k] < L->bound && root[o[k]])
                        value[root[o[k]]] = POISON;
            }
            break;
        case SpvOpLoad:
            break; /* result, type, pointer, then literal memory operands */
        case SpvOpStore:
            if (in.no >= 2 && o[0] < L->bound && root[o[0]]) {
                uint32_t var = root[o[0]];
                if (o[0] != var)
                    value[var] = POISON; /* a store into part of it */
                else
                    note_store(value, var, o[1], L);
            }
            if (in.no >= 2 && o[1] < L->bound && root[o[1]])
                value[root[o[1]]] = POISON;
            break;
        case SpvOpLine: case SpvOpNoLine:
            break; /* literals only */
        default:
            /* any other instruction naming the variable may write it or let it escape */
            for (uint32_t k = 0; k < in.no; k++)
                if (o[k] < L->bound && root[o[k]])
                    value[root[o[k]]] = POISON;
            break;
        }
    }
    /* the first variable (by id) with a given constant represents the others; root[] is reused as
     * constant id -> representative (a constant is never a pointer, so its entries are still 0) */
    uint32_t *rep_of = root;
    for (uint32_t v = 1; v < L->bound; v++) {
        uint32_t c = value[v];
        if (c == 0 || c == POISON || L->ids[v].kind != K_VAR || L->ids[v].storage != SpvStorageClassFunction)
            continue;
        L->ids[v].fold_value = c;
        L->ids[v].fold_rep = v;
    }
    for (uint32_t v = 1; v < L->bound; v++) {
        if (L->ids[v].fold_rep != v)
            continue;
        uint32_t c = L->ids[v].fold_value, r = rep_of[c];
        if (r && r < v && L->ids[r].type == L->ids[v].type)
            L->ids[v].fold_rep = r; /* the store validated, so the constant fixes the pointee type */
        else if (!r)
            rep_of[c] = v;
    }
    free(root);
    free(value);
}
