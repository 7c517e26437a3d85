/* Threads that open, use and close descriptors of their own at the same
 * time: the kernel hands a number one thread has just closed to another,
 * which is no race (rp_syscalls.h: a close forgets the descriptor's
 * location, an open starts it afresh).  Race-free. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define ROUNDS 200

static void *open_use_close(void *arg)
{
    long n = 0;
    int i;

    (void)arg;
    for (i = 0; i < ROUNDS; i++) {
        char byte = 'x';
        int fd = open("/dev/null", O_RDWR);

        if (fd < 0)
            continue;
        n += write(fd, &byte, 1);
        n += read(fd, &byte, 1);
        close(fd);
    }
    return (void *)n;
}

int main(void)
{
    pthread_t t[3];
    void *n;
    long total = 0;
    int i;

    for (i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, open_use_close, NULL);
    for (i = 0; i < 3; i++) {
        pthread_join(t[i], &n);
        total += (long)n;
    }
    printf("bytes written %ld\n", total);
    return 0;
}
