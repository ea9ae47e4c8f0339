/*
 * backend/vk_device.c — the loader (through volk), the instance, the listed
 * physical devices with their properties, features and extensions
 * (`wavelab devices`), finding a device by name or index, and the names of
 * Vulkan results and subgroup operations in messages.  backend/vulkan.c
 * creates logical devices from what is gathered here.
 */
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NODELETE */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <spirv/unified1/spirv.h>
#include <volk.h>

#include "backend/backend.h"
#include "backend/vk_image.h"
#include "backend/vulkan_internal.h"
#include "img/img.h"
#include "isa/isa.h"

/* ------------------------------------------------------------- names */

#define VK_RESULT_LIST(X)                                                                     \
    X(VK_SUCCESS) X(VK_NOT_READY) X(VK_TIMEOUT) X(VK_EVENT_SET) X(VK_EVENT_RESET) X(VK_INCOMPLETE) \
    X(VK_ERROR_OUT_OF_HOST_MEMORY) X(VK_ERROR_OUT_OF_DEVICE_MEMORY) X(VK_ERROR_INITIALIZATION_FAILED) \
    X(VK_ERROR_DEVICE_LOST) X(VK_ERROR_MEMORY_MAP_FAILED) X(VK_ERROR_LAYER_NOT_PRESENT)               \
    X(VK_ERROR_EXTENSION_NOT_PRESENT) X(VK_ERROR_FEATURE_NOT_PRESENT) X(VK_ERROR_INCOMPATIBLE_DRIVER) \
    X(VK_ERROR_TOO_MANY_OBJECTS) X(VK_ERROR_FORMAT_NOT_SUPPORTED) X(VK_ERROR_FRAGMENTED_POOL)        \
    X(VK_ERROR_UNKNOWN) X(VK_ERROR_OUT_OF_POOL_MEMORY) X(VK_ERROR_INVALID_EXTERNAL_HANDLE)           \
    X(VK_ERROR_FRAGMENTATION) X(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS) X(VK_PIPELINE_COMPILE_REQUIRED) \
    X(VK_ERROR_SURFACE_LOST_KHR) X(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR) X(VK_SUBOPTIMAL_KHR)           \
    X(VK_ERROR_OUT_OF_DATE_KHR) X(VK_ERROR_INCOMPATIBLE_DISPLAY_KHR) X(VK_ERROR_VALIDATION_FAILED_EXT) \
    X(VK_ERROR_INVALID_SHADER_NV) X(VK_ERROR_NOT_PERMITTED_KHR) X(VK_THREAD_IDLE_KHR)                \
    X(VK_THREAD_DONE_KHR) X(VK_OPERATION_DEFERRED_KHR) X(VK_OPERATION_NOT_DEFERRED_KHR)              \
    X(VK_ERROR_COMPRESSION_EXHAUSTED_EXT)

const char *vkb_result_name(int vk_result)
{
    static _Thread_local char unknown[32];
    switch (vk_result) {
#define X(name) case name: return #name;
        VK_RESULT_LIST(X)
#undef X
    default:
        snprintf(unknown, sizeof unknown, "VkResult(%d)", vk_result);
        return unknown;
    }
}

#define VKB_STATUS_LIST(X)                                        \
    X(VKB_OK, "ok")                                               \
    X(VKB_ERR_NO_LOADER, "no Vulkan loader")                      \
    X(VKB_ERR_NO_DEVICE, "no Vulkan device")                      \
    X(VKB_ERR_VULKAN, "a Vulkan call failed")                     \
    X(VKB_ERR_DEVICE_LOST, "device lost")                         \
    X(VKB_ERR_TIMEOUT, "dispatch timed out")                      \
    X(VKB_ERR_WAVE_SIZE, "wave size not supported by the device") \
    X(VKB_ERR_UNSUPPORTED, "not supported by the device")         \
    X(VKB_ERR_INPUT, "bad input")                                 \
    X(VKB_ERR_NOMEM, "out of memory")

const char *vkb_status_str(vkb_status s)
{
    switch (s) {
#define X(id, text) case id: return text;
        VKB_STATUS_LIST(X)
#undef X
    }
    return "unknown status";
}

static void append(char *buf, size_t size, const char *text)
{
    size_t len = strlen(buf);
    if (len + 1 < size)
        snprintf(buf + len, size - len, "%s", text);
}

void vkb_subgroup_ops_format(uint32_t ops, char *buf, size_t size)
{
    if (!size)
        return;
    buf[0] = 0;
#define X(id, name, bit)                 \
    if (ops & (bit)) {                   \
        if (buf[0])                      \
            append(buf, size, " ");      \
        append(buf, size, name);         \
    }
    VKB_SUBGROUP_OP_LIST(X)
#undef X
    if (!buf[0])
        append(buf, size, "none");
}

#define SHADER_STAGE_LIST(X)                                                            \
    X(VK_SHADER_STAGE_VERTEX_BIT, "vertex") X(VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, "tess_control") \
    X(VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, "tess_eval") X(VK_SHADER_STAGE_GEOMETRY_BIT, "geometry") \
    X(VK_SHADER_STAGE_FRAGMENT_BIT, "fragment") X(VK_SHADER_STAGE_COMPUTE_BIT, "compute")          \
    X(VK_SHADER_STAGE_TASK_BIT_EXT, "task") X(VK_SHADER_STAGE_MESH_BIT_EXT, "mesh")                 \
    X(VK_SHADER_STAGE_RAYGEN_BIT_KHR, "raygen") X(VK_SHADER_STAGE_ANY_HIT_BIT_KHR, "any_hit")       \
    X(VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR, "closest_hit") X(VK_SHADER_STAGE_MISS_BIT_KHR, "miss")    \
    X(VK_SHADER_STAGE_INTERSECTION_BIT_KHR, "intersection") X(VK_SHADER_STAGE_CALLABLE_BIT_KHR, "callable")

void vkb_shader_stages_format(uint32_t stages, char *buf, size_t size)
{
    if (!size)
        return;
    buf[0] = 0;
#define X(bit, name)                     \
    if (stages & (uint32_t)(bit)) {      \
        if (buf[0])                      \
            append(buf, size, " ");      \
        append(buf, size, name);         \
    }
    SHADER_STAGE_LIST(X)
#undef X
    if (!buf[0])
        append(buf, size, "none");
}

/* ------------------------------------------------------------- context */


int vkb_device_has_extension(const device_entry *d, const char *name)
{
    for (uint32_t i = 0; i < d->extension_count; i++)
        if (strcmp(d->extensions[i].extensionName, name) == 0)
            return 1;
    return 0;
}

/* Extensions wavelab enables when present, and when they are needed at this API version. */
int vkb_device_wants_extension(const device_entry *d, const char *name)
{
    if (!vkb_device_has_extension(d, name))
        return 0;
    if (!strcmp(name, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) ||
        !strcmp(name, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME) ||
        !strcmp(name, VK_NV_SHADER_SUBGROUP_PARTITIONED_EXTENSION_NAME) ||
        !strcmp(name, VK_KHR_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_EXTENSION_NAME) ||
        !strcmp(name, VK_NV_COMPUTE_SHADER_DERIVATIVES_EXTENSION_NAME) ||
        !strcmp(name, VK_EXT_SHADER_IMAGE_ATOMIC_INT64_EXTENSION_NAME) ||
        !strcmp(name, "VK_KHR_portability_subset"))
        return 1;
    if (!strcmp(name, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME))
        return d->api < API_1_3;
    if (!strcmp(name, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME) || !strcmp(name, VK_KHR_8BIT_STORAGE_EXTENSION_NAME) ||
        !strcmp(name, VK_KHR_SHADER_SUBGROUP_EXTENDED_TYPES_EXTENSION_NAME) ||
        !strcmp(name, VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME))
        return d->api < API_1_2;
    return 0;
}

void vkb_chain_link(void **tail, void *next_struct)
{
    /* every Vulkan input/output struct starts with sType then pNext */
    VkBaseOutStructure *t = *tail;
    t->pNext = next_struct;
    *tail = next_struct;
}

/* Chains the feature structs this device supports (by version and extensions) under f->f2. */
void vkb_chain_features(const device_entry *d, device_features *f)
{
    memset(f, 0, sizeof *f);
    void *tail = &f->f2;
    f->f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    if (d->api >= API_1_2) {
        f->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
        f->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
        vkb_chain_link(&tail, &f->v11);
        vkb_chain_link(&tail, &f->v12);
    } else {
        f->storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
        vkb_chain_link(&tail, &f->storage16);
        f->variable_pointers.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES;
        vkb_chain_link(&tail, &f->variable_pointers);
        if (vkb_device_wants_extension(d, VK_KHR_8BIT_STORAGE_EXTENSION_NAME)) {
            f->storage8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
            vkb_chain_link(&tail, &f->storage8);
        }
        if (vkb_device_wants_extension(d, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME)) {
            f->float16_int8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
            vkb_chain_link(&tail, &f->float16_int8);
        }
        if (vkb_device_wants_extension(d, VK_KHR_SHADER_SUBGROUP_EXTENDED_TYPES_EXTENSION_NAME)) {
            f->extended_types.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES;
            vkb_chain_link(&tail, &f->extended_types);
        }
        if (vkb_device_wants_extension(d, VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME)) {
            f->atomic_int64.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES;
            vkb_chain_link(&tail, &f->atomic_int64);
        }
    }
    if (d->api >= API_1_3) {
        f->v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
        vkb_chain_link(&tail, &f->v13);
    } else if (vkb_device_wants_extension(d, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME)) {
        f->size_control.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES;
        vkb_chain_link(&tail, &f->size_control);
    }
    if (vkb_device_wants_extension(d, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
        f->executable_properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
        vkb_chain_link(&tail, &f->executable_properties);
    }
    if (vkb_device_wants_extension(d, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME)) {
        f->atomic_float.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
        vkb_chain_link(&tail, &f->atomic_float);
    }
    if (vkb_device_wants_extension(d, VK_KHR_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_EXTENSION_NAME)) {
        f->workgroup_explicit.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_FEATURES_KHR;
        vkb_chain_link(&tail, &f->workgroup_explicit);
    }
    if (vkb_device_wants_extension(d, VK_NV_COMPUTE_SHADER_DERIVATIVES_EXTENSION_NAME)) {
        f->derivatives.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COMPUTE_SHADER_DERIVATIVES_FEATURES_NV;
        vkb_chain_link(&tail, &f->derivatives);
    }
    if (vkb_device_wants_extension(d, VK_EXT_SHADER_IMAGE_ATOMIC_INT64_EXTENSION_NAME)) {
        f->image_int64.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_IMAGE_ATOMIC_INT64_FEATURES_EXT;
        vkb_chain_link(&tail, &f->image_int64);
    }
}

static const char *device_type_name(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
    }
}

/* RADV's null device: RADV (by driver ID) and a name that starts "Null hardware" — what RADV lists for
 * RADV_FORCE_FAMILY with no GPU behind it (docs/backend.md).  The one place that decides it. */
static int is_null_device(const VkPhysicalDeviceProperties *base, const VkPhysicalDeviceDriverProperties *drv)
{
    return drv && drv->driverID == VK_DRIVER_ID_MESA_RADV && strncmp(base->deviceName, "Null hardware", 13) == 0;
}

/* The features the checks ask about (check_features, `wavelab devices`), from the feature structs this device's
 * version and extensions give. */
static void read_features(const device_entry *d, vkb_device_info *info)
{
    device_features f;
    vkb_chain_features(d, &f);
    vkGetPhysicalDeviceFeatures2(d->physical, &f.f2);
    info->float64 = f.f2.features.shaderFloat64;
    info->int64 = f.f2.features.shaderInt64;
    info->int16 = f.f2.features.shaderInt16;
    info->image_cube_array = f.f2.features.imageCubeArray;
    info->storage_image_multisample = f.f2.features.shaderStorageImageMultisample;
    info->image_int64 = f.image_int64.shaderImageInt64Atomics;
    /* (the 1.2 struct is zeroed on an older device: no such feature) */
#define X(stem, src, name, dynamic, nonuniform)                        \
    info->dynamic = f.src.shader##stem##ArrayDynamicIndexing;          \
    info->nonuniform = f.v12.shader##stem##ArrayNonUniformIndexing;
    VKB_DESCRIPTOR_INDEXING_LIST(X)
#undef X
    /* Features a Vulkan version made core: read from that version's struct on a device of it, else from the
     * extension's (the same member names; a struct the chain left out reads as zero: no such feature). */
#define PROMOTED_FEATURES(X)                                                                       \
    X(float16, API_1_2, v12, float16_int8, shaderFloat16)                                          \
    X(int8, API_1_2, v12, float16_int8, shaderInt8)                                                \
    X(storage_buffer_8bit, API_1_2, v12, storage8, storageBuffer8BitAccess)                        \
    X(uniform_and_storage_buffer_8bit, API_1_2, v12, storage8, uniformAndStorageBuffer8BitAccess)  \
    X(storage_push_constant_8, API_1_2, v12, storage8, storagePushConstant8)                       \
    X(storage_buffer_16bit, API_1_2, v11, storage16, storageBuffer16BitAccess)                     \
    X(uniform_and_storage_buffer_16bit, API_1_2, v11, storage16, uniformAndStorageBuffer16BitAccess) \
    X(storage_push_constant_16, API_1_2, v11, storage16, storagePushConstant16)                    \
    X(variable_pointers_storage_buffer, API_1_2, v11, variable_pointers, variablePointersStorageBuffer) \
    X(variable_pointers, API_1_2, v11, variable_pointers, variablePointers)                        \
    X(subgroup_extended_types, API_1_2, v12, extended_types, shaderSubgroupExtendedTypes)          \
    X(int64_atomics, API_1_2, v12, atomic_int64, shaderBufferInt64Atomics)                         \
    X(subgroup_size_control, API_1_3, v13, size_control, subgroupSizeControl)                      \
    X(compute_full_subgroups, API_1_3, v13, size_control, computeFullSubgroups)
#define X(field, since, core, ext, member) info->field = d->api >= (since) ? f.core.member : f.ext.member;
    PROMOTED_FEATURES(X)
#undef X
#undef PROMOTED_FEATURES
    /* core in 1.2, with no extension struct wavelab chains before it */
    info->vulkan_memory_model = f.v12.vulkanMemoryModel;
    info->sampler_mirror_clamp_to_edge = f.v12.samplerMirrorClampToEdge;
    info->runtime_descriptor_array = f.v12.runtimeDescriptorArray;
    info->pipeline_executable_properties = f.executable_properties.pipelineExecutableInfo;
    info->float32_atomic_add = f.atomic_float.shaderBufferFloat32AtomicAdd;
    info->workgroup_explicit_layout = f.workgroup_explicit.workgroupMemoryExplicitLayout;
    info->workgroup_explicit_layout_8bit = f.workgroup_explicit.workgroupMemoryExplicitLayout8BitAccess;
    info->workgroup_explicit_layout_16bit = f.workgroup_explicit.workgroupMemoryExplicitLayout16BitAccess;
    info->derivative_group_quads = f.derivatives.computeDerivativeGroupQuads;
    info->derivative_group_linear = f.derivatives.computeDerivativeGroupLinear;
}

static void fill_device_info(vkb_context *ctx, device_entry *d)
{
    vkb_device_info *info = &d->info;
    VkPhysicalDeviceProperties base;
    vkGetPhysicalDeviceProperties(d->physical, &base);
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", base.deviceName);
    snprintf(info->type, sizeof info->type, "%s", device_type_name(base.deviceType));
    info->vendor_id = base.vendorID;
    info->device_id = base.deviceID;
    info->api_version = base.apiVersion;
    info->driver_version = base.driverVersion;
    uint32_t device_api = VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(base.apiVersion),
                                              VK_API_VERSION_MINOR(base.apiVersion), 0);
    d->api = device_api < ctx->instance_api ? device_api : ctx->instance_api;

    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(d->physical, NULL, &n, NULL) == VK_SUCCESS && n) {
        d->extensions = calloc(n, sizeof *d->extensions);
        if (d->extensions && vkEnumerateDeviceExtensionProperties(d->physical, NULL, &n, d->extensions) >= 0)
            d->extension_count = n;
    }

    const VkPhysicalDeviceLimits *lim = &base.limits;
    info->max_compute_shared_memory_size = lim->maxComputeSharedMemorySize;
    info->max_compute_workgroup_invocations = lim->maxComputeWorkGroupInvocations;
    for (int i = 0; i < 3; i++) {
        info->max_compute_workgroup_size[i] = lim->maxComputeWorkGroupSize[i];
        info->max_compute_workgroup_count[i] = lim->maxComputeWorkGroupCount[i];
    }
    info->max_push_constants_size = lim->maxPushConstantsSize;
    info->max_storage_buffer_range = lim->maxStorageBufferRange;
    info->max_uniform_buffer_range = lim->maxUniformBufferRange;
    info->max_texel_buffer_elements = lim->maxTexelBufferElements;
    info->min_storage_buffer_offset_alignment = lim->minStorageBufferOffsetAlignment;
    info->min_uniform_buffer_offset_alignment = lim->minUniformBufferOffsetAlignment;
    info->timestamp_period = lim->timestampPeriod;

    uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d->physical, &qn, NULL);
    VkQueueFamilyProperties *q = calloc(qn ? qn : 1, sizeof *q);
    info->compute_queue_family = UINT32_MAX;
    if (q) {
        vkGetPhysicalDeviceQueueFamilyProperties(d->physical, &qn, q);
        for (uint32_t i = 0; i < qn; i++)
            if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
                info->compute_queue_family = i;
                info->timestamp_valid_bits = q[i].timestampValidBits;
                break;
            }
        free(q);
    }

    if (d->api < API_1_1 || info->compute_queue_family == UINT32_MAX) {
        info->usable = 0;
        info->subgroup_size = info->min_subgroup_size = info->max_subgroup_size = 0;
        return;
    }
    info->usable = 1;

    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    VkPhysicalDeviceSubgroupProperties sub = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceDriverProperties drv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceSubgroupSizeControlProperties ssc = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
    void *tail = &p2;
    vkb_chain_link(&tail, &sub);
    int has_driver = d->api >= API_1_2 || vkb_device_has_extension(d, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
    int has_ssc = d->api >= API_1_3 || vkb_device_has_extension(d, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    if (has_driver)
        vkb_chain_link(&tail, &drv);
    if (has_ssc)
        vkb_chain_link(&tail, &ssc);
    vkGetPhysicalDeviceProperties2(d->physical, &p2);
    if (has_driver) {
        snprintf(info->driver_name, sizeof info->driver_name, "%s", drv.driverName);
        snprintf(info->driver_info, sizeof info->driver_info, "%s", drv.driverInfo);
    }
    info->compile_only = is_null_device(&base, has_driver ? &drv : NULL);
    info->subgroup_size = sub.subgroupSize;
    info->subgroup_stages = sub.supportedStages;
    info->subgroup_ops = sub.supportedOperations;
    info->min_subgroup_size = info->max_subgroup_size = sub.subgroupSize;

    read_features(d, info);
    if (has_ssc && info->subgroup_size_control) {
        info->min_subgroup_size = ssc.minSubgroupSize;
        info->max_subgroup_size = ssc.maxSubgroupSize;
        info->required_subgroup_size_stages = ssc.requiredSubgroupSizeStages;
        info->max_compute_workgroup_subgroups = ssc.maxComputeWorkgroupSubgroups;
    }

    info->performance_query = vkb_device_has_extension(d, VK_KHR_PERFORMANCE_QUERY_EXTENSION_NAME);
    if (info->performance_query && vkEnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR) {
        uint32_t count = 0;
        if (vkEnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR(
                d->physical, info->compute_queue_family, &count, NULL, NULL) == VK_SUCCESS)
            info->performance_counter_count = count;
    }
}

/* Marks one loaded shared object RTLD_NODELETE: dlopen with RTLD_NOLOAD only
 * finds it and sets the flag; the dlclose gives back the reference taken. */
static int pin_object(struct dl_phdr_info *info, size_t size, void *unused)
{
    (void)size;
    (void)unused;
    if (!info->dlpi_name || !info->dlpi_name[0])
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    if (h)
        dlclose(h);
    return 0;
}

/* The loader dlcloses the drivers at vkDestroyInstance.  A driver keeps some
 * allocations for the life of the process, reachable only from its own
 * globals; once it is unloaded nothing points at them and LeakSanitizer
 * reports them as leaks of an "<unknown module>" (lavapipe, Mesa 22.3).
 * Keeping every object loaded so far in the process keeps those globals, so
 * leak detection still sees wavelab's own leaks and never a driver's; it also
 * spares a process that creates several contexts (tests, probe) reloading
 * LLVM each time. */
static void pin_loaded_drivers(void)
{
    dl_iterate_phdr(pin_object, NULL);
}

/* Contexts alive in this process: RADV_FORCE_FAMILY may change only while there is none. */
static int live_contexts;

vkb_status vkb_context_create(vkb_context **out, char *err, size_t err_size)
{
    *out = NULL;
    VkResult r = volkInitialize();
    if (r != VK_SUCCESS) {
        snprintf(err, err_size,
                 "no Vulkan loader on this machine (libvulkan.so.1 could not be loaded; "
                 "install libvulkan1 and a driver, e.g. mesa-vulkan-drivers for lavapipe)");
        return VKB_ERR_NO_LOADER;
    }
    uint32_t loader_api = volkGetInstanceVersion();
    if (loader_api < API_1_1) {
        snprintf(err, err_size, "the Vulkan loader supports only Vulkan 1.0; wavelab needs 1.1");
        return VKB_ERR_NO_LOADER;
    }
    vkb_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        snprintf(err, err_size, "out of memory");
        return VKB_ERR_NOMEM;
    }
    __atomic_add_fetch(&live_contexts, 1, __ATOMIC_SEQ_CST); /* vkb_context_destroy takes it back, on any path */
    ctx->instance_api = loader_api >= API_1_3 ? API_1_3 : (loader_api >= API_1_2 ? API_1_2 : API_1_1);

    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "wavelab",
        .applicationVersion = 1,
        .pEngineName = "wavelab",
        .engineVersion = 1,
        .apiVersion = ctx->instance_api,
    };
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    /* Portability drivers (MoltenVK) are listed only when asked for. */
    const char *instance_extensions[1];
    uint32_t ext_n = 0;
    if (vkEnumerateInstanceExtensionProperties(NULL, &ext_n, NULL) == VK_SUCCESS && ext_n) {
        VkExtensionProperties *e = calloc(ext_n, sizeof *e);
        if (e && vkEnumerateInstanceExtensionProperties(NULL, &ext_n, e) >= 0)
            for (uint32_t i = 0; i < ext_n; i++)
                if (!strcmp(e[i].extensionName, "VK_KHR_portability_enumeration")) {
                    instance_extensions[0] = "VK_KHR_portability_enumeration";
                    ici.enabledExtensionCount = 1;
                    ici.ppEnabledExtensionNames = instance_extensions;
                    ici.flags |= 0x00000001; /* VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR */
                }
        free(e);
    }
    r = vkCreateInstance(&ici, NULL, &ctx->instance);
    if (r != VK_SUCCESS) {
        snprintf(err, err_size, "vkCreateInstance failed: %s%s", vkb_result_name(r),
                 r == VK_ERROR_INCOMPATIBLE_DRIVER ? " (no Vulkan driver is installed)" : "");
        free(ctx);
        return r == VK_ERROR_INCOMPATIBLE_DRIVER ? VKB_ERR_NO_DEVICE : VKB_ERR_VULKAN;
    }
    volkLoadInstance(ctx->instance);
    pin_loaded_drivers();

    uint32_t count = 0;
    r = vkEnumeratePhysicalDevices(ctx->instance, &count, NULL);
    if (r != VK_SUCCESS) {
        /* e.g. VK_ERROR_INITIALIZATION_FAILED when the only installed driver finds no hardware */
        snprintf(err, err_size, "vkEnumeratePhysicalDevices failed: %s (no usable Vulkan device)", vkb_result_name(r));
        vkb_context_destroy(ctx);
        return VKB_ERR_NO_DEVICE;
    }
    if (count) {
        VkPhysicalDevice *pd = calloc(count, sizeof *pd);
        ctx->devices = calloc(count, sizeof *ctx->devices);
        if (!pd || !ctx->devices) {
            free(pd);
            vkb_context_destroy(ctx);
            snprintf(err, err_size, "out of memory");
            return VKB_ERR_NOMEM;
        }
        r = vkEnumeratePhysicalDevices(ctx->instance, &count, pd);
        if (r < 0) {
            snprintf(err, err_size, "vkEnumeratePhysicalDevices failed: %s", vkb_result_name(r));
            free(pd);
            vkb_context_destroy(ctx);
            return VKB_ERR_VULKAN;
        }
        for (uint32_t i = 0; i < count; i++) {
            ctx->devices[i].physical = pd[i];
            fill_device_info(ctx, &ctx->devices[i]);
        }
        ctx->device_count = (int)count;
        free(pd);
    }
    *out = ctx;
    return VKB_OK;
}

vkb_status vkb_context_create_null(const char *family, vkb_context **out, int *index, char *err, size_t err_size)
{
    *out = NULL;
    const char *now = getenv("RADV_FORCE_FAMILY");
    if (__atomic_load_n(&live_contexts, __ATOMIC_SEQ_CST) > 0 && !(now && strcmp(now, family) == 0)) {
        snprintf(err, err_size, "RADV's null device for %s needs RADV_FORCE_FAMILY=%s before the first Vulkan "
                 "context, and this process already has one open", family, family);
        return VKB_ERR_INPUT;
    }
    for (const char *f = family; *f; f++)
        if (!((*f >= 'a' && *f <= 'z') || (*f >= 'A' && *f <= 'Z') || (*f >= '0' && *f <= '9'))) {
            snprintf(err, err_size, "\"%s\" is not a GPU generation name (letters and digits: navi21, vega10, "
                     "gfx1100, ...)", family);
            return VKB_ERR_INPUT;
        }
    char before[64] = ""; /* put back when this fails: a family RADV does not know would abort the next context */
    int had_before = now != NULL;
    if (now)
        snprintf(before, sizeof before, "%s", now);
    if (setenv("RADV_FORCE_FAMILY", family, 1) != 0) {
        snprintf(err, err_size, "cannot set RADV_FORCE_FAMILY=%s", family);
        return VKB_ERR_INPUT;
    }
    /* RADV aborts the process on a family it does not know (Mesa 22.3: "radv: Unknown family"), and which it
     * knows depends on its version: list the devices in a child first */
    pid_t child = fork();
    if (child == 0) {
        int null_fd = open("/dev/null", O_WRONLY);
        if (null_fd >= 0)
            dup2(null_fd, 2);
        vkb_context *probe = NULL;
        char probe_err[256];
        _exit(vkb_context_create(&probe, probe_err, sizeof probe_err) == VKB_OK ? 0 : 1);
    }
    int status = 0;
    vkb_status st = VKB_OK;
    if (child > 0 && waitpid(child, &status, 0) == child && WIFSIGNALED(status)) {
        snprintf(err, err_size, "RADV knows no GPU generation \"%s\" (RADV_FORCE_FAMILY=%s aborts it; try vega10, "
                 "navi10, navi21, gfx1100)", family, family);
        st = VKB_ERR_INPUT;
        goto failed;
    }
    st = vkb_context_create(out, err, err_size);
    if (st != VKB_OK)
        goto failed;
    for (int i = 0; i < (*out)->device_count; i++)
        if ((*out)->devices[i].info.compile_only && strcasestr((*out)->devices[i].info.name, family)) {
            *index = i;
            return VKB_OK;
        }
    snprintf(err, err_size, "RADV_FORCE_FAMILY=%s lists no RADV null device: RADV (mesa-vulkan-drivers) is not "
             "installed", family);
    vkb_context_destroy(*out);
    *out = NULL;
    st = VKB_ERR_NO_DEVICE;
failed:
    if (had_before)
        setenv("RADV_FORCE_FAMILY", before, 1);
    else
        unsetenv("RADV_FORCE_FAMILY");
    return st;
}

vkb_status vkb_device_dispatches(const vkb_device_info *info, char *err, size_t err_size)
{
    if (!info->compile_only)
        return VKB_OK;
    const char *family = getenv("RADV_FORCE_FAMILY");
    snprintf(err, err_size, "%s is RADV's null device: it compiles only; use `wavelab disasm CASE --against radv:%s`",
             info->name, family && *family ? family : "FAMILY");
    return VKB_ERR_UNSUPPORTED;
}

void vkb_context_destroy(vkb_context *ctx)
{
    if (!ctx)
        return;
    __atomic_sub_fetch(&live_contexts, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < ctx->device_count; i++)
        free(ctx->devices[i].extensions);
    free(ctx->devices);
    if (ctx->instance && !ctx->abandoned)
        vkDestroyInstance(ctx->instance, NULL);
    free(ctx);
}

int vkb_device_count(const vkb_context *ctx)
{
    return ctx ? ctx->device_count : 0;
}

vkb_status vkb_device_info_get(const vkb_context *ctx, int index, vkb_device_info *info)
{
    if (!ctx || index < 0 || index >= ctx->device_count)
        return VKB_ERR_NO_DEVICE;
    *info = ctx->devices[index].info;
    return VKB_OK;
}

vkb_status vkb_device_find(const vkb_context *ctx, const char *spec, int *index, char *err, size_t err_size)
{
    if (!ctx || ctx->device_count == 0) {
        snprintf(err, err_size, "no Vulkan device found (the loader lists no physical device)");
        return VKB_ERR_NO_DEVICE;
    }
    if (!spec || !*spec) { /* the first device that can run work: RADV's null device only when named */
        *index = 0;
        for (int i = ctx->device_count - 1; i >= 0; i--)
            if (!ctx->devices[i].info.compile_only)
                *index = i;
        return VKB_OK;
    }
    int all_digits = 1;
    for (const char *p = spec; *p; p++)
        if (*p < '0' || *p > '9')
            all_digits = 0;
    if (all_digits) {
        long i = strtol(spec, NULL, 10);
        if (i >= 0 && i < ctx->device_count) {
            *index = (int)i;
            return VKB_OK;
        }
    } else {
        for (int i = 0; i < ctx->device_count; i++)
            if (strcasestr(ctx->devices[i].info.name, spec)) {
                *index = i;
                return VKB_OK;
            }
    }
    int len = snprintf(err, err_size, "no Vulkan device matches \"%s\"; devices:", spec);
    for (int i = 0; i < ctx->device_count && len >= 0 && (size_t)len < err_size; i++)
        len += snprintf(err + len, err_size - (size_t)len, " %d: %s%s", i, ctx->devices[i].info.name,
                        i + 1 < ctx->device_count ? ";" : "");
    return VKB_ERR_NO_DEVICE;
}

/* ------------------------------------------------------------- for backend/probe.c (vulkan_internal.h) */

int vkb_internal_device(const vkb_context *ctx, int index, VkPhysicalDevice *physical, uint32_t *api)
{
    if (!ctx || index < 0 || index >= ctx->device_count)
        return 0;
    *physical = ctx->devices[index].physical;
    *api = ctx->devices[index].api;
    return 1;
}

int vkb_internal_has_extension(const vkb_context *ctx, int index, const char *name)
{
    return ctx && index >= 0 && index < ctx->device_count && vkb_device_has_extension(&ctx->devices[index], name);
}
