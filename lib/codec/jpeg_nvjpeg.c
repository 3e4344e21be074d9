/* JPEG decoding with NVIDIA nvJPEG (GI_JPEG_DECODER_NVJPEG).
 *
 * nvJPEG's library handle is thread-safe and slow to make (it starts CUDA
 * and nvJPEG's allocators), so the process makes one, the first time a JPEG
 * comes this way (pthread_once), on the CUDA device current then. A decoder
 * state is not thread-safe: each thread that decodes gets its own state,
 * CUDA stream and device output buffer, kept in thread-specific data so a
 * worker reuses them image after image, and freed when the thread ends.
 *
 * One decode: the header through nvjpegGetImageInfo, checked against the
 * limits before anything is allocated; nvjpegDecode into the thread's
 * device buffer on its stream, as interleaved RGB, or Y alone for a gray
 * file (the channel counts stb gives); one copy back into a new image. */
#include <cuda_runtime_api.h>
#include <nvjpeg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gi_error.h"
#include "jpeg_nvjpeg.h"

/* Chroma upsampling that interpolates, as stb's does, rather than repeating
 * samples. With it, 4:2:0 files came within 3 levels of stb's pixels on an
 * H200 with nvJPEG 13.0 (tests/gpu/nvjpeg_vs_stb); 4:2:2 ones still differ
 * next to hard colour edges. Older nvJPEG headers lack the flag. */
#ifdef NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION
#define UPSAMPLING NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION
#else
#define UPSAMPLING 0
#endif

typedef struct {
    cudaStream_t stream;
    nvjpegJpegState_t state;
    void *pixels; /* device output, grown as needed, never shrunk */
    size_t bytes;
} thread_decoder;

/* What set_up_process made, read only after pthread_once returns. */
static pthread_once_t process_once = PTHREAD_ONCE_INIT;
static nvjpegHandle_t handle;
static int handle_device;
static pthread_key_t decoder_key;
static gi_status set_up_status;
static char set_up_error[512];

int gi__nvjpeg_compiled(void)
{
    return 1;
}

/* nvJPEG's status by name, with what it means for a caller. */
static const char *status_text(nvjpegStatus_t s)
{
    switch (s) {
    case NVJPEG_STATUS_SUCCESS: return "NVJPEG_STATUS_SUCCESS";
    case NVJPEG_STATUS_NOT_INITIALIZED: return "NVJPEG_STATUS_NOT_INITIALIZED";
    case NVJPEG_STATUS_INVALID_PARAMETER: return "NVJPEG_STATUS_INVALID_PARAMETER";
    case NVJPEG_STATUS_BAD_JPEG: return "NVJPEG_STATUS_BAD_JPEG: corrupt JPEG data";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED:
        return "NVJPEG_STATUS_JPEG_NOT_SUPPORTED: a JPEG feature nvJPEG does not decode, such "
               "as arithmetic coding, 4 components (CMYK), lossless or 12-bit samples";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE:
        return "NVJPEG_STATUS_ALLOCATOR_FAILURE: out of device or pinned memory";
    case NVJPEG_STATUS_EXECUTION_FAILED:
        return "NVJPEG_STATUS_EXECUTION_FAILED: a CUDA call inside nvJPEG failed";
    case NVJPEG_STATUS_ARCH_MISMATCH:
        return "NVJPEG_STATUS_ARCH_MISMATCH: this GPU is not supported";
    case NVJPEG_STATUS_INTERNAL_ERROR: return "NVJPEG_STATUS_INTERNAL_ERROR";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED:
        return "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: not implemented by nvJPEG's decoder";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM:
        return "NVJPEG_STATUS_INCOMPLETE_BITSTREAM: the JPEG data ends early";
    }
    return "an unknown nvJPEG status";
}

static gi_status status_kind(nvjpegStatus_t s)
{
    switch (s) {
    case NVJPEG_STATUS_BAD_JPEG:
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM: return GI_ERR_DECODE;
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED:
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: return GI_ERR_UNSUPPORTED;
    case NVJPEG_STATUS_ALLOCATOR_FAILURE: return GI_ERR_NO_MEMORY;
    default: return GI_ERR_DEVICE;
    }
}

static gi_status nvjpeg_failed(const char *name, nvjpegStatus_t s, const char *what)
{
    cudaGetLastError(); /* nvJPEG's CUDA errors must not surface at the next launch check */
    return gi__fail(status_kind(s), "%s: cannot decode JPEG with nvJPEG (%s: %s)", name, what,
                    status_text(s));
}

static gi_status cuda_failed(const char *name, cudaError_t e, const char *what)
{
    cudaGetLastError();
    return gi__fail(e == cudaErrorMemoryAllocation ? GI_ERR_NO_MEMORY : GI_ERR_DEVICE,
                    "%s: cannot decode JPEG with nvJPEG (CUDA %s: %s, %s)", name, what,
                    cudaGetErrorName(e), cudaGetErrorString(e));
}

/* The destructor of a thread's decoder: the thread is ending, so there is
 * no caller to report a failure to. */
static void free_decoder(void *p)
{
    thread_decoder *d = p;
    cudaSetDevice(handle_device);
    cudaStreamSynchronize(d->stream);
    if (d->state) nvjpegJpegStateDestroy(d->state);
    cudaFree(d->pixels);
    cudaStreamDestroy(d->stream);
    cudaGetLastError();
    free(d);
}

static void set_up_process(void)
{
    const char *why;
    if (gi_cuda_device_count(&why) == 0) {
        set_up_status = GI_ERR_NO_DEVICE;
        snprintf(set_up_error, sizeof set_up_error, "nvJPEG needs a CUDA device: %s", why);
        return;
    }
    cudaError_t e = cudaGetDevice(&handle_device);
    if (e != cudaSuccess) {
        cudaGetLastError();
        set_up_status = GI_ERR_DEVICE;
        snprintf(set_up_error, sizeof set_up_error, "cudaGetDevice: %s", cudaGetErrorName(e));
        return;
    }
    if (pthread_key_create(&decoder_key, free_decoder) != 0) {
        set_up_status = GI_ERR_NO_MEMORY;
        snprintf(set_up_error, sizeof set_up_error, "no thread-specific key for nvJPEG states");
        return;
    }
    nvjpegStatus_t s = nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, UPSAMPLING, &handle);
    if (s != NVJPEG_STATUS_SUCCESS) {
        cudaGetLastError();
        set_up_status = s == NVJPEG_STATUS_ARCH_MISMATCH ? GI_ERR_NO_DEVICE : GI_ERR_DEVICE;
        snprintf(set_up_error, sizeof set_up_error, "nvjpegCreateEx: %s", status_text(s));
    }
}

/* This thread's decoder, made at its first JPEG (on handle_device). */
static gi_status this_thread_decoder(const char *name, thread_decoder **out)
{
    thread_decoder *d = pthread_getspecific(decoder_key);
    if (d) {
        *out = d;
        return GI_OK;
    }
    d = calloc(1, sizeof *d);
    if (!d) return gi__fail(GI_ERR_NO_MEMORY, "%s: cannot allocate an nvJPEG decoder", name);
    cudaError_t e = cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        free(d);
        return cuda_failed(name, e, "cudaStreamCreate");
    }
    nvjpegStatus_t s = nvjpegJpegStateCreate(handle, &d->state);
    if (s != NVJPEG_STATUS_SUCCESS) {
        free_decoder(d);
        return nvjpeg_failed(name, s, "nvjpegJpegStateCreate");
    }
    if (pthread_setspecific(decoder_key, d) != 0) {
        free_decoder(d);
        return gi__fail(GI_ERR_NO_MEMORY, "%s: cannot keep this thread's nvJPEG decoder", name);
    }
    *out = d;
    return GI_OK;
}

static cudaError_t reserve_output(thread_decoder *d, size_t bytes)
{
    if (d->bytes >= bytes) return cudaSuccess;
    cudaError_t e = cudaFree(d->pixels);
    d->pixels = NULL;
    d->bytes = 0;
    if (e == cudaSuccess) e = cudaMalloc(&d->pixels, bytes);
    if (e == cudaSuccess) d->bytes = bytes;
    return e;
}

/* Decodes into img (allocated here, w x h x channels) on handle_device. */
static gi_status decode(gi_image *img, const uint8_t *bytes, size_t size, const char *name, int w,
                        int h, int channels)
{
    thread_decoder *d = NULL;
    gi_status st = this_thread_decoder(name, &d);
    if (st == GI_OK) st = gi_image_alloc(img, w, h, channels);
    if (st != GI_OK) return st;
    const size_t row = (size_t)w * channels;
    cudaError_t e = reserve_output(d, row * h);
    if (e != cudaSuccess) {
        gi_image_free(img);
        return cuda_failed(name, e, "cudaMalloc");
    }
    nvjpegImage_t out;
    memset(&out, 0, sizeof out);
    out.channel[0] = d->pixels;
    out.pitch[0] = row;
    nvjpegStatus_t s = nvjpegDecode(handle, d->state, bytes, size,
                                    channels == 1 ? NVJPEG_OUTPUT_Y : NVJPEG_OUTPUT_RGBI, &out,
                                    d->stream);
    if (s == NVJPEG_STATUS_SUCCESS)
        e = cudaMemcpyAsync(img->data, d->pixels, row * h, cudaMemcpyDeviceToHost, d->stream);
    /* Drained after a failure too, so nothing is in flight into the buffer
     * when the next image reuses it. */
    cudaError_t synced = cudaStreamSynchronize(d->stream);
    if (s == NVJPEG_STATUS_SUCCESS && e == cudaSuccess && synced == cudaSuccess) return GI_OK;
    gi_image_free(img);
    if (s != NVJPEG_STATUS_SUCCESS) return nvjpeg_failed(name, s, "nvjpegDecode");
    return e != cudaSuccess ? cuda_failed(name, e, "download")
                            : cuda_failed(name, synced, "stream synchronize");
}

gi_status gi__nvjpeg_load(gi_image *img, const uint8_t *bytes, size_t size, const char *name,
                          const gi_load_limits *limits)
{
    pthread_once(&process_once, set_up_process);
    if (set_up_status != GI_OK) return gi__fail(set_up_status, "%s: %s", name, set_up_error);
    int components = 0, widths[NVJPEG_MAX_COMPONENT], heights[NVJPEG_MAX_COMPONENT];
    nvjpegChromaSubsampling_t subsampling;
    nvjpegStatus_t s =
        nvjpegGetImageInfo(handle, bytes, size, &components, &subsampling, widths, heights);
    if (s != NVJPEG_STATUS_SUCCESS) return nvjpeg_failed(name, s, "nvjpegGetImageInfo");
    if (components != 1 && components != 3)
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: cannot decode JPEG with nvJPEG (%d components%s; "
                        "it decodes 1, gray, or 3)", name, components,
                        components == 4 ? ", CMYK or YCCK, which stb decodes" : "");
    const int w = widths[0], h = heights[0];
    if (w <= 0 || h <= 0)
        return gi__fail(GI_ERR_DECODE, "%s: a %dx%d JPEG has no pixels", name, w, h);
    if ((uint64_t)w * (uint64_t)h > limits->max_pixels)
        return gi__fail(GI_ERR_TOO_LARGE, "%s: %dx%d is over the %llu-pixel limit", name, w, h,
                        (unsigned long long)limits->max_pixels);
    /* Decode on the handle's device, and leave the caller's current device
     * as it was. */
    int previous;
    cudaError_t e = cudaGetDevice(&previous);
    if (e == cudaSuccess && previous != handle_device) e = cudaSetDevice(handle_device);
    if (e != cudaSuccess) return cuda_failed(name, e, "cudaSetDevice");
    gi_status st = decode(img, bytes, size, name, w, h, components);
    if (previous != handle_device) cudaSetDevice(previous); /* valid a moment ago */
    return st;
}
