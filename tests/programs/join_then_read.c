/* A worker fills a heap result and a global; main reads both only after
 * joining it: race-free.  The worker's return value travels through
 * glibc's thread descriptor, which pthread_join reads after waking up. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int answer;

static void *worker(void *arg)
{
    int *result = malloc(sizeof *result);

    (void)arg;
    *result = 6 * 7;
    answer = *result;
    return result;
}

int main(void)
{
    pthread_t t;
    void *ret;

    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, &ret);
    printf("answer=%d result=%d\n", answer, *(int *)ret);
    free(ret);
    return 0;
}
