/* A recursive mutex locked twice by its owner; the data is written at
 * depth 2 and again after the inner unlock, still under the outer lock:
 * race-free.  Only the outermost lock/unlock are acquire/release. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock;
static int shared;

static void *worker(void *arg)
{
    int i;

    for (i = 0; i < 100; i++) {
        pthread_mutex_lock(&lock);
        pthread_mutex_lock(&lock);
        shared++;
        pthread_mutex_unlock(&lock);
        shared++;
        pthread_mutex_unlock(&lock);
    }
    return arg;
}

int main(void)
{
    pthread_mutexattr_t attr;
    pthread_t t1, t2;

    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&lock, &attr);
    pthread_create(&t1, NULL, worker, NULL);
    pthread_create(&t2, NULL, worker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("shared=%d\n", shared);
    return 0;
}
