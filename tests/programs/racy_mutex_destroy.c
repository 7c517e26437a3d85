/* Racy: the root thread destroys a mutex right after starting a worker
 * that, after a pause, still locks it: nothing orders the destroy before
 * the lock (a mutex's own bytes are written by init and destroy and read
 * by every lock and unlock, as under ThreadSanitizer).  glibc lets the
 * worker lock the destroyed default mutex, so the program runs as
 * natively; another schedule would destroy a mutex in use. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t lock;
static int counter;

static void *worker(void *arg)
{
    (void)arg;
    usleep(100000);
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    pthread_t t;

    pthread_mutex_init(&lock, NULL);
    pthread_create(&t, NULL, worker, NULL);
    pthread_mutex_destroy(&lock);
    pthread_join(t, NULL);
    printf("%d\n", counter);
    return 0;
}
