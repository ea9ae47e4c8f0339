/*
 * isa/lower_module.c — the module-reading part of the lowering: one pass
 * over the SPIR-V that fills the per-id records (types, constants,
 * decorations, names), the type queries (register counts, scalar types,
 * explicit and natural layouts, strides, sizes), the bits of scalar,
 * composite and spec constants, the registers behind values, and the slots
 * (memory) given to variables.
 */
#include "isa/lower_internal.h"

type_info *lower_type(lower *L, uint32_t id)
{
    if (id == 0 || id >= L->bound || L->ids[id].kind != K_TYPE) {
        lower_fail(L, ISA_ERR_INVALID, "id %%%u is not a type", id);
        static type_info none = {.op = SpvOpTypeVoid};
        return &none;
    }
    return L->ids[id].t;
}

isa_type lower_scalar_isa_type(lower *L, uint32_t tid)
{
    type_info *t = lower_type(L, tid);
    switch (t->op) {
    case SpvOpTypeBool: return ISA_TYPE_BOOL;
    case SpvOpTypeInt:
        switch (t->width) {
        case 8: return t->is_signed ? ISA_TYPE_I8 : ISA_TYPE_U8;
        case 16: return t->is_signed ? ISA_TYPE_I16 : ISA_TYPE_U16;
        case 32: return t->is_signed ? ISA_TYPE_I32 : ISA_TYPE_U32;
        case 64: return t->is_signed ? ISA_TYPE_I64 : ISA_TYPE_U64;
        }
        break;
    case SpvOpTypeFloat:
        switch (t->width) {
        case 16: return ISA_TYPE_F16;
        case 32: return ISA_TYPE_F32;
        case 64: return ISA_TYPE_F64;
        }
        break;
    default: break;
    }
    lower_fail(L, ISA_ERR_UNSUPPORTED, "type %%%u is not a scalar the model knows", tid);
    return ISA_TYPE_U32;
}

/* The scalar type of a scalar or of a vector's components. */
uint32_t lower_component_type(lower *L, uint32_t tid)
{
    type_info *t = lower_type(L, tid);
    return t->op == SpvOpTypeVector ? t->elem : tid;
}

isa_type lower_with_sign(isa_type t, bool is_signed)
{
    switch (t) {
    case ISA_TYPE_U8: case ISA_TYPE_I8: return is_signed ? ISA_TYPE_I8 : ISA_TYPE_U8;
    case ISA_TYPE_U16: case ISA_TYPE_I16: return is_signed ? ISA_TYPE_I16 : ISA_TYPE_U16;
    case ISA_TYPE_U32: case ISA_TYPE_I32: return is_signed ? ISA_TYPE_I32 : ISA_TYPE_U32;
    case ISA_TYPE_U64: case ISA_TYPE_I64: return is_signed ? ISA_TYPE_I64 : ISA_TYPE_U64;
    default: return t;
    }
}

/* Registers a value of this type occupies. */
uint32_t lower_reg_count_of(lower *L, uint32_t tid)
{
    type_info *t = lower_type(L, tid);
    switch (t->op) {
    case SpvOpTypeBool: case SpvOpTypeInt: case SpvOpTypeFloat: return 1;
    case SpvOpTypeVector: return t->count;
    case SpvOpTypeMatrix: case SpvOpTypeArray: return t->count * lower_reg_count_of(L, t->elem);
    case SpvOpTypeStruct: {
        uint32_t n = 0;
        for (uint32_t i = 0; i < t->nmembers; i++)
            n += lower_reg_count_of(L, t->members[i]);
        return n;
    }
    default:
        lower_fail(L, ISA_ERR_UNSUPPORTED, "values of type %%%u (%s) cannot live in registers", tid, lower_op_name(t->op));
        return 1;
    }
}

/* Register offset of member/element `index` inside a composite value of type tid. */
uint32_t lower_reg_offset_of(lower *L, uint32_t tid, uint32_t index, uint32_t *member_type)
{
    type_info *t = lower_type(L, tid);
    if ((t->op == SpvOpTypeVector || t->op == SpvOpTypeMatrix || t->op == SpvOpTypeArray) && index >= t->count) {
        /* the validator lets a constant index past the end of an Input vector through (found by fuzz_spirv) */
        lower_fail(L, ISA_ERR_INVALID, "constant index %u past the end of a%s %s of %u", index,
             t->op == SpvOpTypeArray ? "n" : "",
             t->op == SpvOpTypeVector ? "vector" : t->op == SpvOpTypeMatrix ? "matrix" : "array", t->count);
        *member_type = t->elem;
        return 0;
    }
    switch (t->op) {
    case SpvOpTypeVector:
        *member_type = t->elem;
        return index;
    case SpvOpTypeMatrix: case SpvOpTypeArray:
        *member_type = t->elem;
        return index * lower_reg_count_of(L, t->elem);
    case SpvOpTypeStruct: {
        uint32_t off = 0;
        if (index >= t->nmembers) {
            lower_fail(L, ISA_ERR_INVALID, "member %u of a struct with %u members", index, t->nmembers);
            *member_type = t->members ? t->members[0] : tid;
            return 0;
        }
        for (uint32_t i = 0; i < index; i++)
            off += lower_reg_count_of(L, t->members[i]);
        *member_type = t->members[index];
        return off;
    }
    default:
        lower_fail(L, ISA_ERR_INVALID, "composite index into non-composite type %%%u", tid);
        *member_type = tid;
        return 0;
    }
}

/* ---- memory layout ---- */


uint32_t lower_scalar_bytes(lower *L, uint32_t tid)
{
    type_info *t = lower_type(L, tid);
    if (t->op == SpvOpTypeBool)
        return 4;
    return t->width / 8;
}

/*
 * Layout sizes are computed in 64 bits and saturate at LAYOUT_SIZE_MAX: an
 * array of 2^28 uvec4s is 4 GiB, which 32-bit arithmetic wraps to 0 (a
 * variable that then faulted on its first access, with a message about a
 * 0-byte slot).  The callers compare the result against what the ISA can
 * address and say which variable is too large.
 */
#define LAYOUT_SIZE_MAX ((uint64_t)1 << 48)

static uint64_t size_mul(uint64_t a, uint64_t b)
{
    return b && a > LAYOUT_SIZE_MAX / b ? LAYOUT_SIZE_MAX : a * b;
}

static uint64_t size_round(uint64_t s, uint64_t a)
{
    return s >= LAYOUT_SIZE_MAX ? LAYOUT_SIZE_MAX : (s + a - 1) / a * a;
}

/* std430-style alignment and size for variables without explicit layout. */
static uint32_t natural_align(lower *L, uint32_t tid);
static uint64_t natural_size(lower *L, uint32_t tid)
{
    type_info *t = lower_type(L, tid);
    switch (t->op) {
    case SpvOpTypeBool: case SpvOpTypeInt: case SpvOpTypeFloat: return lower_scalar_bytes(L, tid);
    case SpvOpTypeVector: return (uint64_t)t->count * lower_scalar_bytes(L, t->elem);
    case SpvOpTypeMatrix: case SpvOpTypeArray: {
        uint32_t a = natural_align(L, t->elem);
        return size_mul(t->count, size_round(natural_size(L, t->elem), a));
    }
    case SpvOpTypeStruct: {
        uint64_t off = 0;
        uint32_t maxa = 1;
        for (uint32_t i = 0; i < t->nmembers; i++) {
            uint32_t a = natural_align(L, t->members[i]);
            if (a > maxa)
                maxa = a;
            off = size_round(off, a) + natural_size(L, t->members[i]);
            if (off > LAYOUT_SIZE_MAX)
                off = LAYOUT_SIZE_MAX;
        }
        return size_round(off, maxa);
    }
    default:
        lower_fail(L, ISA_ERR_UNSUPPORTED, "type %%%u (%s) has no memory layout", tid, lower_op_name(t->op));
        return 4;
    }
}

static uint32_t natural_align(lower *L, uint32_t tid)
{
    type_info *t = lower_type(L, tid);
    switch (t->op) {
    case SpvOpTypeVector: {
        uint32_t c = t->count == 3 ? 4 : t->count;
        return c * lower_scalar_bytes(L, t->elem);
    }
    case SpvOpTypeMatrix: case SpvOpTypeArray: return natural_align(L, t->elem);
    case SpvOpTypeStruct: {
        uint32_t maxa = 1;
        for (uint32_t i = 0; i < t->nmembers; i++) {
            uint32_t a = natural_align(L, t->members[i]);
            if (a > maxa)
                maxa = a;
        }
        return maxa;
    }
    default: return lower_scalar_bytes(L, tid);
    }
}

/* A byte count the ISA's 32-bit offsets can hold, or an error naming the type. */
static uint32_t size_u32(lower *L, uint64_t size, uint32_t tid, const char *what)
{
    if (size <= UINT32_MAX)
        return (uint32_t)size;
    lower_fail(L, ISA_ERR_UNSUPPORTED, "the %s of type %%%u is %s%llu bytes; wave-ISA offsets are 32-bit (at most 4294967295)",
               what, tid, size >= LAYOUT_SIZE_MAX ? "at least " : "", (unsigned long long)size);
    return 0;
}

static uint32_t natural_member_offset(lower *L, type_info *t, uint32_t tid, uint32_t index)
{
    uint64_t off = 0;
    for (uint32_t i = 0; i <= index && i < t->nmembers; i++) {
        off = size_round(off, natural_align(L, t->members[i]));
        if (i == index)
            break;
        off += natural_size(L, t->members[i]);
    }
    return size_u32(L, off, tid, "member offset");
}

/* Byte stride of the elements of an array/runtime array/matrix type. */
uint32_t lower_elem_stride(lower *L, uint32_t tid, bool expl, uint32_t matrix_stride)
{
    type_info *t = lower_type(L, tid);
    if (t->op == SpvOpTypeVector)
        return lower_scalar_bytes(L, t->elem);
    if (t->op == SpvOpTypeMatrix) {
        if (expl && matrix_stride)
            return matrix_stride;
        return size_u32(L, size_round(natural_size(L, t->elem), natural_align(L, t->elem)), tid, "column stride");
    }
    if (expl) {
        if (!t->array_stride)
            lower_fail(L, ISA_ERR_INVALID, "array type %%%u in an explicitly laid out block has no ArrayStride", tid);
        return t->array_stride;
    }
    return size_u32(L, size_round(natural_size(L, t->elem), natural_align(L, t->elem)), tid, "element stride");
}

uint32_t lower_member_offset(lower *L, uint32_t tid, uint32_t index, bool expl)
{
    type_info *t = lower_type(L, tid);
    if (index >= t->nmembers) {
        lower_fail(L, ISA_ERR_INVALID, "member %u of struct %%%u with %u members", index, tid, t->nmembers);
        return 0;
    }
    if (expl) {
        if (t->offsets[index] == UINT32_MAX)
            lower_fail(L, ISA_ERR_INVALID, "member %u of block %%%u has no Offset decoration", index, tid);
        return t->offsets[index];
    }
    return natural_member_offset(L, t, tid, index);
}

/* Size in bytes the layout of tid needs (runtime arrays count zero elements), saturating like natural_size. */
static uint64_t layout_size(lower *L, uint32_t tid, bool expl)
{
    type_info *t = lower_type(L, tid);
    if (!expl)
        return natural_size(L, tid);
    switch (t->op) {
    case SpvOpTypeStruct: {
        uint64_t end = 0;
        for (uint32_t i = 0; i < t->nmembers; i++) {
            uint64_t e = (uint64_t)lower_member_offset(L, tid, i, true) + layout_size(L, t->members[i], true);
            if (e > end)
                end = e;
        }
        return end;
    }
    case SpvOpTypeArray: return size_mul(t->count, lower_elem_stride(L, tid, true, 0));
    case SpvOpTypeRuntimeArray: return 0;
    case SpvOpTypeMatrix: return size_mul(t->count, natural_size(L, t->elem));
    default: return natural_size(L, tid);
    }
}

/* ------------------------------------------------------------ parse module */

/* Records the definition of a result id; NULL (and the error set) when the id is out of range. */
static id_info *define_id(lower *L, uint32_t id, enum id_kind kind, uint32_t type, size_t word)
{
    if (id == 0 || id >= L->bound) {
        lower_fail(L, ISA_ERR_INVALID, "id %%%u out of range (bound %u)", id, L->bound);
        return NULL;
    }
    id_info *d = &L->ids[id];
    d->kind = (uint8_t)kind;
    d->type = type;
    d->word = (uint32_t)word;
    return d;
}

bool lower_parse_module(lower *L)
{
    const uint32_t *w = L->w;
    if (spv_header_problem(w, L->n)) {
        lower_fail(L, ISA_ERR_INVALID, "not a SPIR-V module (magic number 0x%08x)", L->n ? w[0] : 0);
        return false;
    }
    L->bound = w[3];
    if (L->bound == 0 || L->bound > (1u << 22)) {
        lower_fail(L, ISA_ERR_INVALID, "word 3: id bound %u out of range", L->bound);
        return false;
    }
    /* size the id table by the ids the module defines: every id of a valid module is some
     * instruction's result, and a reference past them is reported as out of range */
    uint32_t used = isa_spirv_used_id_bound(w, L->n);
    if (used && used < L->bound)
        L->bound = used;
    L->ids = calloc(L->bound, sizeof *L->ids);
    if (!L->ids) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < L->bound; i++) {
        L->ids[i].builtin = -1;
        L->ids[i].set = -1;
        L->ids[i].binding = -1;
        L->ids[i].slot = -1;
        L->ids[i].off_reg = ISA_NO_REG;
    }
    /* first pass: definitions of types, constants, variables, names, decorations */
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, w, L->n, SPV_HEADER_WORDS);
    for (;;) {
        spv_step step = spv_next(&it, &in);
        if (step == SPV_STEP_END)
            break;
        L->cur_word = (uint32_t)in.word;
        if (step == SPV_STEP_BAD) {
            lower_fail(L, ISA_ERR_INVALID, "instruction word count %u runs past the end of the module", in.wc);
            return false;
        }
        SpvOp op = in.op;
        const uint32_t *o = in.o; /* operands */
        uint32_t no = in.no;
#define NEED(k)                                                               \
    if (no < (k)) {                                                           \
        lower_fail(L, ISA_ERR_INVALID, "too few operands (%u, need %u)", no, (k)); \
        return false;                                                         \
    }
#define ID_OK(x)                                                                      \
    if ((x) == 0 || (x) >= L->bound) {                                                \
        lower_fail(L, ISA_ERR_INVALID, "id %%%u out of range (bound %u)", (x), L->bound); \
        return false;                                                                 \
    }
        switch (op) {
        case SpvOpName:
            NEED(2);
            ID_OK(o[0]);
            L->ids[o[0]].name = spv_string(&in, 1, NULL);
            break;
        case SpvOpExtInstImport:
            NEED(2);
            ID_OK(o[0]);
            L->ids[o[0]].kind = K_EXTINST;
            L->ids[o[0]].name = spv_string(&in, 1, NULL);
            if (L->ids[o[0]].name && strncmp(L->ids[o[0]].name, "GLSL.std.450", 12) == 0)
                L->glsl_ext = o[0];
            break;
        case SpvOpString:
            NEED(2);
            ID_OK(o[0]);
            L->ids[o[0]].kind = K_STRING;
            L->ids[o[0]].name = spv_string(&in, 1, NULL);
            if (!L->ids[o[0]].name)
                L->ids[o[0]].name = "";
            break;
        case SpvOpDecorate: {
            NEED(2);
            ID_OK(o[0]);
            id_info *d = &L->ids[o[0]];
            switch (o[1]) {
            case SpvDecorationBuiltIn: if (no >= 3) d->builtin = (int32_t)o[2]; break;
            case SpvDecorationDescriptorSet: if (no >= 3) d->set = (int32_t)o[2]; break;
            case SpvDecorationBinding: if (no >= 3) d->binding = (int32_t)o[2]; break;
            case SpvDecorationNonWritable: d->nonwritable = true; break;
            case SpvDecorationSpecId: if (no >= 3) d->spec_id = o[2] + 1; break;
            default: break;
            }
            break;
        }
        default: break;
        }
        if (op == SpvOpFunction)
            break; /* declarations end here; types need decorations first (second loop) */
    }
    if (L->failed)
        return false;
    /* second pass: types, constants, global variables (decorations are known now) */
    spv_iter_init(&it, w, L->n, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST) {
        SpvOp op = in.op;
        size_t i = in.word;
        L->cur_word = (uint32_t)i;
        const uint32_t *o = in.o;
        uint32_t no = in.no;
        if (op == SpvOpFunction)
            break;
        if (op >= SpvOpTypeVoid && op <= SpvOpTypeForwardPointer && op != SpvOpTypeForwardPointer) {
            NEED(1);
            ID_OK(o[0]);
            if (L->ids[o[0]].kind != K_NONE && L->ids[o[0]].kind != K_TYPE) {
                lower_fail(L, ISA_ERR_INVALID, "id %%%u is defined twice", o[0]);
                return false;
            }
            if (L->ids[o[0]].kind == K_TYPE) {
                lower_fail(L, ISA_ERR_INVALID, "type id %%%u is defined twice", o[0]);
                return false;
            }
            type_info *t = calloc(1, sizeof *t);
            if (!t) {
                lower_fail(L, ISA_ERR_NOMEM, "out of memory");
                return false;
            }
            t->op = op;
            id_info *d = &L->ids[o[0]];
            d->kind = K_TYPE;
            d->t = t;
            d->word = (uint32_t)i;
            switch (op) {
            case SpvOpTypeInt: NEED(3); t->width = o[1]; t->is_signed = o[2] != 0; break;
            case SpvOpTypeFloat: NEED(2); t->width = o[1]; break;
            case SpvOpTypeVector: case SpvOpTypeMatrix:
                NEED(3);
                ID_OK(o[1]);
                t->elem = o[1];
                t->count = o[2];
                break;
            case SpvOpTypeArray:
                NEED(3);
                ID_OK(o[1]);
                ID_OK(o[2]);
                t->elem = o[1];
                if (!L->ids[o[2]].cknown && L->ids[o[2]].kind == K_CONST) {
                    uint64_t len = 0; /* an OpSpecConstantOp: evaluated now (its operands precede it) */
                    lower_const_bits(L, o[2], &len, 1);
                    if (L->failed)
                        return false;
                }
                if (!L->ids[o[2]].cknown) {
                    lower_fail(L, ISA_ERR_UNSUPPORTED, "array length %%%u is not a constant the model can evaluate", o[2]);
                    return false;
                }
                t->count = (uint32_t)L->ids[o[2]].cval;
                break;
            case SpvOpTypeRuntimeArray: NEED(2); ID_OK(o[1]); t->elem = o[1]; break;
            case SpvOpTypeStruct:
                t->nmembers = no - 1;
                t->members = calloc(no, sizeof *t->members);
                t->offsets = calloc(no, sizeof *t->offsets);
                t->mstride = calloc(no, sizeof *t->mstride);
                t->row_major = calloc(no, sizeof *t->row_major);
                if (!t->members || !t->offsets || !t->mstride || !t->row_major) {
                    lower_fail(L, ISA_ERR_NOMEM, "out of memory");
                    return false;
                }
                for (uint32_t m = 0; m < t->nmembers; m++) {
                    ID_OK(o[1 + m]);
                    t->members[m] = o[1 + m];
                    t->offsets[m] = UINT32_MAX;
                }
                break;
            case SpvOpTypePointer: NEED(3); ID_OK(o[2]); t->storage = o[1]; t->elem = o[2]; break;
            case SpvOpTypeImage:
                NEED(8);
                t->elem = o[1];
                t->image_dim = o[2];
                t->image_arrayed = o[4] != 0;
                t->image_ms = o[5] != 0;
                t->image_sampled = o[6];
                t->image_format = o[7];
                break;
            case SpvOpTypeSampledImage: NEED(2); t->elem = o[1]; break;
            default: break;
            }
        } else {
            switch (op) {
            case SpvOpConstant: case SpvOpSpecConstant: {
                NEED(3);
                ID_OK(o[0]);
                id_info *d = define_id(L, o[1], K_CONST, o[0], i);
                if (!d)
                    return false;
                uint64_t v = o[2];
                if (no >= 4)
                    v |= (uint64_t)o[3] << 32;
                else if (L->ids[o[0]].kind == K_TYPE && L->ids[o[0]].t->op == SpvOpTypeInt &&
                         L->ids[o[0]].t->is_signed && (v & 0x80000000u) && L->ids[o[0]].t->width == 32)
                    v |= 0xffffffff00000000ull;
                d->cval = v;
                d->cknown = true;
                break;
            }
            case SpvOpConstantTrue: case SpvOpConstantFalse: case SpvOpSpecConstantTrue: case SpvOpSpecConstantFalse: {
                NEED(2);
                id_info *d = define_id(L, o[1], K_CONST, o[0], i);
                if (!d)
                    return false;
                d->cval = (op == SpvOpConstantTrue || op == SpvOpSpecConstantTrue);
                d->cknown = true;
                break;
            }
            case SpvOpConstantComposite: case SpvOpSpecConstantComposite: case SpvOpConstantNull:
            case SpvOpSpecConstantOp:
                NEED(2);
                if (!define_id(L, o[1], K_CONST, o[0], i))
                    return false;
                break;
            case SpvOpUndef:
                NEED(2);
                if (!define_id(L, o[1], K_UNDEF, o[0], i))
                    return false;
                break;
            case SpvOpVariable: {
                NEED(3);
                id_info *d = define_id(L, o[1], K_VAR, o[0], i);
                if (!d)
                    return false;
                d->storage = o[2];
                break;
            }
            default: break;
            }
        }
    }
    /* decorations on types (ArrayStride, Block, BufferBlock, member Offsets) — they precede
     * the types in the module, so apply them now. */
    spv_iter_init(&it, w, L->n, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST) {
        SpvOp op = in.op;
        const uint32_t *o = in.o;
        uint32_t no = in.no;
        if (op == SpvOpFunction)
            break;
        if ((op == SpvOpDecorate || op == SpvOpMemberDecorate) && no >= 1 && (o[0] == 0 || o[0] >= L->bound)) {
            L->cur_word = (uint32_t)in.word;
            lower_fail(L, ISA_ERR_INVALID, "decoration of id %%%u, out of range (bound %u)", o[0], L->bound);
            return false;
        }
        if (op == SpvOpDecorate && no >= 2 && L->ids[o[0]].kind == K_TYPE) {
            type_info *t = L->ids[o[0]].t;
            if (o[1] == SpvDecorationArrayStride && no >= 3)
                t->array_stride = o[2];
            else if (o[1] == SpvDecorationBlock)
                t->block = true;
            else if (o[1] == SpvDecorationBufferBlock)
                t->buffer_block = true;
        } else if (op == SpvOpMemberDecorate && no >= 3 && L->ids[o[0]].kind == K_TYPE &&
                   L->ids[o[0]].t->op == SpvOpTypeStruct) {
            type_info *t = L->ids[o[0]].t;
            if (o[1] < t->nmembers) {
                if (o[2] == SpvDecorationOffset && no >= 4)
                    t->offsets[o[1]] = o[3];
                else if (o[2] == SpvDecorationMatrixStride && no >= 4)
                    t->mstride[o[1]] = o[3];
                else if (o[2] == SpvDecorationRowMajor)
                    t->row_major[o[1]] = true;
            }
        }
    }
#undef NEED
#undef ID_OK
    return !L->failed;
}

/* Values of constants (registers filled at wave start). */

void lower_const_bits(lower *L, uint32_t id, uint64_t *out, uint32_t n)
{
    id_info *d = &L->ids[id];
    if (d->kind == K_UNDEF) {
        memset(out, 0, n * sizeof *out);
        return;
    }
    const uint32_t *o = L->w + d->word + 1;
    SpvOp op = (SpvOp)(L->w[d->word] & 0xffff);
    uint32_t wc = L->w[d->word] >> 16;
    if (d->cknown) {
        out[0] = d->cval;
        return;
    }
    if (op == SpvOpConstantNull) {
        memset(out, 0, n * sizeof *out);
        return;
    }
    if (op == SpvOpConstantComposite || op == SpvOpSpecConstantComposite) {
        uint32_t k = 0;
        for (uint32_t c = 2; c < wc - 1 && !L->failed; c++) {
            uint32_t cid = o[c];
            if (cid >= L->bound || (L->ids[cid].kind != K_CONST && L->ids[cid].kind != K_UNDEF)) {
                lower_fail(L, ISA_ERR_INVALID, "constant composite %%%u has a non-constant part", id);
                return;
            }
            uint32_t m = lower_reg_count_of(L, L->ids[cid].type);
            if (k + m > n) {
                lower_fail(L, ISA_ERR_INVALID, "constant composite %%%u has too many parts", id);
                return;
            }
            lower_const_bits(L, cid, out + k, m);
            k += m;
        }
        return;
    }
    if (op == SpvOpSpecConstantOp) {
        /* sizes and bounds derived from specialization constants: evaluated wherever a constant is needed */
        uint32_t opc = o[2];
        if (opc == SpvOpCompositeExtract) {
            uint64_t tmp[64] = {0};
            uint32_t cid = o[3];
            uint32_t m = cid < L->bound ? lower_reg_count_of(L, L->ids[cid].type) : 0;
            if (m == 0 || m > 64 || wc < 6) {
                lower_fail(L, ISA_ERR_UNSUPPORTED, "OpSpecConstantOp CompositeExtract too large");
                return;
            }
            lower_const_bits(L, cid, tmp, m);
            uint32_t member = 0;
            uint32_t at = lower_reg_offset_of(L, L->ids[cid].type, o[4], &member);
            out[0] = d->cval = tmp[at < m ? at : 0];
            d->cknown = !L->failed;
            return;
        }
        uint64_t x[3] = {0, 0, 0};
        for (uint32_t k = 0; k < 3 && 4 + k < wc; k++) {
            uint32_t arg = o[3 + k];
            if (arg == 0 || arg >= L->bound || L->ids[arg].kind != K_CONST) {
                lower_fail(L, ISA_ERR_INVALID, "OpSpecConstantOp %%%u has a non-constant operand %%%u", id, arg);
                return;
            }
            lower_const_bits(L, arg, &x[k], 1);
        }
        uint64_t a = x[0], b = x[1];
        int64_t sa = (int64_t)a, sb = (int64_t)b;
        uint64_t r;
        switch (opc) {
        case SpvOpIAdd: r = a + b; break;
        case SpvOpISub: r = a - b; break;
        case SpvOpIMul: r = a * b; break;
        case SpvOpUDiv: r = b ? a / b : 0; break;
        case SpvOpSDiv: r = sb && !(sb == -1 && sa == INT64_MIN) ? (uint64_t)(sa / sb) : 0; break;
        case SpvOpUMod: r = b ? a % b : 0; break;
        case SpvOpSRem: r = sb && sb != -1 ? (uint64_t)(sa % sb) : 0; break;
        case SpvOpSMod: r = sb && sb != -1 ? (uint64_t)(((sa % sb) + sb) % sb) : 0; break;
        case SpvOpSNegate: r = 0 - a; break;
        case SpvOpNot: r = ~a; break;
        case SpvOpShiftLeftLogical: r = b < 64 ? a << b : 0; break;
        case SpvOpShiftRightLogical: r = b < 64 ? a >> b : 0; break;
        case SpvOpShiftRightArithmetic: r = (uint64_t)(sa >> (b < 64 ? b : 63)); break;
        case SpvOpBitwiseAnd: r = a & b; break;
        case SpvOpBitwiseOr: r = a | b; break;
        case SpvOpBitwiseXor: r = a ^ b; break;
        case SpvOpLogicalAnd: r = a && b; break;
        case SpvOpLogicalOr: r = a || b; break;
        case SpvOpLogicalNot: r = !a; break;
        case SpvOpLogicalEqual: case SpvOpIEqual: r = a == b; break;
        case SpvOpLogicalNotEqual: case SpvOpINotEqual: r = a != b; break;
        case SpvOpULessThan: r = a < b; break;
        case SpvOpSLessThan: r = sa < sb; break;
        case SpvOpUGreaterThan: r = a > b; break;
        case SpvOpSGreaterThan: r = sa > sb; break;
        case SpvOpULessThanEqual: r = a <= b; break;
        case SpvOpSLessThanEqual: r = sa <= sb; break;
        case SpvOpUGreaterThanEqual: r = a >= b; break;
        case SpvOpSGreaterThanEqual: r = sa >= sb; break;
        case SpvOpSelect: r = a ? b : x[2]; break;
        case SpvOpUConvert: case SpvOpSConvert: r = a; break;
        default:
            lower_fail(L, ISA_ERR_UNSUPPORTED, "OpSpecConstantOp with operation %u is not modelled", opc);
            return;
        }
        /* the result's width: truncated, and sign-extended for a signed type as OpConstant's are */
        const id_info *rt = &L->ids[d->type];
        if (rt->kind == K_TYPE && rt->t->op == SpvOpTypeInt && rt->t->width < 64) {
            uint32_t bits = rt->t->width;
            r &= (1ull << bits) - 1;
            if (rt->t->is_signed && (r >> (bits - 1)) & 1)
                r |= ~((1ull << bits) - 1);
        }
        out[0] = r;
        d->cval = r;
        d->cknown = true;
        return;
    }
    lower_fail(L, ISA_ERR_INVALID, "id %%%u is not a constant", id);
}

/* Register of a value id (constants get their registers on first use). */
uint32_t lower_val(lower *L, uint32_t id)
{
    if (id == 0 || id >= L->bound) {
        lower_fail(L, ISA_ERR_INVALID, "id %%%u out of range", id);
        return 0;
    }
    id_info *d = &L->ids[id];
    if (d->kind == K_VALUE)
        return d->reg;
    if (d->kind == K_CONST || d->kind == K_UNDEF) {
        if (d->has_reg)
            return d->reg;
        uint32_t n = lower_reg_count_of(L, d->type);
        uint64_t stackbuf[16];
        uint64_t *bits = n <= 16 ? stackbuf : calloc(n, sizeof *bits);
        if (!bits) {
            lower_fail(L, ISA_ERR_NOMEM, "out of memory");
            return 0;
        }
        lower_const_bits(L, id, bits, n);
        /* consecutive registers for composites; scalars share the constant pool */
        uint32_t r;
        if (n == 1) {
            r = lower_const_reg(L, bits[0]);
        } else {
            r = lower_new_regs(L, n);
            isa_program *p = L->p;
            for (uint32_t k = 0; k < n; k++) {
                isa_const_reg *c = lower_grow(p->consts, &L->const_cap, p->const_count + 1, sizeof *c);
                if (!c) {
                    lower_fail(L, ISA_ERR_NOMEM, "out of memory");
                    break;
                }
                p->consts = c;
                c[p->const_count].reg = r + k;
                c[p->const_count].bits = bits[k];
                p->const_count++;
            }
        }
        if (bits != stackbuf)
            free(bits);
        d->reg = r;
        d->has_reg = true;
        return r;
    }
    lower_fail(L, ISA_ERR_INVALID, "id %%%u is used as a value before it is defined (or is not a value)", id);
    return 0;
}

uint32_t lower_const_u32(lower *L, uint32_t id)
{
    if (id == 0 || id >= L->bound || !L->ids[id].cknown) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "id %%%u must be a constant here", id);
        return 0;
    }
    return (uint32_t)L->ids[id].cval;
}

uint32_t lower_def_value(lower *L, uint32_t id, uint32_t type, uint32_t nregs)
{
    if (id == 0 || id >= L->bound) {
        lower_fail(L, ISA_ERR_INVALID, "result id %%%u out of range", id);
        return 0;
    }
    id_info *d = &L->ids[id];
    if (d->kind == K_VALUE)
        return d->reg; /* phis are given registers before their block */
    d->kind = K_VALUE;
    d->type = type;
    d->reg = lower_new_regs(L, nregs);
    return d->reg;
}

void lower_alias_value(lower *L, uint32_t id, uint32_t type, uint32_t reg)
{
    if (id == 0 || id >= L->bound) {
        lower_fail(L, ISA_ERR_INVALID, "result id %%%u out of range", id);
        return;
    }
    id_info *d = &L->ids[id];
    if (d->kind == K_VALUE) {
        /* already has registers (a phi): copy instead */
        uint32_t n = lower_reg_count_of(L, type);
        for (uint32_t k = 0; k < n; k++) {
            lower_emit_op(L, ISA_OP_MOV, ISA_TYPE_U64, d->reg + k, reg + k, ISA_NO_REG);
        }
        return;
    }
    d->kind = K_VALUE;
    d->type = type;
    d->reg = reg;
}

/* ------------------------------------------------------------ slots */

static int32_t add_slot(lower *L, isa_slot *s)
{
    isa_program *p = L->p;
    isa_slot *a = lower_grow(p->slots, &L->slot_cap, p->slot_count + 1, sizeof *a);
    if (!a) {
        lower_fail(L, ISA_ERR_NOMEM, "out of memory");
        return -1;
    }
    p->slots = a;
    a[p->slot_count] = *s;
    return (int32_t)p->slot_count++;
}

static void set_slot_name(lower *L, isa_slot *s, uint32_t var, uint32_t pointee)
{
    const char *nm = L->ids[var].name;
    if (!nm || !*nm)
        nm = L->ids[pointee].name;
    snprintf(s->name, sizeof s->name, "%s", nm && *nm ? nm : "");
    if (!s->name[0])
        snprintf(s->name, sizeof s->name, "%%%u", var);
}

static int builtin_of_spirv(int32_t b)
{
    switch (b) {
    case SpvBuiltInGlobalInvocationId: return ISA_BI_GLOBAL_ID;
    case SpvBuiltInLocalInvocationId: return ISA_BI_LOCAL_ID;
    case SpvBuiltInWorkgroupId: return ISA_BI_WORKGROUP_ID;
    case SpvBuiltInNumWorkgroups: return ISA_BI_NUM_WORKGROUPS;
    case SpvBuiltInLocalInvocationIndex: return ISA_BI_LOCAL_INDEX;
    case SpvBuiltInWorkgroupSize: return ISA_BI_WORKGROUP_SIZE;
    case SpvBuiltInSubgroupSize: return ISA_BI_SUBGROUP_SIZE;
    case SpvBuiltInSubgroupLocalInvocationId: return ISA_BI_SUBGROUP_LOCAL_ID;
    case SpvBuiltInSubgroupId: return ISA_BI_SUBGROUP_ID;
    case SpvBuiltInNumSubgroups: return ISA_BI_NUM_SUBGROUPS;
    case SpvBuiltInSubgroupEqMask: return ISA_BI_EQ_MASK;
    case SpvBuiltInSubgroupGeMask: return ISA_BI_GE_MASK;
    case SpvBuiltInSubgroupGtMask: return ISA_BI_GT_MASK;
    case SpvBuiltInSubgroupLeMask: return ISA_BI_LE_MASK;
    case SpvBuiltInSubgroupLtMask: return ISA_BI_LT_MASK;
    default: return -1;
    }
}

/* Makes the slots of the module's variables; built-in inputs become registers. */
void lower_make_variables(lower *L)
{
    isa_program *p = L->p;
    for (uint32_t id = 1; id < L->bound && !L->failed; id++) {
        id_info *d = &L->ids[id];
        if (d->kind != K_VAR)
            continue;
        L->cur_word = d->word;
        type_info *pt = lower_type(L, d->type);
        uint32_t pointee = pt->elem;
        type_info *t = lower_type(L, pointee);
        isa_slot s;
        memset(&s, 0, sizeof s);
        switch (d->storage) {
        case SpvStorageClassInput: {
            int bi = builtin_of_spirv(d->builtin);
            if (bi < 0) {
                lower_fail(L, ISA_ERR_UNSUPPORTED, "input variable %%%u is not a compute built-in the model knows (BuiltIn %d)",
                     id, d->builtin);
                return;
            }
            uint32_t n = lower_reg_count_of(L, pointee);
            uint32_t r = lower_new_regs(L, n);
            for (uint32_t k = 0; k < n; k++) {
                isa_builtin_reg *b = lower_grow(p->builtins, &L->bi_cap, p->builtin_count + 1, sizeof *b);
                if (!b) {
                    lower_fail(L, ISA_ERR_NOMEM, "out of memory");
                    return;
                }
                p->builtins = b;
                b[p->builtin_count].reg = r + k;
                b[p->builtin_count].builtin = (uint8_t)bi;
                b[p->builtin_count].component = (uint8_t)k;
                p->builtin_count++;
            }
            d->kind = K_PTR;
            d->slot = -1;
            d->off_const = r;
            d->type = d->type;
            break;
        }
        case SpvStorageClassStorageBuffer: case SpvStorageClassUniform: case SpvStorageClassPushConstant: {
            bool is_storage = d->storage == SpvStorageClassStorageBuffer ||
                              (d->storage == SpvStorageClassUniform && t->buffer_block);
            s.space = d->storage == SpvStorageClassPushConstant ? ISA_SPACE_PUSH
                      : is_storage                              ? ISA_SPACE_STORAGE
                                                                : ISA_SPACE_UNIFORM;
            if (s.space != ISA_SPACE_PUSH && (d->set < 0 || d->binding < 0)) {
                lower_fail(L, ISA_ERR_INVALID, "buffer variable %%%u has no DescriptorSet/Binding", id);
                return;
            }
            s.set = d->set < 0 ? 0 : (uint32_t)d->set;
            s.binding = d->binding < 0 ? 0 : (uint32_t)d->binding;
            s.static_size = size_u32(L, layout_size(L, pointee, true), pointee, "block size");
            s.readonly = s.space != ISA_SPACE_STORAGE || d->nonwritable;
            set_slot_name(L, &s, id, pointee);
            d->kind = K_PTR;
            d->slot = add_slot(L, &s);
            d->off_const = 0;
            break;
        }
        case SpvStorageClassUniformConstant: {
            /* images, samplers (isa/lower_image.c) */
            if (lower_image_slot(L, id, pointee, &s)) {
                set_slot_name(L, &s, id, pointee);
                d->kind = K_PTR;
                d->slot = add_slot(L, &s);
                break;
            }
            if (L->failed)
                return;
            /* texel buffers: OpTypeImage with Dim Buffer */
            if (t->op != SpvOpTypeImage && t->op != SpvOpTypeSampledImage) {
                lower_fail(L, ISA_ERR_UNSUPPORTED, "UniformConstant variable %%%u of type %s is not a texel buffer", id,
                     lower_op_name(t->op));
                return;
            }
            type_info *it = t->op == SpvOpTypeSampledImage ? lower_type(L, t->elem) : t;
            if (it->image_dim != SpvDimBuffer) {
                lower_fail(L, ISA_ERR_UNSUPPORTED, "image variable %%%u: only texel buffers (Dim Buffer) are modelled, "
                                             "not textures", id);
                return;
            }
            s.space = it->image_sampled == 2 ? ISA_SPACE_STORAGE_TEXEL : ISA_SPACE_UNIFORM_TEXEL;
            s.set = d->set < 0 ? 0 : (uint32_t)d->set;
            s.binding = d->binding < 0 ? 0 : (uint32_t)d->binding;
            s.format = isa_format_from_spirv(it->image_format);
            s.texel_type = lower_scalar_isa_type(L, it->elem);
            s.readonly = s.space == ISA_SPACE_UNIFORM_TEXEL || d->nonwritable;
            set_slot_name(L, &s, id, pointee);
            d->kind = K_PTR;
            d->slot = add_slot(L, &s);
            break;
        }
        case SpvStorageClassWorkgroup: case SpvStorageClassPrivate: case SpvStorageClassFunction: {
            if (d->fold_rep && d->fold_rep != id) { /* shares its representative's table (lower_constvar.c) */
                d->kind = K_PTR;
                d->slot = L->ids[d->fold_rep].slot;
                d->off_const = 0;
                break;
            }
            bool wg = d->storage == SpvStorageClassWorkgroup;
            /* SPV_KHR_workgroup_memory_explicit_layout: a Workgroup variable of a Block type is laid out by its
             * Offset and ArrayStride decorations, and every such variable starts at offset 0 of the workgroup's
             * memory ("all the Workgroup blocks share the same underlying storage"); a module has all its
             * Workgroup variables in blocks or none */
            bool shared_block = wg && t->block;
            s.space = wg ? ISA_SPACE_WORKGROUP : ISA_SPACE_PRIVATE;
            uint32_t *area = wg ? &p->workgroup_bytes : &p->private_bytes;
            uint32_t a = natural_align(L, pointee);
            if (a < 4)
                a = 4;
            set_slot_name(L, &s, id, pointee);
            /* the simulator allocates these areas per workgroup and per lane: bound them (docs/quirks.md) */
            uint64_t limit = wg ? ISA_MAX_WORKGROUP_BYTES : ISA_MAX_PRIVATE_BYTES;
            uint64_t size = shared_block ? layout_size(L, pointee, true) : natural_size(L, pointee);
            uint64_t base = shared_block ? 0 : size_round(*area, a), end = base + size;
            if (end > limit) {
                char before[64] = "";
                if (end != size)
                    snprintf(before, sizeof before, " (%llu with the variables before it)", (unsigned long long)end);
                lower_fail(L, ISA_ERR_UNSUPPORTED, "%s variable '%s' (%%%u) needs %s%llu bytes%s; wavelab models at most "
                           "%llu bytes of %s", wg ? "workgroup (shared)" : "private", s.name, id,
                           size >= LAYOUT_SIZE_MAX ? "at least " : "", (unsigned long long)size, before,
                           (unsigned long long)limit, wg ? "shared memory per workgroup" : "private memory per invocation");
                return;
            }
            s.static_size = (uint32_t)size;
            s.base = (uint32_t)base;
            if (end > *area)
                *area = (uint32_t)end;
            L->workgroup_explicit |= shared_block;
            d->kind = K_PTR;
            d->slot = add_slot(L, &s);
            d->off_const = 0;
            break;
        }
        default:
            lower_fail(L, ISA_ERR_UNSUPPORTED, "variables in storage class %u are not modelled", d->storage);
            return;
        }
        d->type = d->type;
    }
}
