/* Blocking waits on a stream (stream_wait.h). */
#include "stream_wait.h"

#include <stdatomic.h>

#include "base/clock.h"

/* A wait polls its event for POLL_MS, then sleeps on it, unless at most
 * SPINNERS threads of the process are waiting: then it polls to the end.
 * A served call's waits (one lane) keep the latency of spinning (8.7-8.9
 * ms a call on the H200 machine, 9.3-10.0 with every wait sleeping past
 * 100 us), at the cost of a core or two; a batch's twelve or more lanes
 * sleep. */
#define POLL_MS 0.1
#define SPINNERS 2

static atomic_int waiting; /* threads of the process in gi__cuda_wait */

static cudaError_t wait_event(cudaEvent_t done)
{
    const double start = gi__now_ms();
    cudaError_t e;
    while ((e = cudaEventQuery(done)) == cudaErrorNotReady)
        if (gi__now_ms() - start > POLL_MS &&
            atomic_load_explicit(&waiting, memory_order_relaxed) > SPINNERS)
            return cudaEventSynchronize(done);
    return e;
}

cudaError_t gi__cuda_wait(gi__cuda_waiter *w, cudaStream_t stream)
{
    if (!w->done) {
        cudaError_t e =
            cudaEventCreateWithFlags(&w->done, cudaEventBlockingSync | cudaEventDisableTiming);
        if (e != cudaSuccess) {
            w->done = NULL;
            return e;
        }
    }
    cudaError_t e = cudaEventRecord(w->done, stream);
    if (e != cudaSuccess) return e;
    atomic_fetch_add_explicit(&waiting, 1, memory_order_relaxed);
    e = wait_event(w->done);
    atomic_fetch_sub_explicit(&waiting, 1, memory_order_relaxed);
    return e;
}

void gi__cuda_waiter_free(gi__cuda_waiter *w)
{
    if (w->done) cudaEventDestroy(w->done);
    w->done = NULL;
}
