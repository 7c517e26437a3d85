/* Two threads go through a barrier round after round and both write the
 * round's slot between two waits: a race in every round.  The barrier
 * orders each round after the previous one, not the two writes of one
 * round; a thread that leaves a round late must not be ordered after what
 * the other did in the next one (one sync object per barrier would do
 * that, and hide the race).  The first thread sleeps before each write, so
 * that the second writes first in every round whatever the schedule: the
 * report names the same threads in the same roles every run. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 4

static pthread_barrier_t barrier;
static int slot[ROUNDS];

static void *worker(void *arg)
{
    const struct timespec pause = { 0, 20 * 1000 * 1000 };

    for (int round = 0; round < ROUNDS; round++) {
        pthread_barrier_wait(&barrier);
        if (arg == NULL)
            nanosleep(&pause, NULL);
        slot[round] = round;
    }
    pthread_barrier_wait(&barrier);
    return arg;
}

int main(void)
{
    pthread_t t[2];

    pthread_barrier_init(&barrier, NULL, 2);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, i == 0 ? NULL : &t[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&barrier);
    printf("last=%d\n", slot[ROUNDS - 1]);
    return 0;
}
