/* File reading with a cap, and the atomic write: a temporary file next to
 * the destination, renamed into place only after every write succeeded. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_io.h"
#include "base/gi_error.h"
#include "base/pixel_alloc.h"
#include "temp_names.h"

static int is_stdio(const char *path)
{
    return strcmp(path, "-") == 0;
}

static const char *display_name(const char *path)
{
    return is_stdio(path) ? "standard input" : gi_quote_name(path);
}

gi_status gi__read_file(const char *path, uint64_t max_bytes, uint8_t **bytes, size_t *size)
{
    *bytes = NULL;
    *size = 0;
    int fd = is_stdio(path) ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return gi__fail(GI_ERR_IO, "%s: %s", gi_quote_name(path), strerror(errno));
    gi_status st = gi__read_fd(fd, path, max_bytes, bytes, size);
    if (fd != STDIN_FILENO) close(fd);
    return st;
}

gi_status gi__read_fd(int fd, const char *path, uint64_t max_bytes, uint8_t **bytes, size_t *size)
{
    *bytes = NULL;
    *size = 0;
    struct stat st;
    int have_stat = fstat(fd, &st) == 0;
    if (have_stat && S_ISDIR(st.st_mode)) return gi__fail(GI_ERR_IO, "%s: is a directory", display_name(path));
    if (have_stat && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes)
        return gi__fail(GI_ERR_TOO_LARGE, "%s: %lld bytes is over the %llu-byte input limit",
                        display_name(path), (long long)st.st_size, (unsigned long long)max_bytes);
    /* A regular file other than standard input is read from its start
     * whatever its offset (a descriptor handed over may be read twice). */
    int positional = have_stat && S_ISREG(st.st_mode) && fd != STDIN_FILENO;
    /* A regular file's size is known: one buffer of that size and a byte
     * more (to see the end in one read), from the pool of pixel_alloc.c,
     * which keeps the mapping for the next file of a batch. */
    size_t cap = have_stat && S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 1 << 16, len = 0;
    uint8_t *buf = gi__pixels_alloc(cap);
    gi_status result = buf ? GI_OK : gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory", display_name(path));
    while (result == GI_OK) {
        if (len == cap) {
            uint8_t *bigger = gi__pixels_realloc(buf, cap * 2);
            if (!bigger) {
                result = gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory reading it", display_name(path));
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = positional ? pread(fd, buf + len, cap - len, (off_t)len)
                               : read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) result = gi__fail(GI_ERR_IO, "%s: %s", display_name(path), strerror(errno));
        if (n <= 0) break;
        len += (size_t)n;
        if (len > max_bytes)
            result = gi__fail(GI_ERR_TOO_LARGE, "%s: input larger than the %llu-byte limit",
                              display_name(path), (unsigned long long)max_bytes);
    }
    if (result != GI_OK) {
        gi__pixels_free(buf);
        return result;
    }
    *bytes = buf;
    *size = len;
    return GI_OK;
}

/* Devices and pipes named as outputs (/dev/null, a FIFO) cannot be renamed
 * over; they are written directly. `path` is relative to dir_fd (AT_FDCWD:
 * the working directory), as every name below. */
static int is_special_file(int dir_fd, const char *path)
{
    struct stat st;
    return fstatat(dir_fd, path, &st, 0) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Temporary files being written, for gi_remove_partial_outputs() to find
 * from a signal handler: claimed with an atomic flag, path set before the
 * flag says "ready", so the handler never reads a half-written path. A name
 * is registered before its file is created, and once the handler has begun
 * (`removing`) a file created after all removes itself, so no temporary
 * file can appear behind the handler's back while the process dies. */
#define TEMP_SLOTS 64
static struct {
    int state; /* 0 free, 1 claimed, 2 ready */
    int dir_fd;
    char path[4096];
} temp_slots[TEMP_SLOTS];
static int removing;

static int register_temp(int dir_fd, const char *path)
{
    for (int i = 0; i < TEMP_SLOTS; i++) {
        int expected = 0;
        if (__atomic_compare_exchange_n(&temp_slots[i].state, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            temp_slots[i].dir_fd = dir_fd;
            snprintf(temp_slots[i].path, sizeof temp_slots[i].path, "%s", path);
            __atomic_store_n(&temp_slots[i].state, 2, __ATOMIC_SEQ_CST);
            return i;
        }
    }
    return -1; /* all busy: this write is simply not tracked */
}

static void unregister_temp(int slot)
{
    if (slot >= 0) __atomic_store_n(&temp_slots[slot].state, 0, __ATOMIC_RELEASE);
}

void gi_remove_partial_outputs(void)
{
    __atomic_store_n(&removing, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (__atomic_load_n(&temp_slots[i].state, __ATOMIC_SEQ_CST) == 2)
            unlinkat(temp_slots[i].dir_fd, temp_slots[i].path, 0);
}

/* The mode of the file being replaced, when it is a regular file: the
 * output keeps it, as `sed -i` does; -1 when there is none. */
static int replaced_mode(int dir_fd, const char *path)
{
    struct stat st;
    if (fstatat(dir_fd, path, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) return -1;
    return (int)(st.st_mode & 0777);
}

/* Creates a uniquely named temporary file in the destination's directory,
 * registered first (*slot). O_EXCL makes the name ours; the mode is the
 * replaced file's, else it honours the umask like any new file. */
static int create_temp(int dir_fd, const char *path, char *tmp, size_t tmp_size, int *slot)
{
    static unsigned counter;
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    if (dir_len + 1 >= (int)tmp_size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(tmp, path, (size_t)dir_len);
    tmp[dir_len] = '\0';
    gi__sweep_stale_temps(dir_fd, tmp);
    int mode = replaced_mode(dir_fd, path);
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
        if (gi__temp_name(base, getpid(), n, tmp + dir_len, tmp_size - (size_t)dir_len) != 0) {
            errno = ENAMETOOLONG;
            return -1;
        }
        *slot = register_temp(dir_fd, tmp);
        int fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 && __atomic_load_n(&removing, __ATOMIC_SEQ_CST)) {
            /* the handler may have looked before the file existed */
            unlinkat(dir_fd, tmp, 0);
            close(fd);
            errno = EINTR;
            fd = -1;
        }
        if (fd >= 0 && mode >= 0 && fchmod(fd, (mode_t)mode) != 0) {
            int saved = errno;
            unlinkat(dir_fd, tmp, 0);
            close(fd);
            errno = saved;
            fd = -1;
        }
        if (fd >= 0) return fd;
        int saved = errno;
        unregister_temp(*slot);
        *slot = -1;
        errno = saved;
        if (saved != EEXIST) return -1;
    }
    return -1;
}

static gi_status write_all(int fd, const void *bytes, size_t size, const char *name)
{
    const uint8_t *p = bytes;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return gi__fail(GI_ERR_IO, "%s: cannot write: %s", name, strerror(errno));
        p += n;
        size -= (size_t)n;
    }
    return GI_OK;
}

/* Small writes (a header, rows) are gathered; large ones go straight to
 * the file. Standard output is written with write(), not through stdio,
 * so the caller's stdout keeps its own state. */
#define OUTPUT_BUFFER (256u << 10)

struct gi_output {
    int fd;
    int dir_fd;          /* what name and tmp are relative to */
    char *path;          /* as given, for messages */
    char *name;          /* where it goes in dir_fd */
    char tmp[4096];      /* the temporary file, "" when written directly */
    int slot;            /* its place in temp_slots */
    int borrowed;        /* fd is the caller's: written, never closed */
    gi_status status;    /* the first failure */
    size_t used;
    uint8_t buf[OUTPUT_BUFFER];
};

static const char *output_name(const gi_output *out)
{
    return out->fd == STDOUT_FILENO || is_stdio(out->path) ? "standard output"
                                                            : gi_quote_name(out->path);
}

gi_status gi_output_open(gi_output **out, const char *path)
{
    GI__REFUSE_NULL(out, path);
    return gi__output_open_at(out, AT_FDCWD, path, path);
}

static gi_output *new_output(int dir_fd, const char *name, const char *path)
{
    gi_output *out = malloc(sizeof *out);
    char *copy = strdup(path), *name_copy = strdup(name);
    if (!out || !copy || !name_copy) {
        free(out);
        free(copy);
        free(name_copy);
        gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory", gi_quote_name(path));
        return NULL;
    }
    *out = (gi_output){.fd = -1, .dir_fd = dir_fd, .path = copy, .name = name_copy, .slot = -1};
    return out;
}

gi_status gi__output_open_fd(gi_output **result, int fd, const char *path)
{
    *result = new_output(AT_FDCWD, path, path);
    if (!*result) return GI_ERR_NO_MEMORY;
    (*result)->fd = fd;
    (*result)->borrowed = 1;
    return GI_OK;
}

gi_status gi__output_open_at(gi_output **result, int dir_fd, const char *name, const char *path)
{
    *result = NULL;
    gi_output *out = new_output(dir_fd, name, path);
    if (!out) return GI_ERR_NO_MEMORY;
    if (dir_fd == AT_FDCWD && is_stdio(path)) {
        /* What stdio holds goes first, so the bytes stay in order. */
        if (fflush(stdout) == 0) out->fd = STDOUT_FILENO;
    } else if (is_special_file(dir_fd, name)) {
        out->fd = openat(dir_fd, name, O_WRONLY | O_TRUNC | O_CLOEXEC);
    } else {
        out->fd = create_temp(dir_fd, name, out->tmp, sizeof out->tmp, &out->slot);
        if (out->fd < 0) out->tmp[0] = '\0';
    }
    if (out->fd < 0) {
        gi_status st = is_stdio(path)
                           ? gi__fail(GI_ERR_IO, "standard output: cannot write: %s", strerror(errno))
                           : gi__fail(GI_ERR_IO, "%s: cannot create a file there: %s", gi_quote_name(path),
                                      strerror(errno));
        free(out->path);
        free(out->name);
        free(out);
        return st;
    }
    *result = out;
    return GI_OK;
}

static gi_status flush_output(gi_output *out)
{
    if (out->status == GI_OK && out->used)
        out->status = write_all(out->fd, out->buf, out->used, output_name(out));
    out->used = 0;
    return out->status;
}

gi_status gi__output_write(gi_output *out, const void *bytes, size_t size)
{
    /* nothing to add: bytes may be NULL (gi_write_file_atomic of none) */
    if (out->status != GI_OK || size == 0) return out->status;
    if (size > OUTPUT_BUFFER - out->used && flush_output(out) != GI_OK) return out->status;
    if (size >= OUTPUT_BUFFER) {
        out->status = write_all(out->fd, bytes, size, output_name(out));
    } else {
        memcpy(out->buf + out->used, bytes, size);
        out->used += size;
    }
    return out->status;
}

const char *gi__output_path(const gi_output *out)
{
    return out->path;
}

gi_status gi_output_close(gi_output *out, int keep)
{
    if (!out) return GI_OK;
    gi_status st = keep ? flush_output(out) : out->status;
    if (out->fd != STDOUT_FILENO && !out->borrowed) {
        if (close(out->fd) != 0 && st == GI_OK)
            st = gi__fail(GI_ERR_IO, "%s: cannot write: %s", gi_quote_name(out->path),
                          strerror(errno));
        if (*out->tmp && st == GI_OK && keep &&
            renameat(out->dir_fd, out->tmp, out->dir_fd, out->name) != 0)
            st = gi__fail(GI_ERR_IO, "%s: cannot rename into place: %s", gi_quote_name(out->path),
                          strerror(errno));
        if (*out->tmp && (st != GI_OK || !keep)) unlinkat(out->dir_fd, out->tmp, 0);
        unregister_temp(out->slot);
    }
    free(out->path);
    free(out->name);
    free(out);
    return st;
}

gi_status gi_write_file_atomic(const char *path, const void *bytes, size_t size)
{
    GI__REFUSE_NULL(path);
    if (size) GI__REFUSE_NULL(bytes);
    gi_output *out;
    gi_status st = gi_output_open(&out, path);
    if (st != GI_OK) return st;
    st = gi__output_write(out, bytes, size);
    return gi_output_close(out, st == GI_OK);
}

int gi__file_rereadable(const char *path)
{
    struct stat st;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}
