/* racy.c — the racepred quick-start example.
 *
 * main and a worker thread both increment a global counter, and the
 * worker writes a heap block that main reads, with nothing ordering the
 * two threads until the join.  Build and run:
 *
 *   gcc -g -pthread examples/racy.c -o racy
 *   valgrind --tool=racepred ./racy
 *
 * racepred reports both races: `counter` (a global) and `shared[1]` (heap). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int counter;

static void *worker(void *arg)
{
    int *shared = arg;

    counter++;          /* races with main's counter++ */
    shared[1] = 42;     /* races with main's read of shared[1] */
    return NULL;
}

int main(void)
{
    int *shared = calloc(4, sizeof *shared);
    pthread_t thread;

    if (shared == NULL)
        return 1;
    pthread_create(&thread, NULL, worker, shared);
    counter++;
    printf("shared[1] = %d\n", shared[1]);
    pthread_join(thread, NULL);
    printf("counter = %d\n", counter);
    free(shared);
    return 0;
}
