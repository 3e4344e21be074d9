/* The batch engine. Three stages joined by bounded queues, so that the
 * decoding, the operation and the encoding of different images overlap and
 * memory stays flat however many files there are:
 *
 *   codec workers: read + decode -> [decoded] -> compute lanes: upload,
 *   kernels, download -> [computed] -> codec workers: encode + write
 *
 * The codec workers serve both ends. A free worker encodes when an image
 * waits for it (draining first bounds the images in memory) and otherwise
 * decodes the next input while the decoded queue has room. Each compute
 * lane owns a gi_context: on CUDA, a stream with its device and pinned
 * buffers, reused from image to image, in the process's one CUDA context.
 * Two lanes let one image's copies overlap another's kernels. The CPU
 * backend runs in the same engine, its lanes using the cores' threads.
 *
 * Starting CUDA takes a few hundred milliseconds, in which the decoded
 * queue fills and the codec workers would stand idle. Under AUTO a bridge
 * lane computes on the CPU meanwhile, and stops once another lane has
 * finished an image. Both backends give the same bytes, so which lane took
 * an image changes nothing in the output. */
#ifndef GPUIMG_BATCH_PIPELINE_H
#define GPUIMG_BATCH_PIPELINE_H

#include <signal.h>

#include "batch_inputs.h"
#include "progress.h"
#include "run_images.h"

typedef struct {
    const cli_common *common;
    image_op op;
    const void *settings;
    int codec_workers;            /* decode/encode threads */
    int lanes;                    /* compute lanes, one context each */
    int lane_cpu_threads;         /* CPU threads of each lane's context */
    int bridge_cpu_threads;       /* 0: no bridge lane */
    volatile sig_atomic_t *stop;  /* set: start no new input, finish the rest */
} pipeline_config;

/* Runs every item of list (marking each ok, failed or skipped; the ones
 * never started after a stop stay not_started), reporting to prog. */
void pipeline_run(const pipeline_config *cfg, batch_list *list, progress *prog);

#endif
