/* Polling loops with a call in them that are no waits (rp_waitcall.h),
 * so their flags stay plain variables and their races stay reported:
 *   poll_working   the loop calls a function of the program, which may
 *                  do anything, not a function that only waits;
 *   poll_counting  the code before the sched_yield call counts the
 *                  polls in a global (a loop that stores could be
 *                  waiting for itself);
 *   poll_then_work after sched_yield returns, the loop calls a function
 *                  of the program before it polls again;
 *   poll_then_count after sched_yield returns, the loop counts in a global;
 *   yield_then_work  do { v = flag; sched_yield(); work(); } while (!v);
 *                  the test after the wait, but the way back calls a
 *                  function of the program before it;
 *   count_flag     a counted loop (-O0) that tests a flag each time round
 *                  and comes back without waiting: no wait loop;
 *   compare_twice  no loop at all: `if (x == 3 || x >= 5)` (-O0) compares
 *                  the same variable twice, the second compare looking
 *                  like another copy of the first.
 * All but count_flag -O2, each on its own flag.  The other thread writes the flags
 * first and then writes a byte into a pipe that main reads before its
 * loops: run with --fd-sync=no, so that the order is the same in every
 * run and invisible to the detectors (each loop's first poll reads the
 * other thread's write and leaves the loop). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

static int stop1, stop2, stop3, stop4, stop5, stop6, stop7;
static long polls, polls2;
static int order[2];

static void *writer(void *arg)
{
    stop1 = 1;
    stop2 = 1;
    stop3 = 1;
    stop4 = 1;
    stop5 = 1;
    stop6 = 1;
    stop7 = 1;
    if (write(order[1], "x", 1) != 1)
        perror("write");
    return arg;
}

__attribute__((noinline)) static void work(void)
{
    __asm__ volatile("" ::: "memory");
}

__attribute__((optimize("O2"), noinline)) static void poll_working(void)
{
    while (!__atomic_load_n(&stop1, __ATOMIC_ACQUIRE))
        work();
}

__attribute__((optimize("O2"), noinline)) static void poll_counting(void)
{
    while (!__atomic_load_n(&stop2, __ATOMIC_ACQUIRE)) {
        polls++;
        sched_yield();
    }
}

__attribute__((optimize("O2"), noinline)) static void poll_then_work(void)
{
    while (!__atomic_load_n(&stop3, __ATOMIC_ACQUIRE)) {
        sched_yield();
        work();
    }
}

__attribute__((optimize("O2"), noinline)) static void poll_then_count(void)
{
    while (!__atomic_load_n(&stop4, __ATOMIC_ACQUIRE)) {
        sched_yield();
        polls2++;
    }
}

__attribute__((optimize("O2"), noinline)) static void yield_then_work(void)
{
    int v;

    do {
        v = __atomic_load_n(&stop7, __ATOMIC_ACQUIRE);
        sched_yield();
        work();
    } while (!v);
}

static int count_flag(void)
{
    int i, seen = 0;

    for (i = 0; i < 100; i++)
        if (__atomic_load_n(&stop5, __ATOMIC_ACQUIRE))
            seen++;
    return seen;
}

static int compare_twice(void)
{
    return stop6 == 3 || stop6 >= 5;
}

int main(void)
{
    pthread_t t;
    char c;

    if (pipe(order) != 0)
        return 1;
    pthread_create(&t, NULL, writer, NULL);
    if (read(order[0], &c, 1) != 1)
        return 1;
    poll_working();
    poll_counting();
    poll_then_work();
    poll_then_count();
    yield_then_work();
    printf("seen %d\n", count_flag());
    printf("compared %d\n", compare_twice());
    pthread_join(t, NULL);
    printf("polls %ld %ld\n", polls, polls2);
    return 0;
}
