/* nvjpeg_vs_stb DIR...: GI_JPEG_DECODER_NVJPEG against stb on every JPEG
 * (*.jpg, *.jpeg) in the DIRs; a DIR that does not exist is skipped.
 *
 * For each file nvJPEG must give stb's width, height and channel count;
 * samples within MAX_DIFF of stb's for gray, 4:4:4 and 4:2:0 files, and
 * for other chroma subsampling (4:2:2, ...) a mean difference within
 * MAX_MEAN_OTHER (the largest and mean differences are printed per file,
 * the largest of each kind at the end); the same bytes on a second decode and
 * from THREADS threads decoding at once (each thread has its own nvJPEG
 * state); and GI_ERR_TOO_LARGE, before decoding, with max_pixels one below
 * the image's. Files named fail-* hold what nvJPEG does not decode (CMYK,
 * arithmetic coding) and must be refused with a reason naming the file,
 * and naming nvJPEG when stb decodes the file; GI_JPEG_DECODER_FAST gives
 * them to stb, whose outcome (pixels or refusal) it must give, and every
 * other file to nvJPEG (gi_last_codec says which took it).
 * Exits 77 (skip) when this build has no nvJPEG or there is no GPU. */
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "testimg.h"

/* Measured on an H200 with nvJPEG 13.0 over these files and the photos:
 * gray, 4:4:4 and 4:2:0 differ by at most 3, from IDCT and colour
 * conversion rounding (the two decoders round differently) and, for 4:2:0,
 * the chroma interpolation that nvJPEG is asked for; the bound leaves one
 * level for other pictures. nvJPEG's 4:2:2 upsampling is not stb's: next to
 * a hard colour edge a sample differs by up to 92, elsewhere hardly at all
 * (mean 0.35), so there only the mean is bounded. */
#define MAX_DIFF 4
#define MAX_MEAN_OTHER 1.0
#define THREADS 4
#define MAX_FILES 256

typedef struct {
    char path[PATH_MAX];
    gi_image want; /* nvJPEG's first decode, which every later one must equal */
} jpeg_file;

static jpeg_file files[MAX_FILES];
static int n_files;

typedef enum { SAMPLING_FULL, SAMPLING_420, SAMPLING_OTHER } sampling;
static const char *const sampling_names[] = {"gray or 4:4:4", "4:2:0", "other subsampling"};
static int worst[3];

static gi_load_limits with_decoder(gi_jpeg_decoder d)
{
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    limits.jpeg_decoder = d;
    return limits;
}

static int has_jpeg_suffix(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (strcmp(dot, ".jpg") == 0 || strcmp(dot, ".jpeg") == 0);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const jpeg_file *)a)->path, ((const jpeg_file *)b)->path);
}

static void list_jpegs(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("(no directory %s)\n", dir);
        return;
    }
    for (struct dirent *e; (e = readdir(d)) && n_files < MAX_FILES;)
        if (has_jpeg_suffix(e->d_name))
            snprintf(files[n_files++].path, PATH_MAX, "%s/%s", dir, e->d_name);
    closedir(d);
}

/* The chroma sampling of the file's frame, from the first SOF marker:
 * each component's horizontal and vertical factors. */
static sampling frame_sampling(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t b[65536];
    size_t size = f ? fread(b, 1, sizeof b, f) : 0;
    if (f) fclose(f);
    for (size_t at = 2; at + 10 <= size;) {
        if (b[at] != 0xFF || b[at + 1] == 0xFF) {
            at++;
            continue;
        }
        uint8_t m = b[at + 1];
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            int n = b[at + 9], same = 1, chroma_1x1 = 1;
            for (int c = 1; c < n && at + 11 + 3 * c < size; c++) {
                same &= b[at + 11 + 3 * c] == b[at + 11];
                chroma_1x1 &= b[at + 11 + 3 * c] == 0x11;
            }
            if (same) return SAMPLING_FULL;
            return b[at + 11] == 0x22 && chroma_1x1 ? SAMPLING_420 : SAMPLING_OTHER;
        }
        at += 2 + ((size_t)b[at + 2] << 8 | b[at + 3]);
    }
    return SAMPLING_FULL;
}

static int max_difference(const gi_image *a, const gi_image *b, double *mean)
{
    int worst = 0;
    double sum = 0;
    for (int y = 0; y < a->height; y++)
        for (size_t i = 0; i < (size_t)a->width * a->channels; i++) {
            int d = abs(ti_px(a, 0, y)[i] - ti_px(b, 0, y)[i]);
            sum += d;
            if (d > worst) worst = d;
        }
    *mean = sum / ((double)a->width * a->height * a->channels);
    return worst;
}

static void check_refused(const char *path)
{
    gi_image got, stb;
    gi_load_limits nv = with_decoder(GI_JPEG_DECODER_NVJPEG);
    gi_status st = gi_load_file(&got, path, &nv);
    if (!th_check(st != GI_OK, "%s: nvJPEG decoded a file it should refuse", path)) {
        gi_image_free(&got);
        return;
    }
    char reason[1024];
    snprintf(reason, sizeof reason, "%s", gi_last_error());
    printf("%s: refused: %s\n", path, reason);
    th_check(strstr(reason, path) != NULL, "%s: the reason does not name the file", path);
    gi_load_limits fast = with_decoder(GI_JPEG_DECODER_FAST);
    gi_status fast_st = gi_load_file(&got, path, &fast);
    /* the exact decoders: ours, and stb for what ours leaves to it */
    th_check(strcmp(gi_last_codec(), "stb") == 0 || strcmp(gi_last_codec(), "gpuimg-jpeg") == 0,
             "%s: FAST: %s took it, not an exact decoder", path,
             gi_last_codec());
    gi_status stb_st = gi_load_file(&stb, path, NULL);
    th_check(fast_st == stb_st, "%s: FAST gives status %d, stb %d", path, (int)fast_st,
             (int)stb_st);
    if (stb_st == GI_OK) {
        th_check(strstr(reason, "nvJPEG") != NULL, "%s: stb decodes it, and the reason does not "
                 "name nvJPEG", path);
        char why[160];
        if (fast_st == GI_OK)
            th_check(ti_same(&got, &stb, why, sizeof why), "%s: FAST is not stb's: %s", path, why);
        gi_image_free(&stb);
    }
    if (fast_st == GI_OK) gi_image_free(&got);
    printf("%s: FAST: stb took it, %s\n", path, fast_st == GI_OK ? "decoded" : "refused");
}

/* nvJPEG refuses an image over max_pixels before decoding it. */
static void check_limit(const char *path, const gi_image *img)
{
    gi_load_limits nv = with_decoder(GI_JPEG_DECODER_NVJPEG);
    nv.max_pixels = (uint64_t)img->width * img->height - 1;
    gi_image got;
    if (nv.max_pixels == 0) return; /* a 1x1 image: 0 is no limit one can set */
    gi_status st = gi_load_file(&got, path, &nv);
    th_check(st == GI_ERR_TOO_LARGE && strstr(gi_last_error(), "pixel limit"),
             "%s: max_pixels %llu: status %d (%s), want GI_ERR_TOO_LARGE", path,
             (unsigned long long)nv.max_pixels, (int)st, gi_last_error());
    if (st == GI_OK) gi_image_free(&got);
}

static void check_file(jpeg_file *f)
{
    const char *path = f->path;
    gi_load_limits nv = with_decoder(GI_JPEG_DECODER_NVJPEG);
    gi_image stb, again;
    if (!th_check(gi_load_file(&stb, path, NULL) == GI_OK, "%s: stb: %s", path, gi_last_error()))
        return;
    if (!th_check(gi_load_file(&f->want, path, &nv) == GI_OK, "%s: nvJPEG: %s", path,
                  gi_last_error())) {
        gi_image_free(&stb);
        return;
    }
    const gi_image *got = &f->want;
    if (th_check(got->width == stb.width && got->height == stb.height &&
                     got->channels == stb.channels,
                 "%s: nvJPEG gives %dx%dx%d, stb %dx%dx%d", path, got->width, got->height,
                 got->channels, stb.width, stb.height, stb.channels)) {
        double mean;
        int largest = max_difference(got, &stb, &mean);
        sampling kind = frame_sampling(path);
        if (largest > worst[kind]) worst[kind] = largest;
        printf("%s: %dx%d, %d channel%s, %s: max |nvjpeg - stb| %d, mean %.3f\n", path,
               got->width, got->height, got->channels, got->channels == 1 ? "" : "s",
               sampling_names[kind], largest, mean);
        if (kind == SAMPLING_OTHER)
            th_check(mean <= MAX_MEAN_OTHER, "%s: nvJPEG differs from stb by %.3f on average, "
                     "over %.1f", path, mean, MAX_MEAN_OTHER);
        else
            th_check(largest <= MAX_DIFF, "%s: nvJPEG differs from stb by %d, over %d", path,
                     largest, MAX_DIFF);
    }
    char why[160];
    if (th_check(gi_load_file(&again, path, &nv) == GI_OK, "%s: second nvJPEG decode: %s", path,
                 gi_last_error())) {
        th_check(ti_same(got, &again, why, sizeof why), "%s: two nvJPEG decodes differ: %s", path,
                 why);
        gi_image_free(&again);
    }
    gi_load_limits fast = with_decoder(GI_JPEG_DECODER_FAST);
    if (th_check(gi_load_file(&again, path, &fast) == GI_OK, "%s: FAST: %s", path,
                 gi_last_error())) {
        th_check(strncmp(gi_last_codec(), "nvjpeg-", 7) == 0, "%s: FAST: %s took it, not nvJPEG",
                 path, gi_last_codec());
        printf("%s: FAST: %s took it\n", path, gi_last_codec());
        th_check(ti_same(got, &again, why, sizeof why), "%s: FAST differs from NVJPEG: %s", path,
                 why);
        gi_image_free(&again);
    }
    check_limit(path, got);
    gi_image_free(&stb);
}

/* Each thread decodes every file twice; all must equal the first decode. */
static void *decode_all(void *arg)
{
    long *mismatches = arg;
    gi_load_limits nv = with_decoder(GI_JPEG_DECODER_NVJPEG);
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < n_files; i++) {
            gi_image got;
            char why[160];
            if (!files[i].want.data) continue;
            if (gi_load_file(&got, files[i].path, &nv) != GI_OK) {
                (*mismatches)++;
                continue;
            }
            if (!ti_same(&files[i].want, &got, why, sizeof why)) (*mismatches)++;
            gi_image_free(&got);
        }
    return NULL;
}

static void check_threads(void)
{
    pthread_t threads[THREADS];
    long mismatches[THREADS] = {0};
    int started = 0;
    for (; started < THREADS; started++)
        if (pthread_create(&threads[started], NULL, decode_all, &mismatches[started]) != 0) break;
    th_check(started == THREADS, "started %d of %d threads", started, THREADS);
    long total = 0;
    for (int t = 0; t < started; t++) {
        pthread_join(threads[t], NULL);
        total += mismatches[t];
    }
    th_check(total == 0, "%ld decodes on %d threads failed or differ from the first", total,
             started);
    printf("%d threads decoded the %d files twice each: %s\n", started, n_files,
           total ? "DIFFERENT" : "same bytes");
}

int main(int argc, char **argv)
{
    const char *why;
    if (!gi_jpeg_decoder_compiled(GI_JPEG_DECODER_NVJPEG)) {
        printf("skip: this build has no nvJPEG\n");
        return 77;
    }
    if (gi_cuda_device_count(&why) == 0) {
        printf("skip: %s\n", why);
        return 77;
    }
    for (int i = 1; i < argc; i++) list_jpegs(argv[i]);
    qsort(files, n_files, sizeof *files, by_name);
    th_check(n_files > 0, "no JPEG files in the directories given");
    for (int i = 0; i < n_files; i++) {
        const char *base = strrchr(files[i].path, '/');
        if (strncmp(base ? base + 1 : files[i].path, "fail-", 5) == 0) check_refused(files[i].path);
        else check_file(&files[i]);
    }
    check_threads();
    printf("largest difference: %d on gray or 4:4:4, %d on 4:2:0 (bound %d); %d on other "
           "subsampling (mean bounded by %.1f)\n", worst[SAMPLING_FULL], worst[SAMPLING_420],
           MAX_DIFF, worst[SAMPLING_OTHER], MAX_MEAN_OTHER);
    for (int i = 0; i < n_files; i++) gi_image_free(&files[i].want);
    return th_finish();
}
