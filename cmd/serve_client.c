/* Image batches through a `gpuimg serve` server, or in this process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "serve/serve.h"
#include "serve_client.h"

const char *server_socket(const cli_common *c, char *path, size_t size)
{
    const char *env = getenv("GPUIMG_SERVER");
    if (env && !*env) env = NULL; /* empty: as unset */
    if (c->no_server || (env && strcmp(env, "off") == 0)) return NULL;
    if (env) return env;
    return gi_serve_default_socket(path, size) == 0 ? path : NULL;
}

/* The client holds a descriptor for each input while the server runs
 * them: room for a large batch. */
static void raise_fd_limit(size_t count)
{
    struct rlimit r;
    if (count > 256 && getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &r);
    }
}

/* The items the server did not settle, run here and put back in place. */
static gi_status run_rest(const gi_batch_options *o, gi_batch_item *items, size_t count)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++) n += items[i].status == GI_ITEM_NOT_STARTED;
    gi_batch_item *rest = malloc(n * sizeof *rest);
    size_t *where = malloc(n * sizeof *where);
    if (n && (!rest || !where)) {
        free(rest);
        free(where);
        return gi_batch_run(o, items, count); /* redoes the settled ones, same bytes */
    }
    n = 0;
    for (size_t i = 0; i < count; i++)
        if (items[i].status == GI_ITEM_NOT_STARTED) {
            where[n] = i;
            rest[n++] = items[i];
        }
    gi_status st = n ? gi_batch_run(o, rest, n) : GI_OK;
    for (size_t k = 0; k < n; k++) items[where[k]] = rest[k];
    free(rest);
    free(where);
    return st;
}

void say_runs_here(const cli_common *c, const char *why)
{
    if (c->verbosity >= 2) fprintf(stderr, "gpuimg %s: in this process: %s\n", c->command, why);
}

gi_status run_batch_items(const cli_common *c, const gi_batch_options *o, gi_batch_item *items,
                          size_t count)
{
    char path[256], note[1700];
    const char *socket = server_socket(c, path, sizeof path);
    if (!socket) {
        say_runs_here(c, "--no-server or GPUIMG_SERVER=off");
        return gi_batch_run(o, items, count);
    }
    raise_fd_limit(count);
    gi_serve_outcome r = gi_serve_batch(socket, c->command, o, items, count, note, sizeof note);
    if (r == GI_SERVE_DONE) {
        if (c->verbosity >= 2) fprintf(stderr, "gpuimg %s: %s\n", c->command, note);
        return GI_OK;
    }
    say_runs_here(c, note);
    return r == GI_SERVE_NOT_RUN ? gi_batch_run(o, items, count) : run_rest(o, items, count);
}
