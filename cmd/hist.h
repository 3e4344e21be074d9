/* gpuimg hist's parts that pipe shares: its options and its output. */
#ifndef GPUIMG_HIST_H
#define GPUIMG_HIST_H

#include "hist_format.h"
#include "options.h"

typedef struct {
    int bins;
    hist_format format;
    int stats;
} hist_settings;

/* hist's own options into *s; returns CLI_RUN or an exit status. */
int parse_hist(int argc, char **argv, cli_common *common, hist_settings *s, char ***files,
               int *count);
/* Loads `in`, runs `before` (n_before steps, none for plain hist) and
 * writes the histogram report of the result to `out`. Exit status. */
int hist_file(const cli_common *c, const hist_settings *s, const char *in, const char *out,
              const gi_op *before, int n_before);

#endif
