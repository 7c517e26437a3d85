/* A range unmapped by one thread and mapped again by another is new
 * memory: the second mapping's writes do not race with the first one's.
 * The worker writes its mapping and unmaps it; main maps the same address
 * again (MAP_FIXED) and writes it.  Nothing orders the two threads for
 * racepred (not the pipe: run.sh runs it with --fd-sync=no), so only the unmapping and
 * mapping can.  Race-free. */
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIZE 8192

static int order[2];

static void *worker(void *arg)
{
    char *p = arg;
    int i;

    for (i = 0; i < SIZE; i += 64)
        p[i] = 1;
    munmap(p, SIZE);
    if (write(order[1], "x", 1) != 1)
        return arg;
    return NULL;
}

int main(void)
{
    pthread_t t;
    char *p, *q;
    char c;
    int i, sum = 0;

    if (pipe(order) != 0)
        return 2;
    p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 2;
    pthread_create(&t, NULL, worker, p);
    pthread_detach(t);
    if (read(order[0], &c, 1) != 1)
        return 2;
    q = mmap(p, SIZE, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (q != p)
        return 2;
    for (i = 0; i < SIZE; i += 64) {
        q[i] = 2;
        sum += q[i];
    }
    printf("sum=%d\n", sum);
    return 0;
}
