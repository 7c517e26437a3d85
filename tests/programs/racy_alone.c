/* A program that is alone (one thread, which has joined every other) in
 * some phases and not in others.  racepred does not check the plain
 * accesses of a thread that is alone (--skip-alone): fork and join order
 * them before and after everything else.  The races next to those phases
 * must still be found:
 *   1. main joins one worker while another still runs, then writes
 *      `partly`, which the running worker writes too: joining one of two
 *      workers does not make main alone;
 *   2. main, alone again, fills `table`, creates a worker, and writes
 *      table[0] after the creation, which the worker writes too: a
 *      creation ends the phase.  Its writes of table[1..] made alone are
 *      ordered before the worker's reads of them: no race there.
 * Pipes fix which access of each race comes second (run with
 * --fd-sync=no, so that they order nothing for the detectors).
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define TABLE 4096

static int partly;
static int table[TABLE];
static int to_main[2], to_worker[2];

static void *quick(void *arg)
{
    (void)arg;
    return NULL;
}

static void *writes_partly(void *arg)
{
    char c;

    (void)arg;
    partly = 1;
    if (write(to_main[1], "x", 1) != 1)
        return NULL;
    if (read(to_worker[0], &c, 1) != 1)
        return NULL;
    return NULL;
}

static void *sums_table(void *arg)
{
    long sum = 0;

    (void)arg;
    table[0] = -1;
    for (int i = 1; i < TABLE; i++)
        sum += table[i];
    if (write(to_main[1], "x", 1) != 1)
        return NULL;
    return (void *)sum;
}

int main(void)
{
    pthread_t a, b, c;
    void *sum;
    char x;

    if (pipe(to_main) != 0 || pipe(to_worker) != 0)
        return 1;
    if (pthread_create(&a, NULL, quick, NULL) != 0 ||
        pthread_create(&b, NULL, writes_partly, NULL) != 0)
        return 1;
    pthread_join(a, NULL);
    if (read(to_main[0], &x, 1) != 1)
        return 1;
    partly = 2;
    if (write(to_worker[1], "x", 1) != 1)
        return 1;
    pthread_join(b, NULL);

    for (int i = 0; i < TABLE; i++)
        table[i] = i;
    if (pthread_create(&c, NULL, sums_table, NULL) != 0)
        return 1;
    if (read(to_main[0], &x, 1) != 1)
        return 1;
    table[0] = 0;
    pthread_join(c, &sum);
    printf("partly=%d sum=%ld\n", partly, (long)sum);
    return 0;
}
