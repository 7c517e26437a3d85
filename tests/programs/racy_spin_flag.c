/* A flag polled by a spin loop orders what its writer did before setting
 * it, not what it does after (rp_spin.h): the waiter's read of `late`,
 * written after the flag, races; `early` does not, nor does the flag.
 * The waiter spins before the flag is set (the writer sleeps first), so
 * the flag is a synchronisation variable when it is set. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int early, late, ready;

static void *writer(void *arg)
{
    usleep(200 * 1000);
    early = 1;
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    late = 2;
    return arg;
}

int main(void)
{
    pthread_t t;

    pthread_create(&t, NULL, writer, NULL);
    while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
        ;
    printf("early %d\n", early);
    printf("late %d\n", late == 0 ? 0 : 2);
    pthread_join(t, NULL);
    return 0;
}
