/*
 * api/api_case.c — the public API's cases (api/wavelab.h): loading a case
 * file, building a case in code, and compiling its kernel once.  A case
 * handle wraps the case module's wl_case, so a case built here runs exactly
 * as the same case written as a file would.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/api_internal.h"
#include "isa/isa.h"
#include "run/run.h"

/* The public element types, kinds and comparisons in the case module's terms: one row each. */
static const struct {
    wavelab_type pub;
    case_type type;
} type_table[] = {
    {WAVELAB_U8, CASE_TYPE_U8},   {WAVELAB_I8, CASE_TYPE_I8},   {WAVELAB_U16, CASE_TYPE_U16},
    {WAVELAB_I16, CASE_TYPE_I16}, {WAVELAB_U32, CASE_TYPE_U32}, {WAVELAB_I32, CASE_TYPE_I32},
    {WAVELAB_U64, CASE_TYPE_U64}, {WAVELAB_I64, CASE_TYPE_I64}, {WAVELAB_F16, CASE_TYPE_F16},
    {WAVELAB_F32, CASE_TYPE_F32}, {WAVELAB_F64, CASE_TYPE_F64},
};
_Static_assert(sizeof type_table / sizeof type_table[0] == CASE_TYPE_COUNT, "one row per case type");

static const struct {
    wavelab_kind pub;
    case_kind kind;
} kind_table[] = {
    {WAVELAB_STORAGE_BUFFER, CASE_KIND_STORAGE_BUFFER},
    {WAVELAB_UNIFORM_BUFFER, CASE_KIND_UNIFORM_BUFFER},
    {WAVELAB_STORAGE_TEXEL_BUFFER, CASE_KIND_STORAGE_TEXEL_BUFFER},
    {WAVELAB_UNIFORM_TEXEL_BUFFER, CASE_KIND_UNIFORM_TEXEL_BUFFER},
};
/* The image kinds (case_kind_is_image, sampler) are case-file only: the public API has buffer kinds. */
_Static_assert(sizeof kind_table / sizeof kind_table[0] == CASE_KIND_STORAGE_IMAGE, "one row per buffer kind");

static const struct {
    wavelab_compare pub;
    case_compare compare;
} compare_table[] = {
    {WAVELAB_COMPARE_EXACT, CASE_COMPARE_EXACT},
    {WAVELAB_COMPARE_ULP, CASE_COMPARE_ULP},
    {WAVELAB_COMPARE_EPSILON, CASE_COMPARE_EPSILON},
    {WAVELAB_COMPARE_SORTED, CASE_COMPARE_SORTED},
    {WAVELAB_COMPARE_RELATIVE, CASE_COMPARE_RELATIVE},
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static int type_of(wavelab_type t, case_type *out)
{
    for (size_t i = 0; i < COUNT_OF(type_table); i++)
        if (type_table[i].pub == t) {
            *out = type_table[i].type;
            return 1;
        }
    return 0;
}

size_t wavelab_type_size(wavelab_type t)
{
    case_type ct;
    return type_of(t, &ct) ? case_type_size(ct) : 0;
}

static wavelab_status fail(wavelab_case *k, wavelab_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->message, sizeof k->message, fmt, ap);
    va_end(ap);
    return st;
}

/* Replaces *slot with a copy of s; 0 when out of memory (the old value is kept). */
static int replace_string(char **slot, const char *s)
{
    char *copy = strdup(s);
    if (!copy)
        return 0;
    free(*slot);
    *slot = copy;
    return 1;
}

static wavelab_case *case_handle_new(void)
{
    wavelab_case *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    pthread_mutex_init(&k->lock, NULL);
    return k;
}

wavelab_status wavelab_case_create(wavelab_case **out)
{
    if (!out)
        return WAVELAB_ERR_ARGUMENT;
    *out = NULL;
    wavelab_case *k = case_handle_new();
    wl_case *c = k ? calloc(1, sizeof *c) : NULL;
    if (c) {
        c->path = strdup("case");
        c->dir = strdup(".");
        c->entry = strdup("main");
        c->groups[0] = c->groups[1] = c->groups[2] = 1;
        c->push_type = CASE_TYPE_U8;
    }
    if (!c || !c->path || !c->dir || !c->entry) {
        case_destroy(c);
        if (k)
            pthread_mutex_destroy(&k->lock);
        free(k);
        return WAVELAB_ERR_NOMEM;
    }
    k->c = c;
    *out = k;
    return WAVELAB_OK;
}

wavelab_status wavelab_case_load(const char *path, wavelab_case **out)
{
    if (!out)
        return WAVELAB_ERR_ARGUMENT;
    *out = case_handle_new();
    if (!*out)
        return WAVELAB_ERR_NOMEM;
    if (!path)
        return fail(*out, WAVELAB_ERR_ARGUMENT, "wavelab_case_load: path is NULL");
    case_status st = case_load(path, &(*out)->c, (*out)->message, sizeof (*out)->message);
    if (st == CASE_ERR_NOMEM)
        return WAVELAB_ERR_NOMEM;
    if (st != CASE_OK)
        return WAVELAB_ERR_CASE;
    (*out)->kernel_from = API_KERNEL_FILE;
    return WAVELAB_OK;
}

void wavelab_case_destroy(wavelab_case *k)
{
    if (!k)
        return;
    case_destroy(k->c);
    free(k->source);
    free(k->spirv);
    free(k->compile_message);
    free(k->compile_warnings);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

const char *wavelab_case_message(const wavelab_case *k)
{
    return k ? k->message : "no case (NULL)";
}

/* Every setter: a usable handle, and nothing compiled yet (a compiled case is being run, perhaps on other
 * threads, and must not change under them). */
static wavelab_status check_mutable(wavelab_case *k, const char *fn)
{
    if (!k)
        return WAVELAB_ERR_ARGUMENT;
    k->message[0] = 0;
    if (!k->c)
        return fail(k, WAVELAB_ERR_ARGUMENT, "%s: the case did not load", fn);
    if (k->compiled)
        return fail(k, WAVELAB_ERR_ARGUMENT, "%s: the case has been run: make a new case to change it", fn);
    return WAVELAB_OK;
}

/* Drops whatever kernel the case had. */
static void forget_kernel(wavelab_case *k)
{
    free(k->source);
    k->source = NULL;
    free(k->spirv);
    k->spirv = NULL;
    k->spirv_words = 0;
    k->kernel_from = API_KERNEL_NONE;
}

static int is_language(const char *language)
{
    return language && (strcmp(language, "glsl") == 0 || strcmp(language, "hlsl") == 0);
}

wavelab_status wavelab_case_set_source(wavelab_case *k, const char *language, const char *name, const char *source)
{
    wavelab_status st = check_mutable(k, "wavelab_case_set_source");
    if (st != WAVELAB_OK)
        return st;
    if (!is_language(language))
        return fail(k, WAVELAB_ERR_ARGUMENT, "wavelab_case_set_source: language \"%s\" (expected \"glsl\" or \"hlsl\")",
                    language ? language : "(NULL)");
    if (!source)
        return fail(k, WAVELAB_ERR_ARGUMENT, "wavelab_case_set_source: source is NULL");
    if (!name || !name[0])
        name = strcmp(language, "hlsl") == 0 ? "kernel.hlsl" : "kernel.comp";
    char *text = strdup(source);
    if (!text || !replace_string(&k->c->kernel, name) || !replace_string(&k->c->language, language) ||
        !replace_string(&k->c->path, name)) {
        free(text);
        return WAVELAB_ERR_NOMEM;
    }
    forget_kernel(k);
    k->source = text;
    k->kernel_from = API_KERNEL_SOURCE;
    return WAVELAB_OK;
}

/* "glsl" or "hlsl" from a file name's extension, NULL when it does not say (the case format's rule). */
static const char *language_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return NULL;
    if (strcasecmp(dot, ".comp") == 0 || strcasecmp(dot, ".glsl") == 0)
        return "glsl";
    if (strcasecmp(dot, ".hlsl") == 0)
        return "hlsl";
    return NULL;
}

wavelab_status wavelab_case_set_kernel_file(wavelab_case *k, const char *path)
{
    wavelab_status st = check_mutable(k, "wavelab_case_set_kernel_file");
    if (st != WAVELAB_OK)
        return st;
    if (!path)
        return fail(k, WAVELAB_ERR_ARGUMENT, "wavelab_case_set_kernel_file: path is NULL");
    const char *language = language_of(path);
    if (!language)
        return fail(k, WAVELAB_ERR_ARGUMENT,
                    "%s: cannot tell the language from the extension (use .comp, .glsl or .hlsl, or "
                    "wavelab_case_set_source)", path);
    if (!replace_string(&k->c->kernel, path) || !replace_string(&k->c->language, language) ||
        !replace_string(&k->c->path, path))
        return WAVELAB_ERR_NOMEM;
    forget_kernel(k);
    k->kernel_from = API_KERNEL_FILE;
    return WAVELAB_OK;
}

wavelab_status wavelab_case_set_spirv(wavelab_case *k, const uint32_t *words, size_t word_count)
{
    wavelab_status st = check_mutable(k, "wavelab_case_set_spirv");
    if (st != WAVELAB_OK)
        return st;
    if (!words || word_count == 0)
        return fail(k, WAVELAB_ERR_ARGUMENT, "wavelab_case_set_spirv: no words");
    uint32_t *copy = malloc(word_count * sizeof *copy);
    if (!copy || !replace_string(&k->c->kernel, "spirv") || !replace_string(&k->c->path, "spirv")) {
        free(copy);
        return WAVELAB_ERR_NOMEM;
    }
    memcpy(copy, words, word_count * sizeof *copy);
    forget_kernel(k);
    k->spirv = copy;
    k->spirv_words = word_count;
    k->kernel_from = API_KERNEL_SPIRV;
    return WAVELAB_OK;
}

wavelab_status wavelab_case_set_entry(wavelab_case *k, const char *entry)
{
    wavelab_status st = check_mutable(k, "wavelab_case_set_entry");
    if (st != WAVELAB_OK)
        return st;
    if (!entry || !entry[0])
        return fail(k, WAVELAB_ERR_ARGUMENT, "wavelab_case_set_entry: empty entry point name");
    return replace_string(&k->c->entry, entry) ? WAVELAB_OK : WAVELAB_ERR_NOMEM;
}

wavelab_status wavelab_case_define(wavelab_case *k, const char *name, const char *value)
{
    wavelab_status st = check_mutable(k, "wavelab_case_define");
    if (st != WAVELAB_OK)
        return st;
    if (!case_define_name_ok(name))
        return fail(k, WAVELAB_ERR_ARGUMENT, "wavelab_case_define: \"%s\" is not a C identifier",
                    name ? name : "(NULL)");
    if (!value)
        value = "";
    if (!case_define_value_ok(value)) /* after a CR or LF the rest would be a preprocessor line of its own */
        return fail(k, WAVELAB_ERR_ARGUMENT, "wavelab_case_define: %s: the value must be one line (no \\r or \\n)",
                    name);
    wl_case *c = k->c;
    case_define *grown = realloc(c->defines, (size_t)(c->define_count + 1) * sizeof *grown);
    if (!grown)
        return WAVELAB_ERR_NOMEM;
    c->defines = grown;
    case_define *d = &c->defines[c->define_count];
    d->name = strdup(name);
    d->value = strdup(value);
    if (!d->name || !d->value) {
        free(d->name);
        free(d->value);
        return WAVELAB_ERR_NOMEM;
    }
    c->define_count++;
    return WAVELAB_OK;
}

wavelab_status wavelab_case_set_groups(wavelab_case *k, uint32_t x, uint32_t y, uint32_t z)
{
    wavelab_status st = check_mutable(k, "wavelab_case_set_groups");
    if (st != WAVELAB_OK)
        return st;
    if (!x || !y || !z)
        return fail(k, WAVELAB_ERR_ARGUMENT, "wavelab_case_set_groups: [%u, %u, %u]: each count must be at least 1",
                    x, y, z);
    k->c->groups[0] = x, k->c->groups[1] = y, k->c->groups[2] = z;
    return WAVELAB_OK;
}

wavelab_status wavelab_case_set_push_constants(wavelab_case *k, const void *bytes, size_t size)
{
    wavelab_status st = check_mutable(k, "wavelab_case_set_push_constants");
    if (st != WAVELAB_OK)
        return st;
    if (size && !bytes)
        return fail(k, WAVELAB_ERR_ARGUMENT, "wavelab_case_set_push_constants: %zu bytes from NULL", size);
    /* the case format's limits, so a case built here runs on a device and reads back from a dump */
    if (size % 4 != 0 || size > CASE_MAX_PUSH_BYTES)
        return fail(k, WAVELAB_ERR_ARGUMENT, "wavelab_case_set_push_constants: %zu bytes (expected a multiple of 4 "
                    "bytes, at most %d)", size, CASE_MAX_PUSH_BYTES);
    uint8_t *copy = NULL;
    if (size) {
        copy = malloc(size);
        if (!copy)
            return WAVELAB_ERR_NOMEM;
        memcpy(copy, bytes, size);
    }
    free(k->c->push_constants);
    k->c->push_constants = copy;
    k->c->push_size = size;
    k->c->push_type = CASE_TYPE_U32; /* only decides how dumps print the block */
    return WAVELAB_OK;
}

/* Refuses an element past a descriptor array's largest (the case format's limit); else writes how messages name
 * the descriptor ("set 0 binding 1", "set 0 binding 1 element 2") into where. */
static wavelab_status descriptor_ok(wavelab_case *k, const char *fn, uint32_t set, uint32_t binding, uint32_t element,
                                    char *where, size_t where_size)
{
    case_descriptor_text(set, binding, element, where, where_size);
    if (element >= ISA_MAX_DESCRIPTOR_ARRAY)
        return fail(k, WAVELAB_ERR_ARGUMENT, "%s: %s: a descriptor array has at most %u elements (0 to %u)", fn, where,
                    ISA_MAX_DESCRIPTOR_ARRAY, ISA_MAX_DESCRIPTOR_ARRAY - 1);
    return WAVELAB_OK;
}

static wavelab_status add_binding(wavelab_case *k, const char *fn, wavelab_kind kind, uint32_t set, uint32_t binding,
                                  uint32_t element, wavelab_type type, const void *data, size_t count)
{
    wavelab_status st = check_mutable(k, fn);
    char where[CASE_DESCRIPTOR_TEXT_MAX];
    if (st != WAVELAB_OK || (st = descriptor_ok(k, fn, set, binding, element, where, sizeof where)) != WAVELAB_OK)
        return st;
    case_type ct;
    if (!type_of(type, &ct))
        return fail(k, WAVELAB_ERR_ARGUMENT, "%s: %s: type %d is not a wavelab_type", fn, where, (int)type);
    if ((unsigned)kind >= COUNT_OF(kind_table))
        return fail(k, WAVELAB_ERR_ARGUMENT, "%s: %s: kind %d is not a wavelab_kind", fn, where, (int)kind);
    if (count == 0 || count > CASE_MAX_BINDING_BYTES / case_type_size(ct))
        return fail(k, WAVELAB_ERR_ARGUMENT, "%s: %s: count %zu (expected 1 to %zu elements: a binding holds at most "
                    "%zu bytes)", fn, where, count, CASE_MAX_BINDING_BYTES / case_type_size(ct),
                    CASE_MAX_BINDING_BYTES);
    wl_case *c = k->c;
    /* the descriptor is taken when a binding fills it: its own element or a view of a loaded case's image */
    if (case_find_binding(c, set, binding, element))
        return fail(k, WAVELAB_ERR_ARGUMENT, "%s: %s is already bound", fn, where);
    size_t size = count * case_type_size(ct);
    uint8_t *bytes = calloc(1, size);
    case_binding *grown = bytes ? realloc(c->bindings, (size_t)(c->binding_count + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(bytes);
        return WAVELAB_ERR_NOMEM;
    }
    c->bindings = grown;
    if (data)
        memcpy(bytes, data, size);
    c->bindings[c->binding_count++] = (case_binding){
        .set = set, .binding = binding, .element = element, .kind = kind_table[kind].kind, .type = ct,
        .count = count, .size = size, .bytes = bytes,
    };
    return WAVELAB_OK;
}

wavelab_status wavelab_case_add_binding(wavelab_case *k, wavelab_kind kind, uint32_t set, uint32_t binding,
                                        wavelab_type type, const void *data, size_t count)
{
    return add_binding(k, "wavelab_case_add_binding", kind, set, binding, 0, type, data, count);
}

wavelab_status wavelab_case_add_binding_element(wavelab_case *k, wavelab_kind kind, uint32_t set, uint32_t binding,
                                                uint32_t element, wavelab_type type, const void *data, size_t count)
{
    return add_binding(k, "wavelab_case_add_binding_element", kind, set, binding, element, type, data, count);
}

/* The binding added at exactly (set, binding, element) -- not a view of another -- or NULL with the message set. */
static case_binding *added_binding(wavelab_case *k, const char *fn, uint32_t set, uint32_t binding, uint32_t element,
                                   const char *where, const char *hint)
{
    case_binding *b = (case_binding *)case_find_binding(k->c, set, binding, element);
    if (!b || b->element != element) {
        fail(k, WAVELAB_ERR_ARGUMENT, "%s: no binding %s%s", fn, where, hint);
        return NULL;
    }
    return b;
}

static wavelab_status set_texel_format(wavelab_case *k, const char *fn, uint32_t set, uint32_t binding,
                                       uint32_t element, const char *format)
{
    wavelab_status st = check_mutable(k, fn);
    char where[CASE_DESCRIPTOR_TEXT_MAX];
    if (st != WAVELAB_OK || (st = descriptor_ok(k, fn, set, binding, element, where, sizeof where)) != WAVELAB_OK)
        return st;
    case_binding *b = added_binding(k, fn, set, binding, element, where, "");
    if (!b)
        return WAVELAB_ERR_ARGUMENT;
    if (b->kind != CASE_KIND_STORAGE_TEXEL_BUFFER && b->kind != CASE_KIND_UNIFORM_TEXEL_BUFFER)
        return fail(k, WAVELAB_ERR_ARGUMENT, "%s: %s is a %s, not a texel buffer", fn, where, case_kind_name(b->kind));
    if (!format || !format[0] || strlen(format) >= sizeof b->format ||
        isa_format_from_name(format) == ISA_FORMAT_UNKNOWN)
        return fail(k, WAVELAB_ERR_ARGUMENT, "%s: %s: \"%s\" is not a texel format wavelab converts", fn, where,
                    format ? format : "(NULL)");
    snprintf(b->format, sizeof b->format, "%s", format);
    return WAVELAB_OK;
}

wavelab_status wavelab_case_set_texel_format(wavelab_case *k, uint32_t set, uint32_t binding, const char *format)
{
    return set_texel_format(k, "wavelab_case_set_texel_format", set, binding, 0, format);
}

wavelab_status wavelab_case_set_texel_format_element(wavelab_case *k, uint32_t set, uint32_t binding,
                                                     uint32_t element, const char *format)
{
    return set_texel_format(k, "wavelab_case_set_texel_format_element", set, binding, element, format);
}

static wavelab_status expect(wavelab_case *k, const char *fn, uint32_t set, uint32_t binding, uint32_t element,
                             const void *expected, size_t count, wavelab_compare compare, double tolerance)
{
    wavelab_status st = check_mutable(k, fn);
    char where[CASE_DESCRIPTOR_TEXT_MAX];
    if (st != WAVELAB_OK || (st = descriptor_ok(k, fn, set, binding, element, where, sizeof where)) != WAVELAB_OK)
        return st;
    wl_case *c = k->c;
    const case_binding *b = added_binding(k, fn, set, binding, element, where, " (add it first)");
    if (!b)
        return WAVELAB_ERR_ARGUMENT;
    if (!expected || count == 0 || count > b->count)
        return fail(k, WAVELAB_ERR_ARGUMENT, "%s: %s: %zu expected elements, the binding holds %zu", fn, where,
                    expected ? count : 0, b->count);
    if ((unsigned)compare >= COUNT_OF(compare_table) || !(tolerance >= 0))
        return fail(k, WAVELAB_ERR_ARGUMENT, "%s: %s: bad comparison or tolerance", fn, where);
    if (case_compare_takes_tolerance(compare_table[compare].compare) && !case_type_is_float(b->type))
        return fail(k, WAVELAB_ERR_ARGUMENT, "%s: %s: ULP, epsilon and relative comparisons are for float bindings, "
                    "this one is %s", fn, where, case_type_name(b->type));
    size_t size = count * case_type_size(b->type);
    uint8_t *bytes = malloc(size);
    case_expect *grown = bytes ? realloc(c->expects, (size_t)(c->expect_count + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(bytes);
        return WAVELAB_ERR_NOMEM;
    }
    c->expects = grown;
    memcpy(bytes, expected, size);
    c->expects[c->expect_count++] = (case_expect){
        .set = set, .binding = binding, .element = element, .type = b->type,
        .compare = compare_table[compare].compare, .tolerance = tolerance, .count = count, .bytes = bytes,
    };
    return WAVELAB_OK;
}

wavelab_status wavelab_case_expect(wavelab_case *k, uint32_t set, uint32_t binding, const void *expected,
                                   size_t count, wavelab_compare compare, double tolerance)
{
    return expect(k, "wavelab_case_expect", set, binding, 0, expected, count, compare, tolerance);
}

wavelab_status wavelab_case_expect_element(wavelab_case *k, uint32_t set, uint32_t binding, uint32_t element,
                                           const void *expected, size_t count, wavelab_compare compare,
                                           double tolerance)
{
    return expect(k, "wavelab_case_expect_element", set, binding, element, expected, count, compare, tolerance);
}

int wavelab_case_expect_count(const wavelab_case *k)
{
    return k && k->c ? k->c->expect_count : 0;
}

/* Compiles (or validates) the kernel; called once, under the case's lock. */
static void compile_kernel(wavelab_case *k)
{
    char err[4096] = "", warnings[4096] = "";
    wl_case *c = k->c;
    isa_status st = ISA_OK;
    switch (k->kernel_from) {
    case API_KERNEL_NONE:
        snprintf(err, sizeof err, "the case has no kernel (wavelab_case_set_source, _set_kernel_file or _set_spirv)");
        k->compile_status = WAVELAB_ERR_ARGUMENT;
        break;
    case API_KERNEL_FILE:
        st = run_compile_case(c, &k->spirv, &k->spirv_words, err, sizeof err, warnings, sizeof warnings);
        break;
    case API_KERNEL_SOURCE: {
        isa_define *defs = c->define_count ? calloc((size_t)c->define_count, sizeof *defs) : NULL;
        if (c->define_count && !defs) {
            st = ISA_ERR_NOMEM;
            break;
        }
        for (int i = 0; i < c->define_count; i++)
            defs[i] = (isa_define){.name = c->defines[i].name, .value = c->defines[i].value};
        isa_compile_options o = {
            .path = c->kernel, .source = k->source, .language = c->language, .entry = c->entry,
            .defines = defs, .define_count = c->define_count, .target_env = c->target_env,
        };
        st = isa_compile(&o, &k->spirv, &k->spirv_words, err, sizeof err, warnings, sizeof warnings);
        free(defs);
        if (st != ISA_OK)
            break;
    }
        /* fall through - compiled words are validated like given ones */
    case API_KERNEL_SPIRV: {
        char verr[2048];
        st = isa_validate(k->spirv, k->spirv_words, verr, sizeof verr);
        /* SPIR-V from elsewhere: inlining and SSA, nothing that moves code across control flow (isa.h) */
        if (st == ISA_OK && k->kernel_from == API_KERNEL_SPIRV)
            st = isa_spirv_legalize(&k->spirv, &k->spirv_words, verr, sizeof verr);
        if (st != ISA_OK)
            snprintf(err, sizeof err, "%s: %s", c->kernel, verr);
        break;
    }
    }
    if (k->kernel_from != API_KERNEL_NONE)
        k->compile_status = st == ISA_OK ? WAVELAB_OK : st == ISA_ERR_NOMEM ? WAVELAB_ERR_NOMEM : WAVELAB_ERR_COMPILE;
    k->compile_message = strdup(err);
    k->compile_warnings = strdup(warnings);
    k->compiled = 1;
}

wavelab_status api_case_words(wavelab_case *k, const uint32_t **words, size_t *word_count, const char **message,
                              const char **warnings)
{
    pthread_mutex_lock(&k->lock);
    if (!k->compiled)
        compile_kernel(k);
    pthread_mutex_unlock(&k->lock);
    *words = k->spirv;
    *word_count = k->spirv_words;
    *message = k->compile_message ? k->compile_message : "out of memory";
    *warnings = k->compile_warnings ? k->compile_warnings : "";
    if (k->compile_status == WAVELAB_OK && (!k->compile_message || !k->compile_warnings))
        return WAVELAB_ERR_NOMEM;
    return k->compile_status;
}

const char *wavelab_version(void)
{
    return WAVELAB_VERSION_STRING;
}

static const struct {
    wavelab_status status;
    const char *text;
    int exit_code;
} status_table[] = {
    {WAVELAB_OK, "ok", 0},
    {WAVELAB_ERR_ARGUMENT, "bad argument", 2},
    {WAVELAB_ERR_CASE, "bad case file", 2},
    {WAVELAB_ERR_COMPILE, "the kernel does not compile or is not supported", 2},
    {WAVELAB_ERR_INPUT, "the case does not fit the kernel", 2},
    {WAVELAB_ERR_NOT_FOUND, "no such binding or statistic", 2},
    {WAVELAB_ERR_FAULT, "the kernel faulted", 1},
    {WAVELAB_ERR_EXPECT, "an expectation does not hold", 1},
    {WAVELAB_ERR_DEVICE, "the device cannot run the case", 3},
    {WAVELAB_ERR_DEVICE_FAILED, "the Vulkan device failed", 1},
    {WAVELAB_ERR_NOMEM, "out of memory", 2},
};

const char *wavelab_status_str(wavelab_status s)
{
    for (size_t i = 0; i < COUNT_OF(status_table); i++)
        if (status_table[i].status == s)
            return status_table[i].text;
    return "unknown status";
}

int wavelab_status_exit_code(wavelab_status s)
{
    for (size_t i = 0; i < COUNT_OF(status_table); i++)
        if (status_table[i].status == s)
            return status_table[i].exit_code;
    return 2;
}
