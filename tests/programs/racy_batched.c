/* Racy, built with -O2: worker's racy store, the call after it and the
 * callee's loads are one superblock (Valgrind follows the call).  With
 * access batches (rp_batch.h) the store's call comes after the callee's
 * loads unless the batch ends at the call's write of SP; the report
 * must be unwound from worker's frame (worker, called by start_thread),
 * not from the callee's stack pointer. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

long hits;
long table[4] = { 1, 2, 3, 4 };

/* noipa: gcc may not move the store past the call, knowing it does not
 * read hits. */
__attribute__((noinline, noipa)) static long sum(const long *t)
{
    return t[0] + t[1] + t[2] + t[3];
}

static void *worker(void *arg)
{
    long *out = arg;

    usleep(200000);
    hits = 1;
    *out = sum(table);
    return NULL;
}

int main(void)
{
    pthread_t t;
    long out = 0;

    pthread_create(&t, NULL, worker, &out);
    hits = 2;
    pthread_join(t, NULL);
    printf("%ld %ld\n", hits, out);
    return 0;
}
