/* gpuimg: the command table, dispatch and the final check that standard
 * output really was written (as git does). */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const command commands[] = {
    {"blur", cmd_blur, "Gaussian or box blur"},
    {"sobel", cmd_sobel, "Sobel edge magnitude or binary edge map"},
    {"transpose", cmd_transpose, "swap rows and columns"},
    {"rotate", cmd_rotate, "rotate clockwise by 90, 180 or 270 degrees"},
    {"flip", cmd_flip, "mirror horizontally (h) or vertically (v)"},
    {"convolve", cmd_convolve, "filter with any odd mask up to 31x31 (correlation)"},
    {"resize", cmd_resize, "resample to a size or by a scale (lanczos3, cubic, area, ...)"},
    {"crop", cmd_crop, "take a rectangle of the image"},
    {"thumbnail", cmd_thumbnail, "a small copy of a photo, fast: JPEG shrink-on-load, then resize"},
    {"convert", cmd_convert, "write the image in another format (PNG, JPEG, PNM, PAM, TIFF)"},
    {"pipe", cmd_pipe, "several operations in one run: 'blur --sigma 2 | sobel'"},
    {"hist", cmd_hist, "per-channel histogram as text, CSV or JSON"},
    {"compare", cmd_compare, "compare two images (or trees) by pixels: golden-image tests"},
    {"serve", cmd_serve, "run later calls' image commands in one warm process"},
    {"bench", cmd_bench, "time the operations against the copy bandwidth"},
    {"info", cmd_info, "version, backends, GPUs and threads"},
    {"help", cmd_help, "show the help of a command"},
    {"version", cmd_version, "print the version"},
};
#define COMMAND_COUNT (int)(sizeof commands / sizeof commands[0])

static const command *find_command(const char *name)
{
    for (int i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

static void print_main_help(FILE *out)
{
    fprintf(out, "usage: gpuimg COMMAND [options] IN OUT\n"
                 "       gpuimg COMMAND [options] -o OUTDIR IN...\n"
                 "       gpuimg help COMMAND | --help | --version\n\nCommands:\n");
    for (int i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nEvery command takes --help. Images are PNG, JPEG, Netpbm (PBM, PGM, PPM\n"
                 "and PAM: .pnm .pgm .ppm .pam, --format pnm|pam) or TIFF (.tif .tiff, --format\n"
                 "tiff); '-' is standard input or output.\n"
                 "Standard input may hold a stream of PNM/PAM images, one after another, as\n"
                 "ffmpeg -f image2pipe -vcodec ppm writes: each is processed in turn and the\n"
                 "output gets as many, in order (an image that fails ends the stream: the ones\n"
                 "before it are kept, exit 1). --device auto|cpu|cuda picks the backend; results\n"
                 "are the same bytes on either. Exit status: 0 success, 1 failure, 2 usage error.\n");
}

static int cmd_help(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: gpuimg help [COMMAND]\n\nShows the help of COMMAND, or the list of "
               "commands.\n");
        return EXIT_OK;
    }
    if (argc < 2) {
        print_main_help(stdout);
        return EXIT_OK;
    }
    const command *c = find_command(argv[1]);
    if (!c) {
        fprintf(stderr, "gpuimg: no command '%s'; see 'gpuimg --help'\n", argv[1]);
        return EXIT_USAGE;
    }
    char *help_argv[] = {(char *)c->name, "--help", NULL};
    return c->run(2, help_argv);
}

static int cmd_version(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: gpuimg version | gpuimg --version\n\nPrints the version.\n");
        return EXIT_OK;
    }
    printf("gpuimg %s\n", GI_VERSION_STRING);
    return EXIT_OK;
}

/* Options that take a value, so that `gpuimg --device cpu blur ...` finds
 * the command after the value. */
static int takes_value(const char *arg)
{
    return strcmp(arg, "--device") == 0 || strcmp(arg, "--gpus") == 0 || strcmp(arg, "-j") == 0 ||
           strcmp(arg, "--jobs") == 0;
}

/* Global options may come before the command (`gpuimg -v blur ...`); they
 * are moved after it, where every command parses them. Returns the index of
 * the command word in argv, or argc when there is none. */
static int hoist_global_options(int argc, char **argv)
{
    int i = 1;
    while (i < argc && argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--help") != 0 &&
           strcmp(argv[i], "-h") != 0 && strcmp(argv[i], "--version") != 0)
        i += takes_value(argv[i]) && i + 1 < argc ? 2 : 1;
    if (i == 1 || i >= argc) return i;
    char *name = argv[i];
    memmove(argv + 2, argv + 1, sizeof *argv * (size_t)(i - 1));
    argv[1] = name;
    return 1;
}

/* The command dispatch runs, for main's last message; NULL before one is found. */
static const char *running;

static int dispatch(int argc, char **argv)
{
    int at = hoist_global_options(argc, argv);
    if (at >= argc) {
        print_main_help(stderr);
        return EXIT_USAGE;
    }
    if (at != 1) {
        fprintf(stderr, "gpuimg: '%s' comes before the command; see 'gpuimg --help'\n", argv[1]);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) return cmd_help(1, argv);
    if (strcmp(name, "--version") == 0) return cmd_version(1, argv);
    const command *c = find_command(name);
    if (!c) {
        fprintf(stderr, "gpuimg: no command '%s'; see 'gpuimg --help'\n", name);
        return EXIT_USAGE;
    }
    running = c->name;
    return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    /* A closed pipe ends us quietly, as it does git and coreutils, even when
     * the parent started us with SIGPIPE ignored. */
    signal(SIGPIPE, SIG_DFL);
    /* Image buffers (megabytes each) come from mmap and go back to the
     * system when freed. glibc would otherwise raise this threshold as
     * buffers are freed and serve them from per-thread heaps, which a long
     * batch fragments: peak memory then grows with the number of files. */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    /* The per-image scratch below that (a blur's rings, the JPEG writer's
     * rows and pieces: a few MB a thread) stays in the heaps between
     * images: at the default 128 KB each heap gave its free top back after
     * every image and faulted it in again, 150 MB over 40 photos, 3% of
     * that batch's time on 2 cores (1.43-1.44 s against 1.45-1.46; peak
     * memory 220-247 MB against 217). */
    mallopt(M_TRIM_THRESHOLD, 8 << 20);
    int status = dispatch(argc, argv);
    /* A full disk or closed pipe on stdout must not pass for success. */
    if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
        if (errno != EPIPE)
            fprintf(stderr, "gpuimg%s%s: standard output: %s\n", running ? " " : "",
                    running ? running : "", strerror(errno));
        return cli_output_failure_status;
    }
    return status;
}
