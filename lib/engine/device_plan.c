/* The device cost model; device_plan.h says what goes in and comes out. */
#include <stdio.h>

#include "device_plan.h"

/* The reference machine: an H100 80GB HBM3 and 16 cores of its host (the
 * H100 machine of 2026-11-24), measured that day with
 * scripts/bench_device_choice.sh (figures and commands in the README's
 * "Which device runs a job"):
 * - cpu: ns per pixel and thread with all 16 threads working, re-measured
 *   on 2026-11-24 after the vector CPU paths (which left the first
 *   rates 2-7 times too high: a batch of 20 JPEG sobels went to CUDA and
 *   took 1.16x the CPU's time): the larger of the kernel stage of
 *   `gpuimg -v OP --device cpu` on the four 9 MP photos (medians of 21 and
 *   9 runs; 3 and 4 channels) and `gpuimg bench --device cpu -j 16 --size
 *   3840x2400` (every channel count). Blur's tap rate is the slope between
 *   sigma 2 (13 taps) and sigma 20 (121 taps); convolve's from the 5x5 mask
 *   of bench and the photos' 15x15. One thread is up to 3 times faster per
 *   pixel on a wide blur (bench -j 1 at 1024x1024), so with fewer threads
 *   the CPU is overrated, never underrated. The blur's rates again on
 *   2026-11-25 after the pmaddwd blur (2 to 5 times faster): the
 *   kernel stage of `-v blur --sigma 2|20 --device cpu` on the photos
 *   (medians of 7; 3 and 4 channels), 1 and 2 channels from `bench -j 16`
 *   scaled by the photos' ratio of stage to bench (1.75 at sigma 2, 1.08
 *   at sigma 20). A wide blur costs more per tap (its ring of rows leaves
 *   the cache): a radius-200 blur of 50 MP, 3 channels, took 797-886 ms
 *   on the CPU (274 ns a pixel and thread, where the line through sigma 2
 *   and 20 said 187), so each line runs from the sigma-2 figure to that
 *   slope (tap rate 1.5 times the sigma 2-20 slope): it overrates a
 *   sigma-20 blur by 40%, which moves no photo's choice (CPU 50-100 ms
 *   against CUDA's 400 of start-up and teardown). The premultiplied
 *   blur's again on 2026-11-26 after its float vertical pass: `bench
 *   --device cpu -j 16 --size 3840x2400 --sigma 2|20` on the H200
 *   machine's host, alternated with commit 6fd5ad0 (medians of 3): 4
 *   channels 0.51x the time at sigma 2 and 0.92x at sigma 20, 2 channels
 *   0.63x and 0.91x (the cost per tap unchanged). The lines keep their
 *   slopes and pass through the new sigma-2 figures where that leaves a
 *   base of at least 0 (2 channels, base 0); 4 channels would need a base
 *   below 0, so it runs from 0 at its slope and overrates sigma 2 by 45%;
 * - cuda_start_ms: the start-up stage of -v --device cuda (200 to 336 ms,
 *   most near 220), of which cudaGetDeviceCount (driver start) 97-103 ms
 *   and the primary context (cudaSetDevice) 102-118 ms;
 *   cuda_exit_ms: a --device cuda process lasts 110-190 ms longer than the
 *   sum of its stages (median 140 over 84 runs on 2026-11-25), a --device
 *   cpu one 5 ms: the teardown at exit;
 *   pin_gbps: cudaHostAlloc of 35.5 MB, 13-20 ms;
 * - upload, download: the -v stage times of the photos: 27.6 MB in 4.1-5.3
 *   ms and out in 7.0-9.4 ms, staging copies and the first touch of the
 *   output's pages included; staging: memcpy into pinned memory 7 GB/s, out
 *   of it into fresh pages 1.7 GB/s;
 * - gpu: `gpuimg bench --device cuda --size 3840x2400`, per pixel;
 *   gpu_launch_ms: the kernel stage of a process's first launch (module
 *   loading) less the benchmark's time. */
static const gi__device_costs reference = {
    .cpu =
        {
            /* blur: premultiplied alpha (2, 4 channels) costs most */
            [GI_OP_BLUR] = {{0.8, 0.23}, {0, 0.85}, {4.3, 0.673}, {0, 1.45}},
            [GI_OP_SOBEL] = {{3, 0}, {7, 0}, {10, 0}, {13, 0}},
            [GI_OP_TRANSFORM] = {{4, 0}, {6, 0}, {12, 0}, {7, 0}},
            [GI_OP_HIST] = {{2, 0}, {5, 0}, {11, 0}, {10, 0}},
            [GI_OP_CONVOLVE] = {{47, 0.6}, {43, 1.2}, {62, 1.7}, {54, 2.43}},
            /* resize and crop: per source pixel, estimates from the separable
             * passes' work (a resize's taps sum its two axes'). Against the
             * CPU's kernel stage on the H200 machine (2026-11-29, bench/results/
             * 2026-11-29-p-resize-device-choice.md) they rate reductions
             * 1.4-13x too slow and doubling 0.5-0.8x; the default device of
             * resize batches of 20-300 photos came out the faster one all the
             * same (the codecs' measured rates carry those jobs), so they stay. */
            [GI_OP_RESIZE] = {{2, 0.3}, {3, 0.6}, {3, 0.9}, {4, 1.2}},
            [GI_OP_CROP] = {{1, 0}, {1, 0}, {2, 0}, {2, 0}},
        },
    .cpu_call_ms = 0.2,
    .cuda_start_ms = 240,
    .pin_gbps = 2.2,
    .cuda_exit_ms = 140,
    .upload_gbps = 6.0,
    .download_gbps = 3.3,
    .staging_gbps = 3.0,
    .gpu =
        {
            [GI_OP_BLUR] = {{0.005, 0.0033}, {0.005, 0.0031}, {0.005, 0.0030}, {0.005, 0.0036}},
            [GI_OP_SOBEL] = {{0.003, 0}, {0.004, 0}, {0.007, 0}, {0.008, 0}},
            [GI_OP_TRANSFORM] = {{0.0015, 0}, {0.002, 0}, {0.0032, 0}, {0.0036, 0}},
            [GI_OP_HIST] = {{0.002, 0}, {0.0022, 0}, {0.0024, 0}, {0.0026, 0}},
            [GI_OP_CONVOLVE] = {{0, 0.0002}, {0, 0.0004}, {0, 0.00052}, {0, 0.00066}},
            [GI_OP_RESIZE] = {{0.002, 0.0003}, {0.002, 0.0005}, {0.003, 0.0007}, {0.003, 0.0009}},
            [GI_OP_CROP] = {{0.001, 0}, {0.001, 0}, {0.002, 0}, {0.002, 0}},
        },
    .gpu_launch_ms = 1.5,
    /* The exact JPEG decoder, measured on the H200 machine (16 cores) over
     * 400 JPEGs of 9 MP, blur sigma 2, from the -v stage times summed over
     * the files (bench/jpeg_path_rates.py; bench/results/
     * h200-2026-11-26-a-exact-jpeg-decoder.md): --device cuda with the arithmetic forced
     * onto the CPU against the same forced onto the GPU.
     * - cpu_jpeg_reconstruct_ns: the decode stage's difference, 2.84 ns a
     *   pixel (IDCT, upsampling, colour on one core, AVX-512);
     * - cpu_jpeg_rest_ns: read, entropy decoding, encode and write of the
     *   GPU route, 10.0 ns a pixel;
     * - gpu_jpeg_reconstruct_ns: the kernel stage's difference, 0.018.
     * Both routes took the same wall time there (3.77 and 3.80 s): the
     * lanes' staging copies, not these rates, bound that folder. */
    .cpu_jpeg_reconstruct_ns = 2.84,
    .cpu_jpeg_rest_ns = 10.0,
    .gpu_jpeg_reconstruct_ns = 0.018,
    /* The Huffman decoding, same machine and folder, --device cuda with
     * GPUIMG_JPEG_ENTROPY=cpu against without (2026-11-26, two runs each;
     * bench/results/h200-2026-11-26-c-huffman-gpu.md): the decode stage's
     * difference, 20.1 s over 3560 MP on the codec workers (16 at once),
     * and the kernel stage's, 1.0 s (its rounds wait on the device). */
    .cpu_jpeg_entropy_ns = 5.6,
    .gpu_jpeg_entropy_ns = 0.28,
    /* A thumbnail's decode (2026-11-30, the H200 machine, main at 2c9cd8c):
     * `gpuimg thumbnail --size 256` of 1000 baseline photos of 8.4 MP on
     * average (bench/make_photo_folder.py, seed 701), 8.3-8.7 s of user
     * time on 16 cores, the Huffman decoding 63-70% of it. */
    .cpu_jpeg_shrink_ns = 1.0,
    /* The exact JPEG writer, same machine and folder: the encode stage of
     * the CPU route, 14.9 s over 3500 MP (16 writers at once), and the
     * GPU's kernels with the file's download (the download stage of the
     * GPU route less the pixels' it replaced). */
    .cpu_jpeg_encode_ns = 4.27,
    .gpu_jpeg_encode_ns = 0.05,
};

const gi__device_costs *gi__device_costs_default(void)
{
    return &reference;
}

static double step_ns(const gi__rate table[GI__OP_KINDS][4], const gi__plan_step *s)
{
    const int kind = (unsigned)s->kind < GI__OP_KINDS ? (int)s->kind : GI_OP_CONVOLVE;
    const int ch = s->channels < 1 ? 1 : s->channels > 4 ? 4 : s->channels;
    const gi__rate r = table[kind][ch - 1];
    return (double)s->width * s->height * (r.base_ns + r.tap_ns * s->taps);
}

/* What is left of CUDA's start-up once this image's pixels are ready: the
 * start and the pinning of the staging buffers hide behind the decoding
 * and whatever time has passed; the teardown at exit is paid once CUDA
 * has started at all, so it counts only for a start still to decide. */
static double startup_left_ms(const gi__plan_input *in, const gi__device_costs *c,
                              double staged_bytes)
{
    if (in->cuda == GI__CUDA_READY) return 0;
    double left = c->cuda_start_ms + staged_bytes / (c->pin_gbps * 1e6) - in->ready_in_ms;
    if (in->cuda == GI__CUDA_STARTING) left -= in->since_start_ms;
    return (left > 0 ? left : 0) + (in->cuda == GI__CUDA_COLD ? c->cuda_exit_ms : 0);
}

void gi__plan_device(const gi__plan_input *in, const gi__device_costs *c, gi__plan *out)
{
    const gi__plan_job *j = &in->job;
    const int n = j->n < 1 ? 1 : j->n > GI_MAX_STEPS ? GI_MAX_STEPS : j->n;
    const int threads = in->cpu_threads < 1 ? 1 : in->cpu_threads;
    const long images = in->images < 1 ? 1 : in->images;
    const double in_bytes = j->jpeg_pixels > 0 ? j->jpeg_coeff_bytes
                            : (double)j->steps[0].width * j->steps[0].height * j->steps[0].channels;
    double cpu_ns = j->jpeg_pixels * c->cpu_jpeg_reconstruct_ns;
    /* A scan's Huffman codes follow one another: one image's take one
     * core, however many threads the CPU backend has; in a pipeline the
     * other cores decode the images to come meanwhile. (Counted on every
     * thread, a served 12 MP thumbnail planned the CPU at 0.8 ms, whose
     * decoder then took 18-23 ms on the H200 machine's Xeon, where the
     * GPU's took 5.) */
    const double entropy_ms = j->jpeg_entropy_pixels * c->cpu_jpeg_entropy_ns / 1e6 /
                              (in->pipelined && images > 1 ? threads : 1);
    /* The writer codes one image on one core: its time is the image's
     * alone, but in a pipeline, where the codec workers' encodes overlap. */
    const double encode_ms = j->jpeg_out_pixels * c->cpu_jpeg_encode_ns / 1e6 /
                             (in->pipelined ? (in->cpu_threads < 1 ? 1 : in->cpu_threads) : 1);
    double gpu_ns = j->jpeg_pixels * c->gpu_jpeg_reconstruct_ns +
                    j->jpeg_entropy_pixels * c->gpu_jpeg_entropy_ns +
                    j->jpeg_out_pixels * c->gpu_jpeg_encode_ns;
    for (int i = 0; i < n; i++) {
        cpu_ns += step_ns(c->cpu, &j->steps[i]);
        gpu_ns += step_ns(c->gpu, &j->steps[i]);
    }
    out->cpu_ms = c->cpu_call_ms * n + cpu_ns / threads / 1e6 + entropy_ms + encode_ms;
    out->startup_ms = startup_left_ms(in, c, in_bytes + j->out_bytes);
    out->copy_ms = in_bytes / (c->upload_gbps * 1e6) + j->out_bytes / (c->download_gbps * 1e6);
    out->kernel_ms = c->gpu_launch_ms + gpu_ns / 1e6;
    /* In a pipeline the device's copies and kernels run beside the other
     * images' decoding and encoding: the cores only pay the staging copies,
     * on one thread, against the CPU backend's `threads`. */
    const double each_ms = out->copy_ms + out->kernel_ms;
    const double staged_ms = (in_bytes + j->out_bytes) / (c->staging_gbps * 1e6) / threads;
    const double later_ms = in->pipelined ? staged_ms : each_ms;
    out->cuda_ms = out->startup_ms + (in->pipelined && images > 1 ? later_ms : each_ms);

    /* Lanes compute images side by side, so a batch takes each lane's time
     * once per lane's share of the images: on the CPU its compute, on CUDA
     * its staging copies (which once counted for every image on one lane's
     * threads: 8 or 16 lanes planned the CPU for 400 photos and took 3.2 s
     * where 4 lanes took CUDA and 1.0 s). */
    const int lanes = in->pipelined && in->cpu_lanes > 1 ? in->cpu_lanes : 1;
    /* One large image among a planned batch's small ones once counted its
     * own cost for every image to come and started CUDA: 400 photos to
     * thumbnails, planned on the CPU from their median, took 0.50 s where
     * the CPU alone took 0.37 (the H200 machine, 16 cores). */
    const long repaying = in->planned_ahead && in->cuda == GI__CUDA_COLD ? 1 : images;
    const double cpu_total = out->cpu_ms * repaying / lanes;
    const double cuda_total =
        out->startup_ms + each_ms + later_ms * (double)(repaying - 1) / lanes;
    out->use_cuda = in->cuda != GI__CUDA_ABSENT && cuda_total < cpu_total;
    out->device = out->use_cuda && out->cuda_ms <= out->cpu_ms ? GI_DEVICE_CUDA : GI_DEVICE_CPU;

    if (in->cuda == GI__CUDA_ABSENT) {
        snprintf(out->reason, sizeof out->reason, "cpu: CPU %.1f ms; no CUDA", out->cpu_ms);
        return;
    }
    int len = snprintf(out->reason, sizeof out->reason,
                       "%s: CPU %.1f ms, CUDA %.1f ms (start-up %.0f, copies %.1f, kernel %.1f)",
                       out->device == GI_DEVICE_CUDA ? "cuda" : "cpu", out->cpu_ms, out->cuda_ms,
                       out->startup_ms, out->copy_ms, out->kernel_ms);
    if (repaying > 1 && len > 0 && (size_t)len < sizeof out->reason)
        snprintf(out->reason + len, sizeof out->reason - len,
                 "; %ld images: CPU %.0f ms, CUDA %.0f ms", repaying, cpu_total, cuda_total);
}

/* One side of a pipeline per image: the lanes' staging copies (the
 * upload and download rates include them), and for route 1 the kernels. */
static double lane_ms(double up_bytes, double out_bytes, double kernel_ms, int lanes,
                      const gi__device_costs *c)
{
    return (up_bytes / (c->upload_gbps * 1e6) + out_bytes / (c->download_gbps * 1e6)) / lanes +
           kernel_ms;
}

int gi__plan_jpeg_route(const gi__jpeg_route_input *in, const gi__device_costs *c, char *reason,
                        size_t reason_size)
{
    const int cores = in->cores < 1 ? 1 : in->cores, lanes = in->lanes < 1 ? 1 : in->lanes;
    const double made = in->reconstructed > 0 ? in->reconstructed : in->pixels;
    const double recon_cpu_ms = made * c->cpu_jpeg_reconstruct_ns / 1e6;
    const double recon_gpu_ms = made * c->gpu_jpeg_reconstruct_ns / 1e6;
    /* rest: the codec worker's work either way; route 1 takes the encode
     * off it when the result leaves as an exact JPEG, and downloads the
     * file (its bytes counted in the encode's rate) instead of pixels */
    const double rest_ms = in->pixels * c->cpu_jpeg_rest_ns / 1e6;
    const double enc_cpu_ms = in->encodes_jpeg ? in->out_pixels * c->cpu_jpeg_encode_ns / 1e6 : 0;
    const double enc_gpu_ms = in->encodes_jpeg ? in->out_pixels * c->gpu_jpeg_encode_ns / 1e6 : 0;
    /* a deferred scan: route 1 decodes its Huffman codes on the device, and
     * takes them off the cores (rest_ms counts them) */
    const double entropy_cpu_ms = in->deferred ? in->pixels * c->cpu_jpeg_entropy_ns / 1e6 : 0;
    const double entropy_gpu_ms = in->deferred ? in->pixels * c->gpu_jpeg_entropy_ns / 1e6 : 0;
    const double lane0 = lane_ms(in->pixel_bytes, in->out_bytes, 0, lanes, c);
    const double lane1 = lane_ms(in->coeff_bytes, in->encodes_jpeg ? 0 : in->out_bytes,
                                 recon_gpu_ms + enc_gpu_ms + entropy_gpu_ms, lanes, c);
    double ms0, ms1;
    if (in->pipelined) {
        const double cores0 = (rest_ms + recon_cpu_ms) / cores;
        const double cores1 = (rest_ms - enc_cpu_ms - entropy_cpu_ms) / cores;
        ms0 = cores0 > lane0 ? cores0 : lane0;
        ms1 = cores1 > lane1 ? cores1 : lane1;
    } else { /* one image: its Huffman codes on a core, its arithmetic and its encode on
                the cores, or the lane's work */
        ms0 = entropy_cpu_ms + (recon_cpu_ms + enc_cpu_ms) / cores + lane0;
        ms1 = lane1;
    }
    const int gpu = ms1 < ms0;
    snprintf(reason, reason_size, "JPEG arithmetic on the %s: %.1f ms an image there, %.1f on "
             "the %s", gpu ? "GPU" : "CPU", gpu ? ms1 : ms0, gpu ? ms0 : ms1, gpu ? "CPU" : "GPU");
    return gpu;
}

double gi__plan_gpu_rate(int multiprocessors)
{
    return multiprocessors > 0 ? multiprocessors / 132.0 : 1.0;
}

/* On the H200 machine (16 cores), 4000 9 MP JPEGs blurred to JPEG on one
 * GPU took 5.88 s with 4 lanes, 4.80 with 8, 4.54 with 12 and 4.50 with
 * 16 (medians of 3). 400 photos took 0.93-0.97 s with 4 and 0.94-0.95 with
 * 8 (progressive ones 1.04-1.07 and 1.08-1.12 in another run), 0.98-1.02
 * with 12 and 1.04-1.05 with 16: each lane's first image pays for its
 * buffers, so a short batch keeps four. On a host of two H200 and 32
 * cores, 12 and 16 lanes a GPU ran the 4000 in the same time, on one GPU
 * and on both (bench/results/2026-11-29-h-gpu-lanes.md). A lane holds its
 * image's source, result, scratch and the JPEG coder's coefficients on
 * the device: 16 bytes a sample bounds them. */
#define GPU_LANE_IMAGES 100
#define GPU_LANE_BYTES_PER_SAMPLE 16.0

int gi__plan_gpu_lanes(long images, double samples, double device_memory, int base)
{
    long lanes = images / GPU_LANE_IMAGES;
    if (lanes > GI__GPU_LANES_MAX) lanes = GI__GPU_LANES_MAX;
    if (samples > 0 && device_memory > 0) {
        const double fit = device_memory / 2 / (samples * GPU_LANE_BYTES_PER_SAMPLE);
        if (fit < lanes) lanes = (long)fit;
    }
    return lanes > base ? (int)lanes : base;
}

/* GPUs beside a thumbnail batch on the cores cost it a fixed time (CUDA's
 * start-up and teardown: the cores kept 9.5-10 busy against 12.8) and
 * save a part of each file they take: on the H200 machine (16
 * cores, 2026-11-30, bench/results/2026-11-30-r-gpu-lanes-beside-cpu.md)
 * 1000 photos took 0.77-0.92 s with them against 0.63-0.69 without, 2000
 * the same time, 4000 0.84x (2.79-2.82 s against 3.34-3.35, the GPU taking
 * 1969 of them). The batch's estimate on the cores must pass start-up and
 * exit this many times (2000 of those photos: 1.05 s, 2.8 times). */
#define HELPERS_PAY_PAST 3.0

int gi__plan_gpu_helpers(long images, double frame_pixels, int cores, const gi__device_costs *c)
{
    const double batch_ms =
        (double)images * frame_pixels * c->cpu_jpeg_shrink_ns / 1e6 / (cores < 1 ? 1 : cores);
    return batch_ms > HELPERS_PAY_PAST * (c->cuda_start_ms + c->cuda_exit_ms);
}
