/* JPEG decoding and encoding with NVIDIA nvJPEG (the fast codecs).
 *
 * One nvJPEG handle per process, made once (pthread_once) on the CUDA
 * device current then: by gi_nvjpeg_start on a thread of its own while the
 * caller reads its first files, or else by the first image that needs it.
 * The handle is asked for the hardware backend (the JPEG engines of A100,
 * H100, H200); where the GPU has none, for the default one.
 *
 * Decoding: a baseline colour file that the engines take
 * (nvjpegDecodeBatchedSupported) goes to them through the batched API;
 * everything else that nvJPEG decodes (progressive, gray, 4:1:0 ...) goes
 * to its hybrid decoder (Huffman on the CPU, the rest on the GPU) through
 * the decoupled API. The GPU-hybrid backend is not used: nvJPEG's known
 * issues say it can misdecode out-of-bound run lengths, which hostile files
 * have. What nvJPEG refuses (CMYK, 12-bit, arithmetic) the caller gives to
 * stb (image_io.c).
 *
 * Encoding: nvjpegEncodeImage from device memory; only the compressed bytes
 * come back. Chroma: 4:2:0 at quality <= 90 and 4:4:4 above, the rule of
 * stb's writer, so the two encoders make files of the same kind.
 *
 * Nothing is allocated per image once the pools are warm: a decoder or
 * encoder (its states, stream, pinned and device buffers, grown as needed,
 * never shrunk) is taken from a pool, used by one thread at a time, and
 * put back. Pools grow to the number of threads that code at once and live
 * as long as the process. A decoder makes each backend's state (the
 * engines', the hybrid decoder's) the first time one of its files needs
 * it, so a process that decodes only on the hybrid decoder never pays
 * for the engines' state, nor the other way round. */
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

typedef struct decoder {
    struct decoder *next; /* in the pool */
    cudaStream_t stream;
    nvjpegJpegStream_t parsed;
    /* Each backend's state is made by the first file that needs it (the
     * engines' alone took 354 ms on an H100), then kept: NULL until then. */
    nvjpegJpegState_t engine_state; /* batch of one on the engines */
    nvjpegJpegState_t hybrid_state; /* with the three below */
    nvjpegBufferPinned_t pinned;
    nvjpegBufferDevice_t device;
    nvjpegDecodeParams_t params;
    void *pixels; /* device output, grown as needed */
    size_t bytes;
} decoder;

typedef struct encoder {
    struct encoder *next;
    cudaStream_t stream;
    nvjpegEncoderState_t state;
    nvjpegEncoderParams_t params;
    void *pixels; /* device input, grown as needed */
    size_t bytes;
} encoder;

/* What set_up_process made, read only after pthread_once returns. */
static pthread_once_t process_once = PTHREAD_ONCE_INIT;
static nvjpegHandle_t handle;
static nvjpegJpegDecoder_t hybrid;
static int has_engines;
static int handle_device;
static gi_status set_up_status;
static char set_up_error[512];

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* Which of nvJPEG's decoders took the calling thread's last image. */
static _Thread_local const char *last_decoder = "nvjpeg";

const char *gi__nvjpeg_last_decoder(void)
{
    return last_decoder;
}
static decoder *free_decoders;
static encoder *free_encoders;

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
        return "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: not implemented by nvJPEG";
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

/* `verb` is "decode" or "encode". */
static gi_status nvjpeg_failed(const char *verb, const char *name, nvjpegStatus_t s,
                               const char *what)
{
    cudaGetLastError(); /* nvJPEG's CUDA errors must not surface at the next launch check */
    return gi__fail(status_kind(s), "%s: cannot %s JPEG with nvJPEG (%s: %s)", name, verb, what,
                    status_text(s));
}

static gi_status cuda_failed(const char *verb, const char *name, cudaError_t e, const char *what)
{
    cudaGetLastError();
    return gi__fail(e == cudaErrorMemoryAllocation ? GI_ERR_NO_MEMORY : GI_ERR_DEVICE,
                    "%s: cannot %s JPEG with nvJPEG (CUDA %s: %s, %s)", name, verb, what,
                    cudaGetErrorName(e), cudaGetErrorString(e));
}

static void set_up_failed(gi_status st, const char *what, nvjpegStatus_t s)
{
    cudaGetLastError();
    set_up_status = st;
    snprintf(set_up_error, sizeof set_up_error, "%s: %s", what, status_text(s));
}

/* A handle with `backend` and the hybrid decoder on it, or neither. */
static nvjpegStatus_t make_handle(nvjpegBackend_t backend)
{
    nvjpegStatus_t s = nvjpegCreateEx(backend, NULL, NULL, UPSAMPLING, &handle);
    if (s != NVJPEG_STATUS_SUCCESS) return s;
    s = nvjpegDecoderCreate(handle, NVJPEG_BACKEND_HYBRID, &hybrid);
    if (s != NVJPEG_STATUS_SUCCESS) {
        nvjpegDestroy(handle);
        handle = NULL;
    }
    return s;
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
    /* The hardware backend is refused (ARCH_MISMATCH or NOT_SUPPORTED)
     * where the GPU has no JPEG engines. */
    nvjpegStatus_t s = make_handle(NVJPEG_BACKEND_HARDWARE);
    has_engines = s == NVJPEG_STATUS_SUCCESS;
    if (!has_engines) {
        cudaGetLastError();
        s = make_handle(NVJPEG_BACKEND_DEFAULT);
    }
    if (s != NVJPEG_STATUS_SUCCESS)
        set_up_failed(s == NVJPEG_STATUS_ARCH_MISMATCH ? GI_ERR_NO_DEVICE : GI_ERR_DEVICE,
                      "nvjpegCreateEx", s);
}

static void *start_in_background(void *unused)
{
    (void)unused;
    pthread_once(&process_once, set_up_process);
    return NULL;
}

static pthread_t starter;
static int starter_running;
static pthread_once_t starter_once = PTHREAD_ONCE_INIT;

/* A process must not exit while CUDA starts on another thread (the CUDA
 * runtime's own exit handlers would run beside its start-up), so exit
 * waits for the starter. */
static void join_starter(void)
{
    if (starter_running) pthread_join(starter, NULL);
}

static void launch_starter(void)
{
    if (atexit(join_starter) != 0) return; /* then the first image makes the handle */
    starter_running = pthread_create(&starter, NULL, start_in_background, NULL) == 0;
}

void gi__nvjpeg_start(void)
{
    pthread_once(&starter_once, launch_starter);
}

int gi__nvjpeg_has_engines(void)
{
    pthread_once(&process_once, set_up_process);
    return set_up_status == GI_OK && has_engines;
}

/* Makes the process's handle if need be and makes its device current,
 * keeping the caller's in *previous. */
static gi_status enter(const char *name, int *previous)
{
    pthread_once(&process_once, set_up_process);
    if (set_up_status != GI_OK) return gi__fail(set_up_status, "%s: %s", name, set_up_error);
    cudaError_t e = cudaGetDevice(previous);
    if (e == cudaSuccess && *previous != handle_device) e = cudaSetDevice(handle_device);
    if (e != cudaSuccess) return cuda_failed("use", name, e, "cudaSetDevice");
    return GI_OK;
}

static void leave(int previous)
{
    if (previous != handle_device) cudaSetDevice(previous); /* valid a moment ago */
}

/* Releases the hybrid decoder's state and buffers, leaving them NULL. */
static void drop_hybrid(decoder *d)
{
    if (d->params) nvjpegDecodeParamsDestroy(d->params);
    if (d->hybrid_state) nvjpegJpegStateDestroy(d->hybrid_state);
    if (d->pinned) nvjpegBufferPinnedDestroy(d->pinned);
    if (d->device) nvjpegBufferDeviceDestroy(d->device);
    d->params = NULL;
    d->hybrid_state = NULL;
    d->pinned = NULL;
    d->device = NULL;
}

static void drop_engines(decoder *d)
{
    if (d->engine_state) nvjpegJpegStateDestroy(d->engine_state);
    d->engine_state = NULL;
}

static void destroy_decoder(decoder *d)
{
    if (d->stream) cudaStreamSynchronize(d->stream);
    drop_hybrid(d);
    drop_engines(d);
    if (d->parsed) nvjpegJpegStreamDestroy(d->parsed);
    cudaFree(d->pixels);
    if (d->stream) cudaStreamDestroy(d->stream);
    cudaGetLastError();
    free(d);
}

/* A decoder with its stream and parsed-stream holder; the backends' states
 * come later (need_hybrid, need_engines). */
static gi_status new_decoder(const char *name, decoder **out)
{
    decoder *d = calloc(1, sizeof *d);
    if (!d) return gi__fail(GI_ERR_NO_MEMORY, "%s: cannot allocate an nvJPEG decoder", name);
    cudaError_t e = cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        d->stream = NULL;
        destroy_decoder(d);
        return cuda_failed("decode", name, e, "cudaStreamCreate");
    }
    nvjpegStatus_t s = nvjpegJpegStreamCreate(handle, &d->parsed);
    if (s != NVJPEG_STATUS_SUCCESS) {
        d->parsed = NULL;
        destroy_decoder(d);
        return nvjpeg_failed("decode", name, s, "nvjpegJpegStreamCreate");
    }
    *out = d;
    return GI_OK;
}

/* The hybrid decoder's state, made the first time one of d's files needs
 * it. Each handle is kept only once made (a failed create may leave
 * anything in its output), and on failure all are dropped, so the next
 * file tries afresh; *what names the call that failed. */
static nvjpegStatus_t need_hybrid(decoder *d, const char **what)
{
    if (d->params) return NVJPEG_STATUS_SUCCESS; /* made last: all are there */
    nvjpegJpegState_t state;
    nvjpegBufferPinned_t pinned;
    nvjpegBufferDevice_t device;
    nvjpegDecodeParams_t params;
    *what = "nvjpegDecoderStateCreate";
    nvjpegStatus_t s = nvjpegDecoderStateCreate(handle, hybrid, &state);
    if (s == NVJPEG_STATUS_SUCCESS) {
        d->hybrid_state = state;
        *what = "nvjpegBufferPinnedCreate";
        s = nvjpegBufferPinnedCreate(handle, NULL, &pinned);
    }
    if (s == NVJPEG_STATUS_SUCCESS) {
        d->pinned = pinned;
        *what = "nvjpegBufferDeviceCreate";
        s = nvjpegBufferDeviceCreate(handle, NULL, &device);
    }
    if (s == NVJPEG_STATUS_SUCCESS) {
        d->device = device;
        *what = "nvjpegStateAttachPinnedBuffer";
        s = nvjpegStateAttachPinnedBuffer(d->hybrid_state, d->pinned);
    }
    if (s == NVJPEG_STATUS_SUCCESS && (*what = "nvjpegStateAttachDeviceBuffer"))
        s = nvjpegStateAttachDeviceBuffer(d->hybrid_state, d->device);
    if (s == NVJPEG_STATUS_SUCCESS && (*what = "nvjpegDecodeParamsCreate"))
        s = nvjpegDecodeParamsCreate(handle, &params);
    if (s == NVJPEG_STATUS_SUCCESS) d->params = params;
    else drop_hybrid(d);
    return s;
}

/* The engines' state, made the first time one of d's files goes to them:
 * batches of one, interleaved RGB (several threads with a decoder each
 * keep several engines busy). Kept whole or not at all, as need_hybrid. */
static nvjpegStatus_t need_engines(decoder *d, const char **what)
{
    if (d->engine_state) return NVJPEG_STATUS_SUCCESS;
    nvjpegJpegState_t state;
    *what = "nvjpegJpegStateCreate";
    nvjpegStatus_t s = nvjpegJpegStateCreate(handle, &state);
    if (s != NVJPEG_STATUS_SUCCESS) return s;
    d->engine_state = state;
    *what = "nvjpegDecodeBatchedInitialize";
    s = nvjpegDecodeBatchedInitialize(handle, d->engine_state, 1, 1, NVJPEG_OUTPUT_RGBI);
    if (s != NVJPEG_STATUS_SUCCESS) drop_engines(d);
    return s;
}

static gi_status take_decoder(const char *name, decoder **out)
{
    pthread_mutex_lock(&pool_lock);
    decoder *d = free_decoders;
    if (d) free_decoders = d->next;
    pthread_mutex_unlock(&pool_lock);
    if (d) {
        *out = d;
        return GI_OK;
    }
    return new_decoder(name, out);
}

static void put_decoder(decoder *d)
{
    pthread_mutex_lock(&pool_lock);
    d->next = free_decoders;
    free_decoders = d;
    pthread_mutex_unlock(&pool_lock);
}

/* Device pixels of at least `bytes`, kept from one image to the next. A
 * buffer is zeroed on `stream` when it is made: the JPEG engines write by
 * DMA, which compute-sanitizer's initcheck cannot see, and no one writes
 * the rows' padding up to the pitch that vector loads may touch, so
 * without it initcheck's report would be about those bytes rather than
 * about our kernels. It costs one memset per growth, not per image. */
static cudaError_t reserve(void **pixels, size_t *have, size_t bytes, cudaStream_t stream)
{
    if (*have >= bytes) return cudaSuccess;
    cudaError_t e = cudaFree(*pixels);
    *pixels = NULL;
    *have = 0;
    if (e == cudaSuccess) e = cudaMalloc(pixels, bytes);
    if (e == cudaSuccess) e = cudaMemsetAsync(*pixels, 0, bytes, stream);
    if (e == cudaSuccess) *have = bytes;
    return e;
}

/* The hybrid decoder: Huffman decoding on the CPU, the rest on d's stream. */
static nvjpegStatus_t decode_hybrid(decoder *d, int channels, nvjpegImage_t *out,
                                    const char **what)
{
    last_decoder = "nvjpeg-hybrid";
    nvjpegStatus_t s = need_hybrid(d, what);
    if (s == NVJPEG_STATUS_SUCCESS && (*what = "nvjpegDecodeParamsSetOutputFormat"))
        s = nvjpegDecodeParamsSetOutputFormat(d->params,
                                              channels == 1 ? NVJPEG_OUTPUT_Y : NVJPEG_OUTPUT_RGBI);
    if (s == NVJPEG_STATUS_SUCCESS && (*what = "nvjpegDecodeJpegHost"))
        s = nvjpegDecodeJpegHost(handle, hybrid, d->hybrid_state, d->params, d->parsed);
    if (s == NVJPEG_STATUS_SUCCESS && (*what = "nvjpegDecodeJpegTransferToDevice"))
        s = nvjpegDecodeJpegTransferToDevice(handle, hybrid, d->hybrid_state, d->parsed,
                                             d->stream);
    if (s == NVJPEG_STATUS_SUCCESS && (*what = "nvjpegDecodeJpegDevice"))
        s = nvjpegDecodeJpegDevice(handle, hybrid, d->hybrid_state, out, d->stream);
    return s;
}

/* Rows of device images start 256 bytes apart at least, as the CUDA
 * backend's kernels want of a source they read in place. */
static size_t device_pitch(unsigned width, unsigned channels)
{
    return ((size_t)width * channels + 255) & ~(size_t)255;
}

/* Whether the JPEG engines take a parsed colour file. Not the smallest
 * ones: they gain nothing there, and a 17x3 file failed on them under load
 * (ALLOCATOR_FAILURE, 16 threads decoding, H100), which then made its
 * decoder, and so its pixels, depend on the load. */
static int engines_take(nvjpegJpegStream_t parsed, unsigned components, unsigned w, unsigned h)
{
    int unsupported = 1;
    return has_engines && components == 3 && w >= 64 && h >= 64 &&
           nvjpegDecodeBatchedSupported(handle, parsed, &unsupported) == NVJPEG_STATUS_SUCCESS &&
           !unsupported;
}

/* Decodes the parsed file into `out`, `pitch` bytes a row. */
static nvjpegStatus_t decode_on_device(decoder *d, const uint8_t *bytes, size_t size,
                                       unsigned channels, unsigned w, unsigned h,
                                       void *out_pixels, size_t pitch, const char **what)
{
    nvjpegImage_t out;
    memset(&out, 0, sizeof out);
    out.channel[0] = out_pixels;
    out.pitch[0] = pitch;
    if (engines_take(d->parsed, channels, w, h)) {
        last_decoder = "nvjpeg-hardware";
        /* Failing to make the engines' state fails the file, as failing
         * to make the decoder did before the state was made lazily: the
         * hybrid decoder taking it instead would make the file's decoder
         * depend on the memory left. */
        nvjpegStatus_t s = need_engines(d, what);
        if (s != NVJPEG_STATUS_SUCCESS) return s;
        *what = "nvjpegDecodeBatched (hardware)";
        s = nvjpegDecodeBatched(handle, d->engine_state, &bytes, &size, &out, d->stream);
        /* A file the engines call corrupt is corrupt; any other failure
         * (seen: ALLOCATOR_FAILURE on a 17x3 image with 16 threads
         * decoding, on an H100) is the engines', and the hybrid
         * decoder gets the file. */
        if (s == NVJPEG_STATUS_SUCCESS || s == NVJPEG_STATUS_BAD_JPEG ||
            s == NVJPEG_STATUS_INCOMPLETE_BITSTREAM)
            return s;
        cudaStreamSynchronize(d->stream);
        cudaGetLastError();
    }
    return decode_hybrid(d, (int)channels, &out, what);
}

/* Parses the file into `parsed` (its headers alone: enough for the JPEG
 * engines, which read the file themselves; all of it for the hybrid
 * decoder) and checks what it holds: 1 or 3 components, pixels within the
 * limit. */
static gi_status parse(nvjpegJpegStream_t parsed, int headers_only, const uint8_t *bytes,
                       size_t size, const char *name, const gi_load_limits *limits, unsigned *w,
                       unsigned *h, unsigned *components)
{
    const char *what = headers_only ? "nvjpegJpegStreamParseHeader" : "nvjpegJpegStreamParse";
    nvjpegStatus_t s = headers_only ? nvjpegJpegStreamParseHeader(handle, bytes, size, parsed)
                                    : nvjpegJpegStreamParse(handle, bytes, size, 0, 0, parsed);
    *components = *w = *h = 0;
    if (s == NVJPEG_STATUS_SUCCESS && (what = "nvjpegJpegStreamGetComponentsNum"))
        s = nvjpegJpegStreamGetComponentsNum(parsed, components);
    if (s == NVJPEG_STATUS_SUCCESS && (what = "nvjpegJpegStreamGetFrameDimensions"))
        s = nvjpegJpegStreamGetFrameDimensions(parsed, w, h);
    if (s != NVJPEG_STATUS_SUCCESS) return nvjpeg_failed("decode", name, s, what);
    if (*components != 1 && *components != 3)
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: cannot decode JPEG with nvJPEG (%u components%s; "
                        "it decodes 1, gray, or 3)", name, *components,
                        *components == 4 ? ", CMYK or YCCK, which stb decodes" : "");
    if (*w == 0 || *h == 0)
        return gi__fail(GI_ERR_DECODE, "%s: a %ux%u JPEG has no pixels", name, *w, *h);
    if ((uint64_t)*w * *h > limits->max_pixels)
        return gi__fail(GI_ERR_TOO_LARGE, "%s: %ux%u is over the %llu-pixel limit", name, *w, *h,
                        (unsigned long long)limits->max_pixels);
    return GI_OK;
}

static gi_status decode(decoder *d, gi_image *img, const uint8_t *bytes, size_t size,
                        const char *name, const gi_load_limits *limits)
{
    unsigned components, w, h;
    gi_status st = parse(d->parsed, 0, bytes, size, name, limits, &w, &h, &components);
    if (st != GI_OK) return st;
    const size_t row = (size_t)w * components, pitch = device_pitch(w, components);
    cudaError_t e = reserve(&d->pixels, &d->bytes, pitch * h, d->stream);
    if (e != cudaSuccess) return cuda_failed("decode", name, e, "cudaMalloc");
    st = gi_image_alloc(img, (int)w, (int)h, (int)components);
    if (st != GI_OK) return st;
    const char *what = "";
    nvjpegStatus_t s = decode_on_device(d, bytes, size, components, w, h, d->pixels, pitch, &what);
    if (s == NVJPEG_STATUS_SUCCESS)
        e = cudaMemcpy2DAsync(img->data, img->stride, d->pixels, pitch, row, h,
                              cudaMemcpyDeviceToHost, d->stream);
    /* Drained after a failure too, so nothing is in flight into the buffer
     * when the next image reuses it. */
    cudaError_t synced = cudaStreamSynchronize(d->stream);
    if (s == NVJPEG_STATUS_SUCCESS && e == cudaSuccess && synced == cudaSuccess) return GI_OK;
    gi_image_free(img);
    if (s != NVJPEG_STATUS_SUCCESS) return nvjpeg_failed("decode", name, s, what);
    return e != cudaSuccess ? cuda_failed("decode", name, e, "download")
                            : cuda_failed("decode", name, synced, "stream synchronize");
}

gi_status gi__nvjpeg_load(gi_image *img, const uint8_t *bytes, size_t size, const char *name,
                          const gi_load_limits *limits)
{
    int previous;
    gi_status st = enter(name, &previous);
    if (st != GI_OK) return st;
    decoder *d = NULL;
    st = take_decoder(name, &d);
    if (st == GI_OK) {
        st = decode(d, img, bytes, size, name, limits);
        put_decoder(d);
    }
    leave(previous);
    return st;
}

/* ---------------------------------------------------------------- batches */

/* One file of a batch: its headers, parsed; its pixels once decoded; and
 * `out`, device memory for the steps' result. */
typedef struct {
    nvjpegJpegStream_t headers;
    void *pixels;
    size_t pixel_bytes;
    const uint8_t *bytes;
    size_t size;
    unsigned width, height, components;
    const char *name; /* the caller's, for messages */
    gi_status status;
    char why[600];
    const char *decoded_by;
    void *out;
    size_t out_bytes;
} batch_file;

struct gi__nvjpeg_batch {
    gi__nvjpeg_batch *next_idle; /* in the pool */
    int capacity, count;
    cudaStream_t stream;        /* the engines' batched decodes */
    nvjpegJpegState_t engines;
    int engines_batch;          /* the batch size `engines` is initialised for (0: none) */
    batch_file files[];
};

static void destroy_batch(gi__nvjpeg_batch *b)
{
    if (b->stream) cudaStreamSynchronize(b->stream);
    for (int i = 0; i < b->capacity; i++) {
        if (b->files[i].headers) nvjpegJpegStreamDestroy(b->files[i].headers);
        cudaFree(b->files[i].pixels);
        cudaFree(b->files[i].out);
    }
    if (b->engines) nvjpegJpegStateDestroy(b->engines);
    if (b->stream) cudaStreamDestroy(b->stream);
    cudaGetLastError();
    free(b);
}

static gi_status make_batch(int capacity, gi__nvjpeg_batch **out)
{
    const char *name = "nvJPEG batch";
    gi__nvjpeg_batch *b = calloc(1, sizeof *b + (size_t)capacity * sizeof b->files[0]);
    if (!b) return gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory", name);
    b->capacity = capacity;
    gi_status st = GI_OK;
    for (int i = 0; i < capacity && st == GI_OK; i++) {
        nvjpegStatus_t s = nvjpegJpegStreamCreate(handle, &b->files[i].headers);
        if (s != NVJPEG_STATUS_SUCCESS) {
            b->files[i].headers = NULL;
            st = nvjpeg_failed("decode", name, s, "nvjpegJpegStreamCreate");
        }
    }
    cudaError_t e = cudaSuccess;
    if (st == GI_OK) e = cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking);
    if (st == GI_OK && e != cudaSuccess) {
        b->stream = NULL;
        st = cuda_failed("decode", name, e, "cudaStreamCreate");
    }
    nvjpegStatus_t s = NVJPEG_STATUS_SUCCESS;
    if (st == GI_OK && !has_engines)
        st = gi__fail(GI_ERR_UNSUPPORTED, "this GPU has no JPEG engines");
    if (st == GI_OK) s = nvjpegJpegStateCreate(handle, &b->engines);
    if (st == GI_OK && s != NVJPEG_STATUS_SUCCESS)
        st = nvjpeg_failed("decode", name, s, "nvjpegJpegStateCreate");
    if (st != GI_OK) {
        destroy_batch(b);
        return st;
    }
    *out = b;
    return GI_OK;
}

/* Released batches (pool_lock). */
static gi__nvjpeg_batch *idle_batches;

/* An idle batch of at least `capacity` files, out of the pool, or NULL. */
static gi__nvjpeg_batch *take_idle(int capacity)
{
    pthread_mutex_lock(&pool_lock);
    gi__nvjpeg_batch **link = &idle_batches;
    while (*link && (*link)->capacity < capacity) link = &(*link)->next_idle;
    gi__nvjpeg_batch *b = *link;
    if (b) *link = b->next_idle;
    pthread_mutex_unlock(&pool_lock);
    return b;
}

gi_status gi__nvjpeg_batch_take(int capacity, gi__nvjpeg_batch **out)
{
    *out = NULL;
    if (capacity < 1 || capacity > 256)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "nvJPEG batch of %d files: 1..256", capacity);
    int previous;
    gi_status st = enter("nvJPEG batch", &previous);
    if (st != GI_OK) return st;
    *out = take_idle(capacity);
    if (!*out) st = make_batch(capacity, out);
    leave(previous);
    return st;
}

void gi__nvjpeg_batch_release(gi__nvjpeg_batch *b)
{
    if (!b) return;
    int previous;
    if (enter("nvJPEG batch", &previous) != GI_OK) return; /* never made, so never here */
    /* Its pixels go now: the process keeps only the state and the stream.
     * A batch whose stream failed is destroyed instead. */
    cudaError_t e = cudaStreamSynchronize(b->stream);
    for (int i = 0; i < b->capacity && e == cudaSuccess; i++) {
        batch_file *f = &b->files[i];
        e = cudaFree(f->pixels);
        if (e == cudaSuccess) e = cudaFree(f->out);
        if (e == cudaSuccess) {
            f->pixels = f->out = NULL;
            f->pixel_bytes = f->out_bytes = 0;
        }
    }
    if (e == cudaSuccess) {
        b->count = 0;
        pthread_mutex_lock(&pool_lock);
        b->next_idle = idle_batches;
        idle_batches = b;
        pthread_mutex_unlock(&pool_lock);
    } else {
        cudaGetLastError();
        destroy_batch(b);
    }
    leave(previous);
}

int gi__nvjpeg_batch_capacity(const gi__nvjpeg_batch *b)
{
    return b->capacity;
}

gi_status gi__nvjpeg_batch_add(gi__nvjpeg_batch *b, const uint8_t *bytes, size_t size,
                               const char *name, const gi_load_limits *limits, int *slot)
{
    if (b->count == b->capacity)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s: the nvJPEG batch is full", name);
    int previous;
    gi_status st = enter(name, &previous);
    if (st != GI_OK) return st;
    batch_file *f = &b->files[b->count];
    st = parse(f->headers, 1, bytes, size, name, limits, &f->width, &f->height, &f->components);
    if (st == GI_OK && !engines_take(f->headers, f->components, f->width, f->height))
        st = gi__fail(GI_ERR_UNSUPPORTED, "%s: not a file for the JPEG engines", name);
    leave(previous);
    if (st != GI_OK) return st;
    f->bytes = bytes;
    f->size = size;
    f->name = name;
    f->status = GI_OK;
    f->why[0] = '\0';
    f->decoded_by = NULL;
    *slot = b->count++;
    return GI_OK;
}

/* Records a file's failure (the detail gi__fail left) for batch_result. */
static void file_failed(batch_file *f, gi_status st)
{
    f->status = st;
    snprintf(f->why, sizeof f->why, "%s", gi_last_error());
}

static size_t file_pitch(const batch_file *f)
{
    return device_pitch(f->width, f->components);
}


/* The engines take one batched call at a time. Calls from several lanes
 * at once are served together (scripts/nvjpeg_engine_rate.c: 3 threads of
 * 8 files decode no faster than 1), so every lane would wait for all of
 * them and then compute and encode while the engines stand idle; in turn,
 * each lane gets its group back as soon as it is decoded and works on it
 * while the next lane's group decodes. */
static pthread_mutex_t engines_lock = PTHREAD_MUTEX_INITIALIZER;

/* Files[0..n) of `list` in one call on the engines. */
static nvjpegStatus_t on_engines(gi__nvjpeg_batch *b, batch_file *const *list, int n)
{
    const uint8_t *data[256];
    size_t lengths[256];
    nvjpegImage_t outs[256];
    for (int i = 0; i < n; i++) {
        data[i] = list[i]->bytes;
        lengths[i] = list[i]->size;
        memset(&outs[i], 0, sizeof outs[i]);
        outs[i].channel[0] = list[i]->pixels;
        outs[i].pitch[0] = file_pitch(list[i]);
    }
    nvjpegStatus_t s = NVJPEG_STATUS_SUCCESS;
    pthread_mutex_lock(&engines_lock);
    if (b->engines_batch != n) {
        b->engines_batch = 0;
        s = nvjpegDecodeBatchedInitialize(handle, b->engines, n, 1, NVJPEG_OUTPUT_RGBI);
        if (s == NVJPEG_STATUS_SUCCESS) b->engines_batch = n;
    }
    if (s == NVJPEG_STATUS_SUCCESS)
        s = nvjpegDecodeBatched(handle, b->engines, data, lengths, outs, b->stream);
    cudaError_t synced = cudaStreamSynchronize(b->stream);
    pthread_mutex_unlock(&engines_lock);
    if (s == NVJPEG_STATUS_SUCCESS && synced != cudaSuccess) s = NVJPEG_STATUS_EXECUTION_FAILED;
    if (s != NVJPEG_STATUS_SUCCESS) cudaGetLastError();
    return s;
}

/* One file alone on the hybrid decoder (a pooled decoder parses all of
 * it), into the file's pixels. */
static void decode_alone(batch_file *f)
{
    decoder *d = NULL;
    gi_status st = take_decoder(f->name, &d);
    if (st != GI_OK) {
        file_failed(f, st);
        return;
    }
    const gi_load_limits no_limit = {.max_pixels = UINT64_MAX};
    unsigned w, h, components;
    st = parse(d->parsed, 0, f->bytes, f->size, f->name, &no_limit, &w, &h, &components);
    const char *what = "";
    nvjpegImage_t out;
    memset(&out, 0, sizeof out);
    out.channel[0] = f->pixels;
    out.pitch[0] = file_pitch(f);
    nvjpegStatus_t s = NVJPEG_STATUS_SUCCESS;
    if (st == GI_OK) s = decode_hybrid(d, (int)f->components, &out, &what);
    cudaError_t synced = cudaStreamSynchronize(d->stream);
    put_decoder(d);
    if (st != GI_OK) file_failed(f, st);
    else if (s != NVJPEG_STATUS_SUCCESS) file_failed(f, nvjpeg_failed("decode", f->name, s, what));
    else if (synced != cudaSuccess)
        file_failed(f, cuda_failed("decode", f->name, synced, "stream synchronize"));
    else f->decoded_by = "nvjpeg-hybrid";
}

/* The files the engines take, together; when that call fails, each alone,
 * so that which decoder takes a file depends on the file alone (a file
 * the engines call corrupt is corrupt; any other failure of theirs sends
 * it to the hybrid decoder, as decode_on_device does). */
static void decode_on_engines(gi__nvjpeg_batch *b)
{
    batch_file *list[256];
    int n = 0;
    for (int i = 0; i < b->count; i++) {
        batch_file *f = &b->files[i];
        if (f->status == GI_OK) list[n++] = f;
    }
    if (n == 0) return;
    if (on_engines(b, list, n) == NVJPEG_STATUS_SUCCESS) {
        for (int i = 0; i < n; i++) list[i]->decoded_by = "nvjpeg-hardware";
        return;
    }
    for (int i = 0; i < n; i++) {
        nvjpegStatus_t s = on_engines(b, &list[i], 1);
        if (s == NVJPEG_STATUS_SUCCESS) list[i]->decoded_by = "nvjpeg-hardware";
        else if (s == NVJPEG_STATUS_BAD_JPEG || s == NVJPEG_STATUS_INCOMPLETE_BITSTREAM)
            file_failed(list[i], nvjpeg_failed("decode", list[i]->name, s,
                                               "nvjpegDecodeBatched (hardware)"));
    }
}

void gi__nvjpeg_batch_decode(gi__nvjpeg_batch *b)
{
    const char *name = "nvJPEG batch";
    int previous;
    gi_status st = enter(name, &previous);
    for (int i = 0; i < b->count; i++) {
        batch_file *f = &b->files[i];
        if (st != GI_OK) {
            file_failed(f, st);
            continue;
        }
        cudaError_t e = reserve(&f->pixels, &f->pixel_bytes, file_pitch(f) * f->height, b->stream);
        if (e != cudaSuccess) file_failed(f, cuda_failed("decode", f->name, e, "cudaMalloc"));
    }
    if (st != GI_OK) return;
    decode_on_engines(b);
    for (int i = 0; i < b->count; i++) {
        batch_file *f = &b->files[i];
        if (f->status == GI_OK && !f->decoded_by) decode_alone(f);
    }
    leave(previous);
}

gi_status gi__nvjpeg_batch_result(const gi__nvjpeg_batch *b, int slot, gi__device_pixels *px,
                                  const char **decoded_by)
{
    const batch_file *f = &b->files[slot];
    if (f->status != GI_OK) return gi__fail(f->status, "%s", f->why);
    *px = (gi__device_pixels){f->pixels, file_pitch(f), (int)f->width, (int)f->height,
                              (int)f->components};
    *decoded_by = f->decoded_by;
    return GI_OK;
}

gi_status gi__nvjpeg_batch_output(gi__nvjpeg_batch *b, int slot, int width, int height,
                                  int channels, gi__device_pixels *px)
{
    batch_file *f = &b->files[slot];
    const size_t pitch = device_pitch((unsigned)width, (unsigned)channels);
    int previous;
    gi_status st = enter("nvJPEG batch", &previous);
    if (st != GI_OK) return st;
    /* The steps write it on the CUDA backend's stream: the zeroing is
     * done before they start. */
    const size_t had = f->out_bytes;
    cudaError_t e = reserve(&f->out, &f->out_bytes, pitch * (size_t)height, b->stream);
    if (e == cudaSuccess && f->out_bytes != had) e = cudaStreamSynchronize(b->stream);
    leave(previous);
    if (e != cudaSuccess) return cuda_failed("encode", "nvJPEG batch", e, "cudaMalloc");
    *px = (gi__device_pixels){f->out, pitch, width, height, channels};
    return GI_OK;
}

void gi__nvjpeg_batch_clear(gi__nvjpeg_batch *b)
{
    b->count = 0;
}

static void destroy_encoder(encoder *c)
{
    if (c->stream) cudaStreamSynchronize(c->stream);
    if (c->params) nvjpegEncoderParamsDestroy(c->params);
    if (c->state) nvjpegEncoderStateDestroy(c->state);
    cudaFree(c->pixels);
    if (c->stream) cudaStreamDestroy(c->stream);
    cudaGetLastError();
    free(c);
}

static gi_status take_encoder(const char *name, encoder **out)
{
    pthread_mutex_lock(&pool_lock);
    encoder *c = free_encoders;
    if (c) free_encoders = c->next;
    pthread_mutex_unlock(&pool_lock);
    if (c) {
        *out = c;
        return GI_OK;
    }
    c = calloc(1, sizeof *c);
    if (!c) return gi__fail(GI_ERR_NO_MEMORY, "%s: cannot allocate an nvJPEG encoder", name);
    cudaError_t e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        c->stream = NULL;
        destroy_encoder(c);
        return cuda_failed("encode", name, e, "cudaStreamCreate");
    }
    const char *what = "nvjpegEncoderStateCreate";
    nvjpegStatus_t s = nvjpegEncoderStateCreate(handle, &c->state, c->stream);
    if (s == NVJPEG_STATUS_SUCCESS && (what = "nvjpegEncoderParamsCreate"))
        s = nvjpegEncoderParamsCreate(handle, &c->params, c->stream);
    if (s != NVJPEG_STATUS_SUCCESS) {
        destroy_encoder(c);
        return nvjpeg_failed("encode", name, s, what);
    }
    *out = c;
    return GI_OK;
}

static void put_encoder(encoder *c)
{
    pthread_mutex_lock(&pool_lock);
    c->next = free_encoders;
    free_encoders = c;
    pthread_mutex_unlock(&pool_lock);
}

/* Encodes interleaved RGB at `device_pixels` (pitch bytes a row) on c. */
static gi_status encode_on(encoder *c, const void *device_pixels, size_t pitch, int width,
                           int height, int quality, const char *name, uint8_t **bytes,
                           size_t *size)
{
    nvjpegImage_t src;
    memset(&src, 0, sizeof src);
    src.channel[0] = (unsigned char *)device_pixels;
    src.pitch[0] = pitch;
    const char *what = "nvjpegEncoderParamsSetQuality";
    nvjpegStatus_t s = nvjpegEncoderParamsSetQuality(c->params, quality, c->stream);
    if (s == NVJPEG_STATUS_SUCCESS && (what = "nvjpegEncoderParamsSetSamplingFactors"))
        s = nvjpegEncoderParamsSetSamplingFactors(
            c->params, quality <= 90 ? NVJPEG_CSS_420 : NVJPEG_CSS_444, c->stream);
    if (s == NVJPEG_STATUS_SUCCESS && (what = "nvjpegEncodeImage"))
        s = nvjpegEncodeImage(handle, c->state, c->params, &src, NVJPEG_INPUT_RGBI, width, height,
                              c->stream);
    size_t length = 0;
    if (s == NVJPEG_STATUS_SUCCESS && (what = "nvjpegEncodeRetrieveBitstream"))
        s = nvjpegEncodeRetrieveBitstream(handle, c->state, NULL, &length, c->stream);
    uint8_t *out = NULL;
    if (s == NVJPEG_STATUS_SUCCESS) {
        out = malloc(length ? length : 1);
        if (!out) {
            cudaStreamSynchronize(c->stream);
            return gi__fail(GI_ERR_NO_MEMORY, "%s: no memory for a %zu-byte JPEG", name, length);
        }
        s = nvjpegEncodeRetrieveBitstream(handle, c->state, out, &length, c->stream);
    }
    cudaError_t synced = cudaStreamSynchronize(c->stream);
    if (s == NVJPEG_STATUS_SUCCESS && synced == cudaSuccess) {
        *bytes = out;
        *size = length;
        return GI_OK;
    }
    free(out);
    if (s != NVJPEG_STATUS_SUCCESS) return nvjpeg_failed("encode", name, s, what);
    return cuda_failed("encode", name, synced, "stream synchronize");
}

/* An encoder from the pool, on the handle's device, for an RGB image; the
 * caller gives it back with close_encoder. */
static gi_status open_encoder(int channels, const char *name, uint8_t **bytes, size_t *size,
                              int *previous, encoder **c)
{
    *bytes = NULL;
    *size = 0;
    if (channels != 3)
        return gi__fail(GI_ERR_UNSUPPORTED, "%s: nvJPEG encodes RGB here, not %d channels", name,
                        channels);
    gi_status st = enter(name, previous);
    if (st != GI_OK) return st;
    st = take_encoder(name, c);
    if (st != GI_OK) leave(*previous);
    return st;
}

static void close_encoder(encoder *c, int previous)
{
    put_encoder(c);
    leave(previous);
}

gi_status gi__nvjpeg_encode(const gi_image *img, int quality, const char *name, uint8_t **bytes,
                            size_t *size)
{
    int previous;
    encoder *c = NULL;
    gi_status st = open_encoder(img->channels, name, bytes, size, &previous, &c);
    if (st != GI_OK) return st;
    const size_t row = (size_t)img->width * 3;
    cudaError_t e = reserve(&c->pixels, &c->bytes, row * img->height, c->stream);
    if (e == cudaSuccess)
        e = cudaMemcpy2DAsync(c->pixels, row, img->data, img->stride, row, img->height,
                              cudaMemcpyHostToDevice, c->stream);
    if (e == cudaSuccess) {
        st = encode_on(c, c->pixels, row, img->width, img->height, quality, name, bytes, size);
    } else {
        cudaStreamSynchronize(c->stream); /* nothing in flight when it is reused */
        st = cuda_failed("encode", name, e, "upload");
    }
    close_encoder(c, previous);
    return st;
}

gi_status gi__nvjpeg_encode_device(const gi__device_pixels *px, int quality, const char *name,
                                   uint8_t **bytes, size_t *size)
{
    int previous;
    encoder *c = NULL;
    gi_status st = open_encoder(px->channels, name, bytes, size, &previous, &c);
    if (st != GI_OK) return st;
    st = encode_on(c, px->data, px->pitch, px->width, px->height, quality, name, bytes, size);
    close_encoder(c, previous);
    return st;
}
