/* The client side: opens the batch's inputs and output directories,
 * hands them to the server with the job, and takes the items' results
 * back as they end. When the server goes away midway, the temporary files
 * it left in our directories are removed and the caller runs the rest. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_id.h"
#include "request.h"
#include "serve.h"
#include "socket.h"
#include "codec/temp_names.h"

#define ACCEPT_TIMEOUT_MS 2000 /* a server that does not answer by then is not used */

typedef struct {
    int *fds;
    int n_fds;
    char **dirs; /* the path of each directory descriptor, or NULL for inputs */
    gi__serve_item *wire;
} handover;

static void handover_free(handover *h)
{
    for (int i = 0; i < h->n_fds; i++) {
        close(h->fds[i]);
        free(h->dirs[i]);
    }
    free(h->fds);
    free(h->dirs);
    free(h->wire);
}

/* mkdir -p of the directories between root and dir, as the batch does
 * (batch_image.c): none may be a symbolic link. */
static int make_dirs(const char *root, const char *dir)
{
    size_t root_len = strlen(root);
    char path[4096];
    if (strncmp(dir, root, root_len) != 0 || strlen(dir) + 1 >= sizeof path) return 0;
    snprintf(path, sizeof path, "%s/", dir);
    for (char *p = path + root_len + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        struct stat st;
        if ((mkdir(path, 0777) != 0 && errno != EEXIST) || lstat(path, &st) != 0 ||
            !S_ISDIR(st.st_mode))
            return -1;
        *p = '/';
    }
    return 0;
}

static int add_fd(handover *h, int fd, const char *dir)
{
    h->fds[h->n_fds] = fd;
    h->dirs[h->n_fds] = dir ? strdup(dir) : NULL;
    if (dir && !h->dirs[h->n_fds]) {
        close(fd);
        return -1;
    }
    return h->n_fds++;
}

/* The descriptor index of the directory holding `out`, opened once. */
static int directory_of(handover *h, const char *root, const char *out, const char **name)
{
    char dir[4096];
    const char *slash = strrchr(out, '/');
    *name = slash ? slash + 1 : out;
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == out) snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - out) < sizeof dir) snprintf(dir, sizeof dir, "%.*s", (int)(slash - out), out);
    else return -1;
    for (int i = h->n_fds - 1; i >= 0; i--)
        if (h->dirs[i] && strcmp(h->dirs[i], dir) == 0) return i;
    if (root && make_dirs(root, dir) != 0) return -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? -1 : add_fd(h, fd, dir);
}

/* What a file that is neither regular nor a directory is, for -v. */
static const char *kind_of(int fd, mode_t mode)
{
    if (S_ISFIFO(mode)) return "a pipe";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return fd >= 0 && isatty(fd) ? "a terminal" : "a device";
    if (S_ISBLK(mode)) return "a block device";
    return "not a regular file";
}

/* The input's descriptor, blocking, or -1 with errno; -2 when it is
 * neither a regular file nor a directory (*kind says what): the reader
 * of a pipe, a terminal or a device waits on whoever is at its far end,
 * which must not hold one of the server's turns. A FIFO is not opened
 * here: its opening is what its writer waits for. */
static int open_input(const char *path, const char **kind)
{
    struct stat st = {0};
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return *kind = kind_of(-1, st.st_mode), -2;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return -1;
    int kept = fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) &&
               fcntl(fd, F_SETFL, 0) == 0;
    if (!kept) { /* swapped since the stat, or unreadable */
        *kind = kind_of(-1, st.st_mode);
        close(fd);
        return -2;
    }
    return fd;
}

/* Opens what the batch will read and write. -1 when something is not as
 * the server can take it (standard input, an input or standard output
 * that is not a regular file, a directory that cannot be made or opened,
 * too many files): the batch then runs here, which says why in its own
 * words; *why says why here. */
static int open_files(handover *h, const gi_batch_options *o, const gi_batch_item *items,
                      size_t count, char *why, size_t why_size)
{
    if (count == 0 || count > GI__SERVE_MAX_ITEMS) {
        snprintf(why, why_size, "%zu items: over the server's %d", count, GI__SERVE_MAX_ITEMS);
        return -1;
    }
    h->fds = malloc(GI__SERVE_MAX_FDS * sizeof *h->fds);
    h->dirs = malloc(GI__SERVE_MAX_FDS * sizeof *h->dirs);
    h->wire = calloc(count, sizeof *h->wire);
    if (!h->fds || !h->dirs || !h->wire) return snprintf(why, why_size, "out of memory"), -1;
    for (size_t i = 0; i < count; i++) {
        const gi_batch_item *it = &items[i];
        gi__serve_item *w = &h->wire[i];
        *w = (gi__serve_item){it->in, it->out, it->problem, NULL, -1, 0, -1, -1};
        if (it->problem) continue;
        if (strcmp(it->in, "-") == 0)
            return snprintf(why, why_size, "standard input is read here"), -1;
        struct stat st;
        if (strcmp(it->out, "-") == 0) {
            /* our standard output, written by the server as we would when
             * it is a file */
            if (fstat(STDOUT_FILENO, &st) == 0 && !S_ISREG(st.st_mode))
                return snprintf(why, why_size, "standard output is %s, written here",
                                kind_of(STDOUT_FILENO, st.st_mode)), -1;
            int fd = fflush(stdout) == 0 ? fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0) : -1;
            if (fd < 0 || (w->out_fd = add_fd(h, fd, NULL)) < 0)
                return snprintf(why, why_size, "standard output cannot be handed over"), -1;
        } else {
            w->dir_fd = directory_of(h, o->output_root, it->out, &w->out_name);
            if (w->dir_fd < 0 || !*w->out_name || strcmp(w->out_name, ".") == 0 ||
                strcmp(w->out_name, "..") == 0)
                return snprintf(why, why_size, "%s: its directory cannot be opened here", it->out),
                       -1;
        }
        const char *kind = NULL;
        int fd = open_input(it->in, &kind);
        if (fd == -2) return snprintf(why, why_size, "%s is %s, read here", it->in, kind), -1;
        if (fd < 0 && (errno == EMFILE || errno == ENFILE))
            return snprintf(why, why_size, "too many files open"), -1;
        if (fd < 0) w->in_errno = errno;
        else if ((w->in_fd = add_fd(h, fd, NULL)) < 0) return snprintf(why, why_size, "out of memory"), -1;
    }
    return 0;
}

static int send_request(int sock, const char *command, const gi_batch_options *o, handover *h,
                        size_t count)
{
    for (int at = 0; at < h->n_fds; at += GI__WIRE_FDS_PER_FRAME) {
        int n = h->n_fds - at < GI__WIRE_FDS_PER_FRAME ? h->n_fds - at : GI__WIRE_FDS_PER_FRAME;
        if (gi__wire_send(sock, GI__FRAME_FDS, NULL, 0, h->fds + at, n) != 0) return -1;
    }
    char build[700];
    (void)gi__serve_build_id(build, sizeof build);
    gi__put w = {0};
    int rc = gi__serve_job_encode(command, build, o, h->wire, count, &w) == 0 &&
                     w.size <= GI__WIRE_MAX_PAYLOAD
                 ? gi__wire_send(sock, GI__FRAME_JOB, w.data, (uint32_t)w.size, NULL, 0)
                 : -1;
    free(w.data);
    return rc;
}

/* A REFUSED frame's reason, or why the answer was not one. */
static void describe_answer(int rc, const gi__frame *f, char *why, size_t size)
{
    if (rc <= 0) {
        snprintf(why, size, "the server did not answer: %s", rc == 0 ? "it closed" : strerror(errno));
        return;
    }
    if (f->version != GI__WIRE_VERSION) {
        snprintf(why, size, "the server speaks protocol %d, this client %d", f->version,
                 GI__WIRE_VERSION);
        return;
    }
    gi__get r = {f->payload, f->size, 0};
    if (f->type == GI__FRAME_REFUSED) {
        (void)gi__get_u32(&r);
        const char *text = gi__get_str(&r);
        snprintf(why, size, "the server refused: %s", text && !r.failed ? text : "?");
    } else {
        snprintf(why, size, "the server answered frame %d", f->type);
    }
}

/* Removes the temporary files a lost server left in our directories:
 * those whose name (temp_names.h) carries the server's PID. */
static void remove_server_temps(const handover *h, pid_t server)
{
    for (int i = 0; i < h->n_fds; i++) {
        if (!h->dirs[i]) continue;
        int fd = dup(h->fds[i]);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d) {
            if (fd >= 0) close(fd);
            continue;
        }
        rewinddir(d);
        for (struct dirent *e; (e = readdir(d));) {
            pid_t writer;
            if (gi__parse_temp_name(e->d_name, &writer) && writer == server)
                unlinkat(h->fds[i], e->d_name, 0);
        }
        closedir(d);
    }
}

/* Takes the results until DONE. GI_SERVE_DONE, or how it ended early. */
static gi_serve_outcome take_results(int sock, const gi_batch_options *o, gi_batch_item *items,
                                     size_t count, size_t *reported, char *why, size_t why_size)
{
    int cancelled = 0;
    char *seen = calloc(count, 1);
    if (!seen) return snprintf(why, why_size, "out of memory"), GI_SERVE_NOT_RUN;
    gi_serve_outcome outcome = GI_SERVE_PARTLY;
    for (;;) {
        if (!cancelled && o->stop && *o->stop) {
            cancelled = 1;
            (void)gi__wire_send(sock, GI__FRAME_CANCEL, NULL, 0, NULL, 0);
        }
        struct pollfd p = {sock, POLLIN, 0};
        if (poll(&p, 1, 100) == 0) continue;
        gi__frame f;
        int none = 0;
        int rc = gi__wire_recv(sock, &f, 10000, NULL, &none, 0);
        size_t i;
        gi_batch_item got = {0};
        if (rc == 1 && f.version == GI__WIRE_VERSION && f.type == GI__FRAME_ITEM &&
            gi__serve_result_decode(f.payload, f.size, count, &i, &got) == 0 && !seen[i]) {
            seen[i] = 1;
            (*reported)++;
            got.in = items[i].in;
            got.out = items[i].out;
            got.problem = items[i].problem;
            got.files = items[i].files;
            free(items[i].reason);
            items[i] = got;
            if (o->on_item) o->on_item(o->user, &items[i]);
            /* the texts were the payload's, for on_item only */
            items[i].choice = items[i].note = items[i].metadata_note = items[i].codecs_note =
                items[i].warning = "";
            free(f.payload);
            continue;
        }
        free(got.reason);
        if (rc == 1 && f.version == GI__WIRE_VERSION && f.type == GI__FRAME_DONE) {
            gi__get r = {f.payload, f.size, 0};
            int32_t st = gi__get_i32(&r);
            (void)gi__get_str(&r);
            double waited = gi__get_f64(&r);
            int32_t threads = gi__get_i32(&r);
            if (o->waits && !r.failed) *o->waits = (gi_batch_waits){waited, threads};
            if (st == GI_OK && *reported == count) outcome = GI_SERVE_DONE;
            else snprintf(why, why_size, "the server could not run the batch");
        } else if (rc == 1 && f.type == GI__FRAME_REFUSED) {
            describe_answer(rc, &f, why, why_size);
        } else {
            snprintf(why, why_size, "the server was lost midway%s%s", rc < 0 ? ": " : "",
                     rc < 0 ? strerror(errno) : "");
        }
        free(f.payload);
        break;
    }
    free(seen);
    return outcome;
}

gi_serve_outcome gi_serve_batch(const char *socket_path, const char *command,
                                const gi_batch_options *opts, gi_batch_item *items, size_t count,
                                char *note, size_t note_size)
{
    /* refused as gi_batch_run refuses it, before a directory is made */
    if (gi_batch_check_outputs(items, count) != GI_OK) {
        snprintf(note, note_size, "%s", gi_last_error());
        return GI_SERVE_NOT_RUN;
    }
    pid_t server = 0;
    int sock = gi__serve_connect(socket_path, &server, note, note_size);
    if (sock < 0) return GI_SERVE_NOT_RUN;
    handover h = {0};
    gi_serve_outcome outcome = GI_SERVE_NOT_RUN;
    if (open_files(&h, opts, items, count, note, note_size) == 0) {
        gi__frame f = {0};
        int none = 0, rc = -1;
        if (send_request(sock, command, opts, &h, count) != 0) {
            /* a server that refuses at once (full) closes before reading */
            int err = errno;
            if (gi__wire_recv(sock, &f, 200, NULL, &none, 0) == 1) describe_answer(1, &f, note, note_size);
            else snprintf(note, note_size, "cannot send to the server: %s", strerror(err));
        } else if ((rc = gi__wire_recv(sock, &f, ACCEPT_TIMEOUT_MS, NULL, &none, 0)) != 1 ||
                 f.version != GI__WIRE_VERSION || f.type != GI__FRAME_ACCEPTED)
            describe_answer(rc, &f, note, note_size);
        else {
            size_t reported = 0;
            outcome = take_results(sock, opts, items, count, &reported, note, note_size);
            if (outcome == GI_SERVE_DONE)
                snprintf(note, note_size, "ran by the server at %s (pid %ld)", socket_path,
                         (long)server);
            else {
                remove_server_temps(&h, server);
                if (reported == 0) outcome = GI_SERVE_NOT_RUN;
            }
        }
        free(f.payload);
    }
    handover_free(&h);
    close(sock);
    return outcome;
}

/* After SHUTDOWN's answer: the server holds the connection until it has
 * stopped. 0 once it has closed, 1 after wait_s. */
static int wait_closed(int sock, double wait_s)
{
    struct pollfd p = {sock, POLLIN, 0};
    char byte;
    for (int left_ms = (int)(wait_s * 1e3); left_ms > 0; left_ms -= 100)
        if (poll(&p, 1, 100) > 0 && read(sock, &byte, 1) <= 0) return 0;
    return 1;
}

/* INFO and SHUTDOWN: one request, one line back; SHUTDOWN waits for the
 * server to stop, wait_s at most (the return of gi_serve_shutdown). */
static int ask(const char *socket_path, uint16_t type, double wait_s, char *text, size_t size)
{
    pid_t server;
    int sock = gi__serve_connect(socket_path, &server, text, size);
    if (sock < 0) return -1;
    gi__frame f = {0};
    int none = 0, rc = gi__wire_send(sock, type, NULL, 0, NULL, 0) == 0
                           ? gi__wire_recv(sock, &f, ACCEPT_TIMEOUT_MS, NULL, &none, 0)
                           : -1;
    int ok = rc == 1 && f.version == GI__WIRE_VERSION && f.type == GI__FRAME_TEXT;
    if (ok) {
        gi__get r = {f.payload, f.size, 0};
        const char *s = gi__get_str(&r);
        snprintf(text, size, "%s", s ? s : "");
    } else {
        describe_answer(rc, &f, text, size);
    }
    free(f.payload);
    int still = 0;
    if (ok && type == GI__FRAME_SHUTDOWN) {
        still = wait_closed(sock, wait_s);
        snprintf(text, size, still ? "the server (pid %ld) is stopping: its calls in flight are "
                                     "finishing"
                                   : "the server (pid %ld) has stopped",
                 (long)server);
    }
    close(sock);
    return ok ? still : -1;
}

int gi_serve_query(const char *socket_path, char *text, size_t size)
{
    return ask(socket_path, GI__FRAME_INFO, 0, text, size);
}

int gi_serve_shutdown(const char *socket_path, double wait_s, char *text, size_t size)
{
    return ask(socket_path, GI__FRAME_SHUTDOWN, wait_s, text, size);
}
