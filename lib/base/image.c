/* Image buffers: allocation with overflow-checked sizes. */
#include <stdlib.h>
#include <string.h>

#include "gi_error.h"
#include "gi_size.h"
#include "pixel_alloc.h"

gi_status gi_image_alloc(gi_image *img, int width, int height, int channels)
{
    GI__REFUSE_NULL(img);
    return gi_image_alloc_depth(img, width, height, channels, 8);
}

int gi_image_sample_bytes(const gi_image *img)
{
    if (!img) return 0;
    return img->depth == 16 ? 2 : 1;
}

gi_status gi_image_alloc_depth(gi_image *img, int width, int height, int channels, int depth)
{
    size_t bytes;
    GI__REFUSE_NULL(img);
    memset(img, 0, sizeof *img);
    if (depth != 8 && depth != 16)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "depth %d: images have 8 or 16 bits per sample",
                        depth);
    const int sample = depth / 8;
    if (channels < 1 || channels > 4)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%d channels: images have 1 to 4", channels);
    if (width < 1 || height < 1)
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%dx%d: width and height must be at least 1",
                        width, height);
    if (gi__image_bytes_at(width, height, channels, sample, &bytes))
        return gi__fail(GI_ERR_TOO_LARGE, "%dx%d with %d channels does not fit in memory",
                        width, height, channels);
    img->data = gi__pixels_alloc(bytes);
    if (!img->data)
        return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate %zu bytes for a %dx%d image",
                        bytes, width, height);
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->stride = (size_t)width * (size_t)channels * (size_t)sample;
    img->owns_data = 1;
    img->depth = depth;
    return GI_OK;
}

void gi_image_free(gi_image *img)
{
    if (!img) return;
    if (img->owns_data) gi__pixels_free(img->data);
    memset(img, 0, sizeof *img);
}

/* The buffers gpuimg.h hands out besides pixels come from malloc. */
void gi_free(void *buffer)
{
    free(buffer);
}
