/*
 * isa/spirv.c — the SPIR-V instruction iterator and module reader (isa/spirv.h).
 */
#include "isa/spirv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A layout query's answer for one type, kept so that each type is laid out once: a struct that holds two of
 * the one before would otherwise take time exponential in their nesting.  A query that met a problem keeps
 * its message, which every later asker gets as the first did. */
typedef enum spv_memo_kind { MEMO_NATURAL_SIZE, MEMO_NATURAL_ALIGN, MEMO_EXPLICIT_SIZE, SPV_MEMO_KINDS } spv_memo_kind;

struct spv_memo {
    uint64_t value;
    spv_diag *fail;       /* the problem the query met, NULL when none */
    bool known;
};


void spv_iter_init(spv_iter *it, const uint32_t *words, size_t word_count, size_t start)
{
    it->w = words;
    it->n = words ? word_count : 0;
    it->at = start;
}

spv_step spv_next(spv_iter *it, spv_inst *in)
{
    if (it->at >= it->n)
        return SPV_STEP_END;
    uint32_t wc = it->w[it->at] >> 16;
    in->op = (SpvOp)(it->w[it->at] & 0xffff);
    in->wc = wc;
    in->word = it->at;
    if (wc == 0 || wc > it->n - it->at) {
        in->o = NULL;
        in->no = 0;
        return SPV_STEP_BAD;
    }
    in->o = it->w + it->at + 1;
    in->no = wc - 1;
    it->at += wc;
    return SPV_STEP_INST;
}

const char *spv_string(const spv_inst *in, uint32_t k, uint32_t *next)
{
    if (k >= in->no)
        return NULL;
    const char *s = (const char *)(in->o + k);
    size_t avail = (size_t)(in->no - k) * 4;
    const char *nul = memchr(s, 0, avail);
    if (!nul)
        return NULL;
    if (next)
        *next = k + (uint32_t)((size_t)(nul - s) / 4) + 1;
    return s;
}

const char *spv_header_problem(const uint32_t *words, size_t word_count)
{
    if (!words || word_count < SPV_HEADER_WORDS)
        return "too short to be a SPIR-V module";
    if (words[0] != SpvMagicNumber)
        return "not SPIR-V (bad magic number)";
    return NULL;
}

const char *spv_op_name(SpvOp op)
{
    /* Names of the opcodes met most often in messages; the rest by number. */
    switch (op) {
#define N(x) case SpvOp##x: return "Op" #x;
        N(Load) N(Store) N(AccessChain) N(InBoundsAccessChain) N(PtrAccessChain) N(FunctionCall) N(Phi)
        N(Branch) N(BranchConditional) N(Switch) N(Return) N(ReturnValue) N(LoopMerge) N(SelectionMerge)
        N(Variable) N(TypeStruct) N(TypePointer) N(TypeImage) N(ExtInst) N(Bitcast) N(ImageRead) N(ImageWrite)
        N(ImageFetch) N(ControlBarrier) N(MemoryBarrier) N(CopyMemory) N(SpecConstantOp) N(Function)
        N(Label) N(EntryPoint) N(ExecutionMode) N(Decorate) N(MemberDecorate) N(Constant) N(ConstantComposite)
        N(TypeMatrix) N(MatrixTimesVector) N(MatrixTimesMatrix) N(VectorTimesMatrix) N(OuterProduct)
        N(Transpose) N(MatrixTimesScalar) N(Kill) N(Unreachable) N(ImageQuerySize) N(ArrayLength)
        /* the image instructions the lowering refuses, so that the refusal names them */
        N(ImageSampleImplicitLod) N(ImageSampleDrefImplicitLod) N(ImageSampleProjImplicitLod)
        N(ImageSampleProjExplicitLod) N(ImageSampleProjDrefImplicitLod) N(ImageSampleProjDrefExplicitLod)
        N(ImageQueryLod) N(ImageQuerySamples) N(ImageSparseSampleExplicitLod) N(ImageSparseFetch)
        N(ImageSparseGather) N(ImageSparseRead)
        /* derivatives, which need a derivative group execution mode */
        N(DPdx) N(DPdy) N(Fwidth) N(DPdxFine) N(DPdyFine) N(FwidthFine) N(DPdxCoarse) N(DPdyCoarse) N(FwidthCoarse)
#undef N
    default: {
        static _Thread_local char buf[32];
        snprintf(buf, sizeof buf, "opcode %u", (unsigned)op);
        return buf;
    }
    }
}

/* ------------------------------------------------------------ the module */

#define MAX_ID_BOUND (1u << 22)

static bool read_fail(spv_module *m, char *err, size_t err_size, size_t word, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static bool read_fail(spv_module *m, char *err, size_t err_size, size_t word, const char *fmt, ...)
{
    m->err_word = (uint32_t)word;
    if (err && err_size) {
        int k = snprintf(err, err_size, "word %zu: ", word);
        if (k >= 0 && (size_t)k < err_size) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + k, err_size - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    return false;
}

static uint32_t id_hash(uint32_t id) { return id * 0x9e3779b1u; }

spv_node *spv_node_of(const spv_module *m, uint32_t id)
{
    if (!m->index || id == 0)
        return NULL;
    for (uint32_t h = id_hash(id) & m->index_mask;; h = (h + 1) & m->index_mask) {
        uint32_t k = m->index[h];
        if (!k)
            return NULL;
        if (m->nodes[k - 1].id == id)
            return &m->nodes[k - 1];
    }
}

/* The node of id, made when the id is first met.  The table has room for one node per declaration. */
static spv_node *node_make(spv_module *m, uint32_t id, size_t word)
{
    uint32_t h = id_hash(id) & m->index_mask;
    for (; m->index[h]; h = (h + 1) & m->index_mask)
        if (m->nodes[m->index[h] - 1].id == id)
            return &m->nodes[m->index[h] - 1];
    spv_node *d = &m->nodes[m->node_count++];
    memset(d, 0, sizeof *d);
    d->id = id;
    d->builtin = d->set = d->binding = -1;
    d->word = (uint32_t)word;
    m->index[h] = m->node_count;
    return d;
}

const spv_type *spv_type_of(const spv_module *m, uint32_t id)
{
    const spv_node *d = spv_node_of(m, id);
    return d && d->t.op ? &d->t : NULL;
}

const spv_entry *spv_entry_named(const spv_module *m, uint32_t model, const char *name)
{
    for (uint32_t k = 0; k < m->entry_count; k++)
        if (m->entries[k].model == model && (!name || strcmp(m->entries[k].name, name) == 0))
            return &m->entries[k];
    return NULL;
}

static bool is_type_op(SpvOp op)
{
    return op >= SpvOpTypeVoid && op < SpvOpTypeForwardPointer;
}

/* How much the declarations need: nodes, struct members, entry points, modes, capabilities, extensions, imports. */
typedef struct read_counts {
    size_t nodes, members, entries, modes, capabilities, extensions, imports;
} read_counts;

static bool count_declarations(spv_module *m, read_counts *c, char *err, size_t err_size)
{
    spv_iter it;
    spv_inst in;
    spv_step step;
    m->functions = m->n;
    spv_iter_init(&it, m->w, m->n, SPV_HEADER_WORDS);
    while ((step = spv_next(&it, &in)) == SPV_STEP_INST) {
        if (in.op == SpvOpFunction && m->functions == m->n)
            m->functions = in.word;
        if (m->functions != m->n)
            continue; /* past the declarations: word counts only */
        c->nodes++;
        c->members += in.op == SpvOpTypeStruct && in.no ? in.no - 1 : 0;
        c->entries += in.op == SpvOpEntryPoint;
        c->modes += in.op == SpvOpExecutionMode || in.op == SpvOpExecutionModeId;
        c->capabilities += in.op == SpvOpCapability;
        c->extensions += in.op == SpvOpExtension;
        c->imports += in.op == SpvOpExtInstImport;
    }
    if (step == SPV_STEP_BAD)
        return read_fail(m, err, err_size, in.word, "instruction word count %u runs past the end of the module", in.wc);
    return true;
}

static bool allocate_tables(spv_module *m, const read_counts *c)
{
    uint32_t cap = 16;
    while (cap < 2 * c->nodes)
        cap *= 2;
    m->index_mask = cap - 1;
    m->index = calloc(cap, sizeof *m->index);
    m->nodes = calloc(c->nodes + 1, sizeof *m->nodes);
    m->pool = calloc(4 * c->members + 1, sizeof *m->pool);
    m->bool_pool = calloc(2 * c->members + 1, sizeof *m->bool_pool);
    m->entries = calloc(c->entries + 1, sizeof *m->entries);
    m->modes = calloc(c->modes + 1, sizeof *m->modes);
    m->capabilities = calloc(c->capabilities + 1, sizeof *m->capabilities);
    m->extensions = calloc(c->extensions + 1, sizeof *m->extensions);
    m->imports = calloc(c->imports + 1, sizeof *m->imports);
    m->memo = calloc((size_t)(c->nodes + 1) * SPV_MEMO_KINDS, sizeof *m->memo);
    return m->index && m->nodes && m->pool && m->bool_pool && m->entries && m->modes && m->capabilities &&
           m->extensions && m->imports && m->memo;
}

/* One declaration's result id: a node that no other declaration defined. */
static spv_node *define(spv_module *m, const spv_inst *in, uint32_t id, char *err, size_t err_size)
{
    if (id == 0 || id >= m->bound) {
        read_fail(m, err, err_size, in->word, "result id %%%u is not below the id bound %u", id, m->bound);
        return NULL;
    }
    spv_node *d = node_make(m, id, in->word);
    if (d->op) {
        read_fail(m, err, err_size, in->word, "id %%%u is defined twice", id);
        return NULL;
    }
    d->op = in->op;
    d->word = (uint32_t)in->word;
    return d;
}

/* Operands each declaration needs at least (those it reads). */
static uint32_t operands_needed(SpvOp op)
{
    switch (op) {
    case SpvOpCapability: case SpvOpExtension: return 1;
    case SpvOpTypeVoid: case SpvOpTypeBool: case SpvOpTypeStruct: case SpvOpTypeSampler: return 1;
    case SpvOpName: case SpvOpString: case SpvOpExtInstImport: case SpvOpTypeFloat: case SpvOpTypeRuntimeArray:
    case SpvOpTypeSampledImage: case SpvOpExecutionMode: case SpvOpExecutionModeId: case SpvOpDecorate:
    case SpvOpConstantTrue: case SpvOpConstantFalse: case SpvOpSpecConstantTrue: case SpvOpSpecConstantFalse:
    case SpvOpConstantComposite: case SpvOpSpecConstantComposite: case SpvOpConstantNull: case SpvOpUndef:
        return 2;
    case SpvOpSpecConstantOp: return 3;
    case SpvOpEntryPoint: case SpvOpTypeInt: case SpvOpTypeVector: case SpvOpTypeMatrix: case SpvOpTypeArray:
    case SpvOpTypePointer: case SpvOpConstant: case SpvOpSpecConstant: case SpvOpVariable: case SpvOpMemberDecorate:
        return 3;
    case SpvOpTypeImage: return 8;
    default: return is_type_op(op) ? 1 : 0;
    }
}

/* A string operand that must be there: NULL (and the error) when it has no NUL before the instruction ends. */
static const char *need_string(spv_module *m, const spv_inst *in, uint32_t k, uint32_t *next, char *err,
                               size_t err_size)
{
    const char *s = spv_string(in, k, next);
    if (!s)
        read_fail(m, err, err_size, in->word, "literal string operand %u has no terminating NUL", k);
    return s;
}

/* A type's component, element or member must be a type declared before it (SPIR-V declares before use; only
 * pointers may be forward), so no layout query can loop or recurse without end. */
static bool declared_type(spv_module *m, const spv_inst *in, uint32_t id, char *err, size_t err_size)
{
    if (spv_type_of(m, id))
        return true;
    return read_fail(m, err, err_size, in->word, "type operand %%%u is not a type declared before it", id);
}

static bool read_type(spv_module *m, const spv_inst *in, char *err, size_t err_size)
{
    const uint32_t *o = in->o;
    bool composite = in->op == SpvOpTypeVector || in->op == SpvOpTypeMatrix || in->op == SpvOpTypeArray ||
                     in->op == SpvOpTypeRuntimeArray;
    if (composite && !declared_type(m, in, o[1], err, err_size))
        return false;
    for (uint32_t k = 1; in->op == SpvOpTypeStruct && k < in->no; k++)
        if (!declared_type(m, in, o[k], err, err_size))
            return false;
    spv_node *d = define(m, in, o[0], err, err_size);
    if (!d)
        return false;
    spv_type *t = &d->t;
    t->op = in->op;
    switch (in->op) {
    case SpvOpTypeInt: t->width = o[1]; t->is_signed = o[2] != 0; break;
    case SpvOpTypeFloat: t->width = o[1]; break;
    case SpvOpTypeVector: case SpvOpTypeMatrix: t->elem = o[1]; t->count = o[2]; break;
    case SpvOpTypeArray: {
        t->elem = o[1];
        t->length_id = o[2];
        const spv_node *len = spv_node_of(m, o[2]);
        if (len && (len->op == SpvOpConstant || len->op == SpvOpSpecConstant)) {
            t->count = (uint32_t)len->value;
            t->count_known = true;
        }
        break;
    }
    case SpvOpTypeRuntimeArray: case SpvOpTypeSampledImage: t->elem = o[1]; break;
    case SpvOpTypePointer: t->storage = o[1]; t->elem = o[2]; break;
    case SpvOpTypeImage:
        t->elem = o[1];
        t->image_dim = o[2];
        t->image_depth = o[3];
        t->image_arrayed = o[4] != 0;
        t->image_ms = o[5] != 0;
        t->image_sampled = o[6];
        t->image_format = o[7];
        break;
    case SpvOpTypeStruct: {
        uint32_t k = t->nmembers = in->no - 1;
        uint32_t *p = m->pool + m->pool_used;
        bool *b = m->bool_pool + 2 * (m->pool_used / 4);
        m->pool_used += 4 * k;
        t->members = p;
        t->offsets = p + k;
        t->mstride = p + 2 * k;
        t->mbuiltin = (int32_t *)(p + 3 * k);
        t->row_major = b;
        t->col_major = b + k;
        for (uint32_t i = 0; i < k; i++) {
            t->members[i] = o[1 + i];
            t->offsets[i] = SPV_NO_OFFSET;
            t->mbuiltin[i] = -1;
        }
        break;
    }
    default: break;
    }
    return true;
}

static bool read_value(spv_module *m, const spv_inst *in, char *err, size_t err_size)
{
    const uint32_t *o = in->o;
    spv_node *d = define(m, in, o[1], err, err_size);
    if (!d)
        return false;
    d->type = o[0];
    switch (in->op) {
    case SpvOpConstant: case SpvOpSpecConstant:
        d->wide = in->no >= 4;
        d->value = o[2] | (d->wide ? (uint64_t)o[3] << 32 : 0);
        d->has_value = true;
        break;
    case SpvOpConstantTrue: case SpvOpSpecConstantTrue: d->value = 1; d->has_value = true; break;
    case SpvOpConstantFalse: case SpvOpSpecConstantFalse: d->value = 0; d->has_value = true; break;
    case SpvOpVariable: d->storage = o[2]; break;
    case SpvOpConstantComposite: case SpvOpSpecConstantComposite:
        d->parts = o + 2;
        d->nparts = in->no - 2;
        break;
    default: break;
    }
    return true;
}

/* Pass 1: everything but decorations, which may name a type before it is declared. */
static bool read_declaration(spv_module *m, const spv_inst *in, char *err, size_t err_size)
{
    const uint32_t *o = in->o;
    uint32_t next = 0;
    switch (in->op) {
    case SpvOpCapability: m->capabilities[m->capability_count++] = o[0]; return true;
    case SpvOpExtension: {
        const char *s = need_string(m, in, 0, NULL, err, err_size);
        if (s)
            m->extensions[m->extension_count++] = s;
        return s != NULL;
    }
    case SpvOpEntryPoint: {
        const char *s = need_string(m, in, 2, &next, err, err_size);
        if (s)
            m->entries[m->entry_count++] = (spv_entry){o[0], o[1], s, o + next, in->no - next, (uint32_t)in->word};
        return s != NULL;
    }
    case SpvOpExecutionMode: case SpvOpExecutionModeId:
        m->modes[m->mode_count++] =
            (spv_mode){o[0], o[1], in->op == SpvOpExecutionModeId, o + 2, in->no - 2, (uint32_t)in->word};
        return true;
    case SpvOpName: {
        const char *s = need_string(m, in, 1, NULL, err, err_size);
        if (s && o[0] && o[0] < m->bound)
            node_make(m, o[0], in->word)->name = s;
        return s != NULL;
    }
    case SpvOpString: case SpvOpExtInstImport: {
        const char *s = need_string(m, in, 1, NULL, err, err_size);
        spv_node *d = s ? define(m, in, o[0], err, err_size) : NULL;
        if (d)
            d->name = s;
        if (d && in->op == SpvOpExtInstImport)
            m->imports[m->import_count++] = o[0];
        return d != NULL;
    }
    case SpvOpConstant: case SpvOpSpecConstant: case SpvOpConstantTrue: case SpvOpConstantFalse:
    case SpvOpSpecConstantTrue: case SpvOpSpecConstantFalse: case SpvOpConstantComposite:
    case SpvOpSpecConstantComposite: case SpvOpConstantNull: case SpvOpSpecConstantOp: case SpvOpUndef:
    case SpvOpVariable:
        return read_value(m, in, err, err_size);
    default:
        return is_type_op(in->op) ? read_type(m, in, err, err_size) : true;
    }
}

static void read_decoration(spv_module *m, spv_node *d, const uint32_t *o, uint32_t no)
{
    uint32_t arg = no >= 3 ? o[2] : 0;
    bool has_arg = no >= 3;
    switch (o[1]) {
    case SpvDecorationBuiltIn: if (has_arg) d->builtin = (int32_t)arg; break;
    case SpvDecorationDescriptorSet: if (has_arg) d->set = (int32_t)arg; break;
    case SpvDecorationBinding: if (has_arg) d->binding = (int32_t)arg; break;
    case SpvDecorationSpecId: if (has_arg) d->spec_id = arg + 1; break;
    case SpvDecorationArrayStride: if (has_arg) d->t.array_stride = arg; break;
    case SpvDecorationBlock: d->t.block = true; break;
    case SpvDecorationBufferBlock: d->t.buffer_block = true; break;
    case SpvDecorationNonWritable: d->nonwritable = true; break;
    case SpvDecorationNonReadable: d->nonreadable = true; break;
    case SpvDecorationNonUniform: d->nonuniform = true; break;
    default: break;
    }
    (void)m;
}

static void read_member_decoration(spv_type *t, const uint32_t *o, uint32_t no)
{
    if (t->op != SpvOpTypeStruct || o[1] >= t->nmembers)
        return;
    uint32_t k = o[1];
    bool has_arg = no >= 4;
    switch (o[2]) {
    case SpvDecorationOffset: if (has_arg) t->offsets[k] = o[3]; break;
    case SpvDecorationMatrixStride: if (has_arg) t->mstride[k] = o[3]; break;
    case SpvDecorationBuiltIn: if (has_arg) t->mbuiltin[k] = (int32_t)o[3]; break;
    case SpvDecorationRowMajor: t->row_major[k] = true; break;
    case SpvDecorationColMajor: t->col_major[k] = true; break;
    default: break;
    }
}

/* Pass 2: decorations, now that every type they name has its node. */
static bool read_decorations(spv_module *m, char *err, size_t err_size)
{
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, m->w, m->functions, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST) {
        if (in.op != SpvOpDecorate && in.op != SpvOpMemberDecorate)
            continue;
        if (in.o[0] == 0 || in.o[0] >= m->bound)
            return read_fail(m, err, err_size, in.word, "decoration of id %%%u, out of range (bound %u)", in.o[0],
                             m->bound);
        spv_node *d = node_make(m, in.o[0], in.word);
        if (in.op == SpvOpDecorate)
            read_decoration(m, d, in.o, in.no);
        else
            read_member_decoration(&d->t, in.o, in.no);
    }
    return true;
}

bool spv_module_read(spv_module *m, const uint32_t *words, size_t word_count, char *err, size_t err_size)
{
    memset(m, 0, sizeof *m);
    if (err && err_size)
        err[0] = 0;
    const char *bad = spv_header_problem(words, word_count);
    if (bad)
        return read_fail(m, err, err_size, 0, "%s", bad);
    m->w = words;
    m->n = word_count;
    m->version = words[1];
    m->bound = words[3];
    if (m->bound == 0 || m->bound > MAX_ID_BOUND)
        return read_fail(m, err, err_size, 3, "id bound %u out of range", m->bound);
    read_counts c = {0};
    if (!count_declarations(m, &c, err, err_size))
        return false;
    if (!allocate_tables(m, &c)) {
        spv_module_free(m);
        snprintf(err, err_size, "out of memory");
        return false;
    }
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, m->w, m->functions, SPV_HEADER_WORDS);
    bool ok = true;
    while (ok && spv_next(&it, &in) == SPV_STEP_INST) {
        if (in.no < operands_needed(in.op))
            ok = read_fail(m, err, err_size, in.word, "instruction has too few operands (%u, need %u)", in.no,
                           operands_needed(in.op));
        else
            ok = read_declaration(m, &in, err, err_size);
    }
    if (ok)
        ok = read_decorations(m, err, err_size);
    if (!ok) {
        uint32_t at = m->err_word;
        spv_module_free(m);
        m->err_word = at;
    }
    return ok;
}

void spv_module_free(spv_module *m)
{
    for (size_t k = 0; m->memo && k < (size_t)m->node_count * SPV_MEMO_KINDS; k++)
        free(m->memo[k].fail);
    free(m->memo);
    free(m->index);
    free(m->nodes);
    free(m->pool);
    free(m->bool_pool);
    free(m->entries);
    free(m->modes);
    free(m->capabilities);
    free(m->extensions);
    free(m->imports);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ layouts */

typedef uint64_t (*spv_layout_query)(const spv_module *m, uint32_t tid, spv_diag *diag);

static uint64_t memoized(const spv_module *m, uint32_t tid, spv_memo_kind kind, spv_layout_query query,
                         spv_diag *diag)
{
    const spv_node *n = spv_node_of(m, tid);
    struct spv_memo *e = n && m->memo ? &m->memo[(size_t)(n - m->nodes) * SPV_MEMO_KINDS + kind] : NULL;
    if (e && e->known) {
        if (e->fail && diag && !diag->failed)
            *diag = *e->fail;
        return e->value;
    }
    spv_diag local = {0};
    uint64_t v = query(m, tid, &local);
    if (local.failed && diag && !diag->failed)
        *diag = local;
    if (e) {
        e->value = v;
        e->known = true;
        if (local.failed && (e->fail = malloc(sizeof *e->fail)) != NULL)
            *e->fail = local;
    }
    return v;
}

static void diag_set(spv_diag *d, bool unsupported, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Messages name ids as %N, the way the lowering prints them. */
static void diag_set(spv_diag *d, bool unsupported, const char *fmt, ...)
{
    if (!d || d->failed)
        return;
    d->failed = true;
    d->unsupported = unsupported;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
}

static const spv_type *type_or_fail(const spv_module *m, uint32_t tid, spv_diag *d)
{
    static const spv_type none = {.op = SpvOpTypeVoid};
    const spv_type *t = spv_type_of(m, tid);
    if (t)
        return t;
    diag_set(d, false, "id %%%u is not a type", tid);
    return &none;
}

static uint64_t size_mul(uint64_t a, uint64_t b)
{
    return b && a > SPV_SIZE_MAX / b ? SPV_SIZE_MAX : a * b;
}

static uint64_t paths_add(uint64_t a, uint64_t b, uint64_t limit)
{
    return a + b > limit ? limit + 1 : a + b;
}

uint64_t spv_struct_type_paths(const spv_module *m, uint64_t limit, uint32_t *worst)
{
    /* Types are declared before they are used (a forward pointer's pointee aside, counted as 1), so one pass in
     * declaration order finds every child's count already known. */
    uint64_t *paths = calloc(m->node_count ? m->node_count : 1, sizeof *paths);
    if (!paths)
        return limit + 1;
    uint64_t total = 0, most = 0;
    if (worst)
        *worst = 0;
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, m->w, m->functions, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST) {
        const spv_node *d = in.no ? spv_node_of(m, in.o[0]) : NULL;
        if (!d || d->op != in.op || d->t.op != in.op)
            continue;
        const spv_type *t = &d->t;
        uint64_t n = 1;
        uint32_t nchildren = t->op == SpvOpTypeStruct ? t->nmembers : t->elem ? 1 : 0;
        for (uint32_t k = 0; k < nchildren; k++) {
            const spv_node *c = spv_node_of(m, t->op == SpvOpTypeStruct ? t->members[k] : t->elem);
            n = paths_add(n, c && paths[c - m->nodes] ? paths[c - m->nodes] : 1, limit);
        }
        paths[d - m->nodes] = n;
        if (t->op == SpvOpTypeStruct) {
            total = paths_add(total, n, limit);
            if (n > most && worst)
                most = n, *worst = d->id;
        }
    }
    free(paths);
    return total;
}

/* a is an alignment: 0 only for a malformed scalar (a width below 8 bits), taken as 1 */
static uint64_t size_round(uint64_t s, uint64_t a)
{
    if (a == 0)
        a = 1;
    return s >= SPV_SIZE_MAX ? SPV_SIZE_MAX : (s + a - 1) / a * a;
}

uint32_t spv_scalar_bytes(const spv_module *m, uint32_t tid, spv_diag *diag)
{
    const spv_type *t = type_or_fail(m, tid, diag);
    return t->op == SpvOpTypeBool ? 4 : t->width / 8;
}

static uint64_t natural_size(const spv_module *m, uint32_t tid, spv_diag *diag)
{
    const spv_type *t = type_or_fail(m, tid, diag);
    switch (t->op) {
    case SpvOpTypeBool: case SpvOpTypeInt: case SpvOpTypeFloat: return spv_scalar_bytes(m, tid, diag);
    case SpvOpTypeVector: return (uint64_t)t->count * spv_scalar_bytes(m, t->elem, diag);
    case SpvOpTypeMatrix: case SpvOpTypeArray: {
        uint32_t a = spv_natural_align(m, t->elem, diag);
        return size_mul(t->count, size_round(spv_natural_size(m, t->elem, diag), a));
    }
    case SpvOpTypeStruct: {
        uint64_t off = 0;
        uint32_t maxa = 1;
        for (uint32_t i = 0; i < t->nmembers; i++) {
            uint32_t a = spv_natural_align(m, t->members[i], diag);
            if (a > maxa)
                maxa = a;
            off = size_round(off, a) + spv_natural_size(m, t->members[i], diag);
            if (off > SPV_SIZE_MAX)
                off = SPV_SIZE_MAX;
        }
        return size_round(off, maxa);
    }
    default:
        diag_set(diag, true, "type %%%u (%s) has no memory layout", tid, spv_op_name(t->op));
        return 4;
    }
}

static uint64_t natural_align(const spv_module *m, uint32_t tid, spv_diag *diag)
{
    const spv_type *t = type_or_fail(m, tid, diag);
    switch (t->op) {
    case SpvOpTypeVector: return (t->count == 3 ? 4 : t->count) * spv_scalar_bytes(m, t->elem, diag);
    case SpvOpTypeMatrix: case SpvOpTypeArray: return spv_natural_align(m, t->elem, diag);
    case SpvOpTypeStruct: {
        uint32_t maxa = 1;
        for (uint32_t i = 0; i < t->nmembers; i++) {
            uint32_t a = spv_natural_align(m, t->members[i], diag);
            if (a > maxa)
                maxa = a;
        }
        return maxa;
    }
    default: return spv_scalar_bytes(m, tid, diag);
    }
}

uint64_t spv_natural_size(const spv_module *m, uint32_t tid, spv_diag *diag)
{
    return memoized(m, tid, MEMO_NATURAL_SIZE, natural_size, diag);
}

uint32_t spv_natural_align(const spv_module *m, uint32_t tid, spv_diag *diag)
{
    return (uint32_t)memoized(m, tid, MEMO_NATURAL_ALIGN, natural_align, diag);
}

uint64_t spv_elem_stride(const spv_module *m, uint32_t tid, bool expl, uint32_t matrix_stride, spv_diag *diag)
{
    const spv_type *t = type_or_fail(m, tid, diag);
    if (t->op == SpvOpTypeVector)
        return spv_scalar_bytes(m, t->elem, diag);
    if (t->op == SpvOpTypeMatrix && expl && matrix_stride)
        return matrix_stride;
    if (t->op != SpvOpTypeMatrix && expl) {
        if (!t->array_stride)
            diag_set(diag, false, "array type %%%u in an explicitly laid out block has no ArrayStride", tid);
        return t->array_stride;
    }
    return size_round(spv_natural_size(m, t->elem, diag), spv_natural_align(m, t->elem, diag));
}

uint64_t spv_member_offset(const spv_module *m, uint32_t tid, uint32_t index, bool expl, spv_diag *diag)
{
    const spv_type *t = type_or_fail(m, tid, diag);
    if (index >= t->nmembers) {
        diag_set(diag, false, "member %u of struct %%%u with %u members", index, tid, t->nmembers);
        return 0;
    }
    if (expl) {
        if (t->offsets[index] == SPV_NO_OFFSET)
            diag_set(diag, false, "member %u of block %%%u has no Offset decoration", index, tid);
        return t->offsets[index];
    }
    uint64_t off = 0;
    for (uint32_t i = 0; i <= index; i++) {
        off = size_round(off, spv_natural_align(m, t->members[i], diag));
        if (i == index)
            break;
        off += spv_natural_size(m, t->members[i], diag);
    }
    return off;
}

/* Member i of struct t under its explicit layout: a matrix member is laid out by the MatrixStride it carries (a
 * std140 mat3's columns are 16 bytes apart, not 12), as many strides as it has columns, or rows when RowMajor. */
static uint64_t member_layout_size(const spv_module *m, const spv_type *t, uint32_t i, spv_diag *diag)
{
    const spv_type *mt = type_or_fail(m, t->members[i], diag);
    if (mt->op != SpvOpTypeMatrix || !t->mstride[i])
        return spv_layout_size(m, t->members[i], true, diag);
    uint32_t vectors = t->row_major[i] ? type_or_fail(m, mt->elem, diag)->count : mt->count;
    return size_mul(vectors, t->mstride[i]);
}

/* The end of struct tid's last member under its explicit layout, each member measured by `measure`. */
typedef uint64_t member_measure(const spv_module *m, const spv_type *t, uint32_t i, spv_diag *diag);
static uint64_t struct_end(const spv_module *m, uint32_t tid, member_measure *measure, spv_diag *diag)
{
    const spv_type *t = type_or_fail(m, tid, diag);
    uint64_t end = 0;
    for (uint32_t i = 0; i < t->nmembers; i++) {
        uint64_t e = (uint64_t)(uint32_t)spv_member_offset(m, tid, i, true, diag) + measure(m, t, i, diag);
        if (e > end)
            end = e;
    }
    return end;
}

static uint64_t explicit_size(const spv_module *m, uint32_t tid, spv_diag *diag)
{
    const spv_type *t = type_or_fail(m, tid, diag);
    switch (t->op) {
    case SpvOpTypeStruct: return struct_end(m, tid, member_layout_size, diag);
    case SpvOpTypeArray: return size_mul(t->count, spv_elem_stride(m, tid, true, 0, diag));
    case SpvOpTypeRuntimeArray: return 0;
    case SpvOpTypeMatrix: return size_mul(t->count, spv_natural_size(m, t->elem, diag));
    default: return spv_natural_size(m, tid, diag);
    }
}

void spv_layout_forget(spv_module *m)
{
    for (size_t k = 0; m->memo && k < (size_t)m->node_count * SPV_MEMO_KINDS; k++) {
        free(m->memo[k].fail);
        m->memo[k] = (struct spv_memo){0};
    }
}

uint64_t spv_layout_size(const spv_module *m, uint32_t tid, bool expl, spv_diag *diag)
{
    return expl ? memoized(m, tid, MEMO_EXPLICIT_SIZE, explicit_size, diag) : spv_natural_size(m, tid, diag);
}

/* The end of the last byte that holds a value in tid's explicit layout: a struct's members at their offsets, an
 * array's last element at (length - 1) strides, a matrix's last column (or row, RowMajor) at (n - 1) strides of
 * `mstride`; the padding after them is not counted. */
static uint64_t value_extent(const spv_module *m, uint32_t tid, uint32_t mstride, bool row_major, spv_diag *diag);

static uint64_t member_value_extent(const spv_module *m, const spv_type *t, uint32_t i, spv_diag *diag)
{
    return value_extent(m, t->members[i], t->mstride[i], t->row_major[i], diag);
}

static uint64_t value_extent(const spv_module *m, uint32_t tid, uint32_t mstride, bool row_major, spv_diag *diag)
{
    const spv_type *t = type_or_fail(m, tid, diag);
    switch (t->op) {
    case SpvOpTypeStruct: return struct_end(m, tid, member_value_extent, diag);
    case SpvOpTypeArray:
        if (!t->count)
            return 0;
        return size_mul(t->count - 1, spv_elem_stride(m, tid, true, 0, diag)) +
               value_extent(m, t->elem, mstride, row_major, diag);
    case SpvOpTypeRuntimeArray: return 0;
    case SpvOpTypeMatrix: {
        const spv_type *col = type_or_fail(m, t->elem, diag);
        uint32_t vectors = row_major ? col->count : t->count, per = row_major ? t->count : col->count;
        uint64_t scalar = spv_scalar_bytes(m, col->elem, diag);
        if (!mstride)
            return explicit_size(m, tid, diag);
        return size_mul(vectors - 1, mstride) + size_mul(per, scalar);
    }
    default: return spv_natural_size(m, tid, diag);
    }
}

uint64_t spv_layout_extent(const spv_module *m, uint32_t tid, spv_diag *diag)
{
    return value_extent(m, tid, 0, false, diag);
}

void spv_place_variable(const spv_module *m, uint32_t pointee, bool workgroup, uint64_t area, uint64_t *base,
                        uint64_t *size, spv_diag *diag)
{
    bool shared_block = workgroup && type_or_fail(m, pointee, diag)->block;
    uint32_t a = spv_natural_align(m, pointee, diag);
    if (a < 4)
        a = 4;
    *size = shared_block ? spv_layout_size(m, pointee, true, diag) : spv_natural_size(m, pointee, diag);
    *base = shared_block ? 0 : size_round(area, a);
}
