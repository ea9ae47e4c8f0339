/*
 * isa/lower.c — SPIR-V (as glslang emits it for compute) to the wave ISA:
 * the entry points (isa_lower, isa_lower_virtual), the driver that runs the
 * parts in order, and the emission helpers every part shares (errors, new
 * instructions, registers, constant registers).
 *
 * One pass reads the module into per-id records (types, constants,
 * variables, decorations, names); a second walks the entry function's blocks
 * in a structured order and emits fixed-size isa_inst records:
 *
 *  - every SPIR-V value gets registers: a scalar one register, a vector or
 *    composite one register per flattened component;
 *  - pointers are resolved at lowering time to (slot, offset register,
 *    constant offset): logical addressing never lets a pointer escape;
 *  - structured control flow becomes exec masks.  Each block owns a mask
 *    register of the lanes waiting to run it; a branch ORs the lanes taking
 *    each edge into the target's mask; a block starts with BLOCK (exec =
 *    its mask, skip when empty).  Blocks are laid out so that every edge but
 *    a loop back edge goes forward and every loop is contiguous, ending in a
 *    LOOP instruction that runs the header again while lanes wait there.
 *    This gives exactly the reconvergence of structured control flow: lanes
 *    meet again at merge blocks, lanes that left a loop wait at its merge.
 *  - OpPhi becomes masked copies (MOVM) on each incoming edge.
 *
 * The parts, behind isa/lower_internal.h:
 *   lower_module.c  ids, names, decorations, types, layouts, constants, values, slots
 *   lower_cfg.c     blocks, structured layout, exec-mask edges, phis, the function walk
 *   lower_ops.c     instruction dispatch; composites, arithmetic, conversions, matrices, GLSL.std.450
 *   lower_mem.c     loads, stores, access chains, texel buffers, atomics
 *   lower_constvar.c  Function variables that only hold one constant table: one slot, stored once
 *   lower_wave.c    subgroup (wave) operations and barriers
 *
 * Errors name the SPIR-V word offset and opcode.
 */
#include <stdarg.h>

#include "isa/lower_internal.h"

void lower_fail(lower *L, isa_status st, const char *fmt, ...)
{
    if (L->failed)
        return;
    L->failed = true;
    L->status = st;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (L->err && L->err_size) {
        char where[64] = "";
        if (L->line)
            snprintf(where, sizeof where, ", source line %u", L->line);
        if (L->cur_word && L->cur_word < L->n)
            snprintf(L->err, L->err_size, "SPIR-V word %u (%s%s): %s", L->cur_word,
                     lower_op_name((SpvOp)(L->w[L->cur_word] & 0xffff)), where, msg);
        else
            snprintf(L->err, L->err_size, "%s", msg);
    }
}
/* ------------------------------------------------------------------ helpers */

void *lower_grow(void *ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return ptr;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *q = realloc(ptr, nc * elem);
    if (!q)
        return NULL;
    memset((char *)q + *cap * elem, 0, (nc - *cap) * elem);
    *cap = nc;
    return q;
}

isa_inst *lower_emit(lower *L, isa_op op, isa_type type)
{
    isa_program *p = L->p;
    isa_inst *c = lower_grow(p->code, &L->code_cap, p->code_count + 1, sizeof *c);
    if (!c) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        static isa_inst sink;
        return &sink;
    }
    p->code = c;
    isa_inst *in = &c[p->code_count++];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)op;
    in->type = (uint8_t)type;
    in->cls = (uint8_t)isa_op_class(op);
    in->d = in->a = in->b = in->c = in->e = in->x = ISA_NO_REG;
    in->line = L->line;
    in->spirv_word = L->cur_word;
    return in;
}

/* An instruction with destination d and sources a, b (ISA_NO_REG where unused). */
isa_inst *lower_emit_op(lower *L, isa_op op, isa_type type, uint32_t d, uint32_t a, uint32_t b)
{
    isa_inst *in = lower_emit(L, op, type);
    in->d = d;
    in->a = a;
    in->b = b;
    return in;
}

uint32_t lower_new_regs(lower *L, uint32_t n)
{
    uint32_t r = L->p->reg_count;
    L->p->reg_count += n;
    return r;
}

uint32_t lower_new_mask(lower *L) { return L->p->mask_count++; }

uint32_t lower_const_reg(lower *L, uint64_t bits)
{
    isa_program *p = L->p;
    for (uint32_t i = 0; i < p->const_count; i++)
        if (p->consts[i].bits == bits)
            return p->consts[i].reg;
    isa_const_reg *c = lower_grow(p->consts, &L->const_cap, p->const_count + 1, sizeof *c);
    if (!c) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return 0;
    }
    p->consts = c;
    uint32_t r = lower_new_regs(L, 1);
    c[p->const_count].reg = r;
    c[p->const_count].bits = bits;
    p->const_count++;
    return r;
}

/* ------------------------------------------------------------ entry */

/* The entry point's derivative group mode, held to the sizes the Vulkan specification requires of it (the
 * first two dimensions even for quads, a multiple of four invocations for linear: no quad may lack an
 * invocation). */
static void read_derivative_group(lower *L, uint32_t fid)
{
    isa_program *p = L->p;
    for (uint32_t k = 0; k < L->mod.mode_count; k++) {
        const spv_mode *md = &L->mod.modes[k];
        if (md->is_id || (fid && md->entry != fid))
            continue;
        if (md->mode == SpvExecutionModeDerivativeGroupQuadsNV)
            p->derivative_group = ISA_DERIV_QUADS;
        else if (md->mode == SpvExecutionModeDerivativeGroupLinearNV)
            p->derivative_group = ISA_DERIV_LINEAR;
        else
            continue;
        L->cur_word = md->word;
    }
    const uint32_t *ls = p->local_size;
    if (p->derivative_group == ISA_DERIV_QUADS && (ls[0] % 2 || ls[1] % 2))
        lower_fail(L, ISA_ERR_INVALID, "DerivativeGroupQuads with workgroup size %ux%ux%u: its first two "
                   "dimensions must be even (every quad needs its four invocations)", ls[0], ls[1], ls[2]);
    else if (p->derivative_group == ISA_DERIV_LINEAR && (ls[0] * ls[1] * ls[2]) % 4)
        lower_fail(L, ISA_ERR_INVALID, "DerivativeGroupLinear with workgroup size %ux%ux%u: the invocations must "
                   "be a multiple of 4 (every quad needs its four invocations)", ls[0], ls[1], ls[2]);
}

static isa_status lower_program(const uint32_t *words, size_t word_count, const char *entry, const isa_spec *spec,
                                isa_program **out, char *err, size_t err_size, bool allocate);

isa_status isa_lower(const uint32_t *words, size_t word_count, const char *entry, isa_program **out, char *err,
                     size_t err_size)
{
    return lower_program(words, word_count, entry, NULL, out, err, err_size, true);
}

/* Specialises the words when spec sets values, then lowers them with spec's array lengths. */
static isa_status lower_specialised(const uint32_t *words, size_t word_count, const char *entry, const isa_spec *spec,
                                    isa_program **out, char *err, size_t err_size, bool allocate)
{
    if (!spec || spec->count == 0)
        return lower_program(words, word_count, entry, spec, out, err, err_size, allocate);
    *out = NULL;
    uint32_t *specialised = NULL;
    isa_status st = isa_specialize(words, word_count, spec, &specialised, NULL, err, err_size);
    if (st != ISA_OK)
        return st;
    st = lower_program(specialised, word_count, entry, spec, out, err, err_size, allocate);
    free(specialised);
    return st;
}

isa_status isa_lower_spec(const uint32_t *words, size_t word_count, const char *entry, const isa_spec *spec,
                          isa_program **out, char *err, size_t err_size)
{
    return lower_specialised(words, word_count, entry, spec, out, err, err_size, true);
}

isa_status isa_lower_virtual(const uint32_t *words, size_t word_count, const char *entry, const isa_spec *spec,
                             isa_program **out, char *err, size_t err_size)
{
    return lower_specialised(words, word_count, entry, spec, out, err, err_size, false);
}

/* The GLCompute entry point the caller names: any when `entry` is NULL or empty, the first when it is "main" and
 * no entry point has that name.  0 when none; *entries counts the GLCompute entry points. */
static uint32_t pick_entry(lower *L, const char *entry, int *entries)
{
    uint32_t fid = 0;
    for (uint32_t k = 0; k < L->mod.entry_count; k++) {
        const spv_entry *e = &L->mod.entries[k];
        if (e->model != SpvExecutionModelGLCompute)
            continue;
        (*entries)++;
        if (!entry || !*entry || strcmp(entry, e->name) == 0 || (*entries == 1 && strcmp(entry, "main") == 0)) {
            if (!fid || (entry && strcmp(entry, e->name) == 0)) {
                fid = e->func;
                snprintf(L->p->entry, sizeof L->p->entry, "%s", e->name);
            }
        }
    }
    return fid;
}

/* LocalSize, or LocalSizeId (SPIR-V 1.2+: the same three numbers as constant ids; glslang writes it from SPIR-V
 * 1.6 on), of the entry point. */
static void read_local_size(lower *L, uint32_t fid)
{
    uint32_t *ls = L->p->local_size;
    for (uint32_t k = 0; k < L->mod.mode_count; k++) {
        const spv_mode *md = &L->mod.modes[k];
        if (md->nargs < 3 || (fid && md->entry != fid))
            continue;
        L->cur_word = md->word;
        if (!md->is_id && md->mode == SpvExecutionModeLocalSize) {
            for (int d = 0; d < 3; d++)
                ls[d] = md->args[d];
        } else if (md->is_id && md->mode == SpvExecutionModeLocalSizeId) {
            for (int d = 0; d < 3; d++) {
                uint64_t b = 1;
                if (md->args[d] < L->bound)
                    lower_const_bits(L, md->args[d], &b, 1);
                ls[d] = (uint32_t)b;
            }
        }
    }
}

static isa_status lower_program(const uint32_t *words, size_t word_count, const char *entry, const isa_spec *spec,
                                isa_program **out, char *err, size_t err_size, bool allocate)
{
    lower LL, *L = &LL;
    memset(L, 0, sizeof *L);
    L->spec = spec;
    L->w = words;
    L->n = word_count;
    L->err = err;
    L->err_size = err_size;
    if (err && err_size)
        err[0] = 0;
    *out = NULL;
    L->p = calloc(1, sizeof *L->p);
    if (!L->p)
        return ISA_ERR_NOMEM;
    isa_program *p = L->p;
    p->local_size[0] = p->local_size[1] = p->local_size[2] = 1;
    if (!lower_parse_module(L))
        goto done;
    /* entry point */
    int entries = 0;
    uint32_t fid = pick_entry(L, entry, &entries);
    read_local_size(L, fid);
    L->cur_word = 0;
    if (!fid) {
        lower_fail(L, ISA_ERR_INVALID, entries ? "no GLCompute entry point named \"%s\"" : "no GLCompute entry point%s",
             entry ? entry : "");
        goto done;
    }
    /* a constant decorated WorkgroupSize overrides LocalSize */
    for (uint32_t id = 1; id < L->bound; id++) {
        if (L->ids[id].kind == K_CONST && L->ids[id].builtin == SpvBuiltInWorkgroupSize) {
            uint64_t b[3] = {1, 1, 1};
            L->cur_word = L->ids[id].word;
            lower_const_bits(L, id, b, 3);
            for (int k = 0; k < 3; k++)
                p->local_size[k] = (uint32_t)b[k];
        }
    }
    if (L->failed)
        goto done;
    uint64_t inv = (uint64_t)p->local_size[0] * p->local_size[1] * p->local_size[2];
    if (inv == 0 || inv > 1024) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "workgroup size %ux%ux%u: wavelab models 1..1024 invocations per workgroup",
             p->local_size[0], p->local_size[1], p->local_size[2]);
        goto done;
    }
    read_derivative_group(L, fid);
    if (L->failed)
        goto done;
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, words, L->n, SPV_HEADER_WORDS); /* the reader checked every word count */
    while (spv_next(&it, &in) == SPV_STEP_INST)
        if (in.op == SpvOpLine && in.no >= 1 && in.o[0] < L->bound && L->ids[in.o[0]].kind == K_STRING &&
            !p->source_path[0])
            snprintf(p->source_path, sizeof p->source_path, "%s", L->ids[in.o[0]].name);
    L->block_of_label = calloc(L->bound, sizeof *L->block_of_label);
    if (!L->block_of_label) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        goto done;
    }
    lower_make_variables(L);
    if (L->failed)
        goto done;
    /* find the entry function's body */
    uint32_t fbegin = 0, fend = 0;
    spv_iter_init(&it, words, L->n, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST) {
        if (in.op == SpvOpFunction && in.no >= 4 && in.o[1] == fid)
            fbegin = (uint32_t)(in.word + in.wc);
        else if (in.op == SpvOpFunctionEnd && fbegin && !fend)
            fend = (uint32_t)in.word;
    }
    if (!fbegin || !fend) {
        lower_fail(L, ISA_ERR_INVALID, "entry function %%%u has no body", fid);
        goto done;
    }
    /* Function-storage variables of the entry function: per-lane memory */
    spv_iter_init(&it, words, fend, fbegin);
    while (spv_next(&it, &in) == SPV_STEP_INST) {
        if (in.op == SpvOpVariable && in.no >= 3) {
            uint32_t id = in.o[1];
            if (id < L->bound) {
                L->ids[id].kind = K_VAR;
                L->ids[id].type = in.o[0];
                L->ids[id].storage = in.o[2];
                L->ids[id].word = (uint32_t)in.word;
            }
        }
    }
    lower_fold_constant_variables(L, fbegin, fend);
    lower_plan_variable_pointers(L, fbegin, fend); /* the module's variables have their slots: the first call */
    if (!L->failed)
        lower_make_variables(L);
    if (L->failed)
        goto done;
    /* initialisers of Function variables are stored at the top of the entry block */
    if (!lower_read_blocks(L, fbegin, fend))
        goto done;
    if (L->nblocks == 0) {
        lower_fail(L, ISA_ERR_INVALID, "entry function has no blocks");
        goto done;
    }
    lower_function(L);
    if (!L->failed)
        lower_finish_variable_pointers(L);
done:
    free(L->vp);
    spv_module_free(&L->mod);
    for (uint32_t k = 0; k < L->nblocks; k++)
        free(L->blocks[k].succ);
    free(L->blocks);
    free(L->layout);
    free(L->block_of_label);
    free(L->ids);
    if (L->failed) {
        isa_program_destroy(p);
        return L->status;
    }
    /* scalar/vector classes, then physical registers: the executor runs the allocated program */
    isa_status st = isa_lean_before_allocation(p);
    if (st == ISA_OK)
        st = isa_analyze_uniformity(p);
    if (st == ISA_OK)
        st = isa_lean_hoist(p);
    if (st == ISA_OK && allocate)
        st = isa_allocate_registers(p);
    if (st == ISA_OK && allocate)
        st = isa_lean_after_allocation(p);
    if (st != ISA_OK) {
        if (err && err_size)
            snprintf(err, err_size, "register allocation: %s", isa_status_str(st));
        isa_program_destroy(p);
        return st;
    }
    *out = p;
    return ISA_OK;
}
