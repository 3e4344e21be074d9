/* Benchmark entry points: resolve the operation as a real call would, then
 * let the backend time it where its data lives. */
#include <stdlib.h>

#include "engine/context.h"
#include "base/gi_error.h"
#include "base/op_size.h"
#include "engine/ops.h"

static gi_status check_reps(int warmup, int reps)
{
    if (warmup < 0 || reps < 1 || reps > 100000)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "benchmark repetitions must be 1..100000");
    return GI_OK;
}

gi_status gi_bench_op(gi_context *ctx, const gi_image *src, const gi_op *op, int warmup, int reps,
                      double *median_ms)
{
    gi_status st = check_reps(warmup, reps);
    if (st != GI_OK) return st;
    gi_image dst = {0};
    gi_histogram *hist = NULL;
    if (op->kind == GI_OP_HIST) {
        hist = malloc(sizeof *hist);
        if (!hist) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate a histogram");
    } else {
        int w, h, ch;
        gi__op_output_size(op, src, &w, &h, &ch);
        st = gi_image_alloc(&dst, w, h, ch);
    }
    gi__resolved_op r;
    if (st == GI_OK) st = gi__context_settle(ctx);
    if (st == GI_OK) st = gi__resolve_op(op, src, &dst, hist, &r);
    if (st == GI_OK) {
        st = ctx->ops->time_op(ctx->state, &r.call, warmup, reps, median_ms);
        gi__release_op(&r);
    }
    gi_image_free(&dst);
    free(hist);
    return st;
}

gi_status gi_bench_copy(gi_context *ctx, double *gbytes_per_s)
{
    gi_status st = gi__context_settle(ctx);
    return st == GI_OK ? ctx->ops->copy_bandwidth(ctx->state, gbytes_per_s) : st;
}

gi_status gi_bench_paper(gi_context *ctx, int n, gi_paper_variant variant, int warmup, int reps,
                         double *median_ms, double *max_error)
{
    gi_status st = check_reps(warmup, reps);
    if (st != GI_OK) return st;
    if (n < 5 || n > 32768)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "paper matrix size %d: must be 5..32768", n);
    if ((unsigned)variant > GI_PAPER_GPU_TILED)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "unknown paper variant %d", (int)variant);
    st = gi__context_settle(ctx);
    return st == GI_OK ? ctx->ops->paper(ctx->state, n, variant, warmup, reps, median_ms, max_error)
                       : st;
}
