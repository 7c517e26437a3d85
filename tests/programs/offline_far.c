/* Two writes of `shared` that happens-before leaves unordered (the pipe
 * only fixes the schedule), a chosen number of events apart: the child
 * thread writes first; main then does GAP private writes, writes `shared`,
 * and does TAIL more private writes (so that the run outgrows a small
 * --offline-events bound after the race).  For the offline detectors' log
 * bound (docs/manual.md, --offline-events): with a small GAP the race is
 * in one segment and reported; with a GAP larger than the overlap it is
 * counted among the unchecked pairs.  Usage: offline_far GAP TAIL. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int shared;
static int order[2];
static volatile int scratch[64];

static void *child(void *arg)
{
    shared = 1;
    write(order[1], "x", 1);
    return arg;
}

static void private_writes(long n)
{
    long i;

    for (i = 0; i < n; i++)
        scratch[i % 64] = (int)i;
}

int main(int argc, char **argv)
{
    pthread_t t;
    char c;
    long gap = argc > 1 ? atol(argv[1]) : 0, tail = argc > 2 ? atol(argv[2]) : 0;

    if (pipe(order) != 0)
        return 1;
    pthread_create(&t, NULL, child, NULL);
    read(order[0], &c, 1);
    private_writes(gap);
    shared = 2;
    private_writes(tail);
    pthread_join(t, NULL);
    printf("shared=%d\n", shared);
    return 0;
}
