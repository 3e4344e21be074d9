/* jpeg_encode_device.h: the host side of kernels/jpeg_encode.cu. */
#include "jpeg_encode_device.h"

#include <cuda_runtime_api.h>
#include <string.h>

#include "base/clock.h"
#include "cuda_error.h"
#include "base/gi_error.h"
#include "base/gi_size.h"
#include "gi_kernels.h"
#include "codec/jpeg/jpeg_tables.h"
#include "codec/jpeg/jpeg_write.h"

/* The device copy of a quality's tables; uploaded when the quality
 * changes (the copy from pageable memory returns once it is staged, so
 * the host struct may go). */
static gi_status upload_tables(gi__cuda_jpeg_encoder *e, int quality, cudaStream_t stream)
{
    if (e->quality == quality) return GI_OK;
    gi_status st = gi__cuda_reserve_device(&e->tables, sizeof(gi_cuda_jpeg_enc_tables), "JPEG encode");
    if (st != GI_OK) return st;
    jpeg_tables t;
    gi__jpeg_write_tables(quality, &t);
    gi_cuda_jpeg_enc_tables d;
    memcpy(d.scale, t.scale, sizeof d.scale);
    for (int i = 0; i < 4; i++) {
        memcpy(d.code[i], t.huff[i].code, sizeof d.code[i]);
        memcpy(d.len[i], t.huff[i].len, sizeof d.len[i]);
    }
    memcpy(d.natural_order, gi__jpeg_natural_order, sizeof d.natural_order);
    cudaError_t err = cudaMemcpyAsync(e->tables.ptr, &d, sizeof d, cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess) err = gi__cuda_wait(&e->waiter, stream);
    if (err != cudaSuccess) {
        e->quality = 0;
        return gi__cuda_fail(err, "JPEG tables upload");
    }
    e->quality = quality;
    return GI_OK;
}

/* a * b into *out, or a size error naming the work. */
static gi_status product(size_t a, size_t b, size_t *out)
{
    if (gi__mul_size(a, b, out))
        return gi__fail(GI_ERR_TOO_LARGE, "JPEG encode: the image is too large for the GPU");
    return GI_OK;
}

gi_status gi__cuda_jpeg_encode(gi__cuda_jpeg_encoder *e, const uint8_t *d_pixels, size_t pitch,
                               int width, int height, int channels, int quality, void *stream,
                               uint8_t **bytes, size_t *size, double *host_ms)
{
    *bytes = NULL;
    *size = 0;
    *host_ms = 0;
    cudaStream_t s = (cudaStream_t)stream;
    quality = quality ? quality : 90; /* stb's rule, before the clamp */
    const int subsample = quality <= 90;
    quality = quality < 1 ? 1 : quality > 100 ? 100 : quality;
    if (width <= 0 || height <= 0 || channels < 1 || channels > 4)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "JPEG encode: a %dx%d image of %d channels",
                        width, height, channels);
    const long long blocks = gi_cuda_jpeg_enc_blocks(width, height, subsample);
    size_t coef_bytes, count_bytes;
    gi_status st = product((size_t)blocks, 64 * sizeof(int16_t), &coef_bytes);
    if (st == GI_OK) st = product((size_t)blocks + 1, sizeof(unsigned long long), &count_bytes);
    if (st == GI_OK) st = upload_tables(e, quality, s);
    if (st == GI_OK) st = gi__cuda_reserve_device(&e->coef, coef_bytes, "JPEG encode");
    if (st == GI_OK) st = gi__cuda_reserve_device(&e->counts, count_bytes, "JPEG encode");
    if (st == GI_OK) st = gi__cuda_reserve_device(&e->offsets, count_bytes, "JPEG encode");
    if (st == GI_OK)
        st = gi__cuda_reserve_device(&e->scan_temp, gi_cuda_jpeg_enc_scan_bytes(blocks) + 1,
                                     "JPEG encode");
    if (st != GI_OK) return st;
    cudaError_t err = gi_cuda_jpeg_enc_count(d_pixels, pitch, width, height, channels, subsample,
                                             e->tables.ptr, e->coef.ptr, e->counts.ptr,
                                             e->offsets.ptr, e->scan_temp.ptr,
                                             e->scan_temp.bytes, s);
    /* The scan's length decides how many words to clear and bring back. It
     * comes back through the pinned stage: a copy into pageable memory would
     * hold this thread inside cudaMemcpyAsync until the kernels end,
     * spinning, where gi__cuda_wait may sleep. */
    if (err != cudaSuccess) return gi__cuda_fail(err, "JPEG encode");
    st = gi__cuda_reserve_pinned(&e->stage, sizeof(unsigned long long));
    if (st != GI_OK) return st;
    err = cudaMemcpyAsync(e->stage.ptr, (unsigned long long *)e->offsets.ptr + blocks,
                          sizeof(unsigned long long), cudaMemcpyDeviceToHost, s);
    if (err == cudaSuccess) err = gi__cuda_wait(&e->waiter, s);
    if (err != cudaSuccess) return gi__cuda_fail(err, "JPEG encode");
    unsigned long long total_bits;
    memcpy(&total_bits, e->stage.ptr, sizeof total_bits);
    const size_t scan_bytes = (size_t)((total_bits + 7) / 8); /* with stb's padding, whole bytes */
    const size_t nwords = (size_t)((total_bits + 7 + 31) / 32);
    size_t word_bytes;
    st = product(nwords + 1, sizeof(uint32_t), &word_bytes); /* + 1: a code's second word */
    if (st == GI_OK) st = gi__cuda_reserve_device(&e->words, word_bytes, "JPEG encode");
    if (st == GI_OK) st = gi__cuda_reserve_pinned(&e->stage, nwords * sizeof(uint32_t));
    if (st != GI_OK) return st;
    err = cudaMemsetAsync(e->words.ptr, 0, word_bytes, s);
    if (err == cudaSuccess)
        err = gi_cuda_jpeg_enc_emit(width, height, subsample, e->tables.ptr, e->coef.ptr,
                                    e->offsets.ptr, e->words.ptr, nwords, s);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(e->stage.ptr, e->words.ptr, scan_bytes, cudaMemcpyDeviceToHost, s);
    if (err == cudaSuccess) err = gi__cuda_wait(&e->waiter, s);
    if (err != cudaSuccess) return gi__cuda_fail(err, "JPEG encode");
    double start = gi__now_ms();
    int r = gi__jpeg_write_around_scan(width, height, quality, e->stage.ptr, scan_bytes, bytes, size);
    *host_ms = gi__now_ms() - start;
    return r == 0 ? GI_OK : gi__fail(GI_ERR_NO_MEMORY, "JPEG encode: out of memory");
}

void gi__cuda_jpeg_encoder_free(gi__cuda_jpeg_encoder *e)
{
    gi__cuda_free_device(&e->tables);
    gi__cuda_free_device(&e->coef);
    gi__cuda_free_device(&e->counts);
    gi__cuda_free_device(&e->offsets);
    gi__cuda_free_device(&e->scan_temp);
    gi__cuda_free_device(&e->words);
    gi__cuda_free_pinned(&e->stage);
    gi__cuda_waiter_free(&e->waiter);
    e->quality = 0;
}
