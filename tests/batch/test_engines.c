/* The library's engines that the CLI used to run itself, through gpuimg.h
 * alone, against references written here:
 *   gi_compare_files  each pair's status against a count of differing
 *                     pixels made by hand, the limits at their boundaries,
 *                     missing sides, shapes, an unreadable file, the diff
 *                     picture's pixels, and 1 worker equal to 3;
 *   gi_stream_run     a stream of PAM frames against each frame blurred
 *                     alone with gi_blur and encoded with gi_encode, the
 *                     callback's numbering, a stream cut in frame 3, an
 *                     empty stream;
 *   gi_orient_image   the 8 orientations against the TIFF definition;
 *   gi_batch_run      `cores` sizes the batch's threads (one codec worker
 *                     a core; what gpuimg serve gives each of several
 *                     batches at once), the bytes the same whatever it is,
 *                     a negative count refused, a run from a thread with
 *                     a 64 KB stack; a JPEG that the CPU lane
 *                     encodes (a blur coded as it goes, a sobel run then
 *                     encoded) reports its coding as the encode stage,
 *                     not inside the kernel's. */
#include "harness.h"
#include "testimg.h"

#include <gpuimg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

/* The path of `name` in the test's folder, kept for the run (a few names). */
static const char *in_tmp(const char *name)
{
    static char names[16][64], paths[16][400];
    int i = 0;
    while (i < 16 && names[i][0] && strcmp(names[i], name) != 0) i++;
    if (i == 16) abort();
    snprintf(names[i], sizeof names[i], "%s", name);
    snprintf(paths[i], sizeof paths[i], "%s/%s", tmpdir, name);
    return paths[i];
}

static void save_png(const gi_image *img, const char *path)
{
    gi_save_options o;
    gi_save_options_default(&o);
    o.format = GI_FORMAT_PNG;
    if (gi_save_file(img, path, &o) != GI_OK) {
        fprintf(stderr, "cannot write %s: %s\n", path, gi_last_error());
        exit(1);
    }
}

/* ---------------------------------------------------------------- compare */

/* Pixels where some channel differs by more than tol, by hand. */
static unsigned long long differing(const gi_image *a, const gi_image *b, int tol)
{
    unsigned long long n = 0;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++) {
            int d = 0;
            for (int c = 0; c < a->channels; c++)
                d |= abs(ti_px(a, x, y)[c] - ti_px(b, x, y)[c]) > tol;
            n += d;
        }
    return n;
}

static gi_file_pair pair_of(const char *e, const char *a)
{
    gi_file_pair p = {.expected = e ? in_tmp(e) : NULL, .actual = a ? in_tmp(a) : NULL};
    return p;
}

static void check_compare_files(void)
{
    gi_image a = ti_random(37, 23, 3), b = ti_copy(&a), small = ti_random(5, 5, 3);
    for (int i = 0; i < 6; i++) { /* six pixels off by 1..6 */
        uint8_t *px = ti_px(&b, 3 * i + 1, 2 * i + 1);
        px[i % 3] = (uint8_t)(px[i % 3] >= 128 ? px[i % 3] - (i + 1) : px[i % 3] + (i + 1));
    }
    save_png(&a, in_tmp("a.png"));
    save_png(&b, in_tmp("b.png"));
    save_png(&small, in_tmp("small.png"));
    FILE *junk = fopen(in_tmp("junk.png"), "wb");
    fputs("not a png", junk);
    fclose(junk);

    gi_file_pair pairs[7] = {pair_of("a.png", "a.png"), pair_of("a.png", "b.png"),
                             pair_of("a.png", "small.png"), pair_of("a.png", NULL),
                             pair_of(NULL, "a.png"), pair_of("junk.png", "a.png"),
                             pair_of("a.png", "b.png")};
    pairs[6].diff_out = in_tmp("d/e/diff.png");
    gi_compare_files_options o;
    gi_compare_files_options_default(&o);
    o.device = GI_DEVICE_CPU;
    o.workers = 3;
    th_check(gi_compare_files(&o, pairs, 7) == GI_OK, "compare_files: %s", gi_last_error());
    static const gi_pair_status want[7] = {GI_PAIR_EQUAL, GI_PAIR_DIFFERENT, GI_PAIR_SHAPE,
                                           GI_PAIR_ONLY_EXPECTED, GI_PAIR_ONLY_ACTUAL,
                                           GI_PAIR_ERROR, GI_PAIR_DIFFERENT};
    for (int i = 0; i < 7; i++)
        th_check(pairs[i].status == want[i], "pair %d: status %d, want %d (%s)", i,
                 pairs[i].status, want[i], pairs[i].detail);
    th_check(pairs[1].result.different_pixels == differing(&a, &b, 0),
             "different pixels %llu, by hand %llu",
             (unsigned long long)pairs[1].result.different_pixels, differing(&a, &b, 0));
    th_check(strstr(pairs[5].detail, "junk.png") != NULL, "the error does not name the file: %s",
             pairs[5].detail);
    th_check(strstr(pairs[2].detail, "37x23") && strstr(pairs[2].detail, "5x5"),
             "shape detail: %s", pairs[2].detail);

    /* The diff picture: red where a channel differs, gray elsewhere. */
    gi_image diff = {0};
    int diff_ok = gi_load_file(&diff, in_tmp("d/e/diff.png"), NULL) == GI_OK;
    th_check(diff_ok, "no diff picture: %s", gi_last_error());
    for (int y = 0; diff_ok && y < a.height; y++)
        for (int x = 0; x < a.width; x++) {
            const uint8_t *p = ti_px(&diff, x, y);
            int red = p[1] == 0 && p[2] == 0 && p[0] >= 128;
            int differs = memcmp(ti_px(&a, x, y), ti_px(&b, x, y), 3) != 0;
            if (!th_check(red == differs, "diff picture at %d,%d: red %d, differs %d", x, y, red,
                          differs))
                y = a.height, x = a.width;
        }
    gi_image_free(&diff);

    /* The limits at their boundaries, on one worker. */
    o.workers = 1;
    for (int tol = 0; tol <= 6; tol++) {
        gi_file_pair p = pair_of("a.png", "b.png");
        o.compare.tolerance = tol;
        gi_compare_files(&o, &p, 1);
        unsigned long long n = differing(&a, &b, tol);
        th_check((p.status == GI_PAIR_EQUAL) == (n == 0) && p.result.different_pixels == n,
                 "tolerance %d: status %d, %llu pixels, by hand %llu", tol, p.status,
                 (unsigned long long)p.result.different_pixels, n);
    }
    o.compare.tolerance = 0;
    for (int k = 5; k <= 6; k++) {
        gi_file_pair p = pair_of("a.png", "b.png");
        o.max_different = k;
        gi_compare_files(&o, &p, 1);
        th_check((p.status == GI_PAIR_EQUAL) == (k >= 6), "--max-different %d: status %d", k,
                 p.status);
    }
    double percent = 100.0 * 6 / (37 * 23);
    for (int above = 0; above <= 1; above++) {
        gi_file_pair p = pair_of("a.png", "b.png");
        o.max_is_percent = 1;
        o.max_different = above ? percent * 1.001 : percent * 0.999;
        gi_compare_files(&o, &p, 1);
        th_check((p.status == GI_PAIR_EQUAL) == above, "max %.4f%%: status %d", o.max_different,
                 p.status);
    }
    /* past 16 bits the call fails; past 8 bits, an 8-bit pair does */
    o.compare.tolerance = 65536;
    th_check(gi_compare_files(&o, pairs, 1) == GI_ERR_INVALID_ARGUMENT, "tolerance 65536 taken");
    o.compare.tolerance = 256;
    gi_file_pair p = pair_of("a.png", "b.png");
    th_check(gi_compare_files(&o, &p, 1) == GI_OK && p.status == GI_PAIR_ERROR &&
                 strstr(p.detail, "0..255 for 8-bit images") != NULL,
             "tolerance 256 on 8-bit images: status %d, %s", p.status, p.detail);
    ti_free(&a);
    ti_free(&b);
    ti_free(&small);
}

/* ---------------------------------------------------------------- streams */

typedef struct {
    size_t calls, last_number;
    int in_order;
} frame_log;

static void on_frame(void *user, const gi_stream_frame *f)
{
    frame_log *log = user;
    log->in_order &= f->number == log->last_number + 1 && strcmp(f->backend, "cpu") == 0;
    log->last_number = f->number;
    log->calls++;
}

/* Appends img as PAM to f, and its blur, encoded alone, to want. */
static void add_frame(FILE *f, FILE *want, const gi_image *img, gi_context *ctx,
                      const gi_blur_params *p)
{
    gi_save_options o;
    gi_save_options_default(&o);
    o.format = GI_FORMAT_PAM;
    uint8_t *bytes;
    size_t size;
    gi_image blurred = ti_blank(img->width, img->height, img->channels);
    if (gi_encode(img, &o, &bytes, &size) == GI_OK) fwrite(bytes, 1, size, f);
    gi_free(bytes);
    if (gi_blur(ctx, img, &blurred, p) == GI_OK && gi_encode(&blurred, &o, &bytes, &size) == GI_OK)
        fwrite(bytes, 1, size, want);
    gi_free(bytes);
    ti_free(&blurred);
}

static int same_file(const char *x, const char *y)
{
    FILE *a = fopen(x, "rb"), *b = fopen(y, "rb");
    int same = a && b, ca, cb;
    while (same && (ca = getc(a)) == (cb = getc(b)) && ca != EOF) continue;
    same = same && ca == cb;
    if (a) fclose(a);
    if (b) fclose(b);
    return same;
}

static void check_stream(void)
{
    gi_context *ctx = ti_cpu_context(2);
    gi_op blur = {.kind = GI_OP_BLUR};
    gi_blur_params_default(&blur.blur);
    blur.blur.sigma = 1.5;
    FILE *in = fopen(in_tmp("frames.pam"), "wb"), *want = fopen(in_tmp("want.pam"), "wb");
    for (int i = 0; i < 4; i++) {
        gi_image img = ti_random(th_rand_int(1, 40), th_rand_int(1, 40), 1 + i % 4);
        add_frame(in, want, &img, ctx, &blur.blur);
        ti_free(&img);
    }
    long whole = ftell(in);
    fclose(in);
    fclose(want);

    gi_stream_options o;
    gi_stream_options_default(&o);
    o.job.steps = &blur;
    o.job.n_steps = 1;
    o.device = GI_DEVICE_CPU;
    frame_log log = {0, 0, 1};
    o.on_frame = on_frame;
    o.user = &log;
    size_t written = 0;
    gi_status st = gi_stream_run(in_tmp("frames.pam"), in_tmp("out.pam"), &o, &written);
    th_check(st == GI_OK && written == 4, "stream: status %d, %zu written: %s", st, written,
             gi_last_error());
    th_check(same_file(in_tmp("out.pam"), in_tmp("want.pam")),
             "stream: not the frames blurred one by one");
    th_check(log.calls == 4 && log.in_order, "on_frame: %zu calls, in order %d", log.calls,
             log.in_order);

    /* Cut inside the last frame: the first three written, the error names frame 4. */
    if (truncate(in_tmp("frames.pam"), whole - 3) != 0) th_check(0, "truncate");
    o.on_frame = NULL;
    st = gi_stream_run(in_tmp("frames.pam"), in_tmp("cut.pam"), &o, &written);
    th_check(st != GI_OK && written == 3 && strstr(gi_last_error(), "image 4"),
             "cut stream: status %d, %zu written, '%s'", st, written, gi_last_error());

    /* Empty: an error, and no output. */
    fclose(fopen(in_tmp("empty.pam"), "wb"));
    st = gi_stream_run(in_tmp("empty.pam"), in_tmp("none.pam"), &o, &written);
    th_check(st != GI_OK && written == 0 && access(in_tmp("none.pam"), F_OK) != 0,
             "empty stream: status %d, %zu written", st, written);
    gi_context_destroy(ctx);
}

/* ---------------------------------------------------------------- orientation */

/* Where stored pixel (x, y) of a w x h image lands for a viewer (TIFF 6.0:
 * 1 top-left, 2 top-right, 3 bottom-right, 4 bottom-left, 5 left-top,
 * 6 right-top, 7 right-bottom, 8 left-bottom). */
static void shown_at(int o, int x, int y, int w, int h, int *sx, int *sy)
{
    switch (o) {
    case 2: *sx = w - 1 - x, *sy = y; return;
    case 3: *sx = w - 1 - x, *sy = h - 1 - y; return;
    case 4: *sx = x, *sy = h - 1 - y; return;
    case 5: *sx = y, *sy = x; return;
    case 6: *sx = h - 1 - y, *sy = x; return;
    case 7: *sx = h - 1 - y, *sy = w - 1 - x; return;
    case 8: *sx = y, *sy = w - 1 - x; return;
    default: *sx = x, *sy = y; return;
    }
}

static void check_orient(void)
{
    gi_context *ctx = ti_cpu_context(1);
    for (int o = 0; o <= 9; o++) {
        gi_image src = ti_random(7, 4, 2), img;
        gi_status st = gi_image_alloc(&img, 7, 4, 2);
        for (int y = 0; st == GI_OK && y < 4; y++)
            memcpy(img.data + (size_t)y * img.stride, ti_px(&src, 0, y), 7 * 2);
        if (st == GI_OK) st = gi_orient_image(ctx, &img, o);
        int turned = o >= 5 && o <= 8;
        int ok = st == GI_OK && img.width == (turned ? 4 : 7) && img.height == (turned ? 7 : 4);
        for (int y = 0; ok && y < src.height; y++)
            for (int x = 0; ok && x < src.width; x++) {
                int sx, sy;
                shown_at(o, x, y, src.width, src.height, &sx, &sy);
                ok = memcmp(ti_px(&src, x, y), ti_px(&img, sx, sy), 2) == 0;
            }
        th_check(ok, "orientation %d: not the TIFF definition", o);
        gi_image_free(&img);
        ti_free(&src);
    }
    gi_context_destroy(ctx);
}

/* cores/NAME in the test's folder. */
static void cores_path(char *path, size_t size, const char *name)
{
    snprintf(path, size, "%s/cores/%s", tmpdir, name);
}

/* A batch of the one step `op` on the CPU, without a bridge lane. */
static void one_step_on_cpu(const gi_op *op, gi_batch_options *o)
{
    gi_batch_options_default(o);
    o->job.steps = op;
    o->job.n_steps = 1;
    o->device = GI_DEVICE_CPU;
    o->no_bridge = 1;
}

/* Blurs in-0..2.png on the CPU with one lane on `cores` cores into
 * out-CORES-N.png; the threads that ran, or -1 when the batch failed. */
static int batch_on_cores(int cores)
{
    gi_op blur = {.kind = GI_OP_BLUR};
    gi_blur_params_default(&blur.blur);
    gi_batch_options o;
    one_step_on_cpu(&blur, &o);
    o.lanes = 1;
    o.cores = cores;
    gi_batch_waits waits = {0, 0};
    o.waits = &waits;
    char ins[3][400], outs[3][400], name[32];
    gi_batch_item items[3];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "in-%d.png", i);
        cores_path(ins[i], sizeof ins[i], name);
        snprintf(name, sizeof name, "out-%d-%d.png", cores, i);
        cores_path(outs[i], sizeof outs[i], name);
        items[i] = (gi_batch_item){.in = ins[i], .out = outs[i]};
    }
    int ok = gi_batch_run(&o, items, 3) == GI_OK;
    for (int i = 0; i < 3; i++) {
        ok &= items[i].status == GI_ITEM_OK;
        gi_free(items[i].reason);
    }
    return ok ? waits.threads : -1;
}

static void check_batch_cores(void)
{
    char path[400], other[400], name[32];
    cores_path(path, sizeof path, "");
    if (mkdir(path, 0700) != 0) th_check(0, "cannot make %s", path);
    for (int i = 0; i < 3; i++) {
        gi_image img = ti_random(40 + 7 * i, 30, 3);
        snprintf(name, sizeof name, "in-%d.png", i);
        cores_path(path, sizeof path, name);
        save_png(&img, path);
        ti_free(&img);
    }
    int one = batch_on_cores(1), two = batch_on_cores(2);
    th_check(one == 2, "cores 1: %d threads ran, not 1 codec worker and 1 lane", one);
    th_check(two == 3, "cores 2: %d threads ran, not 2 codec workers and 1 lane", two);
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "out-1-%d.png", i);
        cores_path(path, sizeof path, name);
        snprintf(name, sizeof name, "out-2-%d.png", i);
        cores_path(other, sizeof other, name);
        th_check(same_file(path, other), "image %d: other bytes on 1 core than on 2", i);
    }
    gi_batch_options o;
    gi_batch_options_default(&o);
    o.cores = -1;
    gi_batch_item item = {.in = path, .out = other};
    th_check(gi_batch_run(&o, &item, 1) == GI_ERR_INVALID_ARGUMENT, "cores -1 accepted");
}

/* A batch run from a thread with a small stack (64 KB, as a caller's
 * thread pool may give): its lanes are on the heap, not 160 KB of this
 * stack. The calling thread only starts and joins the others here. */
typedef struct {
    int items; /* 0 or 3 */
    int ok;
} small_stack_run;

static void *run_on_small_stack(void *arg)
{
    small_stack_run *r = arg;
    gi_op blur = {.kind = GI_OP_BLUR};
    gi_blur_params_default(&blur.blur);
    gi_batch_options o;
    one_step_on_cpu(&blur, &o);
    o.lanes = 256;
    o.cores = 2;
    char ins[3][400], outs[3][400], name[32];
    gi_batch_item items[3];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "in-%d.png", i);
        cores_path(ins[i], sizeof ins[i], name);
        snprintf(name, sizeof name, "small-stack-%d.png", i);
        cores_path(outs[i], sizeof outs[i], name);
        items[i] = (gi_batch_item){.in = ins[i], .out = outs[i]};
    }
    r->ok = gi_batch_run(&o, items, (size_t)r->items) == GI_OK;
    for (int i = 0; i < r->items; i++) {
        r->ok &= items[i].status == GI_ITEM_OK;
        gi_free(items[i].reason);
    }
    return NULL;
}

static void check_batch_small_stack(void)
{
    for (int items = 0; items <= 3; items += 3) {
        small_stack_run r = {items, 0};
        pthread_attr_t attr;
        pthread_t id;
        int started = pthread_attr_init(&attr) == 0 &&
                      pthread_attr_setstacksize(&attr, 64 << 10) == 0 &&
                      pthread_create(&id, &attr, run_on_small_stack, &r) == 0;
        if (th_check(started, "cannot start a thread with a 64 KB stack"))
            pthread_join(id, NULL);
        pthread_attr_destroy(&attr);
        th_check(r.ok, "a batch of %d items on a 64 KB stack failed", items);
    }
}

/* Noise, whose JPEG takes long to code: the encode stage of a JPEG made
 * by the compute must hold that time. Without the split, all of it was
 * counted as kernel time and encode held only the file's write-up (under
 * 1% of it here). */
static void check_encode_stage(void)
{
    char in[400], out[400];
    cores_path(in, sizeof in, "noise.png");
    gi_image img = ti_random(1536, 1024, 3);
    save_png(&img, in);
    ti_free(&img);
    const gi_op_kind kinds[2] = {GI_OP_BLUR, GI_OP_SOBEL};
    for (int k = 0; k < 2; k++) {
        gi_op op = {.kind = kinds[k]};
        if (kinds[k] == GI_OP_BLUR) gi_blur_params_default(&op.blur);
        else gi_sobel_params_default(&op.sobel);
        gi_batch_options o;
        one_step_on_cpu(&op, &o);
        snprintf(out, sizeof out, "%s/cores/noise-%d.jpg", tmpdir, k);
        gi_batch_item item = {.in = in, .out = out};
        th_check(gi_batch_run(&o, &item, 1) == GI_OK && item.status == GI_ITEM_OK,
                 "%s to JPEG failed", k ? "sobel" : "blur");
        const double enc = item.stage_ms[GI_STAGE_ENCODE], kern = item.stage_ms[GI_STAGE_KERNEL];
        th_check(enc > 0.05 * (enc + kern) && enc <= item.ms,
                 "%s to JPEG: encode %.2f ms, kernel %.2f ms: the coding is not the encode stage",
                 k ? "sobel" : "blur", enc, kern);
        gi_free(item.reason);
    }
}

int main(void)
{
    th_seed();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gpuimg-engines-XXXXXX");
    if (!mkdtemp(tmpdir)) return perror("mkdtemp"), 1;
    check_compare_files();
    check_stream();
    check_orient();
    check_batch_cores();
    check_batch_small_stack();
    check_encode_stage();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return th_finish();
}
