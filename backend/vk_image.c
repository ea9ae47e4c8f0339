/*
 * backend/vk_image.c — the image bindings of a case on a Vulkan device:
 * support checks, VkImage / VkImageView / VkSampler creation, the staging
 * upload in img_image's packed order, layout transitions and the read-back of
 * storage images (backend/vk_image.h says how vulkan.c uses them).
 *
 * The img/ module's enums follow Vulkan's (VkFilter, VkSamplerMipmapMode,
 * VkSamplerAddressMode, VkBorderColor order; img_format_info.vk_format is the
 * VkFormat), so sampler state passes straight through after a range check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "backend/vk_image.h"
#include "img/img.h"

int vkb_kind_is_image(case_kind k)
{
    return k == CASE_KIND_STORAGE_IMAGE || k == CASE_KIND_SAMPLED_IMAGE || k == CASE_KIND_COMBINED_IMAGE_SAMPLER ||
           k == CASE_KIND_SAMPLER;
}

static int has_image(case_kind k)
{
    return vkb_kind_is_image(k) && k != CASE_KIND_SAMPLER;
}

static int has_sampler(case_kind k)
{
    return k == CASE_KIND_SAMPLER || k == CASE_KIND_COMBINED_IMAGE_SAMPLER;
}

/* Extent of mip `mip` as Vulkan counts it (1D: height 1; 1D/2D/cube: depth 1). */
static VkExtent3D mip_extent(const img_image *im, uint32_t mip)
{
    VkExtent3D e = {img_mip_size(im->width, mip), 1, 1};
    if (im->dim != IMG_DIM_1D)
        e.height = img_mip_size(im->height, mip);
    if (im->dim == IMG_DIM_3D)
        e.depth = img_mip_size(im->depth, mip);
    return e;
}

static VkImageType image_type(img_dim d)
{
    return d == IMG_DIM_1D ? VK_IMAGE_TYPE_1D : d == IMG_DIM_3D ? VK_IMAGE_TYPE_3D : VK_IMAGE_TYPE_2D;
}

/* The aspect of an image's views, barriers and copies: its depth for a depth format. */
static VkImageAspectFlags image_aspect(const img_image *im)
{
    return img_format_is_depth(im->format) ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
}

static VkImageUsageFlags image_usage(case_kind k)
{
    if (k == CASE_KIND_STORAGE_IMAGE) /* read back after the dispatch */
        return VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    return VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
}

/* The sampler fields Vulkan constrains, checked so that a bad case is an input error and never a driver's
 * undefined behaviour. */
static vkb_status check_sampler(const vkb_device_info *info, const case_binding *b, int index, char *err,
                                size_t err_size)
{
    const img_sampler *s = &b->sampler;
    if (s->mag_filter > IMG_FILTER_LINEAR || s->min_filter > IMG_FILTER_LINEAR || s->mipmap_mode > IMG_MIPMAP_LINEAR ||
        s->border > IMG_BORDER_INT_OPAQUE_WHITE || s->address[0] > IMG_ADDRESS_MIRROR_CLAMP_TO_EDGE ||
        s->address[1] > IMG_ADDRESS_MIRROR_CLAMP_TO_EDGE || s->address[2] > IMG_ADDRESS_MIRROR_CLAMP_TO_EDGE) {
        snprintf(err, err_size, "bindings[%d] (set %u binding %u): sampler field out of range", index, b->set,
                 b->binding);
        return VKB_ERR_INPUT;
    }
    if (s->unnormalized) {
        /* VUID-VkSamplerCreateInfo-unnormalizedCoordinates-01072 .. 01075 */
        const char *why = NULL;
        if (s->min_filter != s->mag_filter)
            why = "min_filter and mag_filter must be the same";
        else if (s->mipmap_mode != IMG_MIPMAP_NEAREST)
            why = "mipmap_mode must be nearest";
        else if (s->min_lod != 0 || s->max_lod != 0)
            why = "min_lod and max_lod must both be 0";
        else
            for (int a = 0; a < 2; a++)
                if (s->address[a] != IMG_ADDRESS_CLAMP_TO_EDGE && s->address[a] != IMG_ADDRESS_CLAMP_TO_BORDER)
                    why = "the address modes of u and v must be clamp_to_edge or clamp_to_border";
        if (why) {
            snprintf(err, err_size, "bindings[%d] (set %u binding %u): a sampler with unnormalized coordinates: %s "
                     "(Vulkan, VkSamplerCreateInfo)", index, b->set, b->binding, why);
            return VKB_ERR_INPUT;
        }
    }
    if (s->min_lod > s->max_lod) {
        snprintf(err, err_size, "bindings[%d] (set %u binding %u): sampler min_lod %g is above max_lod %g", index,
                 b->set, b->binding, s->min_lod, s->max_lod);
        return VKB_ERR_INPUT;
    }
    for (int a = 0; a < 3; a++)
        if (s->address[a] == IMG_ADDRESS_MIRROR_CLAMP_TO_EDGE && !info->sampler_mirror_clamp_to_edge) {
            snprintf(err, err_size, "%s lacks samplerMirrorClampToEdge, which bindings[%d] (set %u binding %u) needs "
                     "for address mode mirror_clamp_to_edge in %c", info->name, index, b->set, b->binding, "uvw"[a]);
            return VKB_ERR_UNSUPPORTED;
        }
    return VKB_OK;
}

vkb_status vkb_image_check_support(VkPhysicalDevice physical, const vkb_device_info *info, const case_binding *b,
                                   int index, char *err, size_t err_size)
{
    if (has_sampler(b->kind)) {
        vkb_status st = check_sampler(info, b, index, err, err_size);
        if (st != VKB_OK)
            return st;
    }
    if (!has_image(b->kind))
        return VKB_OK;
    const img_image *im = &b->image;
    const img_format_info *f = img_format_get(im->format);
    if (!f || !f->vk_format) {
        snprintf(err, err_size, "bindings[%d] (set %u binding %u): image format unknown to the backend", index, b->set,
                 b->binding);
        return VKB_ERR_INPUT;
    }
    /* Vulkan copies between buffers and images take single-sampled images only: a multisampled one is filled and
     * read by a kernel (vk_image_ms.c); a compile-only device fills nothing (it creates the pipeline and reads
     * its statistics) */
    if (img_samples(im) > 1 && !info->compile_only) {
        vkb_status st = vkb_image_ms_check_support(physical, info, b, index,
                                                   image_usage(b->kind) | VK_IMAGE_USAGE_STORAGE_BIT, err, err_size);
        if (st != VKB_OK)
            return st;
    }
    if (im->dim == IMG_DIM_CUBE && (im->layers == 0 || im->layers % 6 != 0 || im->width != im->height)) {
        snprintf(err, err_size, "bindings[%d] (set %u binding %u): a cube image needs square faces and a multiple of "
                 "6 layers (it has %ux%u, %u layers)", index, b->set, b->binding, im->width, im->height, im->layers);
        return VKB_ERR_INPUT;
    }
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(physical, (VkFormat)f->vk_format, &fp);
    VkFormatFeatureFlags need = VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    const char *use = "a sampled image";
    if (b->kind == CASE_KIND_STORAGE_IMAGE) {
        need |= VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT;
        use = "a storage image";
    } else {
        need |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
        /* a depth-comparison sampler filters the comparisons' results: no linear-filter feature needed (Vulkan,
         * VUID-vkCmdDispatch-magFilter-04553) */
        if (b->kind == CASE_KIND_COMBINED_IMAGE_SAMPLER && b->sampler.compare_op == IMG_COMPARE_NONE &&
            (b->sampler.mag_filter == IMG_FILTER_LINEAR || b->sampler.min_filter == IMG_FILTER_LINEAR ||
             (b->sampler.mipmap_mode == IMG_MIPMAP_LINEAR && im->mip_levels > 1))) {
            need |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
            use = "a linearly filtered sampled image";
        }
    }
    if ((fp.optimalTilingFeatures & need) != need) {
        snprintf(err, err_size, "%s cannot use format %s for %s: bindings[%d] (set %u binding %u)", info->name, f->name,
                 use, index, b->set, b->binding);
        return VKB_ERR_UNSUPPORTED;
    }
    VkImageFormatProperties ip;
    VkResult r = vkGetPhysicalDeviceImageFormatProperties(
        physical, (VkFormat)f->vk_format, image_type(im->dim), VK_IMAGE_TILING_OPTIMAL, image_usage(b->kind),
        im->dim == IMG_DIM_CUBE ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0, &ip);
    if (r != VK_SUCCESS) {
        snprintf(err, err_size, "%s cannot create a %s image of format %s for bindings[%d] (set %u binding %u): %s",
                 info->name, im->dim == IMG_DIM_CUBE ? "cube" : im->dim == IMG_DIM_3D ? "3D" : im->dim == IMG_DIM_1D ? "1D" : "2D",
                 f->name, index, b->set, b->binding, vkb_result_name(r));
        return VKB_ERR_UNSUPPORTED;
    }
    VkExtent3D e = mip_extent(im, 0);
    if (e.width > ip.maxExtent.width || e.height > ip.maxExtent.height || e.depth > ip.maxExtent.depth ||
        im->mip_levels > ip.maxMipLevels || im->layers > ip.maxArrayLayers) {
        snprintf(err, err_size, "%s allows %s images of %ux%ux%u texels, %u mip levels and %u layers; bindings[%d] "
                 "(set %u binding %u) has %ux%ux%u, %u and %u", info->name, f->name, ip.maxExtent.width,
                 ip.maxExtent.height, ip.maxExtent.depth, ip.maxMipLevels, ip.maxArrayLayers, index, b->set, b->binding,
                 e.width, e.height, e.depth, im->mip_levels, im->layers);
        return VKB_ERR_UNSUPPORTED;
    }
    return VKB_OK;
}

/* The view type the kernel's declaration needs (an arrayed type needs an array view even with one layer), or,
 * for a binding the kernel does not declare, the one the case's image suggests. */
static VkImageViewType view_type(const img_image *im, const vkb_resource *res)
{
    uint32_t dim;
    int arrayed;
    if (res) {
        dim = res->image_dim;
        arrayed = res->image_arrayed;
    } else {
        static const uint32_t spv_dim[] = {[IMG_DIM_1D] = SpvDim1D, [IMG_DIM_2D] = SpvDim2D, [IMG_DIM_3D] = SpvDim3D,
                                           [IMG_DIM_CUBE] = SpvDimCube};
        dim = spv_dim[im->dim];
        arrayed = im->layers > (im->dim == IMG_DIM_CUBE ? 6u : 1u);
    }
    switch (dim) {
    case SpvDim1D: return arrayed ? VK_IMAGE_VIEW_TYPE_1D_ARRAY : VK_IMAGE_VIEW_TYPE_1D;
    case SpvDim3D: return VK_IMAGE_VIEW_TYPE_3D;
    case SpvDimCube: return arrayed ? VK_IMAGE_VIEW_TYPE_CUBE_ARRAY : VK_IMAGE_VIEW_TYPE_CUBE;
    default: return arrayed ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D;
    }
}

static uint32_t pick_image_memory(const VkPhysicalDeviceMemoryProperties *mp, uint32_t allowed)
{
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
            if ((allowed & (1u << i)) &&
                (pass || (mp->memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)))
                return i;
    return UINT32_MAX;
}

static vkb_status vk_failed(char *err, size_t err_size, const char *call, VkResult r, int index)
{
    snprintf(err, err_size, "%s failed: %s (bindings[%d])", call, vkb_result_name(r), index);
    return r == VK_ERROR_DEVICE_LOST ? VKB_ERR_DEVICE_LOST : VKB_ERR_VULKAN;
}

vkb_status vkb_image_create(VkDevice device, const VkPhysicalDeviceMemoryProperties *mp, const case_binding *b,
                            int index, const vkb_resource *res, vkb_image *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    VkResult r;
    if (has_sampler(b->kind)) {
        const img_sampler *s = &b->sampler;
        VkSamplerCreateInfo sci = {
            .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
            .magFilter = (VkFilter)s->mag_filter,
            .minFilter = (VkFilter)s->min_filter,
            .mipmapMode = (VkSamplerMipmapMode)s->mipmap_mode,
            .addressModeU = (VkSamplerAddressMode)s->address[0],
            .addressModeV = (VkSamplerAddressMode)s->address[1],
            .addressModeW = (VkSamplerAddressMode)s->address[2],
            .mipLodBias = s->mip_lod_bias,
            .maxAnisotropy = 1.0f,
            .minLod = s->min_lod,
            .maxLod = s->max_lod,
            .borderColor = (VkBorderColor)s->border,
            .unnormalizedCoordinates = s->unnormalized ? VK_TRUE : VK_FALSE,
            .compareEnable = s->compare_op != IMG_COMPARE_NONE ? VK_TRUE : VK_FALSE,
            .compareOp = s->compare_op != IMG_COMPARE_NONE ? (VkCompareOp)(s->compare_op - 1) : VK_COMPARE_OP_NEVER,
        };
        if ((r = vkCreateSampler(device, &sci, NULL, &out->sampler)) != VK_SUCCESS)
            return vk_failed(err, err_size, "vkCreateSampler", r, index);
    }
    if (!has_image(b->kind))
        return VKB_OK;
    const img_image *im = &b->image;
    const img_format_info *f = img_format_get(im->format);
    const int multisampled = img_samples(im) > 1;
    VkImageCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .flags = im->dim == IMG_DIM_CUBE ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0,
        .imageType = image_type(im->dim),
        .format = (VkFormat)f->vk_format,
        .extent = mip_extent(im, 0),
        .mipLevels = im->mip_levels ? im->mip_levels : 1,
        .arrayLayers = im->layers ? im->layers : 1,
        .samples = (VkSampleCountFlagBits)img_samples(im), /* VK_SAMPLE_COUNT_N_BIT == N */
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = image_usage(b->kind),
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    if (multisampled) { /* the fill and read-back kernels' storage view in a raw format (vk_image_ms.c) */
        ici.flags |= VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
        ici.usage |= VK_IMAGE_USAGE_STORAGE_BIT;
    }
    if ((r = vkCreateImage(device, &ici, NULL, &out->image)) != VK_SUCCESS)
        return vk_failed(err, err_size, "vkCreateImage", r, index);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, out->image, &req);
    uint32_t type = pick_image_memory(mp, req.memoryTypeBits);
    if (type == UINT32_MAX) {
        snprintf(err, err_size, "no memory type can hold the image of bindings[%d]", index);
        return VKB_ERR_UNSUPPORTED;
    }
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    if ((r = vkAllocateMemory(device, &mai, NULL, &out->memory)) != VK_SUCCESS)
        return vk_failed(err, err_size, "vkAllocateMemory", r, index);
    if ((r = vkBindImageMemory(device, out->image, out->memory, 0)) != VK_SUCCESS)
        return vk_failed(err, err_size, "vkBindImageMemory", r, index);
    out->view = calloc(case_binding_descriptors(b), sizeof *out->view);
    if (!out->view) {
        snprintf(err, err_size, "out of memory for the views of bindings[%d]", index);
        return VKB_ERR_NOMEM;
    }
    out->view_count = case_binding_descriptors(b);
    for (uint32_t v = 0; v < out->view_count; v++) {
        /* a storage image's shader accesses address the view's base level: the view is that level alone; a
         * binding of mip views has one view per level */
        uint32_t levels = b->kind == CASE_KIND_STORAGE_IMAGE || b->views == CASE_VIEWS_MIPS ? 1 : ici.mipLevels;
        int layer_view = b->views == CASE_VIEWS_LAYERS;
        VkImageViewCreateInfo vci = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = out->image,
            .viewType = view_type(im, res),
            .format = ici.format,
            .subresourceRange = {image_aspect(im), b->views == CASE_VIEWS_MIPS ? v : 0, levels,
                                 layer_view ? v : 0, layer_view ? 1 : ici.arrayLayers},
        };
        if ((r = vkCreateImageView(device, &vci, NULL, &out->view[v])) != VK_SUCCESS)
            return vk_failed(err, err_size, "vkCreateImageView", r, index);
    }
    out->shader_layout =
        b->kind == CASE_KIND_STORAGE_IMAGE ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    return multisampled ? vkb_image_ms_create(device, b, index, out, err, err_size) : VKB_OK;
}

void vkb_image_destroy(VkDevice device, vkb_image *im)
{
    vkb_image_ms_destroy(device, im);
    for (uint32_t v = 0; v < im->view_count; v++)
        if (im->view[v])
            vkDestroyImageView(device, im->view[v], NULL);
    free(im->view);
    if (im->image)
        vkDestroyImage(device, im->image, NULL);
    if (im->memory)
        vkFreeMemory(device, im->memory, NULL);
    if (im->sampler)
        vkDestroySampler(device, im->sampler, NULL);
    memset(im, 0, sizeof *im);
}

static void transition(VkCommandBuffer cmd, VkImage image, const img_image *im, VkImageLayout from, VkImageLayout to,
                       VkAccessFlags src_access, VkAccessFlags dst_access, VkPipelineStageFlags src_stage,
                       VkPipelineStageFlags dst_stage)
{
    VkImageMemoryBarrier barrier = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
        .srcAccessMask = src_access,
        .dstAccessMask = dst_access,
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = image,
        .subresourceRange = {image_aspect(im), 0, im->mip_levels ? im->mip_levels : 1, 0, im->layers ? im->layers : 1},
    };
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &barrier);
}

/* One region per mip covering every layer: img_image's packed order is exactly what the copy reads with
 * bufferRowLength = bufferImageHeight = 0 (tightly packed rows and slices, layers one after another). */
static void copy_regions(const img_image *im, VkBufferImageCopy *regions, uint32_t *count)
{
    uint32_t mips = im->mip_levels ? im->mip_levels : 1;
    if (mips > 32)
        mips = 32;
    for (uint32_t m = 0; m < mips; m++)
        regions[m] = (VkBufferImageCopy){
            .bufferOffset = img_subresource_offset(im, m, 0),
            .imageSubresource = {image_aspect(im), m, 0, im->layers ? im->layers : 1},
            .imageExtent = mip_extent(im, m),
        };
    *count = mips;
}

void vkb_image_record_upload(VkDevice device, VkCommandBuffer cmd, const case_binding *b, const vkb_image *im,
                             VkBuffer staging)
{
    if (!has_image(b->kind))
        return;
    if (img_samples(&b->image) > 1) { /* the fill kernel writes it in the GENERAL layout */
        transition(cmd, im->image, &b->image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0,
                   VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
        vkb_image_ms_record(device, cmd, b, im, staging, 1);
        transition(cmd, im->image, &b->image, VK_IMAGE_LAYOUT_GENERAL, im->shader_layout, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
        return;
    }
    /* UNDEFINED: whatever the last run left is discarded; every run starts from the case's texels */
    transition(cmd, im->image, &b->image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
               VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
    VkBufferImageCopy regions[32];
    uint32_t n;
    copy_regions(&b->image, regions, &n);
    vkCmdCopyBufferToImage(cmd, staging, im->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, n, regions);
    transition(cmd, im->image, &b->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, im->shader_layout,
               VK_ACCESS_TRANSFER_WRITE_BIT,
               b->kind == CASE_KIND_STORAGE_IMAGE ? VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT
                                                  : VK_ACCESS_SHADER_READ_BIT,
               VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
}

void vkb_image_record_readback(VkDevice device, VkCommandBuffer cmd, const case_binding *b, const vkb_image *im,
                               VkBuffer readback)
{
    if (b->kind != CASE_KIND_STORAGE_IMAGE)
        return;
    if (img_samples(&b->image) > 1) { /* the read-back kernel, after the kernel's writes, in GENERAL */
        transition(cmd, im->image, &b->image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
                   VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
        vkb_image_ms_record(device, cmd, b, im, readback, 0);
        return;
    }
    transition(cmd, im->image, &b->image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
               VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
               VK_PIPELINE_STAGE_TRANSFER_BIT);
    VkBufferImageCopy regions[32];
    uint32_t n;
    copy_regions(&b->image, regions, &n);
    vkCmdCopyImageToBuffer(cmd, im->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, n, regions);
}

VkDescriptorImageInfo vkb_image_descriptor(const case_binding *b, const vkb_image *im, uint32_t v)
{
    (void)b;
    /* a sampler binding has no image and no view */
    VkImageView view = v < im->view_count ? im->view[v] : VK_NULL_HANDLE;
    return (VkDescriptorImageInfo){.sampler = im->sampler, .imageView = view, .imageLayout = im->shader_layout};
}
