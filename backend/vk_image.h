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
 *   same packed order, into a host-visible buffer.
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

/* Records the upload from `staging` (the packed texels) and the transitions into the shader's layout. */
void vkb_image_record_upload(VkCommandBuffer cmd, const case_binding *b, const vkb_image *im, VkBuffer staging);

/* Records, for a storage image, the transition to TRANSFER_SRC and the copy of every mip and layer into
 * `readback` in packed order; nothing for the other kinds. */
void vkb_image_record_readback(VkCommandBuffer cmd, const case_binding *b, const vkb_image *im, VkBuffer readback);

/* VkDescriptorImageInfo for the binding's descriptor `v` (0 .. case_binding_descriptors(b) - 1). */
VkDescriptorImageInfo vkb_image_descriptor(const case_binding *b, const vkb_image *im, uint32_t v);

#endif
