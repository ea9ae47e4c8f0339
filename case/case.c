/*
 * case/case.c — reads case files (docs/case-format.md) into wl_case: bindings,
 * expectations, defines, groups, push constants, dispatches and the public
 * entry points.  The field readers are in case/case_read.c, the element
 * helpers (types, half precision, splitmix64) in case/case_values.c, element
 * formatting and the expectation comparisons in case/case_expect.c, image
 * bindings in case/case_image.c.
 *
 * A case file is untrusted input: every problem becomes one returned message
 * "FILE: FIELD: problem" with FIELD a JSON path such as
 * `bindings[2].fill.random.seed`; nothing here asserts on what the file says.
 * The parser validates each field where it reads it, builds the case as it
 * goes and frees the partial case on the first error.

 */
#include "case/case.h"
#include "case/amber.h"
#include "case/case_internal.h"
#include "text/text.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ------------------------------------------------------------------------- */
/* Bindings                                                                   */
/* ------------------------------------------------------------------------- */

/* Whether two bindings fill a descriptor in common (the same element, or a mip view's). */
static int bindings_overlap(const case_binding *a, const case_binding *b)
{
    return a->set == b->set && a->binding == b->binding && a->element < b->element + case_binding_descriptors(b) &&
           b->element < a->element + case_binding_descriptors(a);
}

static case_status read_binding(parser *p, const cJSON *obj, case_binding *b)
{
    static const char *const keys[] = {"set", "binding", "element", "kind", "type", "format", "count", "data", "fill",
                                       "uninitialized", "name", NULL};
    uint64_t set, binding, element, count = 0;
    const char *type_name, *kind_name, *format_name;

    if (!cJSON_IsObject(obj))
        return case_fail(p, "expected an object, got %s", case_json_kind(obj));
    const cJSON *kind_v = case_field(obj, "kind");
    int image_kind = cJSON_IsString(kind_v) && kind_v->valuestring &&
                     (strstr(kind_v->valuestring, "image") || strcmp(kind_v->valuestring, "sampler") == 0);
    if (!image_kind) /* image bindings have their own fields: case/case_image.c checks them */
        TRY(case_check_keys(p, obj, keys));
    TRY(case_read_uint_field(p, obj, "set", 0, 0, UINT32_MAX, 0, &set));
    TRY(case_read_uint_field(p, obj, "binding", 1, 0, UINT32_MAX, 0, &binding));
    TRY(case_read_uint_field(p, obj, "element", 0, 0, ISA_MAX_DESCRIPTOR_ARRAY - 1, 0, &element));
    b->set = (uint32_t)set;
    b->binding = (uint32_t)binding;
    b->element = (uint32_t)element;
    const char *name;
    TRY(case_read_string_field(p, obj, "name", 0, &name));
    if (name) {
        if (!name[0])
            return case_fail_at(p, "name", "must not be empty");
        if (!(b->name = case_dup_string(name)))
            return case_fail_nomem(p);
    }

    TRY(case_read_string_field(p, obj, "kind", 0, &kind_name));
    if (kind_name && (strcmp(kind_name, "storage_image") == 0 || strcmp(kind_name, "sampled_image") == 0 ||
                      strcmp(kind_name, "combined_image_sampler") == 0 || strcmp(kind_name, "sampler") == 0))
        type_name = NULL; /* images take their type from the format (case/case_image.c checks a given one) */
    else
        TRY(case_read_string_field(p, obj, "type", 1, &type_name));
    if (type_name)
        TRY(case_lookup_type(p, "type", type_name, &b->type));

    b->kind = CASE_KIND_STORAGE_BUFFER;
    if (kind_name) {
        int k = 0;
        while (k < CASE_KIND_COUNT && strcmp(case_kind_name((case_kind)k), kind_name) != 0)
            k++;
        if (k == CASE_KIND_COUNT)
            return case_fail_at(p, "kind", "unknown kind \"%.40s\" (expected one of storage_buffer, uniform_buffer, "
                                      "storage_texel_buffer, uniform_texel_buffer, storage_image, sampled_image, "
                                      "combined_image_sampler, sampler)", kind_name);
        b->kind = (case_kind)k;
    }
    if (case_kind_is_image(b->kind) || case_kind_has_sampler(b->kind))
        return case_image_read_binding(p, obj, b);

    size_t texel_bytes = 0;
    TRY(case_read_string_field(p, obj, "format", 0, &format_name));
    if (case_kind_is_texel(b->kind)) {
        if (!format_name)
            return case_fail_at(p, "format", "missing (required for a %s)", case_kind_name(b->kind));
        texel_bytes = isa_format_bytes(isa_format_from_name(format_name));
        if (!texel_bytes)
            return case_fail_at(p, "format", "unknown format \"%.40s\" (expected one of %s)", format_name,
                                isa_format_names());
        snprintf(b->format, sizeof b->format, "%s", format_name);
    } else if (format_name) {
        return case_fail_at(p, "format", "only texel buffers take a format (this binding is a %s)", case_kind_name(b->kind));
    }

    size_t elem = case_type_size(b->type);
    const cJSON *count_v = case_field(obj, "count"), *data = case_field(obj, "data"), *fill = case_field(obj, "fill");
    if (count_v)
        TRY(case_read_uint_field(p, obj, "count", 1, 1, CASE_MAX_BINDING_BYTES / elem, 0, &count));
    if (data && !cJSON_IsArray(data))
        return case_fail_at(p, "data", "expected an array of numbers, got %s", case_json_kind(data));
    size_t data_len = data ? (size_t)cJSON_GetArraySize(data) : 0;
    if (data && fill)
        return case_fail_at(p, "fill", "give either \"data\" or \"fill\", not both");
    if (fill && !count_v)
        return case_fail_at(p, "count", "missing (required with \"fill\")");
    if (!data && !fill && !count_v)
        return case_fail(p, "needs \"data\", \"fill\" with \"count\", or \"count\" alone (zeros)");
    const cJSON *uninit = case_field(obj, "uninitialized");
    if (uninit) {
        if (!cJSON_IsBool(uninit))
            return case_fail_at(p, "uninitialized", "expected true or false, got %s", case_json_kind(uninit));
        b->uninitialized = cJSON_IsTrue(uninit);
        if (b->uninitialized && (data || fill))
            return case_fail_at(p, "uninitialized", "an uninitialized binding has no contents: give \"count\" alone, "
                                               "not \"%s\"", data ? "data" : "fill");
    }
    if (data && count_v && count < data_len)
        return case_fail_at(p, "count", "%" PRIu64 " is less than the %zu elements of \"data\"", count, data_len);
    if (data && !count_v) {
        if (data_len == 0)
            return case_fail_at(p, "data", "empty: give at least one element, or a \"count\"");
        if (data_len > CASE_MAX_BINDING_BYTES / elem)
            return case_fail_at(p, "data", "too many elements (a binding holds at most %zu bytes)", CASE_MAX_BINDING_BYTES);
        count = data_len;
    }
    b->count = (size_t)count;
    b->size = b->count * elem;
    if (texel_bytes && b->size % texel_bytes)
        return case_fail_at(p, count_v ? "count" : "data", "%zu bytes is not a whole number of %s texels (%zu bytes each)",
                       b->size, b->format, texel_bytes);

    b->bytes = calloc(b->size, 1);
    if (!b->bytes)
        return case_fail_nomem(p);
    if (data) {
        size_t saved = case_path_enter_key(p, "data");
        case_status s = case_read_element_array(p, data, b->type, b->bytes);
        case_path_leave(p, saved);
        return s;
    }
    if (fill) {
        size_t saved = case_path_enter_key(p, "fill");
        case_status s = case_read_fill(p, fill, b);
        case_path_leave(p, saved);
        return s;
    }
    return CASE_OK;
}

static case_status read_bindings(parser *p, const cJSON *root, wl_case *c)
{
    const cJSON *list = case_field(root, "bindings");
    if (!list)
        return case_fail_at(p, "bindings", "missing (required)");
    if (!cJSON_IsArray(list))
        return case_fail_at(p, "bindings", "expected an array of binding objects, got %s", case_json_kind(list));
    int n = cJSON_GetArraySize(list);
    if (n == 0)
        return case_fail_at(p, "bindings", "empty: a case needs at least one binding");
    c->bindings = calloc((size_t)n, sizeof *c->bindings);
    if (!c->bindings)
        return case_fail_nomem(p);
    c->binding_count = n;

    size_t saved_outer = case_path_enter_key(p, "bindings");
    int i = 0;
    for (const cJSON *obj = list->child; obj; obj = obj->next, i++) {
        size_t saved = case_path_enter_index(p, (size_t)i);
        case_status s = read_binding(p, obj, &c->bindings[i]);
        for (int j = 0; s == CASE_OK && j < i; j++) {
            if (bindings_overlap(&c->bindings[j], &c->bindings[i])) {
                char where[CASE_DESCRIPTOR_TEXT_MAX];
                s = case_fail_at(p, "binding", "%s is already used by bindings[%d]",
                                 case_descriptor_text(c->bindings[i].set, c->bindings[i].binding,
                                                      c->bindings[i].element, where, sizeof where), j);
            }
            else if (c->bindings[i].name && c->bindings[j].name && strcmp(c->bindings[i].name, c->bindings[j].name) == 0)
                s = case_fail_at(p, "name", "\"%.60s\" is already the name of bindings[%d]", c->bindings[i].name, j);
        }
        case_path_leave(p, saved);
        if (s != CASE_OK) {
            case_path_leave(p, saved_outer);
            return s;
        }
    }
    case_path_leave(p, saved_outer);
    return CASE_OK;
}

/* ------------------------------------------------------------------------- */
/* Expectations                                                               */
/* ------------------------------------------------------------------------- */

case_status case_read_compare(parser *p, const cJSON *v, case_expect *e)
{
    e->compare = CASE_COMPARE_EXACT;
    e->tolerance = 0.0;
    if (!v)
        return CASE_OK;
    size_t saved = case_path_enter_key(p, "compare");
    case_status s = CASE_OK;
    case_compare m;
    if (cJSON_IsString(v) && v->valuestring) {
        if (!case_compare_by_name(v->valuestring, &m))
            s = case_fail(p, "unknown comparison \"%.40s\" (expected \"exact\", \"sorted\", {\"ulp\": N}, "
                          "{\"epsilon\": E} or {\"relative\": R})", v->valuestring);
        else if (case_compare_takes_tolerance(m))
            s = case_fail(p, "\"%s\" needs a tolerance: write {\"%s\": N}", v->valuestring, v->valuestring);
        else
            e->compare = m;
    } else if (cJSON_IsObject(v)) {
        static const char *const keys[] = {"ulp", "epsilon", "relative", NULL};
        const cJSON *given = NULL;
        int n = 0;
        s = case_check_keys(p, v, keys);
        for (int k = 0; keys[k]; k++)
            if (case_field(v, keys[k]))
                given = case_field(v, keys[k]), n++;
        if (s == CASE_OK && n != 1)
            s = case_fail(p, "give exactly one of \"ulp\", \"epsilon\" or \"relative\"");
        if (s == CASE_OK) {
            case_compare_by_name(given->string, &m);
            if (!case_type_is_float(e->type))
                s = case_fail(p, "%s comparison needs a float type (f16, f32, f64), this data is %s", given->string,
                              case_type_name(e->type));
        }
        if (s == CASE_OK) {
            e->compare = m;
            size_t inner = case_path_enter_key(p, given->string);
            if (m == CASE_COMPARE_ULP) {
                uint64_t ulps;
                s = case_read_uint(p, given, 0, (uint64_t)CASE_EXACT_INT_LIMIT, &ulps);
                e->tolerance = (double)ulps;
            } else {
                s = case_read_double(p, given, 0, &e->tolerance);
                if (s == CASE_OK && !(e->tolerance >= 0.0))
                    s = case_fail(p, "%s is negative (must be >= 0)", case_shortest(e->tolerance).s);
            }
            case_path_leave(p, inner);
        }
    } else {
        s = case_fail(p, "expected \"exact\", \"sorted\", {\"ulp\": N}, {\"epsilon\": E} or {\"relative\": R}, got %s",
                      case_json_kind(v));
    }
    case_path_leave(p, saved);
    return s;
}

/* The keys an expectation takes, the last three (the subresource) on image bindings only. */
static const char *const expect_keys[] = {"set", "binding", "element", "type", "data", "compare", "mip", "layer",
                                          "sample", NULL};
enum { EXPECT_IMAGE_ONLY_KEYS = 3 };

/* The first image-only key obj has, or NULL. */
static const char *image_only_key(const cJSON *obj)
{
    const size_t n = sizeof expect_keys / sizeof *expect_keys - 1;
    for (size_t k = n - EXPECT_IMAGE_ONLY_KEYS; k < n; k++)
        if (case_field(obj, expect_keys[k]))
            return expect_keys[k];
    return NULL;
}

static case_status read_expect(parser *p, const cJSON *obj, const wl_case *c, case_expect *e)
{
    uint64_t set, binding, element;
    const char *type_name;

    if (!cJSON_IsObject(obj))
        return case_fail(p, "expected an object, got %s", case_json_kind(obj));
    /* the subresource keys are for image bindings: refused on buffers below */
    TRY(case_check_keys(p, obj, expect_keys));
    TRY(case_read_uint_field(p, obj, "set", 0, 0, UINT32_MAX, 0, &set));
    TRY(case_read_uint_field(p, obj, "binding", 1, 0, UINT32_MAX, 0, &binding));
    TRY(case_read_uint_field(p, obj, "element", 0, 0, ISA_MAX_DESCRIPTOR_ARRAY - 1, 0, &element));
    e->set = (uint32_t)set;
    e->binding = (uint32_t)binding;
    e->element = (uint32_t)element;
    const case_binding *b = case_find_binding(c, e->set, e->binding, e->element);
    if (!b || b->element != e->element)
        return case_fail_at(p, "binding", "no binding with set %u binding %u element %u in \"bindings\"%s", e->set,
                            e->binding, e->element, b ? " (an expectation names the binding of a mip view "
                            "image by its first element, and the level by \"mip\")" : "");
    e->type = b->type;
    if (case_kind_is_image(b->kind) || b->kind == CASE_KIND_SAMPLER)
        return case_image_read_expect(p, obj, b, e);
    const char *image_key = image_only_key(obj);
    if (image_key)
        return case_fail_at(p, image_key, "only image bindings take a mip, layer or sample (this binding is a %s)",
                            case_kind_name(b->kind));

    TRY(case_read_string_field(p, obj, "type", 0, &type_name));
    if (type_name) {
        case_type t = CASE_TYPE_U32;
        TRY(case_lookup_type(p, "type", type_name, &t));
        if (t != b->type)
            return case_fail_at(p, "type", "\"%s\" does not match the binding's type \"%s\"", type_name,
                           case_type_name(b->type));
    }

    const cJSON *data = case_field(obj, "data");
    if (!data)
        return case_fail_at(p, "data", "missing (required)");
    if (!cJSON_IsArray(data))
        return case_fail_at(p, "data", "expected an array of numbers, got %s", case_json_kind(data));
    size_t n = (size_t)cJSON_GetArraySize(data);
    if (n == 0)
        return case_fail_at(p, "data", "empty: give at least one expected element");
    if (n > b->count)
        return case_fail_at(p, "data", "%zu elements, but the binding holds only %zu", n, b->count);

    TRY(case_read_compare(p, case_field(obj, "compare"), e));

    e->count = n;
    e->bytes = calloc(n, case_type_size(e->type));
    if (!e->bytes)
        return case_fail_nomem(p);
    size_t saved = case_path_enter_key(p, "data");
    case_status s = case_read_element_array(p, data, e->type, e->bytes);
    case_path_leave(p, saved);
    return s;
}

static case_status read_expects(parser *p, const cJSON *root, wl_case *c)
{
    const cJSON *list = case_field(root, "expect");
    if (!list)
        return CASE_OK;
    if (!cJSON_IsArray(list))
        return case_fail_at(p, "expect", "expected an array of expectation objects, got %s", case_json_kind(list));
    int n = cJSON_GetArraySize(list);
    if (n == 0)
        return CASE_OK;
    c->expects = calloc((size_t)n, sizeof *c->expects);
    if (!c->expects)
        return case_fail_nomem(p);
    c->expect_count = n;

    size_t saved_outer = case_path_enter_key(p, "expect");
    int i = 0;
    for (const cJSON *obj = list->child; obj; obj = obj->next, i++) {
        size_t saved = case_path_enter_index(p, (size_t)i);
        case_status s = read_expect(p, obj, c, &c->expects[i]);
        case_path_leave(p, saved);
        if (s != CASE_OK) {
            case_path_leave(p, saved_outer);
            return s;
        }
    }
    case_path_leave(p, saved_outer);
    return CASE_OK;
}

/* ------------------------------------------------------------------------- */
/* Top-level fields                                                           */
/* ------------------------------------------------------------------------- */

/* Integers below 1e17 in full, others in the shortest text that reads back the same. */
static void format_define_number(double d, char *buf, size_t size)
{
    snprintf(buf, size, "%s", case_shortest(d).s);
}

int case_define_name_ok(const char *name)
{
    if (!name || !(isalpha((unsigned char)name[0]) || name[0] == '_'))
        return 0;
    for (const char *k = name; *k; k++)
        if (!(isalnum((unsigned char)*k) || *k == '_'))
            return 0;
    return 1;
}

int case_define_value_ok(const char *value) { return value && !strpbrk(value, "\r\n"); }

static case_status read_defines(parser *p, const cJSON *root, wl_case *c)
{
    const cJSON *defines = case_field(root, "defines");
    if (!defines)
        return CASE_OK;
    if (!cJSON_IsObject(defines))
        return case_fail_at(p, "defines", "expected an object {\"NAME\": \"value\"}, got %s", case_json_kind(defines));
    int n = cJSON_GetArraySize(defines);
    if (n == 0)
        return CASE_OK;
    size_t saved_outer = case_path_enter_key(p, "defines");
    case_status s = case_check_keys(p, defines, NULL);
    if (s != CASE_OK) {
        case_path_leave(p, saved_outer);
        return s;
    }
    c->defines = calloc((size_t)n, sizeof *c->defines);
    if (!c->defines) {
        case_path_leave(p, saved_outer);
        return case_fail_nomem(p);
    }
    for (const cJSON *v = defines->child; v && s == CASE_OK; v = v->next) {
        const char *name = v->string ? v->string : "";
        char number[40];
        const char *value = NULL;
        size_t saved = case_path_enter_key(p, name);
        if (!case_define_name_ok(name)) {
            s = case_fail(p, "\"%.40s\" is not a macro name (letters, digits and '_', not starting with a digit)", name);
        } else if (cJSON_IsString(v) && v->valuestring) {
            value = v->valuestring;
            if (!case_define_value_ok(value))
                s = case_fail(p, "the value must be a single line");
        } else if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
            format_define_number(v->valuedouble, number, sizeof number);
            value = number;
        } else {
            s = case_fail(p, "expected a string or a number, got %s", case_json_kind(v));
        }
        case_path_leave(p, saved);
        if (s == CASE_OK) {
            case_define *d = &c->defines[c->define_count];
            d->name = case_dup_string(name);
            d->value = case_dup_string(value);
            c->define_count++;
            if (!d->name || !d->value)
                s = case_fail_nomem(p);
        }
    }
    case_path_leave(p, saved_outer);
    return s;
}

static case_status read_groups(parser *p, const cJSON *root, wl_case *c)
{
    const cJSON *groups = case_field(root, "groups");
    c->groups[0] = c->groups[1] = c->groups[2] = 1;
    if (!groups)
        return CASE_OK;
    if (!cJSON_IsArray(groups))
        return case_fail_at(p, "groups", "expected an array of 1 to 3 positive integers such as [4, 1, 1], got %s",
                       case_json_kind(groups));
    int n = cJSON_GetArraySize(groups);
    if (n < 1 || n > 3)
        return case_fail_at(p, "groups", "has %d elements (expected 1 to 3)", n);
    size_t saved_outer = case_path_enter_key(p, "groups");
    int i = 0;
    for (const cJSON *v = groups->child; v; v = v->next, i++) {
        uint64_t count;
        size_t saved = case_path_enter_index(p, (size_t)i);
        case_status s = case_read_uint(p, v, 1, UINT32_MAX, &count);
        case_path_leave(p, saved);
        if (s != CASE_OK) {
            case_path_leave(p, saved_outer);
            return s;
        }
        c->groups[i] = (uint32_t)count;
    }
    case_path_leave(p, saved_outer);
    return CASE_OK;
}

static case_status read_push_constants(parser *p, const cJSON *root, wl_case *c)
{
    static const char *const keys[] = {"type", "data", NULL};
    const cJSON *push = case_field(root, "push_constants");
    const char *type_name;
    c->push_type = CASE_TYPE_U32;
    if (!push)
        return CASE_OK;
    if (!cJSON_IsObject(push))
        return case_fail_at(p, "push_constants", "expected an object {\"type\": T, \"data\": [...]}, got %s",
                       case_json_kind(push));
    size_t saved = case_path_enter_key(p, "push_constants");
    case_status s = case_check_keys(p, push, keys);
    if (s == CASE_OK)
        s = case_read_string_field(p, push, "type", 1, &type_name);
    if (s == CASE_OK)
        s = case_lookup_type(p, "type", type_name, &c->push_type);
    const cJSON *data = case_field(push, "data");
    size_t elem = case_type_size(c->push_type), n = 0;
    if (s == CASE_OK && !data)
        s = case_fail_at(p, "data", "missing (required)");
    if (s == CASE_OK && !cJSON_IsArray(data))
        s = case_fail_at(p, "data", "expected an array of numbers, got %s", case_json_kind(data));
    if (s == CASE_OK) {
        n = (size_t)cJSON_GetArraySize(data);
        if (n == 0)
            s = case_fail_at(p, "data", "empty: leave \"push_constants\" out instead");
        else if (n * elem % 4 != 0)
            s = case_fail_at(p, "data", "%zu bytes: push constants must be a multiple of 4 bytes (a Vulkan rule)",
                        n * elem);
        else if (n * elem > CASE_MAX_PUSH_BYTES)
            s = case_fail_at(p, "data", "%zu bytes is far more than any device's push constant space", n * elem);
    }
    if (s == CASE_OK) {
        c->push_size = n * elem;
        c->push_constants = calloc(c->push_size, 1);
        if (!c->push_constants)
            s = case_fail_nomem(p);
    }
    if (s == CASE_OK) {
        size_t inner = case_path_enter_key(p, "data");
        s = case_read_element_array(p, data, c->push_type, c->push_constants);
        case_path_leave(p, inner);
    }
    case_path_leave(p, saved);
    return s;
}

/* "cases/x.json" -> "cases", "x.json" -> ".", "/x.json" -> "/". */
static char *directory_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return case_dup_string(".");
    size_t len = (size_t)(slash - path);
    while (len > 0 && path[len - 1] == '/')
        len--;
    if (len == 0)
        return case_dup_string("/");
    char *dir = malloc(len + 1);
    if (dir) {
        memcpy(dir, path, len);
        dir[len] = '\0';
    }
    return dir;
}

char *case_resolve_path(const char *dir, const char *relative)
{
    if (relative[0] == '/' || strcmp(dir, ".") == 0)
        return case_dup_string(relative);
    size_t dl = strlen(dir), rl = strlen(relative);
    int need_slash = dir[dl - 1] != '/';
    char *out = malloc(dl + (size_t)need_slash + rl + 1);
    if (out) {
        memcpy(out, dir, dl);
        if (need_slash)
            out[dl] = '/';
        memcpy(out + dl + (size_t)need_slash, relative, rl + 1);
    }
    return out;
}

/* "glsl", "hlsl" or NULL from a kernel file name's extension (any letter case). */
static const char *language_of(const char *kernel)
{
    const char *slash = strrchr(kernel, '/');
    const char *dot = strrchr(slash ? slash : kernel, '.');
    if (!dot)
        return NULL;
    char ext[8];
    size_t n = 0;
    for (const char *k = dot + 1; *k; k++) {
        if (n + 1 >= sizeof ext)
            return NULL;
        ext[n++] = (char)tolower((unsigned char)*k);
    }
    ext[n] = '\0';
    if (strcmp(ext, "comp") == 0 || strcmp(ext, "glsl") == 0)
        return "glsl";
    if (strcmp(ext, "hlsl") == 0)
        return "hlsl";
    if (strcmp(ext, "spv") == 0)
        return "spirv";
    return NULL;
}

static case_status read_kernel(parser *p, const cJSON *root, wl_case *c)
{
    const char *kernel, *language, *entry;
    TRY(case_read_string_field(p, root, "kernel", 1, &kernel));
    TRY(case_read_string_field(p, root, "language", 0, &language));
    TRY(case_read_string_field(p, root, "entry", 0, &entry));
    if (language && strcmp(language, "glsl") != 0 && strcmp(language, "hlsl") != 0 && strcmp(language, "spirv") != 0)
        return case_fail_at(p, "language", "unknown language \"%.40s\" (expected \"glsl\", \"hlsl\" or \"spirv\")",
                       language);
    if (!language) {
        language = language_of(kernel);
        if (!language)
            return case_fail_at(p, "kernel", "cannot tell the language of \"%.80s\" from its extension (use .comp, "
                                        ".glsl, .hlsl or .spv, or give \"language\")", kernel);
    }
    c->kernel = case_resolve_path(c->dir, kernel);
    c->language = case_dup_string(language);
    c->entry = case_dup_string(entry ? entry : "main");
    if (!c->kernel || !c->language || !c->entry)
        return case_fail_nomem(p);
    return CASE_OK;
}

/* A case's or a pass's "defines" and "specialization", which both own */
static void defines_free(case_define *defines, int count)
{
    for (int i = 0; i < count; i++) {
        free(defines[i].name);
        free(defines[i].value);
    }
    free(defines);
}

static void spec_free(isa_spec_value *spec, int count)
{
    for (int i = 0; i < count; i++)
        free(spec[i].key);
    free(spec);
}

static void dispatch_free(case_dispatch *d)
{
    free(d->name);
    free(d->kernel);
    free(d->language);
    free(d->entry);
    defines_free(d->defines, d->define_count);
    free(d->push_constants);
    free(d->bindings);
    free(d->binding_buffer);
    spec_free(d->spec, d->spec_count);
    free(d->target_env);
    free(d->kernel_text);
    free(d->kernel_words);
}

/* "a/b/cull.comp" -> "cull". */
static char *stem_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *out = malloc(n + 1);
    if (out) {
        memcpy(out, base, n);
        out[n] = '\0';
    }
    return out;
}

static case_status read_specialization(parser *p, const cJSON *root, wl_case *c);

/* One entry of "dispatches": the per-pass fields, read by the same functions as the top level's (into a scratch
 * case, so the messages and rules are the same), then moved into *d. */
static case_status read_dispatch(parser *p, const cJSON *obj, const wl_case *c, case_dispatch *d)
{
    static const char *const keys[] = {"name", "kernel", "language", "entry", "defines", "groups", "push_constants",
                                       "bindings", "specialization", NULL};
    if (!cJSON_IsObject(obj))
        return case_fail(p, "expected an object {\"kernel\": ..., \"groups\": [...]}, got %s", case_json_kind(obj));
    TRY(case_check_keys(p, obj, keys));
    const char *name;
    TRY(case_read_string_field(p, obj, "name", 0, &name));
    wl_case tmp = {.dir = c->dir};
    case_status s = read_kernel(p, obj, &tmp);
    if (s == CASE_OK)
        s = read_defines(p, obj, &tmp);
    if (s == CASE_OK)
        s = read_groups(p, obj, &tmp);
    if (s == CASE_OK)
        s = read_push_constants(p, obj, &tmp);
    if (s == CASE_OK)
        s = read_specialization(p, obj, &tmp);
    *d = (case_dispatch){
        .kernel = tmp.kernel, .language = tmp.language, .entry = tmp.entry, .defines = tmp.defines,
        .define_count = tmp.define_count, .groups = {tmp.groups[0], tmp.groups[1], tmp.groups[2]},
        .push_type = tmp.push_type, .push_constants = tmp.push_constants, .push_size = tmp.push_size,
        .spec = tmp.spec, .spec_count = tmp.spec_count,
    };
    if (s == CASE_OK) {
        d->name = name ? case_dup_string(name) : stem_of(d->kernel);
        if (!d->name)
            s = case_fail_nomem(p);
    }
    return s;
}

/*
 * "dispatches": passes run in order on the case's bindings.  The per-pass
 * fields then live only in the entries (a top-level "kernel" beside them would
 * be ambiguous), and the top level gets a copy of dispatch 0's for commands
 * that look at one kernel.
 */
static case_status read_dispatches(parser *p, const cJSON *root, wl_case *c)
{
    static const char *const per_pass[] = {"kernel", "language", "entry", "defines", "groups", "push_constants"};
    const cJSON *list = case_field(root, "dispatches");
    if (!list)
        return read_kernel(p, root, c);
    if (!cJSON_IsArray(list))
        return case_fail_at(p, "dispatches", "expected an array of passes [{\"kernel\": ...}, ...], got %s",
                       case_json_kind(list));
    int n = cJSON_GetArraySize(list);
    if (n < 1 || n > 64)
        return case_fail_at(p, "dispatches", "has %d entries (expected 1 to 64)", n);
    for (size_t k = 0; k < sizeof per_pass / sizeof *per_pass; k++)
        if (case_field(root, per_pass[k]))
            return case_fail_at(p, per_pass[k], "not allowed beside \"dispatches\": give it in each entry of "
                                           "\"dispatches\"");
    c->dispatches = calloc((size_t)n, sizeof *c->dispatches);
    if (!c->dispatches)
        return case_fail_nomem(p);
    size_t outer = case_path_enter_key(p, "dispatches");
    case_status s = CASE_OK;
    int i = 0;
    for (const cJSON *v = list->child; v && s == CASE_OK; v = v->next, i++) {
        size_t saved = case_path_enter_index(p, (size_t)i);
        s = read_dispatch(p, v, c, &c->dispatches[i]);
        c->dispatch_count = i + 1; /* case_destroy frees what the failed entry got */
        case_path_leave(p, saved);
    }
    if (s == CASE_OK) {
        /* dispatch 0 again, into the top-level fields: read twice rather than deep-copied */
        size_t saved = case_path_enter_index(p, 0);
        s = read_kernel(p, list->child, c);
        if (s == CASE_OK)
            s = read_defines(p, list->child, c);
        if (s == CASE_OK)
            s = read_groups(p, list->child, c);
        if (s == CASE_OK)
            s = read_push_constants(p, list->child, c);
        case_path_leave(p, saved);
    }
    case_path_leave(p, outer);
    return s;
}

/* "device_differences": [{"device": "llvmpipe", "reason": "..."}]: devices known to differ from the model */
static case_status read_device_differences(parser *p, const cJSON *root, wl_case *c)
{
    const cJSON *list = case_field(root, "device_differences");
    if (!list)
        return CASE_OK;
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0)
        return case_fail_at(p, "device_differences", "expected a non-empty array of {\"device\", \"reason\"}, got %s",
                       case_json_kind(list));
    int n = cJSON_GetArraySize(list);
    c->device_differences = calloc((size_t)n, sizeof *c->device_differences);
    if (!c->device_differences)
        return case_fail_nomem(p);
    size_t outer = case_path_enter_key(p, "device_differences");
    for (int i = 0; i < n; i++) {
        const cJSON *item = cJSON_GetArrayItem(list, i);
        size_t saved = case_path_enter_index(p, i);
        static const char *const keys[] = {"device", "reason", NULL};
        const char *device = NULL, *reason = NULL;
        case_status s = cJSON_IsObject(item) ? case_check_keys(p, item, keys)
                                              : case_fail(p, "expected an object, got %s", case_json_kind(item));
        if (s == CASE_OK)
            s = case_read_string_field(p, item, "device", 1, &device);
        if (s == CASE_OK)
            s = case_read_string_field(p, item, "reason", 1, &reason);
        if (s == CASE_OK && (!device[0] || !reason[0]))
            s = case_fail(p, "\"device\" (part of the device name) and \"reason\" must not be empty");
        if (s == CASE_OK) {
            c->device_differences[i].device = case_dup_string(device);
            c->device_differences[i].reason = case_dup_string(reason);
            c->device_difference_count = i + 1;
            if (!c->device_differences[i].device || !c->device_differences[i].reason)
                s = case_fail_nomem(p);
        }
        case_path_leave(p, saved);
        if (s != CASE_OK)
            return s;
    }
    case_path_leave(p, outer);
    return CASE_OK;
}

int case_wave_applies(const wl_case *c, uint32_t wave, char *why, size_t why_size)
{
    if (c->subgroup_size && wave != c->subgroup_size)
        snprintf(why, why_size, "the case runs only at wave %u (subgroup_size)", c->subgroup_size);
    else if (c->min_subgroup_size && wave < c->min_subgroup_size)
        snprintf(why, why_size, "the expectations hold from wave %u (min_subgroup_size)", c->min_subgroup_size);
    else if (c->max_subgroup_size && wave > c->max_subgroup_size)
        snprintf(why, why_size, "the expectations hold up to wave %u (max_subgroup_size)", c->max_subgroup_size);
    else
        return 1;
    return 0;
}

const case_device_difference *case_device_difference_for(const wl_case *c, const char *device_name)
{
    for (int i = 0; i < c->device_difference_count; i++)
        if (strstr(device_name, c->device_differences[i].device))
            return &c->device_differences[i];
    return NULL;
}

/* "specialization": {"SpecId or name": value}.  Whether the kernel declares the key and the value fits
 * its type is the lowering's to check (isa_specialize): only the module knows. */
static case_status read_specialization(parser *p, const cJSON *root, wl_case *c)
{
    const cJSON *spec = case_field(root, "specialization");
    if (!spec)
        return CASE_OK;
    if (!cJSON_IsObject(spec))
        return case_fail_at(p, "specialization", "expected an object {\"SpecId or name\": value}, got %s",
                            case_json_kind(spec));
    int n = cJSON_GetArraySize(spec);
    if (n == 0)
        return CASE_OK;
    size_t saved_outer = case_path_enter_key(p, "specialization");
    case_status s = case_check_keys(p, spec, NULL);
    if (s == CASE_OK && !(c->spec = calloc((size_t)n, sizeof *c->spec)))
        s = case_fail_nomem(p);
    for (const cJSON *v = spec->child; v && s == CASE_OK; v = v->next) {
        const char *key = v->string ? v->string : "";
        size_t saved = case_path_enter_key(p, key);
        isa_spec_value *e = &c->spec[c->spec_count];
        if (!key[0])
            s = case_fail(p, "expected a SpecId or a constant's name, got \"\"");
        else if (cJSON_IsBool(v))
            e->is_bool = true, e->flag = cJSON_IsTrue(v);
        else if (cJSON_IsNumber(v) && isfinite(v->valuedouble))
            e->number = v->valuedouble;
        else
            s = case_fail(p, "expected true, false or a number, got %s", case_json_kind(v));
        case_path_leave(p, saved);
        if (s == CASE_OK) {
            if (!(e->key = case_dup_string(key)))
                s = case_fail_nomem(p);
            else
                c->spec_count++;
        }
    }
    case_path_leave(p, saved_outer);
    return s;
}

/* "dispatches"[i].bindings: [{"buffer": NAME, "set": S, "binding": B, "kind": K}], read once the case's bindings
 * (the buffers) are known.  Each entry is a copy of the named buffer at the pass's slot. */
static case_status read_pass_bindings(parser *p, const cJSON *obj, wl_case *c, case_dispatch *d)
{
    const cJSON *list = case_field(obj, "bindings");
    if (!list)
        return CASE_OK;
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0)
        return case_fail_at(p, "bindings", "expected a non-empty array of {\"buffer\", \"set\", \"binding\"}, got %s",
                            case_json_kind(list));
    int n = cJSON_GetArraySize(list);
    d->bindings = calloc((size_t)n, sizeof *d->bindings);
    d->binding_buffer = calloc((size_t)n, sizeof *d->binding_buffer);
    if (!d->bindings || !d->binding_buffer)
        return case_fail_nomem(p);
    size_t outer = case_path_enter_key(p, "bindings");
    case_status s = CASE_OK;
    int i = 0;
    for (const cJSON *v = list->child; v && s == CASE_OK; v = v->next, i++) {
        static const char *const keys[] = {"buffer", "set", "binding", "element", "kind", NULL};
        size_t saved = case_path_enter_index(p, (size_t)i);
        const char *buffer = NULL, *kind = NULL;
        uint64_t set = 0, binding = 0, element = 0;
        s = cJSON_IsObject(v) ? case_check_keys(p, v, keys) : case_fail(p, "expected an object, got %s",
                                                                         case_json_kind(v));
        if (s == CASE_OK)
            s = case_read_string_field(p, v, "buffer", 1, &buffer);
        if (s == CASE_OK)
            s = case_read_uint_field(p, v, "set", 0, 0, UINT32_MAX, 0, &set);
        if (s == CASE_OK)
            s = case_read_uint_field(p, v, "binding", 1, 0, UINT32_MAX, 0, &binding);
        if (s == CASE_OK)
            s = case_read_uint_field(p, v, "element", 0, 0, ISA_MAX_DESCRIPTOR_ARRAY - 1, 0, &element);
        if (s == CASE_OK)
            s = case_read_string_field(p, v, "kind", 0, &kind);
        int b = -1;
        for (int k = 0; s == CASE_OK && k < c->binding_count; k++)
            if (c->bindings[k].name && strcmp(c->bindings[k].name, buffer) == 0)
                b = k;
        if (s == CASE_OK && b < 0)
            s = case_fail_at(p, "buffer", "no binding named \"%.60s\" in \"bindings\"", buffer);
        if (s == CASE_OK) {
            d->bindings[i] = c->bindings[b];
            d->bindings[i].set = (uint32_t)set;
            d->bindings[i].binding = (uint32_t)binding;
            d->bindings[i].element = (uint32_t)element;
            d->binding_buffer[i] = b;
            d->binding_count = i + 1;
        }
        if (s == CASE_OK && kind) {
            /* a buffer may be bound as storage in one pass and uniform in another; nothing else changes kind */
            case_kind own = c->bindings[b].kind;
            int buffers = own == CASE_KIND_STORAGE_BUFFER || own == CASE_KIND_UNIFORM_BUFFER;
            if (strcmp(kind, case_kind_name(CASE_KIND_STORAGE_BUFFER)) == 0 && buffers)
                d->bindings[i].kind = CASE_KIND_STORAGE_BUFFER;
            else if (strcmp(kind, case_kind_name(CASE_KIND_UNIFORM_BUFFER)) == 0 && buffers)
                d->bindings[i].kind = CASE_KIND_UNIFORM_BUFFER;
            else if (strcmp(kind, case_kind_name(own)) != 0)
                s = case_fail_at(p, "kind", "\"%.40s\": a %s binding can be bound as %s%s", kind, case_kind_name(own),
                                 case_kind_name(own), buffers ? ", storage_buffer or uniform_buffer" : " only");
        }
        for (int j = 0; s == CASE_OK && j < i; j++)
            if (bindings_overlap(&d->bindings[j], &d->bindings[i])) {
                char where[CASE_DESCRIPTOR_TEXT_MAX];
                s = case_fail_at(p, "binding", "%s is already bound by bindings[%d]",
                                 case_descriptor_text((uint32_t)set, (uint32_t)binding, (uint32_t)element, where,
                                                      sizeof where), j);
            }
        case_path_leave(p, saved);
    }
    case_path_leave(p, outer);
    return s;
}

static case_status read_dispatch_bindings(parser *p, const cJSON *root, wl_case *c)
{
    const cJSON *list = case_field(root, "dispatches");
    if (!c->dispatches || !list)
        return CASE_OK;
    size_t outer = case_path_enter_key(p, "dispatches");
    case_status s = CASE_OK;
    int i = 0;
    for (const cJSON *v = list->child; v && s == CASE_OK && i < c->dispatch_count; v = v->next, i++) {
        size_t saved = case_path_enter_index(p, (size_t)i);
        s = read_pass_bindings(p, v, c, &c->dispatches[i]);
        case_path_leave(p, saved);
    }
    case_path_leave(p, outer);
    return s;
}

static case_status read_case(parser *p, const cJSON *root, wl_case *c)
{
    static const char *const keys[] = {"description", "kernel", "language", "entry", "defines", "groups",
                                       "subgroup_size", "min_subgroup_size", "max_subgroup_size", "push_constants",
                                       "bindings", "expect", "known_failure", "optimize", "target_env", "robust_access",
                                       "dispatches", "specialization",
                                       "device_differences", NULL};
    const char *optimize, *target_env;
    if (!cJSON_IsObject(root))
        return case_fail(p, "expected a JSON object at the top level, got %s", case_json_kind(root));
    TRY(case_check_keys(p, root, keys));
    const cJSON *description = case_field(root, "description");
    if (description && !cJSON_IsString(description))
        return case_fail_at(p, "description", "expected a string, got %s", case_json_kind(description));
    const cJSON *known = case_field(root, "known_failure");
    if (known) {
        if (!cJSON_IsString(known) || !known->valuestring[0])
            return case_fail_at(p, "known_failure", "expected a non-empty string (the reason), got %s", case_json_kind(known));
        c->known_failure = case_dup_string(known->valuestring);
        if (!c->known_failure)
            return case_fail_nomem(p);
    }
    TRY(read_device_differences(p, root, c));
    TRY(read_dispatches(p, root, c));
    TRY(read_specialization(p, root, c));
    TRY(case_read_string_field(p, root, "optimize", 0, &optimize));
    if (optimize) {
        if (!optimize[0])
            return case_fail_at(p, "optimize", "expected \"performance\", \"size\" or spirv-opt flags, got \"\"");
        c->optimize = case_dup_string(optimize);
        if (!c->optimize)
            return case_fail_nomem(p);
    }
    TRY(case_read_string_field(p, root, "target_env", 0, &target_env));
    if (target_env) {
        /* isa_compile names the environments it knows when this one is not among them */
        c->target_env = case_dup_string(target_env);
        if (!c->target_env)
            return case_fail_nomem(p);
    }
    const cJSON *robust = case_field(root, "robust_access");
    if (robust) {
        if (!cJSON_IsBool(robust))
            return case_fail_at(p, "robust_access", "expected true or false, got %s", case_json_kind(robust));
        c->robust_access = cJSON_IsTrue(robust);
    }
    if (!c->dispatches) {
        TRY(read_defines(p, root, c));
        TRY(read_groups(p, root, c));
    }
    static const char *const sizes[] = {"subgroup_size", "min_subgroup_size", "max_subgroup_size"};
    uint32_t *const size_fields[] = {&c->subgroup_size, &c->min_subgroup_size, &c->max_subgroup_size};
    for (int k = 0; k < 3; k++) {
        const cJSON *subgroup = case_field(root, sizes[k]);
        if (!subgroup)
            continue;
        uint64_t size;
        size_t saved = case_path_enter_key(p, sizes[k]);
        case_status s = case_read_uint(p, subgroup, 4, 128, &size);
        if (s == CASE_OK && (size & (size - 1)) != 0)
            s = case_fail(p, "%" PRIu64 " is not a power of two (4, 8, 16, 32, 64 or 128)", size);
        case_path_leave(p, saved);
        if (s != CASE_OK)
            return s;
        *size_fields[k] = (uint32_t)size;
    }
    if (c->min_subgroup_size && c->max_subgroup_size && c->min_subgroup_size > c->max_subgroup_size)
        return case_fail_at(p, "min_subgroup_size", "%u is above max_subgroup_size %u", c->min_subgroup_size,
                            c->max_subgroup_size);
    if (c->subgroup_size && (c->min_subgroup_size || c->max_subgroup_size))
        return case_fail_at(p, c->min_subgroup_size ? "min_subgroup_size" : "max_subgroup_size",
                            "subgroup_size already fixes the wave size at %u", c->subgroup_size);
    if (!c->dispatches)
        TRY(read_push_constants(p, root, c));
    TRY(read_bindings(p, root, c));
    TRY(read_dispatch_bindings(p, root, c));
    TRY(read_expects(p, root, c));
    return CASE_OK;
}

/* ------------------------------------------------------------------------- */
/* Public entry points                                                        */
/* ------------------------------------------------------------------------- */

/* "FILE: line L, column C: ..." for a JSON syntax error at `at`. */
static void json_error_message(const char *file, const char *text, size_t text_len, const char *at,
                               char *err, size_t err_size)
{
    if (!err || !err_size)
        return;
    if (!at || at < text || at > text + text_len)
        at = text + text_len;
    size_t line = 1, column = 1;
    for (const char *k = text; k < at; k++) {
        if (*k == '\n') {
            line++;
            column = 1;
        } else {
            column++;
        }
    }
    char near[24];
    size_t n = 0;
    for (const char *k = at; *k && *k != '\n' && n + 1 < sizeof near; k++)
        near[n++] = (*k >= 0x20 && *k < 0x7F) ? *k : '?';
    near[n] = '\0';
    if (n)
        snprintf(err, err_size, "%s: line %zu, column %zu: invalid JSON near \"%s\"", file, line, column, near);
    else
        snprintf(err, err_size, "%s: line %zu, column %zu: invalid JSON (unexpected end of input)", file, line,
                 column);
}

case_status case_parse(const char *json_text, const char *path, wl_case **out, char *err, size_t err_size)
{
    parser p = {.file = path ? path : "<memory>", .err = err, .err_size = err_size};
    if (err && err_size)
        err[0] = '\0';
    if (out)
        *out = NULL;
    if (!json_text || !out) {
        if (err && err_size)
            snprintf(err, err_size, "%s: no case text", p.file);
        return CASE_ERR_IO;
    }

    const char *parse_end = NULL;
    /* return_parse_end is the same position cJSON_GetErrorPtr() reports, without the global. */
    cJSON *root = cJSON_ParseWithOpts(json_text, &parse_end, 1);
    if (!root) {
        json_error_message(p.file, json_text, strlen(json_text), parse_end, err, err_size);
        return CASE_ERR_JSON;
    }

    wl_case *c = calloc(1, sizeof *c);
    case_status s = CASE_ERR_NOMEM;
    if (c) {
        c->path = case_dup_string(p.file);
        c->dir = path ? directory_of(path) : case_dup_string(".");
        p.dir = c->dir;
        s = (c->path && c->dir) ? read_case(&p, root, c) : case_fail_nomem(&p);
    } else {
        case_fail_nomem(&p);
    }
    cJSON_Delete(root);
    if (s != CASE_OK) {
        case_destroy(c);
        return s;
    }
    *out = c;
    return CASE_OK;
}

case_status case_load(const char *path, wl_case **out, char *err, size_t err_size)
{
    if (out)
        *out = NULL;
    if (err && err_size)
        err[0] = '\0';
    if (!path) {
        if (err && err_size)
            snprintf(err, err_size, "<none>: no case file named");
        return CASE_ERR_IO;
    }
    size_t len = 0;
    char *text = text_read_file(path, CASE_MAX_FILE_BYTES, &len, err, err_size);
    if (!text)
        return CASE_ERR_IO;
    case_status s = CASE_OK;
    if (amber_is_script(path)) { /* an Amber script: case/amber.h */
        s = amber_parse(text, len, path, out, err, err_size);
    } else {
        if (strlen(text) != len) {
            /* cJSON would stop at the NUL and never see the rest */
            json_error_message(path, text, len, text + strlen(text), err, err_size);
            if (err && err_size)
                snprintf(err + strlen(err), err_size - strlen(err), " (a NUL byte in the file)");
            s = CASE_ERR_JSON;
        } else {
            s = case_parse(text, path, out, err, err_size);
        }
    }
    free(text);
    return s;
}

void case_destroy(wl_case *c)
{
    if (!c)
        return;
    free(c->path);
    free(c->dir);
    free(c->kernel);
    free(c->language);
    free(c->entry);
    free(c->known_failure);
    for (int i = 0; i < c->device_difference_count; i++) {
        free(c->device_differences[i].device);
        free(c->device_differences[i].reason);
    }
    free(c->device_differences);
    free(c->optimize);
    free(c->target_env);
    defines_free(c->defines, c->define_count);
    spec_free(c->spec, c->spec_count);
    free(c->push_constants);
    for (int i = 0; c->bindings && i < c->binding_count; i++) {
        free(c->bindings[i].bytes);
        free(c->bindings[i].name);
    }
    free(c->bindings);
    for (int i = 0; c->expects && i < c->expect_count; i++)
        free(c->expects[i].bytes);
    free(c->expects);
    for (int i = 0; c->dispatches && i < c->dispatch_count; i++)
        dispatch_free(&c->dispatches[i]);
    free(c->dispatches);
    free(c);
}

int case_dispatch_total(const wl_case *c)
{
    return c->dispatches ? c->dispatch_count : 1;
}

void case_dispatch_view(const wl_case *c, int i, wl_case *view)
{
    *view = *c;
    view->dispatches = NULL;
    view->dispatch_count = 0;
    if (!c->dispatches)
        return;
    const case_dispatch *d = &c->dispatches[i];
    view->kernel = d->kernel;
    view->language = d->language;
    view->entry = d->entry;
    view->defines = d->defines;
    view->define_count = d->define_count;
    memcpy(view->groups, d->groups, sizeof view->groups);
    view->push_type = d->push_type;
    view->push_constants = d->push_constants;
    view->push_size = d->push_size;
    if (d->bindings) {
        view->bindings = d->bindings;
        view->binding_count = d->binding_count;
    }
    if (d->spec) {
        view->spec = d->spec;
        view->spec_count = d->spec_count;
    }
    if (d->target_env)
        view->target_env = d->target_env;
    view->kernel_text = d->kernel_text;
    view->kernel_words = d->kernel_words;
    view->kernel_word_count = d->kernel_word_count;
}

int case_dispatch_buffer(const wl_case *c, int i, int k)
{
    if (!c->dispatches || !c->dispatches[i].binding_buffer)
        return k;
    return c->dispatches[i].binding_buffer[k];
}

const char *case_dispatch_name(const wl_case *c, int i)
{
    return c->dispatches ? c->dispatches[i].name : "";
}

const char *case_descriptor_text(uint32_t set, uint32_t binding, uint32_t element, char *buf, size_t size)
{
    if (element)
        snprintf(buf, size, "set %u binding %u element %u", set, binding, element);
    else
        snprintf(buf, size, "set %u binding %u", set, binding);
    return buf;
}

void case_write_descriptor(FILE *f, const case_binding *b)
{
    fprintf(f, "\"set\": %u, \"binding\": %u", b->set, b->binding);
    if (b->element)
        fprintf(f, ", \"element\": %u", b->element);
}

const char *case_views_name(case_views v)
{
    static const char *const names[] = {
#define X(id, name) name,
        CASE_VIEWS_LIST(X)
#undef X
    };
    return (unsigned)v < sizeof names / sizeof *names ? names[v] : "";
}

uint32_t case_binding_descriptors(const case_binding *b)
{
    return b->views == CASE_VIEWS_MIPS ? b->image.mip_levels : b->views == CASE_VIEWS_LAYERS ? b->image.layers : 1;
}

uint32_t case_binding_end(const case_binding *b) { return b->element + case_binding_descriptors(b); }

int case_array_lengths(const wl_case *c, isa_array_length *out)
{
    int n = 0;
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        int k = 0;
        while (k < n && !(out[k].set == b->set && out[k].binding == b->binding))
            k++;
        if (k == n)
            out[n++] = (isa_array_length){b->set, b->binding, 0};
        if (case_binding_end(b) > out[k].count)
            out[k].count = case_binding_end(b);
    }
    return n;
}

void case_isa_spec(const wl_case *c, isa_array_length *lengths, isa_spec *spec)
{
    *spec = (isa_spec){.values = c->spec, .count = c->spec_count, .arrays = lengths,
                       .array_count = case_array_lengths(c, lengths)};
}

const case_binding *case_find_binding(const wl_case *c, uint32_t set, uint32_t binding, uint32_t element)
{
    if (!c || !c->bindings)
        return NULL;
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        if (b->set == set && b->binding == binding && element >= b->element &&
            element - b->element < case_binding_descriptors(b))
            return b;
    }
    return NULL;
}

const case_expect *case_expect_for(const wl_case *c, const case_binding *b)
{
    for (int i = 0; i < c->expect_count; i++)
        if (ISA_SAME_DESCRIPTOR(c->expects[i], *b))
            return &c->expects[i];
    return NULL;
}
