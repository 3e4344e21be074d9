/* The payloads of gpuimg serve's JOB and ITEM frames: a batch (the
 * library's options and items, the items' files as indexes into the
 * descriptors sent before) and one item's result. The decoder takes any
 * bytes (tests/robust fuzzes it): everything is bounded and checked
 * before the server acts on it. */
#ifndef GI_SERVE_REQUEST_H
#define GI_SERVE_REQUEST_H

#include "gpuimg.h"
#include "wire.h"

#define GI__SERVE_MAX_ITEMS 2048
#define GI__SERVE_MAX_FDS (2 * GI__SERVE_MAX_ITEMS)

typedef struct {
    const char *in, *out, *problem; /* problem: NULL, or why it fails unrun */
    const char *out_name;           /* one component: no '/', not "." or ".." */
    int in_fd;    /* index of the input's descriptor, or -1 (then in_errno) */
    int in_errno;
    int dir_fd;   /* index of the output directory's descriptor, or -1: */
    int out_fd;   /* index of the output's own descriptor (standard output), or -1 */
} gi__serve_item;

typedef struct {
    const char *command; /* for the server's log: "blur", "pipe" */
    const char *build;   /* the client's build (build_id.h): the server's own, or refused */
    gi_batch_options opts; /* steps point into `steps`, masks into `masks`;
                              no output_root, stop, on_item */
    gi_op steps[GI_MAX_STEPS];
    double *masks;
    size_t n_items;
    gi__serve_item *items;
} gi__serve_job;

/* The JOB payload for a batch; 0, or -1 out of memory (or a string over
 * the bound). */
int gi__serve_job_encode(const char *command, const char *build, const gi_batch_options *o,
                         const gi__serve_item *items, size_t n_items, gi__put *w);
/* Decodes and checks a JOB payload against the n_fds descriptors that
 * came before it. The job's strings point into `payload`, which must
 * outlive it. GI_OK, or a status with gi_last_error() saying what is
 * wrong. */
gi_status gi__serve_job_decode(const uint8_t *payload, size_t size, int n_fds, gi__serve_job *job);
void gi__serve_job_free(gi__serve_job *job);

/* An ITEM payload: the item's index and what gi_batch_run filled in. */
void gi__serve_result_encode(size_t index, const gi_batch_item *it, gi__put *w);
/* Fills *it, a zeroed item, from a result (its reason strdup'd: the
 * caller frees it; in, out and files left NULL; its texts, choice and the
 * notes, point into payload); codec and backend names are kept for the
 * process's life. -1 when malformed or index >= count. */
int gi__serve_result_decode(const uint8_t *payload, size_t size, size_t count, size_t *index,
                            gi_batch_item *it);

#endif
