/* One image's way through a command: read and decode, the operation,
 * encode and write. The single-image path runs the three steps in turn;
 * the batch pipeline (batch_pipeline.c) runs them on different threads. */
#ifndef GPUIMG_IMAGE_JOB_H
#define GPUIMG_IMAGE_JOB_H

#include "batch_inputs.h"
#include "run_images.h"

typedef struct {
    batch_item *item;    /* input and output paths; gets status, reason, times */
    gi_image src, dst;
    char note[600];      /* why the operation fell back to the CPU, or "" */
} image_job;

/* Each step returns 0, or -1 after setting the item's status to failed and
 * its reason to a line naming the file. A failed job's images are freed. */
int image_job_decode(const cli_common *c, image_job *job);
int image_job_compute(gi_context *ctx, image_op op, const void *settings, image_job *job);
/* Writes atomically; makes the directories below c->output_dir first. */
int image_job_encode(const cli_common *c, image_job *job);

/* The output format: --format, else the name's extension. */
gi_format output_format(const cli_common *c, const char *path);

/* Marks a job that cannot run at all (no backend, refused input). */
void image_job_fail(image_job *job, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void image_job_release(image_job *job);

/* "IN -> OUT (T ms: decode a, upload b, ...)" for -v. */
void image_job_describe(const image_job *job, char *text, size_t size);

#endif
