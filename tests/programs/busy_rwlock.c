/* busy_rwlock: race-free; a reader-writer lock built on a busy-wait spin
 * word, whose waiters call sched_yield while they still hold that word
 * (the design of Valgrind's annotate_rwlock test).  Such a lock livelocks
 * when a thread loses the CPU inside it while another waits: the holder of
 * the read or write lock never gets the spin word back to release it.
 * Natively that is a matter of luck on a machine with fewer cores than
 * threads; under Valgrind's one-thread-at-a-time scheduler each thread
 * runs its short loop within one timeslice and the program ends.  So the
 * tool must not cut a timeslice where the program does not spin: the
 * second load of `writers` in read_lock, after the wait, is no spin loop.
 * run.sh runs it under the tool only and expects -v to count no
 * timeslice cut short in a spin loop. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

enum { THREADS = 8, ROUNDS = 300 };

struct busy_rwlock {
    volatile int spin_word;
    int writers;
    int readers;
};

static struct busy_rwlock lock;
static int counter;

/* Macros, not functions: each wait below must be one loop of one
 * function, as a compiler that inlines the helpers makes it. */
#define take_spin_word(l)                                                \
    while (__sync_val_compare_and_swap(&(l)->spin_word, 0, 1) != 0)      \
        ;
#define give_spin_word(l) __sync_fetch_and_sub(&(l)->spin_word, 1)

static void read_lock(struct busy_rwlock *l)
{
    for (;;) {
        take_spin_word(l);
        if (l->writers == 0)
            break;
        sched_yield();
        give_spin_word(l);
    }
    l->readers++;
    if (l->writers != 0)
        fprintf(stderr, "busy_rwlock: a reader beside a writer\n");
    give_spin_word(l);
}

static void write_lock(struct busy_rwlock *l)
{
    for (;;) {
        take_spin_word(l);
        if (l->readers == 0 && l->writers == 0)
            break;
        sched_yield();
        give_spin_word(l);
    }
    l->writers++;
    give_spin_word(l);
}

static void unlock(struct busy_rwlock *l)
{
    take_spin_word(l);
    if (l->readers > 0)
        l->readers--;
    else
        l->writers--;
    give_spin_word(l);
}

static void *worker(void *unused)
{
    int sum = 0;

    (void)unused;
    for (int i = 0; i < ROUNDS; i++) {
        read_lock(&lock);
        sum += counter;
        unlock(&lock);
        write_lock(&lock);
        counter++;
        unlock(&lock);
    }
    return (void *)(long)sum;
}

int main(void)
{
    pthread_t tid[THREADS];

    for (int i = 0; i < THREADS; i++)
        pthread_create(&tid[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(tid[i], NULL);
    printf("counter %d\n", counter);
    return counter == THREADS * ROUNDS ? 0 : 1;
}
