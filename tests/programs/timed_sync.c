/* Race-free use of the timed and clock-based variants of the pthread
 * primitives (glibc 2.30+): each counter is only touched under its lock,
 * after the semaphore or condition variable that hands it over, or after
 * a timed join.  A variant racepred did not intercept would leave its
 * critical sections unordered and report them. */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 50

static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static long by_timedwr, by_clockwr, by_clocklock, handed, posted, joined;
static int ready;

static struct timespec later(clockid_t clock)
{
    struct timespec t;

    clock_gettime(clock, &t);
    t.tv_sec += 60;
    return t;
}

static void *worker(void *arg)
{
    struct timespec rt = later(CLOCK_REALTIME), mono = later(CLOCK_MONOTONIC);
    long seen = 0;

    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        if (pthread_rwlock_timedwrlock(&rwlock, &rt) == 0) {
            by_timedwr++;
            pthread_rwlock_unlock(&rwlock);
        }
        if (pthread_rwlock_clockwrlock(&rwlock, CLOCK_MONOTONIC, &mono) == 0) {
            by_clockwr++;
            pthread_rwlock_unlock(&rwlock);
        }
        if (pthread_rwlock_timedrdlock(&rwlock, &rt) == 0) {
            seen += by_timedwr;
            pthread_rwlock_unlock(&rwlock);
        }
        if (pthread_rwlock_clockrdlock(&rwlock, CLOCK_MONOTONIC, &mono) == 0) {
            seen += by_clockwr;
            pthread_rwlock_unlock(&rwlock);
        }
        if (pthread_mutex_clocklock(&mutex, CLOCK_MONOTONIC, &mono) == 0) {
            by_clocklock++;
            pthread_mutex_unlock(&mutex);
        }
    }
    return (void *)seen;
}

/* Hands `handed` to main through a condition variable (clockwait) and
 * `posted` through a semaphore (clockwait). */
static void *producer(void *arg)
{
    pthread_mutex_lock(&mutex);
    handed = 7;
    ready = 1;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&mutex);
    posted = 9;
    sem_post(&sem);
    return arg;
}

static void *finisher(void *arg)
{
    joined = 11;
    return arg;
}

int main(void)
{
    pthread_t w[2], p, f;
    struct timespec mono = later(CLOCK_MONOTONIC), rt = later(CLOCK_REALTIME);
    long got = 0;

    sem_init(&sem, 0, 0);
    for (int i = 0; i < 2; i++)
        pthread_create(&w[i], NULL, worker, NULL);
    pthread_create(&p, NULL, producer, NULL);
    pthread_mutex_lock(&mutex);
    while (!ready)
        pthread_cond_clockwait(&cond, &mutex, CLOCK_MONOTONIC, &mono);
    got += handed;
    pthread_mutex_unlock(&mutex);
    if (sem_clockwait(&sem, CLOCK_MONOTONIC, &mono) == 0)
        got += posted;
    pthread_create(&f, NULL, finisher, NULL);
    pthread_timedjoin_np(f, NULL, &rt);
    got += joined;
    pthread_create(&f, NULL, finisher, NULL);
    while (pthread_tryjoin_np(f, NULL) != 0)
        sched_yield();
    joined++;
    pthread_join(p, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(w[i], NULL);
    printf("timedwr=%ld clockwr=%ld clocklock=%ld got=%ld joined=%ld\n",
           by_timedwr, by_clockwr, by_clocklock, got, joined);
    return 0;
}
