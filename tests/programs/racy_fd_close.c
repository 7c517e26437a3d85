/* A descriptor is a location too (rp_syscalls.h): a close races with
 * another thread's use of the descriptor unless the use is ordered before
 * it.  The writer's write into the pipe wakes main, which then closes the
 * pipe's write end; run with --fd-sync=no, so that the pipe orders nothing
 * for the detectors: the close is a race with the write on that end. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];

static void *writer(void *arg)
{
    if (write(fds[1], "x", 1) != 1)
        perror("write");
    return arg;
}

int main(void)
{
    pthread_t t;
    char byte;

    if (pipe(fds) != 0)
        return 1;
    pthread_create(&t, NULL, writer, NULL);
    if (read(fds[0], &byte, 1) != 1)
        perror("read");
    close(fds[1]);
    close(fds[0]);
    pthread_join(t, NULL);
    printf("got %c\n", byte);
    return 0;
}
