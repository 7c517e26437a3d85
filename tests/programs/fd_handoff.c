/* Race-free: three producers each prepare data and then announce it
 * through a file descriptor — a pipe, a socket pair, an eventfd — and the
 * root thread reads the descriptor before it reads the data.  A write into
 * a descriptor orders before the reads that take it (--fd-sync=yes, the
 * default); with --fd-sync=no each handoff is a race. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

struct handoff {
    int write_fd, read_fd;
    int data;
};

static void *produce(void *arg)
{
    struct handoff *h = arg;
    uint64_t one = 1;

    h->data = 42;
    if (write(h->write_fd, &one, sizeof one) != sizeof one)
        perror("write");
    return NULL;
}

static int take(struct handoff *h)
{
    pthread_t t;
    uint64_t got;

    pthread_create(&t, NULL, produce, h);
    if (read(h->read_fd, &got, sizeof got) != sizeof got)
        perror("read");
    int seen = h->data;
    pthread_join(t, NULL);
    return seen;
}

int main(void)
{
    int fds[2];
    struct handoff by_pipe, by_socket, by_eventfd;

    if (pipe(fds) != 0)
        return 2;
    by_pipe = (struct handoff){ fds[1], fds[0], 0 };
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
        return 2;
    by_socket = (struct handoff){ fds[0], fds[1], 0 };
    fds[0] = eventfd(0, 0);
    if (fds[0] < 0)
        return 2;
    by_eventfd = (struct handoff){ fds[0], fds[0], 0 };
    printf("%d %d %d\n", take(&by_pipe), take(&by_socket), take(&by_eventfd));
    return 0;
}
