/* The CUDA backend's entry points where it is a library of its own
 * (libgpuimg-cuda, lib/cuda/meson.build says why): each loads it once,
 * from the directory libgpuimg itself was loaded from, and calls its
 * function of the same name. Where it cannot be loaded (no CUDA runtime on
 * this machine, a broken install), every answer says why, as a build
 * without CUDA says that it has none (absent.c). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "base/gi_error.h"
#include "module_host.h"

#define MODULE_NAME "libgpuimg-cuda.so"

static struct {
    gi_status (*backend_create)(int device, const gi__backend_ops **ops, void **state);
    gi_status (*backend_reserve)(void *state, size_t in_bytes, size_t out_bytes);
    int (*device_count)(const char **why);
    gi_status (*device_info)(int index, int measure_bandwidth, gi_device_info *info);
} module;
static char why_not[1200]; /* set when the module could not be loaded */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* The module next to this library: its directory from our own path. */
static void module_path(char *path, size_t size)
{
    Dl_info self;
    const char *slash = NULL;
    if (dladdr((void *)module_path, &self) && self.dli_fname) slash = strrchr(self.dli_fname, '/');
    if (slash)
        snprintf(path, size, "%.*s/%s", (int)(slash - self.dli_fname), self.dli_fname, MODULE_NAME);
    else
        snprintf(path, size, "%s", MODULE_NAME); /* the loader's search path */
}

static void load(void)
{
    char path[1024];
    module_path(path, sizeof path);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        /* dlerror names the file */
        snprintf(why_not, sizeof why_not, "cannot load the CUDA backend: %s",
                 e ? e : path);
        /* A program linked with the layers' libraries rather than libgpuimg
         * (the tests of the backend's insides) has the module among its own
         * libraries, found by the loader's search. */
        h = dlopen(MODULE_NAME, RTLD_NOW | RTLD_LOCAL);
        if (!h) return;
        why_not[0] = '\0';
    }
    /* dlsym of a handle finds the module's own definitions before those
     * of libgpuimg, which it links to (these stand-ins) */
    *(void **)&module.backend_create = dlsym(h, "gi__cuda_backend_create");
    *(void **)&module.backend_reserve = dlsym(h, "gi__cuda_backend_reserve");
    *(void **)&module.device_count = dlsym(h, "gi_cuda_device_count");
    *(void **)&module.device_info = dlsym(h, "gi_cuda_device_info");
    void (*bind)(const gi__cuda_host *host);
    *(void **)&bind = dlsym(h, "gi__cuda_module_bind");
    if (bind) {
        static const gi__cuda_host host = GI__CUDA_HOST_INIT;
        bind(&host);
    }
    if (!bind || !module.backend_create || !module.backend_reserve || !module.device_count ||
        !module.device_info) {
        memset(&module, 0, sizeof module);
        snprintf(why_not, sizeof why_not, "the CUDA backend %s lacks its entry points", path);
    }
}

static int loaded(void)
{
    pthread_once(&load_once, load);
    return module.backend_create != NULL;
}

gi_status gi__cuda_backend_create(int device, const gi__backend_ops **ops, void **state)
{
    if (!loaded()) return gi__fail(GI_ERR_NO_DEVICE, "%s", why_not);
    return module.backend_create(device, ops, state);
}

gi_status gi__cuda_backend_reserve(void *state, size_t in_bytes, size_t out_bytes)
{
    if (!loaded()) return gi__fail(GI_ERR_NO_DEVICE, "%s", why_not);
    return module.backend_reserve(state, in_bytes, out_bytes);
}

int gi_cuda_compiled(void)
{
    return 1;
}

int gi_cuda_device_count(const char **why)
{
    if (!loaded()) {
        if (why) *why = why_not;
        return 0;
    }
    return module.device_count(why);
}

gi_status gi_cuda_device_info(int index, int measure_bandwidth, gi_device_info *info)
{
    GI__REFUSE_NULL(info);
    if (!loaded()) {
        memset(info, 0, sizeof *info);
        return gi__fail(GI_ERR_NO_DEVICE, "%s", why_not);
    }
    return module.device_info(index, measure_bandwidth, info);
}
