/* The context behind the opaque gi_context: the backend it settled on, the
 * CPU backend that AUTO runs small jobs on (and falls back to when the GPU
 * runs out of memory), and AUTO's state: where CUDA stands, and the images
 * the caller said are coming. */
#ifndef GI_CONTEXT_H
#define GI_CONTEXT_H

#include <pthread.h>

#include "backend/backend.h"
#include "device_plan.h"
#include "resize_axes.h"

struct gi_context {
    gi_device requested;
    int cpu_threads;
    int gpu;                    /* the GPU its CUDA backend runs on (gi_context_options) */
    const gi__backend_ops *ops; /* the settled backend (gi_context_backend, benchmarks) */
    void *state;
    const gi__backend_ops *cpu_ops; /* created on first use */
    void *cpu_state;
    char fallback_reason[512]; /* why creation chose the CPU */
    char last_fallback[512];   /* why the last operation ran on the CPU */
    double startup_ms;         /* CUDA start-up waited for, until an operation reports it */
    gi_op_times last_times;
    const char *last_backend;  /* name of the backend of the last operation */

    /* CUDA, started at most once, maybe on a thread of its own. The
     * thread writes the fields from cuda_ops to cuda_why alone; this
     * context's thread reads them only after joining it. */
    gi__cuda_phase cuda;
    pthread_t starter;
    double start_began_ms;     /* gi__now_ms() when the start began */
    const gi__backend_ops *cuda_ops;
    void *cuda_state;
    size_t pin_in, pin_out;    /* staging buffers the start pins for the hinted images */
    int files_in, files_out;   /* the hinted images come as JPEG files, leave as JPEG
                                  files: the device takes them compressed, and nothing
                                  is staged (gi__context_hint_files) */
    gi_status cuda_status;
    double cuda_startup_ms;    /* how long the start took */
    char cuda_why[512];        /* why CUDA cannot be had */

    /* AUTO's plan: the images the caller announced (gi_context_plan_hint). */
    int hinted;
    long images_left;
    int pipelined;
    int plan_says_cuda;        /* the hint's plan: CUDA will be used */
    char last_choice[800];     /* the device of the last operation, and why */

    gi__axis_cache resize_axes; /* the recent resizes' weights (resize_axes.h) */
};

/* Chooses ctx's backend if that has not happened yet (AUTO is lazy). */
gi_status gi__context_settle(gi_context *ctx);
/* Whether ctx settles (or has settled) on CUDA, without waiting for CUDA's
 * start: 1 unless the start then fails, which leaves AUTO on the CPU. */
int gi__context_plans_cuda(const gi_context *ctx);
/* The backend that runs `work` under the context's device choice (NULL:
 * work the cost model has no rates for; see gi__dispatch). */
gi_status gi__context_backend_for(gi_context *ctx, const gi__plan_job *work,
                                  const gi__backend_ops **ops, void **state);
/* The route of a single job's JPEG input on ctx (job_flow.h): to the
 * device on a CUDA context; under AUTO, where a plan said CUDA (or it is
 * started), as the route's plan says; else pixels on the host. */
struct gi__jpeg_route;
void gi__context_jpeg_route(const gi_context *ctx, struct gi__jpeg_route *route);
/* The CPU threads of ctx's operations from now on (0: one per core):
 * a context lent to a batch takes the batch's share of the cores. */
void gi__context_set_cpu_threads(gi_context *ctx, int threads);
/* The threads the CPU backend runs, as it counts them (work on the host
 * for either backend, such as the resize weights, shares them too). */
int gi__context_cpu_threads(const gi_context *ctx);
/* Before gi_context_plan_hint: the images come as JPEG files (in) and
 * leave as JPEG files (out), so that the start pins no staging buffer for
 * their pixels: on CUDA they cross the bus compressed (jpeg_deferred.h,
 * gi__chain_jpeg_out), and pinning 50 MB a lane cost a 400-photo batch
 * 0.15 s of its 1.0. */
void gi__context_hint_files(gi_context *ctx, int in, int out);
/* Records a job that ran no operation (a change of format alone: its
 * pixels copied on the host in copy_ms) as ctx's last operation, so that
 * the last backend, times and choice are this job's, not the one before. */
void gi__context_note_host_copy(gi_context *ctx, double copy_ms);
/* The CPU backend of ctx, created on first use. */
gi_status gi__context_cpu(gi_context *ctx, const gi__backend_ops **ops, void **state);

#endif
