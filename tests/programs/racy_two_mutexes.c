/* Each worker increments `counter` under a mutex, but not the same mutex:
 * the locks order nothing between them, and the report says which lock
 * each access held ("Locks held: 1, at address ...").
 *
 * The pipe only fixes which worker runs first (not synchronisation for
 * the tool under --fd-sync=no, as run.sh runs it), so the report is the same on every run. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int counter;
static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static int order[2];

static void *first_worker(void *arg)
{
    pthread_mutex_lock(&lock_a);
    counter++;
    pthread_mutex_unlock(&lock_a);
    write(order[1], "x", 1);
    return arg;
}

static void *second_worker(void *arg)
{
    char c;

    read(order[0], &c, 1);
    pthread_mutex_lock(&lock_b);
    counter++;
    pthread_mutex_unlock(&lock_b);
    return arg;
}

int main(void)
{
    pthread_t t1, t2;

    if (pipe(order) != 0)
        return 2;
    pthread_create(&t1, NULL, first_worker, NULL);
    pthread_create(&t2, NULL, second_worker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("counter=%d\n", counter);
    return 0;
}
