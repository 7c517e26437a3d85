/* A worker writes a heap block; main then reads it with no
 * synchronisation in between: a write/read race on heap memory.
 * (The pipe only fixes the order; not synchronisation under run.sh's --fd-sync=no.) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int order[2];

static void *worker(void *arg)
{
    int *block = arg;

    block[1] = 42;
    write(order[1], "x", 1);
    return NULL;
}

int main(void)
{
    int *block = calloc(4, sizeof *block);
    pthread_t t;
    char c;
    int seen;

    if (block == NULL || pipe(order) != 0)
        return 2;
    pthread_create(&t, NULL, worker, block);
    read(order[0], &c, 1);
    seen = block[1];
    pthread_join(t, NULL);
    printf("seen=%d\n", seen);
    free(block);
    return 0;
}
