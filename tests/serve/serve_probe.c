/* serve_probe MODE SOCKET [ARG]: a hostile or odd peer of gpuimg serve,
 * for check_serve.sh. Exit 0 when the other side behaved as it should.
 *
 *   junk SOCKET          bytes that are no frame: refused or closed
 *   version SOCKET       a frame of protocol 99: REFUSED (version)
 *   bad-index SOCKET     a job naming a descriptor it did not send: REFUSED (malformed)
 *   truncated SOCKET     a job cut short: REFUSED (malformed)
 *   huge SOCKET          a header claiming 4 GiB: refused or closed, nothing read
 *   many-fds SOCKET      more descriptors than a request may hold: refused or closed
 *   hold SOCKET SECONDS  connects, sends nothing, stays (a client slot taken)
 *   other-build SOCKET   a valid job from another build of gpuimg: REFUSED (build)
 *   stall SOCKET SECONDS a job whose 2048 results far exceed what the socket holds,
 *                        none of them read: prints "accepted", then stays, as a
 *                        stopped client would
 *   trickle SOCKET SECONDS the same job, its results read one every 200 ms: the
 *                        server's sends never wait long, the job holds its turn
 *   fake-server SOCKET   answers one client's request with a frame of protocol 99
 *   job-seed FILE        writes a valid JOB payload (the fuzz target's seed)
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "serve/request.h"
#include "serve/wire.h"
#include "serve/build_id.h"

static int connect_to(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
        perror(path);
        exit(2);
    }
    return s;
}

static void put_header(uint8_t *h, uint32_t magic, uint16_t version, uint16_t type, uint32_t size)
{
    for (int i = 0; i < 4; i++) h[i] = (uint8_t)(magic >> 8 * i);
    h[4] = (uint8_t)version, h[5] = (uint8_t)(version >> 8);
    h[6] = (uint8_t)type, h[7] = (uint8_t)(type >> 8);
    for (int i = 0; i < 4; i++) h[8 + i] = (uint8_t)(size >> 8 * i);
}

/* The server's answer: a refusal's code, 0 when it closed, -1 for
 * anything else. */
static int answer(int s)
{
    gi__frame f;
    int none = 0;
    int rc = gi__wire_recv(s, &f, 5000, NULL, &none, 0);
    int code = -1;
    if (rc == 0 || (rc < 0 && (errno == ECONNRESET || errno == EPIPE))) code = 0;
    if (rc == 1 && f.type == GI__FRAME_REFUSED && f.size >= 4)
        code = f.payload[0] | f.payload[1] << 8;
    free(f.payload);
    return code;
}

/* A blur job of two items, the first reading descriptor 0 into the
 * directory of descriptor 1, the second failing unrun; of this build. */
static void job_payload(gi__put *w, const char *build)
{
    gi_batch_options o;
    gi_batch_options_default(&o);
    gi_op steps[2] = {{.kind = GI_OP_BLUR}, {.kind = GI_OP_TRANSFORM, .transform = GI_ROTATE_90}};
    gi_blur_params_default(&steps[0].blur);
    o.job.steps = steps;
    o.job.n_steps = 2;
    gi__serve_item items[2] = {{"in.png", "out/x.png", NULL, "x.png", 0, 0, 1, -1},
                               {"b.png", "out/b.png", "not an image", NULL, -1, 0, -1, -1}};
    if (gi__serve_job_encode("blur", build, &o, items, 2, w) != 0) exit(2);
}

/* A job of GI__SERVE_MAX_ITEMS items that fail unrun, each with a long
 * reason: its results are megabytes, where a socket holds a few hundred
 * kilobytes. */
static void stall_payload(gi__put *w, const char *build)
{
    static char why[3000];
    memset(why, 'x', sizeof why - 1);
    static gi__serve_item items[GI__SERVE_MAX_ITEMS];
    for (int i = 0; i < GI__SERVE_MAX_ITEMS; i++)
        items[i] = (gi__serve_item){"in.png", "out.png", why, NULL, -1, 0, -1, -1};
    gi_batch_options o;
    gi_batch_options_default(&o);
    gi_op step = {.kind = GI_OP_TRANSFORM, .transform = GI_FLIP_H};
    o.job.steps = &step;
    o.job.n_steps = 1;
    if (gi__serve_job_encode("flip", build, &o, items, GI__SERVE_MAX_ITEMS, w) != 0) exit(2);
}

static int expect(int got, int want, const char *what)
{
    if (got == want || (want == 0 && got > 0)) return 0;
    fprintf(stderr, "serve_probe %s: answer %d, expected %d\n", what, got, want);
    return 1;
}

/* The build a server checks is the file that holds its serve code: the
 * libgpuimg.so that the gpuimg under test loads (LD_LIBRARY_PATH). The
 * probe links the library's layers in, so its own code is another file:
 * it names that library's, found as the loader finds it. */
static void library_build_id(char *id, size_t size)
{
    void *lib = dlopen("libgpuimg.so.0", RTLD_NOW);
    void *fn = lib ? dlsym(lib, "gi_serve_run") : NULL;
    Dl_info where;
    char path[PATH_MAX];
    if (fn && dladdr(fn, &where) && where.dli_fname && realpath(where.dli_fname, path))
        gi__serve_build_id_of(path, id, size);
    else
        gi__serve_build_id(id, size);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: serve_probe MODE SOCKET|FILE [ARG]\n");
        return 2;
    }
    const char *mode = argv[1], *path = argv[2];
    gi__put w = {0};
    uint8_t head[GI__WIRE_HEADER];
    char build[700];
    library_build_id(build, sizeof build);
    if (strcmp(mode, "job-seed") == 0) {
        job_payload(&w, "a build"); /* the same seed from every build */
        FILE *f = fopen(path, "wb");
        uint8_t n_fds = 2; /* the fuzz target's first byte: descriptors sent before */
        int bad = !f || fwrite(&n_fds, 1, 1, f) != 1 || fwrite(w.data, 1, w.size, f) != w.size ||
                  fclose(f) != 0;
        free(w.data);
        return bad;
    }
    if (strcmp(mode, "fake-server") == 0) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
        int l = socket(AF_UNIX, SOCK_STREAM, 0);
        if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 4) != 0) return 2;
        printf("ready\n");
        fflush(stdout);
        int s = accept(l, NULL, NULL);
        gi__frame f;
        int fds[GI__SERVE_MAX_FDS], n = 0;
        while (gi__wire_recv(s, &f, 5000, fds, &n, GI__SERVE_MAX_FDS) == 1) {
            free(f.payload);
            if (f.type != GI__FRAME_FDS) break;
        }
        put_header(head, GI__WIRE_MAGIC, 99, GI__FRAME_ACCEPTED, 0);
        (void)!write(s, head, sizeof head);
        sleep(1);
        return 0;
    }
    int s = connect_to(path);
    if (strcmp(mode, "junk") == 0) {
        (void)!write(s, "GET / HTTP/1.0\r\n\r\n", 18);
        return expect(answer(s), 0, mode);
    }
    if (strcmp(mode, "version") == 0) {
        put_header(head, GI__WIRE_MAGIC, 99, GI__FRAME_INFO, 0);
        (void)!write(s, head, sizeof head);
        return expect(answer(s), GI__REFUSED_VERSION, mode);
    }
    if (strcmp(mode, "bad-index") == 0 || strcmp(mode, "truncated") == 0) {
        int fd = open("/dev/null", O_RDONLY);
        gi__wire_send(s, GI__FRAME_FDS, NULL, 0, &fd, 1); /* one, where the job names two */
        job_payload(&w, build);
        if (strcmp(mode, "truncated") == 0) w.size -= 3;
        gi__wire_send(s, GI__FRAME_JOB, w.data, (uint32_t)w.size, NULL, 0);
        free(w.data);
        return expect(answer(s), GI__REFUSED_MALFORMED, mode);
    }
    if (strcmp(mode, "huge") == 0) {
        put_header(head, GI__WIRE_MAGIC, GI__WIRE_VERSION, GI__FRAME_JOB, 0xFFFFFFFFu);
        (void)!write(s, head, sizeof head);
        return expect(answer(s), 0, mode);
    }
    if (strcmp(mode, "many-fds") == 0) {
        int fds[GI__WIRE_FDS_PER_FRAME];
        int fd = open("/dev/null", O_RDONLY);
        for (int i = 0; i < GI__WIRE_FDS_PER_FRAME; i++) fds[i] = fd;
        for (int sent = 0; sent <= GI__SERVE_MAX_FDS; sent += GI__WIRE_FDS_PER_FRAME)
            if (gi__wire_send(s, GI__FRAME_FDS, NULL, 0, fds, GI__WIRE_FDS_PER_FRAME) != 0) break;
        return expect(answer(s), 0, mode);
    }
    if (strcmp(mode, "other-build") == 0) {
        int fds[2] = {open("/dev/null", O_RDONLY), open(".", O_RDONLY | O_DIRECTORY)};
        gi__wire_send(s, GI__FRAME_FDS, NULL, 0, fds, 2);
        job_payload(&w, "/elsewhere/libgpuimg.so (inode 1, 1 bytes, modified 2026-01-01 "
                        "00:00:00.000000000 UTC)");
        gi__wire_send(s, GI__FRAME_JOB, w.data, (uint32_t)w.size, NULL, 0);
        free(w.data);
        return expect(answer(s), GI__REFUSED_BUILD, mode);
    }
    if (strcmp(mode, "stall") == 0 || strcmp(mode, "trickle") == 0) {
        stall_payload(&w, build);
        if (gi__wire_send(s, GI__FRAME_JOB, w.data, (uint32_t)w.size, NULL, 0) != 0) return 2;
        free(w.data);
        gi__frame f;
        int none = 0;
        if (gi__wire_recv(s, &f, 5000, NULL, &none, 0) != 1 || f.type != GI__FRAME_ACCEPTED) {
            fprintf(stderr, "serve_probe stall: not accepted\n");
            return 1;
        }
        printf("accepted\n");
        fflush(stdout);
        int seconds = argc > 3 ? atoi(argv[3]) : 5;
        if (strcmp(mode, "stall") == 0) {
            sleep((unsigned)seconds);
            return 0;
        }
        for (int i = 0; i < seconds * 5; i++) {
            usleep(200000);
            if (gi__wire_recv(s, &f, 5000, NULL, &none, 0) != 1) break;
            free(f.payload);
        }
        return 0;
    }
    if (strcmp(mode, "hold") == 0) {
        sleep(argc > 3 ? (unsigned)atoi(argv[3]) : 5);
        return 0;
    }
    fprintf(stderr, "serve_probe: no mode '%s'\n", mode);
    return 2;
}
