/* The CPU backend's only state, its thread count: apart from the
 * operation table (backend.c), so that the operations and the benchmarks
 * that read it do not depend on the table that names them. */
#include <stdlib.h>

#include "cpu_backend.h"
#include "cpu_parallel.h"

typedef struct {
    int threads;
} cpu_state;

gi_status gi__cpu_state_create(int threads, void **state)
{
    cpu_state *s = malloc(sizeof *s);
    if (!s) return gi__fail(GI_ERR_NO_MEMORY, "cannot allocate the CPU backend");
    s->threads = threads > 0 ? threads : gi__cpu_count();
    *state = s;
    return GI_OK;
}

void gi__cpu_state_destroy(void *state)
{
    free(state);
}

void gi__cpu_backend_set_threads(void *state, int threads)
{
    ((cpu_state *)state)->threads = threads > 0 ? threads : gi__cpu_count();
}

int gi__cpu_threads(const void *state)
{
    return ((const cpu_state *)state)->threads;
}
