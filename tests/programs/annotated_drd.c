/* Code annotated for DRD (drd.h) runs unchanged under racepred: race-free.
 *   ANNOTATE_HAPPENS_BEFORE/AFTER    order a hand-made publication flag;
 *   DRD_IGNORE_VAR                   an intentionally racy statistic;
 *   ANNOTATE_BENIGN_RACE_SIZED       the flag itself;
 *   ANNOTATE_IGNORE_WRITES/READS_*   a debug counter nobody synchronises;
 *   ANNOTATE_RWLOCK_ACQUIRED/RELEASED a home-made lock (a flag + sched_yield,
 *                                    whose own accesses are ignored). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <drd.h>

static int payload;
static volatile int ready;
static long hits;          /* racy on purpose */
static long debug_counter; /* racy, ignored */
static volatile int user_lock;
static int guarded;

static void my_lock(void)
{
    ANNOTATE_IGNORE_READS_AND_WRITES_BEGIN();
    while (__sync_lock_test_and_set(&user_lock, 1))
        sched_yield();
    ANNOTATE_IGNORE_READS_AND_WRITES_END();
    ANNOTATE_WRITERLOCK_ACQUIRED(&user_lock);
}

static void my_unlock(void)
{
    ANNOTATE_WRITERLOCK_RELEASED(&user_lock);
    ANNOTATE_IGNORE_READS_AND_WRITES_BEGIN();
    __sync_lock_release(&user_lock);
    ANNOTATE_IGNORE_READS_AND_WRITES_END();
}

static void *producer(void *arg)
{
    payload = 42;
    ANNOTATE_HAPPENS_BEFORE(&ready);
    ready = 1;
    hits++;
    ANNOTATE_IGNORE_WRITES_BEGIN();
    debug_counter++;
    ANNOTATE_IGNORE_WRITES_END();
    my_lock();
    guarded++;
    my_unlock();
    return arg;
}

int main(void)
{
    pthread_t t;
    int seen;

    DRD_IGNORE_VAR(hits);
    ANNOTATE_BENIGN_RACE_SIZED(&ready, sizeof ready, "publication flag");
    ANNOTATE_RWLOCK_CREATE(&user_lock);
    pthread_create(&t, NULL, producer, NULL);
    while (!ready)
        sched_yield();
    ANNOTATE_HAPPENS_AFTER(&ready);
    seen = payload;
    hits++;
    ANNOTATE_IGNORE_READS_BEGIN();
    printf("debug=%ld\n", debug_counter >= 0 ? 1L : 0L);
    ANNOTATE_IGNORE_READS_END();
    my_lock();
    guarded++;
    my_unlock();
    pthread_join(t, NULL);
    DRD_STOP_IGNORING_VAR(hits);
    printf("payload=%d guarded=%d tid=%u\n", seen, guarded,
           DRD_GET_DRD_THREADID == 0 ? 1 : 1);
    return 0;
}
