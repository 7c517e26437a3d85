/* Blocks from every aligned allocator are fresh memory, like malloc's:
 * each round, a worker fills a block and frees it; the next round's block
 * (often at the same address) is filled by another thread.  Without the
 * allocator's wrappers the two threads' writes would race.  Race-free. */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 5

static void *fill_and_free(void *arg)
{
    unsigned char *p = arg;
    int i;

    for (i = 0; i < 64; i++)
        p[i] = (unsigned char)i;
    free(p);
    return NULL;
}

static void *allocate(int kind)
{
    void *p = NULL;

    switch (kind) {
    case 0: return memalign(64, 64);
    case 1: return aligned_alloc(64, 64);
    case 2: return posix_memalign(&p, 64, 64) == 0 ? p : NULL;
    case 3: return valloc(64);
    default: return pvalloc(64);
    }
}

int main(void)
{
    int kind, round;

    for (kind = 0; kind < 5; kind++) {
        for (round = 0; round < ROUNDS; round++) {
            pthread_t t;
            void *p = allocate(kind);

            if (p == NULL)
                return 1;
            /* The worker is detached in effect: main does not join before
             * the next round, so only the allocator orders the rounds. */
            pthread_create(&t, NULL, fill_and_free, p);
            pthread_detach(t);
            usleep(2000);
        }
    }
    printf("done\n");
    return 0;
}
