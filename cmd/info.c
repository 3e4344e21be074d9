/* gpuimg info: version, backends, devices and threads of this machine. */
#include <stdio.h>

#include "commands.h"
#include "options.h"
#include "serve/serve.h"
#include "serve_client.h"

/* Starts CUDA as the first thing that touches it, so that the time is the
 * whole start-up a process pays (the library times it). */
static void print_startup(void)
{
    gi_context_options opts = {GI_DEVICE_CUDA, 0, 0};
    gi_context *ctx;
    if (gi_context_create(&ctx, &opts) != GI_OK) return; /* print_devices says why */
    printf("cuda start-up: %.0f ms (driver, device, context, kernel probe)\n",
           gi_context_cuda_startup_ms(ctx));
    gi_context_destroy(ctx);
}

static void print_devices(int measure)
{
    const char *why = "";
    int n = gi_cuda_device_count(&why);
    if (n == 0) {
        printf("cuda devices: none (%s)\n", why);
        return;
    }
    for (int i = 0; i < n; i++) {
        gi_device_info d;
        if (gi_cuda_device_info(i, measure, &d) != GI_OK) {
            printf("cuda device %d: %s\n", i, gi_last_error());
            continue;
        }
        printf("cuda device %d: %s, compute capability %d.%d, %.1f GiB, %d SMs", i, d.name,
               d.cc_major, d.cc_minor, d.total_memory / (double)(1ull << 30), d.multiprocessors);
        if (measure) printf(", device copy %.0f GB/s", d.copy_gbytes_per_s);
        printf("\n");
    }
}

/* The GPUs a batch would spread its images over (--gpus, GPUIMG_GPUS). */
static void print_batch_gpus(const cli_common *c)
{
    gi_gpus gpus;
    gi_status st = gi_gpus_resolve(&c->gpus, &gpus);
    if (st == GI_ERR_NO_DEVICE) return; /* print_devices said why */
    if (st != GI_OK) {
        printf("batch gpus: none (%s)\n", gi_last_error());
        return;
    }
    printf("batch gpus:");
    for (int k = 0; k < gpus.count; k++) printf(" %d", gpus.index[k]);
    printf(" (%s)\n", c->gpus.count ? "chosen by --gpus or GPUIMG_GPUS" : "every visible GPU");
}

/* Whether a `gpuimg serve` answers, its device and the jobs it served. */
static void print_server(const cli_common *c)
{
    char path[256], text[700];
    const char *socket = server_socket(c, path, sizeof path);
    if (!socket) printf("server: not used (GPUIMG_SERVER=off)\n");
    else if (gi_serve_query(socket, text, sizeof text) == 0) printf("server: %s: %s\n", socket, text);
    else printf("server: none (%s)\n", text);
}

int cmd_info(int argc, char **argv)
{
    cli_common common;
    int quick = 0;
    cli_common_init(&common, "info");
    const cli_option own[] = {
        {"no-bandwidth", 0, NULL, "skip the device-copy bandwidth measurement", opt_flag, &quick},
        {0},
    };
    static const cli_help help = {
        "usage: gpuimg info [options]",
        "Prints the version, the backends, each GPU (its index, name, compute\n"
        "capability, memory, measured device-copy bandwidth), the GPUs a batch\n"
        "spreads its images over (--gpus), the CUDA start-up time measured in this\n"
        "process, and CPU threads."};
    char **rest;
    int count;
    int rc = cli_parse_command(argc, argv, &common, own, 0, &help, &rest, &count);
    if (rc != CLI_RUN) return rc;
    if (count) return cli_usage_error(&common, "unexpected argument '%s'", rest[0]);
    printf("gpuimg %s\n", GI_VERSION_STRING);
    printf("backends: cpu%s\n", gi_cuda_compiled() ? " cuda" : "");
    printf("cpu threads: %d\n", gi_cpu_threads_default());
    if (gi_cuda_compiled()) print_startup();
    print_devices(!quick);
    if (gi_cuda_compiled()) print_batch_gpus(&common);
    print_server(&common);
    return EXIT_OK;
}
