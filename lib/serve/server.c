/* The server: an accept loop, a thread per client (bounded by
 * max_clients), and turns taken in arrival order so that at most `jobs`
 * batches run at once. A client's job is read in full and checked before
 * anything runs; while it waits and runs, a watcher reads the socket, so
 * a client that cancels or goes away stops its batch. */
#define _GNU_SOURCE /* struct ucred, accept4 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "engine/context.h"
#include "cpu/cpu_parallel.h"
#include "base/gi_error.h"
#include "request.h"
#include "serve.h"
#include "socket.h"

#define REQUEST_TIMEOUT_MS 10000 /* for a client to send its whole request */
#define MAX_JOBS 256

typedef struct {
    const gi_serve_options *o;
    const char *device; /* "cuda" when CUDA was started, else "cpu" */
    /* One warm context per job slot, lent to the batches of the server's
     * device (gi_batch_options.context); busy while a batch holds it. */
    gi_context *warm[MAX_JOBS];
    char busy[MAX_JOBS];
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a turn, a client gone, shutting down */
    unsigned long next_ticket, head, served;
    int running, waiting, clients, jobs;
    int cores; /* online, shared out among the jobs that run (take_turn) */
    int stopping;
    double last_activity;
} server;

typedef struct {
    server *srv;
    int sock;
    pid_t pid;
    int *fds, n_fds;
    volatile sig_atomic_t stop; /* the batch's stop flag */
    volatile int gone;          /* the client closed: its outputs are not put in place */
    int watching;
    gi_batch_item *items;       /* the running batch's, for on_item's index */
} client;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void logf_(server *srv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(server *srv, const char *fmt, ...)
{
    if (!srv->o->log) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&one_at_a_time);
    srv->o->log(srv->o->user, line);
    pthread_mutex_unlock(&one_at_a_time);
}

static void send_text(int sock, uint16_t type, uint32_t code, const char *text)
{
    gi__put w = {0};
    if (type == GI__FRAME_REFUSED) gi__put_u32(&w, code);
    gi__put_str(&w, text);
    if (!w.failed) (void)gi__wire_send(sock, type, w.data, (uint32_t)w.size, NULL, 0);
    free(w.data);
}

static void refuse(client *c, gi__refusal why, const char *text)
{
    send_text(c->sock, GI__FRAME_REFUSED, why, text);
    logf_(c->srv, "client pid %ld refused: %s", (long)c->pid, text);
}

/* Arrival order: a job runs once every earlier one has started and a slot
 * is free. The slot's number, or -1 when the server is shutting down first.
 * *cores: the job's share of the cores, those online over the jobs running
 * with it. Unshared, each of N single-image jobs at once would decode and
 * compute with a thread per core, N threads a core (the batch engine
 * shares the cores out among its lanes likewise). A job that starts alone
 * has them all; the jobs that were running keep their share until they end. */
static int take_turn(server *srv, int *cores)
{
    pthread_mutex_lock(&srv->lock);
    unsigned long ticket = srv->next_ticket++;
    srv->waiting++;
    while (!srv->stopping && !(ticket == srv->head && srv->running < srv->jobs))
        pthread_cond_wait(&srv->changed, &srv->lock);
    srv->waiting--;
    int slot = -1;
    if (!srv->stopping) {
        srv->head++;
        srv->running++;
        for (slot = 0; srv->busy[slot]; slot++) continue; /* running <= jobs: one is free */
        srv->busy[slot] = 1;
        *cores = srv->cores / srv->running > 1 ? srv->cores / srv->running : 1;
    }
    pthread_cond_broadcast(&srv->changed);
    pthread_mutex_unlock(&srv->lock);
    return slot;
}

static void end_turn(server *srv, int slot)
{
    pthread_mutex_lock(&srv->lock);
    srv->busy[slot] = 0;
    srv->running--;
    srv->served++;
    pthread_cond_broadcast(&srv->changed);
    pthread_mutex_unlock(&srv->lock);
}

/* Reads the socket while the job waits and runs: CANCEL stops the batch
 * as Ctrl-C stops one here; an end or error means the client is gone. */
static void *watch(void *arg)
{
    client *c = arg;
    while (__atomic_load_n(&c->watching, __ATOMIC_ACQUIRE)) {
        struct pollfd p = {c->sock, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0) continue;
        gi__frame f;
        int none = 0;
        int rc = gi__wire_recv(c->sock, &f, 1000, NULL, &none, 0);
        free(f.payload);
        if (rc == 1 && f.type == GI__FRAME_CANCEL) {
            c->stop = SIGINT;
            continue;
        }
        c->stop = SIGTERM;
        __atomic_store_n(&c->gone, 1, __ATOMIC_RELEASE);
        break;
    }
    return NULL;
}

static void send_item(void *user, const gi_batch_item *it)
{
    client *c = user;
    gi__put w = {0};
    gi__serve_result_encode((size_t)(it - c->items), it, &w);
    if (w.failed || gi__wire_send(c->sock, GI__FRAME_ITEM, w.data, (uint32_t)w.size, NULL, 0) != 0)
        c->stop = SIGTERM; /* the client cannot hear: start nothing more */
    free(w.data);
}

static void count_items(const gi_batch_item *items, size_t n, int *ok, int *failed)
{
    *ok = *failed = 0;
    for (size_t i = 0; i < n; i++) {
        *ok += items[i].status == GI_ITEM_OK || items[i].status == GI_ITEM_SKIPPED;
        *failed += items[i].status == GI_ITEM_FAILED;
    }
}

/* The batch as the client asked, on its descriptors, on `cores` cores,
 * with the slot's warm context when the client asked for the server's
 * device. */
static void run_batch(client *c, gi__serve_job *job, int slot, int cores)
{
    gi_batch_item *items = calloc(job->n_items, sizeof *items);
    gi_item_files *files = calloc(job->n_items, sizeof *files);
    gi_status st = GI_ERR_NO_MEMORY;
    gi_batch_waits waits = {0, 0};
    double start = now_s();
    if (items && files) {
        for (size_t i = 0; i < job->n_items; i++) {
            const gi__serve_item *r = &job->items[i];
            files[i] = (gi_item_files){.in_fd = r->in_fd >= 0 ? c->fds[r->in_fd] : -1,
                                       .in_errno = r->in_errno,
                                       .out_dir_fd = r->dir_fd >= 0 ? c->fds[r->dir_fd] : -1,
                                       .out_name = r->out_name,
                                       .out_fd = r->out_fd >= 0 ? c->fds[r->out_fd] : -1,
                                       .abandon = &c->gone};
            items[i] = (gi_batch_item){.in = (char *)r->in, .out = (char *)r->out,
                                       .problem = r->problem, .files = &files[i]};
        }
        gi_batch_options o = job->opts;
        o.waits = &waits;
        o.cores = cores;
        if (o.device == c->srv->o->device) o.context = c->srv->warm[slot];
        o.stop = &c->stop;
        o.on_item = send_item;
        o.user = c;
        c->items = items;
        st = gi_batch_run(&o, items, job->n_items);
    }
    gi__put w = {0};
    gi__put_i32(&w, st);
    gi__put_str(&w, st == GI_OK ? NULL : gi_last_error());
    gi__put_f64(&w, waits.waited_ms);
    gi__put_i32(&w, waits.threads);
    int gone = __atomic_load_n(&c->gone, __ATOMIC_ACQUIRE);
    if (!w.failed) (void)gi__wire_send(c->sock, GI__FRAME_DONE, w.data, (uint32_t)w.size, NULL, 0);
    free(w.data);
    int ok = 0, failed = 0;
    if (items) count_items(items, job->n_items, &ok, &failed);
    logf_(c->srv, "client pid %ld: %s, %zu item%s: %d ok, %d failed%s (%.1f ms, %d of %d cores)",
          (long)c->pid, job->command, job->n_items, job->n_items == 1 ? "" : "s", ok, failed,
          gone ? ", client gone" : "", (now_s() - start) * 1e3, cores, c->srv->cores);
    for (size_t i = 0; items && i < job->n_items; i++) free(items[i].reason);
    free(items);
    free(files);
}

static void serve_job(client *c, const gi__frame *f)
{
    gi__serve_job job;
    if (gi__serve_job_decode(f->payload, f->size, c->n_fds, &job) != GI_OK) {
        refuse(c, GI__REFUSED_MALFORMED, gi_last_error());
        return;
    }
    if (gi__wire_send(c->sock, GI__FRAME_ACCEPTED, NULL, 0, NULL, 0) != 0) {
        gi__serve_job_free(&job);
        return;
    }
    pthread_t watcher;
    c->watching = 1;
    int watched = pthread_create(&watcher, NULL, watch, c) == 0;
    int cores = 1;
    int slot = take_turn(c->srv, &cores);
    if (slot >= 0) {
        if (!__atomic_load_n(&c->gone, __ATOMIC_ACQUIRE)) run_batch(c, &job, slot, cores);
        end_turn(c->srv, slot);
    } else {
        refuse(c, GI__REFUSED_SHUTTING_DOWN, "the server is shutting down");
    }
    __atomic_store_n(&c->watching, 0, __ATOMIC_RELEASE);
    if (watched) pthread_join(watcher, NULL);
    gi__serve_job_free(&job);
}

static void info_text(server *srv, char *text, size_t size)
{
    pthread_mutex_lock(&srv->lock);
    snprintf(text, size, "pid %ld, device %s, jobs served %lu, running %d, waiting %d, clients %d",
             (long)getpid(), srv->device, srv->served, srv->running, srv->waiting,
             srv->clients - 1);
    pthread_mutex_unlock(&srv->lock);
}

/* A client's frames: descriptors, then one request. */
static void serve_requests(client *c)
{
    for (;;) {
        gi__frame f;
        int rc = gi__wire_recv(c->sock, &f, REQUEST_TIMEOUT_MS, c->fds, &c->n_fds,
                               GI__SERVE_MAX_FDS);
        if (rc <= 0) {
            if (rc < 0 && errno != ECONNRESET && errno != EPIPE)
                refuse(c, GI__REFUSED_MALFORMED, errno == ETIMEDOUT ? "request timed out"
                                                                    : "malformed frame");
            return;
        }
        char text[300];
        if (f.version != GI__WIRE_VERSION) {
            snprintf(text, sizeof text, "this server speaks protocol %d, the client %d",
                     GI__WIRE_VERSION, f.version);
            refuse(c, GI__REFUSED_VERSION, text);
        } else if (f.type == GI__FRAME_FDS && f.size == 0) {
            continue;
        } else if (f.type == GI__FRAME_JOB) {
            serve_job(c, &f);
        } else if (f.type == GI__FRAME_INFO) {
            info_text(c->srv, text, sizeof text);
            send_text(c->sock, GI__FRAME_TEXT, 0, text);
        } else if (f.type == GI__FRAME_SHUTDOWN) {
            pthread_mutex_lock(&c->srv->lock);
            c->srv->stopping = 1;
            pthread_cond_broadcast(&c->srv->changed);
            pthread_mutex_unlock(&c->srv->lock);
            send_text(c->sock, GI__FRAME_TEXT, 0, "shutting down");
            logf_(c->srv, "client pid %ld asked to shut down", (long)c->pid);
        } else {
            refuse(c, GI__REFUSED_MALFORMED, "unexpected frame");
        }
        free(f.payload);
        return;
    }
}

static void *client_thread(void *arg)
{
    client *c = arg;
    serve_requests(c);
    for (int i = 0; i < c->n_fds; i++) close(c->fds[i]);
    close(c->sock);
    server *srv = c->srv;
    free(c->fds);
    free(c);
    pthread_mutex_lock(&srv->lock);
    srv->clients--;
    srv->last_activity = now_s();
    pthread_cond_broadcast(&srv->changed);
    pthread_mutex_unlock(&srv->lock);
    return NULL;
}

static void accept_client(server *srv, int listen_fd)
{
    int sock = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (sock < 0) return;
    uid_t uid;
    pid_t pid = 0;
    if (gi__serve_peer(sock, &uid, &pid) != 0 || uid != getuid()) {
        logf_(srv, "connection from uid %ld (pid %ld) refused: not our user", (long)uid, (long)pid);
        close(sock);
        return;
    }
    pthread_mutex_lock(&srv->lock);
    int full = srv->clients >= srv->o->max_clients;
    if (!full) srv->clients++;
    pthread_mutex_unlock(&srv->lock);
    client *c = full ? NULL : calloc(1, sizeof *c);
    int *fds = c ? malloc(GI__SERVE_MAX_FDS * sizeof *fds) : NULL;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (fds) *c = (client){.srv = srv, .sock = sock, .pid = pid, .fds = fds};
    if (!fds || pthread_create(&t, &attr, client_thread, c) != 0) {
        send_text(sock, GI__FRAME_REFUSED, GI__REFUSED_FULL,
                  full ? "the server has as many clients as it takes" : "out of resources");
        if (full) logf_(srv, "client pid %ld refused: full", (long)pid);
        close(sock);
        free(fds);
        free(c);
        if (!full) {
            pthread_mutex_lock(&srv->lock);
            srv->clients--;
            pthread_mutex_unlock(&srv->lock);
        }
    }
    pthread_attr_destroy(&attr);
}

/* Each job holds its client's descriptors: as many as the system lets. */
static void raise_fd_limit(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &r);
    }
}

/* A context per job slot, of the server's device, kept for its life. With
 * a GPU and a device other than the CPU, CUDA starts in each now: under
 * AUTO through a hint of a photo's work (12 MP, a blur), which also pins
 * buffers of that size; each batch's own hint then plans with CUDA
 * already started. The hint plans on a full server's share of the cores
 * (take_turn): with every core a photo's blur is faster on the CPU (7 ms
 * against 14 on the H200 machine), so CUDA never started, and under load
 * each job, on its one core, blurred on the CPU in 120 ms. A lone job
 * still plans on its own share and may take the CPU. Returns whether
 * CUDA runs in them. */
static int warm_up(server *srv, gi_device device, int jobs)
{
    int gpu = device != GI_DEVICE_CPU && gi_cuda_compiled() && gi_cuda_device_count(NULL) > 0;
    gi_op blur = {.kind = GI_OP_BLUR};
    gi_blur_params_default(&blur.blur);
    gi_plan_hint photo = {.images = 1000, .steps = &blur, .n_steps = 1, .width = 4000,
                          .height = 3000, .channels = 3};
    int started = 0;
    for (int i = 0; i < jobs; i++) {
        gi_context_options co = {device, 0};
        if (gi_context_create(&srv->warm[i], &co) != GI_OK) {
            srv->warm[i] = NULL;
            continue;
        }
        gi__context_set_cpu_threads(srv->warm[i], srv->cores / jobs > 1 ? srv->cores / jobs : 1);
        if (gpu && device == GI_DEVICE_AUTO) (void)gi_context_plan_hint(srv->warm[i], &photo);
        started |= gpu && strcmp(gi_context_backend(srv->warm[i]), "cuda") == 0;
    }
    return started;
}

static int should_stop(server *srv)
{
    pthread_mutex_lock(&srv->lock);
    int idle = srv->o->idle_exit_s > 0 && srv->clients == 0 &&
               now_s() - srv->last_activity >= srv->o->idle_exit_s;
    if (idle) logf_(srv, "idle for %g s: exiting", srv->o->idle_exit_s);
    int stop = srv->stopping || idle || (srv->o->stop && *srv->o->stop);
    srv->stopping |= stop;
    if (stop) pthread_cond_broadcast(&srv->changed);
    pthread_mutex_unlock(&srv->lock);
    return stop;
}

gi_status gi_serve_run(const gi_serve_options *opts)
{
    gi_serve_options o = *opts;
    /* One call a core: single-image calls (a shell loop, xargs -P) each
     * decode on the cores but encode on one; at -j 16 on 16 cores xargs -P
     * 16 through the server reached 0.71-0.75x of one batch's throughput,
     * at -j 4 0.41x (bench/serve_latency.sh, H200 machine). */
    if (o.jobs <= 0) o.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (o.jobs <= 0) o.jobs = 2;
    if (o.jobs > MAX_JOBS) o.jobs = MAX_JOBS;
    if (o.max_clients <= 0) o.max_clients = 64;
    int listen_fd = gi__serve_listen(o.socket_path);
    if (listen_fd < 0) return GI_ERR_IO;
    raise_fd_limit();
    server srv = {.o = &o, .jobs = o.jobs, .cores = gi__cpu_count(), .last_activity = now_s()};
    srv.device = warm_up(&srv, o.device, o.jobs) ? "cuda" : "cpu";
    pthread_mutex_init(&srv.lock, NULL);
    pthread_cond_init(&srv.changed, NULL);
    logf_(&srv, "listening on %s (pid %ld, device %s, %d job%s at once, %d clients at most)",
          o.socket_path, (long)getpid(), srv.device, o.jobs, o.jobs == 1 ? "" : "s",
          o.max_clients);
    while (!should_stop(&srv)) {
        struct pollfd p = {listen_fd, POLLIN, 0};
        if (poll(&p, 1, 200) > 0) accept_client(&srv, listen_fd);
    }
    close(listen_fd);
    unlink(o.socket_path);
    pthread_mutex_lock(&srv.lock);
    while (srv.clients > 0) pthread_cond_wait(&srv.changed, &srv.lock);
    pthread_mutex_unlock(&srv.lock);
    logf_(&srv, "stopped after %lu job%s", srv.served, srv.served == 1 ? "" : "s");
    for (int i = 0; i < o.jobs; i++) gi_context_destroy(srv.warm[i]);
    pthread_cond_destroy(&srv.changed);
    pthread_mutex_destroy(&srv.lock);
    return GI_OK;
}
