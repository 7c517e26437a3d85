/* 1,000 short-lived threads, 50 at a time, each bumping a counter under a
 * mutex; every tenth is detached and signals its end through the same
 * mutex and a condition variable instead of being joined.  The tool copes
 * with a thousand threads (racepred numbers them #1..#1001 while Valgrind
 * recycles its slots and glibc its stacks).  Race-free; the output is the
 * sum of 0..999 and the number of detached threads. */
#include <pthread.h>
#include <stdio.h>

#define TOTAL 1000
#define BATCH 50

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t detached_done = PTHREAD_COND_INITIALIZER;
static long counter;
static int detached_running, detached_finished;

static void *bump(void *arg)
{
    pthread_mutex_lock(&lock);
    counter += (long)arg;
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *bump_detached(void *arg)
{
    bump(arg);
    pthread_mutex_lock(&lock);
    detached_finished++;
    if (--detached_running == 0)
        pthread_cond_signal(&detached_done);
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* Starts one batch; returns how many threads of it are joinable (t[0..]). */
static int start_batch(int first, pthread_t *t)
{
    pthread_attr_t detached;
    pthread_t ignored;
    int j, joinable = 0;

    pthread_attr_init(&detached);
    pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
    for (j = 0; j < BATCH; j++) {
        long id = first + j;

        if (id % 10 == 0) {
            pthread_mutex_lock(&lock);
            detached_running++;
            pthread_mutex_unlock(&lock);
            if (pthread_create(&ignored, &detached, bump_detached, (void *)id) != 0)
                return -1;
        } else if (pthread_create(&t[joinable++], NULL, bump, (void *)id) != 0) {
            return -1;
        }
    }
    pthread_attr_destroy(&detached);
    return joinable;
}

int main(void)
{
    pthread_t t[BATCH];
    int i, j, n;

    for (i = 0; i < TOTAL; i += BATCH) {
        n = start_batch(i, t);
        if (n < 0) {
            printf("pthread_create failed at thread %d\n", i);
            return 1;
        }
        for (j = 0; j < n; j++)
            pthread_join(t[j], NULL);
    }
    pthread_mutex_lock(&lock);
    while (detached_running > 0)
        pthread_cond_wait(&detached_done, &lock);
    printf("counter=%ld detached=%d\n", counter, detached_finished);
    pthread_mutex_unlock(&lock);
    return 0;
}
