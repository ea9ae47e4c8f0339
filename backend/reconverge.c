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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OP_EXTENSION = 10,
    OP_EXT_INST_IMPORT = 11,
    OP_MEMORY_MODEL = 14,
    OP_ENTRY_POINT = 15,
    OP_EXECUTION_MODE = 16,
    OP_CAPABILITY = 17,
    OP_EXECUTION_MODE_ID = 331,
    EXECUTION_MODE_MAXIMALLY_RECONVERGES = 6023,
    MODEL_GLCOMPUTE = 5,
};

static const char extension_name[] = "SPV_KHR_maximal_reconvergence";

/* A literal string's words: NUL-terminated, zero-padded to a word boundary. */
static uint32_t string_words(const char *s) { return (uint32_t)(strlen(s) / 4 + 1); }

static int string_equals(const uint32_t *words, uint32_t avail, const char *s)
{
    size_t n = strlen(s) + 1;
    if ((size_t)avail * 4 < n)
        return 0;
    return memcmp(words, s, n) == 0;
}

vkb_status vkb_spirv_add_maximal_reconvergence(const uint32_t *words, size_t count, const char *entry,
                                               uint32_t **out, size_t *out_count, char *err, size_t err_size)
{
    *out = NULL;
    *out_count = 0;
    if (count < 5 || words[0] != 0x07230203u) {
        snprintf(err, err_size, "maximal reconvergence: not a SPIR-V module");
        return VKB_ERR_INPUT;
    }
    /* one walk: where the extension goes, which id the entry point has, where its modes end */
    size_t ext_at = 0, mode_end = 0, entries_end = 0;
    uint32_t entry_id = 0;
    int has_extension = 0, has_mode = 0;
    for (size_t i = 5; i < count;) {
        uint32_t len = words[i] >> 16, op = words[i] & 0xffffu;
        if (len == 0 || i + len > count) {
            snprintf(err, err_size, "maximal reconvergence: word %zu: instruction runs past the end", i);
            return VKB_ERR_INPUT;
        }
        if (op == OP_CAPABILITY || op == OP_EXTENSION)
            ext_at = i + len;           /* after capabilities and the existing extensions */
        if (op == OP_EXTENSION && string_equals(words + i + 1, len - 1, extension_name))
            has_extension = 1;
        if (op == OP_ENTRY_POINT && len >= 4 && words[i + 1] == MODEL_GLCOMPUTE &&
            string_equals(words + i + 3, len - 3, entry)) {
            entry_id = words[i + 2];
        }
        if (op == OP_ENTRY_POINT)
            entries_end = i + len;
        if (op == OP_EXECUTION_MODE || op == OP_EXECUTION_MODE_ID) {
            mode_end = i + len;
            if (len >= 3 && words[i + 1] == entry_id && words[i + 2] == EXECUTION_MODE_MAXIMALLY_RECONVERGES)
                has_mode = 1;
        }
        if (op != OP_CAPABILITY && op != OP_EXTENSION && op != OP_EXT_INST_IMPORT && op != OP_MEMORY_MODEL &&
            op != OP_ENTRY_POINT && op != OP_EXECUTION_MODE && op != OP_EXECUTION_MODE_ID)
            break;                      /* past the section the two instructions belong to */
        i += len;
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
        w[o] = (ext_len << 16) | OP_EXTENSION;
        memcpy(w + o + 1, extension_name, strlen(extension_name)); /* rest stays zero: NUL and padding */
        o += ext_len;
    }
    memcpy(w + o, words + ext_at, (mode_end - ext_at) * 4);
    o += mode_end - ext_at;
    if (mode_len) {
        w[o++] = (3u << 16) | OP_EXECUTION_MODE;
        w[o++] = entry_id;
        w[o++] = EXECUTION_MODE_MAXIMALLY_RECONVERGES;
    }
    memcpy(w + o, words + mode_end, (count - mode_end) * 4);
    o += count - mode_end;
    *out = w;
    *out_count = o;
    return VKB_OK;
}
