/* Race-free: what a compressor's workers do with their own heap blocks
 * (rp_privheap.h).  Each worker allocates hash tables of its own, fills
 * them at random (16-bit entries, like zlib's hash chains), hands one to the
 * other worker through a mutex and a condition variable, and writes the
 * one it receives; main joins both and reads every table.  Between two
 * fills of its own table each worker writes a progress message (to
 * /dev/null) from a buffer on its stack: the message holds no address, so
 * the table stays private.  Main fills a table of its own after creating
 * the workers, whose argument does not lead to it.  Nothing races: the run must be silent, and its
 * events (`-v`) far fewer than with --private-heap=no. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#define ENTRIES 32768
#define ROUNDS 4

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static uint16_t *handed[2];
static uint16_t *kept[2];
static int progress_fd;

static void fill(uint16_t *table, unsigned seed)
{
    for (unsigned round = 0; round < ROUNDS; round++)
        for (unsigned i = 0; i < ENTRIES; i++) {
            seed = seed * 1103515245u + 12345u;
            table[(seed >> 8) % ENTRIES] = (uint16_t)(i + round);
        }
}

static void *worker(void *arg)
{
    long me = (long)arg;
    uint16_t *own = calloc(ENTRIES, sizeof *own);
    uint16_t *given = calloc(ENTRIES, sizeof *given);
    uint16_t *got;
    char message[64];
    int length;

    fill(own, (unsigned)me + 1);
    length = snprintf(message, sizeof message, "worker %ld: first table filled\n", me);
    if (write(progress_fd, message, (size_t)length) != length)
        return NULL;
    fill(own, (unsigned)me + 3);
    fill(given, (unsigned)me + 7);
    pthread_mutex_lock(&mu);
    handed[me] = given;
    pthread_cond_broadcast(&cv);
    while (handed[1 - me] == NULL)
        pthread_cond_wait(&cv, &mu);
    got = handed[1 - me];
    pthread_mutex_unlock(&mu);
    fill(got, (unsigned)me + 13);
    kept[me] = own;
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    unsigned long sum = 0;
    uint16_t *mine = calloc(ENTRIES, sizeof *mine);

    progress_fd = open("/dev/null", O_WRONLY);
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    fill(mine, 21);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++)
        for (unsigned j = 0; j < ENTRIES; j++)
            sum += kept[i][j] + handed[i][j] + mine[j];
    printf("%d\n", sum > 0);
    for (int i = 0; i < 2; i++) {
        free(kept[i]);
        free(handed[i]);
    }
    free(mine);
    return 0;
}
