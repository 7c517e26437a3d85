/* A race that this run hides from happens-before: thread 1 writes `shared`
 * and then takes and releases `m`; thread 2, which the pipe makes run only
 * afterwards, takes and releases `m` and then writes `shared`.  The
 * release → acquire on `m` orders the two writes in this schedule, so
 * --detector=hb reports nothing; yet in the schedule where thread 2's
 * critical section runs first, the writes are adjacent.  The two critical
 * sections touch different variables, so every predictive detector sees
 * it, and the sync-preserving witness confirms it.
 *
 * The pipe only fixes the order (run.sh runs this with --fd-sync=no, so
 * racepred does not treat it as synchronisation).  With an argument N, thread 2 first does N
 * private writes, no repeats (events between the accesses, for --window). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int shared;
int first_owner, second_owner;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int order[2];
static long padding;

static void *first_thread(void *arg)
{
    shared = 1;
    pthread_mutex_lock(&m);
    first_owner = 1;
    pthread_mutex_unlock(&m);
    write(order[1], "x", 1);
    return arg;
}

static void *second_thread(void *arg)
{
    static volatile int scratch[1 << 16];
    char c;
    long i;

    read(order[0], &c, 1);
    for (i = 0; i < padding; i++)
        scratch[i % (1 << 16)] = (int)i;
    pthread_mutex_lock(&m);
    second_owner = 2;
    pthread_mutex_unlock(&m);
    shared = 2;
    return arg;
}

int main(int argc, char **argv)
{
    pthread_t t1, t2;

    if (argc > 1)
        padding = atol(argv[1]);
    if (pipe(order) != 0)
        return 2;
    pthread_create(&t1, NULL, first_thread, NULL);
    pthread_create(&t2, NULL, second_thread, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("shared=%d\n", shared);
    return 0;
}
