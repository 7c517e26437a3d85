/* Race-free: system calls with garbage arguments, made while a second
 * thread exists (so that racepred watches them): buffers that are not
 * mapped, lengths up to SIZE_MAX, I/O vectors and messages that point
 * nowhere.  The kernel refuses each one; under racepred the program must
 * behave exactly as it does natively (the same errors, printed to stdout),
 * with no report and no walk of the address space the lengths span. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static void *idle(void *arg)
{
    return arg;
}

static void show(const char *call, long result)
{
    printf("%s: %ld %d\n", call, result, result < 0 ? errno : 0);
}

int main(void)
{
    static char text[] = "ok\n";
    struct iovec nowhere[2] = { { (void *)8, 100 }, { (void *)-1L, SIZE_MAX >> 2 } };
    struct msghdr message = { .msg_iov = (struct iovec *)24, .msg_iovlen = 5000 };
    volatile uintptr_t unmapped = 8;
    volatile size_t huge = SIZE_MAX;
    char buffer[16];
    pthread_t t;
    int fds[2];

    if (pipe(fds) != 0)
        return 1;
    pthread_create(&t, NULL, idle, NULL);
    show("write unmapped", write(fds[1], (const void *)unmapped, 10));
    show("write SIZE_MAX", write(fds[1], text, huge));
    show("write SIZE_MAX/4", write(fds[1], text, huge >> 2));
    show("writev nowhere", writev(fds[1], nowhere, 2));
    show("writev unmapped", writev(fds[1], (const struct iovec *)(unmapped + 8), 3));
    show("sendmsg nowhere", sendmsg(fds[1], &message, 0));
    show("write", write(fds[1], text, 3));
    show("read unmapped", read(fds[0], (void *)unmapped, 10));
    show("read SIZE_MAX/4", read(fds[0], buffer, huge >> 2));
    show("read SIZE_MAX", read(fds[0], buffer, huge));
    pthread_join(t, NULL);
    return 0;
}
