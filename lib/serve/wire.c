/* Frames over a Unix stream socket, with descriptors attached. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static int send_all(int sock, const uint8_t *p, size_t n, const int *fds, int n_fds)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * GI__WIRE_FDS_PER_FRAME)];
    } control;
    while (n > 0) {
        struct iovec iov = {(void *)p, n};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
        if (n_fds > 0) {
            memset(&control, 0, sizeof control);
            msg.msg_control = control.buf;
            msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n_fds);
            struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n_fds);
            memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n_fds);
        }
        ssize_t sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return -1;
        n_fds = 0; /* they went with the first byte */
        p += sent;
        n -= (size_t)sent;
    }
    return 0;
}

int gi__wire_send(int sock, uint16_t type, const void *payload, uint32_t size, const int *fds,
                  int n_fds)
{
    if (size > GI__WIRE_MAX_PAYLOAD || n_fds < 0 || n_fds > GI__WIRE_FDS_PER_FRAME) {
        errno = EINVAL;
        return -1;
    }
    uint8_t *frame = malloc(GI__WIRE_HEADER + (size_t)size);
    if (!frame) return -1;
    put_le(frame, GI__WIRE_MAGIC, 4);
    put_le(frame + 4, GI__WIRE_VERSION, 2);
    put_le(frame + 6, type, 2);
    put_le(frame + 8, size, 4);
    if (size) memcpy(frame + GI__WIRE_HEADER, payload, size);
    int rc = send_all(sock, frame, GI__WIRE_HEADER + (size_t)size, fds, n_fds);
    free(frame);
    return rc;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Waits until the socket is readable; -1 with ETIMEDOUT past the deadline. */
static int wait_readable(int sock, double deadline)
{
    for (;;) {
        int wait = -1;
        if (deadline >= 0) {
            double left = deadline - now_ms();
            if (left <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            wait = (int)left + 1;
        }
        struct pollfd p = {sock, POLLIN, 0};
        int n = poll(&p, 1, wait);
        if (n > 0) return 0;
        if (n < 0 && errno != EINTR) return -1;
    }
}

/* Takes the descriptors of one received message into fds; -1 (EPROTO)
 * when there are more than room, all of them closed. */
static int take_fds(struct msghdr *msg, int *fds, int *n_fds, int max_fds)
{
    int overflow = (msg->msg_flags & MSG_CTRUNC) != 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < n; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            if (*n_fds < max_fds) fds[(*n_fds)++] = fd;
            else {
                close(fd);
                overflow = 1;
            }
        }
    }
    if (overflow) errno = EPROTO;
    return overflow ? -1 : 0;
}

/* Reads exactly n bytes; 0 at a clean end before the first, -1 else. */
static int read_exact(int sock, uint8_t *p, size_t n, double deadline, int *fds, int *n_fds,
                      int max_fds)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * GI__WIRE_FDS_PER_FRAME)];
    } control;
    size_t got = 0;
    int failed = 0;
    while (got < n) {
        if (wait_readable(sock, deadline) != 0) return -1;
        struct iovec iov = {p + got, n - got};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                             .msg_controllen = sizeof control.buf};
        ssize_t r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
        if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (r < 0) return -1;
        if (take_fds(&msg, fds, n_fds, max_fds) != 0) failed = 1;
        if (r == 0) {
            if (got == 0 && !failed) return 0;
            errno = EPROTO;
            return -1;
        }
        got += (size_t)r;
    }
    if (failed) errno = EPROTO;
    return failed ? -1 : 1;
}

int gi__wire_recv(int sock, gi__frame *frame, int timeout_ms, int *fds, int *n_fds, int max_fds)
{
    *frame = (gi__frame){0};
    double deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    uint8_t head[GI__WIRE_HEADER];
    int rc = read_exact(sock, head, sizeof head, deadline, fds, n_fds, max_fds);
    if (rc <= 0) return rc;
    uint32_t size = (uint32_t)get_le(head + 8, 4);
    if (get_le(head, 4) != GI__WIRE_MAGIC || size > GI__WIRE_MAX_PAYLOAD) {
        errno = EPROTO;
        return -1;
    }
    frame->version = (uint16_t)get_le(head + 4, 2);
    frame->type = (uint16_t)get_le(head + 6, 2);
    frame->size = size;
    if (size == 0) return 1;
    frame->payload = malloc(size);
    if (!frame->payload) return -1;
    /* No descriptors may ride inside a payload: room for none. */
    int none = 0;
    rc = read_exact(sock, frame->payload, size, deadline, NULL, &none, 0);
    if (rc <= 0) {
        free(frame->payload);
        frame->payload = NULL;
        if (rc == 0) errno = EPROTO;
        return -1;
    }
    return 1;
}

static void put_bytes(gi__put *w, const void *p, size_t n)
{
    if (w->failed || n == 0) return;
    if (w->size + n > w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 256;
        while (cap < w->size + n) cap *= 2;
        uint8_t *bigger = realloc(w->data, cap);
        if (!bigger) {
            w->failed = 1;
            return;
        }
        w->data = bigger;
        w->cap = cap;
    }
    memcpy(w->data + w->size, p, n);
    w->size += n;
}

static void put_int(gi__put *w, uint64_t v, int bytes)
{
    uint8_t b[8];
    put_le(b, v, bytes);
    put_bytes(w, b, (size_t)bytes);
}

void gi__put_u8(gi__put *w, uint8_t v) { put_int(w, v, 1); }
void gi__put_u32(gi__put *w, uint32_t v) { put_int(w, v, 4); }
void gi__put_i32(gi__put *w, int32_t v) { put_int(w, (uint32_t)v, 4); }
void gi__put_u64(gi__put *w, uint64_t v) { put_int(w, v, 8); }

void gi__put_f64(gi__put *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_int(w, bits, 8);
}

void gi__put_str(gi__put *w, const char *s)
{
    size_t n = s ? strlen(s) + 1 : 0;
    if (n > GI__WIRE_MAX_STRING) n = GI__WIRE_MAX_STRING, w->failed = 1;
    gi__put_u32(w, (uint32_t)n);
    put_bytes(w, s, n);
}

static const uint8_t *get_bytes(gi__get *r, size_t n)
{
    if (r->failed || r->left < n) {
        r->failed = 1;
        return NULL;
    }
    const uint8_t *p = r->at;
    r->at += n;
    r->left -= n;
    return p;
}

static uint64_t get_int(gi__get *r, int bytes)
{
    const uint8_t *p = get_bytes(r, (size_t)bytes);
    return p ? get_le(p, bytes) : 0;
}

uint8_t gi__get_u8(gi__get *r) { return (uint8_t)get_int(r, 1); }
uint32_t gi__get_u32(gi__get *r) { return (uint32_t)get_int(r, 4); }
int32_t gi__get_i32(gi__get *r) { return (int32_t)(uint32_t)get_int(r, 4); }
uint64_t gi__get_u64(gi__get *r) { return get_int(r, 8); }

double gi__get_f64(gi__get *r)
{
    uint64_t bits = get_int(r, 8);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

const char *gi__get_str(gi__get *r)
{
    uint32_t n = gi__get_u32(r);
    if (n == 0 || r->failed) return NULL;
    const uint8_t *p = n <= GI__WIRE_MAX_STRING ? get_bytes(r, n) : NULL;
    if (!p || p[n - 1] != 0 || memchr(p, 0, n - 1)) {
        r->failed = 1;
        return NULL;
    }
    return (const char *)p;
}
