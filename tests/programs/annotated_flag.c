/* A producer publishes `payload` through a C11 release store to `ready`;
 * the consumer spins on an acquire load.  Race-free, but on x86 those
 * atomics are plain moves that racepred cannot tell from ordinary
 * accesses, so the program says what they mean with helgrind.h's
 * ANNOTATE_HAPPENS_BEFORE/AFTER and declares the flag's own accesses a
 * benign race (racepred understands both).  Expected: no report. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <helgrind.h>

static int payload;
static atomic_int ready;

static void *producer(void *arg)
{
    payload = 42;
    ANNOTATE_HAPPENS_BEFORE(&ready);
    atomic_store_explicit(&ready, 1, memory_order_release);
    return arg;
}

int main(void)
{
    pthread_t t;
    int seen;

    ANNOTATE_BENIGN_RACE_SIZED(&ready, sizeof ready, "publication flag");
    pthread_create(&t, NULL, producer, NULL);
    while (!atomic_load_explicit(&ready, memory_order_acquire))
        sched_yield();
    ANNOTATE_HAPPENS_AFTER(&ready);
    seen = payload;
    pthread_join(t, NULL);
    printf("seen=%d\n", seen);
    return 0;
}
