/* CUDA backend: moves images to the GPU, runs the kernels of kernels/ and
 * brings the results back.
 *
 * The runtime's primary context is the process's one CUDA context; each
 * backend state adds its own stream plus device buffers and pinned host
 * staging buffers that only grow, so a run of images reuses them. An
 * operation queues upload, kernel and download on the stream and
 * synchronizes once, before returning. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "gi_error.h"
#include "gi_kernels.h"
#include "gi_size.h"

/* Device rows start on this boundary so the kernels' wide accesses line up. */
#define ROW_ALIGN 256
#define COUNTS_BYTES (sizeof(unsigned long long) * 4 * GI_HIST_MAX_BINS)

typedef struct {
    void *ptr;
    size_t bytes;
} buffer;

typedef struct {
    int device;
    cudaStream_t stream;
    buffer src, dst, scratch;        /* device */
    buffer stage_in, stage_out;      /* pinned host */
} cuda_state;

/* A device image: the kernels' view of an uploaded or output buffer. */
typedef struct {
    uint8_t *data;
    size_t pitch;
} device_image;

/* Records a CUDA failure and clears the runtime's last error, which would
 * otherwise surface again at the next launch check. */
static gi_status cuda_fail(cudaError_t e, const char *op)
{
    cudaGetLastError();
    return gi__fail(GI_ERR_DEVICE, "CUDA %s: %s (%s)", op, cudaGetErrorName(e),
                    cudaGetErrorString(e));
}

/* Test-only: GPUIMG_TEST_FAIL_DEVICE_ALLOC=1 makes device allocations fail
 * as if the GPU were full, to exercise the fallback paths. */
static cudaError_t device_malloc(void **ptr, size_t bytes)
{
    const char *fail = getenv("GPUIMG_TEST_FAIL_DEVICE_ALLOC");
    if (fail && strcmp(fail, "1") == 0) return cudaErrorMemoryAllocation;
    return cudaMalloc(ptr, bytes);
}

/* Grows a device buffer to at least `bytes`. Running out of device memory
 * is GI_ERR_NO_MEMORY, so lib/ops.c can rerun on the CPU under AUTO. */
static gi_status reserve_device(buffer *b, size_t bytes, const char *what)
{
    if (b->bytes >= bytes) return GI_OK;
    cudaError_t e = cudaFree(b->ptr);
    b->ptr = NULL;
    b->bytes = 0;
    if (e != cudaSuccess) return cuda_fail(e, "cudaFree");
    e = device_malloc(&b->ptr, bytes);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        b->ptr = NULL;
        return gi__fail(GI_ERR_NO_MEMORY, "%s: out of device memory (%zu bytes)", what, bytes);
    }
    if (e != cudaSuccess) return cuda_fail(e, "cudaMalloc");
    b->bytes = bytes;
    return GI_OK;
}

static gi_status reserve_pinned(buffer *b, size_t bytes)
{
    if (b->bytes >= bytes) return GI_OK;
    cudaError_t e = cudaFreeHost(b->ptr);
    b->ptr = NULL;
    b->bytes = 0;
    if (e != cudaSuccess) return cuda_fail(e, "cudaFreeHost");
    e = cudaHostAlloc(&b->ptr, bytes, cudaHostAllocDefault);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        b->ptr = NULL;
        return gi__fail(GI_ERR_NO_MEMORY, "out of pinned host memory (%zu bytes)", bytes);
    }
    if (e != cudaSuccess) return cuda_fail(e, "cudaHostAlloc");
    b->bytes = bytes;
    return GI_OK;
}

/* Row pitch and total bytes of a device copy of a w x h x c image. */
static gi_status device_layout(int w, int h, int c, size_t align, size_t *pitch, size_t *bytes)
{
    size_t row = (size_t)w * (size_t)c;
    *pitch = (row + align - 1) / align * align;
    if (*pitch < row || gi__mul_size(*pitch, (size_t)h, bytes))
        return gi__fail(GI_ERR_TOO_LARGE, "%dx%d image is too large for the GPU", w, h);
    return GI_OK;
}

/* Copies the image into the pinned stage and queues its upload. */
static gi_status queue_upload(cuda_state *s, const gi_image *img, const device_image *d)
{
    const size_t row = (size_t)img->width * img->channels;
    uint8_t *stage = s->stage_in.ptr;
    if (img->stride == row) memcpy(stage, img->data, row * img->height);
    else
        for (int y = 0; y < img->height; y++)
            memcpy(stage + row * y, img->data + img->stride * y, row);
    cudaError_t e = cudaMemcpy2DAsync(d->data, d->pitch, stage, row, row, img->height,
                                      cudaMemcpyHostToDevice, s->stream);
    return e == cudaSuccess ? GI_OK : cuda_fail(e, "upload");
}

/* Waits for everything queued. After an earlier failure it still drains the
 * stream, so no copy is in flight when the staging buffers are reused. */
static gi_status finish(cuda_state *s, gi_status st)
{
    cudaError_t e = cudaStreamSynchronize(s->stream);
    if (st != GI_OK) {
        cudaGetLastError();
        return st;
    }
    return e == cudaSuccess ? GI_OK : cuda_fail(e, "stream synchronize");
}

/* One image-to-image operation: the kernel launch, given the device copies. */
typedef struct image_op {
    const char *name;
    cudaError_t (*launch)(const struct image_op *op, const gi_image *src, const device_image *in,
                          const device_image *out, void *scratch, size_t scratch_bytes,
                          cudaStream_t stream);
    const int32_t *weights; /* blur */
    int radius;
    gi_border border;
    const gi_sobel_params *sobel;
    gi_transform transform;
} image_op;

static gi_status run_image_op(cuda_state *s, const image_op *op, const gi_image *src,
                              gi_image *dst, size_t scratch_bytes)
{
    device_image in, out;
    size_t in_bytes = 0, out_bytes = 0;
    size_t in_row = (size_t)src->width * src->channels, out_row = (size_t)dst->width * dst->channels;
    cudaError_t e = cudaSetDevice(s->device);
    if (e != cudaSuccess) return cuda_fail(e, "cudaSetDevice");
    gi_status st = device_layout(src->width, src->height, src->channels, ROW_ALIGN, &in.pitch, &in_bytes);
    if (st == GI_OK)
        st = device_layout(dst->width, dst->height, dst->channels, ROW_ALIGN, &out.pitch, &out_bytes);
    if (st == GI_OK) st = reserve_device(&s->src, in_bytes, op->name);
    if (st == GI_OK) st = reserve_device(&s->dst, out_bytes, op->name);
    if (st == GI_OK && scratch_bytes) st = reserve_device(&s->scratch, scratch_bytes, op->name);
    if (st == GI_OK) st = reserve_pinned(&s->stage_in, in_row * src->height);
    if (st == GI_OK) st = reserve_pinned(&s->stage_out, out_row * dst->height);
    if (st != GI_OK) return st;
    in.data = s->src.ptr;
    out.data = s->dst.ptr;

    st = queue_upload(s, src, &in);
    if (st == GI_OK) {
        e = op->launch(op, src, &in, &out, s->scratch.ptr, s->scratch.bytes, s->stream);
        if (e != cudaSuccess) st = cuda_fail(e, op->name);
    }
    if (st == GI_OK) {
        e = cudaMemcpy2DAsync(s->stage_out.ptr, out_row, out.data, out.pitch, out_row, dst->height,
                              cudaMemcpyDeviceToHost, s->stream);
        if (e != cudaSuccess) st = cuda_fail(e, "download");
    }
    st = finish(s, st);
    if (st != GI_OK) return st;
    for (int y = 0; y < dst->height; y++)
        memcpy(dst->data + dst->stride * y, (uint8_t *)s->stage_out.ptr + out_row * y, out_row);
    return GI_OK;
}

static cudaError_t launch_blur(const image_op *op, const gi_image *src, const device_image *in,
                               const device_image *out, void *scratch, size_t scratch_bytes,
                               cudaStream_t stream)
{
    return gi_cuda_blur(in->data, in->pitch, out->data, out->pitch, src->width, src->height,
                        src->channels, op->weights, op->radius, op->border.mode, op->border.value,
                        scratch, scratch_bytes, stream);
}

static gi_status cuda_blur(void *state, const gi_image *src, gi_image *dst, const int32_t *weights,
                           int radius, gi_border border)
{
    size_t scratch = gi_cuda_blur_scratch_bytes(src->width, src->height, src->channels, radius);
    if (scratch == SIZE_MAX)
        return gi__fail(GI_ERR_TOO_LARGE, "blur of a %dx%d image needs too much scratch memory",
                        src->width, src->height);
    image_op op = {.name = "blur", .launch = launch_blur, .weights = weights, .radius = radius,
                   .border = border};
    return run_image_op(state, &op, src, dst, scratch);
}

static cudaError_t launch_sobel(const image_op *op, const gi_image *src, const device_image *in,
                                const device_image *out, void *scratch, size_t scratch_bytes,
                                cudaStream_t stream)
{
    const gi_sobel_params *p = op->sobel;
    (void)scratch;
    (void)scratch_bytes;
    return gi_cuda_sobel(in->data, in->pitch, out->data, out->pitch, src->width, src->height,
                         src->channels, p->scale, p->use_threshold, p->threshold, p->gray,
                         p->border.mode, p->border.value, stream);
}

static gi_status cuda_sobel(void *state, const gi_image *src, gi_image *dst,
                            const gi_sobel_params *p)
{
    image_op op = {.name = "sobel", .launch = launch_sobel, .sobel = p};
    return run_image_op(state, &op, src, dst, 0);
}

static cudaError_t launch_transform(const image_op *op, const gi_image *src,
                                    const device_image *in, const device_image *out,
                                    void *scratch, size_t scratch_bytes, cudaStream_t stream)
{
    (void)scratch;
    (void)scratch_bytes;
    return gi_cuda_transform(in->data, in->pitch, out->data, out->pitch, src->width, src->height,
                             src->channels, op->transform, stream);
}

static gi_status cuda_transform(void *state, const gi_image *src, gi_image *dst, gi_transform t)
{
    image_op op = {.name = "transform", .launch = launch_transform, .transform = t};
    return run_image_op(state, &op, src, dst, 0);
}

/* The histogram reads the image packed (pitch = row), which lets the kernel
 * treat it as one long row; the counts come back through the output stage. */
static gi_status cuda_hist(void *state, const gi_image *src, int bins, gi_histogram *out)
{
    cuda_state *s = state;
    device_image in;
    size_t in_bytes = 0;
    cudaError_t e = cudaSetDevice(s->device);
    if (e != cudaSuccess) return cuda_fail(e, "cudaSetDevice");
    gi_status st = device_layout(src->width, src->height, src->channels, 1, &in.pitch, &in_bytes);
    if (st == GI_OK) st = reserve_device(&s->src, in_bytes, "hist");
    if (st == GI_OK) st = reserve_device(&s->dst, COUNTS_BYTES, "hist");
    if (st == GI_OK) st = reserve_pinned(&s->stage_in, in_bytes);
    if (st == GI_OK) st = reserve_pinned(&s->stage_out, COUNTS_BYTES);
    if (st != GI_OK) return st;
    in.data = s->src.ptr;

    st = queue_upload(s, src, &in);
    if (st == GI_OK) {
        e = gi_cuda_hist(in.data, in.pitch, src->width, src->height, src->channels, bins,
                         s->dst.ptr, s->stream);
        if (e != cudaSuccess) st = cuda_fail(e, "hist");
    }
    if (st == GI_OK) {
        e = cudaMemcpyAsync(s->stage_out.ptr, s->dst.ptr, COUNTS_BYTES, cudaMemcpyDeviceToHost,
                            s->stream);
        if (e != cudaSuccess) st = cuda_fail(e, "download");
    }
    st = finish(s, st);
    if (st != GI_OK) return st;
    const unsigned long long *counts = s->stage_out.ptr;
    memset(out, 0, sizeof *out);
    out->channels = src->channels;
    out->bins = bins;
    for (int c = 0; c < src->channels; c++)
        for (int b = 0; b < bins; b++) out->counts[c][b] = counts[c * GI_HIST_MAX_BINS + b];
    return GI_OK;
}

static void cuda_destroy(void *state)
{
    cuda_state *s = state;
    /* Teardown has no caller to report to; errors here change nothing. */
    cudaSetDevice(s->device);
    cudaStreamSynchronize(s->stream);
    cudaFree(s->src.ptr);
    cudaFree(s->dst.ptr);
    cudaFree(s->scratch.ptr);
    cudaFreeHost(s->stage_in.ptr);
    cudaFreeHost(s->stage_out.ptr);
    cudaStreamDestroy(s->stream);
    cudaGetLastError();
    free(s);
}

static const gi__backend_ops cuda_ops = {
    .name = "cuda",
    .blur = cuda_blur,
    .sobel = cuda_sobel,
    .transform = cuda_transform,
    .hist = cuda_hist,
    .destroy = cuda_destroy,
};

gi_status gi__cuda_backend_create(const gi__backend_ops **ops, void **state)
{
    const char *why;
    if (gi_cuda_device_count(&why) == 0) return gi__fail(GI_ERR_NO_DEVICE, "%s", why);
    int device;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess) return cuda_fail(e, "cudaGetDevice");
    e = gi_cuda_kernels_probe();
    if (e != cudaSuccess) {
        cudaGetLastError();
        return gi__fail(GI_ERR_NO_DEVICE, "GPU %d cannot run this build's kernels: %s (%s)", device,
                        cudaGetErrorName(e), cudaGetErrorString(e));
    }
    cuda_state *s = calloc(1, sizeof *s);
    if (!s) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate the CUDA backend state");
    s->device = device;
    e = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        free(s);
        return cuda_fail(e, "cudaStreamCreate");
    }
    *ops = &cuda_ops;
    *state = s;
    return GI_OK;
}

/* ---------------------------------------------------------------- devices */

int gi_cuda_compiled(void)
{
    return 1;
}

int gi_cuda_device_count(const char **why)
{
    static _Thread_local char reason[256];
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cudaGetLastError();
        snprintf(reason, sizeof reason, "no usable CUDA driver or device: cudaGetDeviceCount: %s (%s)",
                 cudaGetErrorName(e), cudaGetErrorString(e));
        n = 0;
    } else if (n == 0) {
        snprintf(reason, sizeof reason, "no CUDA device found");
    }
    if (why) *why = n > 0 ? "" : reason;
    return n;
}

#define BANDWIDTH_BYTES ((size_t)256 << 20)
#define BANDWIDTH_RUNS 7

static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median time of a 256 MiB device-to-device copy, after one warm-up copy,
 * as GB/s counting the bytes read plus the bytes written. */
static gi_status measure_copy(double *gbytes_per_s)
{
    void *a = NULL, *b = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    float ms[BANDWIDTH_RUNS];
    gi_status st = GI_OK;
    cudaError_t e = device_malloc(&a, BANDWIDTH_BYTES);
    if (e == cudaSuccess) e = device_malloc(&b, BANDWIDTH_BYTES);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        st = gi__fail(GI_ERR_NO_MEMORY, "bandwidth test: out of device memory");
        goto done;
    }
    if (e == cudaSuccess) e = cudaEventCreate(&start);
    if (e == cudaSuccess) e = cudaEventCreate(&stop);
    if (e == cudaSuccess) e = cudaMemcpy(b, a, BANDWIDTH_BYTES, cudaMemcpyDeviceToDevice);
    for (int i = 0; i < BANDWIDTH_RUNS && e == cudaSuccess; i++) {
        e = cudaEventRecord(start, 0);
        if (e == cudaSuccess) e = cudaMemcpyAsync(b, a, BANDWIDTH_BYTES, cudaMemcpyDeviceToDevice, 0);
        if (e == cudaSuccess) e = cudaEventRecord(stop, 0);
        if (e == cudaSuccess) e = cudaEventSynchronize(stop);
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms[i], start, stop);
    }
    if (e != cudaSuccess) {
        st = cuda_fail(e, "bandwidth test");
        goto done;
    }
    qsort(ms, BANDWIDTH_RUNS, sizeof ms[0], by_value);
    *gbytes_per_s = 2.0 * BANDWIDTH_BYTES / (ms[BANDWIDTH_RUNS / 2] * 1e-3) / 1e9;
done:
    /* cleanup of what was made; a failure here cannot change the answer */
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    cudaFree(a);
    cudaFree(b);
    cudaGetLastError();
    return st;
}

gi_status gi_cuda_device_info(int index, int measure_bandwidth, gi_device_info *info)
{
    const char *why;
    int n = gi_cuda_device_count(&why);
    if (n == 0) return gi__fail(GI_ERR_NO_DEVICE, "%s", why);
    if (index < 0 || index >= n)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "CUDA device %d: there are %d", index, n);
    struct cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, index);
    if (e != cudaSuccess) return cuda_fail(e, "cudaGetDeviceProperties");
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->total_memory = p.totalGlobalMem;
    info->multiprocessors = p.multiProcessorCount;
    if (!measure_bandwidth) return GI_OK;

    int previous;
    e = cudaGetDevice(&previous);
    if (e == cudaSuccess) e = cudaSetDevice(index);
    if (e != cudaSuccess) return cuda_fail(e, "cudaSetDevice");
    gi_status st = measure_copy(&info->copy_gbytes_per_s);
    cudaSetDevice(previous); /* back to the caller's device; it was valid a moment ago */
    return st;
}
