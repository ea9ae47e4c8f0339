/*
 * backend/probe.c — the microbenchmark session of `wavelab probe`: one
 * logical device, a few device-local storage buffers that keep their
 * contents between dispatches, one kernel at a time, and runs of many
 * dispatches in a single submission with GPU timestamps around each.
 *
 * Why not vkb_run_case: it re-copies every binding before each dispatch
 * (right for a case, wrong for a cache sweep, whose warm-up must leave the
 * cache warm for the timed dispatch) and keeps buffers host-visible (on a
 * discrete GPU without resizable BAR that can mean system memory, and the
 * DRAM sweep would measure PCIe).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/vulkan_internal.h"

struct vkb_probe {
    VkPhysicalDevice physical;
    VkPhysicalDeviceMemoryProperties memory_properties;
    vkb_device_info info;
    uint32_t compute_units;
    const char *cu_extension;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkFence fence;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool descriptor_pool;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkShaderModule module;
    VkPipeline pipeline;
    VkBuffer buffers[VKB_PROBE_SLOTS];
    VkDeviceMemory memory[VKB_PROBE_SLOTS];
    VkDeviceSize sizes[VKB_PROBE_SLOTS];
    int lost; /* a fence wait timed out: never destroy the busy device */
};

static vkb_status fail_vk(char *err, size_t err_size, const char *call, VkResult r)
{
    snprintf(err, err_size, "%s failed: %s", call, vkb_result_name(r));
    return r == VK_ERROR_DEVICE_LOST ? VKB_ERR_DEVICE_LOST : VKB_ERR_VULKAN;
}

#define TRY(fn, args)                                      \
    do {                                                   \
        VkResult r_ = fn args;                             \
        if (r_ != VK_SUCCESS)                              \
            return fail_vk(err, err_size, #fn, r_);        \
    } while (0)

static uint32_t memory_type(const vkb_probe *p, uint32_t allowed, VkMemoryPropertyFlags need)
{
    for (uint32_t i = 0; i < p->memory_properties.memoryTypeCount; i++)
        if ((allowed & (1u << i)) && (p->memory_properties.memoryTypes[i].propertyFlags & need) == need)
            return i;
    return UINT32_MAX;
}

static void query_compute_units(const vkb_context *ctx, int index, vkb_probe *p)
{
    p->cu_extension = "";
    if (vkb_internal_has_extension(ctx, index, "VK_NV_shader_sm_builtins")) {
        VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
        VkPhysicalDeviceProperties2 pr = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sm};
        vkGetPhysicalDeviceProperties2(p->physical, &pr);
        p->compute_units = sm.shaderSMCount;
        p->cu_extension = "VK_NV_shader_sm_builtins (shaderSMCount)";
    } else if (vkb_internal_has_extension(ctx, index, "VK_AMD_shader_core_properties")) {
        VkPhysicalDeviceShaderCorePropertiesAMD core = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
        VkPhysicalDeviceProperties2 pr = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &core};
        vkGetPhysicalDeviceProperties2(p->physical, &pr);
        p->compute_units = core.shaderEngineCount * core.shaderArraysPerEngineCount * core.computeUnitsPerShaderArray;
        p->cu_extension = "VK_AMD_shader_core_properties (engines x arrays x CUs per array)";
    }
}

static vkb_status create_device(const vkb_context *ctx, int index, vkb_probe *p, uint32_t api, char *err,
                                size_t err_size)
{
    /* only what the probe kernels use: subgroup size control (to require each size the device lists) */
    VkPhysicalDeviceVulkan13Features v13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceSubgroupSizeControlFeaturesEXT sc = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    const char *ext[1];
    uint32_t ext_count = 0;
    if (api >= VK_MAKE_API_VERSION(0, 1, 3, 0)) {
        f2.pNext = &v13;
        vkGetPhysicalDeviceFeatures2(p->physical, &f2);
        VkPhysicalDeviceVulkan13Features want = {.sType = v13.sType,
                                                 .subgroupSizeControl = v13.subgroupSizeControl,
                                                 .computeFullSubgroups = v13.computeFullSubgroups};
        v13 = want;
    } else if (vkb_internal_has_extension(ctx, index, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME)) {
        f2.pNext = &sc;
        vkGetPhysicalDeviceFeatures2(p->physical, &f2);
        sc.pNext = NULL;
        ext[ext_count++] = VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME;
    }
    memset(&f2.features, 0, sizeof f2.features);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = p->info.compute_queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &f2,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = ext_count,
        .ppEnabledExtensionNames = ext,
    };
    TRY(vkCreateDevice, (p->physical, &dci, NULL, &p->device));
    volkLoadDevice(p->device);
    vkGetDeviceQueue(p->device, p->info.compute_queue_family, 0, &p->queue);
    VkCommandPoolCreateInfo cpi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
        .queueFamilyIndex = p->info.compute_queue_family,
    };
    TRY(vkCreateCommandPool, (p->device, &cpi, NULL, &p->pool));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    TRY(vkCreateFence, (p->device, &fci, NULL, &p->fence));

    VkDescriptorSetLayoutBinding lb[VKB_PROBE_SLOTS];
    for (uint32_t i = 0; i < VKB_PROBE_SLOTS; i++)
        lb[i] = (VkDescriptorSetLayoutBinding){.binding = i,
                                               .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                               .descriptorCount = 1,
                                               .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = VKB_PROBE_SLOTS, .pBindings = lb};
    TRY(vkCreateDescriptorSetLayout, (p->device, &lci, NULL, &p->set_layout));
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VKB_PROBE_SLOTS};
    VkDescriptorPoolCreateInfo dpci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1, .poolSizeCount = 1, .pPoolSizes = &ps};
    TRY(vkCreateDescriptorPool, (p->device, &dpci, NULL, &p->descriptor_pool));
    VkDescriptorSetAllocateInfo dai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = p->descriptor_pool,
        .descriptorSetCount = 1,
        .pSetLayouts = &p->set_layout,
    };
    TRY(vkAllocateDescriptorSets, (p->device, &dai, &p->set));
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, VKB_PROBE_PUSH_WORDS * 4};
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &p->set_layout,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &range,
    };
    TRY(vkCreatePipelineLayout, (p->device, &plci, NULL, &p->layout));
    return VKB_OK;
}

vkb_status vkb_probe_create(vkb_context *ctx, int index, vkb_probe **out, char *err, size_t err_size)
{
    *out = NULL;
    err[0] = 0;
    vkb_probe *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, err_size, "out of memory");
        return VKB_ERR_NOMEM;
    }
    uint32_t api = 0;
    if (!vkb_internal_device(ctx, index, &p->physical, &api) || vkb_device_info_get(ctx, index, &p->info) != VKB_OK) {
        free(p);
        snprintf(err, err_size, "no Vulkan device %d", index);
        return VKB_ERR_NO_DEVICE;
    }
    if (!p->info.usable) {
        snprintf(err, err_size, "%s supports only Vulkan 1.0; the probe needs 1.1", p->info.name);
        free(p);
        return VKB_ERR_UNSUPPORTED;
    }
    vkb_status refused = vkb_device_dispatches(&p->info, err, err_size);
    if (refused != VKB_OK) {
        free(p);
        return refused;
    }
    vkGetPhysicalDeviceMemoryProperties(p->physical, &p->memory_properties);
    query_compute_units(ctx, index, p);
    vkb_status st = create_device(ctx, index, p, api, err, err_size);
    if (st != VKB_OK) {
        vkb_probe_destroy(p);
        return st;
    }
    /* every slot starts as a small zero buffer, so every binding the layout declares is valid */
    for (int i = 0; i < VKB_PROBE_SLOTS; i++)
        if ((st = vkb_probe_buffer(p, i, 16, NULL, err, err_size)) != VKB_OK) {
            vkb_probe_destroy(p);
            return st;
        }
    *out = p;
    return VKB_OK;
}

static void destroy_pipeline(vkb_probe *p)
{
    if (p->pipeline)
        vkDestroyPipeline(p->device, p->pipeline, NULL);
    if (p->module)
        vkDestroyShaderModule(p->device, p->module, NULL);
    p->pipeline = VK_NULL_HANDLE;
    p->module = VK_NULL_HANDLE;
}

static void destroy_buffer(vkb_probe *p, int slot)
{
    if (p->buffers[slot])
        vkDestroyBuffer(p->device, p->buffers[slot], NULL);
    if (p->memory[slot])
        vkFreeMemory(p->device, p->memory[slot], NULL);
    p->buffers[slot] = VK_NULL_HANDLE;
    p->memory[slot] = VK_NULL_HANDLE;
    p->sizes[slot] = 0;
}

void vkb_probe_destroy(vkb_probe *p)
{
    if (!p)
        return;
    if (p->device && !p->lost) {
        vkDeviceWaitIdle(p->device);
        destroy_pipeline(p);
        for (int i = 0; i < VKB_PROBE_SLOTS; i++)
            destroy_buffer(p, i);
        if (p->layout)
            vkDestroyPipelineLayout(p->device, p->layout, NULL);
        if (p->descriptor_pool)
            vkDestroyDescriptorPool(p->device, p->descriptor_pool, NULL);
        if (p->set_layout)
            vkDestroyDescriptorSetLayout(p->device, p->set_layout, NULL);
        if (p->fence)
            vkDestroyFence(p->device, p->fence, NULL);
        if (p->pool)
            vkDestroyCommandPool(p->device, p->pool, NULL);
        vkDestroyDevice(p->device, NULL);
    }
    free(p);
}

uint32_t vkb_probe_compute_units(const vkb_probe *p, const char **extension)
{
    if (extension)
        *extension = p->cu_extension;
    return p->compute_units;
}

/* A buffer and its memory: device-local when `host` is 0 (falling back to any type), host-visible coherent
 * (and mapped into *mapped) when 1. */
static vkb_status make_buffer(vkb_probe *p, VkDeviceSize size, VkBufferUsageFlags usage, int host, VkBuffer *buf,
                              VkDeviceMemory *mem, void **mapped, char *err, size_t err_size)
{
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    TRY(vkCreateBuffer, (p->device, &bci, NULL, buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(p->device, *buf, &req);
    uint32_t type = host ? memory_type(p, req.memoryTypeBits,
                                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
                         : memory_type(p, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type == UINT32_MAX && !host)
        type = memory_type(p, req.memoryTypeBits, 0);
    if (type == UINT32_MAX) {
        snprintf(err, err_size, "%s has no %s memory type for a probe buffer", p->info.name,
                 host ? "host-visible coherent" : "suitable");
        return VKB_ERR_UNSUPPORTED;
    }
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    TRY(vkAllocateMemory, (p->device, &mai, NULL, mem));
    TRY(vkBindBufferMemory, (p->device, *buf, *mem, 0));
    if (host)
        TRY(vkMapMemory, (p->device, *mem, 0, VK_WHOLE_SIZE, 0, mapped));
    return VKB_OK;
}

static vkb_status submit_wait(vkb_probe *p, VkCommandBuffer cmd, char *err, size_t err_size)
{
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    TRY(vkResetFences, (p->device, 1, &p->fence));
    TRY(vkQueueSubmit, (p->queue, 1, &si, p->fence));
    VkResult r = vkWaitForFences(p->device, 1, &p->fence, VK_TRUE, 120ull * 1000000000ull);
    if (r == VK_TIMEOUT) {
        p->lost = 1;
        snprintf(err, err_size, "a probe submission did not finish in 120 s; the device was abandoned");
        return VKB_ERR_TIMEOUT;
    }
    if (r != VK_SUCCESS)
        return fail_vk(err, err_size, "vkWaitForFences", r);
    return VKB_OK;
}

/* One staging copy between the device-local buffer `slot` and a host buffer: in = 1 host -> device. */
static vkb_status staged_copy(vkb_probe *p, int slot, void *host_bytes, size_t bytes, int in, char *err,
                              size_t err_size)
{
    VkBuffer staging = VK_NULL_HANDLE;
    VkDeviceMemory staging_memory = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    void *mapped = NULL;
    vkb_status st = make_buffer(p, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 1,
                                &staging, &staging_memory, &mapped, err, err_size);
    if (st == VKB_OK) {
        if (in)
            memcpy(mapped, host_bytes, bytes);
        VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                            .commandPool = p->pool,
                                            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                            .commandBufferCount = 1};
        VkResult r = vkAllocateCommandBuffers(p->device, &cbai, &cmd);
        if (r != VK_SUCCESS)
            st = fail_vk(err, err_size, "vkAllocateCommandBuffers", r);
    }
    if (st == VKB_OK) {
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                       .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        vkBeginCommandBuffer(cmd, &bi);
        VkMemoryBarrier before = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                                  .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                             NULL, 0, NULL);
        VkBufferCopy region = {.size = bytes};
        if (in)
            vkCmdCopyBuffer(cmd, staging, p->buffers[slot], 1, &region);
        else
            vkCmdCopyBuffer(cmd, p->buffers[slot], staging, 1, &region);
        VkMemoryBarrier after = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                 .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                 .dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_SHADER_READ_BIT |
                                                  VK_ACCESS_SHADER_WRITE_BIT};
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &after, 0, NULL,
                             0, NULL);
        vkEndCommandBuffer(cmd);
        st = submit_wait(p, cmd, err, err_size);
        if (st == VKB_OK && !in)
            memcpy(host_bytes, mapped, bytes);
    }
    if (!p->lost) {
        if (cmd)
            vkFreeCommandBuffers(p->device, p->pool, 1, &cmd);
        if (staging)
            vkDestroyBuffer(p->device, staging, NULL);
        if (staging_memory)
            vkFreeMemory(p->device, staging_memory, NULL);
    }
    return st;
}

vkb_status vkb_probe_buffer(vkb_probe *p, int slot, size_t bytes, const void *init, char *err, size_t err_size)
{
    if (slot < 0 || slot >= VKB_PROBE_SLOTS || bytes == 0) {
        snprintf(err, err_size, "probe buffer slot %d of %zu bytes", slot, bytes);
        return VKB_ERR_INPUT;
    }
    if (bytes > p->info.max_storage_buffer_range) {
        snprintf(err, err_size, "%s allows storage buffers of %u bytes; the probe asked for %zu", p->info.name,
                 p->info.max_storage_buffer_range, bytes);
        return VKB_ERR_UNSUPPORTED;
    }
    if (p->lost)
        return VKB_ERR_TIMEOUT;
    vkDeviceWaitIdle(p->device);
    destroy_buffer(p, slot);
    bytes = (bytes + 15) & ~(size_t)15;
    vkb_status st = make_buffer(p, bytes,
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                    VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                0, &p->buffers[slot], &p->memory[slot], NULL, err, err_size);
    if (st != VKB_OK)
        return st;
    p->sizes[slot] = bytes;
    VkDescriptorBufferInfo bi = {.buffer = p->buffers[slot], .offset = 0, .range = VK_WHOLE_SIZE};
    VkWriteDescriptorSet w = {
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstSet = p->set,
        .dstBinding = (uint32_t)slot,
        .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .pBufferInfo = &bi,
    };
    vkUpdateDescriptorSets(p->device, 1, &w, 0, NULL);
    if (init)
        return staged_copy(p, slot, (void *)init, bytes, 1, err, err_size);
    /* zeros: a fill on the device, no staging needed */
    VkCommandBuffer cmd;
    VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = p->pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 1};
    TRY(vkAllocateCommandBuffers, (p->device, &cbai, &cmd));
    VkCommandBufferBeginInfo bi2 = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(cmd, &bi2);
    vkCmdFillBuffer(cmd, p->buffers[slot], 0, VK_WHOLE_SIZE, 0);
    VkMemoryBarrier after = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &after, 0,
                         NULL, 0, NULL);
    vkEndCommandBuffer(cmd);
    st = submit_wait(p, cmd, err, err_size);
    if (!p->lost)
        vkFreeCommandBuffers(p->device, p->pool, 1, &cmd);
    return st;
}

vkb_status vkb_probe_read(vkb_probe *p, int slot, void *dst, size_t bytes, char *err, size_t err_size)
{
    if (slot < 0 || slot >= VKB_PROBE_SLOTS || bytes == 0 || bytes > p->sizes[slot]) {
        snprintf(err, err_size, "probe read of %zu bytes from slot %d", bytes, slot);
        return VKB_ERR_INPUT;
    }
    if (p->lost)
        return VKB_ERR_TIMEOUT;
    return staged_copy(p, slot, dst, bytes, 0, err, err_size);
}

vkb_status vkb_probe_kernel(vkb_probe *p, const uint32_t *spirv, size_t word_count, uint32_t wave, char *err,
                            size_t err_size)
{
    if (p->lost)
        return VKB_ERR_TIMEOUT;
    vkDeviceWaitIdle(p->device);
    destroy_pipeline(p);
    int required = wave && wave != p->info.subgroup_size;
    if (wave && (wave < p->info.min_subgroup_size || wave > p->info.max_subgroup_size ||
                 (required && !(p->info.subgroup_size_control &&
                                (p->info.required_subgroup_size_stages & VK_SHADER_STAGE_COMPUTE_BIT))))) {
        snprintf(err, err_size, "%s cannot run compute kernels at subgroup size %u (sizes %u..%u%s)", p->info.name,
                 wave, p->info.min_subgroup_size, p->info.max_subgroup_size,
                 p->info.subgroup_size_control ? "" : ", no size control");
        return VKB_ERR_WAVE_SIZE;
    }
    VkShaderModuleCreateInfo smci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = word_count * 4, .pCode = spirv};
    TRY(vkCreateShaderModule, (p->device, &smci, NULL, &p->module));
    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo rss = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
        .requiredSubgroupSize = wave};
    VkComputePipelineCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .pNext = required ? &rss : NULL,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = p->module,
                  .pName = "main"},
        .layout = p->layout,
    };
    TRY(vkCreateComputePipelines, (p->device, VK_NULL_HANDLE, 1, &cpci, NULL, &p->pipeline));
    return VKB_OK;
}

vkb_status vkb_probe_run(vkb_probe *p, const vkb_probe_dispatch *d, int count, double *us, char *err,
                         size_t err_size)
{
    if (p->lost)
        return VKB_ERR_TIMEOUT;
    if (!p->pipeline || count < 1) {
        snprintf(err, err_size, "probe run without a kernel or dispatches");
        return VKB_ERR_INPUT;
    }
    if (!p->info.timestamp_valid_bits || !(p->info.timestamp_period > 0)) {
        snprintf(err, err_size, "%s has no timestamps on its compute queue: the probe needs them", p->info.name);
        return VKB_ERR_UNSUPPORTED;
    }
    vkb_status st = VKB_OK;
    VkQueryPool queries = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    uint64_t *ticks = calloc(2 * (size_t)count, sizeof *ticks);
    if (!ticks) {
        snprintf(err, err_size, "out of memory");
        return VKB_ERR_NOMEM;
    }
    VkQueryPoolCreateInfo qpci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                  .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                  .queryCount = 2 * (uint32_t)count};
    VkResult r = vkCreateQueryPool(p->device, &qpci, NULL, &queries);
    if (r != VK_SUCCESS) {
        st = fail_vk(err, err_size, "vkCreateQueryPool", r);
        goto done;
    }
    VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = p->pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 1};
    r = vkAllocateCommandBuffers(p->device, &cbai, &cmd);
    if (r != VK_SUCCESS) {
        st = fail_vk(err, err_size, "vkAllocateCommandBuffers", r);
        goto done;
    }
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(cmd, &bi);
    vkCmdResetQueryPool(cmd, queries, 0, 2 * (uint32_t)count);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &p->set, 0, NULL);
    VkMemoryBarrier between = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    for (int i = 0; i < count; i++) {
        if (i)
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                 &between, 0, NULL, 0, NULL);
        vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, VKB_PROBE_PUSH_WORDS * 4, d[i].push);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, queries, 2 * (uint32_t)i);
        vkCmdDispatch(cmd, d[i].groups[0], d[i].groups[1], d[i].groups[2]);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 2 * (uint32_t)i + 1);
    }
    vkEndCommandBuffer(cmd);
    if ((st = submit_wait(p, cmd, err, err_size)) != VKB_OK)
        goto done;
    r = vkGetQueryPoolResults(p->device, queries, 0, 2 * (uint32_t)count, 2 * (size_t)count * sizeof *ticks, ticks,
                              sizeof *ticks, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r != VK_SUCCESS) {
        st = fail_vk(err, err_size, "vkGetQueryPoolResults", r);
        goto done;
    }
    uint64_t mask = p->info.timestamp_valid_bits >= 64 ? ~0ull : (1ull << p->info.timestamp_valid_bits) - 1;
    for (int i = 0; i < count; i++)
        us[i] = (double)((ticks[2 * i + 1] - ticks[2 * i]) & mask) * p->info.timestamp_period / 1000.0;
done:
    if (!p->lost) {
        if (cmd)
            vkFreeCommandBuffers(p->device, p->pool, 1, &cmd);
        if (queries)
            vkDestroyQueryPool(p->device, queries, NULL);
    }
    free(ticks);
    return st;
}
