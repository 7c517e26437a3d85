/* GLib: each worker increments `counter` under a GMutex, but not the same
 * one.  GLib's mutexes are futexes and atomics, not pthread mutexes; the
 * preload reports them as locks (rp_intercepts_glib.c), so the report says
 * which one each access held ("Locks held: 1, at address ...") where it
 * would say "none".
 *
 * The pipe only fixes which worker runs first (run.sh runs this with
 * --fd-sync=no), so the report is the same on every run. */
#include <glib.h>
#include <stdio.h>
#include <unistd.h>

int counter;
static GMutex lock_a;
static GMutex lock_b;
static int order[2];

static gpointer first_worker(gpointer arg)
{
    g_mutex_lock(&lock_a);
    counter++;
    g_mutex_unlock(&lock_a);
    if (write(order[1], "x", 1) != 1)
        return NULL;
    return arg;
}

static gpointer second_worker(gpointer arg)
{
    char c;

    if (read(order[0], &c, 1) != 1)
        return NULL;
    g_mutex_lock(&lock_b);
    counter++;
    g_mutex_unlock(&lock_b);
    return arg;
}

int main(void)
{
    GThread *t1, *t2;

    if (pipe(order) != 0)
        return 2;
    t1 = g_thread_new("first", first_worker, NULL);
    t2 = g_thread_new("second", second_worker, NULL);
    g_thread_join(t1);
    g_thread_join(t2);
    printf("counter=%d\n", counter);
    return 0;
}
