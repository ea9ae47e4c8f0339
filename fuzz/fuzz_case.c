/*
 * fuzz/fuzz_case.c — libFuzzer harness for the case reader: any bytes as a
 * case file's text.  case_parse must return a case or one error message,
 * never crash, leak or read out of bounds (ASan/UBSan watch); a parsed case
 * must be self-consistent (every buffer's size is count x element size; an
 * image's is its packed texels, count the texel count).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/case.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    wl_case *c = NULL;
    char err[1024];
    case_status st = case_parse(text, "fuzz/input.json", &c, err, sizeof err);
    if (st == CASE_OK) {
        for (int i = 0; i < c->binding_count; i++) {
            const case_binding *b = &c->bindings[i];
            if (case_kind_is_image(b->kind)) {
                const img_format_info *fi = img_format_get(b->image.format);
                if (!fi || b->size != img_image_bytes(&b->image) || b->count * fi->texel_bytes != b->size ||
                    b->image.bytes != b->bytes)
                    abort();
                continue;
            }
            if (b->kind == CASE_KIND_SAMPLER)
                continue;
            if (b->size != b->count * case_type_size(b->type))
                abort();
            char buf[64];
            if (b->count)
                case_format_element(b->type, b->bytes, buf, sizeof buf);
        }
        for (int i = 0; i < c->expect_count; i++) {
            const case_expect *e = &c->expects[i];
            const case_binding *b = case_find_binding(c, e->set, e->binding, e->element);
            if (!b)
                abort();
            if (e->is_image) {
                const img_format_info *fi = img_format_get(b->image.format);
                if (e->count > (size_t)e->extent[0] * e->extent[1] * e->extent[2] * fi->components)
                    abort();
            } else if (e->count > b->count) {
                abort();
            }
            char msg[256];
            case_expect_check(e, b->bytes, b->size, msg, sizeof msg, NULL);
        }
        case_destroy(c);
    } else if (c != NULL || err[0] == 0) {
        abort(); /* an error always comes with its message and no case */
    }
    free(text);
    return 0;
}
