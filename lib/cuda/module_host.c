/* The module's side of module_host.h: libgpuimg's functions that the CUDA
 * backend calls, each a call through the table the loader handed over.
 * They are hidden: the module's own calls reach them, but a program that
 * links the module and the library's layers together (the tests of the
 * backend's insides) must bind its own references to the layers' real
 * functions. Exported, they would satisfy the program's references first,
 * and the table the program hands over would point back at them: a call
 * would go round forever. Only the binding is the module's to export. */
#include <stdarg.h>
#include <stdio.h>

#pragma GCC visibility push(hidden)
#include "module_host.h"

static gi__cuda_host host;

void gi__cuda_module_bind(const gi__cuda_host *h)
{
    host = *h;
}

gi_status gi__fail(gi_status status, const char *fmt, ...)
{
    char detail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return host.fail(status, "%s", detail);
}

double gi__now_ms(void)
{
    return host.now_ms();
}

double gi__median(double *ms, int n)
{
    return host.median(ms, n);
}

const gi__overrides *gi__process_overrides(void)
{
    return host.process_overrides();
}

int gi__pixels_pinned(const void *p)
{
    return host.pixels_pinned(p);
}

void gi__pixels_use_pinned(const gi__pixels_pinner *pinner)
{
    host.pixels_use_pinned(pinner);
}

gi_jpeg_colour_mode gi__jpeg_colour_mode(const gi_jpeg_coeffs *c)
{
    return host.jpeg_colour_mode(c);
}

int gi__jpeg_components_used(gi_jpeg_colour_mode mode)
{
    return host.jpeg_components_used(mode);
}

gi_jpeg_upsampler gi__jpeg_upsampler(int hs, int vs)
{
    return host.jpeg_upsampler(hs, vs);
}

int gi__jpeg_shrinkable(const gi_jpeg_coeffs *c)
{
    return host.jpeg_shrinkable(c);
}

void gi__jpeg_reduced_geometry(const gi_jpeg_coeffs *c, int k, int s, gi_jpeg_reduced_geometry *g)
{
    host.jpeg_reduced_geometry(c, k, s, g);
}

const int32_t *gi__jpeg_reduced_table(int n)
{
    return host.jpeg_reduced_table(n);
}

void gi__jpeg_write_tables(int quality, jpeg_tables *t)
{
    host.jpeg_write_tables(quality, t);
}

int gi__jpeg_write_around_scan(int width, int height, int quality, const uint8_t *scan, size_t n,
                               uint8_t **bytes, size_t *size)
{
    return host.jpeg_write_around_scan(width, height, quality, scan, n, bytes, size);
}

#pragma GCC visibility pop
