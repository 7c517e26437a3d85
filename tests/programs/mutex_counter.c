/* Four threads increment a counter under a mutex: race-free. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ROUNDS 1000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *worker(void *arg)
{
    int i;

    for (i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return arg;
}

int main(void)
{
    pthread_t t[THREADS];
    int i;

    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("counter=%ld\n", counter);
    return 0;
}
