/*
 * isa/lower_spec.c — specialization constants set by a case.
 *
 * A case names each constant by SpecId or OpName.  The resolution and the
 * range check happen here once; the result is the module with the chosen
 * values written as the constants' defaults (what the lowering and the
 * Vulkan backend's own scan read) and the map a VkSpecializationInfo needs
 * (what the device's pipeline gets, with the unspecialised module).  The
 * SpecConstantOp expressions that depend on them are evaluated by the
 * lowering (lower_const_bits), wherever a constant is needed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "isa/isa.h"
#include "isa/spirv.h"

typedef struct spec_const {
    uint32_t id, word, type, spec_id; /* spec_id + 1; 0: not decorated */
    const char *name;
} spec_const;

static isa_status spec_fail(char *err, size_t err_size, const char *key, const char *why)
{
    if (err && err_size)
        snprintf(err, err_size, "specialization \"%.60s\": %s", key, why);
    return ISA_ERR_INVALID;
}

static bool key_is_id(const char *key, uint32_t *id)
{
    if (!key[0] || strlen(key) > 10)
        return false;
    uint64_t v = 0;
    for (const char *k = key; *k; k++) {
        if (*k < '0' || *k > '9')
            return false;
        v = v * 10 + (uint64_t)(*k - '0');
    }
    if (v > UINT32_MAX)
        return false;
    *id = (uint32_t)v;
    return true;
}

/* The value's bits for a constant of type op/width/signedness, or why it does not fit. */
static const char *value_bits(const isa_spec_value *v, SpvOp top, uint32_t width, bool is_signed, uint64_t *bits)
{
    if (top == SpvOpTypeBool) {
        if (!v->is_bool)
            return "the constant is a bool; expected true or false";
        *bits = v->flag;
        return NULL;
    }
    if (v->is_bool)
        return "the constant is a number; expected a number, not a bool";
    double x = v->number;
    if (top == SpvOpTypeFloat) {
        if (width == 32) {
            if (isfinite(x) && fabs(x) > 3.4028234663852886e38)
                return "does not fit a 32-bit float";
            float f = (float)x;
            uint32_t u;
            memcpy(&u, &f, 4);
            *bits = u;
        } else if (width == 64) {
            memcpy(bits, &x, 8);
        } else {
            return "a 16-bit float constant cannot be specialised by wavelab";
        }
        return NULL;
    }
    if (top != SpvOpTypeInt || width == 0 || width > 64)
        return "the constant's type is not bool, an integer or a float";
    if (!isfinite(x) || x != floor(x))
        return "the constant is an integer; expected a whole number";
    double lo = is_signed ? -ldexp(1.0, (int)width - 1) : 0.0;
    double hi = is_signed ? ldexp(1.0, (int)width - 1) : ldexp(1.0, (int)width); /* exclusive */
    if (x < lo || x >= hi)
        return is_signed ? "does not fit the constant's signed integer type" :
                           "does not fit the constant's unsigned integer type";
    int64_t s = is_signed ? (int64_t)x : 0;
    uint64_t u = is_signed ? (uint64_t)s : (uint64_t)x;
    *bits = width == 64 ? u : u & ((1ull << width) - 1);
    return NULL;
}

void isa_spec_map_free(isa_spec_map *map)
{
    if (!map)
        return;
    free(map->ids);
    free(map->offsets);
    free(map->sizes);
    free(map->data);
    memset(map, 0, sizeof *map);
}

isa_status isa_specialize(const uint32_t *words, size_t n, const isa_spec *spec, uint32_t **out, isa_spec_map *map,
                          char *err, size_t err_size)
{
    *out = NULL;
    if (map)
        memset(map, 0, sizeof *map);
    if (n < 5) {
        snprintf(err, err_size, "module too short");
        return ISA_ERR_INVALID;
    }
    uint32_t bound = words[3];
    uint32_t *w = malloc(n * sizeof *w);
    uint32_t *spec_of = calloc(bound + 1, sizeof *spec_of);   /* id -> SpecId + 1 */
    const char **name_of = calloc(bound + 1, sizeof *name_of);
    uint32_t *type_word = calloc(bound + 1, sizeof *type_word); /* type id -> its word */
    uint32_t *const_word = calloc(bound + 1, sizeof *const_word); /* spec constant id -> its word */
    isa_status st = ISA_OK;
    if (!w || !spec_of || !name_of || !type_word || !const_word) {
        snprintf(err, err_size, "out of memory");
        st = ISA_ERR_NOMEM;
        goto done;
    }
    memcpy(w, words, n * sizeof *w);
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, w, n, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST) { /* a malformed module stops it: the lowering reports it */
        SpvOp op = in.op;
        size_t i = in.word, wc = in.wc;
        if (op == SpvOpFunction)
            break;
        const uint32_t *o = in.o;
        if (op == SpvOpName && wc >= 3 && o[0] < bound)
            name_of[o[0]] = spv_string(&in, 1, NULL);
        else if (op == SpvOpDecorate && wc >= 4 && o[1] == SpvDecorationSpecId && o[0] < bound)
            spec_of[o[0]] = o[2] + 1;
        else if ((op == SpvOpTypeBool || op == SpvOpTypeInt || op == SpvOpTypeFloat) && wc >= 2 && o[0] < bound)
            type_word[o[0]] = (uint32_t)i;
        else if ((op == SpvOpSpecConstant || op == SpvOpSpecConstantTrue || op == SpvOpSpecConstantFalse) && wc >= 3 &&
                 o[1] < bound)
            const_word[o[1]] = (uint32_t)i;
    }
    int count = spec ? spec->count : 0;
    if (map && count > 0) {
        map->ids = calloc((size_t)count, sizeof *map->ids);
        map->offsets = calloc((size_t)count, sizeof *map->offsets);
        map->sizes = calloc((size_t)count, sizeof *map->sizes);
        map->data = calloc((size_t)count, 8);
        if (!map->ids || !map->offsets || !map->sizes || !map->data) {
            snprintf(err, err_size, "out of memory");
            st = ISA_ERR_NOMEM;
            goto done;
        }
    }
    for (int k = 0; k < count; k++) {
        const isa_spec_value *v = &spec->values[k];
        uint32_t want = 0, found = 0;
        bool by_id = key_is_id(v->key, &want);
        for (uint32_t id = 1; id < bound && !found; id++)
            if (const_word[id] && spec_of[id] &&
                (by_id ? spec_of[id] == want + 1 : name_of[id] && strcmp(name_of[id], v->key) == 0))
                found = id;
        if (!found) {
            st = spec_fail(err, err_size, v->key,
                           by_id ? "the kernel declares no specialization constant with this SpecId"
                                 : "the kernel declares no specialization constant with this name");
            goto done;
        }
        uint32_t cw = const_word[found];
        SpvOp cop = (SpvOp)(w[cw] & 0xffff);
        uint32_t tid = w[cw + 1];
        if (tid >= bound || !type_word[tid]) {
            st = spec_fail(err, err_size, v->key, "the constant's type is not bool, an integer or a float");
            goto done;
        }
        const uint32_t *t = w + type_word[tid];
        SpvOp top = (SpvOp)(t[0] & 0xffff);
        uint32_t width = top == SpvOpTypeBool ? 32 : t[2];
        bool is_signed = top == SpvOpTypeInt && (t[0] >> 16) >= 4 && t[3] != 0;
        uint64_t bits = 0;
        const char *why = value_bits(v, top, width, is_signed, &bits);
        if (why) {
            st = spec_fail(err, err_size, v->key, why);
            goto done;
        }
        if (cop == SpvOpSpecConstant) {
            uint32_t wc = w[cw] >> 16;
            w[cw + 3] = (uint32_t)bits;
            if (wc >= 5)
                w[cw + 4] = (uint32_t)(bits >> 32);
        } else {
            w[cw] = (w[cw] & 0xffff0000u) | (bits ? SpvOpSpecConstantTrue : SpvOpSpecConstantFalse);
        }
        if (map) {
            uint32_t size = top == SpvOpTypeBool ? 4 : width / 8; /* a bool is a VkBool32 */
            map->ids[map->count] = spec_of[found] - 1;
            map->offsets[map->count] = (uint32_t)map->data_size;
            map->sizes[map->count] = size;
            /* little-endian host, as Vulkan reads it  */
            memcpy(map->data + map->data_size, &bits, size);
            map->data_size += size;
            map->count++;
        }
    }
done:
    free(spec_of);
    free(name_of);
    free(type_word);
    free(const_word);
    if (st != ISA_OK) {
        free(w);
        isa_spec_map_free(map);
        return st;
    }
    *out = w;
    return ISA_OK;
}
