/* Blurs every PNG and JPEG of a folder into another, through libgpuimg's
 * batch engine: usage: folder_blur IN_DIR OUT_DIR */
#include <dirent.h>
#include <gpuimg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_item(void *user, const gi_batch_item *it)
{
    (void)user;
    if (it->status == GI_ITEM_FAILED) fprintf(stderr, "%s\n", it->reason);
    else printf("%s -> %s on %s, %.1f ms\n", it->in, it->out, it->backend, it->ms);
}

static char *joined(const char *dir, const char *name)
{
    char *path = malloc(strlen(dir) + strlen(name) + 2);
    if (path) sprintf(path, "%s/%s", dir, name);
    return path;
}

int main(int argc, char **argv)
{
    if (argc != 3) return fprintf(stderr, "usage: folder_blur IN_DIR OUT_DIR\n"), 2;
    DIR *dir = opendir(argv[1]);
    if (!dir) return perror(argv[1]), 1;
    gi_batch_item items[256];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(dir)) && n < 256;) {
        if (gi_format_from_path(e->d_name) == GI_FORMAT_AUTO) continue; /* not .png/.jpg */
        items[n] = (gi_batch_item){.in = joined(argv[1], e->d_name),
                                   .out = joined(argv[2], e->d_name)};
        n++;
    }
    closedir(dir);

    gi_op blur = {.kind = GI_OP_BLUR};
    gi_blur_params_default(&blur.blur);
    blur.blur.sigma = 2;
    gi_batch_options opts;
    gi_batch_options_default(&opts); /* device AUTO, a worker per core */
    opts.job.steps = &blur;
    opts.job.n_steps = 1;
    opts.on_item = on_item;
    gi_status st = gi_batch_run(&opts, items, n);
    if (st != GI_OK) fprintf(stderr, "folder_blur: %s\n", gi_last_error());

    int failed = st != GI_OK;
    for (size_t i = 0; i < n; i++) {
        failed |= items[i].status != GI_ITEM_OK;
        free(items[i].in);
        free(items[i].out);
        gi_free(items[i].reason);
    }
    return failed;
}
