/*
 * run/device.h — one case on a Vulkan device, start to finish: open the
 * device, compile the kernel (every pass's, for "dispatches"), and run it
 * through the backend (backend/backend.h), in this process or in a child
 * process that a crashing driver takes down alone (backend/vk_pipe.c carries
 * the result back).  `wavelab check`, `run --backend vulkan`, `profile` and
 * the C API's wavelab_run_vulkan all run a device through here: they choose
 * the options, then print or return the structured result.
 */
#ifndef WAVELAB_RUN_DEVICE_H
#define WAVELAB_RUN_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "case/case.h"

/* Where a device run stopped. */
typedef enum run_device_step {
    RUN_DEVICE_PROCESS,  /* run_case_device_isolated: the child process could not start, or ended without results */
    RUN_DEVICE_OPEN,     /* the Vulkan loader, the instance, or no device matches run_device_options.device */
    RUN_DEVICE_COMPILE,  /* the kernel does not compile, or the optimizer fails (status VKB_ERR_INPUT or NOMEM) */
    RUN_DEVICE_WAVE,     /* check_first: the wave size is one the case excludes (status VKB_ERR_WAVE_SIZE) */
    RUN_DEVICE_SUPPORT,  /* check_first: the device cannot run the kernel at that wave size (vkb_check_support) */
    RUN_DEVICE_DISPATCH, /* the run itself (vkb_run_passes): the device refused, failed, or the case and kernel
                          * disagree */
    RUN_DEVICE_DONE      /* it ran: out holds the final bindings, timings and statistics */
} run_device_step;

typedef struct run_device_options {
    const char *device;    /* vkb_device_find's choice: NULL the first device that runs work */
    const char *optimize;  /* SPIR-V optimizer passes; NULL: the case's "optimize" (if any) */
    vkb_run_options run;   /* wave_size 0: the case's subgroup_size, else the device's default (check_first: its
                            * subgroup size, made explicit) */
    int check_first;       /* `check`: make the wave size explicit, hold it to the case's wave rules
                            * (case_wave_applies), and scan the kernel and ask the device's support before running,
                            * so that a refusal (RUN_DEVICE_WAVE, RUN_DEVICE_SUPPORT) is told apart from a failed
                            * run; wave_size and local_size are then set */
    const uint32_t *spirv; /* optional: the case's kernel as written, compiled and validated by the caller (the C
                            * API compiles once), used instead of compiling it (the optimizer still runs); a case
                            * with "dispatches" compiles every pass */
    size_t spirv_words;
} run_device_options;

typedef struct run_device_result {
    run_device_step step;  /* where it stopped: RUN_DEVICE_DONE when the case ran */
    vkb_status status;     /* VKB_OK when it ran, else why it stopped (the backend's statuses) */
    char message[4096];    /* "" when it ran, else one line naming what failed */
    char warnings[4096];   /* the compiler's warning lines of the case's kernel (the first pass's), "" if none */
    int have_info;         /* the device opened: info describes it */
    vkb_device_info info;
    uint32_t wave_size;    /* check_first: the wave size asked of the device; else out.wave_size once it ran */
    uint32_t local_size[3];/* check_first: the kernel's workgroup size, once scanned */
    int crash_signal;      /* run_case_device_isolated: the signal the device's process died of (0: none) */
    vkb_run_output out;    /* RUN_DEVICE_DONE: bindings, timing, driver statistics */
} run_device_result;

/* Runs c on a device in this process.  Fills *res (release it with run_device_result_free whatever happened) and
 * returns res->status. */
vkb_status run_case_device(const wl_case *c, const run_device_options *opt, run_device_result *res);

/* The same in a child process, forked before this process opens any Vulkan instance: a driver that crashes takes
 * only the child with it (res->crash_signal, res->have_info when the device had opened).  Flushes stdout and stderr
 * first. */
vkb_status run_case_device_isolated(const wl_case *c, const run_device_options *opt, run_device_result *res);

/* run_case_device_isolated in two halves, so that the caller works while the device runs (`check` runs the
 * simulator beside the dispatch).  start forks the child and returns once the device has said which wave size it
 * runs: with check_first, 1 and job->wave_size set when the run passed check_first's verdict and goes on to
 * dispatch, else 0 (it stopped, or crashed: finish says which).  finish waits for the result and fills *res as
 * run_case_device_isolated does; call it exactly once after start. */
typedef struct run_device_job {
    int child;              /* the device's process (a pid), its pipe, and what it sent so far */
    int fd;
    int have_info, have_wave;
    vkb_device_info info;
    uint32_t wave_size;
    char message[256];      /* the child could not start */
} run_device_job;
int run_case_device_start(const wl_case *c, const run_device_options *opt, run_device_job *job);
vkb_status run_case_device_finish(run_device_job *job, run_device_result *res);

void run_device_result_free(run_device_result *res);

/* Compiles every pass of c (its "dispatches", or its one kernel; `optimize` as in run_compile_case_optimized) and
 * runs them with vkb_run_passes on an open device.  Returns the backend's status (a compile error: VKB_ERR_INPUT,
 * "dispatches[i] (name): ...") with err set. */
vkb_status run_device_passes(vkb_context *ctx, int index, const wl_case *c, const char *optimize,
                             const vkb_run_options *opt, vkb_run_output *out, char *err, size_t err_size);

#endif
