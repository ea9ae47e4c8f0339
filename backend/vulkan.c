/*
 * backend/vulkan.c — the Vulkan runner: loader (through volk), devices and
 * their properties, and one case run from SPIR-V to read-back bytes.
 *
 * Choices worth knowing (docs/backend.md says more):
 *  - A logical device is made per vkb_run_case call and enables every feature
 *    the device reports (including robustBufferAccess, so a kernel that
 *    indexes out of bounds cannot scribble over lavapipe's host memory).
 *  - Buffers live in host-visible, host-coherent memory, device-local too when
 *    the device offers such a type (resizable BAR): no staging copies, the
 *    same code on lavapipe and on a discrete GPU.  Initial contents sit in a
 *    source buffer per binding and are copied on the GPU at the start of
 *    every dispatch's command buffer, so every repeat sees the same inputs
 *    and back-to-back repeats keep the GPU busy (host writes between them
 *    would let it idle and drop its clock); the timestamps enclose the
 *    dispatch alone.
 *  - Fences are waited with a timeout.  On VK_TIMEOUT the device is
 *    abandoned (not destroyed: destroying a busy device is undefined), so a
 *    hung kernel reports instead of hanging wavelab.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <spirv/unified1/spirv.h>
#include <volk.h>

#include "backend/backend.h"
#include "backend/vk_image.h"
#include "img/img.h"
#include "backend/vulkan_internal.h"
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

typedef struct device_entry {
    VkPhysicalDevice physical;
    uint32_t api;                    /* min(device, instance) without the patch number */
    VkExtensionProperties *extensions;
    uint32_t extension_count;
    vkb_device_info info;
} device_entry;

struct vkb_context {
    VkInstance instance;
    uint32_t instance_api;
    int device_count;
    device_entry *devices;
    int abandoned;                   /* a device was left running after a timeout: keep the instance */
};

/* Every feature struct a device might be asked for; which are chained depends on version and extensions. */
typedef struct device_features {
    VkPhysicalDeviceFeatures2 f2;
    VkPhysicalDeviceVulkan11Features v11;
    VkPhysicalDeviceVulkan12Features v12;
    VkPhysicalDeviceVulkan13Features v13;
    VkPhysicalDevice16BitStorageFeatures storage16;
    VkPhysicalDevice8BitStorageFeatures storage8;
    VkPhysicalDeviceShaderFloat16Int8Features float16_int8;
    VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures extended_types;
    VkPhysicalDeviceShaderAtomicInt64Features atomic_int64;
    VkPhysicalDeviceSubgroupSizeControlFeatures size_control;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable_properties;
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float;
} device_features;

#define API_1_1 VK_MAKE_API_VERSION(0, 1, 1, 0)
#define API_1_2 VK_MAKE_API_VERSION(0, 1, 2, 0)
#define API_1_3 VK_MAKE_API_VERSION(0, 1, 3, 0)

static int has_extension(const device_entry *d, const char *name)
{
    for (uint32_t i = 0; i < d->extension_count; i++)
        if (strcmp(d->extensions[i].extensionName, name) == 0)
            return 1;
    return 0;
}

/* Extensions wavelab enables when present, and when they are needed at this API version. */
static int wanted_extension(const device_entry *d, const char *name)
{
    if (!has_extension(d, name))
        return 0;
    if (!strcmp(name, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) ||
        !strcmp(name, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME) ||
        !strcmp(name, VK_NV_SHADER_SUBGROUP_PARTITIONED_EXTENSION_NAME) ||
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

static void chain_link(void **tail, void *next_struct)
{
    /* every Vulkan input/output struct starts with sType then pNext */
    VkBaseOutStructure *t = *tail;
    t->pNext = next_struct;
    *tail = next_struct;
}

/* Chains the feature structs this device supports (by version and extensions) under f->f2. */
static void chain_features(const device_entry *d, device_features *f)
{
    memset(f, 0, sizeof *f);
    void *tail = &f->f2;
    f->f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    if (d->api >= API_1_2) {
        f->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
        f->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
        chain_link(&tail, &f->v11);
        chain_link(&tail, &f->v12);
    } else {
        f->storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
        chain_link(&tail, &f->storage16);
        if (wanted_extension(d, VK_KHR_8BIT_STORAGE_EXTENSION_NAME)) {
            f->storage8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
            chain_link(&tail, &f->storage8);
        }
        if (wanted_extension(d, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME)) {
            f->float16_int8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
            chain_link(&tail, &f->float16_int8);
        }
        if (wanted_extension(d, VK_KHR_SHADER_SUBGROUP_EXTENDED_TYPES_EXTENSION_NAME)) {
            f->extended_types.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES;
            chain_link(&tail, &f->extended_types);
        }
        if (wanted_extension(d, VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME)) {
            f->atomic_int64.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES;
            chain_link(&tail, &f->atomic_int64);
        }
    }
    if (d->api >= API_1_3) {
        f->v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
        chain_link(&tail, &f->v13);
    } else if (wanted_extension(d, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME)) {
        f->size_control.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES;
        chain_link(&tail, &f->size_control);
    }
    if (wanted_extension(d, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
        f->executable_properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
        chain_link(&tail, &f->executable_properties);
    }
    if (wanted_extension(d, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME)) {
        f->atomic_float.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
        chain_link(&tail, &f->atomic_float);
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
    chain_link(&tail, &sub);
    int has_driver = d->api >= API_1_2 || has_extension(d, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
    int has_ssc = d->api >= API_1_3 || has_extension(d, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    if (has_driver)
        chain_link(&tail, &drv);
    if (has_ssc)
        chain_link(&tail, &ssc);
    vkGetPhysicalDeviceProperties2(d->physical, &p2);
    if (has_driver) {
        snprintf(info->driver_name, sizeof info->driver_name, "%s", drv.driverName);
        snprintf(info->driver_info, sizeof info->driver_info, "%s", drv.driverInfo);
    }
    info->subgroup_size = sub.subgroupSize;
    info->subgroup_stages = sub.supportedStages;
    info->subgroup_ops = sub.supportedOperations;
    info->min_subgroup_size = info->max_subgroup_size = sub.subgroupSize;

    device_features f;
    chain_features(d, &f);
    vkGetPhysicalDeviceFeatures2(d->physical, &f.f2);
    info->float64 = f.f2.features.shaderFloat64;
    info->int64 = f.f2.features.shaderInt64;
    info->int16 = f.f2.features.shaderInt16;
    if (d->api >= API_1_2) {
        info->float16 = f.v12.shaderFloat16;
        info->int8 = f.v12.shaderInt8;
        info->storage_buffer_8bit = f.v12.storageBuffer8BitAccess;
        info->uniform_and_storage_buffer_8bit = f.v12.uniformAndStorageBuffer8BitAccess;
        info->storage_push_constant_8 = f.v12.storagePushConstant8;
        info->storage_buffer_16bit = f.v11.storageBuffer16BitAccess;
        info->uniform_and_storage_buffer_16bit = f.v11.uniformAndStorageBuffer16BitAccess;
        info->storage_push_constant_16 = f.v11.storagePushConstant16;
        info->subgroup_extended_types = f.v12.shaderSubgroupExtendedTypes;
        info->int64_atomics = f.v12.shaderBufferInt64Atomics;
        info->vulkan_memory_model = f.v12.vulkanMemoryModel;
        info->sampler_mirror_clamp_to_edge = f.v12.samplerMirrorClampToEdge;
    } else {
        info->float16 = f.float16_int8.shaderFloat16;
        info->int8 = f.float16_int8.shaderInt8;
        info->storage_buffer_8bit = f.storage8.storageBuffer8BitAccess;
        info->uniform_and_storage_buffer_8bit = f.storage8.uniformAndStorageBuffer8BitAccess;
        info->storage_push_constant_8 = f.storage8.storagePushConstant8;
        info->storage_buffer_16bit = f.storage16.storageBuffer16BitAccess;
        info->uniform_and_storage_buffer_16bit = f.storage16.uniformAndStorageBuffer16BitAccess;
        info->storage_push_constant_16 = f.storage16.storagePushConstant16;
        info->subgroup_extended_types = f.extended_types.shaderSubgroupExtendedTypes;
        info->int64_atomics = f.atomic_int64.shaderBufferInt64Atomics;
    }
    if (d->api >= API_1_3) {
        info->subgroup_size_control = f.v13.subgroupSizeControl;
        info->compute_full_subgroups = f.v13.computeFullSubgroups;
    } else {
        info->subgroup_size_control = f.size_control.subgroupSizeControl;
        info->compute_full_subgroups = f.size_control.computeFullSubgroups;
    }
    if (has_ssc && info->subgroup_size_control) {
        info->min_subgroup_size = ssc.minSubgroupSize;
        info->max_subgroup_size = ssc.maxSubgroupSize;
        info->required_subgroup_size_stages = ssc.requiredSubgroupSizeStages;
        info->max_compute_workgroup_subgroups = ssc.maxComputeWorkgroupSubgroups;
    }
    info->pipeline_executable_properties = f.executable_properties.pipelineExecutableInfo;
    info->float32_atomic_add = f.atomic_float.shaderBufferFloat32AtomicAdd;

    info->performance_query = has_extension(d, VK_KHR_PERFORMANCE_QUERY_EXTENSION_NAME);
    if (info->performance_query && vkEnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR) {
        uint32_t count = 0;
        if (vkEnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR(
                d->physical, info->compute_queue_family, &count, NULL, NULL) == VK_SUCCESS)
            info->performance_counter_count = count;
    }
}

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

void vkb_context_destroy(vkb_context *ctx)
{
    if (!ctx)
        return;
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

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i]) {
            char a = hay[i], b = needle[i];
            if (a >= 'A' && a <= 'Z')
                a = (char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z')
                b = (char)(b - 'A' + 'a');
            if (a != b)
                break;
            i++;
        }
        if (i == n)
            return 1;
    }
    return n == 0;
}

vkb_status vkb_device_find(const vkb_context *ctx, const char *spec, int *index, char *err, size_t err_size)
{
    if (!ctx || ctx->device_count == 0) {
        snprintf(err, err_size, "no Vulkan device found (the loader lists no physical device)");
        return VKB_ERR_NO_DEVICE;
    }
    if (!spec || !*spec) {
        *index = 0;
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
            if (contains_ci(ctx->devices[i].info.name, spec)) {
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

/* ------------------------------------------------------------- support */

/* Device features a SPIR-V capability needs (subgroup capabilities are checked by operation class). */
#define CAPABILITY_FEATURE_LIST(X)                                                            \
    X(Float16, float16, "shaderFloat16")                                                      \
    X(Float64, float64, "shaderFloat64")                                                      \
    X(Int8, int8, "shaderInt8")                                                               \
    X(Int16, int16, "shaderInt16")                                                            \
    X(Int64, int64, "shaderInt64")                                                            \
    X(Int64Atomics, int64_atomics, "shaderBufferInt64Atomics")                                \
    X(AtomicFloat32AddEXT, float32_atomic_add, "shaderBufferFloat32AtomicAdd (VK_EXT_shader_atomic_float)") \
    X(StorageBuffer16BitAccess, storage_buffer_16bit, "storageBuffer16BitAccess")             \
    X(UniformAndStorageBuffer16BitAccess, uniform_and_storage_buffer_16bit, "uniformAndStorageBuffer16BitAccess") \
    X(StoragePushConstant16, storage_push_constant_16, "storagePushConstant16")               \
    X(StorageBuffer8BitAccess, storage_buffer_8bit, "storageBuffer8BitAccess")                \
    X(UniformAndStorageBuffer8BitAccess, uniform_and_storage_buffer_8bit, "uniformAndStorageBuffer8BitAccess") \
    X(StoragePushConstant8, storage_push_constant_8, "storagePushConstant8")                  \
    X(VulkanMemoryModel, vulkan_memory_model, "vulkanMemoryModel")

/* VkFormat of each texel format the case contract lists (isa/isa.h's ISA_FORMAT_LIST). */
#define VKB_FORMAT_UNKNOWN VK_FORMAT_UNDEFINED
#define VKB_FORMAT_R32UI VK_FORMAT_R32_UINT
#define VKB_FORMAT_R32I VK_FORMAT_R32_SINT
#define VKB_FORMAT_R32F VK_FORMAT_R32_SFLOAT
#define VKB_FORMAT_RG32UI VK_FORMAT_R32G32_UINT
#define VKB_FORMAT_RG32I VK_FORMAT_R32G32_SINT
#define VKB_FORMAT_RG32F VK_FORMAT_R32G32_SFLOAT
#define VKB_FORMAT_RGBA32UI VK_FORMAT_R32G32B32A32_UINT
#define VKB_FORMAT_RGBA32I VK_FORMAT_R32G32B32A32_SINT
#define VKB_FORMAT_RGBA32F VK_FORMAT_R32G32B32A32_SFLOAT
#define VKB_FORMAT_R16F VK_FORMAT_R16_SFLOAT
#define VKB_FORMAT_RGBA16F VK_FORMAT_R16G16B16A16_SFLOAT
#define VKB_FORMAT_R16UI VK_FORMAT_R16_UINT
#define VKB_FORMAT_R8UI VK_FORMAT_R8_UINT
#define VKB_FORMAT_RGBA8UI VK_FORMAT_R8G8B8A8_UINT
#define VKB_FORMAT_RGBA8 VK_FORMAT_R8G8B8A8_UNORM

static VkFormat vk_format_of(isa_format f)
{
    switch (f) {
#define X(id, name, comps, bytes, type) case ISA_FORMAT_##id: return VKB_FORMAT_##id;
        ISA_FORMAT_LIST(X)
#undef X
    default: return VK_FORMAT_UNDEFINED;
    }
}

static int is_texel(case_kind k)
{
    return k == CASE_KIND_STORAGE_TEXEL_BUFFER || k == CASE_KIND_UNIFORM_TEXEL_BUFFER;
}

static const char *kind_name(case_kind k)
{
    return case_kind_name(k);
}

/* The subgroup size a run will use, and whether it is set as a required size. */
static uint32_t effective_wave(const vkb_device_info *info, uint32_t requested, int *required)
{
    *required = requested != 0 && info->subgroup_size_control &&
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

/* Checks that the case provides every binding the kernel uses, with the same kind and format. */
static vkb_status check_bindings(const vkb_kernel_info *k, const wl_case *c, char *err, size_t err_size)
{
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        for (int j = 0; j < i; j++)
            if (c->bindings[j].set == b->set && c->bindings[j].binding == b->binding) {
                snprintf(err, err_size, "case gives set %u binding %u twice (bindings[%d] and [%d])", b->set,
                         b->binding, j, i);
                return VKB_ERR_INPUT;
            }
        if (is_texel(b->kind) && isa_format_from_name(b->format) == ISA_FORMAT_UNKNOWN) {
            snprintf(err, err_size, "bindings[%d] (set %u binding %u): texel buffer format \"%s\" is not one wavelab knows",
                     i, b->set, b->binding, b->format);
            return VKB_ERR_INPUT;
        }
    }
    for (int r = 0; r < k->resource_count; r++) {
        const vkb_resource *res = &k->resources[r];
        const case_binding *b = NULL;
        int bi = -1;
        for (int i = 0; i < c->binding_count; i++)
            if (c->bindings[i].set == res->set && c->bindings[i].binding == res->binding) {
                b = &c->bindings[i];
                bi = i;
            }
        if (!b) {
            if (!res->used)
                continue;
            snprintf(err, err_size, "kernel uses '%s' at set %u binding %u (%s) but the case gives no such binding",
                     res->name, res->set, res->binding, kind_name(res->kind));
            return VKB_ERR_INPUT;
        }
        if (b->kind != res->kind) {
            snprintf(err, err_size, "bindings[%d] (set %u binding %u) is a %s in the case but a %s ('%s') in the kernel",
                     bi, b->set, b->binding, kind_name(b->kind), kind_name(res->kind), res->name);
            return VKB_ERR_INPUT;
        }
        if (is_texel(res->kind) && res->format[0] && strcmp(res->format, b->format) != 0) {
            snprintf(err, err_size, "bindings[%d] (set %u binding %u): the kernel declares format %s, the case %s",
                     bi, b->set, b->binding, res->format, b->format);
            return VKB_ERR_INPUT;
        }
        vkb_status st = check_image_binding(res, b, bi, err, err_size);
        if (st != VKB_OK)
            return st;
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

    /* wave size */
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
        effective_wave(info, wave_size, &required);
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
        default: break;
        }
    }

    /* limits */
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
    if (k->shared_bytes_lower_bound > info->max_compute_shared_memory_size) {
        snprintf(err, err_size, "%s allows %u bytes of shared memory per workgroup; the kernel needs at least %u",
                 info->name, info->max_compute_shared_memory_size, k->shared_bytes_lower_bound);
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
            if (vkb_kind_is_image(b->kind)) {
                vkb_status st = vkb_image_check_support(d->physical, info, b, i, err, err_size);
                if (st != VKB_OK)
                    return st;
            }
            if (is_texel(b->kind)) {
                isa_format f = isa_format_from_name(b->format);
                size_t texels = b->size / isa_format_bytes(f);
                if (texels > info->max_texel_buffer_elements) {
                    snprintf(err, err_size, "%s allows %u texels per texel buffer; bindings[%d] has %zu", info->name,
                             info->max_texel_buffer_elements, i, texels);
                    return VKB_ERR_UNSUPPORTED;
                }
                VkFormatProperties fp;
                vkGetPhysicalDeviceFormatProperties(d->physical, vk_format_of(f), &fp);
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

/* ------------------------------------------------------------- running */

typedef struct run_objects {
    VkDevice device;
    VkQueue queue;
    VkCommandPool command_pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool queries;
    int pass_count;
    VkShaderModule *modules;     /* one per pass */
    VkPipelineLayout layout;     /* shared by the passes: push range = the largest pass's */
    VkPipeline *pipelines;       /* one per pass */
    uint32_t set_count;
    VkDescriptorSetLayout *set_layouts;
    VkDescriptorPool descriptor_pool;
    VkDescriptorSet *sets;
    int buffer_count;
    VkBuffer *buffers;
    VkDeviceMemory *memory;
    VkBufferView *views;
    void **mapped;
    VkBuffer *pristine;          /* the initial contents, copied into each binding on the GPU before every dispatch */
    VkDeviceMemory *pristine_memory;
    vkb_image *images;           /* image bindings (vk_image.h): their buffers[i] is the read-back, pristine[i] staging */
    int abandoned;
} run_objects;

static void run_objects_destroy(run_objects *o)
{
    if (o->device && !o->abandoned) {
        vkDeviceWaitIdle(o->device);
        for (int i = 0; i < o->buffer_count; i++) {
            if (o->views && o->views[i])
                vkDestroyBufferView(o->device, o->views[i], NULL);
            if (o->buffers && o->buffers[i])
                vkDestroyBuffer(o->device, o->buffers[i], NULL);
            if (o->memory && o->memory[i])
                vkFreeMemory(o->device, o->memory[i], NULL);
            if (o->pristine && o->pristine[i])
                vkDestroyBuffer(o->device, o->pristine[i], NULL);
            if (o->pristine_memory && o->pristine_memory[i])
                vkFreeMemory(o->device, o->pristine_memory[i], NULL);
            if (o->images)
                vkb_image_destroy(o->device, &o->images[i]);
        }
        if (o->descriptor_pool)
            vkDestroyDescriptorPool(o->device, o->descriptor_pool, NULL);
        for (uint32_t i = 0; i < o->set_count; i++)
            if (o->set_layouts && o->set_layouts[i])
                vkDestroyDescriptorSetLayout(o->device, o->set_layouts[i], NULL);
        for (int p = 0; p < o->pass_count; p++) {
            if (o->pipelines && o->pipelines[p])
                vkDestroyPipeline(o->device, o->pipelines[p], NULL);
            if (o->modules && o->modules[p])
                vkDestroyShaderModule(o->device, o->modules[p], NULL);
        }
        if (o->layout)
            vkDestroyPipelineLayout(o->device, o->layout, NULL);
        if (o->queries)
            vkDestroyQueryPool(o->device, o->queries, NULL);
        if (o->fence)
            vkDestroyFence(o->device, o->fence, NULL);
        if (o->command_pool)
            vkDestroyCommandPool(o->device, o->command_pool, NULL);
        vkDestroyDevice(o->device, NULL);
    }
    free(o->set_layouts);
    free(o->pipelines);
    free(o->modules);
    free(o->sets);
    free(o->buffers);
    free(o->memory);
    free(o->views);
    free(o->mapped);
    free(o->pristine);
    free(o->pristine_memory);
    free(o->images);
    memset(o, 0, sizeof *o);
}

static vkb_status vk_fail(char *err, size_t err_size, const char *call, VkResult r)
{
    snprintf(err, err_size, "%s failed: %s", call, vkb_result_name(r));
    if (r == VK_ERROR_DEVICE_LOST)
        return VKB_ERR_DEVICE_LOST;
    return VKB_ERR_VULKAN;
}

/* Calls a Vulkan function; on failure records "fn failed: VK_..." and leaves through `done`. */
#define VK_TRY(fn, args)                                   \
    do {                                                   \
        VkResult r_ = fn args;                             \
        if (r_ != VK_SUCCESS) {                            \
            st = vk_fail(err, err_size, #fn, r_);          \
            goto done;                                     \
        }                                                  \
    } while (0)

#define ALLOC(ptr, n)                                      \
    do {                                                   \
        (ptr) = calloc((n) ? (size_t)(n) : 1, sizeof *(ptr)); \
        if (!(ptr)) {                                      \
            st = VKB_ERR_NOMEM;                            \
            snprintf(err, err_size, "out of memory");      \
            goto done;                                     \
        }                                                  \
    } while (0)

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(const double *v, uint32_t n)
{
    if (!n)
        return 0;
    double *copy = malloc(n * sizeof *copy);
    if (!copy)
        return v[0];
    memcpy(copy, v, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, compare_double);
    double m = n % 2 ? copy[n / 2] : (copy[n / 2 - 1] + copy[n / 2]) / 2;
    free(copy);
    return m;
}

/* The kernel's declaration of a case binding (for an image's view type), from any pass; NULL when none declares it. */
static const vkb_resource *declared_resource(const vkb_kernel_info *kernels, int pass_count, const case_binding *b)
{
    for (int p = 0; p < pass_count; p++)
        for (int r = 0; r < kernels[p].resource_count; r++)
            if (kernels[p].resources[r].set == b->set && kernels[p].resources[r].binding == b->binding)
                return &kernels[p].resources[r];
    return NULL;
}

/* Picks a memory type: host-visible + coherent, preferring device-local; skips `avoid` (a retry). */
static uint32_t pick_memory_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t allowed, int want_device_local)
{
    VkMemoryPropertyFlags need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (want_device_local)
        need |= VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
        if ((allowed & (1u << i)) && (mp->memoryTypes[i].propertyFlags & need) == need)
            return i;
    return UINT32_MAX;
}

static void format_statistic(const VkPipelineExecutableStatisticKHR *s, vkb_statistic *out)
{
    switch (s->format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
        out->number = s->value.b32 ? 1 : 0;
        snprintf(out->value, sizeof out->value, "%s", s->value.b32 ? "true" : "false");
        break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        out->number = (double)s->value.i64;
        snprintf(out->value, sizeof out->value, "%lld", (long long)s->value.i64);
        break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        out->number = (double)s->value.u64;
        snprintf(out->value, sizeof out->value, "%llu", (unsigned long long)s->value.u64);
        break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
        out->number = s->value.f64;
        snprintf(out->value, sizeof out->value, "%g", s->value.f64);
        break;
    default:
        snprintf(out->value, sizeof out->value, "?");
        break;
    }
}

static void read_statistics(run_objects *o, vkb_run_output *out, uint32_t *reported_wave)
{
    VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = o->pipelines[0]};
    uint32_t n = 0;
    VkResult r = vkGetPipelineExecutablePropertiesKHR(o->device, &pi, &n, NULL);
    if (r != VK_SUCCESS || n == 0) {
        snprintf(out->stats_note, sizeof out->stats_note, "not available: vkGetPipelineExecutablePropertiesKHR: %s",
                 r != VK_SUCCESS ? vkb_result_name(r) : "no executables");
        return;
    }
    VkPipelineExecutablePropertiesKHR *props = calloc(n, sizeof *props);
    if (!props)
        return;
    for (uint32_t i = 0; i < n; i++)
        props[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
    if (vkGetPipelineExecutablePropertiesKHR(o->device, &pi, &n, props) < 0) {
        free(props);
        return;
    }
    if (n)
        *reported_wave = props[0].subgroupSize;
    for (uint32_t e = 0; e < n; e++) {
        VkPipelineExecutableInfoKHR ei = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = o->pipelines[0], .executableIndex = e};
        uint32_t sn = 0;
        if (vkGetPipelineExecutableStatisticsKHR(o->device, &ei, &sn, NULL) != VK_SUCCESS || !sn)
            continue;
        VkPipelineExecutableStatisticKHR *s = calloc(sn, sizeof *s);
        vkb_statistic *grown = realloc(out->stats, ((size_t)out->stat_count + sn) * sizeof *grown);
        if (!s || !grown) {
            free(s);
            if (grown)
                out->stats = grown;
            break;
        }
        out->stats = grown;
        for (uint32_t i = 0; i < sn; i++)
            s[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
        if (vkGetPipelineExecutableStatisticsKHR(o->device, &ei, &sn, s) >= 0) {
            for (uint32_t i = 0; i < sn; i++) {
                vkb_statistic *t = &out->stats[out->stat_count++];
                memset(t, 0, sizeof *t);
                snprintf(t->executable, sizeof t->executable, "%.63s", props[e].name);
                snprintf(t->name, sizeof t->name, "%.63s", s[i].name);
                snprintf(t->description, sizeof t->description, "%.191s", s[i].description);
                format_statistic(&s[i], t);
            }
        }
        free(s);
    }
    free(props);
    if (!out->stat_count)
        snprintf(out->stats_note, sizeof out->stats_note, "not available: the driver lists no statistics");
}

vkb_status vkb_run_case(vkb_context *ctx, int index, const wl_case *c, const uint32_t *spirv, size_t word_count,
                        const vkb_run_options *opt, vkb_run_output *out, char *err, size_t err_size)
{
    vkb_pass one = {spirv, word_count};
    wl_case view; /* a case with "dispatches" runs its first pass alone here */
    case_dispatch_view(c, 0, &view);
    return vkb_run_passes(ctx, index, &view, &one, 1, opt, out, err, err_size);
}

vkb_status vkb_run_passes(vkb_context *ctx, int index, const wl_case *c, const vkb_pass *passes, int pass_count,
                          const vkb_run_options *opt, vkb_run_output *out, char *err, size_t err_size)
{
    vkb_status st = VKB_OK;
    run_objects o = {0};
    uint8_t *push = NULL;
    vkb_kernel_info *kernels = NULL;
    int *full = NULL;
    uint64_t *ticks = NULL; /* one query result per timestamp */
    memset(out, 0, sizeof *out);
    err[0] = 0;
    if (!ctx || index < 0 || index >= ctx->device_count) {
        snprintf(err, err_size, "no Vulkan device %d", index);
        return VKB_ERR_NO_DEVICE;
    }
    device_entry *d = &ctx->devices[index];
    const vkb_device_info *info = &d->info;
    snprintf(out->device_name, sizeof out->device_name, "%s", info->name);
    vkb_run_options defaults = {0};
    if (!opt)
        opt = &defaults;
    uint32_t repeat = opt->repeat ? opt->repeat : 1;
    uint32_t runs = opt->warmup + repeat;
    uint64_t timeout_ns = (uint64_t)(opt->timeout_ms ? opt->timeout_ms : 10000) * 1000000ull;

    if (pass_count < 1 || (pass_count > 1 && pass_count != case_dispatch_total(c))) {
        snprintf(err, err_size, "%d kernels for a case of %d passes", pass_count, case_dispatch_total(c));
        return VKB_ERR_INPUT;
    }
    uint32_t requested = opt->wave_size ? opt->wave_size : c->subgroup_size;
    int required;
    uint32_t wave = effective_wave(info, requested, &required);
    out->wave_size = wave;
    out->wave_size_required = required;
    out->pass_count = pass_count;
    o.pass_count = pass_count;
    ALLOC(kernels, pass_count);
    ALLOC(full, pass_count);
    ALLOC(o.modules, pass_count);
    ALLOC(o.pipelines, pass_count);
    out->full_subgroups = 1;
    for (int p = 0; p < pass_count; p++) {
        wl_case view;
        case_dispatch_view(c, pass_count > 1 ? p : 0, &view);
        st = vkb_kernel_scan(passes[p].spirv, passes[p].word_count, view.entry, &kernels[p], err, err_size);
        if (st == VKB_OK)
            st = vkb_check_support(ctx, index, &kernels[p], &view, requested, err, err_size);
        if (st != VKB_OK) {
            if (pass_count > 1) { /* name the pass */
                char inner[768];
                snprintf(inner, sizeof inner, "%s", err);
                snprintf(err, err_size, "dispatches[%d] (%.40s): %s", p, case_dispatch_name(c, p), inner);
            }
            goto done;
        }
        full[p] = info->compute_full_subgroups && wave && kernels[p].local_size[0] % wave == 0 &&
                  (required || !requested);
        out->full_subgroups &= full[p];
    }

    ALLOC(out->data, c->binding_count);
    out->binding_count = c->binding_count;
    for (int i = 0; i < c->binding_count; i++)
        ALLOC(out->data[i], c->bindings[i].size);

    /* device */
    device_features features;
    chain_features(d, &features);
    vkGetPhysicalDeviceFeatures2(d->physical, &features.f2);
    const char *extensions[13];
    uint32_t extension_count = 0;
    static const char *const optional_extensions[] = {
        VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME,
        VK_NV_SHADER_SUBGROUP_PARTITIONED_EXTENSION_NAME, "VK_KHR_portability_subset",
        VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME,
        VK_KHR_8BIT_STORAGE_EXTENSION_NAME, VK_KHR_SHADER_SUBGROUP_EXTENDED_TYPES_EXTENSION_NAME,
        VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME,
    };
    for (size_t i = 0; i < sizeof optional_extensions / sizeof optional_extensions[0] && extension_count < 11; i++)
        if (wanted_extension(d, optional_extensions[i]))
            extensions[extension_count++] = optional_extensions[i];
    /* robust access (the case or the caller asks): robustBufferAccess2, or the device cannot run the case */
    VkPhysicalDeviceRobustness2FeaturesEXT robust2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
    if (c->robust_access || opt->robust_access) {
        if (has_extension(d, VK_EXT_ROBUSTNESS_2_EXTENSION_NAME)) {
            VkPhysicalDeviceFeatures2 q = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &robust2};
            vkGetPhysicalDeviceFeatures2(d->physical, &q);
        }
        if (!robust2.robustBufferAccess2 || !features.f2.features.robustBufferAccess) {
            snprintf(err, err_size, "%s: the case asks for robust buffer access, and the device lacks "
                     "robustBufferAccess2 (VK_EXT_robustness2)", info->name);
            st = VKB_ERR_UNSUPPORTED;
            goto done;
        }
        robust2.robustImageAccess2 = VK_FALSE;
        robust2.nullDescriptor = VK_FALSE;
        robust2.pNext = NULL;
        void *tail = &features.f2;
        while (((VkBaseOutStructure *)tail)->pNext)
            tail = ((VkBaseOutStructure *)tail)->pNext;
        chain_link(&tail, &robust2);
        extensions[extension_count++] = VK_EXT_ROBUSTNESS_2_EXTENSION_NAME;
    }
    /* maximal reconvergence (the caller asks): the feature, or the device cannot run the case this way.
     * Debian 12's Vulkan headers (1.3.239) predate the extension (registered number 435), so its feature
     * structure is declared here with the layout and sType value of the registry. */
    struct {
        VkStructureType sType;
        void *pNext;
        VkBool32 shaderMaximalReconvergence;
    } reconverge = {.sType = (VkStructureType)1000434000};
    if (opt->maximal_reconvergence) {
        static const char reconverge_extension[] = "VK_KHR_shader_maximal_reconvergence";
        if (has_extension(d, reconverge_extension)) {
            VkPhysicalDeviceFeatures2 q = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &reconverge};
            vkGetPhysicalDeviceFeatures2(d->physical, &q);
        }
        if (!reconverge.shaderMaximalReconvergence) {
            snprintf(err, err_size, "%s: maximal reconvergence was asked for, and the device lacks "
                     "shaderMaximalReconvergence (%s)", info->name, reconverge_extension);
            st = VKB_ERR_UNSUPPORTED;
            goto done;
        }
        reconverge.pNext = NULL;
        void *tail = &features.f2;
        while (((VkBaseOutStructure *)tail)->pNext)
            tail = ((VkBaseOutStructure *)tail)->pNext;
        chain_link(&tail, &reconverge);
        extensions[extension_count++] = reconverge_extension;
    }
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = info->compute_queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &features.f2,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = extension_count,
        .ppEnabledExtensionNames = extensions,
    };
    VK_TRY(vkCreateDevice, (d->physical, &dci, NULL, &o.device));
    volkLoadDevice(o.device);
    vkGetDeviceQueue(o.device, info->compute_queue_family, 0, &o.queue);

    /* buffers: one per binding, each with its own memory, mapped for the whole run */
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(d->physical, &mp);
    o.buffer_count = c->binding_count;
    ALLOC(o.buffers, o.buffer_count);
    ALLOC(o.memory, o.buffer_count);
    ALLOC(o.views, o.buffer_count);
    ALLOC(o.mapped, o.buffer_count);
    ALLOC(o.pristine, o.buffer_count);
    ALLOC(o.pristine_memory, o.buffer_count);
    ALLOC(o.images, o.buffer_count);
    int all_device_local = 1;
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        VkDeviceSize size = b->size;
        isa_format f = is_texel(b->kind) ? isa_format_from_name(b->format) : ISA_FORMAT_UNKNOWN;
        VkDeviceSize texel = is_texel(b->kind) ? isa_format_bytes(f) : 4;
        if (size < texel)
            size = texel; /* Vulkan buffers and views cannot be empty */
        static const VkBufferUsageFlags usage_of_kind[CASE_KIND_COUNT] = {
            [CASE_KIND_STORAGE_BUFFER] = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
            [CASE_KIND_UNIFORM_BUFFER] = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
            [CASE_KIND_STORAGE_TEXEL_BUFFER] = VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT,
            [CASE_KIND_UNIFORM_TEXEL_BUFFER] = VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT,
            /* image kinds: the buffer receives a storage image's texels after the dispatch */
        };
        VkBufferCreateInfo bci = {
            .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
            .size = size,
            .usage = usage_of_kind[b->kind] | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
            .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        };
        VK_TRY(vkCreateBuffer, (o.device, &bci, NULL, &o.buffers[i]));
        /* the initial contents live in a source buffer of their own: every dispatch starts with a GPU copy, so
         * repeats see the same inputs without host writes between them (which would let the GPU go idle and
         * drop its clock between timed dispatches) */
        VkBufferCreateInfo pci = {
            .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
            .size = size,
            .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
            .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        };
        VK_TRY(vkCreateBuffer, (o.device, &pci, NULL, &o.pristine[i]));
        {
            VkMemoryRequirements preq;
            vkGetBufferMemoryRequirements(o.device, o.pristine[i], &preq);
            uint32_t ptype = pick_memory_type(&mp, preq.memoryTypeBits, 0);
            if (ptype == UINT32_MAX) {
                snprintf(err, err_size, "%s has no host-visible coherent memory type for bindings[%d]", info->name, i);
                st = VKB_ERR_UNSUPPORTED;
                goto done;
            }
            VkMemoryAllocateInfo pmai = {
                .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = preq.size, .memoryTypeIndex = ptype};
            VK_TRY(vkAllocateMemory, (o.device, &pmai, NULL, &o.pristine_memory[i]));
            VK_TRY(vkBindBufferMemory, (o.device, o.pristine[i], o.pristine_memory[i], 0));
            void *pm = NULL;
            VK_TRY(vkMapMemory, (o.device, o.pristine_memory[i], 0, VK_WHOLE_SIZE, 0, &pm));
            memset(pm, 0, (size_t)size);
            if (b->size)
                memcpy(pm, b->bytes, b->size);
            vkUnmapMemory(o.device, o.pristine_memory[i]);
        }
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(o.device, o.buffers[i], &req);
        uint32_t type = pick_memory_type(&mp, req.memoryTypeBits, 1);
        VkResult r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
        if (type != UINT32_MAX) {
            VkMemoryAllocateInfo mai = {
                .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
            r = vkAllocateMemory(o.device, &mai, NULL, &o.memory[i]);
        }
        if (r != VK_SUCCESS) { /* no (or a full) host-visible device-local heap: plain host memory */
            all_device_local = 0;
            type = pick_memory_type(&mp, req.memoryTypeBits, 0);
            if (type == UINT32_MAX) {
                snprintf(err, err_size, "%s has no host-visible coherent memory type for bindings[%d]", info->name, i);
                st = VKB_ERR_UNSUPPORTED;
                goto done;
            }
            VkMemoryAllocateInfo mai = {
                .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
            VK_TRY(vkAllocateMemory, (o.device, &mai, NULL, &o.memory[i]));
        }
        VK_TRY(vkBindBufferMemory, (o.device, o.buffers[i], o.memory[i], 0));
        VK_TRY(vkMapMemory, (o.device, o.memory[i], 0, VK_WHOLE_SIZE, 0, &o.mapped[i]));
        memset(o.mapped[i], 0, (size_t)size);
        if (vkb_kind_is_image(b->kind)) {
            st = vkb_image_create(o.device, &mp, b, i, declared_resource(kernels, pass_count, b), &o.images[i], err,
                                  err_size);
            if (st != VKB_OK)
                goto done;
        }
        if (is_texel(b->kind)) {
            VkBufferViewCreateInfo vci = {
                .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
                .buffer = o.buffers[i],
                .format = vk_format_of(f),
                .offset = 0,
                .range = size / texel * texel,
            };
            VK_TRY(vkCreateBufferView, (o.device, &vci, NULL, &o.views[i]));
        }
    }
    snprintf(out->memory_note, sizeof out->memory_note, "host-visible coherent%s",
             c->binding_count == 0 ? "" : all_device_local ? ", device-local" : " (not device-local)");

    /* descriptor set layouts: sets 0..max, holes get empty layouts */
    uint32_t set_count = 0;
    for (int i = 0; i < c->binding_count; i++)
        if (c->bindings[i].set + 1 > set_count)
            set_count = c->bindings[i].set + 1;
    if (set_count > 32) {
        snprintf(err, err_size, "the case uses descriptor set %u; wavelab allows sets 0..31", set_count - 1);
        st = VKB_ERR_INPUT;
        goto done;
    }
    static const VkDescriptorType descriptor_of_kind[CASE_KIND_COUNT] = {
        [CASE_KIND_STORAGE_BUFFER] = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        [CASE_KIND_UNIFORM_BUFFER] = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
        [CASE_KIND_STORAGE_TEXEL_BUFFER] = VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER,
        [CASE_KIND_UNIFORM_TEXEL_BUFFER] = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
        [CASE_KIND_STORAGE_IMAGE] = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
        [CASE_KIND_SAMPLED_IMAGE] = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE,
        [CASE_KIND_COMBINED_IMAGE_SAMPLER] = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
        [CASE_KIND_SAMPLER] = VK_DESCRIPTOR_TYPE_SAMPLER,
    };
    o.set_count = set_count;
    ALLOC(o.set_layouts, set_count);
    ALLOC(o.sets, set_count);
    VkDescriptorSetLayoutBinding *lb;
    ALLOC(lb, c->binding_count);
    for (uint32_t s = 0; s < set_count; s++) {
        uint32_t n = 0;
        for (int i = 0; i < c->binding_count; i++)
            if (c->bindings[i].set == s)
                lb[n++] = (VkDescriptorSetLayoutBinding){
                    .binding = c->bindings[i].binding,
                    .descriptorType = descriptor_of_kind[c->bindings[i].kind],
                    .descriptorCount = 1,
                    .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
                };
        VkDescriptorSetLayoutCreateInfo lci = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = n, .pBindings = lb};
        VkResult r = vkCreateDescriptorSetLayout(o.device, &lci, NULL, &o.set_layouts[s]);
        if (r != VK_SUCCESS) {
            free(lb);
            st = vk_fail(err, err_size, "vkCreateDescriptorSetLayout", r);
            goto done;
        }
    }
    free(lb);

    if (set_count) {
        VkDescriptorPoolSize sizes[CASE_KIND_COUNT];
        uint32_t size_count = 0;
        for (int k = 0; k < CASE_KIND_COUNT; k++) {
            uint32_t n = 0;
            for (int i = 0; i < c->binding_count; i++)
                n += c->bindings[i].kind == (case_kind)k;
            if (n)
                sizes[size_count++] = (VkDescriptorPoolSize){descriptor_of_kind[k], n};
        }
        VkDescriptorPoolCreateInfo pci = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
            .maxSets = set_count,
            .poolSizeCount = size_count,
            .pPoolSizes = sizes,
        };
        VK_TRY(vkCreateDescriptorPool, (o.device, &pci, NULL, &o.descriptor_pool));
        VkDescriptorSetAllocateInfo dai = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
            .descriptorPool = o.descriptor_pool,
            .descriptorSetCount = set_count,
            .pSetLayouts = o.set_layouts,
        };
        VK_TRY(vkAllocateDescriptorSets, (o.device, &dai, o.sets));
        for (int i = 0; i < c->binding_count; i++) {
            const case_binding *b = &c->bindings[i];
            VkDescriptorBufferInfo bi = {.buffer = o.buffers[i], .offset = 0, .range = VK_WHOLE_SIZE};
            VkWriteDescriptorSet w = {
                .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                .dstSet = o.sets[b->set],
                .dstBinding = b->binding,
                .descriptorCount = 1,
                .descriptorType = descriptor_of_kind[b->kind],
            };
            VkDescriptorImageInfo ii;
            if (is_texel(b->kind)) {
                w.pTexelBufferView = &o.views[i];
            } else if (vkb_kind_is_image(b->kind)) {
                ii = vkb_image_descriptor(b, &o.images[i]);
                w.pImageInfo = &ii;
            } else {
                w.pBufferInfo = &bi;
            }
            vkUpdateDescriptorSets(o.device, 1, &w, 0, NULL);
        }
    }

    /* push constants: the kernel's block or the case's bytes, whichever is longer, zero padded; one range, the
     * largest pass's, so the passes share a pipeline layout and each pushes its own bytes */
    uint32_t push_size = 0;
    for (int p = 0; p < pass_count; p++) {
        wl_case view;
        case_dispatch_view(c, pass_count > 1 ? p : 0, &view);
        if (kernels[p].push_constant_bytes > push_size)
            push_size = kernels[p].push_constant_bytes;
        if (view.push_size > push_size)
            push_size = (uint32_t)view.push_size;
    }
    push_size = (push_size + 3) & ~3u;
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size};
    if (push_size) {
        size_t push_total = (size_t)push_size * (size_t)pass_count;
        ALLOC(push, push_total);
        for (int p = 0; p < pass_count; p++) {
            wl_case view;
            case_dispatch_view(c, pass_count > 1 ? p : 0, &view);
            if (view.push_constants)
                memcpy(push + (size_t)p * push_size, view.push_constants, view.push_size);
        }
    }
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = set_count,
        .pSetLayouts = o.set_layouts,
        .pushConstantRangeCount = push_size ? 1 : 0,
        .pPushConstantRanges = &range,
    };
    VK_TRY(vkCreatePipelineLayout, (o.device, &plci, NULL, &o.layout));

    /* pipelines, one per pass */
    for (int p = 0; p < pass_count; p++) {
        VkShaderModuleCreateInfo smci = {
            .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = passes[p].word_count * 4,
            .pCode = passes[p].spirv};
        uint32_t *reconverging = NULL;
        if (opt->maximal_reconvergence) {
            wl_case view;
            case_dispatch_view(c, pass_count > 1 ? p : 0, &view);
            size_t n = 0;
            st = vkb_spirv_add_maximal_reconvergence(passes[p].spirv, passes[p].word_count, view.entry,
                                                     &reconverging, &n, err, err_size);
            if (st != VKB_OK)
                goto done;
            smci.codeSize = n * 4;
            smci.pCode = reconverging;
        }
        VkResult made = vkCreateShaderModule(o.device, &smci, NULL, &o.modules[p]);
        free(reconverging);
        if (made != VK_SUCCESS) {
            st = vk_fail(err, err_size, "vkCreateShaderModule", made);
            goto done;
        }
        VkPipelineShaderStageRequiredSubgroupSizeCreateInfo rss = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
            .requiredSubgroupSize = wave,
        };
        VkComputePipelineCreateInfo cpci = {
            .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
            .stage =
                {
                    .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                    .pNext = required ? &rss : NULL,
                    .flags = full[p] ? VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT : 0,
                    .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                    .module = o.modules[p],
                    .pName = kernels[p].entry,
                },
            .layout = o.layout,
        };
        if (info->pipeline_executable_properties)
            cpci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
        VK_TRY(vkCreateComputePipelines, (o.device, VK_NULL_HANDLE, 1, &cpci, NULL, &o.pipelines[p]));
    }
    uint32_t query_count = 2 * (uint32_t)pass_count;

    /* timestamps */
    int timestamps = info->timestamp_valid_bits > 0 && info->timestamp_period > 0;
    if (timestamps) {
        VkQueryPoolCreateInfo qpci = {
            .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = query_count};
        VK_TRY(vkCreateQueryPool, (o.device, &qpci, NULL, &o.queries));
    } else {
        snprintf(out->timing_note, sizeof out->timing_note,
                 "not available: %.100s has no timestamps on its compute queue (timestampValidBits 0)", info->name);
    }

    /* one command buffer, recorded once and submitted warmup + repeat times */
    VkCommandPoolCreateInfo cpi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = info->compute_queue_family};
    VK_TRY(vkCreateCommandPool, (o.device, &cpi, NULL, &o.command_pool));
    VkCommandBufferAllocateInfo cbai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = o.command_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VK_TRY(vkAllocateCommandBuffers, (o.device, &cbai, &o.cmd));
    VkCommandBufferBeginInfo cbbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_TRY(vkBeginCommandBuffer, (o.cmd, &cbbi));
    if (timestamps)
        vkCmdResetQueryPool(o.cmd, o.queries, 0, query_count);
    for (int i = 0; i < c->binding_count; i++) {
        VkBufferCopy region = {.srcOffset = 0, .dstOffset = 0, .size = c->bindings[i].size};
        if (vkb_kind_is_image(c->bindings[i].kind)) /* staging -> image, into the shader's layout */
            vkb_image_record_upload(o.cmd, &c->bindings[i], &o.images[i], o.pristine[i]);
        else if (region.size)
            vkCmdCopyBuffer(o.cmd, o.pristine[i], o.buffers[i], 1, &region);
    }
    VkMemoryBarrier to_shader = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_UNIFORM_READ_BIT,
    };
    vkCmdPipelineBarrier(o.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &to_shader,
                         0, NULL, 0, NULL);
    if (set_count) /* the layout is shared, so the sets stay bound across pipeline changes */
        vkCmdBindDescriptorSets(o.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o.layout, 0, set_count, o.sets, 0, NULL);
    for (int p = 0; p < pass_count; p++) {
        wl_case view;
        case_dispatch_view(c, pass_count > 1 ? p : 0, &view);
        if (p > 0) { /* the next pass reads what this one wrote */
            VkMemoryBarrier between = {
                .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_UNIFORM_READ_BIT,
            };
            vkCmdPipelineBarrier(o.cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                                 1, &between, 0, NULL, 0, NULL);
        }
        vkCmdBindPipeline(o.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o.pipelines[p]);
        if (push_size)
            vkCmdPushConstants(o.cmd, o.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size,
                               push + (size_t)p * push_size);
        if (timestamps) /* after everything before it has finished: the interval is this dispatch alone */
            vkCmdWriteTimestamp(o.cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, o.queries, 2 * (uint32_t)p);
        vkCmdDispatch(o.cmd, view.groups[0], view.groups[1], view.groups[2]);
        if (timestamps)
            vkCmdWriteTimestamp(o.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, o.queries, 2 * (uint32_t)p + 1);
    }
    for (int i = 0; i < c->binding_count; i++) /* storage images -> their read-back buffers */
        vkb_image_record_readback(o.cmd, &c->bindings[i], &o.images[i], o.buffers[i]);
    VkMemoryBarrier to_host = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    vkCmdPipelineBarrier(o.cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL, 0, NULL);
    VK_TRY(vkEndCommandBuffer, (o.cmd));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_TRY(vkCreateFence, (o.device, &fci, NULL, &o.fence));

    ALLOC(out->samples_us, repeat);
    ALLOC(ticks, query_count);
    uint64_t origin = 0;
    if (timestamps) {
        size_t cells = (size_t)repeat * (size_t)pass_count;
        ALLOC(out->pass_begin_us, cells);
        ALLOC(out->pass_end_us, cells);
    }
    double *host_us;
    ALLOC(host_us, repeat);
    uint64_t tick_mask = info->timestamp_valid_bits >= 64 ? UINT64_MAX : (1ull << info->timestamp_valid_bits) - 1;
    for (uint32_t run = 0; run < runs; run++) {
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &o.cmd};
        double t0 = now_us();
        VkResult r = vkQueueSubmit(o.queue, 1, &si, o.fence);
        if (r == VK_SUCCESS)
            r = vkWaitForFences(o.device, 1, &o.fence, VK_TRUE, timeout_ns);
        double t1 = now_us();
        if (r == VK_TIMEOUT) {
            snprintf(err, err_size,
                     "vkWaitForFences: VK_TIMEOUT: the dispatch did not finish within %llu ms (run %u of %u); the "
                     "device was abandoned",
                     (unsigned long long)(timeout_ns / 1000000), run + 1, runs);
            o.abandoned = 1;
            ctx->abandoned = 1;
            st = VKB_ERR_TIMEOUT;
            free(host_us);
            goto done;
        }
        if (r != VK_SUCCESS) {
            st = vk_fail(err, err_size, "vkQueueSubmit/vkWaitForFences", r);
            free(host_us);
            goto done;
        }
        r = vkResetFences(o.device, 1, &o.fence);
        if (r != VK_SUCCESS) {
            st = vk_fail(err, err_size, "vkResetFences", r);
            free(host_us);
            goto done;
        }
        if (run < opt->warmup)
            continue;
        uint32_t sample = run - opt->warmup;
        host_us[sample] = t1 - t0;
        if (timestamps) {
            r = vkGetQueryPoolResults(o.device, o.queries, 0, query_count, query_count * sizeof *ticks, ticks,
                                      sizeof *ticks, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
            if (r != VK_SUCCESS) {
                st = vk_fail(err, err_size, "vkGetQueryPoolResults", r);
                free(host_us);
                goto done;
            }
            out->samples_us[sample] =
                (double)((ticks[query_count - 1] - ticks[0]) & tick_mask) * info->timestamp_period / 1000.0;
            if (sample == 0)
                origin = ticks[0];
            for (int p = 0; p < pass_count; p++) {
                size_t k = (size_t)sample * (size_t)pass_count + (size_t)p;
                /* masked differences: a counter that wraps between samples still gives forward times */
                out->pass_begin_us[k] = (double)((ticks[2 * p] - origin) & tick_mask) * info->timestamp_period / 1000.0;
                out->pass_end_us[k] =
                    (double)((ticks[2 * p + 1] - origin) & tick_mask) * info->timestamp_period / 1000.0;
            }
        }
    }
    out->host_median_us = median_of(host_us, repeat);
    free(host_us);
    out->sample_count = repeat;
    if (timestamps) {
        out->timing_available = 1;
        out->median_us = median_of(out->samples_us, repeat);
        out->min_us = out->max_us = out->samples_us[0];
        for (uint32_t i = 1; i < repeat; i++) {
            if (out->samples_us[i] < out->min_us)
                out->min_us = out->samples_us[i];
            if (out->samples_us[i] > out->max_us)
                out->max_us = out->samples_us[i];
        }
    }

    /* read back (coherent memory; the barrier made the shader writes visible to the host) */
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        if (!b->size)
            continue;
        /* sampled images are read-only: their final contents are the case's */
        int unchanged = vkb_kind_is_image(b->kind) && b->kind != CASE_KIND_STORAGE_IMAGE;
        memcpy(out->data[i], unchanged ? b->bytes : o.mapped[i], b->size);
    }

    if (info->pipeline_executable_properties) {
        uint32_t reported = 0;
        read_statistics(&o, out, &reported);
        if (reported && !required)
            out->wave_size = reported;
    } else {
        snprintf(out->stats_note, sizeof out->stats_note,
                 "not available: %.100s does not expose VK_KHR_pipeline_executable_properties", info->name);
    }
    if (info->performance_query)
        snprintf(out->counters_note, sizeof out->counters_note,
                 "VK_KHR_performance_query is present (%u counters on the compute queue) but wavelab does not "
                 "collect them yet",
                 info->performance_counter_count);
    else
        snprintf(out->counters_note, sizeof out->counters_note,
                 "not available: %.100s does not expose VK_KHR_performance_query", info->name);

done:
    free(push);
    free(kernels);
    free(full);
    free(ticks);
    run_objects_destroy(&o);
    return st;
}

void vkb_run_output_free(vkb_run_output *out)
{
    if (!out)
        return;
    if (out->data)
        for (int i = 0; i < out->binding_count; i++)
            free(out->data[i]);
    free(out->data);
    free(out->samples_us);
    free(out->pass_begin_us);
    free(out->pass_end_us);
    free(out->stats);
    memset(out, 0, sizeof *out);
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
    return ctx && index >= 0 && index < ctx->device_count && has_extension(&ctx->devices[index], name);
}
