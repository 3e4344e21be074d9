/* Status phrases and the per-thread failure detail behind gi_last_error(). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gi_error.h"

static _Thread_local char last_error[1024];

const char *gi_strerror(gi_status status)
{
    switch (status) {
    case GI_OK: return "success";
    case GI_ERR_INVALID_ARGUMENT: return "invalid argument";
    case GI_ERR_IO: return "input/output error";
    case GI_ERR_DECODE: return "cannot decode image";
    case GI_ERR_ENCODE: return "cannot encode image";
    case GI_ERR_NO_MEMORY: return "out of memory";
    case GI_ERR_TOO_LARGE: return "image too large";
    case GI_ERR_UNSUPPORTED: return "unsupported";
    case GI_ERR_NO_DEVICE: return "no CUDA device";
    case GI_ERR_DEVICE: return "CUDA error";
    }
    return "unknown status";
}

const char *gi_last_error(void)
{
    return last_error;
}

gi_status gi__fail(gi_status status, const char *fmt, ...)
{
    /* Formatted apart, then copied: a message may wrap the one before it
     * (gi__fail(st, "%s: %s", path, gi_last_error())), whose bytes
     * vsnprintf would otherwise overwrite while reading them. */
    char text[sizeof last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    memcpy(last_error, text, sizeof text);
    return status;
}

gi_status gi__fail_pixel_limit(const char *name, uint64_t w, uint64_t h, uint64_t max_pixels)
{
    return gi__fail(GI_ERR_TOO_LARGE, "%s: %llux%llu is over the %llu-pixel limit (--max-pixels, GPUIMG_MAX_PIXELS)",
                    name, (unsigned long long)w, (unsigned long long)h, (unsigned long long)max_pixels);
}

gi_status gi__refuse_null(const char *function, const char *names, const void *const *args,
                          size_t count)
{
    const char *name = names;
    for (size_t i = 0; i < count; i++) {
        const size_t len = strcspn(name, ", ");
        if (!args[i])
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s: %.*s is NULL", function, (int)len, name);
        name += len;
        name += strspn(name, ", ");
    }
    return GI_OK;
}
