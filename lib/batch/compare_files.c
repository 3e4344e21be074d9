/* Comparing files (gpuimg.h, "comparing files"): each pair loaded, turned
 * as a viewer shows it when asked, compared with gi_compare and judged
 * against the limit, and a diff picture written where they differ. Many
 * pairs are shared out to worker threads, each with its own context,
 * taking the next pair as they finish one. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cores.h"
#include "base/gi_error.h"
#include "base/share_work.h"
#include "engine/ops.h"

void gi_compare_files_options_default(gi_compare_files_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    gi_compare_params_default(&o->compare);
    gi_load_limits_default(&o->limits);
    o->device = GI_DEVICE_AUTO;
}

static int within_limit(const gi_compare_files_options *o, const gi_compare_result *r)
{
    return o->max_is_percent ? r->different_percent <= o->max_different
                             : (double)r->different_pixels <= o->max_different;
}

/* Sample i of a row, 8- or 16-bit. */
static int sample_at(const uint8_t *row, size_t i, int wide)
{
    return wide ? ((const uint16_t *)row)[i] : row[i];
}

/* The expected image faded to light gray, differing pixels in red, from
 * dark (a difference just over the tolerance) to full red (the largest).
 * An 8-bit picture: 16-bit samples and differences are scaled by 255 /
 * 65535 for it (the tolerance is the comparison's, on their range). */
static gi_status write_diff_picture(const gi_image *e, const gi_image *a, int tolerance,
                                    const char *path)
{
    gi_image out;
    gi_status st = gi_image_alloc(&out, e->width, e->height, 3);
    if (st != GI_OK) return st;
    const int ch = e->channels, wide = e->depth == 16, scale = wide ? 257 : 1;
    for (int y = 0; y < e->height; y++) {
        const uint8_t *re = e->data + (size_t)y * e->stride, *ra = a->data + (size_t)y * a->stride;
        uint8_t *o = out.data + (size_t)y * out.stride;
        for (int x = 0; x < e->width; x++, o += 3) {
            int d = 0, v[3];
            for (int c = 0; c < ch; c++) {
                const size_t i = (size_t)x * ch + c;
                const int ve = sample_at(re, i, wide), dc = abs(ve - sample_at(ra, i, wide));
                d = dc > d ? dc : d;
                if (c < 3) v[c] = ve / scale;
            }
            int luma = ch >= 3 ? (77 * v[0] + 150 * v[1] + 29 * v[2] + 128) >> 8 : v[0];
            int gray = 160 + luma / 4;
            o[0] = (uint8_t)(d > tolerance ? 128 + d / scale / 2 : gray);
            o[1] = o[2] = (uint8_t)(d > tolerance ? 0 : gray);
        }
    }
    gi_save_options opts;
    gi_save_options_default(&opts);
    opts.format = GI_FORMAT_PNG;
    st = gi_save_file(&out, path, &opts);
    gi_image_free(&out);
    return st;
}

static void pair_error(gi_file_pair *p, const char *what)
{
    p->status = GI_PAIR_ERROR;
    snprintf(p->detail, sizeof p->detail, "%s%s%s", what, *what ? ": " : "", gi_last_error());
}

/* Creates the directories above path (for a mirrored diff tree). */
static int make_parents(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *s = strchr(buf + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        *s = '/';
    }
    return 0;
}

static void compare_loaded(gi_context *ctx, const gi_compare_files_options *o, gi_image *e,
                           gi_image *a, gi_file_pair *p)
{
    if (e->width != a->width || e->height != a->height || e->channels != a->channels ||
        gi_image_sample_bytes(e) != gi_image_sample_bytes(a)) {
        p->status = GI_PAIR_SHAPE;
        snprintf(p->detail, sizeof p->detail, "%dx%d with %d channels of %d bits vs %dx%d with %d"
                 " of %d", e->width, e->height, e->channels, 8 * gi_image_sample_bytes(e),
                 a->width, a->height, a->channels, 8 * gi_image_sample_bytes(a));
        return;
    }
    /* the samples the comparison sees make the diff picture too */
    gi_compare_params as_stored = o->compare;
    as_stored.straight_alpha = 1;
    gi__compare_premultiply(e, &o->compare);
    gi__compare_premultiply(a, &o->compare);
    if (gi_compare(ctx, e, a, &as_stored, &p->result) != GI_OK) {
        char names[200]; /* the detail keeps room for the reason */
        snprintf(names, sizeof names, "%s and %s", gi_quote_name(p->expected),
                 gi_quote_name(p->actual));
        return pair_error(p, names);
    }
    p->status = within_limit(o, &p->result) ? GI_PAIR_EQUAL : GI_PAIR_DIFFERENT;
    if (!p->diff_out || p->result.different_pixels == 0) return;
    if (make_parents(p->diff_out) != 0) {
        p->status = GI_PAIR_ERROR;
        snprintf(p->detail, sizeof p->detail, "%s: %s", gi_quote_name(p->diff_out), strerror(errno));
    } else if (write_diff_picture(e, a, o->compare.tolerance, p->diff_out) != GI_OK) {
        pair_error(p, "");
    }
}

/* One side: its pixels as stored, or as a viewer shows them. */
static gi_status load_side(gi_context *ctx, const gi_compare_files_options *o, const char *path,
                           gi_image *img)
{
    gi_metadata meta = {0};
    gi_status st = gi_load_file_with_metadata(img, path, &o->limits, o->auto_orient ? &meta : NULL);
    if (st == GI_OK && o->auto_orient) st = gi_orient_image(ctx, img, meta.orientation);
    gi_metadata_free(&meta);
    return st;
}

static void compare_pair(gi_context *ctx, const gi_compare_files_options *o, gi_file_pair *p)
{
    gi_image e = {0}, a = {0};
    p->detail[0] = '\0';
    if (!p->expected) p->status = GI_PAIR_ONLY_ACTUAL;
    else if (!p->actual) p->status = GI_PAIR_ONLY_EXPECTED;
    else if (load_side(ctx, o, p->expected, &e) != GI_OK) pair_error(p, "");
    else if (load_side(ctx, o, p->actual, &a) != GI_OK) pair_error(p, "");
    else compare_loaded(ctx, o, &e, &a, p);
    gi_image_free(&e);
    gi_image_free(&a);
}

typedef struct {
    const gi_compare_files_options *opts;
    gi_file_pair *pairs;
    size_t count, next;
    int cpu_threads;
    pthread_mutex_t lock;
} pair_queue;

static void *compare_worker(void *arg)
{
    pair_queue *q = arg;
    gi_context_options copts = {q->opts->device, q->cpu_threads, 0};
    gi_context *ctx = NULL;
    gi_status made = gi_context_create(&ctx, &copts);
    char why[600];
    snprintf(why, sizeof why, "%s", made == GI_OK ? "" : gi_last_error());
    for (;;) {
        pthread_mutex_lock(&q->lock);
        size_t i = q->next++;
        pthread_mutex_unlock(&q->lock);
        if (i >= q->count) break;
        if (made == GI_OK) {
            compare_pair(ctx, q->opts, &q->pairs[i]);
        } else {
            q->pairs[i].status = GI_PAIR_ERROR;
            snprintf(q->pairs[i].detail, sizeof q->pairs[i].detail, "%s", why);
        }
    }
    gi_context_destroy(ctx);
    return NULL;
}

gi_status gi_compare_files(const gi_compare_files_options *opts, gi_file_pair *pairs,
                           size_t count)
{
    GI__REFUSE_NULL(opts);
    if (count) GI__REFUSE_NULL(pairs);
    /* each pair's depth bounds the tolerance (gi_compare: 255 at 8 bits) */
    if (opts->compare.tolerance < 0 || opts->compare.tolerance > 65535 || !(opts->max_different >= 0))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "compare: tolerance must be 0..65535 and "
                        "max_different >= 0");
    const int cores = gi__process_cores();
    int workers = opts->workers ? opts->workers : cores > 256 ? 256 : cores;
    if ((size_t)workers > count) workers = count ? (int)count : 1;
    /* Several workers share the cores: one CPU thread each. */
    pair_queue q = {opts, pairs, count, 0, workers > 1 ? 1 : opts->cpu_threads,
                    PTHREAD_MUTEX_INITIALIZER};
    gi__share_work(workers, compare_worker, &q);
    pthread_mutex_destroy(&q.lock);
    return GI_OK;
}
