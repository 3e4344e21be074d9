/* Chains of steps (gi_apply) against the same steps run one at a time, on a
 * given context: shared by the unit test (CPU) and the gpu suite (CUDA). */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "steps_check.h"
#include "testimg.h"

static const double sharpen[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};

/* A random step; hist only where `hist_ok`. */
gi_op sc_random_step(int hist_ok)
{
    gi_op op;
    memset(&op, 0, sizeof op);
    static const gi_op_kind images[] = {GI_OP_BLUR,     GI_OP_SOBEL,  GI_OP_TRANSFORM,
                                        GI_OP_CONVOLVE, GI_OP_RESIZE, GI_OP_CROP};
    op.kind = hist_ok && th_rand_int(0, 4) == 0 ? GI_OP_HIST : images[th_rand_int(0, 5)];
    gi_border border = {(gi_border_mode)th_rand_int(0, 4), (uint8_t)th_rand_int(0, 255)};
    switch (op.kind) {
    case GI_OP_BLUR:
        gi_blur_params_default(&op.blur);
        op.blur.kernel = th_rand_int(0, 1) ? GI_BLUR_BOX : GI_BLUR_GAUSSIAN;
        op.blur.sigma = th_rand_double(0.3, 4);
        op.blur.radius = th_rand_int(-1, 9);
        op.blur.border = border;
        break;
    case GI_OP_SOBEL:
        gi_sobel_params_default(&op.sobel);
        op.sobel.scale = th_rand_double(0.2, 2);
        op.sobel.use_threshold = th_rand_int(0, 1);
        op.sobel.threshold = th_rand_double(10, 200);
        op.sobel.gray = th_rand_int(0, 1);
        op.sobel.border = border;
        break;
    case GI_OP_TRANSFORM: op.transform = (gi_transform)th_rand_int(0, GI_FLIP_V); break;
    case GI_OP_CONVOLVE:
        op.convolve = (gi_convolve_params){3, 3, sharpen, 0, border};
        break;
    case GI_OP_HIST: op.bins = th_rand_int(1, 256); break;
    case GI_OP_RESIZE:
        gi_resize_params_default(&op.resize);
        op.resize.scale = th_rand_double(0.3, 1.6);
        op.resize.filter = (gi_resize_filter)th_rand_int(0, GI_RESIZE_NEAREST);
        break;
    case GI_OP_CROP: /* from the top-left corner, so it fits any source */
        op.crop = (gi_crop_params){0, 0, th_rand_int(1, 40), th_rand_int(1, 40), th_rand_int(0, 1)};
        break;
    }
    return op;
}

/* The steps one at a time, each through the public one-operation call. */
static gi_status one_at_a_time(gi_context *ctx, const gi_image *src, const gi_op *steps, int n,
                               gi_image *out, gi_histogram *hist)
{
    gi_image cur = ti_copy(src);
    for (int i = 0; i < n; i++) {
        if (steps[i].kind == GI_OP_HIST) {
            gi_status st = gi_hist(ctx, &cur, steps[i].bins, hist);
            ti_free(&cur);
            return st;
        }
        int w, h, ch;
        gi_apply_size(&cur, &steps[i], 1, &w, &h, &ch);
        gi_image next = ti_blank(w, h, ch);
        gi_status st = gi_apply(ctx, &cur, &steps[i], 1, &next, NULL);
        ti_free(&cur);
        cur = next;
        if (st != GI_OK) {
            ti_free(&cur);
            return st;
        }
    }
    *out = cur;
    return GI_OK;
}

static int same_histogram(const gi_histogram *a, const gi_histogram *b)
{
    if (a->channels != b->channels || a->bins != b->bins) return 0;
    for (int c = 0; c < a->channels; c++)
        if (memcmp(a->counts[c], b->counts[c], sizeof(uint64_t) * (size_t)a->bins) != 0) return 0;
    return 1;
}

void sc_check_chain(gi_context *ctx, const char *what, const gi_image *src, const gi_op *steps,
                    int n)
{
    int w, h, ch;
    if (!th_check(gi_apply_size(src, steps, n, &w, &h, &ch) == GI_OK, "%s: size: %s", what,
                  gi_last_error()))
        return;
    int hist = steps[n - 1].kind == GI_OP_HIST;
    gi_image chained = ti_blank(w, h, ch), stepwise = {0};
    static gi_histogram hc, hs; /* 2 MiB each: not on the stack */
    memset(&hc, 0xA5, sizeof hc); /* poisoned: every count must be written */
    memset(&hs, 0, sizeof hs);
    gi_status a = gi_apply(ctx, src, steps, n, hist ? NULL : &chained, hist ? &hc : NULL);
    gi_status b = one_at_a_time(ctx, src, steps, n, &stepwise, &hs);
    char why[256] = "";
    if (th_check(a == GI_OK && b == GI_OK, "%s: chain %d (%s), steps %d", what, (int)a,
                 gi_last_error(), (int)b)) {
        if (hist)
            th_check(same_histogram(&hc, &hs), "%s: histograms differ", what);
        else
            th_check(ti_same(&chained, &stepwise, why, sizeof why) && ti_padding_intact(&chained),
                     "%s: %s", what, why);
    }
    ti_free(&chained);
    if (!hist && b == GI_OK) ti_free(&stepwise);
}
