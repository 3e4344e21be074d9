/* gpuimg serve's JOB payload carries each step as the table of operation
 * parameters lists it: a chain of every operation, each parameter set to
 * a value other than its default, comes back from the decoder exactly;
 * a value outside the table's rule is refused, naming the parameter. */
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "serve/request.h"

static const double mask[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};

/* A value of p's rule that is not its default. */
static double other_value(const gi_op_param *p)
{
    switch (p->type) {
    case GI_PARAM_DOUBLE: return isfinite(p->min) ? p->min + 0.75 : -2.5;
    case GI_PARAM_INT: return p->default_value == p->max ? p->min : p->max;
    case GI_PARAM_CHOICE: return p->default_value == 0 ? 1 : 0;
    default: return p->default_value == 0 ? 1 : 0;
    }
}

static int make_chain(gi_op *steps)
{
    const gi_op_kind kinds[] = {GI_OP_BLUR, GI_OP_SOBEL, GI_OP_TRANSFORM, GI_OP_CONVOLVE,
                                GI_OP_RESIZE, GI_OP_CROP, GI_OP_HIST};
    int n = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++, n++) {
        gi_op_default(kinds[k], &steps[n]);
        int count;
        const gi_op_param *p = gi_op_params(kinds[k], &count);
        for (int i = 0; i < count; i++) {
            char *at = (char *)&steps[n] + p[i].offset;
            if (p[i].type == GI_PARAM_BORDER) {
                *(gi_border *)at = (gi_border){GI_BORDER_WRAP, 7};
            } else if (p[i].type == GI_PARAM_MASK) {
                *(gi_convolve_params *)at = (gi_convolve_params){3, 3, mask, 0, {0, 0}};
            } else {
                th_check(gi_op_param_set(&p[i], other_value(&p[i]), "", &steps[n]) == GI_OK,
                         "%s: %s", p[i].name, gi_last_error());
            }
        }
    }
    return n;
}

static gi_status round_trip(const gi_op *steps, int n, gi__serve_job *job)
{
    gi_batch_options o;
    gi_batch_options_default(&o);
    o.job.steps = steps;
    o.job.n_steps = n;
    gi__serve_item item = {"in.png", "out.png", NULL, "out.png", 0, 0, 1, -1};
    gi__put w = {0};
    th_check(gi__serve_job_encode("pipe", "a build", &o, &item, 1, &w) == 0, "encode failed");
    gi_status st = gi__serve_job_decode(w.data, w.size, 2, job);
    free(w.data);
    return st;
}

static void check_same_steps(void)
{
    gi_op steps[GI_MAX_STEPS];
    int n = make_chain(steps);
    gi__serve_job job;
    gi_status st = round_trip(steps, n, &job);
    th_check(st == GI_OK, "the chain was refused: %s", gi_last_error());
    if (st != GI_OK) return;
    for (int s = 0; s < n; s++) {
        const gi_op *got = &job.opts.job.steps[s];
        th_check(got->kind == steps[s].kind, "step %d: kind %d", s, (int)got->kind);
        int count;
        const gi_op_param *p = gi_op_params(steps[s].kind, &count);
        for (int i = 0; i < count; i++) {
            if (p[i].type == GI_PARAM_BORDER) {
                const gi_border *b = (const gi_border *)((const char *)got + p[i].offset);
                th_check(b->mode == GI_BORDER_WRAP && b->value == 7, "step %d: border", s);
            } else if (p[i].type == GI_PARAM_MASK) {
                const gi_convolve_params *c = &got->convolve;
                th_check(c->width == 3 && c->height == 3 && memcmp(c->mask, mask, sizeof mask) == 0,
                         "step %d: mask", s);
            } else {
                th_check(gi_op_param_get(&p[i], got) == gi_op_param_get(&p[i], &steps[s]),
                         "step %d: %s is %g, sent %g", s, p[i].name, gi_op_param_get(&p[i], got),
                         gi_op_param_get(&p[i], &steps[s]));
            }
            if (p[i].given_offset)
                th_check(*(const int *)((const char *)got + p[i].given_offset) == 1,
                         "step %d: %s no longer given", s, p[i].name);
        }
    }
    gi__serve_job_free(&job);
}

static void check_refused(void)
{
    gi_op step;
    gi_op_default(GI_OP_BLUR, &step);
    step.blur.sigma = 0;
    gi__serve_job job;
    th_check(round_trip(&step, 1, &job) == GI_ERR_INVALID_ARGUMENT &&
                 strcmp(gi_last_error(), "malformed job: sigma") == 0,
             "sigma 0 decoded: '%s'", gi_last_error());
    gi_op_default(GI_OP_HIST, &step);
    step.bins = GI_HIST_MAX_BINS + 1;
    th_check(round_trip(&step, 1, &job) == GI_ERR_INVALID_ARGUMENT &&
                 strcmp(gi_last_error(), "malformed job: bins") == 0,
             "too many bins decoded: '%s'", gi_last_error());
}

/* The encoder's settings arrive as they were given. */
static void check_save_settings(void)
{
    gi_op step;
    gi_op_default(GI_OP_BLUR, &step);
    gi_batch_options o;
    gi_batch_options_default(&o);
    o.job.steps = &step;
    o.job.n_steps = 1;
    o.job.save = (gi_save_options){.format = GI_FORMAT_TIFF, .jpeg_quality = 55, .png_level = 7,
                                   .png_filter = GI_PNG_FILTER_PAETH, .depth = 16,
                                   .tiff_compression = GI_TIFF_UNCOMPRESSED};
    gi__serve_item item = {"in.png", "out.tif", NULL, "out.tif", 0, 0, 1, -1};
    gi__put w = {0};
    th_check(gi__serve_job_encode("blur", "a build", &o, &item, 1, &w) == 0, "encode failed");
    gi__serve_job job;
    if (th_check(gi__serve_job_decode(w.data, w.size, 2, &job) == GI_OK, "decode: %s",
                 gi_last_error())) {
        const gi_save_options *s = &job.opts.job.save;
        th_check(s->format == GI_FORMAT_TIFF && s->jpeg_quality == 55 && s->png_level == 7 &&
                     s->png_filter == GI_PNG_FILTER_PAETH && s->depth == 16 &&
                     s->tiff_compression == GI_TIFF_UNCOMPRESSED,
                 "save settings changed on the way");
        gi__serve_job_free(&job);
    }
    free(w.data);
}

int main(void)
{
    check_same_steps();
    check_refused();
    check_save_settings();
    return th_finish();
}
