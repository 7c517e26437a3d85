/* Two threads meet at a barrier, then one writes `phase_result` and the
 * other reads it in the same phase: the barrier orders what came before
 * it, not what both do after it.  The pipe fixes the order. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int phase_result;
static pthread_barrier_t barrier;
static int order[2];

static void *writer(void *arg)
{
    pthread_barrier_wait(&barrier);
    phase_result = 7;
    write(order[1], "x", 1);
    return arg;
}

static void *reader(void *arg)
{
    char c;
    long seen;

    pthread_barrier_wait(&barrier);
    read(order[0], &c, 1);
    seen = phase_result;
    return (void *)seen;
}

int main(void)
{
    pthread_t t1, t2;
    void *seen;

    if (pipe(order) != 0)
        return 2;
    pthread_barrier_init(&barrier, NULL, 2);
    pthread_create(&t1, NULL, writer, NULL);
    pthread_create(&t2, NULL, reader, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, &seen);
    pthread_barrier_destroy(&barrier);
    printf("seen=%ld\n", (long)seen);
    return 0;
}
