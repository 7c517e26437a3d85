/* Every ordering C11 <threads.h> offers, used correctly: race-free.
 *
 * Workers add to a counter under an mtx_t (lock, and trylock/timedlock
 * loops), a producer hands a buffer over through a cnd_t (signal and
 * broadcast), call_once initialises a table every worker reads, a detached
 * thread reports through the mutex, and the results are read after
 * thrd_join. */
#include <stdio.h>
#include <threads.h>
#include <time.h>

#define WORKERS 4

static mtx_t lock;
static cnd_t ready_cond;
static once_flag table_once = ONCE_FLAG_INIT;
static int table[16];
static long counter;
static int ready;
static int buffer[8];
static int detached_done;

static void init_table(void)
{
    int i;

    for (i = 0; i < 16; i++)
        table[i] = i * 3;
}

static int worker(void *arg)
{
    long id = (long)arg;
    struct timespec deadline;
    int i;

    call_once(&table_once, init_table);
    for (i = 0; i < 50; i++) {
        if (i % 3 == 0) {
            while (mtx_trylock(&lock) != thrd_success)
                thrd_yield();
        } else if (i % 3 == 1) {
            timespec_get(&deadline, TIME_UTC);
            deadline.tv_sec += 10;
            if (mtx_timedlock(&lock, &deadline) != thrd_success)
                return 1;
        } else {
            mtx_lock(&lock);
        }
        counter += table[(id + i) % 16];
        mtx_unlock(&lock);
    }
    return (int)id;
}

static int producer(void *arg)
{
    int i;

    for (i = 0; i < 8; i++)
        buffer[i] = i * i;
    mtx_lock(&lock);
    ready = 1;
    cnd_signal(&ready_cond);
    cnd_broadcast(&ready_cond);
    mtx_unlock(&lock);
    return arg == NULL ? 0 : 1;
}

static int detached(void *arg)
{
    (void)arg;
    mtx_lock(&lock);
    detached_done = 1;
    cnd_broadcast(&ready_cond);
    mtx_unlock(&lock);
    thrd_exit(0);
}

int main(void)
{
    thrd_t workers[WORKERS], prod, det;
    struct timespec deadline;
    int i, res, sum = 0, ids = 0;

    mtx_init(&lock, mtx_timed);
    cnd_init(&ready_cond);
    for (i = 0; i < WORKERS; i++)
        thrd_create(&workers[i], worker, (void *)(long)i);
    thrd_create(&prod, producer, NULL);
    thrd_create(&det, detached, NULL);
    thrd_detach(det);

    mtx_lock(&lock);
    while (!ready)
        cnd_wait(&ready_cond, &lock);
    while (!detached_done) {
        timespec_get(&deadline, TIME_UTC);
        deadline.tv_sec += 1;
        cnd_timedwait(&ready_cond, &lock, &deadline);
    }
    mtx_unlock(&lock);
    for (i = 0; i < 8; i++)
        sum += buffer[i];

    for (i = 0; i < WORKERS; i++) {
        thrd_join(workers[i], &res);
        ids += res;
    }
    thrd_join(prod, NULL);
    printf("counter=%ld sum=%d ids=%d table=%d\n", counter, sum, ids, table[15]);
    cnd_destroy(&ready_cond);
    mtx_destroy(&lock);
    return 0;
}
