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
 * Bands run on threads started per call: the codec layer may not use the
 * CPU backend's pool (lib/cpu), and a thread's start (tens of
 * microseconds) is small beside a band of at least 4 MCU rows. Each band
 * IDCTs one more MCU row of its vertically filtered components at each
 * end; CPU time measured the same within noise for 1, 2 and 4 bands
 * (9.2 MP, 4:2:0 and 4:4:4). */
#include "jpeg_reconstruct.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_isa.h"
#include "jpeg_recon_kernels.h"

/* How stb's load_jpeg_image turns the components into the output. */
typedef enum {
    COLOUR_GRAY,     /* component 0 as it is (gray files; Y of colour ones) */
    COLOUR_YCC,      /* stbi__YCbCr_to_RGB_row */
    COLOUR_RGB,      /* components as R, G, B */
    COLOUR_CMYK,     /* Adobe transform 0: each of C, M, Y times K */
    COLOUR_YCCK,     /* Adobe transform 2: YCbCr to RGB, inverted, times K */
    COLOUR_GRAY_RGB, /* 1 channel: stb's luma of R, G, B */
    COLOUR_GRAY_CMYK,
    COLOUR_GRAY_YCCK, /* 1 channel: inverted Y times K */
} colour_mode;

typedef enum { UP_NONE, UP_V2, UP_H2, UP_HV2, UP_NEAREST } upsampler;

typedef struct {
    const gi_jpeg_plane *plane;
    int hs, vs;
    upsampler up;
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
    colour_mode mode;
    int ncomp_used;
    uint8_t *pixels;
    size_t stride;
} job;

static colour_mode pick_mode(const gi_jpeg_coeffs *c)
{
    static const int rgb_ids[3] = {'R', 'G', 'B'};
    int rgb = 0;
    for (int i = 0; i < 3 && c->ncomp == 3; i++) rgb += c->plane[i].id == rgb_ids[i];
    int is_rgb = c->ncomp == 3 && (rgb == 3 || (c->adobe_transform == 0 && !c->jfif));
    if (c->out_channels == 1) {
        if (is_rgb) return COLOUR_GRAY_RGB;
        if (c->ncomp == 4 && c->adobe_transform == 0) return COLOUR_GRAY_CMYK;
        if (c->ncomp == 4 && c->adobe_transform == 2) return COLOUR_GRAY_YCCK;
        return COLOUR_GRAY;
    }
    if (c->ncomp == 1) return COLOUR_GRAY;
    if (is_rgb) return COLOUR_RGB;
    if (c->ncomp == 4 && c->adobe_transform == 0) return COLOUR_CMYK;
    if (c->ncomp == 4 && c->adobe_transform == 2) return COLOUR_YCCK;
    return COLOUR_YCC;
}

/* Components the mode reads. */
static int components_used(colour_mode mode)
{
    switch (mode) {
    case COLOUR_GRAY: return 1;
    case COLOUR_YCC:
    case COLOUR_RGB:
    case COLOUR_GRAY_RGB: return 3;
    default: return 4;
    }
}

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
    case COLOUR_GRAY:
        if (jb->c->out_channels == 1) {
            memcpy(out, s[0], (size_t)w);
            return;
        }
        for (int i = 0; i < w; i++) out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = s[0][i];
        return;
    case COLOUR_YCC: jb->k->ycc_to_rgb(out, s[0], s[1], s[2], w); return;
    case COLOUR_RGB:
        for (int i = 0; i < w; i++) {
            out[3 * i] = s[0][i];
            out[3 * i + 1] = s[1][i];
            out[3 * i + 2] = s[2][i];
        }
        return;
    case COLOUR_CMYK:
        for (int i = 0; i < w; i++)
            for (int ch = 0; ch < 3; ch++) out[3 * i + ch] = blinn(s[ch][i], s[3][i]);
        return;
    case COLOUR_YCCK:
        jb->k->ycc_to_rgb(out, s[0], s[1], s[2], w);
        for (int i = 0; i < w; i++)
            for (int ch = 0; ch < 3; ch++) out[3 * i + ch] = blinn(255 - out[3 * i + ch], s[3][i]);
        return;
    case COLOUR_GRAY_RGB:
        for (int i = 0; i < w; i++) out[i] = luma(s[0][i], s[1][i], s[2][i]);
        return;
    case COLOUR_GRAY_CMYK:
        for (int i = 0; i < w; i++)
            out[i] = luma(blinn(s[0][i], s[3][i]), blinn(s[1][i], s[3][i]), blinn(s[2][i], s[3][i]));
        return;
    case COLOUR_GRAY_YCCK:
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
            jb->k->idct_blocks(p->coeffs + 64 * (size_t)by * (size_t)p->blocks_w, blocks_x,
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
    if (cp->up == UP_NONE) return n;
    const uint8_t *f = n;
    if (cp->neighbours) {
        /* stb's ystep: the first of the vs output rows takes the row above */
        int upper = ((cp->vs >> 1) + j) % cp->vs >= (cp->vs >> 1);
        int far = upper ? (near > 0 ? near - 1 : 0)
                        : (near + 1 < cp->plane->height ? near + 1 : near);
        f = ring_row(cp, far);
    }
    switch (cp->up) {
    case UP_V2: jb->k->upsample_v2(cp->line, n, f, w); break;
    case UP_H2: jb->k->upsample_h2(cp->line, n, w); break;
    case UP_HV2: jb->k->upsample_hv2(cp->line, n, f, w); break;
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
        cp->up = cp->hs == 1 && cp->vs == 1 ? UP_NONE
                 : cp->hs == 1 && cp->vs == 2 ? UP_V2
                 : cp->hs == 2 && cp->vs == 1 ? UP_H2
                 : cp->hs == 2 && cp->vs == 2 ? UP_HV2
                                              : UP_NEAREST;
        cp->neighbours = cp->up == UP_V2 || cp->up == UP_HV2;
        cp->ring_rows = 8 * p->v * (cp->neighbours ? 3 : 1);
        cp->row_bytes = (size_t)p->blocks_w * 8 + JPEG_RECON_SLACK;
        cp->ring = calloc((size_t)cp->ring_rows, cp->row_bytes);
        if (cp->up != UP_NONE)
            cp->line = calloc((size_t)p->width * (size_t)cp->hs + JPEG_RECON_SLACK, 1);
        if (!cp->ring || (cp->up != UP_NONE && !cp->line)) {
            free_components(cps, i + 1);
            return -1;
        }
    }
    return 0;
}

/* MCU rows [m0, m1). */
static int run_band(const job *jb, int m0, int m1)
{
    const gi_jpeg_coeffs *c = jb->c;
    component cps[GI_JPEG_MAX_COMPONENTS];
    if (init_components(jb, cps) != 0) return -1;
    for (int i = 0; i < jb->ncomp_used; i++)
        cps[i].next_mcu = cps[i].neighbours && m0 > 0 ? m0 - 1 : m0;
    int rows_per_mcu = 8 * c->vmax;
    for (int m = m0; m < m1; m++) {
        for (int i = 0; i < jb->ncomp_used; i++) {
            component *cp = &cps[i];
            idct_through(jb, cp, cp->neighbours && m + 1 < c->mcus_y ? m + 1 : m);
        }
        int j_end = (m + 1) * rows_per_mcu < c->height ? (m + 1) * rows_per_mcu : c->height;
        for (int j = m * rows_per_mcu; j < j_end; j++) {
            const uint8_t *s[4] = {0};
            for (int i = 0; i < jb->ncomp_used; i++) s[i] = upsampled_row(jb, &cps[i], j);
            colour_row(jb, s, jb->pixels + (size_t)j * jb->stride);
        }
    }
    free_components(cps, jb->ncomp_used);
    return 0;
}

typedef struct {
    const job *jb;
    int m0, m1, result;
} band;

static void *band_thread(void *arg)
{
    band *b = arg;
    b->result = run_band(b->jb, b->m0, b->m1);
    return NULL;
}

const jpeg_recon_kernels *gi__jpeg_recon_kernels(void)
{
    const char *cap = getenv("GPUIMG_CPU_ISA");
    if (cap && !strcmp(cap, "generic")) return &gi__jpeg_recon_generic;
#if defined(__x86_64__) && defined(__GNUC__) /* meson builds the sets there */
    gi__isa isa = gi__cpu_isa();
    if (isa >= GI__ISA_AVX512) return &gi__jpeg_recon_avx512;
    if (isa >= GI__ISA_AVX2) return &gi__jpeg_recon_avx2;
#endif
    return &gi__jpeg_recon_base;
}

#define MAX_BANDS 64

int gi__jpeg_reconstruct(const gi_jpeg_coeffs *c, uint8_t *pixels, size_t stride, int threads)
{
    job jb = {.c = c, .k = gi__jpeg_recon_kernels(), .mode = pick_mode(c),
              .pixels = pixels, .stride = stride};
    jb.ncomp_used = components_used(jb.mode);
    /* bands of at least 4 MCU rows: each costs one more MCU row's IDCT */
    int bands = threads < 1 ? 1 : threads > MAX_BANDS ? MAX_BANDS : threads;
    if (bands > c->mcus_y / 4) bands = c->mcus_y / 4 > 0 ? c->mcus_y / 4 : 1;
    band b[MAX_BANDS];
    pthread_t tid[MAX_BANDS];
    int started[MAX_BANDS] = {0};
    for (int i = 0; i < bands; i++) {
        b[i] = (band){&jb, (int)((long)c->mcus_y * i / bands),
                      (int)((long)c->mcus_y * (i + 1) / bands), 0};
        if (i > 0) started[i] = pthread_create(&tid[i], NULL, band_thread, &b[i]) == 0;
    }
    int result = run_band(&jb, b[0].m0, b[0].m1);
    for (int i = 1; i < bands; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else /* no thread to be had: this one runs the band */
            band_thread(&b[i]);
        if (b[i].result != 0) result = -1;
    }
    return result;
}
