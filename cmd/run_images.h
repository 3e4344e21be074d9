/* The image-to-image flow shared by blur, sobel, convolve, the transforms
 * and pipe: IN OUT for one image, or -o OUTDIR IN... for a batch. */
#ifndef GPUIMG_RUN_IMAGES_H
#define GPUIMG_RUN_IMAGES_H

#include "commands.h"
#include "options.h"

/* Runs the steps on IN OUT, or on a batch (-o OUTDIR IN...) through the
 * library's batch engine. Returns the process exit status. */
int run_images(const cli_common *common, char **args, int count, const gi_op *steps,
               int n_steps);

/* A one-step command (blur, sobel, ...): parse with `parse`, then run. */
int run_step_command(int argc, char **argv, const char *name, step_parser parse);

/* Whether the pixels are turned as a viewer shows them before the steps:
 * --auto-orient, and always when a step is a transform (transpose, rotate
 * and flip act on what the viewer shows, and write Orientation 1). */
int orients_first(const cli_common *c, const gi_op *steps, int n_steps);

/* The output format: --format, else the name's extension. */
gi_format output_format(const cli_common *c, const char *path);

/* Creates a context for `common` (device, threads) and says under -v which
 * backend runs and why; prints the error and returns NULL on failure. */
gi_context *open_context(const cli_common *common, int cpu_threads);

#endif
