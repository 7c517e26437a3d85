/* GLib's synchronisation, race-free: each part hands data written before
 * a GLib primitive to another thread, which reads or writes it after.
 * GMutex and GCond are futexes and atomics (reported as locks and
 * condition variables by rp_intercepts_glib.c), GRecMutex and GRWLock
 * pthread objects behind the scenes, GOnce and the reference counts
 * atomics, GAsyncQueue and GThreadPool GMutex and GCond inside GLib.
 * Must be silent under every detector. */
#include <glib.h>
#include <stdio.h>

#define ROUNDS 200

/* GMutex: two threads add to a counter, one with g_mutex_trylock. */
static GMutex counter_lock;
static long counter;

static gpointer add_locked(gpointer arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        if (arg != NULL) {
            while (!g_mutex_trylock(&counter_lock))
                g_thread_yield();
        } else {
            g_mutex_lock(&counter_lock);
        }
        counter++;
        g_mutex_unlock(&counter_lock);
    }
    return NULL;
}

/* GCond: a value handed over under a flag, then a wait that times out. */
static GMutex hand_lock;
static GCond hand_cond;
static int hand_ready;
static long handed[64];

static gpointer hand_over(gpointer arg)
{
    for (int i = 0; i < 64; i++)
        handed[i] = i * 3;
    g_mutex_lock(&hand_lock);
    hand_ready = 1;
    g_cond_signal(&hand_cond);
    g_mutex_unlock(&hand_lock);
    return arg;
}

static long take_over(void)
{
    long sum = 0;

    g_mutex_lock(&hand_lock);
    while (!hand_ready)
        g_cond_wait(&hand_cond, &hand_lock);
    g_cond_wait_until(&hand_cond, &hand_lock, g_get_monotonic_time() + 1000);
    g_mutex_unlock(&hand_lock);
    for (int i = 0; i < 64; i++)
        sum += handed[i];
    return sum;
}

/* GRecMutex taken twice, GRWLock readers and a writer. */
static GRecMutex rec_lock;
static GRWLock rw_lock;
static long table[16];

static gpointer write_table(gpointer arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        g_rec_mutex_lock(&rec_lock);
        g_rec_mutex_lock(&rec_lock);
        g_rw_lock_writer_lock(&rw_lock);
        table[i % 16] += i;
        g_rw_lock_writer_unlock(&rw_lock);
        g_rec_mutex_unlock(&rec_lock);
        g_rec_mutex_unlock(&rec_lock);
    }
    return arg;
}

static gpointer read_table(gpointer arg)
{
    long *sum = arg;

    for (int i = 0; i < ROUNDS; i++) {
        g_rw_lock_reader_lock(&rw_lock);
        *sum += table[i % 16];
        g_rw_lock_reader_unlock(&rw_lock);
    }
    return NULL;
}

/* GOnce: one thread builds the table, every thread reads it. */
static long *shared_table;

static long *get_table(void)
{
    static gsize once;

    if (g_once_init_enter(&once)) {
        shared_table = g_new(long, 32);
        for (int i = 0; i < 32; i++)
            shared_table[i] = i;
        g_once_init_leave(&once, 1);
    }
    return shared_table;
}

static gpointer read_once(gpointer arg)
{
    *(long *)arg = get_table()[31];
    return NULL;
}

/* GAsyncQueue: heap blocks written by a producer, read and freed by the
 * consumer; GThreadPool: jobs whose results come back through a queue. */
static gpointer produce(gpointer arg)
{
    GAsyncQueue *queue = arg;

    for (int i = 1; i <= ROUNDS; i++) {
        long *item = g_new(long, 4);
        for (int k = 0; k < 4; k++)
            item[k] = i;
        g_async_queue_push(queue, item);
    }
    return NULL;
}

static void square(gpointer job, gpointer results)
{
    long *value = job;

    *value = *value * *value;
    g_async_queue_push(results, value);
}

static long run_pool(void)
{
    GAsyncQueue *results = g_async_queue_new();
    GThreadPool *pool = g_thread_pool_new(square, results, 2, FALSE, NULL);
    long sum = 0;

    for (long i = 1; i <= 50; i++) {
        long *job = g_new(long, 1);
        *job = i;
        g_thread_pool_push(pool, job, NULL);
    }
    for (int i = 0; i < 50; i++) {
        long *value = g_async_queue_pop(results);
        sum += *value;
        g_free(value);
    }
    g_thread_pool_free(pool, FALSE, TRUE);
    g_async_queue_unref(results);
    return sum;
}

int main(void)
{
    GThread *a, *b;
    long sum = 0, read_sum = 0, once_value = 0, once_main;
    GAsyncQueue *queue = g_async_queue_new();

    a = g_thread_new("add", add_locked, NULL);
    b = g_thread_new("try", add_locked, &counter);
    g_thread_join(a);
    g_thread_join(b);

    a = g_thread_new("hand", hand_over, NULL);
    sum = take_over();
    g_thread_join(a);

    a = g_thread_new("writer", write_table, NULL);
    b = g_thread_new("reader", read_table, &read_sum);
    g_thread_join(a);
    g_thread_join(b);

    a = g_thread_new("once", read_once, &once_value);
    once_main = get_table()[1];
    g_thread_join(a);
    once_value += once_main;

    a = g_thread_new("producer", produce, queue);
    for (int i = 0; i < ROUNDS; i++) {
        long *item = g_async_queue_pop(queue);
        sum += item[3];
        g_free(item);
    }
    g_thread_join(a);
    g_async_queue_unref(queue);

    printf("counter=%ld handed=%ld table=%ld once=%ld pool=%ld\n", counter, sum,
           table[5], once_value, run_pool());
    (void)read_sum;
    return 0;
}
