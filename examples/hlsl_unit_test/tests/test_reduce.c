/*
 * test_reduce.c — a unit test of shaders/reduce.hlsl through wavelab's C API,
 * at every wave size from 4 to 64, on the simulator: no GPU needed.  The
 * expected sums are computed here in plain C; a failure prints wavelab's
 * message, which names the element, the expected and the actual value.
 *
 * The same calls fit a Check, CTest or GoogleTest test body: build the case
 * once, run it per wave size, assert on wavelab_run_check()'s status.
 */
#include <stdio.h>
#include <stdlib.h>

#include <wavelab.h>

#define GROUPS 4
#define LOCAL 256

static int failures;

#define EXPECT(cond, ...)                                          \
    do {                                                           \
        if (!(cond)) {                                             \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                          \
            fputc('\n', stderr);                                   \
            failures++;                                            \
        }                                                          \
    } while (0)

int main(void)
{
    /* inputs: a fixed pseudo-random stream, so every run checks the same numbers */
    static uint32_t input[GROUPS * LOCAL];
    uint32_t expected[GROUPS] = {0}, state = 1;
    for (int i = 0; i < GROUPS * LOCAL; i++) {
        state = state * 1664525u + 1013904223u;
        input[i] = state >> 20;
        expected[i / LOCAL] += input[i];
    }

    wavelab_case *c;
    if (wavelab_case_create(&c) != WAVELAB_OK)
        return 2;
    wavelab_status st = wavelab_case_set_kernel_file(c, KERNEL_DIR "/reduce.hlsl");
    if (st == WAVELAB_OK)
        st = wavelab_case_set_entry(c, "CSMain");
    if (st == WAVELAB_OK)
        st = wavelab_case_set_groups(c, GROUPS, 1, 1);
    if (st == WAVELAB_OK)
        st = wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 0, WAVELAB_U32, input, GROUPS * LOCAL);
    if (st == WAVELAB_OK)
        st = wavelab_case_add_binding(c, WAVELAB_STORAGE_BUFFER, 0, 1, WAVELAB_U32, NULL, GROUPS);
    if (st == WAVELAB_OK)
        st = wavelab_case_expect(c, 0, 1, expected, GROUPS, WAVELAB_COMPARE_EXACT, 0);
    if (st != WAVELAB_OK) {
        fprintf(stderr, "building the case: %s: %s\n", wavelab_status_str(st), wavelab_case_message(c));
        wavelab_case_destroy(c);
        return 2;
    }

    for (uint32_t wave = 4; wave <= 64; wave *= 2) {
        wavelab_run *r;
        st = wavelab_run_sim(c, wave, &r);
        EXPECT(st == WAVELAB_OK, "wave %u: %s: %s", wave, wavelab_status_str(st), wavelab_run_message(r));
        if (st == WAVELAB_OK) {
            st = wavelab_run_check(r);
            EXPECT(st == WAVELAB_OK, "wave %u: %s", wave, wavelab_run_message(r));
            /* the same through a read-back, and what the dispatch did */
            uint32_t sums[GROUPS];
            EXPECT(wavelab_run_read_binding(r, 0, 1, sums, sizeof sums, NULL) == WAVELAB_OK, "read-back");
            for (int g = 0; g < GROUPS; g++)
                EXPECT(sums[g] == expected[g], "wave %u group %d: %u, expected %u", wave, g, sums[g], expected[g]);
            uint64_t waves = 0, barriers = 0;
            wavelab_run_stat(r, "waves", &waves);
            wavelab_run_stat(r, "barriers", &barriers);
            EXPECT(waves == GROUPS * LOCAL / wave, "wave %u: %llu waves", wave, (unsigned long long)waves);
            EXPECT(barriers == GROUPS, "wave %u: %llu barriers, one per workgroup", wave, (unsigned long long)barriers);
            if (wavelab_run_warnings(r)[0])
                printf("%s", wavelab_run_warnings(r));
        }
        wavelab_run_destroy(r);
    }
    wavelab_case_destroy(c);
    printf("test_reduce: %s (wavelab %s)\n", failures ? "FAILED" : "passed at waves 4 to 64", wavelab_version());
    return failures ? 1 : 0;
}
