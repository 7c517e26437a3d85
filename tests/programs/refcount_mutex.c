/* Reference counting: an object shared by 4 threads, each of which fills
 * its own slot and drops its reference under the object's mutex; the
 * thread that drops the last reference reads every slot and frees the
 * object.  Race-free: each drop is ordered before the last one by the
 * mutex (atomic_refcount.c is the variant with an atomic counter). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N_THREADS 4

typedef struct {
    pthread_mutex_t mu;
    int refs;
    int slots[N_THREADS];
} object;

static long final_sum;

static void object_release(object *o)
{
    int last, i;

    pthread_mutex_lock(&o->mu);
    last = --o->refs == 0;
    pthread_mutex_unlock(&o->mu);
    if (!last)
        return;
    for (i = 0; i < N_THREADS; i++)
        final_sum += o->slots[i];
    pthread_mutex_destroy(&o->mu);
    free(o);
}

typedef struct {
    object *o;
    int index;
} work;

static void *user(void *arg)
{
    work *w = arg;

    w->o->slots[w->index] = w->index + 1;
    object_release(w->o);
    return NULL;
}

int main(void)
{
    pthread_t threads[N_THREADS];
    work works[N_THREADS];
    object *o = calloc(1, sizeof *o);
    int i;

    pthread_mutex_init(&o->mu, NULL);
    o->refs = N_THREADS + 1;
    for (i = 0; i < N_THREADS; i++) {
        works[i].o = o;
        works[i].index = i;
        pthread_create(&threads[i], NULL, user, &works[i]);
    }
    object_release(o);
    for (i = 0; i < N_THREADS; i++)
        pthread_join(threads[i], NULL);
    printf("sum=%ld\n", final_sum);
    return 0;
}
