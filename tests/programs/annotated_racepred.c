/* Code annotated with racepred's own header: race-free.
 *   RACEPRED_HAPPENS_BEFORE/AFTER   a hand-made publication flag;
 *   RACEPRED_BENIGN_RACE            the flag itself;
 *   RACEPRED_CLEAN_MEMORY           a buffer a home-made pool hands from
 *                                   one thread to another;
 *   RACEPRED_IGNORE_BEGIN/END       a statistic updated without a lock. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include "racepred.h"

static int payload;
static volatile int ready;
static char pool[256];
static long stats;
static int order[2];

static void *producer(void *arg)
{
    int i;

    for (i = 0; i < 256; i++)
        pool[i] = (char)i;
    payload = 7;
    RACEPRED_HAPPENS_BEFORE(&ready);
    ready = 1;
    RACEPRED_IGNORE_BEGIN();
    stats++;
    RACEPRED_IGNORE_END();
    return arg;
}

int main(void)
{
    pthread_t t;
    int i, sum = 0;

    RACEPRED_BENIGN_RACE(&ready, sizeof ready);
    pthread_create(&t, NULL, producer, NULL);
    while (!ready)
        sched_yield();
    RACEPRED_HAPPENS_AFTER(&ready);
    sum += payload;
    RACEPRED_IGNORE_BEGIN();
    stats++;
    RACEPRED_IGNORE_END();
    /* The pool's buffer is reused by this thread without any ordering
     * with the producer's writes beyond what the pool (here: nothing)
     * provides: the pool says the memory is fresh. */
    RACEPRED_CLEAN_MEMORY(pool, sizeof pool);
    for (i = 0; i < 256; i++)
        pool[i] = 0;
    pthread_join(t, NULL);
    (void)order;
    printf("sum=%d\n", sum);
    return 0;
}
