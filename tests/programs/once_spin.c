/* Four threads call pthread_once on a routine that fills a table, then
 * read the table; then they add to a counter under a pthread spin lock.
 * Race-free: pthread_once returns only after the routine has run, in
 * whichever thread ran it. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4

static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static pthread_spinlock_t spin;
static int table[32];
static long total;

static void fill_table(void)
{
    int i;

    for (i = 0; i < 32; i++)
        table[i] = i;
}

static void *worker(void *arg)
{
    long sum = 0;
    int i;

    pthread_once(&table_once, fill_table);
    for (i = 0; i < 32; i++)
        sum += table[i];
    pthread_spin_lock(&spin);
    total += sum;
    pthread_spin_unlock(&spin);
    return arg;
}

int main(void)
{
    pthread_t t[THREADS];
    int i;

    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("total=%ld\n", total);
    return 0;
}
