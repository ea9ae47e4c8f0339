/*
 * backend/vk_pipe.c — a device run's results across a pipe: `wavelab check`
 * runs the device in a child process (a driver that crashes takes only the
 * child with it), and the child sends the parent what the run produced.
 * Both ends are the same executable, so fixed-size structs travel as their
 * bytes; every variable-size array follows as a length-prefixed chunk.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"

static int write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t k = write(fd, b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return 0;
        b += k;
        n -= (size_t)k;
    }
    return 1;
}

static int read_all(int fd, void *p, size_t n)
{
    uint8_t *b = p;
    while (n) {
        ssize_t k = read(fd, b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return 0;
        b += k;
        n -= (size_t)k;
    }
    return 1;
}

/* one chunk: its length, then its bytes */
static int put(int fd, const void *p, uint64_t n)
{
    return write_all(fd, &n, sizeof n) && write_all(fd, p, (size_t)n);
}

/* a chunk of exactly `n` bytes into `p` */
static int get_exact(int fd, void *p, uint64_t n)
{
    uint64_t have;
    return read_all(fd, &have, sizeof have) && have == n && read_all(fd, p, (size_t)n);
}

/* a chunk of any length into a new allocation (NULL for an empty chunk) */
static int get_alloc(int fd, void **p, uint64_t *n)
{
    *p = NULL;
    if (!read_all(fd, n, sizeof *n) || *n > ((uint64_t)1 << 34))
        return 0;
    if (!*n)
        return 1;
    if (!(*p = malloc((size_t)*n)))
        return 0;
    return read_all(fd, *p, (size_t)*n);
}

int vkb_pipe_send(int fd, const void *record, size_t size)
{
    return put(fd, record, size);
}

int vkb_pipe_receive(int fd, void *record, size_t size)
{
    return get_exact(fd, record, size);
}

int vkb_pipe_send_output(int fd, const vkb_run_output *out, const wl_case *c)
{
    vkb_run_output fixed = *out; /* pointers travel as bytes and are replaced on receipt */
    if (!put(fd, &fixed, sizeof fixed))
        return 0;
    for (int i = 0; i < out->binding_count; i++)
        if (!put(fd, out->data ? out->data[i] : NULL, out->data && out->data[i] ? c->bindings[i].size : 0))
            return 0;
    size_t per_pass = (size_t)out->sample_count * (size_t)out->pass_count * sizeof(double);
    return put(fd, out->samples_us, out->samples_us ? out->sample_count * sizeof(double) : 0) &&
           put(fd, out->pass_begin_us, out->pass_begin_us ? per_pass : 0) &&
           put(fd, out->pass_end_us, out->pass_end_us ? per_pass : 0) &&
           put(fd, out->stats, out->stats ? (size_t)out->stat_count * sizeof *out->stats : 0);
}

int vkb_pipe_receive_output(int fd, vkb_run_output *out)
{
    uint64_t n;
    if (!get_exact(fd, out, sizeof *out)) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    int count = out->binding_count;
    out->binding_count = 0;
    out->data = NULL;
    out->samples_us = out->pass_begin_us = out->pass_end_us = NULL;
    out->stats = NULL;
    if (count < 0 || count > 4096 || (count && !(out->data = calloc((size_t)count, sizeof *out->data))))
        return 0;
    out->binding_count = count;
    for (int i = 0; i < count; i++)
        if (!get_alloc(fd, (void **)&out->data[i], &n))
            return 0;
    return get_alloc(fd, (void **)&out->samples_us, &n) && get_alloc(fd, (void **)&out->pass_begin_us, &n) &&
           get_alloc(fd, (void **)&out->pass_end_us, &n) && get_alloc(fd, (void **)&out->stats, &n);
}
