/* test_jpeg_route DIR...: a JPEG whose decode stops at its coefficients
 * and whose arithmetic half the backend runs (backend.h,
 * run_chain_from_jpeg) gives the bytes of the plain decode (gi_load_memory)
 * and the same chain, on the CPU backend, the reference the CUDA backend's
 * version is held to (tests/gpu). Over every .jpg in each DIR: blur,
 * sobel, transpose, a two-step chain and hist, on contexts of 1 and 3
 * threads; the job's routed decode (forced, and planned) with
 * auto-orientation; a batch's image (batch_image.h) decoded to
 * coefficients and computed on a CPU lane, as the bridge lane would, then
 * encoded: the file the pixel route writes, its host decode (a deferred
 * scan on the CPU) counted in the decode stage; files the entropy half leaves
 * to stb, and the limits and decoders under which it must leave every
 * file to gi_load_memory; a damaged file that stb refuses, refused with
 * the same reason by a batch whether its scan was deferred or not.
 * Shrink-on-load too: coefficients planned to shrink (jpeg_shrink.h) give
 * the CPU backend the image gi_load_memory shrinks on load, and the routed
 * decode of a thumbnail's job the shrunk size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/batch_image.h"
#include "codec/file_io.h"
#include "harness.h"
#include "testimg.h"
#include "engine/job_flow.h"
#include "codec/jpeg/jpeg_decode.h"
#include "codec/jpeg/jpeg_shrink.h"
#include "engine/ops.h"
#include "base/pixel_alloc.h"

static int files_taken, files_left;

/* One chain from host pixels and from coefficients: the same result. */
static void check_chain(gi_context *ctx, const char *path, const char *what, const gi_image *px,
                        const gi_jpeg_coeffs *c, const gi_op *steps, int n)
{
    int w, h, ch;
    if (!th_check(gi_apply_size(px, steps, n, &w, &h, &ch) == GI_OK, "%s: %s: size", path, what))
        return;
    const int hist = steps[n - 1].kind == GI_OP_HIST;
    gi_image want = {0}, got = {0};
    char why[200] = "";
    static gi_histogram want_h, got_h; /* 2 MiB each: not on the stack */
    memset(&want_h, 0, sizeof want_h);
    memset(&got_h, 0, sizeof got_h);
    if (!hist && (gi_image_alloc(&want, w, h, ch) != GI_OK || gi_image_alloc(&got, w, h, ch) != GI_OK)) {
        th_check(0, "%s: out of memory", path);
        gi_image_free(&want);
        return;
    }
    gi_status a = gi_apply(ctx, px, steps, n, &want, &want_h);
    gi_status b = gi__apply_jpeg(ctx, c, steps, n, &got, &got_h, NULL);
    if (th_check(a == GI_OK && b == GI_OK, "%s: %s: statuses %d and %d (%s)", path, what, a, b,
                 gi_last_error())) {
        if (hist)
            th_check(memcmp(&want_h, &got_h, sizeof want_h) == 0, "%s: %s: histograms differ",
                     path, what);
        else
            th_check(ti_same(&want, &got, why, sizeof why), "%s: %s: %s", path, what, why);
    }
    gi_image_free(&want);
    gi_image_free(&got);
}

/* The job's way: routed decode, then the job's steps (auto-orientation
 * on), against gi__job_decode and gi_job_apply. */
static void check_job(gi_context *ctx, const char *path, const uint8_t *bytes, size_t size,
                      const gi_image *px, const gi__jpeg_route *route)
{
    gi_op step;
    gi_job job;
    ti_blur_job(&job, &step, GI_FORMAT_AUTO);
    job.auto_orient = 1;
    gi_image img = {0}, want = {0}, got = {0};
    gi_jpeg_coeffs c;
    gi_metadata meta = {0}, want_meta = {0};
    char why[200], diff[200] = "";
    gi_status st = gi__job_decode_routed(&job, bytes, size, path, route, &img, &c, &meta, why,
                                         sizeof why);
    th_check(route->planned ? strncmp(why, "JPEG arithmetic on the ", 23) == 0 : !*why,
             "%s: the route's reason: '%s'", path, why);
    if (!th_check(st == GI_OK, "%s: routed decode: %s", path, gi_last_error())) return;
    if (!route->planned)
        th_check(gi__jpeg_coeffs_present(&c), "%s: a forced route kept pixels", path);
    th_check(img.width == px->width && img.height == px->height && img.channels == px->channels,
             "%s: routed decode's size", path);
    /* a deferred scan on the CPU backend: the job decodes the file after
     * all, and says so (-v then names the decoder that took it, and the
     * backend's reason) */
    int fell_back = -1;
    st = gi__jpeg_coeffs_present(&c) ? gi__job_apply_jpeg(ctx, &job, &c, path, &meta, &got, NULL,
                                                          NULL, &fell_back)
                   : gi_job_apply(ctx, &job, &img, &meta, &got, NULL);
    if (gi__jpeg_coeffs_present(&c))
        th_check(fell_back == (c.deferred ? GI__DECODED_HERE : GI__DECODED_BY_BACKEND),
                 "%s: fell back %d, deferred %d", path, fell_back, c.deferred != NULL);
    /* ...and -v's note names the backend's reason */
    if (fell_back == GI__DECODED_HERE)
        th_check(strstr(gi_context_last_fallback(ctx), "a deferred JPEG scan on the CPU backend") != NULL,
                 "%s: the fallback's note: '%s'", path, gi_context_last_fallback(ctx));
    gi_metadata_read(bytes, size, &want_meta);
    gi_status st2 = gi_job_apply(ctx, &job, px, &want_meta, &want, NULL);
    if (th_check(st == GI_OK && st2 == GI_OK, "%s: job statuses %d %d", path, st, st2))
        th_check(ti_same(&want, &got, diff, sizeof diff) &&
                     meta.orientation == want_meta.orientation,
                 "%s: the job from coefficients differs (%s route): %s, orientation %d vs %d",
                 path, route->planned ? "planned" : "forced", diff, meta.orientation,
                 want_meta.orientation);
    gi__jpeg_coeffs_free(&c);
    gi_image_free(&img);
    gi_image_free(&want);
    gi_image_free(&got);
    gi_metadata_free(&meta);
    gi_metadata_free(&want_meta);
}

/* Shrink-on-load for at_least: the coefficients planned to shrink, through
 * the CPU backend, against gi_load_memory's shrunk decode; and a job's
 * routed decode (forced to the device) giving that size. */
static void check_shrunk(gi_context *ctx, const char *path, const uint8_t *bytes, size_t size,
                         int at_least)
{
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    limits.shrink_to = at_least;
    gi_image px = {0}, img = {0};
    gi_jpeg_coeffs c;
    char what[64];
    snprintf(what, sizeof what, "shrunk for %d, transposed", at_least);
    if (th_check(gi_load_memory(&px, bytes, size, path, &limits) == GI_OK &&
                     gi__load_jpeg_coeffs(bytes, size, &limits, 0, &c),
                 "%s: %s: decode", path, what)) {
        gi__jpeg_plan_shrink(&c, at_least);
        int w, h;
        gi__jpeg_output_size(&c, &w, &h);
        th_check(w == px.width && h == px.height, "%s: %s: planned %dx%d, loaded %dx%d", path,
                 what, w, h, px.width, px.height);
        const gi_op transpose = {.kind = GI_OP_TRANSFORM, .transform = GI_TRANSPOSE};
        check_chain(ctx, path, what, &px, &c, &transpose, 1);
        gi__jpeg_coeffs_free(&c);
    }
    gi_op step;
    gi_job job;
    ti_blur_job(&job, &step, GI_FORMAT_AUTO);
    job.limits.shrink_to = at_least;
    const gi__jpeg_route forced = {.on_cuda = 1, .planned = 0, .cores = 1, .lanes = 1};
    gi_metadata meta = {0};
    if (th_check(gi__job_decode_routed(&job, bytes, size, path, &forced, &img, &c, &meta, NULL,
                                       0) == GI_OK,
                 "%s: %s: routed decode: %s", path, what, gi_last_error()))
        th_check(img.width == px.width && img.height == px.height,
                 "%s: %s: the routed decode's size %dx%d, want %dx%d", path, what, img.width,
                 img.height, px.width, px.height);
    gi__jpeg_coeffs_free(&c);
    gi_metadata_free(&meta);
    gi_image_free(&img);
    /* planned, with the batch's lanes behind: decoded whole here, the
     * pixels of gi_load_memory's shrunk decode */
    const gi__jpeg_route behind = {.on_cuda = 1, .planned = 1, .cores = 16, .lanes = 4,
                                   .pipelined = 1, .entropy_on_host = 1};
    char why[200], differs[200] = "";
    memset(&img, 0, sizeof img);
    if (th_check(gi__job_decode_routed(&job, bytes, size, path, &behind, &img, &c, &meta, why,
                                       sizeof why) == GI_OK,
                 "%s: %s: routed decode, lanes behind: %s", path, what, gi_last_error()))
        th_check(!gi__jpeg_coeffs_present(&c) && ti_same(&img, &px, differs, sizeof differs) &&
                     strstr(why, "on the CPU: the GPUs had images waiting"),
                 "%s: %s: lanes behind: the pixels of the host's shrink-on-load (%s; why \"%s\")",
                 path, what, differs, why);
    gi__jpeg_coeffs_free(&c);
    gi_metadata_free(&meta);
    gi_image_free(&img);
    gi_image_free(&px);
}

/* One batch image through decode, compute and encode into out, by the
 * route; the bytes written (NULL after a failure). */
static uint8_t *batch_bytes(gi_context *ctx, const char *path, const char *out,
                            const gi__jpeg_route *route, size_t *size)
{
    gi_op step = {.kind = GI_OP_SOBEL};
    gi_sobel_params_default(&step.sobel);
    gi_batch_options o;
    gi_batch_options_default(&o);
    o.job.steps = &step;
    o.job.n_steps = 1;
    gi_batch_item item = {.in = strdup(path), .out = strdup(out)};
    gi__batch_image job = {.item = &item};
    int ok = gi__batch_decode(&o, route, &job) == 0;
    if (ok && route)
        th_check(gi__jpeg_coeffs_present(&job.coeffs) && !job.src.data, "%s: batch kept pixels", path);
    const int deferred = job.coeffs.deferred != NULL;
    const double decode_ms = item.stage_ms[GI_STAGE_DECODE];
    ok = ok && gi__batch_compute(ctx, &o, &job, 0) == 0;
    if (ok && route)
        th_check(strcmp(item.decoded_by, "gpuimg-jpeg") == 0 && !job.coeffs.storage,
                 "%s: a CPU lane's decoder says '%s'", path, item.decoded_by);
    /* a deferred scan on the CPU's lane: the file decodes again inside the
     * compute, and -v's decode stage counts it */
    if (ok && deferred)
        th_check(item.stage_ms[GI_STAGE_DECODE] > decode_ms,
                 "%s: the decode after the backend left the file is in no stage", path);
    ok = ok && gi__batch_encode(&o, &job) == 0;
    th_check(ok && item.status == GI_ITEM_OK, "%s: batch image: %s", path,
             item.reason ? item.reason : "?");
    gi__batch_release(&job);
    gi_free(item.reason);
    free(item.in);
    free(item.out);
    uint8_t *bytes = NULL;
    if (ok && gi__read_file(out, 1u << 30, &bytes, size) != GI_OK) bytes = NULL;
    remove(out);
    return bytes;
}

static void check_batch_image(gi_context *ctx, const char *path)
{
    const gi__jpeg_route forced = {.on_cuda = 1, .planned = 0, .cores = 1, .lanes = 1};
    char out[64];
    snprintf(out, sizeof out, "test_jpeg_route-%ld.jpg", (long)getpid());
    size_t a_size = 0, b_size = 0;
    uint8_t *a = batch_bytes(ctx, path, out, NULL, &a_size);
    uint8_t *b = batch_bytes(ctx, path, out, &forced, &b_size);
    th_check(a && b && a_size == b_size && memcmp(a, b, a_size) == 0,
             "%s: the batch image from coefficients wrote other bytes", path);
    gi__pixels_free(a);
    gi__pixels_free(b);
}

/* A batch image of `in` decoded by the route (NULL: to pixels) and
 * computed on ctx; its reason where it failed (to free), else NULL. */
static char *batch_reason(gi_context *ctx, const char *in, const gi__jpeg_route *route)
{
    gi_op step = {.kind = GI_OP_SOBEL};
    gi_sobel_params_default(&step.sobel);
    gi_batch_options o;
    gi_batch_options_default(&o);
    o.job.steps = &step;
    o.job.n_steps = 1;
    gi_batch_item item = {.in = (char *)in, .out = "unused.png"};
    gi__batch_image job = {.item = &item};
    if (gi__batch_decode(&o, route, &job) == 0) {
        if (route)
            th_check(job.coeffs.deferred != NULL, "%s: the damaged copy not deferred", in);
        gi__batch_compute(ctx, &o, &job, 0);
    }
    gi__batch_release(&job);
    return item.reason;
}

static int write_bytes(const char *path, const uint8_t *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = fwrite(bytes, 1, size, f);
    return fclose(f) == 0 && n == size ? 0 : -1;
}

/* A damaged copy of a baseline file whose markers the entropy half
 * defers and whose data stb refuses (a run of 0xFE bytes: codes no table
 * holds): refused with the same reason whether it decodes to pixels or
 * its scan is deferred and the backend leaves it to the CPU, which then
 * refuses it as it does any file (the device's declines end there too). */
static void check_refused_alike(gi_context *ctx, const char *path)
{
    uint8_t *bytes;
    size_t size, sos = 2;
    if (!th_check(gi__read_file(path, 1u << 30, &bytes, &size) == GI_OK, "%s: read", path)) return;
    while (sos + 4 < size && !(bytes[sos] == 0xFF && bytes[sos + 1] == 0xDA)) sos++;
    const size_t data = sos + 2 + ((size_t)bytes[sos + 2] << 8 | bytes[sos + 3]);
    char name[64];
    snprintf(name, sizeof name, "test_jpeg_route-%ld-damaged.jpg", (long)getpid());
    int found = 0;
    for (size_t at = data + 8; !found && at + 64 < size; at += 29) {
        uint8_t *copy = malloc(size);
        if (!th_check(copy != NULL, "out of memory")) break;
        memcpy(copy, bytes, size);
        memset(copy + at, 0xFE, 32);
        gi_image img;
        found = copy[at - 1] != 0xFF && gi_load_memory(&img, copy, size, "copy", NULL) != GI_OK &&
                write_bytes(name, copy, size) == 0;
        if (!found && copy[at - 1] != 0xFF) gi_image_free(&img);
        free(copy);
    }
    const gi__jpeg_route forced = {.on_cuda = 1, .planned = 0, .cores = 1, .lanes = 1};
    if (th_check(found, "%s: no damaged copy that stb refuses", path)) {
        char *to_pixels = batch_reason(ctx, name, NULL), *deferred = batch_reason(ctx, name, &forced);
        th_check(to_pixels && deferred && strcmp(to_pixels, deferred) == 0,
                 "%s: refused as '%s' decoded to pixels, '%s' deferred", path,
                 to_pixels ? to_pixels : "(decoded)", deferred ? deferred : "(decoded)");
        gi_free(to_pixels);
        gi_free(deferred);
        remove(name);
    }
    gi__pixels_free(bytes);
}

/* Under these limits every file is gi_load_memory's alone. */
static void check_left_alone(const char *path, const uint8_t *bytes, size_t size)
{
    gi_load_limits limits;
    gi_jpeg_coeffs c;
    gi_load_limits_default(&limits);
    limits.max_input_bytes = size - 1;
    th_check(!gi__load_jpeg_coeffs(bytes, size, &limits, 0, &c), "%s: taken over the byte limit", path);
    gi_load_limits_default(&limits);
    limits.max_pixels = 0;
    th_check(!gi__load_jpeg_coeffs(bytes, size, &limits, 0, &c), "%s: taken over the pixel limit",
             path);
}

static void check_file(gi_context *const ctx[2], const char *path)
{
    uint8_t *bytes;
    size_t size;
    if (!th_check(gi__read_file(path, 1u << 30, &bytes, &size) == GI_OK, "%s: read", path)) return;
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    gi_jpeg_coeffs c;
    gi_image px = {0};
    const int mine = gi__load_jpeg_coeffs(bytes, size, &limits, 0, &c);
    gi_status st = gi_load_memory(&px, bytes, size, path, &limits);
    check_left_alone(path, bytes, size);
    if (!mine) {
        files_left++;
        th_check(!c.storage, "%s: a file left to stb keeps coefficients", path);
    } else if (th_check(st == GI_OK, "%s: the entropy half takes a file gi_load_memory refuses",
                        path)) {
        files_taken++;
        gi_op blur = {.kind = GI_OP_BLUR}, sobel = {.kind = GI_OP_SOBEL};
        gi_blur_params_default(&blur.blur);
        blur.blur.sigma = 2;
        gi_sobel_params_default(&sobel.sobel);
        const gi_op transpose = {.kind = GI_OP_TRANSFORM, .transform = GI_TRANSPOSE};
        const gi_op hist = {.kind = GI_OP_HIST, .bins = 256};
        const gi_op two[2] = {blur, {.kind = GI_OP_TRANSFORM, .transform = GI_FLIP_V}};
        for (int i = 0; i < 2; i++) {
            check_chain(ctx[i], path, "blur", &px, &c, &blur, 1);
            check_chain(ctx[i], path, "sobel", &px, &c, &sobel, 1);
            check_chain(ctx[i], path, "transpose", &px, &c, &transpose, 1);
            check_chain(ctx[i], path, "blur, flip", &px, &c, two, 2);
            check_chain(ctx[i], path, "hist", &px, &c, &hist, 1);
        }
        const gi__jpeg_route forced = {.on_cuda = 1, .planned = 0, .cores = 1, .lanes = 1};
        const gi__jpeg_route planned = {.on_cuda = 1, .planned = 1, .cores = 16, .lanes = 2,
                                        .pipelined = 1};
        check_job(ctx[1], path, bytes, size, &px, &forced);
        check_job(ctx[1], path, bytes, size, &px, &planned);
        for (int at_least = 1; at_least <= 256; at_least *= 16)
            check_shrunk(ctx[files_taken % 2], path, bytes, size, at_least);
        if (files_taken % 8 == 1) check_batch_image(ctx[1], path);
    }
    gi__jpeg_coeffs_free(&c);
    gi_image_free(&px);
    gi__pixels_free(bytes);
}

/* A PNG in a thumbnail's job with the lanes behind: not a JPEG, so
 * nothing shrinks on load and the routed decode says nothing of it; the
 * pixels are the plain decode's. */
static void check_png_not_shrunk(void)
{
    gi_image src = ti_random(61, 37, 3), want = {0}, img = {0};
    gi_save_options save;
    gi_save_options_default(&save);
    save.format = GI_FORMAT_PNG;
    uint8_t *png = NULL;
    size_t size = 0;
    if (!th_check(gi_encode(&src, &save, &png, &size) == GI_OK &&
                      gi_load_memory(&want, png, size, "png", NULL) == GI_OK,
                  "a PNG to decode: %s", gi_last_error())) {
        ti_free(&src);
        return;
    }
    gi_op step;
    gi_job job;
    ti_blur_job(&job, &step, GI_FORMAT_AUTO);
    job.limits.shrink_to = 8;
    const gi__jpeg_route behind = {.on_cuda = 1, .planned = 1, .cores = 16, .lanes = 4,
                                   .pipelined = 1, .entropy_on_host = 1};
    gi_jpeg_coeffs c;
    gi_metadata meta = {0};
    char why[200] = "x", differs[200] = "";
    if (th_check(gi__job_decode_routed(&job, png, size, "png", &behind, &img, &c, &meta, why,
                                       sizeof why) == GI_OK,
                 "PNG, lanes behind: routed decode: %s", gi_last_error()))
        th_check(!gi__jpeg_coeffs_present(&c) && ti_same(&img, &want, differs, sizeof differs) &&
                     *why == '\0',
                 "PNG, lanes behind: the plain decode, no reason (%s; why \"%s\")", differs, why);
    gi__jpeg_coeffs_free(&c);
    gi_metadata_free(&meta);
    gi_image_free(&img);
    gi_image_free(&want);
    gi_free(png);
    ti_free(&src);
}

static void check_dir(gi_context *const ctx[2], const char *dir)
{
    char *names[4096];
    const int n = ti_jpeg_names(dir, names, 4096); /* none where the photos are absent */
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        check_file(ctx, path);
        free(names[i]);
    }
}

int main(int argc, char **argv)
{
    gi_context *ctx[2];
    gi_context_options one = {GI_DEVICE_CPU, 1, 0}, three = {GI_DEVICE_CPU, 3, 0};
    if (gi_context_create(&ctx[0], &one) != GI_OK || gi_context_create(&ctx[1], &three) != GI_OK) {
        fprintf(stderr, "no CPU context: %s\n", gi_last_error());
        return 1;
    }
    for (int i = 1; i < argc; i++) check_dir(ctx, argv[i]);
    if (argc > 1) {
        char path[4096];
        snprintf(path, sizeof path, "%s/i1-q75.jpg", argv[1]);
        check_refused_alike(ctx[1], path);
    }
    check_png_not_shrunk();
    th_check(files_taken > 0, "no JPEG taken by the entropy half");
    printf("%d files from coefficients, %d left to stb\n", files_taken, files_left);
    gi_context_destroy(ctx[0]);
    gi_context_destroy(ctx[1]);
    return th_finish();
}
