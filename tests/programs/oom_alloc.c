/* Allocates 64 MiB blocks until malloc fails (run.sh runs it under
 * `ulimit -v`), then frees them.  Without arguments the blocks stay
 * untouched, so only the address space runs out and the program's own
 * out-of-memory path must run under the tool as natively.  With `touch`,
 * the program's own code writes one byte in every 64 of each block: under
 * the tool its shadow memory then runs out first, and the run must end
 * with Valgrind's out-of-memory message instead of a crash or a hang.
 * The address space the tool takes moves the point of failure, so the
 * output says only whether it came, not after how many blocks. */
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

int main(int argc, char **argv)
{
    static void *blocks[MAX_BLOCKS];
    int touching = argc > 1 && strcmp(argv[1], "touch") == 0;
    int n = 0;

    while (n < MAX_BLOCKS && (blocks[n] = malloc(BLOCK)) != NULL) {
        if (touching)
            touch(blocks[n]);
        n++;
    }
    printf("malloc failed before 64 GiB: %s\n", n < MAX_BLOCKS ? "yes" : "no");
    printf("at least one block: %s\n", n > 0 ? "yes" : "no");
    while (n > 0)
        free(blocks[--n]);
    return 0;
}
