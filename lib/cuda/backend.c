/* CUDA backend: moves images to the GPU, runs the kernels of kernels/ and
 * brings the results back.
 *
 * The runtime's primary context is the process's one CUDA context; each
 * backend state adds its own stream plus device buffers and pinned host
 * staging buffers that only grow, so a run of images reuses them. A chain
 * of steps (backend.h) queues one upload, each step's kernels and one
 * download on the stream, the images between steps ping-ponging between two
 * device buffers, and synchronizes once, before returning. A chain from a
 * JPEG's coefficients uploads them instead of pixels and queues the
 * decoder's arithmetic half (jpeg_device.h) before the steps, so the
 * decoded pixels never leave the device. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "base/clock.h"
#include "cuda_error.h"
#include "base/gi_error.h"
#include "gi_kernels.h"
#include "base/gi_size.h"
#include "device_buffer.h"
#include "jpeg_device.h"
#include "jpeg_encode_device.h"
#include "jpeg_entropy_device.h"
#include "stream_wait.h"
#include "base/overrides.h"
#include "base/pixel_alloc.h"

/* Device rows start on this boundary so the kernels' wide accesses line up. */
#define ROW_ALIGN 256

typedef gi__cuda_buffer buffer;

/* Events around the device parts of an operation, for gi_op_times. */
enum { MARK_UPLOAD, MARK_KERNEL, MARK_DOWNLOAD, MARK_DONE, MARK_COUNT };

typedef struct {
    int device;                      /* its GPU: an index among the visible devices */
    long chains;                     /* chains run (GPUIMG_TEST_FAIL_GPU counts them) */
    cudaStream_t stream;
    buffer src, dst, mid, scratch;   /* device: source, results (ping-pong), scratch */
    buffer coeffs, planes;           /* device: a JPEG's coefficients, its component planes */
    buffer stage_in, stage_out;      /* pinned host */
    cudaEvent_t marks[MARK_COUNT];
    gi__cuda_waiter waiter;          /* waits on the stream (stream_wait.h) */
    double stage_in_ms, stage_out_ms; /* host copies into and out of pinned memory */
    gi_op_times times;               /* of the last operation */
    unsigned long long counts[4 * GI_HIST_MAX_BINS]; /* a histogram, downloaded (2 MiB) */
    gi__cuda_jpeg_encoder encoder;   /* results that leave as JPEG files */
    gi__cuda_jpeg_entropy entropy;   /* deferred scans' Huffman decoding */
} cuda_state;

/* A device image: the kernels' view of an uploaded or output buffer. */
typedef struct {
    uint8_t *data;
    size_t pitch;
} device_image;

/* Row pitch and total bytes of a device copy of `rows` rows of `row` bytes. */
static gi_status device_layout(size_t row, int rows, size_t align, size_t *pitch, size_t *bytes)
{
    *pitch = (row + align - 1) / align * align;
    if (*pitch < row || gi__mul_size(*pitch, (size_t)rows, bytes))
        return gi__fail(GI_ERR_TOO_LARGE, "%d rows of %zu bytes are too large for the GPU", rows,
                        row);
    return GI_OK;
}

/* Bytes of one sample of img (gi_image_sample_bytes, which this library,
 * loaded on its own, cannot call). */
static size_t sample_bytes(const gi_image *img)
{
    return img->depth == 16 ? 2 : 1;
}

/* img's bits a sample, 8 or 16 (a depth of 0 is 8), as the kernels take it. */
static int depth_of(const gi_image *img)
{
    return img->depth == 16 ? 16 : 8;
}

/* Bytes of one row of img's samples, packed: every device image and stage
 * is laid out by it, so 16-bit images take twice an 8-bit one's. */
static size_t row_bytes(const gi_image *img)
{
    return (size_t)img->width * img->channels * sample_bytes(img);
}

static gi_status mark(cuda_state *s, int which)
{
    cudaError_t e = cudaEventRecord(s->marks[which], s->stream);
    return e == cudaSuccess ? GI_OK : gi__cuda_fail(e, "cudaEventRecord");
}

/* Copies the image's rows into a pinned stage, packed. */
static void pack_rows(const gi_image *img, uint8_t *stage)
{
    const size_t row = row_bytes(img);
    if (img->stride == row) memcpy(stage, img->data, row * img->height);
    else
        for (int y = 0; y < img->height; y++)
            memcpy(stage + row * y, img->data + img->stride * y, row);
}

/* Queues the upload of an image packed in `stage`. */
static gi_status queue_copy_up(cuda_state *s, const gi_image *img, const uint8_t *stage,
                               const device_image *d)
{
    const size_t row = row_bytes(img);
    cudaError_t e = cudaMemcpy2DAsync(d->data, d->pitch, stage, row, row, img->height,
                                      cudaMemcpyHostToDevice, s->stream);
    return e == cudaSuccess ? GI_OK : gi__cuda_fail(e, "upload");
}

/* Copies the image into the pinned stage and queues its upload. */
static gi_status queue_upload(cuda_state *s, const gi_image *img, const device_image *d)
{
    double start = gi__now_ms();
    pack_rows(img, s->stage_in.ptr);
    s->stage_in_ms = gi__now_ms() - start;
    gi_status st = mark(s, MARK_UPLOAD);
    if (st == GI_OK) st = queue_copy_up(s, img, s->stage_in.ptr, d);
    return st == GI_OK ? mark(s, MARK_KERNEL) : st;
}

static gi_status elapsed_between(cuda_state *s, int from, int to, double *ms)
{
    float f;
    cudaError_t e = cudaEventElapsedTime(&f, s->marks[from], s->marks[to]);
    *ms = f;
    return e == cudaSuccess ? GI_OK : gi__cuda_fail(e, "cudaEventElapsedTime");
}

/* Reads the events of an operation that has finished. */
static gi_status record_times(cuda_state *s)
{
    gi_op_times *t = &s->times;
    gi_status st = elapsed_between(s, MARK_UPLOAD, MARK_KERNEL, &t->upload_ms);
    if (st == GI_OK) st = elapsed_between(s, MARK_KERNEL, MARK_DOWNLOAD, &t->kernel_ms);
    if (st == GI_OK) st = elapsed_between(s, MARK_DOWNLOAD, MARK_DONE, &t->download_ms);
    t->upload_ms += s->stage_in_ms;
    t->download_ms += s->stage_out_ms;
    return st;
}

/* Waits for everything queued. After an earlier failure it still drains the
 * stream, so no copy is in flight when the staging buffers are reused. */
static gi_status finish(cuda_state *s, gi_status st)
{
    cudaError_t e = gi__cuda_wait(&s->waiter, s->stream);
    /* a wait that failed (its event not made, or the work's error) drains
     * the stream all the same; the error reported is the wait's */
    if (e != cudaSuccess) (void)cudaStreamSynchronize(s->stream);
    if (st != GI_OK) {
        cudaGetLastError();
        return st;
    }
    return e == cudaSuccess ? GI_OK : gi__cuda_fail(e, "stream synchronize");
}

/* One operation: the kernel launch, given the device copies, and what it
 * needs besides the source. */
typedef struct image_op {
    const char *name;
    cudaError_t (*launch)(const struct image_op *op, const gi_image *src, const device_image *in,
                          const device_image *out, void *scratch, size_t scratch_bytes,
                          cudaStream_t stream);
    size_t in_align;      /* row alignment of the uploaded source */
    size_t scratch_bytes; /* device scratch the launch needs */
    const int32_t *weights; /* blur */
    int radius;
    gi_border border;
    const gi_sobel_params *sobel;
    gi_transform transform;
    int bins;
    const gi_convolve_weights *mask;
    const gi_resize_axis *axis_x, *axis_y; /* resize */
    int crop_x, crop_y, out_w, out_h;      /* crop */
} image_op;

/* A step's data on the device: its source, and its output, `out_rows`
 * rows of `out_row` bytes. */
typedef struct {
    device_image in, out;
    size_t out_row;
    int out_rows;
} device_job;

/* A launch of op on data already on the device: what a chain queues once
 * and the benchmark times again and again. */
typedef struct {
    const cuda_state *s;
    const image_op *op;
    const gi_image *src;
    const device_job *job;
} staged_op;

static cudaError_t launch_staged(void *arg, cudaStream_t stream)
{
    const staged_op *a = arg;
    return a->op->launch(a->op, a->src, &a->job->in, &a->job->out, a->s->scratch.ptr,
                         a->s->scratch.bytes, stream);
}

/* Queues the output's download, waits, and copies its rows to `host`,
 * `stride` bytes apart. st: the status so far; after a failure this only
 * drains the stream. */
static gi_status fetch(cuda_state *s, const device_job *j, gi_status st, void *host, size_t stride)
{
    if (st == GI_OK) st = mark(s, MARK_DOWNLOAD);
    if (st == GI_OK) {
        cudaError_t e = cudaMemcpy2DAsync(s->stage_out.ptr, j->out_row, j->out.data, j->out.pitch,
                                          j->out_row, j->out_rows, cudaMemcpyDeviceToHost,
                                          s->stream);
        if (e != cudaSuccess) st = gi__cuda_fail(e, "download");
    }
    if (st == GI_OK) st = mark(s, MARK_DONE);
    st = finish(s, st);
    if (st != GI_OK) return st;
    double start = gi__now_ms();
    for (int y = 0; y < j->out_rows; y++)
        memcpy((uint8_t *)host + stride * y, (uint8_t *)s->stage_out.ptr + j->out_row * y,
               j->out_row);
    s->stage_out_ms = gi__now_ms() - start;
    return record_times(s);
}

/* ---------------------------------------------------------------- operations */

static cudaError_t launch_blur(const image_op *op, const gi_image *src, const device_image *in,
                               const device_image *out, void *scratch, size_t scratch_bytes,
                               cudaStream_t stream)
{
    return gi_cuda_blur(in->data, in->pitch, out->data, out->pitch, src->width, src->height,
                        src->channels, depth_of(src), op->weights, op->radius, op->border.mode,
                        op->border.value, scratch, scratch_bytes, stream);
}

static gi_status blur_op(const gi_image *src, const int32_t *weights, int radius, gi_border border,
                         image_op *op)
{
    size_t scratch = gi_cuda_blur_scratch_bytes(src->width, src->height, src->channels, radius,
                                                depth_of(src));
    if (scratch == SIZE_MAX)
        return gi__fail(GI_ERR_TOO_LARGE, "blur of a %dx%d image needs too much scratch memory",
                        src->width, src->height);
    *op = (image_op){.name = "blur", .launch = launch_blur, .in_align = ROW_ALIGN,
                     .scratch_bytes = scratch, .weights = weights, .radius = radius,
                     .border = border};
    return GI_OK;
}

static cudaError_t launch_sobel(const image_op *op, const gi_image *src, const device_image *in,
                                const device_image *out, void *scratch, size_t scratch_bytes,
                                cudaStream_t stream)
{
    const gi_sobel_params *p = op->sobel;
    (void)scratch;
    (void)scratch_bytes;
    return gi_cuda_sobel(in->data, in->pitch, out->data, out->pitch, src->width, src->height,
                         src->channels, depth_of(src), p->scale, p->use_threshold, p->threshold,
                         p->gray, p->border.mode, p->border.value, stream);
}

static image_op sobel_op(const gi_sobel_params *p)
{
    return (image_op){.name = "sobel", .launch = launch_sobel, .in_align = ROW_ALIGN, .sobel = p};
}

static cudaError_t launch_transform(const image_op *op, const gi_image *src,
                                    const device_image *in, const device_image *out,
                                    void *scratch, size_t scratch_bytes, cudaStream_t stream)
{
    (void)scratch;
    (void)scratch_bytes;
    return gi_cuda_transform(in->data, in->pitch, out->data, out->pitch, src->width, src->height,
                             src->channels, depth_of(src), op->transform, stream);
}

static image_op transform_op(gi_transform t)
{
    return (image_op){.name = "transform", .launch = launch_transform, .in_align = ROW_ALIGN,
                      .transform = t};
}

static cudaError_t launch_hist(const image_op *op, const gi_image *src, const device_image *in,
                               const device_image *out, void *scratch, size_t scratch_bytes,
                               cudaStream_t stream)
{
    (void)scratch;
    (void)scratch_bytes;
    return gi_cuda_hist(in->data, in->pitch, src->width, src->height, src->channels,
                        depth_of(src), op->bins, (unsigned long long *)out->data, stream);
}

/* The bytes of a hist step's counts (unpack_counts): [channels][bins]. */
static size_t counts_bytes(const gi__op_call *c)
{
    return sizeof(unsigned long long) * (size_t)c->src->channels * c->bins;
}

/* The histogram reads the image packed (pitch = row), which lets the kernel
 * treat it as one long row; the counts come back as one row of bytes. */
static image_op hist_op(int bins)
{
    return (image_op){.name = "hist", .launch = launch_hist, .in_align = 1, .bins = bins};
}

static cudaError_t launch_convolve(const image_op *op, const gi_image *src,
                                   const device_image *in, const device_image *out,
                                   void *scratch, size_t scratch_bytes, cudaStream_t stream)
{
    const gi_convolve_weights *w = op->mask;
    (void)scratch;
    (void)scratch_bytes;
    return gi_cuda_convolve(in->data, in->pitch, out->data, out->pitch, src->width, src->height,
                            src->channels, depth_of(src), w->q, w->width, w->height, w->shift,
                            op->border.mode, op->border.value, stream);
}

static image_op convolve_op(const gi_convolve_weights *w, gi_border border)
{
    return (image_op){.name = "convolve", .launch = launch_convolve, .in_align = ROW_ALIGN,
                      .border = border, .mask = w};
}

/* A resize's scratch: both axes' weights (uploaded by the launch; the
 * host computed them once, so both backends use the very same), then the
 * rows' pass's int32 image. */
static size_t axis_bytes(const gi_resize_axis *a)
{
    return sizeof(int32_t) * (size_t)a->n_out * (2 + (size_t)a->taps);
}

static size_t round_up(size_t n)
{
    return (n + ROW_ALIGN - 1) / ROW_ALIGN * ROW_ALIGN;
}

/* Uploads an axis's weights to `at` (first, count, q back to back). */
static cudaError_t upload_axis(const gi_resize_axis *a, int32_t *at, cudaStream_t stream)
{
    const size_t n = (size_t)a->n_out;
    cudaError_t e = cudaMemcpyAsync(at, a->first, sizeof(int32_t) * n, cudaMemcpyHostToDevice,
                                    stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(at + n, a->count, sizeof(int32_t) * n, cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(at + 2 * n, a->q, sizeof(int32_t) * n * (size_t)a->taps,
                            cudaMemcpyHostToDevice, stream);
    return e;
}

static cudaError_t launch_resize(const image_op *op, const gi_image *src, const device_image *in,
                                 const device_image *out, void *scratch, size_t scratch_bytes,
                                 cudaStream_t stream)
{
    const gi_resize_axis *ax = op->axis_x, *ay = op->axis_y;
    int32_t *wx = scratch;
    int32_t *wy = (int32_t *)((uint8_t *)scratch + round_up(axis_bytes(ax)));
    void *h = (uint8_t *)wy + round_up(axis_bytes(ay));
    (void)scratch_bytes;
    cudaError_t e = upload_axis(ax, wx, stream);
    if (e == cudaSuccess) e = upload_axis(ay, wy, stream);
    if (e != cudaSuccess) return e;
    const size_t nx = (size_t)ax->n_out, ny = (size_t)ay->n_out;
    return gi_cuda_resize(in->data, in->pitch, out->data, out->pitch, src->height, ax->n_out,
                          ay->n_out, src->channels, depth_of(src), wx, wx + nx, wx + 2 * nx,
                          ax->taps, wy, wy + ny, wy + 2 * ny, ay->taps, h, stream);
}

static gi_status resize_op(const gi_image *src, const gi_resize_axis *ax, const gi_resize_axis *ay,
                           image_op *op)
{
    size_t rows = 0;
    /* the rows' pass keeps int32 sums, int64 at 16 bits (gpuimg.h) */
    const size_t sum_bytes = src->depth == 16 ? sizeof(int64_t) : sizeof(int32_t);
    if (gi__mul_size((size_t)ax->n_out * src->channels * sum_bytes, (size_t)src->height,
                     &rows) ||
        rows > SIZE_MAX / 2)
        return gi__fail(GI_ERR_TOO_LARGE, "resize of a %dx%d image needs too much scratch memory",
                        src->width, src->height);
    *op = (image_op){.name = "resize", .launch = launch_resize, .in_align = ROW_ALIGN,
                     .scratch_bytes = round_up(axis_bytes(ax)) + round_up(axis_bytes(ay)) + rows,
                     .axis_x = ax, .axis_y = ay};
    return GI_OK;
}

/* A crop moves the rectangle's rows on the device, as they are. */
static cudaError_t launch_crop(const image_op *op, const gi_image *src, const device_image *in,
                               const device_image *out, void *scratch, size_t scratch_bytes,
                               cudaStream_t stream)
{
    const size_t ch = (size_t)src->channels * sample_bytes(src);
    (void)scratch;
    (void)scratch_bytes;
    return cudaMemcpy2DAsync(out->data, out->pitch,
                             in->data + (size_t)op->crop_y * in->pitch + (size_t)op->crop_x * ch,
                             in->pitch, (size_t)op->out_w * ch, (size_t)op->out_h,
                             cudaMemcpyDeviceToDevice, stream);
}

static image_op crop_op(const gi__op_call *c)
{
    return (image_op){.name = "crop", .launch = launch_crop, .in_align = ROW_ALIGN,
                      .crop_x = c->crop_x, .crop_y = c->crop_y, .out_w = c->dst->width,
                      .out_h = c->dst->height};
}

/* ---------------------------------------------------------------- compare */

/* Two images in: both go up through one pinned stage into the source
 * buffer, one after the other; the per-row results come back through the
 * output stage and are added up here (integers; the SSIM rows are added in
 * order by lib/engine/compare.c). */
typedef struct {
    device_image e, a;
    size_t rows_bytes, results_bytes;
    int x0, x1, y0, y1;
} compare_layout;

static gi_status compare_stage(cuda_state *s, const gi__compare_call *c, compare_layout *l)
{
    const gi_image *img = c->expected;
    const size_t row = row_bytes(img), packed = row * img->height;
    size_t pitch, one = 0, scratch = 0;
    gi__ssim_span(img->width, &l->x0, &l->x1);
    gi__ssim_span(img->height, &l->y0, &l->y1);
    l->rows_bytes = sizeof(gi_cuda_compare_row) * (size_t)img->height;
    l->results_bytes = l->rows_bytes + sizeof(double) * img->channels * (size_t)img->height;
    if (c->weights) scratch = gi_cuda_compare_scratch_bytes(img->width, img->height, img->channels);
    cudaError_t e = cudaSetDevice(s->device);
    if (e != cudaSuccess) return gi__cuda_fail(e, "cudaSetDevice");
    gi_status st = device_layout(row, img->height, ROW_ALIGN, &pitch, &one);
    if (st == GI_OK && one > SIZE_MAX / 2) st = gi__fail(GI_ERR_TOO_LARGE, "compare: images too large");
    if (st == GI_OK) st = gi__cuda_reserve_device(&s->src, 2 * one, "compare");
    if (st == GI_OK) st = gi__cuda_reserve_device(&s->dst, l->results_bytes, "compare");
    if (st == GI_OK && scratch) st = gi__cuda_reserve_device(&s->scratch, scratch, "compare");
    if (st == GI_OK) st = gi__cuda_reserve_pinned(&s->stage_in, 2 * packed);
    if (st == GI_OK) st = gi__cuda_reserve_pinned(&s->stage_out, l->results_bytes);
    if (st != GI_OK) return st;
    l->e = (device_image){s->src.ptr, pitch};
    l->a = (device_image){(uint8_t *)s->src.ptr + one, pitch};
    uint8_t *stage = s->stage_in.ptr;
    double start = gi__now_ms();
    pack_rows(c->expected, stage);
    pack_rows(c->actual, stage + packed);
    s->stage_in_ms = gi__now_ms() - start;
    st = mark(s, MARK_UPLOAD);
    if (st == GI_OK) st = queue_copy_up(s, c->expected, stage, &l->e);
    if (st == GI_OK) st = queue_copy_up(s, c->actual, stage + packed, &l->a);
    return st == GI_OK ? mark(s, MARK_KERNEL) : st;
}

static void add_rows(const gi_image *img, const gi_cuda_compare_row *rows, gi__compare_sums *sums)
{
    memset(sums, 0, sizeof *sums);
    for (int y = 0; y < img->height; y++) {
        sums->different_pixels += rows[y].different_pixels;
        sums->sum_abs += rows[y].sum_abs;
        sums->sum_sq += rows[y].sum_sq;
        for (int c = 0; c < img->channels; c++)
            if (rows[y].max_abs[c] > sums->max_abs[c]) sums->max_abs[c] = rows[y].max_abs[c];
    }
}

/* Queues the download of what the kernels wrote: every row's counts, and
 * with SSIM each channel's per-row sums of the rows it covers (the rows
 * the window's crop leaves out are never written, and are not read). */
static gi_status download_results(cuda_state *s, const gi__compare_call *c,
                                  const compare_layout *l)
{
    uint8_t *out = s->stage_out.ptr;
    const uint8_t *dev = s->dst.ptr;
    const size_t height = (size_t)c->expected->height;
    cudaError_t e = cudaMemcpyAsync(out, dev, l->rows_bytes, cudaMemcpyDeviceToHost, s->stream);
    for (int ch = 0; c->weights && ch < c->expected->channels && e == cudaSuccess; ch++) {
        size_t at = l->rows_bytes + sizeof(double) * ((size_t)ch * height + (size_t)l->y0);
        e = cudaMemcpyAsync(out + at, dev + at, sizeof(double) * (size_t)(l->y1 - l->y0),
                            cudaMemcpyDeviceToHost, s->stream);
    }
    return e == cudaSuccess ? GI_OK : gi__cuda_fail(e, "download");
}

static gi_status cuda_compare(void *state, const gi__compare_call *c, gi__compare_sums *sums)
{
    cuda_state *s = state;
    const gi_image *img = c->expected;
    compare_layout l = {{NULL, 0}, {NULL, 0}, 0, 0, 0, 0, 0, 0};
    gi_status st = compare_stage(s, c, &l);
    gi_cuda_compare_row *rows = s->dst.ptr;
    double *row_ssim = (double *)((uint8_t *)s->dst.ptr + l.rows_bytes);
    if (st == GI_OK) {
        cudaError_t e = gi_cuda_compare(l.e.data, l.e.pitch, l.a.data, l.a.pitch, img->width,
                                        img->height, img->channels, c->tolerance, c->weights,
                                        c->c1, c->c2, l.x0, l.x1, l.y0, l.y1, rows, row_ssim,
                                        s->scratch.ptr, s->scratch.bytes,
                                        8 * (int)sample_bytes(img), s->stream);
        if (e != cudaSuccess) st = gi__cuda_fail(e, "compare");
    }
    if (st == GI_OK) st = mark(s, MARK_DOWNLOAD);
    if (st == GI_OK) st = download_results(s, c, &l);
    if (st == GI_OK) st = mark(s, MARK_DONE);
    st = finish(s, st);
    if (st != GI_OK) return st;
    const uint8_t *out = s->stage_out.ptr;
    add_rows(img, (const gi_cuda_compare_row *)out, sums);
    if (c->weights)
        for (int ch = 0; ch < img->channels; ch++)
            memcpy(c->row_ssim + (size_t)ch * img->height + l.y0,
                   out + l.rows_bytes + sizeof(double) * ((size_t)ch * img->height + l.y0),
                   sizeof(double) * (size_t)(l.y1 - l.y0));
    s->stage_out_ms = 0;
    return record_times(s);
}

/* The image_op a resolved call runs, as the operations above build it. */
static gi_status describe(const gi__op_call *c, image_op *op)
{
    switch (c->kind) {
    case GI_OP_BLUR: return blur_op(c->src, c->weights, c->radius, c->border, op);
    case GI_OP_SOBEL: *op = sobel_op(c->sobel); return GI_OK;
    case GI_OP_TRANSFORM: *op = transform_op(c->transform); return GI_OK;
    case GI_OP_HIST: *op = hist_op(c->bins); return GI_OK;
    case GI_OP_CONVOLVE: *op = convolve_op(c->mask, c->border); return GI_OK;
    case GI_OP_RESIZE: return resize_op(c->src, c->axis_x, c->axis_y, op);
    case GI_OP_CROP: *op = crop_op(c); return GI_OK;
    }
    return gi__fail(GI_ERR_INVALID_ARGUMENT, "unknown operation %d", (int)c->kind);
}

/* ---------------------------------------------------------------- chains */

/* A chain's end that is already on the device, as the kernels see it. */
static device_image on_device(const gi_image *img)
{
    return (device_image){img->data, img->stride};
}

/* The source of the first step: uploaded, or read where it lies (a
 * source that run_from_jpeg placed there has its marks already). */
static gi_status chain_source(cuda_state *s, const gi__chain *ch, const image_op *op,
                              int placed, device_image *in)
{
    const gi_image *src = ch->steps[0].src;
    if (placed) {
        *in = on_device(src);
        return GI_OK;
    }
    if (ch->src_where == GI__DEVICE) {
        *in = on_device(src);
        s->stage_in_ms = 0;
        gi_status st = mark(s, MARK_UPLOAD);
        return st == GI_OK ? mark(s, MARK_KERNEL) : st;
    }
    const size_t row = row_bytes(src);
    size_t bytes = 0;
    gi_status st = device_layout(row, src->height, op->in_align, &in->pitch, &bytes);
    if (st == GI_OK) st = gi__cuda_reserve_device(&s->src, bytes, op->name);
    if (st == GI_OK) st = gi__cuda_reserve_pinned(&s->stage_in, row * src->height);
    if (st != GI_OK) return st;
    in->data = s->src.ptr;
    return queue_upload(s, src, in);
}

/* Where step i writes: the chain's destination when it is the last step
 * and the destination is on the device, else the results buffer that step
 * i - 1 did not write (so no step overwrites what it reads). */
static gi_status step_output(cuda_state *s, const gi__chain *ch, int i, const image_op *op,
                             device_job *j)
{
    const gi__op_call *c = &ch->steps[i];
    j->out_row = c->kind == GI_OP_HIST ? counts_bytes(c) : row_bytes(c->dst);
    j->out_rows = c->kind == GI_OP_HIST ? 1 : c->dst->height;
    if (i + 1 == ch->n && ch->dst_where == GI__DEVICE && c->kind != GI_OP_HIST) {
        j->out = on_device(c->dst);
        return GI_OK;
    }
    buffer *b = i % 2 ? &s->mid : &s->dst;
    size_t bytes = 0;
    gi_status st = device_layout(j->out_row, j->out_rows, ROW_ALIGN, &j->out.pitch, &bytes);
    if (st == GI_OK) st = gi__cuda_reserve_device(b, bytes, op->name);
    j->out.data = b->ptr;
    return st;
}

/* Queues every step; j ends up describing the last step's output. */
static gi_status queue_steps(cuda_state *s, const gi__chain *ch, int placed, device_job *j)
{
    image_op op;
    gi_status st = describe(&ch->steps[0], &op);
    if (st == GI_OK) st = chain_source(s, ch, &op, placed, &j->in);
    for (int i = 0; i < ch->n && st == GI_OK; i++) {
        if (i > 0) {
            j->in = j->out;
            st = describe(&ch->steps[i], &op);
        }
        if (st == GI_OK) st = step_output(s, ch, i, &op, j);
        if (st == GI_OK && op.scratch_bytes)
            st = gi__cuda_reserve_device(&s->scratch, op.scratch_bytes, op.name);
        if (st == GI_OK) {
            staged_op a = {s, &op, ch->steps[i].src, j};
            cudaError_t e = launch_staged(&a, s->stream);
            if (e != cudaSuccess) st = gi__cuda_fail(e, op.name);
        }
    }
    return st;
}

/* The histogram's counts, downloaded as one row of bytes ([channels][bins],
 * counts_bytes), into out. */
static void unpack_counts(const unsigned long long *counts, const gi__op_call *c,
                          gi_histogram *out)
{
    memset(out, 0, sizeof *out);
    out->channels = c->src->channels;
    out->bins = c->bins;
    out->depth = depth_of(c->src);
    for (int ch = 0; ch < c->src->channels; ch++)
        for (int b = 0; b < c->bins; b++) out->counts[ch][b] = counts[(size_t)ch * c->bins + b];
}

/* The pinned stage of the chain's result, reserved before anything is
 * queued, so that growing it never stalls the stream between the kernels
 * and the download (nor their timing). */
static gi_status reserve_result_stage(cuda_state *s, const gi__chain *ch)
{
    const gi__op_call *last = &ch->steps[ch->n - 1];
    s->stage_out_ms = 0;
    if (last->kind == GI_OP_HIST) return gi__cuda_reserve_pinned(&s->stage_out, counts_bytes(last));
    if (ch->dst_where == GI__DEVICE || ch->jpeg_out) return GI_OK;
    return gi__cuda_reserve_pinned(&s->stage_out, row_bytes(last->dst) * (size_t)last->dst->height);
}

/* The result encoded as a JPEG file on the device (backend.h,
 * gi__chain_jpeg_out): only the entropy-coded bytes come down. Timed as
 * the download (the encoder's kernels and the bytes' copy), its host
 * part (stuffing the bytes into the file) as the stage's copy. */
static gi_status encode_result(cuda_state *s, const gi__chain *ch, const device_job *j,
                               gi_status st)
{
    const gi_image *out = ch->steps[ch->n - 1].dst;
    gi__chain_jpeg_out *jo = ch->jpeg_out;
    double host_ms = 0;
    if (st == GI_OK) st = mark(s, MARK_DOWNLOAD);
    if (st == GI_OK)
        st = gi__cuda_jpeg_encode(&s->encoder, j->out.data, j->out.pitch, out->width,
                                  out->height, out->channels, jo->quality, s->stream, &jo->bytes,
                                  &jo->size, &host_ms);
    if (st == GI_OK) st = mark(s, MARK_DONE);
    st = finish(s, st);
    jo->codec = "gpuimg-jpeg-cuda";
    s->stage_out_ms = host_ms;
    if (st == GI_OK) st = record_times(s);
    jo->encode_ms = s->times.download_ms; /* backend.h: the whole download */
    s->times.download_ms = 0;
    if (st != GI_OK) { /* the caller encodes nothing it was not given */
        free(jo->bytes);
        jo->bytes = NULL;
        jo->size = 0;
    }
    return st;
}

/* Queues the steps (their source placed on the device already, or not),
 * the result's download, and waits. st: the status so far; after a
 * failure this only drains the stream. */
static gi_status run_steps(cuda_state *s, const gi__chain *ch, int placed, gi_status st)
{
    const gi__op_call *last = &ch->steps[ch->n - 1];
    device_job j;
    if (st == GI_OK) st = queue_steps(s, ch, placed, &j);
    if (last->kind == GI_OP_HIST) {
        st = fetch(s, &j, st, s->counts, counts_bytes(last));
        if (st == GI_OK) unpack_counts(s->counts, last, last->hist);
        return st;
    }
    if (ch->dst_where == GI__HOST && ch->jpeg_out) return encode_result(s, ch, &j, st);
    if (ch->dst_where == GI__HOST) return fetch(s, &j, st, last->dst->data, last->dst->stride);
    if (st == GI_OK) st = mark(s, MARK_DOWNLOAD);
    if (st == GI_OK) st = mark(s, MARK_DONE);
    st = finish(s, st);
    return st == GI_OK ? record_times(s) : st;
}

/* Makes s's GPU the calling thread's current device before a chain (the
 * current device is per thread, and the threads that run a context come
 * and go). GPUIMG_TEST_FAIL_GPU makes its GPU fail here after its first
 * chain, as a GPU lost mid-batch would. */
static gi_status use_device(cuda_state *s)
{
    if (gi__process_overrides()->fail_gpu == s->device && s->chains++ > 0)
        return gi__fail(GI_ERR_DEVICE, "GPU %d failed (GPUIMG_TEST_FAIL_GPU=%d)", s->device,
                        s->device);
    cudaError_t e = cudaSetDevice(s->device);
    return e == cudaSuccess ? GI_OK : gi__cuda_fail(e, "cudaSetDevice");
}

static gi_status cuda_run_chain(void *state, const gi__chain *ch)
{
    cuda_state *s = state;
    gi_status ready = use_device(s);
    if (ready != GI_OK) return ready;
    return run_steps(s, ch, 0, reserve_result_stage(s, ch));
}

/* Device room for a JPEG: its coefficients, its component planes, and its
 * pixels laid out as the first step reads a source (row alignment); the
 * pinned stage the coefficients go up through. */
static gi_status reserve_jpeg(cuda_state *s, const gi_jpeg_coeffs *c, const gi__chain *ch,
                              size_t *pitch)
{
    image_op op;
    size_t bytes = 0;
    int w, h;
    gi__jpeg_output_size(c, &w, &h);
    gi_status st = describe(&ch->steps[0], &op);
    if (st == GI_OK)
        st = device_layout((size_t)w * (size_t)c->out_channels, h, op.in_align, pitch, &bytes);
    if (st == GI_OK) st = gi__cuda_reserve_device(&s->src, bytes, "JPEG decode");
    if (st == GI_OK) st = gi__cuda_reserve_device(&s->coeffs, c->storage_bytes, "JPEG decode");
    if (st == GI_OK) st = gi__cuda_reserve_device(&s->planes, gi__cuda_jpeg_planes_bytes(c), "JPEG decode");
    if (st == GI_OK && c->storage && !gi__pixels_pinned(c->storage))
        st = gi__cuda_reserve_pinned(&s->stage_in, c->storage_bytes);
    return st;
}

/* A deferred scan (jpeg_deferred.h) up and Huffman-decoded into s->coeffs.
 * Where the device does not finish it the CPU's way, GI_ERR_DECODE: the
 * job decodes the file on the CPU (gi__job_apply_jpeg). */
static gi_status decode_deferred(cuda_state *s, const gi_jpeg_coeffs *c)
{
    s->stage_in_ms = 0;
    gi_status st = mark(s, MARK_UPLOAD);
    if (st == GI_OK) st = gi__cuda_jpeg_entropy_upload(&s->entropy, c, s->stream);
    if (st == GI_OK) st = mark(s, MARK_KERNEL);
    int outcome = GI_CUDA_JPEG_DAMAGED;
    if (st == GI_OK) st = gi__cuda_jpeg_entropy_decode(&s->entropy, c, s->coeffs.ptr, s->stream, &outcome);
    if (st == GI_OK && outcome != GI_CUDA_JPEG_DECODED)
        st = gi__fail(GI_ERR_DECODE, outcome == GI_CUDA_JPEG_UNSETTLED
                                         ? "the JPEG's scan did not settle on the device: left to the CPU's decoder"
                                         : "the JPEG's scan is left to the CPU's decoder");
    return st;
}

/* Queues the coefficients' upload and the arithmetic half into s->src,
 * rows `pitch` apart. Coefficients in page-locked memory (pixel_alloc.h)
 * go up from where they are; others through the pinned stage. */
static gi_status queue_jpeg(cuda_state *s, const gi_jpeg_coeffs *c, size_t pitch)
{
    if (c->deferred) {
        gi_status st = decode_deferred(s, c);
        return st == GI_OK ? gi__cuda_jpeg_reconstruct(c, s->coeffs.ptr, s->planes.ptr, s->src.ptr,
                                                       pitch, s->stream)
                           : st;
    }
    const void *from = c->storage;
    double start = gi__now_ms();
    if (!gi__pixels_pinned(c->storage)) {
        memcpy(s->stage_in.ptr, c->storage, c->storage_bytes);
        from = s->stage_in.ptr;
    }
    s->stage_in_ms = gi__now_ms() - start;
    gi_status st = mark(s, MARK_UPLOAD);
    if (st == GI_OK) {
        cudaError_t e = cudaMemcpyAsync(s->coeffs.ptr, from, c->storage_bytes,
                                        cudaMemcpyHostToDevice, s->stream);
        if (e != cudaSuccess) st = gi__cuda_fail(e, "JPEG coefficients upload");
    }
    if (st == GI_OK) st = mark(s, MARK_KERNEL);
    if (st == GI_OK)
        st = gi__cuda_jpeg_reconstruct(c, s->coeffs.ptr, s->planes.ptr, s->src.ptr, pitch,
                                       s->stream);
    return st;
}

static gi_status cuda_run_chain_from_jpeg(void *state, const gi_jpeg_coeffs *c,
                                          const gi__chain *chain)
{
    cuda_state *s = state;
    gi_status ready = use_device(s);
    if (ready != GI_OK) return ready;
    if (c->storage_bytes == 0)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "a JPEG without coefficients");
    size_t pitch = 0;
    gi_status st = reserve_result_stage(s, chain);
    if (st == GI_OK) st = reserve_jpeg(s, c, chain, &pitch);
    if (st == GI_OK) st = queue_jpeg(s, c, pitch);
    int w, h;
    gi__jpeg_output_size(c, &w, &h);
    const gi_image src = {.data = s->src.ptr, .width = w, .height = h,
                          .channels = c->out_channels, .stride = pitch};
    gi__op_call steps[GI_MAX_STEPS];
    gi__chain from_device;
    gi__chain_from(chain, &src, GI__DEVICE, steps, &from_device);
    return run_steps(s, &from_device, 1, st);
}

/* ---------------------------------------------------------------- backend */

static void cuda_last_times(void *state, gi_op_times *times)
{
    const cuda_state *s = state;
    *times = s->times;
}

static void cuda_destroy(void *state)
{
    cuda_state *s = state;
    /* Teardown has no caller to report to; errors here change nothing. */
    cudaSetDevice(s->device);
    cudaStreamSynchronize(s->stream);
    for (int i = 0; i < MARK_COUNT; i++)
        if (s->marks[i]) cudaEventDestroy(s->marks[i]);
    cudaFree(s->src.ptr);
    cudaFree(s->dst.ptr);
    cudaFree(s->mid.ptr);
    cudaFree(s->scratch.ptr);
    cudaFree(s->coeffs.ptr);
    cudaFree(s->planes.ptr);
    cudaFreeHost(s->stage_in.ptr);
    cudaFreeHost(s->stage_out.ptr);
    gi__cuda_jpeg_encoder_free(&s->encoder);
    gi__cuda_jpeg_entropy_free(&s->entropy);
    gi__cuda_waiter_free(&s->waiter);
    cudaStreamDestroy(s->stream);
    cudaGetLastError();
    free(s);
}

static const gi__backend_ops cuda_ops = {
    .name = "cuda",
    .run_chain = cuda_run_chain,
    .run_chain_from_jpeg = cuda_run_chain_from_jpeg,
    .last_times = cuda_last_times,
    .destroy = cuda_destroy,
    .compare = cuda_compare,
};

gi_status gi__cuda_backend_reserve(void *state, size_t in_bytes, size_t out_bytes)
{
    cuda_state *s = state;
    cudaError_t e = cudaSetDevice(s->device);
    if (e != cudaSuccess) return gi__cuda_fail(e, "cudaSetDevice");
    gi_status st = gi__cuda_reserve_pinned(&s->stage_in, in_bytes);
    return st == GI_OK ? gi__cuda_reserve_pinned(&s->stage_out, out_bytes) : st;
}

/* The pixel allocator's page-locked blocks (pixel_alloc.h): its mappings,
 * registered with the driver. Portable: every GPU of a batch copies from
 * them. */
static int pin_lock(void *p, size_t bytes)
{
    if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
        cudaGetLastError(); /* the allocator falls back to plain memory */
        return -1;
    }
    return 0;
}

static void pin_unlock(void *p)
{
    if (cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
}

gi_status gi__cuda_backend_create(int device, const gi__backend_ops **ops, void **state)
{
    const char *why;
    int n = gi_cuda_device_count(&why);
    if (n == 0) return gi__fail(GI_ERR_NO_DEVICE, "%s", why);
    if (device < 0 || device >= n)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "GPU %d: %d GPU%s visible (indices 0 to %d)",
                        device, n, n == 1 ? " is" : "s are", n - 1);
    /* The stream, the events and the probe belong to the current device. */
    cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) return gi__cuda_fail(e, "cudaSetDevice");
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
        return gi__cuda_fail(e, "cudaStreamCreate");
    }
    for (int i = 0; i < MARK_COUNT && e == cudaSuccess; i++) e = cudaEventCreate(&s->marks[i]);
    if (e != cudaSuccess) {
        gi_status st = gi__cuda_fail(e, "cudaEventCreate");
        cuda_destroy(s);
        return st;
    }
    static const gi__pixels_pinner pinner = {pin_lock, pin_unlock};
    gi__pixels_use_pinned(&pinner);
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
    if (e == cudaErrorInsufficientDriver) {
        /* what CUDA says where no NVIDIA driver is installed at all, too */
        cudaGetLastError();
        snprintf(reason, sizeof reason, "no usable NVIDIA driver: none is installed, or it is "
                 "older than this build's CUDA %d.%d needs", CUDART_VERSION / 1000,
                 CUDART_VERSION % 1000 / 10);
        n = 0;
    } else if (e == cudaErrorNoDevice) {
        cudaGetLastError();
        snprintf(reason, sizeof reason, "no CUDA device found");
        n = 0;
    } else if (e != cudaSuccess) {
        cudaGetLastError();
        snprintf(reason, sizeof reason, "no usable CUDA driver or device: %s",
                 cudaGetErrorString(e));
        n = 0;
    } else if (n == 0) {
        snprintf(reason, sizeof reason, "no CUDA device found");
    }
    if (why) *why = n > 0 ? "" : reason;
    return n;
}

#define BANDWIDTH_BYTES ((size_t)256 << 20)
#define BANDWIDTH_RUNS 7

/* Median time of a 256 MiB device-to-device copy, after one warm-up copy,
 * as GB/s counting the bytes read plus the bytes written. */
static gi_status measure_copy(double *gbytes_per_s)
{
    void *a = NULL, *b = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    double ms[BANDWIDTH_RUNS];
    gi_status st = GI_OK;
    cudaError_t e = gi__cuda_malloc(&a, BANDWIDTH_BYTES);
    if (e == cudaSuccess) e = gi__cuda_malloc(&b, BANDWIDTH_BYTES);
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
        float elapsed = 0;
        if (e == cudaSuccess) e = cudaEventElapsedTime(&elapsed, start, stop);
        ms[i] = elapsed;
    }
    if (e != cudaSuccess) {
        st = gi__cuda_fail(e, "bandwidth test");
        goto done;
    }
    *gbytes_per_s = 2.0 * BANDWIDTH_BYTES / (gi__median(ms, BANDWIDTH_RUNS) * 1e-3) / 1e9;
done:
    /* cleanup of what was made; a failure here cannot change the answer */
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    cudaFree(a);
    cudaFree(b);
    cudaGetLastError();
    return st;
}

/* Reached through module_loader.c's gi_cuda_device_info, which refuses a
 * NULL info first (the module does not link the library's error rules). */
gi_status gi_cuda_device_info(int index, int measure_bandwidth, gi_device_info *info)
{
    const char *why;
    int n = gi_cuda_device_count(&why);
    if (n == 0) return gi__fail(GI_ERR_NO_DEVICE, "%s", why);
    if (index < 0 || index >= n)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "CUDA device %d: there are %d", index, n);
    struct cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, index);
    if (e != cudaSuccess) return gi__cuda_fail(e, "cudaGetDeviceProperties");
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
    if (e != cudaSuccess) return gi__cuda_fail(e, "cudaSetDevice");
    gi_status st = measure_copy(&info->copy_gbytes_per_s);
    cudaSetDevice(previous); /* back to the caller's device; it was valid a moment ago */
    return st;
}
