/* test_jpeg_deferred DIR: which scans the entropy half leaves to the
 * device (jpeg_deferred.h), on the CPU. Over every .jpg in DIR (the kinds
 * of tests/gpu/jpegs-exact): read with and without deferral, the same
 * verdict; where scans are deferred, every scan of the file is, in order
 * (baseline kinds in a baseline frame, progressive kinds in a progressive
 * one), and no AC refinement has a segment of more than
 * GI_JPEG_REFINE_MAX_SUBSEQS subsequences; a file with a longer one is
 * read again and decoded here whole, to the coefficients of the plain
 * read. Then the named kinds: a small progressive file defers its AC
 * refinements, jpegtran -progressive of a 960x600 photo none, and neither
 * does a smooth 320x240 one made progressive by ImageMagick, whose luma
 * refinement is short (691 bytes) but covers 1200 blocks
 * (GI_JPEG_REFINE_MAX_SEGMENT_BLOCKS). */
#include <stdio.h>
#include <string.h>

#include "codec/file_io.h"
#include "harness.h"
#include "codec/jpeg/jpeg_deferred.h"
#include "codec/jpeg/jpeg_parse.h"
#include "base/pixel_alloc.h"
#include "testimg.h"

static int files_deferred, refinements_deferred;

/* The AC refinement scans deferred in path's file; -1: none deferred. */
static int check_path_refinements(const char *path)
{
    uint8_t *bytes;
    size_t size;
    if (!th_check(gi__read_file(path, 1u << 30, &bytes, &size) == GI_OK, "%s: read", path)) return -1;
    gi_jpeg_coeffs plain, deferred;
    int r_plain = gi__jpeg_read_coeffs(bytes, size, 1ull << 32, 1, 0, 0, NULL, &plain);
    int r_def = gi__jpeg_read_coeffs(bytes, size, 1ull << 32, 1, 1, 0, NULL, &deferred);
    int refinements = -1;
    th_check(r_plain == r_def, "%s: %d with deferral allowed, %d without", path, r_def, r_plain);
    if (r_def == GI_JPEG_OK && deferred.deferred) {
        const gi_jpeg_deferred *d = deferred.deferred;
        files_deferred++;
        refinements = 0;
        th_check(deferred.storage == NULL && d->nscans >= 1, "%s: deferred, yet decoded", path);
        for (int i = 0; i < d->nscans; i++) {
            const gi_jpeg_deferred_scan *s = &d->scan[i];
            th_check((s->kind == GI_JPEG_BASELINE) == !deferred.progressive,
                     "%s: scan %d of kind %d in a %s frame", path, i, s->kind,
                     deferred.progressive ? "progressive" : "baseline");
            if (s->kind == GI_JPEG_AC_REFINE) {
                refinements++;
                th_check(s->interval * s->unit_blocks <= GI_JPEG_REFINE_MAX_SEGMENT_BLOCKS,
                         "%s: an AC refinement of %ld blocks a segment deferred", path,
                         s->interval * s->unit_blocks);
                th_check(s->segment_subseqs <= GI_JPEG_REFINE_MAX_SUBSEQS,
                         "%s: an AC refinement of %u subsequences a segment deferred", path,
                         s->segment_subseqs);
            }
        }
        refinements_deferred += refinements;
    } else if (r_def == GI_JPEG_OK) {
        th_check(deferred.storage_bytes == plain.storage_bytes &&
                     memcmp(deferred.storage, plain.storage, plain.storage_bytes) == 0,
                 "%s: read again, other coefficients", path);
    }
    gi__jpeg_coeffs_free(&plain);
    gi__jpeg_coeffs_free(&deferred);
    gi__pixels_free(bytes);
    return refinements;
}

static void check_path(const char *path, void *unused)
{
    (void)unused;
    check_path_refinements(path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_jpeg_deferred DIR\n");
        return 2;
    }
    ti_each_jpeg_alternating(argv[1], check_path, NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/i1-progressive.jpg", argv[1]);
    th_check(check_path_refinements(path) > 0, "%s: its AC refinements not deferred", path);
    snprintf(path, sizeof path, "%s/prog-jpegtran-big.jpg", argv[1]);
    th_check(check_path_refinements(path) == -1, "%s: deferred", path);
    snprintf(path, sizeof path, "%s/prog-smooth-sparse.jpg", argv[1]);
    th_check(check_path_refinements(path) == -1, "%s: deferred", path);
    th_check(files_deferred > 0 && refinements_deferred > 0, "nothing deferred");
    printf("%d files deferred, %d AC refinement scans among their scans\n", files_deferred,
           refinements_deferred);
    return th_finish();
}
