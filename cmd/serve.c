/* gpuimg serve: runs the image commands of this user's later calls in
 * one warm process (lib/serve/serve.h), in the foreground. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "serve/serve.h"
#include "serve_client.h"

/* How long --stop waits for the server's calls in flight to finish. */
#define STOP_WAIT_S 60

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int signo)
{
    stop_requested = signo;
}

static void print_line(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "gpuimg serve: %s\n", line);
}

static int opt_clients(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 1, 4096);
}

int cmd_serve(int argc, char **argv)
{
    cli_common common;
    cli_common_init(&common, "serve");
    const char *socket = NULL;
    double idle_exit = 0, max_wait = 2;
    int max_clients = 64, stop = 0;
    const cli_option own[] = {
        {"socket", 0, "PATH", "the socket (default $GPUIMG_SERVER, else "
         "$XDG_RUNTIME_DIR/gpuimg/socket, else /tmp/gpuimg-UID/socket)", opt_string, &socket},
        {"idle-exit", 0, "S", "exit after S seconds without a client (default: never)",
         opt_double_nonneg, &idle_exit},
        {"max-clients", 0, "N", "clients connected at once; more run in their own process "
         "(default 64)", opt_clients, &max_clients},
        {"max-wait", 0, "S", "a call that waits longer for its turn runs in its own process "
         "(default 2)", opt_double_positive, &max_wait},
        {"stop", 0, NULL, "ask the running server to finish its calls and exit; returns once it "
         "has (60 s at most)", opt_flag, &stop},
        {0},
    };
    static const cli_help help = {
        "usage: gpuimg serve [options]",
        "Runs in the foreground and serves the image commands (blur, sobel, convolve,\n"
        "transpose, rotate, flip, resize, crop, thumbnail, convert, pipe, and their\n"
        "batches) of this user's later calls: they find it on its socket and run there,\n"
        "on a warm GPU, with the same outputs, lines and exit status as in their own\n"
        "process, where they run when no server answers (or with --no-server, or\n"
        "GPUIMG_SERVER=off). -j is the number of calls run at once (default: one per\n"
        "core), which share the cores; later ones wait in turn (--max-wait S at most).\n"
        "SIGTERM or --stop: the calls in flight finish, then the server exits.\n"
        "-v logs a line per call."};
    char **rest;
    int count;
    int rc = cli_parse_command(argc, argv, &common, own, 0, &help, &rest, &count);
    if (rc != CLI_RUN) return rc;
    if (count) return cli_usage_error(&common, "unexpected argument '%s'", rest[0]);
    char path[256];
    if (!socket) {
        common.no_server = 0;
        socket = server_socket(&common, path, sizeof path);
        if (!socket) return cli_usage_error(&common, "GPUIMG_SERVER=off: give --socket PATH");
    }
    if (stop) {
        char text[300];
        int r = gi_serve_shutdown(socket, STOP_WAIT_S, text, sizeof text);
        if (r != 0 || common.verbosity >= 2) fprintf(stderr, "gpuimg serve: %s: %s\n", socket, text);
        return r == 0 ? EXIT_OK : EXIT_FAIL;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    /* A client's standard output that closes fails that write, not us. */
    signal(SIGPIPE, SIG_IGN);
    gi_serve_options o = {socket, common.jobs, max_clients, max_wait, idle_exit, common.device,
                          &stop_requested, common.verbosity >= 2 ? print_line : NULL, NULL,
                          common.gpus};
    if (gi_serve_run(&o) != GI_OK) {
        fprintf(stderr, "gpuimg serve: %s\n", gi_last_error());
        return EXIT_FAIL;
    }
    return EXIT_OK;
}
