/*
 * backend/vulkan_internal.h — what the files of the Vulkan backend share and
 * no one else: the context and its listed devices (backend/vk_device.c), the
 * feature chain a logical device is created with, the support helpers of
 * backend/vk_support.c, and for backend/probe.c the Vulkan handle of a
 * listed physical device, its usable API version and its extensions.
 * Outside backend/ use backend.h, which keeps Vulkan's headers out.
 */
#ifndef WAVELAB_VULKAN_INTERNAL_H
#define WAVELAB_VULKAN_INTERNAL_H

#include <volk.h>

#include "backend/backend.h"
#include "case/case.h"
#include "isa/isa.h"

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
    VkPhysicalDeviceVariablePointersFeatures variable_pointers; /* Vulkan 1.1's own struct, before the 1.1 features */
    VkPhysicalDevice8BitStorageFeatures storage8;
    VkPhysicalDeviceShaderFloat16Int8Features float16_int8;
    VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures extended_types;
    VkPhysicalDeviceShaderAtomicInt64Features atomic_int64;
    VkPhysicalDeviceSubgroupSizeControlFeatures size_control;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable_properties;
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float;
    VkPhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR workgroup_explicit;
    VkPhysicalDeviceComputeShaderDerivativesFeaturesNV derivatives;
    VkPhysicalDeviceShaderImageAtomicInt64FeaturesEXT image_int64;
} device_features;

#define API_1_1 VK_MAKE_API_VERSION(0, 1, 1, 0)
#define API_1_2 VK_MAKE_API_VERSION(0, 1, 2, 0)
#define API_1_3 VK_MAKE_API_VERSION(0, 1, 3, 0)

/* backend/vk_device.c: extension lookups and the feature chain of a device entry. */
int vkb_device_has_extension(const device_entry *d, const char *name);
int vkb_device_wants_extension(const device_entry *d, const char *name); /* listed and useful to enable */
void vkb_chain_link(void **tail, void *next_struct);
void vkb_chain_features(const device_entry *d, device_features *f);

/* backend/vk_support.c */
int vkb_kind_is_texel(case_kind k);
/* The subgroup size a run will use, and whether it is set as a required size. */
uint32_t vkb_effective_wave(const vkb_device_info *info, uint32_t requested, int *required);

/* Device `index` of ctx: its physical device and API version (min of device and instance, no patch number).
 * Returns 0 for a bad index. */
int vkb_internal_device(const vkb_context *ctx, int index, VkPhysicalDevice *physical, uint32_t *api);

/* backend/vk_compile.c: what VK_KHR_pipeline_executable_properties reports about a pipeline.  Statistics are
 * appended to *stats (*count of them; note says why there are none), *reported_wave gets the first executable's
 * subgroup size; text representations are appended to *reps. */
void vkb_read_statistics(VkDevice device, VkPipeline pipeline, vkb_statistic **stats, int *count, char *note,
                         size_t note_size, uint32_t *reported_wave);
void vkb_read_representations(VkDevice device, VkPipeline pipeline, vkb_representation **reps, int *count);

/* 1 when device `index` lists extension `name`. */
int vkb_internal_has_extension(const vkb_context *ctx, int index, const char *name);

#endif
