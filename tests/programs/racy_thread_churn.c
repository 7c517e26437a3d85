/* 200 workers started and joined four at a time, each incrementing one of
 * eight lock-protected counters and writing its own slot, then one more
 * worker whose write of `late`, made after it released a lock, main reads
 * after taking that lock: the only race.  Past 64 threads racepred keeps vector clocks in shared
 * blocks (rp_vc.h): a clock that lost what it knew of an earlier worker
 * would report a counter, a slot or the final sums as racing too.
 * (The pipe only fixes the order; not synchronisation under run.sh's
 * --fd-sync=no.) */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define WORKERS 200
#define WAVE 4
#define LOCKS 8

static pthread_mutex_t locks[LOCKS];
static int counters[LOCKS];
static int slot[WORKERS];
static int late;
static int order[2];

static void *worker(void *arg)
{
    long id = (long)arg;

    pthread_mutex_lock(&locks[id % LOCKS]);
    counters[id % LOCKS]++;
    pthread_mutex_unlock(&locks[id % LOCKS]);
    slot[id] = (int)id;
    return NULL;
}

/* Its write comes after its release of the lock main takes next, so the
 * lock orders nothing: a lock's clock that saw the worker's clock move on
 * after the release (a block written while shared) would hide the race. */
static void *late_worker(void *arg)
{
    pthread_mutex_lock(&locks[0]);
    counters[0]++;
    pthread_mutex_unlock(&locks[0]);
    late = 1;
    write(order[1], "x", 1);
    return arg;
}

int main(void)
{
    pthread_t t[WAVE];
    long sum = 0;
    char c;

    if (pipe(order) != 0)
        return 2;
    for (int i = 0; i < LOCKS; i++)
        pthread_mutex_init(&locks[i], NULL);
    for (long w = 0; w < WORKERS; w += WAVE) {
        for (long i = 0; i < WAVE; i++)
            pthread_create(&t[i], NULL, worker, (void *)(w + i));
        for (long i = 0; i < WAVE; i++)
            pthread_join(t[i], NULL);
    }
    pthread_create(&t[0], NULL, late_worker, NULL);
    read(order[0], &c, 1);
    pthread_mutex_lock(&locks[0]);
    sum += late;
    pthread_mutex_unlock(&locks[0]);
    pthread_join(t[0], NULL);
    for (int i = 0; i < LOCKS; i++)
        sum += counters[i];
    for (int i = 0; i < WORKERS; i++)
        sum += slot[i];
    printf("sum=%ld\n", sum);
    return 0;
}
