/* Two workers increment a global counter without a lock: the second one's
 * read and write of `counter` race with the first one's write.
 *
 * The pipe only fixes which worker runs first, so the report is the same
 * on every run; run.sh runs this with --fd-sync=no, so that racepred does
 * not treat the pipe as synchronisation and the increments stay unordered. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int counter;
static int order[2];

static void *first_worker(void *arg)
{
    counter++;
    write(order[1], "x", 1);
    return arg;
}

static void *second_worker(void *arg)
{
    char c;

    read(order[0], &c, 1);
    counter++;
    return arg;
}

int main(void)
{
    pthread_t t1, t2;

    if (pipe(order) != 0)
        return 2;
    pthread_create(&t1, NULL, first_worker, NULL);
    pthread_create(&t2, NULL, second_worker, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("counter=%d\n", counter);
    return 0;
}
