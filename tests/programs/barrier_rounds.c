/* Threads take turns through a barrier: in even rounds each writes its
 * own slot, in odd rounds each reads the slots of the others.  Every read
 * is ordered after the writes of the round before and every write after
 * the reads of the round before, through rounds that reuse the barrier
 * many times: race-free.  Three threads, so that a round's last arrival
 * is a different thread from round to round. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 3
#define ROUNDS 40

static pthread_barrier_t barrier;
static int slot[THREADS];
static long sums[THREADS];

static void *worker(void *arg)
{
    long me = (long)arg;

    for (int round = 0; round < ROUNDS; round++) {
        if (round % 2 == 0) {
            slot[me] = round + (int)me;
        } else {
            for (int other = 0; other < THREADS; other++)
                if (other != me)
                    sums[me] += slot[other];
        }
        pthread_barrier_wait(&barrier);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    long total = 0;

    pthread_barrier_init(&barrier, NULL, THREADS);
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&barrier);
    for (int i = 0; i < THREADS; i++)
        total += sums[i];
    printf("total=%ld\n", total);
    return 0;
}
