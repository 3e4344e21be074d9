/* lib/engine/device_plan.c: the choices of AUTO's cost model, from costs given
 * here (rounded early estimates of the reference machine's), so that
 * recalibrating the defaults does not move these cases: a photo's sobel on
 * 16 cores stays on the CPU, heavy work and long batches go to the GPU, a
 * started GPU takes a large image, and without a GPU everything runs on
 * the CPU. Then the same through a context's plan hint. */
#include "harness.h"

#include <string.h>

#include "engine/device_plan.h"
#include "engine/plan_job.h"

static gi__device_costs test_costs(void)
{
    gi__device_costs c = {.cpu_call_ms = 0.2, .cuda_start_ms = 130, .pin_gbps = 2.2,
                          .cuda_exit_ms = 120, .upload_gbps = 6, .download_gbps = 3.5,
                          .staging_gbps = 8, .gpu_launch_ms = 0.05};
    for (int ch = 0; ch < 4; ch++) {
        double n = ch + 1;
        c.cpu[GI_OP_BLUR][ch] = (gi__rate){2 * n, 0.37 * n};
        c.cpu[GI_OP_SOBEL][ch] = (gi__rate){7 * n, 0};
        c.cpu[GI_OP_TRANSFORM][ch] = (gi__rate){4 * n, 0};
        c.cpu[GI_OP_HIST][ch] = (gi__rate){1.5 * n, 0};
        c.cpu[GI_OP_CONVOLVE][ch] = (gi__rate){3 * n, 0.12 * n};
        for (int k = 0; k < GI__OP_KINDS; k++) c.gpu[k][ch] = (gi__rate){0.002 * n, 0.0003 * n};
    }
    return c;
}

static gi__plan_input job(gi_op_kind kind, int taps, int width, int height, int channels)
{
    gi__plan_input in = {
        .job = {.n = 1,
                .steps = {{kind, taps, width, height, channels}},
                .out_bytes = kind == GI_OP_HIST ? 8192 : (double)width * height * channels},
        .images = 1,
        .cpu_threads = 16,
        .cuda = GI__CUDA_COLD,
    };
    return in;
}

static void expect_with(const gi__device_costs *costs, const char *what, const gi__plan_input *in,
                        gi_device device, int use_cuda)
{
    gi__plan p;
    gi__plan_device(in, costs, &p);
    th_check(p.device == device && p.use_cuda == use_cuda,
             "%s: got %s (use_cuda %d), want %s (use_cuda %d): %s", what,
             p.device == GI_DEVICE_CUDA ? "cuda" : "cpu", p.use_cuda,
             device == GI_DEVICE_CUDA ? "cuda" : "cpu", use_cuda, p.reason);
    th_check(strncmp(p.reason, device == GI_DEVICE_CUDA ? "cuda: " : "cpu: ", 5) == 0,
             "%s: the reason does not start with the device: %s", what, p.reason);
    th_check(p.cuda_ms >= p.startup_ms + (in->pipelined ? 0 : p.copy_ms) && p.cpu_ms > 0,
             "%s: estimates do not add up: %s", what, p.reason);
}

static void expect(const char *what, const gi__plan_input *in, gi_device device, int use_cuda)
{
    gi__device_costs costs = test_costs();
    expect_with(&costs, what, in, device, use_cuda);
}

/* Through a context: hints are checked, and a small image under AUTO runs
 * on the CPU with its reason and without a CUDA start (on any machine). */
static void check_context(void)
{
    gi_context *ctx = NULL;
    gi_op sobel = {.kind = GI_OP_SOBEL};
    gi_sobel_params_default(&sobel.sobel);
    if (!th_check(gi_context_create(&ctx, NULL) == GI_OK, "auto context: %s", gi_last_error()))
        return;
    gi_plan_hint bad = {.images = 0, .steps = &sobel, .n_steps = 1};
    th_check(gi_context_plan_hint(ctx, &bad) == GI_ERR_INVALID_ARGUMENT, "0 images accepted");
    bad = (gi_plan_hint){.images = 1, .steps = &sobel, .n_steps = 0, .width = 8, .height = 8,
                         .channels = 3};
    th_check(gi_context_plan_hint(ctx, &bad) == GI_ERR_INVALID_ARGUMENT, "0 steps accepted");
    gi_plan_hint hint = {.images = 1, .steps = &sobel, .n_steps = 1, .width = 64, .height = 48,
                         .channels = 3, .ready_in_ms = 1};
    th_check(gi_context_plan_hint(ctx, &hint) == GI_OK, "hint: %s", gi_last_error());
    th_check(strcmp(gi_context_backend(ctx), "cpu") == 0, "a 64x48 sobel settled on %s",
             gi_context_backend(ctx));
    gi_image src = {0}, dst = {0};
    if (gi_image_alloc(&src, 64, 48, 3) == GI_OK && gi_image_alloc(&dst, 64, 48, 3) == GI_OK) {
        memset(src.data, 7, src.stride * src.height);
        th_check(gi_sobel(ctx, &src, &dst, &sobel.sobel) == GI_OK, "sobel: %s", gi_last_error());
        th_check(strncmp(gi_context_last_choice(ctx), "cpu: CPU ", 9) == 0,
                 "a 64x48 sobel: %s", gi_context_last_choice(ctx));
        th_check(gi_context_cuda_startup_ms(ctx) == 0, "CUDA started for a 64x48 sobel");
    }
    gi_image_free(&src);
    gi_image_free(&dst);
    gi_context_destroy(ctx);
}

/* A hint's job on a poisoned struct: every field the hint does not set is
 * 0 (a source of pixels), whatever the memory held before. */
static void check_job_of_hint(void)
{
    gi_op blur = {.kind = GI_OP_BLUR};
    gi_blur_params_default(&blur.blur);
    blur.blur.sigma = 2;
    gi_plan_hint hint = {.images = 40, .steps = &blur, .n_steps = 1, .width = 3840,
                         .height = 2400, .channels = 3, .pipelined = 1};
    gi__plan_job j;
    memset(&j, 0xA5, sizeof j);
    if (!th_check(gi__plan_job_of_hint(&hint, &j) == GI_OK, "job of hint: %s", gi_last_error()))
        return;
    th_check(j.n == 1 && j.steps[0].width == 3840 && j.steps[0].taps == 13 &&
                 j.out_bytes == 3840.0 * 2400 * 3,
             "job of hint: n %d, width %d, taps %d, out %g", j.n, j.steps[0].width,
             j.steps[0].taps, j.out_bytes);
    th_check(j.jpeg_pixels == 0 && j.jpeg_coeff_bytes == 0 && j.jpeg_entropy_pixels == 0 &&
                 j.jpeg_out_pixels == 0,
             "job of hint: JPEG fields from poisoned memory: %g %g %g %g", j.jpeg_pixels,
             j.jpeg_coeff_bytes, j.jpeg_entropy_pixels, j.jpeg_out_pixels);
}

/* A JPEG's arithmetic half on the GPU lane (gi__plan_jpeg_route), with
 * round figures: reconstruct 1.7 ns a pixel on a core, 0.02 on the GPU,
 * the rest of a codec worker's work 3.5; copies as test_costs'. */
static int jpeg_route_deferred(double mp, double coeff_bytes_per_pixel, int cores, int lanes,
                               int pipelined, int encodes_jpeg, int deferred)
{
    gi__device_costs c = test_costs();
    c.cpu_jpeg_reconstruct_ns = 1.7;
    c.cpu_jpeg_rest_ns = 3.5;
    c.gpu_jpeg_reconstruct_ns = 0.02;
    c.cpu_jpeg_encode_ns = 1.5;
    c.gpu_jpeg_encode_ns = 0.05;
    c.cpu_jpeg_entropy_ns = 2.0; /* of the rest's 3.5 */
    c.gpu_jpeg_entropy_ns = 0.05;
    const double px = mp * 1e6;
    const gi__jpeg_route_input in = {.pixels = px, .pixel_bytes = 3 * px,
                                     .coeff_bytes = coeff_bytes_per_pixel * px,
                                     .out_bytes = 3 * px, .cores = cores, .lanes = lanes,
                                     .pipelined = pipelined, .encodes_jpeg = encodes_jpeg,
                                     .out_pixels = px, .deferred = deferred};
    char why[200];
    int gpu = gi__plan_jpeg_route(&in, &c, why, sizeof why);
    th_check(strstr(why, gpu ? "on the GPU" : "on the CPU") != NULL, "route reason: %s", why);
    return gpu;
}

static int jpeg_route_to(double mp, double coeff_bytes_per_pixel, int cores, int lanes,
                         int pipelined, int encodes_jpeg)
{
    return jpeg_route_deferred(mp, coeff_bytes_per_pixel, cores, lanes, pipelined, encodes_jpeg, 0);
}

static int jpeg_route(double mp, double coeff_bytes_per_pixel, int cores, int lanes,
                      int pipelined)
{
    return jpeg_route_to(mp, coeff_bytes_per_pixel, cores, lanes, pipelined, 0);
}

static void check_jpeg(void)
{
    /* 4:2:0: coefficients as many bytes as the pixels, the IDCT off the
     * CPU: one image alone, and a pipeline whose cores are the limit. */
    th_check(jpeg_route(9.2, 3, 1, 1, 0), "one 9 MP 4:2:0 JPEG: the GPU's arithmetic pays");
    th_check(jpeg_route(9.2, 3, 4, 8, 1), "4 cores, 8 lanes, 4:2:0: the GPU's arithmetic pays");
    /* Lanes the limit: twice the bytes (4:4:4) cost more than the cores save. */
    th_check(!jpeg_route(9.2, 6, 16, 1, 1), "16 cores, 1 lane, 4:4:4: the CPU's arithmetic");
    /* Equal bytes on a lane-bound pipeline: the kernels' time tips it. */
    th_check(!jpeg_route(9.2, 3, 64, 1, 1), "64 cores, 1 lane, 4:2:0: the CPU's arithmetic");
    /* An exact JPEG output: route 1 also takes the writer off the cores
     * and brings down a file instead of pixels, which tips a pipeline
     * whose cores are few, and the lane-bound 4:4:4 one. */
    th_check(jpeg_route_to(9.2, 6, 16, 1, 1, 1), "16 cores, 1 lane, 4:4:4, JPEG out: the GPU");
    th_check(jpeg_route_to(9.2, 3, 64, 1, 1, 1), "64 cores, 1 lane, 4:2:0, JPEG out: the GPU");
    /* A deferred scan: its compressed bytes go up (0.4 a pixel), and its
     * Huffman decoding leaves the cores, which tips the lane-bound 4:4:4
     * pipeline; a one-core image pays its Huffman decoding on route 0. */
    th_check(jpeg_route_deferred(9.2, 0.4, 16, 1, 1, 0, 1), "16 cores, 1 lane, deferred: the GPU");
    th_check(jpeg_route_deferred(9.2, 0.4, 1, 1, 0, 0, 1), "one deferred image: the GPU");

    /* The device plan counts the arithmetic half on the backend that runs
     * it: the CPU's threads, or the GPU's kernels and the coefficients'
     * upload. */
    gi__plan_input in = job(GI_OP_SOBEL, 1, 3640, 2400, 3);
    gi__device_costs c = test_costs();
    c.cpu_jpeg_reconstruct_ns = 1.7;
    c.gpu_jpeg_reconstruct_ns = 0.02;
    gi__plan pixels, coeffs;
    in.cuda = GI__CUDA_READY;
    gi__plan_device(&in, &c, &pixels);
    in.job.jpeg_pixels = 3640.0 * 2400;
    in.job.jpeg_coeff_bytes = 2 * 3 * 3640.0 * 2400;
    gi__plan_device(&in, &c, &coeffs);
    th_check(coeffs.cpu_ms > pixels.cpu_ms + 3640.0 * 2400 * 1.7 / 16 / 1e6 * 0.99 &&
                 coeffs.copy_ms > pixels.copy_ms && coeffs.kernel_ms > pixels.kernel_ms,
             "a JPEG source: %s / %s", pixels.reason, coeffs.reason);

    /* A deferred scan's Huffman codes take one core: a served 12 MP
     * thumbnail (shrunk to 612 x 322, CUDA ready) goes to the GPU, whether
     * its batch of one counts as a pipeline or not; in a long pipeline the
     * other cores decode the images to come meanwhile. */
    c.cpu_jpeg_entropy_ns = 5.6;
    c.gpu_jpeg_entropy_ns = 0.28;
    gi__plan_input thumb = job(GI_OP_BLUR, 7, 612, 322, 3);
    thumb.cuda = GI__CUDA_READY;
    thumb.job.jpeg_pixels = 612.0 * 322;
    thumb.job.jpeg_coeff_bytes = 2 * 3 * 612.0 * 322;
    thumb.job.jpeg_entropy_pixels = 4898.0 * 2576;
    for (int pipelined = 0; pipelined <= 1; pipelined++) {
        thumb.pipelined = pipelined;
        expect_with(&c, pipelined ? "a served thumbnail's batch of one" : "a served thumbnail", &thumb,
                    GI_DEVICE_CUDA, 1);
    }
    gi__plan one, many;
    gi__plan_device(&thumb, &c, &one);
    thumb.images = 1000;
    gi__plan_device(&thumb, &c, &many);
    th_check(one.cpu_ms > 4898.0 * 2576 * 5.6 / 1e6 && many.cpu_ms < one.cpu_ms / 8,
             "a deferred scan's Huffman codes: one image %s, one of 1000 in a pipeline %s", one.reason,
             many.reason);
}

int main(void)
{
    check_job_of_hint();
    check_jpeg();
    check_context();
    gi__plan_input in = job(GI_OP_SOBEL, 1, 3640, 2400, 3);
    expect("one 9 MP photo, sobel, 16 threads", &in, GI_DEVICE_CPU, 0);
    in = job(GI_OP_TRANSFORM, 1, 3840, 2400, 3);
    expect("one 9 MP photo, transpose", &in, GI_DEVICE_CPU, 0);
    in = job(GI_OP_BLUR, 401, 8660, 5773, 3);
    expect("radius-200 blur on 50 MP", &in, GI_DEVICE_CUDA, 1);
    in = job(GI_OP_CONVOLVE, 31 * 31, 8192, 6144, 3);
    expect("31x31 convolve on 50 MP", &in, GI_DEVICE_CUDA, 1);

    /* A long batch repays the start-up even where one image would not:
     * the bridge takes the first images while CUDA starts. */
    in = job(GI_OP_SOBEL, 1, 3640, 2400, 3);
    in.images = 1000;
    in.pipelined = 1;
    expect("1000 photos, sobel, first image", &in, GI_DEVICE_CPU, 1);
    in.cuda = GI__CUDA_READY;
    expect("1000 photos, sobel, CUDA ready", &in, GI_DEVICE_CUDA, 1);
    in.images = 2;
    in.cuda = GI__CUDA_COLD;
    expect("2 photos, sobel", &in, GI_DEVICE_CPU, 0);

    /* Two lanes of 8 threads compute two images at once: the CPU's time
     * for the batch is half of one lane's, which keeps a small folder off
     * a GPU that would not repay its start-up and teardown. */
    in = job(GI_OP_BLUR, 13, 3640, 2400, 3);
    in.images = 20;
    in.pipelined = 1;
    in.cpu_threads = 8;
    in.cpu_lanes = 1;
    expect("20 photos, blur sigma 2, one lane of 8 threads", &in, GI_DEVICE_CPU, 1);
    in.cpu_lanes = 2;
    expect("20 photos, blur sigma 2, two lanes of 8 threads", &in, GI_DEVICE_CPU, 0);
    in.images = 1000;
    expect("1000 photos, blur sigma 2, two lanes of 8 threads", &in, GI_DEVICE_CPU, 1);
    /* ...and the lanes stage their images side by side too: 8 lanes of 2
     * threads on 16 cores repay CUDA for 400 photos as 4 lanes of 4 do
     * (the CUDA total once charged every image's staging copies to one
     * lane's threads: 8 or 16 lanes planned the CPU and took 3.2 s where
     * 4 lanes took 1.0). */
    in.images = 400;
    in.cuda = GI__CUDA_COLD;
    const gi__device_costs *measured = gi__device_costs_default();
    in.cpu_threads = 4;
    in.cpu_lanes = 4;
    expect_with(measured, "400 photos, blur sigma 2, 4 lanes of 4 threads", &in, GI_DEVICE_CPU, 1);
    in.cpu_threads = 2;
    in.cpu_lanes = 8;
    expect_with(measured, "400 photos, blur sigma 2, 8 lanes of 2 threads", &in, GI_DEVICE_CPU, 1);
    in.cpu_threads = 1;
    in.cpu_lanes = 16;
    expect_with(measured, "400 photos, blur sigma 2, 16 lanes of 1 thread", &in, GI_DEVICE_CPU, 1);

    /* Started: no start-up left to repay. */
    in = job(GI_OP_BLUR, 25, 6000, 4000, 3);
    in.cpu_threads = 8;
    expect("24 MP blur sigma 4, CUDA not started", &in, GI_DEVICE_CPU, 0);
    in.cuda = GI__CUDA_READY;
    expect("24 MP blur sigma 4, CUDA ready", &in, GI_DEVICE_CUDA, 1);
    in.cuda = GI__CUDA_STARTING;
    in.since_start_ms = 240;
    expect("24 MP blur sigma 4, CUDA nearly started", &in, GI_DEVICE_CUDA, 1);
    in.cuda = GI__CUDA_COLD;
    in.since_start_ms = 0;
    in.cpu_threads = 4;
    expect("24 MP blur sigma 4 on 4 threads", &in, GI_DEVICE_CPU, 0);
    in.ready_in_ms = 245;
    expect("24 MP blur sigma 4 on 4 threads, start-up hidden behind decoding", &in,
           GI_DEVICE_CUDA, 1);

    /* A chain: the copies are paid once, the steps add up. */
    in = job(GI_OP_BLUR, 25, 6000, 4000, 3);
    in.cpu_threads = 8;
    in.cuda = GI__CUDA_READY;
    in.job.n = 3;
    in.job.steps[1] = in.job.steps[0];
    in.job.steps[2] = (gi__plan_step){GI_OP_SOBEL, 1, 6000, 4000, 3};
    expect("24 MP blur, blur, sobel, CUDA ready", &in, GI_DEVICE_CUDA, 1);

    /* No GPU: nothing goes to CUDA, however heavy. */
    in = job(GI_OP_BLUR, 401, 8660, 5773, 3);
    in.cuda = GI__CUDA_ABSENT;
    in.images = 1000;
    expect("no GPU, radius-200 blur, 1000 images", &in, GI_DEVICE_CPU, 0);

    /* A 1-thread machine sends a moderate job to a started GPU sooner. */
    in = job(GI_OP_SOBEL, 1, 3640, 2400, 3);
    in.cpu_threads = 1;
    in.cuda = GI__CUDA_READY;
    expect("9 MP sobel on 1 thread, CUDA ready", &in, GI_DEVICE_CUDA, 1);
    return th_finish();
}
