/* Two threads write `hits` while holding only the read side of an rwlock:
 * readers share the lock, so their writes are not ordered.  The report
 * shows the rwlock held by both accesses.  The pipe fixes the order. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int hits;
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static int order[2];

static void *first_reader(void *arg)
{
    pthread_rwlock_rdlock(&table_lock);
    hits++;
    pthread_rwlock_unlock(&table_lock);
    write(order[1], "x", 1);
    return arg;
}

static void *second_reader(void *arg)
{
    char c;

    read(order[0], &c, 1);
    pthread_rwlock_rdlock(&table_lock);
    hits++;
    pthread_rwlock_unlock(&table_lock);
    return arg;
}

int main(void)
{
    pthread_t t1, t2;

    if (pipe(order) != 0)
        return 2;
    pthread_create(&t1, NULL, first_reader, NULL);
    pthread_create(&t2, NULL, second_reader, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("hits=%d\n", hits);
    return 0;
}
