/* Where an image runs, decided in one place: for the context (which
 * backend runs a piece of work, and whether CUDA starts for the images to
 * come), for the job (where a JPEG's decoding stops and goes on), for the
 * batch (where its codec workers send a JPEG) and for a failed run (whether
 * it runs again on the CPU). The callers gather what they know (their
 * device, where CUDA stands, their threads) and act on the answer; the
 * times come from the cost model (device_plan.h), the forced choices from
 * the environment (overrides.h), each given as an argument, so that the
 * tests ask with costs and overrides of their own. */
#ifndef GI_ROUTE_H
#define GI_ROUTE_H

#include <stddef.h>

#include "device_plan.h"
#include "gpuimg.h"
#include "base/overrides.h"

/* ---------------------------------------------------------------- steps */

/* The device a context settles on before it knows any work (AUTO is lazy;
 * gi_context_backend asks): 1 for CUDA when it was asked for, or under
 * AUTO unless a plan hint's plan chose the CPU; 0 for the CPU. */
int gi__route_settles_on_cuda(gi_device requested, int hinted, int plan_says_cuda);

/* What AUTO does with one piece of work. */
typedef enum gi__run {
    GI__RUN_CPU = 0,
    GI__RUN_CPU_START_CUDA, /* on the CPU, but CUDA repays its start over the
                               images to come: start it in the background */
    GI__RUN_CUDA,           /* on CUDA, waiting for its start if need be */
} gi__run;

/* AUTO, for the work in `in` (its plan in *plan, with the reason). */
gi__run gi__route_work(const gi__plan_input *in, const gi__device_costs *costs, gi__plan *plan);

/* AUTO, for work the cost model has no rates for: on CUDA when it is
 * started already, else on the CPU. */
gi__run gi__route_unknown_work(gi__cuda_phase cuda);

/* After a run that failed with `st`: 1 when it runs again on the CPU,
 * under AUTO where the device ran out of memory. */
int gi__route_retries_on_cpu(gi_device requested, gi_status st, int ran_on_cpu);

/* ---------------------------------------------------------------- GPUs */

/* One GPU of a batch, as its lanes stand. */
typedef struct gi__gpu_load {
    int index;       /* its CUDA device index (for the reason) */
    double rate;     /* its speed (gi__plan_gpu_rate) */
    double queued;   /* the work its lanes hold now, in megapixels */
    int free_lanes;  /* its lanes waiting for work */
    int open;        /* it has lanes; 0: still opening, or failed */
} gi__gpu_load;

/* The GPU that finishes an image of `work` megapixels first: the least
 * (queued + work) / rate among the open ones, one with a free lane before
 * one without at a tie, then the lower position. Returns its position in
 * gpus[0..n), or -1 when none is open; why gets "gpu N: ..." with the
 * estimates. One GPU: that one. */
int gi__route_gpu(const gi__gpu_load *gpus, int n, double work, char *why, size_t why_size);

/* ---------------------------------------------------------------- JPEGs */

/* Where a JPEG input's arithmetic half runs when the job's steps run on
 * CUDA: on the device (the decode stops at the coefficients and the
 * backend reconstructs: gi__job_apply_jpeg) or on the host, as for every
 * other input. */
typedef struct gi__jpeg_route {
    int on_cuda;  /* the steps will run on CUDA; 0: pixels on the host, always */
    int planned;  /* the plan weighs each file (gi__plan_jpeg_route); 0: every
                     JPEG the entropy half takes goes to the device */
    int cores, lanes, pipelined; /* the plan's view of the engine */
    int encodes_jpeg; /* the result leaves as an exact JPEG, which the device would
                         encode too (gi__chain_jpeg_out); set by the caller */
    int entropy_on_host; /* the Huffman decoding stays on the host although the
                            device could take it: a batch's lanes have images
                            waiting, so the GPUs bound it and the codec
                            worker's core is free (set by the caller) */
} gi__jpeg_route;

/* What a context or a batch knows of where its steps will run. */
typedef struct gi__route_engine {
    gi_device requested;
    int cuda_planned; /* AUTO: a plan chose CUDA for the images to come, or
                         CUDA is started already */
    int cores, lanes, pipelined; /* copied into the route */
} gi__route_engine;

/* The route of the JPEGs decoded now: on_cuda where CUDA was asked for or
 * AUTO planned it; planned unless it was asked for. */
void gi__route_jpeg(const gi__route_engine *engine, gi__jpeg_route *route);

/* A JPEG on a route with on_cuda: 1 when its arithmetic half runs on the
 * device, 0 on the host. GPUIMG_JPEG_ARITHMETIC decides when set; an
 * unplanned route sends every file; else the plan weighs `in` (NULL: the
 * steps' result size is unknown, the host). why gets the reason, or "". */
int gi__route_jpeg_arithmetic(const gi__overrides *o, const gi__jpeg_route *route,
                              const gi__jpeg_route_input *in, const gi__device_costs *costs,
                              char *why, size_t why_size);

/* A batch of JPEGs shrunk on load (thumbnails) whose lanes' plan chose the
 * CPU: 1 under AUTO where GPUs open lanes beside the cores, which take
 * whole files, Huffman decoding included (gi__plan_gpu_helpers). */
int gi__route_gpu_helpers(gi_device requested, long images, double frame_pixels, int cores,
                          const gi__device_costs *costs);

/* A codec worker's next input in such a batch: 1 when it goes to the GPUs'
 * lanes (*route then sends a JPEG to the device whole), 0 when the cores
 * decode it. The lanes take a file while fewer of theirs wait than they
 * have lanes open: enough to keep each busy, and no more, so that the
 * cores never wait while files queue for the GPUs. */
int gi__route_to_helpers(int lanes_open, int files_waiting, int cores, gi__jpeg_route *route);

/* Which of a batch's decoded jobs a compute lane takes: the head (and a
 * GPU's lane only where its GPU finishes it first), only jobs the CPU
 * computes at its pace (none decoded for the device: the CPU would decode
 * their Huffman codes all over again), or the first job decoded for the
 * device before the head. The bridge, and every lane beside helper lanes
 * (the GPUs' lanes beside a thumbnail batch on the CPU, while any is open
 * or opening), take the CPU's; where lanes on CUDA and on the CPU compute
 * side by side (a served batch: its first lane on the server's warm
 * context and its GPU's added lanes, its other first lanes on fresh
 * contexts that planned the CPU), the lanes on CUDA take the device's
 * jobs first and the CPU's lanes leave those to them (a served batch of
 * 1000 thumbnails had its CPU lanes decode 133 files meant for the GPU
 * whole so). */
typedef enum { GI__TAKE_HEAD, GI__TAKE_HOST_JOBS, GI__TAKE_DEVICE_JOBS_FIRST } gi__lane_take;
gi__lane_take gi__route_lane_take(int bridge, int on_cuda, int helper_lanes, int cuda_lanes,
                                  int cpu_lanes);

/* Whether a JPEG that shrinks on load (a thumbnail's) decodes whole on the
 * host although its route goes to the device: where the plan weighs the
 * files and the batch's lanes have images waiting (entropy_on_host), its
 * Huffman decoding is on the host either way, and that is nearly all of a
 * shrunk file's work; the reduced IDCT left to the device would cost the
 * cores little, and the lanes' time more (it kept a served batch of 1000
 * thumbnails from gaining anything by its warm GPU). The lanes are left the
 * files they take whole. GPUIMG_JPEG_ARITHMETIC and GPUIMG_JPEG_ENTROPY
 * keep the files where they say. */
int gi__route_shrunk_on_host(const gi__overrides *o, const gi__jpeg_route *route,
                             int shrinks_jpeg);

/* Whether a JPEG sent to the device leaves its Huffman decoding to the
 * device too (jpeg_deferred.h): GPUIMG_JPEG_ENTROPY decides when set, else
 * the route (entropy_on_host). The bytes are the same either way. */
int gi__route_defers_entropy(const gi__overrides *o, const gi__jpeg_route *route);

#endif
