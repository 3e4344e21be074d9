/* Work shared by threads (share_work.h). */
#include "share_work.h"

#include <pthread.h>

void gi__share_work(int threads, void *(*work)(void *), void *arg)
{
    const int helpers = (threads > GI_SHARE_MAX_THREADS ? GI_SHARE_MAX_THREADS : threads) - 1;
    pthread_t tid[GI_SHARE_MAX_THREADS];
    int started = 0;
    while (started < helpers && pthread_create(&tid[started], NULL, work, arg) == 0) started++;
    work(arg);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
}
