/* Work shared by threads started for one call: the PNG writer's row
 * filtering and deflate pieces (lib/codec), a tree comparison's pairs
 * (lib/batch). */
#ifndef GI_SHARE_WORK_H
#define GI_SHARE_WORK_H

/* The most threads one call starts. */
#define GI_SHARE_MAX_THREADS 256

/* Runs work(arg) on the calling thread and on up to threads - 1 more
 * started for it (at most GI_SHARE_MAX_THREADS in all), and returns once
 * all have returned. work takes its shares from arg until none is left,
 * so a thread that cannot be started leaves its share to the others. */
void gi__share_work(int threads, void *(*work)(void *), void *arg);

#endif
