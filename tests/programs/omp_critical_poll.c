/* OpenMP, race-free: two threads hand a token back and forth 100 times,
 * each waiting for its turn by testing a flag inside `omp critical` (the
 * pattern of DataRaceBench's barrier1).  Natively it ends at once; under
 * Valgrind the waiting thread rarely got the lock while the poller kept
 * re-entering the section, and it never ended (rp_intercepts_omp.c). */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 100

static int turn;
static long passes;

/* Polls, in the critical section, until it is thread `me`'s turn. */
static void wait_turn(int me)
{
    int mine = 0;

    while (!mine) {
#pragma omp critical
        mine = turn == me;
    }
}

int main(void)
{
#pragma omp parallel num_threads(2)
    {
        int me = omp_get_thread_num();

        for (int round = 0; round < ROUNDS; round++) {
            wait_turn(me);
#pragma omp critical
            {
                passes++;
                turn = 1 - me;
            }
        }
    }
    printf("%ld passes\n", passes);
    return 0;
}
