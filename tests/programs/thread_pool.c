/* A thread pool: 4 workers take tasks from a queue guarded by a mutex and
 * a condition variable; each task writes its own result slot, which main
 * reads after joining.  Race-free (Helgrind's classic false-alarm
 * ground: the queue hands each task from main to a worker). */
#include <pthread.h>
#include <stdio.h>

#define N_WORKERS 4
#define N_TASKS 64

static int queue[N_TASKS];
static int head, tail, done;
static long results[N_TASKS];
static long total;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;

static void *worker(void *arg)
{
    for (;;) {
        int task;

        pthread_mutex_lock(&mu);
        while (head == tail && !done)
            pthread_cond_wait(&nonempty, &mu);
        if (head == tail) {
            pthread_mutex_unlock(&mu);
            return arg;
        }
        task = queue[head++];
        pthread_mutex_unlock(&mu);

        results[task] = (long)task * task;
        pthread_mutex_lock(&mu);
        total += results[task];
        pthread_mutex_unlock(&mu);
    }
}

int main(void)
{
    pthread_t workers[N_WORKERS];
    long sum = 0;
    int i;

    for (i = 0; i < N_WORKERS; i++)
        pthread_create(&workers[i], NULL, worker, NULL);
    for (i = 0; i < N_TASKS; i++) {
        pthread_mutex_lock(&mu);
        queue[tail++] = i;
        pthread_cond_signal(&nonempty);
        pthread_mutex_unlock(&mu);
    }
    pthread_mutex_lock(&mu);
    done = 1;
    pthread_cond_broadcast(&nonempty);
    pthread_mutex_unlock(&mu);
    for (i = 0; i < N_WORKERS; i++)
        pthread_join(workers[i], NULL);
    for (i = 0; i < N_TASKS; i++)
        sum += results[i];
    printf("sum=%ld total=%ld\n", sum, total);
    return 0;
}
