/* A reference-counted object shared by several threads: each fills its own
 * slot and drops its reference with __atomic_fetch_sub; the thread that
 * drops the last one reads every slot and frees the object.  Race-free:
 * each decrement is ordered after the ones before it (an atomic
 * read-modify-write is synchronisation), so the last owner's reads and
 * free come after every slot's write. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4

struct object {
    int refs;
    int slots[THREADS];
};

static long sum;

static void release(struct object *o)
{
    int i;

    if (__atomic_fetch_sub(&o->refs, 1, __ATOMIC_ACQ_REL) != 1)
        return;
    for (i = 0; i < THREADS; i++)
        sum += o->slots[i];
    free(o);
}

static void *worker(void *arg)
{
    static int next_slot;
    struct object *o = arg;
    int slot = __atomic_fetch_add(&next_slot, 1, __ATOMIC_RELAXED);

    o->slots[slot] = slot + 1;
    release(o);
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    struct object *o = calloc(1, sizeof *o);
    int i;

    o->refs = THREADS;
    for (i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, o);
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("sum=%ld\n", sum);
    return 0;
}
