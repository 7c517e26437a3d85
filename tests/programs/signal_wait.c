/* Signals aimed at threads: a sigaction handler runs on the thread that
 * pthread_kill named, and a thread that sigwait()s for signals every
 * thread blocks receives each of them.  The handshake after each signal
 * (a counter under a mutex, a condition variable) keeps standard signals
 * from merging while pending.  Output and exit code must be the native
 * ones; race-free. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#define WAITED 10

static __thread volatile sig_atomic_t got_usr1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int usr2_received, term_received, target_handled;

static void on_usr1(int sig)
{
    got_usr1 = sig;
}

/* Waits (at most 10 s) for its own handler to run. */
static void *target(void *arg)
{
    int i;

    for (i = 0; i < 10000 && !got_usr1; i++)
        usleep(1000);
    pthread_mutex_lock(&lock);
    target_handled = got_usr1 == SIGUSR1;
    pthread_mutex_unlock(&lock);
    return arg;
}

/* Takes SIGUSR2 until SIGTERM, announcing each one. */
static void *waiter(void *arg)
{
    sigset_t *set = arg;
    int sig;

    do {
        if (sigwait(set, &sig) != 0)
            return NULL;
        pthread_mutex_lock(&lock);
        if (sig == SIGUSR2)
            usr2_received++;
        else
            term_received = sig == SIGTERM;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    } while (sig != SIGTERM);
    return NULL;
}

/* Blocks until the waiter has counted n SIGUSR2. */
static void await_usr2(int n)
{
    pthread_mutex_lock(&lock);
    while (usr2_received < n)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
}

int main(void)
{
    struct sigaction sa;
    sigset_t waited;
    pthread_t t, w;
    int i;

    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    sigemptyset(&waited);
    sigaddset(&waited, SIGUSR2);
    sigaddset(&waited, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &waited, NULL);  /* inherited by both threads */
    pthread_create(&t, NULL, target, NULL);
    pthread_create(&w, NULL, waiter, &waited);
    pthread_kill(t, SIGUSR1);
    for (i = 1; i <= WAITED; i++) {
        pthread_kill(w, SIGUSR2);
        await_usr2(i);
    }
    pthread_kill(w, SIGTERM);
    pthread_join(t, NULL);
    pthread_join(w, NULL);
    printf("handler on the target thread: %d, main's flag: %d\n", target_handled, got_usr1);
    printf("sigwait: %d SIGUSR2, then SIGTERM: %d\n", usr2_received, term_received);
    return 0;
}
