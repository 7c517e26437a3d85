/* Detached threads started one after the other: each one reuses the stack
 * the previous one left in glibc's stack cache, a handover synchronised
 * inside libc.  Main waits (under the mutex) for each thread to finish its
 * work before starting the next, but the finished thread still runs its
 * epilogue on that stack afterwards.  Race-free: fresh stacks are fresh
 * memory to racepred. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define THREADS 6

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int finished;

static void *worker(void *arg)
{
    volatile long local[64];
    long sum = 0;
    int i;

    for (i = 0; i < 64; i++)
        local[i] = i + (long)arg;
    for (i = 0; i < 64; i++)
        sum += local[i];
    pthread_mutex_lock(&lock);
    finished++;
    pthread_mutex_unlock(&lock);
    return (void *)sum;
}

static int finished_count(void)
{
    int n;

    pthread_mutex_lock(&lock);
    n = finished;
    pthread_mutex_unlock(&lock);
    return n;
}

int main(void)
{
    pthread_attr_t attr;
    pthread_t t;
    int i;

    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (i = 0; i < THREADS; i++) {
        pthread_create(&t, &attr, worker, (void *)(long)i);
        while (finished_count() <= i)
            sched_yield();
    }
    printf("finished=%d\n", finished_count());
    return 0;
}
