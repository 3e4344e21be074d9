/* Context creation: backend selection with the AUTO fallback to the CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "context.h"
#include "gi_error.h"

void gi_context_options_default(gi_context_options *opts)
{
    opts->device = GI_DEVICE_AUTO;
    opts->cpu_threads = 0;
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

/* Settles the backend: CUDA (failing under GI_DEVICE_CUDA, falling back
 * to the CPU under AUTO, with the reason kept) or the CPU. */
static gi_status choose_backend(gi_context *ctx)
{
    if (ctx->requested != GI_DEVICE_CPU) {
        double start = gi__now_ms();
        gi_status st = gi__cuda_backend_create(&ctx->ops, &ctx->state);
        ctx->startup_ms = gi__now_ms() - start;
        if (st == GI_OK || ctx->requested == GI_DEVICE_CUDA) return st;
        snprintf(ctx->fallback_reason, sizeof ctx->fallback_reason, "%s", gi_last_error());
    }
    return gi__context_cpu(ctx, &ctx->ops, &ctx->state);
}

gi_status gi__context_settle(gi_context *ctx)
{
    return ctx->ops ? GI_OK : choose_backend(ctx);
}

gi_status gi__context_backend_for(gi_context *ctx, const gi_image *src,
                                  const gi__backend_ops **ops, void **state)
{
    /* Under AUTO, CUDA start-up (a few hundred ms) is paid only once an
     * image is large enough to repay it; until then the CPU runs. */
    int small = (uint64_t)src->width * (uint64_t)src->height < GI_AUTO_CUDA_MIN_PIXELS;
    if (!ctx->ops && ctx->requested == GI_DEVICE_AUTO && small)
        return gi__context_cpu(ctx, ops, state);
    gi_status st = gi__context_settle(ctx);
    *ops = ctx->ops;
    *state = ctx->state;
    return st;
}

void gi_context_last_times(const gi_context *ctx, gi_op_times *times)
{
    *times = ctx->last_times;
}

gi_status gi_context_create(gi_context **out, const gi_context_options *opts)
{
    gi_context_options defaults;
    if (!opts) {
        gi_context_options_default(&defaults);
        opts = &defaults;
    }
    *out = NULL;
    if ((unsigned)opts->device > GI_DEVICE_CUDA || opts->cpu_threads < 0)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "invalid context options");
    gi_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate a context");
    ctx->requested = opts->device;
    ctx->cpu_threads = opts->cpu_threads;
    /* AUTO settles lazily, at the first operation that needs to know. */
    gi_status st = opts->device == GI_DEVICE_AUTO ? GI_OK : choose_backend(ctx);
    if (st != GI_OK) {
        gi_context_destroy(ctx);
        return st;
    }
    *out = ctx;
    return GI_OK;
}

void gi_context_destroy(gi_context *ctx)
{
    if (!ctx) return;
    if (ctx->ops && ctx->ops != ctx->cpu_ops) ctx->ops->destroy(ctx->state);
    if (ctx->cpu_ops) ctx->cpu_ops->destroy(ctx->cpu_state);
    free(ctx);
}

const char *gi_context_backend(gi_context *ctx)
{
    return gi__context_settle(ctx) == GI_OK ? ctx->ops->name : "none";
}

const char *gi_context_fallback_reason(const gi_context *ctx)
{
    return ctx->fallback_reason;
}

const char *gi_context_last_fallback(const gi_context *ctx)
{
    return ctx->last_fallback;
}

const char *gi_context_last_backend(const gi_context *ctx)
{
    return ctx->last_backend ? ctx->last_backend : "";
}
