/* Race-free: realloc grows a block in place over memory another thread
 * freed without synchronising with this one.  The grown tail is new
 * memory for the block's thread: the other thread's writes and free of
 * it are not races with the new owner's accesses (rp_heap.c,
 * rp_heap_block_resized).  glibc grows `small` into the freed `big`
 * right after it, which the program prints. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *small;

static void *grower(void *arg)
{
    (void)arg;
    usleep(200000);
    char *p = realloc(small, 2000);
    printf("in place: %s\n", p == small ? "yes" : "no");
    memset(p + 100, 1, 1900);
    free(p);
    return NULL;
}

int main(void)
{
    pthread_t t;

    small = malloc(100);
    char *big = malloc(3000);
    memset(big, 0, 3000);
    pthread_create(&t, NULL, grower, NULL);
    free(big);
    pthread_join(t, NULL);
    return 0;
}
