/* gi_convert_depth: the one change of depth (gpuimg.h defines the rule). */
#include <string.h>

#include "gi_error.h"
#include "gpuimg.h"

static int depth_of(const gi_image *img)
{
    return img->depth == 16 ? 16 : 8;
}

gi_status gi_convert_depth(const gi_image *src, gi_image *dst)
{
    GI__REFUSE_NULL(src, dst);
    if (!src->data || !dst->data)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "gi_convert_depth: an image has no pixels");
    if ((src->depth && src->depth != 8 && src->depth != 16) ||
        (dst->depth && dst->depth != 8 && dst->depth != 16))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "gi_convert_depth: depths are 8 or 16");
    if (dst->width != src->width || dst->height != src->height || dst->channels != src->channels)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "gi_convert_depth: the destination is %dx%dx%d, "
                        "the source %dx%dx%d", dst->width, dst->height, dst->channels,
                        src->width, src->height, src->channels);
    const int from = depth_of(src), to = depth_of(dst);
    const size_t samples = (size_t)src->width * (size_t)src->channels;
    if (src->stride < samples * (size_t)(from / 8) || dst->stride < samples * (size_t)(to / 8))
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "gi_convert_depth: a stride is too short");
    for (int y = 0; y < src->height; y++) {
        const uint8_t *s = src->data + src->stride * (size_t)y;
        uint8_t *d = dst->data + dst->stride * (size_t)y;
        if (from == to) {
            memmove(d, s, samples * (size_t)(to / 8));
        } else if (to == 16) {
            uint16_t *d16 = (uint16_t *)(void *)d;
            for (size_t i = 0; i < samples; i++) d16[i] = (uint16_t)(s[i] * 257u);
        } else {
            const uint16_t *s16 = (const uint16_t *)(const void *)s;
            for (size_t i = 0; i < samples; i++) d[i] = (uint8_t)((s16[i] + 128u) / 257u);
        }
    }
    return GI_OK;
}
