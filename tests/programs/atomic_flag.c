/* A flag published with a release store after an atomic read-modify-write
 * on the same flag: the producer writes data, then
 * __atomic_store_n(&flag, 1, __ATOMIC_RELEASE); the consumer spins on
 * __atomic_load_n(&flag, __ATOMIC_ACQUIRE) and reads the data.  On x86
 * both are plain moves; racepred knows the flag is a synchronisation
 * variable because it was the target of __atomic_fetch_add first.
 * Race-free. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static int flag;
static int data[4];

static void *producer(void *arg)
{
    int i;

    for (i = 0; i < 4; i++)
        data[i] = 10 * (i + 1);
    __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
    return arg;
}

int main(void)
{
    pthread_t t;
    int i, sum = 0;

    /* Registers the flag: an RMW that changes nothing. */
    __atomic_fetch_add(&flag, 0, __ATOMIC_SEQ_CST);
    pthread_create(&t, NULL, producer, NULL);
    while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE))
        sched_yield();
    for (i = 0; i < 4; i++)
        sum += data[i];
    pthread_join(t, NULL);
    printf("sum=%d\n", sum);
    return 0;
}
