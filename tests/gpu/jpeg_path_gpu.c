/* jpeg_path_gpu DIR...: the exact JPEG decoder's GPU path in the library.
 * For every .jpg in each DIR that the entropy half takes, the CUDA
 * backend's chain from the coefficients (run_chain_from_jpeg: upload,
 * reconstruct on the device, the steps from device memory) gives the CPU's
 * bytes from the plain decode and the same chain: blur, sobel, transpose,
 * a two-step chain and hist; and a whole job (gi_job_run_memory, JPEG out)
 * on a CUDA context, which takes this path, writes the CPU context's
 * bytes; and under AUTO with a hint that plans CUDA, likewise. Files are
 * taken in an order that alternates sizes and kinds, so that a pixel the
 * kernels failed to write would show the previous image's (the device
 * buffers are reused). No DIR: jpegs-exact/. Exits 77 without a GPU. GPUIMG_TEST_SMALL=1 (for
 * compute-sanitizer) takes files of at most 64K pixels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/file_io.h"
#include "harness.h"
#include "testimg.h"
#include "codec/jpeg/jpeg_decode.h"
#include "engine/ops.h"
#include "base/pixel_alloc.h"

static int small_only, files_taken;

static void check_chain(gi_context *cpu, gi_context *cuda, const char *path, const char *what,
                        const gi_image *px, const gi_jpeg_coeffs *c, const gi_op *steps, int n)
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
    /* Poisoned, so that a row the download skipped shows. */
    if (!hist) memset(got.data, 0xA5, got.stride * (size_t)got.height);
    gi_status a = gi_apply(cpu, px, steps, n, &want, &want_h);
    gi_status b = gi__apply_jpeg(cuda, c, steps, n, &got, &got_h, NULL);
    if (th_check(a == GI_OK && b == GI_OK, "%s: %s: statuses %d and %d (%s)", path, what, a, b,
                 gi_last_error())) {
        th_check(strcmp(gi_context_last_backend(cuda), "cuda") == 0, "%s: %s ran on %s", path,
                 what, gi_context_last_backend(cuda));
        if (hist)
            th_check(memcmp(&want_h, &got_h, sizeof want_h) == 0, "%s: %s: histograms differ",
                     path, what);
        else
            th_check(ti_same(&want, &got, why, sizeof why), "%s: %s: differs from the CPU: %s",
                     path, what, why);
    }
    gi_image_free(&want);
    gi_image_free(&got);
}

/* A whole job, bytes to bytes, on two contexts: the same bytes. */
static void check_job(gi_context *cpu, gi_context *cuda, const char *path, const char *what,
                      const uint8_t *bytes, size_t size)
{
    gi_op step;
    gi_job job;
    ti_blur_job(&job, &step, GI_FORMAT_JPEG);
    job.auto_orient = 1;
    uint8_t *want = NULL, *got = NULL;
    size_t want_size = 0, got_size = 0;
    gi_status a = gi_job_run_memory(cpu, &job, bytes, size, path, &want, &want_size, NULL);
    gi_status b = gi_job_run_memory(cuda, &job, bytes, size, path, &got, &got_size, NULL);
    if (th_check(a == GI_OK && b == GI_OK, "%s: %s: statuses %d and %d (%s)", path, what, a, b,
                 gi_last_error()))
        th_check(want_size == got_size && memcmp(want, got, want_size) == 0,
                 "%s: %s: the JPEG written differs from the CPU's", path, what);
    gi_free(want);
    gi_free(got);
}

static void check_file(gi_context *cpu, gi_context *cuda, gi_context *planned, const char *path)
{
    uint8_t *bytes;
    size_t size;
    if (!th_check(gi__read_file(path, 1u << 30, &bytes, &size) == GI_OK, "%s: read", path)) return;
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    if (small_only) limits.max_pixels = 65536;
    gi_jpeg_coeffs c;
    gi_image px = {0};
    if (gi__load_jpeg_coeffs(bytes, size, &limits, 0, &c) &&
        th_check(gi_load_memory(&px, bytes, size, path, &limits) == GI_OK, "%s: decode", path)) {
        files_taken++;
        gi_op blur = {.kind = GI_OP_BLUR}, sobel = {.kind = GI_OP_SOBEL};
        gi_blur_params_default(&blur.blur);
        blur.blur.sigma = 2;
        gi_sobel_params_default(&sobel.sobel);
        const gi_op transpose = {.kind = GI_OP_TRANSFORM, .transform = GI_TRANSPOSE};
        const gi_op hist = {.kind = GI_OP_HIST, .bins = 256};
        const gi_op two[2] = {sobel, {.kind = GI_OP_TRANSFORM, .transform = GI_ROTATE_90}};
        check_chain(cpu, cuda, path, "blur", &px, &c, &blur, 1);
        check_chain(cpu, cuda, path, "sobel", &px, &c, &sobel, 1);
        check_chain(cpu, cuda, path, "transpose", &px, &c, &transpose, 1);
        check_chain(cpu, cuda, path, "sobel, rotate", &px, &c, two, 2);
        check_chain(cpu, cuda, path, "hist", &px, &c, &hist, 1);
        check_job(cpu, cuda, path, "job on CUDA", bytes, size);
        check_job(cpu, planned, path, "job under AUTO, CUDA planned", bytes, size);
    }
    gi__jpeg_coeffs_free(&c);
    gi_image_free(&px);
    gi__pixels_free(bytes);
}

typedef struct {
    gi_context *cpu, *cuda, *planned;
} contexts;

/* Each file of a folder, on the three contexts. */
static void check_path(const char *path, void *arg)
{
    const contexts *c = arg;
    check_file(c->cpu, c->cuda, c->planned, path);
}

int main(int argc, char **argv)
{
    const char *why;
    if (gi_cuda_device_count(&why) == 0) {
        printf("skip: %s\n", why);
        return 77;
    }
    small_only = getenv("GPUIMG_TEST_SMALL") && strcmp(getenv("GPUIMG_TEST_SMALL"), "1") == 0;
    gi_context *cpu, *cuda, *planned;
    gi_context_options cpu_opts = {GI_DEVICE_CPU, 0, 0}, cuda_opts = {GI_DEVICE_CUDA, 0, 0},
                       auto_opts = {GI_DEVICE_AUTO, 0, 0};
    if (gi_context_create(&cpu, &cpu_opts) != GI_OK || gi_context_create(&cuda, &cuda_opts) != GI_OK ||
        gi_context_create(&planned, &auto_opts) != GI_OK) {
        fprintf(stderr, "contexts: %s\n", gi_last_error());
        return 1;
    }
    /* A heavy batch announced: the plan starts CUDA, and a job's JPEG is
     * routed by gi__plan_jpeg_route. */
    gi_op heavy = {.kind = GI_OP_BLUR};
    gi_blur_params_default(&heavy.blur);
    heavy.blur.sigma = 20;
    gi_plan_hint hint = {.images = 1000, .steps = &heavy, .n_steps = 1, .width = 3840,
                         .height = 2400, .channels = 3};
    th_check(gi_context_plan_hint(planned, &hint) == GI_OK, "plan hint: %s", gi_last_error());
    /* Without arguments (compute-sanitizer's runs), jpegs-exact/. */
    contexts all = {cpu, cuda, planned};
    if (argc < 2) ti_each_jpeg_alternating(EXACT_JPEGS, check_path, &all);
    for (int i = 1; i < argc; i++) ti_each_jpeg_alternating(argv[i], check_path, &all);
    th_check(files_taken > 0, "no JPEG taken by the entropy half");
    printf("%d JPEGs through the GPU path\n", files_taken);
    gi_context_destroy(planned);
    gi_context_destroy(cuda);
    gi_context_destroy(cpu);
    return th_finish();
}
