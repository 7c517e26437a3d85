/* Racy, built -O0: the writer's accesses share superblocks with earlier
 * accesses of the same base address, which --block-repeats leaves out of
 * the translated code only when an earlier one covers them.  Each racy
 * access below is *not* covered, and must be reported:
 *   - counter++: a read, then a write of the same bytes (a read does not
 *     cover a write);
 *   - a byte written, then the whole word read (a larger access);
 *   - one field written, then the next field read (another offset).
 * The reader thread runs after the writer (pipe) and touches the racy
 * bytes only. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int counter;

static union {
    unsigned char bytes[4];
    unsigned int word;
} packed;

static struct {
    int first, second;
} pair;

static int fds[2];

static void *writer(void *arg)
{
    unsigned int sum = 0;

    (void)arg;
    counter++;
    packed.bytes[0] = 1;
    sum += packed.word;
    pair.first = 2;
    sum += (unsigned int)pair.second;
    if (write(fds[1], "x", 1) != 1)
        return NULL;
    return (void *)(unsigned long)sum;
}

static void *reader(void *arg)
{
    char c;

    (void)arg;
    if (read(fds[0], &c, 1) != 1)
        return NULL;
    packed.bytes[2] = 3;
    pair.second = 4;
    return (void *)(long)counter;
}

int main(void)
{
    pthread_t w, r;

    if (pipe(fds) != 0)
        return 1;
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r, NULL, reader, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    printf("counter %d\n", counter);
    return 0;
}
