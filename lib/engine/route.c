/* Where an image runs (route.h). */
#include "route.h"

#include <stdio.h>

int gi__route_settles_on_cuda(gi_device requested, int hinted, int plan_says_cuda)
{
    return requested == GI_DEVICE_CUDA ||
           (requested == GI_DEVICE_AUTO && (!hinted || plan_says_cuda));
}

gi__run gi__route_work(const gi__plan_input *in, const gi__device_costs *costs, gi__plan *plan)
{
    gi__plan_device(in, costs, plan);
    if (plan->device == GI_DEVICE_CUDA) return GI__RUN_CUDA;
    return plan->use_cuda ? GI__RUN_CPU_START_CUDA : GI__RUN_CPU;
}

gi__run gi__route_unknown_work(gi__cuda_phase cuda)
{
    return cuda == GI__CUDA_READY ? GI__RUN_CUDA : GI__RUN_CPU;
}

/* Whether GPU a finishes sooner than b (finish times fa, fb). */
static int sooner(double fa, const gi__gpu_load *a, double fb, const gi__gpu_load *b)
{
    if (fa != fb) return fa < fb;
    return (a->free_lanes > 0) > (b->free_lanes > 0);
}

int gi__route_gpu(const gi__gpu_load *gpus, int n, double work, char *why, size_t why_size)
{
    int best = -1, runner_up = -1;
    double finish[GI_MAX_GPUS];
    for (int g = 0; g < n && g < GI_MAX_GPUS; g++) {
        if (!gpus[g].open) continue;
        finish[g] = (gpus[g].queued + work) / (gpus[g].rate > 0 ? gpus[g].rate : 1);
        if (best < 0 || sooner(finish[g], &gpus[g], finish[best], &gpus[best])) {
            runner_up = best;
            best = g;
        } else if (runner_up < 0 || sooner(finish[g], &gpus[g], finish[runner_up], &gpus[runner_up])) {
            runner_up = g;
        }
    }
    if (why_size) *why = '\0';
    if (best < 0) return -1;
    const gi__gpu_load *b = &gpus[best];
    if (runner_up < 0)
        snprintf(why, why_size, "gpu %d: the batch's only GPU", b->index);
    else
        snprintf(why, why_size, "gpu %d: finishes it first (%.1f MP queued at rate %.2f, against "
                 "gpu %d's %.1f MP at %.2f)", b->index, b->queued, b->rate, gpus[runner_up].index,
                 gpus[runner_up].queued, gpus[runner_up].rate);
    return best;
}

int gi__route_retries_on_cpu(gi_device requested, gi_status st, int ran_on_cpu)
{
    return requested == GI_DEVICE_AUTO && st == GI_ERR_NO_MEMORY && !ran_on_cpu;
}

void gi__route_jpeg(const gi__route_engine *e, gi__jpeg_route *route)
{
    const int asked = e->requested == GI_DEVICE_CUDA;
    const int planned = e->requested == GI_DEVICE_AUTO && e->cuda_planned;
    *route = (gi__jpeg_route){.on_cuda = asked || planned, .planned = !asked,
                              .cores = e->cores < 1 ? 1 : e->cores,
                              .lanes = e->lanes < 1 ? 1 : e->lanes, .pipelined = e->pipelined};
}

int gi__route_gpu_helpers(gi_device requested, long images, double frame_pixels, int cores,
                          const gi__device_costs *costs)
{
    return requested == GI_DEVICE_AUTO && gi__plan_gpu_helpers(images, frame_pixels, cores, costs);
}

int gi__route_to_helpers(int lanes_open, int files_waiting, int cores, gi__jpeg_route *route)
{
    if (lanes_open < 1 || files_waiting >= lanes_open) return 0;
    const gi__route_engine engine = {.requested = GI_DEVICE_CUDA, .cores = cores,
                                     .lanes = lanes_open, .pipelined = 1};
    gi__route_jpeg(&engine, route); /* entropy_on_host 0: the device decodes the codes */
    return 1;
}

int gi__route_jpeg_arithmetic(const gi__overrides *o, const gi__jpeg_route *route,
                              const gi__jpeg_route_input *in, const gi__device_costs *costs,
                              char *why, size_t why_size)
{
    if (why_size) *why = '\0';
    if (o->jpeg_arithmetic != GI__FORCE_NONE) {
        const int gpu = o->jpeg_arithmetic == GI__FORCE_GPU;
        snprintf(why, why_size, "JPEG arithmetic on the %s: GPUIMG_JPEG_ARITHMETIC",
                 gpu ? "GPU" : "CPU");
        return gpu;
    }
    if (!route->planned) return 1;
    if (!in) return 0;
    return gi__plan_jpeg_route(in, costs, why, why_size);
}

gi__lane_take gi__route_lane_take(int bridge, int on_cuda, int helper_lanes, int cuda_lanes,
                                  int cpu_lanes)
{
    if (bridge || helper_lanes > 0) return GI__TAKE_HOST_JOBS;
    if (cuda_lanes > 0 && cpu_lanes > 0)
        return on_cuda ? GI__TAKE_DEVICE_JOBS_FIRST : GI__TAKE_HOST_JOBS;
    return GI__TAKE_HEAD;
}

int gi__route_shrunk_on_host(const gi__overrides *o, const gi__jpeg_route *route,
                             int shrinks_jpeg)
{
    return shrinks_jpeg && route && route->on_cuda && route->planned && route->entropy_on_host &&
           o->jpeg_arithmetic == GI__FORCE_NONE && o->jpeg_entropy == GI__FORCE_NONE;
}

int gi__route_defers_entropy(const gi__overrides *o, const gi__jpeg_route *route)
{
    if (o->jpeg_entropy != GI__FORCE_NONE) return o->jpeg_entropy == GI__FORCE_GPU;
    return !route->entropy_on_host;
}
