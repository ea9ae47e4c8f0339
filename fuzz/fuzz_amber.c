/*
 * fuzz/fuzz_amber.c — libFuzzer harness for the Amber reader, both formats
 * (AmberScript and VkScript): any bytes as a script's text.  amber_parse must
 * return a case or one error line, never crash, leak or read out of bounds
 * (ASan/UBSan watch); a parsed case must be self-consistent (every binding's
 * size is count x element size for buffers, every expectation lies inside
 * its binding).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "case/amber.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wl_case *c = NULL;
    char err[1024];
    case_status st = amber_parse((const char *)data, size, "fuzz/input.amber", &c, err, sizeof err);
    if (st != CASE_OK) {
        if (!err[0] || strchr(err, '\n'))
            abort(); /* one line, always */
        return 0;
    }
    for (int i = 0; i < c->binding_count; i++) {
        const case_binding *b = &c->bindings[i];
        if (!case_kind_is_image(b->kind) && b->size != b->count * case_type_size(b->type))
            abort();
    }
    for (int i = 0; i < c->expect_count; i++) {
        const case_expect *e = &c->expects[i];
        const case_binding *b = case_find_binding(c, e->set, e->binding, e->element);
        if (!b || (!e->is_image && e->first + e->count > b->count))
            abort();
    }
    case_destroy(c);
    return 0;
}
