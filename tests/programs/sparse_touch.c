/* One byte written every 64 KiB over 1 GiB of a private mapping, by main
 * and then by a thread it creates (ordered by the create): 16,384 shadow
 * chunks in each shadow, and no race.  Shadow chunks mapped one by one
 * exhausted Valgrind's table of segments here (rp_shim_vg.c). */
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>

#define BYTES ((size_t)1 << 30)
#define STRIDE 65536

static char *p;

static void *touch(void *arg)
{
    for (size_t o = (size_t)arg; o < BYTES; o += STRIDE)
        p[o] = 1;
    return NULL;
}

int main(void)
{
    pthread_t t;

    p = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
             -1, 0);
    if (p == MAP_FAILED)
        return 1;
    touch((void *)0);
    if (pthread_create(&t, NULL, touch, (void *)8) != 0)
        return 1;
    pthread_join(t, NULL);
    munmap(p, BYTES);
    puts("touched");
    return 0;
}
