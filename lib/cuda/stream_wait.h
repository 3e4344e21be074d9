/* Waiting for a stream's work without keeping a core busy. A CUDA
 * context's default wait (cudaDeviceScheduleAuto: spin while the process
 * has fewer contexts than the machine has CPUs) kept a core busy for
 * every lane that waited: a batch of 4000 9 MP JPEGs on one H200 took
 * 47-48 s of CPU for 4.6-4.7 s of wall time. The context's flag is left
 * alone (it is the process's: CuPy's or PyTorch's too); each wait here is
 * on an event of its own made with cudaEventBlockingSync, which sleeps
 * whatever the context's flag, after polling it a while (stream_wait.c
 * says how long). */
#ifndef GI_STREAM_WAIT_H
#define GI_STREAM_WAIT_H

#include <cuda_runtime_api.h>

/* An event for the waits on one stream, made at the first wait on the
 * device current then (the stream's: callers queue a stream's work with its
 * device current). Zero-initialised is empty. */
typedef struct {
    cudaEvent_t done;
} gi__cuda_waiter;

/* Waits until everything queued on stream so far has run: the error of
 * making or recording the event, or of the work. */
cudaError_t gi__cuda_wait(gi__cuda_waiter *w, cudaStream_t stream);

/* Destroys the event; w is empty afterwards. Errors are ignored
 * (teardown has no one to tell). */
void gi__cuda_waiter_free(gi__cuda_waiter *w);

#endif
