/* The device path of a batch (batch_device.c): with fast codecs, JPEG
 * files go from bytes to bytes on the GPU, a group at a time. */
#ifndef GI_BATCH_DEVICE_H
#define GI_BATCH_DEVICE_H

#include "batch_image.h"
#include "work_estimate.h"

/* A CUDA context and an nvJPEG batch of `files` decodes, for one thread. */
typedef struct gi__device_lane gi__device_lane;

gi_status gi__device_lane_open(int files, gi__device_lane **out);
void gi__device_lane_close(gi__device_lane *l);
/* The lane's CUDA context, for a file that takes the host path. */
gi_context *gi__device_lane_context(gi__device_lane *l);
/* How many files one gi__device_lane_run takes at most. */
int gi__device_lane_files(const gi__device_lane *l);

/* Whether fast codecs send JPEGs to the device path on `device`: FAST
 * decoding, a device other than the CPU, nvJPEG in this build. */
int gi__device_path_asked(const gi_load_limits *limits, gi_device device);

/* One file's bytes alone, when the device path takes them (as it takes a
 * batch's files): decoded into the lane's device memory, which *src then
 * describes (data a device pointer, stride its pitch) until the lane's
 * next decode or its close; *decoded_by as gi__nvjpeg_batch_result says.
 * Fails for a file that the device path does not take or nvJPEG does not
 * decode: the host path decodes or refuses it as it would have. `bytes`
 * and `name` must stay valid as long as *src is used. */
gi_status gi__device_lane_decode(gi__device_lane *l, const uint8_t *bytes, size_t size,
                                 const char *name, const gi_load_limits *limits, gi_image *src,
                                 const char **decoded_by);

typedef enum {
    GI__DEVICE_DONE,      /* written, or failed: the item says which */
    GI__DEVICE_TO_ENCODE, /* job->dst holds the result for gi__batch_encode */
    GI__DEVICE_TO_HOST    /* not taken: the host path decodes (or refuses) it */
} gi__device_outcome;

/* gi_fast_codecs_pay over inputs that size_of reads: the header of input
 * i of `inputs`, 0, or -1 when it has none (unreadable, no input). */
typedef int (*gi__size_reader)(const void *inputs, size_t i, gi__image_size *size);
int gi__codecs_pay(gi_device device, const gi_job *job, gi__size_reader size_of,
                   const void *inputs, size_t count, char *why, size_t why_size);

/* Runs jobs[0..n) (n <= gi__device_lane_files; items admitted, nothing
 * read yet) and says how each ended. */
void gi__device_lane_run(gi__device_lane *l, const gi_batch_options *o, gi__batch_image **jobs,
                         int n, gi__device_outcome *outcome);

#endif
