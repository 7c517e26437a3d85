/* Racy, built with -O2: the racy read is the first instruction of a
 * function, so Valgrind translates it in the caller's superblock (it
 * follows the call), where the translated code had not updated the
 * guest's instruction pointer.  The report must name show() as the
 * access and worker() as its caller (rp_instrument.c,
 * declare_stack_reads; rp_errors.c sets the IP). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int enabled = 1;
long shown;

__attribute__((noinline)) static void show(long n)
{
    if (!enabled)
        return;
    shown += n;
}

static void *worker(void *arg)
{
    (void)arg;
    usleep(200000);
    for (long i = 0; i < 3; i++)
        show(i);
    return NULL;
}

int main(void)
{
    pthread_t t;

    pthread_create(&t, NULL, worker, NULL);
    enabled = 0;
    pthread_join(t, NULL);
    printf("%ld\n", shown);
    return 0;
}
