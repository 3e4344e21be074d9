/* lib/route.c and lib/overrides.c: where an image runs, from costs and
 * overrides given here (the device each caller's situation gets), and the
 * environment's variables: each looked up once, its values parsed, a bad
 * one named; the process's read once, so that changing the environment
 * afterwards changes nothing.
 *   test_route              every check but the last
 *   test_route bad-env      with GPUIMG_CPU_ISA set to a bad value: the
 *                           library refuses it, naming the variable */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/overrides.h"
#include "engine/route.h"

static const char *device_name(gi_device d)
{
    return d == GI_DEVICE_CUDA ? "cuda" : d == GI_DEVICE_CPU ? "cpu" : "auto";
}

/* ---------------------------------------------------------------- steps */

static void check_settling(void)
{
    static const struct {
        gi_device requested;
        int hinted, plan_says_cuda, cuda;
    } cases[] = {
        {GI_DEVICE_CPU, 0, 0, 0}, {GI_DEVICE_CPU, 1, 1, 0},  {GI_DEVICE_CUDA, 0, 0, 1},
        {GI_DEVICE_CUDA, 1, 0, 1}, {GI_DEVICE_AUTO, 0, 0, 1}, /* no hint: CUDA when usable */
        {GI_DEVICE_AUTO, 1, 0, 0}, {GI_DEVICE_AUTO, 1, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        th_check(gi__route_settles_on_cuda(cases[i].requested, cases[i].hinted,
                                           cases[i].plan_says_cuda) == cases[i].cuda,
                 "settling %s, hinted %d, plan says cuda %d: want %s", device_name(cases[i].requested),
                 cases[i].hinted, cases[i].plan_says_cuda, cases[i].cuda ? "cuda" : "cpu");
}

/* Round costs: a CPU of 10 ns a pixel and thread for sobel, a GPU 1000
 * times faster, a start-up of 200 ms. */
static gi__device_costs costs(void)
{
    gi__device_costs c = {.cpu_call_ms = 0.2, .cuda_start_ms = 200, .pin_gbps = 2,
                          .cuda_exit_ms = 100, .upload_gbps = 6, .download_gbps = 3,
                          .staging_gbps = 8, .gpu_launch_ms = 0.1};
    for (int ch = 0; ch < 4; ch++) {
        c.cpu[GI_OP_SOBEL][ch] = (gi__rate){10, 0};
        c.gpu[GI_OP_SOBEL][ch] = (gi__rate){0.01, 0};
    }
    return c;
}

static gi__run route_planned_sobel(int width, int height, long images, gi__cuda_phase cuda,
                                   int planned_ahead, int threads)
{
    gi__plan_input in = {.job = {.n = 1, .steps = {{GI_OP_SOBEL, 1, width, height, 3}},
                                 .out_bytes = 3.0 * width * height},
                         .images = images, .cpu_threads = threads, .cuda = cuda,
                         .pipelined = 1, .planned_ahead = planned_ahead};
    gi__device_costs c = costs();
    gi__plan plan;
    gi__run run = gi__route_work(&in, &c, &plan);
    th_check((run == GI__RUN_CUDA) == (plan.device == GI_DEVICE_CUDA) &&
                 (run != GI__RUN_CPU) == plan.use_cuda,
             "run %d against the plan (device %s, use_cuda %d): %s", (int)run,
             device_name(plan.device), plan.use_cuda, plan.reason);
    return run;
}

static gi__run route_sobel(int width, int height, long images, gi__cuda_phase cuda)
{
    return route_planned_sobel(width, height, images, cuda, 0, 4);
}

static void check_work(void)
{
    /* a thumbnail: 7.5 ms on 4 threads against 200 of start-up */
    th_check(route_sobel(1000, 1000, 1, GI__CUDA_COLD) == GI__RUN_CPU, "one small image: the CPU");
    /* many photos repay the start, which the first image does not wait for */
    th_check(route_sobel(3000, 3000, 1000, GI__CUDA_COLD) == GI__RUN_CPU_START_CUDA,
             "1000 photos, CUDA cold: the CPU while CUDA starts");
    th_check(route_sobel(3000, 3000, 1000, GI__CUDA_READY) == GI__RUN_CUDA,
             "1000 photos, CUDA ready: CUDA");
    th_check(route_sobel(3000, 3000, 1000, GI__CUDA_ABSENT) == GI__RUN_CPU,
             "1000 photos, no CUDA: the CPU");
    /* a batch planned ahead on the CPU: one image of it does not start
     * CUDA for the rest, unless it alone repays the start; once CUDA is
     * started (the plan chose it), the images to come count again */
    th_check(route_planned_sobel(3000, 3000, 1000, GI__CUDA_COLD, 1, 4) == GI__RUN_CPU,
             "an image of a batch planned ahead, CUDA cold: the CPU, CUDA left cold");
    th_check(route_planned_sobel(20000, 20000, 1000, GI__CUDA_COLD, 1, 1) != GI__RUN_CPU,
             "an image that alone repays the start (4 s on one thread): CUDA");
    th_check(route_planned_sobel(3000, 3000, 1000, GI__CUDA_STARTING, 1, 4) != GI__RUN_CPU &&
                 route_planned_sobel(3000, 3000, 1000, GI__CUDA_READY, 1, 4) == GI__RUN_CUDA,
             "a batch planned ahead onto CUDA: its images go on counting together");
    th_check(gi__route_unknown_work(GI__CUDA_READY) == GI__RUN_CUDA &&
                 gi__route_unknown_work(GI__CUDA_STARTING) == GI__RUN_CPU &&
                 gi__route_unknown_work(GI__CUDA_COLD) == GI__RUN_CPU &&
                 gi__route_unknown_work(GI__CUDA_ABSENT) == GI__RUN_CPU,
             "work without an estimate: CUDA only when it is started");
}

static void check_retries(void)
{
    th_check(gi__route_retries_on_cpu(GI_DEVICE_AUTO, GI_ERR_NO_MEMORY, 0),
             "AUTO, out of device memory: again on the CPU");
    th_check(!gi__route_retries_on_cpu(GI_DEVICE_AUTO, GI_ERR_NO_MEMORY, 1),
             "AUTO, out of memory on the CPU itself: no retry");
    th_check(!gi__route_retries_on_cpu(GI_DEVICE_CUDA, GI_ERR_NO_MEMORY, 0),
             "CUDA asked for: its failure stands");
    th_check(!gi__route_retries_on_cpu(GI_DEVICE_AUTO, GI_ERR_DEVICE, 0) &&
                 !gi__route_retries_on_cpu(GI_DEVICE_AUTO, GI_OK, 0),
             "AUTO: only running out of memory is retried");
}

/* ---------------------------------------------------------------- JPEGs */

static void check_jpeg_route(void)
{
    static const struct {
        gi_device requested;
        int cuda_planned, on_cuda, planned;
    } cases[] = {
        {GI_DEVICE_CPU, 1, 0, 1},  {GI_DEVICE_CUDA, 0, 1, 0}, {GI_DEVICE_CUDA, 1, 1, 0},
        {GI_DEVICE_AUTO, 0, 0, 1}, {GI_DEVICE_AUTO, 1, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const gi__route_engine e = {cases[i].requested, cases[i].cuda_planned, 6, 3, 1};
        gi__jpeg_route r;
        gi__route_jpeg(&e, &r);
        th_check(r.on_cuda == cases[i].on_cuda && (!r.on_cuda || r.planned == cases[i].planned) &&
                     r.cores == 6 && r.lanes == 3 && r.pipelined == 1 && !r.encodes_jpeg,
                 "%s, cuda planned %d: on_cuda %d planned %d, want %d %d",
                 device_name(cases[i].requested), cases[i].cuda_planned, r.on_cuda, r.planned,
                 cases[i].on_cuda, cases[i].planned);
    }
    /* a lone image's engine: no codec workers count as one core */
    gi__jpeg_route r;
    gi__route_jpeg(&(gi__route_engine){GI_DEVICE_CUDA, 0, 0, 0, 0}, &r);
    th_check(r.cores == 1 && r.lanes == 1, "no workers: %d cores, %d lanes", r.cores, r.lanes);
}

/* One 9 MP 4:2:0 JPEG alone, whose arithmetic half the plan sends to the
 * GPU with these costs. */
static void check_jpeg_arithmetic(void)
{
    gi__device_costs c = costs();
    c.cpu_jpeg_reconstruct_ns = 2;
    c.cpu_jpeg_rest_ns = 4;
    c.gpu_jpeg_reconstruct_ns = 0.02;
    const double px = 9e6;
    const gi__jpeg_route_input in = {.pixels = px, .pixel_bytes = 3 * px, .coeff_bytes = 3 * px,
                                     .out_bytes = 3 * px, .cores = 1, .lanes = 1,
                                     .out_pixels = px};
    const gi__jpeg_route planned = {.on_cuda = 1, .planned = 1, .cores = 1, .lanes = 1};
    const gi__jpeg_route asked = {.on_cuda = 1, .planned = 0, .cores = 1, .lanes = 1};
    gi__overrides none = {.isa_cap = GI__ISA_AVX512}, cpu = none, gpu = none;
    cpu.jpeg_arithmetic = GI__FORCE_CPU;
    gpu.jpeg_arithmetic = GI__FORCE_GPU;
    char why[200];
    th_check(gi__route_jpeg_arithmetic(&none, &planned, &in, &c, why, sizeof why) == 1 &&
                 strstr(why, "on the GPU"), "planned: the GPU, as the plan says: %s", why);
    th_check(gi__route_jpeg_arithmetic(&none, &planned, NULL, &c, why, sizeof why) == 0,
             "planned, result size unknown: the host");
    th_check(gi__route_jpeg_arithmetic(&none, &asked, NULL, &c, why, sizeof why) == 1 && !*why,
             "CUDA asked for: every file to the device, no reason (\"%s\")", why);
    th_check(gi__route_jpeg_arithmetic(&cpu, &planned, &in, &c, why, sizeof why) == 0 &&
                 strcmp(why, "JPEG arithmetic on the CPU: GPUIMG_JPEG_ARITHMETIC") == 0,
             "forced to the CPU over the plan: %s", why);
    th_check(gi__route_jpeg_arithmetic(&cpu, &asked, NULL, &c, why, sizeof why) == 0,
             "forced to the CPU, CUDA asked for: the CPU");
    th_check(gi__route_jpeg_arithmetic(&gpu, &planned, NULL, &c, why, sizeof why) == 1 &&
                 strstr(why, "GPUIMG_JPEG_ARITHMETIC"), "forced to the GPU: %s", why);
    gi__overrides entropy = none;
    gi__jpeg_route behind = planned;
    behind.entropy_on_host = 1;
    th_check(gi__route_defers_entropy(&none, &planned), "the Huffman decoding may go to the device");
    th_check(!gi__route_defers_entropy(&none, &behind),
             "the lanes behind: the Huffman decoding on the codec workers");
    entropy.jpeg_entropy = GI__FORCE_GPU;
    th_check(gi__route_defers_entropy(&entropy, &planned) &&
                 gi__route_defers_entropy(&entropy, &behind),
             "GPUIMG_JPEG_ENTROPY=gpu: to the device, lanes behind or not");
    entropy.jpeg_entropy = GI__FORCE_CPU;
    th_check(!gi__route_defers_entropy(&entropy, &planned) &&
                 !gi__route_defers_entropy(&entropy, &behind),
             "GPUIMG_JPEG_ENTROPY=cpu: on the codec workers");
    /* a thumbnail's JPEG with the lanes behind: decoded whole on the host */
    th_check(gi__route_shrunk_on_host(&none, &behind, 1), "shrunk, lanes behind: the host");
    th_check(!gi__route_shrunk_on_host(&none, &behind, 0), "not shrunk: the plan's route");
    th_check(!gi__route_shrunk_on_host(&none, &planned, 1), "lanes not behind: the plan's route");
    gi__jpeg_route behind_asked = asked;
    behind_asked.entropy_on_host = 1;
    th_check(!gi__route_shrunk_on_host(&none, &behind_asked, 1), "CUDA asked for: the device");
    gi__jpeg_route behind_off = behind;
    behind_off.on_cuda = 0;
    th_check(!gi__route_shrunk_on_host(&none, &behind_off, 1) &&
                 !gi__route_shrunk_on_host(&none, NULL, 1),
             "no route to the device: nothing to decide");
    th_check(!gi__route_shrunk_on_host(&cpu, &behind, 1) && !gi__route_shrunk_on_host(&gpu, &behind, 1) &&
                 !gi__route_shrunk_on_host(&entropy, &behind, 1),
             "GPUIMG_JPEG_ARITHMETIC or GPUIMG_JPEG_ENTROPY set: where they say");
}

/* ---------------------------------------------------------------- GPUs */

/* A batch's image goes to the GPU that finishes it first. */
static void check_gpu_route(void)
{
    char why[200];
    gi__gpu_load one[1] = {{.index = 3, .rate = 1, .queued = 50, .free_lanes = 0, .open = 4}};
    th_check(gi__route_gpu(one, 1, 12, why, sizeof why) == 0 &&
                 strcmp(why, "gpu 3: the batch's only GPU") == 0,
             "one GPU takes every image, busy or not: \"%s\"", why);
    gi__gpu_load two[2] = {{.index = 0, .rate = 1, .free_lanes = 4, .open = 4},
                           {.index = 1, .rate = 1, .free_lanes = 4, .open = 4}};
    th_check(gi__route_gpu(two, 2, 12, why, sizeof why) == 0, "equal and idle: the first");
    two[0].queued = 12;
    two[0].free_lanes = 3;
    th_check(gi__route_gpu(two, 2, 12, why, sizeof why) == 1 &&
                 strncmp(why, "gpu 1: finishes it first (0.0 MP queued", 39) == 0,
             "equal GPUs: the least loaded: \"%s\"", why);
    two[1].queued = 12;
    two[1].free_lanes = 0;
    th_check(gi__route_gpu(two, 2, 12, why, sizeof why) == 0,
             "equal work queued: the one with a free lane");
    /* a GPU twice as fast finishes 24 MP queued plus 12 before one with
     * 12 queued does (18 against 24) */
    gi__gpu_load mixed[2] = {{.index = 0, .rate = 2, .queued = 24, .free_lanes = 0, .open = 4},
                             {.index = 1, .rate = 1, .queued = 12, .free_lanes = 2, .open = 4}};
    th_check(gi__route_gpu(mixed, 2, 12, why, sizeof why) == 0,
             "the faster GPU, busy, before the slower one, free");
    mixed[0].queued = 40; /* 26 against 24 */
    th_check(gi__route_gpu(mixed, 2, 12, why, sizeof why) == 1, "the slower GPU once it finishes first");
    mixed[1].open = 0;
    th_check(gi__route_gpu(mixed, 2, 12, why, sizeof why) == 0, "a GPU not open takes nothing");
    mixed[0].open = 0;
    th_check(gi__route_gpu(mixed, 2, 12, why, sizeof why) == -1, "no GPU open: none");
    th_check(gi__plan_gpu_rate(132) == 1 && gi__plan_gpu_rate(66) == 0.5 && gi__plan_gpu_rate(0) == 1,
             "rates against the reference's 132 multiprocessors");
}

/* The lanes a GPU gets on CUDA (device_plan.h, gi__plan_gpu_lanes): one
 * for each 100 images, between the batch's first lanes and the most, and
 * no more than fit in half the GPU's memory at 16 bytes a sample. */
static void check_gpu_lanes(void)
{
    const double photo = 3672.0 * 2448 * 3, h200 = 139.8 * (1u << 30);
    static const struct {
        long images;
        int lanes;
    } by_count[] = {{2, 4}, {499, 4}, {500, 5}, {800, 8}, {1199, 11}, {1200, 12}, {4000, 12}};
    for (size_t i = 0; i < sizeof by_count / sizeof *by_count; i++) {
        const int got = gi__plan_gpu_lanes(by_count[i].images, photo, h200, 4);
        th_check(got == by_count[i].lanes, "%ld images: %d lanes, want %d", by_count[i].images, got,
                 by_count[i].lanes);
    }
    th_check(gi__plan_gpu_lanes(4000, photo, 0, 4) == GI__GPU_LANES_MAX &&
                 gi__plan_gpu_lanes(4000, 0, h200, 4) == GI__GPU_LANES_MAX,
             "an unknown memory or size bounds nothing");
    /* 27 MB of samples a lane, 432 MB at 16 bytes: 8 GiB holds 9 in its half */
    th_check(gi__plan_gpu_lanes(4000, photo, 8.0 * (1u << 30), 4) == 9, "8 GiB: 9 lanes");
    th_check(gi__plan_gpu_lanes(4000, photo, 2.0 * (1u << 30), 4) == 4,
             "2 GiB: the first lanes, never fewer");
    th_check(gi__plan_gpu_lanes(4000, photo, h200, 16) == 16, "more first lanes than the most: kept");
    th_check(gi__plan_gpu_lanes(4000, 100e6 * 3, 96.0 * (1u << 30), 4) == 10,
             "100 MP RGB on 96 GiB: 10 lanes");
}

/* GPUs beside a thumbnail batch planned on the CPU (route.h,
 * gi__route_gpu_helpers, gi__route_to_helpers): under AUTO alone, where
 * the batch on the cores lasts three times CUDA's start-up and exit (2000
 * photos of 8 MP on 16 cores do not, 4000 do); a file goes to
 * them while fewer of theirs wait than they have lanes open, whole (every
 * file to the device, its Huffman decoding too). */
static void check_gpu_helpers(void)
{
    const gi__device_costs *c = gi__device_costs_default();
    const double mp8 = 8e6, bound = 3 * (c->cuda_start_ms + c->cuda_exit_ms);
    /* images whose batch on 16 cores lasts just over and under three times
     * CUDA's start-up and exit */
    const long over = (long)(bound * 1e6 * 16 / (mp8 * c->cpu_jpeg_shrink_ns)) + 1;
    th_check(gi__route_gpu_helpers(GI_DEVICE_AUTO, over, mp8, 16, c), "%ld photos: helpers", over);
    th_check(!gi__route_gpu_helpers(GI_DEVICE_AUTO, over - 1, mp8, 16, c), "%ld photos: none",
             over - 1);
    th_check(gi__route_gpu_helpers(GI_DEVICE_AUTO, over, mp8, 8, c) &&
                 !gi__route_gpu_helpers(GI_DEVICE_AUTO, over, mp8, 32, c),
             "fewer cores take longer: helpers pay sooner");
    th_check(!gi__route_gpu_helpers(GI_DEVICE_CPU, 100000, mp8, 16, c) &&
                 !gi__route_gpu_helpers(GI_DEVICE_CUDA, 100000, mp8, 16, c),
             "a device asked for: no helpers");
    gi__jpeg_route r;
    memset(&r, 0x5a, sizeof r);
    th_check(!gi__route_to_helpers(0, 0, 16, &r), "no lane open: the cores decode");
    th_check(!gi__route_to_helpers(4, 4, 16, &r), "as many waiting as lanes: the cores decode");
    memset(&r, 0x5a, sizeof r);
    th_check(gi__route_to_helpers(4, 3, 16, &r) && r.on_cuda && !r.planned && !r.entropy_on_host &&
                 r.cores == 16 && r.lanes == 4 && r.pipelined,
             "a lane free: the file goes to the device whole");
}

/* Which decoded jobs a batch's lane takes (gi__route_lane_take). */
static void check_lane_take(void)
{
    th_check(gi__route_lane_take(0, 0, 0, 0, 4) == GI__TAKE_HEAD &&
                 gi__route_lane_take(0, 1, 0, 4, 0) == GI__TAKE_HEAD,
             "lanes of one kind: the head");
    th_check(gi__route_lane_take(1, 0, 0, 0, 4) == GI__TAKE_HOST_JOBS &&
                 gi__route_lane_take(1, 0, 0, 3, 1) == GI__TAKE_HOST_JOBS,
             "the bridge: jobs the CPU computes at its pace");
    th_check(gi__route_lane_take(0, 0, 2, 0, 4) == GI__TAKE_HOST_JOBS &&
                 gi__route_lane_take(0, 0, 1, 0, 4) == GI__TAKE_HOST_JOBS,
             "beside helper lanes, open or opening: the CPU's jobs");
    th_check(gi__route_lane_take(0, 0, 0, 10, 3) == GI__TAKE_HOST_JOBS,
             "a CPU lane beside lanes on CUDA: leaves the device's jobs to them");
    th_check(gi__route_lane_take(0, 1, 0, 10, 3) == GI__TAKE_DEVICE_JOBS_FIRST,
             "a CUDA lane beside lanes on the CPU: the device's jobs first");
    th_check(gi__route_lane_take(0, 0, 0, 0, 3) == GI__TAKE_HEAD,
             "the last lane on CUDA gone: the CPU's lanes take the head again");
}

/* --gpus and GPUIMG_GPUS's parser (gpuimg.h, gi_gpus_parse). */
static void check_gpus_parse(void)
{
    static const struct {
        const char *text;
        int count, index[4];
    } good[] = {{"all", 0, {0}}, {"2", 1, {2}}, {"0,2", 2, {0, 2}}, {"0-3", 4, {0, 1, 2, 3}},
                {"3,1", 2, {3, 1}}, {"1-2,0", 3, {1, 2, 0}}, {"63", 1, {63}}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        gi_gpus g;
        int same = gi_gpus_parse(good[i].text, &g) == GI_OK && g.count == good[i].count;
        for (int k = 0; same && k < g.count; k++) same = g.index[k] == good[i].index[k];
        th_check(same, "'%s': %d GPUs", good[i].text, g.count);
    }
    static const char *const bad[] = {"", "x", "-1", "0,,1", "1,1", "64", "3-1", "0,", ",0",
                                      "1.5", "0-", "0-2,1", "ALL", " 1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gi_gpus g = {.count = 5};
        th_check(gi_gpus_parse(bad[i], &g) == GI_ERR_INVALID_ARGUMENT && g.count == 0 &&
                     *gi_last_error(),
                 "'%s' accepted", bad[i]);
    }
}

/* ---------------------------------------------------------------- overrides */

/* A fake environment of NAME=VALUE strings that counts its look-ups. */
typedef struct {
    const char *const *vars;
    int lookups[GI__OVERRIDE_COUNT];
} fake_env;

static const char *fake_lookup(const char *name, void *user)
{
    fake_env *env = user;
    for (int i = 0; i < GI__OVERRIDE_COUNT; i++)
        if (strcmp(name, gi__override_names[i]) == 0) env->lookups[i]++;
    const size_t n = strlen(name);
    for (const char *const *v = env->vars; *v; v++)
        if (strncmp(*v, name, n) == 0 && (*v)[n] == '=') return *v + n + 1;
    return NULL;
}

static gi_status parse(const char *const *vars, gi__overrides *o)
{
    fake_env env = {.vars = vars};
    gi_status st = gi__overrides_parse(fake_lookup, &env, o);
    for (int i = 0; i < GI__OVERRIDE_COUNT; i++)
        th_check(env.lookups[i] == 1, "%s looked up %d times", gi__override_names[i],
                 env.lookups[i]);
    return st;
}

static void check_parse(void)
{
    gi__overrides o;
    const char *none[] = {NULL};
    th_check(parse(none, &o) == GI_OK && o.isa_cap == GI__ISA_AVX512 && !o.generic_kernels &&
                 o.jpeg_arithmetic == GI__FORCE_NONE && o.jpeg_entropy == GI__FORCE_NONE &&
                 !o.fail_device_alloc && o.fail_gpu == -1,
             "the defaults");
    static const struct {
        const char *word;
        gi__isa cap;
        int generic;
    } isas[] = {{"generic", GI__ISA_BASE, 1}, {"base", GI__ISA_BASE, 0}, {"avx2", GI__ISA_AVX2, 0},
                {"avxvnni", GI__ISA_AVXVNNI, 0}, {"avx512", GI__ISA_AVX512, 0}};
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
        char var[40];
        snprintf(var, sizeof var, "GPUIMG_CPU_ISA=%s", isas[i].word);
        const char *vars[] = {var, NULL};
        th_check(parse(vars, &o) == GI_OK && o.isa_cap == isas[i].cap &&
                     o.generic_kernels == isas[i].generic,
                 "%s: cap %d generic %d", var, (int)o.isa_cap, o.generic_kernels);
    }
    const char *set[] = {"GPUIMG_JPEG_ARITHMETIC=gpu", "GPUIMG_JPEG_ENTROPY=cpu",
                         "GPUIMG_TEST_FAIL_DEVICE_ALLOC=1", "GPUIMG_CPU_ISA=",
                         "GPUIMG_TEST_FAIL_GPU=1", "GPUIMG_TEST_SPLIT_SMALL=1", NULL};
    th_check(parse(set, &o) == GI_OK && o.jpeg_arithmetic == GI__FORCE_GPU &&
                 o.jpeg_entropy == GI__FORCE_CPU && o.fail_device_alloc && o.fail_gpu == 1 &&
                 o.split_small &&
                 o.isa_cap == GI__ISA_AVX512,
             "values set (an empty one unset)");
    const char *set2[] = {"GPUIMG_JPEG_ARITHMETIC=cpu", "GPUIMG_JPEG_ENTROPY=gpu",
                          "GPUIMG_TEST_FAIL_DEVICE_ALLOC=0", "GPUIMG_TEST_SPLIT_SMALL=0", NULL};
    th_check(parse(set2, &o) == GI_OK && o.jpeg_arithmetic == GI__FORCE_CPU &&
                 o.jpeg_entropy == GI__FORCE_GPU && !o.fail_device_alloc && !o.split_small,
             "the other values");
    /* every variable's bad value is refused, by name, with the defaults kept */
    static const char *const bad[] = {"GPUIMG_CPU_ISA=sse4", "GPUIMG_JPEG_ARITHMETIC=GPU",
                                      "GPUIMG_JPEG_ENTROPY=device",
                                      "GPUIMG_TEST_FAIL_DEVICE_ALLOC=yes",
                                      "GPUIMG_TEST_FAIL_GPU=-1", "GPUIMG_TEST_SPLIT_SMALL=yes"};
    for (int i = 0; i < GI__OVERRIDE_COUNT; i++) {
        const char *good = i == 2 ? "GPUIMG_JPEG_ARITHMETIC=gpu" : "GPUIMG_JPEG_ENTROPY=cpu";
        const char *vars[] = {good, bad[i], NULL};
        char want[80];
        const char *eq = strchr(bad[i], '=');
        snprintf(want, sizeof want, "%.*s '%s': %s", (int)(eq - bad[i]), bad[i], eq + 1,
                 i == 4 ? "not a GPU index" : "not one of ");
        gi_status st = parse(vars, &o);
        th_check(st == GI_ERR_INVALID_ARGUMENT && strncmp(gi_last_error(), want, strlen(want)) == 0 &&
                     o.jpeg_entropy == GI__FORCE_NONE && o.jpeg_arithmetic == GI__FORCE_NONE &&
                     o.isa_cap == GI__ISA_AVX512,
                 "%s: status %d, \"%s\"", bad[i], (int)st, gi_last_error());
    }
}

/* The process's overrides: read at the first call, never again. */
static void check_read_once(void)
{
    setenv("GPUIMG_JPEG_ARITHMETIC", "gpu", 1);
    const gi__overrides *first = gi__process_overrides();
    th_check(first->jpeg_arithmetic == GI__FORCE_GPU, "the environment's value");
    setenv("GPUIMG_JPEG_ARITHMETIC", "cpu", 1);
    setenv("GPUIMG_CPU_ISA", "not-a-set", 1);
    const gi__overrides *again = gi__process_overrides();
    th_check(again == first && again->jpeg_arithmetic == GI__FORCE_GPU,
             "changed after the first read: read again");
    th_check(gi_check_environment() == GI_OK, "a bad value set after the first read: %s",
             gi_last_error());
}

/* Run with GPUIMG_CPU_ISA=sse9: refused by name, by the check and by
 * every context; the ISA choice runs uncapped meanwhile. */
static void check_bad_environment(void)
{
    gi_status st = gi_check_environment();
    th_check(st == GI_ERR_INVALID_ARGUMENT && strstr(gi_last_error(), "GPUIMG_CPU_ISA 'sse9'"),
             "check: status %d, \"%s\"", (int)st, gi_last_error());
    gi_context *ctx = NULL;
    st = gi_context_create(&ctx, NULL);
    th_check(st == GI_ERR_INVALID_ARGUMENT && !ctx && strstr(gi_last_error(), "GPUIMG_CPU_ISA"),
             "context: status %d, \"%s\"", (int)st, gi_last_error());
    th_check(gi__process_overrides()->isa_cap == GI__ISA_AVX512, "the defaults meanwhile");
}

/* A context's GPU and a batch's list of GPUs are checked (after
 * check_read_once: creating a context reads the environment). */
static void check_gpu_options(void)
{
    gi_context *ctx = NULL;
    gi_context_options opts = {GI_DEVICE_CPU, 1, -1};
    th_check(gi_context_create(&ctx, &opts) == GI_ERR_INVALID_ARGUMENT && !ctx, "gpu -1 accepted");
    opts.gpu = GI_MAX_GPUS;
    th_check(gi_context_create(&ctx, &opts) == GI_ERR_INVALID_ARGUMENT && !ctx, "gpu 64 accepted");
    opts.gpu = 3; /* the CPU: no GPU is asked for */
    th_check(gi_context_create(&ctx, &opts) == GI_OK, "gpu 3 of a CPU context: %s", gi_last_error());
    gi_context_destroy(ctx);
    gi_op blur = {.kind = GI_OP_BLUR};
    gi_blur_params_default(&blur.blur);
    gi_batch_options batch;
    gi_batch_options_default(&batch);
    batch.job.steps = &blur;
    batch.job.n_steps = 1;
    th_check(gi_batch_run(&batch, NULL, 0) == GI_OK, "an empty batch: %s", gi_last_error());
    batch.gpus.count = GI_MAX_GPUS + 1;
    th_check(gi_batch_run(&batch, NULL, 0) == GI_ERR_INVALID_ARGUMENT &&
                 strstr(gi_last_error(), "gpus: count 65"),
             "65 GPUs accepted: %s", gi_last_error());
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "bad-env") == 0) {
        check_bad_environment();
        return th_finish();
    }
    check_settling();
    check_work();
    check_retries();
    check_jpeg_route();
    check_jpeg_arithmetic();
    check_gpu_route();
    check_gpu_lanes();
    check_gpu_helpers();
    check_lane_take();
    check_gpus_parse();
    check_parse();
    check_read_once();
    check_gpu_options();
    return th_finish();
}
