/*
 * backend/vk_compile.c — what a driver says about a compiled pipeline
 * (VK_KHR_pipeline_executable_properties): its statistics, its internal
 * representations (ACO's assembly on RADV), and counts of an AMD assembly
 * listing by instruction class.  backend/vulkan.c creates the pipelines;
 * vkb_compile_case there creates one without running it.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <volk.h>

#include "backend/backend.h"
#include "backend/vulkan_internal.h"

/* ------------------------------------------------------------- statistics */

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

/* The pipeline's executables (calloc'd, *n of them), or NULL with the reason in note. */
static VkPipelineExecutablePropertiesKHR *list_executables(VkDevice device, VkPipeline pipeline, uint32_t *n,
                                                           char *note, size_t note_size)
{
    VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipeline};
    *n = 0;
    VkResult r = vkGetPipelineExecutablePropertiesKHR(device, &pi, n, NULL);
    if (r != VK_SUCCESS || *n == 0) {
        snprintf(note, note_size, "not available: vkGetPipelineExecutablePropertiesKHR: %s",
                 r != VK_SUCCESS ? vkb_result_name(r) : "no executables");
        return NULL;
    }
    VkPipelineExecutablePropertiesKHR *props = calloc(*n, sizeof *props);
    if (!props)
        return NULL;
    for (uint32_t i = 0; i < *n; i++)
        props[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
    if (vkGetPipelineExecutablePropertiesKHR(device, &pi, n, props) < 0) {
        free(props);
        return NULL;
    }
    return props;
}

void vkb_read_statistics(VkDevice device, VkPipeline pipeline, vkb_statistic **stats, int *count, char *note,
                         size_t note_size, uint32_t *reported_wave)
{
    uint32_t n = 0;
    VkPipelineExecutablePropertiesKHR *props = list_executables(device, pipeline, &n, note, note_size);
    if (!props)
        return;
    if (n)
        *reported_wave = props[0].subgroupSize;
    for (uint32_t e = 0; e < n; e++) {
        VkPipelineExecutableInfoKHR ei = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = pipeline, .executableIndex = e};
        uint32_t sn = 0;
        if (vkGetPipelineExecutableStatisticsKHR(device, &ei, &sn, NULL) != VK_SUCCESS || !sn)
            continue;
        VkPipelineExecutableStatisticKHR *s = calloc(sn, sizeof *s);
        vkb_statistic *grown = realloc(*stats, ((size_t)*count + sn) * sizeof *grown);
        if (!s || !grown) {
            free(s);
            if (grown)
                *stats = grown;
            break;
        }
        *stats = grown;
        for (uint32_t i = 0; i < sn; i++)
            s[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
        if (vkGetPipelineExecutableStatisticsKHR(device, &ei, &sn, s) >= 0) {
            for (uint32_t i = 0; i < sn; i++) {
                vkb_statistic *t = &(*stats)[(*count)++];
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
    if (!*count)
        snprintf(note, note_size, "not available: the driver lists no statistics");
}

/* ------------------------------------------------------------- internal representations */

void vkb_read_representations(VkDevice device, VkPipeline pipeline, vkb_representation **reps, int *count)
{
    uint32_t n = 0;
    char note[192];
    VkPipelineExecutablePropertiesKHR *props = list_executables(device, pipeline, &n, note, sizeof note);
    if (!props)
        return;
    for (uint32_t e = 0; e < n; e++) {
        VkPipelineExecutableInfoKHR ei = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = pipeline, .executableIndex = e};
        uint32_t rn = 0;
        if (vkGetPipelineExecutableInternalRepresentationsKHR(device, &ei, &rn, NULL) != VK_SUCCESS || !rn)
            continue;
        VkPipelineExecutableInternalRepresentationKHR *r = calloc(rn, sizeof *r);
        if (!r)
            break;
        for (uint32_t i = 0; i < rn; i++)
            r[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR;
        /* two calls per the extension: the sizes first, then the text into buffers of those sizes */
        if (vkGetPipelineExecutableInternalRepresentationsKHR(device, &ei, &rn, r) < 0) {
            free(r);
            continue;
        }
        for (uint32_t i = 0; i < rn; i++)
            r[i].pData = r[i].isText && r[i].dataSize ? calloc(1, r[i].dataSize + 1) : NULL;
        VkResult got = vkGetPipelineExecutableInternalRepresentationsKHR(device, &ei, &rn, r);
        vkb_representation *grown = realloc(*reps, ((size_t)*count + rn) * sizeof *grown);
        if (grown)
            *reps = grown;
        for (uint32_t i = 0; i < rn; i++) {
            if (got >= 0 && grown && r[i].pData) {
                vkb_representation *t = &(*reps)[(*count)++];
                memset(t, 0, sizeof *t);
                snprintf(t->executable, sizeof t->executable, "%.63s", props[e].name);
                snprintf(t->name, sizeof t->name, "%.63s", r[i].name);
                snprintf(t->description, sizeof t->description, "%.191s", r[i].description);
                t->text = r[i].pData;
            } else {
                free(r[i].pData);
            }
        }
        free(r);
    }
    free(props);
}

void vkb_compile_output_free(vkb_compile_output *out)
{
    if (!out)
        return;
    free(out->stats);
    for (int i = 0; i < out->representation_count; i++)
        free(out->representations[i].text);
    free(out->representations);
    memset(out, 0, sizeof *out);
}

const vkb_statistic *vkb_compile_statistic(const vkb_compile_output *out, const char *name)
{
    for (int i = 0; i < out->stat_count; i++)
        if (strcmp(out->stats[i].name, name) == 0)
            return &out->stats[i];
    return NULL;
}

/* ------------------------------------------------------------- AMD assembly by class */

/* AMD mnemonics by prefix, the first match wins (so the specific before the general): the class of the unit that
 * runs them, in wavelab's classes (isa/ops.def) so the two listings count alike.  Writes of exec are found
 * before this table (by mnemonic or destination), whatever the instruction. */
static const struct {
    const char *prefix;
    isa_class cls;
} asm_classes[] = {
    {"s_buffer_load", ISA_CLASS_SMEM},   {"s_load", ISA_CLASS_SMEM},       {"s_buffer_store", ISA_CLASS_SMEM},
    {"s_store", ISA_CLASS_SMEM},         {"s_scratch_", ISA_CLASS_SMEM},   {"s_dcache", ISA_CLASS_SMEM},
    {"s_memtime", ISA_CLASS_SMEM},       {"s_memrealtime", ISA_CLASS_SMEM},
    {"buffer_", ISA_CLASS_VMEM},         {"tbuffer_", ISA_CLASS_VMEM},     {"global_", ISA_CLASS_VMEM},
    {"flat_", ISA_CLASS_VMEM},           {"scratch_", ISA_CLASS_VMEM},     {"image_", ISA_CLASS_VMEM},
    /* cross-lane: through the LDS crossbar or a lane select, not a shared-memory access */
    {"ds_bpermute", ISA_CLASS_XLANE},    {"ds_permute", ISA_CLASS_XLANE},  {"ds_swizzle", ISA_CLASS_XLANE},
    {"v_permlane", ISA_CLASS_XLANE},     {"v_readlane", ISA_CLASS_XLANE},  {"v_writelane", ISA_CLASS_XLANE},
    {"v_readfirstlane", ISA_CLASS_XLANE},
    {"ds_", ISA_CLASS_LDS},
    {"s_cbranch", ISA_CLASS_BRANCH},     {"s_branch", ISA_CLASS_BRANCH},   {"s_setpc", ISA_CLASS_BRANCH},
    {"s_endpgm", ISA_CLASS_BRANCH},
    {"s_barrier", ISA_CLASS_SYNC},       {"s_waitcnt", ISA_CLASS_SYNC},
    {"v_", ISA_CLASS_VALU},              {"s_", ISA_CLASS_SALU},
};

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int vkb_asm_class(const char *mnemonic, const char *operands)
{
    const char *d = operands ? operands : "";
    while (*d == ' ' || *d == '\t')
        d++;
    size_t n = strcspn(d, ", \t"); /* the destination: the first operand */
    int writes_exec = mnemonic[0] == 's' && ((n == 4 && !strncmp(d, "exec", 4)) ||
                                            (n == 7 && (!strncmp(d, "exec_lo", 7) || !strncmp(d, "exec_hi", 7))));
    if (writes_exec || strstr(mnemonic, "saveexec") || strstr(mnemonic, "wrexec"))
        return ISA_CLASS_EXEC;
    for (size_t i = 0; i < sizeof asm_classes / sizeof asm_classes[0]; i++)
        if (starts_with(mnemonic, asm_classes[i].prefix))
            return (int)asm_classes[i].cls;
    return -1;
}

void vkb_asm_count(const char *text, vkb_asm_counts *out)
{
    memset(out, 0, sizeof *out);
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[256];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        line = end ? end + 1 : NULL;
        char *comment = strchr(buf, ';'); /* the encoding and ACO's notes follow a ';' */
        if (comment)
            *comment = 0;
        char *m = buf;
        while (*m == ' ' || *m == '\t')
            m++;
        size_t n = 0;
        while (islower((unsigned char)m[n]) || isdigit((unsigned char)m[n]) || m[n] == '_')
            n++;
        /* labels ("BB3:"), blank lines and anything that is not a lower-case mnemonic */
        if (n == 0 || !(m[n] == 0 || m[n] == ' ' || m[n] == '\t'))
            continue;
        char mnemonic[64];
        snprintf(mnemonic, sizeof mnemonic, "%.*s", (int)(n < sizeof mnemonic ? n : sizeof mnemonic - 1), m);
        if (strcmp(mnemonic, "s_code_end") == 0) /* padding after the program: never runs */
            continue;
        int cls = vkb_asm_class(mnemonic, m + n);
        out->instructions++;
        if (cls < 0) {
            out->unclassified++;
            continue;
        }
        out->by_class[cls]++;
        if (cls == ISA_CLASS_SMEM && strstr(mnemonic, "load"))
            out->scalar_loads++;
        if (cls == ISA_CLASS_VMEM && (strstr(mnemonic, "load") || starts_with(mnemonic, "image_sample") ||
                                      starts_with(mnemonic, "image_gather")))
            out->vector_loads++;
    }
}
