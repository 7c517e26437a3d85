/* Race-free: synchronising objects destroyed or freed in the ways POSIX
 * allows, right after their last use by another thread:
 *   - a semaphore on the stack as a completion: the worker posts, main
 *     waits and destroys it at once;
 *   - a mutex and a condition variable inside a heap object: the worker
 *     signals while holding the mutex, main wakes, unlocks, destroys
 *     both and frees the object;
 *   - a reference-counted object with its own mutex, freed by whichever
 *     of two workers drops the last reference (under that mutex). */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

static void *post_once(void *arg)
{
    sem_post(arg);
    return NULL;
}

static void completion_on_stack(void)
{
    sem_t done;
    pthread_t t;

    sem_init(&done, 0, 0);
    pthread_create(&t, NULL, post_once, &done);
    sem_wait(&done);
    sem_destroy(&done);
    pthread_join(t, NULL);
}

struct flag {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int set;
};

static void *raise_flag(void *arg)
{
    struct flag *f = arg;

    pthread_mutex_lock(&f->lock);
    f->set = 1;
    pthread_cond_signal(&f->changed);
    pthread_mutex_unlock(&f->lock);
    return NULL;
}

static void flag_on_heap(void)
{
    struct flag *f = malloc(sizeof *f);
    pthread_t t;

    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->changed, NULL);
    f->set = 0;
    pthread_create(&t, NULL, raise_flag, f);
    pthread_mutex_lock(&f->lock);
    while (!f->set)
        pthread_cond_wait(&f->changed, &f->lock);
    pthread_mutex_unlock(&f->lock);
    pthread_cond_destroy(&f->changed);
    pthread_mutex_destroy(&f->lock);
    free(f);
    pthread_join(t, NULL);
}

struct shared {
    pthread_mutex_t lock;
    int refs;
    int uses;
};

static void *use_and_release(void *arg)
{
    struct shared *s = arg;
    int last;

    pthread_mutex_lock(&s->lock);
    s->uses++;
    last = --s->refs == 0;
    pthread_mutex_unlock(&s->lock);
    if (last) {
        pthread_mutex_destroy(&s->lock);
        free(s);
    }
    return NULL;
}

static void refcounted(void)
{
    struct shared *s = malloc(sizeof *s);
    pthread_t t[2];
    int i;

    pthread_mutex_init(&s->lock, NULL);
    s->refs = 2;
    s->uses = 0;
    for (i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, use_and_release, s);
    for (i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
}

int main(void)
{
    completion_on_stack();
    flag_on_heap();
    refcounted();
    printf("done\n");
    return 0;
}
