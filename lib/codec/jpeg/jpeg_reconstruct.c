/* The arithmetic half's row walk (jpeg_reconstruct.h), in stb_image
 * 2.27's terms (load_jpeg_image).
 *
 * stb IDCTs every component into a whole plane, then makes output row j
 * from each component's row near = j / vs (vs = vmax / v) and, for its
 * 2x vertical filters, the row far beside it: the row above for the first
 * of the two output rows, the one below for the second, clamped to the
 * plane (its ystep/ypos walk, followed through, gives these indices). So
 * output row j needs only the component rows near - 1 .. near + 1: here
 * each component keeps the IDCT of three MCU rows in a ring (the current
 * one and its neighbours, where its filter reads them; one otherwise),
 * small enough to stay in cache, and a band of MCU rows is independent of
 * the others but for one extra MCU row IDCT'd at each of its ends. Samples
 * past a plane's width or height (the MCU grid's padding) never reach the
 * output, as in stb.
 *
 * Chunks of about 64 output rows run on threads started per call (the
 * codec layer may not use the CPU backend's pool in lib/cpu; a thread's
 * start, tens of microseconds, is small beside the image), taken in order
 * from a shared cursor, so that a thread held up (waiting for the entropy
 * half, or for a core) takes fewer. A thread keeps its rings from one
 * chunk to the next: where its next chunk follows the last it made, it
 * goes on; else it IDCTs one MCU row more of the vertically filtered
 * components, above the chunk. */
#include "jpeg_reconstruct.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpu_isa.h"
#include "jpeg_recon_kernels.h"
#include "jpeg_recon_plan.h"
#include "jpeg_progress.h"
#include "jpeg_shrink.h"
#include "base/overrides.h"

typedef struct {
    const gi_jpeg_plane *plane;
    int hs, vs;
    gi_jpeg_upsampler up;
    int neighbours; /* the filter reads the far row: 3 MCU rows in the ring */
    int ring_rows;  /* 8 v or 24 v */
    size_t row_bytes;
    uint8_t *ring;  /* component row r at ring + (r % ring_rows) * row_bytes */
    uint8_t *line;  /* the upsampled row */
    int next_mcu;   /* the next MCU row to IDCT into the ring */
} component;

typedef struct {
    const gi_jpeg_coeffs *c;
    const jpeg_recon_kernels *k;
    gi_jpeg_colour_mode mode;
    int ncomp_used;
    gi_jpeg_rows_out out;
    gi_jpeg_progress *progress; /* NULL: the coefficients are all there */
} job;

/* stbi__blinn_8x8: x * y / 255, rounded. */
static inline uint8_t blinn(int x, int y)
{
    unsigned t = (unsigned)(x * y) + 128;
    return (uint8_t)((t + (t >> 8)) >> 8);
}

/* stbi__compute_y */
static inline uint8_t luma(int r, int g, int b)
{
    return (uint8_t)((r * 77 + g * 150 + 29 * b) >> 8);
}

/* One output row from the upsampled component rows s[]. */
static void colour_row(const job *jb, const uint8_t *const s[4], uint8_t *out)
{
    int w = jb->c->width;
    switch (jb->mode) {
    case GI_JPEG_GRAY:
        if (jb->c->out_channels == 1) {
            memcpy(out, s[0], (size_t)w);
            return;
        }
        for (int i = 0; i < w; i++) out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = s[0][i];
        return;
    case GI_JPEG_YCC: jb->k->ycc_to_rgb(out, s[0], s[1], s[2], w); return;
    case GI_JPEG_RGB:
        for (int i = 0; i < w; i++) {
            out[3 * i] = s[0][i];
            out[3 * i + 1] = s[1][i];
            out[3 * i + 2] = s[2][i];
        }
        return;
    case GI_JPEG_CMYK:
        for (int i = 0; i < w; i++)
            for (int ch = 0; ch < 3; ch++) out[3 * i + ch] = blinn(s[ch][i], s[3][i]);
        return;
    case GI_JPEG_YCCK:
        jb->k->ycc_to_rgb(out, s[0], s[1], s[2], w);
        for (int i = 0; i < w; i++)
            for (int ch = 0; ch < 3; ch++) out[3 * i + ch] = blinn(255 - out[3 * i + ch], s[3][i]);
        return;
    case GI_JPEG_GRAY_RGB:
        for (int i = 0; i < w; i++) out[i] = luma(s[0][i], s[1][i], s[2][i]);
        return;
    case GI_JPEG_GRAY_CMYK:
        for (int i = 0; i < w; i++)
            out[i] = luma(blinn(s[0][i], s[3][i]), blinn(s[1][i], s[3][i]), blinn(s[2][i], s[3][i]));
        return;
    case GI_JPEG_GRAY_YCCK:
        for (int i = 0; i < w; i++) out[i] = blinn(255 - s[0][i], s[3][i]);
        return;
    }
}

/* IDCTs component rows of MCU rows up to `last` into the ring: the blocks
 * that hold samples of the plane (not the grid's padding). */
static void idct_through(const job *jb, component *cp, int last)
{
    const gi_jpeg_plane *p = cp->plane;
    int blocks_x = (p->width + 7) / 8, block_rows = (p->height + 7) / 8;
    for (; cp->next_mcu <= last; cp->next_mcu++)
        for (int by = cp->next_mcu * p->v; by < (cp->next_mcu + 1) * p->v && by < block_rows; by++)
            jb->k->idct_blocks(gi__jpeg_block_row(p, by), blocks_x,
                               jb->c->quant[p->tq],
                               cp->ring + (size_t)((8 * by) % cp->ring_rows) * cp->row_bytes,
                               cp->row_bytes);
}

static const uint8_t *ring_row(const component *cp, int r)
{
    return cp->ring + (size_t)(r % cp->ring_rows) * cp->row_bytes;
}

/* Component cp's samples for output row j (stb's resample step). */
static const uint8_t *upsampled_row(const job *jb, const component *cp, int j)
{
    int near = j / cp->vs, w = cp->plane->width;
    const uint8_t *n = ring_row(cp, near);
    if (cp->up == GI_JPEG_UP_NONE) return n;
    const uint8_t *f = n;
    if (cp->neighbours) f = ring_row(cp, gi__jpeg_far_row(j, cp->vs, near, cp->plane->height));
    switch (cp->up) {
    case GI_JPEG_UP_V2: jb->k->upsample_v2(cp->line, n, f, w); break;
    case GI_JPEG_UP_H2: jb->k->upsample_h2(cp->line, n, w); break;
    case GI_JPEG_UP_HV2: jb->k->upsample_hv2(cp->line, n, f, w); break;
    default: /* stbi__resample_row_generic: nearest */
        for (int i = 0; i < w; i++)
            for (int d = 0; d < cp->hs; d++) cp->line[i * cp->hs + d] = n[i];
    }
    return cp->line;
}

static void free_components(component *cps, int n)
{
    for (int i = 0; i < n; i++) {
        free(cps[i].ring);
        free(cps[i].line);
    }
}

static int init_components(const job *jb, component *cps)
{
    const gi_jpeg_coeffs *c = jb->c;
    memset(cps, 0, sizeof(component) * GI_JPEG_MAX_COMPONENTS);
    for (int i = 0; i < jb->ncomp_used; i++) {
        component *cp = &cps[i];
        const gi_jpeg_plane *p = &c->plane[i];
        cp->plane = p;
        cp->hs = c->hmax / p->h;
        cp->vs = c->vmax / p->v;
        cp->up = gi__jpeg_upsampler(cp->hs, cp->vs);
        cp->neighbours = cp->up == GI_JPEG_UP_V2 || cp->up == GI_JPEG_UP_HV2;
        cp->ring_rows = 8 * p->v * (cp->neighbours ? 3 : 1);
        cp->row_bytes = (size_t)p->blocks_w * 8 + JPEG_RECON_SLACK;
        cp->ring = calloc((size_t)cp->ring_rows, cp->row_bytes);
        if (cp->up != GI_JPEG_UP_NONE)
            cp->line = calloc((size_t)p->width * (size_t)cp->hs + JPEG_RECON_SLACK, 1);
        if (!cp->ring || (cp->up != GI_JPEG_UP_NONE && !cp->line)) {
            free_components(cps, i + 1);
            return -1;
        }
    }
    return 0;
}

/* One thread's share: its components' rings, kept from one chunk to the
 * next, and with a sink its band of rows. */
typedef struct {
    const job *jb;
    struct gi_jpeg_recon *r;
    int index;
    component cps[GI_JPEG_MAX_COMPONENTS];
    int ring_end;  /* the MCU row after the last chunk made: the rings go on from there */
    int published; /* MCU rows of coefficients known to be final */
    uint8_t *band; /* with a sink: chunk_rows MCU rows of output */
    size_t band_stride;
    int result;
} worker;

/* MCU rows [m0, m1) into the image, or into the band handed to the sink.
 * 0; 1 when the coefficients will never come (the scan failed); -1 when
 * the sink failed. */
static int run_chunk(worker *w, int m0, int m1)
{
    const job *jb = w->jb;
    const gi_jpeg_coeffs *c = jb->c;
    if (m0 != w->ring_end) /* else the rings hold what this chunk starts from */
        for (int i = 0; i < jb->ncomp_used; i++)
            w->cps[i].next_mcu = w->cps[i].neighbours && m0 > 0 ? m0 - 1 : m0;
    int rows_per_mcu = 8 * c->vmax, y0 = m0 * rows_per_mcu;
    for (int m = m0; m < m1; m++) {
        int last = m;
        for (int i = 0; i < jb->ncomp_used; i++)
            if (w->cps[i].neighbours && m + 1 < c->mcus_y) last = m + 1;
        if (jb->progress && last >= w->published) {
            if (gi__jpeg_progress_wait(jb->progress, last + 1) != 0) return 1;
            w->published = last + 1;
        }
        for (int i = 0; i < jb->ncomp_used; i++) {
            component *cp = &w->cps[i];
            idct_through(jb, cp, cp->neighbours && m + 1 < c->mcus_y ? m + 1 : m);
        }
        int j_end = (m + 1) * rows_per_mcu < c->height ? (m + 1) * rows_per_mcu : c->height;
        for (int j = m * rows_per_mcu; j < j_end; j++) {
            const uint8_t *s[4] = {0};
            for (int i = 0; i < jb->ncomp_used; i++) s[i] = upsampled_row(jb, &w->cps[i], j);
            colour_row(jb, s, jb->out.pixels ? jb->out.pixels + (size_t)j * jb->out.stride
                                             : w->band + (size_t)(j - y0) * w->band_stride);
        }
    }
    w->ring_end = m1;
    if (jb->out.pixels) return 0;
    int y1 = m1 * rows_per_mcu < c->height ? m1 * rows_per_mcu : c->height;
    gi_image band = {.width = c->width, .height = y1 - y0, .channels = c->out_channels,
                     .stride = w->band_stride, .data = w->band};
    return jb->out.sink(jb->out.sink_arg, w->index, y0, &band) == 0 ? 0 : -1;
}

#define MAX_WORKERS 64

struct gi_jpeg_recon {
    job jb;
    int workers, chunk_rows, chunks;
    atomic_int next_chunk;
    /* with a ring (jpeg_progress.h): which chunks are made, and the first
     * that is not, below which no coefficient row is read again */
    pthread_mutex_t done_lock;
    uint8_t *done;
    int low;
    worker w[MAX_WORKERS];
    pthread_t tid[MAX_WORKERS];
    int started[MAX_WORKERS];
};

/* Frees the ring's rows that chunk k was the last to read: every row
 * below the first chunk not made but the one above it, which that chunk's
 * filters read. k = -1: a worker gave up, and the entropy half must not
 * wait for it (the rows it goes on to decode are discarded). */
static void chunk_done(struct gi_jpeg_recon *r, int k)
{
    const gi_jpeg_coeffs *c = r->jb.c;
    pthread_mutex_lock(&r->done_lock);
    if (k >= 0) r->done[k] = 1;
    while (r->low < r->chunks && r->done[r->low]) r->low++;
    int freed = k < 0 || r->low == r->chunks ? c->mcus_y
                : r->low * r->chunk_rows > 0 ? r->low * r->chunk_rows - 1 : 0;
    pthread_mutex_unlock(&r->done_lock);
    gi__jpeg_progress_free(r->jb.progress, freed);
}

/* Chunks from the shared cursor, in order, until none are left: a worker
 * held up (waiting for the entropy half, or for a core) takes fewer. */
static void *worker_main(void *arg)
{
    worker *w = arg;
    struct gi_jpeg_recon *r = w->r;
    for (int k; w->result == 0 &&
                (k = atomic_fetch_add_explicit(&r->next_chunk, 1, memory_order_relaxed)) < r->chunks;) {
        int m0 = k * r->chunk_rows, m1 = m0 + r->chunk_rows < r->jb.c->mcus_y ? m0 + r->chunk_rows
                                                                            : r->jb.c->mcus_y;
        w->result = run_chunk(w, m0, m1);
        if (r->done) chunk_done(r, w->result == 0 ? k : -1);
    }
    return NULL;
}

static void free_worker(worker *w)
{
    free_components(w->cps, w->jb->ncomp_used);
    free(w->band);
}

static int init_worker(struct gi_jpeg_recon *r, int index)
{
    worker *w = &r->w[index];
    *w = (worker){.jb = &r->jb, .r = r, .index = index, .ring_end = -1};
    if (init_components(&r->jb, w->cps) != 0) return -1;
    if (!r->jb.out.pixels) {
        w->band_stride = (size_t)r->jb.c->width * (size_t)r->jb.c->out_channels;
        w->band = malloc(w->band_stride * (size_t)r->chunk_rows * 8 * (size_t)r->jb.c->vmax);
        if (!w->band) {
            free_components(w->cps, r->jb.ncomp_used);
            return -1;
        }
    }
    return 0;
}

const jpeg_recon_kernels *gi__jpeg_recon_kernels_capped(int cap, int generic)
{
    if (generic) return &gi__jpeg_recon_generic;
#if defined(__x86_64__) && defined(__GNUC__) /* meson builds the sets there */
    gi__isa isa = gi__cpu_isa_capped((gi__isa)cap);
    if (isa >= GI__ISA_AVX512) return &gi__jpeg_recon_avx512;
    if (isa >= GI__ISA_AVX2) return &gi__jpeg_recon_avx2;
#else
    (void)cap;
#endif
    return &gi__jpeg_recon_base;
}

const jpeg_recon_kernels *gi__jpeg_recon_kernels(void)
{
    const gi__overrides *o = gi__process_overrides();
    return gi__jpeg_recon_kernels_capped(o->isa_cap, o->generic_kernels);
}

/* Output rows a chunk makes, about: small enough that a band handed to a
 * sink stays in cache, and that a worker that finishes early waits at
 * most this long for the others; large enough that the MCU row each chunk
 * IDCTs again (vertically filtered chroma) costs little. */
#define CHUNK_OUTPUT_ROWS 64

gi_jpeg_recon *gi__jpeg_recon_start(const gi_jpeg_coeffs *c, const gi_jpeg_rows_out *out,
                                    int threads, gi_jpeg_progress *progress)
{
    /* planes of DCs alone make shrunk images only */
    if (!gi__jpeg_dc_planes_fit(c, 1)) return NULL;
    struct gi_jpeg_recon *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->jb = (job){.c = c, .k = out->kernels ? out->kernels : gi__jpeg_recon_kernels(), .mode = gi__jpeg_colour_mode(c),
                  .out = *out, .progress = progress};
    r->jb.ncomp_used = gi__jpeg_components_used(r->jb.mode);
    r->chunk_rows = CHUNK_OUTPUT_ROWS / (8 * c->vmax) > 0 ? CHUNK_OUTPUT_ROWS / (8 * c->vmax) : 1;
    r->chunks = (c->mcus_y + r->chunk_rows - 1) / r->chunk_rows;
    r->workers = threads < 1 ? 1 : threads > MAX_WORKERS ? MAX_WORKERS : threads;
    if (r->workers > r->chunks) r->workers = r->chunks;
    atomic_init(&r->next_chunk, 0);
    if (progress && c->plane[0].ring_rows) {
        r->done = calloc((size_t)r->chunks, 1);
        if (!r->done || pthread_mutex_init(&r->done_lock, NULL) != 0) {
            free(r->done);
            free(r);
            return NULL;
        }
    }
    for (int i = 0; i < r->workers; i++) {
        if (init_worker(r, i) != 0) {
            for (int j = 0; j < i; j++) free_worker(&r->w[j]);
            if (r->done) pthread_mutex_destroy(&r->done_lock);
            free(r->done);
            free(r);
            return NULL;
        }
    }
    /* worker 0 is the caller's, in gi__jpeg_recon_finish; one that gets no
     * thread runs there too */
    for (int i = 1; i < r->workers; i++)
        r->started[i] = pthread_create(&r->tid[i], NULL, worker_main, &r->w[i]) == 0;
    return r;
}

int gi__jpeg_recon_finish(gi_jpeg_recon *r)
{
    worker_main(&r->w[0]);
    int result = r->w[0].result;
    for (int i = 1; i < r->workers; i++) {
        if (r->started[i]) pthread_join(r->tid[i], NULL);
        else worker_main(&r->w[i]);
        if (r->w[i].result != 0) result = -1;
    }
    if (result != 0) result = -1;
    for (int i = 0; i < r->workers; i++) free_worker(&r->w[i]);
    if (r->done) pthread_mutex_destroy(&r->done_lock);
    free(r->done);
    free(r);
    return result;
}

int gi__jpeg_recon_help(gi_jpeg_recon *r, int published)
{
    const int mcus_y = r->jb.c->mcus_y;
    int k = atomic_load_explicit(&r->next_chunk, memory_order_relaxed);
    for (;;) {
        if (k >= r->chunks || r->w[0].result != 0) return 0;
        int m1 = (k + 1) * r->chunk_rows < mcus_y ? (k + 1) * r->chunk_rows : mcus_y;
        /* the rows its filters read below it too */
        if ((m1 < mcus_y ? m1 + 1 : mcus_y) > published) return 0;
        if (atomic_compare_exchange_weak_explicit(&r->next_chunk, &k, k + 1,
                                                  memory_order_relaxed, memory_order_relaxed))
            break;
    }
    worker *w = &r->w[0];
    w->result = run_chunk(w, k * r->chunk_rows, (k + 1) * r->chunk_rows < mcus_y
                                                    ? (k + 1) * r->chunk_rows : mcus_y);
    if (r->done) chunk_done(r, w->result == 0 ? k : -1);
    return 1;
}

int gi__jpeg_reconstruct(const gi_jpeg_coeffs *c, const gi_jpeg_rows_out *out, int threads)
{
    gi_jpeg_recon *r = gi__jpeg_recon_start(c, out, threads, NULL);
    return r ? gi__jpeg_recon_finish(r) : -1;
}
