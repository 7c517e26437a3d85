/* Runs out of memory under `ulimit -v` (run.sh sets 1 GB), three ways:
 *
 *   oom_alloc big      one 4 GiB request, past the limit: malloc returns
 *                      NULL and the program's own failure path runs;
 *   oom_alloc fill     64 MiB blocks, untouched, until malloc fails;
 *   oom_alloc touch    the same, the program writing one byte in every 64
 *                      of each block (work for the tool's shadow memory).
 *
 * The tool shares the process's address space and its limit, so while
 * the blocks fill it, either the program's malloc or the tool's own
 * allocation fails first; the output says only whether malloc failed, not
 * after how many blocks (the tool's share moves that point). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK ((size_t)64 << 20)
#define MAX_BLOCKS 1024             /* 64 GiB: far past any limit run.sh sets */

static void touch(volatile char *p)
{
    size_t i;

    for (i = 0; i < BLOCK; i += 64)
        p[i] = 1;
}

/* Allocates blocks until malloc fails; returns how many it got. */
static int fill(void **blocks, int touching)
{
    int n = 0;

    while (n < MAX_BLOCKS && (blocks[n] = malloc(BLOCK)) != NULL) {
        if (touching)
            touch(blocks[n]);
        n++;
    }
    return n;
}

int main(int argc, char **argv)
{
    static void *blocks[MAX_BLOCKS];
    const char *mode = argc > 1 ? argv[1] : "";
    int n;

    if (strcmp(mode, "big") == 0) {
        void *p = malloc((size_t)4 << 30);

        printf("4 GiB request: %s\n", p == NULL ? "refused" : "granted");
        free(p);
        return 0;
    }
    if (strcmp(mode, "fill") != 0 && strcmp(mode, "touch") != 0) {
        fprintf(stderr, "usage: oom_alloc big|fill|touch\n");
        return 2;
    }
    n = fill(blocks, strcmp(mode, "touch") == 0);
    printf("malloc failed before 64 GiB: %s\n", n < MAX_BLOCKS ? "yes" : "no");
    printf("at least one block: %s\n", n > 0 ? "yes" : "no");
    while (n > 0)
        free(blocks[--n]);
    return 0;
}
