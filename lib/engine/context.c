/* Contexts and their device: CPU or CUDA as asked, or under AUTO whichever
 * the cost model (device_plan.c) says finishes first, with CUDA started in
 * the background as soon as a plan says it will be used, and never touched
 * when the plans say CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/cores.h"
#include "context.h"
#include "cpu/cpu_parallel.h"
#include "base/gi_error.h"
#include "job_flow.h"
#include "plan_job.h"
#include "route.h"

void gi_context_options_default(gi_context_options *opts)
{
    if (!opts) return;
    opts->device = GI_DEVICE_AUTO;
    opts->cpu_threads = 0;
    opts->gpu = 0;
}

gi_status gi__context_cpu(gi_context *ctx, const gi__backend_ops **ops, void **state)
{
    if (!ctx->cpu_ops) {
        gi_status st = gi__cpu_backend_create(ctx->cpu_threads, &ctx->cpu_ops, &ctx->cpu_state);
        if (st != GI_OK) return st;
    }
    *ops = ctx->cpu_ops;
    *state = ctx->cpu_state;
    return GI_OK;
}

void gi__context_hint_files(gi_context *ctx, int in, int out)
{
    ctx->files_in = in;
    ctx->files_out = out;
}

void gi__context_set_cpu_threads(gi_context *ctx, int threads)
{
    ctx->cpu_threads = threads;
    if (ctx->cpu_ops) gi__cpu_backend_set_threads(ctx->cpu_state, threads);
}

int gi__context_cpu_threads(const gi_context *ctx)
{
    return ctx->cpu_threads > 0 ? ctx->cpu_threads : gi__cpu_count(); /* as the CPU backend's */
}

/* In a pipeline each lane's context has its share of the cores (the
 * batch gives lanes cores / lanes threads): how many lanes share them. */
static int cpu_lanes_of(const gi_context *ctx)
{
    int lanes = gi__process_cores() / gi__context_cpu_threads(ctx);
    return lanes < 1 ? 1 : lanes;
}

/* ---------------------------------------------------------------- CUDA's start */

static void start_cuda_here(gi_context *ctx)
{
    ctx->cuda_status = gi__cuda_backend_create(ctx->gpu, &ctx->cuda_ops, &ctx->cuda_state);
    /* Pinning is the one slow allocation (tens of ms for a photo); done
     * here it overlaps the decoding too. Should it fail, the first image
     * tries again and reports it. */
    if (ctx->cuda_status == GI_OK && (ctx->pin_in || ctx->pin_out))
        gi__cuda_backend_reserve(ctx->cuda_state, ctx->pin_in, ctx->pin_out);
    ctx->cuda_startup_ms = gi__now_ms() - ctx->start_began_ms;
    if (ctx->cuda_status != GI_OK)
        snprintf(ctx->cuda_why, sizeof ctx->cuda_why, "%s", gi_last_error());
}

static void *cuda_starter(void *arg)
{
    start_cuda_here(arg);
    return NULL;
}

/* Starts CUDA on a thread of its own, so that the caller goes on (decoding,
 * or computing on the CPU) meanwhile; on this thread when none can start. */
static void begin_cuda(gi_context *ctx)
{
    if (ctx->cuda != GI__CUDA_COLD) return;
    ctx->start_began_ms = gi__now_ms();
    ctx->cuda = GI__CUDA_STARTING;
    if (pthread_create(&ctx->starter, NULL, cuda_starter, ctx) != 0) {
        start_cuda_here(ctx);
        ctx->cuda = ctx->cuda_status == GI_OK ? GI__CUDA_READY : GI__CUDA_ABSENT;
    }
}

/* Waits until CUDA is started or has failed, starting it here if it was
 * not; returns the milliseconds waited. */
static double await_cuda(gi_context *ctx)
{
    double since = gi__now_ms();
    if (ctx->cuda == GI__CUDA_COLD) {
        ctx->start_began_ms = since;
        start_cuda_here(ctx);
    } else if (ctx->cuda == GI__CUDA_STARTING) {
        pthread_join(ctx->starter, NULL);
    } else {
        return 0;
    }
    ctx->cuda = ctx->cuda_status == GI_OK ? GI__CUDA_READY : GI__CUDA_ABSENT;
    return gi__now_ms() - since;
}

/* ---------------------------------------------------------------- settling */

/* Settles the backend: the one asked for, or under AUTO the hint's plan
 * (CUDA only when it said so), or without a hint CUDA when it is usable. */
static gi_status choose_backend(gi_context *ctx)
{
    if (gi__route_settles_on_cuda(ctx->requested, ctx->hinted, ctx->plan_says_cuda)) {
        ctx->startup_ms += await_cuda(ctx);
        if (ctx->cuda == GI__CUDA_READY) {
            ctx->ops = ctx->cuda_ops;
            ctx->state = ctx->cuda_state;
            return GI_OK;
        }
        if (ctx->requested == GI_DEVICE_CUDA)
            return gi__fail(ctx->cuda_status, "%s", ctx->cuda_why);
        snprintf(ctx->fallback_reason, sizeof ctx->fallback_reason, "%s", ctx->cuda_why);
    }
    return gi__context_cpu(ctx, &ctx->ops, &ctx->state);
}

gi_status gi__context_settle(gi_context *ctx)
{
    return ctx->ops ? GI_OK : choose_backend(ctx);
}

int gi__context_plans_cuda(const gi_context *ctx)
{
    if (ctx->ops) return ctx->ops == ctx->cuda_ops;
    return ctx->cuda != GI__CUDA_ABSENT &&
           gi__route_settles_on_cuda(ctx->requested, ctx->hinted, ctx->plan_says_cuda);
}

/* ---------------------------------------------------------------- AUTO */

/* AUTO's choice for `job` (route.h), from where this context stands. */
static gi__run route_job(gi_context *ctx, const gi__plan_job *job, double ready_in_ms,
                         int planned_ahead, gi__plan *plan)
{
    gi__plan_input in = {
        .job = *job,
        .images = ctx->images_left,
        .cpu_threads = gi__context_cpu_threads(ctx),
        .cuda = ctx->cuda,
        .since_start_ms = ctx->cuda == GI__CUDA_STARTING ? gi__now_ms() - ctx->start_began_ms : 0,
        .ready_in_ms = ready_in_ms,
        .pipelined = ctx->pipelined,
        .cpu_lanes = ctx->pipelined ? cpu_lanes_of(ctx) : 1,
        .planned_ahead = planned_ahead,
    };
    return gi__route_work(&in, gi__device_costs_default(), plan);
}

/* AUTO: the device the plan picks for this operation. CUDA starts (in the
 * background) once the plan says the images to come repay it; this image
 * waits for it only when CUDA would still finish first. */
static gi_status auto_backend_for(gi_context *ctx, const gi__plan_job *work,
                                  const gi__backend_ops **ops, void **state)
{
    gi__plan plan;
    if (!work) {
        int cuda = gi__route_unknown_work(ctx->cuda) == GI__RUN_CUDA;
        snprintf(ctx->last_choice, sizeof ctx->last_choice, "%s",
                 cuda ? "cuda: started already (no estimate for this work)"
                      : "cpu: no estimate for this work, and CUDA is not started");
        *ops = cuda ? ctx->cuda_ops : NULL;
        *state = cuda ? ctx->cuda_state : NULL;
        return cuda ? GI_OK : gi__context_cpu(ctx, ops, state);
    }
    const gi__run run = route_job(ctx, work, 0, ctx->hinted, &plan);
    snprintf(ctx->last_choice, sizeof ctx->last_choice, "%s%s%s", plan.reason,
             ctx->cuda == GI__CUDA_ABSENT ? ": " : "",
             ctx->cuda == GI__CUDA_ABSENT ? ctx->cuda_why : "");
    if (ctx->images_left > 1) ctx->images_left--;
    if (run == GI__RUN_CUDA) {
        ctx->startup_ms += await_cuda(ctx);
        if (ctx->cuda == GI__CUDA_READY) {
            *ops = ctx->cuda_ops;
            *state = ctx->cuda_state;
            return GI_OK;
        }
        snprintf(ctx->fallback_reason, sizeof ctx->fallback_reason, "%s", ctx->cuda_why);
        size_t n = strlen(ctx->last_choice);
        snprintf(ctx->last_choice + n, sizeof ctx->last_choice - n, "; on the CPU: %s",
                 ctx->cuda_why);
    } else if (run == GI__RUN_CPU_START_CUDA) {
        begin_cuda(ctx);
    }
    return gi__context_cpu(ctx, ops, state);
}

gi_status gi__context_backend_for(gi_context *ctx, const gi__plan_job *work,
                                  const gi__backend_ops **ops, void **state)
{
    if (ctx->requested == GI_DEVICE_AUTO) return auto_backend_for(ctx, work, ops, state);
    gi_status st = gi__context_settle(ctx);
    snprintf(ctx->last_choice, sizeof ctx->last_choice, "%s: the context's device",
             ctx->requested == GI_DEVICE_CUDA ? "cuda" : "cpu");
    *ops = ctx->ops;
    *state = ctx->state;
    return st;
}

void gi__context_note_host_copy(gi_context *ctx, double copy_ms)
{
    ctx->last_backend = "cpu";
    ctx->last_fallback[0] = '\0';
    ctx->last_times = (gi_op_times){.kernel_ms = copy_ms};
    snprintf(ctx->last_choice, sizeof ctx->last_choice,
             "cpu: a change of format alone runs no operation (the pixels copied)");
}

void gi__context_jpeg_route(const gi_context *ctx, gi__jpeg_route *route)
{
    const gi__route_engine engine = {
        .requested = ctx->requested,
        .cuda_planned = ctx->plan_says_cuda || ctx->cuda == GI__CUDA_READY,
        .cores = gi__context_cpu_threads(ctx), .lanes = 1, .pipelined = ctx->pipelined};
    gi__route_jpeg(&engine, route);
}

gi_status gi_context_plan_hint(gi_context *ctx, const gi_plan_hint *hint)
{
    GI__REFUSE_NULL(ctx, hint);
    if (hint->images < 1 || hint->width < 0 || hint->height < 0 || hint->channels < 0 ||
        hint->channels > 4 || !(hint->ready_in_ms >= 0))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "plan hint: images must be >= 1, sizes >= 0, "
                        "channels 0..4 and ready_in_ms >= 0");
    ctx->images_left = hint->images;
    ctx->pipelined = hint->pipelined != 0;
    if (!hint->width || !hint->height || !hint->channels) return GI_OK; /* plan per chain */
    GI__REFUSE_NULL(hint->steps);
    gi__plan_job job;
    gi_status st = gi__plan_job_of_hint(hint, &job);
    if (st != GI_OK) return st;
    gi__plan plan;
    ctx->hinted = 1;
    ctx->plan_says_cuda = route_job(ctx, &job, hint->ready_in_ms, 0, &plan) != GI__RUN_CPU;
    if (ctx->requested != GI_DEVICE_AUTO || !ctx->plan_says_cuda) return GI_OK;
    const gi__plan_step *first = &job.steps[0];
    ctx->pin_in = ctx->files_in ? 0 : (size_t)first->width * first->height * first->channels;
    ctx->pin_out = ctx->files_out ? 0 : (size_t)job.out_bytes;
    begin_cuda(ctx);
    return GI_OK;
}

/* ---------------------------------------------------------------- the context */

void gi_context_last_times(const gi_context *ctx, gi_op_times *times)
{
    if (!ctx || !times) return;
    *times = ctx->last_times;
}

int gi_cpu_threads_default(void)
{
    return gi__cpu_count();
}

/* gi_context_create, *out known to be there. */
static gi_status create_context(gi_context **out, const gi_context_options *opts)
{
    gi_context_options defaults;
    if (!opts) {
        gi_context_options_default(&defaults);
        opts = &defaults;
    }
    *out = NULL;
    if ((unsigned)opts->device > GI_DEVICE_CUDA || opts->cpu_threads < 0 || opts->gpu < 0 ||
        opts->gpu >= GI_MAX_GPUS)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "invalid context options");
    gi_status env = gi_check_environment();
    if (env != GI_OK) return env;
    gi_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate a context");
    ctx->requested = opts->device;
    ctx->cpu_threads = opts->cpu_threads;
    ctx->gpu = opts->gpu;
    ctx->images_left = 1;
    /* Asking whether CUDA was built in calls nothing of CUDA. */
    ctx->cuda = gi_cuda_compiled() ? GI__CUDA_COLD : GI__CUDA_ABSENT;
    ctx->cuda_status = GI_ERR_NO_DEVICE;
    snprintf(ctx->cuda_why, sizeof ctx->cuda_why, "built without CUDA");
    /* AUTO settles lazily, at the first operation that needs to know. */
    gi_status st = opts->device == GI_DEVICE_AUTO ? GI_OK : choose_backend(ctx);
    if (st != GI_OK) {
        gi_context_destroy(ctx);
        return st;
    }
    *out = ctx;
    return GI_OK;
}

gi_status gi_context_create(gi_context **ctx, const gi_context_options *opts)
{
    GI__REFUSE_NULL(ctx);
    return create_context(ctx, opts);
}

void gi_context_destroy(gi_context *ctx)
{
    if (!ctx) return;
    if (ctx->cuda == GI__CUDA_STARTING) pthread_join(ctx->starter, NULL);
    if (ctx->cuda_ops) ctx->cuda_ops->destroy(ctx->cuda_state);
    if (ctx->cpu_ops) ctx->cpu_ops->destroy(ctx->cpu_state);
    gi__axis_cache_free(&ctx->resize_axes);
    free(ctx);
}

const char *gi_context_backend(gi_context *ctx)
{
    return ctx && gi__context_settle(ctx) == GI_OK ? ctx->ops->name : "none";
}

const char *gi_context_fallback_reason(const gi_context *ctx)
{
    return ctx ? ctx->fallback_reason : "";
}

const char *gi_context_last_fallback(const gi_context *ctx)
{
    return ctx ? ctx->last_fallback : "";
}

const char *gi_context_last_backend(const gi_context *ctx)
{
    return ctx && ctx->last_backend ? ctx->last_backend : "";
}

const char *gi_context_last_choice(const gi_context *ctx)
{
    return ctx ? ctx->last_choice : "";
}

double gi_context_cuda_startup_ms(const gi_context *ctx)
{
    return ctx && ctx->cuda == GI__CUDA_READY ? ctx->cuda_startup_ms : 0;
}
