/* What the CUDA backend's own library (libgpuimg-cuda, meson.build says
 * why it is one) takes from libgpuimg's insides: the error buffer, the
 * clock, the environment's overrides, the pixel allocator's page-locked
 * pool and the JPEG codecs' shared arithmetic (shrink-on-load's geometry
 * and tables among it). libgpuimg exports only gpuimg.h, so
 * module_loader.c hands these over once, as it loads the module, and
 * module_host.c defines them in the module as calls through what it was
 * given. (The JPEG tables are constants: the module compiles
 * jpeg_tables.c in.) */
#ifndef GI_CUDA_MODULE_HOST_H
#define GI_CUDA_MODULE_HOST_H

#include "base/clock.h"
#include "base/gi_error.h"
#include "base/overrides.h"
#include "base/pixel_alloc.h"
#include "codec/jpeg/jpeg_recon_plan.h"
#include "codec/jpeg/jpeg_shrink.h"
#include "codec/jpeg/jpeg_write.h"

typedef struct gi__cuda_host {
    __typeof__(gi__fail) *fail;
    __typeof__(gi__now_ms) *now_ms;
    __typeof__(gi__median) *median;
    __typeof__(gi__process_overrides) *process_overrides;
    __typeof__(gi__pixels_pinned) *pixels_pinned;
    __typeof__(gi__pixels_use_pinned) *pixels_use_pinned;
    __typeof__(gi__jpeg_colour_mode) *jpeg_colour_mode;
    __typeof__(gi__jpeg_components_used) *jpeg_components_used;
    __typeof__(gi__jpeg_upsampler) *jpeg_upsampler;
    __typeof__(gi__jpeg_shrinkable) *jpeg_shrinkable;
    __typeof__(gi__jpeg_reduced_geometry) *jpeg_reduced_geometry;
    __typeof__(gi__jpeg_reduced_table) *jpeg_reduced_table;
    __typeof__(gi__jpeg_write_tables) *jpeg_write_tables;
    __typeof__(gi__jpeg_write_around_scan) *jpeg_write_around_scan;
} gi__cuda_host;

/* libgpuimg's own functions, as module_loader.c hands them over. */
#define GI__CUDA_HOST_INIT                                                              \
    {gi__fail, gi__now_ms, gi__median, gi__process_overrides, gi__pixels_pinned, gi__pixels_use_pinned,        \
     gi__jpeg_colour_mode, gi__jpeg_components_used, gi__jpeg_upsampler,                \
     gi__jpeg_shrinkable, gi__jpeg_reduced_geometry, gi__jpeg_reduced_table,            \
     gi__jpeg_write_tables, gi__jpeg_write_around_scan}

/* In the module: keeps *host for the calls above. The loader calls it
 * before anything else of the module. */
__attribute__((visibility("default"))) void gi__cuda_module_bind(const gi__cuda_host *host);

#endif
