/*
 * backend/vk_support.c — whether a device can run a case before anything is
 * created: SPIR-V capabilities against device features, subgroup operations
 * and sizes, texel-buffer and image formats, and the case's bindings against
 * the kernel's declared resources.  Each refusal names what is missing (exit 3).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <spirv/unified1/spirv.h>
#include <volk.h>

#include "backend/backend.h"
#include "backend/vk_image.h"
#include "backend/vulkan_internal.h"
#include "img/img.h"
#include "isa/isa.h"

/* ------------------------------------------------------------- support */

/* VKB_DESCRIPTOR_INDEXING_LIST's rows as CAPABILITY_FEATURE_LIST's: the X they expand to is the one defined
 * where that list is expanded. */
#define INDEXING_CAPABILITIES(stem, src, name, dynamic, nonuniform)                          \
    X(stem##ArrayDynamicIndexing, dynamic, "shader" #stem "ArrayDynamicIndexing")             \
    X(stem##ArrayNonUniformIndexing, nonuniform, "shader" #stem "ArrayNonUniformIndexing")

/* Device features a SPIR-V capability needs (subgroup capabilities are checked by operation class). */
#define CAPABILITY_FEATURE_LIST(X)                                                            \
    X(Float16, float16, "shaderFloat16")                                                      \
    X(Float64, float64, "shaderFloat64")                                                      \
    X(Int8, int8, "shaderInt8")                                                               \
    X(Int16, int16, "shaderInt16")                                                            \
    X(Int64, int64, "shaderInt64")                                                            \
    X(Int64Atomics, int64_atomics, "shaderBufferInt64Atomics")                                \
    X(AtomicFloat32AddEXT, float32_atomic_add, "shaderBufferFloat32AtomicAdd (VK_EXT_shader_atomic_float)") \
    X(Int64ImageEXT, image_int64, "shaderImageInt64Atomics (VK_EXT_shader_image_atomic_int64)")               \
    X(StorageImageMultisample, storage_image_multisample, "shaderStorageImageMultisample")    \
    X(StorageBuffer16BitAccess, storage_buffer_16bit, "storageBuffer16BitAccess")             \
    X(UniformAndStorageBuffer16BitAccess, uniform_and_storage_buffer_16bit, "uniformAndStorageBuffer16BitAccess") \
    X(StoragePushConstant16, storage_push_constant_16, "storagePushConstant16")               \
    X(StorageBuffer8BitAccess, storage_buffer_8bit, "storageBuffer8BitAccess")                \
    X(UniformAndStorageBuffer8BitAccess, uniform_and_storage_buffer_8bit, "uniformAndStorageBuffer8BitAccess") \
    X(StoragePushConstant8, storage_push_constant_8, "storagePushConstant8")                  \
    X(VariablePointersStorageBuffer, variable_pointers_storage_buffer, "variablePointersStorageBuffer") \
    X(VariablePointers, variable_pointers, "variablePointers")                                \
    X(VulkanMemoryModel, vulkan_memory_model, "vulkanMemoryModel")                            \
    X(SampledCubeArray, image_cube_array, "imageCubeArray")                                   \
    X(ImageCubeArray, image_cube_array, "imageCubeArray")                                     \
    X(WorkgroupMemoryExplicitLayoutKHR, workgroup_explicit_layout, "workgroupMemoryExplicitLayout") \
    X(WorkgroupMemoryExplicitLayout8BitAccessKHR, workgroup_explicit_layout_8bit,             \
      "workgroupMemoryExplicitLayout8BitAccess")                                              \
    X(WorkgroupMemoryExplicitLayout16BitAccessKHR, workgroup_explicit_layout_16bit,           \
      "workgroupMemoryExplicitLayout16BitAccess")                                             \
    X(ComputeDerivativeGroupQuadsNV, derivative_group_quads,                                  \
      "computeDerivativeGroupQuads (VK_NV_compute_shader_derivatives)")                       \
    X(ComputeDerivativeGroupLinearNV, derivative_group_linear,                                \
      "computeDerivativeGroupLinear (VK_NV_compute_shader_derivatives)")                      \
    VKB_DESCRIPTOR_INDEXING_LIST(INDEXING_CAPABILITIES)                                       \
    X(RuntimeDescriptorArray, runtime_descriptor_array, "runtimeDescriptorArray")

/* Device extensions a SPIR-V extension needs, and the Vulkan 1.x that made the extension core (0: none has).  A
 * SPIR-V extension not listed here is not checked (the driver decides). */
#define SPIRV_EXTENSION_LIST(X)                                                                   \
    X("SPV_KHR_subgroup_uniform_control_flow", "VK_KHR_shader_subgroup_uniform_control_flow", 0) \
    X("SPV_EXT_shader_atomic_float_add", "VK_EXT_shader_atomic_float", 0)                        \
    X("SPV_KHR_8bit_storage", "VK_KHR_8bit_storage", 2)                                         \
    X("SPV_KHR_16bit_storage", "VK_KHR_16bit_storage", 1)                                       \
    X("SPV_KHR_variable_pointers", "VK_KHR_variable_pointers", 1)                               \
    X("SPV_KHR_vulkan_memory_model", "VK_KHR_vulkan_memory_model", 2)                           \
    X("SPV_KHR_float_controls", "VK_KHR_shader_float_controls", 2)                              \
    X("SPV_KHR_workgroup_memory_explicit_layout", "VK_KHR_workgroup_memory_explicit_layout", 0)     \
    X("SPV_NV_compute_shader_derivatives", "VK_NV_compute_shader_derivatives", 0)              \
    X("SPV_EXT_shader_image_int64", "VK_EXT_shader_image_atomic_int64", 0)                     \
    X("SPV_EXT_descriptor_indexing", "VK_EXT_descriptor_indexing", 2)

int vkb_kind_is_texel(case_kind k)
{
    return k == CASE_KIND_STORAGE_TEXEL_BUFFER || k == CASE_KIND_UNIFORM_TEXEL_BUFFER;
}

static const char *kind_name(case_kind k)
{
    return case_kind_name(k);
}

/*
 * The subgroup size a run will use, and whether it is set as a required size.  A device of one subgroup size runs
 * that size without being asked: asking (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo) would only add the
 * limit of maxComputeWorkgroupSubgroups subgroups per workgroup that comes with it (lavapipe: 32, so a
 * 1024-invocation workgroup at its wave 8 could not run).
 */
uint32_t vkb_effective_wave(const vkb_device_info *info, uint32_t requested, int *required)
{
    const int only_size = vkb_one_subgroup_size(info) && requested == info->subgroup_size;
    *required = requested != 0 && !only_size && info->subgroup_size_control &&
                (info->required_subgroup_size_stages & VK_SHADER_STAGE_COMPUTE_BIT);
    return requested ? requested : info->subgroup_size;
}

/* An image binding against the kernel's declaration: the same dimensionality, and for a storage image declared
 * with a format, the same format (a format-less one reads and writes through the case's). */
static vkb_status check_image_binding(const vkb_resource *res, const case_binding *b, int bi, char *err,
                                      size_t err_size)
{
    if (!vkb_kind_is_image(res->kind) || res->kind == CASE_KIND_SAMPLER)
        return VKB_OK;
    static const uint32_t dim_of[] = {[IMG_DIM_1D] = SpvDim1D, [IMG_DIM_2D] = SpvDim2D, [IMG_DIM_3D] = SpvDim3D,
                                      [IMG_DIM_CUBE] = SpvDimCube};
    static const char *const dim_name[] = {"1D", "2D", "3D", "cube"};
    if (res->image_dim <= SpvDimCube && (unsigned)b->image.dim <= IMG_DIM_CUBE && dim_of[b->image.dim] != res->image_dim) {
        snprintf(err, err_size, "bindings[%d] (set %u binding %u) is a %s image in the case but '%s' is %s in the kernel",
                 bi, b->set, b->binding, dim_name[b->image.dim], res->name, dim_name[res->image_dim]);
        return VKB_ERR_INPUT;
    }
    img_format declared;
    if (res->kind == CASE_KIND_STORAGE_IMAGE && res->image_format != SpvImageFormatUnknown) {
        const img_format_info *have = img_format_get(b->image.format);
        if (!img_format_from_spirv(res->image_format, &declared)) {
            snprintf(err, err_size, "bindings[%d] (set %u binding %u): the kernel declares '%s' with SPIR-V image "
                     "format %u, which wavelab does not know", bi, b->set, b->binding, res->name, res->image_format);
            return VKB_ERR_INPUT;
        }
        if (declared != b->image.format) {
            snprintf(err, err_size, "bindings[%d] (set %u binding %u): the kernel declares format %s, the case %s",
                     bi, b->set, b->binding, img_format_get(declared)->name, have ? have->name : "?");
            return VKB_ERR_INPUT;
        }
    }
    return VKB_OK;
}

/* Checks that the case gives element e of the kernel's resource res, of the same kind and format. */
static vkb_status check_binding(const vkb_resource *res, uint32_t e, const wl_case *c, char *err, size_t err_size)
{
    const case_binding *b = case_find_binding(c, res->set, res->binding, e);
    int bi = b ? (int)(b - c->bindings) : -1;
    if (!b) {
        if (!res->used)
            return VKB_OK;
        if (res->count != 1)
            snprintf(err, err_size, "kernel uses '%s' at set %u binding %u (%s), an array of %u, but the case "
                     "gives no element %u", res->name, res->set, res->binding, kind_name(res->kind), res->count, e);
        else
            snprintf(err, err_size, "kernel uses '%s' at set %u binding %u (%s) but the case gives no such "
                     "binding", res->name, res->set, res->binding, kind_name(res->kind));
        return VKB_ERR_INPUT;
    }
    if (b->kind != res->kind) {
        snprintf(err, err_size, "bindings[%d] (set %u binding %u) is a %s in the case but a %s ('%s') in the kernel",
                 bi, b->set, b->binding, kind_name(b->kind), kind_name(res->kind), res->name);
        return VKB_ERR_INPUT;
    }
    if (vkb_kind_is_texel(res->kind) && res->format[0] && strcmp(res->format, b->format) != 0) {
        snprintf(err, err_size, "bindings[%d] (set %u binding %u): the kernel declares format %s, the case %s",
                 bi, b->set, b->binding, res->format, b->format);
        return VKB_ERR_INPUT;
    }
    return check_image_binding(res, b, bi, err, err_size);
}

/* Checks that the case provides every binding the kernel uses, with the same kind and format. */
static vkb_status check_bindings(const vkb_kernel_info *k, const wl_case *c, char *err, size_t err_size)
{
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        for (int j = 0; j < i; j++)
            if (ISA_SAME_DESCRIPTOR(c->bindings[j], *b)) {
                snprintf(err, err_size, "case gives set %u binding %u element %u twice (bindings[%d] and [%d])",
                         b->set, b->binding, b->element, j, i);
                return VKB_ERR_INPUT;
            }
        if (vkb_kind_is_texel(b->kind) && isa_format_from_name(b->format) == ISA_FORMAT_UNKNOWN) {
            snprintf(err, err_size, "bindings[%d] (set %u binding %u): texel buffer format \"%s\" is not one wavelab knows",
                     i, b->set, b->binding, b->format);
            return VKB_ERR_INPUT;
        }
    }
    for (int r = 0; r < k->resource_count; r++)
        for (uint32_t e = 0; e < (k->resources[r].count ? k->resources[r].count : 1); e++) {
            vkb_status st = check_binding(&k->resources[r], e, c, err, err_size);
            if (st != VKB_OK)
                return st;
        }
    return VKB_OK;
}

/* The wave size the case asks for (0: none) against what the device can run. */
static vkb_status check_wave_size(const vkb_device_info *info, const vkb_kernel_info *k, uint32_t wave_size,
                                  char *err, size_t err_size)
{
    if (wave_size) {
        char sizes[160];
        if (info->subgroup_size_control && (info->required_subgroup_size_stages & VK_SHADER_STAGE_COMPUTE_BIT))
            snprintf(sizes, sizeof sizes, "it supports subgroup sizes %u..%u (subgroup size control: yes, default %u)",
                     info->min_subgroup_size, info->max_subgroup_size, info->subgroup_size);
        else
            snprintf(sizes, sizeof sizes, "it supports only subgroup size %u (subgroup size control: %s)",
                     info->subgroup_size,
                     info->subgroup_size_control ? "yes, but not for compute" : "no");
        int required;
        vkb_effective_wave(info, wave_size, &required);
        int bad = (wave_size & (wave_size - 1)) != 0;
        if (required)
            bad |= wave_size < info->min_subgroup_size || wave_size > info->max_subgroup_size;
        else
            bad |= wave_size != info->subgroup_size;
        if (bad) {
            snprintf(err, err_size, "%s cannot run wave size %u: %s", info->name, wave_size, sizes);
            return VKB_ERR_WAVE_SIZE;
        }
        uint64_t invocations = (uint64_t)k->local_size[0] * k->local_size[1] * k->local_size[2];
        if (required && invocations > (uint64_t)info->max_compute_workgroup_subgroups * wave_size) {
            snprintf(err, err_size,
                     "%s cannot run a %llu-invocation workgroup at wave size %u: at most %u subgroups per workgroup",
                     info->name, (unsigned long long)invocations, wave_size, info->max_compute_workgroup_subgroups);
            return VKB_ERR_WAVE_SIZE;
        }
    }

    return VKB_OK;
}

/* The kernel's subgroup operations, capabilities and SPIR-V extensions against the device's features and
 * extensions. */
static vkb_status check_features(const device_entry *d, const vkb_kernel_info *k, char *err, size_t err_size)
{
    const vkb_device_info *info = &d->info;
    /* subgroup operations */
    uint32_t missing = k->subgroup_ops & ~info->subgroup_ops;
    if (k->subgroup_ops && !(info->subgroup_stages & VK_SHADER_STAGE_COMPUTE_BIT)) {
        snprintf(err, err_size, "%s has no subgroup operations in compute shaders", info->name);
        return VKB_ERR_UNSUPPORTED;
    }
    if (missing) {
        char names[160], have[160];
        vkb_subgroup_ops_format(missing, names, sizeof names);
        vkb_subgroup_ops_format(info->subgroup_ops, have, sizeof have);
        snprintf(err, err_size, "%s does not support subgroup operations: %s (it supports: %s)", info->name, names,
                 have);
        return VKB_ERR_UNSUPPORTED;
    }
    if (k->subgroup_extended_types && !info->subgroup_extended_types) {
        snprintf(err, err_size,
                 "%s lacks shaderSubgroupExtendedTypes: the kernel runs subgroup operations on 8/16/64-bit "
                 "integers or float16",
                 info->name);
        return VKB_ERR_UNSUPPORTED;
    }
    for (int i = 0; i < k->capability_count; i++) {
        switch (k->capabilities[i]) {
#define X(cap, field, feature)                                                                         \
    case SpvCapability##cap:                                                                           \
        if (!info->field) {                                                                            \
            snprintf(err, err_size, "%s lacks %s, which SPIR-V capability %s needs", info->name, feature, #cap); \
            return VKB_ERR_UNSUPPORTED;                                                                \
        }                                                                                              \
        break;
            CAPABILITY_FEATURE_LIST(X)
#undef X
        case SpvCapabilityGroupNonUniformRotateKHR:
            snprintf(err, err_size,
                     "SPIR-V capability GroupNonUniformRotateKHR needs VK_KHR_shader_subgroup_rotate, which "
                     "wavelab's Vulkan headers do not know");
            return VKB_ERR_UNSUPPORTED;
        case SpvCapabilityExpectAssumeKHR: /* its feature struct (shaderExpectAssume) must be enabled */
            snprintf(err, err_size,
                     "SPIR-V capability ExpectAssumeKHR needs VK_KHR_shader_expect_assume, which wavelab's Vulkan "
                     "headers do not know");
            return VKB_ERR_UNSUPPORTED;
        default: break;
        }
    }

    /* SPIR-V extensions against device extensions */
    for (int i = 0; i < k->extension_count; i++) {
#define X(spv, vk, core_minor)                                                                                 \
    if (strcmp(k->extensions[i], spv) == 0 && !(core_minor && d->api >= VK_MAKE_API_VERSION(0, 1, core_minor, 0)) && \
        !vkb_device_has_extension(d, vk)) {                                                                    \
        snprintf(err, err_size, "the kernel's %s needs %s, which %s does not offer", spv, vk, info->name);   \
        return VKB_ERR_UNSUPPORTED;                                                                            \
    }
        SPIRV_EXTENSION_LIST(X)
#undef X
    }

    return VKB_OK;
}

/* The workgroup, shared memory, push constants and the case's bindings (c may be NULL) against the device's
 * limits. */
static vkb_status check_limits(const device_entry *d, const vkb_kernel_info *k, const wl_case *c, char *err,
                               size_t err_size)
{
    const vkb_device_info *info = &d->info;
    uint64_t invocations = (uint64_t)k->local_size[0] * k->local_size[1] * k->local_size[2];
    for (int i = 0; i < 3; i++)
        if (k->local_size[i] > info->max_compute_workgroup_size[i]) {
            snprintf(err, err_size, "%s allows workgroup size %c up to %u; the kernel asks for %u", info->name, "xyz"[i],
                     info->max_compute_workgroup_size[i], k->local_size[i]);
            return VKB_ERR_UNSUPPORTED;
        }
    if (invocations > info->max_compute_workgroup_invocations) {
        snprintf(err, err_size, "%s allows %u invocations per workgroup; the kernel asks for %llu", info->name,
                 info->max_compute_workgroup_invocations, (unsigned long long)invocations);
        return VKB_ERR_UNSUPPORTED;
    }
    if (k->shared_bytes > info->max_compute_shared_memory_size) {
        snprintf(err, err_size, "%s allows %u bytes of shared memory per workgroup; the kernel needs at least %u",
                 info->name, info->max_compute_shared_memory_size, k->shared_bytes);
        return VKB_ERR_UNSUPPORTED;
    }
    uint32_t push = k->push_constant_bytes;
    if (c && c->push_size > push)
        push = (uint32_t)c->push_size;
    if (push > info->max_push_constants_size) {
        snprintf(err, err_size, "%s allows %u bytes of push constants; the case needs %u", info->name,
                 info->max_push_constants_size, push);
        return VKB_ERR_UNSUPPORTED;
    }
    if (c) {
        for (int i = 0; i < 3; i++)
            if (c->groups[i] > info->max_compute_workgroup_count[i]) {
                snprintf(err, err_size, "%s allows %u workgroups in %c; the case dispatches %u", info->name,
                         info->max_compute_workgroup_count[i], "xyz"[i], c->groups[i]);
                return VKB_ERR_UNSUPPORTED;
            }
        for (int i = 0; i < c->binding_count; i++) {
            const case_binding *b = &c->bindings[i];
            if (b->kind == CASE_KIND_UNIFORM_BUFFER && b->size > info->max_uniform_buffer_range) {
                snprintf(err, err_size, "%s allows uniform buffers of %u bytes; bindings[%d] has %zu", info->name,
                         info->max_uniform_buffer_range, i, b->size);
                return VKB_ERR_UNSUPPORTED;
            }
            if (b->kind == CASE_KIND_STORAGE_BUFFER && b->size > info->max_storage_buffer_range) {
                snprintf(err, err_size, "%s allows storage buffers of %u bytes; bindings[%d] has %zu", info->name,
                         info->max_storage_buffer_range, i, b->size);
                return VKB_ERR_UNSUPPORTED;
            }
            /* a window's offset must be a multiple of the device's alignment (VkDescriptorBufferInfo's rule) */
            int uniform = b->kind == CASE_KIND_UNIFORM_BUFFER;
            uint64_t align = uniform ? info->min_uniform_buffer_offset_alignment
                                     : info->min_storage_buffer_offset_alignment;
            if ((uniform || b->kind == CASE_KIND_STORAGE_BUFFER) && b->offset && align && b->offset % align) {
                snprintf(err, err_size, "%s needs a %s buffer descriptor's offset to be a multiple of %" PRIu64
                         " bytes (%s); bindings[%d] (set %u binding %u) starts at byte %zu", info->name,
                         uniform ? "uniform" : "storage", align,
                         uniform ? "minUniformBufferOffsetAlignment" : "minStorageBufferOffsetAlignment", i, b->set,
                         b->binding, b->offset);
                return VKB_ERR_UNSUPPORTED;
            }
            if (vkb_kind_is_image(b->kind)) {
                vkb_status st = vkb_image_check_support(d->physical, info, b, i, err, err_size);
                if (st != VKB_OK)
                    return st;
            }
            if (vkb_kind_is_texel(b->kind)) {
                isa_format f = isa_format_from_name(b->format);
                size_t texels = b->size / isa_format_bytes(f);
                if (texels > info->max_texel_buffer_elements) {
                    snprintf(err, err_size, "%s allows %u texels per texel buffer; bindings[%d] has %zu", info->name,
                             info->max_texel_buffer_elements, i, texels);
                    return VKB_ERR_UNSUPPORTED;
                }
                VkFormatProperties fp;
                vkGetPhysicalDeviceFormatProperties(d->physical, (VkFormat)isa_format_vk(f), &fp);
                VkFormatFeatureFlags need = b->kind == CASE_KIND_STORAGE_TEXEL_BUFFER
                                                ? VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT
                                                : VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT;
                if (!(fp.bufferFeatures & need)) {
                    snprintf(err, err_size, "%s cannot use format %s for a %s (bindings[%d])", info->name, b->format,
                             kind_name(b->kind), i);
                    return VKB_ERR_UNSUPPORTED;
                }
            }
        }
    }
    return VKB_OK;
}

vkb_status vkb_check_support(const vkb_context *ctx, int index, const vkb_kernel_info *k, const wl_case *c,
                             uint32_t wave_size, char *err, size_t err_size)
{
    if (!ctx || index < 0 || index >= ctx->device_count) {
        snprintf(err, err_size, "no Vulkan device %d", index);
        return VKB_ERR_NO_DEVICE;
    }
    const device_entry *d = &ctx->devices[index];
    const vkb_device_info *info = &d->info;
    if (c) {
        vkb_status st = check_bindings(k, c, err, err_size);
        if (st != VKB_OK)
            return st;
    }
    if (!info->usable) {
        snprintf(err, err_size, "%s: Vulkan %u.%u (or the loader) is older than 1.1, which wavelab needs", info->name,
                 VK_API_VERSION_MAJOR(info->api_version), VK_API_VERSION_MINOR(info->api_version));
        return VKB_ERR_UNSUPPORTED;
    }
    /* a device takes the SPIR-V versions of its Vulkan version (the instance's caps it: d->api) */
    if (k->vulkan_minor && d->api < VK_MAKE_API_VERSION(0, 1, k->vulkan_minor, 0)) {
        snprintf(err, err_size, "%s: the kernel is SPIR-V %u.%u, which needs Vulkan 1.%u; the device (with the "
                 "loader) offers Vulkan %u.%u", info->name, (k->spirv_version >> 16) & 0xff,
                 (k->spirv_version >> 8) & 0xff, k->vulkan_minor, VK_API_VERSION_MAJOR(d->api),
                 VK_API_VERSION_MINOR(d->api));
        return VKB_ERR_UNSUPPORTED;
    }

    vkb_status st = check_wave_size(info, k, wave_size, err, err_size);
    if (st == VKB_OK)
        st = check_features(d, k, err, err_size);
    if (st == VKB_OK)
        st = check_limits(d, k, c, err, err_size);
    return st;
}
