/* The CPUs a control group's quota gives the process (cgroup_cpus.h). The
 * files come from the kernel, but a container's mounts may hold anything:
 * each is read whole into a small buffer and parsed strictly, and one that
 * is not a quota limits nothing. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_cpus.h"

#define PATH_BYTES 4096

/* A small file's text, NUL-terminated (cut at size - 1 bytes); 0, or -1
 * where it cannot be opened or read. */
static int read_text(const char *path, char *buf, size_t size)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t got = 0;
    int rc = 0;
    while (got + 1 < size) {
        const ssize_t n = read(fd, buf + got, size - 1 - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) rc = -1;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return rc;
}

/* dir/name's text, as read_text; -1 where the path is too long too. */
static int read_in(const char *dir, const char *name, char *buf, size_t size)
{
    char path[PATH_BYTES];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) return -1;
    return read_text(path, buf, size);
}

/* A count of microseconds at s (decimal digits, at most 18 of them); -1
 * where there is none. *end: the first character after it. */
static long long parse_count(const char *s, const char **end)
{
    long long v = 0;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        if (++digits <= 18) v = v * 10 + (*s - '0');
    *end = s;
    return digits == 0 || digits > 18 ? -1 : v;
}

/* ceil(quota / period), or 0 for no quota. */
static int cpus_of(long long quota, long long period)
{
    if (quota <= 0 || period <= 0) return 0;
    const long long cpus = quota / period + (quota % period != 0);
    return cpus > INT_MAX ? INT_MAX : (int)cpus;
}

/* Whether text, after a count, ends there (a newline at most). */
static int ends(const char *s)
{
    return s[0] == '\0' || (s[0] == '\n' && s[1] == '\0');
}

/* Version 2: dir/cpu.max, "max PERIOD" or "QUOTA PERIOD". */
static int v2_limit(const char *dir)
{
    char text[64];
    const char *end;
    if (read_in(dir, "cpu.max", text, sizeof text) < 0) return 0;
    const long long quota = parse_count(text, &end);
    if (quota < 0 || *end != ' ') return 0; /* "max", or not a quota */
    const long long period = parse_count(end + 1, &end);
    return period > 0 && ends(end) ? cpus_of(quota, period) : 0;
}

/* Version 1: dir/cpu.cfs_quota_us (-1: none) and dir/cpu.cfs_period_us. */
static int v1_limit(const char *dir)
{
    char quota_text[32], period_text[32];
    const char *end;
    if (read_in(dir, "cpu.cfs_quota_us", quota_text, sizeof quota_text) < 0) return 0;
    const long long quota = parse_count(quota_text, &end); /* -1 is no count: no quota */
    if (quota < 0 || !ends(end) || read_in(dir, "cpu.cfs_period_us", period_text, sizeof period_text) < 0)
        return 0;
    const long long period = parse_count(period_text, &end);
    return period > 0 && ends(end) ? cpus_of(quota, period) : 0;
}

/* The least limit of base + group (group starts with '/') and of each
 * ancestor up to base itself; 0 for none. */
static int least_up(const char *base, const char *group, size_t group_len, int (*limit_of)(const char *))
{
    char dir[PATH_BYTES];
    const size_t base_len = strlen(base);
    if (base_len + group_len >= sizeof dir) group_len = 0; /* too deep to name: the root alone */
    memcpy(dir, base, base_len);
    memcpy(dir + base_len, group, group_len);
    dir[base_len + group_len] = '\0';
    int least = 0;
    for (;;) {
        const int l = limit_of(dir);
        if (l > 0 && (least == 0 || l < least)) least = l;
        char *slash = strrchr(dir + base_len, '/');
        if (!slash) break;
        *slash = '\0';
    }
    return least;
}

/* Whether a comma-separated list of `len` bytes names "cpu". */
static int names_cpu(const char *list, size_t len)
{
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && list[j] != ',') j++;
        if (j - i == 3 && memcmp(list + i, "cpu", 3) == 0) return 1;
        i = j + 1;
    }
    return 0;
}

int gi__cgroup_cpu_limit(const char *root, const char *cgroups)
{
    char v2_base[PATH_BYTES], v1_base[PATH_BYTES], unused[8];
    /* version 2 alone at root, or beside version 1 at root/unified */
    if ((size_t)snprintf(v1_base, sizeof v1_base, "%s/cpu", root) >= sizeof v1_base) return 0;
    const int v2_at_root = read_in(root, "cgroup.controllers", unused, sizeof unused) == 0;
    if ((size_t)snprintf(v2_base, sizeof v2_base, v2_at_root ? "%s" : "%s/unified", root) >=
        sizeof v2_base)
        return 0;
    int least = 0;
    for (const char *line = cgroups; *line;) {
        const char *nl = strchr(line, '\n');
        const size_t len = nl ? (size_t)(nl - line) : strlen(line);
        /* "ID:CONTROLLERS:PATH" */
        const char *c1 = memchr(line, ':', len);
        const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
        if (c2 && c2[1] == '/') {
            const char *group = c2 + 1;
            const size_t group_len = len - (size_t)(group - line);
            int l = 0;
            if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1)
                l = least_up(v2_base, group, group_len, v2_limit);
            else if (names_cpu(c1 + 1, (size_t)(c2 - c1 - 1)))
                l = least_up(v1_base, group, group_len, v1_limit);
            if (l > 0 && (least == 0 || l < least)) least = l;
        }
        line += len + (nl != NULL);
    }
    return least;
}

int gi__process_cgroup_cpu_limit(void)
{
    char text[8192];
    return read_text("/proc/self/cgroup", text, sizeof text) == 0
               ? gi__cgroup_cpu_limit("/sys/fs/cgroup", text)
               : 0;
}
