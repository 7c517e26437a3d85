/* A condition-variable handoff that writes the data after signalling: the
 * consumer's read of `data` is ordered after the signal, not after the
 * write.  The pipe makes the producer's write come first. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int data;
static int ready;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int order[2];

static void *producer(void *arg)
{
    pthread_mutex_lock(&mu);
    ready = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    data = 42;
    write(order[1], "x", 1);
    return arg;
}

static void *consumer(void *arg)
{
    char c;
    int seen;

    pthread_mutex_lock(&mu);
    while (!ready)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    read(order[0], &c, 1);
    seen = data;
    return (void *)(long)seen;
}

int main(void)
{
    pthread_t t1, t2;
    void *seen;

    if (pipe(order) != 0)
        return 2;
    pthread_create(&t2, NULL, consumer, NULL);
    pthread_create(&t1, NULL, producer, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, &seen);
    printf("seen=%ld\n", (long)seen);
    return 0;
}
