/*
 * case/case_internal.h — what the parts of the case module share privately: the
 * parser's context (file name, JSON path of the field being read, error buffer)
 * and the field readers of case/case.c, which case/case_image.c reads image
 * bindings with, so that every message has the same "FILE: FIELD: problem" form.
 * Not installed, not for other modules.
 */
#ifndef WAVELAB_CASE_INTERNAL_H
#define WAVELAB_CASE_INTERNAL_H

#include <cjson/cJSON.h>

#include "case/case.h"

typedef __int128 case_i128;
typedef unsigned __int128 case_u128;

/* JSON numbers are doubles: integers above this may already have been rounded. */
#define CASE_EXACT_INT_LIMIT 9007199254740992.0 /* 2^53 */

/* The shortest "%.Ng" text that reads back as the same double (case_shortest): by value, so that it
 * can sit in a printf argument list. */
typedef struct number_text {
    char s[32];
} number_text;

typedef struct parser {
    const char *file;     /* the case file's name, for messages */
    char *err;
    size_t err_size;
    char path[256];       /* JSON path of the field being read, e.g. "bindings[2].fill" */
    size_t path_len;
    const char *dir;      /* the case file's directory: relative paths ("file") resolve against it */
} parser;

#define TRY(expr)                            \
    do {                                     \
        case_status try_status_ = (expr);    \
        if (try_status_ != CASE_OK)          \
            return try_status_;              \
    } while (0)

/* The field readers of case/case_read.c. */
case_status case_fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
case_status case_fail_at(parser *p, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
case_status case_fail_nomem(parser *p);
size_t case_path_enter_key(parser *p, const char *key);
size_t case_path_enter_index(parser *p, size_t index);
void case_path_leave(parser *p, size_t saved);
const char *case_json_kind(const cJSON *v);
case_status case_check_keys(parser *p, const cJSON *obj, const char *const *allowed);
case_status case_read_uint_field(parser *p, const cJSON *obj, const char *key, int required, uint64_t min,
                                 uint64_t max, uint64_t fallback, uint64_t *out);
case_status case_read_string_field(parser *p, const cJSON *obj, const char *key, int required, const char **out);
case_status case_read_double(parser *p, const cJSON *v, int allow_special, double *out);
case_status case_read_element_array(parser *p, const cJSON *array, case_type t, uint8_t *dst);
case_status case_read_fill(parser *p, const cJSON *fill, case_binding *b);
case_status case_read_compare(parser *p, const cJSON *v, case_expect *e);
char *case_dup_string(const char *s);
const cJSON *case_field(const cJSON *obj, const char *key);
case_status case_read_uint(parser *p, const cJSON *v, uint64_t min, uint64_t max, uint64_t *out);
case_status case_lookup_type(parser *p, const char *key, const char *name, case_type *out);
/* case/case.c */
char *case_resolve_path(const char *dir, const char *relative);

/* Element helpers of case/case_values.c: little-endian loads and stores, float bit classes, element values,
 * storing a value into an element (0 when it does not fit the type), and range texts. */
int case_kind_is_texel(case_kind k);
void case_int_type_range(case_type t, case_i128 *lo, case_i128 *hi);
int case_store_int(case_type t, case_i128 v, uint8_t *dst);
int case_store_float(case_type t, double d, uint8_t *dst);
const char *case_i128_text(case_i128 v, char buf[48]);
const char *case_type_range_text(case_type t, char buf[112]);
uint64_t case_load_le(const uint8_t *p, size_t size);
void case_store_le(uint8_t *p, uint64_t v, size_t size);
int case_bits_is_nan(case_type t, uint64_t bits);
int case_bits_is_inf(case_type t, uint64_t bits);
double case_float_element_value(case_type t, uint64_t bits);
case_i128 case_int_element_value(case_type t, uint64_t bits);
number_text case_shortest(double d);

/* The largest width, height or depth an image binding takes, JSON cases and Amber's IMAGE alike (Vulkan's
 * guaranteed maxImageDimension2D is 4096; devices go to 16384 and more). */
#define CASE_MAX_IMAGE_EXTENT 16384u

/* The component type a shader reads from an image of format f: f32, u32 or i32 (case/case_image.c). */
case_type case_image_type(img_format f);
/* case/case_image.c: the rest of an image or sampler binding, after set, binding and kind are read. */
case_status case_image_read_binding(parser *p, const cJSON *obj, case_binding *b);
/* An expectation on an image binding b (set and binding already read into e). */
case_status case_image_read_expect(parser *p, const cJSON *obj, const case_binding *b, case_expect *e);
/* case_expect_check for an expectation with is_image set. */
int case_image_expect_check(const case_expect *e, const uint8_t *actual, size_t actual_size, char *msg,
                            size_t msg_size, size_t *first_bad);

#endif
