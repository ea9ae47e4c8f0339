/*
 * fuzz/fuzz_spirv.c — libFuzzer harness for SPIR-V validation, lowering and
 * register allocation through the public isa_ functions: any bytes as
 * SPIR-V words.  A module the validator accepts must lower to a program or
 * to one error message; a lowered program must pass the independent
 * allocation check (isa_verify_allocation against the unallocated
 * program) and format every instruction.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = size / 4;
    if (n < 5 || n > (1u << 16)) /* a header is 5 words; kernels/ are far below 64 Ki words */
        return 0;
    uint32_t *words = malloc(n * 4);
    if (!words)
        return 0;
    memcpy(words, data, n * 4);
    char err[1024];
    if (isa_validate(words, n, err, sizeof err) == ISA_OK) {
        isa_program *p = NULL, *virt = NULL;
        err[0] = 0;
        isa_status st = isa_lower(words, n, NULL, &p, err, sizeof err);
        if (st == ISA_OK) {
            char text[256];
            for (uint32_t pc = 0; pc < p->code_count; pc++)
                isa_inst_format(p, &p->code[pc], text, sizeof text);
            if (isa_lower_virtual(words, n, NULL, &virt, err, sizeof err) != ISA_OK)
                abort(); /* lowering the same module twice must agree */
            if (!isa_verify_allocation(p, virt, err, sizeof err)) {
                fprintf(stderr, "allocation check failed: %s\n", err);
                abort();
            }
        } else if (p != NULL || err[0] == 0) {
            abort(); /* a refusal always comes with its message and no program */
        }
        isa_program_destroy(p);
        isa_program_destroy(virt);
    }
    free(words);
    return 0;
}
