/*
 * backend/spirv_scan.c — what a kernel needs from a Vulkan device, read from
 * its SPIR-V without lowering it: entry point, workgroup size, capabilities
 * (and so the subgroup operation classes), descriptor resources with their
 * kind, push-constant size and a lower bound of its shared memory.
 *
 * The backend uses it to say "this device cannot run this case, because ..."
 * before Vulkan would reject (or, worse, silently mis-run) the pipeline, and
 * to check that the case provides every binding the kernel uses.  The module
 * reader (isa/spirv.h) reads the SPIR-V, as it does for the lowering: the
 * push-constant size and the shared memory come from the layouts the
 * simulator's slots have.  Malformed input returns VKB_ERR_INPUT with the
 * word offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "backend/backend.h"
#include "isa/isa.h"
#include "isa/spirv.h"

/* Capabilities that imply a subgroup operation class, and those wavelab names in messages. */
#define CAPABILITY_LIST(X)                                      \
    X(GroupNonUniform, VKB_SUBGROUP_BASIC)                      \
    X(GroupNonUniformVote, VKB_SUBGROUP_VOTE)                   \
    X(GroupNonUniformArithmetic, VKB_SUBGROUP_ARITHMETIC)       \
    X(GroupNonUniformBallot, VKB_SUBGROUP_BALLOT)               \
    X(GroupNonUniformShuffle, VKB_SUBGROUP_SHUFFLE)             \
    X(GroupNonUniformShuffleRelative, VKB_SUBGROUP_SHUFFLE_RELATIVE) \
    X(GroupNonUniformClustered, VKB_SUBGROUP_CLUSTERED)         \
    X(GroupNonUniformQuad, VKB_SUBGROUP_QUAD)                   \
    X(GroupNonUniformPartitionedNV, VKB_SUBGROUP_PARTITIONED_NV) \
    X(GroupNonUniformRotateKHR, VKB_SUBGROUP_ROTATE)            \
    X(Float16, 0) X(Float64, 0) X(Int8, 0) X(Int16, 0) X(Int64, 0) \
    X(Int64Atomics, 0) X(AtomicFloat32AddEXT, 0)                \
    X(StorageBuffer16BitAccess, 0) X(UniformAndStorageBuffer16BitAccess, 0) X(StoragePushConstant16, 0) \
    X(StorageBuffer8BitAccess, 0) X(UniformAndStorageBuffer8BitAccess, 0) X(StoragePushConstant8, 0) \
    X(VulkanMemoryModel, 0) X(StorageImageWriteWithoutFormat, 0) X(StorageImageReadWithoutFormat, 0)

static uint32_t capability_subgroup_ops(uint32_t capability)
{
    switch (capability) {
#define X(cap, ops) case SpvCapability##cap: return ops;
        CAPABILITY_LIST(X)
#undef X
    default: return 0;
    }
}

/* A texel buffer's declared format by its texel-format name (isa/isa.h): "" when Unknown (the binding's
 * applies), "other" for a format texel buffers do not take. */
static const char *image_format_name(uint32_t f)
{
    isa_format t = isa_format_from_spirv(f);
    return t != ISA_FORMAT_UNKNOWN ? isa_format_name(t) : f == SpvImageFormatUnknown ? "" : "other";
}

static vkb_status scan_fail(char *err, size_t err_size, size_t word, const char *what)
{
    snprintf(err, err_size, "SPIR-V word %zu: %s", word, what);
    return VKB_ERR_INPUT;
}

static int is_group_non_uniform(uint32_t op)
{
    return (op >= SpvOpGroupNonUniformElect && op <= SpvOpGroupNonUniformQuadSwap) ||
           op == SpvOpGroupNonUniformPartitionNV || op == SpvOpGroupNonUniformRotateKHR;
}

/* 1 when a subgroup operation on this (scalar or vector) type needs shaderSubgroupExtendedTypes. */
static int is_extended_type(const spv_module *m, uint32_t type)
{
    const spv_type *t = spv_type_of(m, type);
    if (t && t->op == SpvOpTypeVector)
        t = spv_type_of(m, t->elem);
    if (!t)
        return 0;
    if (t->op == SpvOpTypeInt)
        return t->width != 32;
    if (t->op == SpvOpTypeFloat)
        return t->width == 16;
    return 0;
}

static void mark_used(const spv_module *m, uint8_t *used, uint32_t id)
{
    const spv_node *v = spv_node_of(m, id);
    if (v && v->op == SpvOpVariable)
        used[v - m->nodes] = 1;
}

/* The pointer operand of an instruction that reads, writes or passes on memory, 0 when it has none. */
static void mark_pointer_operands(const spv_module *m, uint8_t *used, const spv_inst *in)
{
    const uint32_t *o = in->o;
    switch (in->op) {
    case SpvOpLoad: case SpvOpAccessChain: case SpvOpInBoundsAccessChain: case SpvOpPtrAccessChain:
    case SpvOpArrayLength: case SpvOpImageTexelPointer: case SpvOpAtomicFAddEXT: case SpvOpAtomicFMinEXT:
    case SpvOpAtomicFMaxEXT:
        if (in->no >= 3)
            mark_used(m, used, o[2]);
        break;
    case SpvOpStore: case SpvOpAtomicStore:
        if (in->no >= 1)
            mark_used(m, used, o[0]);
        break;
    case SpvOpCopyMemory:
        if (in->no >= 2) {
            mark_used(m, used, o[0]);
            mark_used(m, used, o[1]);
        }
        break;
    case SpvOpFunctionCall:
        for (uint32_t k = 3; k < in->no; k++)
            mark_used(m, used, o[k]);
        break;
    default:
        if (in->op >= SpvOpAtomicLoad && in->op <= SpvOpAtomicXor && in->no >= 3)
            mark_used(m, used, o[2]);
        break;
    }
}

/* The function bodies: which variables they use (used[] by node), and subgroup operations on extended types. */
static void scan_uses(const spv_module *m, uint8_t *used, vkb_kernel_info *out)
{
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, m->w, m->n, m->functions);
    while (spv_next(&it, &in) == SPV_STEP_INST) {
        mark_pointer_operands(m, used, &in);
        if (is_group_non_uniform(in.op) && in.no >= 1 && is_extended_type(m, in.o[0]))
            out->subgroup_extended_types = 1;
    }
}

/* The GLCompute entry point named `entry`, or the only one. */
static vkb_status pick_entry(const spv_module *m, const char *entry, const spv_entry **pick, char *err,
                             size_t err_size)
{
    int count = 0;
    *pick = NULL;
    const spv_entry *only = NULL;
    for (uint32_t k = 0; k < m->entry_count; k++) {
        const spv_entry *e = &m->entries[k];
        if (e->model != SpvExecutionModelGLCompute)
            continue;
        count++;
        only = only ? only : e;
        if (entry && strcmp(entry, e->name) == 0)
            *pick = e;
    }
    if (count == 0)
        return scan_fail(err, err_size, SPV_HEADER_WORDS, "no GLCompute entry point");
    if (!*pick && count > 1) {
        snprintf(err, err_size, "SPIR-V has %d compute entry points and none is named \"%s\"", count,
                 entry ? entry : "(null)");
        return VKB_ERR_INPUT;
    }
    if (!*pick)
        *pick = only;
    return VKB_OK;
}

/* LocalSize / LocalSizeId of the entry point, overridden by a WorkgroupSize built-in constant. */
static void scan_local_size(const spv_module *m, uint32_t func, uint32_t local_size[3])
{
    local_size[0] = local_size[1] = local_size[2] = 1;
    for (uint32_t k = 0; k < m->mode_count; k++) {
        const spv_mode *md = &m->modes[k];
        if (md->entry != func || md->nargs < 3 ||
            (md->mode != SpvExecutionModeLocalSize && md->mode != SpvExecutionModeLocalSizeId))
            continue;
        for (int d = 0; d < 3; d++) {
            const spv_node *c = md->is_id ? spv_node_of(m, md->args[d]) : NULL;
            local_size[d] = !md->is_id ? md->args[d] : c ? (uint32_t)c->value : 1;
        }
    }
    for (uint32_t k = 0; k < m->node_count; k++) {
        const spv_node *c = &m->nodes[k];
        if (c->builtin != SpvBuiltInWorkgroupSize ||
            (c->op != SpvOpConstantComposite && c->op != SpvOpSpecConstantComposite) || c->nparts < 3)
            continue;
        for (int d = 0; d < 3; d++) {
            const spv_node *comp = spv_node_of(m, c->parts[d]);
            if (comp)
                local_size[d] = (uint32_t)comp->value;
        }
    }
}

/* A descriptor resource's kind (and image facts) from its type, arrays of descriptors stripped. */
static vkb_status scan_resource(const spv_module *m, const spv_node *v, uint32_t pointee, vkb_resource *r,
                                char *err, size_t err_size)
{
    const spv_type *t = spv_type_of(m, pointee);
    r->count = 1;
    for (int depth = 0; t && depth < 8 && (t->op == SpvOpTypeArray || t->op == SpvOpTypeRuntimeArray); depth++) {
        r->count = t->op == SpvOpTypeArray && t->count_known ? r->count * t->count : 0;
        t = spv_type_of(m, t->elem);
    }
    if (!t)
        return scan_fail(err, err_size, v->word, "resource variable of an undefined type");
    if (v->storage == SpvStorageClassStorageBuffer) {
        r->kind = CASE_KIND_STORAGE_BUFFER;
        return VKB_OK;
    }
    if (v->storage == SpvStorageClassUniform) {
        r->kind = t->buffer_block ? CASE_KIND_STORAGE_BUFFER : CASE_KIND_UNIFORM_BUFFER;
        return VKB_OK;
    }
    if (t->op == SpvOpTypeSampler) {
        r->kind = CASE_KIND_SAMPLER;
        return VKB_OK;
    }
    int combined = t->op == SpvOpTypeSampledImage;
    if (combined)
        t = spv_type_of(m, t->elem);
    if (!t || t->op != SpvOpTypeImage ||
        (t->image_dim != SpvDimBuffer && t->image_dim != SpvDim1D && t->image_dim != SpvDim2D &&
         t->image_dim != SpvDim3D && t->image_dim != SpvDimCube)) {
        char what[192];
        snprintf(what, sizeof what,
                 "resource '%s' (set %u binding %u) is not a buffer, texel buffer, 1D/2D/3D/cube image or "
                 "sampler: wavelab cases provide only those",
                 r->name, r->set, r->binding);
        return scan_fail(err, err_size, v->word, what);
    }
    if (t->image_dim == SpvDimBuffer) {
        r->kind = t->image_sampled == 2 ? CASE_KIND_STORAGE_TEXEL_BUFFER : CASE_KIND_UNIFORM_TEXEL_BUFFER;
        snprintf(r->format, sizeof r->format, "%s", image_format_name(t->image_format));
    } else {
        /* Sampled 2 is a storage image; 1 (and 0, "known at run time", which a descriptor settles) sampled */
        r->kind = combined ? CASE_KIND_COMBINED_IMAGE_SAMPLER
                           : t->image_sampled == 2 ? CASE_KIND_STORAGE_IMAGE : CASE_KIND_SAMPLED_IMAGE;
        r->image_dim = t->image_dim;
        r->image_arrayed = t->image_arrayed;
        r->image_format = t->image_format;
    }
    return VKB_OK;
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = (*(const spv_node *const *)a)->id, y = (*(const spv_node *const *)b)->id;
    return x < y ? -1 : x > y;
}

static uint32_t clamp_u32(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

/* The module's variables in id order: push constants, shared memory and descriptor resources. */
static vkb_status scan_variables(const spv_module *m, const uint8_t *used, vkb_kernel_info *out, char *err,
                                 size_t err_size)
{
    const spv_node **vars = calloc(m->node_count + 1, sizeof *vars);
    if (!vars) {
        snprintf(err, err_size, "out of memory");
        return VKB_ERR_NOMEM;
    }
    uint32_t nvars = 0;
    for (uint32_t k = 0; k < m->node_count; k++)
        if (m->nodes[k].op == SpvOpVariable)
            vars[nvars++] = &m->nodes[k];
    qsort(vars, nvars, sizeof *vars, by_id);
    vkb_status st = VKB_OK;
    uint64_t shared = 0;
    for (uint32_t k = 0; k < nvars && st == VKB_OK; k++) {
        const spv_node *v = vars[k];
        const spv_type *ptr = spv_type_of(m, v->type);
        if (!ptr || ptr->op != SpvOpTypePointer)
            continue;
        if (v->storage == SpvStorageClassPushConstant) {
            uint32_t size = clamp_u32(spv_layout_size(m, ptr->elem, true, NULL));
            if (size > out->push_constant_bytes)
                out->push_constant_bytes = size;
            continue;
        }
        if (v->storage == SpvStorageClassWorkgroup) {
            uint64_t base = 0, size = 0;
            spv_place_variable(m, ptr->elem, true, shared, &base, &size, NULL);
            if (base + size > shared)
                shared = base + size;
            continue;
        }
        if (v->set < 0 && v->binding < 0)
            continue;
        if (v->storage != SpvStorageClassStorageBuffer && v->storage != SpvStorageClassUniform &&
            v->storage != SpvStorageClassUniformConstant)
            continue;
        if (out->resource_count >= VKB_MAX_RESOURCES) {
            st = scan_fail(err, err_size, v->word, "more than 64 descriptor resources");
            break;
        }
        vkb_resource *r = &out->resources[out->resource_count];
        memset(r, 0, sizeof *r);
        r->set = v->set < 0 ? 0 : (uint32_t)v->set;
        r->binding = v->binding < 0 ? 0 : (uint32_t)v->binding;
        r->used = used[v - m->nodes];
        snprintf(r->name, sizeof r->name, "%s", v->name ? v->name : "");
        st = scan_resource(m, v, ptr->elem, r, err, err_size);
        if (st == VKB_OK)
            out->resource_count++;
    }
    out->shared_bytes = clamp_u32(shared);
    free(vars);
    return st;
}

vkb_status vkb_kernel_scan(const uint32_t *words, size_t word_count, const char *entry,
                           vkb_kernel_info *out, char *err, size_t err_size)
{
    char dummy[8];
    if (!err) {
        err = dummy;
        err_size = sizeof dummy;
    }
    memset(out, 0, sizeof *out);
    spv_module m;
    char why[256];
    if (!spv_module_read(&m, words, word_count, why, sizeof why)) {
        if (strcmp(why, "out of memory") == 0) {
            snprintf(err, err_size, "%s", why);
            return VKB_ERR_NOMEM;
        }
        snprintf(err, err_size, "SPIR-V %s", why);
        return VKB_ERR_INPUT;
    }
    out->spirv_version = words[1] & 0x00ffff00u;
    out->vulkan_minor = isa_spirv_vulkan_minor(words, word_count);
    for (uint32_t k = 0; k < m.capability_count; k++) {
        if (out->capability_count < VKB_MAX_CAPABILITIES)
            out->capabilities[out->capability_count++] = m.capabilities[k];
        out->subgroup_ops |= capability_subgroup_ops(m.capabilities[k]);
    }
    for (uint32_t k = 0; k < m.extension_count && out->extension_count < VKB_MAX_EXTENSIONS; k++)
        snprintf(out->extensions[out->extension_count++], sizeof out->extensions[0], "%s", m.extensions[k]);
    uint8_t *used = calloc(m.node_count + 1, 1);
    if (!used) {
        spv_module_free(&m);
        snprintf(err, err_size, "out of memory");
        return VKB_ERR_NOMEM;
    }
    scan_uses(&m, used, out);
    const spv_entry *e = NULL;
    vkb_status st = pick_entry(&m, entry, &e, err, err_size);
    if (st == VKB_OK) {
        snprintf(out->entry, sizeof out->entry, "%s", e->name);
        scan_local_size(&m, e->func, out->local_size);
        st = scan_variables(&m, used, out, err, err_size);
    }
    free(used);
    spv_module_free(&m);
    return st;
}
