/* Transforms: exact against the documented index maps, plus the algebra
 * that ties them together (a wrong map that is consistently wrong in both
 * the library and the reference would still break these). */
#include "checks.h"
#include "ref_ops.h"
#include "../harness.h"
#include "../testimg.h"

#include <stdio.h>
#include <string.h>

static const char *const names[] = {"transpose", "rotate90", "rotate180",
                                    "rotate270", "flip_h",   "flip_v"};

/* Replaces *img by its transform (freeing the old pixels). */
static int apply(gi_context *ctx, gi_image *img, gi_transform t)
{
    int w, h;
    gi_transform_size(img, t, &w, &h);
    gi_image out = ti_blank(w, h, img->channels);
    gi_status st = gi_transform_image(ctx, img, &out, t);
    th_check(st == GI_OK, "%s %dx%d: %s", names[t], img->width, img->height, gi_last_error());
    th_check(ti_padding_intact(&out), "%s: wrote into the row padding", names[t]);
    ti_free(img);
    *img = out;
    return st == GI_OK;
}

static void against_reference(gi_context *ctx, const gi_image *src, gi_transform t)
{
    int swap = t == GI_TRANSPOSE || t == GI_ROTATE_90 || t == GI_ROTATE_270;
    int w = swap ? src->height : src->width, h = swap ? src->width : src->height;
    int gw, gh;
    char why[96];
    gi_image got = ti_copy(src), want = ti_blank(w, h, src->channels);
    gi_transform_size(src, t, &gw, &gh);
    th_check(gw == w && gh == h, "gi_transform_size(%s, %dx%d) = %dx%d, want %dx%d", names[t],
             src->width, src->height, gw, gh, w, h);
    if (apply(ctx, &got, t)) {
        ref_transform(src, t, &want);
        th_check(ti_same(&got, &want, why, sizeof why), "%s %dx%dx%d: %s (library vs reference)",
                 names[t], src->width, src->height, src->channels, why);
    }
    ti_free(&got);
    ti_free(&want);
}

/* Applying the chain `seq` to src must give what the chain `eq` gives. */
static void identity(gi_context *ctx, const gi_image *src, const char *what,
                     const gi_transform *seq, int nseq, const gi_transform *eq, int neq)
{
    gi_image a = ti_copy(src), b = ti_copy(src);
    char why[96];
    int ok = 1;
    for (int k = 0; k < nseq && ok; k++) ok = apply(ctx, &a, seq[k]);
    for (int k = 0; k < neq && ok; k++) ok = apply(ctx, &b, eq[k]);
    if (ok)
        th_check(ti_same(&a, &b, why, sizeof why), "%s on %dx%dx%d: %s", what, src->width,
                 src->height, src->channels, why);
    ti_free(&a);
    ti_free(&b);
}

static void invariants(gi_context *ctx, const gi_image *src)
{
    const gi_transform tt[] = {GI_TRANSPOSE, GI_TRANSPOSE};
    const gi_transform r4[] = {GI_ROTATE_90, GI_ROTATE_90, GI_ROTATE_90, GI_ROTATE_90};
    const gi_transform hh[] = {GI_FLIP_H, GI_FLIP_H}, vv[] = {GI_FLIP_V, GI_FLIP_V};
    const gi_transform hv[] = {GI_FLIP_H, GI_FLIP_V}, r180[] = {GI_ROTATE_180};
    const gi_transform r270[] = {GI_ROTATE_270}, r90[] = {GI_ROTATE_90};
    const gi_transform th[] = {GI_TRANSPOSE, GI_FLIP_H};
    identity(ctx, src, "transpose twice = identity", tt, 2, NULL, 0);
    identity(ctx, src, "rotate 90 four times = identity", r4, 4, NULL, 0);
    identity(ctx, src, "flip h twice = identity", hh, 2, NULL, 0);
    identity(ctx, src, "flip v twice = identity", vv, 2, NULL, 0);
    identity(ctx, src, "rotate 180 = flip h then flip v", r180, 1, hv, 2);
    identity(ctx, src, "rotate 270 = rotate 90 three times", r270, 1, r4, 3);
    identity(ctx, src, "rotate 90 = transpose then flip h", r90, 1, th, 2);
}

/* and sizes with whole blocks (16x16 bytes, 16 rows of 64 gray pixels),
 * ragged edges on both sides, and more than one tile (256 and 512
 * pixels) */
static const int block_sizes[][2] = {{100, 70}, {64, 33}, {47, 130}, {129, 191}, {530, 290}};
#define N_BLOCK_SIZES (int)(sizeof block_sizes / sizeof block_sizes[0])

/* Quarter turns of each pixel size the blocks take (1, 2, 4 and 8 bytes)
 * over many tiles and every thread's band, their last output rows a
 * partial block. */
static void large_turn_case(gi_context *ctx, int width, int channels, int depth)
{
    const int height = 1024;
    gi_image src, out;
    th_check(gi_image_alloc_depth(&src, width, height, channels, depth) == GI_OK &&
                 gi_image_alloc_depth(&out, height, width, channels, depth) == GI_OK,
             "cannot allocate %dx%dx%d images", width, height, channels);
    if (!src.data || !out.data) return;
    const size_t pb = (size_t)channels * (size_t)gi_image_sample_bytes(&src);
    uint32_t seed = 12345;
    for (size_t i = 0; i < src.stride * (size_t)height; i++)
        src.data[i] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 23);
    const gi_transform turns[] = {GI_TRANSPOSE, GI_ROTATE_90, GI_ROTATE_270};
    for (int k = 0; k < 3; k++) {
        const gi_transform t = turns[k];
        memset(out.data, 0xA5, out.stride * (size_t)out.height);
        if (gi_transform_image(ctx, &src, &out, t) != GI_OK) {
            th_check(0, "%s of %dx%d, %d bits: %s", names[t], width, height, depth, gi_last_error());
            continue;
        }
        long bad = 0;
        for (int y = 0; y < out.height; y++)
            for (int x = 0; x < out.width; x++) {
                const int sx = t == GI_ROTATE_270 ? width - 1 - y : y;
                const int sy = t == GI_ROTATE_90 ? height - 1 - x : x;
                bad += memcmp(out.data + (size_t)y * out.stride + (size_t)x * pb,
                              src.data + (size_t)sy * src.stride + (size_t)sx * pb, pb) != 0;
            }
        th_check(bad == 0, "%s of %dx%dx%d, %d bits: %ld pixels wrong", names[t],
                 width, height, channels, depth, bad);
    }
    gi_image_free(&src);
    gi_image_free(&out);
}

void check_transform(gi_context *ctx)
{
    large_turn_case(ctx, 4099, 1, 8);
    large_turn_case(ctx, 2051, 2, 8);
    large_turn_case(ctx, 1027, 4, 8);
    large_turn_case(ctx, 515, 4, 16);

    for (int s = 0; s < REF_NSIZES + N_BLOCK_SIZES; s++)
        for (int ch = 1; ch <= 4; ch++) {
            const int *size = s < REF_NSIZES ? ref_sizes[s] : block_sizes[s - REF_NSIZES];
            gi_image src = ti_random(size[0], size[1], ch);
            for (int t = GI_TRANSPOSE; t <= GI_FLIP_V; t++)
                against_reference(ctx, &src, (gi_transform)t);
            invariants(ctx, &src);
            ti_free(&src);
        }
}
