/* A producer fills a buffer and a consumer reads it, with no semaphore
 * (or any other synchronisation) between them: the race a sem_post /
 * sem_wait pair would remove (sem_barrier.c is the race-free variant).
 * The pipe only fixes the order. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int buffer[4];
static int order[2];

static void *producer(void *arg)
{
    int i;

    for (i = 0; i < 4; i++)
        buffer[i] = i * i;
    write(order[1], "x", 1);
    return arg;
}

static void *consumer(void *arg)
{
    char c;
    long sum;

    read(order[0], &c, 1);
    sum = buffer[3];
    return (void *)sum;
}

int main(void)
{
    pthread_t t1, t2;
    void *sum;

    if (pipe(order) != 0)
        return 2;
    pthread_create(&t1, NULL, producer, NULL);
    pthread_create(&t2, NULL, consumer, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, &sum);
    printf("sum=%ld\n", (long)sum);
    return 0;
}
