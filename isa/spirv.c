/*
 * isa/spirv.c — the SPIR-V instruction iterator and module reader (isa/spirv.h).
 */
#include "isa/spirv.h"

#include <string.h>

void spv_iter_init(spv_iter *it, const uint32_t *words, size_t word_count, size_t start)
{
    it->w = words;
    it->n = words ? word_count : 0;
    it->at = start;
}

spv_step spv_next(spv_iter *it, spv_inst *in)
{
    if (it->at >= it->n)
        return SPV_STEP_END;
    uint32_t wc = it->w[it->at] >> 16;
    in->op = (SpvOp)(it->w[it->at] & 0xffff);
    in->wc = wc;
    in->word = it->at;
    if (wc == 0 || wc > it->n - it->at) {
        in->o = NULL;
        in->no = 0;
        return SPV_STEP_BAD;
    }
    in->o = it->w + it->at + 1;
    in->no = wc - 1;
    it->at += wc;
    return SPV_STEP_INST;
}

const char *spv_string(const spv_inst *in, uint32_t k, uint32_t *next)
{
    if (k >= in->no)
        return NULL;
    const char *s = (const char *)(in->o + k);
    size_t avail = (size_t)(in->no - k) * 4;
    const char *nul = memchr(s, 0, avail);
    if (!nul)
        return NULL;
    if (next)
        *next = k + (uint32_t)((size_t)(nul - s) / 4) + 1;
    return s;
}

const char *spv_header_problem(const uint32_t *words, size_t word_count)
{
    if (!words || word_count < SPV_HEADER_WORDS)
        return "too short to be a SPIR-V module";
    if (words[0] != SpvMagicNumber)
        return "not SPIR-V (bad magic number)";
    return NULL;
}
