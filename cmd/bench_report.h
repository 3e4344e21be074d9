/* The table (or JSON) that gpuimg bench prints. */
#ifndef GPUIMG_BENCH_REPORT_H
#define GPUIMG_BENCH_REPORT_H

#include "gpuimg.h"

typedef struct {
    int json;
    int rows;
    double copy_gbs; /* bytes read + written per second / 1e9 */
} bench_report;

/* Measures the copy bandwidth and prints the header. Returns an exit code. */
int bench_report_open(bench_report *r, gi_context *ctx, int json);
/* out_channels 0: the operation writes no image (hist); sample_bytes 1
 * or 2 (16 bits). */
void bench_report_row(bench_report *r, const char *op, const char *border, int w, int h, int ch,
                      int out_channels, int sample_bytes, double ms);
void bench_report_close(bench_report *r);

#endif
