/*
 * case/vkscript.c — VkScript, the other script format Amber reads (VkRunner's:
 * `[require]`, `[compute shader spirv]`, `[test]`), which many of the Vulkan
 * CTS's script tests use.  Its compute subset is read into the same objects an
 * AmberScript is read into (case/amber_internal.h), so it builds into a case
 * the same way (case/amber_case.c): one buffer per descriptor the test
 * section names, one pipeline of the compute shader binding them all (a new
 * one where `compute entrypoint` changes it), one pass per `compute`, one
 * expectation per `probe ssbo`.
 *
 * The meaning follows Amber's VkScript reader (google/amber,
 * src/vkscript/command_parser.cc, datum_type_parser.cc, src/format.cc and
 * src/verifier.cc), not VkRunner's where the two differ: that is what the
 * CTS runs.  docs/amber.md lists the subset.
 */
#include "case/amber_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A buffer's descriptor and what the test section says about its size. */
typedef struct vk_buffer {
    uint32_t set, binding;
    case_kind kind;          /* storage, uniform (ubo), or CASE_KIND_COUNT for the push constants */
    int typed;               /* its data type was given (subdata, uniform, probe); else Amber's default, int8 */
    uint64_t count;          /* `ssbo B N`: N elements of its final type (Amber's SetElementCount) */
    uint64_t extent;         /* bytes its values reach (Amber's RecalculateMaxSizeInBytes) */
} vk_buffer;

typedef struct vk_state {
    vk_buffer *bufs;         /* parallel to a->buffers */
    int push;                /* the push-constant buffer, -1 none */
    int shader;              /* the compute shader, -1 none */
    int test_first, test_end;/* the [test] section's lines */
} vk_state;

/* The scalar names of Amber's VkScript DatumTypeParser. */
static const struct {
    const char *name;
    case_type type;
} vk_scalars[] = {
    {"int", CASE_TYPE_I32},       {"uint", CASE_TYPE_U32},      {"int8_t", CASE_TYPE_I8},
    {"uint8_t", CASE_TYPE_U8},    {"int16_t", CASE_TYPE_I16},   {"uint16_t", CASE_TYPE_U16},
    {"int64_t", CASE_TYPE_I64},   {"uint64_t", CASE_TYPE_U64},  {"float", CASE_TYPE_F32},
    {"double", CASE_TYPE_F64},
};

int vkscript_is(const amber *a)
{
    for (int i = 0; i < a->line_count; i++) {
        const char *p = a->lines[i];
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || *p == '#')
            continue;
        return *p == '[';
    }
    return 0;
}

/*
 * A VkScript type name as Amber's DatumTypeParser reads it: the scalars above; [iud]?(8|16|64)?vec[234]
 * (a bare "vec" has 4 components); d?mat[234](x[234])? (columns, then rows), laid out by amber_layout (std140 for
 * uniform buffers).  0 when the name is not a type.
 */
static int vk_type(const char *name, int std140, layout *out)
{
    case_type t = CASE_TYPE_COUNT;
    int rows = 1, cols = 1;
    for (size_t k = 0; k < sizeof vk_scalars / sizeof *vk_scalars; k++)
        if (strcmp(vk_scalars[k].name, name) == 0)
            t = vk_scalars[k].type;
    const char *vec = strstr(name, "vec"), *mat = strstr(name, "mat");
    if (t == CASE_TYPE_COUNT && (vec || mat)) {
        int bits = name[0] == 'd' ? 64 : 32, is_float = name[0] != 'i' && name[0] != 'u',
            is_signed = name[0] != 'u';
        if (vec) {
            if (name[1] == '8')
                bits = 8;
            else if (name[1] == '1' && name[2] == '6')
                bits = 16;
            else if (name[1] == '6' && name[2] == '4')
                bits = 64;
            rows = vec[3] ? vec[3] - '0' : 4;
            if (vec[3] && vec[4])
                return 0;
        } else {
            cols = mat[3] ? mat[3] - '0' : 4;
            rows = mat[3] && mat[4] == 'x' ? mat[5] - '0' : cols;
            if (mat[3] && mat[4] && (mat[4] != 'x' || !mat[5] || mat[6]))
                return 0;
        }
        if (rows < 2 || rows > 4 || cols < 1 || cols > 4)
            return 0;
        t = case_type_of((unsigned)bits, is_float, is_signed);
    }
    if (t == CASE_TYPE_COUNT)
        return 0;
    amber_layout(t, rows, cols, 0, std140, out);
    return 1;
}

/* "S:B" or "B" (set 0). */
static int vk_descriptor(const char *tok, uint32_t *set, uint32_t *binding)
{
    char *end;
    unsigned long s = 0, b = strtoul(tok, &end, 10);
    if (end == tok)
        return 0;
    if (*end == ':') {
        s = b;
        const char *p = end + 1;
        b = strtoul(p, &end, 10);
        if (end == p)
            return 0;
    }
    if (*end || s > 31 || b > UINT32_MAX)
        return 0;
    *set = (uint32_t)s;
    *binding = (uint32_t)b;
    return 1;
}

/* A new buffer of the script named `name`, described by d, typed int8_t (Amber's default format until a command
 * gives the type); its index into *out. */
static case_status vk_new_buffer(amber *a, vk_state *v, const char *name, vk_buffer d, int *out)
{
    GROW(a, a->buffers, a->buffer_count);
    void *grown = realloc(v->bufs, ((size_t)a->buffer_count + 1) * sizeof *v->bufs);
    if (!grown)
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    v->bufs = grown;
    a_buffer *b = &a->buffers[a->buffer_count];
    if (!(b->name = strdup(name)))
        return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
    b->line = a->tok_line;
    vk_type("int8_t", 0, &b->lay);
    v->bufs[a->buffer_count] = d;
    *out = a->buffer_count++;
    return CASE_OK;
}

/* The buffer at a descriptor (kind: of the command naming it), made when `make`; -1 when there is none. */
static case_status vk_buffer_at(amber *a, vk_state *v, const char *tok, case_kind kind, int make, int *out)
{
    uint32_t set, binding;
    *out = -1;
    if (!vk_descriptor(tok, &set, &binding))
        return MALFORMED(a, a->tok_line, "\"%.40s\" is not a binding (B or SET:B)", tok);
    for (int i = 0; i < a->buffer_count; i++)
        if (v->bufs[i].kind != CASE_KIND_COUNT && v->bufs[i].set == set && v->bufs[i].binding == binding) {
            if (v->bufs[i].kind != kind)
                return MALFORMED(a, a->tok_line, "%u:%u is a %s buffer and a %s buffer", set, binding,
                                 v->bufs[i].kind == CASE_KIND_UNIFORM_BUFFER ? "uniform" : "storage",
                                 kind == CASE_KIND_UNIFORM_BUFFER ? "uniform" : "storage");
            *out = i;
            return CASE_OK;
        }
    if (!make)
        return MALFORMED(a, a->tok_line, "no buffer at descriptor set %u binding %u", set, binding);
    char name[64];
    snprintf(name, sizeof name, "%s_%u_%u", kind == CASE_KIND_UNIFORM_BUFFER ? "ubo" : "ssbo", set, binding);
    return vk_new_buffer(a, v, name, (vk_buffer){set, binding, kind, 0, 0, 0}, out);
}

/* The type a command gives buffer b: the first one sticks; another is an error, as in Amber. */
static case_status vk_give_type(amber *a, vk_state *v, int b, const char *name, int std140)
{
    layout l;
    if (!vk_type(name, std140, &l))
        return MALFORMED(a, a->tok_line, "\"%.40s\" is not a VkScript data type", name);
    if (v->bufs[b].typed && (l.type != a->buffers[b].lay.type || l.rows != a->buffers[b].lay.rows ||
                             l.cols != a->buffers[b].lay.cols || l.stride != a->buffers[b].lay.stride))
        return MALFORMED(a, a->tok_line, "%s: %.40s does not match the buffer's type %s given before",
                         a->buffers[b].name, name, case_type_name(a->buffers[b].lay.type));
    a->buffers[b].lay = l;
    v->bufs[b].typed = 1;
    return CASE_OK;
}

/* Values tok[from..] at byte offset `offset` of buffer b: their extent (first pass) or their bytes (second). */
static case_status vk_values(amber *a, vk_state *v, int b, const char *offset_tok, int from, int write)
{
    const layout *l = &a->buffers[b].lay;
    size_t comps = (size_t)l->rows * (size_t)l->cols, n = (size_t)(a->ntok - from);
    uint64_t offset;
    TRY(amber_parse_u64(a, offset_tok, "offset", CASE_MAX_BINDING_BYTES, &offset));
    if (offset % l->stride)
        return MALFORMED(a, a->tok_line, "offset %" PRIu64 ": not a multiple of the %zu-byte element", offset,
                         l->stride);
    if (n == 0 || n % comps)
        return MALFORMED(a, a->tok_line, "%zu values: not a whole number of %zu-component elements", n, comps);
    if (!write) {
        uint64_t reach = offset + n / comps * l->stride;
        if (reach > v->bufs[b].extent)
            v->bufs[b].extent = reach;
        return CASE_OK;
    }
    for (size_t i = 0; i < n; i++)
        TRY(amber_store_value(a, l->type, a->tok[from + (int)i],
                              a->buffers[b].bytes + offset + amber_component_offset(l, i)));
    return CASE_OK;
}

/* The [require] section: features and extensions the simulator must model; the framebuffer's are graphics'. */
static case_status vk_require(amber *a, int first, int end)
{
    for (int li = first; li < end; li++) {
        TRY(amber_tokenize(a, li));
        if (!a->ntok)
            continue;
        const char *w = a->tok[0];
        if (amber_is(w, "framebuffer") || amber_is(w, "depthstencil") || amber_is(w, "fbsize") ||
            amber_is(w, "fence_timeout"))
            continue; /* the render target's format and size, and the fence timeout: nothing a dispatch uses */
        if (a->ntok != 1)
            return MALFORMED(a, a->tok_line, "[require] %.40s: expected one feature or extension name", w);
        TRY(amber_requirement(a, a->tok_line, strncmp(w, "VK_", 3) == 0 ? "DEVICE_EXTENSION" : "DEVICE_FEATURE",
                              w));
    }
    return CASE_OK;
}

/* The test commands of VkScript that draw or set graphics pipeline state (Amber's CommandParser::Parse): valid,
 * and outside the compute subset. */
static const char *const vk_graphics_commands[] = {
    "draw", "clear", "relative", "patch", "vertex", "fragment", "geometry", "tessellation",
    "primitiveRestartEnable", "depthClampEnable", "rasterizerDiscardEnable", "depthBiasEnable", "logicOpEnable",
    "blendEnable", "depthTestEnable", "depthWriteEnable", "depthBoundsTestEnable", "stencilTestEnable", "topology",
    "polygonMode", "logicOp", "frontFace", "cullMode", "depthBiasConstantFactor", "depthBiasClamp",
    "depthBiasSlopeFactor", "lineWidth", "minDepthBounds", "maxDepthBounds", "srcColorBlendFactor",
    "dstColorBlendFactor", "srcAlphaBlendFactor", "dstAlphaBlendFactor", "colorBlendOp", "alphaBlendOp",
    "depthCompareOp", "front.compareOp", "back.compareOp", "front.failOp", "front.passOp", "front.depthFailOp",
    "back.failOp", "back.passOp", "back.depthFailOp", "front.reference", "back.reference", "colorWriteMask",
};

static int vk_graphics_command(const char *cmd)
{
    for (size_t k = 0; k < sizeof vk_graphics_commands / sizeof *vk_graphics_commands; k++)
        if (strcmp(vk_graphics_commands[k], cmd) == 0)
            return 1;
    return 0;
}

/* The `tolerance` in force for `~=`: its first value (Amber's storage-buffer probe uses that one), relative when
 * given as a percentage; none given: Amber's kEpsilon percent. */
typedef struct vk_tolerance {
    double value;
    int percent, given;
} vk_tolerance;

static case_status vk_tolerance_line(amber *a, vk_tolerance *t)
{
    int n = 0;
    for (int k = 1; k < a->ntok; k++) {
        if (amber_is(a->tok[k], ","))
            continue;
        char *e;
        double x = strtod(a->tok[k], &e);
        int percent = *e == '%' && (!e[1] || (e[1] == ',' && !e[2]));
        if (e == a->tok[k] || (*e && !percent && !(*e == ',' && !e[1])) || !(x >= 0) || !isfinite(x))
            return MALFORMED(a, a->tok_line, "tolerance \"%.40s\": not a number >= 0 (or a percentage)", a->tok[k]);
        if (n++ == 0)
            *t = (vk_tolerance){x, percent, 1};
    }
    if (n != 1 && n != 4)
        return MALFORMED(a, a->tok_line, "tolerance: one value or four, not %d", n);
    return CASE_OK;
}

/* probe ssbo TYPE B OFFSET OP VALUES on buffer b: an expectation, as Amber's verifier checks it (== on floats
 * within kEpsilon percent, ~= within the tolerance in force). */
static case_status vk_probe(amber *a, int b, const vk_tolerance *tol)
{
    const layout *l = &a->buffers[b].lay;
    const int is_float = case_type_is_float(l->type);
    case_compare mode = is_float ? CASE_COMPARE_RELATIVE : CASE_COMPARE_EXACT;
    double t = is_float ? AMBER_EQ_RELATIVE : 0;
    if (amber_is(a->tok[5], "~=") && tol->given) {
        if (!is_float && tol->value > 0)
            return UNSUPPORTED(a, a->tok_line, "probe ssbo %s ~= with a tolerance: tolerances on integers are not "
                               "mapped", a->tok[2]);
        mode = !is_float ? CASE_COMPARE_EXACT : tol->percent ? CASE_COMPARE_RELATIVE : CASE_COMPARE_EPSILON;
        t = tol->percent ? tol->value / 100.0 : tol->value;
    } else if (!amber_is(a->tok[5], "==") && !amber_is(a->tok[5], "~=")) {
        return UNSUPPORTED(a, a->tok_line, "probe ssbo ... %.10s: the subset compares with == and ~=", a->tok[5]);
    }
    uint64_t offset;
    TRY(amber_parse_u64(a, a->tok[4], "probe ssbo's offset", CASE_MAX_BINDING_BYTES, &offset));
    return amber_add_value_expects(a, b, (size_t)offset, 6, mode, t);
}

/* compute X Y Z: a pass of the pipeline for `entry` (the last one when its entry point is still the one in
 * force, else a new one binding every buffer at its descriptor). */
static case_status vk_compute(amber *a, vk_state *v, const char *entry)
{
    int line = a->tok_line;
    if (v->shader < 0)
        return MALFORMED(a, line, "compute without a [compute shader] section");
    uint64_t g[3];
    for (int k = 0; k < 3; k++) {
        TRY(amber_parse_u64(a, a->tok[1 + k], "compute's workgroup count", UINT32_MAX, &g[k]));
        if (g[k] == 0)
            return UNSUPPORTED(a, line, "compute %s %s %s: an empty dispatch", a->tok[1], a->tok[2], a->tok[3]);
    }
    if (!a->pipe_count || strcmp(a->pipes[a->pipe_count - 1].entry, entry) != 0) {
        GROW(a, a->pipes, a->pipe_count);
        a_pipeline *p = &a->pipes[a->pipe_count];
        char name[80];
        snprintf(name, sizeof name, "compute@%d", line);
        p->name = strdup(name);
        p->entry = strdup(entry);
        p->shader = v->shader;
        p->push_buffer = v->push;
        p->line = line;
        a->pipe_count++;
        if (!p->name || !p->entry)
            return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");
        for (int i = 0; i < a->buffer_count; i++) {
            if (v->bufs[i].kind == CASE_KIND_COUNT)
                continue;
            if (p->bind_count == MAX_BINDS)
                return UNSUPPORTED(a, line, "more than %d buffers", MAX_BINDS);
            p->binds[p->bind_count++] = (a_bind){i, v->bufs[i].set, v->bufs[i].binding, 0, v->bufs[i].kind, line, 0, 0};
        }
    }
    if (a->run_count == MAX_PASSES)
        return UNSUPPORTED(a, line, "more than %d computes", MAX_PASSES);
    GROW(a, a->runs, a->run_count);
    a->runs[a->run_count++] = (a_run){a->pipe_count - 1, {(uint32_t)g[0], (uint32_t)g[1], (uint32_t)g[2]}, line, 0};
    return CASE_OK;
}

/* One pass over the [test] section: the buffers and their types and sizes (write = 0), or the data, passes and
 * expectations (write = 1). */
static case_status vk_test(amber *a, vk_state *v, int write)
{
    vk_tolerance tol = {0, 1, 0};
    char entry[128] = "main"; /* the entry point `compute entrypoint` names */
    case_status s = CASE_OK;
    for (int li = v->test_first; li < v->test_end && s == CASE_OK; li++) {
        s = amber_tokenize(a, li);
        if (s != CASE_OK || !a->ntok)
            continue;
        const char *cmd = a->tok[0];
        int line = a->tok_line, b;
        if (a->lines[li][0] && a->lines[li][strlen(a->lines[li]) - 1] == '\\') {
            s = UNSUPPORTED(a, line, "a line continued with '\\': not mapped");
        } else if (amber_is(cmd, "ssbo") && a->ntok == 3) { /* ssbo B N */
            if ((s = vk_buffer_at(a, v, a->tok[1], CASE_KIND_STORAGE_BUFFER, 1, &b)) == CASE_OK && !write)
                s = amber_parse_u64(a, a->tok[2], "ssbo's size", CASE_MAX_BINDING_BYTES, &v->bufs[b].count);
        } else if (a->ntok >= 6 && ((amber_is(cmd, "ssbo") && amber_is(a->tok[2], "subdata")) ||
                                    (amber_is(cmd, "uniform") && amber_is(a->tok[1], "ubo")))) {
            /* ssbo B subdata T OFFSET V... | uniform ubo B T OFFSET V... (std140) */
            const int ubo = amber_is(cmd, "uniform");
            const char *desc = a->tok[ubo ? 2 : 1];
            if ((s = vk_buffer_at(a, v, desc, ubo ? CASE_KIND_UNIFORM_BUFFER : CASE_KIND_STORAGE_BUFFER, 1, &b)) ==
                    CASE_OK &&
                (write || (s = vk_give_type(a, v, b, a->tok[3], ubo)) == CASE_OK)) {
                if (write && a->run_count)
                    s = UNSUPPORTED(a, line, "%s %s: data written after a compute (between passes) is not mapped",
                                    cmd, desc);
                else
                    s = vk_values(a, v, b, a->tok[4], 5, write);
            }
        } else if (amber_is(cmd, "uniform") && a->ntok >= 4) { /* push constants: uniform TYPE OFFSET VALUES */
            if (v->push < 0 && !write)
                s = vk_new_buffer(a, v, "push_constants", (vk_buffer){0, 0, CASE_KIND_COUNT, 0, 0, 0}, &v->push);
            if (s != CASE_OK)
                continue;
            if (write && a->run_count)
                s = UNSUPPORTED(a, line, "uniform after a compute: push constants changed between passes are not "
                                "mapped");
            else if (write || (s = vk_give_type(a, v, v->push, a->tok[1], 0)) == CASE_OK)
                s = vk_values(a, v, v->push, a->tok[2], 3, write);
        } else if (amber_is(cmd, "probe") && a->ntok >= 7 && amber_is(a->tok[1], "ssbo")) {
            /* probe ssbo TYPE B OFFSET OP VALUES: the first pass types the buffer, the second checks it */
            if ((s = vk_buffer_at(a, v, a->tok[3], CASE_KIND_STORAGE_BUFFER, 0, &b)) == CASE_OK)
                s = write ? vk_probe(a, b, &tol) : vk_give_type(a, v, b, a->tok[2], 0);
        } else if (amber_is(cmd, "tolerance") && a->ntok >= 2) {
            s = vk_tolerance_line(a, &tol);
        } else if (amber_is(cmd, "compute") && a->ntok == 3 && amber_is(a->tok[1], "entrypoint")) {
            if (strlen(a->tok[2]) >= sizeof entry)
                s = UNSUPPORTED(a, line, "compute entrypoint: a name of more than %zu bytes", sizeof entry - 1);
            else
                strcpy(entry, a->tok[2]);
        } else if (amber_is(cmd, "compute") && a->ntok == 4) {
            if (write)
                s = vk_compute(a, v, entry);
        } else if (vk_graphics_command(cmd) || (amber_is(cmd, "probe") && !amber_is(a->tok[1], "ssbo"))) {
            s = UNSUPPORTED(a, line, "%.40s: drawing and probing the framebuffer are outside the compute subset",
                            cmd);
        } else {
            s = MALFORMED(a, line, "unknown or malformed test command \"%.40s\"", cmd);
        }
    }
    return s;
}

/* Each buffer's bytes: Amber's size is the larger of `ssbo B N`'s N elements (of the type the buffer ends up
 * with) and the extent its values reach. */
static case_status vk_size_buffers(amber *a, vk_state *v)
{
    for (int i = 0; i < a->buffer_count; i++) {
        a_buffer *b = &a->buffers[i];
        size_t stride = b->lay.stride;
        uint64_t bytes = v->bufs[i].count * stride > v->bufs[i].extent ? v->bufs[i].count * stride : v->bufs[i].extent;
        if (bytes == 0)
            return MALFORMED(a, b->line, "%s: a buffer of 0 bytes (give its size: ssbo B N)", b->name);
        if (bytes % stride)
            bytes += stride - bytes % stride;
        TRY(amber_buffer_alloc(a, b, (size_t)(bytes / stride)));
    }
    return CASE_OK;
}

case_status vkscript_read(amber *a)
{
    vk_state v = {.push = -1, .shader = -1, .test_first = -1};
    case_status s = CASE_OK;
    /* the sections: a line opening with '[' starts one */
    for (int li = 0; li < a->line_count; li++)
        a->requires_spirv_1_4 |= amber_extension_wants_spirv_1_4(a->lines[li]);
    int li = 0;
    while (li < a->line_count && s == CASE_OK) {
        const char *h = a->lines[li];
        while (*h == ' ' || *h == '\t')
            h++;
        if (*h != '[') {
            if ((s = amber_tokenize(a, li)) == CASE_OK && a->ntok)
                s = MALFORMED(a, li + 1, "\"%.40s\" outside a [section]", a->tok[0]);
            li++;
            continue;
        }
        char header[80];
        const char *close = strchr(h, ']');
        if (!close || close - h - 1 >= (long)sizeof header) {
            s = MALFORMED(a, li + 1, "a section header without ']'");
            break;
        }
        snprintf(header, sizeof header, "%.*s", (int)(close - h - 1), h + 1);
        int header_line = li + 1, first = li + 1, end = first;
        while (end < a->line_count && a->lines[end][0] != '[')
            end++;
        li = end;
        if (strcmp(header, "require") == 0) {
            s = vk_require(a, first, end);
        } else if (strcmp(header, "test") == 0) {
            if (v.test_first >= 0)
                s = MALFORMED(a, header_line, "a second [test] section");
            v.test_first = first, v.test_end = end;
        } else if (strcmp(header, "compute shader") == 0 || strcmp(header, "compute shader spirv") == 0) {
            if (v.shader >= 0) {
                s = MALFORMED(a, header_line, "a second [compute shader] section");
                break;
            }
            size_t len;
            char *text = amber_section_text(a, first, end, &len);
            if (!text)
                return CASE_ERR_NOMEM;
            s = amber_add_shader(a, "compute", strcmp(header, "compute shader") == 0 ? "glsl" : "spirv", NULL, text,
                                 len, first, header_line);
            v.shader = a->shader_count - 1;
        } else if (strstr(header, "shader") || strcmp(header, "vertex data") == 0 || strcmp(header, "indices") == 0) {
            s = UNSUPPORTED(a, header_line, "[%s]: the subset reads [compute shader] and [compute shader spirv] "
                            "(graphics stages and SPIR-V in hex are not mapped)", header);
        } else {
            s = MALFORMED(a, header_line, "[%s]: not a VkScript section", header);
        }
    }
    if (s == CASE_OK && v.test_first < 0)
        s = MALFORMED(a, 0, "no [test] section");
    if (s == CASE_OK)
        s = vk_test(a, &v, 0);
    if (s == CASE_OK)
        s = vk_size_buffers(a, &v);
    if (s == CASE_OK)
        s = vk_test(a, &v, 1);
    free(v.bufs);
    return s;
}
