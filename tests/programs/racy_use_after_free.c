/* Racy: main frees a block a worker still reads (the worker's pointer
 * came with pthread_create, and nothing orders its read after or before
 * the free; a pipe, which orders nothing under run.sh's --fd-sync=no, makes
 * the free come first in this run).  The race is reported at the read,
 * against the free, and the address is described as inside the block
 * freed, with the free's and the allocation's code locations, not as
 * whatever segment the memory is in now.  The read is 16 bytes in, past
 * the words glibc's allocator keeps in a freed block; its value goes to
 * pthread_join, which ignores it (a value never used would let Valgrind's
 * optimiser drop the load): natively the program is the same. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int order[2];

static void *reader(void *arg)
{
    const int *block = arg;
    char c;

    if (read(order[0], &c, 1) != 1)
        return NULL;
    return (void *)(intptr_t)block[4];
}

int main(void)
{
    pthread_t t;
    int *block = calloc(8, sizeof *block);

    if (block == NULL || pipe(order) != 0)
        return 2;
    pthread_create(&t, NULL, reader, block);
    free(block);
    if (write(order[1], "x", 1) != 1)
        return 2;
    pthread_join(t, NULL);
    puts("freed");
    return 0;
}
