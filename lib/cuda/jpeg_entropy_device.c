/* jpeg_entropy_device.h: rounds, checks and buffers around
 * kernels/jpeg_entropy.cu. */
#include "jpeg_entropy_device.h"

#include <cuda_runtime_api.h>
#include <string.h>

#include "cuda_error.h"
#include "base/gi_error.h"
#include "gi_kernels.h"
#include "codec/jpeg/jpeg_deferred.h"
#include "codec/jpeg/jpeg_tables.h"

gi_status gi__cuda_jpeg_entropy_upload(gi__cuda_jpeg_entropy *e, const gi_jpeg_coeffs *c,
                                       void *stream)
{
    const gi_jpeg_deferred *d = c->deferred;
    gi_status st = gi__cuda_reserve_device(&e->upload, d->bytes, "JPEG Huffman decode");
    if (st != GI_OK) return st;
    cudaError_t err = cudaMemcpyAsync(e->upload.ptr, d->upload, d->bytes, cudaMemcpyHostToDevice,
                                      (cudaStream_t)stream);
    return err == cudaSuccess ? GI_OK : gi__cuda_fail(err, "JPEG scan upload");
}

/* The kernels' view of c's deferred scan sc, uploaded at `device`. */
static void describe(const gi_jpeg_coeffs *c, const gi_jpeg_deferred_scan *sc,
                     const uint8_t *device, gi_cuda_jpeg_scan *s)
{
    memset(s, 0, sizeof *s);
    s->tables = device + sc->tables_at;
    s->segment_start = (const uint32_t *)(device + sc->segment_start_at);
    s->subseq_first = (const uint32_t *)(device + sc->subseq_first_at);
    s->data = (const uint32_t *)(device + sc->data_at);
    s->kind = sc->kind;
    s->ss = sc->ss;
    s->se = sc->se;
    s->al = sc->al;
    s->ntables = sc->ntables;
    s->segments = sc->segments;
    s->subseqs = sc->subseqs;
    s->units = sc->units;
    s->interval = sc->interval;
    s->units_x = sc->units_x;
    s->unit_blocks = sc->unit_blocks;
    s->one_component = sc->n == 1;
    s->sync_blocks = 1;
    int in_scan[4] = {0};
    for (int b = 0; b < sc->unit_blocks; b++) {
        const gi_jpeg_unit_block *u = &sc->block[b];
        s->comp[b] = u->comp;
        s->bx[b] = u->x;
        s->by[b] = u->y;
        s->dc[b] = u->dc;
        s->ac[b] = u->ac;
        in_scan[u->comp] = 1;
        /* which block of the unit a thread is in matters where the tables differ */
        if (u->dc != sc->block[0].dc || u->ac != sc->block[0].ac) s->sync_blocks = sc->unit_blocks;
    }
    int has_dc = sc->kind == GI_JPEG_BASELINE || sc->kind == GI_JPEG_DC_FIRST;
    long long dcs = 0;
    for (int i = 0; i < 4; i++) {
        s->dc_first[i] = dcs;
        if (i >= c->ncomp) continue;
        const gi_jpeg_plane *p = &c->plane[i];
        s->offset[i] = (long long)p->offset;
        s->blocks_w[i] = p->blocks_w;
        s->h[i] = sc->n == 1 ? 1 : p->h;
        s->v[i] = sc->n == 1 ? 1 : p->v;
        if (has_dc && in_scan[i]) dcs += sc->units * s->h[i] * s->v[i];
    }
    s->dc_first[4] = dcs;
    /* each block's place among its plane's blocks of the unit */
    for (int b = 0; b < sc->unit_blocks; b++) s->dc_slot[b] = (uint8_t)(s->by[b] * s->h[s->comp[b]] + s->bx[b]);
    memcpy(s->natural_order, gi__jpeg_natural_order, sizeof s->natural_order);
}

static gi_status reserve(gi__cuda_jpeg_entropy *e, const gi_cuda_jpeg_scan *s)
{
    const char *what = "JPEG Huffman decode";
    size_t subseqs = s->subseqs, dcs = (size_t)s->dc_first[4];
    gi_status st = gi__cuda_reserve_device(&e->states[0], 8 * subseqs, what);
    if (st == GI_OK) st = gi__cuda_reserve_device(&e->states[1], 8 * subseqs, what);
    if (st == GI_OK) st = gi__cuda_reserve_device(&e->counts, 4 * subseqs, what);
    if (st == GI_OK) st = gi__cuda_reserve_device(&e->base, 4 * subseqs, what);
    if (st == GI_OK) st = gi__cuda_reserve_device(&e->dc_diff, 4 * dcs, what);
    if (st == GI_OK) st = gi__cuda_reserve_device(&e->dc_key, 4 * dcs, what);
    if (st == GI_OK) st = gi__cuda_reserve_device(&e->dc_sum, 4 * dcs, what);
    if (st == GI_OK) st = gi__cuda_reserve_device(&e->seg_end, 4 * (size_t)s->segments, what);
    if (st == GI_OK)
        st = gi__cuda_reserve_device(&e->temp, gi_cuda_jpeg_entropy_temp_bytes(s->subseqs,
                                                                               s->dc_first[4]), what);
    return st;
}

/* The device flag `which` (0: changed, 1: bad) read back, waiting for it. */
static cudaError_t read_flag(gi__cuda_jpeg_entropy *e, int which, cudaStream_t stream,
                             uint32_t *value)
{
    uint32_t *host = (uint32_t *)e->host_flags.ptr + which;
    cudaError_t err = cudaMemcpyAsync(host, (uint32_t *)e->flags.ptr + which, sizeof *host,
                                      cudaMemcpyDeviceToHost, stream);
    if (err == cudaSuccess) err = gi__cuda_wait(&e->waiter, stream);
    *value = *host;
    return err;
}

/* The rounds a scan may take before it counts as unsettled and the file
 * goes to the CPU's decoder whole (so the pixels never depend on the
 * decoder), so that damaged or hostile data cannot hold the device: each
 * round is a launch over every subsequence and a wait for its flag.
 *
 * Chaining alone settles a segment: round r makes its first r + 1 starts
 * true, so one of S subsequences is settled once round S moves nothing
 * (S + 1 rounds; S + 2 where an AC refinement's block counts follow). Self-synchronisation does far better: a thread from a
 * wrong start falls into step within a few codes, tens of bits of its
 * 4096, so the well-formed scans measured settle in two rounds (the
 * guesses, then one that moves nothing); each round more stands for a
 * subsequence that went by without falling into step, which damaged data
 * may do at every subsequence. An AC refinement falls into step by
 * chaining alone (its steps depend on the block: jpeg_deferred.h), and is
 * deferred only with segments of at most GI_JPEG_REFINE_MAX_SUBSEQS
 * subsequences: up to 10 rounds. So at most 16 rounds a scan: eight times
 * what well-formed scans need, above what a deferred AC refinement may
 * need, and the bound baseline scans were measured under. */
#define MAX_ROUNDS 16
_Static_assert(GI_JPEG_REFINE_MAX_SUBSEQS + 2 <= MAX_ROUNDS,
               "a deferred AC refinement settles within the rounds");

/* One scan's rounds and write (see gi_kernels.h) into d_coeffs, the
 * checks' verdict left in the device's bad flag; *unsettled where the
 * rounds did not settle within MAX_ROUNDS (nothing is written then). */
static gi_status decode_scan(gi__cuda_jpeg_entropy *e, const gi_jpeg_coeffs *c,
                             const gi_jpeg_deferred_scan *sc, int16_t *d_coeffs, cudaStream_t cs,
                             int *unsettled)
{
    gi_cuda_jpeg_scan s;
    describe(c, sc, e->upload.ptr, &s);
    gi_status st = reserve(e, &s);
    if (st != GI_OK) return st;
    uint32_t *changed = e->flags.ptr, *bad = changed + 1;
    unsigned long long *states[2] = {e->states[0].ptr, e->states[1].ptr};
    cudaError_t err = cudaSuccess;
    /* every DC is written for a scan that decodes; damaged data may leave
     * some, which the sums still read */
    if (s.dc_first[4] > 0) {
        err = cudaMemsetAsync(e->dc_key.ptr, 0, 4 * (size_t)s.dc_first[4], cs);
        if (err == cudaSuccess) err = cudaMemsetAsync(e->dc_diff.ptr, 0, 4 * (size_t)s.dc_first[4], cs);
    }
    /* Round 0 always moves starts (from guesses) where a segment has more
     * than one subsequence: the first check is after round 1. */
    int round = 0, settled = 0;
    uint32_t moved = 0;
    while (err == cudaSuccess && round < MAX_ROUNDS && !settled) {
        if (round > 0) err = cudaMemsetAsync(changed, 0, sizeof *changed, cs);
        if (err == cudaSuccess)
            err = gi_cuda_jpeg_entropy_sync(&s, round, states[round & 1], states[(round + 1) & 1],
                                            e->counts.ptr, e->base.ptr, d_coeffs, changed,
                                            e->temp.ptr, e->temp.bytes, cs);
        if (err == cudaSuccess && round > 0) {
            err = read_flag(e, 0, cs, &moved);
            settled = !moved;
        }
        round++;
    }
    if (err != cudaSuccess) return gi__cuda_fail(err, "JPEG Huffman decode");
    if (!settled) {
        *unsettled = 1;
        return GI_OK;
    }
    const unsigned long long *starts = states[round & 1]; /* the last round's `to` */
    err = gi_cuda_jpeg_entropy_write(&s, starts, e->counts.ptr, e->base.ptr, d_coeffs,
                                     e->dc_diff.ptr, e->dc_key.ptr, e->dc_sum.ptr, e->seg_end.ptr,
                                     bad, e->temp.ptr, e->temp.bytes, cs);
    return err == cudaSuccess ? GI_OK : gi__cuda_fail(err, "JPEG Huffman decode");
}

gi_status gi__cuda_jpeg_entropy_decode(gi__cuda_jpeg_entropy *e, const gi_jpeg_coeffs *c,
                                       int16_t *d_coeffs, void *stream, int *outcome)
{
    cudaStream_t cs = (cudaStream_t)stream;
    *outcome = GI_CUDA_JPEG_DAMAGED;
    gi_status st = gi__cuda_reserve_device(&e->flags, 2 * sizeof(uint32_t), "JPEG Huffman decode");
    if (st == GI_OK) st = gi__cuda_reserve_pinned(&e->host_flags, 2 * sizeof(uint32_t));
    if (st != GI_OK) return st;
    cudaError_t err = cudaMemsetAsync(e->flags.ptr, 0, 2 * sizeof(uint32_t), cs);
    /* progressive scans add to what the scans before them made */
    if (err == cudaSuccess) err = cudaMemsetAsync(d_coeffs, 0, c->storage_bytes, cs);
    if (err != cudaSuccess) return gi__cuda_fail(err, "JPEG Huffman decode");
    const gi_jpeg_deferred *d = c->deferred;
    int unsettled = 0;
    for (int i = 0; i < d->nscans && st == GI_OK && !unsettled; i++)
        st = decode_scan(e, c, &d->scan[i], d_coeffs, cs, &unsettled);
    if (st != GI_OK) return st;
    if (unsettled) { /* the scans after it are left undecoded: the CPU decodes them all */
        *outcome = GI_CUDA_JPEG_UNSETTLED;
        return GI_OK;
    }
    uint32_t failed = 1;
    err = read_flag(e, 1, cs, &failed);
    if (err != cudaSuccess) return gi__cuda_fail(err, "JPEG Huffman decode");
    *outcome = failed ? GI_CUDA_JPEG_DAMAGED : GI_CUDA_JPEG_DECODED;
    return GI_OK;
}

void gi__cuda_jpeg_entropy_free(gi__cuda_jpeg_entropy *e)
{
    gi__cuda_free_device(&e->upload);
    for (int i = 0; i < 2; i++) gi__cuda_free_device(&e->states[i]);
    gi__cuda_free_device(&e->counts);
    gi__cuda_free_device(&e->base);
    gi__cuda_free_device(&e->dc_diff);
    gi__cuda_free_device(&e->dc_key);
    gi__cuda_free_device(&e->dc_sum);
    gi__cuda_free_device(&e->seg_end);
    gi__cuda_free_device(&e->flags);
    gi__cuda_free_device(&e->temp);
    gi__cuda_free_pinned(&e->host_flags);
    gi__cuda_waiter_free(&e->waiter);
}
