/* A choice of GPUs (gpuimg.h, gi_gpus): parsed from "all" or a list, and
 * checked against the devices CUDA sees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/gi_error.h"

/* One index, or a range "a-b", from *p up to a ',' or the end; its first
 * and last index into *first, *last. -1 with the message when malformed. */
static int parse_item(const char **p, int *first, int *last)
{
    char *end;
    const char *s = *p;
    if (*s < '0' || *s > '9') return -1;
    long a = strtol(s, &end, 10), b = a;
    if (*end == '-') {
        s = end + 1;
        if (*s < '0' || *s > '9') return -1;
        b = strtol(s, &end, 10);
    }
    if (*end != ',' && *end != '\0') return -1;
    if (a >= GI_MAX_GPUS || b >= GI_MAX_GPUS || b < a) return -1;
    *first = (int)a;
    *last = (int)b;
    *p = *end ? end + 1 : end;
    return **p || !*end ? 0 : -1; /* a trailing ',' is malformed */
}

gi_status gi_gpus_parse(const char *text, gi_gpus *out)
{
    GI__REFUSE_NULL(text, out);
    memset(out, 0, sizeof *out);
    if (strcmp(text, "all") == 0) return GI_OK;
    const char *p = text;
    gi_gpus got = {0};
    while (*p || p == text) {
        int first, last;
        if (parse_item(&p, &first, &last) != 0)
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "expected all, an index N or a list such as "
                            "0,2 or 0-3 (indices 0 to %d, ranges ascending)", GI_MAX_GPUS - 1);
        for (int g = first; g <= last; g++) {
            for (int k = 0; k < got.count; k++)
                if (got.index[k] == g)
                    return gi__fail(GI_ERR_INVALID_ARGUMENT, "GPU %d is named twice", g);
            got.index[got.count++] = g;
        }
    }
    *out = got;
    return GI_OK;
}

gi_status gi_gpus_resolve(const gi_gpus *chosen, gi_gpus *out)
{
    GI__REFUSE_NULL(chosen, out);
    const char *why = "";
    int n = gi_cuda_device_count(&why);
    memset(out, 0, sizeof *out);
    if (n == 0) return gi__fail(GI_ERR_NO_DEVICE, "%s", why);
    if (n > GI_MAX_GPUS) n = GI_MAX_GPUS;
    if (chosen->count == 0) {
        for (int g = 0; g < n; g++) out->index[g] = g;
        out->count = n;
        return GI_OK;
    }
    for (int k = 0; k < chosen->count; k++)
        if (chosen->index[k] < 0 || chosen->index[k] >= n) {
            const char *visible = getenv("CUDA_VISIBLE_DEVICES");
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "GPU %d: %d GPU%s visible (indices 0 to %d%s%s)",
                            chosen->index[k], n, n == 1 ? " is" : "s are", n - 1,
                            visible ? ", CUDA_VISIBLE_DEVICES=" : "", visible ? visible : "");
        }
    *out = *chosen;
    return GI_OK;
}
