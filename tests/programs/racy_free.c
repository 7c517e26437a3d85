/* A worker reads a heap block; main frees it without waiting for the
 * worker (a pipe, which orders nothing under run.sh's --fd-sync=no, makes the
 * read come first in this run).  Another schedule frees the block before
 * the read: a use after free.  --free-is-write=yes (the default) reports
 * the free as a write of the block; the worker's own block, freed after
 * the join, is race-free. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int order[2];

static void *reader(void *arg)
{
    const int *shared = arg;
    int *mine = malloc(4 * sizeof *mine);
    long seen = shared[2];

    mine[0] = (int)seen;
    write(order[1], "x", 1);
    return mine;
}

int main(void)
{
    pthread_t t;
    int *shared = malloc(4 * sizeof *shared);
    void *mine;
    char c;

    if (shared == NULL || pipe(order) != 0)
        return 2;
    shared[2] = 42;
    pthread_create(&t, NULL, reader, shared);
    read(order[0], &c, 1);
    free(shared);
    pthread_join(t, &mine);
    printf("seen=%d\n", *(int *)mine);
    free(mine);
    return 0;
}
