/* Flags published with atomic release stores and polled with atomic
 * acquire loads: plain movs on x86, never a read-modify-write, so only
 * the polling loop shows that the flag synchronises (rp_spin.h).
 * Race-free; each case reads data another thread wrote before setting
 * the flag:
 *   set_before_poll  the flag is set before the waiter's first poll (the
 *                    writer's plain store becomes a send when the loop
 *                    makes the flag a synchronisation variable);
 *   poll_before_set  the waiter spins before the flag is set, in code
 *                    compiled with -O2 (a three-instruction loop);
 *   pause_loop       a loop with the pause hint, -O2;
 *   stack_flag       the waiter's flag is its own local variable, which
 *                    the other thread sets through a pointer;
 *   pointer_flag     the flag is main's local, the waiter reaches it
 *                    through a pointer in a structure on main's stack
 *                    (DataRaceBench's acquirerelease: the loop loads the
 *                    structure's address, the pointer, then the flag,
 *                    and each is polled; the structure was filled while
 *                    main's stack was private, --private-stacks);
 *   either_flag      while (!ready4 && !stop4);  -O2: VEX ends a block at
 *                    every conditional branch, so each flag's check is
 *                    a block of its own and each block's way back polls
 *                    the other flag (rp_waitcall.h);
 *   either_or        while (!(ready5 | stop5));  -O2, one block;
 *   either_or_copied the same loop with its check copied, each copy
 *                    jumping straight to the other (what gcc -O2 made of
 *                    it in a switch's case; in assembly to keep the
 *                    shape): each copy's way back is the other copy;
 *   either_cmp       two checks that compare the flags in memory
 *                    (`cmpl $0, flag`: the load is the compare's);
 *   spin_then_yield  while (!ready6) if (++spins > 100) sched_yield();
 *                    -O2: the way back through the counter does not
 *                    wait, the one through sched_yield does.
 * The test programs are built -O0; the -O2 loops ask for it themselves. */
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int data[4];
static int ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8;
static int stop4, stop5, stop7, stop8;

static void publish(int *flag, int base)
{
    int i;

    for (i = 0; i < 4; i++)
        data[i] = base + i;
    __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}

static int sum_data(void)
{
    return data[0] + data[1] + data[2] + data[3];
}

static void *set_ready1(void *arg)
{
    publish(&ready1, 10);
    return arg;
}

static int set_before_poll(void)
{
    pthread_t t;
    int sum;

    pthread_create(&t, NULL, set_ready1, NULL);
    usleep(200 * 1000);
    while (!__atomic_load_n(&ready1, __ATOMIC_ACQUIRE))
        ;
    sum = sum_data();
    pthread_join(t, NULL);
    return sum;
}

__attribute__((optimize("O2"), noinline)) static void wait_ready2(void)
{
    while (!__atomic_load_n(&ready2, __ATOMIC_ACQUIRE))
        ;
}

__attribute__((optimize("O2"), noinline)) static void wait_ready3(void)
{
    while (!__atomic_load_n(&ready3, __ATOMIC_ACQUIRE))
        __builtin_ia32_pause();
}

struct waiter {
    void (*wait)(void);
    int sum;
};

static void *sum_after_wait(void *arg)
{
    struct waiter *w = arg;

    w->wait();
    w->sum = sum_data();
    return NULL;
}

/* The waiter runs first and spins; main publishes after a while. */
static int poll_before_set(void (*wait)(void), int *flag, int base)
{
    pthread_t t;
    struct waiter w = { wait, 0 };

    pthread_create(&t, NULL, sum_after_wait, &w);
    usleep(200 * 1000);
    publish(flag, base);
    pthread_join(t, NULL);
    return w.sum;
}

static void *set_through_pointer(void *arg)
{
    usleep(100 * 1000);
    publish(arg, 40);
    return NULL;
}

static int stack_flag(void)
{
    pthread_t t;
    int mine = 0, sum;

    pthread_create(&t, NULL, set_through_pointer, &mine);
    while (!__atomic_load_n(&mine, __ATOMIC_ACQUIRE))
        ;
    sum = sum_data();
    pthread_join(t, NULL);
    return sum;
}

struct handoff {
    int *flag;
    int sum;
};

static void *sum_after_pointer_flag(void *arg)
{
    struct handoff *h = arg;
    int seen = 0;

    while (seen == 0)
        seen = __atomic_load_n(h->flag, __ATOMIC_ACQUIRE);
    h->sum = sum_data();
    return NULL;
}

static int pointer_flag(void)
{
    pthread_t t;
    int flag = 0;
    struct handoff h = { &flag, 0 };

    pthread_create(&t, NULL, sum_after_pointer_flag, &h);
    publish(&flag, 50);
    pthread_join(t, NULL);
    return h.sum;
}

__attribute__((optimize("O2"), noinline)) static void wait_ready4(void)
{
    while (!__atomic_load_n(&ready4, __ATOMIC_ACQUIRE)
           && !__atomic_load_n(&stop4, __ATOMIC_ACQUIRE))
        ;
}

__attribute__((optimize("O2"), noinline)) static void wait_ready5(void)
{
    while (!(__atomic_load_n(&ready5, __ATOMIC_ACQUIRE)
             | __atomic_load_n(&stop5, __ATOMIC_ACQUIRE)))
        ;
}

__attribute__((noinline)) static void wait_ready7(void)
{
    __asm__ volatile("1: movl %0, %%eax\n\t"
                     "movl %1, %%edx\n\t"
                     "orl %%edx, %%eax\n\t"
                     "jne 2f\n\t"
                     "movl %0, %%eax\n\t"
                     "movl %1, %%edx\n\t"
                     "orl %%edx, %%eax\n\t"
                     "je 1b\n"
                     "2:"
                     : : "m"(ready7), "m"(stop7) : "rax", "rdx", "cc", "memory");
}

__attribute__((noinline)) static void wait_ready8(void)
{
    __asm__ volatile("1: cmpl $0, %0\n\t"
                     "jne 2f\n\t"
                     "cmpl $0, %1\n\t"
                     "je 1b\n"
                     "2:"
                     : : "m"(ready8), "m"(stop8) : "cc", "memory");
}

__attribute__((optimize("O2"), noinline)) static void wait_ready6(void)
{
    int spins = 0;

    while (!__atomic_load_n(&ready6, __ATOMIC_ACQUIRE))
        if (++spins > 100)
            sched_yield();
}

int main(void)
{
    printf("set_before_poll %d\n", set_before_poll());
    printf("poll_before_set %d\n", poll_before_set(wait_ready2, &ready2, 20));
    printf("pause_loop %d\n", poll_before_set(wait_ready3, &ready3, 30));
    printf("stack_flag %d\n", stack_flag());
    printf("pointer_flag %d\n", pointer_flag());
    printf("either_flag %d\n", poll_before_set(wait_ready4, &ready4, 60));
    printf("either_or %d\n", poll_before_set(wait_ready5, &ready5, 70));
    printf("either_or_copied %d\n", poll_before_set(wait_ready7, &ready7, 90));
    printf("either_cmp %d\n", poll_before_set(wait_ready8, &ready8, 100));
    printf("spin_then_yield %d\n", poll_before_set(wait_ready6, &ready6, 80));
    return 0;
}
