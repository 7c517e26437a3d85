/* A producer fills a buffer and signals a condition variable; the consumer
 * waits for the flag and reads the buffer: race-free (the mutex is
 * reacquired inside pthread_cond_wait). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static int ready;
static int buffer[8];

static void *producer(void *arg)
{
    int i;

    for (i = 0; i < 8; i++)
        buffer[i] = i * i;
    pthread_mutex_lock(&lock);
    ready = 1;
    pthread_cond_signal(&ready_cond);
    pthread_mutex_unlock(&lock);
    return arg;
}

int main(void)
{
    pthread_t t;
    int i, sum = 0;

    pthread_create(&t, NULL, producer, NULL);
    pthread_mutex_lock(&lock);
    while (!ready)
        pthread_cond_wait(&ready_cond, &lock);
    for (i = 0; i < 8; i++)
        sum += buffer[i];
    pthread_mutex_unlock(&lock);
    pthread_join(t, NULL);
    printf("sum=%d\n", sum);
    return 0;
}
