/* spin_two_loads: race-free; two threads hand a turn back and forth
 * through one flag, and each waits for its turn in a loop that loads the
 * flag twice (two tests, two instructions at -O0) and its own number from
 * its stack frame.  The loop makes no store: a thread that spins in it
 * must give up the CPU soon (rp_atomics.h, Spinning), although no load
 * repeats the one just before it.  run.sh checks -v's count of
 * timeslices cut short in spin loops. */
#include <pthread.h>
#include <stdio.h>

enum { ROUNDS = 500, OTHERWISE = 10 };

static volatile int turn;

static void wait_for_turn(int me)
{
    while (turn != me && turn != me + OTHERWISE)
        ;
}

static void *player(void *arg)
{
    int me = (int)(long)arg;

    for (int i = 0; i < ROUNDS; i++) {
        wait_for_turn(me);
        turn = 1 - me;
    }
    return NULL;
}

int main(void)
{
    pthread_t a, b;

    pthread_create(&a, NULL, player, (void *)0L);
    pthread_create(&b, NULL, player, (void *)1L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("turn %d after %d rounds\n", turn, ROUNDS);
    return 0;
}
