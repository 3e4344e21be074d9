/* Per-thread error detail, set by the library and read by gi_last_error(). */
#ifndef GI_ERROR_H
#define GI_ERROR_H

#include <stdint.h>

#include "gpuimg.h"

/* Records a printf-style detail for this thread and returns `status`,
 * so a failure reads: return gi__fail(GI_ERR_IO, "%s: %s", path, why); */
gi_status gi__fail(gi_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* GI_ERR_TOO_LARGE for an input of w x h pixels over the limit, named by
 * the option and the variable that set it, which is what a user needs to
 * know to raise it: "NAME: WxH is over the N-pixel limit (--max-pixels,
 * GPUIMG_MAX_PIXELS)". */
gi_status gi__fail_pixel_limit(const char *name, uint64_t w, uint64_t h, uint64_t max_pixels);

#endif
