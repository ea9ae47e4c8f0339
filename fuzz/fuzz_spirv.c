/*
 * fuzz/fuzz_spirv.c — libFuzzer harness for SPIR-V validation, lowering and
 * register allocation through the public isa_ functions: any bytes as
 * SPIR-V words.  The module reader (isa/spirv.h) reads every input, valid
 * or not, and answers a layout query for each type it read without running
 * away.  A module the validator accepts must lower to a program or
 * to one error message; a lowered program must pass the independent
 * allocation check (isa_verify_allocation of the unallocated program's
 * allocation against it) and format every instruction.
 *
 * Bytes changed at random almost never validate, so a custom mutator also
 * edits the module an instruction at a time (an operand word set to a small
 * number or to another id, an instruction dropped or repeated), which keeps
 * most of it valid and reaches the lowering.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"
#include "isa/spirv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* xorshift32: the mutator's choices follow libFuzzer's seed, so runs reproduce */
static uint32_t next_random(uint32_t *state)
{
    uint32_t x = *state ? *state : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint32_t rnd = seed;
    size_t n = size / 4;
    if (n < 6 || size % 4 || next_random(&rnd) % 4 == 0)
        return LLVMFuzzerMutate(data, size, max_size);
    uint32_t *w = malloc(n * 4 + 4);
    if (!w)
        return LLVMFuzzerMutate(data, size, max_size);
    memcpy(w, data, n * 4);
    /* instruction starts after the 5-word header */
    size_t starts[4096], count = 0;
    for (size_t at = 5; at < n && count < 4096;) {
        uint32_t len = w[at] >> 16;
        if (len == 0 || at + len > n)
            break;
        starts[count++] = at;
        at += len;
    }
    size_t out = size;
    if (count > 0) {
        size_t at = starts[next_random(&rnd) % count];
        uint32_t len = w[at] >> 16, bound = w[3];
        switch (next_random(&rnd) % 4) {
        case 0: case 1: /* one operand word: a small number, another id, or one bit flipped */
            if (len > 1) {
                uint32_t k = 1 + next_random(&rnd) % (len - 1), r = next_random(&rnd);
                w[at + k] = r % 3 == 0 ? r % 17 : r % 3 == 1 && bound ? 1 + r % bound : w[at + k] ^ (1u << (r % 32));
            }
            memcpy(data, w, n * 4);
            break;
        case 2: /* drop the instruction */
            memmove(w + at, w + at + len, (n - at - len) * 4);
            out = (n - len) * 4;
            memcpy(data, w, out);
            break;
        default: /* repeat it */
            if ((n + len) * 4 <= max_size) {
                memcpy(data, w, at * 4);
                memcpy(data + at * 4, w + at, len * 4);
                memcpy(data + (at + len) * 4, w + at, (n - at) * 4);
                out = (n + len) * 4;
            }
            break;
        }
    }
    free(w);
    return out;
}

/* Every register an instruction reads or writes exists (the allocator and its checker index arrays by them). */
static void check_registers(const isa_program *p)
{
    for (uint32_t pc = 0; pc < p->code_count; pc++) {
        isa_span rd[6], wr[2];
        int nr = 0, nw = 0;
        isa_inst_regs(&p->code[pc], rd, &nr, wr, &nw);
        for (int k = 0; k < nr + nw; k++) {
            isa_span sp = k < nr ? rd[k] : wr[k - nr];
            if ((uint64_t)sp.first + sp.count > p->reg_count) {
                fprintf(stderr, "pc %u (line %u) uses registers %u..%u of %u\n", pc, p->code[pc].line, sp.first,
                        sp.first + sp.count - 1, p->reg_count);
                abort();
            }
        }
    }
}

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
    spv_module m;
    if (spv_module_read(&m, words, n, err, sizeof err)) {
        for (uint32_t k = 0; k < m.node_count; k++) {
            uint64_t base, size;
            spv_layout_size(&m, m.nodes[k].id, true, NULL);
            spv_place_variable(&m, m.nodes[k].id, true, 0, &base, &size, NULL);
        }
        spv_module_free(&m);
    }
    if (isa_validate(words, n, err, sizeof err) == ISA_OK) {
        isa_program *p = NULL, *virt = NULL;
        err[0] = 0;
        isa_status st = isa_lower(words, n, NULL, &p, err, sizeof err);
        if (st == ISA_OK) {
            check_registers(p);
            char text[256];
            for (uint32_t pc = 0; pc < p->code_count; pc++)
                isa_inst_format(p, &p->code[pc], text, sizeof text);
            if (isa_lower_virtual(words, n, NULL, NULL, &virt, err, sizeof err) != ISA_OK)
                abort(); /* lowering the same module twice must agree */
            check_registers(virt);
            /* the allocation alone, instruction for instruction (isa_lower's program has also been made
             * lean after allocation, isa/lean.c, so it no longer pairs with the virtual one) */
            isa_program *alloc = isa_program_clone(virt);
            if (!alloc || isa_allocate_registers(alloc) != ISA_OK)
                abort();
            if (!isa_verify_allocation(alloc, virt, err, sizeof err)) {
                fprintf(stderr, "allocation check failed: %s\n", err);
                abort();
            }
            isa_program_destroy(alloc);
        } else if (p != NULL || err[0] == 0) {
            abort(); /* a refusal always comes with its message and no program */
        }
        isa_program_destroy(p);
        isa_program_destroy(virt);
    }
    free(words);
    return 0;
}
