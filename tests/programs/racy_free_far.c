/* A worker writes far inside a 1 MiB block, past its first bytes and its
 * first 64 KiB; main frees the block without waiting for the worker (a
 * pipe, which orders nothing under run.sh's --fd-sync=no, makes the write
 * come first in this run).  A free writes its block's first bytes and the
 * granules that any access reached (rp_heap.c): the free races with the
 * worker's write, reported at the free (the write of that granule). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define BLOCK_BYTES (1 << 20)
#define FAR_INDEX (300000 / sizeof(int))

static int order[2];

static void *writer(void *arg)
{
    int *block = arg;

    block[FAR_INDEX] = 1;
    write(order[1], "x", 1);
    return NULL;
}

int main(void)
{
    pthread_t t;
    int *block = malloc(BLOCK_BYTES);
    char c;

    if (block == NULL || pipe(order) != 0)
        return 2;
    pthread_create(&t, NULL, writer, block);
    read(order[0], &c, 1);
    free(block);
    pthread_join(t, NULL);
    puts("freed");
    return 0;
}
