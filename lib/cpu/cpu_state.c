/* The CPU backend's state, its thread count and the resize's recent
 * tables: apart from the operation table (backend.c), so that the
 * operations and the benchmarks that read it do not depend on the table
 * that names them. A context, and so its backend, is one thread's at a
 * time (gpuimg.h): the tables need no lock. */
#include <stdlib.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"
#include "base/overrides.h"

typedef struct {
    int threads;
    gi__resize_plan *resize_plans[GI_CPU_RESIZE_PLANS];
} cpu_state;

gi_status gi__cpu_state_create(int threads, void **state)
{
    cpu_state *s = calloc(1, sizeof *s);
    if (!s) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate the CPU backend");
    s->threads = threads > 0 ? threads : gi__cpu_count();
    *state = s;
    return GI_OK;
}

void gi__cpu_state_destroy(void *state)
{
    cpu_state *s = state;
    if (!s) return;
    for (int i = 0; i < GI_CPU_RESIZE_PLANS; i++) gi__resize_plan_free(s->resize_plans[i]);
    free(s);
}

gi__resize_plan **gi__cpu_resize_plans(void *state)
{
    return ((cpu_state *)state)->resize_plans;
}

void gi__cpu_backend_set_threads(void *state, int threads)
{
    ((cpu_state *)state)->threads = threads > 0 ? threads : gi__cpu_count();
}

int gi__cpu_threads(const void *state)
{
    return ((const cpu_state *)state)->threads;
}

/* The bytes of an image's pixels (NULL: 0). */
static double image_bytes(const gi_image *img)
{
    return img ? (double)img->width * img->height * img->channels * gi_image_sample_bytes(img) : 0;
}

int gi__cpu_threads_for(const void *state, const gi_image *src, const gi_image *dst, int cost)
{
    const int most = gi__cpu_threads(state);
    if (gi__process_overrides()->split_small) return most;
    const double worth = (image_bytes(src) + image_bytes(dst)) * cost / GI_BYTES_A_THREAD;
    return worth < 1 ? 1 : worth >= most ? most : (int)worth;
}
