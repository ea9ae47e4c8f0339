/*
 * backend/spirv_scan.c — what a kernel needs from a Vulkan device, read from
 * its SPIR-V without lowering it: entry point, workgroup size, capabilities
 * (and so the subgroup operation classes), descriptor resources with their
 * kind, push-constant size and a lower bound of its shared memory.
 *
 * The backend uses it to say "this device cannot run this case, because ..."
 * before Vulkan would reject (or, worse, silently mis-run) the pipeline, and
 * to check that the case provides every binding the kernel uses.  SPIR-V is
 * untrusted input: every read is bounds-checked and malformed input returns
 * VKB_ERR_INPUT with the word offset.
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

/* What we remember about one id. */
typedef struct scan_id {
    uint32_t op;          /* defining opcode, 0 = not defined yet */
    uint32_t type;        /* result type (constants, variables) or element/pointee/member-list start */
    uint32_t a, b, c;     /* op specific: width/signedness, counts, storage class, image dim/sampled/format */
    uint64_t value;       /* integer constants */
    uint32_t set, binding, builtin;
    uint8_t has_set, has_binding, has_builtin, block, buffer_block, used, arrayed;
    uint32_t array_stride;
    uint32_t word;        /* offset of the defining instruction */
    char name[48];
} scan_id;

typedef struct member_offset {
    uint32_t struct_id, member, offset;
} member_offset;

typedef struct scanner {
    const uint32_t *w;
    size_t n;
    uint32_t bound;
    scan_id *ids;
    member_offset *offsets;
    size_t offset_count, offset_cap;
    char *err;
    size_t err_size;
} scanner;

static vkb_status scan_fail(scanner *s, size_t word, const char *what)
{
    snprintf(s->err, s->err_size, "SPIR-V word %zu: %s", word, what);
    return VKB_ERR_INPUT;
}

static scan_id *id_at(scanner *s, uint32_t id)
{
    return id < s->bound ? &s->ids[id] : NULL;
}

static void copy_string(char *dst, size_t size, const uint32_t *words, size_t max_words)
{
    size_t max_chars = max_words * 4;
    const char *src = (const char *)words;
    size_t i = 0;
    for (; i + 1 < size && i < max_chars && src[i]; i++)
        dst[i] = src[i];
    dst[i] = 0;
}

/* Byte size of a type as laid out by its explicit-layout decorations (tightly packed
 * where there are none).  Depth-limited: malformed recursive types give 0. */
static uint64_t type_size(scanner *s, uint32_t type, int depth)
{
    scan_id *t = id_at(s, type);
    if (!t || depth > 16)
        return 0;
    switch (t->op) {
    case SpvOpTypeBool: return 4;
    case SpvOpTypeInt:
    case SpvOpTypeFloat: return t->a / 8;
    case SpvOpTypeVector: return t->b * type_size(s, t->type, depth + 1);
    case SpvOpTypeMatrix: return t->b * type_size(s, t->type, depth + 1);
    case SpvOpTypeArray: {
        scan_id *len = id_at(s, t->b);
        uint64_t count = len ? len->value : 0;
        uint64_t stride = t->array_stride ? t->array_stride : type_size(s, t->type, depth + 1);
        return count * stride;
    }
    case SpvOpTypeRuntimeArray: return 0;
    case SpvOpTypeStruct: {
        /* members are listed in the defining instruction: words[word+2 ...] */
        uint32_t wc = s->w[t->word] >> 16;
        uint64_t end = 0, packed = 0;
        for (uint32_t m = 0; m + 2 < wc; m++) {
            uint64_t size = type_size(s, s->w[t->word + 2 + m], depth + 1);
            uint64_t offset = packed;
            for (size_t k = 0; k < s->offset_count; k++)
                if (s->offsets[k].struct_id == type && s->offsets[k].member == m)
                    offset = s->offsets[k].offset;
            if (offset + size > end)
                end = offset + size;
            packed = offset + size;
        }
        return end;
    }
    default: return 0;
    }
}

/* Strips arrays (descriptor arrays) from a resource's type. */
static scan_id *strip_arrays(scanner *s, uint32_t type)
{
    scan_id *t = id_at(s, type);
    for (int depth = 0; t && depth < 8 && (t->op == SpvOpTypeArray || t->op == SpvOpTypeRuntimeArray); depth++)
        t = id_at(s, t->type);
    return t;
}

static void mark_used(scanner *s, uint32_t id)
{
    scan_id *v = id_at(s, id);
    if (v && v->op == SpvOpVariable)
        v->used = 1;
}

static int is_group_non_uniform(uint32_t op)
{
    return (op >= SpvOpGroupNonUniformElect && op <= SpvOpGroupNonUniformQuadSwap) ||
           op == SpvOpGroupNonUniformPartitionNV || op == SpvOpGroupNonUniformRotateKHR;
}

/* 1 when a subgroup operation on this (scalar or vector) type needs shaderSubgroupExtendedTypes. */
static int is_extended_type(scanner *s, uint32_t type)
{
    scan_id *t = id_at(s, type);
    if (t && t->op == SpvOpTypeVector)
        t = id_at(s, t->type);
    if (!t)
        return 0;
    if (t->op == SpvOpTypeInt)
        return t->a != 32;
    if (t->op == SpvOpTypeFloat)
        return t->a == 16;
    return 0;
}

vkb_status vkb_kernel_scan(const uint32_t *words, size_t word_count, const char *entry,
                           vkb_kernel_info *out, char *err, size_t err_size)
{
    char dummy[8];
    scanner s = {0};
    s.w = words;
    s.n = word_count;
    s.err = err ? err : dummy;
    s.err_size = err ? err_size : sizeof dummy;
    memset(out, 0, sizeof *out);
    const char *bad_header = spv_header_problem(words, word_count);
    if (bad_header)
        return scan_fail(&s, 0, bad_header);
    out->spirv_version = words[1] & 0x00ffff00u;
    out->vulkan_minor = isa_spirv_vulkan_minor(words, word_count);
    s.bound = words[3];
    if (s.bound == 0 || s.bound > (1u << 22))
        return scan_fail(&s, 3, "id bound out of range");
    s.ids = calloc(s.bound, sizeof *s.ids);
    if (!s.ids) {
        snprintf(s.err, s.err_size, "out of memory");
        return VKB_ERR_NOMEM;
    }

    vkb_status st = VKB_OK;
    uint32_t entry_ids[16];
    char entry_names[16][64];
    int entry_count = 0;
    uint32_t chosen = 0;
    struct { uint32_t entry, mode, args[3]; int is_id; } modes[16];
    int mode_count = 0;
    int in_function = 0;

    spv_iter it;
    spv_inst inst;
    spv_step step;
    spv_iter_init(&it, words, word_count, SPV_HEADER_WORDS);
    while ((step = spv_next(&it, &inst)) == SPV_STEP_INST) {
        size_t i = inst.word;
        uint32_t wc = inst.wc, op = inst.op;
        const uint32_t *in = words + i;
#define NEED(k)                                                        \
    do {                                                               \
        if (wc < (k)) {                                                \
            st = scan_fail(&s, i, "instruction has too few operands"); \
            goto done;                                                 \
        }                                                              \
    } while (0)
#define DEFINE(id_word)                                               \
    scan_id *d = id_at(&s, in[id_word]);                              \
    if (!d) {                                                         \
        st = scan_fail(&s, i, "result id is not below the id bound"); \
        goto done;                                                    \
    }                                                                 \
    d->op = op;                                                       \
    d->word = (uint32_t)i
        switch (op) {
        case SpvOpCapability:
            NEED(2);
            if (out->capability_count < VKB_MAX_CAPABILITIES)
                out->capabilities[out->capability_count++] = in[1];
            out->subgroup_ops |= capability_subgroup_ops(in[1]);
            break;
        case SpvOpExtension:
            NEED(2);
            if (out->extension_count < VKB_MAX_EXTENSIONS)
                copy_string(out->extensions[out->extension_count++], sizeof out->extensions[0], in + 1, wc - 1);
            break;
        case SpvOpEntryPoint:
            NEED(4);
            if (in[1] == SpvExecutionModelGLCompute && entry_count < 16) {
                entry_ids[entry_count] = in[2];
                copy_string(entry_names[entry_count], sizeof entry_names[0], in + 3, wc - 3);
                entry_count++;
            }
            break;
        case SpvOpExecutionMode:
        case SpvOpExecutionModeId:
            NEED(3);
            if ((in[2] == SpvExecutionModeLocalSize || in[2] == SpvExecutionModeLocalSizeId) && mode_count < 16) {
                NEED(6);
                modes[mode_count].entry = in[1];
                modes[mode_count].mode = in[2];
                memcpy(modes[mode_count].args, in + 3, 3 * sizeof(uint32_t));
                modes[mode_count].is_id = in[2] == SpvExecutionModeLocalSizeId;
                mode_count++;
            }
            break;
        case SpvOpName: {
            NEED(3);
            scan_id *t = id_at(&s, in[1]);
            if (t)
                copy_string(t->name, sizeof t->name, in + 2, wc - 2);
            break;
        }
        case SpvOpDecorate: {
            NEED(3);
            scan_id *t = id_at(&s, in[1]);
            if (!t)
                break;
            if (in[2] == SpvDecorationDescriptorSet && wc >= 4) {
                t->set = in[3];
                t->has_set = 1;
            } else if (in[2] == SpvDecorationBinding && wc >= 4) {
                t->binding = in[3];
                t->has_binding = 1;
            } else if (in[2] == SpvDecorationBuiltIn && wc >= 4) {
                t->builtin = in[3];
                t->has_builtin = 1;
            } else if (in[2] == SpvDecorationArrayStride && wc >= 4) {
                t->array_stride = in[3];
            } else if (in[2] == SpvDecorationBlock) {
                t->block = 1;
            } else if (in[2] == SpvDecorationBufferBlock) {
                t->buffer_block = 1;
            }
            break;
        }
        case SpvOpMemberDecorate:
            NEED(4);
            if (in[3] == SpvDecorationOffset && wc >= 5) {
                if (s.offset_count == s.offset_cap) {
                    size_t cap = s.offset_cap ? s.offset_cap * 2 : 64;
                    member_offset *p = realloc(s.offsets, cap * sizeof *p);
                    if (!p) {
                        st = VKB_ERR_NOMEM;
                        snprintf(s.err, s.err_size, "out of memory");
                        goto done;
                    }
                    s.offsets = p;
                    s.offset_cap = cap;
                }
                s.offsets[s.offset_count++] = (member_offset){in[1], in[2], in[4]};
            }
            break;
        case SpvOpTypeBool:
        case SpvOpTypeStruct:
        case SpvOpTypeSampler: {
            NEED(2);
            DEFINE(1);
            break;
        }
        case SpvOpTypeInt:
        case SpvOpTypeFloat: {
            NEED(3);
            DEFINE(1);
            d->a = in[2];
            d->b = wc > 3 ? in[3] : 0;
            break;
        }
        case SpvOpTypeVector:
        case SpvOpTypeMatrix:
        case SpvOpTypeArray: {
            NEED(4);
            DEFINE(1);
            d->type = in[2];
            d->b = in[3]; /* component count, column count, or the length's constant id */
            break;
        }
        case SpvOpTypeRuntimeArray:
        case SpvOpTypeSampledImage: {
            NEED(3);
            DEFINE(1);
            d->type = in[2];
            break;
        }
        case SpvOpTypeImage: {
            NEED(9);
            DEFINE(1);
            d->type = in[2];
            d->a = in[3];              /* Dim */
            d->arrayed = in[5] != 0;
            d->b = in[7];              /* Sampled: 1 sampled, 2 storage */
            d->c = in[8];              /* image format */
            break;
        }
        case SpvOpTypePointer: {
            NEED(4);
            DEFINE(1);
            d->a = in[2];
            d->type = in[3];
            break;
        }
        case SpvOpConstant:
        case SpvOpSpecConstant: {
            NEED(4);
            DEFINE(2);
            d->type = in[1];
            d->value = in[3];
            if (wc >= 5)
                d->value |= (uint64_t)in[4] << 32;
            break;
        }
        case SpvOpConstantComposite:
        case SpvOpSpecConstantComposite: {
            NEED(3);
            DEFINE(2);
            d->type = in[1];
            break;
        }
        case SpvOpVariable: {
            NEED(4);
            DEFINE(2);
            d->type = in[1];
            d->a = in[3];
            break;
        }
        case SpvOpFunction:
            in_function = 1;
            break;
        case SpvOpLoad:
            if (wc >= 4)
                mark_used(&s, in[3]);
            break;
        case SpvOpStore:
        case SpvOpAtomicStore:
            if (wc >= 2)
                mark_used(&s, in[1]);
            break;
        case SpvOpCopyMemory:
            if (wc >= 3) {
                mark_used(&s, in[1]);
                mark_used(&s, in[2]);
            }
            break;
        case SpvOpAccessChain:
        case SpvOpInBoundsAccessChain:
        case SpvOpPtrAccessChain:
        case SpvOpArrayLength:
        case SpvOpImageTexelPointer:
            if (wc >= 4)
                mark_used(&s, in[3]);
            break;
        case SpvOpFunctionCall:
            for (uint32_t k = 4; k < wc; k++)
                mark_used(&s, in[k]);
            break;
        default:
            if (in_function && op >= SpvOpAtomicLoad && op <= SpvOpAtomicXor && wc >= 4)
                mark_used(&s, in[3]);
            else if (in_function && (op == SpvOpAtomicFAddEXT || op == SpvOpAtomicFMinEXT ||
                                     op == SpvOpAtomicFMaxEXT) && wc >= 4)
                mark_used(&s, in[3]);
            if (is_group_non_uniform(op) && wc >= 2 && is_extended_type(&s, in[1]))
                out->subgroup_extended_types = 1;
            break;
        }
#undef NEED
#undef DEFINE
    }
    if (step == SPV_STEP_BAD) {
        st = scan_fail(&s, inst.word, "instruction word count runs past the end of the module");
        goto done;
    }

    /* entry point */
    if (entry_count == 0) {
        st = scan_fail(&s, 5, "no GLCompute entry point");
        goto done;
    }
    int pick = -1;
    for (int k = 0; k < entry_count; k++)
        if (entry && strcmp(entry, entry_names[k]) == 0)
            pick = k;
    if (pick < 0) {
        if (entry_count > 1) {
            snprintf(s.err, s.err_size, "SPIR-V has %d compute entry points and none is named \"%s\"", entry_count,
                     entry ? entry : "(null)");
            st = VKB_ERR_INPUT;
            goto done;
        }
        pick = 0;
    }
    chosen = entry_ids[pick];
    memcpy(out->entry, entry_names[pick], sizeof out->entry);
    out->entry[sizeof out->entry - 1] = 0;

    /* workgroup size: LocalSize / LocalSizeId, overridden by a WorkgroupSize built-in constant */
    out->local_size[0] = out->local_size[1] = out->local_size[2] = 1;
    for (int k = 0; k < mode_count; k++) {
        if (modes[k].entry != chosen)
            continue;
        for (int d = 0; d < 3; d++) {
            uint32_t v = modes[k].args[d];
            if (modes[k].is_id) {
                scan_id *c = id_at(&s, v);
                v = c ? (uint32_t)c->value : 1;
            }
            out->local_size[d] = v;
        }
    }
    for (uint32_t id = 1; id < s.bound; id++) {
        scan_id *c = &s.ids[id];
        if (c->has_builtin && c->builtin == SpvBuiltInWorkgroupSize &&
            (c->op == SpvOpConstantComposite || c->op == SpvOpSpecConstantComposite) && (words[c->word] >> 16) >= 6) {
            for (int d = 0; d < 3; d++) {
                scan_id *comp = id_at(&s, words[c->word + 3 + d]);
                if (comp)
                    out->local_size[d] = (uint32_t)comp->value;
            }
        }
    }

    /* resources, push constants, shared memory */
    for (uint32_t id = 1; id < s.bound; id++) {
        scan_id *v = &s.ids[id];
        if (v->op != SpvOpVariable)
            continue;
        scan_id *ptr = id_at(&s, v->type);
        if (!ptr || ptr->op != SpvOpTypePointer)
            continue;
        uint32_t storage = v->a;
        if (storage == SpvStorageClassPushConstant) {
            uint64_t size = type_size(&s, ptr->type, 0);
            if (size > out->push_constant_bytes)
                out->push_constant_bytes = (uint32_t)size;
            continue;
        }
        if (storage == SpvStorageClassWorkgroup) {
            out->shared_bytes_lower_bound += (uint32_t)type_size(&s, ptr->type, 0);
            continue;
        }
        if (!v->has_set && !v->has_binding)
            continue;
        if (out->resource_count >= VKB_MAX_RESOURCES) {
            st = scan_fail(&s, v->word, "more than 64 descriptor resources");
            goto done;
        }
        vkb_resource *r = &out->resources[out->resource_count];
        memset(r, 0, sizeof *r);
        r->set = v->set;
        r->binding = v->binding;
        r->used = v->used;
        snprintf(r->name, sizeof r->name, "%s", v->name);
        scan_id *t = strip_arrays(&s, ptr->type);
        if (!t) {
            st = scan_fail(&s, v->word, "resource variable of an undefined type");
            goto done;
        }
        if (storage == SpvStorageClassStorageBuffer) {
            r->kind = CASE_KIND_STORAGE_BUFFER;
        } else if (storage == SpvStorageClassUniform) {
            r->kind = t->buffer_block ? CASE_KIND_STORAGE_BUFFER : CASE_KIND_UNIFORM_BUFFER;
        } else if (storage == SpvStorageClassUniformConstant) {
            int combined = t->op == SpvOpTypeSampledImage;
            if (t->op == SpvOpTypeSampler) {
                r->kind = CASE_KIND_SAMPLER;
                out->resource_count++;
                continue;
            }
            if (combined)
                t = id_at(&s, t->type);
            if (!t || t->op != SpvOpTypeImage ||
                (t->a != SpvDimBuffer && t->a != SpvDim1D && t->a != SpvDim2D && t->a != SpvDim3D &&
                 t->a != SpvDimCube)) {
                char what[192];
                snprintf(what, sizeof what,
                         "resource '%s' (set %u binding %u) is not a buffer, texel buffer, 1D/2D/3D/cube image or "
                         "sampler: wavelab cases provide only those",
                         v->name, v->set, v->binding);
                st = scan_fail(&s, v->word, what);
                goto done;
            }
            if (t->a == SpvDimBuffer) {
                r->kind = t->b == 2 ? CASE_KIND_STORAGE_TEXEL_BUFFER : CASE_KIND_UNIFORM_TEXEL_BUFFER;
                snprintf(r->format, sizeof r->format, "%s", image_format_name(t->c));
            } else {
                /* Sampled 2 is a storage image; 1 (and 0, "known at run time", which a descriptor settles) sampled */
                r->kind = combined ? CASE_KIND_COMBINED_IMAGE_SAMPLER
                                   : t->b == 2 ? CASE_KIND_STORAGE_IMAGE : CASE_KIND_SAMPLED_IMAGE;
                r->image_dim = t->a;
                r->image_arrayed = t->arrayed;
                r->image_format = t->c;
            }
        } else {
            continue;
        }
        out->resource_count++;
    }

done:
    free(s.ids);
    free(s.offsets);
    return st;
}
