/* Two unrelated threads, one after the other, each use a __thread
 * variable.  glibc gives the second one the cached stack of the first,
 * with its static TLS at the same address, and synchronises that handover
 * inside libc; a pipe (which orders nothing under --fd-sync=no, as run.sh runs it) makes
 * the second start after the first was joined.  Race-free: the two
 * threads' variables are different objects that share an address. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static __thread long counter[4];
static int order[2];

static void *user(void *arg)
{
    counter[1] += (long)arg;
    return (void *)counter[1];
}

/* Runs one user thread to its end, then (first) lets the other spawner go
 * on, or (second) waits for that. */
static void *spawner(void *arg)
{
    long first = (long)arg;
    pthread_t t;
    void *got;
    char c;

    if (!first && read(order[0], &c, 1) != 1)
        return NULL;
    pthread_create(&t, NULL, user, (void *)(first ? 3L : 4L));
    pthread_join(t, &got);
    if (first && write(order[1], "x", 1) != 1)
        return NULL;
    return got;
}

int main(void)
{
    pthread_t a, b;
    void *ra, *rb;

    if (pipe(order) != 0)
        return 2;
    pthread_create(&a, NULL, spawner, (void *)1L);
    pthread_create(&b, NULL, spawner, (void *)0L);
    pthread_join(a, &ra);
    pthread_join(b, &rb);
    printf("%ld %ld\n", (long)ra, (long)rb);
    return 0;
}
