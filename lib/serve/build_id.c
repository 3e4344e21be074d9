/* This build's identity, from the file its code was loaded from. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build_id.h"

int gi__serve_build_id_of(const char *path, char *id, size_t size)
{
    struct stat st;
    struct tm when;
    if (!path[0] || stat(path, &st) != 0 || !gmtime_r(&st.st_mtim.tv_sec, &when)) {
        snprintf(id, size, "unknown build (its file cannot be found)");
        return -1;
    }
    char day[32];
    strftime(day, sizeof day, "%Y-%m-%d %H:%M:%S", &when);
    snprintf(id, size, "%s (inode %llu, %lld bytes, modified %s.%09ld UTC)", path,
             (unsigned long long)st.st_ino, (long long)st.st_size, day, st.st_mtim.tv_nsec);
    return 0;
}

int gi__serve_build_id(char *id, size_t size)
{
    /* dladdr names a shared library by the path it was loaded from (the
     * runpath's, or LD_LIBRARY_PATH's: made canonical, one file has one
     * name); for code inside the program itself (a static build) it may
     * give no absolute path: the program's is the kernel's. */
    char path[PATH_MAX];
    Dl_info where;
    if (!(dladdr((void *)gi__serve_build_id, &where) && where.dli_fname &&
          where.dli_fname[0] == '/' && realpath(where.dli_fname, path))) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        path[n > 0 ? n : 0] = '\0';
    }
    return gi__serve_build_id_of(path, id, size);
}
