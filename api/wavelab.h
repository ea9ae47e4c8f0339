/*
 * wavelab.h — wavelab's public C API: unit-test wave (subgroup) code from a
 * C, C++, Check, CTest or GoogleTest suite, without a GPU.
 *
 * A *case* is one compute dispatch: a kernel (GLSL or HLSL source, or SPIR-V
 * words), its bindings with their initial contents, push constants, the
 * workgroup count and the expected outputs.  Load one from a case file
 * (docs/case-format.md) or build one in code; run it at a wave size on the
 * simulator or on a Vulkan device; read the final bindings and the
 * simulator's statistics back; check the expectations.
 *
 *     wavelab_case *c;
 *     wavelab_case_create(&c);
 *     wavelab_case_set_source(c, "hlsl", "sum.hlsl", source_text);
 *     wavelab_case_set_entry(c, "CSMain");
 *     wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_U32, input, 64);
 *     wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 1, WAVELAB_U32, NULL, 64);
 *     wavelab_case_expect(c, 0, 1, expected, 64, WAVELAB_COMPARE_EXACT, 0);
 *     wavelab_run *r;
 *     if (wavelab_run_sim(c, 32, &r) == WAVELAB_OK && wavelab_run_check(r) == WAVELAB_OK) ...
 *     else printf("%s\n", wavelab_run_message(r));
 *     wavelab_run_destroy(r);
 *     wavelab_case_destroy(c);
 *
 * docs/api.md is the full guide; examples/hlsl_unit_test/ is a whole project.
 *
 * Conventions, kept stable across versions:
 *   - Every name starts with wavelab_ / WAVELAB_.  Handles are opaque.
 *   - Functions that can fail return a wavelab_status; wavelab_status_str()
 *     names it and wavelab_status_exit_code() maps it onto the `wavelab`
 *     command's exit codes (0 ok, 1 fault or failed expectation, 2 bad input,
 *     3 the device cannot run the case).
 *   - The message of the last failure is kept on the handle
 *     (wavelab_case_message, wavelab_run_message): one line naming the file,
 *     field, source line or element.  Functions that create a handle create
 *     it even when they fail (only out of memory leaves *out NULL), so the
 *     message can be read; destroy it either way.
 *   - Data crosses the API in caller-owned buffers: the library copies what
 *     it is given and copies out into what it is handed.  All values are
 *     little-endian element arrays of the declared type.
 *   - Different handles may be used from different threads at once.  One
 *     case may be run from several threads at once; it must not be changed
 *     while it runs, and it must outlive its runs.
 */
#ifndef WAVELAB_H
#define WAVELAB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WAVELAB_VERSION_MAJOR 0
#define WAVELAB_VERSION_MINOR 3
#define WAVELAB_VERSION_PATCH 0
#define WAVELAB_VERSION_STR2_(x) #x
#define WAVELAB_VERSION_STR_(x) WAVELAB_VERSION_STR2_(x)
/* "MAJOR.MINOR.PATCH" of the header compiled against */
#define WAVELAB_VERSION_STRING                                                                   \
    WAVELAB_VERSION_STR_(WAVELAB_VERSION_MAJOR) "." WAVELAB_VERSION_STR_(WAVELAB_VERSION_MINOR) "." \
        WAVELAB_VERSION_STR_(WAVELAB_VERSION_PATCH)

/* "MAJOR.MINOR.PATCH" of the library actually linked. */
const char *wavelab_version(void);

typedef enum wavelab_status {
    WAVELAB_OK = 0,
    WAVELAB_ERR_ARGUMENT,      /* a NULL handle or pointer, a bad enum, a size that does not fit */
    WAVELAB_ERR_CASE,          /* the case file cannot be read or is malformed */
    WAVELAB_ERR_COMPILE,       /* the kernel does not compile, its SPIR-V is invalid, or it uses an unsupported feature */
    WAVELAB_ERR_INPUT,         /* the case does not fit the kernel (missing binding, wrong kind, too small, bad wave size) */
    WAVELAB_ERR_NOT_FOUND,     /* no such binding or statistic in this run */
    WAVELAB_ERR_FAULT,         /* the kernel faulted (out of bounds, deadlock, budget): the message says where */
    WAVELAB_ERR_EXPECT,        /* an expectation does not hold: the message names each one and its first bad element */
    WAVELAB_ERR_DEVICE,        /* no Vulkan device, or it cannot run the case (wave size, feature, limit) */
    WAVELAB_ERR_DEVICE_FAILED, /* a Vulkan call failed, the device was lost or the dispatch timed out */
    WAVELAB_ERR_NOMEM
} wavelab_status;

/* A short fixed description ("the kernel faulted"); never NULL. */
const char *wavelab_status_str(wavelab_status s);
/* The `wavelab` command's exit code for a status: 0, 1, 2 or 3 (see above). */
int wavelab_status_exit_code(wavelab_status s);

/* Element types (bytes: 1, 1, 2, 2, 4, 4, 8, 8, 2, 4, 8). */
typedef enum wavelab_type {
    WAVELAB_U8, WAVELAB_I8, WAVELAB_U16, WAVELAB_I16, WAVELAB_U32, WAVELAB_I32,
    WAVELAB_U64, WAVELAB_I64, WAVELAB_F16, WAVELAB_F32, WAVELAB_F64
} wavelab_type;

/* Byte size of one element of `t`; 0 for a value that is not a wavelab_type. */
size_t wavelab_type_size(wavelab_type t);

typedef enum wavelab_kind {
    WAVELAB_STORAGE_BUFFER,
    WAVELAB_UNIFORM_BUFFER,
    WAVELAB_STORAGE_TEXEL_BUFFER, /* give the format with wavelab_case_set_texel_format */
    WAVELAB_UNIFORM_TEXEL_BUFFER
} wavelab_kind;

typedef enum wavelab_compare {
    WAVELAB_COMPARE_EXACT,   /* bytes equal */
    WAVELAB_COMPARE_ULP,     /* floats within `tolerance` units in the last place */
    WAVELAB_COMPARE_EPSILON, /* |expected - actual| <= tolerance */
    WAVELAB_COMPARE_SORTED,  /* equal as multisets (order-independent outputs such as compaction) */
    WAVELAB_COMPARE_RELATIVE /* floats: |expected - actual| <= tolerance * |expected| (since 0.2) */
} wavelab_compare;

/* ------------------------------------------------------------------ cases */

typedef struct wavelab_case wavelab_case;

/*
 * Loads a case file (docs/case-format.md); relative paths in it are resolved
 * against its directory.  *out receives a new case (free with
 * wavelab_case_destroy) even on failure, when wavelab_case_message names the
 * file and field.
 */
wavelab_status wavelab_case_load(const char *path, wavelab_case **out);

/* Creates an empty case: no kernel, no bindings, groups [1,1,1], entry "main". */
wavelab_status wavelab_case_create(wavelab_case **out);

void wavelab_case_destroy(wavelab_case *c);

/* The message of the case's last failure, "" when none.  Valid until the next call on the case. */
const char *wavelab_case_message(const wavelab_case *c);

/* The kernel, one of three.  Each replaces any kernel given before. */
/* Source text: language "glsl" or "hlsl"; `name` (may be NULL) names it in messages. */
wavelab_status wavelab_case_set_source(wavelab_case *c, const char *language, const char *name, const char *source);
/* A source file: language from the extension (.comp/.glsl GLSL, .hlsl HLSL), read at the first run;
 * a relative path is taken from the working directory. */
wavelab_status wavelab_case_set_kernel_file(wavelab_case *c, const char *path);
/* SPIR-V words (copied); validated for Vulkan 1.1 at the first run. */
wavelab_status wavelab_case_set_spirv(wavelab_case *c, const uint32_t *words, size_t word_count);

wavelab_status wavelab_case_set_entry(wavelab_case *c, const char *entry);
/* A preprocessor definition for source kernels (-DNAME=VALUE); value may be "", and is one line (a \r or \n in it
 * is WAVELAB_ERR_ARGUMENT, as in a case file). */
wavelab_status wavelab_case_define(wavelab_case *c, const char *name, const char *value);
/* Workgroup count; each at least 1. */
wavelab_status wavelab_case_set_groups(wavelab_case *c, uint32_t x, uint32_t y, uint32_t z);
/* Push-constant bytes (copied); size 0 removes them.  As in a case file: a multiple of 4 bytes, at most 4096
 * (else WAVELAB_ERR_ARGUMENT). */
wavelab_status wavelab_case_set_push_constants(wavelab_case *c, const void *bytes, size_t size);

/*
 * Adds a binding of `count` elements of `type` at (set, binding).  `data`
 * (copied, count elements) gives the initial contents; NULL fills zeros.
 * A second binding at the same (set, binding), or more than a case file's
 * 2^30 bytes, is WAVELAB_ERR_ARGUMENT.
 */
wavelab_status wavelab_case_add_binding(wavelab_case *c, wavelab_kind kind, uint32_t set, uint32_t binding,
                                        wavelab_type type, const void *data, size_t count);
/*
 * The same for element `element` (0 to 1023) of a descriptor array at (set,
 * binding): each element the kernel's array declares is a binding of its
 * own (the case format's "element", docs/case-format.md "Descriptor
 * arrays"); wavelab_case_add_binding is element 0.  A second binding at the
 * same (set, binding, element) is WAVELAB_ERR_ARGUMENT.  (Since 0.3.)
 */
wavelab_status wavelab_case_add_binding_element(wavelab_case *c, wavelab_kind kind, uint32_t set, uint32_t binding,
                                                uint32_t element, wavelab_type type, const void *data, size_t count);
/* Texel buffers: the Vulkan/SPIR-V format name of the binding ("r32ui", "rgba32f", ...). */
wavelab_status wavelab_case_set_texel_format(wavelab_case *c, uint32_t set, uint32_t binding, const char *format);
/* The same for element `element` of a descriptor array of texel buffers.  (Since 0.3.) */
wavelab_status wavelab_case_set_texel_format_element(wavelab_case *c, uint32_t set, uint32_t binding,
                                                     uint32_t element, const char *format);

/*
 * Expects the first `count` elements of binding (set, binding) — added
 * before, whose type they take — to equal `expected` (copied) after a run,
 * under `compare` (`tolerance` is the ULP count or epsilon; 0 otherwise).
 */
wavelab_status wavelab_case_expect(wavelab_case *c, uint32_t set, uint32_t binding, const void *expected,
                                   size_t count, wavelab_compare compare, double tolerance);
/* The same for the binding added at element `element` of a descriptor array; wavelab_case_expect is element 0.
 * A failed one's message names the element: "set 0 binding 1 element 2 (exact): ...".  (Since 0.3.) */
wavelab_status wavelab_case_expect_element(wavelab_case *c, uint32_t set, uint32_t binding, uint32_t element,
                                           const void *expected, size_t count, wavelab_compare compare,
                                           double tolerance);

/* Number of expectations (from the file or added). */
int wavelab_case_expect_count(const wavelab_case *c);

/* ------------------------------------------------------------------- runs */

typedef struct wavelab_run wavelab_run;

/*
 * Runs the case on the simulator at `wave_size` lanes (a power of two, 4 to
 * 128; 0 = the case's subgroup_size, else 32).  The kernel is compiled at the
 * first run of the case and reused after.  Returns WAVELAB_OK when the
 * dispatch ran to its end (expectations are checked by wavelab_run_check),
 * WAVELAB_ERR_FAULT when the kernel faulted (bindings and statistics then
 * hold what happened up to the fault), or an input error.  *out receives a
 * new run (free with wavelab_run_destroy) whatever the result, except when
 * memory runs out.  Results never depend on the host or its thread count.
 */
wavelab_status wavelab_run_sim(const wavelab_case *c, uint32_t wave_size, wavelab_run **out);

/*
 * The simulator's options, as the `wavelab` command takes them on every
 * command that runs the simulator (since 0.2).  Start from
 * WAVELAB_RUN_OPTIONS_INIT (every option at its default) and set what you
 * need; later versions only add fields at the end, and `size` tells the
 * library which of them the caller knows.
 */
typedef struct wavelab_run_options {
    size_t size;                 /* sizeof(wavelab_run_options), as WAVELAB_RUN_OPTIONS_INIT sets it */
    uint32_t wave_size;          /* 0 = the case's subgroup_size, else the machine's default, else 32 */
    int robust_access;           /* --robust: out-of-bounds loads read 0 and stores are dropped (also the case's
                                  * "robust_access") */
    uint64_t instruction_budget; /* --budget: wave instructions before the run stops with a fault; 0 = default */
    uint32_t threads;            /* --threads: host threads for one dispatch; 0 or 1 = one.  Results never depend
                                  * on it */
    const char *machine;         /* --machine: a preset's name or path (docs/memory.md); its default wave size
                                  * applies when neither wave_size nor the case gives one, and its memory model
                                  * runs beside the dispatch (its statistics are not read back through the API
                                  * yet); NULL = none */
    const char *const *args;     /* every other simulator option, as `wavelab run` takes it, NULL-terminated:
                                  * {"--optimize", "--sanitize", "--budget=5000", NULL} (docs/cli.md).  Each
                                  * given one wins over the field above that it also sets.  An option that sets
                                  * nothing the simulator does (--dump, --backend) or a bad value is
                                  * WAVELAB_ERR_ARGUMENT with wavelab's one line as the run's message; with
                                  * --sanitize, findings fail the run (WAVELAB_ERR_FAULT, each in the message).
                                  * NULL = none.  (Since 0.3; a struct of 0.2's size, without it, is accepted.) */
} wavelab_run_options;

#define WAVELAB_RUN_OPTIONS_INIT {sizeof(wavelab_run_options), 0, 0, 0, 0, NULL, NULL}

/*
 * Runs the case on the simulator with `options` (NULL: every default), as
 * `wavelab run` does: a case of several passes ("dispatches") runs them in
 * order, a case's "optimize" is honoured.  Returns as wavelab_run_sim; an
 * options->size smaller than version 0.2's struct is WAVELAB_ERR_ARGUMENT,
 * an unknown machine WAVELAB_ERR_INPUT.  wavelab_run_sim(c, w, out) is this
 * with wave_size w and every other option at its default.
 */
wavelab_status wavelab_run_sim_with(const wavelab_case *c, const wavelab_run_options *options, wavelab_run **out);

/*
 * Runs the case on a Vulkan device: `device` NULL or "" = the first, a
 * decimal number = that index, else the first whose name contains it.
 * wave_size 0 = the case's, else the device's default; any other value is
 * required of the device (VK_EXT_subgroup_size_control).  Returns
 * WAVELAB_ERR_DEVICE when there is no Vulkan loader or device or the device
 * cannot run the case; statistics are not available from a device.
 */
wavelab_status wavelab_run_vulkan(const wavelab_case *c, uint32_t wave_size, const char *device, wavelab_run **out);

void wavelab_run_destroy(wavelab_run *r);

/* Why the run failed (or which expectations failed, after wavelab_run_check), "" when nothing failed. */
const char *wavelab_run_message(const wavelab_run *r);
/* Compiler warnings ("file:line: warning: ..." lines, e.g. HLSL semantics glslang departs from), "" when none. */
const char *wavelab_run_warnings(const wavelab_run *r);
/* The wave size the run used (0 when it never started). */
uint32_t wavelab_run_wave_size(const wavelab_run *r);

/*
 * Copies the final contents of binding (set, binding) into dst (dst_size
 * bytes) and stores the binding's size in *size (may be NULL).  dst NULL
 * only asks for the size.  WAVELAB_ERR_ARGUMENT when dst_size is smaller
 * than the binding, WAVELAB_ERR_NOT_FOUND when there is no such binding or
 * the run never dispatched.
 */
wavelab_status wavelab_run_read_binding(const wavelab_run *r, uint32_t set, uint32_t binding, void *dst,
                                        size_t dst_size, size_t *size);
/* The same for element `element` of a descriptor array; wavelab_run_read_binding is element 0.  An element that
 * is one view of a loaded case's image (its "views") reads the whole image, as its binding holds it.
 * (Since 0.3.) */
wavelab_status wavelab_run_read_binding_element(const wavelab_run *r, uint32_t set, uint32_t binding,
                                                uint32_t element, void *dst, size_t dst_size, size_t *size);

/*
 * Checks every expectation of the case against the run's final bindings.
 * WAVELAB_OK when all hold; WAVELAB_ERR_EXPECT otherwise, and the run's
 * message then has one line per failed expectation: "set S binding B
 * (exact): element I: expected E, actual A; N of M elements differ".  A run that did
 * not reach the end returns its own failure again.
 */
wavelab_status wavelab_run_check(wavelab_run *r);

/* ------------------------------------------------------------ statistics */

/* The simulator's dispatch statistics, by name (docs/guide.md lists them). */
int wavelab_stat_count(void);
const char *wavelab_stat_name(int index);    /* "wave_instructions", ...; NULL when out of range */
const char *wavelab_stat_meaning(int index); /* one line */

/* The value of statistic `name` for a simulator run.  WAVELAB_ERR_NOT_FOUND for an unknown name, a device run or
 * a run whose dispatch never started (it failed before: compile, input). */
wavelab_status wavelab_run_stat(const wavelab_run *r, const char *name, uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif
