/* A writer updates a table under the write side of an rwlock while readers
 * sum it under the read side, taking it twice (recursively) on every
 * round: race-free.  Readers never order each other, but every reader is
 * ordered with every writer. */
#include <pthread.h>
#include <stdio.h>

#define READERS 3
#define ROUNDS 50

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static int table[8];

static void *writer(void *arg)
{
    int round, i;

    for (round = 0; round < ROUNDS; round++) {
        pthread_rwlock_wrlock(&lock);
        for (i = 0; i < 8; i++)
            table[i]++;
        pthread_rwlock_unlock(&lock);
    }
    return arg;
}

static void *reader(void *arg)
{
    long sum = 0;
    int round, i;

    for (round = 0; round < ROUNDS; round++) {
        pthread_rwlock_rdlock(&lock);
        pthread_rwlock_rdlock(&lock);
        for (i = 0; i < 8; i++)
            sum += table[i];
        pthread_rwlock_unlock(&lock);
        sum += table[0];
        pthread_rwlock_unlock(&lock);
    }
    return (void *)sum;
}

int main(void)
{
    pthread_t w, r[READERS];
    int i;

    pthread_create(&w, NULL, writer, NULL);
    for (i = 0; i < READERS; i++)
        pthread_create(&r[i], NULL, reader, NULL);
    pthread_join(w, NULL);
    for (i = 0; i < READERS; i++)
        pthread_join(r[i], NULL);
    printf("table[0]=%d\n", table[0]);
    return 0;
}
