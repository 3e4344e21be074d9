/* One image's way through a batch: read and decode, the steps, encode and
 * write, each timed into its item's stage_ms. A lone image runs the three
 * in turn; a batch (batch.c) runs them on different threads. */
#ifndef GI_BATCH_IMAGE_H
#define GI_BATCH_IMAGE_H

#include "gpuimg.h"
#include "engine/job_flow.h"

/* The texts of an item (gi_batch_item.choice, ...), held while its image
 * is in flight and lent to the item during on_item only. */
typedef struct {
    char choice[600];   /* its GPU's choice, then its context's */
    char note[600];
    char metadata_note[600];
    char codecs_note[200];
    char warning[200];
} gi__item_notes;

typedef struct {
    gi_batch_item *item; /* paths in; status, reason, times out */
    gi__item_notes notes;
    gi_image src, dst;   /* src: only its size while coeffs holds the input */
    gi_jpeg_coeffs coeffs; /* a JPEG decoded only to its coefficients (or its deferred scan) */
    uint8_t *in_bytes;     /* the input file, kept while a deferred scan reads it */
    gi_metadata meta;    /* the input's, as the job keeps it */
    gi__chain_jpeg_out jpeg_out; /* the output file, when the compute encoded it */
    int encode_threads;  /* more threads than the options give its encode (the batch's
                            tail shares the idle cores); 0: the options' */
} gi__batch_image;

/* Each step returns 0, or -1 after marking the item failed with a line
 * naming the file. A failed image's pixels are freed. The decode stops at
 * a JPEG's coefficients where `route` (NULL: never) sends its arithmetic
 * half to the compute lane's device; the compute runs it there. */
int gi__batch_decode(const gi_batch_options *o, const gi__jpeg_route *route,
                     gi__batch_image *job);
/* gi__batch_compute returns 1 instead where `hand_back` is set and the
 * device failed (GI_ERR_DEVICE): the job keeps its input, untouched, for
 * another device, and gi_last_error() says what failed. */
int gi__batch_compute(gi_context *ctx, const gi_batch_options *o, gi__batch_image *job,
                      int hand_back);
/* Writes atomically, making the directories below o->output_root first. */
int gi__batch_encode(const gi_batch_options *o, gi__batch_image *job);

/* Marks an image that cannot run at all (no backend, refused input). */
void gi__batch_fail(gi__batch_image *job, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void gi__batch_release(gi__batch_image *job);

#endif
