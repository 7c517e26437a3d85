/* Threads handing work over through counters they poll, as redis's I/O
 * threads do: the main thread writes each worker's input, publishes it by
 * setting the worker's pending counter with an atomic exchange, and polls
 * the counters with plain loads until every worker has cleared its own;
 * each worker polls its counter with plain loads, does the work and clears
 * the counter.  The loads of the counters are acquires (rp_atomics.h): the
 * inputs and outputs are ordered.  Race-free. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 3

static unsigned long pending[WORKERS + 1];
static long input[WORKERS + 1], output[WORKERS + 1];
static int stop;

static unsigned long get_pending(int i)
{
    return __atomic_load_n(&pending[i], __ATOMIC_SEQ_CST);
}

static void set_pending(int i, unsigned long v)
{
    __atomic_store_n(&pending[i], v, __ATOMIC_SEQ_CST);
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;

    for (;;) {
        while (get_pending(id) == 0)
            ;
        if (__atomic_load_n(&stop, __ATOMIC_SEQ_CST))
            return NULL;
        output[id] = input[id] * input[id];
        set_pending(id, 0);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 50;
    pthread_t t[WORKERS + 1];
    long sum = 0;
    int i, r;

    for (i = 1; i <= WORKERS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(long)i);
    for (r = 0; r < rounds; r++) {
        unsigned long busy;

        for (i = 1; i <= WORKERS; i++) {
            input[i] = r + i;
            set_pending(i, 1);
        }
        do {
            busy = 0;
            for (i = 1; i <= WORKERS; i++)
                busy += get_pending(i);
        } while (busy != 0);
        for (i = 1; i <= WORKERS; i++)
            sum += output[i];
    }
    __atomic_fetch_add(&stop, 1, __ATOMIC_SEQ_CST);
    for (i = 1; i <= WORKERS; i++) {
        set_pending(i, 1);
        pthread_join(t[i], NULL);
    }
    printf("rounds=%d sum=%ld\n", rounds, sum);
    return 0;
}
