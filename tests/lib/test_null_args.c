/* gpuimg.h's rule for NULL POINTERS: every function the header declares,
 * called with each of its pointer arguments NULL in turn (and each pointer
 * member it reads), the others valid. Where NULL is refused, the status is
 * GI_ERR_INVALID_ARGUMENT and the message names the function and the
 * argument as the header does; where NULL is fine, or the function has no
 * status to refuse with, it returns its documented answer. Nothing
 * crashes. argv[1] is gpuimg.h: every function it declares must have been
 * called here, so a new function comes with its NULL checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "testimg.h"

/* ---------------------------------------------------------------- calls */

#define MAX_NAMES 256
static const char *called[MAX_NAMES];
static int n_called;

static void saw(const char *function)
{
    for (int i = 0; i < n_called; i++)
        if (strcmp(called[i], function) == 0) return;
    if (n_called < MAX_NAMES) called[n_called++] = function;
}

/* A call with `argument` NULL, refused as gpuimg.h says. */
static void refused(const char *function, const char *argument, gi_status st)
{
    char want[160];
    saw(function);
    snprintf(want, sizeof want, "%s: %s is NULL", function, argument);
    th_check(st == GI_ERR_INVALID_ARGUMENT && strcmp(gi_last_error(), want) == 0,
             "%s with %s NULL: status %d (%s), \"%s\"; want GI_ERR_INVALID_ARGUMENT, \"%s\"",
             function, argument, (int)st, gi_strerror(st), gi_last_error(), want);
}

/* A call with a NULL the header allows there: the status it gives, which
 * is never the refusal. */
static void allowed(const char *function, const char *argument, gi_status st, gi_status want)
{
    saw(function);
    th_check(st == want, "%s with %s NULL: status %d (%s), \"%s\"; want %d (%s)", function,
             argument, (int)st, gi_strerror(st), gi_last_error(), (int)want, gi_strerror(want));
}

#define REFUSED(fn, argument, ...) refused(#fn, argument, fn(__VA_ARGS__))
#define ALLOWED(want, fn, argument, ...) allowed(#fn, argument, fn(__VA_ARGS__), want)
/* A function without a status: called, its answer (if any) for the caller. */
#define CALLED(fn, ...) (saw(#fn), fn(__VA_ARGS__))

/* ---------------------------------------------------------------- fixtures */

static gi_context *ctx;
static gi_image src, dst;
static char dir[64], png_path[96], out_path[96];
static uint8_t *png_bytes;
static size_t png_size;
static gi_histogram hist; /* 2 MiB: not on the stack */

static void make_fixtures(void)
{
    ctx = ti_cpu_context(1);
    src = ti_random(6, 4, 3);
    dst = ti_blank(6, 4, 3);
    snprintf(dir, sizeof dir, "/tmp/gpuimg-null-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
    snprintf(png_path, sizeof png_path, "%s/in.png", dir);
    snprintf(out_path, sizeof out_path, "%s/out.png", dir);
    gi_save_options o;
    gi_save_options_default(&o);
    o.format = GI_FORMAT_PNG;
    if (gi_encode(&src, &o, &png_bytes, &png_size) != GI_OK ||
        gi_write_file_atomic(png_path, png_bytes, png_size) != GI_OK) {
        fprintf(stderr, "cannot write %s: %s\n", png_path, gi_last_error());
        exit(1);
    }
}

static void remove_fixtures(void)
{
    unlink(png_path);
    unlink(out_path);
    rmdir(dir);
    gi_free(png_bytes);
    ti_free(&src);
    ti_free(&dst);
    gi_context_destroy(ctx);
}

/* ---------------------------------------------------------------- by part of gpuimg.h */

static void status_and_images(void)
{
    CALLED(gi_strerror, GI_OK);
    CALLED(gi_last_error);
    th_check(CALLED(gi_quote_name, NULL) == NULL, "gi_quote_name(NULL) is not NULL");
    CALLED(gi_free, NULL);
    CALLED(gi_check_environment);
    REFUSED(gi_image_alloc, "img", NULL, 2, 2, 1);
    REFUSED(gi_image_alloc_depth, "img", NULL, 2, 2, 1, 16);
    th_check(CALLED(gi_image_sample_bytes, NULL) == 0, "gi_image_sample_bytes(NULL) is not 0");
    CALLED(gi_image_free, NULL);
    gi_image copy = ti_blank(6, 4, 3);
    REFUSED(gi_convert_depth, "src", NULL, &copy);
    REFUSED(gi_convert_depth, "dst", &src, NULL);
    ti_free(&copy);
}

static void files(void)
{
    gi_image img = {0};
    gi_metadata meta = {0};
    gi_load_limits limits;
    CALLED(gi_last_codec);
    CALLED(gi_load_limits_default, NULL);
    gi_load_limits_default(&limits);
    REFUSED(gi_load_memory, "img", NULL, png_bytes, png_size, "x", &limits);
    REFUSED(gi_load_memory, "bytes", &img, NULL, 1, "x", &limits);
    ALLOWED(GI_ERR_DECODE, gi_load_memory, "bytes of size 0", &img, NULL, 0, "x", &limits);
    ALLOWED(GI_OK, gi_load_memory, "name and limits", &img, png_bytes, png_size, NULL, NULL);
    gi_image_free(&img);
    REFUSED(gi_load_file, "img", NULL, png_path, NULL);
    REFUSED(gi_load_file, "path", &img, NULL, NULL);
    REFUSED(gi_load_file_with_metadata, "img", NULL, png_path, NULL, &meta);
    REFUSED(gi_load_file_with_metadata, "path", &img, NULL, NULL, &meta);
    ALLOWED(GI_OK, gi_load_file_with_metadata, "meta", &img, png_path, NULL, NULL);
    gi_image_free(&img);

    gi_reader *reader = NULL;
    REFUSED(gi_reader_open, "reader", NULL, png_path, NULL);
    REFUSED(gi_reader_open, "path", &reader, NULL, NULL);
    ALLOWED(GI_OK, gi_reader_open, "limits", &reader, png_path, NULL);
    REFUSED(gi_reader_next, "reader", NULL, &img);
    REFUSED(gi_reader_next, "img", reader, NULL);
    REFUSED(gi_reader_next_with_metadata, "reader", NULL, &img, &meta);
    REFUSED(gi_reader_next_with_metadata, "img", reader, NULL, &meta);
    ALLOWED(GI_OK, gi_reader_next_with_metadata, "meta", reader, &img, NULL);
    gi_image_free(&img);
    th_check(CALLED(gi_reader_count, NULL) == 0, "gi_reader_count(NULL) is not 0");
    CALLED(gi_reader_close, NULL);
    gi_reader_close(reader);

    gi_save_options o;
    CALLED(gi_save_options_default, NULL);
    gi_save_options_default(&o);
    o.format = GI_FORMAT_PNG;
    CALLED(gi_png_deflate_is_libdeflate);
    th_check(CALLED(gi_format_from_path, NULL) == GI_FORMAT_AUTO,
             "gi_format_from_path(NULL) is not GI_FORMAT_AUTO");
    uint8_t *bytes;
    size_t size;
    REFUSED(gi_encode, "img", NULL, &o, &bytes, &size);
    REFUSED(gi_encode, "opts", &src, NULL, &bytes, &size);
    REFUSED(gi_encode, "bytes", &src, &o, NULL, &size);
    REFUSED(gi_encode, "size", &src, &o, &bytes, NULL);
    REFUSED(gi_save_file, "img", NULL, out_path, &o);
    REFUSED(gi_save_file, "path", &src, NULL, &o);
    ALLOWED(GI_OK, gi_save_file, "opts", &src, out_path, NULL);

    gi_output *out = NULL;
    REFUSED(gi_output_open, "out", NULL, out_path);
    REFUSED(gi_output_open, "path", &out, NULL);
    if (th_check(gi_output_open(&out, out_path) == GI_OK, "gi_output_open: %s", gi_last_error())) {
        REFUSED(gi_output_image, "out", NULL, &src, &o);
        REFUSED(gi_output_image, "img", out, NULL, &o);
        ALLOWED(GI_OK, gi_output_image, "opts", out, &src, NULL);
        gi_output_close(out, 0);
    }
    ALLOWED(GI_OK, gi_output_close, "out", NULL, 1);
    REFUSED(gi_write_file_atomic, "path", NULL, "x", 1);
    REFUSED(gi_write_file_atomic, "bytes", out_path, NULL, 1);
    ALLOWED(GI_OK, gi_write_file_atomic, "bytes of size 0", out_path, NULL, 0);
}

static void borders_and_contexts(void)
{
    gi_border_mode mode;
    CALLED(gi_border_index, -1, 4, GI_BORDER_MIRROR);
    th_check(CALLED(gi_border_parse, NULL, &mode) == -1, "gi_border_parse(NULL, mode) is not -1");
    th_check(CALLED(gi_border_parse, "wrap", NULL) == -1, "gi_border_parse(name, NULL) is not -1");
    CALLED(gi_border_name, GI_BORDER_WRAP);
    CALLED(gi_border_pattern, GI_BORDER_WRAP);
    CALLED(gi_cpu_threads_default);
    CALLED(gi_context_options_default, NULL);

    gi_context *c = NULL;
    REFUSED(gi_context_create, "ctx", NULL, NULL);
    ALLOWED(GI_OK, gi_context_create, "opts", &c, NULL);
    gi_context_destroy(c);
    CALLED(gi_context_destroy, NULL);
    th_check(strcmp(CALLED(gi_context_backend, NULL), "none") == 0,
             "gi_context_backend(NULL) is not \"none\"");
    const char *(*const texts[])(const gi_context *) = {
        gi_context_last_choice, gi_context_fallback_reason, gi_context_last_backend,
        gi_context_last_fallback};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        th_check(strcmp(texts[i](NULL), "") == 0, "a context's text of NULL is not \"\"");
    saw("gi_context_last_choice");
    saw("gi_context_fallback_reason");
    saw("gi_context_last_backend");
    saw("gi_context_last_fallback");
    th_check(CALLED(gi_context_cuda_startup_ms, NULL) == 0, "gi_context_cuda_startup_ms(NULL)");
    gi_op_times times;
    CALLED(gi_context_last_times, NULL, &times);
    CALLED(gi_context_last_times, ctx, NULL);

    CALLED(gi_cuda_compiled);
    CALLED(gi_cuda_device_count, NULL);
    REFUSED(gi_cuda_device_info, "info", 0, 0, NULL);
    gi_gpus gpus;
    REFUSED(gi_gpus_parse, "text", NULL, &gpus);
    REFUSED(gi_gpus_parse, "out", "0", NULL);
    gi_gpus_parse("all", &gpus);
    REFUSED(gi_gpus_resolve, "chosen", NULL, &gpus);
    REFUSED(gi_gpus_resolve, "out", &gpus, NULL);
}

/* The operations with the (ctx, src, dst, p) form. */
#define EACH_OF_FOUR(fn, p)                                                                       \
    do {                                                                                          \
        REFUSED(fn, "ctx", NULL, &src, &dst, p);                                                  \
        REFUSED(fn, "src", ctx, NULL, &dst, p);                                                   \
        REFUSED(fn, "dst", ctx, &src, NULL, p);                                                   \
        REFUSED(fn, "p", ctx, &src, &dst, NULL);                                                  \
    } while (0)

static void filters(void)
{
    gi_blur_params bp;
    CALLED(gi_blur_params_default, NULL);
    gi_blur_params_default(&bp);
    th_check(CALLED(gi_blur_radius, NULL) == -1, "gi_blur_radius(NULL) is not -1");
    int32_t weights[2 * GI_BLUR_MAX_RADIUS + 1];
    REFUSED(gi_blur_weights, "p", NULL, weights);
    REFUSED(gi_blur_weights, "weights", &bp, NULL);
    EACH_OF_FOUR(gi_blur, &bp);

    gi_sobel_params sp;
    int w, h, ch;
    CALLED(gi_sobel_params_default, NULL);
    gi_sobel_params_default(&sp);
    CALLED(gi_sobel_size, NULL, &sp, &w, &h, &ch);
    CALLED(gi_sobel_size, &src, NULL, &w, &h, &ch);
    CALLED(gi_sobel_size, &src, &sp, NULL, &h, &ch);
    CALLED(gi_sobel_size, &src, &sp, &w, NULL, &ch);
    CALLED(gi_sobel_size, &src, &sp, &w, &h, NULL);
    EACH_OF_FOUR(gi_sobel, &sp);

    const double one = 1;
    gi_convolve_params cp = {1, 1, &one, 0, {GI_BORDER_MIRROR, 0}};
    gi_convolve_params no_mask = {1, 1, NULL, 0, {GI_BORDER_MIRROR, 0}};
    gi_convolve_weights cw;
    REFUSED(gi_convolve_quantize, "p", NULL, &cw);
    REFUSED(gi_convolve_quantize, "out", &cp, NULL);
    REFUSED(gi_convolve_quantize, "p->mask", &no_mask, &cw);
    REFUSED(gi_convolve_quantize_depth, "p", NULL, 16, &cw);
    REFUSED(gi_convolve_quantize_depth, "out", &cp, 16, NULL);
    REFUSED(gi_convolve_quantize_depth, "p->mask", &no_mask, 16, &cw);
    EACH_OF_FOUR(gi_convolve, &cp);
    REFUSED(gi_convolve, "p->mask", ctx, &src, &dst, &no_mask);
}

static void geometry(void)
{
    int w, h, x0, y0;
    CALLED(gi_transform_size, NULL, GI_ROTATE_90, &w, &h);
    CALLED(gi_transform_size, &src, GI_ROTATE_90, NULL, &h);
    CALLED(gi_transform_size, &src, GI_ROTATE_90, &w, NULL);
    REFUSED(gi_transform_image, "ctx", NULL, &src, &dst, GI_FLIP_H);
    REFUSED(gi_transform_image, "src", ctx, NULL, &dst, GI_FLIP_H);
    REFUSED(gi_transform_image, "dst", ctx, &src, NULL, GI_FLIP_H);

    gi_resize_params rp;
    gi_resize_filter filter;
    CALLED(gi_resize_params_default, NULL);
    gi_resize_params_default(&rp);
    rp.width = 6;
    CALLED(gi_resize_size, NULL, &rp, &w, &h);
    CALLED(gi_resize_size, &src, NULL, &w, &h);
    CALLED(gi_resize_size, &src, &rp, NULL, &h);
    CALLED(gi_resize_size, &src, &rp, &w, NULL);
    th_check(CALLED(gi_resize_filter_parse, NULL, &filter) == -1, "gi_resize_filter_parse(NULL, f)");
    th_check(CALLED(gi_resize_filter_parse, "area", NULL) == -1, "gi_resize_filter_parse(s, NULL)");
    REFUSED(gi_resize_axis_weights, "axis", 4, 2, GI_RESIZE_LINEAR, NULL);
    CALLED(gi_resize_axis_free, NULL);
    EACH_OF_FOUR(gi_resize, &rp);

    gi_crop_params cp = {0, 0, 0, 0, 0};
    CALLED(gi_crop_rect, NULL, &cp, &x0, &y0, &w, &h);
    CALLED(gi_crop_rect, &src, NULL, &x0, &y0, &w, &h);
    CALLED(gi_crop_rect, &src, &cp, NULL, &y0, &w, &h);
    CALLED(gi_crop_rect, &src, &cp, &x0, NULL, &w, &h);
    CALLED(gi_crop_rect, &src, &cp, &x0, &y0, NULL, &h);
    CALLED(gi_crop_rect, &src, &cp, &x0, &y0, &w, NULL);
    EACH_OF_FOUR(gi_crop, &cp);
}

static void metadata(void)
{
    gi_metadata meta = {0};
    REFUSED(gi_metadata_read, "out", png_bytes, png_size, NULL);
    REFUSED(gi_metadata_read, "bytes", NULL, 1, &meta);
    ALLOWED(GI_OK, gi_metadata_read, "bytes of size 0", NULL, 0, &meta);
    CALLED(gi_metadata_free, NULL);
    th_check(CALLED(gi_metadata_empty, NULL) == 1, "gi_metadata_empty(NULL) is not 1");
    REFUSED(gi_metadata_set_orientation, "m", NULL, 1);
    th_check(CALLED(gi_orientation_steps, 6, NULL) == 0, "gi_orientation_steps(6, NULL) is not 0");
    gi_image img = ti_random(3, 2, 3);
    REFUSED(gi_orient_image, "ctx", NULL, &img, 6);
    REFUSED(gi_orient_image, "img", ctx, NULL, 6);
    ti_free(&img);
    uint8_t *out;
    size_t size;
    REFUSED(gi_metadata_embed, "encoded", NULL, 1, GI_FORMAT_PNG, &meta, &out, &size);
    REFUSED(gi_metadata_embed, "m", png_bytes, png_size, GI_FORMAT_PNG, NULL, &out, &size);
    REFUSED(gi_metadata_embed, "out", png_bytes, png_size, GI_FORMAT_PNG, &meta, NULL, &size);
    REFUSED(gi_metadata_embed, "out_size", png_bytes, png_size, GI_FORMAT_PNG, &meta, &out, NULL);
    char why[64] = "x";
    th_check(CALLED(gi_metadata_unwritable, NULL, GI_FORMAT_PNM, why, sizeof why) == 0 && !why[0],
             "gi_metadata_unwritable(NULL, ...) is not 0 with no reason");
    th_check(CALLED(gi_metadata_unwritable, &meta, GI_FORMAT_JPEG, NULL, 0) == 0,
             "gi_metadata_unwritable(empty, JPEG, NULL, 0) is not 0");
    gi_metadata_free(&meta);
}

static void counts_and_comparing(void)
{
    static uint64_t counts[65536];
    gi_channel_stats stats;
    REFUSED(gi_hist, "ctx", NULL, &src, 16, &hist);
    REFUSED(gi_hist, "src", ctx, NULL, 16, &hist);
    REFUSED(gi_hist, "out", ctx, &src, 16, NULL);
    CALLED(gi_hist_stats, NULL, &stats);
    CALLED(gi_hist_stats, counts, NULL);
    CALLED(gi_hist_stats16, NULL, &stats);
    CALLED(gi_hist_stats16, counts, NULL);

    gi_compare_result result;
    CALLED(gi_compare_params_default, NULL);
    REFUSED(gi_compare, "ctx", NULL, &src, &src, NULL, &result);
    REFUSED(gi_compare, "expected", ctx, NULL, &src, NULL, &result);
    REFUSED(gi_compare, "actual", ctx, &src, NULL, NULL, &result);
    REFUSED(gi_compare, "result", ctx, &src, &src, NULL, NULL);
    ALLOWED(GI_OK, gi_compare, "p", ctx, &src, &src, NULL, &result);

    gi_compare_files_options fo;
    gi_file_pair pair = {.expected = png_path, .actual = png_path};
    CALLED(gi_compare_files_options_default, NULL);
    gi_compare_files_options_default(&fo);
    REFUSED(gi_compare_files, "opts", NULL, &pair, 1);
    REFUSED(gi_compare_files, "pairs", &fo, NULL, 1);
    ALLOWED(GI_OK, gi_compare_files, "pairs of count 0", &fo, NULL, 0);
}

static void parameters(void)
{
    gi_op op;
    int n;
    th_check(CALLED(gi_op_params, GI_OP_BLUR, NULL) == NULL, "gi_op_params(kind, NULL)");
    th_check(CALLED(gi_op_param_find, GI_OP_BLUR, NULL) == NULL, "gi_op_param_find(kind, NULL)");
    CALLED(gi_op_default, GI_OP_BLUR, NULL);
    gi_op_default(GI_OP_BLUR, &op);
    const gi_op_param *sigma = gi_op_param_find(GI_OP_BLUR, "sigma");
    const gi_op_param *gray = gi_op_param_find(GI_OP_SOBEL, "gray");
    if (!th_check(sigma && gray && gi_op_params(GI_OP_BLUR, &n), "no sigma or gray parameter"))
        return;
    REFUSED(gi_op_param_check, "p", NULL, 2, "2");
    REFUSED(gi_op_param_check, "shown", sigma, 2, NULL);
    REFUSED(gi_op_param_set, "p", NULL, 2, "2", &op);
    REFUSED(gi_op_param_set, "shown", sigma, 2, NULL, &op);
    REFUSED(gi_op_param_set, "op", sigma, 2, "2", NULL);
    REFUSED(gi_op_param_parse, "p", NULL, "2", &op);
    REFUSED(gi_op_param_parse, "op", sigma, "2", NULL);
    gi_op sobel;
    gi_op_default(GI_OP_SOBEL, &sobel);
    ALLOWED(GI_OK, gi_op_param_parse, "text (a flag)", gray, NULL, &sobel);
    th_check(CALLED(gi_op_param_get, NULL, &op) == 0 && CALLED(gi_op_param_get, sigma, NULL) == 0,
             "gi_op_param_get with NULL is not 0");
}

static void chains(void)
{
    const gi_op flip = {.kind = GI_OP_TRANSFORM, .transform = GI_FLIP_H};
    const gi_op count = {.kind = GI_OP_HIST, .bins = 16};
    int w, h, ch;
    REFUSED(gi_apply_size, "src", NULL, &flip, 1, &w, &h, &ch);
    REFUSED(gi_apply_size, "steps", &src, NULL, 1, &w, &h, &ch);
    REFUSED(gi_apply_size, "width", &src, &flip, 1, NULL, &h, &ch);
    REFUSED(gi_apply_size, "height", &src, &flip, 1, &w, NULL, &ch);
    REFUSED(gi_apply_size, "channels", &src, &flip, 1, &w, &h, NULL);
    REFUSED(gi_apply, "ctx", NULL, &src, &flip, 1, &dst, NULL);
    REFUSED(gi_apply, "src", ctx, NULL, &flip, 1, &dst, NULL);
    REFUSED(gi_apply, "steps", ctx, &src, NULL, 1, &dst, NULL);
    REFUSED(gi_apply, "dst", ctx, &src, &flip, 1, NULL, NULL);
    REFUSED(gi_apply, "hist", ctx, &src, &count, 1, NULL, NULL);
    ALLOWED(GI_OK, gi_apply, "dst (a chain ending in hist)", ctx, &src, &count, 1, NULL, &hist);
    REFUSED(gi_apply_device, "ctx", NULL, &src, &flip, 1, &dst, NULL);
    REFUSED(gi_apply_device, "src", ctx, NULL, &flip, 1, &dst, NULL);
    REFUSED(gi_apply_device, "steps", ctx, &src, NULL, 1, &dst, NULL);
    REFUSED(gi_apply_device, "dst", ctx, &src, &flip, 1, NULL, NULL);
    REFUSED(gi_apply_device, "hist", ctx, &src, &count, 1, NULL, NULL);

    gi_plan_hint hint = {1, &flip, 1, 6, 4, 3, 0, 0};
    gi_plan_hint no_steps = {1, NULL, 1, 6, 4, 3, 0, 0};
    REFUSED(gi_context_plan_hint, "ctx", NULL, &hint);
    REFUSED(gi_context_plan_hint, "hint", ctx, NULL);
    REFUSED(gi_context_plan_hint, "hint->steps", ctx, &no_steps);
}

static void jobs(void)
{
    const gi_op flip = {.kind = GI_OP_TRANSFORM, .transform = GI_FLIP_H};
    const gi_op count = {.kind = GI_OP_HIST, .bins = 16};
    gi_job job, counting, stepless;
    CALLED(gi_job_default, NULL);
    gi_job_default(&job);
    job.steps = &flip;
    job.n_steps = 1;
    counting = stepless = job;
    counting.steps = &count;
    stepless.steps = NULL;
    uint8_t *out;
    size_t size;
    REFUSED(gi_job_run_memory, "ctx", NULL, &job, png_bytes, png_size, "x", &out, &size, NULL);
    REFUSED(gi_job_run_memory, "job", ctx, NULL, png_bytes, png_size, "x", &out, &size, NULL);
    REFUSED(gi_job_run_memory, "in", ctx, &job, NULL, 1, "x", &out, &size, NULL);
    REFUSED(gi_job_run_memory, "job->steps", ctx, &stepless, png_bytes, png_size, "x", &out,
            &size, NULL);
    REFUSED(gi_job_run_memory, "out", ctx, &job, png_bytes, png_size, "x", NULL, &size, NULL);
    REFUSED(gi_job_run_memory, "out_size", ctx, &job, png_bytes, png_size, "x", &out, NULL, NULL);
    REFUSED(gi_job_run_memory, "hist", ctx, &counting, png_bytes, png_size, "x", NULL, NULL, NULL);
    ALLOWED(GI_OK, gi_job_run_memory, "name, out and out_size (a hist job)", ctx, &counting,
            png_bytes, png_size, NULL, NULL, NULL, &hist);

    REFUSED(gi_job_run_file, "ctx", NULL, &job, png_path, out_path, NULL);
    REFUSED(gi_job_run_file, "job", ctx, NULL, png_path, out_path, NULL);
    REFUSED(gi_job_run_file, "in_path", ctx, &job, NULL, out_path, NULL);
    REFUSED(gi_job_run_file, "job->steps", ctx, &stepless, png_path, out_path, NULL);
    REFUSED(gi_job_run_file, "out_path", ctx, &job, png_path, NULL, NULL);
    REFUSED(gi_job_run_file, "hist", ctx, &counting, png_path, NULL, NULL);
    ALLOWED(GI_OK, gi_job_run_file, "out_path (a hist job)", ctx, &counting, png_path, NULL, &hist);

    gi_metadata meta = {0};
    gi_image img = {0};
    REFUSED(gi_job_apply, "ctx", NULL, &job, &src, &meta, &img, NULL);
    REFUSED(gi_job_apply, "job", ctx, NULL, &src, &meta, &img, NULL);
    REFUSED(gi_job_apply, "src", ctx, &job, NULL, &meta, &img, NULL);
    REFUSED(gi_job_apply, "meta", ctx, &job, &src, NULL, &img, NULL);
    REFUSED(gi_job_apply, "dst", ctx, &job, &src, &meta, NULL, NULL);
    REFUSED(gi_job_apply, "job->steps", ctx, &stepless, &src, &meta, &img, NULL);
    REFUSED(gi_job_apply, "hist", ctx, &counting, &src, &meta, &img, NULL);

    const int bins = 16;
    int w, h, counted;
    REFUSED(gi_hist_file_streamed, "path", NULL, NULL, &bins, 1, &hist, &w, &h, &counted);
    REFUSED(gi_hist_file_streamed, "bins", png_path, NULL, NULL, 1, &hist, &w, &h, &counted);
    REFUSED(gi_hist_file_streamed, "hists", png_path, NULL, &bins, 1, NULL, &w, &h, &counted);
    REFUSED(gi_hist_file_streamed, "width", png_path, NULL, &bins, 1, &hist, NULL, &h, &counted);
    REFUSED(gi_hist_file_streamed, "height", png_path, NULL, &bins, 1, &hist, &w, NULL, &counted);
    REFUSED(gi_hist_file_streamed, "counted", png_path, NULL, &bins, 1, &hist, &w, &h, NULL);
    ALLOWED(GI_OK, gi_hist_file_streamed, "limits", png_path, NULL, &bins, 1, &hist, &w, &h,
            &counted);
}

static void batches_and_streams(void)
{
    const gi_op flip = {.kind = GI_OP_TRANSFORM, .transform = GI_FLIP_H};
    CALLED(gi_stage_name, GI_STAGE_READ);
    gi_batch_options bo, stepless;
    CALLED(gi_batch_options_default, NULL);
    gi_batch_options_default(&bo);
    bo.job.steps = &flip;
    bo.job.n_steps = 1;
    stepless = bo;
    stepless.job.steps = NULL;
    gi_batch_item item = {.in = png_path, .out = out_path};
    REFUSED(gi_batch_run, "opts", NULL, &item, 1);
    REFUSED(gi_batch_run, "items", &bo, NULL, 1);
    REFUSED(gi_batch_run, "opts->job.steps", &stepless, &item, 1);
    gi_batch_item nameless[2] = {item, item};
    nameless[1].in = NULL;
    gi_status st = CALLED(gi_batch_run, &bo, nameless, 2);
    th_check(st == GI_ERR_INVALID_ARGUMENT && strcmp(gi_last_error(), "item 1: in is NULL") == 0,
             "gi_batch_run of an item whose in is NULL: status %d, \"%s\"", (int)st,
             gi_last_error());
    nameless[1] = item;
    nameless[1].out = NULL;
    st = CALLED(gi_batch_check_outputs, nameless, 2);
    th_check(st == GI_ERR_INVALID_ARGUMENT && strcmp(gi_last_error(), "item 1: out is NULL") == 0,
             "gi_batch_check_outputs of an item whose out is NULL: status %d, \"%s\"", (int)st,
             gi_last_error());
    ALLOWED(GI_OK, gi_batch_run, "items of count 0", &bo, NULL, 0);
    REFUSED(gi_batch_check_outputs, "items", NULL, 1);
    ALLOWED(GI_OK, gi_batch_check_outputs, "items of count 0", NULL, 0);

    gi_stream_options so, no_steps;
    CALLED(gi_stream_options_default, NULL);
    gi_stream_options_default(&so);
    so.job.steps = &flip;
    so.job.n_steps = 1;
    no_steps = so;
    no_steps.job.steps = NULL;
    REFUSED(gi_stream_run, "in", NULL, out_path, &so, NULL);
    REFUSED(gi_stream_run, "out", png_path, NULL, &so, NULL);
    REFUSED(gi_stream_run, "opts", png_path, out_path, NULL, NULL);
    REFUSED(gi_stream_run, "opts->job.steps", png_path, out_path, &no_steps, NULL);
    ALLOWED(GI_OK, gi_stream_run, "written", png_path, out_path, &so, NULL);
}

/* ---------------------------------------------------------------- coverage */

/* Each function gpuimg.h declares (a line "GI_API type name(") was called. */
static void check_every_function_called(const char *header)
{
    FILE *f = fopen(header, "r");
    if (!th_check(f != NULL, "cannot read %s", header)) return;
    char line[512];
    int declared = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "GI_API ", 7) != 0) continue;
        const char *open = strchr(line, '(');
        const char *name = open ? open : line;
        while (name > line && (name[-1] == '_' || (name[-1] >= 'a' && name[-1] <= 'z') ||
                               (name[-1] >= '0' && name[-1] <= '9')))
            name--;
        if (!open || strncmp(name, "gi_", 3) != 0) continue;
        declared++;
        int found = 0;
        for (int i = 0; i < n_called && !found; i++)
            found = strlen(called[i]) == (size_t)(open - name) &&
                    strncmp(called[i], name, (size_t)(open - name)) == 0;
        th_check(found, "%.*s (gpuimg.h) is not called with NULL here", (int)(open - name), name);
    }
    fclose(f);
    th_check(declared > 90, "only %d functions found in %s", declared, header);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_null_args gpuimg.h\n");
        return 2;
    }
    make_fixtures();
    status_and_images();
    files();
    borders_and_contexts();
    filters();
    geometry();
    metadata();
    counts_and_comparing();
    parameters();
    chains();
    jobs();
    batches_and_streams();
    /* last: once called, it fails every later write in the process */
    CALLED(gi_remove_partial_outputs);
    check_every_function_called(argv[1]);
    remove_fixtures();
    return th_finish();
}
