/* A race that this run hides from happens-before and that only a reversal
 * of critical sections exhibits.  Thread 1 takes `m`, writes `shared`
 * inside and releases; thread 2, which sleeps first so that it runs
 * afterwards, takes and releases `m` (writing only its own variable
 * inside) and then writes `shared`.  The release -> acquire on `m` orders
 * the two writes in this schedule, so --detector=hb reports nothing; the
 * two sections do not conflict, so wcp and dc predict the race.  No
 * witness keeps the run's order of the sections (thread 1's write is
 * inside the first one): the only witness runs thread 2's section first,
 * then thread 1's lock and write, then thread 2's write.
 *
 * The sleep only fixes the order: it is no synchronisation. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

int shared;
int second_owner;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *first_thread(void *arg)
{
    pthread_mutex_lock(&m);
    shared = 1;
    pthread_mutex_unlock(&m);
    return arg;
}

static void *second_thread(void *arg)
{
    struct timespec pause = { 0, 500 * 1000 * 1000 };

    nanosleep(&pause, NULL);
    pthread_mutex_lock(&m);
    second_owner = 2;
    pthread_mutex_unlock(&m);
    shared = 2;
    return arg;
}

int main(void)
{
    pthread_t t1, t2;

    pthread_create(&t1, NULL, first_thread, NULL);
    pthread_create(&t2, NULL, second_thread, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("shared=%d\n", shared);
    return 0;
}
