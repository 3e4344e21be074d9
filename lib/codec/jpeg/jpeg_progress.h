/* The pipelined decode's one shared object: how far the entropy half
 * (jpeg_entropy.c) has decoded a single-scan baseline frame, in MCU rows,
 * which the arithmetic half's workers (jpeg_reconstruct.c) wait on, so
 * that the two halves overlap instead of running one after the other.
 *
 * The entropy half calls `ready` when the scan it is about to decode
 * covers every component in one pass (so each MCU row's coefficients are
 * final once decoded) and the planes and quantization tables are in
 * place; `ready` starts the workers, and returns 0, or -1 to have the
 * scan decoded as usual (nothing then waits). The decode's driver
 * (jpeg_decode.c) closes the progress when the entropy half returns,
 * whatever it returned: a worker still waiting then gives up.
 *
 * The ring: with ring_output_rows set, the parser keeps the coefficients
 * of a few MCU rows only (about that many output rows, and two MCU rows
 * more), reused as the workers free them (gi_jpeg_plane.ring_rows),
 * instead of the whole frame's: tens of MB less fresh memory for a photo,
 * which this kernel zeroes page by page, and coefficients still in cache
 * when the IDCT reads them. Only a frame whose first scan is pipelined can
 * be decoded so; the parser leaves any other (GI_JPEG_NOT_MINE without
 * `started`) and the driver decodes it again without the ring. */
#ifndef GI_JPEG_PROGRESS_H
#define GI_JPEG_PROGRESS_H

#include <pthread.h>

#include "jpeg_coeffs.h"

typedef struct gi_jpeg_progress {
    pthread_mutex_t lock;
    pthread_cond_t moved;
    int rows;    /* MCU rows whose coefficients are final */
    int closed;  /* no more rows will come */
    int waiting; /* workers asleep in gi__jpeg_progress_wait */
    int (*ready)(void *arg, const gi_jpeg_coeffs *c);
    void *arg;
    int started; /* ready() returned 0 */
    int ring_output_rows; /* 0: no ring */
    /* the entropy half's work while its ring is full: makes rows that are
     * ready (gi__jpeg_recon_help); 1 when it did, 0 when none were */
    int (*help)(void *arg, int published);
    int ring_used;        /* the parser kept a ring (not for a small frame) */
    int freed;            /* MCU rows whose coefficients no worker will read */
    int entropy_waiting;  /* the entropy half sleeps until more are freed */
} gi_jpeg_progress;

int gi__jpeg_progress_init(gi_jpeg_progress *p, int (*ready)(void *, const gi_jpeg_coeffs *),
                           void *arg);
void gi__jpeg_progress_destroy(gi_jpeg_progress *p);

/* The entropy half: MCU rows 0..rows-1 are final. */
void gi__jpeg_progress_publish(gi_jpeg_progress *p, int rows);

/* The driver: no more rows will come. */
void gi__jpeg_progress_close(gi_jpeg_progress *p);

/* The workers: MCU rows 0..rows-1 will not be read again (the ring's
 * slots may be reused). */
void gi__jpeg_progress_free(gi_jpeg_progress *p, int rows);

/* The entropy half: until MCU rows 0..rows-1 are freed, helps make the
 * rows (p->help) or, with none ready, waits. */
void gi__jpeg_progress_wait_freed(gi_jpeg_progress *p, int rows);

/* A worker: 0 once MCU rows 0..rows-1 are final, or -1 when the progress
 * was closed short of them (the scan failed: the pixels are discarded). */
int gi__jpeg_progress_wait(gi_jpeg_progress *p, int rows);

#endif
