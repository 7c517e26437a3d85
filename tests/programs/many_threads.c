/* 50 threads, created and joined in waves of 10, so glibc reuses thread
 * stacks and Valgrind reuses ThreadIds; each thread writes its own slot,
 * main reads them after the joins: race-free. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 50
#define WAVE 10

static int seen[THREADS];

static void *worker(void *arg)
{
    int id = (int)(long)arg;

    seen[id] = id + 1;
    return NULL;
}

int main(void)
{
    pthread_t t[WAVE];
    int wave, i, total = 0;

    for (wave = 0; wave < THREADS / WAVE; wave++) {
        for (i = 0; i < WAVE; i++)
            pthread_create(&t[i], NULL, worker, (void *)(long)(wave * WAVE + i));
        for (i = 0; i < WAVE; i++)
            pthread_join(t[i], NULL);
    }
    for (i = 0; i < THREADS; i++)
        total += seen[i];
    printf("total=%d\n", total);
    return 0;
}
