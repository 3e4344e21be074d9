/* Two items of a batch that would write one output file, through gpuimg.h:
 *   gi_batch_run            refuses the batch (GI_ERR_INVALID_ARGUMENT,
 *                           the later input, the earlier one and the file
 *                           named) before anything runs: no item reported,
 *                           no file in the output folder, not even one
 *                           there before (with skip_existing too); the
 *                           same batch without the clash runs;
 *   gi_batch_check_outputs  one file named two ways (./, //, relative and
 *                           absolute, a symbolic link to the folder, ..
 *                           through a folder that exists and one that does
 *                           not yet) is a clash, named with both names;
 *                           different entries are not (another name, a
 *                           symbolic link at the output, case, "-" and
 *                           ./-, an item with a problem); the first clash
 *                           in list order is named, with how many more;
 *                           items handed over open (gi_item_files) clash
 *                           by their descriptors' directory or file;
 *   shards                  a batch run in parts (positions K mod N), a
 *                           clash between two parts: each part alone is
 *                           clean, the whole list is refused with one
 *                           message in every part, and nothing is written
 *                           by any. */
#include "harness.h"
#include "testimg.h"

#include <dirent.h>
#include <fcntl.h>
#include <gpuimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];
static int reported; /* on_item calls */

static void count_report(void *user, const gi_batch_item *it)
{
    (void)user;
    (void)it;
    reported++;
}

/* tmpdir/name, in one of a ring of buffers (valid for 32 calls). */
static const char *at(const char *name)
{
    static char paths[32][512];
    static int next;
    char *p = paths[next++ % 32];
    snprintf(p, sizeof paths[0], "%s/%s", tmpdir, name);
    return p;
}

/* The names in dir, hidden ones (temporary files) included; -1 when it
 * cannot be read. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* An item of tmpdir/in to tmpdir/out (names in at()'s ring). */
static gi_batch_item item_at(const char *in, const char *out)
{
    return (gi_batch_item){.in = (char *)at(in), .out = (char *)at(out)};
}

static void make_input(const char *name, int width)
{
    gi_image img = ti_random(width, 9, 3);
    gi_save_options o;
    gi_save_options_default(&o);
    if (gi_save_file(&img, at(name), &o) != GI_OK) {
        fprintf(stderr, "cannot write %s: %s\n", at(name), gi_last_error());
        exit(1);
    }
    ti_free(&img);
}

static void empty_out(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir '%s'", at("out"), at("out"));
    if (system(cmd) != 0) exit(1);
}

static gi_batch_options flip_options(gi_op *flip)
{
    *flip = (gi_op){.kind = GI_OP_TRANSFORM, .transform = GI_FLIP_H};
    gi_batch_options o;
    gi_batch_options_default(&o);
    o.job.steps = flip;
    o.job.n_steps = 1;
    o.device = GI_DEVICE_CPU;
    o.codec_workers = 2;
    o.on_item = count_report;
    return o;
}

/* Runs the batch; it must be refused with `want`, report no item, leave
 * every item unstarted and write nothing to out/ (which held `before`
 * names). */
static void expect_refused(const char *what, gi_batch_item *items, size_t n, const char *want,
                           int skip_existing, int before)
{
    gi_op flip;
    gi_batch_options o = flip_options(&flip);
    o.skip_existing = skip_existing;
    reported = 0;
    gi_status st = gi_batch_run(&o, items, n);
    th_check(st == GI_ERR_INVALID_ARGUMENT, "%s: gi_batch_run gave %s, not invalid argument", what,
             gi_strerror(st));
    th_check(strcmp(gi_last_error(), want) == 0, "%s: the message\n    %s\nnot\n    %s", what,
             gi_last_error(), want);
    th_check(reported == 0, "%s: %d items reported", what, reported);
    for (size_t i = 0; i < n; i++) {
        th_check(items[i].status == GI_ITEM_NOT_STARTED && !items[i].reason,
                 "%s: item %zu was started", what, i);
        gi_free(items[i].reason);
    }
    th_check(entries(at("out")) == before, "%s: out/ holds %d names, not %d", what,
             entries(at("out")), before);
}

static void check_run_refused(void)
{
    char want[2048];
    for (int skip = 0; skip <= 1; skip++) {
        for (int before = 0; before <= 1; before++) {
            empty_out();
            if (before) make_input("out/o.png", 5);
            gi_batch_item items[3] = {item_at("in/a.png", "out/o.png"),
                                      item_at("in/c.png", "out/c.png"),
                                      item_at("in/b.png", "out/o.png")};
            snprintf(want, sizeof want, "%s: %s writes the same output file, %s", at("in/b.png"),
                     at("in/a.png"), at("out/o.png"));
            char what[80];
            snprintf(what, sizeof what, "a, c, b to o, c, o (skip_existing %d, o there %d)", skip,
                     before);
            expect_refused(what, items, 3, want, skip, before);
        }
    }
    /* the same batch without the clash runs */
    empty_out();
    gi_op flip;
    gi_batch_options o = flip_options(&flip);
    gi_batch_item items[3] = {item_at("in/a.png", "out/o.png"), item_at("in/c.png", "out/c.png"),
                              item_at("in/b.png", "out/b.png")};
    reported = 0;
    th_check(gi_batch_run(&o, items, 3) == GI_OK && reported == 3, "the batch without a clash: %s",
             gi_last_error());
    for (int i = 0; i < 3; i++) {
        th_check(items[i].status == GI_ITEM_OK, "the batch without a clash: item %d failed: %s", i,
                 items[i].reason ? items[i].reason : "");
        gi_free(items[i].reason);
    }
    const int written = entries(at("out"));
    th_check(written == 3, "the batch without a clash wrote %d files", written);
}

/* out/o.png named as `first` by one item and as `second` by the next. */
static void expect_one_file(const char *first, const char *second)
{
    empty_out();
    if (mkdir(at("out/sub"), 0700) != 0) exit(1);
    gi_batch_item items[2] = {{.in = "a.png", .out = (char *)first},
                              {.in = "b.png", .out = (char *)second}};
    char want[2048], what[1200];
    snprintf(want, sizeof want, "b.png: its output %s is the file a.png writes, %s", second, first);
    snprintf(what, sizeof what, "%s and %s", first, second);
    th_check(gi_batch_check_outputs(items, 2) == GI_ERR_INVALID_ARGUMENT, "%s: not one file", what);
    th_check(strcmp(gi_last_error(), want) == 0, "%s: the message\n    %s\nnot\n    %s", what,
             gi_last_error(), want);
}

static void expect_two_files(const char *first, const char *second, const char *problem)
{
    gi_batch_item items[2] = {{.in = "a.png", .out = (char *)first},
                              {.in = "b.png", .out = (char *)second, .problem = problem}};
    th_check(gi_batch_check_outputs(items, 2) == GI_OK, "%s and %s%s: one file (%s)", first, second,
             problem ? " (with a problem)" : "", gi_last_error());
}

static void check_spellings(void)
{
    char abs_o[600], link_o[600];
    snprintf(abs_o, sizeof abs_o, "%s", at("out/o.png"));
    snprintf(link_o, sizeof link_o, "%s", at("link/o.png"));
    expect_one_file("out/o.png", "out/./o.png");
    expect_one_file("out/o.png", "out//o.png");
    expect_one_file("out/o.png", "./out/o.png");
    expect_one_file("out/o.png", abs_o);
    expect_one_file(abs_o, "link/o.png");
    expect_one_file(link_o, "out/o.png");
    expect_one_file("out/o.png", "out/sub/../o.png");
    expect_one_file("out/o.png", "out/new/../o.png");         /* out/new: not there */
    expect_one_file("out/new/o.png", "out/x/y/../../new/./o.png"); /* nor out/x */
    expect_one_file("in/../out/o.png", "out/o.png");

    empty_out();
    if (symlink("o.png", at("out/lnk.png")) != 0) exit(1);
    expect_two_files("out/a.png", "out/b.png", NULL);
    expect_two_files("out/o.png", "out/new/o.png", NULL);
    expect_two_files("out/o.png", "out/lnk.png", NULL); /* the link is replaced */
    expect_two_files("out/o.png", "out/O.png", NULL);
    expect_two_files("-", "./-", NULL);                 /* standard output, a file "-" */
    expect_two_files("out/o.png", "out/o.png", "unreadable"); /* it writes nothing */

    gi_batch_item out2[2] = {{.in = "a.png", .out = "-"}, {.in = "b.png", .out = "-"}};
    th_check(gi_batch_check_outputs(out2, 2) == GI_ERR_INVALID_ARGUMENT,
             "standard output twice: no clash");
    th_check(gi_batch_check_outputs(NULL, 0) == GI_OK, "an empty batch: %s", gi_last_error());
}

/* The first clash in list order is named, with how many more. */
static void check_more(void)
{
    gi_batch_item items[5] = {{.in = "a", .out = "out/1.png"}, {.in = "b", .out = "out/2.png"},
                              {.in = "c", .out = "out/1.png"}, {.in = "d", .out = "out/2.png"},
                              {.in = "e", .out = "out/1.png"}};
    const char *want = "c: a writes the same output file, out/1.png (and 2 more inputs whose "
                       "output another input writes)";
    th_check(gi_batch_check_outputs(items, 5) == GI_ERR_INVALID_ARGUMENT &&
                 strcmp(gi_last_error(), want) == 0,
             "three clashes: %s", gi_last_error());
    want = "c: a writes the same output file, out/1.png (and 1 more input whose output another "
           "input writes)";
    th_check(gi_batch_check_outputs(items, 4) == GI_ERR_INVALID_ARGUMENT &&
                 strcmp(gi_last_error(), want) == 0,
             "two clashes: %s", gi_last_error());
}

/* Items handed over open (gpuimg serve): the names only name the files;
 * the descriptors say which they are. */
static void check_files(void)
{
    empty_out();
    int dir1 = open(at("out"), O_RDONLY | O_DIRECTORY);
    int dir2 = open(at("link"), O_RDONLY | O_DIRECTORY);
    int file1 = open(at("out/f.png"), O_WRONLY | O_CREAT, 0600);
    int file2 = open(at("out/f.png"), O_WRONLY);
    if (dir1 < 0 || dir2 < 0 || file1 < 0 || file2 < 0) exit(1);
    gi_item_files f[4] = {{.in_fd = -1, .out_dir_fd = dir1, .out_name = "o.png", .out_fd = -1},
                          {.in_fd = -1, .out_dir_fd = dir2, .out_name = "o.png", .out_fd = -1},
                          {.in_fd = -1, .out_dir_fd = -1, .out_fd = file1},
                          {.in_fd = -1, .out_dir_fd = -1, .out_fd = file2}};
    gi_batch_item items[2] = {{.in = "a", .out = "x/o.png", .files = &f[0]},
                              {.in = "b", .out = "y/o.png", .files = &f[1]}};
    const char *want = "b: its output y/o.png is the file a writes, x/o.png";
    th_check(gi_batch_check_outputs(items, 2) == GI_ERR_INVALID_ARGUMENT &&
                 strcmp(gi_last_error(), want) == 0,
             "one folder open twice, one name: %s", gi_last_error());
    f[1].out_name = "p.png";
    items[1].out = "x/o.png";
    th_check(gi_batch_check_outputs(items, 2) == GI_OK, "two names in one folder: one file (%s)",
             gi_last_error());
    items[0].files = &f[2];
    items[1].files = &f[3];
    th_check(gi_batch_check_outputs(items, 2) == GI_ERR_INVALID_ARGUMENT,
             "one file open twice: no clash");
    close(dir1);
    close(dir2);
    close(file1);
    close(file2);
}

/* A batch of 6 run in N parts (positions K mod N), as gpuimg --shard K/N
 * runs it: 0 and 5 write one file, which no part holds both of for N = 2
 * and 3; every part's run checks the whole list first, and refuses. */
static void check_shards(void)
{
    static const char *const ins[6] = {"in/a.png", "in/b.png", "in/c.png",
                                       "in/d.png", "in/e.png", "in/f.png"};
    static const char *const outs[6] = {"out/a.png", "out/b.png", "out/c.png",
                                        "out/d.png", "out/e.png", "out/a.png"};
    char first[2048] = "";
    for (size_t n = 1; n <= 3; n++) {
        for (size_t k = 0; k < n; k++) {
            empty_out();
            gi_batch_item all[6], part[6];
            size_t kept = 0;
            for (size_t i = 0; i < 6; i++) {
                all[i] = item_at(ins[i], outs[i]);
                if (i % n == k) part[kept++] = all[i];
            }
            if (n > 1)
                th_check(gi_batch_check_outputs(part, kept) == GI_OK,
                         "shard %zu/%zu alone: %s", k, n, gi_last_error());
            gi_op flip;
            gi_batch_options o = flip_options(&flip);
            gi_status st = gi_batch_check_outputs(all, 6);
            if (st == GI_OK) st = gi_batch_run(&o, part, kept); /* not reached */
            th_check(st == GI_ERR_INVALID_ARGUMENT, "shard %zu/%zu: not refused", k, n);
            if (!*first) snprintf(first, sizeof first, "%s", gi_last_error());
            th_check(strcmp(gi_last_error(), first) == 0,
                     "shard %zu/%zu: refused with\n    %s\nnot as the others:\n    %s", k, n,
                     gi_last_error(), first);
            th_check(entries(at("out")) == 0, "shard %zu/%zu wrote %d files", k, n,
                     entries(at("out")));
        }
    }
    char want[2048];
    snprintf(want, sizeof want, "%s: %s writes the same output file, %s", at("in/f.png"),
             at("in/a.png"), at("out/a.png"));
    th_check(strcmp(first, want) == 0, "shards: the message\n    %s\nnot\n    %s", first, want);
}

int main(void)
{
    th_seed();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gpuimg-batch-outputs-XXXXXX");
    if (!mkdtemp(tmpdir)) return perror("mkdtemp"), 1;
    if (chdir(tmpdir) != 0 || mkdir("in", 0700) != 0 || mkdir("out", 0700) != 0 ||
        symlink("out", "link") != 0)
        return perror(tmpdir), 1;
    const char *names[6] = {"in/a.png", "in/b.png", "in/c.png", "in/d.png", "in/e.png", "in/f.png"};
    for (int i = 0; i < 6; i++) make_input(names[i], 7 + i);
    check_run_refused();
    check_spellings();
    check_more();
    check_files();
    check_shards();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (chdir("/") != 0 || system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return th_finish();
}
