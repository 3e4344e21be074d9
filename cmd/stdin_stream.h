/* IN = '-': standard input as a stream of images. A stream of
 * concatenated PNM/PAM images (ffmpeg -f image2pipe -vcodec ppm) gives as
 * many output images, in order, to OUT (stdout or one file, written
 * atomically); a PNG or JPEG on stdin is a stream of one. */
#ifndef GPUIMG_STDIN_STREAM_H
#define GPUIMG_STDIN_STREAM_H

#include "run_images.h"

/* Three threads joined by queues two images deep, so that reading and
 * decoding the next image, the operation and encoding and writing the
 * previous one overlap and memory stays flat for any number of images.
 * The output is opened at the first good image: a stream that fails on
 * its first image (or is empty) leaves no file. When an image fails (a
 * truncated one, say), the images before it are kept, the failure is
 * printed naming the image's number, and the exit status is 1. */
int run_stdin_stream(const cli_common *c, const char *out, const gi_op *steps, int n_steps);

#endif
