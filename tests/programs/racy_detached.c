/* Four detached threads, one per way of detaching (created detached,
 * detached by main, detached by itself, C11's thrd_detach), each posting a
 * semaphore and
 * then writing its own flag, unordered with main's later read of it.  The
 * threads have exited, and their clocks are gone from the detectors
 * (rp_engine_thread_gone), before main reads: the four races must still
 * be reported, each naming the exited thread's write.
 */
#include <dirent.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <threads.h>
#include <unistd.h>

static sem_t started;
static int flag_attr, flag_main, flag_self, flag_c11;

static void *created_detached(void *arg)
{
    (void)arg;
    sem_post(&started);
    flag_attr = 1;
    return NULL;
}

static void *detached_by_main(void *arg)
{
    (void)arg;
    sem_post(&started);
    flag_main = 1;
    return NULL;
}

static void *detaches_itself(void *arg)
{
    (void)arg;
    pthread_detach(pthread_self());
    sem_post(&started);
    flag_self = 1;
    return NULL;
}

static void *detached_by_c11(void *arg)
{
    (void)arg;
    sem_post(&started);
    flag_c11 = 1;
    return NULL;
}

/* The threads of the process, as the kernel lists them. */
static int threads_alive(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return 1;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

int main(void)
{
    pthread_attr_t attr;
    pthread_t t;
    int i;

    sem_init(&started, 0, 0);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &attr, created_detached, NULL);
    pthread_create(&t, NULL, detached_by_main, NULL);
    pthread_detach(t);
    pthread_create(&t, NULL, detaches_itself, NULL);
    /* glibc's thrd_t is a pthread_t. */
    pthread_create(&t, NULL, detached_by_c11, NULL);
    thrd_detach((thrd_t)t);
    for (i = 0; i < 4; i++)
        sem_wait(&started);
    /* Let the threads exit: nothing a detached thread does at its end can
     * be waited for but its disappearance (at most 10 s). */
    for (i = 0; i < 1000 && threads_alive() > 1; i++)
        usleep(10000);
    printf("%d\n", flag_attr + flag_main + flag_self + flag_c11);
    return 0;
}
