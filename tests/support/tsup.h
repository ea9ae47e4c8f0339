/*
 * tests/support/tsup.h — small helpers shared by the test executables
 * (compiled into every one of them): kernel text to a lowered program, a
 * fixed pseudo-random stream, temporary files, running the `wavelab`
 * command with its output captured, and headless Chromium for the picture
 * tests (the DOM after layout, screenshots, the layout check).
 */
#ifndef WAVELAB_TSUP_H
#define WAVELAB_TSUP_H

#include <stddef.h>
#include <stdint.h>

#include "isa/isa.h"

/*
 * Compiles `source` (language "glsl" or "hlsl", entry NULL = "main"),
 * validates and lowers it.  On success *out owns a new program (free
 * with isa_program_destroy) and returns ISA_OK; otherwise msg says which
 * step failed and why.  `warnings` (may be NULL) gets the compiler warnings.
 */
isa_status tsup_build(const char *source, const char *path, const char *language, const char *entry,
                      isa_program **out, char *msg, size_t msg_size, char *warnings, size_t warnings_size);

/* A 32-bit LCG (Numerical Recipes constants), upper bits returned: reproducible test inputs. */
uint32_t tsup_rand(uint32_t *state);

/* Makes a fresh temporary directory (mkdtemp); returns a malloc'd path or NULL. */
char *tsup_temp_dir(void);

/* Writes `text` to dir/name; returns a malloc'd full path, or NULL. */
char *tsup_write_file(const char *dir, const char *name, const char *text);

/* The whole file, NUL-terminated (malloc'd; *size, when not NULL, gets its length); a Check failure naming the
 * path when it cannot be read. */
char *tsup_read_file(const char *path, size_t *size);

/* Every file below dir (recursively; names starting with '.' skipped) whose name ends in `suffix`, as paths
 * dir/..., sorted; *count gets how many (0 for a folder that cannot be read).  malloc'd, as each path: release with
 * tsup_free_list.  No Check assertion inside: suites call it from main() too. */
char **tsup_list_files(const char *dir, const char *suffix, size_t *count);
/* The case files below dir that have an "expect", as tsup_list_files lists them: one without is a model study at
 * its real size (the 1440p gathers, kernels/generalize), which `wavelab test` skips too. */
char **tsup_list_expect_cases(const char *dir, size_t *count);
void tsup_free_list(char **list, size_t count);
/* strcmp for qsort over an array of strings. */
int tsup_compare_strings(const void *a, const void *b);
/* Removes a temporary directory made by tsup_temp_dir and the plain files in it. */
void tsup_remove_dir(const char *dir);

/*
 * Runs "$WAVELAB_BIN args" through the shell with stdout and stderr captured
 * together.  Returns the exit status (-1 when it could not run or was killed)
 * and *output (malloc'd, caller frees; may be NULL).  args are shell words:
 * quote paths yourself.
 */
int tsup_run_cli(const char *args, char **output);

/* The wavelab binary (env WAVELAB_BIN, else build/wavelab) and repository root (env WAVELAB_ROOT, else "."). */
const char *tsup_bin(void);
const char *tsup_root(void);

/*
 * A TCase of tests that need a Vulkan device, tagged TSUP_DEVICE_TAG.  CTest runs such a suite twice: test_X
 * without the tag (CK_EXCLUDE_TAGS) and test_X_device with it alone (CK_INCLUDE_TAGS); CMakeLists.txt finds
 * the suites that call this.
 */
#define TSUP_DEVICE_TAG "device"
struct TCase;
struct TCase *tsup_device_tcase(const char *name);

/*
 * A TCase of tests that need headless Chromium (Debian's chromium), tagged TSUP_CHROMIUM_TAG.  Without
 * chromium, tsup_run_suite runs none of them and exits TSUP_EXIT_SKIP (the suite is registered with CTest's
 * SKIP_RETURN_CODE 77 when it calls this: CMakeLists.txt), never passes.
 */
#define TSUP_CHROMIUM_TAG "chromium"
struct TCase *tsup_chromium_tcase(const char *name);

/*
 * The page at `page` (a local file) as headless Chromium lays it out in a window of width x height CSS pixels,
 * each run bounded by a timeout, with a browser profile under `dir` (remove dir with tsup_remove_tree): the DOM
 * after the page's scripts ran (--dump-dom), malloc'd, and, when `png` is not NULL, a PNG of the window written
 * there by the same run (one browser start, not two: each takes about two seconds on the test machines).  A
 * Check failure when chromium fails or writes no PNG.
 */
char *tsup_chromium_dom(const char *page, int width, int height, const char *dir, const char *png);

/*
 * Decodes an 8-bit RGB or RGBA PNG (tsup_chromium_dom's): returns the number of distinct colours, *ink
 * the share of non-white pixels, *width and *height.  Check failures on anything else.
 */
size_t tsup_png_colours(const char *path, double *ink, uint32_t *width, uint32_t *height);

/*
 * The layout check of the picture tests.  Writes `html` (a whole page) to dir/name with a script before
 * </body> that measures the laid-out page and lists its problems, loads it in Chromium at width x height and
 * returns the problems, one line each ("" when there are none; malloc'd):
 *   - an SVG <text> whose box leaves its <svg>'s box (a clipped title, a cut axis label);
 *   - an SVG <text> that leaves the filled <rect> it is drawn in (the smallest one holding its centre), or
 *     whose fill has less than 3:1 contrast with that rect's fill (white numbers on yellow);
 *   - an HTML element whose content is wider than its box while its overflow is visible (no scroll
 *     container), and a page wider than the window;
 *   - an element matching the CSS selector `whole` (NULL: none) whose content is wider than its box at all,
 *     scroll container or not: text that must be read whole (a verdict and its reason).
 * Each line names the element: its figure's id (the closest element with an id), tag and text.
 */
char *tsup_layout_problems(const char *dir, const char *name, const char *html, int width, int height,
                           const char *whole, const char *png);

/*
 * The picture tests' two widths (a phone's 480 px and a desktop's 1400 px): for each, tsup_layout_problems of
 * `html` (written to dir as layoutW.html) and a screenshot of it that must not be blank (more than 20
 * colours, 2 % ink: a Check failure naming `label`).  Returns the problems of both widths, each block headed
 * "at W px:" ("" when there are none; malloc'd).  In the sanitizer build it measures nothing and returns "": the
 * pages are the same bytes as the optimised build's, which Chromium lays out, and a browser's four runs per page
 * were most of those suites' time there.
 */
char *tsup_layout_at_two_widths(const char *dir, const char *html, int height, const char *whole, const char *label);

/* Removes a directory tree made under tsup_temp_dir (browser profiles are folders). */
void tsup_remove_tree(const char *dir);

/*
 * Runs a Check suite (CK_NORMAL), prints "NAME: S s" of wall time on stderr, and returns the exit status.
 * When the run includes device TCases, whether a device opens (tsup_device_open) is decided once, up front:
 * without one the device TCases do not run and the exit status is TSUP_EXIT_SKIP (CTest's SKIP_RETURN_CODE),
 * or 1 when WAVELAB_REQUIRE_DEVICE=1; the reason is printed either way.
 */
enum { TSUP_EXIT_SKIP = 77 };
struct Suite;
int tsup_run_suite(struct Suite *suite, const char *name);

/* The device the device suites run on: lavapipe ("llvmpipe") when the loader lists it, else device 0.  Returns
 * its index with *ctx open (close it with vkb_context_destroy), or -1 with the reason to skip in `skip` (no
 * loader, no device; *ctx may then still need closing). */
struct vkb_context;
int tsup_device_open(struct vkb_context **ctx, char *skip, size_t skip_size);

/* For suites that open a Vulkan device: lavapipe alone when it is installed and no driver was chosen
 * (drivers stay loaded after vkDestroyInstance in every process: docs/backend.md). */
void tsup_prefer_lavapipe(void);

/* The 1-based line of `source` on which `needle` first appears (0 when it does not). */
int tsup_line_of(const char *source, const char *needle);

/* A fake program for the memory model's tests: one storage slot, VMEM u32 loads at pcs 0-3, 4 lanes per
 * group (the model reads only the slots, the instruction classes and the workgroup size). */
typedef struct tsup_fake_program {
    isa_program p;
    isa_inst code[4];
    isa_slot slot;
} tsup_fake_program;
void tsup_fake_program_init(tsup_fake_program *f);

/*
 * A small valid machine preset (JSON, into out) for the memory model's tests, named "tiny": one CU of one
 * 4-lane SIMD (wave 4), one wave and one workgroup resident, 256 VGPRs in granules of 4, no scalar registers,
 * 1024 bytes of LDS in 4 banks of 4 bytes, 16-byte lines of one sector, an L2 of 1024 bytes in 4 ways
 * ("modulo"), no L1, DRAM 16 bytes per cycle at 1000 MHz, L2 latency 10 and DRAM latency 100 cycles; every
 * field's source is "test".  `edits` (a printf format, then its arguments) is lines of
 *   PATH=JSON   the member at PATH (NAME, or OBJECT.NAME in one of the base's objects or "sources": "l2.ways",
 *               "sources.l1") set to the JSON text as written (1e309 stays 1e309); a top-level field also
 *               gets the source "test" when it has none
 *   -PATH       the member removed (a top-level field with its source)
 * in order; empty lines are skipped.  A Check failure when an edit is malformed or the text does not fit.
 */
void tsup_preset(char *out, size_t size, const char *edits, ...) __attribute__((format(printf, 3, 4)));

#endif
