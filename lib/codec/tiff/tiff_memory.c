/* libtiff's client procedures over a buffer (see tiff_memory.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiff_memory.h"

static tmsize_t memory_read(thandle_t h, void *buf, tmsize_t n)
{
    gi_tiff_memory *m = h;
    if (n <= 0 || m->at >= m->size) return 0;
    size_t take = m->size - m->at < (size_t)n ? m->size - m->at : (size_t)n;
    memcpy(buf, m->data + m->at, take);
    m->at += take;
    return (tmsize_t)take;
}

static tmsize_t memory_write(thandle_t h, void *buf, tmsize_t n)
{
    gi_tiff_memory *m = h;
    if (!m->writing || n < 0 || m->failed) return -1;
    size_t end = m->at + (size_t)n;
    if (end < m->at) return -1;
    if (end > m->cap) {
        size_t cap = m->cap ? m->cap : 1 << 16;
        while (cap < end) cap *= 2;
        uint8_t *bigger = realloc(m->data, cap);
        if (!bigger) {
            m->failed = 1;
            return -1;
        }
        m->data = bigger;
        m->cap = cap;
    }
    if (m->at > m->size) memset(m->data + m->size, 0, m->at - m->size); /* a gap seeked over */
    memcpy(m->data + m->at, buf, (size_t)n);
    m->at = end;
    if (end > m->size) m->size = end;
    return n;
}

static toff_t memory_seek(thandle_t h, toff_t off, int whence)
{
    gi_tiff_memory *m = h;
    uint64_t base = whence == SEEK_CUR ? m->at : whence == SEEK_END ? m->size : 0;
    uint64_t to = base + off;
    if (to < base || to > (uint64_t)SIZE_MAX / 2) return (toff_t)-1;
    if (!m->writing && to > m->size) to = m->size;
    m->at = (size_t)to;
    return to;
}

static int memory_close(thandle_t h)
{
    (void)h;
    return 0;
}

static toff_t memory_size(thandle_t h)
{
    return ((gi_tiff_memory *)h)->size;
}

/* Reading maps the caller's bytes, so that libtiff decodes from them
 * without copying each strip. */
static int memory_map(thandle_t h, void **base, toff_t *size)
{
    gi_tiff_memory *m = h;
    if (m->writing) return 0;
    *base = m->data;
    *size = m->size;
    return 1;
}

static void memory_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h;
    (void)base;
    (void)size;
}

/* libtiff's messages: the first error is kept for the caller's message
 * (returning 1 stops libtiff's own handler, which would print). */
static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif;
    (void)module;
    gi_tiff_memory *m = user;
    if (!m->error[0]) vsnprintf(m->error, sizeof m->error, fmt, ap);
    return 1;
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif;
    (void)user;
    (void)module;
    (void)fmt;
    (void)ap;
    return 1;
}

static TIFF *open_memory(gi_tiff_memory *m, const char *mode, size_t max_alloc)
{
    if (!gi__tiff_load()) {
        snprintf(m->error, sizeof m->error, "%s", gi__tiff_load_error());
        return NULL;
    }
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (!opts) {
        snprintf(m->error, sizeof m->error, "out of memory");
        return NULL;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, m);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, m);
    if (max_alloc) TIFFOpenOptionsSetMaxSingleMemAlloc(opts, (tmsize_t)max_alloc);
    /* The name appears in some of libtiff's messages; the caller's message
     * names the file. */
    TIFF *tif = TIFFClientOpenExt("TIFF", mode, m, memory_read, memory_write, memory_seek,
                                  memory_close, memory_size, memory_map, memory_unmap, opts);
    TIFFOpenOptionsFree(opts);
    if (!tif && !m->error[0]) snprintf(m->error, sizeof m->error, "not a TIFF libtiff can open");
    return tif;
}

TIFF *gi__tiff_open_read(gi_tiff_memory *m, const uint8_t *bytes, size_t size, size_t max_alloc)
{
    memset(m, 0, sizeof *m);
    m->data = (uint8_t *)bytes; /* only read: memory_write refuses */
    m->size = size;
    return open_memory(m, "r", max_alloc);
}

TIFF *gi__tiff_open_write(gi_tiff_memory *m, int big)
{
    memset(m, 0, sizeof *m);
    m->writing = 1;
    return open_memory(m, big ? "w8" : "w", 0);
}
