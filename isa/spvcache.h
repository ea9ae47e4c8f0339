/*
 * isa/spvcache.h — compile once: a cache of validated SPIR-V on disk.
 *
 * glslang with its optimizer takes 100-200 ms per kernel, which dominates
 * `wavelab test` on small cases that compile the same kernel at every wave
 * size.  isa_spvcache_compile() looks the compilation up first, under a key
 * that is a SHA-256 of everything that can change its output:
 *
 *   - the kernel's bytes and the bytes of every file it #includes, found the
 *     way glslang finds them (isa/spvcache.c, "Includes"), and the path as
 *     written (it appears in warnings and debug information);
 *   - language, entry point, defines, every field of isa_compile_options and
 *     the caller's `settings` text (whatever else the compile path decides);
 *   - the glslang and SPIRV-Tools versions and the build ID of the wavelab
 *     code doing the compiling (a rebuild starts a new cache generation, so a
 *     change to isa/compile.c can never be answered with stale SPIR-V).
 *
 * Entries live in $XDG_CACHE_HOME/wavelab/spirv (default ~/.cache/wavelab),
 * one file per key, written to a temporary file in the same directory and
 * renamed into place, so concurrent processes and threads only ever see a
 * whole entry.  Each entry carries its key, its length and a SHA-256 of its
 * contents; anything that does not check out is recompiled, never trusted.
 * Only SPIR-V that passed isa_validate is stored; compile warnings are stored
 * with it and handed back on a hit.  Failing compilations are never cached.
 *
 * The cache is off when WAVELAB_NO_CACHE is set to anything but "" or "0",
 * after isa_spvcache_set_enabled(0) (`--no-cache`), or when no cache
 * directory can be named.  A cache that cannot be read or written is
 * silently bypassed: it never turns a good compilation into an error.
 */
#ifndef WAVELAB_ISA_SPVCACHE_H
#define WAVELAB_ISA_SPVCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "isa/isa.h"

#define ISA_SPVCACHE_KEY_SIZE 32

typedef enum isa_spvcache_outcome {
    ISA_SPVCACHE_OFF,      /* cache disabled or unusable: compiled, nothing stored */
    ISA_SPVCACHE_HIT,      /* answered from a valid entry */
    ISA_SPVCACHE_MISS,     /* no valid entry: compiled, validated and stored */
    ISA_SPVCACHE_UNKEYED   /* the source cannot be keyed (an #include through a macro, ...): compiled, not stored */
} isa_spvcache_outcome;

/* Process-wide switch (the CLI's --no-cache).  Set it before starting threads. */
void isa_spvcache_set_enabled(int enabled);

/* Whether lookups happen: the switch, and WAVELAB_NO_CACHE unset, "" or "0". */
int isa_spvcache_enabled(void);

/* The cache directory ($XDG_CACHE_HOME/wavelab, else $HOME/.cache/wavelab) into buf.
 * Returns 0 when none can be named (no absolute XDG_CACHE_HOME and no HOME). */
int isa_spvcache_dir(char *buf, size_t size);

/*
 * The key of a compilation.  `settings` is free text for every compile
 * setting the caller decides beyond isa_compile_options (may be NULL).
 * `source` holds the kernel's bytes (the caller reads them once and compiles
 * those same bytes).  Returns 1 with key set, or 0 when the compilation
 * cannot be keyed safely (then it must not be cached).
 */
int isa_spvcache_key(const isa_compile_options *opt, const char *settings, const char *source, size_t source_len,
                     uint8_t key[ISA_SPVCACHE_KEY_SIZE]);

/*
 * Looks a key up in `dir`.  Returns 1 on a valid entry: *words (malloc'd,
 * caller frees), *word_count, and the stored warnings appended to `warnings`.
 * Returns 0 when there is no entry or it is damaged (nothing is returned).
 */
int isa_spvcache_get(const char *dir, const uint8_t key[ISA_SPVCACHE_KEY_SIZE], uint32_t **words, size_t *word_count,
                     char *warnings, size_t warnings_size);

/* Stores an entry in `dir` (created if needed) atomically.  Returns 1 when stored. */
int isa_spvcache_put(const char *dir, const uint8_t key[ISA_SPVCACHE_KEY_SIZE], const uint32_t *words,
                     size_t word_count, const char *warnings);

/* The entry file of a key in `dir` ("<dir>/spirv/<64 hex digits>.spv"). */
void isa_spvcache_entry_path(const char *dir, const uint8_t key[ISA_SPVCACHE_KEY_SIZE], char *buf, size_t size);

/*
 * isa_compile + isa_validate through the cache in `dir` (NULL: isa_spvcache_dir()).
 * Same contract as isa_compile, except that the SPIR-V is also validated:
 * ISA_ERR_INVALID with err = "<kernel path>: <validator message>".  Warnings
 * are the compilation's, whether it ran now or was cached.  *outcome (may be
 * NULL) says what happened.
 */
isa_status isa_spvcache_compile(const isa_compile_options *opt, const char *settings, const char *dir,
                                uint32_t **words, size_t *word_count, char *err, size_t err_size, char *warnings,
                                size_t warnings_size, isa_spvcache_outcome *outcome);

#endif
