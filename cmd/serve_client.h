/* The client side of `gpuimg serve` for the image commands: a batch (one
 * image is a batch of one) goes to the server when one answers, and runs
 * in this process otherwise, with the same outputs and lines. */
#ifndef GPUIMG_SERVE_CLIENT_H
#define GPUIMG_SERVE_CLIENT_H

#include <stddef.h>

#include "options.h"

/* The server's socket: $GPUIMG_SERVER, else the default one; NULL when
 * --no-server or GPUIMG_SERVER=off says to run here. */
const char *server_socket(const cli_common *c, char *path, size_t size);

/* -v: "gpuimg CMD: in this process: WHY", for a call that the server
 * does not run. */
void say_runs_here(const cli_common *c, const char *why);

/* gi_batch_run(o, items, count), on the server when one takes it: the
 * items it did not finish (it refused, or was lost midway) run here. -v
 * says which process ran them. */
gi_status run_batch_items(const cli_common *c, const gi_batch_options *o, gi_batch_item *items,
                          size_t count);

#endif
