/* Flags published with atomic release stores and polled with atomic
 * acquire loads in loops that yield or sleep between polls (rp_waitcall.h):
 * plain movs on x86, and a call in the loop, so only the loop's shape
 * through the call shows that the flag synchronises.  Race-free; each
 * case reads data another thread wrote before setting the flag:
 *   yield_loop      while (!flag) sched_yield();  -O2, the waiter first
 *   usleep_loop     while (!flag) usleep(1000);   -O2, the waiter first
 *   nanosleep_loop  a struct timespec in the frame, -O0, the waiter first
 *   yield_late      -O0, the flag set before the waiter's first poll
 *   thrd_yield_loop do thrd_yield(); while (!flag);  -O2
 *   yield_late_o2   -O2, the flag set before the first poll: gcc rotates
 *                   the loop and polls once before it (before it sets
 *                   up the frame the call needs), in another copy of
 *                   the check, which is all that runs;
 *   pointer_late_o2 the flag set first, polled through a pointer
 *                   argument (kept in a register the call preserves);
 *   bounded_late    -O2, the flag set first, polled by a bounded spin
 *                   (pause twelve times, then sched_yield, then give up:
 *                   libstdc++'s atomic wait), retried with usleep;
 *   yield_then_test do { v = flag; sched_yield(); } while (!v);  -O2:
 *                   the load ends its block at the call, the test is
 *                   after the call, on the way back, v in a register the
 *                   call preserves;
 *   yield_then_test_o0  the same at -O0, v in the frame;
 *   fence_loop      while (!flag) atomic_thread_fence(seq_cst);  -O2:
 *                   gcc's fence is `lock or $0, (%rsp)`, a locked
 *                   read-modify-write of the frame;
 *   handover        main hands a variable of its stack to a worker by
 *                   publishing its address in a pointer, then waits for
 *                   the worker to clear the pointer; the worker, which
 *                   starts polling later, writes the variable first.
 *                   main's own poll makes the pointer synchronisation,
 *                   after main wrote it.
 * The calls go through the PLT, bound lazily: the first poll is
 * translated before the first call binds it. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#define CASES 11

static int data[CASES][4];
static int flags[CASES];

static void publish(int which, int base)
{
    int i;

    for (i = 0; i < 4; i++)
        data[which][i] = base + i;
    __atomic_store_n(&flags[which], 1, __ATOMIC_RELEASE);
}

static int sum_data(int which)
{
    return data[which][0] + data[which][1] + data[which][2] + data[which][3];
}

__attribute__((optimize("O2"), noinline)) static void yield_loop(void)
{
    while (!__atomic_load_n(&flags[0], __ATOMIC_ACQUIRE))
        sched_yield();
}

__attribute__((optimize("O2"), noinline)) static void usleep_loop(void)
{
    while (!__atomic_load_n(&flags[1], __ATOMIC_ACQUIRE))
        usleep(1000);
}

static void nanosleep_loop(void)
{
    struct timespec pause = { 0, 1000 * 1000 };

    while (!__atomic_load_n(&flags[2], __ATOMIC_ACQUIRE))
        nanosleep(&pause, NULL);
}

static void yield_late(void)
{
    usleep(200 * 1000);
    while (!__atomic_load_n(&flags[3], __ATOMIC_ACQUIRE))
        sched_yield();
}

__attribute__((optimize("O2"), noinline)) static void thrd_yield_loop(void)
{
    do
        thrd_yield();
    while (!__atomic_load_n(&flags[4], __ATOMIC_ACQUIRE));
}

__attribute__((optimize("O2"), noinline)) static void poll_yield_o2(void)
{
    while (!__atomic_load_n(&flags[5], __ATOMIC_ACQUIRE))
        sched_yield();
}

static void yield_late_o2(void)
{
    usleep(200 * 1000);
    poll_yield_o2();
}

__attribute__((optimize("O2"), noinline)) static void wait_pointer_o2(int *flag)
{
    usleep(200 * 1000);
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void pointer_late_o2(void)
{
    wait_pointer_o2(&flags[6]);
}

__attribute__((optimize("O2"), noinline)) static int bounded_poll(const int *flag)
{
    int i;

    for (i = 0; i < 16; i++) {
        if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
            return 1;
        if (i < 12)
            __builtin_ia32_pause();
        else
            sched_yield();
    }
    return 0;
}

static void bounded_late(void)
{
    usleep(200 * 1000);
    while (!bounded_poll(&flags[7]))
        usleep(1000);
}

__attribute__((optimize("O2"), noinline)) static void yield_then_test(void)
{
    int v;

    do {
        v = __atomic_load_n(&flags[8], __ATOMIC_ACQUIRE);
        sched_yield();
    } while (!v);
}

static void yield_then_test_o0(void)
{
    int v;

    do {
        v = __atomic_load_n(&flags[9], __ATOMIC_ACQUIRE);
        sched_yield();
    } while (!v);
}

__attribute__((optimize("O2"), noinline)) static void fence_loop(void)
{
    while (!__atomic_load_n(&flags[10], __ATOMIC_ACQUIRE))
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void (*const waits[CASES])(void) = {
    yield_loop, usleep_loop, nanosleep_loop, yield_late, thrd_yield_loop,
    yield_late_o2, pointer_late_o2, bounded_late, yield_then_test, yield_then_test_o0,
    fence_loop,
};

static void *waiter(void *arg)
{
    int which = *(int *)arg;

    waits[which]();
    *(int *)arg = sum_data(which);
    return NULL;
}

/* The waiter runs first (but for the late ones, which sleep first); the
 * publisher after a while. */
static int wait_for(int which)
{
    pthread_t t;
    int arg = which;

    pthread_create(&t, NULL, waiter, &arg);
    usleep(which == 3 || (which >= 5 && which <= 7) ? 0 : 100 * 1000);
    publish(which, 10 * (which + 1));
    pthread_join(t, NULL);
    return arg;
}

static int *slot;

static void *take_over(void *arg)
{
    int *mine;

    usleep(200 * 1000);
    while ((mine = __atomic_load_n(&slot, __ATOMIC_ACQUIRE)) == NULL)
        sched_yield();
    *mine += 1;
    __atomic_store_n(&slot, NULL, __ATOMIC_RELEASE);
    return arg;
}

static int handover(void)
{
    pthread_t t;
    int value;

    pthread_create(&t, NULL, take_over, NULL);
    value = 41;
    __atomic_store_n(&slot, &value, __ATOMIC_RELEASE);
    while (__atomic_load_n(&slot, __ATOMIC_ACQUIRE) != NULL)
        usleep(1000);
    pthread_join(t, NULL);
    return value;
}

int main(void)
{
    static const char *const names[CASES] = {
        "yield_loop", "usleep_loop", "nanosleep_loop", "yield_late", "thrd_yield_loop",
        "yield_late_o2", "pointer_late_o2", "bounded_late", "yield_then_test",
        "yield_then_test_o0", "fence_loop",
    };
    int i;

    for (i = 0; i < CASES; i++)
        printf("%s %d\n", names[i], wait_for(i));
    printf("handover %d\n", handover());
    return 0;
}
