/* jpeg_progress.h. A mutex and a condition variable: the entropy half
 * publishes once per MCU row (about 135 times for a 9 MP 4:2:0 photo),
 * and signals only when a worker sleeps, so the lock costs nothing that
 * shows beside the row's decoding. */
#include "jpeg_progress.h"

#include <string.h>

int gi__jpeg_progress_init(gi_jpeg_progress *p, int (*ready)(void *, const gi_jpeg_coeffs *),
                           void *arg)
{
    memset(p, 0, sizeof *p);
    p->ready = ready;
    p->arg = arg;
    if (pthread_mutex_init(&p->lock, NULL) != 0) return -1;
    if (pthread_cond_init(&p->moved, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        return -1;
    }
    return 0;
}

void gi__jpeg_progress_destroy(gi_jpeg_progress *p)
{
    pthread_cond_destroy(&p->moved);
    pthread_mutex_destroy(&p->lock);
}

void gi__jpeg_progress_publish(gi_jpeg_progress *p, int rows)
{
    pthread_mutex_lock(&p->lock);
    p->rows = rows;
    if (p->waiting) pthread_cond_broadcast(&p->moved);
    pthread_mutex_unlock(&p->lock);
}

void gi__jpeg_progress_close(gi_jpeg_progress *p)
{
    pthread_mutex_lock(&p->lock);
    p->closed = 1;
    pthread_cond_broadcast(&p->moved);
    pthread_mutex_unlock(&p->lock);
}

int gi__jpeg_progress_wait(gi_jpeg_progress *p, int rows)
{
    pthread_mutex_lock(&p->lock);
    while (p->rows < rows && !p->closed) {
        p->waiting++;
        pthread_cond_wait(&p->moved, &p->lock);
        p->waiting--;
    }
    int r = p->rows >= rows ? 0 : -1;
    pthread_mutex_unlock(&p->lock);
    return r;
}

void gi__jpeg_progress_free(gi_jpeg_progress *p, int rows)
{
    pthread_mutex_lock(&p->lock);
    if (rows > p->freed) p->freed = rows;
    if (p->entropy_waiting) pthread_cond_broadcast(&p->moved);
    pthread_mutex_unlock(&p->lock);
}

void gi__jpeg_progress_wait_freed(gi_jpeg_progress *p, int rows)
{
    pthread_mutex_lock(&p->lock);
    while (p->freed < rows) {
        int published = p->rows;
        pthread_mutex_unlock(&p->lock);
        int helped = p->help(p->arg, published);
        pthread_mutex_lock(&p->lock);
        if (helped || p->freed >= rows) continue;
        /* no chunk ready: the lowest is a worker's, which frees rows when
         * it is done */
        p->entropy_waiting++;
        pthread_cond_wait(&p->moved, &p->lock);
        p->entropy_waiting--;
    }
    pthread_mutex_unlock(&p->lock);
}
