/* gi_batch_check_outputs: two items of a batch that would write one file.
 *
 * An output is put in place by renaming a temporary file to its name, so
 * two outputs are one file when they name one entry of one directory.
 * Each output is keyed by the deepest directory of its path that exists
 * (its device and inode, so that any spelling or symbolic link that
 * reaches it is the same) and the path below it, which the batch would
 * create, compared by its components (made plain: "." and empty ones
 * dropped, ".." taking the one before it; a directory the batch makes is
 * never a symbolic link, so that is where ".." leads). The keys are
 * sorted, and equal neighbours clash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/gi_error.h"

typedef struct {
    dev_t dev;         /* the directory's; 0 and 0: standard output ("-"), */
    ino_t ino;         /* or no directory found (rest: the name whole, made plain) */
    const char *rest;  /* the path below it: a tail of the item's out, or
                          made plain in `owned` */
    char *owned;
    size_t item;
} output_key;

/* The last directory found for an output (found_parent), which the next
 * item reuses when its out has the same directory part: a folder's
 * outputs cost one stat. */
typedef struct {
    const char *out; /* whose directory part it is (NULL: none yet) */
    size_t dir_len;  /* the length of that part, up to its last '/' */
    size_t rest_at;  /* where the path below the directory found starts */
    dev_t dev;
    ino_t ino;
} parent_cache;

/* The directory part of out: up to and with its last '/' (0: none). */
static size_t dir_part(const char *out)
{
    const char *slash = strrchr(out, '/');
    return slash ? (size_t)(slash - out) + 1 : 0;
}

/* The deepest directory on out's path that exists (stat follows symbolic
 * links), each level tried from the output's own directory up; *rest_at:
 * where the path below it starts in out. 0, or -1 when none is found (no
 * working directory). `buf` holds strlen(out) + 1 bytes. */
static int found_parent(const char *out, char *buf, struct stat *st, size_t *rest_at)
{
    for (size_t len = dir_part(out);;) {
        size_t dir_len = len;
        while (dir_len > 1 && out[dir_len - 1] == '/') dir_len--; /* "/" stays */
        memcpy(buf, out, dir_len);
        buf[dir_len] = '\0';
        if (stat(dir_len ? buf : ".", st) == 0 && S_ISDIR(st->st_mode)) {
            *rest_at = len;
            return 0;
        }
        if (dir_len == 0 || (dir_len == 1 && out[0] == '/')) return -1;
        len = dir_len;
        while (len > 0 && out[len - 1] != '/') len--; /* up one component */
    }
}

static int is_component(const char *s, size_t n, const char *name)
{
    return n == strlen(name) && memcmp(s, name, n) == 0;
}

/* Whether path is plain already: no empty, "." or ".." component. */
static int is_plain(const char *path)
{
    if (!*path) return 1;
    for (const char *s = path;;) {
        size_t n = strcspn(s, "/");
        if (n == 0 || is_component(s, n, ".") || is_component(s, n, "..")) return 0;
        if (!s[n]) return 1;
        s += n + 1;
    }
}

/* path made plain into `to` (strlen(path) + 1 bytes): empty and "."
 * components dropped, ".." taking the one before it (kept where there is
 * none). path is below a directory, never absolute (found_parent always
 * finds "/"; without a working directory a relative name is taken whole). */
static void make_plain(const char *path, char *to)
{
    size_t len = 0, floor = 0; /* kept ".." components end at floor */
    for (const char *s = path;;) {
        size_t n = strcspn(s, "/");
        if (is_component(s, n, "..") && len > floor) {
            while (len > floor && to[len - 1] != '/') len--;
            if (len > floor) len--; /* the '/' before it */
        } else if (n && !is_component(s, n, ".")) {
            if (len) to[len++] = '/';
            memcpy(to + len, s, n);
            len += n;
            if (is_component(s, n, "..")) floor = len;
        }
        if (!s[n]) break;
        s += n + 1;
    }
    to[len] = '\0';
}

/* The key of an output named by a path: "-" (standard output) as itself,
 * else rest a tail of it or made plain. */
static int key_by_name(const gi_batch_item *it, char *buf, parent_cache *cache, output_key *k)
{
    if (strcmp(it->out, "-") == 0) {
        k->rest = it->out;
        return 0;
    }
    const size_t dir_len = dir_part(it->out);
    if (!cache->out || dir_len != cache->dir_len || memcmp(it->out, cache->out, dir_len) != 0) {
        struct stat st;
        int found = found_parent(it->out, buf, &st, &cache->rest_at) == 0;
        cache->dev = found ? st.st_dev : 0;
        cache->ino = found ? st.st_ino : 0;
        if (!found) cache->rest_at = 0; /* no working directory: the name whole */
        cache->out = it->out;
        cache->dir_len = dir_len;
    }
    k->dev = cache->dev;
    k->ino = cache->ino;
    k->rest = it->out + cache->rest_at;
    if (is_plain(k->rest)) return 0;
    if (!(k->owned = malloc(strlen(k->rest) + 1))) return -1;
    make_plain(k->rest, k->owned);
    k->rest = k->owned;
    return 0;
}

/* The key of an item handed over open: the directory's descriptor and the
 * name in it, or the file written straight to (rest ""). By name when
 * the descriptor says nothing. */
static int key_of(const gi_batch_item *it, char *buf, parent_cache *cache, output_key *k)
{
    const gi_item_files *f = it->files;
    const int fd = f ? (f->out_dir_fd >= 0 ? f->out_dir_fd : f->out_fd) : -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return key_by_name(it, buf, cache, k);
    k->dev = st.st_dev;
    k->ino = st.st_ino;
    k->rest = f->out_dir_fd >= 0 && f->out_name ? f->out_name : "";
    return 0;
}

static int by_key(const void *a, const void *b)
{
    const output_key *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
    int d = strcmp(x->rest, y->rest);
    if (d) return d;
    return (x->item > y->item) - (x->item < y->item);
}

static int same_output(const output_key *x, const output_key *y)
{
    return x->dev == y->dev && x->ino == y->ino && strcmp(x->rest, y->rest) == 0;
}

/* The refusal: the first item in list order whose output an earlier one
 * writes (`later`), that one (`first`), and how many more clash. */
static gi_status refuse(const gi_batch_item *items, size_t later, size_t first, size_t more)
{
    const gi_batch_item *a = &items[first], *b = &items[later];
    char others[80] = "";
    if (more)
        snprintf(others, sizeof others, " (and %zu more input%s whose output another input writes)",
                 more, more == 1 ? "" : "s");
    if (strcmp(a->out, b->out) == 0)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s: %s writes the same output file, %s%s",
                        gi_quote_name(b->in), gi_quote_name(a->in), gi_quote_name(a->out), others);
    return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s: its output %s is the file %s writes, %s%s",
                    gi_quote_name(b->in), gi_quote_name(b->out), gi_quote_name(a->in),
                    gi_quote_name(a->out), others);
}

/* Sorted keys: the clashes, each with the group's first item (its
 * lowest index, by the sort's tie-break). */
static gi_status find_clashes(const gi_batch_item *items, const output_key *keys, size_t n)
{
    size_t later = 0, first = 0, clashes = 0;
    for (size_t i = 1, group = 0; i < n; i++) {
        if (!same_output(&keys[group], &keys[i])) {
            group = i;
            continue;
        }
        if (!clashes++ || keys[i].item < later) {
            later = keys[i].item;
            first = keys[group].item;
        }
    }
    return clashes ? refuse(items, later, first, clashes - 1) : GI_OK;
}

gi_status gi_batch_check_outputs(const gi_batch_item *items, size_t count)
{
    if (count) GI__REFUSE_NULL(items);
    size_t longest = 0, n = 0;
    for (size_t i = 0; i < count; i++) {
        if (!items[i].out) return gi__fail(GI_ERR_INVALID_ARGUMENT, "item %zu: out is NULL", i);
        size_t len = strlen(items[i].out);
        if (len > longest) longest = len;
    }
    output_key *keys = calloc(count ? count : 1, sizeof *keys);
    char *buf = malloc(longest + 1);
    int no_memory = !keys || !buf;
    parent_cache cache = {0};
    for (size_t i = 0; !no_memory && i < count; i++) {
        if (items[i].problem) continue; /* it fails unrun: it writes nothing */
        keys[n].item = i;
        no_memory = key_of(&items[i], buf, &cache, &keys[n++]) != 0;
    }
    gi_status st;
    if (no_memory) {
        st = gi__fail(GI_ERR_NO_MEMORY, "cannot check the batch's outputs");
    } else {
        qsort(keys, n, sizeof *keys, by_key);
        st = find_clashes(items, keys, n);
    }
    for (size_t i = 0; keys && i < n; i++) free(keys[i].owned);
    free(keys);
    free(buf);
    return st;
}
