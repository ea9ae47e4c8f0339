/*
 * backend/vk_image_ms.c — multisampled image bindings on a Vulkan device.
 *
 * Vulkan copies between buffers and single-sampled images only
 * (vkCmdCopyBufferToImage, vkCmdCopyImageToBuffer), so a multisampled binding
 * is filled and read by a compute kernel of the backend's own: one invocation
 * a texel sample, reading (fill) or writing (read-back) the case's packed
 * texels — img_image's order, where each layer's samples are planes one after
 * another (img/img.h) — through a view of the image in the unsigned-integer
 * format of its texel size (R8_UINT, R16_UINT, R32_UINT, R32G32_UINT,
 * R32G32B32A32_UINT of img/formats.def), which carries every bit of any
 * format of that size unconverted; texels of 1 or 2 bytes go a 32-bit word
 * of them to an invocation.  The image is created mutable-format with
 * extended usage, so that a format without storage support (a sampled-only
 * one) still takes the storage view.  Needs shaderStorageImageMultisample and the device's storage
 * sample counts; depth formats stay refused (a depth image has no color
 * view).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/vk_image.h"
#include "img/img.h"
#include "isa/isa.h"

/* The unsigned-integer format whose texels are `bytes` bytes: the raw view's format. */
static const img_format_info *raw_format(uint32_t bytes)
{
    static const img_format raw[] = {IMG_FMT_R8_UINT, IMG_FMT_R16_UINT, IMG_FMT_R32_UINT, IMG_FMT_R32G32_UINT,
                                     IMG_FMT_R32G32B32A32_UINT};
    for (size_t k = 0; k < sizeof raw / sizeof raw[0]; k++)
        if (img_format_get(raw[k])->texel_bytes == bytes)
            return img_format_get(raw[k]);
    return NULL;
}

static VkSampleCountFlagBits sample_bit(uint32_t samples)
{
    return (VkSampleCountFlagBits)samples; /* VK_SAMPLE_COUNT_N_BIT == N */
}

/* The kernels' invocations for an image: one a texel sample of 4 bytes or more, one a 32-bit word of the packed
 * texels below that (a word holds 4 or 2 of them, and one invocation writes it whole). */
static uint64_t invocations(const img_image *im, uint32_t texel_bytes)
{
    const uint64_t samples = (uint64_t)im->width * im->height * (im->layers ? im->layers : 1) * img_samples(im);
    return texel_bytes >= 4 ? samples : (samples * texel_bytes + 3) / 4;
}

vkb_status vkb_image_ms_check_support(VkPhysicalDevice physical, const vkb_device_info *info, const case_binding *b,
                                      int index, VkImageUsageFlags usage, char *err, size_t err_size)
{
    const img_image *im = &b->image;
    const img_format_info *f = img_format_get(im->format);
    const img_format_info *raw = raw_format(f->texel_bytes);
    const uint32_t samples = img_samples(im);
    if (!info->storage_image_multisample) {
        snprintf(err, err_size, "%s lacks shaderStorageImageMultisample, which the backend needs to fill and read "
                 "the multisampled image of bindings[%d] (set %u binding %u) with a kernel", info->name, index, b->set,
                 b->binding);
        return VKB_ERR_UNSUPPORTED;
    }
    if (!raw || img_format_is_depth(im->format)) {
        snprintf(err, err_size, "bindings[%d] (set %u binding %u) is a multisampled %s image: the backend fills "
                 "multisampled images of 1, 2, 4, 8 or 16 bytes a texel, color formats only", index, b->set,
                 b->binding, f->name);
        return VKB_ERR_UNSUPPORTED;
    }
    VkImageFormatProperties ip, rp;
    VkResult r = vkGetPhysicalDeviceImageFormatProperties(
        physical, (VkFormat)f->vk_format, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL, usage,
        VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT, &ip);
    VkResult rr = vkGetPhysicalDeviceImageFormatProperties(physical, (VkFormat)raw->vk_format, VK_IMAGE_TYPE_2D,
                                                           VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_USAGE_STORAGE_BIT, 0, &rp);
    const VkSampleCountFlags counts = r == VK_SUCCESS && rr == VK_SUCCESS ? ip.sampleCounts & rp.sampleCounts : 0;
    if (!(counts & sample_bit(samples))) {
        char have[64] = "";
        for (uint32_t n = 1; n <= 64; n *= 2)
            if (counts & n)
                snprintf(have + strlen(have), sizeof have - strlen(have), "%s%u", have[0] ? ", " : "", n);
        snprintf(err, err_size, "%s cannot create a %u-sample %s image with a %s storage view for bindings[%d] (set "
                 "%u binding %u); its sample counts for that: %s", info->name, samples, f->name, raw->name, index,
                 b->set, b->binding, have[0] ? have : "none");
        return VKB_ERR_UNSUPPORTED;
    }
    if (im->width > ip.maxExtent.width || im->height > ip.maxExtent.height || im->layers > ip.maxArrayLayers) {
        snprintf(err, err_size, "%s allows %u-sample %s images of %ux%u texels and %u layers; bindings[%d] (set %u "
                 "binding %u) has %ux%u and %u", info->name, samples, f->name, ip.maxExtent.width, ip.maxExtent.height,
                 ip.maxArrayLayers, index, b->set, b->binding, im->width, im->height, im->layers);
        return VKB_ERR_UNSUPPORTED;
    }
    /* 64 invocations to a workgroup, in one row of workgroups */
    if ((invocations(im, f->texel_bytes) + 63) / 64 > 65535) {
        snprintf(err, err_size, "bindings[%d] (set %u binding %u): a multisampled image of more than %u texel "
                 "samples (or 32-bit words of them), which the backend's fill kernel does not dispatch", index, b->set,
                 b->binding, 65535u * 64);
        return VKB_ERR_UNSUPPORTED;
    }
    return VKB_OK;
}

/* The fill (upload = 1) or read-back kernel for texels of `raw`'s size.  A texel of W >= 1 words is one
 * invocation's; texels of 1 or 2 bytes share words, P to a word, and one invocation fills or reads back a word's
 * texels, so that no two write the same word. */
static char *kernel_source(const img_format_info *raw, int upload)
{
    const uint32_t bytes = raw->texel_bytes, words = bytes >= 4 ? bytes / 4 : 0, per = bytes >= 4 ? 1 : 4 / bytes;
    char body[640];
    if (words && upload) {
        char value[160] = "";
        for (uint32_t k = 0; k < 4; k++) {
            char word[32] = "0u";
            if (k < words)
                snprintf(word, sizeof word, "t[i * %uu + %uu]", words, k);
            snprintf(value + strlen(value), sizeof value - strlen(value), "%s%s", k ? ", " : "", word);
        }
        snprintf(body, sizeof body, "  if (i >= n) return;\n  TEXEL(i)\n  imageStore(img, at, s, uvec4(%s));\n",
                 value);
    } else if (words) {
        snprintf(body, sizeof body, "  if (i >= n) return;\n  TEXEL(i)\n  uvec4 v = imageLoad(img, at, s);\n");
        for (uint32_t k = 0; k < words; k++)
            snprintf(body + strlen(body), sizeof body - strlen(body), "  t[i * %uu + %uu] = v.%c;\n", words, k,
                     "xyzw"[k]);
    } else if (upload) {
        snprintf(body, sizeof body,
                 "  for (uint k = 0u; k < %uu && i * %uu + k < n; k++) {\n"
                 "    TEXEL(i * %uu + k)\n"
                 "    imageStore(img, at, s, uvec4((t[i] >> (k * %uu)) & %uu, 0u, 0u, 0u));\n"
                 "  }\n",
                 per, per, per, 8 * bytes, (1u << (8 * bytes)) - 1);
    } else {
        snprintf(body, sizeof body,
                 "  uint word = 0u;\n"
                 "  for (uint k = 0u; k < %uu && i * %uu + k < n; k++) {\n"
                 "    TEXEL(i * %uu + k)\n"
                 "    word |= (imageLoad(img, at, s).x & %uu) << (k * %uu);\n"
                 "  }\n"
                 "  if (i * %uu < n) t[i] = word;\n",
                 per, per, per, (1u << (8 * bytes)) - 1, 8 * bytes, per);
    }
    const char *fmt = "#version 450\n"
                      "layout(local_size_x = 64) in;\n"
                      "layout(set = 0, binding = 0, std430) buffer Texels { uint t[]; };\n"
                      "layout(set = 0, binding = 1, %s) uniform %s uimage2DMSArray img;\n"
                      "layout(push_constant) uniform Extent { uint width, height, layers, samples; } e;\n"
                      "/* texel sample j of img_image's order: plane (layer * samples + sample), then [y][x] */\n"
                      "#define TEXEL(j) uint plane = (j) / (e.width * e.height); \\\n"
                      "    ivec3 at = ivec3((j) %% e.width, ((j) / e.width) %% e.height, plane / e.samples); \\\n"
                      "    int s = int(plane %% e.samples);\n"
                      "void main() {\n"
                      "  uint i = gl_GlobalInvocationID.x, n = e.width * e.height * e.layers * e.samples;\n"
                      "%s"
                      "}\n";
    size_t n = strlen(fmt) + strlen(body) + 64;
    char *src = malloc(n);
    if (src)
        snprintf(src, n, fmt, raw->spirv_name, upload ? "writeonly" : "readonly", body);
    return src;
}

static vkb_status failed(char *err, size_t err_size, const char *call, VkResult r, int index)
{
    snprintf(err, err_size, "%s failed for the multisampled image of bindings[%d]: %s", call, index,
             vkb_result_name(r));
    return r == VK_ERROR_DEVICE_LOST ? VKB_ERR_DEVICE_LOST : VKB_ERR_VULKAN;
}

vkb_status vkb_image_ms_create(VkDevice device, const case_binding *b, int index, vkb_image *out, char *err,
                               size_t err_size)
{
    const img_image *im = &b->image;
    const img_format_info *raw = raw_format(img_format_get(im->format)->texel_bytes);
    VkResult r;
    VkImageViewCreateInfo vci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = out->image,
        .viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY,
        .format = (VkFormat)raw->vk_format,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, im->layers ? im->layers : 1},
    };
    if ((r = vkCreateImageView(device, &vci, NULL, &out->ms.raw_view)) != VK_SUCCESS)
        return failed(err, err_size, "vkCreateImageView", r, index);
    const VkDescriptorSetLayoutBinding lb[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
    };
    VkDescriptorSetLayoutCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 2, .pBindings = lb};
    if ((r = vkCreateDescriptorSetLayout(device, &dci, NULL, &out->ms.set_layout)) != VK_SUCCESS)
        return failed(err, err_size, "vkCreateDescriptorSetLayout", r, index);
    VkPushConstantRange pc = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 4 * sizeof(uint32_t)};
    VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                       .setLayoutCount = 1,
                                       .pSetLayouts = &out->ms.set_layout,
                                       .pushConstantRangeCount = 1,
                                       .pPushConstantRanges = &pc};
    if ((r = vkCreatePipelineLayout(device, &plci, NULL, &out->ms.layout)) != VK_SUCCESS)
        return failed(err, err_size, "vkCreatePipelineLayout", r, index);
    const VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2},
                                           {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 2}};
    VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 2, .poolSizeCount = 2, .pPoolSizes = sizes};
    if ((r = vkCreateDescriptorPool(device, &pci, NULL, &out->ms.pool)) != VK_SUCCESS)
        return failed(err, err_size, "vkCreateDescriptorPool", r, index);
    const VkDescriptorSetLayout layouts[2] = {out->ms.set_layout, out->ms.set_layout};
    VkDescriptorSetAllocateInfo dsai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                        .descriptorPool = out->ms.pool,
                                        .descriptorSetCount = 2,
                                        .pSetLayouts = layouts};
    if ((r = vkAllocateDescriptorSets(device, &dsai, out->ms.sets)) != VK_SUCCESS)
        return failed(err, err_size, "vkAllocateDescriptorSets", r, index);
    for (int upload = 0; upload < 2; upload++) {
        /* only a storage image is read back; a sampled one is filled only */
        if (!upload && b->kind != CASE_KIND_STORAGE_IMAGE)
            continue;
        char *src = kernel_source(raw, upload);
        if (!src) {
            snprintf(err, err_size, "out of memory for the multisampled image kernel of bindings[%d]", index);
            return VKB_ERR_NOMEM;
        }
        isa_compile_options o = {.path = upload ? "<multisampled image fill>" : "<multisampled image read-back>",
                                 .source = src,
                                 .language = "glsl"};
        uint32_t *words = NULL;
        size_t n = 0;
        char cerr[2048];
        isa_status cs = isa_compile(&o, &words, &n, cerr, sizeof cerr, NULL, 0);
        free(src);
        if (cs != ISA_OK) { /* the backend's own kernel: a compile error is a bug here */
            snprintf(err, err_size, "the multisampled image kernel of bindings[%d] does not compile: %s", index, cerr);
            return VKB_ERR_INPUT;
        }
        VkShaderModuleCreateInfo smci = {
            .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = n * 4, .pCode = words};
        VkShaderModule module;
        r = vkCreateShaderModule(device, &smci, NULL, &module);
        free(words);
        if (r != VK_SUCCESS)
            return failed(err, err_size, "vkCreateShaderModule", r, index);
        VkComputePipelineCreateInfo cpci = {
            .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
            .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                      .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                      .module = module,
                      .pName = "main"},
            .layout = out->ms.layout,
        };
        r = vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cpci, NULL, &out->ms.pipelines[upload]);
        vkDestroyShaderModule(device, module, NULL);
        if (r != VK_SUCCESS)
            return failed(err, err_size, "vkCreateComputePipelines", r, index);
    }
    return VKB_OK;
}

void vkb_image_ms_destroy(VkDevice device, vkb_image *im)
{
    for (int k = 0; k < 2; k++)
        if (im->ms.pipelines[k])
            vkDestroyPipeline(device, im->ms.pipelines[k], NULL);
    if (im->ms.pool)
        vkDestroyDescriptorPool(device, im->ms.pool, NULL);
    if (im->ms.layout)
        vkDestroyPipelineLayout(device, im->ms.layout, NULL);
    if (im->ms.set_layout)
        vkDestroyDescriptorSetLayout(device, im->ms.set_layout, NULL);
    if (im->ms.raw_view)
        vkDestroyImageView(device, im->ms.raw_view, NULL);
}

/* Binds the kernel (upload: the fill, else the read-back) to `buffer` and records its dispatch over every texel
 * sample of the image, which is in the GENERAL layout. */
void vkb_image_ms_record(VkDevice device, VkCommandBuffer cmd, const case_binding *b, const vkb_image *im,
                         VkBuffer buffer, int upload)
{
    const img_image *image = &b->image;
    VkDescriptorBufferInfo bi = {buffer, 0, VK_WHOLE_SIZE};
    VkDescriptorImageInfo ii = {VK_NULL_HANDLE, im->ms.raw_view, VK_IMAGE_LAYOUT_GENERAL};
    const VkWriteDescriptorSet w[2] = {
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = im->ms.sets[upload], .dstBinding = 0,
         .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &bi},
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = im->ms.sets[upload], .dstBinding = 1,
         .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, .pImageInfo = &ii},
    };
    vkUpdateDescriptorSets(device, 2, w, 0, NULL);
    const uint32_t extent[4] = {image->width, image->height, image->layers ? image->layers : 1, img_samples(image)};
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, im->ms.pipelines[upload]);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, im->ms.layout, 0, 1, &im->ms.sets[upload], 0, NULL);
    vkCmdPushConstants(cmd, im->ms.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof extent, extent);
    const uint64_t n = invocations(image, img_format_get(image->format)->texel_bytes);
    vkCmdDispatch(cmd, (uint32_t)((n + 63) / 64), 1, 1);
}
