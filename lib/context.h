/* The context behind the opaque gi_context: the chosen backend, plus the
 * CPU backend that AUTO falls back to when the GPU runs out of memory. */
#ifndef GI_CONTEXT_H
#define GI_CONTEXT_H

#include "backend.h"

struct gi_context {
    gi_device requested;
    int cpu_threads;
    const gi__backend_ops *ops;
    void *state;
    const gi__backend_ops *cpu_ops; /* created on first fallback */
    void *cpu_state;
    char fallback_reason[512]; /* why creation chose the CPU */
    char last_fallback[512];   /* why the last operation ran on the CPU */
    double startup_ms;         /* CUDA start-up, until an operation reports it */
    gi_op_times last_times;
    const char *last_backend;  /* name of the backend of the last operation */
};

/* Under AUTO, images below this many pixels run on the CPU until CUDA has
 * been started for a larger one: a single small image is done before the
 * GPU would even be ready. */
#define GI_AUTO_CUDA_MIN_PIXELS (1024 * 1024)

/* Chooses ctx's backend if that has not happened yet (AUTO is lazy). */
gi_status gi__context_settle(gi_context *ctx);
/* The backend that runs an operation on src. */
gi_status gi__context_backend_for(gi_context *ctx, const gi_image *src,
                                  const gi__backend_ops **ops, void **state);

/* The CPU backend of ctx, created on first use. */
gi_status gi__context_cpu(gi_context *ctx, const gi__backend_ops **ops, void **state);

#endif
