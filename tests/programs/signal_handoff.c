/* Race-free: the root thread prepares a value, then installs a signal
 * handler and sends the signal to a worker that was already running; the
 * handler, on the worker, reads the value.  Installing a handler orders
 * before its runs (as under ThreadSanitizer). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static int prepared;
static volatile sig_atomic_t handled;
static int seen;

static void on_usr1(int sig)
{
    (void)sig;
    seen = prepared;
    handled = 1;
}

static void *worker(void *arg)
{
    (void)arg;
    while (!handled)
        usleep(1000);
    return NULL;
}

int main(void)
{
    struct sigaction act = { .sa_handler = on_usr1 };
    pthread_t t;

    pthread_create(&t, NULL, worker, NULL);
    prepared = 42;
    sigemptyset(&act.sa_mask);
    if (sigaction(SIGUSR1, &act, NULL) != 0)
        return 2;
    pthread_kill(t, SIGUSR1);
    pthread_join(t, NULL);
    printf("%d\n", seen);
    return 0;
}
