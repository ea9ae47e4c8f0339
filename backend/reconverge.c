/*
 * backend/reconverge.c — asking a device for maximal reconvergence.
 *
 * The simulator reconverges lanes at every merge block (docs/reconvergence.md),
 * which is what SPV_KHR_maximal_reconvergence guarantees.  Plain Vulkan SPIR-V
 * promises much less, and an NVIDIA H100 does not reconverge after a loop break
 * without it.  glslang 12 cannot emit the execution mode and SPIRV-Tools 2023.1
 * does not know it, so the backend adds it to the validated words itself, just
 * before the shader module is created: one OpExtension in the extension section
 * and one OpExecutionMode for the entry point after the existing ones.  Nothing
 * else changes, so the kernel the device runs is the kernel as written plus the
 * guarantee.
 */
#include "backend/backend.h"
#include "isa/spirv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SPV_KHR_maximal_reconvergence's execution mode (newer than the SPIR-V headers wavelab builds with). */
enum { EXECUTION_MODE_MAXIMALLY_RECONVERGES = 6023 };

static const char extension_name[] = "SPV_KHR_maximal_reconvergence";

/* A literal string's words: NUL-terminated, zero-padded to a word boundary. */
static uint32_t string_words(const char *s) { return (uint32_t)(strlen(s) / 4 + 1); }

static int string_is(const spv_inst *in, uint32_t k, const char *s)
{
    const char *t = spv_string(in, k, NULL);
    return t && strcmp(t, s) == 0;
}

vkb_status vkb_spirv_add_maximal_reconvergence(const uint32_t *words, size_t count, const char *entry,
                                               uint32_t **out, size_t *out_count, char *err, size_t err_size)
{
    *out = NULL;
    *out_count = 0;
    if (spv_header_problem(words, count)) {
        snprintf(err, err_size, "maximal reconvergence: not a SPIR-V module");
        return VKB_ERR_INPUT;
    }
    /* one walk: where the extension goes, which id the entry point has, where its modes end */
    size_t ext_at = 0, mode_end = 0, entries_end = 0;
    uint32_t entry_id = 0;
    int has_extension = 0, has_mode = 0;
    spv_iter it;
    spv_inst in;
    spv_step step;
    spv_iter_init(&it, words, count, SPV_HEADER_WORDS);
    while ((step = spv_next(&it, &in)) == SPV_STEP_INST) {
        size_t after = in.word + in.wc;
        uint32_t op = in.op;
        if (op == SpvOpCapability || op == SpvOpExtension)
            ext_at = after;             /* after capabilities and the existing extensions */
        if (op == SpvOpExtension && string_is(&in, 0, extension_name))
            has_extension = 1;
        if (op == SpvOpEntryPoint && in.no >= 3 && in.o[0] == SpvExecutionModelGLCompute &&
            string_is(&in, 2, entry))
            entry_id = in.o[1];
        if (op == SpvOpEntryPoint)
            entries_end = after;
        if (op == SpvOpExecutionMode || op == SpvOpExecutionModeId) {
            mode_end = after;
            if (in.no >= 2 && in.o[0] == entry_id && in.o[1] == EXECUTION_MODE_MAXIMALLY_RECONVERGES)
                has_mode = 1;
        }
        if (op != SpvOpCapability && op != SpvOpExtension && op != SpvOpExtInstImport && op != SpvOpMemoryModel &&
            op != SpvOpEntryPoint && op != SpvOpExecutionMode && op != SpvOpExecutionModeId)
            break;                      /* past the section the two instructions belong to */
    }
    if (step == SPV_STEP_BAD) {
        snprintf(err, err_size, "maximal reconvergence: word %zu: instruction runs past the end", in.word);
        return VKB_ERR_INPUT;
    }
    if (!ext_at)
        ext_at = 5;                     /* no capability (invalid for Vulkan, but keep the layout): first */
    if (!entry_id) {
        snprintf(err, err_size, "maximal reconvergence: no GLCompute entry point named \"%s\"", entry);
        return VKB_ERR_INPUT;
    }
    if (!mode_end)
        mode_end = entries_end;         /* no execution mode yet: right after the entry points */
    uint32_t ext_len = has_extension ? 0 : 1 + string_words(extension_name);
    uint32_t mode_len = has_mode ? 0 : 3;
    size_t n = count + ext_len + mode_len;
    uint32_t *w = calloc(n, sizeof *w);
    if (!w) {
        snprintf(err, err_size, "out of memory");
        return VKB_ERR_NOMEM;
    }
    size_t o = 0;
    memcpy(w, words, ext_at * 4);
    o = ext_at;
    if (ext_len) {
        w[o] = (ext_len << 16) | SpvOpExtension;
        memcpy(w + o + 1, extension_name, strlen(extension_name)); /* rest stays zero: NUL and padding */
        o += ext_len;
    }
    memcpy(w + o, words + ext_at, (mode_end - ext_at) * 4);
    o += mode_end - ext_at;
    if (mode_len) {
        w[o++] = (3u << 16) | SpvOpExecutionMode;
        w[o++] = entry_id;
        w[o++] = EXECUTION_MODE_MAXIMALLY_RECONVERGES;
    }
    memcpy(w + o, words + mode_end, (count - mode_end) * 4);
    o += count - mode_end;
    *out = w;
    *out_count = o;
    return VKB_OK;
}
