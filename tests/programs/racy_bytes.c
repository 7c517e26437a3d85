/* Two workers write parts of 4-byte words.  In `split` they write
 * different bytes (0 and 3): no race, racepred's granularity is the byte.
 * In `shared` the first writes bytes 0-1 and the second byte 1: a race on
 * byte 1.  Expected: exactly one report, at 1 byte inside `shared`.
 * (The pipe only fixes the order; not synchronisation under run.sh's --fd-sync=no.) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

union word {
    uint32_t whole;
    uint16_t halves[2];
    uint8_t bytes[4];
};

union word split;
union word shared;
static int order[2];

static void *low_writer(void *arg)
{
    split.bytes[0] = 1;
    shared.halves[0] = 0x0101;
    write(order[1], "x", 1);
    return arg;
}

static void *high_writer(void *arg)
{
    char c;

    read(order[0], &c, 1);
    split.bytes[3] = 2;
    shared.bytes[1] = 2;
    return arg;
}

int main(void)
{
    pthread_t t1, t2;

    if (pipe(order) != 0)
        return 2;
    pthread_create(&t1, NULL, low_writer, NULL);
    pthread_create(&t2, NULL, high_writer, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("split=%08x shared=%08x\n", (unsigned)split.whole, (unsigned)shared.whole);
    return 0;
}
