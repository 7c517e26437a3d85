/* A spin lock built on the GCC built-ins: __sync_lock_test_and_set (an
 * xchg, an atomic read-modify-write) to take it, __sync_lock_release (a
 * plain store of 0 on x86) to release it.  The counter it protects is
 * race-free: the release store is a release of the lock word, because the
 * word is a synchronisation variable once xchg has used it. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define THREADS 3
#define ROUNDS 200

static volatile int lock_word;
static long counter;

static void spin_lock(void)
{
    while (__sync_lock_test_and_set(&lock_word, 1))
        while (lock_word)
            sched_yield();
}

static void spin_unlock(void)
{
    __sync_lock_release(&lock_word);
}

static void *worker(void *arg)
{
    int i;

    for (i = 0; i < ROUNDS; i++) {
        spin_lock();
        counter++;
        spin_unlock();
    }
    return arg;
}

int main(void)
{
    pthread_t t[THREADS];
    int i;

    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("counter=%ld\n", counter);
    return 0;
}
