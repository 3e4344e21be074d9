/* The cost model behind GI_DEVICE_AUTO: which device finishes a job first.
 *
 * A pure function of the job (operation, taps, image size, channels), the
 * CPU threads, the images still to come, the state of CUDA and a table of
 * costs. The CPU's time is the operation's measured cost per pixel and
 * thread, divided by the threads. CUDA's is what is left of its start-up,
 * plus the copies to and from the device, plus the kernel. lib/engine/context.c
 * asks it before every operation under AUTO; tests ask it with costs of
 * their own. Where each default cost comes from: device_plan.c. */
#ifndef GI_DEVICE_PLAN_H
#define GI_DEVICE_PLAN_H

#include "gpuimg.h"

/* One step of an image's work. */
typedef struct gi__plan_step {
    gi_op_kind kind;
    int taps;         /* blur: 2R + 1 (per pass); convolve: mask width x height; else 1 */
    int width, height, channels; /* the step's source */
} gi__plan_step;

/* One image's work: a chain of steps, its source uploaded once and its
 * result downloaded once. */
typedef struct gi__plan_job {
    int n;                              /* 1..GI_MAX_STEPS */
    gi__plan_step steps[GI_MAX_STEPS];
    double out_bytes;                   /* the result (a histogram: its counts) */
    /* A source that is a JPEG's coefficients (backend.h, run_chain_from_jpeg):
     * its pixels, which the backend reconstructs first, and the bytes that
     * go up instead of steps[0]'s pixels. 0: a source of pixels. */
    double jpeg_pixels, jpeg_coeff_bytes;
    /* Its pixels again where its scan is deferred (jpeg_deferred.h): the
     * Huffman decoding is the backend's too. 0: decoded already. */
    double jpeg_entropy_pixels;
    /* A result that leaves as an exact JPEG file (backend.h,
     * gi__chain_jpeg_out): its pixels, which CUDA encodes on the device
     * (only the file comes down) and the CPU with our writer. 0: none. */
    double jpeg_out_pixels;
} gi__plan_job;

/* Where CUDA stands. */
typedef enum gi__cuda_phase {
    GI__CUDA_ABSENT = 0, /* not built, no device, or its start failed */
    GI__CUDA_COLD,       /* not started: the whole start-up is still to pay */
    GI__CUDA_STARTING,   /* starting in the background, since since_start_ms */
    GI__CUDA_READY
} gi__cuda_phase;

typedef struct gi__plan_input {
    gi__plan_job job;
    long images;          /* images still to come, this one included (>= 1) */
    int cpu_threads;      /* >= 1 */
    gi__cuda_phase cuda;
    double since_start_ms; /* GI__CUDA_STARTING: how long ago the start began */
    double ready_in_ms;   /* until this image's pixels are ready (its decoding);
                             a start-up under way meanwhile is hidden behind it */
    int pipelined;        /* other threads decode and encode other images meanwhile */
    int cpu_lanes;        /* pipelined: the compute lanes that share the cores, each
                             with cpu_threads, working on images side by side
                             (0 counts as 1) */
    int planned_ahead;    /* a plan hint planned the images to come (from the
                             batch's median input): while CUDA is cold, this
                             image starts it only where it alone repays the
                             start, never by counting its cost for them all */
} gi__plan_input;

/* Costs of one machine. CPU rates are per pixel, for one thread of a pool
 * in which every thread works (so memory-bound operations carry their
 * share of a shared bus), by channel count: ns = base + tap * taps. */
typedef struct gi__rate {
    double base_ns, tap_ns;
} gi__rate;

#define GI__OP_KINDS (GI_OP_CROP + 1)

typedef struct gi__device_costs {
    gi__rate cpu[GI__OP_KINDS][4]; /* [gi_op_kind][channels - 1] */
    double cpu_call_ms;      /* starting and joining the threads of one step */
    double cuda_start_ms;    /* driver, device, context, kernel probe */
    double pin_gbps;         /* pinning the staging buffers of the first image */
    double cuda_exit_ms;     /* the teardown at process exit, once CUDA has started */
    double upload_gbps;      /* host image -> device, the copy into pinned memory included */
    double download_gbps;    /* device -> host image, the copy out of pinned memory included */
    double staging_gbps;     /* one host thread's copies into and out of pinned memory */
    gi__rate gpu[GI__OP_KINDS][4]; /* kernel, per pixel of the whole GPU */
    double gpu_launch_ms;    /* a chain's launches and synchronisation, modules loaded */
    /* The exact JPEG decoder, per pixel (gi__plan_jpeg_route) */
    double cpu_jpeg_reconstruct_ns; /* its arithmetic half on one core */
    double cpu_jpeg_rest_ns; /* a codec worker's other work on a JPEG: reading, the
                                entropy half, our writer, writing */
    double gpu_jpeg_reconstruct_ns; /* the arithmetic half's kernels, of the whole GPU */
    double cpu_jpeg_entropy_ns; /* the Huffman decoding of a baseline scan on one core (a
                                   part of cpu_jpeg_rest_ns) */
    double gpu_jpeg_entropy_ns; /* the same on the GPU (jpeg_deferred.h), of the whole GPU */
    double cpu_jpeg_shrink_ns; /* a codec worker's whole work on a JPEG shrunk on load (a
                                  thumbnail): reading, the Huffman decoding past the ACs it
                                  skips, the reduced IDCT; per pixel of its frame, on a core
                                  of a pool where every core works */
    /* The exact JPEG writer, per pixel of its image */
    double cpu_jpeg_encode_ns; /* on one core */
    double gpu_jpeg_encode_ns; /* its kernels and the file's way down, of the whole GPU */
} gi__device_costs;

/* The measured costs of the reference machine (device_plan.c says which). */
const gi__device_costs *gi__device_costs_default(void);

typedef struct gi__plan {
    gi_device device;   /* GI_DEVICE_CPU or GI_DEVICE_CUDA, for this image */
    int use_cuda;       /* CUDA pays over the images to come: start it (in the
                           background) if it is not started */
    double cpu_ms;      /* this image on the CPU */
    double cuda_ms;     /* this image on CUDA: startup_ms + copy_ms + kernel_ms */
    double startup_ms, copy_ms, kernel_ms;
    char reason[200];   /* one line: the choice, both estimates, the parts */
} gi__plan;

void gi__plan_device(const gi__plan_input *in, const gi__device_costs *costs, gi__plan *out);

/* A GPU's speed against the reference machine's (1: the same), for
 * spreading a batch over GPUs (route.h, gi__route_gpu): the kernels, the
 * device codecs and their launches are measured on the reference's H100
 * with its 132 multiprocessors, and scale with a GPU's multiprocessors;
 * 0 (unknown) counts as the reference's. */
double gi__plan_gpu_rate(int multiprocessors);

/* The compute lanes a GPU gets in a batch that runs on CUDA. A lane runs
 * one image at a time (its copies, its kernels, then the host's share of
 * the JPEG writer, in turn), so a GPU keeps busy only with several: one
 * lane for each 100 images of the batch, between `base` (the lanes the
 * batch opens before its plan) and GI__GPU_LANES_MAX, and no more than
 * fit in half of `device_memory` at 16 bytes for each of the median
 * image's `samples` (width x height x channels); 0 for either: unknown,
 * not bounding. device_plan.c says where the figures come from. */
#define GI__GPU_LANES_MAX 12
int gi__plan_gpu_lanes(long images, double samples, double device_memory, int base);

/* A batch whose plan chose the CPU for JPEGs shrunk on load: 1 where GPUs
 * pay as lanes beside the cores, taking whole files (their Huffman
 * decoding, nearly all of the cores' time on a thumbnail, included), 0
 * otherwise. They pay where the batch on the cores (`images` of
 * `frame_pixels`, `cores` codec workers) lasts several times CUDA's
 * start-up and its teardown at exit, which the lanes' first images wait
 * for and the process pays after its last. device_plan.c says where the
 * figures come from. */
int gi__plan_gpu_helpers(long images, double frame_pixels, int cores, const gi__device_costs *costs);

/* A JPEG whose steps run on CUDA (the lane's context is CUDA's): whether
 * its arithmetic half runs there too, the codec worker decoding only to
 * coefficients (route 1), or on the codec worker, the lane uploading
 * pixels (route 0). In a pipeline, each route costs an image the slower of
 * its two sides: the codec workers' cores and the lanes' staging copies
 * (plus, for route 1, the kernels); one image alone costs the sum. Fills
 * `reason` with both estimates. */
typedef struct gi__jpeg_route_input {
    double pixels;       /* the frame's (the Huffman decoding's and the reading's) */
    double reconstructed; /* the decoded image's, when shrunk on load (the arithmetic
                            half's); 0: the frame's */
    double pixel_bytes;  /* ...its bytes, which route 0 uploads */
    double coeff_bytes;  /* its coefficients, which route 1 uploads (or its deferred
                            scan's bytes) */
    int deferred;        /* the scan's Huffman decoding is deferred: route 1 runs it
                            on the device, route 0 on the cores after all */
    double out_bytes;    /* the steps' result, downloaded either way... */
    int encodes_jpeg;    /* ...unless it leaves as an exact JPEG: then route 1 encodes
                            it on the device, route 0 on a codec worker */
    double out_pixels;   /* the result's pixels (the writer's rates are per pixel) */
    int cores;           /* the codec workers in a pipeline; one image's threads (>= 1) */
    int lanes;           /* compute lanes, each staging on one thread (>= 1) */
    int pipelined;       /* images overlap: codec workers and lanes run side by side */
} gi__jpeg_route_input;
int gi__plan_jpeg_route(const gi__jpeg_route_input *in, const gi__device_costs *costs,
                        char *reason, size_t reason_size);

#endif
