/*
 * backend/backend.h — the Vulkan backend: runs a case's kernel (the same
 * SPIR-V the simulator lowers) on a real Vulkan device and reads every binding
 * back, with timestamps and the driver's pipeline statistics.
 *
 * Vulkan is reached through volk: there is no link-time dependency on the
 * loader.  On a machine without one, vkb_context_create() returns
 * VKB_ERR_NO_LOADER and everything else in wavelab keeps working.
 *
 * This header does not include the Vulkan headers: flags are plain integers
 * with the same bit values as Vulkan's (VkSubgroupFeatureFlags,
 * VkShaderStageFlags), and VkResult is passed as an int.
 *
 * Ownership: every _create has its _destroy; outputs that hold memory are
 * released with their _free function.  Error messages are written into a
 * caller buffer (err, err_size) and always name the Vulkan call and the
 * VkResult when a Vulkan call failed.
 */
#ifndef WAVELAB_BACKEND_H
#define WAVELAB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "case/case.h"
#include "isa/isa.h"

typedef enum vkb_status {
    VKB_OK = 0,
    VKB_ERR_NO_LOADER,   /* no Vulkan loader on this machine (volkInitialize failed) */
    VKB_ERR_NO_DEVICE,   /* no physical device, or none matches the requested one */
    VKB_ERR_VULKAN,      /* a Vulkan call failed: the message names the call and the VkResult */
    VKB_ERR_DEVICE_LOST, /* VK_ERROR_DEVICE_LOST while running */
    VKB_ERR_TIMEOUT,     /* the dispatch did not finish in time; the device was abandoned */
    VKB_ERR_WAVE_SIZE,   /* the device cannot run the requested wave (subgroup) size */
    VKB_ERR_UNSUPPORTED, /* the device lacks an operation, feature, format or limit the case needs */
    VKB_ERR_INPUT,       /* the case or the SPIR-V is malformed, or they do not match each other */
    VKB_ERR_NOMEM
} vkb_status;

/* A short fixed description of a status ("no Vulkan loader", ...). */
const char *vkb_status_str(vkb_status s);

/* The name of a VkResult value ("VK_ERROR_DEVICE_LOST"), or "VkResult(N)" for unknown values
 * (the returned pointer then refers to a static buffer). */
const char *vkb_result_name(int vk_result);

/* Subgroup operation classes: bit values equal VkSubgroupFeatureFlagBits. */
#define VKB_SUBGROUP_OP_LIST(X)                    \
    X(BASIC, "basic", 0x001)                        \
    X(VOTE, "vote", 0x002)                          \
    X(ARITHMETIC, "arithmetic", 0x004)              \
    X(BALLOT, "ballot", 0x008)                      \
    X(SHUFFLE, "shuffle", 0x010)                    \
    X(SHUFFLE_RELATIVE, "shuffle_relative", 0x020)  \
    X(CLUSTERED, "clustered", 0x040)                \
    X(QUAD, "quad", 0x080)                          \
    X(PARTITIONED_NV, "partitioned_nv", 0x100)      \
    X(ROTATE, "rotate", 0x200)                      \
    X(ROTATE_CLUSTERED, "rotate_clustered", 0x400)

enum {
#define X(id, name, bit) VKB_SUBGROUP_##id = bit,
    VKB_SUBGROUP_OP_LIST(X)
#undef X
};

/* Writes the names of the set bits of `ops` (VKB_SUBGROUP_*), space separated, into buf. */
void vkb_subgroup_ops_format(uint32_t ops, char *buf, size_t size);
/* Writes the names of the set bits of a VkShaderStageFlags value ("compute fragment ...") into buf. */
void vkb_shader_stages_format(uint32_t stages, char *buf, size_t size);

/* ------------------------------------------------------------- context */

typedef struct vkb_context vkb_context;

/*
 * Loads the Vulkan loader, creates an instance and lists the physical
 * devices.  On success *out owns a new context (free with
 * vkb_context_destroy) — possibly with zero devices.  On failure *out is NULL
 * and err says why: VKB_ERR_NO_LOADER when no loader could be loaded.
 */
vkb_status vkb_context_create(vkb_context **out, char *err, size_t err_size);
void vkb_context_destroy(vkb_context *ctx);

/*
 * A context in which RADV's null device for GPU generation `family` ("navi21", "vega10", "gfx1100", ...) is
 * listed, and *index = that device.  RADV reads RADV_FORCE_FAMILY when an instance lists its devices, so this
 * sets it for the whole process first: VKB_ERR_INPUT when a context with another family is still open here.
 * VKB_ERR_NO_DEVICE when no null device appears (RADV absent, or a family it does not know).
 */
vkb_status vkb_context_create_null(const char *family, vkb_context **out, int *index, char *err, size_t err_size);

int vkb_device_count(const vkb_context *ctx);

/*
 * Descriptor arrays indexed by a run-time value, per kind of descriptor: the stem of its SPIR-V capabilities
 * (stem##ArrayDynamicIndexing, stem##ArrayNonUniformIndexing) and Vulkan features (shader##stem##...), the feature
 * struct that holds the dynamic one (Vulkan 1.0's; 1.2's for texel buffers; the NonUniform ones are all 1.2's),
 * what `wavelab devices` calls the kind, and the vkb_device_info fields.
 */
#define VKB_DESCRIPTOR_INDEXING_LIST(X)                                                                    \
    X(UniformBuffer, f2.features, "uniform buffers", uniform_buffer_dynamic, uniform_buffer_nonuniform)     \
    X(StorageBuffer, f2.features, "storage buffers", storage_buffer_dynamic, storage_buffer_nonuniform)     \
    X(SampledImage, f2.features, "sampled images", sampled_image_dynamic, sampled_image_nonuniform)         \
    X(StorageImage, f2.features, "storage images", storage_image_dynamic, storage_image_nonuniform)         \
    X(UniformTexelBuffer, v12, "uniform texel buffers", uniform_texel_dynamic, uniform_texel_nonuniform)    \
    X(StorageTexelBuffer, v12, "storage texel buffers", storage_texel_dynamic, storage_texel_nonuniform)

typedef struct vkb_device_info {
    char name[256];
    char type[16];              /* "discrete", "integrated", "virtual", "cpu", "other" */
    uint32_t vendor_id, device_id;
    char driver_name[256];      /* VkPhysicalDeviceDriverProperties; "" when not exposed */
    char driver_info[256];
    uint32_t api_version;       /* VK_MAKE_API_VERSION packed */
    uint32_t driver_version;    /* vendor specific packing */
    int usable;                 /* 0 when the device (or the loader) is older than Vulkan 1.1 */

    /* subgroups */
    uint32_t subgroup_size;          /* the default size */
    uint32_t min_subgroup_size, max_subgroup_size; /* equal to subgroup_size without size control */
    int subgroup_size_control;       /* VK_EXT_subgroup_size_control / Vulkan 1.3 feature */
    int compute_full_subgroups;      /* REQUIRE_FULL_SUBGROUPS allowed for compute */
    uint32_t required_subgroup_size_stages; /* VkShaderStageFlags */
    uint32_t max_compute_workgroup_subgroups;
    uint32_t subgroup_stages;        /* VkShaderStageFlags with subgroup operations */
    uint32_t subgroup_ops;           /* VKB_SUBGROUP_* */
    int subgroup_extended_types;     /* subgroup operations on 8/16/64-bit integers and float16 */

    /* arithmetic types and storage */
    int float16, float64, int8, int16, int64;
    int int64_atomics;               /* shaderBufferInt64Atomics */
    int float32_atomic_add;          /* VK_EXT_shader_atomic_float shaderBufferFloat32AtomicAdd */
    int image_int64;                 /* VK_EXT_shader_image_atomic_int64 shaderImageInt64Atomics */
    int storage_image_multisample;   /* shaderStorageImageMultisample */
    int workgroup_explicit_layout;   /* VK_KHR_workgroup_memory_explicit_layout: Workgroup blocks, and their */
    int workgroup_explicit_layout_8bit, workgroup_explicit_layout_16bit; /* 8- and 16-bit access */
    int derivative_group_quads, derivative_group_linear; /* VK_NV_compute_shader_derivatives: derivatives and
                                                          * implicit-LOD sampling in compute, each grouping */
    int storage_buffer_8bit, uniform_and_storage_buffer_8bit, storage_push_constant_8;
    int storage_buffer_16bit, uniform_and_storage_buffer_16bit, storage_push_constant_16;
    int variable_pointers_storage_buffer, variable_pointers; /* VariablePointers(StorageBuffer) */
    int vulkan_memory_model;
    int sampler_mirror_clamp_to_edge; /* Vulkan 1.2 samplerMirrorClampToEdge */
    int image_cube_array;            /* imageCubeArray: samplerCubeArray, imageCubeArray in a kernel */
    /* descriptor arrays indexed by a run-time value, dynamically uniform and NonUniform, per kind */
#define X(stem, src, name, dynamic, nonuniform) int dynamic, nonuniform;
    VKB_DESCRIPTOR_INDEXING_LIST(X)
#undef X
    int runtime_descriptor_array;    /* arrays of descriptors without a length (Vulkan 1.2) */

    /* limits */
    uint32_t max_compute_shared_memory_size;
    uint32_t max_compute_workgroup_invocations;
    uint32_t max_compute_workgroup_size[3];
    uint32_t max_compute_workgroup_count[3];
    uint32_t max_push_constants_size;
    uint32_t max_storage_buffer_range, max_uniform_buffer_range, max_texel_buffer_elements;
    uint64_t min_storage_buffer_offset_alignment, min_uniform_buffer_offset_alignment; /* a descriptor's offset */

    /* timing and counters */
    uint32_t compute_queue_family;
    float timestamp_period;          /* nanoseconds per tick */
    uint32_t timestamp_valid_bits;   /* on the compute queue family; 0 = no timestamps there */
    int pipeline_executable_properties; /* VK_KHR_pipeline_executable_properties usable */
    int performance_query;           /* VK_KHR_performance_query present */
    uint32_t performance_counter_count; /* counters listed for the compute queue family */

    /* RADV's null device (listed when RADV_FORCE_FAMILY names a GPU generation): it compiles pipelines for that
     * generation and cannot run them, so wavelab never dispatches on it (vkb_compile_case only) */
    int compile_only;
} vkb_device_info;

/* Whether the device runs compute at one subgroup size only (lavapipe: 8): a run there never requires it. */
static inline int vkb_one_subgroup_size(const vkb_device_info *info)
{
    return info->min_subgroup_size == info->max_subgroup_size;
}

/* Copies the properties of device `index` into *info.  Returns VKB_ERR_NO_DEVICE for a bad index. */
vkb_status vkb_device_info_get(const vkb_context *ctx, int index, vkb_device_info *info);

/*
 * Chooses a device: NULL or "" = the first one that can run work (not a compile-only device, unless every one is); a decimal number = that
 * index; anything else = the first device whose name contains it (ASCII case
 * insensitive).  Returns VKB_ERR_NO_DEVICE with a message listing the
 * devices when nothing matches.
 */
vkb_status vkb_device_find(const vkb_context *ctx, const char *spec, int *index, char *err, size_t err_size);

/* VKB_OK when work may be dispatched on the device; VKB_ERR_UNSUPPORTED (the device cannot run a case: exit 3)
 * with the reason for a compile-only device.  vkb_run_passes and vkb_probe_create ask it first. */
vkb_status vkb_device_dispatches(const vkb_device_info *info, char *err, size_t err_size);

/* ------------------------------------------------------------- kernels */

#define VKB_MAX_RESOURCES 64
#define VKB_MAX_CAPABILITIES 64
#define VKB_MAX_EXTENSIONS 16

typedef struct vkb_resource {
    uint32_t set, binding;
    uint32_t count;           /* descriptors: 1, or a descriptor array's length (0: a runtime array) */
    case_kind kind;
    int used;                 /* loaded, stored, accessed or passed to a function in some function body */
    char format[16];          /* texel buffers: the SPIR-V image format name ("r32ui"), "" for Unknown */
    char name[48];
    /* images (storage, sampled, combined image sampler): as the kernel declares them */
    uint32_t image_dim;       /* SpvDim: 0 1D, 1 2D, 2 3D, 3 Cube */
    int image_arrayed;        /* an arrayed type (texture2DArray, ...): the view is an array view */
    uint32_t image_format;    /* SpvImageFormat; 0 (Unknown) for sampled images and format-less storage images */
} vkb_resource;

/* What a kernel needs from a device, read from its SPIR-V. */
typedef struct vkb_kernel_info {
    char entry[64];
    uint32_t spirv_version;           /* header word 1 (0x00010600: SPIR-V 1.6) */
    uint32_t vulkan_minor;            /* the oldest Vulkan 1.x that takes that version (isa_spirv_vulkan_minor) */
    uint32_t local_size[3];
    uint32_t capabilities[VKB_MAX_CAPABILITIES]; /* SpvCapability values declared */
    int capability_count;
    char extensions[VKB_MAX_EXTENSIONS][64]; /* OpExtension names ("SPV_KHR_...") */
    int extension_count;
    uint32_t subgroup_ops;            /* VKB_SUBGROUP_* implied by the capabilities */
    int subgroup_extended_types;      /* a subgroup operation works on an 8/16/64-bit integer or f16 */
    uint32_t push_constant_bytes;     /* bytes the push-constant block spans; 0 when none */
    uint32_t shared_bytes;            /* Workgroup variables laid out as the simulator lays them out
                                       * (spv_place_variable; a driver may pack them differently) */
    vkb_resource resources[VKB_MAX_RESOURCES];
    int resource_count;
} vkb_kernel_info;

/*
 * Reads the entry point (`entry`, or the only GLCompute entry point when that
 * name is not found / NULL), its workgroup size, capabilities, descriptor
 * resources and push-constant size from SPIR-V.  Returns VKB_ERR_INPUT with
 * the word offset on malformed input.
 */
vkb_status vkb_kernel_scan(const uint32_t *words, size_t word_count, const char *entry,
                           vkb_kernel_info *out, char *err, size_t err_size);

/*
 * Says whether device `index` can run this kernel at this wave size (0 = the
 * device's default).  Returns VKB_OK, VKB_ERR_WAVE_SIZE (the message names the
 * sizes the device supports) or VKB_ERR_UNSUPPORTED (the message names the
 * missing operation, feature or limit).  `c` may be NULL (bindings unchecked).
 */
vkb_status vkb_check_support(const vkb_context *ctx, int index, const vkb_kernel_info *kernel,
                             const wl_case *c, uint32_t wave_size, char *err, size_t err_size);

/*
 * Copies `words` (a validated module) into a new array (*out, free it) with
 * OpExtension "SPV_KHR_maximal_reconvergence" after the existing extensions and
 * OpExecutionMode <entry> MaximallyReconvergesKHR after the existing execution
 * modes (backend/reconverge.c); either is left out when already present.
 * VKB_ERR_INPUT names the word offset of a malformed module or the missing
 * GLCompute entry point.
 */
vkb_status vkb_spirv_add_maximal_reconvergence(const uint32_t *words, size_t count, const char *entry,
                                               uint32_t **out, size_t *out_count, char *err, size_t err_size);

/* ------------------------------------------------------------- running */

typedef struct vkb_run_options {
    uint32_t wave_size;   /* required subgroup size; 0 = the case's subgroup_size, else the device's default */
    uint32_t repeat;      /* timed dispatches; 0 = 1 */
    uint32_t warmup;      /* untimed dispatches before them */
    uint32_t timeout_ms;  /* per dispatch fence wait; 0 = 10000 */
    int robust_access;    /* robustBufferAccess2 (also when the case says "robust_access"); VKB_ERR_UNSUPPORTED
                           * when the device lacks it */
    int maximal_reconvergence; /* add the MaximallyReconvergesKHR execution mode to every pass and enable
                                * VK_KHR_shader_maximal_reconvergence; VKB_ERR_UNSUPPORTED when the device lacks it */
} vkb_run_options;

typedef struct vkb_statistic {
    char executable[64];   /* the pipeline executable's name */
    char name[64];
    char description[192];
    char value[48];        /* formatted */
    double number;         /* the value as a number (booleans 0/1) */
} vkb_statistic;

typedef struct vkb_run_output {
    char device_name[256];
    uint32_t wave_size;          /* the subgroup size the pipeline ran with */
    int wave_size_required;      /* 1 when set as a required subgroup size */
    int full_subgroups;          /* 1 when REQUIRE_FULL_SUBGROUPS was set */
    char memory_note[128];       /* which memory the buffers live in */

    int binding_count;
    uint8_t **data;              /* final bytes of each case binding, same order and sizes as c->bindings */

    /* timing: from timestamps around each dispatch */
    int timing_available;
    char timing_note[192];       /* why not, when not */
    uint32_t sample_count;
    double *samples_us;          /* one per timed dispatch */
    double median_us, min_us, max_us;
    double host_median_us;       /* submit to fence signalled, on the host clock */

    /* per pass (a case with "dispatches"; one pass otherwise), from timestamps around each dispatch: sample k's
     * pass p ran from pass_begin_us[k * pass_count + p] to pass_end_us[...], microseconds on the device's
     * timestamp clock counted from the first timed sample's first timestamp (submissions of one queue share it) */
    int pass_count;
    double *pass_begin_us, *pass_end_us; /* NULL when timing is not available */

    /* driver statistics (VK_KHR_pipeline_executable_properties; of the first pass's pipeline) */
    int stat_count;
    vkb_statistic *stats;
    char stats_note[192];        /* "not available: ..." when stat_count is 0 */
    char counters_note[192];     /* VK_KHR_performance_query */
} vkb_run_output;

/*
 * Runs one case on device `index`: creates a logical device, one buffer per
 * case binding (host-visible coherent memory, initial contents from the
 * case; texel buffers through a VkBufferView of the binding's format),
 * descriptor sets from the bindings' set/binding/kind, push constants, and a
 * compute pipeline from `spirv` with the required subgroup size.  Runs
 * warmup + repeat dispatches, re-uploading the initial contents before each,
 * and reads back every binding after the last.
 *
 * Returns VKB_OK and fills *out (release with vkb_run_output_free, whatever
 * the return value).  VKB_ERR_WAVE_SIZE / VKB_ERR_UNSUPPORTED mean the device
 * cannot run this case; VKB_ERR_INPUT that the case and kernel disagree.
 */
vkb_status vkb_run_case(vkb_context *ctx, int index, const wl_case *c, const uint32_t *spirv,
                        size_t word_count, const vkb_run_options *opt, vkb_run_output *out,
                        char *err, size_t err_size);

/* One pass's kernel for vkb_run_passes. */
typedef struct vkb_pass {
    const uint32_t *spirv;
    size_t word_count;
} vkb_pass;

/*
 * Runs the passes of a case with "dispatches" (pass i: case_dispatch_view(c, i),
 * with passes[i]'s SPIR-V), or the one pass of a case without (pass_count 1):
 * one command buffer holds the initial copies, then every pass's dispatch
 * with a timestamp before and after it and a compute-to-compute barrier
 * (shader writes made visible to shader reads and writes) between passes.
 * out->data holds the bindings after the last pass; samples_us the first
 * pass's start to the last pass's end; pass_begin_us / pass_end_us each pass.
 * Otherwise as vkb_run_case.
 */
vkb_status vkb_run_passes(vkb_context *ctx, int index, const wl_case *c, const vkb_pass *passes, int pass_count,
                          const vkb_run_options *opt, vkb_run_output *out, char *err, size_t err_size);

void vkb_run_output_free(vkb_run_output *out);

/*
 * A device run's results across a pipe (backend/vk_pipe.c), for `wavelab check`'s
 * device child: fixed-size records (a vkb_device_info, a small header) and
 * the run's output of case c (binding i is c->bindings[i].size bytes).  Both ends must
 * be the same executable.  Each returns 1, or 0 when the pipe broke or
 * closed early (the child died) or a record has another size; release a
 * received output with vkb_run_output_free either way.
 */
int vkb_pipe_send(int fd, const void *record, size_t size);
int vkb_pipe_receive(int fd, void *record, size_t size);
int vkb_pipe_send_output(int fd, const vkb_run_output *out, const wl_case *c);
int vkb_pipe_receive_output(int fd, vkb_run_output *out);

/* ------------------------------------------------------------- compiling only (backend/vk_compile.c) */

/* One internal representation of a pipeline executable (ACO's "Assembly", NIR, ...), as the driver wrote it. */
typedef struct vkb_representation {
    char executable[64];
    char name[64];
    char description[192];
    char *text;                  /* NUL-terminated; binary representations are left out */
} vkb_representation;

typedef struct vkb_compile_output {
    char device_name[256];
    uint32_t wave_size;          /* the subgroup size the pipeline was compiled for */
    int wave_size_required;
    int stat_count;              /* VK_KHR_pipeline_executable_properties statistics of the first pass */
    vkb_statistic *stats;
    char stats_note[192];        /* "not available: ..." when stat_count is 0 */
    int representation_count;
    vkb_representation *representations;
} vkb_compile_output;

/*
 * Compiles the first pass of a case on device `index` and reads what the driver says about the result, without
 * allocating a buffer or submitting anything (RADV's null device can do nothing else): a logical device, the
 * descriptor set layouts of the case's bindings, the push-constant range, and a compute pipeline created with
 * the required subgroup size and VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
 * CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR.  Statuses as vkb_run_case; release *out with
 * vkb_compile_output_free whatever the return value.
 */
vkb_status vkb_compile_case(vkb_context *ctx, int index, const wl_case *c, const uint32_t *spirv, size_t word_count,
                            const vkb_run_options *opt, vkb_compile_output *out, char *err, size_t err_size);
void vkb_compile_output_free(vkb_compile_output *out);

/* Static counts of an AMD assembly listing (ACO's "Assembly" representation), in wavelab's instruction classes. */
typedef struct vkb_asm_counts {
    uint32_t instructions;             /* every instruction but the s_code_end padding */
    uint32_t by_class[ISA_CLASS_COUNT];
    uint32_t unclassified;             /* mnemonics the table does not know */
    uint32_t scalar_loads, vector_loads; /* SMEM loads; VMEM loads, samples and gathers */
} vkb_asm_counts;
void vkb_asm_count(const char *text, vkb_asm_counts *out);
/* The isa_class of one AMD instruction (mnemonic, and its operands for writes of exec), or -1 when unknown. */
int vkb_asm_class(const char *mnemonic, const char *operands);

/* A statistic of a compile by name ("VGPRs"), or NULL. */
const vkb_statistic *vkb_compile_statistic(const vkb_compile_output *out, const char *name);

/* ------------------------------------------------------------- microbenchmarks (backend/probe.c) */

/*
 * A probe session: one logical device kept for many small timed dispatches
 * (`wavelab probe`).  Unlike vkb_run_case it keeps buffers in device-local
 * memory between dispatches (staging copies in and out), so a sweep can warm
 * a cache and then time loads that hit it, and it records a whole sequence of
 * dispatches into one command buffer, a timestamp pair around each, so the
 * device never idles (and drops its clock) between a warm-up and the timing.
 *
 * Kernels see the session's buffer slots 0..VKB_PROBE_SLOTS-1 as storage
 * buffers at set 0, binding = slot, and up to VKB_PROBE_PUSH_WORDS 32-bit
 * push constants.
 */
#define VKB_PROBE_SLOTS 3
#define VKB_PROBE_PUSH_WORDS 8

typedef struct vkb_probe vkb_probe;

vkb_status vkb_probe_create(vkb_context *ctx, int index, vkb_probe **out, char *err, size_t err_size);
void vkb_probe_destroy(vkb_probe *p);

/* Compute units as a device extension reports them: VK_NV_shader_sm_builtins (shaderSMCount) or
 * VK_AMD_shader_core_properties (engines x arrays x CUs per array); 0 when neither is present.
 * *extension names the one used ("" when none). */
uint32_t vkb_probe_compute_units(const vkb_probe *p, const char **extension);

/* (Re)creates buffer `slot` of `bytes` (device-local when the device has such memory), filled with `init`
 * (NULL: zeros). */
vkb_status vkb_probe_buffer(vkb_probe *p, int slot, size_t bytes, const void *init, char *err, size_t err_size);
/* Copies the first `bytes` of buffer `slot` into dst. */
vkb_status vkb_probe_read(vkb_probe *p, int slot, void *dst, size_t bytes, char *err, size_t err_size);

/* Makes `spirv` the session's kernel (replacing the last), with required subgroup size `wave` (0: the device's
 * default; VKB_ERR_WAVE_SIZE when the device cannot require it). */
vkb_status vkb_probe_kernel(vkb_probe *p, const uint32_t *spirv, size_t word_count, uint32_t wave, char *err,
                            size_t err_size);

typedef struct vkb_probe_dispatch {
    uint32_t groups[3];
    uint32_t push[VKB_PROBE_PUSH_WORDS];
} vkb_probe_dispatch;

/* Runs `count` dispatches of the kernel in order, in one submission, with a barrier (shader writes visible
 * to shader reads) between them; us[i] = dispatch i's time from GPU timestamps, microseconds.
 * VKB_ERR_UNSUPPORTED when the device has no timestamps on its compute queue. */
vkb_status vkb_probe_run(vkb_probe *p, const vkb_probe_dispatch *d, int count, double *us, char *err,
                         size_t err_size);

#endif
