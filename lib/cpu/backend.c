/* The CPU backend's operation table; its state is cpu_state.c's. */
#include "cpu_backend.h"

const gi__backend_ops gi__cpu_ops = {
    .name = "cpu",
    .run_chain = gi__cpu_run_chain,
    .run_chain_from_jpeg = gi__cpu_run_chain_from_jpeg,
    .destroy = gi__cpu_state_destroy,
    .compare = gi__cpu_compare,
};

gi_status gi__cpu_backend_create(int threads, const gi__backend_ops **ops, void **state)
{
    gi_status st = gi__cpu_state_create(threads, state);
    if (st == GI_OK) *ops = &gi__cpu_ops;
    return st;
}
