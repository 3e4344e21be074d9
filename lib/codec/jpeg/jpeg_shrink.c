/* JPEG shrink-on-load (jpeg_shrink.h): the reduced IDCT into reduced
 * planes, then the components read at their sampling and turned to RGB.
 *
 * A single-scan baseline file is reduced as its entropy decoding goes, a
 * few MCU rows behind it (jpeg_progress.h's ring, followed on the
 * decoding thread): its coefficients stay in cache between being decoded
 * and read, and the frame's coefficient memory (27 MB for a 9 MP 4:2:0
 * photo, fresh pages the kernel zeroes) is never allocated. The others
 * (progressive files) are reduced from the whole frame's coefficients. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "jpeg_decode.h"
#include "jpeg_parse.h"
#include "jpeg_progress.h"
#include "jpeg_recon_kernels.h"
#include "jpeg_recon_plan.h"
#include "jpeg_shrink.h"
#include "base/share_work.h"

int gi__jpeg_shrink_factor(int w, int h, int at_least)
{
    for (int s = 8; s >= 2; s /= 2)
        if ((w + s - 1) / s >= at_least && (h + s - 1) / s >= at_least) return s;
    return 1;
}

/* A component's reduced plane: its defined blocks' samples, nx x ny a
 * block. */
typedef struct {
    uint8_t *samples;
    size_t pitch;
    gi_jpeg_reduced_geometry g;
} reduced_plane;

/* A block's samples along an axis sampled at `factor` of the frame's
 * largest (hmax / h): the block's 8 samples shrunk by s / factor, a power
 * of two from 1 to 8 (gpuimg.h's shrink_to; jpeg_shrink.h). */
int gi__jpeg_reduced_size(int factor, int s)
{
    int n = 8 * factor / s;
    return n >= 8 ? 8 : n >= 4 ? 4 : n >= 2 ? 2 : 1;
}

void gi__jpeg_reduced_geometry(const gi_jpeg_coeffs *c, int k, int s, gi_jpeg_reduced_geometry *g)
{
    const gi_jpeg_plane *p = &c->plane[k];
    const int bw = (p->width + 7) / 8, bh = (p->height + 7) / 8;
    g->nx = gi__jpeg_reduced_size(c->hmax / p->h, s);
    g->ny = gi__jpeg_reduced_size(c->vmax / p->v, s);
    g->width = bw * g->nx;
    g->height = bh * g->ny;
    g->x_num = (long)s * p->h * g->nx;
    g->x_den = (long)c->hmax * 8;
    g->y_num = (long)s * p->v * g->ny;
    g->y_den = (long)c->vmax * 8;
}

/* Component k's plane for shrink s, its samples allocated, none made. */
static int plane_begin(const gi_jpeg_coeffs *c, int k, int s, reduced_plane *r)
{
    gi__jpeg_reduced_geometry(c, k, s, &r->g);
    r->pitch = (size_t)r->g.width;
    r->samples = malloc(r->pitch * (size_t)r->g.height);
    return r->samples ? 0 : -1;
}

/* The samples of component k's block rows by0 .. by1 - 1 (those past its
 * defined blocks left out). */
static void plane_reduce(const gi_jpeg_coeffs *c, int k, reduced_plane *r, int by0, int by1)
{
    const gi_jpeg_plane *p = &c->plane[k];
    const int bw = (p->width + 7) / 8, bh = (p->height + 7) / 8;
    const uint16_t *quant = c->quant[p->tq];
    if (by1 > bh) by1 = bh;
    for (int by = by0; by < by1; by++) {
        uint8_t *out = r->samples + (size_t)by * r->g.ny * r->pitch;
        if (p->block_len == 1) /* 1 x 1 (gi__jpeg_image_shrunk) */
            gi__jpeg_dc_idct_row(gi__jpeg_block_row(p, by), bw, quant, out);
        else
            gi__jpeg_reduced_idct_row(gi__jpeg_block_row(p, by), bw, quant, r->g.nx, r->g.ny, out,
                                      r->pitch);
    }
}

/* Which sample of its plane's rows each output column reads (x * num /
 * den, at most the last), computed once: a division per pixel and
 * component cost more than the reduced IDCT. Returns whether every column
 * reads its own sample, so that rows need no gathering. */
static int column_map(const reduced_plane *r, int width, int *map)
{
    int identity = 1;
    for (int x = 0; x < width; x++) {
        const long sx = x * r->g.x_num / r->g.x_den;
        map[x] = (int)(sx < r->g.width ? sx : r->g.width - 1);
        identity &= map[x] == x;
    }
    return identity;
}

/* A component's samples for output row y, x = 0 .. width - 1: the plane's
 * row itself where the map is the identity, else gathered into out. */
static const uint8_t *component_row(const reduced_plane *r, const int *map, int identity, int y,
                                    int width, uint8_t *out)
{
    const long sy = y * r->g.y_num / r->g.y_den;
    const uint8_t *row = r->samples + (size_t)(sy < r->g.height ? sy : r->g.height - 1) * r->pitch;
    if (identity) return row;
    for (int x = 0; x < width; x++) out[x] = row[map[x]];
    return out;
}

/* Whether a component's sampling is the frame's largest over 1, 2 or 4. */
static int power_of_two_factor(int max, int f)
{
    return max % f == 0 && (max / f == 1 || max / f == 2 || max / f == 4);
}

/* The components the shrunk image reads, or 0 for a file it does not
 * take (not gray or YCbCr; chroma at 1/3, rare, would land between
 * pixels). */
int gi__jpeg_shrinkable(const gi_jpeg_coeffs *c)
{
    const gi_jpeg_colour_mode mode = gi__jpeg_colour_mode(c);
    if (mode != GI_JPEG_GRAY && mode != GI_JPEG_YCC) return 0;
    const int used = gi__jpeg_components_used(mode);
    for (int k = 0; k < used; k++)
        if (!power_of_two_factor(c->hmax, c->plane[k].h) ||
            !power_of_two_factor(c->vmax, c->plane[k].v))
            return 0;
    return used;
}

unsigned gi__jpeg_dc_only_components(const gi_jpeg_coeffs *c, int at_least)
{
    const int s = gi__jpeg_shrink_factor(c->width, c->height, at_least);
    const int used = s > 1 ? gi__jpeg_shrinkable(c) : 0;
    unsigned mask = 0;
    for (int k = 0; k < used; k++) {
        gi_jpeg_reduced_geometry g;
        gi__jpeg_reduced_geometry(c, k, s, &g);
        if (g.nx == 1 && g.ny == 1) mask |= 1u << k;
    }
    return mask;
}

void gi__jpeg_plan_shrink(gi_jpeg_coeffs *c, int at_least)
{
    const int s = gi__jpeg_shrink_factor(c->width, c->height, at_least);
    c->shrink = s > 1 && gi__jpeg_shrinkable(c) ? s : 0;
}

/* Output rows [y0, y1) of the image of `used` reduced planes (maps and
 * identity: column_map's), rows: 3 * width bytes of room to gather in. */
static void image_rows(gi_image *out, const reduced_plane *planes, int used, const int *maps,
                       const int *identity, uint8_t *rows, int y0, int y1)
{
    const int w = out->width;
    const jpeg_recon_kernels *kernels = gi__jpeg_recon_kernels(); /* asks the CPU: once */
    for (int y = y0; y < y1; y++) {
        uint8_t *dst = out->data + (size_t)y * out->stride;
        const uint8_t *comp[3];
        for (int k = 0; k < used; k++)
            comp[k] = component_row(&planes[k], maps + (size_t)k * w, identity[k], y, w,
                                    rows + (size_t)k * w);
        if (used == 1 && out->channels == 1)
            memcpy(dst, comp[0], (size_t)w);
        else if (used == 1) /* a gray plane as RGB, as the full decoder writes it */
            for (int x = 0; x < w; x++) dst[3 * x] = dst[3 * x + 1] = dst[3 * x + 2] = comp[0][x];
        else
            kernels->ycc_to_rgb(dst, comp[0], comp[1], comp[2], w);
    }
}

static void planes_free(reduced_plane *planes)
{
    for (int k = 0; k < 3; k++) free(planes[k].samples);
}

/* Block rows a piece of the work on threads reduces, and output rows a
 * piece makes: a 12 MP 4:4:4 photo shrunk by 8 is 0.58 M blocks, 9.5 ms
 * on one thread of the H200 host. */
#define PIECE_ROWS 16

/* Work on threads, in pieces: the planes' block rows reduced, or the
 * image's rows made from the reduced planes (out set). */
typedef struct {
    const gi_jpeg_coeffs *c;
    reduced_plane *planes;
    int used;
    gi_image *out;        /* NULL while the planes are reduced */
    const int *maps, *identity;
    int reduce_pieces[3]; /* each plane's pieces of block rows */
    int pieces;
    atomic_int next;
    atomic_int failed;
} shrink_job;

static void *shrink_worker(void *arg)
{
    shrink_job *j = arg;
    uint8_t *rows = NULL; /* gathering room for output rows, once this thread makes some */
    for (int i; (i = atomic_fetch_add(&j->next, 1)) < j->pieces;) {
        if (!j->out) {
            int k = 0;
            while (i >= j->reduce_pieces[k]) i -= j->reduce_pieces[k++];
            plane_reduce(j->c, k, &j->planes[k], i * PIECE_ROWS, (i + 1) * PIECE_ROWS);
            continue;
        }
        if (!rows && !(rows = malloc(3 * (size_t)j->out->width))) {
            atomic_store(&j->failed, 1);
            break;
        }
        const int y1 = (i + 1) * PIECE_ROWS;
        image_rows(j->out, j->planes, j->used, j->maps, j->identity, rows, i * PIECE_ROWS,
                   y1 < j->out->height ? y1 : j->out->height);
    }
    free(rows);
    return NULL;
}

/* j's pieces on up to `threads` threads: whether none failed. */
static int run_pieces(shrink_job *j, int threads)
{
    atomic_store(&j->next, 0);
    gi__share_work(threads < j->pieces ? threads : j->pieces, shrink_worker, j);
    return !atomic_load(&j->failed);
}

/* The image of `used` reduced planes, at 1/s of c's size, into *img, its
 * rows on up to `threads` threads. */
static int image_from_planes(gi_image *img, const gi_jpeg_coeffs *c, reduced_plane *planes,
                             int used, int s, int threads)
{
    const int w = (c->width + s - 1) / s, h = (c->height + s - 1) / s;
    int *maps = malloc(3 * sizeof(int) * (size_t)w), identity[3] = {0};
    gi_image out = {0};
    if (!maps || gi_image_alloc(&out, w, h, c->out_channels) != GI_OK) {
        free(maps);
        return 0;
    }
    for (int k = 0; k < used; k++) identity[k] = column_map(&planes[k], w, maps + (size_t)k * w);
    shrink_job j = {.c = c, .planes = planes, .used = used, .out = &out, .maps = maps,
                    .identity = identity, .pieces = (h + PIECE_ROWS - 1) / PIECE_ROWS};
    const int ok = run_pieces(&j, threads);
    free(maps);
    if (!ok) {
        gi_image_free(&out);
        return 0;
    }
    *img = out;
    return 1;
}

int gi__jpeg_image_shrunk(gi_image *img, const gi_jpeg_coeffs *c, int s, int threads)
{
    const int used = gi__jpeg_shrinkable(c);
    if (!used || !c->storage || !gi__jpeg_dc_planes_fit(c, s)) return 0;
    reduced_plane planes[3] = {{0}};
    int ok = 1;
    shrink_job j = {.c = c, .planes = planes, .used = used};
    for (int k = 0; k < used && ok; k++) {
        ok = plane_begin(c, k, s, &planes[k]) == 0;
        j.reduce_pieces[k] = ((c->plane[k].height + 7) / 8 + PIECE_ROWS - 1) / PIECE_ROWS;
        j.pieces += j.reduce_pieces[k];
    }
    if (threads < 1) threads = 1;
    ok = ok && run_pieces(&j, threads) && image_from_planes(img, c, planes, used, s, threads);
    planes_free(planes);
    return ok;
}

/* ---- reduced as the entropy decoding goes ---- */

typedef struct {
    gi_jpeg_progress progress;
    const gi_jpeg_coeffs *c;
    int at_least;
    int s, used;      /* set when the scan is followed */
    int declined;     /* the file is not shrunk: decoded as ever */
    int reduced;      /* MCU rows made into samples */
    reduced_plane planes[3];
} shrinker;

/* jpeg_progress.h's ready: the scan is followed when the file is shrunk. */
static int shrink_ready(void *arg, const gi_jpeg_coeffs *c)
{
    shrinker *sh = arg;
    sh->c = c;
    sh->used = gi__jpeg_shrinkable(c);
    sh->s = gi__jpeg_shrink_factor(c->width, c->height, sh->at_least);
    if (!sh->used || sh->s < 2) {
        sh->declined = 1;
        return -1;
    }
    for (int k = 0; k < sh->used; k++)
        if (plane_begin(c, k, sh->s, &sh->planes[k]) != 0) return -1;
    return 0;
}

/* jpeg_progress.h's help, on the entropy half's own thread while its ring
 * is full (and once at the end): reduces the MCU rows published so far
 * and frees their slots. */
static int shrink_help(void *arg, int published)
{
    shrinker *sh = arg;
    if (published <= sh->reduced) return 0;
    for (int k = 0; k < sh->used; k++) {
        const int v = sh->c->plane[k].v;
        plane_reduce(sh->c, k, &sh->planes[k], sh->reduced * v, published * v);
    }
    sh->reduced = published;
    gi__jpeg_progress_free(&sh->progress, published);
    return 1;
}

/* From the whole frame's coefficients: shrunk, or at full size where no
 * shrink keeps the sides large enough. */
static int from_coeffs(gi_image *img, const gi_jpeg_coeffs *c, int at_least, int threads)
{
    const int s = gi__jpeg_shrink_factor(c->width, c->height, at_least);
    return s > 1 ? gi__jpeg_image_shrunk(img, c, s, threads)
                 : gi__jpeg_image_from_coeffs(img, c, threads);
}

int gi__jpeg_decode_shrunk(gi_image *img, const uint8_t *bytes, size_t size, uint64_t max_pixels,
                           int threads, int at_least)
{
    shrinker sh = {.at_least = at_least};
    if (gi__jpeg_progress_init(&sh.progress, shrink_ready, &sh) != 0) return 0;
    sh.progress.ring_output_rows = 1; /* the fewest MCU rows: each is reduced as it comes */
    sh.progress.help = shrink_help;
    gi_jpeg_coeffs c;
    const int r = gi__jpeg_read_coeffs(bytes, size, max_pixels, threads, 0, at_least, &sh.progress, &c);
    gi__jpeg_progress_close(&sh.progress);
    int ok = 0;
    if (sh.progress.started) {
        /* the last rows; the colour mode once more (a segment after the
         * scan may change it: then the caller decodes as ever) */
        ok = r == GI_JPEG_OK && (shrink_help(&sh, c.mcus_y), gi__jpeg_shrinkable(&c) == sh.used) &&
             image_from_planes(img, &c, sh.planes, sh.used, sh.s, 1);
        gi__jpeg_coeffs_free(&c);
    } else if (r == GI_JPEG_OK) { /* a scan not followed (progressive, or a small frame) */
        ok = from_coeffs(img, &c, at_least, threads);
        gi__jpeg_coeffs_free(&c);
    } else if (sh.progress.ring_used && !sh.declined &&
               gi__jpeg_read_coeffs(bytes, size, max_pixels, threads, 0, at_least, NULL, &c) == GI_JPEG_OK) {
        /* the ring was kept for a scan decoded otherwise (split at its
         * restarts on more threads): the whole frame's coefficients */
        ok = from_coeffs(img, &c, at_least, threads);
        gi__jpeg_coeffs_free(&c);
    }
    planes_free(sh.planes);
    gi__jpeg_progress_destroy(&sh.progress);
    return ok;
}
