/* hidden_race.c with GLib's mutex: thread 1 writes `shared` and then takes
 * and releases `m`; thread 2, which the pipe makes run only afterwards,
 * takes and releases `m` and then writes `shared`.  The release → acquire
 * on `m` orders the two writes in this schedule, so --detector=hb reports
 * nothing; in the schedule where thread 2's critical section runs first
 * the writes are adjacent, and the default detectors report the race as
 * predicted, with that witness.  Seen as the atomics GLib builds its mutex
 * on, `m` would order the sections as a happens-before edge and no
 * detector could reorder them (rp_intercepts_glib.c). */
#include <glib.h>
#include <stdio.h>
#include <unistd.h>

int shared;
int first_owner, second_owner;
static GMutex m;
static int order[2];

static gpointer first_thread(gpointer arg)
{
    shared = 1;
    g_mutex_lock(&m);
    first_owner = 1;
    g_mutex_unlock(&m);
    if (write(order[1], "x", 1) != 1)
        return NULL;
    return arg;
}

static gpointer second_thread(gpointer arg)
{
    char c;

    if (read(order[0], &c, 1) != 1)
        return NULL;
    g_mutex_lock(&m);
    second_owner = 2;
    g_mutex_unlock(&m);
    shared = 2;
    return arg;
}

int main(void)
{
    GThread *t1, *t2;

    if (pipe(order) != 0)
        return 2;
    t1 = g_thread_new("first", first_thread, NULL);
    t2 = g_thread_new("second", second_thread, NULL);
    g_thread_join(t1);
    g_thread_join(t2);
    printf("shared=%d\n", shared);
    return 0;
}
