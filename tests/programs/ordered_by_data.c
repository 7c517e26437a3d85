/* Race-free in every schedule that keeps what each read sees: thread 2's
 * critical section reads the counter thread 1's wrote, so it cannot move
 * before it, and `shared` is written by thread 1 before that.  No sound
 * detector may confirm a race here (lockset calls it "possible").  The
 * pipe only fixes the observed order. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int shared;
int counter;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int order[2];

static void *first_thread(void *arg)
{
    shared = 1;
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
    write(order[1], "x", 1);
    return arg;
}

static void *second_thread(void *arg)
{
    char c;
    int seen;

    read(order[0], &c, 1);
    pthread_mutex_lock(&m);
    seen = counter;
    counter++;
    pthread_mutex_unlock(&m);
    if (seen == 1)
        shared = 2;
    return arg;
}

int main(void)
{
    pthread_t t1, t2;

    if (pipe(order) != 0)
        return 2;
    pthread_create(&t1, NULL, first_thread, NULL);
    pthread_create(&t2, NULL, second_thread, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("shared=%d counter=%d\n", shared, counter);
    return 0;
}
