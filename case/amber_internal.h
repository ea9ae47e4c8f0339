/*
 * case/amber_internal.h — internal to case/amber*.c: the objects an Amber
 * script is read into (case/amber.c reads the commands) and from which the
 * case is built (case/amber_case.c).
 */
#ifndef WAVELAB_AMBER_INTERNAL_H
#define WAVELAB_AMBER_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "case/amber.h"
#include "case/case_internal.h"
#include "isa/isa.h"

enum {
    MAX_TOKENS = 512,   /* per line: EXPECT lines of the CTS hold a few hundred values */
    MAX_PASSES = 4096,  /* RUNs after unrolling REPEAT */
    MAX_BINDS = 64,     /* BIND lines per pipeline */
    MAX_SPECS = 64,     /* SPECIALIZE per ATTACH */
};

typedef struct layout {
    case_type type;
    int rows, cols;          /* components per column, columns (1 for scalars and vectors) */
    size_t col_stride;       /* bytes from one column to the next */
    size_t stride;           /* bytes from one element to the next */
} layout;

/* The layout of `rows` x `cols` components of `type` (cols 1: a scalar or vector), an element of an array when
 * `array`, in std140 or std430 as Amber lays a buffer out: the one rule of AmberScript's DATA_TYPE and VkScript's
 * type names. */
void amber_layout(case_type type, int rows, int cols, int array, int std140, layout *out);

typedef struct a_shader {
    char *name;
    const char *language;    /* "glsl", "hlsl", "spirv" */
    char *text;              /* GLSL/HLSL source */
    uint32_t *words;         /* SPIR-V (assembled) */
    size_t word_count;
    const char *target_env;  /* NULL: the default */
    int line;
} a_shader;

typedef struct a_buffer {
    char *name;
    layout lay;
    size_t elements;
    uint8_t *bytes;
    size_t size;
    int line;
    int used;                /* bound as storage/uniform by a run, or checked: becomes a case binding */
    int binding;             /* its index in the case's bindings */
    int is_image;            /* an IMAGE: `image` describes its texels (bytes, size) */
    img_image image;
} a_buffer;

typedef struct a_bind {
    int buffer;
    uint32_t set, binding, element; /* element: of BIND BUFFER_ARRAY, 0 otherwise */
    case_kind kind;
    int line;
    size_t offset, size;     /* the descriptor's window on the buffer: OFFSET + DESCRIPTOR_OFFSET, DESCRIPTOR_RANGE
                              * (0: to the buffer's end) */
} a_bind;

typedef struct a_pipeline {
    char *name;
    int shader;              /* -1 until ATTACH */
    char *entry;
    a_bind binds[MAX_BINDS];
    int bind_count;
    int push_buffer;         /* -1: none */
    isa_spec_value spec[MAX_SPECS];
    int spec_count;
    uint32_t subgroup_size;  /* REQUIRED_SIZE, or 0 */
    int line;
} a_pipeline;

typedef struct a_run {
    int pipeline;
    uint32_t groups[3];
    int line;
    int snapshot;            /* a copy pass wavelab adds for an EXPECT between RUNs (check_checkpoints) */
} a_run;

typedef struct a_expect {
    case_expect e;           /* set/binding filled when the buffer's binding is known */
    int buffer, reference;   /* reference: -1, or the EQ_BUFFER buffer */
    int runs_before;         /* RUNs before it in the script */
    int line;
} a_expect;

typedef struct amber {
    const char *path;
    char *err;
    size_t err_size;
    /* the script as lines */
    char **lines;
    int line_count;
    int requires_spirv_1_4;  /* the script requires an extension amber_extension_wants_spirv_1_4 names */
    int li;                  /* next line to read */
    /* tokens of the current command line */
    char *tok[MAX_TOKENS];
    int ntok;
    int tok_line;            /* 1-based */
    char *tok_buf;
    /* objects */
    a_shader *shaders;
    int shader_count;
    a_buffer *buffers;
    int buffer_count;
    a_pipeline *pipes;
    int pipe_count;
    a_run *runs;
    int run_count;
    a_expect *expects;
    int expect_count;
} amber;

#define GROW(a, arr, count)                                                               \
    do {                                                                                  \
        void *grown_ = realloc((arr), ((size_t)(count) + 1) * sizeof *(arr));             \
        if (!grown_)                                                                      \
            return amber_fail(a, 0, CASE_ERR_NOMEM, "out of memory");                          \
        (arr) = grown_;                                                                   \
        memset(&(arr)[count], 0, sizeof *(arr));                                          \
    } while (0)

/* Writes "PATH:LINE: message" (control characters shown as '?') into the script's error buffer; returns s. */
case_status amber_fail(amber *a, int line, case_status s, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define UNSUPPORTED(a, line, ...) amber_fail(a, line, CASE_ERR_UNSUPPORTED, __VA_ARGS__)
#define MALFORMED(a, line, ...) amber_fail(a, line, CASE_ERR_FIELD, __VA_ARGS__)

/* How close Amber's EQ holds floats: within 0.000001 percent of the expected value (its verifier's kEpsilon, a
 * percentage), after the expected value is converted to the buffer's type. */
#define AMBER_EQ_RELATIVE 1e-8

int amber_is(const char *tok, const char *word); /* tok is the word (tok may be NULL) */
/* A whole number from 0 to max (decimal, or 0x hex) into *out; else a malformed-script error naming `what`. */
case_status amber_parse_u64(amber *a, const char *tok, const char *what, uint64_t max, uint64_t *out);
/* Byte offset of component i (counting the values a script writes: columns of rows) of a buffer laid out as l. */
size_t amber_component_offset(const layout *l, size_t i);
/* Whether requiring device extension `name` has the script's SPIR-V assembly assembled as SPIR-V 1.4. */
int amber_extension_wants_spirv_1_4(const char *name);
/* Line li (0-based) split into a->tok (comments removed); none for a blank or comment line. */
case_status amber_tokenize(amber *a, int li);
/* One value of type t into dst, as Amber's parsers read numbers (decimal, 0x bits, inf, nan). */
case_status amber_store_value(amber *a, case_type t, const char *tok, uint8_t *dst);
/* Expectations that the values a->tok[from..] lie at byte offset idx of buffer b: EQ (mode, tol). */
case_status amber_add_value_expects(amber *a, int b, size_t idx, int from, case_compare mode, double tol);
/* A DEVICE_FEATURE, DEVICE_EXTENSION, DEVICE_PROPERTY or INSTANCE_EXTENSION the script requires: CASE_OK when
 * the simulator models it, else a skip naming it. */
case_status amber_requirement(amber *a, int line, const char *kind, const char *name);
/* Lines [first, end) as one text, each ending in a newline (*len bytes); NULL when out of memory. */
char *amber_section_text(amber *a, int first, int end, size_t *len);
/* A shader of the script from its source `text` (taken: kept for GLSL and HLSL, assembled then freed for
 * "spirv"); env: a TARGET_ENV spelling or NULL; first: the 0-based index of its first line, line: its header's. */
case_status amber_add_shader(amber *a, const char *name, const char *language, const char *env, char *text,
                             size_t len, int first, int line);
int amber_find_shader(const amber *a, const char *name);
case_status amber_buffer_alloc(amber *a, a_buffer *b, size_t elements);

/* case/amber_case.c: the script's objects built into the case (snapshot passes for EXPECTs between RUNs, one
 * named binding per buffer used, one pass per RUN, the expectations). */
case_status amber_build_case(amber *a, wl_case *c);

/* case/vkscript.c: whether a script is in VkScript, Amber's other format (its first line that is not blank or a
 * comment opens a [section]), and its compute subset read into the objects (docs/amber.md). */
int vkscript_is(const amber *a);
case_status vkscript_read(amber *a);

#endif
