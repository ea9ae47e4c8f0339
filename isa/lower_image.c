/*
 * isa/lower_image.c — images other than texel buffers, for compute: the
 * slots of image, sampled-image and sampler variables, and the image
 * instructions (read, write, fetch, sampling with an explicit or implicit
 * lod, projective or not, gather, the size and level queries, texel pointers
 * for image atomics).
 *
 * An image never becomes a register: like a pointer, an image or sampler
 * value is resolved at lowering time to its slot (OpLoad of the variable,
 * OpSampledImage pairing an image slot with a sampler slot, OpImage taking
 * the image back).  Coordinates are the registers of the coordinate vector,
 * `count` of them; the executor (sim/image_exec.c) reads the image's
 * dimensionality and format from the binding.  What is not modelled (offsets
 * that are not constants on sampling and gathers, multisampling, sparse
 * residency, arrays of images indexed at run time) fails with the word offset.
 */
#include "isa/lower_internal.h"

/* SPIR-V Image Operands bits the lowering takes. */
enum { IMG_OPND_LOD = 0x2, IMG_OPND_GRAD = 0x4, IMG_OPND_CONST_OFFSET = 0x8, IMG_OPND_OFFSET = 0x10,
       IMG_OPND_CONST_OFFSETS = 0x20, IMG_OPND_SAMPLE = 0x40 };

static bool is_image_type(const type_info *t)
{
    return t->op == SpvOpTypeImage || t->op == SpvOpTypeSampledImage || t->op == SpvOpTypeSampler;
}

bool lower_image_slot(lower *L, uint32_t var, uint32_t pointee, isa_slot *s)
{
    type_info *t = lower_type(L, pointee);
    const id_info *d = &L->ids[var];
    if (!is_image_type(t))
        return false;
    if (t->op != SpvOpTypeSampler) {
        type_info *it = t->op == SpvOpTypeSampledImage ? lower_type(L, t->elem) : t;
        if (it->image_dim == SpvDimBuffer)
            return false; /* texel buffers: lower_module.c */
        static const uint8_t dims[] = {[SpvDim1D] = ISA_IMAGE_1D + 1, [SpvDim2D] = ISA_IMAGE_2D + 1,
                                       [SpvDim3D] = ISA_IMAGE_3D + 1, [SpvDimCube] = ISA_IMAGE_CUBE + 1};
        if (it->image_dim >= sizeof dims || !dims[it->image_dim]) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "image variable %%%u has Dim %u: only 1D, 2D, 3D and Cube images "
                       "(and texel buffers) are modelled", var, it->image_dim);
            return false;
        }
        if (it->image_ms && it->image_dim != SpvDim2D) {
            lower_fail(L, ISA_ERR_INVALID, "image variable %%%u is multisampled with Dim %u: SPIR-V allows 2D only",
                       var, it->image_dim);
            return false;
        }
        isa_type tt = lower_scalar_isa_type(L, it->elem);
        if (tt != ISA_TYPE_F32 && tt != ISA_TYPE_U32 && tt != ISA_TYPE_I32 && tt != ISA_TYPE_U64 &&
            tt != ISA_TYPE_I64) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "image variable %%%u has sampled type %s: only 32-bit float and "
                       "32- and 64-bit integer image types are modelled", var, isa_type_name(tt));
            return false;
        }
        s->space = it->image_sampled == 2 ? ISA_SPACE_STORAGE_IMAGE : ISA_SPACE_SAMPLED_IMAGE;
        s->image_dim = (uint8_t)(dims[it->image_dim] - 1);
        s->image_arrayed = it->image_arrayed;
        s->image_ms = it->image_ms;
        s->image_combined = t->op == SpvOpTypeSampledImage;
        s->image_format = it->image_format;
        s->texel_type = tt;
        s->readonly = s->space == ISA_SPACE_SAMPLED_IMAGE || d->nonwritable;
    } else {
        s->space = ISA_SPACE_SAMPLER;
        s->readonly = 1;
    }
    if (d->set < 0 || d->binding < 0) {
        lower_fail(L, ISA_ERR_INVALID, "image variable %%%u has no DescriptorSet/Binding", var);
        return false;
    }
    s->set = (uint32_t)d->set;
    s->binding = (uint32_t)d->binding;
    return true;
}

/* The slot behind an image operand (K_IMAGE, or a variable for texel pointers); -1 after a failure. */
static int32_t image_of(lower *L, uint32_t id, bool want_sampler)
{
    if (id == 0 || id >= L->bound || (L->ids[id].kind != K_IMAGE && L->ids[id].kind != K_PTR) || L->ids[id].slot < 0) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "image operand %%%u does not come from an image variable", id);
        return -1;
    }
    const id_info *d = &L->ids[id];
    if (want_sampler && (d->kind != K_IMAGE || d->sampler_slot < 0)) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "sampled image %%%u has no sampler", id);
        return -1;
    }
    return d->slot;
}

static bool is_texel_buffer(const lower *L, int32_t slot)
{
    isa_space sp = L->p->slots[slot].space;
    return sp == ISA_SPACE_STORAGE_TEXEL || sp == ISA_SPACE_UNIFORM_TEXEL;
}

/* The registers of a coordinate (or gradient) operand and how many components it has. */
static uint32_t coord_regs(lower *L, uint32_t id, uint8_t *count)
{
    if (id == 0 || id >= L->bound) {
        lower_fail(L, ISA_ERR_INVALID, "id %%%u out of range (bound %u)", id, L->bound);
        return ISA_NO_REG;
    }
    type_info *t = lower_type(L, L->ids[id].type);
    *count = (uint8_t)(t->op == SpvOpTypeVector ? t->count : 1);
    return lower_val(L, id);
}

/* The component type of an image instruction's result (a vec4 of it, or a scalar for atomics): 32-bit float, or
 * 32- or 64-bit integer (Int64ImageEXT). */
static isa_type result_type(lower *L, uint32_t rtype)
{
    isa_type t = lower_scalar_isa_type(L, lower_component_type(L, rtype));
    if (t != ISA_TYPE_F32 && t != ISA_TYPE_U32 && t != ISA_TYPE_I32 && t != ISA_TYPE_U64 && t != ISA_TYPE_I64) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "image results of type %s are not modelled (32-bit float, 32- or 64-bit "
                   "integer)", isa_type_name(t));
        return ISA_TYPE_U32;
    }
    return t;
}

/* An Offset or ConstOffset image operand: its registers and component count (ISA_NO_REG and 0 when absent), and
 * its value when it is a constant. */
typedef struct image_offset {
    uint32_t reg;
    uint8_t count;
    bool constant;
    int64_t value[3];
    uint32_t offsets_id; /* a ConstOffsets operand (a gather's four offsets): its constant's id, 0 when absent */
} image_offset;

/* Image Operands from o[at] on: Lod into *lod, Grad into *dx and *dy, ConstOffset, Offset or ConstOffsets into
 * *off, Sample into *sample; anything else fails the lowering.  A NULL out-pointer: the operand is not allowed on
 * this instruction. */
static void image_operands(lower *L, const uint32_t *o, uint32_t no, uint32_t at, uint32_t *lod, uint32_t *dx,
                           uint32_t *dy, uint8_t *grad_count, image_offset *off, uint32_t *sample)
{
    uint32_t unused[4];
    image_offset unused_off;
    bool lod_ok = lod != NULL, grad_ok = dx != NULL, off_ok = off != NULL, sample_ok = sample != NULL;
    if (!lod)
        lod = &unused[0];
    if (!dx)
        dx = &unused[1], dy = &unused[2];
    if (!off)
        off = &unused_off;
    if (!sample)
        sample = &unused[3];
    *lod = *dx = *dy = *sample = ISA_NO_REG;
    *off = (image_offset){.reg = ISA_NO_REG};
    if (no <= at)
        return;
    uint32_t mask = o[at], k = at + 1;
    uint32_t offsets = off_ok ? (uint32_t)(IMG_OPND_CONST_OFFSET | IMG_OPND_OFFSET | IMG_OPND_CONST_OFFSETS) : 0;
    /* SignExtend/ZeroExtend (SPIR-V 1.4, glslang writes them for integer texels): the binding's format already
     * decides how its integers widen, and the case's binding must match the declared numeric class
     * (docs/quirks.md); Nontemporal is a cache hint; none carries an operand */
    uint32_t no_effect = SpvImageOperandsNonPrivateTexelMask | SpvImageOperandsVolatileTexelMask |
                         SpvImageOperandsSignExtendMask | SpvImageOperandsZeroExtendMask |
                         SpvImageOperandsNontemporalMask;
    if (mask & ~(uint32_t)(IMG_OPND_LOD | IMG_OPND_GRAD | offsets | (sample_ok ? IMG_OPND_SAMPLE : 0) | no_effect)) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "image operands 0x%x: only Lod, Grad, ConstOffset, Offset, ConstOffsets "
                   "and (on reads, writes and fetches) Sample are modelled (no Bias or MinLod)", mask);
        return;
    }
    if (mask & IMG_OPND_LOD) {
        if (k >= no || !lod_ok) {
            lower_fail(L, ISA_ERR_INVALID, "Lod image operand missing or not allowed here");
            return;
        }
        CHECK_ID(L, o[k]);
        *lod = lower_val(L, o[k++]);
    }
    if (mask & IMG_OPND_GRAD) {
        if (k + 1 >= no || !grad_ok) {
            lower_fail(L, ISA_ERR_INVALID, "Grad image operands missing or not allowed here");
            return;
        }
        uint8_t ny;
        *dx = coord_regs(L, o[k++], grad_count);
        *dy = coord_regs(L, o[k++], &ny);
    }
    const uint32_t both = IMG_OPND_CONST_OFFSET | IMG_OPND_OFFSET;
    if (mask & both) { /* one or the other: its operand comes next */
        if (k >= no || (mask & both) == both) {
            lower_fail(L, ISA_ERR_INVALID, "offset image operand missing, or both ConstOffset and Offset");
            return;
        }
        CHECK_ID(L, o[k]);
        off->reg = coord_regs(L, o[k], &off->count);
        if (L->ids[o[k]].kind == K_CONST && off->count <= 3) {
            uint64_t bits[3] = {0, 0, 0};
            lower_const_bits(L, o[k], bits, off->count);
            for (unsigned c = 0; c < off->count; c++)
                off->value[c] = (int32_t)(uint32_t)bits[c];
            off->constant = true;
        }
        k++;
    }
    if (mask & IMG_OPND_CONST_OFFSETS) {
        if (k >= no || (mask & both)) {
            lower_fail(L, ISA_ERR_INVALID, "ConstOffsets image operand missing, or given with ConstOffset or Offset");
            return;
        }
        CHECK_ID(L, o[k]);
        if (L->ids[o[k]].kind != K_CONST) {
            lower_fail(L, ISA_ERR_INVALID, "ConstOffsets %%%u is not a constant", o[k]);
            return;
        }
        off->offsets_id = o[k++];
    }
    if (mask & IMG_OPND_SAMPLE) {
        if (k >= no) {
            lower_fail(L, ISA_ERR_INVALID, "Sample image operand missing");
            return;
        }
        CHECK_ID(L, o[k]);
        *sample = lower_val(L, o[k++]);
    }
}

/*
 * The coordinates of a multisampled image's texel with its sample index appended, (x, y[, layer], sample), the
 * order the executor reads them in (sim/image_exec.c); the coordinates unchanged on a single-sampled image.
 * SPIR-V requires the Sample operand on every read and write of a multisampled image and forbids it otherwise.
 */
static uint32_t sample_coords(lower *L, const isa_slot *image, uint32_t coords, uint8_t *ncoords, uint32_t sample)
{
    if (!image->image_ms) {
        if (sample != ISA_NO_REG)
            lower_fail(L, ISA_ERR_INVALID, "a Sample operand on image '%s', which is not multisampled", image->name);
        return coords;
    }
    if (sample == ISA_NO_REG) {
        lower_fail(L, ISA_ERR_INVALID, "multisampled image '%s' accessed without a Sample operand", image->name);
        return coords;
    }
    if (*ncoords > 3) {
        lower_fail(L, ISA_ERR_INVALID, "%u coordinates for multisampled image '%s'", *ncoords, image->name);
        return coords;
    }
    uint32_t with = lower_new_regs(L, *ncoords + 1u);
    lower_unary(L, ISA_OP_MOV, ISA_TYPE_U32, with, coords, *ncoords);
    lower_unary(L, ISA_OP_MOV, ISA_TYPE_U32, with + *ncoords, sample, 1);
    (*ncoords)++;
    return with;
}

/* A sampling or gather offset into the instruction: a constant within int8 (devices allow -8..7 at least), on an
 * image that is not a cube (SPIR-V has no offsets on cubes). */
static void sampling_offset(lower *L, isa_inst *in, image_offset off, uint8_t ncoords, const isa_slot *image)
{
    if (!off.count)
        return;
    if (image->image_dim == ISA_IMAGE_CUBE) {
        lower_fail(L, ISA_ERR_INVALID, "an offset on sampling cube image '%s': SPIR-V allows none", image->name);
        return;
    }
    if (!off.constant) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "a sampling or gather offset that is not a constant: not modelled "
                   "(Vulkan allows a variable Offset on gathers only)");
        return;
    }
    if (off.count + (image->image_arrayed ? 1u : 0u) > ncoords) {
        lower_fail(L, ISA_ERR_INVALID, "an image offset of %u components for %u coordinates", off.count, ncoords);
        return;
    }
    for (unsigned c = 0; c < off.count; c++) {
        if (off.value[c] < INT8_MIN || off.value[c] > INT8_MAX) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "sampling offset component %u is %lld texels: wavelab models -128 "
                       "to 127 (Vulkan devices allow at least -8 to 7)", c, (long long)off.value[c]);
            return;
        }
        in->texel_offset[c] = (int8_t)off.value[c];
    }
}

/* Coordinates moved by an integer texel offset: its components added to the first ones (the spatial ones: an
 * array's layer comes last and is not moved), as the Vulkan specification applies Offset and ConstOffset to a
 * fetch's integer texel coordinates. */
static uint32_t offset_coords(lower *L, uint32_t coords, uint8_t ncoords, image_offset off)
{
    if (off.reg == ISA_NO_REG)
        return coords;
    if (off.count > ncoords) {
        lower_fail(L, ISA_ERR_INVALID, "an image offset of %u components for %u coordinates", off.count, ncoords);
        return coords;
    }
    uint32_t moved = lower_new_regs(L, ncoords);
    lower_binary(L, ISA_OP_IADD, ISA_TYPE_I32, moved, coords, off.reg, off.count, false);
    if (ncoords > off.count)
        lower_unary(L, ISA_OP_MOV, ISA_TYPE_U32, moved + off.count, coords + off.count, ncoords - off.count);
    return moved;
}

/*
 * A projective sample's coordinates: (u[, v][, w], q) for the image's 1, 2 or 3 dimensions, q the component after
 * them (more components may follow, unused), become (u/q[, v/q][, w/q]), and a depth reference d becomes d/q, as
 * the SPIR-V and Vulkan specifications define the projection.  Arrays and cubes have no projective form.
 * Divides correctly rounded (FDIV); a GPU may multiply by a reciprocal instead (docs/quirks.md).
 */
static bool project(lower *L, const isa_slot *image, uint32_t *coords, uint8_t *ncoords, uint32_t *dref)
{
    if (image->image_arrayed || image->image_dim == ISA_IMAGE_CUBE) {
        lower_fail(L, ISA_ERR_INVALID, "projective sampling of %s image '%s': SPIR-V allows 1D, 2D and 3D only",
                   image->image_arrayed ? "an arrayed" : "a cube", image->name);
        return false;
    }
    const uint8_t dims = image->image_dim == ISA_IMAGE_1D ? 1 : image->image_dim == ISA_IMAGE_2D ? 2 : 3;
    if (*ncoords < dims + 1) {
        lower_fail(L, ISA_ERR_INVALID, "projective coordinates of %u components for a %uD image: it needs %u",
                   *ncoords, dims, dims + 1u);
        return false;
    }
    uint32_t projected = lower_new_regs(L, dims), q = *coords + dims;
    lower_binary(L, ISA_OP_FDIV, ISA_TYPE_F32, projected, *coords, q, dims, true);
    if (*dref != ISA_NO_REG) {
        uint32_t d = lower_new_regs(L, 1);
        lower_binary(L, ISA_OP_FDIV, ISA_TYPE_F32, d, *dref, q, 1, true);
        *dref = d;
    }
    *coords = projected;
    *ncoords = dims;
    return true;
}

/* Result registers: the instruction writes four; a narrower result takes the first ones. */
static uint32_t vec4_result(lower *L, uint32_t rtype, uint32_t rid)
{
    type_info *rt = lower_type(L, rtype);
    uint32_t n = rt->op == SpvOpTypeVector ? rt->count : 1;
    if (n == 4)
        return lower_def_value(L, rid, rtype, 4);
    uint32_t tmp = lower_new_regs(L, 4);
    lower_alias_value(L, rid, rtype, tmp);
    return tmp;
}

static isa_inst *emit_image(lower *L, isa_op op, isa_type ty, int32_t slot, uint32_t coords, uint8_t ncoords)
{
    isa_inst *in = lower_emit(L, op, ty);
    if (!in)
        return NULL;
    in->slot = (uint16_t)slot;
    in->a = coords;
    in->count = ncoords;
    in->cls = ISA_CLASS_VMEM;
    in->type2 = ISA_TYPE_NONE;
    return in;
}

/* One sample or gather: what its instruction carries besides the result registers and the offset. */
typedef struct sample_op {
    isa_op op;           /* IMG_SAMPLE or IMG_GATHER */
    isa_type ty;
    int32_t slot, sampler;
    uint32_t coords;
    uint8_t ncoords;     /* with a depth reference, the last of them */
    uint8_t nspatial;    /* the coordinates an offset may move: ncoords less the reference */
    uint32_t lod, dx, dy;
    int64_t imm;         /* gather: the component; sample: the gradients' components */
    bool dref;
} sample_op;

static isa_inst *emit_sampling(lower *L, const sample_op *sm, uint32_t d, image_offset off)
{
    isa_inst *in = emit_image(L, sm->op, sm->ty, sm->slot, sm->coords, sm->ncoords);
    if (!in)
        return NULL;
    in->d = d, in->b = sm->lod, in->c = sm->dx, in->e = sm->dy;
    in->type2 = ISA_TYPE_F32;
    in->imm = sm->imm;
    in->imm2 = sm->sampler;
    in->img_dref = sm->dref;
    sampling_offset(L, in, off, sm->nspatial, &L->p->slots[sm->slot]);
    return in;
}

/* A gather with ConstOffsets (textureGatherOffsets): texel k is the (i0, j0) texel of the footprint moved by
 * offset k, so it is four gathers, each with one offset, of which each gives its fourth result (i0j0) to
 * component k of d, as Mesa lowers it for GPUs without such a message.  The statistics count the four. */
static void gather_offsets(lower *L, const sample_op *sm, uint32_t offsets_id, uint32_t d)
{
    uint64_t bits[8] = {0};
    if (lower_reg_count_of(L, L->ids[offsets_id].type) != 8) {
        lower_fail(L, ISA_ERR_INVALID, "ConstOffsets %%%u is not four 2-component offsets", offsets_id);
        return;
    }
    lower_const_bits(L, offsets_id, bits, 8);
    uint32_t tmp = lower_new_regs(L, 16);
    for (uint32_t k = 0; k < 4 && !L->failed; k++) {
        image_offset one = {.reg = ISA_NO_REG, .count = 2, .constant = true,
                            .value = {(int32_t)(uint32_t)bits[2 * k], (int32_t)(uint32_t)bits[2 * k + 1], 0}};
        if (!emit_sampling(L, sm, tmp + 4 * k, one))
            return;
    }
    for (uint32_t k = 0; k < 4 && !L->failed; k++)
        lower_unary(L, ISA_OP_MOV, ISA_TYPE_U32, d + k, tmp + 4 * k + 3, 1);
}

/* OpImage, OpSampledImage and OpImageTexelPointer: values that name slots, resolved now. */
static void lower_image_value(lower *L, SpvOp op, const uint32_t *o)
{
    switch (op) {
    case SpvOpImage: {
        int32_t slot = image_of(L, o[2], false);
        if (slot < 0)
            return;
        id_info *r = &L->ids[o[1]];
        r->kind = K_IMAGE, r->slot = slot, r->sampler_slot = -1, r->type = o[0];
        r->desc = L->ids[o[2]].desc;
        return;
    }
    case SpvOpSampledImage: {
        int32_t slot = image_of(L, o[2], false), sampler = slot < 0 ? -1 : image_of(L, o[3], false);
        if (sampler < 0)
            return;
        id_info *r = &L->ids[o[1]];
        r->kind = K_IMAGE, r->slot = slot, r->sampler_slot = sampler, r->type = o[0];
        r->desc = L->ids[o[2]].desc;
        r->sampler_desc = L->ids[o[3]].desc;
        return;
    }
    case SpvOpImageTexelPointer: {
        int32_t slot = image_of(L, o[2], false);
        if (slot < 0)
            return;
        if (is_texel_buffer(L, slot)) {
            lower_fail(L, ISA_ERR_UNSUPPORTED, "atomics on texel buffers are not modelled");
            return;
        }
        uint8_t n;
        uint32_t coords = coord_regs(L, o[3], &n);
        if (L->p->slots[slot].image_ms) { /* Sample (SPIR-V: 0 on a single-sampled image, nothing to do then) */
            CHECK_ID(L, o[4]);
            coords = sample_coords(L, &L->p->slots[slot], coords, &n, lower_val(L, o[4]));
        }
        id_info *r = &L->ids[o[1]];
        r->off_reg = coords;
        r->kind = K_TEXEL_PTR, r->slot = slot, r->sampler_slot = -1, r->type = o[0], r->off_const = n;
        r->desc = L->ids[o[2]].desc;
        return;
    }
    default:
        lower_fail(L, ISA_ERR_UNSUPPORTED, "%s is not modelled", lower_op_name(op));
        return;
    }
}

/* OpImageRead and OpImageFetch of image `slot`. */
static void lower_image_load(lower *L, SpvOp op, const uint32_t *o, uint32_t no, int32_t slot)
{
    uint32_t lod;
    uint8_t ncoords = 0, ngrad = 0;
    isa_type ty = result_type(L, o[0]);
    uint32_t coords = coord_regs(L, o[3], &ncoords);
    image_offset off;
    uint32_t sample;
    image_operands(L, o, no, 4, op == SpvOpImageFetch ? &lod : NULL, NULL, NULL, &ngrad,
                   op == SpvOpImageFetch ? &off : NULL, &sample);
    if (op == SpvOpImageRead)
        lod = ISA_NO_REG;
    if (L->failed)
        return;
    if (op == SpvOpImageFetch && off.offsets_id) {
        lower_fail(L, ISA_ERR_INVALID, "ConstOffsets on a texel fetch: SPIR-V allows it on gathers only");
        return;
    }
    if (op == SpvOpImageFetch)
        coords = offset_coords(L, coords, ncoords, off);
    coords = sample_coords(L, &L->p->slots[slot], coords, &ncoords, sample);
    if (L->failed)
        return;
    uint32_t d = vec4_result(L, o[0], o[1]);
    isa_inst *in = emit_image(L, ISA_OP_IMG_LOAD, ty, slot, coords, ncoords);
    if (!in)
        return;
    in->d = d, in->b = lod, in->imm = op == SpvOpImageFetch;
}

/* OpImageWrite to image `slot`. */
static void lower_image_store(lower *L, const uint32_t *o, uint32_t no, int32_t slot)
{
    uint8_t ncoords = 0, ngrad = 0;
    if (L->p->slots[slot].readonly) {
        lower_fail(L, ISA_ERR_INVALID, "image write to read-only '%s'", L->p->slots[slot].name);
        return;
    }
    CHECK_ID(L, o[2]);
    isa_type ty = result_type(L, L->ids[o[2]].type);
    uint32_t coords = coord_regs(L, o[1], &ncoords), sample;
    image_operands(L, o, no, 3, NULL, NULL, NULL, &ngrad, NULL, &sample);
    coords = sample_coords(L, &L->p->slots[slot], coords, &ncoords, sample);
    if (L->failed)
        return;
    uint8_t n;
    uint32_t src = coord_regs(L, o[2], &n);
    if (n != 4) { /* the instruction reads four registers: pad (the format ignores what it lacks) */
        uint32_t tmp = lower_new_regs(L, 4);
        lower_unary(L, ISA_OP_MOV, ISA_TYPE_U64, tmp, src, n);
        src = tmp;
    }
    isa_inst *in = emit_image(L, ISA_OP_IMG_STORE, ty, slot, coords, ncoords);
    if (!in)
        return;
    in->b = src;
    L->p->slots[slot].written = 1;
}

/*
 * The samples, gathers, their depth-comparison and projective forms, of image `slot`.  An implicit-LOD sample
 * (SPV_KHR/NV_compute_shader_derivatives) is a sample with gradients: the fine x and y derivatives of its
 * (projected) coordinates, as the Vulkan specification computes implicit derivatives "in the same manner as"
 * OpDPdx and OpDPdy; a Bias scales both by 2^bias, which adds bias to log2(rho) (docs/quirks.md).
 */
static void lower_image_sample(lower *L, SpvOp op, const uint32_t *o, uint32_t no, int32_t slot)
{
    uint32_t lod, dx, dy;
    uint8_t ncoords = 0, ngrad = 0;
    isa_type ty = result_type(L, o[0]);
    if (isa_type_size(ty) == 8) { /* Vulkan requires no filtering or sampling support of a 64-bit format */
        lower_fail(L, ISA_ERR_UNSUPPORTED, "sampling or gathering a 64-bit integer image is not modelled (read it "
                   "with a texel fetch or an image load)");
        return;
    }
    uint32_t coords = coord_regs(L, o[3], &ncoords);
    int64_t component = 0;
    image_offset off;
    const bool implicit = op == SpvOpImageSampleImplicitLod || op == SpvOpImageSampleDrefImplicitLod ||
                          op == SpvOpImageSampleProjImplicitLod || op == SpvOpImageSampleProjDrefImplicitLod;
    const bool proj = op == SpvOpImageSampleProjExplicitLod || op == SpvOpImageSampleProjDrefExplicitLod ||
                      op == SpvOpImageSampleProjImplicitLod || op == SpvOpImageSampleProjDrefImplicitLod;
    const bool dref = op == SpvOpImageSampleDrefExplicitLod || op == SpvOpImageDrefGather ||
                      op == SpvOpImageSampleProjDrefExplicitLod || op == SpvOpImageSampleDrefImplicitLod ||
                      op == SpvOpImageSampleProjDrefImplicitLod;
    const bool gather = op == SpvOpImageGather || op == SpvOpImageDrefGather;
    /* an implicit-LOD sample's Bias (the lowest operand bit, so the first operand) is taken out here; the rest
     * are read as an explicit sample's, without Lod and Grad */
    uint32_t bias = 0, rest[32];
    const uint32_t at = dref ? 5 : 4;
    if (implicit && no > at && (o[at] & SpvImageOperandsBiasMask)) {
        if (no <= at + 1 || no > sizeof rest / sizeof rest[0]) {
            lower_fail(L, ISA_ERR_INVALID, "Bias image operand missing");
            return;
        }
        CHECK_ID(L, o[at + 1]);
        if (lower_scalar_isa_type(L, L->ids[o[at + 1]].type) != ISA_TYPE_F32) {
            lower_fail(L, ISA_ERR_INVALID, "bias %%%u is not a 32-bit float", o[at + 1]);
            return;
        }
        bias = o[at + 1];
        memcpy(rest, o, (at + 1) * sizeof *o);
        memcpy(rest + at + 1, o + at + 2, (no - at - 2) * sizeof *o);
        rest[at] &= ~(uint32_t)SpvImageOperandsBiasMask;
        o = rest, no--;
    }
    if (implicit) {
        image_operands(L, o, no, at, NULL, NULL, NULL, &ngrad, &off, NULL);
        lod = dx = dy = ISA_NO_REG;
    } else if (dref) {
        CHECK_ID(L, o[4]);
        image_operands(L, o, no, 5, gather ? NULL : &lod, gather ? NULL : &dx, gather ? NULL : &dy, &ngrad, &off, NULL);
        if (gather)
            lod = dx = dy = ISA_NO_REG;
    } else if (op == SpvOpImageGather) {
        CHECK_ID(L, o[4]);
        if (!L->ids[o[4]].cknown || L->ids[o[4]].cval > 3) {
            lower_fail(L, ISA_ERR_INVALID, "gather component %%%u is not a constant 0..3", o[4]);
            return;
        }
        component = (int64_t)L->ids[o[4]].cval;
        image_operands(L, o, no, 5, NULL, NULL, NULL, &ngrad, &off, NULL);
        lod = dx = dy = ISA_NO_REG;
    } else {
        image_operands(L, o, no, 4, &lod, &dx, &dy, &ngrad, &off, NULL);
    }
    if (L->failed)
        return;
    if (dref) {
        CHECK_ID(L, o[4]);
        if (lower_scalar_isa_type(L, L->ids[o[4]].type) != ISA_TYPE_F32) {
            lower_fail(L, ISA_ERR_INVALID, "depth reference %%%u is not a 32-bit float", o[4]);
            return;
        }
    }
    if (lower_scalar_isa_type(L, lower_component_type(L, L->ids[o[3]].type)) != ISA_TYPE_F32) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "sampling coordinates must be 32-bit floats");
        return;
    }
    uint32_t dref_reg = dref ? lower_val(L, o[4]) : ISA_NO_REG;
    if (proj && !project(L, &L->p->slots[slot], &coords, &ncoords, &dref_reg))
        return;
    if (implicit) {
        const uint8_t dim = L->p->slots[slot].image_dim;
        ngrad = dim == ISA_IMAGE_1D ? 1 : dim == ISA_IMAGE_2D ? 2 : 3; /* a cube's direction has 3 */
        if (!lower_coord_derivatives(L, op, coords, ngrad, &dx, &dy))
            return;
        if (bias) {
            uint32_t scale = lower_new_regs(L, 1), sx = lower_new_regs(L, ngrad), sy = lower_new_regs(L, ngrad);
            lower_emit_op(L, ISA_OP_FMATH, ISA_TYPE_F32, scale, lower_val(L, bias), ISA_NO_REG)->imm = GLSLstd450Exp2;
            lower_binary(L, ISA_OP_FMUL, ISA_TYPE_F32, sx, dx, scale, ngrad, true);
            lower_binary(L, ISA_OP_FMUL, ISA_TYPE_F32, sy, dy, scale, ngrad, true);
            dx = sx, dy = sy;
        }
    }
    const uint8_t nspatial = ncoords; /* the offset's check counts the coordinates, not the reference */
    if (dref) { /* the reference becomes the last coordinate register (AMD's image_sample_c passes it so) */
        uint32_t block = lower_new_regs(L, ncoords + 1u);
        lower_unary(L, ISA_OP_MOV, ISA_TYPE_U32, block, coords, ncoords);
        lower_unary(L, ISA_OP_MOV, ISA_TYPE_U32, block + ncoords, dref_reg, 1);
        coords = block;
        ncoords++;
    }
    if (off.offsets_id && !gather) {
        lower_fail(L, ISA_ERR_INVALID, "ConstOffsets on a sample: SPIR-V allows it on gathers only");
        return;
    }
    const sample_op sm = {gather ? ISA_OP_IMG_GATHER : ISA_OP_IMG_SAMPLE, ty, slot, L->ids[o[2]].sampler_slot,
                         coords, ncoords, nspatial, lod, dx, dy, gather ? component : ngrad, dref};
    uint32_t d = vec4_result(L, o[0], o[1]);
    if (off.offsets_id)
        gather_offsets(L, &sm, off.offsets_id, d);
    else
        emit_sampling(L, &sm, d, off);
}

/* OpImageQueryLod of image `slot`: the fine derivatives of its coordinates as an implicit-LOD sample takes them,
 * and the level and lambda' a sample with them would have (IMG_QUERY_LOD). */
static void lower_image_query_lod(lower *L, SpvOp op, const uint32_t *o, int32_t slot)
{
    uint8_t ncoords = 0;
    uint32_t coords = coord_regs(L, o[3], &ncoords), dx, dy;
    if (L->failed)
        return;
    if (lower_scalar_isa_type(L, lower_component_type(L, L->ids[o[3]].type)) != ISA_TYPE_F32) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "level-of-detail query coordinates must be 32-bit floats");
        return;
    }
    const uint8_t dim = L->p->slots[slot].image_dim;
    const uint8_t ngrad = dim == ISA_IMAGE_1D ? 1 : dim == ISA_IMAGE_2D ? 2 : 3;
    if (ncoords < ngrad) {
        lower_fail(L, ISA_ERR_INVALID, "a level-of-detail query with %u coordinates of a %uD image", ncoords, ngrad);
        return;
    }
    if (!lower_coord_derivatives(L, op, coords, ngrad, &dx, &dy))
        return;
    uint32_t d = vec4_result(L, o[0], o[1]);
    isa_inst *in = lower_emit(L, ISA_OP_IMG_QUERY_LOD, ISA_TYPE_F32);
    in->slot = (uint16_t)slot;
    in->a = coords, in->count = ncoords, in->d = d, in->c = dx, in->e = dy;
    in->imm = ngrad;
    in->imm2 = L->ids[o[2]].sampler_slot;
    in->type2 = ISA_TYPE_F32;
}

/* OpImageQuerySize, OpImageQuerySizeLod, OpImageQueryLevels and OpImageQuerySamples of image `slot`. */
static void lower_image_query(lower *L, SpvOp op, const uint32_t *o, int32_t slot)
{
    type_info *rt = lower_type(L, o[0]);
    uint32_t n = rt->op == SpvOpTypeVector ? rt->count : 1;
    uint32_t lodr = ISA_NO_REG;
    if (op == SpvOpImageQuerySizeLod) {
        CHECK_ID(L, o[3]);
        lodr = lower_val(L, o[3]);
    }
    uint32_t d = lower_def_value(L, o[1], o[0], n);
    isa_inst *in = lower_emit(L, ISA_OP_IMG_QUERY, ISA_TYPE_U32);
    if (!in)
        return;
    in->slot = (uint16_t)slot;
    in->d = d, in->b = lodr, in->count = (uint8_t)n;
    in->imm = op == SpvOpImageQueryLevels ? 1 : op == SpvOpImageQuerySamples ? 2 : 0;
}

/*
 * A sampling instruction whose sampler is picked from an array at run time: one register holds both indices, the
 * image's element (0 for a single image) in the high word and the sampler's in the low (isa_inst.sampler_index),
 * so the executor's waterfall runs once per distinct pair.  Returns it (ISA_NO_REG when the sampler is not so
 * picked), in *mode how the pair varies (NonUniform when either index is) and in *flags (ISA_SAMPLER_*) which
 * index must still be uniform.
 */
static uint32_t sampler_index_reg(lower *L, const id_info *im, uint8_t *mode, uint8_t *flags)
{
    if (im->kind != K_IMAGE || im->sampler_desc.index == ISA_DESC_NONE || L->failed)
        return ISA_NO_REG;
    *mode = im->sampler_desc.index == ISA_DESC_NONUNIFORM || im->desc.index == ISA_DESC_NONUNIFORM
                ? ISA_DESC_NONUNIFORM : ISA_DESC_UNIFORM;
    *flags = ISA_SAMPLER_INDEXED | (im->sampler_desc.index == ISA_DESC_UNIFORM ? ISA_SAMPLER_UNIFORM_LO : 0) |
             (im->desc.index == ISA_DESC_UNIFORM ? ISA_SAMPLER_UNIFORM_HI : 0);
    uint32_t packed = lower_new_regs(L, 1);
    isa_inst *cv = lower_emit_op(L, ISA_OP_CVT, ISA_TYPE_U64, packed, im->sampler_desc.reg, ISA_NO_REG);
    if (!cv)
        return ISA_NO_REG;
    cv->type2 = ISA_TYPE_U32;
    if (im->desc.index == ISA_DESC_NONE)
        return packed;
    uint32_t high = lower_new_regs(L, 1), shifted = lower_new_regs(L, 1), both = lower_new_regs(L, 1);
    isa_inst *hv = lower_emit_op(L, ISA_OP_CVT, ISA_TYPE_U64, high, im->desc.reg, ISA_NO_REG);
    if (!hv)
        return ISA_NO_REG;
    hv->type2 = ISA_TYPE_U32;
    lower_binary(L, ISA_OP_SHL, ISA_TYPE_U64, shifted, high, lower_const_reg(L, 32), 1, true);
    lower_binary(L, ISA_OP_OR, ISA_TYPE_U64, both, shifted, packed, 1, false);
    return both;
}

void lower_image_inst(lower *L, SpvOp op, const uint32_t *o, uint32_t no)
{
    if (op == SpvOpImage || op == SpvOpSampledImage || op == SpvOpImageTexelPointer) {
        lower_image_value(L, op, o);
        return;
    }
    /* the image operand: o[0] for a write, o[2] for the rest */
    uint32_t image = op == SpvOpImageWrite ? o[0] : o[2];
    bool sampling = op == SpvOpImageSampleExplicitLod || op == SpvOpImageGather || op == SpvOpImageSampleImplicitLod ||
                    op == SpvOpImageSampleDrefImplicitLod || op == SpvOpImageSampleProjImplicitLod ||
                    op == SpvOpImageSampleProjDrefImplicitLod || op == SpvOpImageQueryLod ||
                    op == SpvOpImageSampleDrefExplicitLod || op == SpvOpImageDrefGather ||
                    op == SpvOpImageSampleProjExplicitLod || op == SpvOpImageSampleProjDrefExplicitLod;
    int32_t slot = (op >= SpvOpImageSampleImplicitLod && op <= SpvOpImageQuerySamples) ? image_of(L, image, sampling) : -1;
    if (L->failed)
        return;
    const id_info *im = &L->ids[image];
    uint8_t mode = ISA_DESC_NONE, flags = 0;
    const uint32_t packed = sampling ? sampler_index_reg(L, im, &mode, &flags) : ISA_NO_REG;
    uint32_t first = L->p->code_count;
    /* texel buffers are lower_mem_inst's; either way, the instructions take the image's run-time index below */
    if (slot >= 0 && is_texel_buffer(L, slot) &&
        (op == SpvOpImageRead || op == SpvOpImageWrite || op == SpvOpImageFetch || op == SpvOpImageQuerySize))
        lower_mem_inst(L, op, o, no);
    else switch (op) {
    case SpvOpImageRead: case SpvOpImageFetch:
        lower_image_load(L, op, o, no, slot);
        break;
    case SpvOpImageWrite:
        lower_image_store(L, o, no, slot);
        break;
    case SpvOpImageSampleExplicitLod: case SpvOpImageGather: case SpvOpImageSampleDrefExplicitLod:
    case SpvOpImageDrefGather: case SpvOpImageSampleProjExplicitLod: case SpvOpImageSampleProjDrefExplicitLod:
    case SpvOpImageSampleImplicitLod: case SpvOpImageSampleDrefImplicitLod: case SpvOpImageSampleProjImplicitLod:
    case SpvOpImageSampleProjDrefImplicitLod:
        lower_image_sample(L, op, o, no, slot);
        break;
    case SpvOpImageQueryLod:
        lower_image_query_lod(L, op, o, slot);
        break;
    case SpvOpImageQuerySize: case SpvOpImageQuerySizeLod: case SpvOpImageQueryLevels: case SpvOpImageQuerySamples:
        lower_image_query(L, op, o, slot);
        break;
    default:
        lower_fail(L, ISA_ERR_UNSUPPORTED, "%s is not modelled (compute images: read, write, fetch, sampling "
                   "(implicit LOD with a derivative group mode), level-of-detail queries, projective or not, gather, their depth-comparison forms, size, level and sample-count queries, "
                   "atomics)",
                   lower_op_name(op));
        return;
    }
    lower_index_slots(L, first, im);
    for (uint32_t i = first; packed != ISA_NO_REG && i < L->p->code_count; i++) {
        isa_inst *in = &L->p->code[i];
        if ((isa_op_shape((isa_op)in->op)->flags & ISA_SHAPE_F_SAMPLER_IMM2) && in->imm2 == im->sampler_slot) {
            in->x = packed, in->desc_index = mode, in->sampler_index = flags;
        }
    }
}

void lower_image_atomic(lower *L, const id_info *ptr, uint32_t result_type_id, uint32_t result, isa_type ty,
                        isa_reduce_op red, uint32_t value, uint32_t cmp)
{
    const isa_slot *sl = &L->p->slots[ptr->slot];
    if (sl->readonly && red != ISA_RED_LOAD) {
        lower_fail(L, ISA_ERR_INVALID, "atomic write to read-only image '%s'", sl->name);
        return;
    }
    if (sl->texel_type != ISA_TYPE_U32 && sl->texel_type != ISA_TYPE_I32 && sl->texel_type != ISA_TYPE_U64 &&
        sl->texel_type != ISA_TYPE_I64) {
        lower_fail(L, ISA_ERR_UNSUPPORTED, "image atomics on '%s': only r32ui, r32i, r64ui and r64i images are "
                   "modelled", sl->name);
        return;
    }
    uint32_t first = L->p->code_count;
    isa_inst *in = emit_image(L, ISA_OP_IMG_ATOMIC, ty, ptr->slot, ptr->off_reg, (uint8_t)ptr->off_const);
    if (!in)
        return;
    in->imm2 = red;
    in->b = value;
    in->c = cmp;
    if (red != ISA_RED_STORE)
        in->d = lower_def_value(L, result, result_type_id, 1);
    if (red != ISA_RED_LOAD)
        L->p->slots[ptr->slot].written = 1;
    lower_index_slots(L, first, ptr);
}
