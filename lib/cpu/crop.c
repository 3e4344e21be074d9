/* CPU crop: the rectangle's rows copied as they are (gpuimg.h, crop). */
#include <string.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

typedef struct {
    const gi_image *src;
    gi_image *dst;
    int x0, y0;
} crop_job;

static int crop_band(void *arg, int y0, int y1)
{
    const crop_job *j = arg;
    const size_t ch = (size_t)j->src->channels * (size_t)gi_image_sample_bytes(j->src);
    const size_t row = (size_t)j->dst->width * ch;
    for (int y = y0; y < y1; y++)
        memcpy(j->dst->data + (size_t)y * j->dst->stride,
               j->src->data + (size_t)(j->y0 + y) * j->src->stride + (size_t)j->x0 * ch, row);
    return 0;
}

gi_status gi__cpu_crop(void *state, const gi_image *src, gi_image *dst, int x0, int y0)
{
    crop_job j = {src, dst, x0, y0};
    gi__parallel_rows(gi__cpu_threads_for(state, dst, dst, 1), dst->height, crop_band, &j);
    return GI_OK;
}
