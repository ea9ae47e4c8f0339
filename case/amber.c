/*
 * case/amber.c — the compute subset of Amber's script format, read into a
 * case (case/amber.h; docs/amber.md lists the subset and the errors).
 *
 * The script is read line by line into its objects (shaders, buffers,
 * pipelines, runs, expectations), then built into a wl_case: one named
 * binding per buffer a run binds or an expectation checks, one pass per RUN
 * (REPEAT unrolled) binding its pipeline's buffers by name at the pipeline's
 * slots, and expectations on the contents after the last pass.  Whatever the
 * case cannot say exactly is refused with the construct and its line, never
 * approximated: CASE_ERR_UNSUPPORTED (exit 3) for what lies outside the subset
 * or outside the simulator, CASE_ERR_FIELD (exit 2) for a malformed script.
 */
#include "case/amber_internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Amber's DATA_TYPE scalar names; vecN<T> and matCxR<T> are built from them. */
static const struct {
    const char *name;
    case_type type;
} scalar_types[] = {
    {"int8", CASE_TYPE_I8},     {"uint8", CASE_TYPE_U8},    {"int16", CASE_TYPE_I16}, {"uint16", CASE_TYPE_U16},
    {"int32", CASE_TYPE_I32},   {"uint32", CASE_TYPE_U32},  {"int64", CASE_TYPE_I64}, {"uint64", CASE_TYPE_U64},
    {"float16", CASE_TYPE_F16}, {"float", CASE_TYPE_F32},   {"double", CASE_TYPE_F64},
};

/* DEVICE_FEATURE names whose capabilities the simulator models (any other is a skip naming it). */
static const char *const modelled_features[] = {
    "shaderInt8", "shaderInt16", "shaderInt64", "shaderFloat16", "shaderFloat64",
    "Float16Int8Features.shaderInt8", "Float16Int8Features.shaderFloat16",
    "Storage8BitFeatures.storageBuffer8BitAccess", "Storage8BitFeatures.uniformAndStorageBuffer8BitAccess",
    "Storage8BitFeatures.storagePushConstant8",
    "Storage16BitFeatures.storageBuffer16BitAccess", "Storage16BitFeatures.uniformAndStorageBuffer16BitAccess",
    "Storage16BitFeatures.storagePushConstant16",
    "SubgroupSizeControl.subgroupSizeControl", "SubgroupSizeControl.computeFullSubgroups",
    "shaderStorageImageMultisample",
    "VariablePointerFeatures.variablePointersStorageBuffer", "VariablePointerFeatures.variablePointers",
    /* graphics-stage features a compute script may name: they change nothing in a compute dispatch */
    "vertexPipelineStoresAndAtomics", "fragmentStoresAndAtomics",
};

/* DEVICE_EXTENSION names whose SPIR-V the simulator models. */
static const char *const modelled_extensions[] = {
    "VK_KHR_storage_buffer_storage_class", "VK_KHR_16bit_storage", "VK_KHR_8bit_storage",
    "VK_KHR_shader_float16_int8", "VK_KHR_spirv_1_4", "VK_KHR_zero_initialize_workgroup_memory",
    "VK_EXT_subgroup_size_control", "VK_KHR_shader_subgroup_extended_types",
    "VK_KHR_shader_terminate_invocation", "VK_KHR_shader_non_semantic_info", "VK_KHR_get_physical_device_properties2",
    "VK_KHR_workgroup_memory_explicit_layout", "VK_KHR_variable_pointers", "VK_EXT_descriptor_indexing",
};

/* DEVICE_PROPERTY names the simulator's arithmetic satisfies: every float operation is IEEE 754, rounded to nearest
 * even, with denormals kept, in every precision (docs/quirks.md).  Any other (a flush to zero, round toward zero) is
 * a skip naming it. */
static const char *const modelled_properties[] = {
    "FloatControlsProperties.shaderDenormPreserveFloat16", "FloatControlsProperties.shaderDenormPreserveFloat32",
    "FloatControlsProperties.shaderDenormPreserveFloat64", "FloatControlsProperties.shaderRoundingModeRTEFloat16",
    "FloatControlsProperties.shaderRoundingModeRTEFloat32", "FloatControlsProperties.shaderRoundingModeRTEFloat64",
};

/* Amber's TARGET_ENV spellings -> the SPIR-V minor version (assembly) and wavelab's target_env (GLSL/HLSL). */
static const struct {
    const char *name;
    int minor;
    const char *target_env;
} target_envs[] = {
    {"spv1.0", 0, "vulkan1.1"},    {"spv1.1", 1, "vulkan1.1"},    {"spv1.2", 2, "vulkan1.1"},
    {"spv1.3", 3, "vulkan1.1"},    {"spv1.4", 4, "spirv1.4"},     {"spv1.5", 5, "vulkan1.2"},
    {"spv1.6", 6, "vulkan1.3"},    {"vulkan1.0", 0, "vulkan1.1"}, {"vulkan1.1", 3, "vulkan1.1"},
    {"vulkan1.1spv1.4", 4, "spirv1.4"}, {"vulkan1.2", 5, "vulkan1.2"}, {"vulkan1.3", 6, "vulkan1.3"},
};


int amber_extension_wants_spirv_1_4(const char *name)
{
    /* VK_KHR_spirv_1_4 itself; SPV_KHR_workgroup_memory_explicit_layout requires SPIR-V 1.4, and the CTS builds
     * the scripts that use it as 1.4 (vktComputeWorkgroupMemoryExplicitLayoutTests.cpp,
     * vktSpvAsmPtrAccessChainTests.cpp) */
    return amber_is(name, "VK_KHR_spirv_1_4") || amber_is(name, "VK_KHR_workgroup_memory_explicit_layout");
}

case_status amber_fail(amber *a, int line, case_status s, const char *fmt, ...)
{
    if (!a->err || !a->err_size)
        return s;
    int n = line > 0 ? snprintf(a->err, a->err_size, "%s:%d: ", a->path, line)
                     : snprintf(a->err, a->err_size, "%s: ", a->path);
    if (n < 0 || (size_t)n >= a->err_size)
        return s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->err + n, a->err_size - (size_t)n, fmt, ap);
    va_end(ap);
    /* one printable line: control characters quoted from the script are shown as '?' */
    for (char *k = a->err; *k; k++)
        if ((unsigned char)*k < 0x20 || *k == 0x7F)
            *k = '?';
    return s;
}


/* ------------------------------------------------------------------ lines and tokens */

static case_status split_lines(amber *a, const char *text, size_t len)
{
    int cap = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && text[i] != '\n')
            continue;
        if (a->line_count + 1 >= cap) {
            cap = cap ? cap * 2 : 256;
            char **grown = realloc(a->lines, (size_t)cap * sizeof *grown);
            if (!grown)
                return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
            a->lines = grown;
        }
        size_t n = i - start;
        if (n && text[start + n - 1] == '\r')
            n--;
        char *line = malloc(n + 1);
        if (!line)
            return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
        memcpy(line, text + start, n);
        line[n] = '\0';
        a->lines[a->line_count++] = line;
        start = i + 1;
    }
    return CASE_OK;
}

/* Tokens of line `li` (comments removed) into a->tok; 0 tokens for a blank or comment line.  Every entry past
 * the last token is NULL (a command that looks one word further than its line has sees no word, never a freed one
 * of a longer line before). */
case_status amber_tokenize(amber *a, int li)
{
    for (int i = 0; i < a->ntok; i++)
        a->tok[i] = NULL;
    a->ntok = 0;
    free(a->tok_buf);
    a->tok_buf = strdup(a->lines[li]);
    if (!a->tok_buf)
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    char *hash = strchr(a->tok_buf, '#');
    if (hash)
        *hash = '\0';
    a->ntok = 0;
    a->tok_line = li + 1;
    for (char *save = NULL, *t = strtok_r(a->tok_buf, " \t\v\f", &save); t; t = strtok_r(NULL, " \t\v\f", &save)) {
        if (a->ntok == MAX_TOKENS)
            return UNSUPPORTED(a, li + 1, "more than %d words on one line", MAX_TOKENS);
        a->tok[a->ntok++] = t;
    }
    return CASE_OK;
}

/* The next line with tokens; 0 at the end of the script. */
static case_status next_command(amber *a, int *got)
{
    *got = 0;
    while (a->li < a->line_count) {
        TRY(amber_tokenize(a, a->li++));
        if (a->ntok) {
            *got = 1;
            return CASE_OK;
        }
    }
    return CASE_OK;
}

int amber_is(const char *tok, const char *word) { return tok && strcmp(tok, word) == 0; }

case_status amber_parse_u64(amber *a, const char *tok, const char *what, uint64_t max, uint64_t *out)
{
    if (!tok)
        return MALFORMED(a, a->tok_line, "%s: missing", what);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(tok, &end, 0);
    if (tok[0] == '-' || *end || errno || end == tok || v > max)
        return MALFORMED(a, a->tok_line, "%s: \"%.40s\" is not a whole number from 0 to %" PRIu64, what, tok, max);
    *out = v;
    return CASE_OK;
}

/* ------------------------------------------------------------------ values and layouts */

static case_status parse_type(amber *a, const char *whole, int std140, layout *out)
{
    char inner[32] = "", tok[48];
    int rows = 1, cols = 1;
    /* T[]: a runtime array of T, which only std140 lays out differently from T */
    size_t len = strlen(whole);
    const int array = len > 2 && strcmp(whole + len - 2, "[]") == 0;
    snprintf(tok, sizeof tok, "%.*s", (int)(array ? len - 2 : len), whole);
    const char *scalar = tok;
    if (sscanf(tok, "vec%d<%31[a-z0-9]>", &rows, inner) == 2 && rows >= 2 && rows <= 4) {
        scalar = inner;
    } else if (sscanf(tok, "mat%dx%d<%31[a-z0-9]>", &cols, &rows, inner) == 3 && cols >= 2 && cols <= 4 && rows >= 2 &&
               rows <= 4) {
        scalar = inner;
    } else {
        rows = cols = 1;
    }
    size_t k = 0;
    while (k < sizeof scalar_types / sizeof *scalar_types && strcmp(scalar_types[k].name, scalar) != 0)
        k++;
    if (k == sizeof scalar_types / sizeof *scalar_types)
        return MALFORMED(a, a->tok_line, "DATA_TYPE \"%.40s\": not a type (int8 .. uint64, float16, float, double, "
                         "vecN<T>, matCxR<T>, and T[])", whole);
    amber_layout(scalar_types[k].type, rows, cols, array, std140, out);
    return CASE_OK;
}

void amber_layout(case_type type, int rows, int cols, int array, int std140, layout *out)
{
    out->type = type;
    out->rows = rows;
    out->cols = cols;
    /* both layouts: vec2 aligns to 2 components, vec3 and vec4 to 4; std140 rounds a matrix's columns and an
     * array's elements up to 16 bytes, and leaves a buffer of scalars or vectors as std430 (Amber's src/format.cc,
     * Format::NeedsPadding and CalcMatrixBaseAlignmentInBytes: a `uint32 STD140` buffer of 7 values is 28 bytes,
     * `uint32[] STD140` 112, a std140 f16mat2 column 16) */
    out->col_stride = case_type_size(type) * (rows == 1 ? 1 : rows == 2 ? 2 : 4);
    if (std140 && (array || cols > 1) && out->col_stride % 16)
        out->col_stride += 16 - out->col_stride % 16;
    out->stride = out->col_stride * (size_t)cols;
}

/* Amber's FORMAT names with one component type (R32G32B32A32_SFLOAT): a tightly packed vector of them. */
static case_status parse_format(amber *a, const char *tok, layout *out)
{
    int bits[4], n = 0;
    const char *p = tok;
    static const char order[] = "RGBA";
    while (n < 4 && *p == order[n]) {
        char *end;
        bits[n] = (int)strtol(p + 1, &end, 10);
        p = end;
        n++;
    }
    static const struct {
        const char *suffix;
        int is_float, is_signed;
    } kinds[] = {{"_UINT", 0, 0}, {"_SINT", 0, 1}, {"_SFLOAT", 1, 1}};
    size_t k = 0;
    while (k < 3 && strcmp(p, kinds[k].suffix) != 0)
        k++;
    int same = n > 0;
    for (int i = 1; i < n; i++)
        same &= bits[i] == bits[0];
    if (!n || k == 3 || !same)
        return UNSUPPORTED(a, a->tok_line, "BUFFER FORMAT %.40s: only formats of one UINT, SINT or SFLOAT component "
                           "size (R32G32_SFLOAT) are buffers the subset reads", tok);
    case_type t = case_type_of((unsigned)bits[0], kinds[k].is_float, kinds[k].is_signed);
    if (t != CASE_TYPE_COUNT) {
        out->type = t;
        out->rows = n;
        out->cols = 1;
        out->col_stride = out->stride = case_type_size(out->type) * (size_t)n;
        return CASE_OK;
    }
    return UNSUPPORTED(a, a->tok_line, "BUFFER FORMAT %.40s: no %d-bit %s type", tok, bits[0],
                       kinds[k].is_float ? "float" : "integer");
}

/* One value of type t into dst: integers in decimal or 0x hex (hex is the bits, for signed types too), floats as
 * numbers ("inf", "nan" included) or 0x hex bits. */
case_status amber_store_value(amber *a, case_type t, const char *tok, uint8_t *dst)
{
    size_t size = case_type_size(t);
    char *end;
    errno = 0;
    int hex = (tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X'));
    if (hex) {
        unsigned long long bits = strtoull(tok, &end, 16);
        if (*end || errno || (size < 8 && bits >> (8 * size)))
            return MALFORMED(a, a->tok_line, "\"%.40s\" does not fit %s", tok, case_type_name(t));
        case_store_le(dst, bits, size);
        return CASE_OK;
    }
    if (case_type_is_float(t)) {
        double d = strtod(tok, &end);
        if (*end || end == tok || !case_store_float(t, d, dst))
            return MALFORMED(a, a->tok_line, "\"%.40s\" is not a %s value", tok, case_type_name(t));
        return CASE_OK;
    }
    case_i128 v;
    if (tok[0] == '-') {
        long long s = strtoll(tok, &end, 10);
        v = s;
    } else {
        unsigned long long u = strtoull(tok, &end, 10);
        v = (case_i128)u;
    }
    if (*end == '.' || *end == 'e' || *end == 'E') { /* "0.0": Amber reads numbers as doubles; an integral one fits */
        double d = strtod(tok, &end);
        if (!*end && d == floor(d) && fabs(d) < CASE_EXACT_INT_LIMIT) {
            v = (case_i128)d;
            errno = 0;
        }
    }
    /* Amber stores an integer's low bits: 40206 in an int16 is the bits of -25330, -1 in a uint8 is 255; a value
     * that fits neither the type nor its unsigned (signed) twin is refused */
    if (!*end && end != tok && !errno) {
        case_i128 span = (case_i128)1 << (8 * size);
        if (case_type_is_signed(t) && v >= span / 2 && v < span)
            v -= span;
        else if (!case_type_is_signed(t) && v < 0 && v >= -span / 2)
            v += span;
    }
    if (*end || end == tok || errno || !case_store_int(t, v, dst))
        return MALFORMED(a, a->tok_line, "\"%.40s\" is not a %s value", tok, case_type_name(t));
    return CASE_OK;
}

/* Byte offset of component i (counting the values a script writes: columns of rows) of a buffer. */
size_t amber_component_offset(const layout *l, size_t i)
{
    size_t per = (size_t)l->rows * (size_t)l->cols;
    size_t element = i / per, within = i % per;
    return element * l->stride + (within / (size_t)l->rows) * l->col_stride +
           (within % (size_t)l->rows) * case_type_size(l->type);
}

case_status amber_buffer_alloc(amber *a, a_buffer *b, size_t elements)
{
    if (elements == 0 || elements > CASE_MAX_BINDING_BYTES / b->lay.stride)
        return UNSUPPORTED(a, b->line, "BUFFER %.60s: %zu elements (a binding holds 1 to %zu bytes)", b->name, elements,
                           CASE_MAX_BINDING_BYTES);
    b->elements = elements;
    b->size = elements * b->lay.stride;
    b->bytes = calloc(b->size, 1);
    return b->bytes ? CASE_OK : amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
}

static int find_buffer(const amber *a, const char *name)
{
    for (int i = 0; name && i < a->buffer_count; i++)
        if (strcmp(a->buffers[i].name, name) == 0)
            return i;
    return -1;
}

int amber_find_shader(const amber *a, const char *name)
{
    for (int i = 0; name && i < a->shader_count; i++)
        if (strcmp(a->shaders[i].name, name) == 0)
            return i;
    return -1;
}

static int find_pipeline(const amber *a, const char *name)
{
    for (int i = 0; name && i < a->pipe_count; i++)
        if (strcmp(a->pipes[i].name, name) == 0)
            return i;
    return -1;
}

/* ------------------------------------------------------------------ commands */

static int is_end_line(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    return strncmp(line, "END", 3) == 0 && (line[3] == '\0' || line[3] == ' ' || line[3] == '\t' || line[3] == '#' ||
                                           line[3] == '\r');
}

case_status amber_add_shader(amber *a, const char *name, const char *language, const char *env, char *text,
                             size_t len, int first, int line)
{
    /* Amber leaves the assembler's default environment to the program that runs it; the CTS assembles the scripts
     * that require VK_KHR_spirv_1_4 (or an extension whose SPIR-V needs 1.4: amber_extension_wants_spirv_1_4) as
     * SPIR-V 1.4, and their modules use what 1.4 allows */
    if (!env && strcmp(language, "spirv") == 0 && a->requires_spirv_1_4)
        env = "spv1.4";
    int env_index = -1;
    for (size_t k = 0; env && k < sizeof target_envs / sizeof *target_envs; k++)
        if (strcmp(target_envs[k].name, env) == 0)
            env_index = (int)k;
    if (env && env_index < 0) {
        free(text);
        return UNSUPPORTED(a, line, "SHADER %.60s: TARGET_ENV %.40s is not one of spv1.0 .. spv1.6, vulkan1.0 .. "
                           "vulkan1.3", name, env);
    }
    a_shader *s = NULL;
    void *grown = realloc(a->shaders, ((size_t)a->shader_count + 1) * sizeof *a->shaders);
    if (grown) {
        a->shaders = grown;
        s = &a->shaders[a->shader_count];
        memset(s, 0, sizeof *s);
        s->name = strdup(name);
    }
    if (!s || !s->name) {
        free(text);
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    }
    a->shader_count++;
    s->language = language;
    s->line = line;
    s->target_env = env_index >= 0 ? target_envs[env_index].target_env : NULL;
    if (strcmp(language, "spirv") != 0) {
        /* as written: glslang counts lines from the shader's first, and a #version must come first */
        s->text = text;
        return CASE_OK;
    }
    char aerr[512] = "";
    isa_status st = isa_assemble_spirv(text, len, env_index >= 0 ? target_envs[env_index].minor : 0, &s->words,
                                       &s->word_count, aerr, sizeof aerr);
    free(text);
    if (st == ISA_ERR_NOMEM)
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    if (st != ISA_OK) {
        unsigned long at = 0;
        aerr[strcspn(aerr, "\n")] = '\0';
        const char *msg = aerr;
        if (sscanf(aerr, "line %lu", &at) == 1) { /* the script's line */
            msg = strchr(aerr, ':') ? strchr(aerr, ':') + 2 : aerr;
            return MALFORMED(a, first + (int)at, "SHADER %.60s: SPIR-V assembly: %.300s", s->name, msg);
        }
        return MALFORMED(a, line, "SHADER %.60s: SPIR-V assembly: %.300s", s->name, msg);
    }
    return CASE_OK;
}

char *amber_section_text(amber *a, int first, int end, size_t *len)
{
    size_t total = 0;
    for (int k = first; k < end; k++)
        total += strlen(a->lines[k]) + 1;
    char *text = malloc(total + 1), *w = text;
    if (!text) {
        amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int k = first; k < end; k++)
        w += sprintf(w, "%s\n", a->lines[k]);
    *w = '\0';
    *len = total;
    return text;
}

static case_status cmd_shader(amber *a)
{
    int line = a->tok_line;
    if (a->ntok < 4)
        return MALFORMED(a, line, "SHADER: expected SHADER TYPE NAME FORMAT");
    if (!amber_is(a->tok[1], "compute"))
        return UNSUPPORTED(a, line, "SHADER %.40s: only compute shaders are in the subset (graphics pipelines are "
                           "not modelled)", a->tok[1]);
    const char *format = a->tok[3], *env = NULL;
    for (int k = 4; k < a->ntok; k++) {
        if (amber_is(a->tok[k], "TARGET_ENV") && k + 1 < a->ntok)
            env = a->tok[++k];
        else
            return MALFORMED(a, line, "SHADER %.60s: unexpected \"%.40s\"", a->tok[2], a->tok[k]);
    }
    if (amber_find_shader(a, a->tok[2]) >= 0)
        return MALFORMED(a, line, "SHADER %.60s: a shader of this name exists already", a->tok[2]);
    const char *language = amber_is(format, "GLSL") ? "glsl" : amber_is(format, "HLSL") ? "hlsl" : amber_is(format, "SPIRV-ASM") ? "spirv"
                                                                                                            : NULL;
    if (!language)
        return UNSUPPORTED(a, line, "SHADER %.60s %.40s: the subset reads GLSL, HLSL and SPIRV-ASM shaders",
                           a->tok[2], format);
    const char *name = a->tok[2]; /* the tokens stay: the lines below are not tokenized */
    /* the source: every line up to END, as written */
    int first = a->li;
    while (a->li < a->line_count && !is_end_line(a->lines[a->li]))
        a->li++;
    if (a->li == a->line_count)
        return MALFORMED(a, line, "SHADER %.60s: no END", name);
    size_t len;
    char *text = amber_section_text(a, first, a->li, &len);
    if (!text)
        return CASE_ERR_NOMEM;
    a->li++; /* END */
    return amber_add_shader(a, name, language, env, text, len, first, line);
}

/* Values parsed one by one (store_value), gathered before the buffer is sized. */
typedef struct value_list {
    uint8_t *bytes;
    size_t n, cap;
} value_list;

static case_status value_list_add(amber *a, value_list *v, case_type t, const char *tok)
{
    size_t esize = case_type_size(t);
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        uint8_t *grown = realloc(v->bytes, cap * esize);
        if (!grown)
            return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
        v->bytes = grown;
        v->cap = cap;
    }
    case_status s = amber_store_value(a, t, tok, v->bytes + v->n * esize);
    v->n += s == CASE_OK;
    return s;
}

/* The buffer sized by its values, as Amber's ParseBufferData does for DATA and FILE TEXT alike (google/amber,
 * src/amberscript/parser.cc and Buffer::SetValueCount in src/buffer.h): the element count becomes the value count
 * divided by the components per element, whatever SIZE said, and a count that is not a whole number of elements is
 * an error ("Mismatched number of items in buffer"). */
static case_status buffer_from_values(amber *a, a_buffer *b, const value_list *v, const char *what)
{
    size_t comps = (size_t)b->lay.rows * (size_t)b->lay.cols, esize = case_type_size(b->lay.type);
    if (v->n == 0 || v->n % comps)
        return MALFORMED(a, b->line, "BUFFER %.60s %s: %zu values is not a whole number of %zu-component elements",
                         b->name, what, v->n, comps);
    free(b->bytes);
    b->bytes = NULL;
    TRY(amber_buffer_alloc(a, b, v->n / comps));
    for (size_t i = 0; i < v->n; i++)
        memcpy(b->bytes + amber_component_offset(&b->lay, i), v->bytes + i * esize, esize);
    return CASE_OK;
}

/* BUFFER ... FILE TEXT F: the values of F (beside the script; '#' starts a comment, as in Amber's tokenizer), which
 * size the buffer as DATA's do (buffer_from_values). */
static case_status read_text_file(amber *a, a_buffer *b, const char *file)
{
    const char *slash = strrchr(a->path, '/');
    char full[4096];
    if (file[0] == '/' || !slash)
        snprintf(full, sizeof full, "%s", file);
    else
        snprintf(full, sizeof full, "%.*s/%s", (int)(slash - a->path), a->path, file);
    FILE *f = fopen(full, "r");
    if (!f)
        return MALFORMED(a, b->line, "BUFFER %.60s FILE TEXT %.200s: cannot open: %s", b->name, full, strerror(errno));
    value_list v = {0};
    char word[128];
    int c, len = 0, comment = 0;
    case_status s = CASE_OK;
    do {
        c = fgetc(f);
        if (c == '#')
            comment = 1;
        if (c == '\n')
            comment = 0;
        int space = c == EOF || c == ' ' || c == '\t' || c == '\n' || c == '\r' || comment;
        if (!space && len + 1 < (int)sizeof word) {
            word[len++] = (char)c;
            continue;
        }
        if (!len)
            continue;
        word[len] = '\0';
        len = 0;
        s = value_list_add(a, &v, b->lay.type, word);
    } while (s == CASE_OK && c != EOF);
    fclose(f);
    char what[240];
    snprintf(what, sizeof what, "FILE TEXT %.200s", file);
    if (s == CASE_OK)
        s = buffer_from_values(a, b, &v, what);
    free(v.bytes);
    return s;
}

/* A new buffer or image of the script named by the command's first word (tok[1]), which no other may have. */
static case_status new_buffer(amber *a, const char *cmd, a_buffer **out)
{
    if (find_buffer(a, a->tok[1]) >= 0)
        return MALFORMED(a, a->tok_line, "%s %.60s: a buffer or image of this name exists already", cmd, a->tok[1]);
    GROW(a, a->buffers, a->buffer_count);
    a_buffer *b = &a->buffers[a->buffer_count++];
    b->line = a->tok_line;
    if (!(b->name = strdup(a->tok[1])))
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    *out = b;
    return CASE_OK;
}

/*
 * IMAGE NAME FORMAT VK_FORMAT [DIM_1D | DIM_2D | DIM_3D] WIDTH W [HEIGHT H] [DEPTH D] [MIP_LEVELS M] [SAMPLES S]
 * [FILL V]: an image of the script, every component of every sample V (0 without FILL), encoded as the format
 * stores it.  Amber's DATA_TYPE images and other initializers are outside the subset.
 */
static case_status cmd_image(amber *a)
{
    int line = a->tok_line;
    if (a->ntok < 2)
        return MALFORMED(a, line, "IMAGE: expected IMAGE NAME FORMAT FORMAT DIM_2D WIDTH W HEIGHT H ...");
    a_buffer *b;
    TRY(new_buffer(a, "IMAGE", &b));
    b->is_image = 1;
    img_image *im = &b->image;
    im->dim = IMG_DIM_2D;
    im->width = im->height = im->depth = im->layers = im->mip_levels = 1;
    int have_format = 0, have_width = 0;
    const char *fill = "0";
    for (int k = 2; k < a->ntok; k++) {
        const char *t = a->tok[k], *v = k + 1 < a->ntok ? a->tok[k + 1] : NULL;
        uint64_t n;
        if (amber_is(t, "FORMAT") && v) {
            char lower[64];
            size_t i = 0;
            for (; v[i] && i + 1 < sizeof lower; i++)
                lower[i] = (char)tolower((unsigned char)v[i]);
            lower[i] = 0;
            img_format f;
            if (!img_format_by_name(lower, &f) || !img_format_get(f)->vk_format)
                return UNSUPPORTED(a, line, "IMAGE %.60s FORMAT %.60s: not a format wavelab's images take "
                                   "(docs/case-format.md lists them)", b->name, v);
            im->format = f;
            have_format = 1;
            k++;
        } else if (amber_is(t, "DIM_1D") || amber_is(t, "DIM_2D") || amber_is(t, "DIM_3D")) {
            im->dim = amber_is(t, "DIM_1D") ? IMG_DIM_1D : amber_is(t, "DIM_2D") ? IMG_DIM_2D : IMG_DIM_3D;
        } else if (amber_is(t, "WIDTH") || amber_is(t, "HEIGHT") || amber_is(t, "DEPTH") || amber_is(t, "MIP_LEVELS") || amber_is(t, "SAMPLES")) {
            TRY(amber_parse_u64(a, v, t, CASE_MAX_IMAGE_EXTENT, &n));
            if (n == 0)
                return MALFORMED(a, line, "IMAGE %.60s %s 0: at least 1", b->name, t);
            if (amber_is(t, "SAMPLES"))
                im->samples = n > 64 ? 128 : (uint32_t)n; /* checked with the rest below */
            else if (amber_is(t, "WIDTH"))
                im->width = (uint32_t)n, have_width = 1;
            else if (amber_is(t, "HEIGHT"))
                im->height = (uint32_t)n;
            else if (amber_is(t, "DEPTH"))
                im->depth = (uint32_t)n;
            else if (amber_is(t, "MIP_LEVELS"))
                im->mip_levels = (uint32_t)n;
            k++;
        } else if (amber_is(t, "FILL") && v && k + 2 == a->ntok) {
            fill = v;
            k++;
        } else {
            return UNSUPPORTED(a, line, "IMAGE %.60s %.40s: the subset takes FORMAT, DIM_1D/2D/3D, WIDTH, HEIGHT, "
                               "DEPTH, MIP_LEVELS and FILL", b->name, t);
        }
    }
    if (!have_format || !have_width)
        return MALFORMED(a, line, "IMAGE %.60s: FORMAT and WIDTH are required", b->name);
    if ((im->dim == IMG_DIM_1D && im->height > 1) || (im->dim != IMG_DIM_3D && im->depth > 1))
        return MALFORMED(a, line, "IMAGE %.60s: a %s image has no %s", b->name, img_dim_name(im->dim),
                         im->depth > 1 ? "DEPTH" : "HEIGHT");
    uint32_t largest = im->width > im->height ? im->width : im->height;
    largest = largest > im->depth ? largest : im->depth;
    uint32_t levels = 1;
    while (largest >> levels)
        levels++;
    if (im->mip_levels > levels)
        return MALFORMED(a, line, "IMAGE %.60s: MIP_LEVELS %u, but a %ux%ux%u image has %u", b->name, im->mip_levels,
                         im->width, im->height, im->depth, levels);
    const char *bad_samples = img_samples_problem(im);
    if (bad_samples)
        return MALFORMED(a, line, "IMAGE %.60s SAMPLES: %s", b->name, bad_samples);
    if (img_image_bytes(im) > CASE_MAX_BINDING_BYTES)
        return MALFORMED(a, line, "IMAGE %.60s: %zu bytes, larger than a binding may be (%zu bytes)", b->name,
                         img_image_bytes(im), CASE_MAX_BINDING_BYTES);
    const img_format_info *fi = img_format_get(im->format);
    char *end;
    double d = strtod(fill, &end);
    if (*end || !isfinite(d))
        return MALFORMED(a, line, "IMAGE %.60s FILL %.40s: not a number", b->name, fill);
    /* an integer format takes an integer its components can hold (the format's own width then clamps or wraps as
     * img_encode stores it); a 64-bit one's every bit, parsed as an integer, not through the double */
    const int wide = img_format_is_wide(fi); /* 64-bit components: img_texel.u64 */
    img_texel t;
    memset(&t, 0, sizeof t);
    if (wide) {
        const int is_unsigned = fi->numeric == IMG_NUM_UINT;
        errno = 0;
        t.u64[0] = is_unsigned ? (uint64_t)strtoull(fill, &end, 10) : (uint64_t)strtoll(fill, &end, 10);
        if (*end || errno || (is_unsigned && strchr(fill, '-')))
            return MALFORMED(a, line, "IMAGE %.60s FILL %.40s: not an integer a %s texel's 64-bit component holds",
                             b->name, fill, fi->name);
    } else {
        double lo = fi->numeric == IMG_NUM_UINT ? 0 : INT32_MIN, hi = fi->numeric == IMG_NUM_UINT ? UINT32_MAX : INT32_MAX;
        if (fi->numeric != IMG_NUM_FLOAT && (d != floor(d) || d < lo || d > hi))
            return MALFORMED(a, line, "IMAGE %.60s FILL %.40s: not an integer a %s texel's 32-bit component holds",
                             b->name, fill, fi->name);
        for (int c = 0; c < 4; c++) {
            if (fi->numeric == IMG_NUM_FLOAT)
                t.f[c] = (float)d;
            else if (fi->numeric == IMG_NUM_UINT)
                t.u[c] = (uint32_t)d;
            else
                t.i[c] = (int32_t)d;
        }
    }
    b->size = img_image_bytes(im);
    if (!(b->bytes = calloc(b->size ? b->size : 1, 1)))
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    for (size_t off = 0; off + fi->texel_bytes <= b->size; off += fi->texel_bytes)
        img_encode(im->format, &t, b->bytes + off);
    b->lay.type = case_image_type(im->format);
    return CASE_OK;
}

static case_status cmd_buffer(amber *a)
{
    int line = a->tok_line;
    if (a->ntok < 3)
        return MALFORMED(a, line, "BUFFER: expected BUFFER NAME DATA_TYPE TYPE ... or BUFFER NAME FORMAT FORMAT ...");
    a_buffer *b;
    TRY(new_buffer(a, "BUFFER", &b));
    int k = 2;
    if (amber_is(a->tok[k], "DATA_TYPE") && k + 1 < a->ntok) {
        int std140 = k + 2 < a->ntok && amber_is(a->tok[k + 2], "STD140");
        TRY(parse_type(a, a->tok[k + 1], std140, &b->lay));
        k += 2;
        if (k < a->ntok && (amber_is(a->tok[k], "STD140") || amber_is(a->tok[k], "STD430")))
            k++;
    } else if (amber_is(a->tok[k], "FORMAT") && k + 1 < a->ntok) {
        TRY(parse_format(a, a->tok[k + 1], &b->lay));
        k += 2;
        if (k == a->ntok)
            return UNSUPPORTED(a, line, "BUFFER %.60s FORMAT without SIZE or DATA: an image or framebuffer, outside "
                               "the compute subset", b->name);
    } else {
        return MALFORMED(a, line, "BUFFER %.60s: expected DATA_TYPE or FORMAT, got \"%.40s\"", b->name, a->tok[k]);
    }
    if (k < a->ntok && (amber_is(a->tok[k], "MIP_LEVELS") || amber_is(a->tok[k], "WIDTH") || amber_is(a->tok[k], "HEIGHT")))
        return UNSUPPORTED(a, line, "BUFFER %.60s %.20s: image buffers and files are outside the compute subset",
                           b->name, a->tok[k]);
    size_t comps = (size_t)b->lay.rows * (size_t)b->lay.cols, esize = case_type_size(b->lay.type);
    if (amber_is(a->tok[k], "SIZE")) {
        uint64_t n;
        TRY(amber_parse_u64(a, k + 1 < a->ntok ? a->tok[k + 1] : NULL, "SIZE", UINT32_MAX, &n));
        TRY(amber_buffer_alloc(a, b, (size_t)n));
        k += 2;
        size_t values = b->elements * comps;
        if (amber_is(a->tok[k], "FILL") && k + 2 == a->ntok) {
            uint8_t v[8];
            TRY(amber_store_value(a, b->lay.type, a->tok[k + 1], v));
            for (size_t i = 0; i < values; i++)
                memcpy(b->bytes + amber_component_offset(&b->lay, i), v, esize);
        } else if (amber_is(a->tok[k], "SERIES_FROM") && k + 4 == a->ntok && amber_is(a->tok[k + 2], "INC_BY")) {
            /* value i = start + i * inc, exact for integers, in double then rounded once for floats */
            int is_float = case_type_is_float(b->lay.type);
            char *e1, *e2;
            double fs = strtod(a->tok[k + 1], &e1), fi = strtod(a->tok[k + 3], &e2);
            long long s0 = strtoll(a->tok[k + 1], NULL, 0), inc = strtoll(a->tok[k + 3], NULL, 0);
            if (*e1 || *e2)
                return MALFORMED(a, line, "BUFFER %.60s: SERIES_FROM %.30s INC_BY %.30s: not numbers", b->name,
                                 a->tok[k + 1], a->tok[k + 3]);
            for (size_t i = 0; i < values; i++) {
                uint8_t *dst = b->bytes + amber_component_offset(&b->lay, i);
                int ok = is_float ? case_store_float(b->lay.type, fs + (double)i * fi, dst)
                                  : case_store_int(b->lay.type, (case_i128)s0 + (case_i128)i * inc, dst);
                if (!ok)
                    return MALFORMED(a, line, "BUFFER %.60s: SERIES_FROM value %zu does not fit %s", b->name, i,
                                     case_type_name(b->lay.type));
            }
        } else if (amber_is(a->tok[k], "FILE") && k + 3 == a->ntok && amber_is(a->tok[k + 1], "TEXT")) {
            TRY(read_text_file(a, b, a->tok[k + 2]));
        } else if (amber_is(a->tok[k], "FILE")) {
            return UNSUPPORTED(a, line, "BUFFER %.60s FILE %.20s: the subset reads FILE TEXT", b->name,
                               k + 1 < a->ntok ? a->tok[k + 1] : "");
        } else if (k != a->ntok) {
            return MALFORMED(a, line, "BUFFER %.60s: after SIZE expected FILL V, SERIES_FROM A INC_BY B or FILE TEXT F",
                             b->name);
        }
        return CASE_OK;
    }
    if (amber_is(a->tok[k], "DATA")) {
        /* values after DATA, on this line and the following ones, up to END */
        value_list v = {0};
        int ended = 0, from = k + 1;
        case_status s = CASE_OK;
        while (!ended && s == CASE_OK && (from || a->li < a->line_count)) {
            if (!from)
                s = amber_tokenize(a, a->li++);
            for (int t = from; s == CASE_OK && t < a->ntok; t++) {
                if (amber_is(a->tok[t], "END")) {
                    ended = 1;
                    break;
                }
                s = value_list_add(a, &v, b->lay.type, a->tok[t]);
            }
            from = 0;
        }
        if (s == CASE_OK && !ended)
            s = MALFORMED(a, line, "BUFFER %.60s DATA: no END", b->name);
        if (s == CASE_OK)
            s = buffer_from_values(a, b, &v, "DATA");
        free(v.bytes);
        return s;
    }
    return MALFORMED(a, line, "BUFFER %.60s: expected SIZE N FILL|SERIES_FROM or DATA ... END", b->name);
}

/* The commands of a PIPELINE or DERIVE_PIPELINE block, up to its END. */
/* Adds (or replaces: a later BIND of the same descriptor replaces the earlier one) one binding of a pipeline. */
static case_status add_bind(amber *a, a_pipeline *p, a_bind bind)
{
    int slot = p->bind_count;
    for (int k = 0; k < p->bind_count; k++)
        if (ISA_SAME_DESCRIPTOR(p->binds[k], bind))
            slot = k;
    if (slot == MAX_BINDS)
        return UNSUPPORTED(a, bind.line, "more than %d BINDs in one pipeline", MAX_BINDS);
    p->binds[slot] = bind;
    if (slot == p->bind_count)
        p->bind_count++;
    return CASE_OK;
}

/* BIND BUFFER B AS KIND [DESCRIPTOR_SET S] BINDING N [OFFSET O] [DESCRIPTOR_OFFSET O] [DESCRIPTOR_RANGE R], or
 * BIND BUFFER_ARRAY B1 B2 ... AS KIND [DESCRIPTOR_SET S] BINDING N (element k the k-th buffer): bindings of the
 * pipeline (or its push constants), on the command line being read. */
static case_status pipeline_bind(amber *a, a_pipeline *p)
{
    int line = a->tok_line;
    int array = a->ntok > 1 && amber_is(a->tok[1], "BUFFER_ARRAY");
    if (a->ntok < 2 || (!amber_is(a->tok[1], "BUFFER") && !array))
        return UNSUPPORTED(a, line, "BIND %.40s: the subset binds BUFFERs and BUFFER_ARRAYs (samplers are not "
                           "mapped)", a->ntok > 1 ? a->tok[1] : "");
    int names = 0; /* the buffers named: tokens 2 .. 2 + names - 1 */
    while (2 + names < a->ntok && !amber_is(a->tok[2 + names], "AS") && (array || names < 1))
        names++;
    for (int n = 0; n < names; n++)
        if (find_buffer(a, a->tok[2 + n]) < 0)
            return MALFORMED(a, line, "BIND %s: no buffer named \"%.60s\"", a->tok[1], a->tok[2 + n]);
    if (!names)
        return MALFORMED(a, line, "BIND %s: no buffer named", a->tok[1]);
    int as = 2 + names;
    int b = find_buffer(a, a->tok[2]);
    const char *kind = a->ntok > as + 1 && amber_is(a->tok[as], "AS") ? a->tok[as + 1] : NULL;
    if (!kind)
        return MALFORMED(a, line, "BIND %s %.60s: expected AS storage|uniform|push_constant", a->tok[1], a->tok[2]);
    if (amber_is(kind, "push_constant") && !array) {
        p->push_buffer = b;
        return CASE_OK;
    }
    case_kind ck;
    uint64_t offset = 0;
    for (int n = 0; n < names; n++) {
        const a_buffer *nb = &a->buffers[find_buffer(a, a->tok[2 + n])];
        if (nb->is_image != amber_is(kind, "storage_image"))
            return nb->is_image
                       ? UNSUPPORTED(a, line, "BIND %s %.60s AS %.40s: the subset binds an IMAGE as a "
                                     "storage_image", a->tok[1], a->tok[2 + n], kind)
                       : MALFORMED(a, line, "BIND %s %.60s AS storage_image: not an IMAGE", a->tok[1], a->tok[2 + n]);
    }
    if (amber_is(kind, "storage_image"))
        ck = CASE_KIND_STORAGE_IMAGE;
    else if (amber_is(kind, "storage") || amber_is(kind, "storage_dynamic"))
        ck = CASE_KIND_STORAGE_BUFFER;
    else if (amber_is(kind, "uniform") || amber_is(kind, "uniform_dynamic"))
        ck = CASE_KIND_UNIFORM_BUFFER;
    else
        return UNSUPPORTED(a, line, "BIND %s %.60s AS %.40s: the subset binds storage and uniform buffers "
                           "and push constants", a->tok[1], a->tok[2], kind);
    uint64_t set = 0, binding = UINT64_MAX, range = 0;
    for (int k = as + 2; k < a->ntok; k++) {
        if (amber_is(a->tok[k], "DESCRIPTOR_SET"))
            { TRY(amber_parse_u64(a, k + 1 < a->ntok ? a->tok[k + 1] : NULL, "DESCRIPTOR_SET", 31, &set)); k++; }
        else if (amber_is(a->tok[k], "BINDING"))
            { TRY(amber_parse_u64(a, k + 1 < a->ntok ? a->tok[k + 1] : NULL, "BINDING", UINT32_MAX, &binding)); k++; }
        else if (array && (amber_is(a->tok[k], "OFFSET") || amber_is(a->tok[k], "DESCRIPTOR_OFFSET") ||
                           amber_is(a->tok[k], "DESCRIPTOR_RANGE")))
            return UNSUPPORTED(a, line, "BIND BUFFER_ARRAY ... %s: windows on the elements of a buffer array are "
                               "not mapped", a->tok[k]);
        else if (amber_is(a->tok[k], "OFFSET") || amber_is(a->tok[k], "DESCRIPTOR_OFFSET")) {
            /* the dynamic offset and the descriptor's own add up, as in Vulkan */
            uint64_t o;
            TRY(amber_parse_u64(a, k + 1 < a->ntok ? a->tok[k + 1] : NULL, a->tok[k], UINT32_MAX, &o));
            offset += o;
            k++;
        } else if (amber_is(a->tok[k], "DESCRIPTOR_RANGE")) {
            /* -1 is Amber's default, VK_WHOLE_SIZE: to the buffer's end */
            if (k + 1 < a->ntok && amber_is(a->tok[k + 1], "-1"))
                range = 0;
            else
                TRY(amber_parse_u64(a, k + 1 < a->ntok ? a->tok[k + 1] : NULL, "DESCRIPTOR_RANGE", UINT32_MAX,
                              &range));
            if (k + 1 < a->ntok && amber_is(a->tok[k + 1], "0"))
                return MALFORMED(a, line, "BIND BUFFER %.60s DESCRIPTOR_RANGE 0: an empty descriptor",
                                 a->tok[2]);
            k++;
        }
        else
            return MALFORMED(a, line, "BIND %s %.60s: unexpected \"%.40s\"", a->tok[1], a->tok[2], a->tok[k]);
    }
    if (binding == UINT64_MAX)
        return MALFORMED(a, line, "BIND %s %.60s: BINDING missing", a->tok[1], a->tok[2]);
    if (array) {
        for (int n = 0; n < names; n++) {
            int e = find_buffer(a, a->tok[2 + n]);
            TRY(add_bind(a, p, (a_bind){e, (uint32_t)set, (uint32_t)binding, (uint32_t)n, ck, line, 0, 0}));
        }
        return CASE_OK;
    }
    const a_buffer *buf = &a->buffers[b];
    uint64_t window = range ? range : buf->size > offset ? buf->size - offset : 0;
    if (offset >= buf->size || window > buf->size - offset)
        return MALFORMED(a, line, "BIND BUFFER %.60s: the window of %" PRIu64 " bytes at offset %" PRIu64
                         " does not lie in its %zu bytes", a->tok[2], window, offset, buf->size);
    if (window % case_type_size(buf->lay.type))
        return UNSUPPORTED(a, line, "BIND BUFFER %.60s: a window of %" PRIu64 " bytes is not whole %s "
                           "elements", a->tok[2], window, case_type_name(buf->lay.type));
    return add_bind(a, p, (a_bind){b, (uint32_t)set, (uint32_t)binding, 0, ck, line, (size_t)offset, (size_t)window});
}

static case_status pipeline_body(amber *a, a_pipeline *p)
{
    int got;
    for (;;) {
        TRY(next_command(a, &got));
        if (!got)
            return MALFORMED(a, p->line, "PIPELINE %.60s: no END", p->name);
        int line = a->tok_line;
        const char *cmd = a->tok[0];
        if (amber_is(cmd, "END"))
            return CASE_OK;
        if (amber_is(cmd, "ATTACH")) {
            int s = a->ntok > 1 ? amber_find_shader(a, a->tok[1]) : -1;
            if (s < 0)
                return MALFORMED(a, line, "ATTACH: no shader named \"%.60s\"", a->ntok > 1 ? a->tok[1] : "");
            p->shader = s;
            for (int k = 2; k < a->ntok; k++) {
                if (amber_is(a->tok[k], "ENTRY_POINT") && k + 1 < a->ntok) {
                    free(p->entry);
                    if (!(p->entry = strdup(a->tok[++k])))
                        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
                } else if (amber_is(a->tok[k], "SPECIALIZE") && k + 4 < a->ntok && amber_is(a->tok[k + 2], "AS")) {
                    if (p->spec_count == MAX_SPECS)
                        return UNSUPPORTED(a, line, "more than %d SPECIALIZE", MAX_SPECS);
                    isa_spec_value *v = &p->spec[p->spec_count];
                    char *end;
                    double d = strtod(a->tok[k + 4], &end);
                    if (*end || !isfinite(d))
                        return MALFORMED(a, line, "SPECIALIZE %.20s: \"%.40s\" is not a number", a->tok[k + 1],
                                         a->tok[k + 4]);
                    if (amber_is(a->tok[k + 3], "bool"))
                        v->is_bool = true, v->flag = d != 0;
                    else
                        v->number = d;
                    if (!(v->key = strdup(a->tok[k + 1])))
                        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
                    p->spec_count++;
                    k += 4;
                } else if (amber_is(a->tok[k], "TYPE")) {
                    return UNSUPPORTED(a, line, "ATTACH ... TYPE: multi-stage shaders are outside the compute subset");
                } else {
                    return MALFORMED(a, line, "ATTACH: unexpected \"%.40s\"", a->tok[k]);
                }
            }
        } else if (amber_is(cmd, "BIND")) {
            TRY(pipeline_bind(a, p));
        } else if (amber_is(cmd, "SUBGROUP")) {
            int block = a->tok_line;
            for (;;) {
                TRY(next_command(a, &got));
                if (!got)
                    return MALFORMED(a, block, "SUBGROUP: no END");
                if (amber_is(a->tok[0], "END"))
                    break;
                if ((amber_is(a->tok[0], "FULLY_POPULATED") || amber_is(a->tok[0], "VARYING_SIZE")) && a->ntok == 2)
                    continue; /* the simulator fills every wave and runs at any size it is given */
                if (amber_is(a->tok[0], "REQUIRED_SIZE") && a->ntok == 2) {
                    uint64_t n;
                    if (amber_is(a->tok[1], "MIN") || amber_is(a->tok[1], "MAX"))
                        return UNSUPPORTED(a, a->tok_line, "REQUIRED_SIZE %s: the device's own bound; give a number",
                                           a->tok[1]);
                    TRY(amber_parse_u64(a, a->tok[1], "REQUIRED_SIZE", 128, &n));
                    if (n < 4 || (n & (n - 1)))
                        return UNSUPPORTED(a, a->tok_line, "REQUIRED_SIZE %" PRIu64 ": wave sizes are powers of two "
                                           "from 4 to 128", n);
                    p->subgroup_size = (uint32_t)n;
                    continue;
                }
                return MALFORMED(a, a->tok_line, "SUBGROUP: unexpected \"%.40s\"", a->tok[0]);
            }
        } else if (amber_is(cmd, "SHADER_OPTIMIZATION") || amber_is(cmd, "COMPILE_OPTIONS")) {
            return UNSUPPORTED(a, line, "%s: not mapped (wavelab runs kernels as written; --optimize runs spirv-opt "
                               "on a whole case)", cmd);
        } else {
            return UNSUPPORTED(a, line, "%.40s: not a compute pipeline command of the subset", cmd);
        }
    }
}

static case_status cmd_pipeline(amber *a, int derive)
{
    int line = a->tok_line;
    const char *name = derive ? (a->ntok > 1 ? a->tok[1] : NULL) : (a->ntok > 2 ? a->tok[2] : NULL);
    if (!derive && a->ntok > 1 && !amber_is(a->tok[1], "compute"))
        return UNSUPPORTED(a, line, "PIPELINE %.40s: only compute pipelines are in the subset", a->tok[1]);
    if (!name || (derive ? a->ntok != 4 || !amber_is(a->tok[2], "FROM") : a->ntok != 3))
        return MALFORMED(a, line, derive ? "DERIVE_PIPELINE: expected DERIVE_PIPELINE NAME FROM PARENT"
                                         : "PIPELINE: expected PIPELINE compute NAME");
    if (find_pipeline(a, name) >= 0)
        return MALFORMED(a, line, "PIPELINE %.60s: a pipeline of this name exists already", name);
    int parent = derive ? find_pipeline(a, a->tok[3]) : -1;
    if (derive && parent < 0)
        return MALFORMED(a, line, "DERIVE_PIPELINE %.60s: no pipeline named \"%.60s\"", name, a->tok[3]);
    char *own = strdup(name);
    if (!own)
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    void *grown = realloc(a->pipes, ((size_t)a->pipe_count + 1) * sizeof *a->pipes);
    if (!grown) {
        free(own);
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    }
    a->pipes = grown;
    a_pipeline *p = &a->pipes[a->pipe_count++];
    if (derive) {
        *p = a->pipes[parent];
        p->entry = p->entry ? strdup(p->entry) : NULL;
        for (int k = 0; k < p->spec_count; k++)
            p->spec[k].key = strdup(p->spec[k].key);
    } else {
        memset(p, 0, sizeof *p);
        p->shader = -1;
        p->push_buffer = -1;
    }
    p->name = own;
    p->line = line;
    return pipeline_body(a, p);
}

static case_status cmd_run(amber *a)
{
    int line = a->tok_line;
    int p = a->ntok > 1 ? find_pipeline(a, a->tok[1]) : -1;
    if (p < 0)
        return MALFORMED(a, line, "RUN: no pipeline named \"%.60s\"", a->ntok > 1 ? a->tok[1] : "");
    if (a->ntok > 2 && strncmp(a->tok[2], "DRAW", 4) == 0)
        return UNSUPPORTED(a, line, "RUN %.60s %.20s: drawing is outside the compute subset", a->tok[1], a->tok[2]);
    if (a->ntok != 5)
        return MALFORMED(a, line, "RUN %.60s: expected RUN PIPELINE X Y Z", a->tok[1]);
    if (a->pipes[p].shader < 0)
        return MALFORMED(a, line, "RUN %.60s: the pipeline has no ATTACHed shader", a->tok[1]);
    if (a->run_count == MAX_PASSES)
        return UNSUPPORTED(a, line, "more than %d RUNs (REPEAT unrolled)", MAX_PASSES);
    uint64_t g[3];
    for (int k = 0; k < 3; k++)
        TRY(amber_parse_u64(a, a->tok[2 + k], "RUN's workgroup count", UINT32_MAX, &g[k]));
    if (!g[0] || !g[1] || !g[2])
        return UNSUPPORTED(a, line, "RUN %.60s %" PRIu64 " %" PRIu64 " %" PRIu64 ": an empty dispatch", a->tok[1], g[0],
                           g[1], g[2]);
    GROW(a, a->runs, a->run_count);
    a->runs[a->run_count++] = (a_run){p, {(uint32_t)g[0], (uint32_t)g[1], (uint32_t)g[2]}, line, 0};
    return CASE_OK;
}

/* One case_expect per run of consecutive components; values tok[from..] from byte offset idx of buffer b. */
case_status amber_add_value_expects(amber *a, int b, size_t idx, int from, case_compare mode, double tol)
{
    const a_buffer *buf = &a->buffers[b];
    const layout *l = &buf->lay;
    size_t esize = case_type_size(l->type), n = (size_t)(a->ntok - from);
    int line = a->tok_line;
    if (idx % l->stride)
        return UNSUPPORTED(a, line, "EXPECT %.60s IDX %zu: not the start of an element (%zu bytes each)", buf->name, idx,
                           l->stride);
    if (n == 0)
        return MALFORMED(a, line, "EXPECT %.60s: no values", buf->name);
    size_t first = idx / l->stride * (size_t)l->rows * (size_t)l->cols;
    if (amber_component_offset(l, first + n - 1) + esize > buf->size)
        return MALFORMED(a, line, "EXPECT %.60s IDX %zu: %zu values run past the buffer's %zu bytes", buf->name, idx, n,
                         buf->size);
    size_t i = 0;
    while (i < n) {
        size_t j = i + 1; /* the run of components that lie one after another */
        while (j < n && amber_component_offset(l, first + j) == amber_component_offset(l, first + j - 1) + esize)
            j++;
        GROW(a, a->expects, a->expect_count);
        a_expect *x = &a->expects[a->expect_count];
        x->buffer = b;
        x->reference = -1;
        x->runs_before = a->run_count;
        x->line = line;
        x->e.type = l->type;
        x->e.compare = mode;
        x->e.tolerance = tol;
        x->e.count = j - i;
        x->e.first = amber_component_offset(l, first + i) / esize;
        x->e.bytes = calloc(j - i, esize);
        if (!x->e.bytes)
            return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
        a->expect_count++;
        for (size_t k = i; k < j; k++)
            TRY(amber_store_value(a, l->type, a->tok[from + (int)k], x->e.bytes + (k - i) * esize));
        i = j;
    }
    return CASE_OK;
}

/*
 * EXPECT IMAGE IDX X Y SIZE W H EQ_RGBA R G B A [TOLERANCE T] (or EQ_RGB R G B): every texel of the rectangle
 * equals the colour, each component given as 0..255 and compared, as Amber's verifier does, as the texel's value
 * in [0, 1] (the format's decode: UNORM scaled, sRGB colour linearized) against the given value / 255, within
 * 0.002 or the TOLERANCE.  Mapped for UNORM and sRGB images, rectangles of whole rows (one expectation over
 * consecutive texels), a format without alpha under EQ_RGB or EQ_RGBA (Amber checks the components the format
 * has) and one with alpha under EQ_RGBA.
 */
static case_status add_probe_expect(amber *a, int b)
{
    int line = a->tok_line;
    const a_buffer *buf = &a->buffers[b];
    const img_image *im = &buf->image;
    const img_format_info *fi = img_format_get(im->format);
    uint64_t v[4];
    if (a->ntok < 11 || !amber_is(a->tok[2], "IDX") || !amber_is(a->tok[5], "SIZE") ||
        !(amber_is(a->tok[8], "EQ_RGBA") || amber_is(a->tok[8], "EQ_RGB")))
        return UNSUPPORTED(a, line, "EXPECT %.60s: the subset checks an IMAGE with IDX X Y SIZE W H EQ_RGB/EQ_RGBA",
                           buf->name);
    const int rgba = amber_is(a->tok[8], "EQ_RGBA"), colours = rgba ? 4 : 3;
    for (int k = 0; k < 4; k++)
        TRY(amber_parse_u64(a, a->tok[3 + k + (k >= 2)], "EXPECT's rectangle", UINT32_MAX, &v[k]));
    const uint64_t x = v[0], y = v[1], w = v[2], h = v[3];
    if (w == 0 || h == 0 || x + w > im->width || y + h > im->height)
        return MALFORMED(a, line, "EXPECT %.60s IDX %" PRIu64 " %" PRIu64 " SIZE %" PRIu64 " %" PRIu64 ": outside the "
                         "%ux%u image", buf->name, x, y, w, h, im->width, im->height);
    if (img_samples(im) > 1)
        return UNSUPPORTED(a, line, "EXPECT %.60s: an expectation on a multisampled IMAGE is not mapped (Amber reads "
                           "images back through a resolve)", buf->name);
    if (x != 0 || w != im->width || im->dim != IMG_DIM_2D)
        return UNSUPPORTED(a, line, "EXPECT %.60s: a rectangle of part of a row is not mapped (whole rows of a 2d "
                           "image are)", buf->name);
    if (fi->encoding != IMG_ENC_UNORM && fi->encoding != IMG_ENC_SRGB)
        return UNSUPPORTED(a, line, "EXPECT %.60s %s on %s: mapped for UNORM and sRGB formats", buf->name, a->tok[8],
                           fi->name);
    if (!rgba && fi->components > 3)
        return UNSUPPORTED(a, line, "EXPECT %.60s EQ_RGB on %s: ignoring the alpha a format has is not mapped (use "
                           "EQ_RGBA)", buf->name, fi->name);
    if (a->ntok < 9 + colours)
        return MALFORMED(a, line, "EXPECT %.60s %s: %d values expected", buf->name, a->tok[8], colours);
    float colour[4];
    for (int c = 0; c < colours; c++) {
        uint64_t n;
        TRY(amber_parse_u64(a, a->tok[9 + c], "EXPECT's colour", 255, &n));
        colour[c] = (float)n / 255.f; /* Amber's parser divides so, in float */
    }
    int k = 9 + colours;
    double tol = 0.002; /* Amber's kDefaultTexelTolerance, absolute */
    case_compare mode = CASE_COMPARE_EPSILON;
    if (k < a->ntok && amber_is(a->tok[k], "TOLERANCE")) {
        char *end;
        double t = k + 1 < a->ntok ? strtod(a->tok[k + 1], &end) : -1;
        int percent = t >= 0 && *end == '%' && !end[1];
        if (!(t >= 0) || !isfinite(t) || (*end && !percent))
            return MALFORMED(a, line, "EXPECT %.60s TOLERANCE: \"%.30s\" is not a number >= 0", buf->name,
                             k + 1 < a->ntok ? a->tok[k + 1] : "");
        if (k + 2 != a->ntok)
            return UNSUPPORTED(a, line, "EXPECT %.60s TOLERANCE: one tolerance per component is not mapped",
                               buf->name);
        tol = percent ? t / 100.0 : t;
        mode = percent ? CASE_COMPARE_RELATIVE : CASE_COMPARE_EPSILON;
        k += 2;
    }
    if (k != a->ntok)
        return MALFORMED(a, line, "EXPECT %.60s: unexpected \"%.40s\"", buf->name, a->tok[k]);
    GROW(a, a->expects, a->expect_count);
    a_expect *xe = &a->expects[a->expect_count];
    memset(xe, 0, sizeof *xe);
    xe->buffer = b;
    xe->reference = -1;
    xe->runs_before = a->run_count;
    xe->line = line;
    case_expect *e = &xe->e;
    e->type = CASE_TYPE_F32;
    e->compare = mode;
    e->tolerance = tol;
    e->is_image = 1;
    e->format = im->format;
    e->extent[0] = im->width, e->extent[1] = im->height, e->extent[2] = 1;
    e->image_offset = img_texel_offset(im, 0, (uint32_t)y, 0, 0, 0);
    e->first_texel = (size_t)y * im->width;
    e->count = (size_t)(w * h) * fi->components;
    float *values = calloc(e->count, sizeof *values);
    if (!values)
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < e->count; i++)
        values[i] = colour[i % fi->components];
    e->bytes = (uint8_t *)values;
    a->expect_count++;
    return CASE_OK;
}

static case_status cmd_expect(amber *a)
{
    int line = a->tok_line;
    int b = a->ntok > 1 ? find_buffer(a, a->tok[1]) : -1;
    if (b < 0)
        return MALFORMED(a, line, "EXPECT: no buffer named \"%.60s\"", a->ntok > 1 ? a->tok[1] : "");
    const a_buffer *buf = &a->buffers[b];
    const char *op = a->ntok > 2 ? a->tok[2] : "";
    if (buf->is_image)
        return add_probe_expect(a, b);
    if (amber_is(op, "EQ_BUFFER") || amber_is(op, "RMSE_BUFFER") || amber_is(op, "EQ_HISTOGRAM_EMD_BUFFER")) {
        int r = a->ntok > 3 ? find_buffer(a, a->tok[3]) : -1;
        if (r < 0)
            return MALFORMED(a, line, "EXPECT %.60s %s: no buffer named \"%.60s\"", buf->name, op,
                             a->ntok > 3 ? a->tok[3] : "");
        if (!amber_is(op, "EQ_BUFFER"))
            return UNSUPPORTED(a, line, "EXPECT %.60s %s: only EQ_BUFFER compares two buffers in the subset", buf->name,
                               op);
        if (a->ntok != 4)
            return MALFORMED(a, line, "EXPECT %.60s EQ_BUFFER %.60s: unexpected \"%.40s\"", buf->name, a->tok[3],
                             a->tok[4]);
        const a_buffer *ref = &a->buffers[r];
        if (ref->size != buf->size || ref->lay.type != buf->lay.type)
            return MALFORMED(a, line, "EXPECT %.60s EQ_BUFFER %.60s: the buffers differ in type or size", buf->name,
                             ref->name);
        GROW(a, a->expects, a->expect_count);
        a_expect *x = &a->expects[a->expect_count++];
        x->buffer = b;
        x->reference = r;
        x->runs_before = a->run_count;
        x->line = line;
        x->e.type = buf->lay.type;
        /* floats as numbers, as Amber compares them: +0 equals -0; any NaN matches any NaN (docs/amber.md) */
        x->e.compare = case_type_is_float(buf->lay.type) ? CASE_COMPARE_ULP : CASE_COMPARE_EXACT;
        x->e.count = buf->size / case_type_size(buf->lay.type);
        x->e.has_reference = 1;
        return CASE_OK;
    }
    if (!amber_is(op, "IDX"))
        return MALFORMED(a, line, "EXPECT %.60s: expected IDX, EQ_BUFFER or RMSE_BUFFER, got \"%.40s\"", buf->name, op);
    uint64_t idx;
    TRY(amber_parse_u64(a, a->ntok > 3 ? a->tok[3] : NULL, "EXPECT IDX", UINT64_MAX / 2, &idx));
    int k = 4;
    if (k < a->ntok && a->tok[k][0] >= '0' && a->tok[k][0] <= '9')
        return UNSUPPORTED(a, line, "EXPECT %.60s IDX X Y: pixel expectations are for images and framebuffers",
                           buf->name);
    /* Amber's EQ on floats: within a millionth of a percent of the expected value (its verifier's kEpsilon) */
    case_compare mode = case_type_is_float(buf->lay.type) ? CASE_COMPARE_RELATIVE : CASE_COMPARE_EXACT;
    double tol = case_type_is_float(buf->lay.type) ? AMBER_EQ_RELATIVE : 0;
    if (amber_is(a->tok[k], "TOLERANCE")) {
        int given = 0, percent = 0;
        for (k++; k < a->ntok && ((a->tok[k][0] >= '0' && a->tok[k][0] <= '9') || a->tok[k][0] == '.'); k++) {
            char *end;
            double t = strtod(a->tok[k], &end);
            if (*end == '%' && !end[1]) { /* relative to the expected value */
                if (given && !percent)
                    return UNSUPPORTED(a, line, "EXPECT %.60s TOLERANCE: absolute and %% tolerances mixed",
                                       buf->name);
                percent = 1;
                t /= 100.0;
                end++;
            } else if (given && percent) {
                return UNSUPPORTED(a, line, "EXPECT %.60s TOLERANCE: absolute and %% tolerances mixed", buf->name);
            }
            if (*end || !(t >= 0) || !isfinite(t))
                return MALFORMED(a, line, "EXPECT %.60s TOLERANCE: \"%.30s\" is not a number >= 0", buf->name,
                                 a->tok[k]);
            if (given++ && t != tol)
                return UNSUPPORTED(a, line, "EXPECT %.60s TOLERANCE: one tolerance per component is not mapped",
                                   buf->name);
            tol = t;
        }
        if (!given)
            return MALFORMED(a, line, "EXPECT %.60s TOLERANCE: no value", buf->name);
        if (tol > 0 && !case_type_is_float(buf->lay.type))
            return UNSUPPORTED(a, line, "EXPECT %.60s TOLERANCE %g: tolerances on integers are not mapped", buf->name,
                               tol);
        if (tol > 0)
            mode = percent ? CASE_COMPARE_RELATIVE : CASE_COMPARE_EPSILON;
        else /* TOLERANCE 0: exact, as numbers (+0 equals -0) */
            mode = case_type_is_float(buf->lay.type) ? CASE_COMPARE_ULP : CASE_COMPARE_EXACT;
    }
    if (k >= a->ntok)
        return MALFORMED(a, line, "EXPECT %.60s IDX %" PRIu64 ": no comparison", buf->name, idx);
    if (amber_is(a->tok[k], "NE") || amber_is(a->tok[k], "LT") || amber_is(a->tok[k], "LE") || amber_is(a->tok[k], "GT") ||
        amber_is(a->tok[k], "GE") || amber_is(a->tok[k], "EQ_RGB") || amber_is(a->tok[k], "EQ_RGBA") || amber_is(a->tok[k], "SIZE"))
        return UNSUPPORTED(a, line, "EXPECT %.60s ... %s: the subset compares with EQ", buf->name, a->tok[k]);
    if (!amber_is(a->tok[k], "EQ"))
        return MALFORMED(a, line, "EXPECT %.60s: unknown comparison \"%.40s\"", buf->name, a->tok[k]);
    return amber_add_value_expects(a, b, (size_t)idx, k + 1, mode, tol);
}

static case_status cmd_copy(amber *a)
{
    int line = a->tok_line;
    int from = a->ntok == 4 ? find_buffer(a, a->tok[1]) : -1, to = a->ntok == 4 ? find_buffer(a, a->tok[3]) : -1;
    if (from < 0 || to < 0 || !amber_is(a->tok[2], "TO"))
        return MALFORMED(a, line, "COPY: expected COPY BUFFER TO BUFFER of two buffers of the script");
    if (a->run_count)
        return UNSUPPORTED(a, line, "COPY after a RUN: copies between passes are not mapped");
    a_buffer *f = &a->buffers[from], *t = &a->buffers[to];
    if (f->is_image || t->is_image)
        return UNSUPPORTED(a, line, "COPY %.60s TO %.60s: copies of an IMAGE are not mapped", f->name, t->name);
    if (f->size != t->size)
        return MALFORMED(a, line, "COPY %.60s TO %.60s: %zu bytes into %zu", f->name, t->name, f->size, t->size);
    memcpy(t->bytes, f->bytes, f->size);
    return CASE_OK;
}

case_status amber_requirement(amber *a, int line, const char *kind, const char *name)
{
    if (amber_is(kind, "INSTANCE_EXTENSION"))
        return CASE_OK; /* the loader's, not the kernel's */
    const char *const *list = modelled_extensions;
    size_t n = sizeof modelled_extensions / sizeof *modelled_extensions;
    if (amber_is(kind, "DEVICE_FEATURE"))
        list = modelled_features, n = sizeof modelled_features / sizeof *modelled_features;
    else if (amber_is(kind, "DEVICE_PROPERTY"))
        list = modelled_properties, n = sizeof modelled_properties / sizeof *modelled_properties;
    for (size_t k = 0; k < n; k++)
        if (strcmp(list[k], name) == 0)
            return CASE_OK;
    return UNSUPPORTED(a, line, "%s %.80s: the simulator does not model it", kind, name);
}

static case_status cmd_requirement(amber *a)
{
    if (a->ntok != 2)
        return MALFORMED(a, a->tok_line, "%s: expected one name", a->tok[0]);
    return amber_requirement(a, a->tok_line, a->tok[0], a->tok[1]);
}

static case_status run_commands(amber *a, int depth, int *ended);

static case_status cmd_repeat(amber *a, int depth)
{
    int line = a->tok_line;
    uint64_t n;
    if (a->ntok != 2)
        return MALFORMED(a, line, "REPEAT: expected REPEAT COUNT");
    TRY(amber_parse_u64(a, a->tok[1], "REPEAT", MAX_PASSES, &n));
    int body = a->li, ended = 0;
    if (n == 0) { /* skip the body: read it once for its END, then forget what it added */
        int runs = a->run_count, expects = a->expect_count;
        TRY(run_commands(a, depth + 1, &ended));
        for (int k = expects; k < a->expect_count; k++)
            free(a->expects[k].e.bytes);
        a->run_count = runs;
        a->expect_count = expects;
    }
    for (uint64_t r = 0; r < n; r++) {
        a->li = body;
        TRY(run_commands(a, depth + 1, &ended));
    }
    if (!ended)
        return MALFORMED(a, line, "REPEAT: no END");
    return CASE_OK;
}

/* Commands until the end of the script (depth 0) or of a REPEAT's body (an END; *ended says it was seen). */
static case_status run_commands(amber *a, int depth, int *ended)
{
    int got;
    *ended = 0;
    for (;;) {
        TRY(next_command(a, &got));
        if (!got)
            return CASE_OK;
        const char *cmd = a->tok[0];
        int line = a->tok_line;
        if (depth && amber_is(cmd, "END")) {
            *ended = 1;
            return CASE_OK;
        }
        if (depth && !amber_is(cmd, "RUN") && !amber_is(cmd, "EXPECT") && !amber_is(cmd, "REPEAT") && !amber_is(cmd, "COPY"))
            return MALFORMED(a, line, "%.40s inside REPEAT (RUN, EXPECT, COPY and REPEAT may repeat)", cmd);
        if (amber_is(cmd, "SHADER"))
            TRY(cmd_shader(a));
        else if (amber_is(cmd, "BUFFER"))
            TRY(cmd_buffer(a));
        else if (amber_is(cmd, "PIPELINE"))
            TRY(cmd_pipeline(a, 0));
        else if (amber_is(cmd, "DERIVE_PIPELINE"))
            TRY(cmd_pipeline(a, 1));
        else if (amber_is(cmd, "RUN"))
            TRY(cmd_run(a));
        else if (amber_is(cmd, "EXPECT"))
            TRY(cmd_expect(a));
        else if (amber_is(cmd, "COPY"))
            TRY(cmd_copy(a));
        else if (amber_is(cmd, "REPEAT"))
            TRY(cmd_repeat(a, depth));
        else if (amber_is(cmd, "DEVICE_FEATURE") || amber_is(cmd, "DEVICE_EXTENSION") || amber_is(cmd, "INSTANCE_EXTENSION") ||
                 amber_is(cmd, "DEVICE_PROPERTY"))
            TRY(cmd_requirement(a));
        else if (amber_is(cmd, "SET") && a->ntok == 4 && amber_is(a->tok[1], "ENGINE_DATA"))
            continue; /* the fence timeout: wavelab check has --timeout */
        else if (amber_is(cmd, "IMAGE"))
            TRY(cmd_image(a));
        else if (amber_is(cmd, "SAMPLER") || amber_is(cmd, "CLEAR") || amber_is(cmd, "CLEAR_COLOR") ||
                 amber_is(cmd, "CLEAR_DEPTH") || amber_is(cmd, "CLEAR_STENCIL") || amber_is(cmd, "STRUCT") || amber_is(cmd, "VIRTUAL_FILE") ||
                 amber_is(cmd, "DEBUG") || amber_is(cmd, "SET"))
            return UNSUPPORTED(a, line, "%.40s: outside the compute subset", cmd);
        else
            return MALFORMED(a, line, "unknown command \"%.40s\"", cmd);
    }
}

static void amber_free(amber *a)
{
    for (int i = 0; i < a->line_count; i++)
        free(a->lines[i]);
    free(a->lines);
    free(a->tok_buf);
    for (int i = 0; i < a->shader_count; i++) {
        free(a->shaders[i].name);
        free(a->shaders[i].text);
        free(a->shaders[i].words);
    }
    free(a->shaders);
    for (int i = 0; i < a->buffer_count; i++) {
        free(a->buffers[i].name);
        free(a->buffers[i].bytes);
    }
    free(a->buffers);
    for (int i = 0; i < a->pipe_count; i++) {
        free(a->pipes[i].name);
        free(a->pipes[i].entry);
        for (int k = 0; k < a->pipes[i].spec_count; k++)
            free(a->pipes[i].spec[k].key);
    }
    free(a->pipes);
    free(a->runs);
    for (int i = 0; i < a->expect_count; i++)
        free(a->expects[i].e.bytes);
    free(a->expects);
}

int amber_is_script(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 6 && strcmp(path + n - 6, ".amber") == 0;
}

case_status amber_parse(const char *text, size_t len, const char *path, wl_case **out, char *err, size_t err_size)
{
    amber a = {.path = path ? path : "<memory>", .err = err, .err_size = err_size};
    if (err && err_size)
        err[0] = '\0';
    *out = NULL;
    if (memchr(text, '\0', len))
        return MALFORMED(&a, 0, "a NUL byte in the script");
    wl_case *c = calloc(1, sizeof *c);
    if (!c)
        return amber_fail(&a, 0, CASE_ERR_NOMEM, "out of memory");
    c->path = strdup(a.path);
    const char *slash = strrchr(a.path, '/');
    c->dir = slash ? strndup(a.path, slash == a.path ? 1 : (size_t)(slash - a.path)) : strdup(".");
    int ended = 0;
    case_status s = c->path && c->dir ? split_lines(&a, text, len) : amber_fail(&a, 0, CASE_ERR_NOMEM, "out of memory");
    int vkscript = s == CASE_OK && vkscript_is(&a);
    for (int i = 0; s == CASE_OK && !vkscript && i < a.line_count; i++) {
        s = amber_tokenize(&a, i);
        a.requires_spirv_1_4 |= a.ntok == 2 && amber_is(a.tok[0], "DEVICE_EXTENSION") &&
                                amber_extension_wants_spirv_1_4(a.tok[1]);
    }
    if (s == CASE_OK)
        s = vkscript ? vkscript_read(&a) : run_commands(&a, 0, &ended);
    if (s == CASE_OK)
        s = amber_build_case(&a, c);
    amber_free(&a);
    if (s != CASE_OK) {
        case_destroy(c);
        return s;
    }
    *out = c;
    return CASE_OK;
}
