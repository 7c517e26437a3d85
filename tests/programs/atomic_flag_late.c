/* A flag that becomes a synchronisation variable while a thread is
 * already spinning on it with plain loads: the consumer starts reading
 * the flag before any atomic read-modify-write touched it (plain
 * accesses, each one after the first a repeat of its thread), the
 * producer sleeps, writes the data and publishes with __atomic_fetch_add.
 * From that RMW on, the consumer's plain loads of the flag are acquires
 * (rp_atomics.h), so its reads of the data are ordered after the writes.
 * Race-free; it checks that the tool's filter of repeated accesses does
 * not swallow those loads. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int flag;
static int data[4];

static void *producer(void *arg)
{
    int i;

    usleep(200 * 1000);
    for (i = 0; i < 4; i++)
        data[i] = 10 * (i + 1);
    __atomic_fetch_add(&flag, 1, __ATOMIC_RELEASE);
    return arg;
}

int main(void)
{
    pthread_t t;
    int i, sum = 0;

    pthread_create(&t, NULL, producer, NULL);
    while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE))
        ;
    for (i = 0; i < 4; i++)
        sum += data[i];
    pthread_join(t, NULL);
    printf("sum=%d\n", sum);
    return 0;
}
