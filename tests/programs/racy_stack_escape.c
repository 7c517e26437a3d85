/* Racy, built -O0: locals of the main thread that another thread writes,
 * without synchronisation, after their address left main in each way the
 * private-stack rule (rp_privstack.h) watches.  Main writes each local
 * once more after the escape; that write must be reported against the
 * worker's:
 *   - by_create:   the address is pthread_create's argument;
 *   - by_global:   stored into a global (a plain store: that race is
 *                  reported too);
 *   - by_pipe:     written into a pipe the worker reads;
 *   - by_exchange: swapped into a global by an atomic exchange with
 *                  release order, which the worker loads with acquire:
 *                  main's later write is still unordered.
 * Each of the last three runs 4 KiB deeper than the one before, where the
 * earlier escapes (the pipe writes of each frame) did not reach, and main
 * makes a system call between them, so that the frame of the one before
 * has returned and is private again.  The pipes `go` and
 * `back` only order the run (--fd-sync=no): main writes first, and its
 * frame is live when the worker writes. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

static int go[2], back[2], data[2];
static int *by_global;
static int *by_exchange;

static void signal_fd(int fd)
{
    if (write(fd, "x", 1) != 1)
        _exit(1);
}

static void wait_fd(int fd)
{
    char c;

    if (read(fd, &c, 1) != 1)
        _exit(1);
}

static void *worker(void *arg)
{
    int *p;

    wait_fd(go[0]);
    *(int *)arg = 1;
    signal_fd(back[1]);
    wait_fd(go[0]);
    *by_global = 2;
    signal_fd(back[1]);
    if (read(data[0], &p, sizeof p) != sizeof p)
        return NULL;
    wait_fd(go[0]);
    *p = 3;
    signal_fd(back[1]);
    wait_fd(go[0]);
    p = __atomic_load_n(&by_exchange, __ATOMIC_ACQUIRE);
    *p = 4;
    signal_fd(back[1]);
    return NULL;
}

static void through_global(void)
{
    int local = 0;

    by_global = &local;
    local = 20;
    signal_fd(go[1]);
    wait_fd(back[0]);
}

static void through_pipe(void)
{
    int local = 0;
    int *p = &local;

    if (write(data[1], &p, sizeof p) != sizeof p)
        _exit(1);
    local = 30;
    signal_fd(go[1]);
    wait_fd(back[0]);
}

static void through_exchange(void)
{
    int local = 0;

    (void)__atomic_exchange_n(&by_exchange, &local, __ATOMIC_RELEASE);
    local = 40;
    signal_fd(go[1]);
    wait_fd(back[0]);
}

/* Runs fn `depth` bytes below this frame; the frames of the calls at
 * different depths do not overlap, so that no report is about one case's
 * local and the next one's call reusing its stack slot. */
static void at_depth(void (*fn)(void), unsigned depth)
{
    volatile char pad[depth];

    pad[0] = 0;
    fn();
    sched_yield();
    (void)pad[0];
}

int main(void)
{
    pthread_t t;
    int by_create = 0;

    if (pipe(go) != 0 || pipe(back) != 0 || pipe(data) != 0)
        return 1;
    pthread_create(&t, NULL, worker, &by_create);
    by_create = 10;
    signal_fd(go[1]);
    wait_fd(back[0]);
    at_depth(through_global, 4096);
    sched_yield();
    at_depth(through_pipe, 8192);
    sched_yield();
    at_depth(through_exchange, 12288);
    pthread_join(t, NULL);
    printf("done\n");
    return 0;
}
