/* Detached workers started one after the other, each incrementing a
 * counter under a mutex ROUNDS times, while the main thread polls the
 * counter under the same mutex until the worker is done; nobody joins
 * them.  Race-free.  run.sh checks, with -v,
 * that the detectors keep few critical sections at the end: a worker that
 * has exited consumes nothing more, so it holds nobody's sections back
 * (before racepred learnt of thread exits, every section after the first
 * worker's exit stayed, up to --cs-sections). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define THREADS 8
#define ROUNDS 5000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *worker(void *arg)
{
    int i;

    (void)arg;
    for (i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

static long counter_value(void)
{
    long n;

    pthread_mutex_lock(&lock);
    n = counter;
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
        pthread_create(&t, &attr, worker, NULL);
        while (counter_value() < (long)(i + 1) * ROUNDS)
            sched_yield();
    }
    printf("counter=%ld\n", counter_value());
    return 0;
}
