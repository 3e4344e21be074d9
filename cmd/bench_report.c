/* Formatting benchmark results: a table for people, JSON for scripts. */
#include <stdio.h>
#include <string.h>

#include "bench_report.h"
#include "options.h"
#include "timing.h"

static void describe_device(gi_context *ctx, char *out, size_t size)
{
    gi_device_info info;
    if (strcmp(gi_context_backend(ctx), "cuda") == 0 && gi_cuda_device_info(0, 0, &info) == GI_OK)
        snprintf(out, size, "%s (compute capability %d.%d)", info.name, info.cc_major, info.cc_minor);
    else
        snprintf(out, size, "CPU");
}

int bench_report_open(bench_report *r, gi_context *ctx, int json)
{
    char device[300];
    memset(r, 0, sizeof *r);
    r->json = json;
    const char *failed = bench_copy(ctx, &r->copy_gbs);
    if (failed) {
        fprintf(stderr, "gpuimg bench: copy bandwidth: %s\n", failed);
        return EXIT_FAIL;
    }
    describe_device(ctx, device, sizeof device);
    if (json) {
        printf("{\n  \"backend\": \"%s\",\n  \"device\": \"%s\",\n  \"copy_gbytes_per_s\": %.1f,\n"
               "  \"rows\": [",
               gi_context_backend(ctx), device, r->copy_gbs);
        return EXIT_OK;
    }
    printf("gpuimg %s bench on %s, backend %s\n", GI_VERSION_STRING, device, gi_context_backend(ctx));
    printf("copy bandwidth %.1f GB/s (read + write); median of repetitions after warm-up\n\n",
           r->copy_gbs);
    return EXIT_OK;
}

void bench_report_row(bench_report *r, const char *op, const char *border, int w, int h, int ch,
                      int out_channels, int sample_bytes, double ms)
{
    double pixels = (double)w * h;
    double bytes = (pixels * ch + pixels * out_channels) * sample_bytes;
    double gbs = bytes / (ms * 1e6), floor_ms = bytes / (r->copy_gbs * 1e6);
    if (r->json) {
        /* Significant digits, not decimals: a small image's floor on a fast
         * GPU is a few nanoseconds, which fixed decimals would print as 0. */
        printf("%s\n    {\"op\": \"%s\", \"border\": \"%s\", \"width\": %d, \"height\": %d, "
               "\"channels\": %d, \"ms\": %.6g, \"gpixels_per_s\": %.3f, \"gbytes_per_s\": %.1f, "
               "\"percent_of_copy\": %.1f, \"floor_ms\": %.6g}",
               r->rows ? "," : "", op, border, w, h, ch, ms, pixels / (ms * 1e6), gbs,
               100 * gbs / r->copy_gbs, floor_ms);
    } else {
        if (!r->rows)
            printf("%-10s %-9s %11s %2s %10s %9s %9s %7s %10s %7s\n", "op", "border", "size", "ch",
                   "ms", "Gpix/s", "GB/s", "% copy", "floor ms", "x floor");
        char size[32];
        snprintf(size, sizeof size, "%dx%d", w, h);
        printf("%-10s %-9s %11s %2d %10.4f %9.2f %9.1f %7.1f %10.4f %7.2f\n", op, border, size, ch,
               ms, pixels / (ms * 1e6), gbs, 100 * gbs / r->copy_gbs, floor_ms, ms / floor_ms);
    }
    r->rows++;
}

void bench_report_close(bench_report *r)
{
    if (r->json) printf("\n  ]\n}\n");
}
