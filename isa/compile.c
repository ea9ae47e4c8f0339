/*
 * isa/compile.c — kernel source to SPIR-V with glslang's C interface, in
 * process, and SPIR-V validation/disassembly with SPIRV-Tools.
 *
 * Also the post-compilation HLSL corrections: glslang 12's HLSL front end
 * departs from HLSL in places (docs/quirks.md, "HLSL through glslang").  The
 * ones that can be corrected by rewriting the module are corrected here; the
 * rest are warned about with the source line.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>
#include <spirv-tools/libspirv.h>
#include <spirv/unified1/spirv.h>

#include "isa/isa.h"
#include "isa/spirv.h"
#include "text/text.h"

/* Kernel sources and headers are text a person wrote: anything larger is not one. */
#define SOURCE_MAX_BYTES ((size_t)1 << 30)

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/*
 * glslang's log lines look like "ERROR: 0:12: 'x' : undeclared identifier"
 * (or "ERROR: file:12: ...").  Rewrites each into "path:12: error: ...".
 */
static void convert_log(const char *log, const char *path, char *err, size_t err_size)
{
    const char *p = log;
    while (p && *p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        char line[1024];
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = 0;
        p = eol ? eol + 1 : NULL;
        const char *kind = NULL, *rest = line;
        if (strncmp(line, "ERROR: ", 7) == 0) {
            kind = "error";
            rest = line + 7;
        } else if (strncmp(line, "WARNING: ", 9) == 0) {
            kind = "warning";
            rest = line + 9;
        }
        if (!kind || !*rest)
            continue;
        /* "<string>:<line>: message" where <string> is a number (the kernel's text) or the name of an
         * #include'd file, as isa/compile.c's include callback found it */
        const char *c1 = strchr(rest, ':');
        if (c1 && isdigit((unsigned char)c1[1])) {
            char *end;
            long ln = strtol(c1 + 1, &end, 10);
            if (*end == ':') {
                while (*++end == ' ')
                    ;
                bool numbered = c1 > rest && strspn(rest, "0123456789") == (size_t)(c1 - rest);
                char msg[1200];
                snprintf(msg, sizeof msg, "%.*s:%ld: %s: %s\n", numbered ? (int)strlen(path) : (int)(c1 - rest),
                         numbered ? path : rest, ln, kind, end);
                if (!err || !strstr(err, msg)) /* glslang repeats a shader's warnings in later logs */
                    text_appendf(err, err_size, "%s", msg);
                continue;
            }
        }
        if (strstr(rest, "compilation terminated") || strstr(rest, "compilation errors"))
            continue;
        text_appendf(err, err_size, "%s: %s: %s\n", path, kind, rest);
    }
}

/*
 * The targets wavelab compiles for and validates in, oldest first.  A module
 * is validated and legalized in the first target whose SPIR-V version is at
 * least the one its header declares (SPIR-V 1.0-1.3: Vulkan 1.1, wavelab's
 * floor), and glslang compiles for the one a case names.  SPIR-V 1.4 is
 * Vulkan 1.1 with VK_KHR_spirv_1_4, which wavelab's device creation does not
 * enable: on a device it needs Vulkan 1.2.
 */
static const struct spirv_target {
    const char *name;                         /* glslangValidator's --target-env spelling */
    uint32_t spirv;                           /* the SPIR-V version, as header word 1 writes it */
    spv_target_env env;                       /* SPIRV-Tools' environment for it */
    glslang_target_client_version_t client;   /* what glslang is told */
    glslang_target_language_version_t language;
    uint32_t vulkan_minor;                    /* the oldest Vulkan 1.x whose devices take it */
} spirv_targets[] = {
    {"vulkan1.1", 0x10300, SPV_ENV_VULKAN_1_1, GLSLANG_TARGET_VULKAN_1_1, GLSLANG_TARGET_SPV_1_3, 1},
    {"spirv1.4", 0x10400, SPV_ENV_VULKAN_1_1_SPIRV_1_4, GLSLANG_TARGET_VULKAN_1_1, GLSLANG_TARGET_SPV_1_4, 2},
    {"vulkan1.2", 0x10500, SPV_ENV_VULKAN_1_2, GLSLANG_TARGET_VULKAN_1_2, GLSLANG_TARGET_SPV_1_5, 2},
    {"vulkan1.3", 0x10600, SPV_ENV_VULKAN_1_3, GLSLANG_TARGET_VULKAN_1_3, GLSLANG_TARGET_SPV_1_6, 3},
};
enum { SPIRV_TARGET_COUNT = sizeof spirv_targets / sizeof spirv_targets[0] };

static const struct spirv_target *target_named(const char *name)
{
    if (!name || !*name)
        return &spirv_targets[0];
    for (int i = 0; i < SPIRV_TARGET_COUNT; i++)
        if (strcmp(spirv_targets[i].name, name) == 0)
            return &spirv_targets[i];
    return NULL;
}

/* ---- HLSL corrections on the SPIR-V words ---- */

static bool is_scan_arith(SpvOp op)
{
    switch (op) {
    case SpvOpGroupNonUniformIAdd: case SpvOpGroupNonUniformFAdd:
    case SpvOpGroupNonUniformIMul: case SpvOpGroupNonUniformFMul:
        return true;
    default:
        return false;
    }
}

/*
 * HLSL's WavePrefixSum/WavePrefixProduct are exclusive scans; glslang 12
 * emits InclusiveScan.  In HLSL no other source construct produces an
 * inclusive arithmetic scan (WavePrefixCountBits is a BallotBitCount), so
 * every InclusiveScan IAdd/FAdd/IMul/FMul came from WavePrefix* and is
 * rewritten to ExclusiveScan.  (HLSL 2021's short-circuit `&&`, `||` and
 * `?:` are restored on glslang's syntax tree: isa/glslang_shim.cpp.)
 */
static void fix_hlsl_prefix_scans(uint32_t *w, size_t n)
{
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, w, n, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST)
        if (is_scan_arith(in.op) && in.no >= 4 && in.o[3] == SpvGroupOperationInclusiveScan)
            w[in.word + 4] = SpvGroupOperationExclusiveScan;
}

/*
 * glslang 12 packs a string operand through a signed char: a byte >= 0x80 (any UTF-8 beyond ASCII) is
 * sign-extended and ORs 0xFF into the bytes after it in the same word, so a comment's "café" came back from
 * `compile --disasm` as "caf\xC3\xFF\xFF\xFF".  The bytes lost are known where the string is a text wavelab gave
 * glslang (the kernel, an included header, a header's name): a string whose bytes are exactly that text packed
 * the faulty way gets the text again, packed right.  (The kernel's OpSource continues with glslang's
 * preprocessed text, which it does not know: only its prefix is restored.)
 */
static uint8_t string_byte(const uint32_t *w, size_t k) { return (uint8_t)(w[k / 4] >> (8 * (k % 4))); }

static void set_string_byte(uint32_t *w, size_t k, uint8_t b)
{
    unsigned shift = 8 * (unsigned)(k % 4);
    w[k / 4] = (w[k / 4] & ~(0xFFu << shift)) | ((uint32_t)b << shift);
}

/* The string operand at w (avail words); text of len bytes: restores it when it matches the faulty packing. */
static void repair_string(uint32_t *w, size_t avail, const char *text, size_t len)
{
    size_t cap = 4 * avail, n = len < cap ? len : cap;
    int high = 0, any = 0;
    for (size_t k = 0; k < n; k++) {
        uint8_t c = (uint8_t)text[k];
        if (k % 4 == 0)
            high = 0;
        if (string_byte(w, k) != (high ? 0xFF : c))
            return;
        any |= high;
        high |= c >= 0x80;
    }
    if (!any && !(high && n == len && len / 4 + 1 == avail))
        return; /* nothing was lost */
    for (size_t k = 0; k < n; k++)
        set_string_byte(w, k, (uint8_t)text[k]);
    if (n == len && len / 4 + 1 == avail) /* the whole string: the rest of its last word is the terminator */
        for (size_t k = len; k < cap; k++)
            set_string_byte(w, k, 0);
}

static void repair_utf8_strings(uint32_t *w, size_t n, const char *const *texts, const size_t *lens, int count)
{
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, w, n, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST) {
        /* OpSource: language, version, file, source; OpString: result id, name */
        size_t at = in.op == SpvOpSource ? 4 : in.op == SpvOpString ? 2 : 0;
        if (at && in.wc > at)
            for (int t = 0; t < count; t++)
                repair_string(w + in.word + at, in.wc - at, texts[t], lens[t]);
    }
}

/*
 * HLSL numbers registers per class (b, t, u, s) and glslang, like DXC with
 * its default shifts of 0, puts register(t0), (u0) and (b0) all on binding 0:
 * the kernel would read its output buffer as its input.  Two resource
 * variables on one set and binding are one error naming both.  (glslang 12's
 * own shifts cannot help: its resolver classes StructuredBuffer and
 * RWStructuredBuffer alike as SSBOs, so no shift separates t0 from u0.)
 */
static int by_word(const void *a, const void *b)
{
    uint32_t x = (*(const spv_node *const *)a)->word, y = (*(const spv_node *const *)b)->word;
    return x < y ? -1 : x > y;
}

/* A resource's name for a message: its own, or its block type's (a cbuffer's variable has none of its own). */
static const char *resource_name(const spv_module *m, const spv_node *v)
{
    const spv_type *ptr = spv_type_of(m, v->type);
    const spv_node *block = ptr && ptr->op == SpvOpTypePointer ? spv_node_of(m, ptr->elem) : NULL;
    return v->name && *v->name ? v->name : block && block->name && *block->name ? block->name : "(unnamed)";
}

static bool hlsl_bindings_collide(const uint32_t *w, size_t n, const char *path, char *err, size_t err_size)
{
    spv_module m;
    char unread[256];
    if (!spv_module_read(&m, w, n, unread, sizeof unread))
        return false; /* validation says what is wrong with it */
    const spv_node **vars = calloc(m.node_count + 1, sizeof *vars);
    size_t nvars = 0;
    bool collide = false;
    for (uint32_t k = 0; vars && k < m.node_count; k++)
        if (m.nodes[k].op == SpvOpVariable && m.nodes[k].binding >= 0)
            vars[nvars++] = &m.nodes[k];
    if (vars)
        qsort(vars, nvars, sizeof *vars, by_word); /* the order the module declares them */
    for (size_t a = 0; a < nvars && !collide; a++)
        for (size_t b = a + 1; b < nvars && !collide; b++) {
            const spv_node *va = vars[a], *vb = vars[b];
            uint32_t set = va->set < 0 ? 0 : (uint32_t)va->set;
            if (set != (vb->set < 0 ? 0 : (uint32_t)vb->set) || va->binding != vb->binding)
                continue;
            text_appendf(err, err_size, "%s: error: `%s` and `%s` are both set %u binding %u: HLSL numbers b, t, u and s "
                   "registers separately, and glslang 12 has no per-class shift for buffers: give one "
                   "[[vk::binding(N, S)]] or another register number\n", path, resource_name(&m, va),
                   resource_name(&m, vb), set, (uint32_t)va->binding);
            collide = true;
        }
    free(vars);
    spv_module_free(&m);
    return collide;
}

static spv_result_t note_result_type(void *user, const spv_parsed_instruction_t *in)
{
    uint32_t *types = user;
    if (in->result_id && in->type_id)
        types[in->result_id] = in->type_id;
    return SPV_SUCCESS;
}

/*
 * HLSL's WaveActiveAllEqual compares a vector per component (an int2 gives a
 * bool2); glslang 12 compares the whole vector and splats one bool.  Each
 * OpGroupNonUniformAllEqual of an N-vector that an OpCompositeConstruct
 * splats right after (`bool2 e = WaveActiveAllEqual(v);`) becomes N
 * per-component ones feeding that construct (the whole-vector one is left for
 * dead-code elimination).  Any other use of it (`uint2(WaveActiveAllEqual(v))`,
 * where glslang converts the one bool before splatting) cannot be corrected on
 * the words and is warned about.  Replaces *words.
 */
static isa_status fix_hlsl_vector_all_equal(uint32_t **words, size_t *n, const char *path, char *warnings,
                                            size_t warnings_size)
{
    uint32_t *w = *words, bound = w[3];
    uint32_t *types = calloc(bound, sizeof *types), *vec_elem = calloc(bound, sizeof *vec_elem),
             *vec_len = calloc(bound, sizeof *vec_len);
    uint32_t *out = malloc((*n * 4 + 64) * sizeof *out);
    isa_status st = ISA_ERR_NOMEM;
    if (!types || !vec_elem || !vec_len || !out)
        goto done;
    spv_context ctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
    spvBinaryParse(ctx, types, w, *n, NULL, note_result_type, NULL);
    spvContextDestroy(ctx);
    size_t o = 0;
    memcpy(out, w, 5 * sizeof *w);
    o = 5;
    spv_iter it;
    spv_inst in;
    spv_iter_init(&it, w, *n, SPV_HEADER_WORDS);
    while (spv_next(&it, &in) == SPV_STEP_INST) {
        size_t i = in.word;
        uint32_t wc = in.wc;
        SpvOp op = in.op;
        if (op == SpvOpTypeVector && wc == 4 && w[i + 1] < bound)
            vec_elem[w[i + 1]] = w[i + 2], vec_len[w[i + 1]] = w[i + 3];
        uint32_t val = wc == 5 && op == SpvOpGroupNonUniformAllEqual ? w[i + 4] : 0;
        uint32_t vty = val && val < bound ? types[val] : 0, len = vty ? vec_len[vty] : 0;
        spv_iter after = it; /* the instruction after this one, looked at without stepping past it */
        spv_inst nx;
        bool has_next = spv_next(&after, &nx) == SPV_STEP_INST;
        size_t next = has_next ? nx.word : *n;
        if (len >= 2 && len <= 4 && has_next && nx.op == SpvOpCompositeConstruct && nx.wc == 3 + len &&
            nx.o[2] == w[i + 2] && o + wc + 10 * len + 8 < *n * 4 + 64) {
            bool splat = true;
            for (uint32_t k = 1; k < len; k++)
                splat = splat && nx.o[2 + k] == w[i + 2];
            if (splat) {
                memcpy(out + o, w + i, wc * sizeof *w); /* the whole-vector one, now unused */
                o += wc;
                uint32_t comps[4];
                for (uint32_t k = 0; k < len; k++) {
                    uint32_t e = bound++, r = bound++;
                    out[o++] = 5u << 16 | SpvOpCompositeExtract;
                    out[o++] = vec_elem[vty], out[o++] = e, out[o++] = val, out[o++] = k;
                    out[o++] = 5u << 16 | SpvOpGroupNonUniformAllEqual;
                    out[o++] = w[i + 1], out[o++] = r, out[o++] = w[i + 3], out[o++] = e;
                    comps[k] = r;
                }
                memcpy(out + o, w + next, 3 * sizeof *w);
                o += 3;
                for (uint32_t k = 0; k < len; k++)
                    out[o++] = comps[k];
                it = after; /* the construct is written: go on after it */
                continue;
            }
        }
        if (len >= 2)
            text_appendf(warnings, warnings_size, "%s: warning: WaveActiveAllEqual of a %u-component vector (SPIR-V word "
                   "%zu) compares the whole vector and gives every component one answer (glslang 12; HLSL compares "
                   "per component): assign it to a bool%u variable first, which wavelab corrects\n", path, len, i,
                   len);
        memcpy(out + o, w + i, wc * sizeof *w);
        o += wc;
    }
    out[3] = bound;
    free(*words);
    *words = out;
    *n = o;
    out = NULL;
    st = ISA_OK;
done:
    free(types);
    free(vec_elem);
    free(vec_len);
    free(out);
    return st;
}

/* isa/glslang_shim.cpp: what glslang 12's C interface cannot do. */
void isa_glslang_set_entry_point(glslang_shader_t *shader, const char *name);
void isa_glslang_use_storage_buffer(glslang_shader_t *shader);
int isa_glslang_parse(glslang_shader_t *shader, const glslang_input_t *input,
                      const glsl_include_callbacks_t *callbacks, void *ctx);
int isa_glslang_hlsl_short_circuit(glslang_shader_t *shader);
void isa_glslang_hlsl_dxc_bindings(glslang_shader_t *shader);
const char *isa_glslang_hlsl_wave_overload(size_t i, const char **more_params);
const char *isa_glslang_hlsl_builtin_read(size_t i);
int isa_glslang_hlsl_wave_overloads(glslang_shader_t *shader);
int isa_glslang_hlsl_derivative_group(glslang_shader_t *shader, unsigned *x, unsigned *y, unsigned *z);

static pthread_once_t glslang_once = PTHREAD_ONCE_INIT;

static void glslang_start(void) { glslang_initialize_process(); }

/* Whether `name` appears in `text` as an identifier followed by '(' (a function definition or call). */
static bool mentions_function(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        const char *q = p + n;
        if (!start || isalnum((unsigned char)*q) || *q == '_')
            continue;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            q++;
        if (*q == '(')
            return true;
    }
    return false;
}

/* Whether `name` appears in `text` as a whole identifier. */
static bool mentions_word(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool end = !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (start && end)
            return true;
    }
    return false;
}

/* Whether the kernel names `name` itself (a #define, or a typedef ending in it): then wavelab must not. */
static bool defines_itself(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        const char *q = p + n;
        if (isalnum((unsigned char)*q) || *q == '_')
            continue;
        const char *line = p;
        while (line > text && line[-1] != '\n')
            line--;
        while (*line == ' ' || *line == '\t')
            line++;
        if (*line == '#' || strncmp(line, "typedef", 7) == 0)
            return true;
    }
    return false;
}

/* HLSL's scalar types that make matrices (TRxC), in glslang 12's spelling. */
static const char *const hlsl_matrix_bases[] = {"float", "half", "double", "int", "uint", "bool",
                                                "min16float", "min16int", "min16uint"};
enum { HLSL_MATRIX_BASES = sizeof hlsl_matrix_bases / sizeof hlsl_matrix_bases[0] };

/*
 * DXC's sized type names (HLSL 2018+ with -enable-16bit-types): glslang 12's
 * HLSL front end knows none of them but `uint64_t`.  Each name the kernel
 * uses, and does not define itself, becomes a #define of glslang's
 * equivalent: 16-bit integers are glslang's min16 types (16-bit under
 * glslang's 16-bit-types mode, which wavelab sets), float16_t is half.
 * int64_t has no glslang 12 HLSL spelling: it stays an error (docs/quirks.md).
 */
static void dxc_type_defines(const char *text, char *preamble, size_t size)
{
    static const char *const map[][2] = {
        {"int16_t", "min16int"}, {"uint16_t", "min16uint"}, {"float16_t", "half"},
        {"int32_t", "int"},      {"uint32_t", "uint"},      {"float32_t", "float"}, {"float64_t", "double"},
    };
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++) {
        char name[32], to[32];
        for (int rows = 0; rows <= 4; rows++)
            for (int cols = 0; cols <= (rows ? 4 : 0); cols++) {
                /* scalar (rows 0), vector N (cols 0), matrix NxM */
                if (rows == 0)
                    snprintf(name, sizeof name, "%s", map[k][0]), snprintf(to, sizeof to, "%s", map[k][1]);
                else if (cols == 0)
                    snprintf(name, sizeof name, "%s%d", map[k][0], rows),
                        snprintf(to, sizeof to, "%s%d", map[k][1], rows);
                else
                    snprintf(name, sizeof name, "%s%dx%d", map[k][0], rows, cols),
                        snprintf(to, sizeof to, rows == 1 && cols == 1 ? "%s" : "%s%dx%d", map[k][1], rows, cols);
                if (mentions_word(text, name) && !defines_itself(text, name))
                    text_appendf(preamble, size, "#define %s %s\n", name, to);
            }
    }
    /* A 1x1 matrix is a scalar, as DXC makes it: glslang 12 would write a one-component vector, invalid SPIR-V.
     * Indexing it (m[0], m._m00) is then refused by glslang, never read wrong. */
    for (size_t k = 0; k < HLSL_MATRIX_BASES; k++) {
        char name[32];
        snprintf(name, sizeof name, "%s1x1", hlsl_matrix_bases[k]);
        if (mentions_word(text, name) && !defines_itself(text, name))
            text_appendf(preamble, size, "#define %s %s\n", name, hlsl_matrix_bases[k]);
    }
}

/* After glslang rejected an HLSL kernel: one line naming a DXC construct glslang 12 cannot take, if that is why. */
static void dxc_type_note(const char *text, const char *path, char *err, size_t err_size)
{
    static const char *const int64_names[] = {"int64_t", "int64_t1", "int64_t2", "int64_t3", "int64_t4"};
    for (size_t k = 0; k < sizeof int64_names / sizeof int64_names[0]; k++)
        if (mentions_word(text, int64_names[k]) && !defines_itself(text, int64_names[k])) {
            text_appendf(err, err_size, "%s: note: `%s` (DXC's signed 64-bit integer) has no spelling in glslang 12's HLSL "
                   "front end (docs/quirks.md, \"SPIR-V the model takes\")\n", path, int64_names[k]);
            return;
        }
    if (err && (strstr(err, "float16_t") || strstr(err, "int16_t") || strstr(err, "uint64_t")) &&
        (strstr(err, "convert") || strstr(err, "construct")))
        text_appendf(err, err_size, "%s: note: glslang 12 converts to 16-bit and 64-bit types only through explicit casts "
               "from a 32-bit value, e.g. (half)(float)x (docs/quirks.md, \"SPIR-V the model takes\")\n", path);
}

/*
 * HLSL intrinsics glslang 12 lacks, declared in the preamble when the kernel
 * calls them.  Shader Model 6.7's QuadAny and QuadAll, defined from ones it
 * has: true when any (all) of the quad's four lanes has `e`, read across the
 * quad as DXC does without SPV_KHR_quad_control.  Bitwise `|`/`&`, not
 * `||`/`&&`: HLSL 2021's short-circuit would put the reads in branches.
 * NonUniformResourceIndex, prototypes whose calls isa/glslang_shim.cpp turns
 * into glslang's nonuniformEXT (a copy decorated NonUniform).
 */
static const struct dxc_intrinsic {
    const char *name, *definition;
} dxc_intrinsics[] = {
    {"QuadAny", "bool QuadAny(bool e) { uint v = e ? 1u : 0u; "
                "return (v | QuadReadAcrossX(v) | QuadReadAcrossY(v) | QuadReadAcrossDiagonal(v)) != 0u; }\n"},
    {"QuadAll", "bool QuadAll(bool e) { uint v = e ? 1u : 0u; "
                "return (v & QuadReadAcrossX(v) & QuadReadAcrossY(v) & QuadReadAcrossDiagonal(v)) != 0u; }\n"},
    {"NonUniformResourceIndex", "uint NonUniformResourceIndex(uint index);\nint NonUniformResourceIndex(int index);\n"},
};

static void dxc_intrinsic_definitions(const char *text, char *preamble, size_t size)
{
    for (size_t k = 0; k < sizeof dxc_intrinsics / sizeof dxc_intrinsics[0]; k++)
        if (mentions_function(text, dxc_intrinsics[k].name) && !defines_itself(text, dxc_intrinsics[k].name))
            text_appendf(preamble, size, "%s", dxc_intrinsics[k].definition);
    /* Shader Model 6.10's built-in reads: prototypes whose calls isa/glslang_shim.cpp replaces */
    const char *name;
    for (size_t i = 0; (name = isa_glslang_hlsl_builtin_read(i)); i++)
        if (mentions_function(text, name) && !defines_itself(text, name))
            text_appendf(preamble, size, "uint %s();\n", name);
}

/*
 * The 16-bit and 64-bit integer overloads of the wave intrinsics, which glslang 12 lacks: for each intrinsic of
 * isa/glslang_shim.cpp's table the kernel calls, a prototype per type of each family below whose names the kernel
 * uses.  glslang prefers them as exact matches, and the shim turns each call into the group operation on that type
 * (isa_glslang_hlsl_wave_overloads).  uint64_t is glslang 12's only 64-bit integer spelling (scalar only).  With
 * any of them declared, a `half` argument would be ambiguous (half converts to float and to the integers alike), so
 * the `half` family comes with them: WaveActiveSum(half) is then a half-precision sum, as DXC's with 16-bit types.
 */
static const struct wave_overload_family {
    const char *uses[2];  /* names (after dxc_type_defines' mapping, either spelling) that bring the family */
    const char *types[4]; /* glslang's spellings */
} wave_overload_families[] = {
    {{"uint64_t", NULL}, {"uint64_t", NULL, NULL, NULL}},
    {{"int16_t", "min16int"}, {"min16int", "min16int2", "min16int3", "min16int4"}},
    {{"uint16_t", "min16uint"}, {"min16uint", "min16uint2", "min16uint3", "min16uint4"}},
    {{NULL, NULL}, {"half", "half2", "half3", "half4"}}, /* with any other: see above */
};
enum { WAVE_FAMILIES = sizeof wave_overload_families / sizeof wave_overload_families[0] };

static void wave_overload_prototypes(const char *text, char *preamble, size_t size)
{
    bool any = false, with[WAVE_FAMILIES] = {false};
    for (int f = 0; f < WAVE_FAMILIES; f++)
        for (int u = 0; u < 2 && wave_overload_families[f].uses[u]; u++)
            with[f] = with[f] || mentions_word(text, wave_overload_families[f].uses[u]);
    for (int f = 0; f < WAVE_FAMILIES; f++)
        any = any || with[f];
    if (!any)
        return;
    with[WAVE_FAMILIES - 1] = true;
    const char *more, *name;
    for (size_t i = 0; (name = isa_glslang_hlsl_wave_overload(i, &more)); i++)
        if (mentions_function(text, name) && !defines_itself(text, name))
            for (int f = 0; f < WAVE_FAMILIES; f++)
                for (int t = 0; with[f] && t < 4 && wave_overload_families[f].types[t]; t++)
                    text_appendf(preamble, size, "%s %s(%s value%s);\n", wave_overload_families[f].types[t], name,
                           wave_overload_families[f].types[t], more);
}

/*
 * WaveActiveAllEqual of a matrix, which glslang 12 lacks (HLSL gives a bool matrix; SPIR-V has none): when the
 * kernel calls it, a prototype `bool WaveActiveAllEqual(TRxC value);` for each matrix type it names.  Under all()
 * or any() isa/glslang_shim.cpp replaces the call by the reduction of every element's AllEqual; anywhere else the
 * prototype has no body and linking fails (compile_hlsl_notes says why).
 */
static void all_equal_matrix_prototypes(const char *text, char *preamble, size_t size)
{
    if (!mentions_function(text, "WaveActiveAllEqual") || defines_itself(text, "WaveActiveAllEqual"))
        return;
    for (size_t k = 0; k < HLSL_MATRIX_BASES; k++)
        for (int rows = 2; rows <= 4; rows++)
            for (int cols = 2; cols <= 4; cols++) {
                char name[32];
                snprintf(name, sizeof name, "%s%dx%d", hlsl_matrix_bases[k], rows, cols);
                if (mentions_word(text, name))
                    text_appendf(preamble, size, "bool WaveActiveAllEqual(%s value);\n", name);
            }
}

static size_t dxc_intrinsic_definitions_size(void)
{
    size_t n = HLSL_MATRIX_BASES * 9 * 64 + HLSL_MATRIX_BASES * 64; /* the matrix prototypes, the 1x1 defines */
    for (size_t k = 0; k < sizeof dxc_intrinsics / sizeof dxc_intrinsics[0]; k++)
        n += strlen(dxc_intrinsics[k].definition);
    for (size_t i = 0; isa_glslang_hlsl_builtin_read(i); i++)
        n += 64;
    const char *more;
    for (size_t i = 0; isa_glslang_hlsl_wave_overload(i, &more); i++)
        n += WAVE_FAMILIES * 4 * (64 + strlen(more));
    return n;
}

/*
 * `unsigned int` (and `unsigned intN`, `unsigned intNxM`) is DXC's spelling
 * of `uint`; glslang 12 reserves `unsigned`.  Rewritten in place to `uint`
 * with the suffix, padded with spaces to the same length, so every line and
 * column glslang reports is the one written.  Comments and string literals
 * are left alone; `unsigned` before anything else stays (glslang names it).
 */
static void hlsl_spell_unsigned(char *t)
{
    for (char *p = t; *p;) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        if (p[0] == '/' && p[1] == '*') {
            char *end = strstr(p + 2, "*/");
            p = end ? end + 2 : p + strlen(p);
            continue;
        }
        if (*p == '"') {
            for (p++; *p && *p != '"' && *p != '\n'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p == '"')
                p++;
            continue;
        }
        bool start = p == t || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        if (!start || strncmp(p, "unsigned", 8) != 0 || !(p[8] == ' ' || p[8] == '\t')) {
            p++;
            continue;
        }
        char *q = p + 8;
        while (*q == ' ' || *q == '\t')
            q++;
        char *suffix = q + 3, *end = suffix;
        if (strncmp(q, "int", 3) == 0 && *end >= '1' && *end <= '4') {
            end++;
            if (end[0] == 'x' && end[1] >= '1' && end[1] <= '4')
                end += 2;
        }
        if (strncmp(q, "int", 3) != 0 || isalnum((unsigned char)*end) || *end == '_') {
            p = q;
            continue;
        }
        size_t slen = (size_t)(end - suffix), total = (size_t)(end - p);
        char spelled[16];
        snprintf(spelled, sizeof spelled, "uint%.*s", (int)slen, suffix);
        memset(p, ' ', total);
        memcpy(p, spelled, strlen(spelled));
        p = end;
    }
}

/*
 * #include "name": the directory of the file that includes, then the
 * directories of the files that included it, outward to the kernel's own
 * directory — as a C preprocessor searches quoted names — and never the
 * process's working directory, so a case runs the same from anywhere.
 * glslang's C interface would otherwise start its search at "." (the
 * top-level source has no file name).  #include <name> has no directories to
 * search and is refused.  isa/spvcache.c keys every probe of this search.
 */
enum { INCLUDE_MAX_DEPTH = 32, INCLUDE_MAX_TEXTS = 64 };

typedef struct include_search {
    char *kernel_dir;                      /* the chain's outermost directory */
    bool hlsl;                             /* headers get hlsl_spell_unsigned, as the kernel does */
    char *dirs[INCLUDE_MAX_DEPTH + 1];     /* dirs[d]: the directory of the file included at depth d */
    char refused[1200];                    /* why a header found was not read ("X is a directory"), for the error */
    /* what glslang was given: the kernel, then each header's name and text (repair_utf8_strings) */
    const char *texts[2 * INCLUDE_MAX_TEXTS + 1];
    char *owned[2 * INCLUDE_MAX_TEXTS];
    size_t lens[2 * INCLUDE_MAX_TEXTS + 1];
    int text_count, owned_count;
} include_search;

static char *kernel_directory(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
}

static glsl_include_result_t *include_local(void *ctx, const char *header_name, const char *includer_name,
                                            size_t depth)
{
    (void)includer_name;
    include_search *s = ctx;
    if (!s->kernel_dir || depth < 1 || depth > INCLUDE_MAX_DEPTH)
        return NULL;
    /* glslang numbers the kernel's own #include lines depth 1: the chain is dirs[depth-1] .. dirs[1], kernel_dir */
    for (size_t d = depth; d-- > 0;) {
        const char *dir = d == 0 ? s->kernel_dir : s->dirs[d];
        if (!dir)
            continue;
        size_t len = strlen(dir) + strlen(header_name) + 2;
        char *candidate = malloc(len);
        if (!candidate)
            return NULL;
        snprintf(candidate, len, "%s/%s", dir, header_name);
        for (char *c = candidate; *c; c++)
            if (*c == '\\')
                *c = '/';
        struct stat st;
        if (stat(candidate, &st) == 0 && !S_ISREG(st.st_mode)) {
            /* found but not a file: named in the error (glslang's own message only says it failed) */
            text_read_file(candidate, SOURCE_MAX_BYTES, NULL, s->refused, sizeof s->refused);
            free(candidate);
            return NULL;
        }
        char *text = text_read_file(candidate, SOURCE_MAX_BYTES, NULL, NULL, 0);
        if (!text) {
            free(candidate);
            continue;
        }
        glsl_include_result_t *r = calloc(1, sizeof *r);
        if (!r) {
            free(text);
            free(candidate);
            return NULL;
        }
        if (s->hlsl)
            hlsl_spell_unsigned(text);
        r->header_name = candidate;
        r->header_data = text;
        r->header_length = strlen(text);
        char *name_copy = s->text_count < 2 * INCLUDE_MAX_TEXTS - 1 ? strdup(candidate) : NULL;
        char *text_copy = name_copy ? strdup(text) : NULL;
        if (text_copy) {
            s->owned[s->owned_count++] = name_copy, s->owned[s->owned_count++] = text_copy;
            s->texts[s->text_count] = name_copy, s->lens[s->text_count++] = strlen(name_copy);
            s->texts[s->text_count] = text_copy, s->lens[s->text_count++] = strlen(text_copy);
        } else {
            free(name_copy);
        }
        free(s->dirs[depth]);
        s->dirs[depth] = kernel_directory(candidate);
        return r;
    }
    return NULL;
}

static glsl_include_result_t *include_system(void *ctx, const char *header_name, const char *includer_name,
                                             size_t depth)
{
    (void)ctx, (void)header_name, (void)includer_name, (void)depth;
    return NULL;
}

static int include_free(void *ctx, glsl_include_result_t *r)
{
    (void)ctx;
    if (r) {
        free((char *)r->header_name);
        free((char *)r->header_data);
        free(r);
    }
    return 0;
}

static void include_search_free(include_search *s)
{
    for (int i = 0; i < s->owned_count; i++)
        free(s->owned[i]);
    free(s->kernel_dir);
    for (int d = 0; d <= INCLUDE_MAX_DEPTH; d++)
        free(s->dirs[d]);
}

/*
 * The kernel's text followed by every header it includes, found as glslang
 * will find them (include_local), for the scans that decide the preamble:
 * a DXC type name or intrinsic used only in a header counts as in the
 * kernel.  Comments are skipped (text_strip_comments); #if is not evaluated (a
 * name in a skipped block still counts, which only adds an unused #define).  Each header is read at most HEADER_READS
 * times in all (a diamond of includes would otherwise be walked again and
 * again).  NULL when out of memory.
 */
enum { HEADER_READS = 256 };

static bool walk_headers(include_search *s, const char *text, size_t depth, FILE *all, int *reads)
{
    char *clean = text_strip_comments(text, strlen(text));
    if (!clean)
        return false;
    bool ok = true;
    for (char *line = clean; line && ok;) {
        char *eol = strchr(line, '\n');
        if (eol)
            *eol = 0;
        const char *operand = NULL;
        size_t operand_len = 0;
        if (text_include_directive(line, &operand, &operand_len) == '"' && depth + 1 <= INCLUDE_MAX_DEPTH &&
            ++*reads <= HEADER_READS) {
            char *name = strndup(operand, operand_len);
            glsl_include_result_t *r = name ? include_local(s, name, NULL, depth + 1) : NULL;
            ok = name != NULL;
            free(name);
            if (r) {
                ok = fwrite(r->header_data, 1, r->header_length, all) == r->header_length && fputc('\n', all) != EOF &&
                     walk_headers(s, r->header_data, depth + 1, all, reads);
                include_free(NULL, r);
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    free(clean);
    return ok;
}

static char *hlsl_with_headers(const char *text, const char *path)
{
    include_search s = {.kernel_dir = kernel_directory(path), .hlsl = true};
    char *data = NULL;
    size_t len = 0;
    FILE *all = open_memstream(&data, &len);
    int reads = 0;
    bool ok = s.kernel_dir && all && fputs(text, all) != EOF && fputc('\n', all) != EOF &&
              walk_headers(&s, text, 0, all, &reads);
    include_search_free(&s);
    if ((all && fclose(all) != 0) || !ok) {
        free(data);
        return NULL;
    }
    return data;
}

/* What the steps of one compilation share once its inputs are settled. */
typedef struct compile_job {
    const char *path;                  /* the kernel's, for messages */
    const char *text;                  /* its source (HLSL: with hlsl_spell_unsigned's spellings) */
    const char *all;                   /* HLSL: the kernel and its headers, for the preamble's scans; else NULL */
    const char *entry;
    const struct spirv_target *target;
    bool hlsl;
    char *err, *warnings;
    size_t err_size, warnings_size;
} compile_job;

/* The preamble glslang reads before the kernel: the include extension (GLSL), the case's defines, and for HLSL
 * the DXC names the kernel or its headers use.  NULL when out of memory. */
static char *kernel_preamble(const isa_compile_options *opt, const compile_job *j)
{
    size_t pre_len = 128; /* the include extension line */
    for (int i = 0; i < opt->define_count; i++)
        pre_len += strlen(opt->defines[i].name) + strlen(opt->defines[i].value ? opt->defines[i].value : "") + 16;
    pre_len += strlen(j->entry) + 32;
    if (j->hlsl)
        pre_len += 8192 + dxc_intrinsic_definitions_size(); /* DXC type names: every spelling of all seven fits */
    char *preamble = malloc(pre_len);
    if (!preamble)
        return NULL;
    preamble[0] = 0;
    /* glslc's rule: #include needs no #extension line (glslang alone would refuse it without one) */
    if (!j->hlsl)
        text_appendf(preamble, pre_len, "#extension GL_GOOGLE_include_directive : enable\n");
    for (int i = 0; i < opt->define_count; i++)
        text_appendf(preamble, pre_len, "#define %s %s\n", opt->defines[i].name,
               opt->defines[i].value ? opt->defines[i].value : "");
    if (j->hlsl) {
        dxc_type_defines(j->all, preamble, pre_len);
        dxc_intrinsic_definitions(j->all, preamble, pre_len);
        wave_overload_prototypes(j->all, preamble, pre_len);
        all_equal_matrix_prototypes(j->all, preamble, pre_len);
    }
    return preamble;
}

static glslang_input_t glslang_input_of(const compile_job *j)
{
    return (glslang_input_t){
        .language = j->hlsl ? GLSLANG_SOURCE_HLSL : GLSLANG_SOURCE_GLSL,
        .stage = GLSLANG_STAGE_COMPUTE,
        .client = GLSLANG_CLIENT_VULKAN,
        .client_version = j->target->client,
        .target_language = GLSLANG_TARGET_SPV,
        .target_language_version = j->target->language,
        .code = j->text,
        .default_version = j->hlsl ? 500 : 450,
        .default_profile = GLSLANG_NO_PROFILE,
        .force_default_version_and_profile = 0,
        .forward_compatible = 0,
        .messages = GLSLANG_MSG_DEFAULT_BIT | GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT |
                    GLSLANG_MSG_DEBUG_INFO_BIT |
                    (j->hlsl ? GLSLANG_MSG_READ_HLSL_BIT | GLSLANG_MSG_HLSL_LEGALIZATION_BIT |
                                   GLSLANG_MSG_HLSL_ENABLE_16BIT_TYPES_BIT
                             : 0),
        .resource = glslang_default_resource(),
    };
}

/* glslang parses, links and writes the kernel as SPIR-V (*words), its messages converted into j->err and
 * j->warnings; search finds the headers and keeps what glslang was given. */
static isa_status glslang_spirv(const compile_job *j, const char *preamble, include_search *search,
                                uint32_t **words, size_t *word_count)
{
    const char *path = j->path;
    char *err = j->err;
    size_t err_size = j->err_size;
    glslang_input_t input = glslang_input_of(j);
    const glsl_include_callbacks_t includes = {
        .include_system = include_system, .include_local = include_local, .free_include_result = include_free};
    isa_status st = ISA_OK;
    glslang_shader_t *shader = glslang_shader_create(&input);
    glslang_program_t *program = NULL;
    glslang_shader_set_preamble(shader, preamble);
    if (j->hlsl)
        isa_glslang_set_entry_point(shader, j->entry);
    if (j->hlsl && j->target->spirv >= 0x10400)
        isa_glslang_use_storage_buffer(shader);
    if (!isa_glslang_parse(shader, &input, &includes, search)) {
        convert_log(glslang_shader_get_info_log(shader), path, err, err_size);
        if (search->refused[0])
            text_appendf(err, err_size, "%s\n", search->refused);
        if (!err || !err[0])
            text_appendf(err, err_size, "%s: error: glslang rejected the kernel\n", path);
        if (j->hlsl)
            dxc_type_note(j->all, path, err, err_size);
        st = ISA_ERR_COMPILE;
        goto done;
    }
    /* glslang's warnings (an extension it does not know, ...) reach the user like ours */
    convert_log(glslang_shader_get_info_log(shader), path, j->warnings, j->warnings_size);
    if (j->hlsl) {
        isa_glslang_hlsl_short_circuit(shader);
        isa_glslang_hlsl_dxc_bindings(shader);
        isa_glslang_hlsl_wave_overloads(shader);
        unsigned x, y, z;
        if (isa_glslang_hlsl_derivative_group(shader, &x, &y, &z) < 0) {
            text_appendf(err, err_size, "%s: error: derivatives (ddx, ddy, fwidth, Sample, SampleBias, SampleCmp, "
                         "CalculateLevelOfDetail) in a compute kernel of numthreads(%u, %u, %u): Shader Model 6.6 "
                         "takes them with X a multiple of 4 and Y and Z 1, or with X and Y even\n", path, x, y, z);
            st = ISA_ERR_COMPILE;
            goto done;
        }
    }
    program = glslang_program_create();
    glslang_program_add_shader(program, shader);
    if (!glslang_program_link(program, input.messages)) {
        convert_log(glslang_program_get_info_log(program), path, err, err_size);
        if (j->hlsl && strstr(glslang_program_get_info_log(program), "WaveActiveAllEqual("))
            text_appendf(err, err_size, "%s: note: WaveActiveAllEqual of a matrix is taken only as the argument of all() or "
                   "any(): its bool matrix has no SPIR-V type (docs/quirks.md, \"HLSL through glslang\")\n", path);
        if (!err || !err[0])
            text_appendf(err, err_size, "%s: error: glslang could not link the kernel\n", path);
        st = ISA_ERR_COMPILE;
        goto done;
    }
    /* glslang's own spirv-opt run would merge blocks across loop exits (docs/quirks.md): never ask for it */
    glslang_spv_options_t spv = {
        .generate_debug_info = true,
        .disable_optimizer = true,
        .validate = false,
    };
    glslang_program_SPIRV_generate_with_options(program, GLSLANG_STAGE_COMPUTE, &spv);
    size_t n = glslang_program_SPIRV_get_size(program);
    const char *msgs = glslang_program_SPIRV_get_messages(program);
    if (msgs && *msgs)
        convert_log(msgs, path, j->warnings, j->warnings_size);
    if (n < 5) {
        text_appendf(err, err_size, "%s: error: glslang produced no SPIR-V\n", path);
        st = ISA_ERR_COMPILE;
        goto done;
    }
    *words = malloc(n * sizeof(uint32_t));
    if (!*words) {
        st = ISA_ERR_NOMEM;
        goto done;
    }
    glslang_program_SPIRV_get(program, *words);
    *word_count = n;
done:
    if (program)
        glslang_program_delete(program);
    glslang_shader_delete(shader);
    return st;
}

/* glslang's SPIR-V made the module the rest of wavelab reads: HLSL's bindings checked and its departures
 * corrected, the source's text restored in the debug strings, and legalized (isa_spirv_legalize). */
static isa_status finish_spirv(const compile_job *j, include_search *search, uint32_t **words, size_t *word_count)
{
    if (j->hlsl && hlsl_bindings_collide(*words, *word_count, j->path, j->err, j->err_size)) {
        free(*words);
        *words = NULL;
        *word_count = 0;
        return ISA_ERR_COMPILE;
    }
    if (j->hlsl)
        fix_hlsl_prefix_scans(*words, *word_count);
    search->texts[search->text_count] = j->text, search->lens[search->text_count++] = strlen(j->text);
    repair_utf8_strings(*words, *word_count, search->texts, search->lens, search->text_count);
    if (j->hlsl) {
        isa_status st = fix_hlsl_vector_all_equal(words, word_count, j->path, j->warnings, j->warnings_size);
        if (st != ISA_OK)
            return st;
    }
    return isa_spirv_legalize(words, word_count, j->err, j->err_size);
}

isa_status isa_compile(const isa_compile_options *opt, uint32_t **words, size_t *word_count,
                       char *err, size_t err_size, char *warnings, size_t warnings_size)
{
    if (err && err_size)
        err[0] = 0;
    *words = NULL;
    *word_count = 0;
    const char *path = opt->path ? opt->path : "<source>";
    char *owned = NULL;
    const char *text = opt->source;
    if (!text) {
        char why[1200];
        owned = text_read_file(path, SOURCE_MAX_BYTES, NULL, why, sizeof why);
        if (!owned) {
            text_appendf(err, err_size, "%s\n", why);
            return ISA_ERR_IO;
        }
        text = owned;
    }
    bool hlsl;
    if (opt->language)
        hlsl = strcmp(opt->language, "hlsl") == 0;
    else
        hlsl = ends_with(path, ".hlsl");
    char *all = NULL; /* HLSL: the kernel and its headers, for the preamble's scans */
    if (hlsl) {
        if (!owned && !(text = owned = strdup(text)))
            return ISA_ERR_NOMEM;
        hlsl_spell_unsigned(owned);
        if (!(all = hlsl_with_headers(text, opt->path))) {
            free(owned);
            return ISA_ERR_NOMEM;
        }
    }
    compile_job j = {.path = path, .text = text, .all = all, .hlsl = hlsl,
                     .entry = opt->entry && *opt->entry ? opt->entry : "main",
                     .target = target_named(opt->target_env),
                     .err = err, .err_size = err_size, .warnings = warnings, .warnings_size = warnings_size};
    if (!j.target) {
        char names[128];
        isa_target_env_known(NULL, names, sizeof names);
        text_appendf(err, err_size, "%s: target environment \"%s\" is not one of %s\n", path, opt->target_env, names);
        free(all);
        free(owned);
        return ISA_ERR_UNSUPPORTED;
    }
    char *preamble = kernel_preamble(opt, &j);
    if (!preamble) {
        free(all);
        free(owned);
        return ISA_ERR_NOMEM;
    }
    if (!hlsl && strcmp(j.entry, "main") != 0) {
        text_appendf(err, err_size, "%s: GLSL kernels must use the entry point \"main\" (case asks for \"%s\")\n", path,
               j.entry);
        free(preamble);
        free(owned);
        return ISA_ERR_COMPILE;
    }

    /* glslang's process-wide state, once, whatever the number of threads compiling */
    pthread_once(&glslang_once, glslang_start);
    if (hlsl && !mentions_function(all, j.entry)) {
        /* glslang would compile an empty entry point rather than complain */
        text_appendf(err, err_size, "%s: error: entry point \"%s\" is not a function of this kernel\n", path, j.entry);
        free(preamble);
        free(all);
        free(owned);
        return ISA_ERR_COMPILE;
    }
    include_search search = {.kernel_dir = kernel_directory(opt->path), .hlsl = hlsl};
    isa_status st = glslang_spirv(&j, preamble, &search, words, word_count);
    if (st == ISA_OK)
        st = finish_spirv(&j, &search, words, word_count);
    include_search_free(&search);
    free(preamble);
    free(all);
    free(owned);
    return st;
}

isa_status isa_assemble_spirv(const char *text, size_t len, int minor, uint32_t **words, size_t *word_count,
                              char *err, size_t err_size)
{
    static const spv_target_env envs[] = {SPV_ENV_UNIVERSAL_1_0, SPV_ENV_UNIVERSAL_1_1, SPV_ENV_UNIVERSAL_1_2,
                                          SPV_ENV_UNIVERSAL_1_3, SPV_ENV_UNIVERSAL_1_4, SPV_ENV_UNIVERSAL_1_5,
                                          SPV_ENV_UNIVERSAL_1_6};
    *words = NULL;
    *word_count = 0;
    if (minor < 0 || minor > 6) {
        text_appendf(err, err_size, "SPIR-V 1.%d: the assembler writes SPIR-V 1.0 to 1.6\n", minor);
        return ISA_ERR_INVALID;
    }
    spv_context ctx = spvContextCreate(envs[minor]);
    spv_binary binary = NULL;
    spv_diagnostic diag = NULL;
    spv_result_t r = ctx ? spvTextToBinary(ctx, text, len, &binary, &diag) : SPV_ERROR_OUT_OF_MEMORY;
    isa_status st = ISA_OK;
    if (r != SPV_SUCCESS || !binary) {
        if (diag)
            text_appendf(err, err_size, "line %zu, column %zu: %s\n", diag->position.line + 1, diag->position.column + 1,
                   diag->error);
        else
            text_appendf(err, err_size, "the assembler failed (%d)\n", (int)r);
        st = r == SPV_ERROR_OUT_OF_MEMORY ? ISA_ERR_NOMEM : ISA_ERR_INVALID;
    } else if (!(*words = malloc(binary->wordCount * sizeof **words))) {
        st = ISA_ERR_NOMEM;
    } else {
        memcpy(*words, binary->code, binary->wordCount * sizeof **words);
        *word_count = binary->wordCount;
    }
    spvBinaryDestroy(binary);
    spvDiagnosticDestroy(diag);
    spvContextDestroy(ctx);
    return st;
}

isa_status isa_read_spirv(const char *path, uint32_t **words, size_t *word_count, char *err, size_t err_size)
{
    *words = NULL;
    *word_count = 0;
    char why[1200];
    size_t n = 0;
    uint32_t *w = (uint32_t *)text_read_file(path, SOURCE_MAX_BYTES, &n, why, sizeof why);
    if (!w) {
        text_appendf(err, err_size, "%s\n", why);
        return ISA_ERR_IO;
    }
    if (n < 20 || n % 4 != 0) {
        free(w);
        text_appendf(err, err_size, "%s: %zu bytes is not a SPIR-V module (a whole number of 4-byte words, at least the "
                              "5-word header)\n", path, n);
        return ISA_ERR_INVALID;
    }
    size_t count = (size_t)n / 4;
    if (w[0] == 0x03022307u) /* written on a machine of the other byte order */
        for (size_t i = 0; i < count; i++)
            w[i] = __builtin_bswap32(w[i]);
    if (w[0] != SpvMagicNumber) {
        text_appendf(err, err_size, "%s: word 0: magic number 0x%08x is not SPIR-V's 0x%08x\n", path, w[0], SpvMagicNumber);
        free(w);
        return ISA_ERR_INVALID;
    }
    *words = w;
    *word_count = count;
    return ISA_OK;
}

/* The module's target; a version newer than every target gets the newest, whose validator then names it. */
static const struct spirv_target *target_of(const uint32_t *words, size_t word_count)
{
    uint32_t version = word_count > 1 ? words[1] & 0x00ffff00u : 0;
    for (int i = 0; i < SPIRV_TARGET_COUNT; i++)
        if (version <= spirv_targets[i].spirv)
            return &spirv_targets[i];
    return &spirv_targets[SPIRV_TARGET_COUNT - 1];
}

int isa_spirv_env(const uint32_t *words, size_t word_count)
{
    return (int)target_of(words, word_count)->env;
}

uint32_t isa_spirv_vulkan_minor(const uint32_t *words, size_t word_count)
{
    return target_of(words, word_count)->vulkan_minor;
}

bool isa_target_env_known(const char *name, char *names, size_t names_size)
{
    if (names && names_size) {
        names[0] = 0;
        for (int i = 0; i < SPIRV_TARGET_COUNT; i++)
            text_appendf(names, names_size, "%s\"%s\"", i ? ", " : "", spirv_targets[i].name);
    }
    return target_named(name) != NULL;
}

static spv_result_t note_result_id(void *user, const spv_parsed_instruction_t *in)
{
    uint32_t *max_id = user;
    if (in->result_id > *max_id)
        *max_id = in->result_id;
    return SPV_SUCCESS;
}

uint32_t isa_spirv_used_id_bound(const uint32_t *words, size_t word_count)
{
    spv_context ctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
    uint32_t max_id = 0;
    spv_result_t r = spvBinaryParse(ctx, &max_id, words, word_count, NULL, note_result_id, NULL);
    spvContextDestroy(ctx);
    return r == SPV_SUCCESS ? max_id + 1 : 0;
}

/* A module whose struct types the validator would take exponential time to walk (spv_struct_type_paths): 0 with
 * the line in err; 1 otherwise, or when the reader refuses the module (the validator then says why). */
static int type_paths_bounded(const uint32_t *words, size_t word_count, char *err, size_t err_size)
{
    spv_module m;
    char unread[8];
    if (!spv_module_read(&m, words, word_count, unread, sizeof unread))
        return 1;
    uint32_t worst = 0;
    uint64_t paths = spv_struct_type_paths(&m, SPV_TYPE_PATHS_MAX, &worst);
    const spv_node *w = spv_node_of(&m, worst);
    if (paths > SPV_TYPE_PATHS_MAX && err && err_size)
        snprintf(err, err_size, "invalid SPIR-V at word %u: struct %%%u and the structs before it repeat one "
                 "another's members past %llu type paths (each holds several of the one before), which "
                 "validation would walk one by one: refused", w ? w->word : 0, worst,
                 (unsigned long long)SPV_TYPE_PATHS_MAX);
    spv_module_free(&m);
    return paths <= SPV_TYPE_PATHS_MAX;
}

isa_status isa_validate(const uint32_t *words, size_t word_count, char *err, size_t err_size)
{
    if (!type_paths_bounded(words, word_count, err, err_size))
        return ISA_ERR_INVALID;
    spv_context ctx = spvContextCreate(target_of(words, word_count)->env);
    spv_const_binary_t bin = {words, word_count};
    spv_diagnostic diag = NULL;
    spv_result_t r = spvValidate(ctx, &bin, &diag);
    isa_status st = ISA_OK;
    if (r != SPV_SUCCESS) {
        st = ISA_ERR_INVALID;
        if (err && err_size) {
            if (diag)
                snprintf(err, err_size, "invalid SPIR-V at word %zu: %s", diag->position.index,
                         diag->error ? diag->error : "(no message)");
            else
                snprintf(err, err_size, "invalid SPIR-V (validator result %d)", (int)r);
        }
    }
    spvDiagnosticDestroy(diag);
    spvContextDestroy(ctx);
    return st;
}

char *isa_disassemble_spirv(const uint32_t *words, size_t word_count, char *err, size_t err_size)
{
    spv_context ctx = spvContextCreate(target_of(words, word_count)->env);
    spv_text text = NULL;
    spv_diagnostic diag = NULL;
    spv_result_t r = spvBinaryToText(ctx, words, word_count,
                                     SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT,
                                     &text, &diag);
    char *out = NULL;
    if (r == SPV_SUCCESS && text) {
        out = malloc(text->length + 1);
        if (out) {
            memcpy(out, text->str, text->length);
            out[text->length] = 0;
        }
    } else if (err && err_size) {
        snprintf(err, err_size, "cannot disassemble SPIR-V at word %zu: %s", diag ? diag->position.index : 0,
                 diag && diag->error ? diag->error : "(no message)");
    }
    spvTextDestroy(text);
    spvDiagnosticDestroy(diag);
    spvContextDestroy(ctx);
    return out;
}
