/*
 * sim/image_exec.c — images in the executor: binding image and sampler slots
 * to the caller's sim_image entries (and checking that they fit what the
 * kernel declares), and the six image instructions the lowering emits
 * (isa/lower_image.c): IMG_LOAD, IMG_STORE, IMG_SAMPLE, IMG_GATHER,
 * IMG_ATOMIC, IMG_QUERY.  Texel buffers stay in sim/mem.c.
 *
 * Formats, filtering and addressing are img/'s (img_fetch, img_store,
 * img_sample, img_gather): this file maps the coordinate registers of a lane
 * to (x, y, z, layer, mip), decides what an out-of-bounds texel does (a fault
 * naming instruction, wave, lane and coordinate, or a zero texel under
 * robust access), and hands the memory trace one address per lane in the
 * machine preset's image layout (img_layout_address).  Like every handler it
 * runs once per wave instruction and loops over lanes inside; the image is
 * resolved into an img_view (level extents, offsets, the format's decoder)
 * once per dispatch, when its slot is bound, not per instruction or lane.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/sanitize.h"
#include "sim/sim_internal.h"

#define LANES for (uint32_t l = 0; l < W; l++)
#define ACTIVE(l) sim_mask_has(exec, (unsigned)(l))

static const char *const dim_names[] = {"1d", "2d", "3d", "cube"};

sim_fault_kind sim_image_bind(sim_ctx *ctx, uint32_t s, char *why, size_t why_size)
{
    const isa_slot *sl = &ctx->prog->slots[s];
    const sim_config *cfg = ctx->cfg;
    sim_slot_mem *m = &ctx->slots[s];
    const sim_image *b = NULL;
    for (int k = 0; k < cfg->image_count && cfg->images; k++)
        if (ISA_SAME_DESCRIPTOR(cfg->images[k], *sl))
            b = &cfg->images[k];
    const int needs_image = sl->space != ISA_SPACE_SAMPLER;
    const int needs_sampler = sl->space == ISA_SPACE_SAMPLER || sl->image_combined;
    if (!b || (needs_image && !b->image) || (needs_sampler && !b->sampler)) {
        snprintf(why, why_size, "missing binding: the kernel uses %s%s '%s' at set %u binding %u, which the case "
                 "does not provide", isa_space_name(sl->space), sl->image_combined ? " (combined with a sampler)" : "",
                 sl->name, sl->set, sl->binding);
        return SIM_FAULT_MISSING_BINDING;
    }
    m->sampler = b->sampler;
    if (!needs_image)
        return SIM_FAULT_NONE;
    img_image *im = b->image;
    const img_format_info *fi = img_format_get(im->format);
    if (!fi || (unsigned)im->dim > IMG_DIM_CUBE || !im->bytes || im->size < img_image_bytes(im)) {
        snprintf(why, why_size, "image '%s' (set %u binding %u): malformed image (format, dimensionality or size)",
                 sl->name, sl->set, sl->binding);
        return SIM_FAULT_UNSUPPORTED;
    }
    if ((unsigned)im->dim != sl->image_dim) {
        snprintf(why, why_size, "image '%s' (set %u binding %u): the binding is a %s image but the kernel declares %s",
                 sl->name, sl->set, sl->binding, dim_names[im->dim], dim_names[sl->image_dim & 3]);
        return SIM_FAULT_UNSUPPORTED;
    }
    if (!sl->image_ms != (img_samples(im) == 1)) { /* Vulkan: an MS type takes a view of more than one sample */
        snprintf(why, why_size, "image '%s' (set %u binding %u): the binding has %u sample%s per texel but the kernel "
                 "declares a %s image", sl->name, sl->set, sl->binding, img_samples(im),
                 img_samples(im) == 1 ? "" : "s", sl->image_ms ? "multisampled" : "single-sampled");
        return SIM_FAULT_UNSUPPORTED;
    }
    if (!sl->image_arrayed && im->layers != (im->dim == IMG_DIM_CUBE ? 6u : 1u)) {
        snprintf(why, why_size, "image '%s' (set %u binding %u): %u layers, but the kernel declares a non-arrayed %s "
                 "image", sl->name, sl->set, sl->binding, im->layers, dim_names[im->dim]);
        return SIM_FAULT_UNSUPPORTED;
    }
    img_format declared;
    const int known = sl->image_format && img_format_from_spirv(sl->image_format, &declared);
    if (sl->image_format && (!known || declared != im->format)) {
        snprintf(why, why_size, "image '%s' (set %u binding %u): the binding's format is %s but the kernel declares "
                 "%s%s", sl->name, sl->set, sl->binding, fi->name, known ? img_format_get(declared)->name
                                                                          : "a SPIR-V image format wavelab lacks",
                 known ? "" : " (ImageFormat number in the listing)");
        return SIM_FAULT_UNSUPPORTED;
    }
    const img_numeric want = sl->texel_type == ISA_TYPE_F32                                     ? IMG_NUM_FLOAT
                             : sl->texel_type == ISA_TYPE_I32 || sl->texel_type == ISA_TYPE_I64 ? IMG_NUM_SINT
                                                                                                : IMG_NUM_UINT;
    if ((isa_type_size((isa_type)sl->texel_type) == 8) != img_format_is_wide(fi)) {
        snprintf(why, why_size, "image '%s' (set %u binding %u): format %s has %d-bit components, but the kernel's "
                 "image type holds %s", sl->name, sl->set, sl->binding, fi->name, fi->bits[0],
                 isa_type_name((isa_type)sl->texel_type));
        return SIM_FAULT_UNSUPPORTED;
    }
    if (fi->numeric != want) {
        snprintf(why, why_size, "image '%s' (set %u binding %u): format %s reads as %s, but the kernel's image type "
                 "holds %s", sl->name, sl->set, sl->binding, fi->name,
                 fi->numeric == IMG_NUM_FLOAT ? "floats" : fi->numeric == IMG_NUM_SINT ? "signed integers"
                                                                                       : "unsigned integers",
                 isa_type_name((isa_type)sl->texel_type));
        return SIM_FAULT_UNSUPPORTED;
    }
    m->image = im;
    m->data = im->bytes;
    m->size = im->size;
    /* the image keeps its shape for the whole dispatch: resolved here, not on every instruction (without memory,
     * sim_exec_image resolves it per instruction as before); sim_image_unbind releases it */
    if ((m->view = malloc(sizeof *m->view)) != NULL)
        img_view_init(m->view, im);
    return SIM_FAULT_NONE;
}

void sim_image_unbind(sim_ctx *ctx)
{
    for (uint32_t s = 0; s < ctx->prog->slot_count; s++) {
        free(ctx->slots[s].view);
        ctx->slots[s].view = NULL;
    }
}

/*
 * Which coordinate register feeds which coordinate, by the slot's dimensionality, worked out once per
 * instruction: map[j] = k takes register a + k, -1 reads 0 (as do components past the instruction's count).
 * Integer order (x, y, z, layer, sample): a storage cube is addressed as (x, y, face) with face = 6 * cube + face
 * for cube arrays; a multisampled image's sample index follows its other coordinates (isa/lower_image.c).  Float
 * order (img_sample's): s, t, r (cube: direction), array layer.
 */
typedef struct coord_map {
    int8_t map[5];
} coord_map;

static coord_map coord_map_of(const isa_slot *sl, const isa_inst *in, int integer)
{
    const int arr = sl->image_arrayed;
    coord_map m = {{-1, -1, -1, -1, -1}};
    switch ((isa_image_dim)sl->image_dim) {
    case ISA_IMAGE_1D: m.map[0] = 0, m.map[3] = arr ? 1 : -1; break;
    case ISA_IMAGE_2D: m.map[0] = 0, m.map[1] = 1, m.map[3] = arr ? 2 : -1; break;
    case ISA_IMAGE_3D: m.map[0] = 0, m.map[1] = 1, m.map[2] = 2; break;
    case ISA_IMAGE_CUBE:
        m.map[0] = 0, m.map[1] = 1;
        if (integer)
            m.map[3] = 2;
        else
            m.map[2] = 2, m.map[3] = arr ? 3 : -1;
        break;
    }
    if (sl->image_ms && integer)
        m.map[4] = arr ? 3 : 2;
    const int count = (int)in->count - (in->img_dref ? 1 : 0); /* a depth reference is not a coordinate */
    for (int j = 0; j < 5; j++)
        if (m.map[j] >= count)
            m.map[j] = -1;
    return m;
}

/* The coordinate register component k of lane l (the low 32 bits), or 0 for k = -1. */
static uint32_t coord_word(const sim_wave *w, const isa_inst *in, uint32_t W, uint32_t l, int k)
{
    return k < 0 ? 0 : (uint32_t)w->regs[((size_t)in->a + (unsigned)k) * W + l];
}

/* Integer coordinates of lane l, written in place (built in a local and returned by value, the struct was stored
 * in 8-byte halves and reloaded in 16-byte ones: a store-forwarding stall per lane, a fifth of an image load's
 * time in `perf annotate`). */
static void int_coords(const sim_wave *w, const isa_inst *in, uint32_t W, uint32_t l, const coord_map *m,
                       sim_texel_at *t)
{
    for (int j = 0; j < 3; j++)
        t->xyz[j] = (int32_t)coord_word(w, in, W, l, m->map[j]);
    t->layer = (int32_t)coord_word(w, in, W, l, m->map[3]);
    t->sample = (int32_t)coord_word(w, in, W, l, m->map[4]);
    t->mip = in->op == ISA_OP_IMG_LOAD && in->b != ISA_NO_REG ? (int32_t)(uint32_t)w->regs[(size_t)in->b * W + l] : 0;
}

/* Whether the lane's texel exists; the extents come from the instruction's view. */
static int texel_in_bounds(const img_view *v, const sim_texel_at *t)
{
    const img_image *im = v->im;
    if (t->mip < 0 || t->mip >= im->mip_levels || t->layer < 0 || t->layer >= im->layers || t->sample < 0 ||
        t->sample >= img_samples(im))
        return 0;
    const uint32_t mip = (uint32_t)t->mip;
    if (v->levels) {
        const img_view_level *L = &v->level[mip];
        return t->xyz[0] >= 0 && t->xyz[0] < L->size[0] && t->xyz[1] >= 0 && t->xyz[1] < L->size[1] &&
               t->xyz[2] >= 0 && t->xyz[2] < L->size[2];
    }
    const uint32_t ext[3] = {img_mip_size(im->width, mip), img_mip_size(im->height, mip), img_mip_size(im->depth, mip)};
    for (int k = 0; k < 3; k++)
        if (t->xyz[k] < 0 || (uint32_t)t->xyz[k] >= ext[k])
            return 0;
    return 1;
}

static int image_out_of_bounds(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc, uint32_t lane,
                               const sim_texel_at *t)
{
    const isa_slot *sl = &ctx->prog->slots[in->slot];
    const img_image *im = ctx->slots[in->slot].image;
    const char *what = in->op == ISA_OP_IMG_STORE ? "write" : in->op == ISA_OP_IMG_ATOMIC ? "atomic" : "read";
    if (img_samples(im) > 1)
        return sim_fault(ctx, w, pc, SIM_FAULT_OUT_OF_BOUNDS, (int32_t)lane, (int32_t)in->slot, -1,
                         "out-of-bounds image %s at texel (%d, %d) layer %lld sample %lld of image '%s' (set %u "
                         "binding %u), which is %ux%u with %u layers and %u samples",
                         what, t->xyz[0], t->xyz[1], (long long)t->layer, (long long)t->sample, sl->name, sl->set,
                         sl->binding, im->width, im->height, im->layers, img_samples(im));
    return sim_fault(ctx, w, pc, SIM_FAULT_OUT_OF_BOUNDS, (int32_t)lane, (int32_t)in->slot, -1,
                     "out-of-bounds image %s at texel (%d, %d, %d) layer %lld mip %lld of image '%s' (set %u binding "
                     "%u), which is %ux%ux%u with %u layers and %u mips",
                     what, t->xyz[0], t->xyz[1], t->xyz[2], (long long)t->layer, (long long)t->mip, sl->name, sl->set,
                     sl->binding, im->width, im->height, im->depth, im->layers, im->mip_levels);
}

/* The zero texel of robust image access: (0, 0, 0, 0), with alpha 1 for a format without alpha. */
static void zero_texel(const img_image *im, img_texel *t)
{
    memset(t, 0, sizeof *t);
    const img_format_info *fi = img_format_get(im->format);
    if (fi->components < 4) {
        if (fi->numeric == IMG_NUM_FLOAT)
            t->f[3] = 1.0f;
        else
            t->u[3] = 1;
    }
}

/* Float coordinates of lane l in img_sample's order. */
static void float_coords(const sim_wave *w, const isa_inst *in, uint32_t W, uint32_t l, const coord_map *m,
                         float coord[4])
{
    for (int j = 0; j < 4; j++)
        coord[j] = sim_f32(coord_word(w, in, W, l, m->map[j]));
}

/*
 * The level of detail from explicit gradients (Vulkan "Scale Factor Operation"): rho = the larger of the
 * lengths of d(coord)/dx and d(coord)/dy in texels of mip 0, lod = log2(rho).  On a cube map the direction's
 * gradients are first projected onto the face the direction selects ("Cube Map Derivative Computation",
 * img_cube_gradients), in texels of the face.
 */
static float grad_lod(const sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t l, const img_image *im,
                      const img_sampler *smp, const float coord[4])
{
    const uint32_t W = ctx->wave_size;
    const float size[3] = {(float)im->width, (float)im->height, (float)im->depth};
    float g[2][3] = {{0, 0, 0}, {0, 0, 0}};
    const uint32_t regs[2] = {in->c, in->e};
    for (int j = 0; j < 2; j++)
        for (unsigned k = 0; k < (unsigned)in->imm && k < 3; k++)
            g[j][k] = sim_f32(w->regs[((size_t)regs[j] + k) * W + l]);
    unsigned axes = (unsigned)in->imm < 3 ? (unsigned)in->imm : 3;
    if (im->dim == IMG_DIM_CUBE) {
        float face[2][2];
        img_cube_gradients(coord, g[0], g[1], face[0], face[1]);
        for (int j = 0; j < 2; j++)
            g[j][0] = face[j][0], g[j][1] = face[j][1], g[j][2] = 0;
        axes = 2;
    }
    float rho2[2] = {0, 0};
    for (int j = 0; j < 2; j++)
        for (unsigned k = 0; k < axes; k++) {
            float d = g[j][k] * (smp->unnormalized ? 1.0f : size[k]);
            rho2[j] += d * d;
        }
    float rho = sqrtf(rho2[0] > rho2[1] ? rho2[0] : rho2[1]);
    return log2f(rho); /* rho = 0 gives -inf: the sampler's min_lod clamps it */
}

/* The texel nearest a sampling coordinate, moved by the instruction's offset (off, or NULL), for the memory trace
 * (mip 0 unless lod says otherwise). */
static uint64_t sample_address(const img_image *im, const img_sampler *smp, img_layout layout, const float coord[4],
                               float lod, const int32_t *off)
{
    uint32_t mip = 0;
    if (lod > 0.5f && im->mip_levels > 1) {
        float m = floorf(lod + 0.5f);
        mip = m >= (float)(im->mip_levels - 1) ? im->mip_levels - 1 : (uint32_t)m;
    }
    const uint32_t ext[3] = {img_mip_size(im->width, mip), img_mip_size(im->height, mip), img_mip_size(im->depth, mip)};
    uint32_t xyz[3] = {0, 0, 0};
    const int dims = im->dim == IMG_DIM_1D ? 1 : im->dim == IMG_DIM_3D ? 3 : 2;
    for (int k = 0; k < dims && im->dim != IMG_DIM_CUBE; k++) {
        float v = smp->unnormalized ? coord[k] : coord[k] * (float)ext[k];
        v = v != v ? 0 : v; /* NaN */
        float fl = floorf(v) + (off ? (float)off[k] : 0.0f);
        xyz[k] = fl <= 0 ? 0 : fl >= (float)(ext[k] - 1) ? ext[k] - 1 : (uint32_t)fl;
    }
    float lf = floorf(coord[3] + 0.5f);
    uint32_t layer = lf <= 0 || lf != lf ? 0 : lf >= (float)(im->layers - 1) ? im->layers - 1 : (uint32_t)lf;
    if (im->dim == IMG_DIM_CUBE)
        layer = layer / 6 * 6; /* the face is not traced apart: the cube's first face */
    return img_layout_address(im, layout, xyz[0], xyz[1], xyz[2], layer, mip);
}

/* A texel's components into registers d..d+3 of lane l, as the instruction's type reads them; a 64-bit format's
 * one component whole, and (0, 0, 1) for the components it lacks (img_texel). */
static void put_texel(sim_wave *w, uint32_t W, uint32_t d, uint32_t l, const img_texel *t, int wide)
{
    if (wide) {
        w->regs[(size_t)d * W + l] = t->u64[0];
        w->regs[((size_t)d + 1) * W + l] = 0;
        w->regs[((size_t)d + 2) * W + l] = 0;
        w->regs[((size_t)d + 3) * W + l] = 1;
        return;
    }
    for (int k = 0; k < 4; k++)
        w->regs[((size_t)d + k) * W + l] = t->u[k]; /* f32 bits, u32 and i32 alike: the low 32 bits */
}

static int image_atomic_lane(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, uint32_t l, img_image *im,
                             const sim_texel_at *t)
{
    const uint32_t W = ctx->wave_size;
    const isa_reduce_op red = (isa_reduce_op)in->imm2;
    uint8_t *p = im->bytes + img_texel_offset(im, (uint32_t)t->xyz[0], (uint32_t)t->xyz[1], (uint32_t)t->xyz[2],
                                              sim_texel_plane(im, t), 0);
    /* 32 or 64 bits (an r64ui/r64i image): the operands' low `bytes` bytes, compared signed from the top bit */
    const unsigned bytes = img_format_get(im->format)->texel_bytes;
    const uint64_t mask = bytes == 8 ? ~0ull : 0xffffffffull, top = bytes == 8 ? 1ull << 63 : 1ull << 31;
    const uint64_t flip = in->type == ISA_TYPE_I32 || in->type == ISA_TYPE_I64 ? top : 0; /* signed order */
    uint64_t old = 0, nv, b = in->b != ISA_NO_REG ? w->regs[(size_t)in->b * W + l] & mask : 0;
    memcpy(&old, p, bytes); /* little-endian, as the host */
    switch (red) {
    case ISA_RED_ADD: nv = old + b; break;
    case ISA_RED_MIN: nv = (b ^ flip) < (old ^ flip) ? b : old; break;
    case ISA_RED_MAX: nv = (b ^ flip) > (old ^ flip) ? b : old; break;
    case ISA_RED_AND: nv = old & b; break;
    case ISA_RED_OR: nv = old | b; break;
    case ISA_RED_XOR: nv = old ^ b; break;
    case ISA_RED_EXCHANGE: case ISA_RED_STORE: nv = b; break;
    case ISA_RED_CMPXCHG: nv = old == (w->regs[(size_t)in->c * W + l] & mask) ? b : old; break;
    case ISA_RED_LOAD: nv = old; break;
    default:
        return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, (int32_t)l, (int32_t)in->slot, -1,
                         "image atomic operator %lld is not modelled", (long long)in->imm2);
    }
    nv &= mask;
    memcpy(p, &nv, bytes);
    if (in->d != ISA_NO_REG)
        w->regs[(size_t)in->d * W + l] = old;
    return 0;
}

static int image_query(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec)
{
    const uint32_t W = ctx->wave_size;
    const isa_slot *sl = &ctx->prog->slots[in->slot];
    const img_image *im = ctx->slots[in->slot].image;
    /* the lane masks, not exec: a query classed scalar (uniform lod) writes every live lane, as SALU does */
    LANES {
        if (!w->lane_mask[l])
            continue;
        uint32_t v[4] = {0, 0, 0, 0};
        if (in->imm == 1) {
            v[0] = im->mip_levels;
        } else if (in->imm == 2) {
            v[0] = img_samples(im);
        } else {
            int64_t mip = in->b != ISA_NO_REG ? (int32_t)(uint32_t)w->regs[(size_t)in->b * W + l] : 0;
            if ((mip < 0 || mip >= im->mip_levels) && ACTIVE(l)) {
                /* Vulkan leaves the result undefined; wavelab reports it and returns the mip-0 size */
                sim_report_undefined(ctx, w, pc, (int32_t)l, "size query of mip %lld, which '%s' does not have",
                                     (long long)mip, sl->name);
            }
            if (mip < 0 || mip >= im->mip_levels)
                mip = 0;
            const uint32_t m = (uint32_t)mip;
            const uint32_t ext[3] = {img_mip_size(im->width, m), img_mip_size(im->height, m), img_mip_size(im->depth, m)};
            unsigned n = im->dim == IMG_DIM_1D ? 1 : im->dim == IMG_DIM_3D ? 3 : 2;
            for (unsigned k = 0; k < n; k++)
                v[k] = ext[k];
            if (sl->image_arrayed)
                v[n] = im->dim == IMG_DIM_CUBE ? im->layers / 6 : im->layers;
        }
        for (unsigned k = 0; k < (in->count ? in->count : 1u) && k < 4; k++)
            w->regs[((size_t)in->d + k) * W + l] = v[k];
    }
    return 0;
}

/* IMG_QUERY_LOD: OpImageQueryLod, the level of detail a sample with these gradients would take (grad_lod), as
 * img_query_lod answers it under the sampler. */
static int image_query_lod(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec)
{
    const uint32_t W = ctx->wave_size;
    const isa_slot *sl = &ctx->prog->slots[in->slot];
    const img_image *im = ctx->slots[in->slot].image;
    const img_sampler *smp = ctx->slots[in->imm2].sampler;
    if (!smp)
        return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->imm2, -1,
                         "a level-of-detail query with slot '%s', which is not a sampler",
                         ctx->prog->slots[in->imm2].name);
    const coord_map cmap = coord_map_of(sl, in, 0);
    LANES {
        if (!ACTIVE(l))
            continue;
        float coord[4], q[2];
        float_coords(w, in, W, l, &cmap, coord);
        img_query_lod(im, smp, grad_lod(ctx, w, in, l, im, smp, coord), q);
        for (unsigned k = 0; k < 4; k++)
            w->regs[((size_t)in->d + k) * W + l] = k < 2 ? sim_f32_bits(q[k]) : 0;
    }
    return 0;
}

/* A depth-comparison sample needs a sampler with a compare_op and a depth image, and a sampler with a compare_op
 * samples only through the depth-comparison instructions (Vulkan, VUIDs of vkCmdDispatch on compareEnable):
 * otherwise a fault naming both slots; returns 1 then. */
static int depth_compare_mismatch(sim_ctx *ctx, const sim_wave *w, const isa_inst *in, uint32_t pc,
                                  const isa_slot *sl, const img_image *im, const img_sampler *smp)
{
    const char *sname = ctx->prog->slots[in->imm2].name;
    const char *why = NULL;
    if (in->img_dref && smp->compare_op == IMG_COMPARE_NONE)
        why = "a depth-comparison %s with sampler '%s', which has no compare_op (image '%s')";
    else if (!in->img_dref && smp->compare_op != IMG_COMPARE_NONE)
        why = "a %s without a depth reference with sampler '%s', whose compare_op makes it a depth-comparison "
              "sampler (image '%s'): Vulkan samples it only with the Dref instructions";
    else if (in->img_dref && !img_format_is_depth(im->format))
        why = "a depth-comparison %s with sampler '%s' of image '%s', whose format is not a depth format";
    if (!why)
        return 0;
    return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->slot, -1, why,
                     in->op == ISA_OP_IMG_GATHER ? "gather" : "sample", sname, sl->name);
}

int sim_exec_image(sim_ctx *ctx, sim_wave *w, const isa_inst *in, uint32_t pc, sim_mask exec)
{
    if (__builtin_expect(in->desc_index != ISA_DESC_NONE, 0)) /* back here once per element, without the index */
        return sim_exec_indexed(ctx, w, in, pc, exec, sim_exec_image);
    const uint32_t W = ctx->wave_size;
    const isa_slot *sl = &ctx->prog->slots[in->slot];
    img_image *im = ctx->slots[in->slot].image;
    const isa_op op = (isa_op)in->op;
    if (!im)
        return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->slot, -1,
                         "%s on slot '%s', which is not an image", isa_op_name(op), sl->name);
    if (op == ISA_OP_IMG_QUERY)
        return image_query(ctx, w, in, pc, exec);
    if (op == ISA_OP_IMG_QUERY_LOD)
        return image_query_lod(ctx, w, in, pc, exec);
    if ((op == ISA_OP_IMG_STORE || (op == ISA_OP_IMG_ATOMIC && in->imm2 != ISA_RED_LOAD)) && sl->readonly)
        return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->slot, -1,
                         "image write to read-only slot '%s'", sl->name);
    const img_format_info *fi = img_format_get(im->format);
    if (op == ISA_OP_IMG_ATOMIC && ((fi->texel_bytes != 4 && fi->texel_bytes != 8) || fi->components != 1 ||
                                    fi->numeric == IMG_NUM_FLOAT))
        return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->slot, -1,
                         "image atomic on '%s', whose format %s is not r32ui, r32i, r64ui or r64i", sl->name,
                         fi->name);
    /* 64-bit components (r64ui, r64i): loaded, stored and atomically updated only -- the lowering refuses sampling
     * a 64-bit image type and sim_image_bind a 64-bit format under a 32-bit type */
    const int wide = img_format_is_wide(fi);
    const img_sampler *smp = NULL;
    img_sampler cmp; /* the sampler's copy: a depth-comparison sample sets its dref per lane, the sanitizer its
                      * texel_read (sim/sanitize.h) */
    sim_texel_reader reader;
    int watched = 0;
    if (op == ISA_OP_IMG_SAMPLE || op == ISA_OP_IMG_GATHER) {
        smp = ctx->slots[in->imm2].sampler;
        if (!smp)
            return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, (int32_t)in->imm2, -1,
                             "sampling with slot '%s', which is not a sampler", ctx->prog->slots[in->imm2].name);
        if (depth_compare_mismatch(ctx, w, in, pc, sl, im, smp))
            return 1;
        cmp = *smp;
        watched = ctx->sanitize != NULL && sim_sanitize_watch_sampler(ctx, w, in, pc, &cmp, &reader);
        if (in->img_dref || watched)
            smp = &cmp;
    }
    const int robust = ctx->cfg->robust_access;
    const sim_mem_trace *trace = ctx->cfg->mem_trace;
    /* a sampling offset (ConstOffset), the same for every lane */
    const int32_t offset[3] = {in->texel_offset[0], in->texel_offset[1], in->texel_offset[2]};
    const int32_t *off = offset[0] || offset[1] || offset[2] ? offset : NULL;
    if (off && smp && smp->unnormalized)
        sim_report_undefined(ctx, w, pc, -1, "a sampling offset with sampler '%s', whose coordinates are unnormalized "
                             "(Vulkan forbids it; wavelab applies the offset)", ctx->prog->slots[in->imm2].name);
    img_view own; /* the image resolved once for every lane (img/img.h), at bind time where memory allowed */
    const img_view *view = ctx->slots[in->slot].view;
    if (!view) {
        img_view_init(&own, im);
        view = &own;
    }
    const int integer_coords = op == ISA_OP_IMG_LOAD || op == ISA_OP_IMG_STORE || op == ISA_OP_IMG_ATOMIC;
    const coord_map cmap = coord_map_of(sl, in, integer_coords);
    img_lod lod_plan = {{0, 0}, 0.0f, 0, 0};
    uint32_t last_lod_bits = 0;
    int have_lod = 0;
    const img_layout layout = (img_layout)ctx->cfg->image_layout;
    uint64_t addr[SIM_MAX_WAVE];
    sim_mask traced = exec; /* lanes that touched memory (a robust out-of-bounds lane does not) */
    /* the sanitizer sees each lane's texel once the loop is over, when a load may have overwritten its coordinates */
    const int sanitize = ctx->sanitize != NULL && integer_coords;
    sim_texel_at san_at[SIM_MAX_WAVE];
    LANES {
        if (!ACTIVE(l))
            continue;
        img_texel t;
        switch (op) {
        case ISA_OP_IMG_LOAD: case ISA_OP_IMG_STORE: case ISA_OP_IMG_ATOMIC: {
            sim_texel_at at;
            int_coords(w, in, W, l, &cmap, &at);
            if (!texel_in_bounds(view, &at)) {
                if (!robust)
                    return image_out_of_bounds(ctx, w, in, pc, l, &at);
                addr[l] = 0;
                traced &= ~sim_mask_lane(l);
                if (op == ISA_OP_IMG_LOAD) {
                    zero_texel(im, &t);
                    put_texel(w, W, in->d, l, &t, wide);
                    ctx->result->stats.robust_loads++;
                } else {
                    if (op == ISA_OP_IMG_ATOMIC && in->d != ISA_NO_REG)
                        w->regs[(size_t)in->d * W + l] = 0;
                    ctx->result->stats.robust_stores++;
                }
                continue;
            }
            const uint32_t plane = sim_texel_plane(im, &at);
            addr[l] = trace ? img_layout_address(im, layout, (uint32_t)at.xyz[0], (uint32_t)at.xyz[1],
                                                 (uint32_t)at.xyz[2], plane, (uint32_t)at.mip)
                            : 0;
            if (sanitize)
                san_at[l] = at;
            if (op == ISA_OP_IMG_LOAD) {
                img_view_fetch(view, at.xyz, plane, (uint32_t)at.mip, &t);
                put_texel(w, W, in->d, l, &t, wide);
            } else if (op == ISA_OP_IMG_STORE) {
                if (wide)
                    t.u64[0] = w->regs[(size_t)in->b * W + l];
                else
                    for (int k = 0; k < 4; k++)
                        t.u[k] = (uint32_t)w->regs[((size_t)in->b + k) * W + l];
                img_view_store(view, at.xyz, plane, (uint32_t)at.mip, &t);
            } else if (image_atomic_lane(ctx, w, in, pc, l, im, &at)) {
                return 1;
            }
            break;
        }
        case ISA_OP_IMG_SAMPLE: case ISA_OP_IMG_GATHER: {
            if (watched)
                reader.lane = l;
            float coord[4];
            float_coords(w, in, W, l, &cmap, coord);
            if (in->img_dref)
                cmp.dref = sim_f32(w->regs[((size_t)in->a + in->count - 1) * W + l]);
            float lod = 0;
            if (op == ISA_OP_IMG_SAMPLE) {
                if (in->c != ISA_NO_REG)
                    lod = grad_lod(ctx, w, in, l, im, smp, coord);
                else if (in->b != ISA_NO_REG)
                    lod = sim_f32(w->regs[(size_t)in->b * W + l]);
                /* lanes usually share the LOD (SampleLevel 0, a uniform LOD): work out what it means once */
                const uint32_t lod_bits = (uint32_t)sim_f32_bits(lod);
                if (!view->levels) {
                    img_view_sample(view, smp, coord, lod, off, &t);
                } else {
                    if (!have_lod || lod_bits != last_lod_bits) {
                        img_view_lod(view, smp, lod, &lod_plan);
                        last_lod_bits = lod_bits, have_lod = 1;
                    }
                    img_view_sample_lod(view, smp, coord, &lod_plan, off, &t);
                }
            } else {
                img_view_gather(view, smp, coord, (int)in->imm, off, &t);
            }
            put_texel(w, W, in->d, l, &t, wide);
            addr[l] = trace ? sample_address(im, smp, layout, coord, lod, off) : 0;
            break;
        }
        default:
            return sim_fault(ctx, w, pc, SIM_FAULT_UNSUPPORTED, -1, -1, -1, "%s is not an image operation",
                             isa_op_name(op));
        }
    }
    if (sanitize)
        sim_sanitize_image(ctx, w, in, pc, traced, san_at);
    if (trace) {
        sim_mem_access a = {.wave = w->index, .pc = pc, .op = in->op, .cls = in->cls, .slot = in->slot,
                            .space = (uint8_t)sl->space, .wave_size = W, .exec = traced, .addr = addr,
                            .elem_bytes = (uint16_t)fi->texel_bytes, .count = 1};
        a.group_linear =
            ctx->group[0] + ctx->cfg->groups[0] * (ctx->group[1] + ctx->cfg->groups[1] * ctx->group[2]);
        trace->access(trace->user, &a);
    }
    return 0;
}
