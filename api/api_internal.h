/*
 * api/api_internal.h — what the two halves of the public API share: the
 * case handle's layout (api/api_case.c builds it, api/api_run.c runs it).
 * Never installed; users see only api/wavelab.h.
 */
#ifndef WAVELAB_API_INTERNAL_H
#define WAVELAB_API_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "api/wavelab.h"
#include "case/case.h"

typedef enum api_kernel_from {
    API_KERNEL_NONE,   /* created in code, no kernel given yet */
    API_KERNEL_FILE,   /* c->kernel is a source file read at the first run (case files, set_kernel_file) */
    API_KERNEL_SOURCE, /* `source` holds the text; c->kernel only names it */
    API_KERNEL_SPIRV   /* `spirv` holds the words as given */
} api_kernel_from;

struct wavelab_case {
    wl_case *c;                /* the case in the case module's form: the simulator and the backend read it */
    api_kernel_from kernel_from;
    char *source;
    /* The validated SPIR-V, made once at the first run (under `lock`, so runs may start on several threads)
     * and read-only after; a failed compile is kept too, so every run reports the same message. */
    pthread_mutex_t lock;
    int compiled;
    wavelab_status compile_status;
    uint32_t *spirv;
    size_t spirv_words;
    char *compile_message;
    char *compile_warnings;
    char message[2048];
};

/* The validated SPIR-V of the case, compiling it at the first call.  On failure returns the status and
 * *message points at the case's compile message (valid while the case lives). */
wavelab_status api_case_words(wavelab_case *k, const uint32_t **words, size_t *word_count, const char **message,
                              const char **warnings);

#endif
