/* Racy: a worker freads /dev/zero into a buffer after a pause while the
 * root thread, unsynchronised, has stored into it; libc copies the bytes
 * with its own code, which racepred does not instrument, and the preload's
 * fread wrapper announces them.  The root thread's fputs of its own
 * string after the join is race-free. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static char block[256];

static void *load(void *arg)
{
    FILE *f = fopen("/dev/zero", "r");

    (void)arg;
    usleep(100000);
    if (f == NULL || fread(block, 1, sizeof block, f) != sizeof block)
        return NULL;
    fclose(f);
    return NULL;
}

int main(void)
{
    pthread_t t;
    char done[] = "loaded\n";

    pthread_create(&t, NULL, load, NULL);
    block[100] = 'x';
    pthread_join(t, NULL);
    fputs(done, stdout);
    printf("%d\n", block[100]);
    return 0;
}
