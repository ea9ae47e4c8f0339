/*
 * backend/vk_image.h — internal to backend/: the Vulkan objects of a case's
 * image bindings (storage images, sampled images, combined image samplers,
 * samplers) and the commands that fill and read them.  vulkan.c owns the run
 * (device, buffers, descriptor sets, command buffer) and calls these for the
 * bindings whose kind is an image kind; backend/vk_image.c holds the rest.
 *
 * Data path per image binding (docs/backend.md, "Images"):
 *   staging buffer (the case's packed texels, img_image order)
 *     --vkCmdCopyBufferToImage, one region per mip, all layers-->  VkImage
 *   layouts UNDEFINED -> TRANSFER_DST_OPTIMAL -> GENERAL (storage) or
 *   SHADER_READ_ONLY_OPTIMAL (sampled, combined), recorded at the start of every
 *   submission so each run starts from the case's contents; after the dispatch a
 *   storage image goes GENERAL -> TRANSFER_SRC_OPTIMAL and is copied back, in the
 *   same packed order, into a host-visible buffer.  A multisampled image is filled and read by a compute
 *   kernel instead (vk_image_ms.c), in the GENERAL layout.
 */
#ifndef WAVELAB_BACKEND_VK_IMAGE_H
#define WAVELAB_BACKEND_VK_IMAGE_H

#include <volk.h>

#include "backend/backend.h"

typedef struct vkb_image {
    VkImage image;
    VkDeviceMemory memory;
    VkImageView *view;          /* view_count views: view[0]; or, for a binding of mip or layer views
                                 * (case_binding_descriptors), view[k] is mip or layer k alone */
    uint32_t view_count;
    VkSampler sampler;          /* sampler and combined_image_sampler bindings */
    VkImageLayout shader_layout; /* GENERAL (storage) or SHADER_READ_ONLY_OPTIMAL */
    struct {                    /* a multisampled image's fill and read-back kernels (vk_image_ms.c) */
        VkImageView raw_view;   /* every layer, in the unsigned-integer format of the texel's size */
        VkDescriptorSetLayout set_layout;
        VkPipelineLayout layout;
        VkDescriptorPool pool;
        VkDescriptorSet sets[2];  /* [1] the fill's (staging buffer), [0] the read-back's */
        VkPipeline pipelines[2];  /* [1] fill, [0] read-back (storage images only) */
    } ms;
} vkb_image;

/* 1 for the four image kinds (storage/sampled image, combined image sampler, sampler). */
int vkb_kind_is_image(case_kind k);

/* Whether the device can hold this binding: the format's optimal-tiling features for the binding's use
 * (storage, sampled, linear filtering for a combined sampler that filters linearly), the extent, mip and layer
 * limits (vkGetPhysicalDeviceImageFormatProperties), and sampler features.  VKB_ERR_UNSUPPORTED names the
 * binding and the format; VKB_ERR_INPUT for a sampler Vulkan forbids (unnormalized coordinates with mips...). */
vkb_status vkb_image_check_support(VkPhysicalDevice physical, const vkb_device_info *info, const case_binding *b,
                                   int index, char *err, size_t err_size);

/* Creates the image, its memory (device-local when there is such a type), view and sampler for binding `index`.
 * `res` (may be NULL: the kernel does not declare the binding) says the view type the kernel expects. */
vkb_status vkb_image_create(VkDevice device, const VkPhysicalDeviceMemoryProperties *mp, const case_binding *b,
                            int index, const vkb_resource *res, vkb_image *out, char *err, size_t err_size);
void vkb_image_destroy(VkDevice device, vkb_image *im);

/* Records the upload from `staging` (the packed texels) and the transitions into the shader's layout; a
 * multisampled image's through its fill kernel (which updates the image's descriptor sets on `device`). */
void vkb_image_record_upload(VkDevice device, VkCommandBuffer cmd, const case_binding *b, const vkb_image *im,
                             VkBuffer staging);

/* Records, for a storage image, the transition to TRANSFER_SRC and the copy of every mip and layer into
 * `readback` in packed order (a multisampled one: its read-back kernel); nothing for the other kinds. */
void vkb_image_record_readback(VkDevice device, VkCommandBuffer cmd, const case_binding *b, const vkb_image *im,
                               VkBuffer readback);

/* Multisampled images (vk_image_ms.c): Vulkan copies buffers to single-sampled images only, so a compute kernel
 * of the backend's own fills and reads them through a storage view in the unsigned-integer format of the texel's
 * size.  check_support: the device's multisampled storage support for the binding (`usage`: the image's);
 * create: after the image and its views exist; record: fill (upload = 1) from, or read back into, `buffer`. */
vkb_status vkb_image_ms_check_support(VkPhysicalDevice physical, const vkb_device_info *info, const case_binding *b,
                                      int index, VkImageUsageFlags usage, char *err, size_t err_size);
vkb_status vkb_image_ms_create(VkDevice device, const case_binding *b, int index, vkb_image *out, char *err,
                               size_t err_size);
void vkb_image_ms_destroy(VkDevice device, vkb_image *im);
void vkb_image_ms_record(VkDevice device, VkCommandBuffer cmd, const case_binding *b, const vkb_image *im,
                         VkBuffer buffer, int upload);

/* VkDescriptorImageInfo for the binding's descriptor `v` (0 .. case_binding_descriptors(b) - 1). */
VkDescriptorImageInfo vkb_image_descriptor(const case_binding *b, const vkb_image *im, uint32_t v);

#endif
