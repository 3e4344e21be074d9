/* Image batches through a `gpuimg serve` server, or in this process. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "environment.h"
#include "serve/serve.h"
#include "serve_client.h"

const char *server_socket(const cli_common *c, char *path, size_t size)
{
    const char *env = cli_env()->server;
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

/* A served item's end, before the command sees it: when the server met a
 * closed pipe on our standard output, this process would have died of
 * SIGPIPE writing it, saying nothing: it dies so. */
static void relay_item(void *user, const gi_batch_item *it)
{
    const gi_batch_options *o = user;
    const char *why = strerror(EPIPE), *r = it->reason;
    size_t n = r ? strlen(r) : 0, w = strlen(why);
    if (strcmp(it->out, "-") == 0 && n >= w && strcmp(r + n - w, why) == 0) {
        signal(SIGPIPE, SIG_DFL);
        raise(SIGPIPE);
    }
    if (o->on_item) o->on_item(o->user, it);
}

gi_status run_batch_items(const cli_common *c, const gi_batch_options *o, gi_batch_item *items,
                          size_t count)
{
    char path[256], note[700];
    const char *socket = server_socket(c, path, sizeof path);
    if (!socket) {
        if (c->verbosity >= 2)
            fprintf(stderr, "gpuimg %s: in this process (--no-server or GPUIMG_SERVER=off)\n",
                    c->command);
        return gi_batch_run(o, items, count);
    }
    raise_fd_limit(count);
    gi_batch_options served = *o;
    served.on_item = relay_item;
    served.user = (void *)o;
    gi_serve_outcome r = gi_serve_batch(socket, c->command, &served, items, count, note,
                                        sizeof note);
    if (c->verbosity >= 2)
        fprintf(stderr, "gpuimg %s: %s%s\n", c->command, r == GI_SERVE_DONE ? "" : "in this process: ",
                note);
    if (r == GI_SERVE_DONE) return GI_OK;
    return r == GI_SERVE_NOT_RUN ? gi_batch_run(o, items, count) : run_rest(o, items, count);
}
