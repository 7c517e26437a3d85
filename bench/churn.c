/* bench/churn.c — threads started and joined in small batches, each taking
 * a few of many locks: the shape of a thread-per-task program with a mutex
 * per object.  The main thread takes every lock once at start.
 *
 *   churn LOCKS THREADS BATCH [join|detach|attr]    (defaults 10000 1000 4 join)
 *
 * detach: each thread is detached after its creation, attr: created
 * detached; the main thread then waits for a batch's threads on a
 * condition variable they signal as they finish, instead of joining.
 * `churn 1 5000 1`: one lock, 5,000 threads one after another (each new
 * thread made every earlier critical section be consumed again, sixteenth
 * session); `churn 100000 400 4`: 100,000 locks (per-lock work at every
 * fork, join and free).  Prints the sum of the counters (deterministic). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOCKS_PER_THREAD 4

static int n_locks;
static pthread_mutex_t *locks;
static long *counters;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int n_done;

static void *work(void *arg)
{
    long i = (long)arg;
    for (long k = 0; k < LOCKS_PER_THREAD; k++) {
        int l = (int)((i * 7919 + k * 104729) % n_locks);
        pthread_mutex_lock(&locks[l]);
        counters[l]++;
        pthread_mutex_unlock(&locks[l]);
    }
    pthread_mutex_lock(&done_lock);
    n_done++;
    pthread_cond_signal(&done_cond);
    pthread_mutex_unlock(&done_lock);
    return NULL;
}

/* Waits until `n` threads have finished their work. */
static void wait_done(int n)
{
    pthread_mutex_lock(&done_lock);
    while (n_done < n)
        pthread_cond_wait(&done_cond, &done_lock);
    pthread_mutex_unlock(&done_lock);
}

int main(int argc, char **argv)
{
    n_locks = argc > 1 ? atoi(argv[1]) : 10000;
    int n_threads = argc > 2 ? atoi(argv[2]) : 1000;
    int batch = argc > 3 ? atoi(argv[3]) : 4;
    const char *mode = argc > 4 ? argv[4] : "join";
    int detach = strcmp(mode, "detach") == 0, attr_detached = strcmp(mode, "attr") == 0;
    if (n_locks < 1 || n_threads < 0 || batch < 1 || batch > 64
        || (!detach && !attr_detached && strcmp(mode, "join") != 0)) {
        fprintf(stderr, "usage: churn LOCKS>=1 THREADS>=0 BATCH(1..64) [join|detach|attr]\n");
        return 2;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (attr_detached)
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    locks = calloc(n_locks, sizeof *locks);
    counters = calloc(n_locks, sizeof *counters);
    for (int l = 0; l < n_locks; l++) {
        pthread_mutex_init(&locks[l], NULL);
        pthread_mutex_lock(&locks[l]);
        counters[l] = l;
        pthread_mutex_unlock(&locks[l]);
    }
    pthread_t t[64];
    for (int i = 0; i < n_threads; i += batch) {
        int n = n_threads - i < batch ? n_threads - i : batch;
        for (int j = 0; j < n; j++) {
            pthread_create(&t[j], &attr, work, (void *)(long)(i + j));
            if (detach)
                pthread_detach(t[j]);
        }
        if (detach || attr_detached)
            wait_done(i + n);
        else
            for (int j = 0; j < n; j++)
                pthread_join(t[j], NULL);
    }
    long sum = 0;
    for (int l = 0; l < n_locks; l++)
        sum += counters[l];
    printf("%ld\n", sum);
    return 0;
}
