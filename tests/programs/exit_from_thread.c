/* A thread other than main ends the process with exit(7) while main waits
 * in pthread_join: the exit code must be 7 and stdout complete, as
 * natively. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *quitter(void *arg)
{
    printf("worker exits the process\n");
    fflush(stdout);
    exit(7);
    return arg;
}

int main(void)
{
    pthread_t t;

    printf("main starts\n");
    fflush(stdout);
    pthread_create(&t, NULL, quitter, NULL);
    pthread_join(t, NULL);
    printf("not reached\n");
    return 0;
}
