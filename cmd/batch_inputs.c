/* Expanding batch inputs: files, directories (-r), --files-from. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch_inputs.h"

/* The inputs as they are collected: their names alone, 24 bytes an input
 * (and the names), so that sorting them costs no copies of the batch's
 * larger records, which are made at the end. */
typedef struct {
    char *in, *out;
    const char *problem;
} named_input;

typedef struct {
    named_input *v;
    size_t count, cap;
} name_list;


/* The file name extension of each output format (gi_format's order). */
static const char *const format_extension[] = {"", "png", "jpg", "pnm", "pam", "tif"};

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

static int add_item(name_list *list, const char *in, const char *out_rel, const cli_common *c)
{
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 64;
        named_input *bigger = realloc(list->v, cap * sizeof *bigger);
        if (!bigger) return -1;
        list->v = bigger;
        list->cap = cap;
    }
    /* "out/" and "out" both give "out/name" */
    const char *out_dir = c->output_dir;
    const size_t dir_len = strlen(out_dir);
    const char *slash = dir_len && out_dir[dir_len - 1] == '/' ? "" : "/";
    const char *extension;
    const size_t stem = output_stem(c, out_rel, &extension);
    size_t len = dir_len + stem + strlen(extension) + 3;
    named_input *it = &list->v[list->count];
    *it = (named_input){strdup(in), malloc(len), NULL};
    if (!it->in || !it->out) {
        free(it->in);
        free(it->out);
        return -1;
    }
    snprintf(it->out, len, "%s%s%.*s%s%s", out_dir, slash, (int)stem, out_rel, *extension ? "." : "",
             extension);
    list->count++;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int is_image_name(const char *name)
{
    return gi_format_from_path(name) != GI_FORMAT_AUTO;
}

/* The names in the directory open as fd (all but "." and ".."; hidden
 * ones too: the caller decides), read whole so that no DIR buffer stays
 * open while the walk goes deeper. NULL and errno on failure. */
static char **read_names(int fd, size_t *count)
{
    int copy = dup(fd);
    DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
    if (!d) {
        if (copy >= 0) close(copy);
        return NULL;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int failed = 0;
    errno = 0;
    for (struct dirent *e; !failed && (e = readdir(d));) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **bigger = realloc(names, cap * sizeof *names);
            failed = !bigger;
            if (bigger) names = bigger;
        }
        if (!failed && !(names[n] = strdup(e->d_name))) failed = 1;
        if (!failed) n++;
    }
    int saved = failed ? ENOMEM : errno;
    closedir(d);
    if (saved) {
        while (n) free(names[--n]);
        free(names);
        errno = saved;
        return NULL;
    }
    *count = n;
    return names ? names : calloc(1, sizeof *names);
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return b && a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Whether the image name `name` in the directory fd (lst: its lstat) is
 * an input: a regular file, or a symbolic link to one; *problem: why it
 * fails, when it is one that cannot be read. Other kinds (a FIFO, a
 * socket) are no image files. */
static int walked_file(int fd, const char *name, const struct stat *lst, const char *path,
                       const char **problem)
{
    struct stat st;
    *problem = NULL;
    if (fstatat(fd, name, &st, 0) != 0)
        *problem = !S_ISLNK(lst->st_mode) ? "it vanished while its folder was read"
                   : errno == ENOENT     ? "a symbolic link to nothing"
                                         : "a symbolic link that cannot be followed";
    else if (!S_ISREG(st.st_mode)) return 0;
    else if (strlen(path) >= PATH_MAX)
        *problem = "its path is longer than the system's limit (PATH_MAX), so it cannot be opened";
    return 1;
}

/* Adds every image file (PNG, JPEG, PNM, PAM, TIFF) under the directory open as
 * fd, whose path is `dir`; `rel` is its path below the top. The walk goes
 * by descriptors (openat, fstatat), so a path of any length is reached;
 * a file whose path is too long to be opened by name, or a symbolic link
 * to nothing, is an input that fails with the reason, never left out.
 * Symbolic links to directories are not followed (as find does by
 * default), which rules out loops, and the output directory is not an
 * input. */
static int walk(const cli_common *c, int fd, const char *dir, const char *rel,
                const struct stat *out_dir, name_list *list)
{
    size_t count;
    char **names = read_names(fd, &count);
    if (!names) {
        fprintf(stderr, "gpuimg %s: %s: %s\n", c->command, gi_quote_name(dir), strerror(errno));
        return EXIT_FAIL;
    }
    int rc = EXIT_OK;
    for (size_t i = 0; i < count; i++) {
        const char *name = names[i];
        if (rc != EXIT_OK || name[0] == '.') continue; /* hidden files and our temporaries */
        size_t plen = strlen(dir) + strlen(name) + 2, rlen = strlen(rel) + strlen(name) + 2;
        char *path = malloc(plen), *sub = malloc(rlen);
        struct stat lst;
        const char *problem;
        if (!path || !sub) rc = EXIT_FAIL;
        else if (fstatat(fd, name, &lst, AT_SYMLINK_NOFOLLOW) == 0) {
            snprintf(path, plen, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
            snprintf(sub, rlen, "%s%s%s", rel, *rel ? "/" : "", name);
            int is_dir = S_ISDIR(lst.st_mode);
            if (is_dir && !same_file(&lst, out_dir)) {
                int sub_fd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub_fd < 0) {
                    fprintf(stderr, "gpuimg %s: %s: %s\n", c->command, gi_quote_name(path),
                            strerror(errno));
                    rc = EXIT_FAIL;
                } else {
                    rc = walk(c, sub_fd, path, sub, out_dir, list);
                    close(sub_fd);
                }
            } else if (!is_dir && is_image_name(name) && walked_file(fd, name, &lst, path, &problem)) {
                if (add_item(list, path, sub, c)) rc = EXIT_FAIL;
                else list->v[list->count - 1].problem = problem;
            }
        }
        free(path);
        free(sub);
    }
    for (size_t i = 0; i < count; i++) free(names[i]);
    free(names);
    return rc;
}

/* -r on a directory named on the command line. */
static int walk_top(const cli_common *c, const char *dir, name_list *list)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "gpuimg %s: %s: %s\n", c->command, gi_quote_name(dir), strerror(errno));
        return EXIT_FAIL;
    }
    struct stat out_dir;
    int have_out = stat(c->output_dir, &out_dir) == 0;
    int rc = walk(c, fd, dir, "", have_out ? &out_dir : NULL, list);
    close(fd);
    return rc;
}

/* A file named on the command line or by --files-from: its output keeps
 * the base name. A path without one ("/", "..", "dir/") fails alone. */
static int add_named_file(const cli_common *c, const char *path, name_list *list)
{
    const char *base = base_name(path);
    int nameless = !*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0;
    if (add_item(list, path, nameless ? "" : base, c)) return EXIT_FAIL;
    if (nameless) list->v[list->count - 1].problem = "no file name to give its output";
    return EXIT_OK;
}

static int add_argument(const cli_common *c, const char *arg, name_list *list)
{
    struct stat st;
    const int dir = stat(arg, &st) == 0 && S_ISDIR(st.st_mode);
    if (c->recursive && dir) return walk_top(c, arg, list);
    if (add_named_file(c, arg, list)) return EXIT_FAIL;
    if (dir) list->v[list->count - 1].problem = "is a directory (-r takes the images under it)";
    return EXIT_OK;
}

static int add_files_from(const cli_common *c, name_list *list)
{
    int from_stdin = strcmp(c->files_from, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(c->files_from, "r");
    if (!f) {
        fprintf(stderr, "gpuimg %s: --files-from %s: %s\n", c->command,
                gi_quote_name(c->files_from), strerror(errno));
        return EXIT_FAIL;
    }
    char *line = NULL;
    size_t cap = 0;
    int rc = EXIT_OK;
    for (ssize_t n; rc == EXIT_OK && (n = getline(&line, &cap, f)) > 0;) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        if (n > 0) rc = add_named_file(c, line, list);
    }
    if (ferror(f)) {
        fprintf(stderr, "gpuimg %s: --files-from %s: read error\n", c->command,
                gi_quote_name(c->files_from));
        rc = EXIT_FAIL;
    }
    free(line);
    if (!from_stdin) fclose(f);
    return rc;
}

static int by_input(const void *a, const void *b)
{
    return strcmp(((const named_input *)a)->in, ((const named_input *)b)->in);
}

/* The batch's items, one for each name of the sorted list; the names
 * move into them. */
static int make_items(name_list *names, batch_list *list)
{
    list->items = calloc(names->count ? names->count : 1, sizeof *list->items);
    if (!list->items) return -1;
    for (size_t i = 0; i < names->count; i++) {
        const named_input *it = &names->v[i];
        const int is_stdin = strcmp(it->in, "-") == 0;
        list->items[i] = (gi_batch_item){
            .in = it->in, .out = it->out,
            .problem = is_stdin ? "standard input cannot be part of a batch" : it->problem};
    }
    list->count = names->count;
    names->count = 0;
    return 0;
}

/* Keeps the items of this shard (position mod shard_count), freeing the
 * others. */
static void keep_shard(const cli_common *c, batch_list *list)
{
    const size_t n = (size_t)c->shard_count, k = (size_t)c->shard;
    size_t kept = 0;
    for (size_t i = 0; i < list->count; i++) {
        gi_batch_item *it = &list->items[i];
        if (i % n == k) {
            list->items[kept++] = *it;
        } else {
            free(it->in);
            free(it->out);
        }
    }
    list->count = kept;
    gi_batch_item *fewer = realloc(list->items, (kept ? kept : 1) * sizeof *fewer);
    if (fewer) list->items = fewer;
}

static void free_names(name_list *names)
{
    for (size_t i = 0; i < names->count; i++) {
        free(names->v[i].in);
        free(names->v[i].out);
    }
    free(names->v);
}

int batch_collect(const cli_common *c, char **args, int count, batch_list *list)
{
    memset(list, 0, sizeof *list);
    name_list names = {0};
    int rc = EXIT_OK;
    for (int i = 0; rc == EXIT_OK && i < count; i++) rc = add_argument(c, args[i], &names);
    if (rc == EXIT_OK && c->files_from) rc = add_files_from(c, &names);
    if (rc == EXIT_OK) qsort(names.v, names.count, sizeof *names.v, by_input);
    if (rc == EXIT_OK && make_items(&names, list)) rc = EXIT_FAIL;
    free_names(&names);
    if (rc != EXIT_OK) {
        fprintf(stderr, "gpuimg %s: cannot collect the inputs\n", c->command);
    } else if (gi_batch_check_outputs(list->items, list->count) != GI_OK) {
        /* the whole list: a clash between two shards refuses each alike */
        fprintf(stderr, "gpuimg %s: %s\n", c->command, gi_last_error());
        rc = EXIT_FAIL;
    } else {
        keep_shard(c, list);
    }
    if (rc != EXIT_OK) batch_list_free(list);
    return rc;
}

void batch_list_free(batch_list *list)
{
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i].in);
        free(list->items[i].out);
        gi_free(list->items[i].reason);
    }
    free(list->items);
    memset(list, 0, sizeof *list);
}
