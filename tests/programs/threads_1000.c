/* 300 short-lived threads, 30 at a time, each bumping a counter under a
 * mutex: the tool copes with hundreds of threads (racepred numbers them
 * #1..#301 while Valgrind recycles its slots).  Race-free. */
#include <pthread.h>
#include <stdio.h>

#define TOTAL 300
#define BATCH 30

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *bump(void *arg)
{
    pthread_mutex_lock(&lock);
    counter += (long)arg;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    pthread_t t[BATCH];
    int i, j;

    for (i = 0; i < TOTAL; i += BATCH) {
        for (j = 0; j < BATCH; j++)
            pthread_create(&t[j], NULL, bump, (void *)(long)(i + j));
        for (j = 0; j < BATCH; j++)
            pthread_join(t[j], NULL);
    }
    printf("counter=%ld\n", counter);
    return 0;
}
