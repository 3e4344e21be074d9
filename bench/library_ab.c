/* library_ab LIB_A LIB_B OP CHANNELS THREADS CALLS [WIDTH HEIGHT]: one
 * operation through two builds of libgpuimg loaded side by side (dlopen
 * by path), their calls alternated one by one (the order flipped each
 * pair, each call after a pause of 1 ms), on one random 8-bit image
 * (3840x2400 unless given), in CPU contexts of THREADS threads. Prints the
 * median of CALLS calls of each: wall ms, the process's CPU ms, and B / A.
 * On a machine that others share, whole processes alternated gave ratios
 * 0.5-2 apart from round to round; calls alternated within one process
 * see the same load, and the CPU time leaves out the time the process
 * waited for a core.
 *
 * OP: blur (sigma 2, mirror), sobel (magnitude), convolve (5x5 box),
 * ssim (gi_compare of two random images), resize-third or resize-double
 * with cubic, or resize-third-lanczos3 or resize-double-linear.
 *
 * The libraries are not linked: libgpuimg's own calls to its exported
 * functions would bind to a linked copy's. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuimg.h"

#define WARMUP 2

typedef struct {
    const char *path;
    void *handle;
    gi_context *ctx;
} library;

/* Symbol name of lib, or exit. */
static void *symbol(const library *lib, const char *name)
{
    void *p = dlsym(lib->handle, name);
    if (!p) {
        fprintf(stderr, "library_ab: %s: no %s\n", lib->path, name);
        exit(1);
    }
    return p;
}

static void open_library(library *lib, const char *path, int threads)
{
    lib->path = path;
    lib->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle) {
        fprintf(stderr, "library_ab: %s\n", dlerror());
        exit(1);
    }
    void (*defaults)(gi_context_options *) = symbol(lib, "gi_context_options_default");
    gi_status (*create)(gi_context **, const gi_context_options *) = symbol(lib, "gi_context_create");
    gi_context_options o;
    defaults(&o);
    o.device = GI_DEVICE_CPU;
    o.cpu_threads = threads;
    if (create(&lib->ctx, &o) != GI_OK) {
        fprintf(stderr, "library_ab: %s: no CPU context\n", path);
        exit(1);
    }
}

/* resize-*'s parameters: the scale, and cubic unless named. */
static gi_resize_params resize_params(const char *op)
{
    gi_resize_params p = {0};
    p.scale = strstr(op, "third") ? 1.0 / 3 : 2.0;
    p.filter = strstr(op, "lanczos3") ? GI_RESIZE_LANCZOS3
               : strstr(op, "linear") ? GI_RESIZE_LINEAR
                                      : GI_RESIZE_CUBIC;
    return p;
}

/* One call of op through lib, src into dst. */
static gi_status call(const library *lib, const char *op, const gi_image *src, gi_image *dst)
{
    if (!strcmp(op, "blur")) {
        gi_status (*blur)(gi_context *, const gi_image *, gi_image *, const gi_blur_params *) =
            symbol(lib, "gi_blur");
        const gi_blur_params p = {GI_BLUR_GAUSSIAN, 2.0, -1, {GI_BORDER_MIRROR, 0}};
        return blur(lib->ctx, src, dst, &p);
    }
    if (!strcmp(op, "sobel")) {
        gi_status (*sobel)(gi_context *, const gi_image *, gi_image *, const gi_sobel_params *) =
            symbol(lib, "gi_sobel");
        const gi_sobel_params p = {1.0, 0, 0, 0, {GI_BORDER_MIRROR, 0}};
        return sobel(lib->ctx, src, dst, &p);
    }
    if (!strcmp(op, "convolve")) {
        gi_status (*convolve)(gi_context *, const gi_image *, gi_image *, const gi_convolve_params *) =
            symbol(lib, "gi_convolve");
        static const double box5[25] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
        const gi_convolve_params p = {5, 5, box5, 1, {GI_BORDER_MIRROR, 0}};
        return convolve(lib->ctx, src, dst, &p);
    }
    if (!strcmp(op, "ssim")) {
        gi_status (*compare)(gi_context *, const gi_image *, const gi_image *,
                             const gi_compare_params *, gi_compare_result *) = symbol(lib, "gi_compare");
        const gi_compare_params p = {0, 1, 0};
        gi_compare_result r;
        return compare(lib->ctx, src, dst, &p, &r);
    }
    gi_status (*resize)(gi_context *, const gi_image *, gi_image *, const gi_resize_params *) =
        symbol(lib, "gi_resize");
    const gi_resize_params p = resize_params(op);
    return resize(lib->ctx, src, dst, &p);
}

static int known_op(const char *op)
{
    static const char *const ops[] = {"blur", "sobel", "convolve", "ssim", "resize-third",
                                      "resize-double", "resize-third-lanczos3", "resize-double-linear"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(op, ops[i])) return 1;
    return 0;
}

static double now_ms(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void pause_ms(double ms)
{
    struct timespec t = {0, (long)(ms * 1e6)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A random image of lib's allocation (both libraries write into it). */
static gi_image random_image(const library *lib, int width, int height, int channels)
{
    gi_status (*alloc)(gi_image *, int, int, int) = symbol(lib, "gi_image_alloc");
    gi_image img;
    if (alloc(&img, width, height, channels) != GI_OK) {
        fprintf(stderr, "library_ab: no memory for a %dx%d image\n", width, height);
        exit(1);
    }
    for (size_t i = 0; i < img.stride * (size_t)height; i++) img.data[i] = (uint8_t)rand();
    return img;
}

int main(int argc, char **argv)
{
    if ((argc != 7 && argc != 9) || !known_op(argv[3])) {
        fprintf(stderr, "usage: library_ab LIB_A LIB_B OP CHANNELS THREADS CALLS [WIDTH HEIGHT]\n"
                        "OP: blur sobel convolve ssim resize-third resize-double\n"
                        "    resize-third-lanczos3 resize-double-linear\n");
        return 2;
    }
    const char *op = argv[3];
    const int channels = atoi(argv[4]), threads = atoi(argv[5]), calls = atoi(argv[6]);
    const int width = argc == 9 ? atoi(argv[7]) : 3840, height = argc == 9 ? atoi(argv[8]) : 2400;
    if (channels < 1 || channels > 4 || threads < 1 || calls < 1 || width < 1 || height < 1) {
        fprintf(stderr, "library_ab: channels 1..4, threads, calls and sides at least 1\n");
        return 2;
    }
    library libs[2];
    open_library(&libs[0], argv[1], threads);
    open_library(&libs[1], argv[2], threads);
    int dw = width, dh = height;
    if (!strncmp(op, "resize", 6)) {
        void (*size)(const gi_image *, const gi_resize_params *, int *, int *) =
            symbol(&libs[0], "gi_resize_size");
        const gi_image shape = {.width = width, .height = height, .channels = channels};
        const gi_resize_params p = resize_params(op);
        size(&shape, &p, &dw, &dh);
    }
    srand(1);
    const gi_image src = random_image(&libs[0], width, height, channels);
    gi_image dst = random_image(&libs[0], dw, dh, channels);
    double *wall[2], *cpu[2];
    for (int a = 0; a < 2; a++) {
        wall[a] = malloc(sizeof(double) * (size_t)calls);
        cpu[a] = malloc(sizeof(double) * (size_t)calls);
        if (!wall[a] || !cpu[a]) return 1;
        for (int w = 0; w < WARMUP; w++)
            if (call(&libs[a], op, &src, &dst) != GI_OK) {
                fprintf(stderr, "library_ab: %s: %s failed\n", libs[a].path, op);
                return 1;
            }
    }
    for (int i = 0; i < calls; i++)
        for (int k = 0; k < 2; k++) {
            const int a = i % 2 ? 1 - k : k;
            pause_ms(1);
            const double w0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
            call(&libs[a], op, &src, &dst);
            wall[a][i] = now_ms(CLOCK_MONOTONIC) - w0;
            cpu[a][i] = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
        }
    const double wa = median(wall[0], calls), wb = median(wall[1], calls);
    const double ca = median(cpu[0], calls), cb = median(cpu[1], calls);
    printf("%s %d ch %d threads: wall A %.2f B %.2f B/A %.3f  cpu A %.2f B %.2f B/A %.3f\n", op,
           channels, threads, wa, wb, wb / wa, ca, cb, cb / ca);
    return 0;
}
