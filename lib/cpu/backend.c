/* The CPU backend's operation table and its only state, the thread count. */
#include <stdlib.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

typedef struct {
    int threads;
} cpu_state;

int gi__cpu_threads(const void *state)
{
    return ((const cpu_state *)state)->threads;
}

static void cpu_destroy(void *state)
{
    free(state);
}

const gi__backend_ops gi__cpu_ops = {
    .name = "cpu",
    .run_chain = gi__cpu_run_chain,
    .time_op = gi__cpu_time_op,
    .copy_bandwidth = gi__cpu_copy_bandwidth,
    .paper = gi__cpu_paper,
    .destroy = cpu_destroy,
    .compare = gi__cpu_compare,
};

gi_status gi__cpu_backend_create(int threads, const gi__backend_ops **ops, void **state)
{
    cpu_state *s = malloc(sizeof *s);
    if (!s) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate the CPU backend");
    s->threads = threads > 0 ? threads : gi__cpu_count();
    *ops = &gi__cpu_ops;
    *state = s;
    return GI_OK;
}
