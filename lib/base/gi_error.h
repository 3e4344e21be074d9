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

/* gpuimg.h's rule for NULL (ERRORS), the one check of it: at the top of a
 * public function, GI__REFUSE_NULL(ctx, src, dst, p) returns
 * GI_ERR_INVALID_ARGUMENT for the first of those pointers that is NULL,
 * named as gpuimg.h names it ("gi_blur: p is NULL"), so the parameters'
 * names in the definition are the header's. */
#define GI__REFUSE_NULL(...)                                                                 \
    do {                                                                                     \
        const void *const gi__args_[] = {__VA_ARGS__};                                       \
        const gi_status gi__st_ = gi__refuse_null(__func__, #__VA_ARGS__, gi__args_,         \
                                                  sizeof gi__args_ / sizeof gi__args_[0]);   \
        if (gi__st_ != GI_OK) return gi__st_;                                                \
    } while (0)
/* What GI__REFUSE_NULL calls: names is the arguments' text, "ctx, src". */
gi_status gi__refuse_null(const char *function, const char *names, const void *const *args,
                          size_t count);

#endif
