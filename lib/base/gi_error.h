/* Per-thread error detail, set by the library and read by gi_last_error(). */
#ifndef GI_ERROR_H
#define GI_ERROR_H

#include "gpuimg.h"

/* Records a printf-style detail for this thread and returns `status`,
 * so a failure reads: return gi__fail(GI_ERR_IO, "%s: %s", path, why); */
gi_status gi__fail(gi_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
