/* jpeg_device.h: the host side of kernels/jpeg_decode.cu. */
#include "jpeg_device.h"

#include <cuda_runtime_api.h>

#include "cuda_error.h"
#include "stream_wait.h"
#include "base/gi_error.h"
#include "gi_kernels.h"
#include "codec/jpeg/jpeg_recon_plan.h"
#include "codec/jpeg/jpeg_shrink.h"

/* Plane rows start on this boundary, like the backend's images. */
#define PLANE_ALIGN 256

static size_t plane_pitch(const gi_jpeg_plane *p)
{
    size_t row = (size_t)((p->width + 7) / 8) * 8;
    return (row + PLANE_ALIGN - 1) / PLANE_ALIGN * PLANE_ALIGN;
}

static size_t plane_bytes(const gi_jpeg_plane *p)
{
    return plane_pitch(p) * (size_t)((p->height + 7) / 8) * 8;
}

/* A reduced plane's (shrink-on-load) rows and their pitch. */
static size_t reduced_pitch(const gi_jpeg_reduced_geometry *g)
{
    return ((size_t)g->width + PLANE_ALIGN - 1) / PLANE_ALIGN * PLANE_ALIGN;
}

size_t gi__cuda_jpeg_planes_bytes(const gi_jpeg_coeffs *c)
{
    size_t bytes = 0;
    if (c->shrink > 1) {
        for (int i = 0; i < gi__jpeg_shrinkable(c); i++) {
            gi_jpeg_reduced_geometry g;
            gi__jpeg_reduced_geometry(c, i, c->shrink, &g);
            bytes += reduced_pitch(&g) * (size_t)g.height;
        }
        return bytes;
    }
    int used = gi__jpeg_components_used(gi__jpeg_colour_mode(c));
    for (int i = 0; i < used; i++) bytes += plane_bytes(&c->plane[i]);
    return bytes;
}

static gi_cuda_jpeg_reduced_table reduced_table(int n)
{
    gi_cuda_jpeg_reduced_table t = {.n = n};
    const int32_t *a = gi__jpeg_reduced_table(n);
    for (int i = 0; i < n * n; i++) t.a[i] = a[i];
    return t;
}

/* Shrink-on-load: each component's reduced IDCT, then the shrunk image's
 * pixels (jpeg_shrink.h). */
static gi_status reconstruct_shrunk(const gi_jpeg_coeffs *c, const int16_t *d_coeffs,
                                    uint8_t *d_planes, uint8_t *d_out, size_t out_pitch,
                                    cudaStream_t s)
{
    gi_cuda_jpeg_reduced_frame f = {.out_channels = c->out_channels,
                                    .ncomp_used = gi__jpeg_shrinkable(c)};
    gi__jpeg_output_size(c, &f.width, &f.height);
    if (f.ncomp_used == 0)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "a JPEG planned to shrink that cannot");
    for (int i = 0; i < f.ncomp_used; i++) {
        const gi_jpeg_plane *p = &c->plane[i];
        gi_jpeg_reduced_geometry g;
        gi__jpeg_reduced_geometry(c, i, c->shrink, &g);
        gi_cuda_jpeg_quant q;
        for (int k = 0; k < 64; k++) q.q[k] = c->quant[p->tq][k];
        const gi_cuda_jpeg_reduced_table ax = reduced_table(g.nx), ay = reduced_table(g.ny);
        const size_t pitch = reduced_pitch(&g);
        cudaError_t e = gi_cuda_jpeg_reduced_idct(d_coeffs + p->offset, p->block_len, p->blocks_w,
                                                  (p->width + 7) / 8, (p->height + 7) / 8, &q,
                                                  &ax, &ay, d_planes, pitch, s);
        if (e != cudaSuccess) return gi__cuda_fail(e, "JPEG reduced IDCT launch");
        f.comp[i] = (gi_cuda_jpeg_reduced_component){
            .plane = d_planes, .pitch = pitch, .width = g.width, .height = g.height,
            .x_num = g.x_num, .x_den = g.x_den, .y_num = g.y_num, .y_den = g.y_den};
        d_planes += pitch * (size_t)g.height;
    }
    cudaError_t e = gi_cuda_jpeg_reduced_colour(&f, d_out, out_pitch, s);
    return e == cudaSuccess ? GI_OK : gi__cuda_fail(e, "JPEG reduced colour launch");
}

gi_status gi__cuda_jpeg_reconstruct(const gi_jpeg_coeffs *c, const int16_t *d_coeffs,
                                    uint8_t *d_planes, uint8_t *d_out, size_t out_pitch,
                                    void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (!gi__jpeg_dc_planes_fit(c, c->shrink > 1 ? c->shrink : 1))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "JPEG coefficients of DCs alone for an image "
                        "that reads more");
    if (c->shrink > 1) return reconstruct_shrunk(c, d_coeffs, d_planes, d_out, out_pitch, s);
    gi_cuda_jpeg_frame f = {.width = c->width, .height = c->height,
                            .out_channels = c->out_channels,
                            .mode = (int)gi__jpeg_colour_mode(c)};
    f.ncomp_used = gi__jpeg_components_used((gi_jpeg_colour_mode)f.mode);
    for (int i = 0; i < f.ncomp_used; i++) {
        const gi_jpeg_plane *p = &c->plane[i];
        gi_cuda_jpeg_quant q;
        for (int k = 0; k < 64; k++) q.q[k] = c->quant[p->tq][k];
        size_t pitch = plane_pitch(p);
        cudaError_t e = gi_cuda_jpeg_idct(d_coeffs + p->offset, p->blocks_w,
                                          (p->width + 7) / 8, (p->height + 7) / 8, &q, d_planes,
                                          pitch, s);
        if (e != cudaSuccess) return gi__cuda_fail(e, "JPEG IDCT launch");
        int hs = c->hmax / p->h, vs = c->vmax / p->v;
        f.comp[i] = (gi_cuda_jpeg_component){.plane = d_planes, .pitch = pitch,
                                             .width = p->width, .height = p->height,
                                             .hs = hs, .vs = vs,
                                             .up = (int)gi__jpeg_upsampler(hs, vs)};
        d_planes += plane_bytes(p);
    }
    cudaError_t e = gi_cuda_jpeg_colour(&f, d_out, out_pitch, s);
    return e == cudaSuccess ? GI_OK : gi__cuda_fail(e, "JPEG colour launch");
}

gi_status gi__cuda_jpeg_reconstruct_host(const gi_jpeg_coeffs *c, uint8_t *pixels,
                                         size_t stride)
{
    int w, h;
    gi__jpeg_output_size(c, &w, &h);
    size_t out_pitch = (size_t)w * (size_t)c->out_channels;
    size_t out_bytes = out_pitch * (size_t)h;
    size_t planes = gi__cuda_jpeg_planes_bytes(c);
    int16_t *d_coeffs = NULL;
    uint8_t *d_planes = NULL, *d_out = NULL;
    cudaStream_t stream = NULL;
    gi__cuda_waiter waiter = {0};
    gi_status st = GI_OK;
    cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaMalloc((void **)&d_coeffs, c->storage_bytes ? c->storage_bytes : 1);
    if (e == cudaSuccess) e = cudaMalloc((void **)&d_planes, planes ? planes : 1);
    if (e == cudaSuccess) e = cudaMalloc((void **)&d_out, out_bytes);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(d_coeffs, c->storage, c->storage_bytes, cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess) e = cudaMemsetAsync(d_planes, 0xA5, planes, stream);
    if (e == cudaSuccess) e = cudaMemsetAsync(d_out, 0xA5, out_bytes, stream);
    if (e != cudaSuccess) st = gi__cuda_fail(e, "JPEG buffers");
    if (st == GI_OK) st = gi__cuda_jpeg_reconstruct(c, d_coeffs, d_planes, d_out, out_pitch, stream);
    if (st == GI_OK) {
        e = cudaMemcpy2DAsync(pixels, stride, d_out, out_pitch, out_pitch, (size_t)h,
                              cudaMemcpyDeviceToHost, stream);
        if (e == cudaSuccess) e = gi__cuda_wait(&waiter, stream);
        if (e != cudaSuccess) st = gi__cuda_fail(e, "JPEG download");
    }
    gi__cuda_waiter_free(&waiter);
    cudaFree(d_out);
    cudaFree(d_planes);
    cudaFree(d_coeffs);
    if (stream) cudaStreamDestroy(stream);
    return st;
}
