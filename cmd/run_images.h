/* The image-to-image flow shared by blur, sobel and the transforms:
 * IN OUT for one image, or -o OUTDIR IN... for a batch. */
#ifndef GPUIMG_RUN_IMAGES_H
#define GPUIMG_RUN_IMAGES_H

#include "options.h"

/* Runs one operation: allocates *dst (the op knows its size) and fills it. */
typedef gi_status (*image_op)(gi_context *ctx, const gi_image *src, gi_image *dst,
                              const void *settings);

/* Returns the process exit status. */
int run_images(const cli_common *common, char **args, int count, image_op op,
               const void *settings);

/* Creates a context for `common` (device, threads) and says under -v which
 * backend runs and why; prints the error and returns NULL on failure. */
gi_context *open_context(const cli_common *common, int cpu_threads);

#endif
