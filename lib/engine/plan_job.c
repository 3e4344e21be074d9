/* A chain, or a hinted one, as the cost model (device_plan.c) sees it:
 * each step's kind, taps and source size, and the bytes of the result. */
#include "base/gi_error.h"
#include "base/op_size.h"
#include "plan_job.h"

static int taps_of(const gi__op_call *c)
{
    return c->kind == GI_OP_BLUR       ? 2 * c->radius + 1
           : c->kind == GI_OP_CONVOLVE ? c->mask->width * c->mask->height
           : c->kind == GI_OP_RESIZE   ? c->axis_x->taps + c->axis_y->taps
                                       : 1;
}

gi__plan_job gi__plan_job_of_chain(const gi__chain *chain)
{
    gi__plan_job j = {.n = chain->n};
    for (int i = 0; i < chain->n; i++) {
        const gi__op_call *c = &chain->steps[i];
        j.steps[i] = (gi__plan_step){c->kind, taps_of(c), c->src->width, c->src->height,
                                     c->src->channels};
    }
    /* what comes back: the counts as the CUDA backend downloads them
     * ([4][256] at 8 bits, [channels][bins] at 16), or the pixels */
    const gi__op_call *last = &chain->steps[chain->n - 1];
    const int wide = last->src->depth == 16;
    j.out_bytes = last->kind != GI_OP_HIST ? (double)last->dst->width * last->dst->height *
                                                 last->dst->channels * (wide ? 2 : 1)
                  : wide ? 8.0 * last->src->channels * last->bins
                         : 8.0 * 4 * 256;
    return j;
}

/* The hinted chain on an image of the hinted size, as the plan sees it;
 * fails for a hint the library would refuse to run. A source of pixels:
 * the JPEG fields are 0. (They were left as the caller's stack had them:
 * a batch's later lanes planned "CUDA -2e152 ms" from a JPEG field's
 * garbage and started CUDA for a folder their plan kept on the CPU; on
 * the H200 machine the mixed folder went through CUDA in 2 of 12 runs,
 * 0.85-0.92 s against 0.72-0.85.) */
gi_status gi__plan_job_of_hint(const gi_plan_hint *h, gi__plan_job *j)
{
    *j = (gi__plan_job){0};
    int w, h_out, ch;
    gi_image size = {.width = h->width, .height = h->height, .channels = h->channels};
    gi_status st = gi__chain_size(&size, h->steps, h->n_steps, 0, &w, &h_out, &ch);
    if (st != GI_OK) return st;
    j->n = h->n_steps;
    for (int i = 0; i < h->n_steps; i++) {
        const gi_op *op = &h->steps[i];
        int taps = 1;
        if (op->kind == GI_OP_BLUR) {
            int radius = gi_blur_radius(&op->blur);
            if (radius < 0 || radius > GI_BLUR_MAX_RADIUS)
                return gi__fail(GI_ERR_INVALID_ARGUMENT, "plan hint: step %d: blur radius out of "
                                "range", i + 1);
            taps = 2 * radius + 1;
        }
        if (op->kind == GI_OP_CONVOLVE) taps = op->convolve.width * op->convolve.height;
        j->steps[i] = (gi__plan_step){op->kind, taps, size.width, size.height, size.channels};
        gi__op_output_size(op, &size, &w, &h_out, &ch);
        size.width = w;
        size.height = h_out;
        size.channels = ch;
    }
    j->out_bytes = h->steps[h->n_steps - 1].kind == GI_OP_HIST
                       ? 8.0 * 4 * 256
                       : (double)size.width * size.height * size.channels;
    return GI_OK;
}
