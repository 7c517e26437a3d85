/* Race-free: a worker joins the root thread, which has called
 * pthread_exit, and then uses what the root thread wrote.  The root
 * thread's pthread_t comes from pthread_self, not from a pthread_create
 * the preload saw (the preload tells the tool at start-up), and the join
 * orders the root thread's writes before the worker's accesses. */
#include <pthread.h>
#include <stdio.h>

static pthread_t root;
static int shared;

static void *worker(void *arg)
{
    (void)arg;
    if (pthread_join(root, NULL) != 0)
        return NULL;
    shared++;
    printf("worker: %d\n", shared);
    return NULL;
}

int main(void)
{
    pthread_t t;

    root = pthread_self();
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    shared = 41;
    pthread_exit(NULL);
}
