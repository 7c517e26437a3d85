/* Each thread writes only its own array slot and its own stack; main reads
 * the slots after joining: race-free. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 8

static long slots[THREADS];

static void *worker(void *arg)
{
    long id = (long)arg;
    long local[16];
    int i;

    for (i = 0; i < 16; i++)
        local[i] = id * i;
    for (i = 0; i < 16; i++)
        slots[id] += local[i];
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    long i, sum = 0;

    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (i = 0; i < THREADS; i++)
        sum += slots[i];
    printf("sum=%ld\n", sum);
    return 0;
}
