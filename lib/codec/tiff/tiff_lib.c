/* tiff_lib.h: libtiff's entries, loaded once a process. */
#include "tiff_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The soname of libtiff 4.5 and later, which meson.build asks for. */
#define LIBTIFF_SONAME "libtiff.so.6"

gi__tiff_calls gi__tiff_lib;
static char why_not[600];
static int loaded;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* dlsym into *slot; 0 when the library lacks `name`. */
static int bind_entry(void *h, void **slot, const char *name)
{
    *slot = dlsym(h, name);
    if (*slot) return 1;
    snprintf(why_not, sizeof why_not, "%s has no %s (libtiff 4.5 or later is needed)",
             LIBTIFF_SONAME, name);
    return 0;
}

static void load(void)
{
    void *h = dlopen(LIBTIFF_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why_not, sizeof why_not, "TIFF needs libtiff, which cannot be loaded: %s",
                 e ? e : LIBTIFF_SONAME);
        return;
    }
    gi__tiff_calls t;
#define BIND(member, name) bind_entry(h, (void **)&t.member, name)
    loaded = BIND(ClientOpenExt, "TIFFClientOpenExt") && BIND(Close, "TIFFClose") &&
             BIND(ComputeTile, "TIFFComputeTile") && BIND(GetField, "TIFFGetField") &&
             BIND(GetFieldDefaulted, "TIFFGetFieldDefaulted") &&
             BIND(GetStrileByteCount, "TIFFGetStrileByteCount") &&
             BIND(GetStrileOffset, "TIFFGetStrileOffset") &&
             BIND(IsByteSwapped, "TIFFIsByteSwapped") && BIND(IsTiled, "TIFFIsTiled") &&
             BIND(NumberOfDirectories, "TIFFNumberOfDirectories") &&
             BIND(NumberOfStrips, "TIFFNumberOfStrips") &&
             BIND(OpenOptionsAlloc, "TIFFOpenOptionsAlloc") &&
             BIND(OpenOptionsFree, "TIFFOpenOptionsFree") &&
             BIND(OpenOptionsSetErrorHandlerExtR, "TIFFOpenOptionsSetErrorHandlerExtR") &&
             BIND(OpenOptionsSetMaxSingleMemAlloc, "TIFFOpenOptionsSetMaxSingleMemAlloc") &&
             BIND(OpenOptionsSetWarningHandlerExtR, "TIFFOpenOptionsSetWarningHandlerExtR") &&
             BIND(ReadEncodedStrip, "TIFFReadEncodedStrip") &&
             BIND(ReadEncodedTile, "TIFFReadEncodedTile") && BIND(SetField, "TIFFSetField") &&
             BIND(WriteDirectory, "TIFFWriteDirectory") &&
             BIND(WriteEncodedStrip, "TIFFWriteEncodedStrip") &&
             BIND(WriteRawStrip, "TIFFWriteRawStrip");
#undef BIND
    if (loaded) {
        gi__tiff_lib = t;
    } else {
        dlclose(h);
    }
}

int gi__tiff_load(void)
{
    pthread_once(&load_once, load);
    return loaded;
}

const char *gi__tiff_load_error(void)
{
    gi__tiff_load();
    return why_not;
}
