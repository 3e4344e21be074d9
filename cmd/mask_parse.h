/* Reading a convolution mask from the command line or a file. */
#ifndef GPUIMG_MASK_PARSE_H
#define GPUIMG_MASK_PARSE_H

#include "gpuimg.h"

typedef struct {
    int width, height;
    double values[GI_CONVOLVE_MAX_SIZE * GI_CONVOLVE_MAX_SIZE];
} parsed_mask;

/* Rows are separated by ';' or newlines, values by blanks or commas, and
 * '#' starts a comment. Every row must have the same count. Returns 0, or -1
 * with a reason in `why`. */
int mask_parse_text(const char *text, parsed_mask *m, char *why, size_t why_size);

/* `spec` is a file name when such a file exists, else the mask text. */
int mask_parse_spec(const char *spec, parsed_mask *m, char *why, size_t why_size);

#endif
