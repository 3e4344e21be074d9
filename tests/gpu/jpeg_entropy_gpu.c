/* jpeg_entropy_gpu DIR...: the GPU's Huffman decoder (kernels/jpeg_entropy.cu)
 * against the CPU's entropy half, coefficient for coefficient, on every
 * kind of scan: baseline (interleaved or one component each) and
 * progressive (DC and AC, first and refinement scans, restart intervals).
 *
 * For every .jpg in each DIR, and for damaged copies of each (the first
 * and the last scan cut short, bytes of them changed, a restart marker
 * dropped, a scan removed, a scan repeated), the file is read twice:
 * decoded on the CPU, and with its scans deferred (jpeg_deferred.h) and
 * decoded on the device. Where the device decodes it, the CPU must have
 * decoded it too, to the same coefficients (every block the arithmetic
 * half reads); where the device's checks decline it, the CPU must have
 * given the file up as well (to stb). A scan whose sync rounds do not
 * settle within their bound is declined too: never for a whole file, and
 * for a contrived one whose codes never fall into step (made here), after
 * 16 rounds rather than the 34 chaining would take. For files up to a megapixel, a whole job (blur,
 * JPEG out) on a CUDA context, which takes the deferred route and falls
 * back to the CPU where the device declines, writes the CPU context's
 * bytes, or fails as it does. The device buffers are reused across files
 * of alternating sizes (ti_each_jpeg_alternating) and poisoned before
 * each, so a coefficient left unwritten shows. No DIR: jpegs-exact/. Exits
 * 77 without a GPU. GPUIMG_TEST_SMALL=1 (for compute-sanitizer) takes
 * files of at most 64K pixels. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/file_io.h"
#include "harness.h"
#include "codec/jpeg/jpeg_deferred.h"
#include "cuda/jpeg_entropy_device.h"
#include "codec/jpeg/jpeg_parse.h"
#include "base/pixel_alloc.h"
#include "testimg.h"

static int small_only, files_decoded, files_declined, files_unsettled, jobs_compared,
    progressive_decoded;
static gi_context *cpu_ctx, *cuda_ctx;
static gi__cuda_jpeg_entropy decoder;
static cudaStream_t stream;
static void *d_coeffs;
static size_t d_bytes;

/* c's deferred scan decoded on the device into host memory `out`;
 * returns the outcome (GI_CUDA_JPEG_*) or -1 (a CUDA error). */
static int device_decode(const gi_jpeg_coeffs *c, int16_t *out)
{
    if (d_bytes < c->storage_bytes) {
        cudaFree(d_coeffs);
        d_bytes = 0;
        if (cudaMalloc(&d_coeffs, c->storage_bytes) != cudaSuccess) return -1;
        d_bytes = c->storage_bytes;
    }
    /* poison: gi__cuda_jpeg_entropy_decode must zero what it does not write */
    if (cudaMemsetAsync(d_coeffs, 0xA5, c->storage_bytes, stream) != cudaSuccess) return -1;
    int outcome = GI_CUDA_JPEG_DAMAGED;
    gi_status st = gi__cuda_jpeg_entropy_upload(&decoder, c, stream);
    if (st == GI_OK) st = gi__cuda_jpeg_entropy_decode(&decoder, c, d_coeffs, stream, &outcome);
    if (st != GI_OK) return -1;
    if (outcome == GI_CUDA_JPEG_DECODED &&
        cudaMemcpy(out, d_coeffs, c->storage_bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
        return -1;
    return outcome;
}

/* The blocks the arithmetic half reads: the whole MCU grid where the CPU
 * defines it (a progressive file's, zeroed first; a baseline file's one
 * interleaved scan), else each component's own blocks. */
static int same_coefficients(const gi_jpeg_coeffs *want, const gi_jpeg_deferred *d,
                             const int16_t *got, char *why, size_t n)
{
    int whole = want->progressive || (want->ncomp > 1 && d->nscans == 1 && d->scan[0].n == want->ncomp);
    for (int i = 0; i < want->ncomp; i++) {
        const gi_jpeg_plane *p = &want->plane[i];
        int bw = whole ? p->blocks_w : (p->width + 7) / 8;
        int bh = whole ? p->blocks_h : (p->height + 7) / 8;
        for (int by = 0; by < bh; by++)
            for (int bx = 0; bx < bw; bx++) {
                size_t at = p->offset + 64 * ((size_t)by * p->blocks_w + bx);
                if (memcmp(want->storage + at, got + at, 64 * sizeof *got) != 0) {
                    for (int k = 0; k < 64; k++)
                        if (want->storage[at + k] != got[at + k]) {
                            snprintf(why, n, "plane %d block (%d, %d) coefficient %d: %d, not %d",
                                     i, bx, by, k, got[at + k], want->storage[at + k]);
                            break;
                        }
                    return 0;
                }
            }
    }
    return 1;
}

/* A blur job on both contexts: the same status, and the same bytes. */
static void check_job(const char *what, const uint8_t *bytes, size_t size)
{
    gi_op step;
    gi_job job;
    ti_blur_job(&job, &step, GI_FORMAT_JPEG);
    uint8_t *want = NULL, *got = NULL;
    size_t want_size = 0, got_size = 0;
    gi_status a = gi_job_run_memory(cpu_ctx, &job, bytes, size, what, &want, &want_size, NULL);
    gi_status b = gi_job_run_memory(cuda_ctx, &job, bytes, size, what, &got, &got_size, NULL);
    jobs_compared++;
    if (th_check(a == b, "%s: job statuses %d on the CPU, %d on CUDA (%s)", what, a, b,
                 gi_last_error()) &&
        a == GI_OK)
        th_check(want_size == got_size && memcmp(want, got, want_size) == 0,
                 "%s: the JPEG written on CUDA differs from the CPU's", what);
    gi_free(want);
    gi_free(got);
}

/* bytes[0..size) decoded both ways; returns the device's outcome
 * (GI_CUDA_JPEG_*), or -1 where it did not decode there (nothing
 * deferred, a CUDA error). Where the device decodes the file the CPU has
 * decoded it to the same coefficients; where the checks decline it the
 * CPU has given it up; where a scan does not settle, either may hold, and
 * the job still writes the CPU's bytes. */
static int check_bytes(const char *what, const uint8_t *bytes, size_t size)
{
    uint64_t max_pixels = small_only ? 65536 : 1ull << 32;
    gi_jpeg_coeffs cpu, deferred;
    int outcome = -1;
    int r_cpu = gi__jpeg_read_coeffs(bytes, size, max_pixels, 1, 0, 0, NULL, &cpu);
    int r_def = gi__jpeg_read_coeffs(bytes, size, max_pixels, 1, 1, 0, NULL, &deferred);
    if (r_def != GI_JPEG_OK || !deferred.deferred) {
        /* decoded on the CPU all the same: the same verdict */
        th_check(r_def == r_cpu, "%s: %d with deferral allowed, %d without", what, r_def, r_cpu);
    } else {
        int16_t *got = malloc(deferred.storage_bytes ? deferred.storage_bytes : 1);
        outcome = got ? device_decode(&deferred, got) : -1;
        char why[200] = "";
        if (th_check(outcome >= 0, "%s: device decode: %s", what, gi_last_error())) {
            if (outcome == GI_CUDA_JPEG_UNSETTLED) {
                files_unsettled++;
            } else if (outcome == GI_CUDA_JPEG_DECODED) {
                files_decoded++;
                progressive_decoded += deferred.progressive;
                if (th_check(r_cpu == GI_JPEG_OK, "%s: the device decoded what the CPU gave up",
                             what))
                    th_check(same_coefficients(&cpu, deferred.deferred, got, why, sizeof why),
                             "%s: %s", what, why);
            } else {
                files_declined++;
                th_check(r_cpu != GI_JPEG_OK, "%s: the device declined what the CPU decoded",
                         what);
            }
        }
        free(got);
        if ((uint64_t)deferred.width * (uint64_t)deferred.height <= (1u << 20))
            check_job(what, bytes, size);
    }
    gi__jpeg_coeffs_free(&cpu);
    gi__jpeg_coeffs_free(&deferred);
    return outcome;
}

/* The file's scans: where each SOS marker is, where its data starts and
 * where the marker after the data is; returns their count (at most max). */
static int find_scans(const uint8_t *b, size_t size, size_t *sos, size_t *data, size_t *end, int max)
{
    int n = 0;
    size_t i = 2;
    while (n < max && i + 4 <= size && b[i] == 0xFF) {
        int m = b[i + 1];
        if (m == 0xD9 || m == 0xFF) break;
        size_t len = (size_t)b[i + 2] << 8 | b[i + 3];
        if (m != 0xDA) {
            i += 2 + len;
            continue;
        }
        sos[n] = i;
        size_t p = i + 2 + len;
        data[n] = p;
        while (p + 1 < size && !(b[p] == 0xFF && b[p + 1] != 0 && (b[p + 1] < 0xD0 || b[p + 1] > 0xD7)))
            p++;
        end[n++] = p;
        i = p;
    }
    return n;
}

/* The scan's data [at, stop) damaged: cut at a few places (with an EOI
 * after it), bytes changed. */
static void damage_scan(const char *path, const char *which, const uint8_t *bytes, size_t size,
                        size_t at, size_t stop, uint8_t *copy)
{
    char what[4200];
    size_t data = stop - at;
    if (data < 16) return;
    for (int i = 1; i <= 4; i++) {
        size_t cut = at + data * (size_t)i / 5;
        memcpy(copy, bytes, cut);
        copy[cut] = 0xFF;
        copy[cut + 1] = 0xD9;
        snprintf(what, sizeof what, "%s: %s scan cut at %zu", path, which, cut);
        check_bytes(what, copy, cut + 2);
    }
    unsigned seed = (unsigned)size + (unsigned)at;
    for (int i = 0; i < 6; i++) {
        memcpy(copy, bytes, size);
        for (int j = 0; j <= i; j++) {
            seed = seed * 1103515245u + 12345u;
            size_t p = at + (seed >> 8) % (data - 1);
            if (copy[p] == 0xFF || copy[p + 1] == 0x00) continue; /* keep the stuffing */
            copy[p] = (uint8_t)((seed >> 20) & 0xFE); /* never 0xFF */
        }
        snprintf(what, sizeof what, "%s: %s scan with %d bytes changed", path, which, i + 1);
        check_bytes(what, copy, size);
    }
}

/* Damaged copies: the first and the last scan cut short and changed, a
 * restart marker gone, the second scan removed, the second scan repeated
 * (a progressive file's refinement then reads bits twice, or comes before
 * its first scan). */
static void check_damaged(const char *path, const uint8_t *bytes, size_t size)
{
    size_t sos[64], data[64], end[64];
    int n = find_scans(bytes, size, sos, data, end, 64);
    if (n == 0) return;
    uint8_t *copy = malloc(2 * size + 2);
    if (!th_check(copy != NULL, "out of memory")) return;
    char what[4200];
    damage_scan(path, "first", bytes, size, data[0], end[0], copy);
    if (n > 1) damage_scan(path, "last", bytes, size, data[n - 1], end[n - 1], copy);
    for (size_t p = data[0]; p + 1 < size; p++)
        if (bytes[p] == 0xFF && bytes[p + 1] >= 0xD0 && bytes[p + 1] <= 0xD7) {
            memcpy(copy, bytes, p);
            memcpy(copy + p, bytes + p + 2, size - p - 2);
            snprintf(what, sizeof what, "%s without its first restart marker", path);
            check_bytes(what, copy, size - 2);
            break;
        }
    if (n > 1) {
        size_t len = end[1] - sos[1];
        memcpy(copy, bytes, sos[1]);
        memcpy(copy + sos[1], bytes + end[1], size - end[1]);
        snprintf(what, sizeof what, "%s without its second scan", path);
        check_bytes(what, copy, size - len);
        memcpy(copy, bytes, end[1]);
        memcpy(copy + end[1], bytes + sos[1], size - sos[1]);
        snprintf(what, sizeof what, "%s with its second scan twice", path);
        check_bytes(what, copy, size + len);
    }
    free(copy);
}

/* A well-formed progressive gray JPEG, 1024x1024, of one DC scan whose
 * codes never fall into step: its DC table has two codes, both of 8 bits
 * (sizes 0 and 1), the first block's is of size 1 (9 bits) and every
 * other block's of size 0, so the true codes start 1 bit past a byte and
 * a thread from any guessed start (4096 bits apart) decodes zeros 8 bits
 * at a time, never in step: only chaining settles its 32 subsequences, a
 * round each. Its size in *size; NULL when out of memory. */
static uint8_t *never_in_step_jpeg(size_t *size)
{
    static const uint8_t head[] = {
        0xFF, 0xD8,                                                 /* SOI */
        0xFF, 0xC2, 0x00, 0x0B, 8, 0x04, 0x00, 0x04, 0x00, 1, 1, 0x11, 0, /* SOF2 */
        0xFF, 0xC4, 0x00, 0x15, 0x00, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 1,                                                       /* DHT: DC 0 */
        0xFF, 0xDA, 0x00, 0x08, 1, 1, 0x00, 0, 0, 0x00};            /* SOS: DC first */
    const size_t blocks = 128 * 128, data = (9 + 8 * (blocks - 1) + 7) / 8;
    const size_t dqt = 4 + 1 + 64;
    uint8_t *b = calloc(sizeof head + dqt + data + 2, 1);
    if (!b) return NULL;
    size_t at = 0;
    memcpy(b, head, 2);
    at = 2;
    b[at++] = 0xFF, b[at++] = 0xDB, b[at++] = 0x00, b[at++] = 0x43, b[at++] = 0x00;
    memset(b + at, 1, 64); /* DQT: every quantizer 1 */
    at += 64;
    memcpy(b + at, head + 2, sizeof head - 2);
    at += sizeof head - 2;
    /* the first code, 00000001, and its magnitude bit, 1; then zeros (the
     * other codes); the last byte's 7 bits after the last code are padding */
    b[at] = 0x01;
    b[at + 1] = 0x80;
    b[at + data - 1] |= 0x7F;
    at += data;
    b[at++] = 0xFF;
    b[at++] = 0xD9;
    *size = at;
    return b;
}

/* The scan that never falls into step, above: decoded on the CPU, left
 * there by the device once its rounds reach their bound (not 33 rounds
 * later), and a job's bytes the CPU's all the same. */
static void check_unsettled(void)
{
    size_t size;
    uint8_t *bytes = never_in_step_jpeg(&size);
    if (!th_check(bytes != NULL, "out of memory")) return;
    gi_jpeg_coeffs c;
    if (th_check(gi__jpeg_read_coeffs(bytes, size, 1ull << 32, 1, 0, 0, NULL, &c) == GI_JPEG_OK,
                 "the scan that never falls into step: not decoded on the CPU"))
        gi__jpeg_coeffs_free(&c);
    th_check(check_bytes("the scan that never falls into step", bytes, size) ==
                 GI_CUDA_JPEG_UNSETTLED,
             "the scan that never falls into step: settled on the device");
    free(bytes);
}

/* One file of a folder: as it is, and damaged (files under 4 MB). */
static void check_path(const char *path, void *unused)
{
    (void)unused;
    uint8_t *bytes;
    size_t size;
    if (!th_check(gi__read_file(path, 1u << 30, &bytes, &size) == GI_OK, "%s: read", path)) return;
    th_check(check_bytes(path, bytes, size) != GI_CUDA_JPEG_UNSETTLED,
             "%s: a scan did not settle within its rounds", path);
    if (size < (4u << 20)) check_damaged(path, bytes, size);
    gi__pixels_free(bytes);
}

int main(int argc, char **argv)
{
    const char *why;
    if (gi_cuda_device_count(&why) == 0) {
        printf("skip: %s\n", why);
        return 77;
    }
    small_only = getenv("GPUIMG_TEST_SMALL") && strcmp(getenv("GPUIMG_TEST_SMALL"), "1") == 0;
    if (cudaStreamCreate(&stream) != cudaSuccess) {
        fprintf(stderr, "cudaStreamCreate failed\n");
        return 1;
    }
    gi_context_options cpu_opts = {GI_DEVICE_CPU, 0, 0}, cuda_opts = {GI_DEVICE_CUDA, 0, 0};
    if (gi_context_create(&cpu_ctx, &cpu_opts) != GI_OK ||
        gi_context_create(&cuda_ctx, &cuda_opts) != GI_OK) {
        fprintf(stderr, "contexts: %s\n", gi_last_error());
        return 1;
    }
    if (!small_only) check_unsettled(); /* a megapixel */
    if (argc < 2) ti_each_jpeg_alternating(EXACT_JPEGS, check_path, NULL);
    for (int i = 1; i < argc; i++) ti_each_jpeg_alternating(argv[i], check_path, NULL);
    th_check(files_decoded > 0, "no scan decoded on the device");
    th_check(progressive_decoded > 0, "no progressive file decoded on the device");
    printf("%d files decoded on the device (%d progressive), %d declined, %d unsettled; "
           "%d jobs compared\n",
           files_decoded, progressive_decoded, files_declined, files_unsettled, jobs_compared);
    gi_context_destroy(cuda_ctx);
    gi_context_destroy(cpu_ctx);
    gi__cuda_jpeg_entropy_free(&decoder);
    cudaFree(d_coeffs);
    cudaStreamDestroy(stream);
    return th_finish();
}
