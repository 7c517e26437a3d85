/* A barrier built from two atomic counters that share one 8-byte word
 * (as in DRD's annotate_barrier test): arrivals add to wait_count, the
 * last one bumps barrier_count, the others spin on it.  Both threads
 * write the round's slot between two waits: a race in every round.  The
 * spinning load of barrier_count is ordered after the RMWs of
 * barrier_count, not after those of wait_count, although they share a
 * word: one sync object per word would order a late thread after the
 * other's arrival at the next round, and hide the race. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define ROUNDS 3

static struct {
    volatile unsigned wait_count;
    volatile unsigned barrier_count;
} __attribute__((aligned(8))) b;
static int slot[ROUNDS];

static void spin_barrier_wait(unsigned count)
{
    unsigned seen = b.barrier_count;

    if (__sync_add_and_fetch(&b.wait_count, 1) == count) {
        __sync_sub_and_fetch(&b.wait_count, count);
        __sync_add_and_fetch(&b.barrier_count, 1);
        return;
    }
    while (b.barrier_count == seen)
        sched_yield();
}

static void *worker(void *arg)
{
    for (int round = 0; round < ROUNDS; round++) {
        spin_barrier_wait(2);
        slot[round] = round;
    }
    spin_barrier_wait(2);
    return arg;
}

int main(void)
{
    pthread_t t[2];

    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("last=%d\n", slot[ROUNDS - 1]);
    return 0;
}
