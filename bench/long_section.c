/* bench/long_section.c — one critical section held across a long loop, for
 * the memory of an open section's access log and of the (lock, byte) pairs
 * its release publishes (docs/performance.md, "Bounded histories").
 *
 * A worker takes a mutex and writes every byte of a BYTES-byte buffer,
 * ROUNDS times over, before releasing it; the main thread joins it and reads
 * the buffer under the mutex.  Race-free.
 *
 * Usage: long_section [bytes] [rounds]   (defaults 1048576, 3)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned char *buffer;
static long bytes = 1L << 20;
static int rounds = 3;

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (int r = 0; r < rounds; r++)
        for (long i = 0; i < bytes; i++)
            buffer[i] = (unsigned char)(buffer[i] + r + i);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;
    long sum = 0;

    if (argc > 1)
        bytes = atol(argv[1]);
    if (argc > 2)
        rounds = atoi(argv[2]);
    buffer = calloc((size_t)bytes, 1);
    if (buffer == NULL)
        return 1;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    pthread_mutex_lock(&lock);
    for (long i = 0; i < bytes; i += 4096)
        sum += buffer[i];
    pthread_mutex_unlock(&lock);
    printf("sum=%ld\n", sum);
    return 0;
}
