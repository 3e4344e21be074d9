/* gpuimg serve: a long-lived process that runs batches (gi_batch_run)
 * for clients of the same user on this machine, over a Unix socket, with
 * the clients' files handed over as descriptors. The CLI's commands are
 * its clients (cmd/serve_client.c); `gpuimg serve` runs it (cmd/serve.c).
 * Not part of the public API (gpuimg.h): the protocol is this build's.
 *
 * A client uses only a server of its own build (build_id.h), and hands
 * over only regular files and directories: a pipe, a terminal or a device
 * at the far end of which someone may be slow makes the call run in the
 * client's process, so that no slow reader or writer holds a turn.
 *
 * Security: the socket's directory must be ours and closed to others;
 * every connection's peer must be our user (SO_PEERCRED); the server
 * opens no path that a client names: it reads the descriptors of inputs
 * and writes into the descriptors of directories (openat, renameat). */
#ifndef GI_SERVE_H
#define GI_SERVE_H

#include <signal.h>
#include <stddef.h>

#include "gpuimg.h"

/* The socket's path: $XDG_RUNTIME_DIR/gpuimg/socket, else
 * /tmp/gpuimg-UID/socket. 0, or -1 when it does not fit. */
GI_API int gi_serve_default_socket(char *path, size_t size);

typedef struct gi_serve_options {
    const char *socket_path;
    int jobs;            /* batches run at once; later ones wait in turn (0: one per core) */
    int max_clients;     /* connections at once; more are refused (0: 64) */
    double max_wait_s;   /* a job that waits longer for its turn is refused, to run in its
                            client's process (0: 2 s) */
    double idle_exit_s;  /* exit after this long without a client (0: never) */
    gi_device device;    /* CUDA is started at once unless CPU (and a GPU is there) */
    /* Read between events: non-zero finishes the jobs in flight and
     * returns. Settable from a signal handler. */
    const volatile sig_atomic_t *stop;
    /* One line per job and per event worth noting, when set (from any
     * thread, one at a time). */
    void (*log)(void *user, const char *line);
    void *user;
    /* The GPUs whose contexts it keeps warm, the job slots taking them in
     * turn; a call goes to a free slot of the GPU running the fewest
     * (count 0: every visible GPU; a client's own choice does not apply) */
    gi_gpus gpus;
} gi_serve_options;

/* Makes the socket's directory when it is the default one (0700), binds
 * (replacing a stale socket, refusing when a server answers there) and
 * serves until opts->stop, a client's shutdown request or idle_exit.
 * GI_OK, or a failure to start with gi_last_error() saying why. */
GI_API gi_status gi_serve_run(const gi_serve_options *opts);

/* A server's state, or why none answers: 0 and *text ("pid 12, device
 * cuda, jobs served 40, running 1, waiting 0, clients 2"), or -1 and
 * *text the reason. */
GI_API int gi_serve_query(const char *socket_path, char *text, size_t size);
/* Asks the server to finish its jobs and exit, and waits until it has
 * (its socket removed, its jobs ended), wait_s at most: 0 when it has
 * stopped, 1 when it is still finishing its jobs, -1 when it did not take
 * the request; *text says which. */
GI_API int gi_serve_shutdown(const char *socket_path, double wait_s, char *text, size_t size);

typedef enum {
    GI_SERVE_DONE,    /* the server ran every item; on_item was called for each */
    GI_SERVE_NOT_RUN, /* nothing ran there (no server, refused, ...): run them here */
    GI_SERVE_PARTLY   /* the server was lost midway: items still GI_ITEM_NOT_STARTED
                         are to run here; the others are final */
} gi_serve_outcome;

/* Runs a batch on the server at socket_path as gi_batch_run would run it
 * here (opts->stop and on_item honoured; output_root's directories made
 * here, where the names are the caller's): opens each input, and each
 * output's directory, and passes the descriptors. Two items with one
 * output file (gi_batch_check_outputs) are not sent: GI_SERVE_NOT_RUN,
 * *note the reason, before anything is opened or made. `command` names the
 * job in the server's log. *note says why the server was not used (or
 * was lost), or which server ran the batch. */
GI_API gi_serve_outcome gi_serve_batch(const char *socket_path, const char *command,
                                const gi_batch_options *opts, gi_batch_item *items, size_t count,
                                char *note, size_t note_size);

#endif
