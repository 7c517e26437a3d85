/* Two threads take the lock with pthread_mutex_trylock, retrying until it
 * succeeds, and update shared data under it: race-free.  Failed attempts
 * acquire nothing. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int shared;

static void *worker(void *arg)
{
    int i;

    for (i = 0; i < 100; i++) {
        while (pthread_mutex_trylock(&lock) != 0)
            sched_yield();
        shared++;
        pthread_mutex_unlock(&lock);
    }
    return arg;
}

int main(void)
{
    pthread_t t1, t2;

    pthread_create(&t1, NULL, worker, NULL);
    pthread_create(&t2, NULL, worker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("shared=%d\n", shared);
    return 0;
}
