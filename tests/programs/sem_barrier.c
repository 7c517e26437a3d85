/* Hand-offs through a semaphore and a barrier: the producer fills `data`
 * and posts; the consumer waits and reads it.  Then both write their own
 * half of `halves`, meet at a barrier, and read the other's half.
 * Race-free. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static sem_t filled;
static pthread_barrier_t meet;
static int data[16];
static int halves[2];

static void *producer(void *arg)
{
    int i;

    for (i = 0; i < 16; i++)
        data[i] = i;
    sem_post(&filled);
    halves[1] = 20;
    pthread_barrier_wait(&meet);
    return (void *)(long)halves[0];
}

int main(void)
{
    pthread_t t;
    void *ret;
    int i, sum = 0;

    sem_init(&filled, 0, 0);
    pthread_barrier_init(&meet, NULL, 2);
    pthread_create(&t, NULL, producer, NULL);
    sem_wait(&filled);
    for (i = 0; i < 16; i++)
        sum += data[i];
    halves[0] = 10;
    pthread_barrier_wait(&meet);
    sum += halves[1];
    pthread_join(t, &ret);
    printf("sum=%d other=%ld\n", sum, (long)ret);
    return 0;
}
