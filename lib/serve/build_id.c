/* This build's identity, from the file its code was loaded from. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_id.h"

int gi__serve_build_id(char *id, size_t size)
{
    /* dladdr names a shared library by the path it was loaded from; for
     * code inside the program itself (a static build) it may give no
     * absolute path: the program's is the kernel's. */
    char path[PATH_MAX];
    Dl_info where;
    if (dladdr((void *)gi__serve_build_id, &where) && where.dli_fname && where.dli_fname[0] == '/')
        snprintf(path, sizeof path, "%s", where.dli_fname);
    else {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        path[n > 0 ? n : 0] = '\0';
    }
    struct stat st;
    if (!path[0] || stat(path, &st) != 0) {
        snprintf(id, size, "unknown build (its file cannot be found)");
        return -1;
    }
    snprintf(id, size, "%s (inode %llu, %lld bytes, modified %lld.%09ld)", path,
             (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             st.st_mtim.tv_nsec);
    return 0;
}
