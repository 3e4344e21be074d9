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
#include "gi_error.h"

static int is_stdio(const char *path)
{
    return strcmp(path, "-") == 0;
}

static const char *display_name(const char *path)
{
    return is_stdio(path) ? "standard input" : path;
}

gi_status gi__read_file(const char *path, uint64_t max_bytes, uint8_t **bytes, size_t *size)
{
    *bytes = NULL;
    *size = 0;
    int fd = is_stdio(path) ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return gi__fail(GI_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    int have_stat = fstat(fd, &st) == 0;
    if (have_stat && S_ISDIR(st.st_mode)) {
        if (fd != STDIN_FILENO) close(fd);
        return gi__fail(GI_ERR_IO, "%s: is a directory", path);
    }
    if (have_stat && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes) {
        if (fd != STDIN_FILENO) close(fd);
        return gi__fail(GI_ERR_TOO_LARGE, "%s: %lld bytes is over the %llu-byte input limit",
                        display_name(path), (long long)st.st_size, (unsigned long long)max_bytes);
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    gi_status result = buf ? GI_OK : gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory", path);
    while (result == GI_OK) {
        if (len == cap) {
            uint8_t *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                result = gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory reading it", path);
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) result = gi__fail(GI_ERR_IO, "%s: %s", display_name(path), strerror(errno));
        if (n <= 0) break;
        len += (size_t)n;
        if (len > max_bytes)
            result = gi__fail(GI_ERR_TOO_LARGE, "%s: input larger than the %llu-byte limit",
                              display_name(path), (unsigned long long)max_bytes);
    }
    if (fd != STDIN_FILENO) close(fd);
    if (result != GI_OK) {
        free(buf);
        return result;
    }
    *bytes = buf;
    *size = len;
    return GI_OK;
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

static gi_status write_stdout(const void *bytes, size_t size)
{
    /* Flush anything stdio holds first so the bytes stay in order. */
    if (fflush(stdout) != 0)
        return gi__fail(GI_ERR_IO, "standard output: cannot write: %s", strerror(errno));
    return write_all(STDOUT_FILENO, bytes, size, "standard output");
}

/* Devices and pipes named as outputs (/dev/null, a FIFO) cannot be renamed
 * over; they are written directly. */
static int is_special_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static gi_status write_direct(const char *path, const void *bytes, size_t size)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return gi__fail(GI_ERR_IO, "%s: %s", path, strerror(errno));
    gi_status st = write_all(fd, bytes, size, path);
    if (close(fd) != 0 && st == GI_OK)
        st = gi__fail(GI_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return st;
}

/* Temporary files being written, for gi_remove_partial_outputs() to find
 * from a signal handler: claimed with an atomic flag, path set before the
 * flag says "ready", so the handler never reads a half-written path. */
#define TEMP_SLOTS 64
static struct {
    int state; /* 0 free, 1 claimed, 2 ready */
    char path[4096];
} temp_slots[TEMP_SLOTS];

static int register_temp(const char *path)
{
    for (int i = 0; i < TEMP_SLOTS; i++) {
        int expected = 0;
        if (__atomic_compare_exchange_n(&temp_slots[i].state, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            snprintf(temp_slots[i].path, sizeof temp_slots[i].path, "%s", path);
            __atomic_store_n(&temp_slots[i].state, 2, __ATOMIC_RELEASE);
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
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (__atomic_load_n(&temp_slots[i].state, __ATOMIC_ACQUIRE) == 2) unlink(temp_slots[i].path);
}

/* Creates a uniquely named temporary file in the destination's directory.
 * O_EXCL makes the name ours; the mode honours the umask like any output. */
static int create_temp(const char *path, char *tmp, size_t tmp_size)
{
    static unsigned counter;
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
        int len = snprintf(tmp, tmp_size, "%.*s.%s.gpuimg-%ld-%u.tmp", dir_len, path, base,
                           (long)getpid(), n);
        if (len < 0 || (size_t)len >= tmp_size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

gi_status gi_write_file_atomic(const char *path, const void *bytes, size_t size)
{
    if (is_stdio(path)) return write_stdout(bytes, size);
    if (is_special_file(path)) return write_direct(path, bytes, size);
    char tmp[4096];
    int fd = create_temp(path, tmp, sizeof tmp);
    if (fd < 0) return gi__fail(GI_ERR_IO, "%s: cannot create a file there: %s", path, strerror(errno));
    int slot = register_temp(tmp);
    gi_status st = write_all(fd, bytes, size, path);
    if (close(fd) != 0 && st == GI_OK)
        st = gi__fail(GI_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    if (st == GI_OK && rename(tmp, path) != 0)
        st = gi__fail(GI_ERR_IO, "%s: cannot rename into place: %s", path, strerror(errno));
    if (st != GI_OK) unlink(tmp);
    unregister_temp(slot);
    return st;
}
