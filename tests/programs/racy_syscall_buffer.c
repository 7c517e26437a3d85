/* Racy: a worker reads from /dev/zero into a buffer (the kernel writes
 * it) after a pause, while the root thread, unsynchronised, has stored
 * into the same buffer.  The report must name the read() call and the
 * root thread's store.  A second worker, joined before main reads its
 * buffer, writes a buffer into /dev/null: the kernel's read of it is
 * ordered and race-free. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static char incoming[64];
static char outgoing[64];

static void *fill_incoming(void *arg)
{
    int fd = open("/dev/zero", O_RDONLY);

    (void)arg;
    usleep(100000);
    if (fd < 0 || read(fd, incoming, sizeof incoming) != sizeof incoming)
        return NULL;
    close(fd);
    return NULL;
}

static void *send_outgoing(void *arg)
{
    int fd = open("/dev/null", O_WRONLY);

    (void)arg;
    if (fd < 0 || write(fd, outgoing, sizeof outgoing) != sizeof outgoing)
        return NULL;
    close(fd);
    return NULL;
}

int main(void)
{
    pthread_t filler, sender;

    outgoing[0] = 'o';
    pthread_create(&sender, NULL, send_outgoing, NULL);
    pthread_join(sender, NULL);
    outgoing[1] = 'k';
    pthread_create(&filler, NULL, fill_incoming, NULL);
    incoming[3] = 'a';
    pthread_join(filler, NULL);
    printf("%d %c%c\n", incoming[3], outgoing[0], outgoing[1]);
    return 0;
}
