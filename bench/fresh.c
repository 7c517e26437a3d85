/* bench/fresh.c — threads that fill fresh memory and free it, over and over
 * (what git pack-objects does with its inflated objects and delta indexes).
 *
 *   fresh ROUNDS KIB [THREADS]
 *
 * Each thread, ROUNDS times: mallocs KIB KiB, writes every 8-byte word,
 * reads every third one, frees the block.  No thread touches another's
 * memory: every access is a granule's first since it was fresh, or a
 * repeat, and every free forgets what the tools learnt.  Prints the sum. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long rounds, words;

static void *work(void *arg)
{
    long sum = 0;
    for (long r = 0; r < rounds; r++) {
        long *block = malloc((size_t)words * sizeof *block);
        if (block == NULL)
            return NULL;
        for (long i = 0; i < words; i++)
            block[i] = i + r;
        for (long i = 0; i < words; i += 3)
            sum += block[i];
        free(block);
    }
    *(long *)arg = sum;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fresh ROUNDS KIB [THREADS]\n");
        return 2;
    }
    rounds = atol(argv[1]);
    words = atol(argv[2]) * 1024 / (long)sizeof(long);
    int n = argc > 3 ? atoi(argv[3]) : 2;
    if (rounds < 1 || words < 1 || n < 1 || n > 64) {
        fprintf(stderr, "fresh: ROUNDS and KIB must be positive, THREADS 1 to 64\n");
        return 2;
    }
    pthread_t tid[64];
    long sums[64] = { 0 };
    for (int i = 0; i < n; i++)
        if (pthread_create(&tid[i], NULL, work, &sums[i]) != 0) {
            fprintf(stderr, "fresh: pthread_create failed\n");
            return 1;
        }
    long total = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(tid[i], NULL);
        total += sums[i];
    }
    printf("%ld\n", total);
    return 0;
}
