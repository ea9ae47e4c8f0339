/*
 * case/case.h — the case file: one JSON file that says everything needed to
 * run a kernel (kernel source, entry point, defines, dispatch size, bindings
 * with their initial contents, push constants, expected outputs).  The
 * simulator, the Vulkan backend, `wavelab test` and the tests all read it
 * through this module, so the same case runs the same way everywhere.
 *
 * The format is documented in docs/case-format.md; this header is its C face.
 * A loaded case owns all of its memory: case_destroy() frees it.
 */
#ifndef WAVELAB_CASE_H
#define WAVELAB_CASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "img/img.h"
#include "isa/isa.h"

/* The case format's limits, which the C API (api/) applies too. */
/* case_load refuses files larger than this (a kernel source the report shows, too). */
#define CASE_MAX_FILE_BYTES ((size_t)64 << 20)
/* One binding may hold at most this many bytes: a guard against a typo such
 * as "count": 1e12 turning into an allocation failure far from its cause. */
#define CASE_MAX_BINDING_BYTES ((size_t)1 << 30)
/* Push constants: a whole number of 4-byte words (a Vulkan rule), at most this many bytes. */
#define CASE_MAX_PUSH_BYTES 4096
/* A define's name is a macro name (letters, digits, '_', not starting with a digit); its value one line (no CR
 * or LF: the rest would run as a preprocessor line of its own).  Each returns 1 when it is. */
int case_define_name_ok(const char *name);
int case_define_value_ok(const char *value);

/* Element types of bindings, push constants and expectations. */
#define CASE_TYPE_LIST(X) \
    X(U8, "u8", 1, 0, 0)   \
    X(I8, "i8", 1, 1, 0)   \
    X(U16, "u16", 2, 0, 0) \
    X(I16, "i16", 2, 1, 0) \
    X(U32, "u32", 4, 0, 0) \
    X(I32, "i32", 4, 1, 0) \
    X(U64, "u64", 8, 0, 0) \
    X(I64, "i64", 8, 1, 0) \
    X(F16, "f16", 2, 1, 1) \
    X(F32, "f32", 4, 1, 1) \
    X(F64, "f64", 8, 1, 1)

typedef enum case_type {
#define X(id, name, size, is_signed, is_float) CASE_TYPE_##id,
    CASE_TYPE_LIST(X)
#undef X
    CASE_TYPE_COUNT
} case_type;

/* Name ("u32"), byte size, signedness and float-ness of an element type. */
const char *case_type_name(case_type t);
size_t case_type_size(case_type t);
int case_type_is_float(case_type t);
int case_type_is_signed(case_type t);
/* The type of `bits` bits that is a float (is_float) or an integer of that signedness; CASE_TYPE_COUNT when the
 * table has none. */
case_type case_type_of(unsigned bits, int is_float, int is_signed);

typedef enum case_kind {
    CASE_KIND_STORAGE_BUFFER,
    CASE_KIND_UNIFORM_BUFFER,
    CASE_KIND_STORAGE_TEXEL_BUFFER,
    CASE_KIND_UNIFORM_TEXEL_BUFFER,
    CASE_KIND_STORAGE_IMAGE,          /* the image kinds: case_binding.image describes the texels */
    CASE_KIND_SAMPLED_IMAGE,
    CASE_KIND_COMBINED_IMAGE_SAMPLER, /* an image and case_binding.sampler */
    CASE_KIND_SAMPLER,                /* case_binding.sampler only: no bytes */
    CASE_KIND_COUNT
} case_kind;

const char *case_kind_name(case_kind k); /* "storage_buffer", ... */
/* 1 for the kinds with an image (storage_image, sampled_image, combined_image_sampler). */
int case_kind_is_image(case_kind k);
/* 1 for the kinds with a sampler (sampler, combined_image_sampler). */
int case_kind_has_sampler(case_kind k);

/* How two elements compare: case_element_match is the rule (docs/case-format.md, "Compare modes"). */
typedef enum case_compare {
    CASE_COMPARE_EXACT,   /* identical bits (+0 and -0 differ), except that any NaN matches any NaN */
    CASE_COMPARE_ULP,     /* floats within `tolerance` units in the last place */
    CASE_COMPARE_EPSILON, /* |a - b| <= tolerance */
    CASE_COMPARE_SORTED,  /* equal as multisets: both sorted (case_sort_elements), then exact */
    CASE_COMPARE_RELATIVE /* |want - got| <= tolerance * |want| */
} case_compare;

/* A compare mode's name as the case format spells it ("exact", "ulp", ...), and whether it takes a tolerance
 * ({"ulp": N}); case_compare_by_name: 1 and *out, or 0. */
const char *case_compare_name(case_compare m);
int case_compare_takes_tolerance(case_compare m);
int case_compare_by_name(const char *name, case_compare *out);
/* How a failure message names the mode: "exact", "sorted", "within 2 ulp", "within 0.001", "within 1e-08 relative". */
void case_compare_describe(case_compare m, double tolerance, char *buf, size_t size);

/* "views" of an image binding: how it fills a descriptor array, element + k a view of its mip k alone (MIPS) or
 * of its layer k alone (LAYERS, an image of one level); NONE: one descriptor, the whole image. */
#define CASE_VIEWS_LIST(X) X(NONE, "") X(MIPS, "mips") X(LAYERS, "layers")
typedef enum case_views {
#define X(id, name) CASE_VIEWS_##id,
    CASE_VIEWS_LIST(X)
#undef X
} case_views;

/* "mips", "layers"; "" for NONE and past the last. */
const char *case_views_name(case_views v);

typedef struct case_binding {
    uint32_t set, binding;
    uint32_t element; /* "element": the element of a descriptor array this binding fills (0 for a single descriptor) */
    case_views views; /* "views": an image binding that fills elements element .. element + n - 1 of a descriptor
                       * array, one view a mip or a layer (case_binding_descriptors) */
    char *name;       /* "name": the buffer's name, by which passes bind it ("dispatches"[i].bindings); NULL when absent */
    case_kind kind;
    case_type type;
    char format[16];  /* texel buffers: Vulkan/SPIR-V format name, e.g. "r32ui", "rgba32f"; else "" */
    size_t count;     /* number of elements of `type` */
    size_t size;      /* bytes = count * case_type_size(type) */
    size_t offset;    /* a pass's binding (case_dispatch.bindings): where its window on the buffer starts, in bytes
                       * (Amber's BIND ... OFFSET / DESCRIPTOR_OFFSET); `size` is the window's.  0 in a case's own
                       * bindings */
    int alias;        /* a pass's binding: 1 + the index of another binding of the pass whose window on the same
                       * buffer holds this one's (two descriptors of one buffer share its memory: run_buffer_bindings);
                       * 0: none.  Set by run/ when it runs the pass */
    uint8_t *bytes;   /* initial contents, `size` bytes, little-endian */
    int untyped;      /* the kernel may read the bytes as any type (an Amber script's buffer: its DATA_TYPE says only how
                       * the script wrote the values), so run_bindings_fit does not compare types */
    int uninitialized; /* "uninitialized": true: the contents are unspecified (zeros here); under --sanitize a read
                        * of a byte the kernel did not write first is an initcheck finding */
    /* Image kinds: type is F32/U32/I32 (the format's numeric class), bytes/size are the packed texels
     * (img_image.bytes layout), count is the number of texels; image.bytes == bytes, image.size == size. */
    img_image image;
    img_sampler sampler; /* sampler and combined_image_sampler kinds */
    int has_sampler;
} case_binding;

typedef struct case_expect {
    uint32_t set, binding, element;
    case_type type;          /* taken from the binding with the same set/binding */
    case_compare compare;
    double tolerance;        /* ULP count or epsilon */
    size_t count;            /* elements in `bytes` (may be fewer than the binding holds) */
    uint8_t *bytes;
    /* An expectation on an image binding: `bytes` holds component values (type F32/U32/I32) of mip/layer,
     * img_format_info.components per texel; case_expect_check decodes the actual texels (img_decode) and
     * compares components with the relation. */
    int is_image;
    uint32_t mip, layer, sample; /* images: the subresource expected (sample: of a multisampled image) */
    img_format format;       /* the binding's format (is_image only) */
    uint32_t extent[3];      /* the mip's width, height, depth (is_image only): messages name texels (x,y,z) */
    size_t image_offset;     /* byte offset of the first texel checked in the binding's packed texels (is_image) */
    size_t first_texel;      /* ... that texel's index in its mip/layer: 0 for a case file, an Amber probe's row */
    size_t first;            /* index of the first element checked (an Amber script's IDX); 0 for a case file */
    int has_reference;       /* the expected elements are another binding's final contents (Amber's EQ_BUFFER): */
    int reference;           /* its index in wl_case.bindings; `bytes` is then NULL and `count` the elements compared */
} case_expect;

typedef struct case_define {
    char *name;
    char *value;
} case_define;

/* One pass of a multi-dispatch case ("dispatches"): its own kernel, run in order on the case's bindings. */
typedef struct case_dispatch {
    char *name;        /* "name", default the kernel file's name without directory and extension */
    char *kernel;      /* resolved against the case's directory, as wl_case.kernel */
    char *language;
    char *entry;
    case_define *defines;
    int define_count;
    uint32_t groups[3];
    case_type push_type;
    uint8_t *push_constants;  /* NULL when absent */
    size_t push_size;
    /* "bindings" of the pass: NULL to use the case's bindings as they are; else binding_count entries, each a
     * shallow copy of the named case binding (its bytes borrowed: run/ and backend/ give each pass the buffer's
     * current contents) at the pass's own set, binding and kind; binding_buffer[k] is the index of entry k's
     * buffer in wl_case.bindings (case_dispatch_buffer). */
    case_binding *bindings;
    int *binding_buffer;
    int binding_count;
    isa_spec_value *spec;     /* "specialization" of the pass; NULL: the case's */
    int spec_count;
    char *target_env;         /* NULL: the case's */
    char *kernel_text;        /* NULL: read `kernel`; else its source text (a shader of an Amber script) */
    uint32_t *kernel_words;   /* NULL, or the SPIR-V words of a language "spirv" kernel (assembled from an Amber
                               * script), used instead of reading `kernel` */
    size_t kernel_word_count;
} case_dispatch;

/* "device_differences": a device (matched by a part of its name) known to differ from the model on this
 * case, and why; `wavelab check` then reports the difference as known, and its absence as news. */
typedef struct case_device_difference {
    char *device;
    char *reason;
} case_device_difference;

typedef struct wl_case {
    char *path;        /* the case file as given */
    char *dir;         /* its directory: every relative path is resolved against it */
    char *kernel;      /* kernel path, already resolved against dir */
    char *language;    /* "glsl", "hlsl" or "spirv" (from "language" or the kernel's extension: .spv is SPIR-V) */
    char *entry;       /* default "main" */
    case_define *defines;
    int define_count;
    isa_spec_value *spec;     /* "specialization", applied to every pass; NULL when absent */
    int spec_count;
    uint32_t groups[3];       /* workgroup count; default [1,1,1] */
    uint32_t subgroup_size;   /* 0 when the case does not say, else the only wave size it holds at */
    uint32_t min_subgroup_size; /* 0, or the smallest wave size the expectations hold at */
    uint32_t max_subgroup_size; /* 0, or the largest wave size the expectations hold at (the kernel assumes
                                 * full waves); case_wave_applies reads all three */
    case_type push_type;
    uint8_t *push_constants;  /* NULL when absent */
    size_t push_size;
    case_binding *bindings;
    int binding_count;
    case_expect *expects;
    int expect_count;
    char *known_failure;      /* NULL, or why the expectation is known not to hold (e.g. a compiler quirk):
                               * `wavelab test` then reports XFAIL, and XPASS (a failure) if it holds */
    char *optimize;           /* NULL, or the SPIR-V optimizer passes the case asks for ("performance", "size" or
                               * spirv-opt flags): run/ then also runs the kernel as written and compares */
    char *target_env;         /* NULL, or the target environment GLSL/HLSL kernels compile for ("vulkan1.3":
                               * SPIR-V 1.6; isa_compile_options.target_env); a .spv kernel's own version decides */
    int robust_access;        /* out-of-bounds loads read 0 and stores are dropped (robustBufferAccess2), not a fault */
    case_dispatch *dispatches; /* "dispatches": NULL when absent (the top-level fields are the one dispatch); when
                                * present the top-level kernel .. push constants are a copy of dispatch 0's, so a
                                * command that looks at one kernel (compile, disasm, explain) sees the first pass */
    int dispatch_count;        /* 0 when absent, else 1 or more */
    case_device_difference *device_differences; /* NULL when absent */
    int device_difference_count;
    /* Kernels held in memory (case/amber.h builds them from an Amber script; a case file never has them): the
     * top level's copy of dispatch 0's, borrowed from it when "dispatches" is present. */
    const char *kernel_text;   /* NULL: read `kernel` */
    const uint32_t *kernel_words; /* NULL: read `kernel` (language "spirv") */
    size_t kernel_word_count;
} wl_case;

typedef enum case_status {
    CASE_OK = 0,
    CASE_ERR_IO,       /* cannot read the file */
    CASE_ERR_JSON,     /* not JSON */
    CASE_ERR_FIELD,    /* a field is missing, of the wrong type or out of range */
    CASE_ERR_NOMEM,
    CASE_ERR_UNSUPPORTED /* well formed, but asks for what wavelab cannot run (an Amber script's graphics
                          * pipeline): exit 3, not 2 */
} case_status;

/* A one-line description of a status ("cannot read the case file", ...). */
const char *case_status_str(case_status s);

/*
 * Loads a case file.  On success *out owns a new case (free with
 * case_destroy).  On failure returns the status and writes one message into
 * err, always naming the file and the field: "cases/x.json: bindings[2].type:
 * unknown type \"u33\" (expected one of u8 i8 ...)".
 */
case_status case_load(const char *path, wl_case **out, char *err, size_t err_size);

/* Same, from JSON text held in memory; `path` is used for messages and to resolve relative paths. */
case_status case_parse(const char *json_text, const char *path, wl_case **out, char *err, size_t err_size);

void case_destroy(wl_case *c);

/* Number of passes the case runs: dispatch_count, or 1 without "dispatches". */
int case_dispatch_total(const wl_case *c);

/*
 * Fills *view with a shallow copy of *c whose kernel, language, entry,
 * defines, groups and push constants are those of pass i (0 <= i <
 * case_dispatch_total(c)), and with no "dispatches", so single-dispatch code
 * runs the pass unchanged.  The view borrows c's memory: never case_destroy it.
 */
void case_dispatch_view(const wl_case *c, int i, wl_case *view);

/* The index in c->bindings of binding k of pass i's view (case_dispatch_view): k itself unless the pass binds
 * buffers by name. */
int case_dispatch_buffer(const wl_case *c, int i, int k);

/* Pass i's name ("cull"): the entry's "name", or its kernel's file name without extension; "" without "dispatches". */
const char *case_dispatch_name(const wl_case *c, int i);

/* The first "device_differences" entry whose "device" is part of device_name, or NULL. */
const case_device_difference *case_device_difference_for(const wl_case *c, const char *device_name);

/* 1 when the case's expectations apply at wave size `wave` (subgroup_size, min_subgroup_size,
 * max_subgroup_size); else 0 with the reason in why ("the case runs only at wave 16 (subgroup_size)"). */
int case_wave_applies(const wl_case *c, uint32_t wave, char *why, size_t why_size);

/* "set 0 binding 1", or "set 0 binding 1 element 2" for an element of a descriptor array other than the first:
 * how messages name a binding or an expectation's binding.  Returns buf. */
const char *case_descriptor_text(uint32_t set, uint32_t binding, uint32_t element, char *buf, size_t size);
#define CASE_DESCRIPTOR_TEXT_MAX 48

/* Writes b's descriptor as JSON members: "set": 0, "binding": 1 (and "element": 2 when not 0). */
void case_write_descriptor(FILE *f, const case_binding *b);

/* How many descriptors binding b fills: one, or one view per mip or layer of its image ("views"). */
uint32_t case_binding_descriptors(const case_binding *b);

/* One past the last element binding b fills (element + case_binding_descriptors): a descriptor array's length
 * is the largest of its bindings'. */
uint32_t case_binding_end(const case_binding *b);
/* Each (set, binding) the case binds with that length, into out (room for c->binding_count); returns how many:
 * the lengths of runtime descriptor arrays (isa_spec.arrays). */
int case_array_lengths(const wl_case *c, isa_array_length *out);
/* What the lowering takes from the case: its specialization values and the runtime array lengths (written into
 * lengths, room for c->binding_count), into *spec. */
void case_isa_spec(const wl_case *c, isa_array_length *lengths, isa_spec *spec);

/* The binding that fills descriptor (set, binding, element) -- its own element, or one of its mip views -- or NULL. */
const case_binding *case_find_binding(const wl_case *c, uint32_t set, uint32_t binding, uint32_t element);

/* The first expectation on binding b (whose compare mode and tolerance also rule how `check` compares b's
 * two sides), or NULL: b is compared exactly. */
const case_expect *case_expect_for(const wl_case *c, const case_binding *b);

/*
 * Compares `actual` (the binding's final bytes, `actual_size` bytes) with an
 * expectation.  Returns 1 when it holds.  When not, writes a message naming
 * the first differing element, its expected and actual values, and the number
 * of differing elements into msg, and stores the first differing element
 * index into *first_bad (may be NULL).
 */
int case_expect_check(const case_expect *e, const uint8_t *actual, size_t actual_size,
                      char *msg, size_t msg_size, size_t *first_bad);

/* Checks expectation e of case c against the final contents `data` (one array per binding of c): finds the
 * binding, and for an expectation against another binding (has_reference) takes that binding's contents as the
 * expected elements.  Returns 1 when it holds, else 0 with the message in msg. */
int case_expect_check_data(const wl_case *c, const case_expect *e, uint8_t *const *data, char *msg, size_t msg_size);

/*
 * The documented random fill (docs/case-format.md): a splitmix64 stream from
 * `seed`; element i takes the i-th output.  Integers: min + (x % (max-min+1));
 * floats: min + (max-min) * (x >> 11) * 2^-53, rounded to the element type.
 * Exposed so tests and other tools produce the same bytes.
 */
uint64_t case_splitmix64(uint64_t *state);

/*
 * The one rule for comparing two elements of type t (case/case_compare.c), used by expectations, `wavelab check`
 * (buffers and decoded image components) and "sorted": 1 when `got` matches `want` under mode and tolerance.
 * Floats: any NaN matches any NaN, in every mode; an infinity matches only the same infinity; otherwise exact and
 * sorted need identical bits (+0 and -0 differ), ulp N at most N representable steps apart (+0 and -0 are 0
 * apart), epsilon E |want - got| <= E in double, relative R |want - got| <= R * |want| in double.  Integers:
 * identical bits in every mode.
 */
int case_element_match(case_type t, const uint8_t *want, const uint8_t *got, case_compare mode, double tolerance);
/* The index of the first of elements from..count-1 for which case_element_match fails, or count: the same
 * verdicts, with runs of identical bytes passed over whole (identical bits match under every mode when the
 * tolerance is not negative), which is what makes comparing a 64 MiB binding cheap. */
size_t case_next_mismatch(case_type t, const uint8_t *want, const uint8_t *got, size_t from, size_t count,
                          case_compare mode, double tolerance);
/* The distance in units in the last place between two finite floats of type t, into *out; 0 (nothing stored)
 * when either is a NaN or an infinity, or t is not a float type. */
int case_ulp_distance(case_type t, const uint8_t *a, const uint8_t *b, uint64_t *out);
/* Sorts `count` elements of type t in place into the order "sorted" compares in: by value (signed integers as
 * signed), -0 before +0, NaNs last.  Returns 0 when out of memory (the elements are then unchanged). */
int case_sort_elements(case_type t, uint8_t *elements, size_t count);

/* Formats one element as JSON text that round-trips exactly (floats with %.17g / %.9g,
 * NaN and infinities as the strings "nan", "inf", "-inf").  Returns chars written. */
int case_format_element(case_type t, const uint8_t *element, char *buf, size_t buf_size);

/*
 * The component values of one mip/layer of an image binding (layer: a plane, img_planes, on a multisampled
 * image), decoded (img_decode): a new
 * array (free() it) of img_format_info.components values per texel, each of the
 * binding's type (F32/U32/I32: 4 bytes; U64/I64: 8), in [z][y][x] order.  *count is the number of values.
 * Returns CASE_OK, CASE_ERR_FIELD when b is not an image or mip/layer is out of range, or
 * CASE_ERR_NOMEM.
 */
case_status case_image_components(const case_binding *b, uint32_t mip, uint32_t layer, uint8_t **out, size_t *count);

/*
 * --dump of an image or sampler binding: writes one JSON object to f (set, binding, kind, and for images
 * format, dim, extent, layers, mip_levels, type and "data": every component value of every mip and layer
 * in packed order, as a case's "data" reads them).  `bytes` are the binding's final packed texels.  For
 * 8-bit unorm/srgb/uint 1d/2d images it also writes mip 0 layer 0 as a PNG beside dump_path
 * (dump.set0.binding2.png; none when dump_path is NULL) and names it in "png".  Returns 0 with a message
 * in err when the PNG cannot be written.
 */
int case_image_dump(FILE *f, const char *dump_path, const case_binding *b, const uint8_t *bytes,
                    char *err, size_t err_size);
/* Writes mip 0 layer 0 of an 8-bit unorm/srgb/uint 1d/2d image binding as a PNG; 0 and err on failure. */
int case_image_write_png(const char *path, const case_binding *b, const uint8_t *bytes, char *err, size_t err_size);

#endif
