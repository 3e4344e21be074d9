/* Expanding batch inputs: files, directories (-r), --files-from. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch_inputs.h"

/* The file name extension of each output format (gi_format's order). */
static const char *const format_extension[] = {"", "png", "jpg", "pnm", "pam"};

/* How many bytes of out_rel to keep, and the extension to put after them:
 * with --format, an output whose name says another format gets the
 * format's own extension (photo.png -> photo.jpg for --format jpeg), so
 * that a batch's names tell what the files hold. */
static size_t output_stem(const cli_common *c, const char *out_rel, const char **extension)
{
    size_t n = strlen(out_rel);
    *extension = "";
    if (c->format == GI_FORMAT_AUTO || gi_format_from_path(out_rel) == c->format) return n;
    const char *dot = strrchr(out_rel, '.'), *slash = strrchr(out_rel, '/');
    *extension = format_extension[c->format];
    return dot && (!slash || dot > slash) ? (size_t)(dot - out_rel) : n;
}

static int add_item(batch_list *list, const char *in, const char *out_rel, const cli_common *c)
{
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 64;
        gi_batch_item *bigger = realloc(list->items, cap * sizeof *bigger);
        if (!bigger) return -1;
        list->items = bigger;
        list->cap = cap;
    }
    const char *extension;
    const size_t stem = output_stem(c, out_rel, &extension);
    size_t len = strlen(c->output_dir) + stem + strlen(extension) + 3;
    gi_batch_item *it = &list->items[list->count];
    memset(it, 0, sizeof *it); /* not started, no problem, no times yet */
    it->in = strdup(in);
    it->out = malloc(len);
    if (!it->in || !it->out) {
        free(it->in);
        free(it->out);
        return -1;
    }
    snprintf(it->out, len, "%s/%.*s%s%s", c->output_dir, (int)stem, out_rel, *extension ? "." : "",
             extension);
    list->count++;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The path with leading '/', '.' and '..' components dropped. */
static void contained_path(const char *path, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = path; *p;) {
        while (*p == '/') p++;
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int dots = (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.');
        if (len && !dots && n + len + 2 < size) {
            if (n) out[n++] = '/';
            memcpy(out + n, p, len);
            n += len;
            out[n] = '\0';
        }
        p += len;
    }
}

static int is_image_name(const char *name)
{
    return gi_format_from_path(name) != GI_FORMAT_AUTO;
}

/* Is the entry at path a directory to descend into? Symbolic links to
 * directories are not followed (as find does by default), which rules out
 * loops, and the output directory is not an input. */
static int descend_into(const char *path, const struct stat *out_dir)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
    return !(out_dir && st.st_dev == out_dir->st_dev && st.st_ino == out_dir->st_ino);
}

/* Adds every image file (PNG, JPEG, PNM, PAM) under dir; `rel` is its path below the top. */
static int walk(const cli_common *c, const char *dir, const char *rel, batch_list *list)
{
    struct stat out_dir;
    int have_out = stat(c->output_dir, &out_dir) == 0;
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "gpuimg %s: %s: %s\n", c->command, dir, strerror(errno));
        return EXIT_FAIL;
    }
    int rc = EXIT_OK;
    for (struct dirent *e; rc == EXIT_OK && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue; /* ., .., hidden files and our temporaries */
        size_t plen = strlen(dir) + strlen(e->d_name) + 2, rlen = strlen(rel) + strlen(e->d_name) + 2;
        char *path = malloc(plen), *sub = malloc(rlen);
        if (!path || !sub) rc = EXIT_FAIL;
        if (rc == EXIT_OK) {
            snprintf(path, plen, "%s/%s", dir, e->d_name);
            snprintf(sub, rlen, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
            struct stat st;
            if (descend_into(path, have_out ? &out_dir : NULL)) rc = walk(c, path, sub, list);
            else if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && is_image_name(e->d_name) &&
                     add_item(list, path, sub, c))
                rc = EXIT_FAIL;
        }
        free(path);
        free(sub);
    }
    closedir(d);
    return rc;
}

static int add_argument(const cli_common *c, const char *arg, batch_list *list)
{
    struct stat st;
    if (c->recursive && stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) return walk(c, arg, "", list);
    return add_item(list, arg, base_name(arg), c) ? EXIT_FAIL : EXIT_OK;
}

static int add_files_from(const cli_common *c, batch_list *list)
{
    int from_stdin = strcmp(c->files_from, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(c->files_from, "r");
    if (!f) {
        fprintf(stderr, "gpuimg %s: --files-from %s: %s\n", c->command, c->files_from, strerror(errno));
        return EXIT_FAIL;
    }
    char *line = NULL, rel[4096];
    size_t cap = 0;
    int rc = EXIT_OK;
    for (ssize_t n; rc == EXIT_OK && (n = getline(&line, &cap, f)) > 0;) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        if (n == 0) continue;
        contained_path(line, rel, sizeof rel);
        if (!*rel) snprintf(rel, sizeof rel, "%s", "unnamed");
        if (add_item(list, line, rel, c)) rc = EXIT_FAIL;
    }
    if (ferror(f)) {
        fprintf(stderr, "gpuimg %s: --files-from %s: read error\n", c->command, c->files_from);
        rc = EXIT_FAIL;
    }
    free(line);
    if (!from_stdin) fclose(f);
    return rc;
}

static int by_input(const void *a, const void *b)
{
    return strcmp(((const gi_batch_item *)a)->in, ((const gi_batch_item *)b)->in);
}

static int by_output(const void *a, const void *b)
{
    const gi_batch_item *x = *(gi_batch_item *const *)a, *y = *(gi_batch_item *const *)b;
    int d = strcmp(x->out, y->out);
    return d ? d : strcmp(x->in, y->in);
}

/* Inputs that would write the same file: all but the first fail. */
static int mark_collisions(batch_list *list)
{
    gi_batch_item **order = malloc(list->count * sizeof *order);
    if (!order && list->count) return -1;
    for (size_t i = 0; i < list->count; i++) order[i] = &list->items[i];
    qsort(order, list->count, sizeof *order, by_output);
    for (size_t i = 1; i < list->count; i++)
        if (strcmp(order[i]->out, order[i - 1]->out) == 0)
            order[i]->problem = "another input writes the same output file";
    free(order);
    return 0;
}

int batch_collect(const cli_common *c, char **args, int count, batch_list *list)
{
    memset(list, 0, sizeof *list);
    int rc = EXIT_OK;
    for (int i = 0; rc == EXIT_OK && i < count; i++) rc = add_argument(c, args[i], list);
    if (rc == EXIT_OK && c->files_from) rc = add_files_from(c, list);
    if (rc == EXIT_OK) qsort(list->items, list->count, sizeof *list->items, by_input);
    if (rc == EXIT_OK && mark_collisions(list)) rc = EXIT_FAIL;
    if (rc != EXIT_OK) {
        fprintf(stderr, "gpuimg %s: cannot collect the inputs\n", c->command);
        batch_list_free(list);
    }
    return rc;
}

void batch_keep_shard(batch_list *list, int shard, int count)
{
    size_t kept = 0;
    for (size_t i = 0; i < list->count; i++) {
        if (i % (size_t)count == (size_t)shard) list->items[kept++] = list->items[i];
        else {
            free(list->items[i].in);
            free(list->items[i].out);
        }
    }
    list->count = kept;
}

void batch_list_free(batch_list *list)
{
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i].in);
        free(list->items[i].out);
        free(list->items[i].reason);
    }
    free(list->items);
    memset(list, 0, sizeof *list);
}
