/* Temporary names of atomic writes, and the removal of stale ones. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "temp_names.h"

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

static const char marker[] = ".gpuimg-";

/* FNV-1a, 64 bits: a short stand-in for the cut part of a long name. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3u;
    return h;
}

int gi__temp_name(const char *base, pid_t pid, unsigned n, char *tmp, size_t tmp_size)
{
    char tail[64];
    snprintf(tail, sizeof tail, "%s%ld-%u.tmp", marker, (long)pid, n);
    size_t base_len = strlen(base), room = NAME_MAX - 1 - strlen(tail); /* 1: the leading '.' */
    int len;
    if (base_len <= room) {
        len = snprintf(tmp, tmp_size, ".%s%s", base, tail);
    } else {
        /* "~" and 16 hex digits stand for the cut part. */
        len = snprintf(tmp, tmp_size, ".%.*s~%016llx%s", (int)(room - 17), base,
                       (unsigned long long)name_hash(base), tail);
    }
    return len < 0 || (size_t)len >= tmp_size ? -1 : 0;
}

/* Reads the decimal digits ending just before `end` (at most 20, the
 * first not '0' unless it is the only one); returns where they start, or
 * NULL. */
static const char *digits_before(const char *start, const char *end, unsigned long long *value)
{
    const char *p = end;
    while (p > start && p[-1] >= '0' && p[-1] <= '9' && end - p < 20) p--;
    if (p == end || (p[0] == '0' && end - p > 1)) return NULL;
    *value = strtoull(p, NULL, 10);
    return p;
}

int gi__parse_temp_name(const char *name, pid_t *pid)
{
    size_t len = strlen(name), mlen = sizeof marker - 1;
    if (name[0] != '.' || len < 4 || strcmp(name + len - 4, ".tmp") != 0) return 0;
    unsigned long long n, p;
    const char *at = digits_before(name, name + len - 4, &n);
    if (!at || at == name || at[-1] != '-') return 0;
    at = digits_before(name, at - 1, &p);
    /* at least one byte of the base between the leading '.' and the marker */
    if (!at || (size_t)(at - name) < mlen + 2 || memcmp(at - mlen, marker, mlen) != 0) return 0;
    if (p == 0 || p > INT_MAX) return 0;
    *pid = (pid_t)p;
    return 1;
}

static int writer_is_dead(pid_t pid)
{
    return pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH;
}

/* The directories already swept, by device and inode: a batch writing
 * thousands of files into one directory reads it once. */
static pthread_mutex_t swept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { dev_t dev; ino_t ino; } *swept;
static size_t swept_count, swept_cap;

/* Claims the directory for sweeping: 0 when it was swept before (or
 * memory is short: sweeping is a courtesy, never a reason to fail). */
static int claim_directory(const struct stat *dir)
{
    pthread_mutex_lock(&swept_lock);
    int fresh = 1;
    for (size_t i = 0; i < swept_count && fresh; i++)
        fresh = !(swept[i].dev == dir->st_dev && swept[i].ino == dir->st_ino);
    if (fresh && swept_count == swept_cap) {
        size_t cap = swept_cap ? swept_cap * 2 : 16;
        void *bigger = realloc(swept, cap * sizeof *swept);
        if (bigger) {
            swept = bigger;
            swept_cap = cap;
        } else {
            fresh = 0;
        }
    }
    if (fresh) {
        swept[swept_count].dev = dir->st_dev;
        swept[swept_count].ino = dir->st_ino;
        swept_count++;
    }
    pthread_mutex_unlock(&swept_lock);
    return fresh;
}

void gi__sweep_stale_temps(int dir_fd, const char *dir)
{
    int fd = openat(dir_fd, *dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    DIR *d = fd >= 0 && fstat(fd, &st) == 0 && claim_directory(&st) ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    uid_t me = geteuid();
    for (struct dirent *e; (e = readdir(d));) {
        pid_t pid;
        struct stat st;
        if (gi__parse_temp_name(e->d_name, &pid) && writer_is_dead(pid) &&
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            st.st_uid == me)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}
