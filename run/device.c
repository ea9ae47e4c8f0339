/*
 * run/device.c — a case on a Vulkan device (see device.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/device.h"
#include "run/run.h"

vkb_status run_device_passes(vkb_context *ctx, int index, const wl_case *c, const char *optimize,
                             const vkb_run_options *opt, vkb_run_output *out, char *err, size_t err_size)
{
    int n = case_dispatch_total(c);
    vkb_pass *passes = calloc((size_t)n, sizeof *passes);
    uint32_t **words = calloc((size_t)n, sizeof *words);
    vkb_status st = VKB_OK;
    memset(out, 0, sizeof *out);
    if (!passes || !words) {
        snprintf(err, err_size, "out of memory");
        st = VKB_ERR_NOMEM;
    }
    for (int p = 0; p < n && st == VKB_OK; p++) {
        wl_case view;
        case_dispatch_view(c, p, &view);
        char cerr[2048] = "", warnings[4096] = "";
        isa_status is = run_compile_case_optimized(&view, optimize, &words[p],
                                                   &passes[p].word_count, cerr, sizeof cerr, warnings, sizeof warnings);
        if (is != ISA_OK) {
            snprintf(err, err_size, "dispatches[%d] (%.40s): %.1900s", p, case_dispatch_name(c, p), cerr);
            st = VKB_ERR_INPUT;
        }
        passes[p].spirv = words[p];
    }
    if (st == VKB_OK)
        st = vkb_run_passes(ctx, index, c, passes, n, opt, out, err, err_size);
    for (int p = 0; words && p < n; p++)
        free(words[p]);
    free(words);
    free(passes);
    return st;
}

static vkb_status stop(run_device_result *res, run_device_step step, vkb_status st)
{
    res->step = step;
    res->status = st;
    return st;
}

/* The case's kernel (the first pass's): the caller's words through the optimizer, or compiled. */
static vkb_status kernel_words(const wl_case *c, const run_device_options *opt, run_device_result *res,
                               uint32_t **words, size_t *word_count)
{
    char err[sizeof res->message - 64];
    const char *passes = opt->optimize ? opt->optimize : c->optimize;
    isa_status st;
    if (opt->spirv && !c->dispatches && passes)
        st = run_optimize_spirv(c, passes, opt->spirv, opt->spirv_words, words, word_count, err, sizeof err);
    else if (opt->spirv && !c->dispatches) {
        st = (*words = malloc(opt->spirv_words * sizeof **words + 1)) ? ISA_OK : ISA_ERR_NOMEM;
        if (st == ISA_OK)
            memcpy(*words, opt->spirv, opt->spirv_words * sizeof **words);
        *word_count = opt->spirv_words;
        snprintf(err, sizeof err, "out of memory");
    } else
        st = run_compile_case_optimized(c, opt->optimize, words, word_count, err, sizeof err, res->warnings,
                                        sizeof res->warnings);
    if (st == ISA_OK)
        return VKB_OK;
    /* a case of several passes: say which pass the message is about, as run_device_passes does */
    if (c->dispatches)
        snprintf(res->message, sizeof res->message, "dispatches[0] (%.40s): %s", case_dispatch_name(c, 0), err);
    else
        snprintf(res->message, sizeof res->message, "%s", err);
    return stop(res, RUN_DEVICE_COMPILE, st == ISA_ERR_NOMEM ? VKB_ERR_NOMEM : VKB_ERR_INPUT);
}

/* run_case_device, telling `opened` (when not NULL) once the device is open or failed to, and `checked` once
 * check_first's verdict let the run go on (res->wave_size set), before it dispatches. */
static vkb_status device_run(const wl_case *c, const run_device_options *opt, run_device_result *res,
                             void (*opened)(const run_device_result *res, void *arg),
                             void (*checked)(const run_device_result *res, void *arg), void *arg)
{
    memset(res, 0, sizeof *res);
    vkb_context *ctx = NULL;
    int index = 0;
    uint32_t *words = NULL;
    size_t word_count = 0;
    vkb_status st = vkb_context_create(&ctx, res->message, sizeof res->message);
    if (st == VKB_OK)
        st = vkb_device_find(ctx, opt->device, &index, res->message, sizeof res->message);
    if (st == VKB_OK) {
        vkb_device_info_get(ctx, index, &res->info);
        res->have_info = 1;
    } else
        stop(res, RUN_DEVICE_OPEN, st);
    if (opened)
        opened(res, arg);
    if (st != VKB_OK || (st = kernel_words(c, opt, res, &words, &word_count)) != VKB_OK)
        goto done;
    vkb_run_options run = opt->run;
    if (opt->check_first) { /* the device's verdict first: a case it cannot run is a refusal, not a failure */
        res->wave_size = run.wave_size ? run.wave_size : c->subgroup_size ? c->subgroup_size : res->info.subgroup_size;
        run.wave_size = res->wave_size;
        if (!case_wave_applies(c, res->wave_size, res->message, sizeof res->message)) {
            st = stop(res, RUN_DEVICE_WAVE, VKB_ERR_WAVE_SIZE);
            goto done;
        }
        vkb_kernel_info kernel;
        wl_case first; /* the first pass, with its own bindings when it binds buffers by name */
        case_dispatch_view(c, 0, &first);
        st = vkb_kernel_scan(words, word_count, c->entry, &kernel, res->message, sizeof res->message);
        if (st == VKB_OK)
            st = vkb_check_support(ctx, index, &kernel, &first, res->wave_size, res->message, sizeof res->message);
        if (st != VKB_OK) {
            stop(res, RUN_DEVICE_SUPPORT, st);
            goto done;
        }
        memcpy(res->local_size, kernel.local_size, sizeof res->local_size);
        if (checked)
            checked(res, arg);
    }
    st = c->dispatches ? run_device_passes(ctx, index, c, opt->optimize, &run, &res->out, res->message,
                                           sizeof res->message)
                       : vkb_run_case(ctx, index, c, words, word_count, &run, &res->out, res->message,
                                      sizeof res->message);
    if (st != VKB_OK) {
        stop(res, RUN_DEVICE_DISPATCH, st);
        goto done;
    }
    if (!opt->check_first)
        res->wave_size = res->out.wave_size;
    res->message[0] = 0;
    stop(res, RUN_DEVICE_DONE, VKB_OK);
done:
    free(words);
    vkb_context_destroy(ctx);
    return res->status;
}

vkb_status run_case_device(const wl_case *c, const run_device_options *opt, run_device_result *res)
{
    return device_run(c, opt, res, NULL, NULL, NULL);
}

/* The child's records, in order: the device's description (as soon as it opened, or failed to: the parent can
 * name the device whose driver crashed later); with check_first, the wave size it runs (0: it stopped before
 * dispatching), so that the parent's simulator starts beside the dispatch; the result; the output. */
typedef struct child_pipe {
    int fd;
    int sent_wave;
} child_pipe;

static void send_info(const run_device_result *res, void *arg)
{
    int fd = ((const child_pipe *)arg)->fd;
    vkb_pipe_send(fd, &res->info, sizeof res->info);
    const char *hook = getenv("WAVELAB_TEST_DEVICE_CRASH");
    if (res->have_info && hook && strcmp(hook, "dispatch")) { /* test hook (docs/backend.md): a driver crash */
        signal(SIGSEGV, SIG_DFL); /* the default action even under AddressSanitizer, whose handler would exit 1 */
        raise(SIGSEGV);
    }
}

static void send_wave(const run_device_result *res, void *arg)
{
    child_pipe *p = arg;
    p->sent_wave = 1;
    vkb_pipe_send(p->fd, &res->wave_size, sizeof res->wave_size);
    const char *hook = getenv("WAVELAB_TEST_DEVICE_CRASH");
    if (hook && !strcmp(hook, "dispatch")) { /* test hook: the driver crashes while the simulator runs */
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
}

/* The child: runs the device and sends the result; nothing is released (the process ends with _exit, and a
 * driver's teardown is one more place to crash). */
static int device_child(int fd, const wl_case *c, const run_device_options *opt)
{
    run_device_result res;
    child_pipe p = {fd, 0};
    device_run(c, opt, &res, send_info, send_wave, &p);
    const uint32_t stopped = 0;
    if (opt->check_first && !p.sent_wave && !vkb_pipe_send(fd, &stopped, sizeof stopped))
        return 1;
    if (!vkb_pipe_send(fd, &res, sizeof res))
        return 1;
    if (res.step == RUN_DEVICE_DONE && !vkb_pipe_send_output(fd, &res.out, c))
        return 1;
    return 0;
}

static vkb_status process_failed(run_device_result *res, vkb_status st, const char *what)
{
    snprintf(res->message, sizeof res->message, "%s", what);
    return stop(res, RUN_DEVICE_PROCESS, st);
}

int run_case_device_start(const wl_case *c, const run_device_options *opt, run_device_job *job)
{
    memset(job, 0, sizeof *job);
    job->fd = -1;
    int fds[2];
    fflush(stdout);
    fflush(stderr);
    if (pipe(fds) != 0) {
        snprintf(job->message, sizeof job->message, "cannot create a pipe: %s", strerror(errno));
        return 0;
    }
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        int rc = device_child(fds[1], c, opt);
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    close(fds[1]);
    if (child < 0) {
        snprintf(job->message, sizeof job->message, "cannot start the device's process: %s", strerror(errno));
        close(fds[0]);
        return 0;
    }
    job->child = (int)child;
    job->fd = fds[0];
    job->have_info = vkb_pipe_receive(job->fd, &job->info, sizeof job->info);
    job->have_wave =
        opt->check_first && job->have_info && vkb_pipe_receive(job->fd, &job->wave_size, sizeof job->wave_size);
    return job->have_wave && job->wave_size != 0;
}

vkb_status run_case_device_finish(run_device_job *job, run_device_result *res)
{
    memset(res, 0, sizeof *res);
    if (job->fd < 0) { /* the child never started */
        snprintf(res->message, sizeof res->message, "%s", job->message);
        return stop(res, RUN_DEVICE_PROCESS, VKB_ERR_NOMEM);
    }
    int have_result = job->have_info && vkb_pipe_receive(job->fd, res, sizeof *res);
    memset(&res->out, 0, sizeof res->out); /* its pointers are the child's: the output follows */
    int have_output = have_result && (res->step != RUN_DEVICE_DONE || vkb_pipe_receive_output(job->fd, &res->out));
    close(job->fd);
    job->fd = -1;
    int status = 0;
    while (waitpid((pid_t)job->child, &status, 0) < 0 && errno == EINTR)
        continue;
    if (WIFSIGNALED(status) && !(have_result && have_output)) {
        vkb_run_output_free(&res->out);
        memset(res, 0, sizeof *res);
        res->crash_signal = WTERMSIG(status);
        res->have_info = job->have_info && job->info.name[0];
        res->info = job->info;
        snprintf(res->message, sizeof res->message, "the device's process died of signal %d", res->crash_signal);
        return stop(res, RUN_DEVICE_DISPATCH, VKB_ERR_DEVICE_LOST);
    }
    if (!have_result || !have_output) {
        vkb_run_output_free(&res->out);
        memset(res, 0, sizeof *res);
        return process_failed(res, VKB_ERR_DEVICE_LOST, "the device's process ended without sending its results");
    }
    return res->status;
}

vkb_status run_case_device_isolated(const wl_case *c, const run_device_options *opt, run_device_result *res)
{
    run_device_job job;
    run_case_device_start(c, opt, &job);
    return run_case_device_finish(&job, res);
}

void run_device_result_free(run_device_result *res)
{
    if (res)
        vkb_run_output_free(&res->out);
}
