/* The frames of gpuimg serve's socket protocol: a fixed 12-byte header
 * (magic, version, type, payload length, little-endian) and a bounded
 * payload; descriptors ride with a frame's first byte (SCM_RIGHTS). The
 * header's layout never changes, so both sides can read a peer of
 * another version far enough to refuse it. */
#ifndef GI_SERVE_WIRE_H
#define GI_SERVE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define GI__WIRE_MAGIC 0x56534947u /* "GISV" */
#define GI__WIRE_VERSION 5 /* 3: the job carries the client's build; 4: its output depth;
                            * 5: an item's warning */
#define GI__WIRE_HEADER 12
#define GI__WIRE_MAX_PAYLOAD (8u << 20)
#define GI__WIRE_FDS_PER_FRAME 250 /* under the kernel's SCM_MAX_FD */

typedef enum {
    /* client to server */
    GI__FRAME_FDS = 1,     /* descriptors for the coming job, no payload */
    GI__FRAME_JOB = 2,     /* the job (request.h); the request's last frame */
    GI__FRAME_INFO = 3,    /* asks for the server's state */
    GI__FRAME_SHUTDOWN = 4,/* asks the server to finish its jobs and exit */
    GI__FRAME_CANCEL = 5,  /* during a job: start no more images */
    /* server to client */
    GI__FRAME_ACCEPTED = 16, /* the job is valid and queued */
    GI__FRAME_REFUSED = 17,  /* u32 reason (gi__refusal), a string */
    GI__FRAME_ITEM = 18,     /* one item's result (request.h) */
    GI__FRAME_DONE = 19,     /* i32 gi_status of the batch, a string (its error),
                                f64 and i32: gi_batch_waits */
    GI__FRAME_TEXT = 20      /* a string: the answer to INFO or SHUTDOWN; after
                                SHUTDOWN's, the server holds the connection open
                                until it has stopped */
} gi__frame_type;

typedef enum {
    GI__REFUSED_VERSION = 1, GI__REFUSED_MALFORMED, GI__REFUSED_FULL, GI__REFUSED_SHUTTING_DOWN,
    GI__REFUSED_BUILD, /* the client is another build of gpuimg */
    GI__REFUSED_BUSY   /* no turn came within the server's --max-wait */
} gi__refusal;

typedef struct {
    uint16_t version, type;
    uint32_t size;
    uint8_t *payload; /* malloc'd (NULL when size is 0) */
} gi__frame;

/* Sends one frame with n_fds descriptors (<= GI__WIRE_FDS_PER_FRAME).
 * 0, or -1 with errno. Never raises SIGPIPE. */
int gi__wire_send(int sock, uint16_t type, const void *payload, uint32_t size, const int *fds,
                  int n_fds);
/* Receives one frame within timeout_ms (-1: no limit), appending the
 * descriptors that came with it to fds[*n_fds..max_fds) (any beyond are
 * closed and the frame refused). 1: a frame; 0: the peer closed before
 * one began; -1 with errno: EPROTO (bad magic, oversized payload, too
 * many descriptors), ETIMEDOUT, or the socket's error. The version is
 * the caller's to check. */
int gi__wire_recv(int sock, gi__frame *frame, int timeout_ms, int *fds, int *n_fds, int max_fds);

/* Little-endian payloads: a writer that grows, a reader that fails once
 * (and stays failed) on anything short, oversized or malformed. */
typedef struct {
    uint8_t *data;
    size_t size, cap;
    int failed; /* out of memory */
} gi__put;
void gi__put_u8(gi__put *w, uint8_t v);
void gi__put_u32(gi__put *w, uint32_t v);
void gi__put_i32(gi__put *w, int32_t v);
void gi__put_u64(gi__put *w, uint64_t v);
void gi__put_f64(gi__put *w, double v);
/* u32 length counting a terminating NUL, then the bytes and the NUL;
 * NULL is length 0. */
void gi__put_str(gi__put *w, const char *s);

#define GI__WIRE_MAX_STRING 4096

typedef struct {
    const uint8_t *at;
    size_t left;
    int failed;
} gi__get;
uint8_t gi__get_u8(gi__get *r);
uint32_t gi__get_u32(gi__get *r);
int32_t gi__get_i32(gi__get *r);
uint64_t gi__get_u64(gi__get *r);
double gi__get_f64(gi__get *r);
/* Points into the payload; NULL for length 0. Fails for a string over
 * GI__WIRE_MAX_STRING, without its NUL, or with a NUL inside. */
const char *gi__get_str(gi__get *r);

#endif
