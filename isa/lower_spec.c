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
    uint32_t *w = malloc(n * sizeof *w);
    isa_status st = ISA_OK;
    if (!w) {
        snprintf(err, err_size, "out of memory");
        return ISA_ERR_NOMEM;
    }
    memcpy(w, words, n * sizeof *w);
    /* a malformed module declares no constant here: the lowering reports what is wrong with it */
    spv_module m;
    char unread[256];
    spv_module_read(&m, w, n, unread, sizeof unread);
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
        uint32_t want = 0;
        bool by_id = key_is_id(v->key, &want);
        const spv_node *c = NULL; /* the lowest id that matches */
        for (uint32_t j = 0; j < m.node_count; j++) {
            const spv_node *d = &m.nodes[j];
            if ((d->op == SpvOpSpecConstant || d->op == SpvOpSpecConstantTrue || d->op == SpvOpSpecConstantFalse) &&
                d->spec_id && (by_id ? d->spec_id == want + 1 : d->name && strcmp(d->name, v->key) == 0) &&
                (!c || d->id < c->id))
                c = d;
        }
        if (!c) {
            st = spec_fail(err, err_size, v->key,
                           by_id ? "the kernel declares no specialization constant with this SpecId"
                                 : "the kernel declares no specialization constant with this name");
            goto done;
        }
        uint32_t cw = c->word;
        SpvOp cop = c->op;
        const spv_type *t = spv_type_of(&m, c->type);
        if (!t || (t->op != SpvOpTypeBool && t->op != SpvOpTypeInt && t->op != SpvOpTypeFloat)) {
            st = spec_fail(err, err_size, v->key, "the constant's type is not bool, an integer or a float");
            goto done;
        }
        SpvOp top = t->op;
        uint32_t width = top == SpvOpTypeBool ? 32 : t->width;
        bool is_signed = top == SpvOpTypeInt && t->is_signed;
        uint64_t bits = 0;
        const char *why = value_bits(v, top, width, is_signed, &bits);
        if (why) {
            st = spec_fail(err, err_size, v->key, why);
            goto done;
        }
        if (cop == SpvOpSpecConstant) {
            w[cw + 3] = (uint32_t)bits;
            if (c->wide)
                w[cw + 4] = (uint32_t)(bits >> 32);
        } else {
            w[cw] = (w[cw] & 0xffff0000u) | (bits ? SpvOpSpecConstantTrue : SpvOpSpecConstantFalse);
        }
        if (map) {
            uint32_t size = top == SpvOpTypeBool ? 4 : width / 8; /* a bool is a VkBool32 */
            map->ids[map->count] = c->spec_id - 1;
            map->offsets[map->count] = (uint32_t)map->data_size;
            map->sizes[map->count] = size;
            /* little-endian host, as Vulkan reads it  */
            memcpy(map->data + map->data_size, &bits, size);
            map->data_size += size;
            map->count++;
        }
    }
done:
    spv_module_free(&m);
    if (st != ISA_OK) {
        free(w);
        isa_spec_map_free(map);
        return st;
    }
    *out = w;
    return ISA_OK;
}
