/* The server: an accept loop, a thread per client (bounded by
 * max_clients), and turns taken in arrival order so that at most `jobs`
 * batches run at once. A client's job is read in full and checked before
 * anything runs; while it waits and runs, a watcher reads the socket, so
 * a client that cancels or goes away stops its batch. No client can hold
 * the others up: a job runs on regular files and directories only, sends
 * to a client that stops reading time out (its job then stops), and a job
 * that waits too long for its turn is refused, to run in its client. */
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/context.h"
#include "cpu/cpu_parallel.h"
#include "base/cores.h"
#include "base/gi_error.h"
#include "build_id.h"
#include "request.h"
#include "serve.h"
#include "socket.h"

#define REQUEST_TIMEOUT_MS 10000 /* for a client to send its whole request */
/* For a client to take a frame: one stopped (Ctrl-Z) or stuck writing
 * its own output must not hold a turn. Its job stops; resumed, it runs
 * the rest itself. */
#define SEND_TIMEOUT_S 5
#define MAX_JOBS 256
#define MAX_STOP_WAITERS 16

/* A job waiting for its turn, in the queue of arrival order. */
typedef struct waiter {
    struct waiter *next;
} waiter;

typedef struct {
    const gi_serve_options *o;
    char device[200]; /* "cuda, gpus 0 1" when CUDA was started, else "cpu" */
    /* One warm context per job slot, lent to the batches of the server's
     * device (gi_batch_options.context); busy while a batch holds it. The
     * slots take the chosen GPUs in turn: slot i runs on gpu_of[i]. */
    gi_context *warm[MAX_JOBS];
    char busy[MAX_JOBS];
    int gpu_of[MAX_JOBS];
    /* The GPUs the warm contexts run on (count 0: none): a batch lent one
     * of them spreads its images over all (gi_batch_options.gpus). */
    gi_gpus gpus;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a turn, a client gone, shutting down (CLOCK_MONOTONIC) */
    waiter *queue;          /* the jobs waiting, first come first */
    unsigned long served;
    int running, waiting, clients, jobs;
    int cores; /* online, shared out among the jobs that run (take_turn) */
    int stopping;
    double last_activity;
    /* The connections that asked for the shutdown: held until the server
     * has stopped, their end tells their clients so (past the first
     * MAX_STOP_WAITERS, they close at once). */
    int stop_waiters[MAX_STOP_WAITERS], n_stop_waiters;
    char build[700]; /* build_id.h: a job of another build is refused */
} server;

typedef struct {
    server *srv;
    int sock;
    pid_t pid;
    int *fds, n_fds;
    volatile sig_atomic_t stop; /* the batch's stop flag */
    volatile int gone;          /* the client closed: its outputs are not put in place */
    int deaf;                   /* a send failed or timed out: send no more */
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

enum { TURN_STOPPING = -1, TURN_TIMED_OUT = -2 };

static void leave_queue(server *srv, waiter *me)
{
    waiter **at = &srv->queue;
    while (*at != me) at = &(*at)->next;
    *at = me->next;
}

/* Arrival order: a job runs once every earlier one has started or left
 * and a slot is free. The slot's number; TURN_STOPPING when the server is
 * shutting down first; TURN_TIMED_OUT after max_wait_s without a turn.
 * *cores: the job's share of the cores, those online over the jobs running
 * with it. Unshared, each of N single-image jobs at once would decode and
 * compute with a thread per core, N threads a core (the batch engine
 * shares the cores out among its lanes likewise). A job that starts alone
 * has them all; the jobs that were running keep their share until they end. */
/* The free slot whose GPU runs the fewest jobs (the first at a tie), so
 * that calls at once spread over the GPUs (under the lock). */
static int least_busy_slot(const server *srv)
{
    int best = -1, best_load = 0;
    for (int slot = 0; slot < srv->jobs && slot < MAX_JOBS; slot++) {
        if (srv->busy[slot]) continue;
        int load = 0;
        for (int other = 0; other < srv->jobs; other++)
            load += srv->busy[other] && srv->gpu_of[other] == srv->gpu_of[slot];
        if (best < 0 || load < best_load) {
            best = slot;
            best_load = load;
        }
    }
    return best < 0 ? 0 : best; /* never: the caller saw a free slot */
}

static int take_turn(server *srv, int *cores)
{
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    double wait = srv->o->max_wait_s;
    deadline.tv_sec += (time_t)wait;
    deadline.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) deadline.tv_sec++, deadline.tv_nsec -= 1000000000L;
    waiter me = {NULL};
    pthread_mutex_lock(&srv->lock);
    waiter **tail = &srv->queue;
    while (*tail) tail = &(*tail)->next;
    *tail = &me;
    srv->waiting++;
    int ready = 0, late = 0;
    while (!srv->stopping && !(ready = srv->queue == &me && srv->running < srv->jobs) && !late)
        late = pthread_cond_timedwait(&srv->changed, &srv->lock, &deadline) == ETIMEDOUT;
    leave_queue(srv, &me);
    srv->waiting--;
    int slot = srv->stopping ? TURN_STOPPING : TURN_TIMED_OUT;
    if (!srv->stopping && ready) {
        srv->running++;
        slot = least_busy_slot(srv); /* running <= jobs: one is free */
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

/* A frame of the running job to its client. One that cannot be sent
 * (the client stopped reading for SEND_TIMEOUT_S, or is gone) stops the
 * job as if the client had gone: nothing more starts, the images in
 * flight are not put in place (their client, resumed, runs them itself). */
static void send_to_client(client *c, uint16_t type, const gi__put *w)
{
    if (c->deaf) return;
    if (!w->failed && gi__wire_send(c->sock, type, w->data, (uint32_t)w->size, NULL, 0) == 0)
        return;
    c->deaf = 1;
    c->stop = SIGTERM;
    __atomic_store_n(&c->gone, 1, __ATOMIC_RELEASE);
    logf_(c->srv, "client pid %ld takes no answer (%s): its job stopped", (long)c->pid,
          errno == EAGAIN ? "not reading" : strerror(errno));
}

static void send_item(void *user, const gi_batch_item *it)
{
    client *c = user;
    gi__put w = {0};
    gi__serve_result_encode((size_t)(it - c->items), it, &w);
    send_to_client(c, GI__FRAME_ITEM, &w);
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
        if (o.device == c->srv->o->device) {
            o.context = c->srv->warm[slot];
            o.gpus = c->srv->gpus;
        }
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
    int gone = __atomic_load_n(&c->gone, __ATOMIC_ACQUIRE); /* before the client may close */
    send_to_client(c, GI__FRAME_DONE, &w);
    free(w.data);
    gone |= c->deaf;
    int ok = 0, failed = 0;
    if (items) count_items(items, job->n_items, &ok, &failed);
    logf_(c->srv, "client pid %ld: %s, %zu item%s: %d ok, %d failed%s (%.1f ms, %d of %d cores)",
          (long)c->pid, job->command, job->n_items, job->n_items == 1 ? "" : "s", ok, failed,
          gone ? ", client gone" : "", (now_s() - start) * 1e3, cores, c->srv->cores);
    for (size_t i = 0; items && i < job->n_items; i++) free(items[i].reason);
    free(items);
    free(files);
}

/* Why a job's descriptor is not one the server takes, or NULL. Inputs
 * are regular files (a directory fails as it fails in-process); a pipe, a
 * terminal or a device would let whoever is at its far end hold the turn. */
static const char *descriptor_problem(const client *c, const gi__serve_job *job)
{
    for (size_t i = 0; i < job->n_items; i++) {
        const gi__serve_item *it = &job->items[i];
        struct stat st;
        if (it->in_fd >= 0 && (fstat(c->fds[it->in_fd], &st) != 0 ||
                               !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))))
            return "an input that is not a regular file";
        if (it->out_fd >= 0 && (fstat(c->fds[it->out_fd], &st) != 0 || !S_ISREG(st.st_mode)))
            return "an output that is not a regular file";
        if (it->dir_fd >= 0 && (fstat(c->fds[it->dir_fd], &st) != 0 || !S_ISDIR(st.st_mode)))
            return "an output directory that is not a directory";
    }
    return NULL;
}

static void serve_job(client *c, const gi__frame *f)
{
    gi__serve_job job;
    if (gi__serve_job_decode(f->payload, f->size, c->n_fds, &job) != GI_OK) {
        refuse(c, GI__REFUSED_MALFORMED, gi_last_error());
        return;
    }
    const char *problem = descriptor_problem(c, &job);
    int other_build = strcmp(job.build, c->srv->build) != 0;
    if (other_build || problem) {
        char text[1600];
        if (other_build)
            snprintf(text, sizeof text, "another build of gpuimg: the server runs %s, the call %s",
                     c->srv->build, job.build);
        else
            snprintf(text, sizeof text, "malformed job: %s", problem);
        refuse(c, other_build ? GI__REFUSED_BUILD : GI__REFUSED_MALFORMED, text);
        gi__serve_job_free(&job);
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
    } else if (slot == TURN_TIMED_OUT) {
        char text[100];
        snprintf(text, sizeof text, "busy: no turn within %g s", c->srv->o->max_wait_s);
        refuse(c, GI__REFUSED_BUSY, text);
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
    snprintf(text, size, "pid %ld, device %.200s, jobs served %lu, running %d, waiting %d, clients %d",
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
            server *srv = c->srv;
            send_text(c->sock, GI__FRAME_TEXT, 0, "shutting down");
            pthread_mutex_lock(&srv->lock);
            srv->stopping = 1;
            if (srv->n_stop_waiters < MAX_STOP_WAITERS) {
                srv->stop_waiters[srv->n_stop_waiters++] = c->sock;
                c->sock = -1;
            }
            pthread_cond_broadcast(&srv->changed);
            pthread_mutex_unlock(&srv->lock);
            logf_(srv, "client pid %ld asked to shut down", (long)c->pid);
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
    if (c->sock >= 0) close(c->sock);
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
    struct timeval send_timeout = {SEND_TIMEOUT_S, 0};
    (void)setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
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
 * still plans on its own share and may take the CPU. With several GPUs
 * chosen the slots take them in turn. Says in srv->device whether CUDA
 * runs in them, and on which GPUs, and keeps those GPUs in srv->gpus. */
static void warm_up(server *srv, gi_device device, int jobs)
{
    gi_gpus gpus = {0};
    int gpu = device != GI_DEVICE_CPU && gi_cuda_compiled() &&
              gi_gpus_resolve(&srv->o->gpus, &gpus) == GI_OK;
    gi_op blur = {.kind = GI_OP_BLUR};
    gi_blur_params_default(&blur.blur);
    gi_plan_hint photo = {.images = 1000, .steps = &blur, .n_steps = 1, .width = 4000,
                          .height = 3000, .channels = 3};
    int started = 0;
    for (int i = 0; i < jobs; i++) {
        srv->gpu_of[i] = gpu ? gpus.index[i % gpus.count] : 0;
        gi_context_options co = {device, 0, srv->gpu_of[i]};
        if (gi_context_create(&srv->warm[i], &co) != GI_OK) {
            srv->warm[i] = NULL;
            continue;
        }
        gi__context_set_cpu_threads(srv->warm[i], srv->cores / jobs > 1 ? srv->cores / jobs : 1);
        if (gpu && device == GI_DEVICE_AUTO) (void)gi_context_plan_hint(srv->warm[i], &photo);
        started |= gpu && strcmp(gi_context_backend(srv->warm[i]), "cuda") == 0;
    }
    snprintf(srv->device, sizeof srv->device, "%s", started ? "cuda, gpus" : "cpu");
    for (int k = 0; started && k < gpus.count && k < jobs; k++) {
        size_t n = strlen(srv->device);
        snprintf(srv->device + n, sizeof srv->device - n, " %d", gpus.index[k]);
        srv->gpus.index[srv->gpus.count++] = gpus.index[k];
    }
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
    if (o.jobs <= 0) o.jobs = gi__process_cores();
    if (o.jobs > MAX_JOBS) o.jobs = MAX_JOBS;
    if (o.max_clients <= 0) o.max_clients = 64;
    if (o.max_wait_s <= 0) o.max_wait_s = 2;
    if (o.max_wait_s > 1e6) o.max_wait_s = 1e6; /* a deadline that fits a timespec */
    gi_gpus named; /* GPUs named one by one must exist (else slots would use GPU 0) */
    if (o.device != GI_DEVICE_CPU && o.gpus.count && gi_cuda_compiled() &&
        gi_gpus_resolve(&o.gpus, &named) == GI_ERR_INVALID_ARGUMENT)
        return GI_ERR_INVALID_ARGUMENT;
    int listen_fd = gi__serve_listen(o.socket_path);
    if (listen_fd < 0) return GI_ERR_IO;
    raise_fd_limit();
    server srv = {.o = &o, .jobs = o.jobs, .cores = gi__cpu_count(), .last_activity = now_s()};
    (void)gi__serve_build_id(srv.build, sizeof srv.build);
    warm_up(&srv, o.device, o.jobs);
    pthread_mutex_init(&srv.lock, NULL);
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&srv.changed, &monotonic);
    pthread_condattr_destroy(&monotonic);
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
    for (int i = 0; i < srv.n_stop_waiters; i++) close(srv.stop_waiters[i]);
    return GI_OK;
}
