/* A hidden race that only a detector without rule (a) of WCP/DC sees:
 * both critical sections on `m` write `owner` (write-write, no read), so
 * WCP and DC order them, and with them the two writes of `shared`.  The
 * schedule "thread 2's critical section first" is still correct — no read
 * changes its writer — and makes the writes of `shared` adjacent: syncp
 * reports it, with a witness.  The pipe only fixes the observed order. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int shared;
int owner;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int order[2];

static void *first_thread(void *arg)
{
    shared = 1;
    pthread_mutex_lock(&m);
    owner = 1;
    pthread_mutex_unlock(&m);
    write(order[1], "x", 1);
    return arg;
}

static void *second_thread(void *arg)
{
    char c;

    read(order[0], &c, 1);
    pthread_mutex_lock(&m);
    owner = 2;
    pthread_mutex_unlock(&m);
    shared = 2;
    return arg;
}

int main(void)
{
    pthread_t t1, t2;

    if (pipe(order) != 0)
        return 2;
    pthread_create(&t1, NULL, first_thread, NULL);
    pthread_create(&t2, NULL, second_thread, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("shared=%d owner=%d\n", shared, owner);
    return 0;
}
