/* A signal handler runs on the interrupted thread and communicates through
 * a volatile sig_atomic_t; a worker thread signals the process.  Output
 * and exit code must be the native ones. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
    got = sig;
}

static void *sender(void *arg)
{
    kill(getpid(), SIGUSR1);
    return arg;
}

int main(void)
{
    struct sigaction sa;
    pthread_t t;
    int i;

    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    printf("raised: %d\n", got == SIGUSR1);
    got = 0;
    pthread_create(&t, NULL, sender, NULL);
    pthread_join(t, NULL);
    for (i = 0; i < 1000 && !got; i++)
        usleep(1000);
    printf("from thread: %d\n", got == SIGUSR1);
    return 0;
}
