/*
 * backend/vulkan.c — the Vulkan runner: one case run from SPIR-V to read-back
 * bytes (logical device, pipelines, descriptors, buffers and images,
 * timestamps, pipeline statistics).  Devices are listed in backend/vk_device.c,
 * support is checked in backend/vk_support.c.
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
#include "backend/vulkan_internal.h"
#include "img/img.h"
#include "isa/isa.h"

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
        if (o->cmd) /* only a recorded command buffer was ever submitted (RADV's null device crashes in the wait) */
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

vkb_status vkb_run_case(vkb_context *ctx, int index, const wl_case *c, const uint32_t *spirv, size_t word_count,
                        const vkb_run_options *opt, vkb_run_output *out, char *err, size_t err_size)
{
    vkb_pass one = {spirv, word_count};
    wl_case view; /* a case with "dispatches" runs its first pass alone here */
    case_dispatch_view(c, 0, &view);
    return vkb_run_passes(ctx, index, &view, &one, 1, opt, out, err, err_size);
}
/* What the phases of one run share: the inputs, the scanned kernels and the choices made from them. */
typedef struct run_plan {
    vkb_context *ctx;
    const device_entry *d;
    const wl_case *c;
    const vkb_pass *passes;
    int pass_count;
    const vkb_run_options *opt;
    vkb_kernel_info *kernels;   /* one per pass */
    int *full;                  /* per pass: dispatched with full subgroups */
    isa_spec_map *spec;         /* per pass: the case's specialization, for VkSpecializationInfo */
    uint32_t requested, wave;   /* the wave size asked for (0: the device's) and the one used */
    int required;               /* the wave size is set as a required subgroup size */
    uint32_t repeat, runs;      /* timed dispatches, and with the warm-up ones */
    uint64_t timeout_ns;
    uint8_t *push;              /* pass_count * push_size bytes */
    uint32_t push_size;
    int timestamps;             /* the compute queue has timestamps */
    uint32_t query_count;
    int compile_only;           /* vkb_compile_case: capture internal representations; nothing runs */
    int bindings_from_module;   /* vkb_compile_case of a bare kernel: the bindings are the module's, nothing to check */
} run_plan;

#define PLAN_LOCALS(rp)                                                       \
    const wl_case *c = (rp)->c;                                               \
    const device_entry *d = (rp)->d;                                          \
    const vkb_device_info *info = &d->info;                                   \
    const vkb_run_options *opt = (rp)->opt;                                   \
    const int pass_count = (rp)->pass_count;                                  \
    (void)c, (void)d, (void)info, (void)opt, (void)pass_count

/* Scans each pass's kernel and checks that the device supports it; chooses full subgroups per pass. */
static vkb_status plan_passes(run_plan *rp, vkb_run_output *out, char *err, size_t err_size)
{
    vkb_status st = VKB_OK;
    PLAN_LOCALS(rp);
    ALLOC(rp->kernels, pass_count);
    ALLOC(rp->full, pass_count);
    ALLOC(rp->spec, pass_count);
    out->full_subgroups = 1;
    for (int p = 0; p < pass_count; p++) {
        wl_case view;
        case_dispatch_view(c, pass_count > 1 ? p : 0, &view);
        /* the scan reads the specialised module (the same words the lowering reads), so it sees the
         * workgroup size the specialization sets; the pipeline gets the module as compiled and the values */
        isa_spec spec = {.values = view.spec, .count = view.spec_count};
        uint32_t *specialised = NULL;
        if (isa_specialize(rp->passes[p].spirv, rp->passes[p].word_count, &spec, &specialised, &rp->spec[p], err,
                           err_size) != ISA_OK) {
            st = VKB_ERR_INPUT;
            goto done;
        }
        st = vkb_kernel_scan(specialised, rp->passes[p].word_count, view.entry, &rp->kernels[p], err, err_size);
        free(specialised);
        if (st == VKB_OK)
            st = vkb_check_support(rp->ctx, (int)(d - rp->ctx->devices), &rp->kernels[p],
                                   rp->bindings_from_module ? NULL : &view, rp->requested, err, err_size);
        if (st != VKB_OK) {
            if (pass_count > 1) { /* name the pass */
                char inner[768];
                snprintf(inner, sizeof inner, "%s", err);
                snprintf(err, err_size, "dispatches[%d] (%.40s): %s", p, case_dispatch_name(c, p), inner);
            }
            goto done;
        }
        /* full subgroups where the size is fixed: required, the device's default, or its only size */
        rp->full[p] = info->compute_full_subgroups && rp->wave && rp->kernels[p].local_size[0] % rp->wave == 0 &&
                      (rp->required || !rp->requested || rp->wave == info->max_subgroup_size);
        out->full_subgroups &= rp->full[p];
    }
done:
    return st;
}

/* The logical device with every reported feature, the optional extensions, and robust access or maximal
 * reconvergence when asked for (a device without them cannot run the case that way). */
static vkb_status create_device(run_objects *o, const run_plan *rp, char *err, size_t err_size)
{
    vkb_status st = VKB_OK;
    PLAN_LOCALS(rp);
    device_features features;
    vkb_chain_features(d, &features);
    vkGetPhysicalDeviceFeatures2(d->physical, &features.f2);
    const char *extensions[13];
    uint32_t extension_count = 0;
    static const char *const optional_extensions[] = {
        VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME,
        VK_NV_SHADER_SUBGROUP_PARTITIONED_EXTENSION_NAME, "VK_KHR_portability_subset",
        VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME,
        VK_KHR_8BIT_STORAGE_EXTENSION_NAME, VK_KHR_SHADER_SUBGROUP_EXTENDED_TYPES_EXTENSION_NAME,
        VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME, VK_KHR_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_EXTENSION_NAME,
    };
    for (size_t i = 0; i < sizeof optional_extensions / sizeof optional_extensions[0] && extension_count < 11; i++)
        if (vkb_device_wants_extension(d, optional_extensions[i]))
            extensions[extension_count++] = optional_extensions[i];
    /* robust access (the case or the caller asks): robustBufferAccess2, or the device cannot run the case */
    VkPhysicalDeviceRobustness2FeaturesEXT robust2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
    if (c->robust_access || opt->robust_access) {
        if (vkb_device_has_extension(d, VK_EXT_ROBUSTNESS_2_EXTENSION_NAME)) {
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
        vkb_chain_link(&tail, &robust2);
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
        if (vkb_device_has_extension(d, reconverge_extension)) {
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
        vkb_chain_link(&tail, &reconverge);
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
    VK_TRY(vkCreateDevice, (d->physical, &dci, NULL, &o->device));
    volkLoadDevice(o->device);
    vkGetDeviceQueue(o->device, info->compute_queue_family, 0, &o->queue);

done:
    return st;
}

/* Buffers: one per binding with its source buffer, images and texel-buffer views. */
static vkb_status create_buffers(run_objects *o, const run_plan *rp, vkb_run_output *out, char *err, size_t err_size)
{
    vkb_status st = VKB_OK;
    PLAN_LOCALS(rp);
    const vkb_kernel_info *kernels = rp->kernels;
    /* buffers: one per binding, each with its own memory, mapped for the whole run */
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(d->physical, &mp);
    o->buffer_count = c->binding_count;
    ALLOC(o->buffers, o->buffer_count);
    ALLOC(o->memory, o->buffer_count);
    ALLOC(o->views, o->buffer_count);
    ALLOC(o->mapped, o->buffer_count);
    ALLOC(o->pristine, o->buffer_count);
    ALLOC(o->pristine_memory, o->buffer_count);
    ALLOC(o->images, o->buffer_count);
    int all_device_local = 1;
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        VkDeviceSize size = b->size;
        isa_format f = vkb_kind_is_texel(b->kind) ? isa_format_from_name(b->format) : ISA_FORMAT_UNKNOWN;
        VkDeviceSize texel = vkb_kind_is_texel(b->kind) ? isa_format_bytes(f) : 4;
        if (size < texel)
            size = texel; /* Vulkan buffers and views cannot be empty */
        static const VkBufferUsageFlags usage_of_kind[CASE_KIND_COUNT] = {
            [CASE_KIND_STORAGE_BUFFER] = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
            [CASE_KIND_UNIFORM_BUFFER] = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
            [CASE_KIND_STORAGE_TEXEL_BUFFER] = VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT,
            [CASE_KIND_UNIFORM_TEXEL_BUFFER] = VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT,
            /* image kinds: the buffer receives a storage image's texels after the dispatch */
        };
        /* a buffer may be bound as storage in one pass and uniform in another (case_dispatch.bindings) */
        VkBufferUsageFlags usage = usage_of_kind[b->kind];
        if (b->kind == CASE_KIND_STORAGE_BUFFER || b->kind == CASE_KIND_UNIFORM_BUFFER)
            usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
        /* a multisampled image's texels go through the fill and read-back kernels' storage buffer (vk_image.h),
         * read and written in whole 32-bit words */
        const VkBufferUsageFlags kernel_io = vkb_kind_is_image(b->kind) && img_samples(&b->image) > 1
                                                ? VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
                                                : 0;
        usage |= kernel_io;
        if (kernel_io)
            size = (size + 3) / 4 * 4;
        VkBufferCreateInfo bci = {
            .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
            .size = size,
            .usage = usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
            .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        };
        VK_TRY(vkCreateBuffer, (o->device, &bci, NULL, &o->buffers[i]));
        /* the initial contents live in a source buffer of their own: every dispatch starts with a GPU copy, so
         * repeats see the same inputs without host writes between them (which would let the GPU go idle and
         * drop its clock between timed dispatches) */
        VkBufferCreateInfo pci = {
            .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
            .size = size,
            .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | kernel_io,
            .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        };
        VK_TRY(vkCreateBuffer, (o->device, &pci, NULL, &o->pristine[i]));
        {
            VkMemoryRequirements preq;
            vkGetBufferMemoryRequirements(o->device, o->pristine[i], &preq);
            uint32_t ptype = pick_memory_type(&mp, preq.memoryTypeBits, 0);
            if (ptype == UINT32_MAX) {
                snprintf(err, err_size, "%s has no host-visible coherent memory type for bindings[%d]", info->name, i);
                st = VKB_ERR_UNSUPPORTED;
                goto done;
            }
            VkMemoryAllocateInfo pmai = {
                .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = preq.size, .memoryTypeIndex = ptype};
            VK_TRY(vkAllocateMemory, (o->device, &pmai, NULL, &o->pristine_memory[i]));
            VK_TRY(vkBindBufferMemory, (o->device, o->pristine[i], o->pristine_memory[i], 0));
            void *pm = NULL;
            VK_TRY(vkMapMemory, (o->device, o->pristine_memory[i], 0, VK_WHOLE_SIZE, 0, &pm));
            memset(pm, 0, (size_t)size);
            if (b->size)
                memcpy(pm, b->bytes, b->size);
            vkUnmapMemory(o->device, o->pristine_memory[i]);
        }
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(o->device, o->buffers[i], &req);
        uint32_t type = pick_memory_type(&mp, req.memoryTypeBits, 1);
        VkResult r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
        if (type != UINT32_MAX) {
            VkMemoryAllocateInfo mai = {
                .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
            r = vkAllocateMemory(o->device, &mai, NULL, &o->memory[i]);
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
            VK_TRY(vkAllocateMemory, (o->device, &mai, NULL, &o->memory[i]));
        }
        VK_TRY(vkBindBufferMemory, (o->device, o->buffers[i], o->memory[i], 0));
        VK_TRY(vkMapMemory, (o->device, o->memory[i], 0, VK_WHOLE_SIZE, 0, &o->mapped[i]));
        memset(o->mapped[i], 0, (size_t)size);
        if (vkb_kind_is_image(b->kind)) {
            st = vkb_image_create(o->device, &mp, b, i, declared_resource(kernels, pass_count, b), &o->images[i], err,
                                  err_size);
            if (st != VKB_OK)
                goto done;
        }
        if (vkb_kind_is_texel(b->kind)) {
            VkBufferViewCreateInfo vci = {
                .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
                .buffer = o->buffers[i],
                .format = (VkFormat)isa_format_vk(f),
                .offset = 0,
                .range = size / texel * texel,
            };
            VK_TRY(vkCreateBufferView, (o->device, &vci, NULL, &o->views[i]));
        }
    }
    snprintf(out->memory_note, sizeof out->memory_note, "host-visible coherent%s",
             c->binding_count == 0 ? "" : all_device_local ? ", device-local" : " (not device-local)");

done:
    return st;
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

/* Descriptor set layouts of the bindings of every pass (a compile needs no more): one layout per set, the union of
 * the slots the passes bind, so the passes share one pipeline layout; a slot two passes bind as different
 * descriptor types cannot be shared, and is refused. */
static vkb_status create_set_layouts(run_objects *o, const wl_case *c, int pass_count, char *err, size_t err_size)
{
    vkb_status st = VKB_OK;
    VkDescriptorSetLayoutBinding *lb = NULL;
    uint32_t *lb_set = NULL;
    uint32_t total = 0, n_slots = 0, set_count = 0;
    for (int p = 0; p < pass_count; p++) {
        wl_case view;
        case_dispatch_view(c, pass_count > 1 ? p : 0, &view);
        total += (uint32_t)view.binding_count;
    }
    ALLOC(lb, total + 1);
    ALLOC(lb_set, total + 1);
    for (int p = 0; p < pass_count; p++) {
        wl_case view;
        case_dispatch_view(c, pass_count > 1 ? p : 0, &view);
        for (int i = 0; i < view.binding_count; i++) {
            const case_binding *b = &view.bindings[i];
            uint32_t k = 0;
            while (k < n_slots && !(lb_set[k] == b->set && lb[k].binding == b->binding))
                k++;
            uint32_t count = case_binding_end(b); /* a descriptor array holds every element */
            if (k < n_slots) {
                if (count > lb[k].descriptorCount)
                    lb[k].descriptorCount = count;
                if (lb[k].descriptorType != descriptor_of_kind[b->kind]) {
                    snprintf(err, err_size, "dispatches[%d] (%.40s): set %u binding %u is a %s here and another "
                             "descriptor type in an earlier pass: the passes share one pipeline layout", p,
                             case_dispatch_name(c, p), b->set, b->binding, case_kind_name(b->kind));
                    st = VKB_ERR_INPUT;
                    goto done;
                }
                continue;
            }
            lb_set[n_slots] = b->set;
            lb[n_slots++] = (VkDescriptorSetLayoutBinding){
                .binding = b->binding,
                .descriptorType = descriptor_of_kind[b->kind],
                .descriptorCount = count,
                .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
            };
            if (b->set + 1 > set_count)
                set_count = b->set + 1;
        }
    }
    /* descriptor set layouts: sets 0..max, holes get empty layouts */
    if (set_count > 32) {
        snprintf(err, err_size, "the case uses descriptor set %u; wavelab allows sets 0..31", set_count - 1);
        st = VKB_ERR_INPUT;
        goto done;
    }
    o->set_count = set_count;
    ALLOC(o->set_layouts, set_count);
    size_t set_total = (size_t)set_count * (size_t)(pass_count > 0 ? pass_count : 1); /* one group per pass */
    ALLOC(o->sets, set_total);
    VkDescriptorSetLayoutBinding *in_set;
    ALLOC(in_set, n_slots + 1);
    for (uint32_t s = 0; s < set_count; s++) {
        uint32_t n = 0;
        for (uint32_t k = 0; k < n_slots; k++)
            if (lb_set[k] == s)
                in_set[n++] = lb[k];
        VkDescriptorSetLayoutCreateInfo lci = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = n, .pBindings = in_set};
        VkResult r = vkCreateDescriptorSetLayout(o->device, &lci, NULL, &o->set_layouts[s]);
        if (r != VK_SUCCESS) {
            free(in_set);
            st = vk_fail(err, err_size, "vkCreateDescriptorSetLayout", r);
            goto done;
        }
    }
    free(in_set);

done:
    free(lb);
    free(lb_set);
    return st;
}

/* The descriptor pool and the sets: one group of sets per pass, written with the pass's bindings (each the
 * buffer case_dispatch_buffer names), bound before the pass's dispatch. */
static vkb_status create_descriptors(run_objects *o, const wl_case *c, int pass_count, char *err, size_t err_size)
{
    vkb_status st = VKB_OK;
    uint32_t set_count = o->set_count;
    if (set_count) {
        VkDescriptorPoolSize sizes[CASE_KIND_COUNT];
        uint32_t size_count = 0;
        for (int k = 0; k < CASE_KIND_COUNT; k++) {
            uint32_t n = 0;
            for (int p = 0; p < pass_count; p++) {
                wl_case view;
                case_dispatch_view(c, pass_count > 1 ? p : 0, &view);
                for (int i = 0; i < view.binding_count; i++)
                    if (view.bindings[i].kind == (case_kind)k)
                        n += case_binding_descriptors(&view.bindings[i]);
            }
            if (n)
                sizes[size_count++] = (VkDescriptorPoolSize){descriptor_of_kind[k], n};
        }
        VkDescriptorPoolCreateInfo pci = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
            .maxSets = set_count * (uint32_t)pass_count,
            .poolSizeCount = size_count,
            .pPoolSizes = sizes,
        };
        VK_TRY(vkCreateDescriptorPool, (o->device, &pci, NULL, &o->descriptor_pool));
        for (int p = 0; p < pass_count; p++) {
            VkDescriptorSet *sets = o->sets + (size_t)p * set_count;
            VkDescriptorSetAllocateInfo dai = {
                .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                .descriptorPool = o->descriptor_pool,
                .descriptorSetCount = set_count,
                .pSetLayouts = o->set_layouts,
            };
            VK_TRY(vkAllocateDescriptorSets, (o->device, &dai, sets));
            wl_case view;
            case_dispatch_view(c, pass_count > 1 ? p : 0, &view);
            for (int k = 0; k < view.binding_count; k++) {
                const case_binding *b = &view.bindings[k];
                int i = case_dispatch_buffer(c, pass_count > 1 ? p : 0, k);
                /* a pass's binding may be a window on the buffer (case_binding.offset) */
                VkDescriptorBufferInfo bi = {.buffer = o->buffers[i], .offset = b->offset,
                                             .range = b->offset || b->size != c->bindings[i].size ? b->size
                                                                                                   : VK_WHOLE_SIZE};
                for (uint32_t v = 0; v < case_binding_descriptors(b); v++) {
                    VkWriteDescriptorSet w = {
                        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                        .dstSet = sets[b->set],
                        .dstBinding = b->binding,
                        .dstArrayElement = b->element + v,
                        .descriptorCount = 1,
                        .descriptorType = descriptor_of_kind[b->kind],
                    };
                    VkDescriptorImageInfo ii;
                    if (vkb_kind_is_texel(b->kind)) {
                        w.pTexelBufferView = &o->views[i];
                    } else if (vkb_kind_is_image(b->kind)) {
                        ii = vkb_image_descriptor(b, &o->images[i], v);
                        w.pImageInfo = &ii;
                    } else {
                        w.pBufferInfo = &bi;
                    }
                    vkUpdateDescriptorSets(o->device, 1, &w, 0, NULL);
                }
            }
        }
    }

done:
    return st;
}

/* The push-constant bytes of every pass, the shared pipeline layout, and one pipeline per pass. */
static vkb_status create_pipelines(run_objects *o, run_plan *rp, char *err, size_t err_size)
{
    vkb_status st = VKB_OK;
    PLAN_LOCALS(rp);
    const vkb_kernel_info *kernels = rp->kernels;
    const vkb_pass *passes = rp->passes;
    const uint32_t wave = rp->wave;
    const int required = rp->required, *full = rp->full;
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
    rp->push_size = push_size;
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size};
    if (push_size) {
        size_t push_total = (size_t)push_size * (size_t)pass_count;
        ALLOC(rp->push, push_total);
        for (int p = 0; p < pass_count; p++) {
            wl_case view;
            case_dispatch_view(c, pass_count > 1 ? p : 0, &view);
            if (view.push_constants)
                memcpy(rp->push + (size_t)p * push_size, view.push_constants, view.push_size);
        }
    }
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = o->set_count,
        .pSetLayouts = o->set_layouts,
        .pushConstantRangeCount = push_size ? 1 : 0,
        .pPushConstantRanges = &range,
    };
    VK_TRY(vkCreatePipelineLayout, (o->device, &plci, NULL, &o->layout));

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
        VkResult made = vkCreateShaderModule(o->device, &smci, NULL, &o->modules[p]);
        free(reconverging);
        if (made != VK_SUCCESS) {
            st = vk_fail(err, err_size, "vkCreateShaderModule", made);
            goto done;
        }
        VkPipelineShaderStageRequiredSubgroupSizeCreateInfo rss = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
            .requiredSubgroupSize = wave,
        };
        const isa_spec_map *sm = &rp->spec[p];
        VkSpecializationMapEntry entries[64];
        if (sm->count > sizeof entries / sizeof *entries) {
            snprintf(err, err_size, "more than %zu specialization constants", sizeof entries / sizeof *entries);
            st = VKB_ERR_INPUT;
            goto done;
        }
        for (uint32_t k = 0; k < sm->count; k++)
            entries[k] = (VkSpecializationMapEntry){sm->ids[k], sm->offsets[k], sm->sizes[k]};
        VkSpecializationInfo si = {sm->count, entries, sm->data_size, sm->data};
        VkComputePipelineCreateInfo cpci = {
            .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
            .stage =
                {
                    .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                    .pNext = required ? &rss : NULL,
                    .flags = full[p] ? VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT : 0,
                    .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                    .module = o->modules[p],
                    .pName = kernels[p].entry,
                    .pSpecializationInfo = sm->count ? &si : NULL,
                },
            .layout = o->layout,
        };
        if (info->pipeline_executable_properties)
            cpci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
                          (rp->compile_only ? VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR : 0);
        VK_TRY(vkCreateComputePipelines, (o->device, VK_NULL_HANDLE, 1, &cpci, NULL, &o->pipelines[p]));
    }
done:
    return st;
}

/* The timestamp pool and the one command buffer: inputs copied from their sources, the passes with barriers
 * and timestamps between them, storage images read back, and the fence. */
static vkb_status record_commands(run_objects *o, run_plan *rp, vkb_run_output *out, char *err, size_t err_size)
{
    vkb_status st = VKB_OK;
    PLAN_LOCALS(rp);
    const uint32_t push_size = rp->push_size, query_count = 2 * (uint32_t)pass_count;
    rp->query_count = query_count;
    /* timestamps */
    int timestamps = rp->timestamps = info->timestamp_valid_bits > 0 && info->timestamp_period > 0;
    if (timestamps) {
        VkQueryPoolCreateInfo qpci = {
            .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = query_count};
        VK_TRY(vkCreateQueryPool, (o->device, &qpci, NULL, &o->queries));
    } else {
        snprintf(out->timing_note, sizeof out->timing_note,
                 "not available: %.100s has no timestamps on its compute queue (timestampValidBits 0)", info->name);
    }

    /* one command buffer, recorded once and submitted warmup + repeat times */
    VkCommandPoolCreateInfo cpi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = info->compute_queue_family};
    VK_TRY(vkCreateCommandPool, (o->device, &cpi, NULL, &o->command_pool));
    VkCommandBufferAllocateInfo cbai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = o->command_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VK_TRY(vkAllocateCommandBuffers, (o->device, &cbai, &o->cmd));
    VkCommandBufferBeginInfo cbbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_TRY(vkBeginCommandBuffer, (o->cmd, &cbbi));
    if (timestamps)
        vkCmdResetQueryPool(o->cmd, o->queries, 0, query_count);
    for (int i = 0; i < c->binding_count; i++) {
        VkBufferCopy region = {.srcOffset = 0, .dstOffset = 0, .size = c->bindings[i].size};
        if (vkb_kind_is_image(c->bindings[i].kind)) /* staging -> image, into the shader's layout */
            vkb_image_record_upload(o->device, o->cmd, &c->bindings[i], &o->images[i], o->pristine[i]);
        else if (region.size)
            vkCmdCopyBuffer(o->cmd, o->pristine[i], o->buffers[i], 1, &region);
    }
    VkMemoryBarrier to_shader = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_UNIFORM_READ_BIT,
    };
    vkCmdPipelineBarrier(o->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &to_shader,
                         0, NULL, 0, NULL);
    for (int p = 0; p < pass_count; p++) {
        wl_case view;
        case_dispatch_view(c, pass_count > 1 ? p : 0, &view);
        if (p > 0) { /* the next pass reads what this one wrote */
            VkMemoryBarrier between = {
                .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_UNIFORM_READ_BIT,
            };
            vkCmdPipelineBarrier(o->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                                 1, &between, 0, NULL, 0, NULL);
        }
        vkCmdBindPipeline(o->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->pipelines[p]);
        if (o->set_count) /* the pass's own sets: its bindings may name other buffers at the same slots */
            vkCmdBindDescriptorSets(o->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->layout, 0, o->set_count,
                                    o->sets + (size_t)p * o->set_count, 0, NULL);
        if (push_size)
            vkCmdPushConstants(o->cmd, o->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size,
                               rp->push + (size_t)p * push_size);
        if (timestamps) /* after everything before it has finished: the interval is this dispatch alone */
            vkCmdWriteTimestamp(o->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, o->queries, 2 * (uint32_t)p);
        vkCmdDispatch(o->cmd, view.groups[0], view.groups[1], view.groups[2]);
        if (timestamps)
            vkCmdWriteTimestamp(o->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, o->queries, 2 * (uint32_t)p + 1);
    }
    for (int i = 0; i < c->binding_count; i++) /* storage images -> their read-back buffers */
        vkb_image_record_readback(o->device, o->cmd, &c->bindings[i], &o->images[i], o->buffers[i]);
    VkMemoryBarrier to_host = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };
    vkCmdPipelineBarrier(o->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL, 0, NULL);
    VK_TRY(vkEndCommandBuffer, (o->cmd));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_TRY(vkCreateFence, (o->device, &fci, NULL, &o->fence));

done:
    return st;
}

/* Submits warmup + repeat times, waiting with the timeout; the host and timestamp times of the timed ones. */
static vkb_status submit_and_time(run_objects *o, run_plan *rp, vkb_run_output *out, char *err, size_t err_size)
{
    vkb_status st = VKB_OK;
    PLAN_LOCALS(rp);
    const uint32_t repeat = rp->repeat, runs = rp->runs, query_count = rp->query_count;
    const int timestamps = rp->timestamps;
    const uint64_t timeout_ns = rp->timeout_ns;
    uint64_t *ticks = NULL; /* one query result per timestamp */
    double *host_us = NULL;
    ALLOC(out->samples_us, repeat);
    ALLOC(ticks, query_count);
    uint64_t origin = 0;
    if (timestamps) {
        size_t cells = (size_t)repeat * (size_t)pass_count;
        ALLOC(out->pass_begin_us, cells);
        ALLOC(out->pass_end_us, cells);
    }
    ALLOC(host_us, repeat);
    uint64_t tick_mask = info->timestamp_valid_bits >= 64 ? UINT64_MAX : (1ull << info->timestamp_valid_bits) - 1;
    for (uint32_t run = 0; run < runs; run++) {
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &o->cmd};
        double t0 = now_us();
        VkResult r = vkQueueSubmit(o->queue, 1, &si, o->fence);
        if (r == VK_SUCCESS)
            r = vkWaitForFences(o->device, 1, &o->fence, VK_TRUE, timeout_ns);
        double t1 = now_us();
        if (r == VK_TIMEOUT) {
            snprintf(err, err_size,
                     "vkWaitForFences: VK_TIMEOUT: the dispatch did not finish within %llu ms (run %u of %u); the "
                     "device was abandoned",
                     (unsigned long long)(timeout_ns / 1000000), run + 1, runs);
            o->abandoned = 1;
            rp->ctx->abandoned = 1;
            st = VKB_ERR_TIMEOUT;
            goto done;
        }
        if (r != VK_SUCCESS) {
            st = vk_fail(err, err_size, "vkQueueSubmit/vkWaitForFences", r);
            goto done;
        }
        r = vkResetFences(o->device, 1, &o->fence);
        if (r != VK_SUCCESS) {
            st = vk_fail(err, err_size, "vkResetFences", r);
            goto done;
        }
        if (run < opt->warmup)
            continue;
        uint32_t sample = run - opt->warmup;
        host_us[sample] = t1 - t0;
        if (timestamps) {
            r = vkGetQueryPoolResults(o->device, o->queries, 0, query_count, query_count * sizeof *ticks, ticks,
                                      sizeof *ticks, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
            if (r != VK_SUCCESS) {
                st = vk_fail(err, err_size, "vkGetQueryPoolResults", r);
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

done:
    free(ticks);
    free(host_us);
    return st;
}

/* The bindings' final bytes, and the pipeline statistics and notes of what the device does not report. */
static void read_back(run_objects *o, const run_plan *rp, vkb_run_output *out)
{
    PLAN_LOCALS(rp);
    /* coherent memory; the barrier made the shader writes visible to the host */
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        if (!b->size)
            continue;
        /* sampled images are read-only: their final contents are the case's */
        int unchanged = vkb_kind_is_image(b->kind) && b->kind != CASE_KIND_STORAGE_IMAGE;
        memcpy(out->data[i], unchanged ? b->bytes : o->mapped[i], b->size);
    }

    if (info->pipeline_executable_properties) {
        uint32_t reported = 0;
        vkb_read_statistics(o->device, o->pipelines[0], &out->stats, &out->stat_count, out->stats_note,
                            sizeof out->stats_note, &reported);
        if (reported && !rp->required)
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
}

/* What a run and a compile begin with: the device, the options, the wave size and the scanned, supported passes;
 * `out` gets the wave size and the pass count. */
static vkb_status start_plan(run_plan *rp, run_objects *o, int index, vkb_run_output *out, char *err, size_t err_size)
{
    vkb_status st = VKB_OK;
    vkb_context *ctx = rp->ctx;
    const wl_case *c = rp->c;
    const int pass_count = rp->pass_count;
    memset(out, 0, sizeof *out);
    err[0] = 0;
    if (!ctx || index < 0 || index >= ctx->device_count) {
        snprintf(err, err_size, "no Vulkan device %d", index);
        return VKB_ERR_NO_DEVICE;
    }
    rp->d = &ctx->devices[index];
    const vkb_device_info *info = &rp->d->info;
    snprintf(out->device_name, sizeof out->device_name, "%s", info->name);
    if (!rp->compile_only && (st = vkb_device_dispatches(info, err, err_size)) != VKB_OK)
        return st;
    static const vkb_run_options defaults = {0};
    rp->opt = rp->opt ? rp->opt : &defaults;
    rp->repeat = rp->opt->repeat ? rp->opt->repeat : 1;
    rp->runs = rp->opt->warmup + rp->repeat;
    rp->timeout_ns = (uint64_t)(rp->opt->timeout_ms ? rp->opt->timeout_ms : 10000) * 1000000ull;
    if (pass_count < 1 || (pass_count > 1 && pass_count != case_dispatch_total(c))) {
        snprintf(err, err_size, "%d kernels for a case of %d passes", pass_count, case_dispatch_total(c));
        return VKB_ERR_INPUT;
    }
    rp->requested = rp->opt->wave_size ? rp->opt->wave_size : c->subgroup_size;
    rp->wave = vkb_effective_wave(info, rp->requested, &rp->required);
    out->wave_size = rp->wave;
    out->wave_size_required = rp->required;
    out->pass_count = pass_count;
    o->pass_count = pass_count;
    ALLOC(o->modules, pass_count);
    ALLOC(o->pipelines, pass_count);
    st = plan_passes(rp, out, err, err_size);
done:
    return st;
}

/* What a run or a compile made: the plan's copies and every Vulkan object. */
static void plan_release(run_plan *rp, run_objects *o)
{
    free(rp->push);
    free(rp->kernels);
    free(rp->full);
    for (int p = 0; rp->spec && p < rp->pass_count; p++)
        isa_spec_map_free(&rp->spec[p]);
    free(rp->spec);
    run_objects_destroy(o);
}

vkb_status vkb_run_passes(vkb_context *ctx, int index, const wl_case *c, const vkb_pass *passes, int pass_count,
                          const vkb_run_options *opt, vkb_run_output *out, char *err, size_t err_size)
{
    run_objects o = {0};
    run_plan rp = {.ctx = ctx, .c = c, .passes = passes, .pass_count = pass_count, .opt = opt};
    vkb_status st = start_plan(&rp, &o, index, out, err, err_size);
    if (st != VKB_OK)
        goto done;
    ALLOC(out->data, c->binding_count);
    out->binding_count = c->binding_count;
    for (int i = 0; i < c->binding_count; i++)
        ALLOC(out->data[i], c->bindings[i].size);
    if ((st = create_device(&o, &rp, err, err_size)) != VKB_OK ||
        (st = create_buffers(&o, &rp, out, err, err_size)) != VKB_OK ||
        (st = create_set_layouts(&o, c, pass_count, err, err_size)) != VKB_OK ||
        (st = create_descriptors(&o, c, pass_count, err, err_size)) != VKB_OK ||
        (st = create_pipelines(&o, &rp, err, err_size)) != VKB_OK ||
        (st = record_commands(&o, &rp, out, err, err_size)) != VKB_OK ||
        (st = submit_and_time(&o, &rp, out, err, err_size)) != VKB_OK)
        goto done;
    read_back(&o, &rp, out);
done:
    plan_release(&rp, &o);
    return st;
}

vkb_status vkb_compile_case(vkb_context *ctx, int index, const wl_case *c, const uint32_t *spirv, size_t word_count,
                            const vkb_run_options *opt, vkb_compile_output *out, char *err, size_t err_size)
{
    vkb_pass one = {spirv, word_count};
    wl_case view; /* a case with "dispatches" compiles its first pass */
    case_dispatch_view(c, 0, &view);
    /* a kernel without a case (no bindings): the module's own resources give the descriptor set layouts */
    vkb_kernel_info declared;
    case_binding from_module[VKB_MAX_RESOURCES];
    if (view.binding_count == 0 && vkb_kernel_scan(spirv, word_count, view.entry, &declared, err, err_size) == VKB_OK) {
        memset(from_module, 0, sizeof from_module);
        for (int r = 0; r < declared.resource_count; r++) {
            from_module[r].set = declared.resources[r].set;
            from_module[r].binding = declared.resources[r].binding;
            from_module[r].kind = declared.resources[r].kind;
            snprintf(from_module[r].format, sizeof from_module[r].format, "%s", declared.resources[r].format);
        }
        view.bindings = from_module;
        view.binding_count = declared.resource_count;
    }
    run_objects o = {0};
    run_plan rp = {.ctx = ctx, .c = &view, .passes = &one, .pass_count = 1, .opt = opt, .compile_only = 1,
                   .bindings_from_module = view.bindings == from_module};
    vkb_run_output run;
    memset(out, 0, sizeof *out);
    vkb_status st = start_plan(&rp, &o, index, &run, err, err_size);
    snprintf(out->device_name, sizeof out->device_name, "%s", run.device_name);
    out->wave_size = run.wave_size;
    out->wave_size_required = run.wave_size_required;
    if (st != VKB_OK)
        goto done;
    if (!rp.d->info.pipeline_executable_properties) {
        snprintf(err, err_size, "%s does not expose VK_KHR_pipeline_executable_properties: it reports nothing about "
                 "a compiled pipeline", rp.d->info.name);
        st = VKB_ERR_UNSUPPORTED;
        goto done;
    }
    if ((st = create_device(&o, &rp, err, err_size)) != VKB_OK ||
        (st = create_set_layouts(&o, &view, 1, err, err_size)) != VKB_OK ||
        (st = create_pipelines(&o, &rp, err, err_size)) != VKB_OK)
        goto done;
    uint32_t reported = 0;
    vkb_read_statistics(o.device, o.pipelines[0], &out->stats, &out->stat_count, out->stats_note,
                        sizeof out->stats_note, &reported);
    if (reported && !rp.required)
        out->wave_size = reported;
    vkb_read_representations(o.device, o.pipelines[0], &out->representations, &out->representation_count);
done:
    plan_release(&rp, &o);
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
