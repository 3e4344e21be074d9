/* Writing a histogram as text, CSV or JSON (formats in README.md). */
#ifndef GPUIMG_HIST_FORMAT_H
#define GPUIMG_HIST_FORMAT_H

#include <stdio.h>

#include "gpuimg.h"

typedef enum { HIST_TEXT, HIST_CSV, HIST_JSON } hist_format;

typedef struct {
    const char *source; /* as given on the command line */
    int width, height;
    const gi_histogram *hist;
    const gi_channel_stats *stats; /* one per channel, or NULL */
} hist_report;

void hist_write(FILE *out, hist_format format, const hist_report *r);

#endif
